// Sorts of a user's element type by a user's comparison (Sorter::sort_custom, host/src/operations/custom/custom_sort.cpp).
// The host puts the user's OpenCL C before this file: the type's declaration, `typedef <type> clsort_t;`
// and `clsort_user_less(a, b)`. Nothing here knows the type's layout: elements are only loaded, compared
// and stored whole.
//
// Merge sort, stable: tiles sorted by one work-group in local memory (a stable insertion sort of each
// work-item's CUSTOM_ITEMS elements, then merge rounds over element indices, so that wide elements move
// only once), then global passes that double the run width, each split into equal output tiles by
// merge-path searches. Merges take from the earlier run unless the later element is strictly less.
// Bitonic sort: a network over (element, input index), ties broken by index, so it is stable too.

#ifndef CUSTOM_WG
#define CUSTOM_WG 64
#endif
#ifndef CUSTOM_ITEMS
#define CUSTOM_ITEMS 4
#endif
#ifndef CUSTOM_DESCENDING
#define CUSTOM_DESCENDING 0
#endif
#define CUSTOM_TILE (CUSTOM_WG * CUSTOM_ITEMS)

// The order sorted by: the user's, or its reverse (descending), which keeps equal elements in input order.
INLINE bool custom_less(const clsort_t a, const clsort_t b) {
#if CUSTOM_DESCENDING
  return clsort_user_less(b, a);
#else
  return clsort_user_less(a, b);
#endif
}

// The device's size of the type, which the host compares with the application's before any sort.
kernel void custom_sizeof(global uint* out) {
  out[0] = (uint)sizeof(clsort_t);
}

// How many of the first `diag` outputs of the stable merge of runs a and b come from a (common.cl).
#define CUSTOM_A_FIRST(x, y) (!custom_less(b[y], a[x]))
MERGE_PATH_SEARCH(custom_path_global,
                  (global const clsort_t* a, uint na, global const clsort_t* b, uint nb, uint diag),
                  CUSTOM_A_FIRST)

// The same over runs of indices into the local elements e.
#define CUSTOM_INDEX_A_FIRST(x, y) (!custom_less(e[b[y]], e[a[x]]))
MERGE_PATH_SEARCH(custom_path_local,
                  (local const clsort_t* e, local const uint* a, uint na, local const uint* b, uint nb,
                   uint diag),
                  CUSTOM_INDEX_A_FIRST)

// Merges the outputs diag, diag + 1, ... (at most CUSTOM_ITEMS, none past na + nb) of the index runs a
// and b into o[]. The current head of each run stays in registers: a step loads only the next element
// of the run it took from.
INLINE void custom_merge_items(local const clsort_t* e, local const uint* a, uint na, local const uint* b,
                               uint nb, uint diag, uint* o) {
  uint i = custom_path_local(e, a, na, b, nb, diag);
  uint j = diag - i;
  clsort_t ha, hb;
  if (i < na) ha = e[a[i]];
  if (j < nb) hb = e[b[j]];
  for (uint k = 0; k < CUSTOM_ITEMS; ++k) {
    if (i + j < na + nb) {
      bool take_a = i < na;
      if (take_a && j < nb) take_a = !custom_less(hb, ha);
      if (take_a) {
        o[k] = a[i];
        if (++i < na) ha = e[a[i]];
      } else {
        o[k] = b[j];
        if (++j < nb) hb = e[b[j]];
      }
    }
  }
}

// Sorts each tile of CUSTOM_TILE elements. dst may be src: the tile is in local memory before any store.
kernel __attribute__((reqd_work_group_size(CUSTOM_WG, 1, 1))) void custom_block_sort(
    global const clsort_t* src, global clsort_t* dst, uint n) {
  local clsort_t le[CUSTOM_TILE];
  local uint li[CUSTOM_TILE];
  const uint lid = get_local_id(0), base = get_group_id(0) * CUSTOM_TILE, first = lid * CUSTOM_ITEMS;
  const uint m = min((uint)CUSTOM_TILE, n - base);
  for (uint j = lid; j < m; j += CUSTOM_WG) le[j] = src[base + j];
  barrier(CLK_LOCAL_MEM_FENCE);
  // A stable insertion sort of this work-item's elements, by index: one moves only past greater ones.
  uint o[CUSTOM_ITEMS];
  const uint mine = first < m ? min((uint)CUSTOM_ITEMS, m - first) : 0u;
  for (uint k = 0; k < CUSTOM_ITEMS; ++k) o[k] = first + k;
  for (uint k = 1; k < mine; ++k) {
    const uint x = o[k];
    uint j = k;
    for (; j > 0 && custom_less(le[x], le[o[j - 1u]]); --j) o[j] = o[j - 1u];
    o[j] = x;
  }
  for (uint w = CUSTOM_ITEMS; w < CUSTOM_TILE; w <<= 1) {
    barrier(CLK_LOCAL_MEM_FENCE);  // every work-item has read the previous round
    for (uint k = 0; k < mine; ++k) li[first + k] = o[k];
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint pair = first / (2u * w) * (2u * w);
    if (first < m) {
      const uint na = min(w, m - pair), nb = min(w, m - pair - na);
      custom_merge_items(le, li + pair, na, li + pair + na, nb, first - pair, o);
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint k = 0; k < mine; ++k) li[first + k] = o[k];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint j = lid; j < m; j += CUSTOM_WG) dst[base + j] = le[li[j]];
}

// Where each output tile's merge path starts (common.cl).
MERGE_PARTITION(custom_partition, clsort_t, CUSTOM_TILE, custom_path_global)

// One merge pass of width w (a multiple of the tile): work-group i writes output tile i from its slices of
// the two runs, loaded into local memory. dst != src.
kernel __attribute__((reqd_work_group_size(CUSTOM_WG, 1, 1))) void custom_merge_pass(
    global const clsort_t* src, global clsort_t* dst, global const uint* splits, uint n, uint w) {
  local clsort_t le[CUSTOM_TILE];
  local uint li[CUSTOM_TILE];
  const uint lid = get_local_id(0), tile = get_group_id(0), first = lid * CUSTOM_ITEMS;
  const uint out0 = tile * CUSTOM_TILE, out1 = min(out0 + CUSTOM_TILE, n);
  const uint4 in = merge_tile_slices(splits, tile, out0, out1, n, w);
  const uint na = in.y, nb = in.w, count = na + nb;
  for (uint j = lid; j < count; j += CUSTOM_WG) {
    le[j] = j < na ? src[in.x + j] : src[in.z + j - na];
    li[j] = j;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  uint o[CUSTOM_ITEMS];
  if (first < count) custom_merge_items(le, li, na, li + na, nb, first, o);
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint k = 0; k < CUSTOM_ITEMS; ++k)
    if (first + k < count) li[first + k] = o[k];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint j = lid; j < count; j += CUSTOM_WG) dst[out0 + j] = le[li[j]];
}

kernel void custom_iota(global uint* index, uint n) {
  const uint i = get_global_id(0);
  if (i < n) index[i] = i;
}

// One step of the bitonic network over the virtual size 2^K: for the first step of a stage (mirror 1)
// element i meets i ^ (2j - 1), the mirror in its block of 2j, else i ^ j. Every comparison puts the
// smaller (element, index) first, so positions past n, virtually after every element, never take part.
kernel void custom_bitonic_step(global clsort_t* data, global uint* index, uint n, uint j, uint mirror) {
  const uint i = get_global_id(0);
  const uint l = i ^ (mirror ? 2u * j - 1u : j);
  if (i >= n || l <= i || l >= n) return;
  const clsort_t a = data[i], b = data[l];
  const uint ia = index[i], ib = index[l];
  if (custom_less(b, a) || (!custom_less(a, b) && ib < ia)) {
    data[i] = b;
    data[l] = a;
    index[i] = ib;
    index[l] = ia;
  }
}
