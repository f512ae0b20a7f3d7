// Radix sort, Onesweep shape (tuning radix.onesweep=1; Adinets & Merrill 2022). Follows a ranking file.
//
// once for every pass's digit counts, then one kernel per pass in which each work-group ranks one tile
// and finds its global offsets by decoupled look-back over the tiles before it: 36 instead of 48 bytes
// per u32 key, and one launch per pass instead of three. The look-back waits for earlier tiles, so it
// needs them to make progress: tiles are numbered in the order work-groups start (an atomic counter),
// so every tile a group waits for belongs to a group already running. The driver enables it only where
// the tuning table says so and a self-test passed. Still, a group may be descheduled mid-tile (another
// context's work, a debugger), so the wait is bounded: past spin_limit reads, the waiting work-item counts
// the digit in that tile's keys itself (the pass's input, complete since the previous launch) and walks
// on, raising the timeout flag that the self-test reads. Slow, never wrong.
//
// state (from word state_at of the work buffer): the histogram (PASSES x RADIX counts over all keys),
// each pass's tile counter, the timeout flag, and the first key (encoded), which tells which passes have
// the same digit for every key. The buffer holds two copies of it, used by alternate sorts: a sort's
// histogram kernel zeroes the other copy for the next sort, so only a sort that finds no zeroed copy
// needs the clearing launch (a launch's host time on NVIDIA's OpenCL is a fair share of a small sort's).
// status (from word status_at): two look-back arrays (tiles x RADIX words each) used by
// alternate passes; a pass clears the other's for the next one, and the histogram kernel the first.
#define OS_COUNTERS (PASSES * RADIX)
#define OS_TIMEOUT (OS_COUNTERS + PASSES)
#define OS_KEY0 (OS_TIMEOUT + 1)  // two words
#define OS_AGGREGATE 0x40000000u  // the tile's own count of the digit
#define OS_PREFIX 0x80000000u     // the count over this and every earlier tile
#define OS_COUNT 0x3FFFFFFFu      // hence n < 2^30
#define OS_LOADS 4                // keys each work-item of the histogram loads before counting them

#ifndef RADIX_STATUS_VOLATILE
#define RADIX_STATUS_VOLATILE 0
#endif
#if RADIX_STATUS_VOLATILE
// (Set by the plan on NVIDIA.) Volatile loads go to L2, where the atomics that publish are performed; no
// read-modify-write traffic on the words being waited for.
INLINE uint status_load(global uint* p) {
  return *(volatile global uint*)p;
}
// A tile's owner stores zeroes over its row, which is zero already (the launch before cleared it) and which
// no other work-group writes, so no look-back can read a different value. It is for the cache: whole-sector
// stores bring the row into L2 without reading memory, where the atomics that publish would each wait for
// a DRAM read once the rows outgrow L2 (faster for u32 and u64 keys at large n, pairs level). NVIDIA only: the portable path's loads are atomic writes too, with
// which a plain store races.
INLINE void status_own_row(global uint* row) {
  for (uint d = get_local_id(0); d < RADIX; d += RADIX_WG) row[d] = 0;
}
#else
// OpenCL 1.2 promises nothing for plain loads racing with atomics, so the portable path reads atomically.
INLINE uint status_load(global uint* p) {
  return atomic_or((volatile global uint*)p, 0u);
}
INLINE void status_own_row(global uint* row) {}
#endif  // RADIX_STATUS_VOLATILE
INLINE void status_store(global uint* p, uint v) {
  atomic_xchg((volatile global uint*)p, v);
}

// Publishes tile t's count of digit d: as its inclusive prefix outright for the first tile. Published
// before the tile's local scatter, so later tiles find it sooner.
INLINE void publish_count(global uint* status, uint t, uint d, uint count) {
  status_store(status + (size_t)t * RADIX + d, (t == 0 ? OS_PREFIX : OS_AGGREGATE) | count);
}

// 1 (set by the host; see host/src/algorithms/radix/radix_plan.cpp for where): a work-group sorts tiles until none is left, loading the
// next tile's keys as soon as this one's are in local memory, so that the loads overlap this tile's
// look-back and scatter rather than open a new work-group's tile with nothing to hide them. It paid where
// each work-group gets several tiles but the keys still fit L2, with the previous ranking kernels; past L2
// it was level or slower. For 4-byte keys alone: values and 64-bit keys need the registers the next keys
// would take, and spilled (docs/tuning.md, radix.prefetch_max).
#ifndef RADIX_PREFETCH
#define RADIX_PREFETCH 0
#endif

// Predecessors' words read at once by the look-back: a walk over several tiles that have published only
// their counts costs one memory latency per window instead of one per tile.
#define OS_WINDOW 4

// Bit q: pass q moves nothing, its digit being the same for every key (the histogram at the first key's
// digit holds n); except that with an odd number of such passes the first one copies instead, so that the
// moving passes are even and the last writes to the caller's buffer. With an odd PASSES none is skipped.
INLINE ulong passes_skipped(global const uint* state, uint n) {
  ulong same = 0;
#if PASSES % 2 == 0
  ukey_t k0 = state[OS_KEY0];
#if UKEY_BITS == 64
  k0 |= (ulong)state[OS_KEY0 + 1] << 32;
#endif
  for (uint q = 0; q < PASSES; ++q)
    if (state[q * RADIX + digit_of(k0, RADIX_PASS_SHIFT(q))] == n) same |= 1UL << q;
  if ((PASSES - popcount(same)) % 2) same &= same - 1;
#endif
  return same;
}

// Keys of digit d in tile j of pass `pass`, from the keys themselves: what a look-back uses for a tile
// whose count it waited for in vain. Works out the pass's input again from the kernel's arguments rather
// than taking it from the caller, whose registers are tight (the u32 pass kernel spilled, and was slower).
INLINE uint recount(global const gkey_t* a, global const gkey_t* b, global const uint* state, uint n,
                    uint pass, uint kind, uint descending, uint j, uint d) {
  const ulong moving_before = ~passes_skipped(state, n) & ((1UL << pass) - 1);
  global const gkey_t* src = popcount(moving_before) & 1 ? b : a;
  const uint begin = j * RADIX_BLOCK, end = min(begin + RADIX_BLOCK, n);
  uint count = 0;
  for (uint i = begin; i < end; ++i) {
    const ukey_t k = moving_before == 0 ? encode_key(src[i], kind, descending) : src[i];
    count += digit_of(k, RADIX_PASS_SHIFT(pass)) == d;
  }
  return count;
}

// Digit d of tile t (count already published): sums the counts of earlier tiles back to the first
// inclusive prefix, publishes its own inclusive prefix, and returns the keys of d in earlier tiles. A
// spin_limit of 0 reads no earlier tile's word and recounts every one (the tests' way to reach recount).
INLINE uint look_back(global uint* status, uint t, uint d, uint count, global uint* state, uint spin_limit,
                      global const gkey_t* a, global const gkey_t* b, uint n, uint pass, uint kind,
                      uint descending) {
  if (t == 0) return 0;
  uint before = 0;
  uint stuck = spin_limit ? 0 : t;  // 1 + the tile whose word did not come
  bool done = stuck != 0;
  for (uint j = t; !done; j -= OS_WINDOW) {  // tiles below j are left to read; tile 0 ends every walk
    uint w[OS_WINDOW];
#pragma unroll
    for (uint k = 0; k < OS_WINDOW; ++k)
      w[k] = j > k ? status_load(status + (size_t)(j - 1 - k) * RADIX + d) : 0;
    for (uint k = 0; k < OS_WINDOW; ++k) {  // exits early: no unroll pragma (PoCL warns it cannot)
      if (done) break;
      global uint* at = status + (size_t)(j - 1 - k) * RADIX + d;
      uint v = w[k];
      for (uint spins = 0; v == 0 && spins < spin_limit; ++spins) v = status_load(at);
      if (v == 0) {
        stuck = j - k;
        done = true;
        break;
      }
      before += v & OS_COUNT;
      done = (v & OS_PREFIX) != 0;
    }
  }
  if (stuck) {
    atomic_or(&state[OS_TIMEOUT], 1u);
    for (uint tile = stuck; tile-- > 0;) {
      const uint v = spin_limit ? status_load(status + (size_t)tile * RADIX + d) : 0;
      before += v ? v & OS_COUNT : recount(a, b, state, n, pass, kind, descending, tile, d);
      if (v & OS_PREFIX) break;
    }
  }
  status_store(status + (size_t)t * RADIX + d, OS_PREFIX | (before + count));
  return before;
}

// Zeroes a copy of the state before a sort that finds none zeroed. A kernel rather than
// clEnqueueFillBuffer, whose zeroes Oclgrind does not count as initialized.
kernel void radix_onesweep_clear(global uint* words, uint count) {
  for (uint i = get_global_id(0); i < count; i += get_global_size(0)) words[i] = 0;
}

// Counts every pass's digits in one read of the keys, into the state at state_at. Also notes the first
// key, and zeroes the other copy of the state (state_words from other_at) for the next sort and the first
// pass's look-back words (status_words from status_at).
kernel __attribute__((reqd_work_group_size(RADIX_WG, 1, 1))) SG_KERNEL_ATTRS void radix_onesweep_histogram(
    global const gkey_t* src, uint n, uint kind, uint descending, global uint* work, uint state_at,
    uint other_at, uint state_words, uint status_at, uint status_words) {
  local uint hist[PASSES * RADIX];
  const uint lid = get_local_id(0);
  for (uint i = get_global_id(0); i < state_words; i += get_global_size(0)) work[other_at + i] = 0;
  for (uint i = get_global_id(0); i < status_words; i += get_global_size(0)) work[status_at + i] = 0;
  global uint* state = work + state_at;
  for (uint i = lid; i < PASSES * RADIX; i += RADIX_WG) hist[i] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  // Contiguous ranges of whole strides, OS_LOADS loads in flight before their atomics.
  const uint stride = OS_LOADS * RADIX_WG;
  const uint strides = (n + stride - 1) / stride;
  const uint per_group = (strides + (uint)get_num_groups(0) - 1) / (uint)get_num_groups(0);
  const uint begin = min((uint)get_group_id(0) * per_group, strides) * stride;
  const uint end = min(begin + per_group * stride, n);
  for (uint base = begin; base < end; base += stride) {
    ukey_t k[OS_LOADS];
#pragma unroll
    for (uint h = 0; h < OS_LOADS; ++h) {
      const uint i = base + h * RADIX_WG + lid;
      k[h] = i < end ? src[i] : 0;
    }
#pragma unroll
    for (uint h = 0; h < OS_LOADS; ++h)
      if (base + h * RADIX_WG + lid < end) {
        const ukey_t key = encode_key(k[h], kind, descending);  // after every load went out (load_keys)
        for (uint q = 0; q < PASSES; ++q) atomic_inc(&hist[q * RADIX + digit_of(key, RADIX_PASS_SHIFT(q))]);
      }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint i = lid; i < PASSES * RADIX; i += RADIX_WG)
    if (hist[i]) atomic_add(&state[i], hist[i]);
  if (get_global_id(0) == 0) {
    const ukey_t k0 = encode_key(src[0], kind, descending);
    state[OS_KEY0] = (uint)k0;
#if UKEY_BITS == 64
    state[OS_KEY0 + 1] = (uint)(k0 >> 32);
#endif
  }
}

// Pass `pass` over the keys, which alternate between a (the caller's buffer) and b (scratch). A pass
// whose digit is the same for every key moves nothing and is skipped, unless it must copy so that the
// last moving pass writes to a (an even number of moves); with an odd PASSES nothing is skipped and the
// driver copies the result back. Work-groups take tiles in the order they start (see above).
kernel __attribute__((reqd_work_group_size(RADIX_WG, 1, 1))) SG_KERNEL_ATTRS void radix_onesweep(
    global gkey_t* a, global gkey_t* b, VALUES(global value_t* va, global value_t* vb, ) uint n, uint pass,
    uint kind, uint descending, global uint* work, uint state_at, uint status_at, uint tiles,
    uint spin_limit) {
  local uint gofs[RADIX];
  local uint tile;
  RANK_LOCALS;
  const uint lid = get_local_id(0);

  global uint* state = work + state_at;
  global uint* status = work + status_at;
  global uint* next_status = status + (size_t)((pass + 1) & 1) * tiles * RADIX;
  // Written out like status_own_row's loop: one helper for both made the u32 pass slower, the 64-register
  // kernel being sensitive to small code changes.
  for (uint d = lid; d < RADIX; d += RADIX_WG) next_status[(size_t)get_group_id(0) * RADIX + d] = 0;
  global uint* my_status = status + (size_t)(pass & 1) * tiles * RADIX;

  const ulong same = passes_skipped(state, n);
  if (same >> pass & 1) return;  // the same for the whole group: no barrier is left unmet
  const ulong moving_before = ~same & ((1UL << pass) - 1);
  const ulong moving_after = ~same & ~((2UL << pass) - 1) & (((1UL << (PASSES - 1)) << 1) - 1);
  const uint flip = popcount(moving_before) & 1;
  global const gkey_t* src = flip ? b : a;
  global gkey_t* dst = flip ? a : b;
  VALUES(global const value_t* vsrc = flip ? vb : va; global value_t* vdst = flip ? va : vb;)
  const uint encode = moving_before == 0, decode = moving_after == 0;
  const uint shift = RADIX_PASS_SHIFT(pass);

  if (lid == 0) tile = atomic_inc(&state[OS_COUNTERS + pass]);
  barrier(CLK_LOCAL_MEM_FENCE);
  global const uint* hist = state + pass * RADIX;
#ifdef RADIX_MATCH
  uint t = tile;
  if (RADIX_PREFETCH && t >= tiles) return;  // the same for the whole group
  status_own_row(my_status + (size_t)t * RADIX);
  // Work-item d owns digit d: keys of smaller digits.
  const uint smaller = rank_scan_exclusive(lid < RADIX ? hist[lid] : 0, scan_tmp);
  ukey_t k[RADIX_ITEMS];
  load_keys(src, t * RADIX_BLOCK, min((uint)RADIX_BLOCK, n - t * RADIX_BLOCK), k);
  for (;;) {  // once, unless RADIX_PREFETCH
    const uint blk = t * RADIX_BLOCK;
    const uint valid = min((uint)RADIX_BLOCK, n - blk);
    uint to[RADIX_ITEMS], dest[RADIX_ITEMS], count, start;
    count_keys(valid, shift, encode, kind, descending, k, wcount, wmask, scan_tmp, &count, &start);
    // The next tile is claimed here rather than as this one began: a claimed tile's counts are what later
    // tiles' look-backs wait for, and this way they come out one ranking after the claim, not a tile.
    if (RADIX_PREFETCH && lid == 0) tile = atomic_inc(&state[OS_COUNTERS + pass]);
    if (lid < RADIX) publish_count(my_status, t, lid, count);
    rank_keys(k, shift, wcount, wmask, to);
    const uint next = RADIX_PREFETCH ? tile : tiles;
    VALUES(value_t v[RADIX_ITEMS]; if (VALUES_EARLY) load_values(vsrc, blk, valid, v);)
#pragma unroll
    for (uint j = 0; j < RADIX_ITEMS; ++j) lk[to[j]] = k[j];
    if (next < tiles) load_keys(src, next * RADIX_BLOCK, min((uint)RADIX_BLOCK, n - next * RADIX_BLOCK), k);
    if (lid < RADIX)
      gofs[lid] = smaller +
                  look_back(my_status, t, lid, count, state, spin_limit, a, b, n, pass, kind, descending) -
                  start;
    barrier(CLK_LOCAL_MEM_FENCE);
    store_keys(lk, valid, shift, decode, kind, descending, gofs, dst, dest);
    VALUES(if (!VALUES_EARLY) load_values(vsrc, blk, valid, v); exchange_values(v, to, lv);
           store_values(lv, dest, valid, vdst);)
    if (next >= tiles) break;
    barrier(CLK_LOCAL_MEM_FENCE);  // the next tile's counters reuse lk's words, and its offsets gofs
    t = next;
    status_own_row(my_status + (size_t)t * RADIX);
  }
#else
  const uint t = tile;
  status_own_row(my_status + (size_t)t * RADIX);
  const uint blk = t * RADIX_BLOCK;
  const uint valid = min((uint)RADIX_BLOCK, n - blk);
  local ukey_t lk[RADIX_BLOCK];
  VALUES(local value_t lv[RADIX_BLOCK];)
  local uint start[RADIX], end[RADIX];
  local uint s[RADIX_WG];
  for (uint d = lid; d < RADIX; d += RADIX_WG) start[d] = end[d] = 0;
  sort_block(src, VALUES(vsrc, ) blk, valid, shift, encode, kind, descending, lk, VALUES(lv, ) ls, seg_total);
  find_runs(lk, valid, shift, start, end);
  for (uint d = lid; d < RADIX; d += RADIX_WG) publish_count(my_status, t, d, end[d] - start[d]);
  uint carry = 0;
  for (uint c = 0; c < RADIX; c += RADIX_WG) {
    const uint d = c + lid;
    uint total;
    const uint smaller = carry + group_scan_exclusive(d < RADIX ? hist[d] : 0, s, &total);
    carry += total;
    if (d < RADIX)
      gofs[d] =
          smaller +
          look_back(my_status, t, d, end[d] - start[d], state, spin_limit, a, b, n, pass, kind, descending) -
          start[d];
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  uint dest[RADIX_ITEMS];
  store_keys(lk, valid, shift, decode, kind, descending, gofs, dst, dest);
  VALUES(store_values(lv, dest, valid, vdst);)
#endif
}
