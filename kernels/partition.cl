// n of 2^32 keys and more: one stable MSD partition by the top digit of each key's code into buckets of
// fewer keys, each then sorted by the usual radix sort (host/src/huge.cpp). Counts and offsets are 64-bit
// where they span the whole array; a work-item's own chunk holds fewer than 2^32 keys.
//
// Work-item t owns the contiguous chunk [t * chunk, (t + 1) * chunk): it counts its keys per digit, then
// scatters them in input order to its own run of each bucket, so the partition is stable. The loads are
// not coalesced (each work-item walks its own chunk); this pass runs once, for arrays past 2^32 keys.

#ifndef PART_WG
#define PART_WG 32
#endif
#define PART_RADIX 256

#if VALUE_BYTES != 0
#define PART_VALUES , global const value_t *values, global value_t *values_out
#else
#define PART_VALUES
#endif

INLINE uint part_digit(gkey_t k, uint kind, uint descending, uint shift, uint mask) {
  return (uint)(encode_key((ukey_t)k, kind, descending) >> shift) & mask;
}

// counts[t * PART_RADIX + d]: the keys of chunk t with digit d. Chunk-major, so that a work-item's counters
// and offsets lie together and the offsets kernel reads each chunk's counts coalesced.
kernel __attribute__((reqd_work_group_size(PART_WG, 1, 1))) void partition_count(
    global const gkey_t* keys, ulong n, ulong chunk, uint items, global uint* counts, uint kind,
    uint descending, uint shift, uint mask) {
  local uint hist[PART_RADIX * PART_WG];  // column lid is work-item lid's own: no sharing, no barrier
  const uint lid = get_local_id(0), t = get_global_id(0);
  for (uint d = 0; d < PART_RADIX; ++d) hist[d * PART_WG + lid] = 0;
  if (t >= items) return;
  const ulong begin = (ulong)t * chunk, end = min(n, begin + chunk);
  for (ulong i = begin; i < end; ++i) ++hist[part_digit(keys[i], kind, descending, shift, mask) * PART_WG + lid];
  for (uint d = 0; d <= mask; ++d) counts[(size_t)t * PART_RADIX + d] = hist[d * PART_WG + lid];
}

// One work-group: each bucket's size and start (starts rounded up to `align` elements, so that a bucket
// can be a sub-buffer), and each chunk's first position in each bucket. buckets[d] is bucket d's start,
// buckets[PART_RADIX + d] its size.
kernel void partition_offsets(global const uint* counts, uint items, uint digits, ulong align,
                              global ulong* offsets, global ulong* buckets) {
  local ulong start[PART_RADIX];
  const uint lid = get_local_id(0), wg = get_local_size(0);
  for (uint d = lid; d < PART_RADIX; d += wg) {
    ulong size = 0;
    if (d < digits)
      for (uint t = 0; t < items; ++t) size += counts[(size_t)t * PART_RADIX + d];
    start[d] = size;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid == 0) {
    ulong at = 0;
    for (uint d = 0; d < PART_RADIX; ++d) {
      const ulong size = start[d];
      start[d] = at;
      buckets[d] = at;
      buckets[PART_RADIX + d] = size;
      at += (size + align - 1) / align * align;
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint d = lid; d < digits; d += wg) {
    ulong at = start[d];
    for (uint t = 0; t < items; ++t) {
      offsets[(size_t)t * PART_RADIX + d] = at;
      at += counts[(size_t)t * PART_RADIX + d];
    }
  }
}

// Each chunk's keys (and values) in input order to its runs of the buckets.
kernel void partition_scatter(global const gkey_t* keys, global gkey_t* keys_out PART_VALUES, ulong n,
                              ulong chunk, uint items, global ulong* offsets, uint kind, uint descending,
                              uint shift, uint mask) {
  const uint t = get_global_id(0);
  if (t >= items) return;
  const ulong begin = (ulong)t * chunk, end = min(n, begin + chunk);
  for (ulong i = begin; i < end; ++i) {
    const gkey_t k = keys[i];
    global ulong* at = &offsets[(size_t)t * PART_RADIX + part_digit(k, kind, descending, shift, mask)];
    const ulong o = (*at)++;
    keys_out[o] = k;
#if VALUE_BYTES != 0
    values_out[o] = values[i];
#endif
  }
}
