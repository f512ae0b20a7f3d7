// Radix sort, reduce-then-scan shape: per pass a histogram, a scan and a stable scatter.
//
// `groups` work-groups each own a contiguous run of blocks (blocks_per_group blocks of RADIX_BLOCK keys),
// so the stable position of a key is: keys of smaller digits everywhere + keys of its digit in earlier
// groups (both from the scanned histogram) + keys of its digit earlier in this group. The last term is
// found block by block: the block is ranked by digit in local memory (the ranking file before this one),
// which also makes the global writes of one digit contiguous. Needs nothing of the device beyond barriers:
// the portable path, and the fallback wherever Onesweep is off or fails its self-test. Follows a ranking
// file.

// counts[d * groups + g] = number of keys with digit d in group g's range.
kernel __attribute__((reqd_work_group_size(RADIX_WG, 1, 1))) SG_KERNEL_ATTRS void radix_histogram(
    global const gkey_t* src, uint n, uint shift, uint encode, uint kind, uint descending,
    uint blocks_per_group, global uint* counts) {
  local uint hist[RADIX];
  const uint lid = get_local_id(0);
  for (uint d = lid; d < RADIX; d += RADIX_WG) hist[d] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  const uint2 range = group_range(n, blocks_per_group);
#ifdef RADIX_MATCH
  // One load and its atomic per iteration keep too few loads in flight, well below the memory's bandwidth:
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
kernel __attribute__((reqd_work_group_size(RADIX_WG, 1, 1))) SG_KERNEL_ATTRS void radix_scan(global uint* counts, uint groups,
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

// Each group scatters its range block by block: a key's stable position is the keys of smaller digits
// (totals, scanned here) + its digit's keys in earlier groups (counts, scanned by radix_scan) + its
// digit's keys earlier in this group (the blocks before, and its place in its block's digit order).
kernel __attribute__((reqd_work_group_size(RADIX_WG, 1, 1))) SG_KERNEL_ATTRS void radix_scatter(
    global const gkey_t* src, global gkey_t* dst,
    VALUES(global const value_t* vsrc, global value_t* vdst, ) uint n, uint shift, uint encode, uint decode,
    uint kind, uint descending, uint blocks_per_group, global const uint* counts, global const uint* totals) {
  local uint gofs[RADIX];  // global position of a key of digit d at block position p: gofs[d] + p
  RANK_LOCALS;
  const uint lid = get_local_id(0);
  const uint groups = get_num_groups(0);
  const uint2 range = group_range(n, blocks_per_group);
#ifdef RADIX_MATCH
  // Work-item lid owns digit lid: where this group's next key of that digit goes.
  uint next = rank_scan_exclusive(lid < RADIX ? totals[lid] : 0, scan_tmp);
  if (lid < RADIX) next += counts[lid * groups + get_group_id(0)];
  for (uint blk = range.x; blk < range.y; blk += RADIX_BLOCK) {
    const uint valid = min((uint)RADIX_BLOCK, range.y - blk);
    ukey_t k[RADIX_ITEMS];
    uint to[RADIX_ITEMS], dest[RADIX_ITEMS], count, start;
    count_block(src, blk, valid, shift, encode, kind, descending, k, wcount, wmask, scan_tmp, &count, &start);
    if (lid < RADIX) {
      gofs[lid] = next - start;
      next += count;
    }
    rank_keys(k, shift, wcount, wmask, to);
    VALUES(value_t v[RADIX_ITEMS]; load_values(vsrc, blk, valid, v);)
#pragma unroll
    for (uint j = 0; j < RADIX_ITEMS; ++j) lk[to[j]] = k[j];
    barrier(CLK_LOCAL_MEM_FENCE);
    store_keys(lk, valid, shift, decode, kind, descending, gofs, dst, dest);
    VALUES(exchange_values(v, to, lv); store_values(lv, dest, valid, vdst);)
    barrier(CLK_LOCAL_MEM_FENCE);  // the next block's counters share the tile's words
  }
#else
  local ukey_t lk[RADIX_BLOCK];
  VALUES(local value_t lv[RADIX_BLOCK];)
  local uint next[RADIX];  // where this group's next key of each digit goes
  local uint start[RADIX], end[RADIX];
  local uint s[RADIX_WG];
  uint carry = 0;
  for (uint b = 0; b < RADIX; b += RADIX_WG) {
    const uint d = b + lid;
    uint total;
    const uint ex = group_scan_exclusive(d < RADIX ? totals[d] : 0, s, &total);
    if (d < RADIX) next[d] = carry + ex + counts[d * groups + get_group_id(0)];
    carry += total;
  }
  for (uint blk = range.x; blk < range.y; blk += RADIX_BLOCK) {
    const uint valid = min((uint)RADIX_BLOCK, range.y - blk);
    for (uint d = lid; d < RADIX; d += RADIX_WG) start[d] = end[d] = 0;
    sort_block(src, VALUES(vsrc, ) blk, valid, shift, encode, kind, descending, lk, VALUES(lv, ) ls,
               seg_total);
    find_runs(lk, valid, shift, start, end);
    for (uint d = lid; d < RADIX; d += RADIX_WG) {
      gofs[d] = next[d] - start[d];
      next[d] += end[d] - start[d];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    uint dest[RADIX_ITEMS];
    store_keys(lk, valid, shift, decode, kind, descending, gofs, dst, dest);
    VALUES(store_values(lv, dest, valid, vdst);)
    barrier(CLK_LOCAL_MEM_FENCE);
  }
#endif
}
