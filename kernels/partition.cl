// Radix sort of more keys than one sort of the passes takes: one stable MSD partition by a digit of each
// key's code into buckets of fewer keys, each then sorted by the usual radix sort
// (host/src/dispatch/split.cpp). The array is cut into pieces of fewer than 2^32 keys; the host sorts each
// piece in place by the digit alone (a one-pass radix sort with a bit range, the device's own fast pass),
// so that a piece's keys of one digit lie together, and partition_gather then copies each such run to its
// place in its bucket, coalesced. Counts and offsets are 64-bit where they span the whole array.

#ifndef PART_WG
#define PART_WG 256
#endif
#ifndef PART_ITEMS
#define PART_ITEMS 32  // partition_count's keys per work-item: a tile is PART_WG * PART_ITEMS keys
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

// Zeroes partition_count's counts. A kernel rather than clEnqueueFillBuffer, which Oclgrind 21.10 does not
// record as initializing the buffer.
kernel void partition_zero(global uint* counts, uint words) {
  const uint i = get_global_id(0);
  if (i < words) counts[i] = 0;
}

// Work-group g's tile: tile g % tiles of piece g / tiles, keys [*begin, *end) of the array, the piece
// starting at *first. Returns the piece.
INLINE uint part_tile(ulong n, ulong piece, uint tiles, ulong* first, ulong* begin, ulong* end) {
  const uint g = get_group_id(0), p = g / tiles, t = g % tiles;
  *first = p * piece;
  *begin = *first + (ulong)t * (PART_WG * PART_ITEMS);
  *end = min(min(n, *first + piece), *begin + PART_WG * PART_ITEMS);
  return p;
}

// counts[p * PART_RADIX + d] += the keys of digit d in the work-group's tile of piece p (the host zeroes
// counts first). A piece holds fewer than 2^32 keys, so its counts are 32-bit.
kernel __attribute__((reqd_work_group_size(PART_WG, 1, 1))) void partition_count(
    global const gkey_t* keys, ulong n, ulong piece, uint tiles, global uint* counts, uint kind,
    uint descending, uint shift, uint mask) {
  local uint hist[PART_RADIX];
  const uint lid = get_local_id(0);
  for (uint d = lid; d < PART_RADIX; d += PART_WG) hist[d] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  ulong first, begin, end;
  const uint p = part_tile(n, piece, tiles, &first, &begin, &end);
  for (ulong i = begin + lid; i < end; i += PART_WG)
    atomic_inc(&hist[part_digit(keys[i], kind, descending, shift, mask)]);
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint d = lid; d <= mask; d += PART_WG)
    if (hist[d]) atomic_add(&counts[(size_t)p * PART_RADIX + d], hist[d]);
}

// One work-group: each bucket's size and start (from element `base` of the output on, starts rounded up to
// `align` elements, so that a bucket can be a sub-buffer) into buckets (buckets[d] bucket d's start,
// buckets[PART_RADIX + d] its size), and for each piece p and digit d where the run of p's keys of digit d
// goes: offsets[p * PART_RADIX + d] is that place minus the run's first position within the sorted piece,
// so that partition_gather adds a key's own position within its piece.
kernel void partition_offsets(global const uint* counts, uint pieces, uint digits, ulong align, ulong base,
                              global ulong* offsets, global ulong* buckets) {
  local ulong start[PART_RADIX];
  const uint lid = get_local_id(0), wg = get_local_size(0);
  for (uint d = lid; d < PART_RADIX; d += wg) {
    ulong size = 0;
    if (d < digits)
      for (uint p = 0; p < pieces; ++p) size += counts[(size_t)p * PART_RADIX + d];
    start[d] = size;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid == 0) {
    ulong at = base;
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
    for (uint p = 0; p < pieces; ++p) {
      offsets[(size_t)p * PART_RADIX + d] = at;
      at += counts[(size_t)p * PART_RADIX + d];
    }
  }
  barrier(CLK_GLOBAL_MEM_FENCE);
  for (uint p = lid; p < pieces; p += wg) {
    ulong before = 0;  // the piece's keys of smaller digits: where its run of digit d starts
    for (uint d = 0; d < digits; ++d) {
      offsets[(size_t)p * PART_RADIX + d] -= before;
      before += counts[(size_t)p * PART_RADIX + d];
    }
  }
}

// Every key (and value) of the work-group's tile of the sorted pieces to its place in its bucket:
// consecutive keys of a run go to consecutive places, so both the loads and the stores coalesce.
kernel __attribute__((reqd_work_group_size(PART_WG, 1, 1))) void partition_gather(
    global const gkey_t* keys, global gkey_t* keys_out PART_VALUES, ulong n, ulong piece, uint tiles,
    global const ulong* offsets, uint kind, uint descending, uint shift, uint mask) {
  ulong first, begin, end;
  const uint p = part_tile(n, piece, tiles, &first, &begin, &end);
  global const ulong* at = offsets + (size_t)p * PART_RADIX;
  for (ulong i = begin + get_local_id(0); i < end; i += PART_WG) {
    const gkey_t k = keys[i];
    const ulong o = at[part_digit(k, kind, descending, shift, mask)] + (i - first);
    keys_out[o] = k;
#if VALUE_BYTES != 0
    values_out[o] = values[i];
#endif
  }
}

// n keys (and values) from position `from` of the input to position `to` of the output: a crowded
// bucket's parts between the caller's buffers and the scratch copy, which kernels read next. A kernel
// rather than clEnqueueCopyBuffer: Oclgrind 21.10 takes a buffer that a partial copy wrote to as
// uninitialized from then on, whatever kernels write to it later.
kernel void partition_copy(global const gkey_t* keys, global gkey_t* keys_out PART_VALUES, ulong n, ulong from,
                           ulong to) {
  for (ulong i = get_global_id(0); i < n; i += get_global_size(0)) {
    keys_out[to + i] = keys[from + i];
#if VALUE_BYTES != 0
    values_out[to + i] = values[from + i];
#endif
  }
}
