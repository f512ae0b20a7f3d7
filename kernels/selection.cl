// Parallel selection (rank) sort: each work-item counts the keys that precede its own, which is its
// final position. Ties break by input index, so duplicates get distinct ranks and the sort is stable.
// Keys are staged through local memory one tile at a time. O(n^2) work: for small n and for reference.

#ifndef SELECTION_WG
#define SELECTION_WG 256
#endif

kernel __attribute__((reqd_work_group_size(SELECTION_WG, 1, 1))) void selection_rank(
    global const ukey_t* keys, global ukey_t* keys_out,
#if VALUE_BYTES != 0
    global const value_t* values, global value_t* values_out,
#endif
    uint n, uint kind, uint descending) {
  local ukey_t tile[SELECTION_WG];
  const uint lid = get_local_id(0);
  const uint i = get_global_id(0);
  const ukey_t raw = i < n ? keys[i] : 0;
  const ukey_t k = encode_key(raw, kind, descending);
  uint rank = 0;
  for (uint base = 0; base < n; base += SELECTION_WG) {
    const uint j = base + lid;
    tile[lid] = j < n ? encode_key(keys[j], kind, descending) : KEY_MAX;
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint m = min((uint)SELECTION_WG, n - base);
    if (base + m <= i) {  // every key of the tile comes earlier in the input: equal ones precede
      for (uint t = 0; t < m; ++t) rank += tile[t] <= k;
    } else if (base > i) {  // every key comes later: only smaller ones precede
      for (uint t = 0; t < m; ++t) rank += tile[t] < k;
    } else {
      for (uint t = 0; t < m; ++t) rank += (tile[t] < k) | ((tile[t] == k) & (base + t < i));
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (i < n) {
    keys_out[rank] = raw;
#if VALUE_BYTES != 0
    values_out[rank] = values[i];
#endif
  }
}
