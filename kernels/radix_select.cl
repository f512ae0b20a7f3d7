// Radix selection (top_k, select): MSD passes of 8 bits over the composite (key code, input index), which
// is unique, so every boundary resolves to exactly `need` elements and ties go to the lower index.
//
// Level L looks at the composite's L-th byte from the top: the key code's bytes first (KEY_BITS / 8
// levels), then the index's (4 levels, reached only while equal keys straddle the boundary). The state
// buffer holds, per level, the histogram of the level's candidates, their count, how many of them are
// still needed and whether the selection already finished; a level's kernel reads the words of its own
// level (written by the launches before it) and writes those of the next, so no work-group depends on
// another of the same launch, and the host reads nothing back between levels. Candidates are input
// indices; the key is re-read through the index (later levels hold few candidates).
//
// A guess spares level 0 a pass over every key. select_clear samples SELECT_SAMPLE evenly spaced keys and
// picks the top byte g at which the sample holds comfortably more than its share of `need`; the histogram
// pass then keeps the indices of the keys whose top byte is at most g (the candidates) and counts only
// those. Where they number at least `need`, they hold every key up to the boundary, and level 0 works on
// them alone. Where the sample misled, a second histogram pass counts every key and level 0 reads them
// all, as without a guess. No guess is taken where it would keep more than 1/SELECT_GUESS_SHARE of the
// sample (large k, few distinct keys): collecting that many would cost more than the pass it saves.

#ifndef SELECT_WG
#define SELECT_WG 256
#endif
#ifndef SELECT_ITEMS
#define SELECT_ITEMS 8  // elements per work-item per tile
#endif
#ifndef SELECT_SAMPLE
#define SELECT_SAMPLE 4096  // keys sampled for the guess; 0: no guess
#endif
#define SELECT_MARGIN 8       // sampled keys the guess keeps beyond its expected share of `need`
#define SELECT_GUESS_SHARE 8  // no guess that would keep more than 1/8 of the sample
#define SELECT_TILE (SELECT_WG * SELECT_ITEMS)
#define SELECT_RADIX 256
#define SELECT_CODE_LEVELS (KEY_BITS / 8)
#define SELECT_LEVELS (SELECT_CODE_LEVELS + 4)

// State words; select_clear sets them before the first level.
#define STATE_OUT 0     // elements written to the output so far
#define STATE_RESULT 1  // select: the input index of the element at the requested position
#define STATE_GUESS 2   // 1: the histogram pass collects the guess's candidates
#define STATE_GUESS_BUCKET 3
#define STATE_GUESS_COUNT 4  // candidates collected
#define STATE_COUNT(L) (16 + (L))
#define STATE_NEED(L) (32 + (L))
#define STATE_DONE(L) (48 + (L))
#define STATE_HIST(L) (64 + (L)*SELECT_RADIX)
#define STATE_GUESS_HIST STATE_HIST(SELECT_LEVELS + 1)  // the candidates' top bytes
#define STATE_WORDS STATE_HIST(SELECT_LEVELS + 2)

// With one work-item per group (the CPU shape) local counters need no atomics.
#if SELECT_WG == 1
#define LOCAL_INC(p) ((*(p))++)
#else
#define LOCAL_INC(p) atomic_inc(p)
#endif

// The order-preserving code with every NaN mapped to one code just above +inf (below -inf descending):
// the documented order leaves NaNs equivalent, so they tie and keep their input order like equal keys.
// Narrow keys' codes fill the low KEY_BITS bits of a uint (kernels/common.cl).
INLINE ukey_t select_code(ukey_t x, uint kind, uint descending) {
  ukey_t c = encode_key(x, kind, 0);
  if (kind >= KIND_FLOAT) {
    const ukey_t inf_bits = (KEY_SIGN - 1) ^ NAN_SPAN(kind);
    const ukey_t nan_code = ((inf_bits | KEY_SIGN) - NAN_SPAN(kind)) + 1;  // encode_key(+inf) + 1
    c = min(c, nan_code);
  }
  return descending ? c ^ KEY_MAX : c;
}

INLINE uint select_digit(ukey_t code, uint index, uint level) {
  if (level < SELECT_CODE_LEVELS) return (uint)(code >> (KEY_BITS - 8 * (level + 1))) & 0xFFu;
  return (index >> (24 - 8 * (level - SELECT_CODE_LEVELS))) & 0xFFu;
}

// Adds this group's local counts to the global histogram at state[at].
INLINE void select_flush(local uint* hist, global uint* state, uint at) {
  for (uint d = get_local_id(0); d < SELECT_RADIX; d += SELECT_WG)
    if (hist[d]) atomic_add(&state[at + d], hist[d]);
}

INLINE void select_zero(local uint* hist) {
  for (uint d = get_local_id(0); d < SELECT_RADIX; d += SELECT_WG) hist[d] = 0;
}

// By the whole group, after a barrier: hist's exclusive scan in place, and *found = the first digit whose
// inclusive sum reaches `reach` (SELECT_RADIX where none does); ends with a barrier. In parallel: one
// work-item walking the 256 counts held every level's groups up noticeably on a GPU.
INLINE void select_scan(local uint* hist, local uint* part, local uint* found, uint reach) {
#if SELECT_WG == 1
  uint sum = 0;
  *found = SELECT_RADIX;
  for (uint d = 0; d < SELECT_RADIX; ++d) {
    const uint h = hist[d];
    hist[d] = sum;
    if (sum < reach && reach <= sum + h) *found = d;
    sum += h;
  }
#else
  const uint lid = get_local_id(0);
  const uint per = (SELECT_RADIX + SELECT_WG - 1) / SELECT_WG;
  const uint lo = min(lid * per, (uint)SELECT_RADIX), hi = min(lo + per, (uint)SELECT_RADIX);
  uint sum = 0;
  for (uint d = lo; d < hi; ++d) sum += hist[d];
  part[lid] = sum;
  if (lid == 0) *found = SELECT_RADIX;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint off = 1; off < SELECT_WG; off <<= 1) {
    const uint v = lid >= off ? part[lid - off] : 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    part[lid] += v;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  uint run = part[lid] - sum;
  for (uint d = lo; d < hi; ++d) {
    const uint h = hist[d];
    hist[d] = run;
    if (run < reach && reach <= run + h) *found = d;  // one digit only: the inclusive sums never fall
    run += h;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
#endif
}

// One group: sets the state words, and guesses level 0's bucket from the sample.
kernel __attribute__((reqd_work_group_size(SELECT_WG, 1, 1))) void select_clear(global const gkey_t* keys,
                                                                                global uint* state, uint n,
                                                                                uint need, uint kind,
                                                                                uint descending) {
  local uint hist[SELECT_RADIX], part[SELECT_WG], found;
  for (uint i = get_local_id(0); i < STATE_WORDS; i += SELECT_WG)
    if (i != STATE_GUESS && i != STATE_GUESS_BUCKET)
      state[i] = i == STATE_COUNT(0) ? n : i == STATE_NEED(0) ? need : 0u;
  uint guess = 0, bucket = 0;
#if SELECT_SAMPLE > 0
  select_zero(hist);
  barrier(CLK_LOCAL_MEM_FENCE);
  const uint m = min((uint)SELECT_SAMPLE, n), stride = n / m;  // n >= need >= 1
  // 16 loads in flight per work-item before the first atomic: one at a time, the sample took longer than
  // three levels together on a GPU.
  for (uint first = 0; first < m; first += 16 * SELECT_WG) {
    ukey_t k[16];
#pragma unroll
    for (uint j = 0; j < 16; ++j) {
      const uint i = first + j * SELECT_WG + get_local_id(0);
      k[j] = i < m ? keys[i * stride] : 0;
    }
#pragma unroll
    for (uint j = 0; j < 16; ++j)
      if (first + j * SELECT_WG + get_local_id(0) < m)
        LOCAL_INC(&hist[select_digit(select_code(k[j], kind, descending), 0, 0)]);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  select_scan(hist, part, &found, (uint)((ulong)need * m / n) + 1 + SELECT_MARGIN);
  bucket = found;
  if (bucket < SELECT_RADIX)
    guess = (bucket + 1 < SELECT_RADIX ? hist[bucket + 1] : m) * SELECT_GUESS_SHARE <= m;
#endif
  if (get_local_id(0) == 0) {
    state[STATE_GUESS] = guess;
    state[STATE_GUESS_BUCKET] = bucket;
  }
}

// Level 0's histogram. Pass 0: of the guess's candidates, whose indices it collects into cand, or of every
// key where there is no guess. Pass 1: of every key, only where the guess collected too few.
kernel __attribute__((reqd_work_group_size(SELECT_WG, 1, 1))) void select_histogram(
    global const gkey_t* keys, global uint* cand, global uint* state, uint n, uint kind, uint descending,
    uint pass) {
  local uint hist[SELECT_RADIX], counter, at;
  const uint lid = get_local_id(0);
  const uint guess = state[STATE_GUESS];
  if (pass == 1 && !(guess && state[STATE_GUESS_COUNT] < state[STATE_NEED(0)])) return;
  const bool collect = pass == 0 && guess;
  const uint top = collect ? state[STATE_GUESS_BUCKET] : SELECT_RADIX - 1;
  select_zero(hist);
  if (lid == 0) counter = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  const uint stride = get_num_groups(0) * SELECT_TILE;
  for (uint base = get_group_id(0) * SELECT_TILE; base < n; base += stride) {
#if SELECT_WG > 1
    // Every load of the tile is issued before the first atomic: interleaved, NVIDIA's compiler waited for
    // each load before its atomic.
    ukey_t k[SELECT_ITEMS];
    uint slot[SELECT_ITEMS];
#pragma unroll
    for (uint j = 0; j < SELECT_ITEMS; ++j) {
      const uint i = base + j * SELECT_WG + lid;
      k[j] = i < n ? keys[i] : 0;
    }
#pragma unroll
    for (uint j = 0; j < SELECT_ITEMS; ++j) {
      const uint d = select_digit(select_code(k[j], kind, descending), 0, 0);
      slot[j] = ~0u;
      if (base + j * SELECT_WG + lid < n && d <= top) {
        LOCAL_INC(&hist[d]);
        if (collect) slot[j] = LOCAL_INC(&counter);
      }
    }
    // The candidates' places, one global atomic per tile. The barriers stand outside `if (collect)`,
    // though it is uniform: PoCL 3.1 miscompiled them inside it with groups of several work-items (wrong
    // candidates, then a crash in select_level; Oclgrind and Intel's runtime ran it correctly).
    {
      barrier(CLK_LOCAL_MEM_FENCE);
      if (lid == 0) {
        at = counter ? atomic_add(&state[STATE_GUESS_COUNT], counter) : 0;
        counter = 0;
      }
      barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
      for (uint j = 0; j < SELECT_ITEMS; ++j)
        if (slot[j] != ~0u) cand[at + slot[j]] = base + j * SELECT_WG + lid;
    }
#else
    uint kept[SELECT_ITEMS], count = 0;
    for (uint j = 0; j < SELECT_ITEMS; ++j) {
      const uint i = base + j + lid;
      if (i >= n) break;
      const uint d = select_digit(select_code(keys[i], kind, descending), 0, 0);
      if (d <= top) {
        LOCAL_INC(&hist[d]);
        kept[count] = i;
        count += collect;
      }
    }
    if (collect && count) {
      const uint first = atomic_add(&state[STATE_GUESS_COUNT], count);
      for (uint j = 0; j < count; ++j) cand[first + j] = kept[j];
    }
#endif
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  select_flush(hist, state, collect ? STATE_GUESS_HIST : STATE_HIST(0));
}

// One level: finds the byte value b whose bucket holds the boundary, then sends the candidates below b to
// the output (top_k), keeps those at b as the next level's candidates (with their next byte counted), and
// drops those above. Where bucket b holds exactly what is still needed (top_k) or one element (select),
// the selection ends here. Level 0 reads the guess's candidates, or every key where the guess failed or
// was not taken; later levels the candidates' indices.
kernel __attribute__((reqd_work_group_size(SELECT_WG, 1, 1))) void select_level(
    global const gkey_t* keys, global const uint* cand_in, global uint* cand_out, global uint* out,
    global uint* state, uint level, uint kind, uint descending, uint select_mode, uint out_size) {
  local uint hist[SELECT_RADIX];  // this level's histogram, then its exclusive scan
  local uint next[SELECT_RADIX];  // the next level's counts of this group's candidates
  local uint part[SELECT_WG], bucket, counters[2], bases[2];
  const uint lid = get_local_id(0);
  if (state[STATE_DONE(level)]) {
    if (get_group_id(0) == 0 && lid == 0) state[STATE_DONE(level + 1)] = 1;
    return;
  }
  const uint need = state[STATE_NEED(level)];
  const bool guessed = level == 0 && state[STATE_GUESS] && state[STATE_GUESS_COUNT] >= need;
  const uint count = guessed ? state[STATE_GUESS_COUNT] : state[STATE_COUNT(level)];
  const uint from = guessed ? STATE_GUESS_HIST : STATE_HIST(level);
  const bool direct = level == 0 && !guessed;
  for (uint d = lid; d < SELECT_RADIX; d += SELECT_WG) {
    hist[d] = state[from + d];
    next[d] = 0;
  }
  if (lid == 0) counters[0] = counters[1] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  select_scan(hist, part, &bucket, need);
  const uint b = bucket;
  const uint below = hist[b];
  const uint in_bucket = (b + 1 < SELECT_RADIX ? hist[b + 1] : count) - below;
  const uint still = need - below;
  const bool finish = select_mode ? in_bucket == 1 : in_bucket == still;
  if (get_group_id(0) == 0 && lid == 0) {
    state[STATE_NEED(level + 1)] = still;
    state[STATE_DONE(level + 1)] = finish;
  }

  const uint stride = get_num_groups(0) * SELECT_TILE;
  for (uint base = get_group_id(0) * SELECT_TILE; base < count; base += stride) {
    // Only the elements kept (output or next level) are stored, most are dropped: their input index and
    // their slot among the group's, the top bit set for the next level.
    uint kept_index[SELECT_ITEMS], kept_slot[SELECT_ITEMS], kept = 0;
    // Level 0 without a guess reads the keys in order (its loop vectorizes on CPU devices), the others
    // through indices.
#define SELECT_CLASSIFY(INDEX)                                                \
  for (uint j = 0; j < SELECT_ITEMS; ++j) {                                   \
    const uint i = base + j * SELECT_WG + lid;                                \
    if (i >= count) continue;                                                 \
    const uint index = INDEX;                                                 \
    const ukey_t code = select_code(keys[index], kind, descending);           \
    const uint d = select_digit(code, index, level);                          \
    const bool take = d < b || (d == b && finish);                            \
    if (take && select_mode) {                                                \
      if (d == b) state[STATE_RESULT] = index;                                \
    } else if (take || d == b) {                                              \
      const uint next_level = take ? 0u : 1u;                                 \
      if (next_level) LOCAL_INC(&next[select_digit(code, index, level + 1)]); \
      kept_index[kept] = index;                                               \
      kept_slot[kept] = LOCAL_INC(&counters[next_level]) | next_level << 31;  \
      ++kept;                                                                 \
    }                                                                         \
  }
    if (direct) {
      SELECT_CLASSIFY(i)
    } else {
      SELECT_CLASSIFY(cand_in[i])
    }
#undef SELECT_CLASSIFY
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0) {  // the counters are reset before the barrier that the next tile's counting follows
      bases[0] = counters[0] ? atomic_add(&state[STATE_OUT], counters[0]) : 0;
      bases[1] = counters[1] ? atomic_add(&state[STATE_COUNT(level + 1)], counters[1]) : 0;
      counters[0] = counters[1] = 0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint j = 0; j < kept; ++j) {
      const uint slot = kept_slot[j] & 0x7FFFFFFFu;
      if (kept_slot[j] >> 31) {
        cand_out[bases[1] + slot] = kept_index[j];
      } else {
        const uint at = bases[0] + slot;
        if (at < out_size) out[at] = kept_index[j];  // always: exactly out_size elements are selected
      }
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (!finish) select_flush(next, state, STATE_HIST(level + 1));
}

// The selected elements as sort keys. Keys of up to 4 bytes: (code << 32 | index), unique, so one sort of
// these 8-byte keys orders them by key and then by index. 8-byte keys: the code, for a stable sort by key
// of the selected indices, sorted first.
kernel void select_codes(global const gkey_t* keys, global const uint* selected, global ulong* codes, uint k,
                         uint kind, uint descending) {
  const uint i = get_global_id(0);
  if (i >= k) return;
  const uint index = selected[i];
  const ukey_t code = select_code(keys[index], kind, descending);
#if KEY_BITS <= 32
  codes[i] = (ulong)code << 32 | index;
#else
  codes[i] = code;
#endif
}

// The sorted selection's keys (their original bits, NaN payloads included) and indices.
kernel void select_gather(global const gkey_t* keys, global const ulong* codes, global const uint* selected,
                          global gkey_t* keys_out, global uint* indices_out, uint k) {
  const uint i = get_global_id(0);
  if (i >= k) return;
#if KEY_BITS <= 32
  const uint index = (uint)codes[i];
#else
  const uint index = selected[i];
#endif
  keys_out[i] = keys[index];
  indices_out[i] = index;
}

// select on device buffers: the key at the requested position.
kernel void select_result(global const gkey_t* keys, global const uint* state, global gkey_t* key_out) {
  if (get_global_id(0) == 0) key_out[0] = keys[state[STATE_RESULT]];
}
