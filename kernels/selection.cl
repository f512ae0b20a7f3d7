// Parallel selection (rank) sort: a key's final position is the number of keys that precede it (smaller,
// or equal and earlier in the input), so each work-item counts them for SELECTION_ITEMS keys held in
// registers against tiles of keys staged in local memory: every local load serves that many comparisons.
// Ties break by input index, so duplicates get distinct ranks and the sort is stable. O(n^2) work.
//
// Work-group g ranks key block g % blocks against part g / blocks of the array, so that small n still
// fills a GPU.
// With one part a work-group scatters its keys itself; otherwise each part writes partial ranks and
// selection_scatter adds them up and scatters.

#ifndef SELECTION_WG
#define SELECTION_WG 256
#endif
#ifndef SELECTION_ITEMS
#define SELECTION_ITEMS 4  // keys ranked per work-item
#endif
#define SELECTION_BLOCK (SELECTION_WG * SELECTION_ITEMS)

#if VALUE_BYTES != 0
#define SELECTION_VALUES , global const value_t *values, global value_t *values_out
#else
#define SELECTION_VALUES
#endif

// Key r of a work-item is block * SELECTION_BLOCK + r * SELECTION_WG + lid: coalesced loads, and a
// tile (SELECTION_WG keys, aligned) lies either wholly before, wholly after or on one of the group's keys.
kernel __attribute__((reqd_work_group_size(SELECTION_WG, 1, 1))) void selection_rank(
    global const gkey_t* keys, global gkey_t* keys_out SELECTION_VALUES, global uint* partial, uint n,
    uint kind, uint descending, uint blocks, uint parts, uint part_len) {
  local ukey_t tile[SELECTION_WG];
  const uint lid = get_local_id(0), part = get_group_id(0) / blocks;
  const uint first = (get_group_id(0) % blocks) * SELECTION_BLOCK;
  ukey_t k[SELECTION_ITEMS];
  uint rank[SELECTION_ITEMS];
  for (uint r = 0; r < SELECTION_ITEMS; ++r) {
    const uint i = first + r * SELECTION_WG + lid;
    k[r] = i < n ? encode_key(keys[i], kind, descending) : 0;
    rank[r] = 0;
  }
  const uint begin = part * part_len, end = min(begin + part_len, n);
  for (uint base = begin; base < end; base += SELECTION_WG) {
    const uint j = base + lid;
    tile[lid] = j < end ? encode_key(keys[j], kind, descending) : 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint m = min((uint)SELECTION_WG, end - base);
    if (base + m <= first) {  // the whole tile comes earlier in the input: equal keys precede
      for (uint t = 0; t < m; ++t) {
        const ukey_t x = tile[t];
#pragma unroll
        for (uint r = 0; r < SELECTION_ITEMS; ++r) rank[r] += x <= k[r];
      }
    } else if (base >= first + SELECTION_BLOCK) {  // wholly later: only smaller keys precede
      for (uint t = 0; t < m; ++t) {
        const ukey_t x = tile[t];
#pragma unroll
        for (uint r = 0; r < SELECTION_ITEMS; ++r) rank[r] += x < k[r];
      }
    } else {  // the tile holds keys of this group: compare input positions too
      for (uint t = 0; t < m; ++t) {
        const ukey_t x = tile[t];
#pragma unroll
        for (uint r = 0; r < SELECTION_ITEMS; ++r)
          rank[r] += (x < k[r]) | ((x == k[r]) & (base + t < first + r * SELECTION_WG + lid));
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  for (uint r = 0; r < SELECTION_ITEMS; ++r) {
    const uint i = first + r * SELECTION_WG + lid;
    if (i >= n) continue;
    if (parts == 1) {
      keys_out[rank[r]] = keys[i];
#if VALUE_BYTES != 0
      values_out[rank[r]] = values[i];
#endif
    } else {
      partial[part * n + i] = rank[r];
    }
  }
}

// With several parts: a key's rank is the sum of its partial ranks.
kernel void selection_scatter(global const gkey_t* keys, global gkey_t* keys_out SELECTION_VALUES,
                              global const uint* partial, uint n, uint parts) {
  const uint i = get_global_id(0);
  if (i >= n) return;
  uint rank = 0;
  for (uint p = 0; p < parts; ++p) rank += partial[p * n + i];
  keys_out[rank] = keys[i];
#if VALUE_BYTES != 0
  values_out[rank] = values[i];
#endif
}
