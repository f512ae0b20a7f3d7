// Radix ranking for any device: a tile sorted stably by digit in local memory, a counting sort per 4 bits
// with a raking scan of packed counters. Needs nothing of the device beyond barriers. Follows
// radix_common.cl.
#if RADIX_ITEMS > 15
#error "RADIX_ITEMS must be at most 15 for the portable ranking's 4-bit counters"
#endif
#define SG_KERNEL_ATTRS  // no sub-groups


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

// The block-sorting state of the portable shape: the packed-counter scan (then each work-item's 16
// sub-digit offsets) and the scan's segment totals.
#define RANK_LOCALS          \
  local uint ls[SCAN_WORDS]; \
  local uint seg_total[RADIX_WG]

// Loads the block [blk, blk + valid) of src, encoding keys if asked, and leaves it in lk (lv) sorted
// stably by the digit: a counting sort per 4 bits, each work-item counting its RADIX_ITEMS consecutive
// keys per sub-digit in 4-bit fields of one register (hence RADIX_ITEMS <= 15), one group scan turning
// the counters into offsets. Slots past the end hold the largest key, which sorts last and stays last.
// Ends with a barrier.
INLINE void sort_block(global const gkey_t* src, VALUES(global const value_t* vsrc, ) uint blk, uint valid,
                       uint shift, uint encode, uint kind, uint descending, local ukey_t* lk,
                       VALUES(local value_t* lv, ) local uint* ls, local uint* seg_total) {
  const uint lid = get_local_id(0);
  local ushort* offsets = (local ushort*)ls;
  ukey_t k[RADIX_ITEMS];
  VALUES(value_t v[RADIX_ITEMS];)
  // Coalesced load, then a transpose through local memory so each work-item holds RADIX_ITEMS
  // consecutive keys (ranking them in order keeps the sort stable).
#pragma unroll
  for (uint j = 0; j < RADIX_ITEMS; ++j) {
    const uint p = lid + j * RADIX_WG;
    ukey_t key = KEY_MAX;
    // Padding slots move through the local sort like the rest (never stored): give them a defined
    // value, else every partial block reads indeterminate local memory (Oclgrind --uninitialized).
    VALUES(value_t val = 0;)
    if (p < valid) {
      key = src[blk + p];
      if (encode) key = encode_key(key, kind, descending);
      VALUES(val = vsrc[blk + p];)
    }
    lk[p] = key;
    VALUES(lv[p] = val;)
  }
  barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
  for (uint j = 0; j < RADIX_ITEMS; ++j) {
    k[j] = lk[lid * RADIX_ITEMS + j];
    VALUES(v[j] = lv[lid * RADIX_ITEMS + j];)
  }
  barrier(CLK_LOCAL_MEM_FENCE);

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
      VALUES(lv[to] = v[j];)
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (uint j = 0; j < RADIX_ITEMS; ++j) {
      k[j] = lk[lid * RADIX_ITEMS + j];
      VALUES(v[j] = lv[lid * RADIX_ITEMS + j];)
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}

// After sort_block: [start[d], end[d]) is digit d's run in lk, for digits present; the caller has set
// both to 0 for every digit before sort_block's barriers, so absent digits read as empty runs. Ends with
// a barrier.
INLINE void find_runs(local const ukey_t* lk, uint valid, uint shift, local uint* start, local uint* end) {
  const uint lid = get_local_id(0);
#pragma unroll
  for (uint j = 0; j < RADIX_ITEMS; ++j) {
    const uint p = lid + j * RADIX_WG;
    if (p < valid) {
      const uint d = digit_of(lk[p], shift);
      if (p == 0 || digit_of(lk[p - 1], shift) != d) start[d] = p;
      if (p + 1 == valid || digit_of(lk[p + 1], shift) != d) end[d] = p + 1;
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
}
