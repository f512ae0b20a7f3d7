// Bitonic sort: one launch per global (K, L) step, plus local-memory kernels that run every step whose
// pairs lie inside one work-group's tile (the whole sort of a tile, or the tail of a merge stage).
//
// The "flip" formulation is used: the first step of each stage compares i with its mirror in the block,
// and every compare-exchange puts the smaller element at the lower index. Positions >= n therefore act
// as +inf and never move, so any n sorts in place without padding memory: pairs past n are skipped.
// By-key sorts carry each key's input index and break ties by it (stable); values are gathered after.

#ifndef BITONIC_WG
#define BITONIC_WG 256
#endif
#ifndef BITONIC_TILE
#define BITONIC_TILE 2048  // elements per work-group in the local kernels: a power of two >= 2 * BITONIC_WG
#endif
#if VALUE_BYTES != 0
#define BITONIC_WITH_INDEX 1
#define INDEX_ARG , global uint* index
#else
#define INDEX_ARG
#endif

// The two positions compared by pair t of the step with block size `size` and distance `stride`.
inline uint2 bitonic_pair(uint t, uint size, uint stride) {
  const uint off = t & (stride - 1);
  const uint base = (t / stride) * 2 * stride;
  if (stride == size / 2) return (uint2)(base + off, base + size - 1 - off);  // the flip step
  return (uint2)(base + off, base + off + stride);
}

kernel void bitonic_step(global ukey_t* keys INDEX_ARG, uint n, uint size, uint stride) {
  const uint2 pr = bitonic_pair(get_global_id(0), size, stride);
  if (pr.y >= n) return;  // the partner is a virtual +inf: nothing moves
  const ukey_t a = keys[pr.x], b = keys[pr.y];
#ifdef BITONIC_WITH_INDEX
  const uint ia = index[pr.x], ib = index[pr.y];
  if (a > b || (a == b && ia > ib)) {
    keys[pr.x] = b;
    keys[pr.y] = a;
    index[pr.x] = ib;
    index[pr.y] = ia;
  }
#else
  if (a > b) {
    keys[pr.x] = b;
    keys[pr.y] = a;
  }
#endif
}

// Runs the steps of stages [first_size, last_size] with strides down to 1 on this group's tile.
inline void bitonic_local_steps(local ukey_t* lk, local uint* li, uint first_size, uint last_size,
                                uint first_stride) {
  const uint lid = get_local_id(0);
  for (uint size = first_size; size <= last_size; size <<= 1) {
    for (uint stride = (size == first_size ? first_stride : size / 2); stride > 0; stride >>= 1) {
      for (uint t = lid; t < BITONIC_TILE / 2; t += BITONIC_WG) {
        const uint2 pr = bitonic_pair(t, size, stride);
        const ukey_t a = lk[pr.x], b = lk[pr.y];
#ifdef BITONIC_WITH_INDEX
        const uint ia = li[pr.x], ib = li[pr.y];
        if (a > b || (a == b && ia > ib)) {
          lk[pr.x] = b;
          lk[pr.y] = a;
          li[pr.x] = ib;
          li[pr.y] = ia;
        }
#else
        if (a > b) {
          lk[pr.x] = b;
          lk[pr.y] = a;
        }
#endif
      }
      barrier(CLK_LOCAL_MEM_FENCE);
    }
  }
}

// Loads this group's tile, padding past n with the largest key (and index), runs the steps, stores.
inline void bitonic_local(global ukey_t* keys, global uint* index, uint n, local ukey_t* lk,
                          local uint* li, uint first_size, uint last_size, uint first_stride) {
  const uint lid = get_local_id(0);
  const uint base = get_group_id(0) * BITONIC_TILE;
  for (uint j = lid; j < BITONIC_TILE; j += BITONIC_WG) {
    const uint g = base + j;
    lk[j] = g < n ? keys[g] : KEY_MAX;
#ifdef BITONIC_WITH_INDEX
    li[j] = g < n ? index[g] : 0xFFFFFFFFu;
#endif
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  bitonic_local_steps(lk, li, first_size, last_size, first_stride);
  for (uint j = lid; j < BITONIC_TILE; j += BITONIC_WG) {
    const uint g = base + j;
    if (g < n) {
      keys[g] = lk[j];
#ifdef BITONIC_WITH_INDEX
      index[g] = li[j];
#endif
    }
  }
}

// Sorts each tile of BITONIC_TILE elements completely.
kernel __attribute__((reqd_work_group_size(BITONIC_WG, 1, 1))) void bitonic_sort_local(
    global ukey_t* keys INDEX_ARG, uint n) {
  local ukey_t lk[BITONIC_TILE];
#ifdef BITONIC_WITH_INDEX
  local uint li[BITONIC_TILE];
#else
  local uint* li = 0;
  global uint* index = 0;
#endif
  bitonic_local(keys, index, n, lk, li, 2, BITONIC_TILE, 1);
}

// Finishes stage `size` (> BITONIC_TILE): the half-cleaner steps with strides BITONIC_TILE/2 .. 1.
kernel __attribute__((reqd_work_group_size(BITONIC_WG, 1, 1))) void bitonic_merge_local(
    global ukey_t* keys INDEX_ARG, uint n, uint size) {
  local ukey_t lk[BITONIC_TILE];
#ifdef BITONIC_WITH_INDEX
  local uint li[BITONIC_TILE];
#else
  local uint* li = 0;
  global uint* index = 0;
#endif
  // Strides below the tile are half-cleaners of the stage: the same pairs as a stage of size 2*stride
  // after its flip, so running "stage size" with first stride TILE/2 inside the tile is exact.
  (void)size;
  bitonic_local(keys, index, n, lk, li, BITONIC_TILE * 2, BITONIC_TILE * 2, BITONIC_TILE / 2);
}
