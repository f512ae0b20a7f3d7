// Stable merge sort: tiles sorted by one work-group each, then merge passes that double the sorted run
// width, each pass split into equal output tiles by merge-path searches (a partition kernel), so that
// every work-group merges the same amount however unequal the runs. A CPU shape does the same with one
// sequential merge per work-item over large chunks.
//
// Merges take from the earlier run on ties and the tile sort only swaps neighbours that are strictly out
// of order, so equal keys keep their input order and values simply travel with their keys. Keys are
// encoded by the first kernel and decoded by the last. Positions past n never exist: the last tile pads
// its local copy with the largest key, and pads always sort after every real key (they are last already).

#ifndef MERGE_WG
#define MERGE_WG 256
#endif
#ifndef MERGE_ITEMS
#define MERGE_ITEMS 8  // keys per work-item: a tile is MERGE_WG * MERGE_ITEMS keys
#endif
#ifndef MERGE_CHUNK
#define MERGE_CHUNK 16384  // CPU shape: keys one work-item sorts in local memory
#endif
#define MERGE_TILE (MERGE_WG * MERGE_ITEMS)

#if VALUE_BYTES != 0
#define VALUE_PARAMS , global const value_t *vsrc, global value_t *vdst
#else
#define VALUE_PARAMS
#endif


// One program holds one shape (MERGE_CPU 0: GPU, 1: CPU), so a device never compiles kernels it will not
// run (PoCL's LLVM spends seconds per kernel on a cold build).
#ifndef MERGE_CPU
#define MERGE_CPU 0
#endif

#if !MERGE_CPU
// ---- The GPU shape.

MERGE_TO_REGS(merge_to_regs, MERGE_ITEMS)
STORE_REGS(merge_store_regs, MERGE_ITEMS)

// Sorts each tile: encode on load, a stable odd-even transposition sort of each work-item's E keys in
// registers, then log2(MERGE_WG) rounds of merge-path merges in local memory. dst may be src.
kernel __attribute__((reqd_work_group_size(MERGE_WG, 1, 1))) void merge_block_sort(
    global const gkey_t* src, global gkey_t* dst VALUE_PARAMS, uint n, uint kind, uint descending,
    uint decode) {
  local ukey_t lk[MERGE_TILE];
#if VALUE_BYTES != 0
  local value_t lv[MERGE_TILE];
  local uint lo[MERGE_TILE];  // where each key of the current runs came from in the loaded tile
#endif
  const uint lid = get_local_id(0), base = get_group_id(0) * MERGE_TILE, first = lid * MERGE_ITEMS;
  for (uint j = lid; j < MERGE_TILE; j += MERGE_WG) {
    const uint g = base + j;
    lk[j] = g < n ? encode_key(src[g], kind, descending) : KEY_MAX;
#if VALUE_BYTES != 0
    if (g < n) lv[j] = vsrc[g];
#endif
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  ukey_t k[MERGE_ITEMS];
  uint o[MERGE_ITEMS];
#pragma unroll
  for (uint e = 0; e < MERGE_ITEMS; ++e) {
    k[e] = lk[first + e];
    o[e] = first + e;
  }
#pragma unroll
  for (uint round = 0; round < MERGE_ITEMS; ++round) {
#pragma unroll
    for (uint e = round & 1u; e + 1u < MERGE_ITEMS; e += 2u) {
      const bool swap = k[e] > k[e + 1u];
      const ukey_t k0 = k[e], k1 = k[e + 1u];
      const uint o0 = o[e], o1 = o[e + 1u];
      k[e] = swap ? k1 : k0;
      k[e + 1u] = swap ? k0 : k1;
      o[e] = swap ? o1 : o0;
      o[e + 1u] = swap ? o0 : o1;
    }
  }
  // Each round stores the runs merged so far; the last one, the whole tile, is left for the store.
  for (uint w = MERGE_ITEMS;; w <<= 1) {
    barrier(CLK_LOCAL_MEM_FENCE);  // every work-item has read the previous round
#pragma unroll
    for (uint e = 0; e < MERGE_ITEMS; ++e) {
      lk[first + e] = k[e];
#if VALUE_BYTES != 0
      lo[first + e] = o[e];
#endif
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (w >= MERGE_TILE) break;
    const uint pair = first / (2u * w) * (2u * w);
    uint p[MERGE_ITEMS];
    merge_to_regs(lk + pair, w, lk + pair + w, w, first - pair, k, p);
#if VALUE_BYTES != 0
#pragma unroll
    for (uint e = 0; e < MERGE_ITEMS; ++e) o[e] = lo[pair + p[e]];
#endif
  }
  for (uint j = lid; j < MERGE_TILE; j += MERGE_WG) {
    const uint g = base + j;
    if (g < n) {
      dst[g] = decode ? decode_key(lk[j], kind, descending) : lk[j];
#if VALUE_BYTES != 0
      vdst[g] = lv[lo[j]];
#endif
    }
  }
}

// Where each output tile's merge path starts (common.cl).
MERGE_PARTITION(merge_partition, gkey_t, MERGE_TILE, merge_path_global)

// One merge pass of width w (a multiple of the tile): work-group i writes output tile i. Its slices of
// the two runs are loaded into local memory, each work-item merges E outputs found by a merge-path
// search there, and the tile is stored coalesced. dst != src.
kernel __attribute__((reqd_work_group_size(MERGE_WG, 1, 1))) void merge_pass(
    global const gkey_t* src, global gkey_t* dst VALUE_PARAMS, global const uint* splits, uint n, uint w,
    uint kind, uint descending, uint decode) {
  local ukey_t lk[MERGE_TILE];
#if VALUE_BYTES != 0
  local value_t lv[MERGE_TILE];
  local uint lo[MERGE_TILE];
#endif
  const uint lid = get_local_id(0), tile = get_group_id(0), first = lid * MERGE_ITEMS;
  const uint out0 = tile * MERGE_TILE, out1 = min(out0 + MERGE_TILE, n);
  const uint4 in = merge_tile_slices(splits, tile, out0, out1, n, w);
  const uint na = in.y, nb = in.w, count = na + nb;
  for (uint j = lid; j < count; j += MERGE_WG) lk[j] = j < na ? src[in.x + j] : src[in.z + j - na];
#if VALUE_BYTES != 0
  for (uint j = lid; j < count; j += MERGE_WG) lv[j] = j < na ? vsrc[in.x + j] : vsrc[in.z + j - na];
#endif
  barrier(CLK_LOCAL_MEM_FENCE);
  ukey_t k[MERGE_ITEMS];
  uint o[MERGE_ITEMS];
  merge_to_regs(lk, na, lk + na, nb, min(first, count), k, o);
  barrier(CLK_LOCAL_MEM_FENCE);
  merge_store_regs(lk, WITH_VALUES(lo, ) k, o, first, count);
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint j = lid; j < count; j += MERGE_WG) {
    dst[out0 + j] = decode ? decode_key(lk[j], kind, descending) : lk[j];
#if VALUE_BYTES != 0
    vdst[out0 + j] = lv[lo[j]];
#endif
  }
}

#endif  // !MERGE_CPU

#if MERGE_CPU
// ---- The CPU shape: one work-item per work-group, sequential merges over chunks of MERGE_CHUNK keys.
// A merge's next step waits on the comparison before it, so each work-item runs four independent merges
// interleaved (four pairs of runs, or four stretches of one pair's merge path) with branch-free steps.

#ifndef MERGE_CPU_RUN
#define MERGE_CPU_RUN 16  // runs sorted by insertion before the first merge
#endif

// Four merges within one array: job s merges src[i, ie) with src[j, je) into dst from o (indices into
// the arrays; a job's two ranges need not be adjacent). Equal keys come from the first range first.
// While every job has c keys left on both sides, c steps need no bounds checks: the loop runs such
// stretches (c shrinks about geometrically), then finishes each job alone the same way.
#if VALUE_BYTES != 0
#define MERGE_VALUE_PARAMS(AS_IN, AS_OUT) , AS_IN const value_t *vsrc, AS_OUT value_t *vdst
#define MERGE_VALUE_ARGS , vsrc, vdst
#define MERGE_VALUE_STEP(s) vdst[o##s] = vsrc[take ? i##s : j##s]
#define MERGE_VALUE_COPY(s, from) vdst[o##s] = vsrc[from]
#else
#define MERGE_VALUE_PARAMS(AS_IN, AS_OUT)
#define MERGE_VALUE_ARGS
#define MERGE_VALUE_STEP(s)
#define MERGE_VALUE_COPY(s, from)
#endif
#define MERGE_STEP(s)                       \
  {                                         \
    const ukey_t ka = src[i##s], kb = src[j##s]; \
    const bool take = ka <= kb;             \
    dst[o##s] = take ? ka : kb;             \
    MERGE_VALUE_STEP(s);                    \
    i##s += take;                           \
    j##s += !take;                          \
    ++o##s;                                 \
  }
#define MERGE_LEFT(s) min(ie##s - i##s, je##s - j##s)
#define MERGE_JOBS(name, AS_IN, AS_OUT, T)                                                                 \
  INLINE void name##_1(AS_IN const T* src, AS_OUT T* dst MERGE_VALUE_PARAMS(AS_IN, AS_OUT),                \
                       uint i0, uint ie0, uint j0, uint je0, uint o0) {                                   \
    for (uint c = MERGE_LEFT(0); c; c = MERGE_LEFT(0))                                                     \
      for (; c; --c) MERGE_STEP(0)                                                                         \
    for (; i0 < ie0; ++i0, ++o0) {                                                                         \
      dst[o0] = src[i0];                                                                                   \
      MERGE_VALUE_COPY(0, i0);                                                                             \
    }                                                                                                      \
    for (; j0 < je0; ++j0, ++o0) {                                                                         \
      dst[o0] = src[j0];                                                                                   \
      MERGE_VALUE_COPY(0, j0);                                                                             \
    }                                                                                                      \
  }                                                                                                        \
  INLINE void name(AS_IN const T* src, AS_OUT T* dst MERGE_VALUE_PARAMS(AS_IN, AS_OUT),                    \
                   const uint* i, const uint* ie, const uint* j, const uint* je, const uint* o) {          \
    uint i0 = i[0], i1 = i[1], i2 = i[2], i3 = i[3], j0 = j[0], j1 = j[1], j2 = j[2], j3 = j[3];           \
    uint o0 = o[0], o1 = o[1], o2 = o[2], o3 = o[3];                                                       \
    const uint ie0 = ie[0], ie1 = ie[1], ie2 = ie[2], ie3 = ie[3];                                         \
    const uint je0 = je[0], je1 = je[1], je2 = je[2], je3 = je[3];                                         \
    for (uint c = min(min(MERGE_LEFT(0), MERGE_LEFT(1)), min(MERGE_LEFT(2), MERGE_LEFT(3))); c;            \
         c = min(min(MERGE_LEFT(0), MERGE_LEFT(1)), min(MERGE_LEFT(2), MERGE_LEFT(3))))                    \
      for (; c; --c) {                                                                                     \
        MERGE_STEP(0) MERGE_STEP(1) MERGE_STEP(2) MERGE_STEP(3)                                            \
      }                                                                                                    \
    name##_1(src, dst MERGE_VALUE_ARGS, i0, ie0, j0, je0, o0);                                            \
    name##_1(src, dst MERGE_VALUE_ARGS, i1, ie1, j1, je1, o1);                                            \
    name##_1(src, dst MERGE_VALUE_ARGS, i2, ie2, j2, je2, o2);                                            \
    name##_1(src, dst MERGE_VALUE_ARGS, i3, ie3, j3, je3, o3);                                            \
  }
MERGE_JOBS(merge4_local, local, local, ukey_t)
MERGE_JOBS(merge4_global, global, global, gkey_t)

// Each work-item sorts one chunk in local memory: encode, insertion-sort runs of MERGE_CPU_RUN, then
// merge runs back and forth between two local buffers (four pairs at a time, or four stretches of the
// last pairs), and store. dst may be src.
kernel __attribute__((reqd_work_group_size(1, 1, 1))) void merge_cpu_block(
    global const gkey_t* src, global gkey_t* dst VALUE_PARAMS, uint n, uint kind, uint descending,
    uint decode) {
  local ukey_t k0[MERGE_CHUNK], k1[MERGE_CHUNK];
#if VALUE_BYTES != 0
  local value_t v0[MERGE_CHUNK], v1[MERGE_CHUNK];
#endif
  const uint base = get_group_id(0) * MERGE_CHUNK, m = min((uint)MERGE_CHUNK, n - base);
  for (uint u = 0; u < m; ++u) k0[u] = encode_key(src[base + u], kind, descending);
#if VALUE_BYTES != 0
  for (uint u = 0; u < m; ++u) v0[u] = vsrc[base + u];
#endif
  for (uint s = 0; s < m; s += MERGE_CPU_RUN) insertion_sort_local(k0, WITH_VALUES(v0, ) s, min(s + MERGE_CPU_RUN, m));
  local ukey_t *from = k0, *to = k1;
#if VALUE_BYTES != 0
  local value_t *vfrom = v0, *vto = v1;
#define MERGE_LOCAL_VALUES , vfrom, vto
#else
#define MERGE_LOCAL_VALUES
#endif
  for (uint w = MERGE_CPU_RUN; w < m; w <<= 1) {
    uint i[4], ie[4], j[4], je[4], o[4];
    if (8 * w <= m) {
      // Four neighbouring pairs at a time; a group past m merges nothing.
      for (uint g = 0; g < m; g += 8 * w) {
#pragma unroll
        for (uint s = 0; s < 4; ++s) {
          const uint a0 = min(g + 2 * s * w, m), a1 = min(a0 + w, m), b1 = min(a1 + w, m);
          i[s] = a0, ie[s] = a1, j[s] = a1, je[s] = b1, o[s] = a0;
        }
        merge4_local(from, to MERGE_LOCAL_VALUES, i, ie, j, je, o);
      }
    } else {
      // Fewer than four pairs: each pair's merge path cut into four stretches.
      for (uint g = 0; g < m; g += 2 * w) {
        const uint na = min(w, m - g), nb = min(w, m - g - na), total = na + nb;
#pragma unroll
        for (uint s = 0; s < 4; ++s) {
          const uint d0 = total * s / 4, d1 = total * (s + 1) / 4;
          const uint x0 = merge_path_local(from + g, na, from + g + na, nb, d0);
          const uint x1 = merge_path_local(from + g, na, from + g + na, nb, d1);
          i[s] = g + x0, ie[s] = g + x1, j[s] = g + na + d0 - x0, je[s] = g + na + d1 - x1, o[s] = g + d0;
        }
        merge4_local(from, to MERGE_LOCAL_VALUES, i, ie, j, je, o);
      }
    }
    local ukey_t* t = from;
    from = to;
    to = t;
#if VALUE_BYTES != 0
    local value_t* vt = vfrom;
    vfrom = vto;
    vto = vt;
#endif
  }
  if (decode) {
    for (uint u = 0; u < m; ++u) dst[base + u] = decode_key(from[u], kind, descending);
  } else {
    for (uint u = 0; u < m; ++u) dst[base + u] = from[u];
  }
#if VALUE_BYTES != 0
  for (uint u = 0; u < m; ++u) vdst[base + u] = vfrom[u];
#endif
}

// One pass of width w (a multiple of MERGE_CHUNK): work-item c writes output chunk c, in four stretches
// found by merge-path searches, then decodes it in place if this is the last pass. dst != src.
kernel __attribute__((reqd_work_group_size(1, 1, 1))) void merge_cpu_pass(
    global const gkey_t* src, global gkey_t* dst VALUE_PARAMS, uint n, uint w, uint kind, uint descending,
    uint decode) {
  const uint out0 = get_group_id(0) * MERGE_CHUNK, out1 = min(out0 + MERGE_CHUNK, n);
  const uint3 pr = merge_pair(out0, n, w);
  global const gkey_t* a = src + pr.x;
  global const gkey_t* b = a + pr.y;
  uint i[4], ie[4], j[4], je[4], o[4];
#pragma unroll
  for (uint s = 0; s < 4; ++s) {
    const uint d0 = out0 - pr.x + (out1 - out0) * s / 4, d1 = out0 - pr.x + (out1 - out0) * (s + 1) / 4;
    const uint x0 = merge_path_global(a, pr.y, b, pr.z, d0);
    const uint x1 = d1 == pr.y + pr.z ? pr.y : merge_path_global(a, pr.y, b, pr.z, d1);
    i[s] = pr.x + x0, ie[s] = pr.x + x1, j[s] = pr.x + pr.y + d0 - x0, je[s] = pr.x + pr.y + d1 - x1;
    o[s] = pr.x + d0;
  }
#if VALUE_BYTES != 0
  merge4_global(src, dst, vsrc, vdst, i, ie, j, je, o);
#else
  merge4_global(src, dst, i, ie, j, je, o);
#endif
  if (decode)
    for (uint u = out0; u < out1; ++u) dst[u] = decode_key(dst[u], kind, descending);
}
#endif  // MERGE_CPU
