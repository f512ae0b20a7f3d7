// LSD radix sort, portable reduce-then-scan form: per pass a histogram, a scan and a stable scatter.
//
// `groups` work-groups each own a contiguous run of blocks (blocks_per_group blocks of RADIX_BLOCK keys),
// so the stable position of a key is: keys of smaller digits everywhere + keys of its digit in earlier
// groups (both from the scanned histogram) + keys of its digit earlier in this group. The last term is
// found block by block: the block is sorted stably by digit in local memory (RADIX_BITS one-bit splits),
// which also makes the global writes of one digit contiguous.
// Keys are encoded (common.cl) as the first pass reads them and decoded as the last pass writes them.

#ifndef RADIX_BITS
#define RADIX_BITS 8
#endif
#ifndef RADIX_WG
#define RADIX_WG 256
#endif
#ifndef RADIX_ITEMS
#define RADIX_ITEMS 4
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

// counts[d * groups + g] = number of keys with digit d in group g's range.
kernel __attribute__((reqd_work_group_size(RADIX_WG, 1, 1))) void radix_histogram(
    global const ukey_t* src, uint n, uint shift, uint encode, uint kind, uint descending,
    uint blocks_per_group, global uint* counts) {
  local uint hist[RADIX];
  const uint lid = get_local_id(0);
  for (uint d = lid; d < RADIX; d += RADIX_WG) hist[d] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  const uint2 range = group_range(n, blocks_per_group);
  for (uint i = range.x + lid; i < range.y; i += RADIX_WG) {
    ukey_t k = src[i];
    if (encode) k = encode_key(k, kind, descending);
    atomic_inc(&hist[digit_of(k, shift)]);
  }
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

kernel __attribute__((reqd_work_group_size(RADIX_WG, 1, 1))) void radix_scatter(
    global const ukey_t* src, global ukey_t* dst,
#if VALUE_BYTES != 0
    global const value_t* vsrc, global value_t* vdst,
#endif
    uint n, uint shift, uint encode, uint decode, uint kind, uint descending, uint blocks_per_group,
    global const uint* counts, global const uint* totals) {
  local ukey_t lk[2][RADIX_BLOCK];
#if VALUE_BYTES != 0
  local value_t lv[2][RADIX_BLOCK];
#endif
  local uint next[RADIX];   // where this group's next key of each digit goes
  local uint start[RADIX];  // first position of each digit in the sorted block
  local uint s[RADIX_WG];
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
    // Coalesced load; slots past the end hold the largest key, which sorts last and stays last.
    for (uint j = 0; j < RADIX_ITEMS; ++j) {
      const uint p = lid + j * RADIX_WG;
      ukey_t k = KEY_MAX;
      if (p < valid) {
        k = src[blk + p];
        if (encode) k = encode_key(k, kind, descending);
#if VALUE_BYTES != 0
        lv[0][p] = vsrc[blk + p];
#endif
      }
      lk[0][p] = k;
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    // Stable sort of the block by digit: one split per bit, each work-item owning RADIX_ITEMS
    // consecutive slots so that the split keeps input order.
    uint cur = 0;
    for (uint b = 0; b < RADIX_BITS; ++b) {
      if (shift + b >= KEY_BITS) break;  // the top digit may be narrower than RADIX_BITS
      const uint bit = shift + b;
      uint zeros = 0;
      for (uint j = 0; j < RADIX_ITEMS; ++j) zeros += ((lk[cur][lid * RADIX_ITEMS + j] >> bit) & 1) == 0;
      uint total_zeros;
      uint z = group_scan_exclusive(zeros, s, &total_zeros);
      uint o = total_zeros + lid * RADIX_ITEMS - z;
      for (uint j = 0; j < RADIX_ITEMS; ++j) {
        const uint p = lid * RADIX_ITEMS + j;
        const ukey_t k = lk[cur][p];
        const uint to = ((k >> bit) & 1) ? o++ : z++;
        lk[cur ^ 1][to] = k;
#if VALUE_BYTES != 0
        lv[cur ^ 1][to] = lv[cur][p];
#endif
      }
      barrier(CLK_LOCAL_MEM_FENCE);
      cur ^= 1;
    }

    for (uint j = 0; j < RADIX_ITEMS; ++j) {
      const uint p = lid + j * RADIX_WG;
      if (p < valid) {
        const uint d = digit_of(lk[cur][p], shift);
        if (p == 0 || digit_of(lk[cur][p - 1], shift) != d) start[d] = p;
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint j = 0; j < RADIX_ITEMS; ++j) {
      const uint p = lid + j * RADIX_WG;
      if (p < valid) {
        const ukey_t k = lk[cur][p];
        const uint d = digit_of(k, shift);
        const uint to = next[d] + p - start[d];
        dst[to] = decode ? decode_key(k, kind, descending) : k;
#if VALUE_BYTES != 0
        vdst[to] = lv[cur][p];
#endif
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint j = 0; j < RADIX_ITEMS; ++j) {
      const uint p = lid + j * RADIX_WG;
      if (p < valid) {
        const uint d = digit_of(lk[cur][p], shift);
        if (p + 1 == valid || digit_of(lk[cur][p + 1], shift) != d) next[d] += p + 1 - start[d];
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}
