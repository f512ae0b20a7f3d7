// LSD radix sort, portable reduce-then-scan form: per pass a histogram, a scan and a stable scatter.
//
// `groups` work-groups each own a contiguous run of blocks (blocks_per_group blocks of RADIX_BLOCK keys),
// so the stable position of a key is: keys of smaller digits everywhere + keys of its digit in earlier
// groups (both from the scanned histogram) + keys of its digit earlier in this group. The last term is
// found block by block: the block is sorted stably by digit in local memory (a counting sort per 4 bits),
// which also makes the global writes of one digit contiguous.
// Keys are encoded (common.cl) as the first pass reads them and decoded as the last pass writes them.

#ifndef RADIX_BITS
#define RADIX_BITS 8
#endif
#ifndef RADIX_WG
#define RADIX_WG 256
#endif
#ifndef RADIX_ITEMS
#define RADIX_ITEMS 8  // keys per work-item per block; at most 15 (4-bit counters in the scatter)
#endif
#if RADIX_ITEMS > 15
#error "RADIX_ITEMS must be at most 15"
#endif
#if RADIX_WG < 8
#error "RADIX_WG must be at least 8"
#endif
// 1: the CPU shape's kernels only, 0: the GPU shape's. One program holds one shape, so a device never
// compiles kernels it will not run (PoCL's LLVM spends seconds per kernel on a cold build).
#ifndef RADIX_CPU
#define RADIX_CPU 0
#endif
#define RADIX (1u << RADIX_BITS)
#define RADIX_MASK (RADIX - 1u)
#define RADIX_BLOCK (RADIX_WG * RADIX_ITEMS)

inline uint digit_of(ukey_t k, uint shift) { return (uint)(k >> shift) & RADIX_MASK; }

// Exclusive scan of one value per work-item; *total gets the sum. Called by the whole group.
inline uint group_scan_exclusive(uint v, local uint* s, uint* total) {
  const uint lid = get_local_id(0);
  s[lid] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint off = 1; off < RADIX_WG; off <<= 1) {
    const uint add = lid >= off ? s[lid - off] : 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    s[lid] += add;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  const uint inclusive = s[lid];
  *total = s[RADIX_WG - 1];
  barrier(CLK_LOCAL_MEM_FENCE);
  return inclusive - v;
}

inline uint2 group_range(uint n, uint blocks_per_group) {
  const ulong begin = (ulong)get_group_id(0) * blocks_per_group * RADIX_BLOCK;
  const ulong end = begin + (ulong)blocks_per_group * RADIX_BLOCK;
  return (uint2)((uint)min(begin, (ulong)n), (uint)min(end, (ulong)n));
}

#if !RADIX_CPU

#ifdef RADIX_MATCH
// ---- NVIDIA shape (tuning radix.match=1, set by the driver on NVIDIA devices only): warp-level multisplit.
// Each warp ranks its keys by the full digit from peer masks (the lanes holding the same digit) and keeps
// per-warp digit counters in local memory, so one pass and a handful of barriers replace the portable
// path's two 4-bit counting sorts with a group scan each. Needs inline PTX, a warp of 32 (NVIDIA's) and a
// work-group of whole warps, which the driver checks. Warps are formed from consecutive local ids, so warp
// w is local ids 32w..32w+31; within a warp everything is in terms of %laneid, the order of the bits of
// ballot masks.
#if RADIX_WG % 32 != 0
#error "RADIX_MATCH needs a work-group of whole warps"
#endif
#if RADIX > RADIX_WG
#error "RADIX_MATCH needs a work-item per digit (RADIX <= RADIX_WG)"
#endif
#define WARPS (RADIX_WG / 32)
#define WARP_ITEMS (32 * RADIX_ITEMS)  // a warp's contiguous share of the block
#define HIST_LOADS 8                   // keys each work-item loads before counting them

INLINE uint ptx_lane_id(void) {
  uint r;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(r));
  return r;
}
INLINE uint ptx_lanemask_lt(void) {
  uint r;
  asm volatile("mov.u32 %0, %%lanemask_lt;" : "=r"(r));
  return r;
}
INLINE uint ptx_ballot(uint p) {
  uint r;
  asm volatile("{ .reg .pred q; setp.ne.u32 q, %1, 0; vote.sync.ballot.b32 %0, q, 0xffffffff; }"
               : "=r"(r)
               : "r"(p));
  return r;
}
// The lanes whose digit equals this lane's, as match.any.sync.b32 would give them, from one ballot per
// digit bit (CUB's MatchAny does the same): with match.any the H100 took 0.97 ms instead of 0.64 ms for
// the scatters of four passes over 2^24 u32 keys.
INLINE uint warp_peers(uint digit) {
  uint m = 0xffffffffu;
#pragma unroll
  for (uint b = 0; b < RADIX_BITS; ++b) {
    const uint bit = (digit >> b) & 1u;
    const uint votes = ptx_ballot(bit);
    m &= bit ? votes : ~votes;
  }
  return m;
}
INLINE uint ptx_shfl_up(uint v, uint delta) {
  uint r;
  asm volatile("shfl.sync.up.b32 %0, %1, %2, 0, 0xffffffff;" : "=r"(r) : "r"(v), "r"(delta));
  return r;
}
// Lanes of a warp may run apart (independent thread scheduling): this joins them and orders their local
// memory accesses, so a counter one lane writes is what the others read next.
INLINE void ptx_warp_sync(void) { asm volatile("bar.warp.sync 0xffffffff;" ::: "memory"); }

// Exclusive scan of one value per work-item in work-item order: shuffles within each warp, then each
// work-item adds the totals of the warps before it. One barrier; warp_tot may be rewritten only after
// the caller's next barrier.
INLINE uint warp_group_scan_exclusive(uint v, uint lane, uint warp, local uint* warp_tot) {
  uint x = v;
#pragma unroll
  for (uint off = 1; off < 32; off <<= 1) {
    const uint y = ptx_shfl_up(x, off);
    if (lane >= off) x += y;
  }
  if (lane == 31) warp_tot[warp] = x;
  barrier(CLK_LOCAL_MEM_FENCE);
  uint before = 0;
  for (uint w = 0; w < warp; ++w) before += warp_tot[w];
  return before + x - v;
}
#endif  // RADIX_MATCH

// counts[d * groups + g] = number of keys with digit d in group g's range.
kernel __attribute__((reqd_work_group_size(RADIX_WG, 1, 1))) void radix_histogram(
    global const ukey_t* src, uint n, uint shift, uint encode, uint kind, uint descending,
    uint blocks_per_group, global uint* counts) {
  local uint hist[RADIX];
  const uint lid = get_local_id(0);
  for (uint d = lid; d < RADIX; d += RADIX_WG) hist[d] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  const uint2 range = group_range(n, blocks_per_group);
#ifdef RADIX_MATCH
  // One load and its atomic per iteration keep too few loads in flight (about 1.3 TB/s on the H100):
  // issue HIST_LOADS loads before the atomics. The loop stops before base could wrap near n = 2^32.
  for (uint base = range.x; base < range.y; base += HIST_LOADS * RADIX_WG) {
    const uint left = range.y - base;
    ukey_t k[HIST_LOADS];
#pragma unroll
    for (uint h = 0; h < HIST_LOADS; ++h) {
      const uint i = h * RADIX_WG + lid;
      k[h] = i < left ? src[base + i] : 0;
    }
#pragma unroll
    for (uint h = 0; h < HIST_LOADS; ++h)
      if (h * RADIX_WG + lid < left)
        atomic_inc(&hist[digit_of(encode ? encode_key(k[h], kind, descending) : k[h], shift)]);
    if (left <= HIST_LOADS * RADIX_WG) break;
  }
#else
  for (uint i = range.x + lid; i < range.y; i += RADIX_WG) {
    ukey_t k = src[i];
    if (encode) k = encode_key(k, kind, descending);
    atomic_inc(&hist[digit_of(k, shift)]);
  }
#endif
  barrier(CLK_LOCAL_MEM_FENCE);
  const uint groups = get_num_groups(0);
  for (uint d = lid; d < RADIX; d += RADIX_WG) counts[d * groups + get_group_id(0)] = hist[d];
}

// One work-group per digit: turns counts[d][*] into exclusive prefix sums; totals[d] = digit total.
kernel __attribute__((reqd_work_group_size(RADIX_WG, 1, 1))) void radix_scan(global uint* counts,
                                                                            uint groups,
                                                                            global uint* totals) {
  local uint s[RADIX_WG];
  global uint* row = counts + get_group_id(0) * groups;
  const uint lid = get_local_id(0);
  uint carry = 0;
  for (uint base = 0; base < groups; base += RADIX_WG) {
    const uint i = base + lid;
    const uint v = i < groups ? row[i] : 0;
    uint total;
    const uint ex = group_scan_exclusive(v, s, &total);
    if (i < groups) row[i] = carry + ex;
    carry += total;
  }
  if (lid == 0) totals[get_group_id(0)] = carry;
}

#ifndef RADIX_MATCH
// Exclusive scan of 16 digit counters per work-item, packed two 16-bit counters per uint (block totals
// stay below 2^16, so the halves never carry into each other). Raking: each work-item serially scans 8
// consecutive work-items' entries of one of the 8 words, a short scan combines those segments, and the
// segment offsets are added back: about a quarter of the local traffic of a scan over whole vectors.
#define SCAN_SEGS (RADIX_WG / 8)                 // segments of 8 work-items per word
#define SCAN_PAD(i) ((i) + ((i) >> 6))           // skews rakers' strided accesses across banks
#define SCAN_WORDS (SCAN_PAD(RADIX_WG * 8) + 1)  // also holds each work-item's 16 ushort offsets
inline uint8 group_scan_exclusive8(uint8 v, local uint* s, local uint* seg_total, uint8* total) {
  const uint lid = get_local_id(0);
  uint mine[8];
  vstore8(v, 0, mine);
#pragma unroll
  for (uint w = 0; w < 8; ++w) s[SCAN_PAD(lid * 8 + w)] = mine[w];
  barrier(CLK_LOCAL_MEM_FENCE);
  const uint w = lid / SCAN_SEGS, seg = lid % SCAN_SEGS;
  uint run = 0;
#pragma unroll
  for (uint i = 0; i < 8; ++i) {
    const uint at = SCAN_PAD((seg * 8 + i) * 8 + w);
    const uint x = s[at];
    s[at] = run;
    run += x;
  }
  seg_total[lid] = run;  // lid == w * SCAN_SEGS + seg
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint off = 1; off < SCAN_SEGS; off <<= 1) {
    const uint add = seg >= off ? seg_total[lid - off] : 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    seg_total[lid] += add;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  const uint before = seg_total[lid] - run;
#pragma unroll
  for (uint i = 0; i < 8; ++i) s[SCAN_PAD((seg * 8 + i) * 8 + w)] += before;
  barrier(CLK_LOCAL_MEM_FENCE);
  uint tot[8];
#pragma unroll
  for (uint j = 0; j < 8; ++j) {
    mine[j] = s[SCAN_PAD(lid * 8 + j)];
    tot[j] = seg_total[j * SCAN_SEGS + SCAN_SEGS - 1];
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  *total = vload8(0, tot);
  return vload8(0, mine);
}

kernel __attribute__((reqd_work_group_size(RADIX_WG, 1, 1))) void radix_scatter(
    global const ukey_t* src, global ukey_t* dst,
#if VALUE_BYTES != 0
    global const value_t* vsrc, global value_t* vdst,
#endif
    uint n, uint shift, uint encode, uint decode, uint kind, uint descending, uint blocks_per_group,
    global const uint* counts, global const uint* totals) {
  local ukey_t lk[RADIX_BLOCK];
#if VALUE_BYTES != 0
  local value_t lv[RADIX_BLOCK];
#endif
  local uint ls[SCAN_WORDS];  // the packed-counter scan, then each work-item's 16 sub-digit offsets
  local uint seg_total[RADIX_WG];
  local uint next[RADIX];    // where this group's next key of each digit goes
  local uint start[RADIX];   // first position of each digit in the sorted block
  local uint s[RADIX_WG];
  local ushort* offsets = (local ushort*)ls;
  const uint lid = get_local_id(0);
  const uint groups = get_num_groups(0);

  uint carry = 0;
  for (uint b = 0; b < RADIX; b += RADIX_WG) {
    const uint d = b + lid;
    uint total;
    const uint ex = group_scan_exclusive(d < RADIX ? totals[d] : 0, s, &total);
    if (d < RADIX) next[d] = carry + ex + counts[d * groups + get_group_id(0)];
    carry += total;
  }
  barrier(CLK_LOCAL_MEM_FENCE);

  const uint2 range = group_range(n, blocks_per_group);
  for (uint blk = range.x; blk < range.y; blk += RADIX_BLOCK) {
    const uint valid = min((uint)RADIX_BLOCK, range.y - blk);
    ukey_t k[RADIX_ITEMS];
#if VALUE_BYTES != 0
    value_t v[RADIX_ITEMS];
#endif
    // Coalesced load, then a transpose through local memory so each work-item holds RADIX_ITEMS
    // consecutive keys (ranking them in order keeps the sort stable). Slots past the end hold the largest
    // key, which sorts last and stays last.
#pragma unroll
    for (uint j = 0; j < RADIX_ITEMS; ++j) {
      const uint p = lid + j * RADIX_WG;
      ukey_t key = KEY_MAX;
      if (p < valid) {
        key = src[blk + p];
        if (encode) key = encode_key(key, kind, descending);
#if VALUE_BYTES != 0
        lv[p] = vsrc[blk + p];
#endif
      }
#if VALUE_BYTES != 0
      // Padding slots move through the local sort like the rest (never stored): give them a defined
      // value, else every partial block reads indeterminate local memory (Oclgrind --uninitialized).
      else {
        lv[p] = 0;
      }
#endif
      lk[p] = key;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (uint j = 0; j < RADIX_ITEMS; ++j) {
      k[j] = lk[lid * RADIX_ITEMS + j];
#if VALUE_BYTES != 0
      v[j] = lv[lid * RADIX_ITEMS + j];
#endif
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    // Stable counting sort of the block by the digit, 4 bits at a time: each work-item counts its keys
    // per sub-digit in 4-bit fields of one register (hence RADIX_ITEMS <= 15), one group scan turns the
    // counters into offsets, and keys move to their rank through local memory.
    for (uint sub = 0; sub < RADIX_BITS; sub += 4) {
      const uint sshift = shift + sub;
      if (sshift >= KEY_BITS) break;  // the top digit may be narrower than RADIX_BITS
      const uint smask = (1u << min(4u, (uint)RADIX_BITS - sub)) - 1u;
      ulong c = 0;
      uint r[RADIX_ITEMS];
#pragma unroll
      for (uint j = 0; j < RADIX_ITEMS; ++j) {
        const uint d4 = 4 * ((uint)(k[j] >> sshift) & smask);
        r[j] = (uint)(c >> d4) & 15u;
        c += 1UL << d4;
      }
      uint8 packed;
      packed.s0 = (uint)(c & 0xF) | (uint)((c >> 4) & 0xF) << 16;
      packed.s1 = (uint)((c >> 8) & 0xF) | (uint)((c >> 12) & 0xF) << 16;
      packed.s2 = (uint)((c >> 16) & 0xF) | (uint)((c >> 20) & 0xF) << 16;
      packed.s3 = (uint)((c >> 24) & 0xF) | (uint)((c >> 28) & 0xF) << 16;
      packed.s4 = (uint)((c >> 32) & 0xF) | (uint)((c >> 36) & 0xF) << 16;
      packed.s5 = (uint)((c >> 40) & 0xF) | (uint)((c >> 44) & 0xF) << 16;
      packed.s6 = (uint)((c >> 48) & 0xF) | (uint)((c >> 52) & 0xF) << 16;
      packed.s7 = (uint)((c >> 56) & 0xF) | (uint)((c >> 60) & 0xF) << 16;
      uint8 total8;
      const uint8 before = group_scan_exclusive8(packed, ls, seg_total, &total8);
      uint tot[8], pre[8];
      vstore8(total8, 0, tot);
      vstore8(before, 0, pre);
      uint base = 0;
#pragma unroll
      for (uint d = 0; d < 16; ++d) {
        const uint t = (d & 1) ? tot[d / 2] >> 16 : tot[d / 2] & 0xFFFF;
        const uint mine = (d & 1) ? pre[d / 2] >> 16 : pre[d / 2] & 0xFFFF;
        offsets[lid * 16 + d] = (ushort)(base + mine);
        base += t;
      }
      barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
      for (uint j = 0; j < RADIX_ITEMS; ++j) {
        const uint to = offsets[lid * 16 + ((uint)(k[j] >> sshift) & smask)] + r[j];
        lk[to] = k[j];
#if VALUE_BYTES != 0
        lv[to] = v[j];
#endif
      }
      barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
      for (uint j = 0; j < RADIX_ITEMS; ++j) {
        k[j] = lk[lid * RADIX_ITEMS + j];
#if VALUE_BYTES != 0
        v[j] = lv[lid * RADIX_ITEMS + j];
#endif
      }
      barrier(CLK_LOCAL_MEM_FENCE);
    }

    // lk holds the block sorted by digit: each digit's keys go to consecutive global positions.
#pragma unroll
    for (uint j = 0; j < RADIX_ITEMS; ++j) {
      const uint p = lid + j * RADIX_WG;
      if (p < valid) {
        const uint d = digit_of(lk[p], shift);
        if (p == 0 || digit_of(lk[p - 1], shift) != d) start[d] = p;
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (uint j = 0; j < RADIX_ITEMS; ++j) {
      const uint p = lid + j * RADIX_WG;
      if (p < valid) {
        const ukey_t key = lk[p];
        const uint d = digit_of(key, shift);
        const uint to = next[d] + p - start[d];
        dst[to] = decode ? decode_key(key, kind, descending) : key;
#if VALUE_BYTES != 0
        vdst[to] = lv[p];
#endif
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (uint j = 0; j < RADIX_ITEMS; ++j) {
      const uint p = lid + j * RADIX_WG;
      if (p < valid) {
        const uint d = digit_of(lk[p], shift);
        if (p + 1 == valid || digit_of(lk[p + 1], shift) != d) next[d] += p + 1 - start[d];
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}
#else  // RADIX_MATCH

kernel __attribute__((reqd_work_group_size(RADIX_WG, 1, 1))) void radix_scatter(
    global const ukey_t* src, global ukey_t* dst,
#if VALUE_BYTES != 0
    global const value_t* vsrc, global value_t* vdst,
#endif
    uint n, uint shift, uint encode, uint decode, uint kind, uint descending, uint blocks_per_group,
    global const uint* counts, global const uint* totals) {
  local ukey_t lk[RADIX_BLOCK];
#if VALUE_BYTES != 0
  local value_t lv[RADIX_BLOCK];
#endif
  // Per-warp digit counters, warp-major; after the block scan, where each (digit, warp) run starts.
  local uint wcount[WARPS * RADIX];
  // Global position of a key of digit d at block position p: gofs[d] + p.
  local uint gofs[RADIX];
  local uint warp_tot[WARPS];
  const uint lid = get_local_id(0);
  const uint lane = ptx_lane_id(), warp = lid / 32;
  const uint lanes_before = ptx_lanemask_lt();
  local uint* my_count = wcount + warp * RADIX;

  // Work-item lid owns digit lid: where this group's next key of that digit goes.
  uint next = warp_group_scan_exclusive(lid < RADIX ? totals[lid] : 0, lane, warp, warp_tot);
  if (lid < RADIX) next += counts[lid * get_num_groups(0) + get_group_id(0)];

  const uint2 range = group_range(n, blocks_per_group);
  for (uint blk = range.x; blk < range.y; blk += RADIX_BLOCK) {
    const uint valid = min((uint)RADIX_BLOCK, range.y - blk);
    // Warp-striped: warp w holds block positions [w * WARP_ITEMS, (w + 1) * WARP_ITEMS), item j of
    // lane l being position w * WARP_ITEMS + 32 j + l. Ranking items in order, and lanes in order within
    // an item, is then input order: the sort stays stable. Loads are coalesced as they are. Slots past
    // the end hold the largest key: the largest digit and the latest positions, so they rank last.
    const uint first = warp * WARP_ITEMS + lane;
    ukey_t k[RADIX_ITEMS];
#if VALUE_BYTES != 0
    value_t v[RADIX_ITEMS];
#endif
#pragma unroll
    for (uint j = 0; j < RADIX_ITEMS; ++j) {
      const uint p = first + 32 * j;
      ukey_t key = KEY_MAX;
#if VALUE_BYTES != 0
      v[j] = 0;  // padding moves through local memory like the rest (never stored): keep it defined
#endif
      if (p < valid) {
        key = src[blk + p];
        if (encode) key = encode_key(key, kind, descending);
#if VALUE_BYTES != 0
        v[j] = vsrc[blk + p];
#endif
      }
      k[j] = key;
    }

    // Rank within the warp: the lanes sharing a digit read its counter, the lowest of them adds their
    // number, and each key's rank is the old count plus its peers in lower lanes. Only this warp touches
    // its counters, so warp syncs order them; the previous block's last readers are behind a barrier.
    for (uint d = lane; d < RADIX; d += 32) my_count[d] = 0;
    ptx_warp_sync();
    uint rank[RADIX_ITEMS];
#pragma unroll
    for (uint j = 0; j < RADIX_ITEMS; ++j) {
      const uint d = digit_of(k[j], shift);
      const uint peers = warp_peers(d);
      const uint lower = peers & lanes_before;
      const uint before = my_count[d];
      ptx_warp_sync();
      if (lower == 0) my_count[d] = before + popcount(peers);
      ptx_warp_sync();
      rank[j] = (before + popcount(lower)) | d << 16;  // the digit rides along: one register per key
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    // Block scan over (digit, warp) in digit-major order: work-item d sums its digit over the warps,
    // one group scan gives the digit's start in the block, and d writes each warp's start back.
    uint total = 0;
    if (lid < RADIX)
      for (uint w = 0; w < WARPS; ++w) total += wcount[w * RADIX + lid];
    const uint start = warp_group_scan_exclusive(total, lane, warp, warp_tot);
    if (lid < RADIX) {
      uint run = start;
      for (uint w = 0; w < WARPS; ++w) {
        const uint c = wcount[w * RADIX + lid];
        wcount[w * RADIX + lid] = run;
        run += c;
      }
      gofs[lid] = next - start;
      next += total;
    }
    barrier(CLK_LOCAL_MEM_FENCE);

#pragma unroll
    for (uint j = 0; j < RADIX_ITEMS; ++j) {
      const uint to = my_count[rank[j] >> 16] + (rank[j] & 0xFFFF);
      lk[to] = k[j];
#if VALUE_BYTES != 0
      lv[to] = v[j];
#endif
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    // lk holds the block sorted by digit: each digit's keys go to consecutive global positions.
#pragma unroll
    for (uint j = 0; j < RADIX_ITEMS; ++j) {
      const uint p = lid + j * RADIX_WG;
      if (p < valid) {
        const ukey_t key = lk[p];
        const uint to = gofs[digit_of(key, shift)] + p;
        dst[to] = decode ? decode_key(key, kind, descending) : key;
#if VALUE_BYTES != 0
        vdst[to] = lv[p];
#endif
      }
    }
    // The next block rewrites lk, wcount and gofs only after its own first barrier.
  }
}
#endif  // RADIX_MATCH

#endif  // !RADIX_CPU

#if RADIX_CPU
// ---- CPU shape (tuning radix.cpu=1): on CPU devices each work-group is one core's loop over its
// work-items and barriers cost a pass over them, so work-groups are single work-items with long serial
// loops. One most-significant-digit pass splits the keys into RADIX buckets (a stable counting sort per
// contiguous chunk, chunks in parallel); then each bucket is sorted by one work-item with LSD passes over
// the remaining bits. A bucket of n / RADIX keys fits a core's cache, so only the MSD pass pays for main
// memory: about 20 bytes per 32-bit key instead of 12 per pass.

// counts[d * chunks + c] = keys with digit d in chunk c.
kernel void radix_cpu_histogram(global const ukey_t* src, uint n, uint shift, uint encode, uint kind,
                                uint descending, uint chunk, global uint* counts) {
  const uint c = get_global_id(0), chunks = get_global_size(0);
  uint hist[RADIX];
  for (uint d = 0; d < RADIX; ++d) hist[d] = 0;
  const uint begin = min((ulong)c * chunk, (ulong)n), end = min((ulong)begin + chunk, (ulong)n);
  for (uint i = begin; i < end; ++i) {
    ukey_t k = src[i];
    if (encode) k = encode_key(k, kind, descending);
    ++hist[digit_of(k, shift)];
  }
  for (uint d = 0; d < RADIX; ++d) counts[d * chunks + c] = hist[d];
}

// Each chunk's first position per digit is the keys of smaller digits plus the keys of its digit in
// earlier chunks; with few chunks every work-item sums that itself, so no separate scan is needed.
kernel void radix_cpu_scatter(global const ukey_t* src, global ukey_t* dst,
#if VALUE_BYTES != 0
                              global const value_t* vsrc, global value_t* vdst,
#endif
                              uint n, uint shift, uint encode, uint decode, uint kind, uint descending,
                              uint chunk, global const uint* counts, global uint* starts) {
  const uint c = get_global_id(0), chunks = get_global_size(0);
  uint next[RADIX];
  uint base = 0;
  for (uint d = 0; d < RADIX; ++d) {
    uint before = 0, total = 0;
    for (uint o = 0; o < chunks; ++o) {
      const uint v = counts[d * chunks + o];
      total += v;
      before += o < c ? v : 0;
    }
    next[d] = base + before;
    if (c == 0) starts[d] = base;  // where each bucket begins, for radix_cpu_buckets
    base += total;
  }
  if (c == 0) starts[RADIX] = base;
  const uint begin = min((ulong)c * chunk, (ulong)n), end = min((ulong)begin + chunk, (ulong)n);
  for (uint i = begin; i < end; ++i) {
    ukey_t k = src[i];
    if (encode) k = encode_key(k, kind, descending);
    const uint to = next[digit_of(k, shift)]++;
    dst[to] = decode ? decode_key(k, kind, descending) : k;
#if VALUE_BYTES != 0
    vdst[to] = vsrc[i];
#endif
  }
}

// Buckets of at most this many keys are sorted by insertion: the LSD passes' per-pass histogram work
// (2 * RADIX steps) would outweigh a few dozen keys.
#ifndef RADIX_CPU_SMALL
#define RADIX_CPU_SMALL 64
#endif
// The most significant digit's shift and the LSD passes below it: constants, so that the per-key loops
// over passes unroll.
#define RADIX_CPU_SHIFT (KEY_BITS - RADIX_BITS)
#define RADIX_CPU_PASSES ((KEY_BITS - 1) / RADIX_BITS)

// Work-item b sorts bucket b, which the MSD pass left encoded in `tmp` at [starts[b], starts[b + 1]),
// by the bits below RADIX_CPU_SHIFT (least significant digit first, stable), and leaves it decoded in `keys`.
// A pass whose digit is the same for the whole bucket moves nothing and is skipped, so equal and
// few-unique keys cost little.
kernel void radix_cpu_buckets(global ukey_t* keys, global ukey_t* tmp,
#if VALUE_BYTES != 0
                              global value_t* values, global value_t* vtmp,
#endif
                              uint kind, uint descending, global const uint* starts) {
  const uint b = get_global_id(0);
  const uint begin = starts[b], size = starts[b + 1] - begin;
  global ukey_t* from = tmp + begin;
  global ukey_t* out = keys + begin;
#if VALUE_BYTES != 0
  global value_t* vfrom = vtmp + begin;
  global value_t* vout = values + begin;
#endif
  if (size <= RADIX_CPU_SMALL) {
    // Stable: a key moves only past strictly greater ones.
    for (uint i = 0; i < size; ++i) {
      const ukey_t k = from[i];
#if VALUE_BYTES != 0
      const value_t v = vfrom[i];
#endif
      uint j = i;
      for (; j > 0 && out[j - 1] > k; --j) {
        out[j] = out[j - 1];
#if VALUE_BYTES != 0
        vout[j] = vout[j - 1];
#endif
      }
      out[j] = k;
#if VALUE_BYTES != 0
      vout[j] = v;
#endif
    }
    for (uint i = 0; i < size; ++i) out[i] = decode_key(out[i], kind, descending);
    return;
  }
  // Every pass's histogram in one read of the bucket; a pass whose digit is constant moves nothing.
  // A digit reaching past RADIX_CPU_SHIFT takes MSD bits too, which are the same throughout the bucket.
  uint hist[RADIX_CPU_PASSES][RADIX];
  for (uint p = 0; p < RADIX_CPU_PASSES; ++p)
    for (uint d = 0; d < RADIX; ++d) hist[p][d] = 0;
  for (uint i = 0; i < size; ++i) {
    const ukey_t k = from[i];
    for (uint p = 0, s = 0; s < RADIX_CPU_SHIFT; ++p, s += RADIX_BITS) ++hist[p][digit_of(k, s)];
  }
  ulong active = 0;  // bit p: pass p moves keys
  uint last = 0;
  for (uint p = 0, s = 0; s < RADIX_CPU_SHIFT; ++p, s += RADIX_BITS) {
    uint sum = 0, single = 0;
    for (uint d = 0; d < RADIX; ++d) {
      const uint h = hist[p][d];
      single |= h == size;
      hist[p][d] = sum;
      sum += h;
    }
    if (!single) {
      active |= 1UL << p;
      last = p;
    }
  }
  // Passes alternate tmp -> keys -> tmp ...: an odd number of moving passes ends in `keys`, decoded by
  // the last; an even number (or none) ends in `tmp`, copied back decoded.
  global ukey_t* to = out;
#if VALUE_BYTES != 0
  global value_t* vto = vout;
#endif
  const uint moves = (uint)popcount(active);
  for (uint p = 0, s = 0; s < RADIX_CPU_SHIFT; ++p, s += RADIX_BITS) {
    if (!(active >> p & 1UL)) continue;
    const uint dec = p == last && moves % 2 == 1;
    for (uint i = 0; i < size; ++i) {
      const ukey_t k = from[i];
      const uint at = hist[p][digit_of(k, s)]++;
      to[at] = dec ? decode_key(k, kind, descending) : k;
#if VALUE_BYTES != 0
      vto[at] = vfrom[i];
#endif
    }
    global ukey_t* t = from;
    from = to;
    to = t;
#if VALUE_BYTES != 0
    global value_t* vt = vfrom;
    vfrom = vto;
    vto = vt;
#endif
  }
  if (moves % 2 == 0) {
    for (uint i = 0; i < size; ++i) out[i] = decode_key(from[i], kind, descending);
#if VALUE_BYTES != 0
    for (uint i = 0; i < size; ++i) vout[i] = vfrom[i];
#endif
  }
}
#endif  // RADIX_CPU
