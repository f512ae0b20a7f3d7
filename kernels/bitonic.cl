// Bitonic sort: tiles sorted in local memory, then per merge stage the steps whose pairs span tiles in
// global kernels that each run several steps in registers, finished by a local-memory kernel.
//
// The "flip" network is used: the first step of a stage of block size `size` compares i with its mirror
// size-1-i in the block, later steps compare i with i+stride; every compare-exchange puts the smaller
// element at the lower position. Positions >= n act as +inf and never move, so any n sorts in place
// without padding memory: a work-item loads the largest element for them and never stores them.
//
// Step fusion: the steps of a stage are xor masks (size-1 for the flip, then size/4, size/8, ...). The
// positions x0 ^ (any combination of K consecutive masks) are closed under those K steps, so a work-item
// that loads these 2^K elements runs all K steps in registers with one read and one write. Arranged as
// below, the registers form a small flip network of their own: register j pairs with 2^K-1-j in a flip
// step and with j + 2^(K-1-i) in step i, and the lower register always takes the smaller element.
// Consecutive work-items take consecutive x0, so every register's load is coalesced.
//
// By-key sorts carry each key's input index and order (key, index), which makes them stable; the host
// gathers the values by index afterwards. With keys of 32 bits or fewer the pair is one ulong (key high, index low).

#ifndef BITONIC_WG
#define BITONIC_WG 256
#endif
#ifndef BITONIC_TILE
#define BITONIC_TILE 2048  // elements per work-group in the local kernels: BITONIC_WG * 2^k, k >= 1
#endif

// ---- Elements: a key, or (key, input index) for by-key sorts.
#if VALUE_BYTES != 0 && UKEY_BITS == 32
#define BITONIC_PACKED 1  // (key << 32) | index: one unsigned compare orders (key, index)
typedef ulong elem_t;
#define ELEM_PAD ((ulong)0xFFFFFFFFFFFFFFFFUL)
#elif VALUE_BYTES != 0
#define BITONIC_SPLIT 1  // 64-bit key and index apart
typedef struct {
  ulong k;
  uint i;
} elem_t;
#else
typedef ukey_t elem_t;
#define ELEM_PAD KEY_MAX
#endif

#if VALUE_BYTES != 0
#define INDEX_PARAM , global uint *index
#define INDEX_ARG , index
#else
#define INDEX_PARAM
#define INDEX_ARG
#endif

#ifdef BITONIC_SPLIT
INLINE elem_t elem_make(ulong k, uint i) {
  elem_t e;
  e.k = k;
  e.i = i;
  return e;
}
INLINE elem_t elem_pad(void) {
  return elem_make(KEY_MAX, 0xFFFFFFFFu);
}
INLINE void ce(elem_t* a, elem_t* b) {
  const elem_t x = *a, y = *b;
  const int swap = x.k > y.k || (x.k == y.k && x.i > y.i);
  *a = swap ? y : x;
  *b = swap ? x : y;
}
#else
INLINE elem_t elem_pad(void) {
  return ELEM_PAD;
}
INLINE void ce(elem_t* a, elem_t* b) {
  const elem_t x = *a, y = *b;
  *a = min(x, y);
  *b = max(x, y);
}
#endif

// Global memory: `encode` turns raw keys into sort codes and starts the index at the position.
INLINE elem_t load_g(global gkey_t* keys INDEX_PARAM, uint p, uint encode, uint kind, uint descending) {
  ukey_t k = keys[p];
  if (encode) k = encode_key(k, kind, descending);
#if defined(BITONIC_PACKED)
  return ((ulong)k << 32) | (encode ? p : index[p]);
#elif defined(BITONIC_SPLIT)
  return elem_make(k, encode ? p : index[p]);
#else
  return k;
#endif
}

INLINE void store_g(global gkey_t* keys INDEX_PARAM, uint p, elem_t e, uint decode, uint kind,
                    uint descending) {
#if defined(BITONIC_PACKED)
  const ukey_t k = (ukey_t)(e >> 32);
  index[p] = (uint)e;
#elif defined(BITONIC_SPLIT)
  const ukey_t k = e.k;
  index[p] = e.i;
#else
  const ukey_t k = e;
#endif
  keys[p] = decode ? decode_key(k, kind, descending) : k;
}

// The first position of group t: t with K zero bits inserted at bit lo (the bits the K masks span).
INLINE uint group_base(uint t, uint lo, uint K) {
  return ((t >> lo) << (lo + K)) | (t & ((1u << lo) - 1u));
}

// Position of register j of the group at x0. In a flip group the upper half of the registers holds the
// mirror positions in increasing order, so that the registers themselves form a flip block.
INLINE uint group_pos(uint j, uint K, uint x0, uint lo, uint flip, uint size) {
  return (flip && j >= (1u << (K - 1))) ? (x0 ^ (size - 1u)) - ((((1u << K) - 1u) - j) << lo)
                                        : x0 + (j << lo);
}

#ifndef BITONIC_CPU
#define BITONIC_CPU 0  // 1: the CPU shape's kernels only (tuning bitonic.cpu); one shape per program
#endif

#if !BITONIC_CPU
// ---- The GPU shape: work-groups of BITONIC_WG work-items, 2^K elements per work-item in registers.

#define BITONIC_E (BITONIC_TILE / BITONIC_WG)  // elements per work-item in a local round
#if BITONIC_E == 2
#define BITONIC_LK 1
#elif BITONIC_E == 4
#define BITONIC_LK 2
#elif BITONIC_E == 8
#define BITONIC_LK 3
#elif BITONIC_E == 16
#define BITONIC_LK 4
#elif BITONIC_E == 32
#define BITONIC_LK 5
#elif BITONIC_E == 64
#define BITONIC_LK 6
#else
#error "BITONIC_TILE / BITONIC_WG must be a power of two in 2..64"
#endif

// Local memory: one padding slot per 32 keeps the strided register loads off a single bank.
#define LP(p) ((p) + ((p) >> 5))
#define BITONIC_LSIZE (BITONIC_TILE + BITONIC_TILE / 32)
#ifdef BITONIC_SPLIT
#define LOCAL_DECL local ulong lk[BITONIC_LSIZE]; local uint li[BITONIC_LSIZE]
#define LOCAL_PARAM local ulong *lk, local uint *li
#define LOCAL_ARG lk, li
#define LGET(p) elem_make(lk[LP(p)], li[LP(p)])
#define LSET(p, e) (lk[LP(p)] = (e).k, li[LP(p)] = (e).i)
#else
#define LOCAL_DECL local elem_t lk[BITONIC_LSIZE]
#define LOCAL_PARAM local elem_t* lk
#define LOCAL_ARG lk
#define LGET(p) lk[LP(p)]
#define LSET(p, e) (lk[LP(p)] = (e))
#endif

// K steps on 2^K registers, the first a flip step when `flip`.
#define BITONIC_NETWORK(K)                                                                   \
  INLINE void bitonic_net_##K(elem_t* r, uint flip) {                                      \
    if (flip) {                                                                              \
      _Pragma("unroll") for (uint j = 0; j < (1u << ((K)-1)); ++j) ce(&r[j], &r[(1u << (K)) - 1u - j]); \
    } else {                                                                                 \
      _Pragma("unroll") for (uint j = 0; j < (1u << ((K)-1)); ++j) ce(&r[j], &r[j + (1u << ((K)-1))]);  \
    }                                                                                        \
    _Pragma("unroll") for (uint i = 1; i < (K); ++i) {                                       \
      const uint h = 1u << ((K)-1 - i);                                                      \
      _Pragma("unroll") for (uint j = 0; j < (1u << (K)); ++j) if (!(j & h)) ce(&r[j], &r[j + h]); \
    }                                                                                        \
  }

// One local round: every group of K steps of the tile (positions local to the tile), then a barrier.
// TILE >> K is a multiple of the work-group size, so every work-item runs the same number of groups.
#define BITONIC_LOCAL_ROUND(K)                                                                  \
  INLINE void bitonic_round_##K(LOCAL_PARAM, uint lo, uint flip, uint size) {                   \
    for (uint t = get_local_id(0); t < (BITONIC_TILE >> (K)); t += BITONIC_WG) {                \
      const uint x0 = group_base(t, lo, K);                                                     \
      elem_t r[1u << (K)];                                                                      \
      _Pragma("unroll") for (uint j = 0; j < (1u << (K)); ++j) r[j] = LGET(group_pos(j, K, x0, lo, flip, size)); \
      bitonic_net_##K(r, flip);                                                                 \
      _Pragma("unroll") for (uint j = 0; j < (1u << (K)); ++j) LSET(group_pos(j, K, x0, lo, flip, size), r[j]); \
    }                                                                                           \
    barrier(CLK_LOCAL_MEM_FENCE);                                                               \
  }

// How far a global step unrolls the loads of its group (0: fully). Intel's OpenCL compiler (its CPU
// runtime 2026.2) crashes in machine loop-invariant code motion on the fully unrolled 64 clamped loads of
// bitonic_global_6 (SIGSEGV while building the program); unrolled 16 at a time it compiles. The plan sets
// 16 for Intel's devices (host/src/algorithms/bitonic.cpp); the others keep the full unroll.
#ifndef BITONIC_LOAD_UNROLL
#define BITONIC_LOAD_UNROLL 0
#endif
#define BITONIC_PRAGMA_(x) _Pragma(#x)
#define BITONIC_PRAGMA(x) BITONIC_PRAGMA_(x)
#if BITONIC_LOAD_UNROLL
#define BITONIC_UNROLL_LOADS BITONIC_PRAGMA(unroll BITONIC_LOAD_UNROLL)
#else
#define BITONIC_UNROLL_LOADS _Pragma("unroll")
#endif

// K steps of one stage over the whole array: work-item t owns group t.
#define BITONIC_GLOBAL_KERNEL(K)                                                                 \
  kernel void bitonic_global_##K(global gkey_t* keys INDEX_PARAM, uint n, uint size, uint lo,    \
                                 uint flip) {                                                    \
    const uint x0 = group_base(get_global_id(0), lo, K);                                         \
    if (x0 >= n) return; /* x0 is the group's lowest position: all of it is past n */            \
    elem_t r[1u << (K)];                                                                         \
    BITONIC_UNROLL_LOADS for (uint j = 0; j < (1u << (K)); ++j) {                                \
      const uint p = group_pos(j, K, x0, lo, flip, size);                                        \
      /* an unconditional load (clamped) and a select vectorize where a conditional load does not; */ \
      /* past n it reads this work-item's own x0: n - 1 may be another's, written meanwhile (a race) */ \
      const elem_t e = load_g(keys INDEX_ARG, p < n ? p : x0, 0, 0, 0);                          \
      r[j] = p < n ? e : elem_pad();                                                             \
    }                                                                                            \
    bitonic_net_##K(r, flip);                                                                    \
    _Pragma("unroll") for (uint j = 0; j < (1u << (K)); ++j) {                                   \
      const uint p = group_pos(j, K, x0, lo, flip, size);                                        \
      if (p < n) store_g(keys INDEX_ARG, p, r[j], 0, 0, 0);                                      \
    }                                                                                            \
  }

BITONIC_NETWORK(1)
BITONIC_NETWORK(2)
BITONIC_NETWORK(3)
BITONIC_NETWORK(4)
BITONIC_NETWORK(5)
BITONIC_NETWORK(6)
BITONIC_LOCAL_ROUND(1)
#if BITONIC_LK >= 2
BITONIC_LOCAL_ROUND(2)
#endif
#if BITONIC_LK >= 3
BITONIC_LOCAL_ROUND(3)
#endif
#if BITONIC_LK >= 4
BITONIC_LOCAL_ROUND(4)
#endif
#if BITONIC_LK >= 5
BITONIC_LOCAL_ROUND(5)
#endif
#if BITONIC_LK >= 6
BITONIC_LOCAL_ROUND(6)
#endif
BITONIC_GLOBAL_KERNEL(1)
BITONIC_GLOBAL_KERNEL(2)
BITONIC_GLOBAL_KERNEL(3)
BITONIC_GLOBAL_KERNEL(4)
BITONIC_GLOBAL_KERNEL(5)
BITONIC_GLOBAL_KERNEL(6)

// Rounds of K steps (K uniform across the group) for the steps of one stage whose masks span bits
// [0, bits): the first round takes bits % LK steps so that the later rounds are full.
INLINE void bitonic_local_steps(LOCAL_PARAM, uint bits, uint flip, uint size) {
  uint done = 0;
  while (done < bits) {
    const uint left = bits - done;
    const uint K = (left % BITONIC_LK) ? (left % BITONIC_LK) : BITONIC_LK;
    const uint lo = left - K, f = flip && done == 0;
    switch (K) {
      case 1:
        bitonic_round_1(LOCAL_ARG, lo, f, size);
        break;
#if BITONIC_LK >= 2
      case 2:
        bitonic_round_2(LOCAL_ARG, lo, f, size);
        break;
#endif
#if BITONIC_LK >= 3
      case 3:
        bitonic_round_3(LOCAL_ARG, lo, f, size);
        break;
#endif
#if BITONIC_LK >= 4
      case 4:
        bitonic_round_4(LOCAL_ARG, lo, f, size);
        break;
#endif
#if BITONIC_LK >= 5
      case 5:
        bitonic_round_5(LOCAL_ARG, lo, f, size);
        break;
#endif
#if BITONIC_LK >= 6
      case 6:
        bitonic_round_6(LOCAL_ARG, lo, f, size);
        break;
#endif
    }
    done += K;
  }
}

INLINE void bitonic_load_tile(LOCAL_PARAM, global gkey_t* keys INDEX_PARAM, uint n, uint encode, uint kind,
                              uint descending) {
  const uint base = get_group_id(0) * BITONIC_TILE;
  for (uint j = get_local_id(0); j < BITONIC_TILE; j += BITONIC_WG) {
    const uint g = base + j;
    const elem_t e = g < n ? load_g(keys INDEX_ARG, g, encode, kind, descending) : elem_pad();
    LSET(j, e);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
}

INLINE void bitonic_store_tile(LOCAL_PARAM, global gkey_t* keys INDEX_PARAM, uint n, uint decode, uint kind,
                               uint descending) {
  const uint base = get_group_id(0) * BITONIC_TILE;
  for (uint j = get_local_id(0); j < BITONIC_TILE; j += BITONIC_WG) {
    const uint g = base + j;
    if (g < n) store_g(keys INDEX_ARG, g, LGET(j), decode, kind, descending);
  }
}

// Stages of block size 2 .. BITONIC_E on a work-item's BITONIC_E consecutive elements, in registers.
INLINE void bitonic_sort_regs(elem_t* r) {
#pragma unroll
  for (uint b = 0; b < BITONIC_E; b += 2) bitonic_net_1(r + b, 1);
#if BITONIC_LK >= 2
#pragma unroll
  for (uint b = 0; b < BITONIC_E; b += 4) bitonic_net_2(r + b, 1);
#endif
#if BITONIC_LK >= 3
#pragma unroll
  for (uint b = 0; b < BITONIC_E; b += 8) bitonic_net_3(r + b, 1);
#endif
#if BITONIC_LK >= 4
#pragma unroll
  for (uint b = 0; b < BITONIC_E; b += 16) bitonic_net_4(r + b, 1);
#endif
#if BITONIC_LK >= 5
#pragma unroll
  for (uint b = 0; b < BITONIC_E; b += 32) bitonic_net_5(r + b, 1);
#endif
#if BITONIC_LK >= 6
  bitonic_net_6(r, 1);
#endif
}

// Encodes each tile (and starts the index), sorts it completely; decodes when it is the whole sort.
// The stages up to BITONIC_E need no exchange: each work-item sorts its own run in registers first.
kernel __attribute__((reqd_work_group_size(BITONIC_WG, 1, 1))) void bitonic_sort_local(
    global gkey_t* keys INDEX_PARAM, uint n, uint kind, uint descending, uint last) {
  LOCAL_DECL;
  bitonic_load_tile(LOCAL_ARG, keys INDEX_ARG, n, 1, kind, descending);
  {
    const uint first = get_local_id(0) * BITONIC_E;
    elem_t r[BITONIC_E];
#pragma unroll
    for (uint j = 0; j < BITONIC_E; ++j) r[j] = LGET(first + j);
    bitonic_sort_regs(r);
#pragma unroll
    for (uint j = 0; j < BITONIC_E; ++j) LSET(first + j, r[j]);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  uint bits = BITONIC_LK + 1;
  for (uint size = 2 * BITONIC_E; size <= BITONIC_TILE; size <<= 1, ++bits)
    bitonic_local_steps(LOCAL_ARG, bits, 1, size);
  bitonic_store_tile(LOCAL_ARG, keys INDEX_ARG, n, last, kind, descending);
}

// Finishes a stage larger than the tile: its half-cleaner steps with strides BITONIC_TILE/2 .. 1.
// Decodes when it finishes the last stage.
kernel __attribute__((reqd_work_group_size(BITONIC_WG, 1, 1))) void bitonic_merge_local(
    global gkey_t* keys INDEX_PARAM, uint n, uint kind, uint descending, uint last) {
  LOCAL_DECL;
  bitonic_load_tile(LOCAL_ARG, keys INDEX_ARG, n, 0, kind, descending);
  uint bits = 0;
  for (uint s = BITONIC_TILE; s > 1; s >>= 1) ++bits;
  bitonic_local_steps(LOCAL_ARG, bits, 0, 0);
  bitonic_store_tile(LOCAL_ARG, keys INDEX_ARG, n, last, kind, descending);
}

#else  // BITONIC_CPU
// ---- The CPU shape (BITONIC_CPU, chosen by the tuning table): one work-item per work-group owns a chunk
// of BITONIC_TILE elements in local memory (cache-resident on a CPU) and runs its steps as loops over
// explicit vectors, which compile to SIMD min/max on CPU OpenCL implementations whatever their work-item
// vectorizer does. Steps with stride below the vector width are lane shuffles within one vector. The same
// network as above, the same +inf convention past n; global steps fuse K steps over 2^K runs of a chunk.

#if defined(BITONIC_SPLIT)
#define VW 1
typedef elem_t vec_t;
#define VLOAD(a, i) ((a)[i])
#define VSTORE(a, i, v) ((a)[i] = (v))
#define VREV(v) (v)
#elif defined(BITONIC_PACKED) || UKEY_BITS == 64
#define VW 8
typedef ulong8 vec_t;
typedef long8 vmask_t;
#define VLOAD(a, i) vload8(0, (a) + (i))
#define VSTORE(a, i, v) vstore8((v), 0, (a) + (i))
#define VMASK_B0 ((vmask_t)(-1, 0, -1, 0, -1, 0, -1, 0))
#define VMASK_B1 ((vmask_t)(-1, -1, 0, 0, -1, -1, 0, 0))
#define VMASK_B2 ((vmask_t)(-1, -1, -1, -1, 0, 0, 0, 0))
#define PERM_X1 1, 0, 3, 2, 5, 4, 7, 6
#define PERM_X2 2, 3, 0, 1, 6, 7, 4, 5
#define PERM_X3 3, 2, 1, 0, 7, 6, 5, 4
#define PERM_X4 4, 5, 6, 7, 0, 1, 2, 3
#define PERM_X7 7, 6, 5, 4, 3, 2, 1, 0
#define PERM_REV PERM_X7
typedef ulong8 vperm_t;
#else
#define VW 16
typedef uint16 vec_t;
typedef int16 vmask_t;
#define VLOAD(a, i) vload16(0, (a) + (i))
#define VSTORE(a, i, v) vstore16((v), 0, (a) + (i))
#define VMASK_B0 ((vmask_t)(-1, 0, -1, 0, -1, 0, -1, 0, -1, 0, -1, 0, -1, 0, -1, 0))
#define VMASK_B1 ((vmask_t)(-1, -1, 0, 0, -1, -1, 0, 0, -1, -1, 0, 0, -1, -1, 0, 0))
#define VMASK_B2 ((vmask_t)(-1, -1, -1, -1, 0, 0, 0, 0, -1, -1, -1, -1, 0, 0, 0, 0))
#define VMASK_B3 ((vmask_t)(-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0))
#define PERM_X1 1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10, 13, 12, 15, 14
#define PERM_X2 2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13
#define PERM_X3 3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12
#define PERM_X4 4, 5, 6, 7, 0, 1, 2, 3, 12, 13, 14, 15, 8, 9, 10, 11
#define PERM_X7 7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8
#define PERM_X8 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7
#define PERM_X15 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0
#define PERM_REV PERM_X15
typedef uint16 vperm_t;
#endif

#if VW > 1
// Clang's shufflevector gives the compiler a constant permutation; shuffle() is the portable fallback.
#if defined(__has_builtin)
#if __has_builtin(__builtin_shufflevector)
#define VPERM(v, ...) __builtin_shufflevector((v), (v), __VA_ARGS__)
#endif
#endif
#ifndef VPERM
#define VPERM(v, ...) shuffle((v), (vperm_t)(__VA_ARGS__))
#endif
#define VREV(v) VPERM(v, PERM_REV)

// One step inside a vector: lanes pair by the permutation, the lanes in `lower` take the minimum.
#define VSTEP(v, P, lower)                   \
  do {                                       \
    const vec_t p_ = VPERM(v, P);            \
    v = select(max(v, p_), min(v, p_), lower); \
  } while (0)

// Every stage of block size 2 .. VW, inside each vector.
INLINE vec_t vec_sort_small(vec_t v) {
  VSTEP(v, PERM_X1, VMASK_B0);
  VSTEP(v, PERM_X3, VMASK_B1);
  VSTEP(v, PERM_X1, VMASK_B0);
  VSTEP(v, PERM_X7, VMASK_B2);
  VSTEP(v, PERM_X2, VMASK_B1);
  VSTEP(v, PERM_X1, VMASK_B0);
#if VW == 16
  VSTEP(v, PERM_X15, VMASK_B3);
  VSTEP(v, PERM_X4, VMASK_B2);
  VSTEP(v, PERM_X2, VMASK_B1);
  VSTEP(v, PERM_X1, VMASK_B0);
#endif
  return v;
}

// The half-cleaner steps of strides VW/2 .. 1 that end every larger stage.
INLINE vec_t vec_tail(vec_t v) {
#if VW == 16
  VSTEP(v, PERM_X8, VMASK_B3);
#endif
  VSTEP(v, PERM_X4, VMASK_B2);
  VSTEP(v, PERM_X2, VMASK_B1);
  VSTEP(v, PERM_X1, VMASK_B0);
  return v;
}

INLINE void vce(vec_t* a, vec_t* b) {
  const vec_t x = *a, y = *b;
  *a = min(x, y);
  *b = max(x, y);
}
#else
INLINE void vce(vec_t* a, vec_t* b) {
  ce(a, b);
}
#endif

// The flip step of block size z >= 2 VW over a[0, len): element i against z-1-i of its block.
INLINE void cpu_flip(local elem_t* a, uint len, uint z) {
  for (uint base = 0; base < len; base += z)
    for (uint i = 0; i < z / 2; i += VW) {
      vec_t x = VLOAD(a, base + i), y = VREV(VLOAD(a, base + z - VW - i));
      vce(&x, &y);
      VSTORE(a, base + i, x);
      VSTORE(a, base + z - VW - i, VREV(y));
    }
}

// A half-cleaner step of stride s >= VW over a[0, len).
INLINE void cpu_half(local elem_t* a, uint len, uint s) {
  for (uint base = 0; base < len; base += 2 * s)
    for (uint i = 0; i < s; i += VW) {
      vec_t x = VLOAD(a, base + i), y = VLOAD(a, base + i + s);
      vce(&x, &y);
      VSTORE(a, base + i, x);
      VSTORE(a, base + i + s, y);
    }
}

// Strides s0, s0/2, .. 1 of a stage over a[0, len).
INLINE void cpu_tail(local elem_t* a, uint len, uint s0) {
  for (uint s = s0; s >= VW; s >>= 1) cpu_half(a, len, s);
#if VW > 1
  for (uint i = 0; i < len; i += VW) VSTORE(a, i, vec_tail(VLOAD(a, i)));
#endif
}

// `sort`: encodes, starts the index and sorts the chunk; otherwise finishes a stage larger than the chunk
// (strides BITONIC_TILE/2 .. 1). Decodes when it ends the sort. One work-item per work-group.
kernel __attribute__((reqd_work_group_size(1, 1, 1))) void bitonic_cpu_local(
    global gkey_t* keys INDEX_PARAM, uint n, uint kind, uint descending, uint sort, uint last) {
  local elem_t a[BITONIC_TILE];
  const uint base = get_group_id(0) * BITONIC_TILE, m = min((uint)BITONIC_TILE, n - base);
  if (sort) {
    for (uint u = 0; u < m; ++u) a[u] = load_g(keys INDEX_ARG, base + u, 1, kind, descending);
  } else {
    for (uint u = 0; u < m; ++u) a[u] = load_g(keys INDEX_ARG, base + u, 0, 0, 0);
  }
  for (uint u = m; u < BITONIC_TILE; ++u) a[u] = elem_pad();
  if (sort) {
#if VW > 1
    for (uint i = 0; i < BITONIC_TILE; i += VW) VSTORE(a, i, vec_sort_small(VLOAD(a, i)));
#endif
    for (uint z = 2 * VW; z <= BITONIC_TILE; z <<= 1) {
      cpu_flip(a, BITONIC_TILE, z);
      cpu_tail(a, BITONIC_TILE, z / 4);
    }
  } else {
    cpu_tail(a, BITONIC_TILE, BITONIC_TILE / 2);
  }
  if (last) {
    for (uint u = 0; u < m; ++u) store_g(keys INDEX_ARG, base + u, a[u], 1, kind, descending);
  } else {
    for (uint u = 0; u < m; ++u) store_g(keys INDEX_ARG, base + u, a[u], 0, 0, 0);
  }
}

// K global steps of stage `size` (lowest mask bit lo >= log2 BITONIC_TILE): the work-item takes the
// groups of L = BITONIC_TILE >> K consecutive x0, that is 2^K runs of L elements (a flip group's upper
// runs read backwards), so each step is a vector loop between two runs of the chunk.
kernel __attribute__((reqd_work_group_size(1, 1, 1))) void bitonic_cpu_global(
    global gkey_t* keys INDEX_PARAM, uint n, uint size, uint lo, uint K, uint flip) {
  local elem_t a[BITONIC_TILE];
  const uint L = BITONIC_TILE >> K, runs = 1u << K;
  const uint x0 = group_base(get_group_id(0) * L, lo, K);
  if (x0 >= n) return;
  for (uint j = 0; j < runs; ++j) {
    const uint p0 = group_pos(j, K, x0, lo, flip, size);
    local elem_t* r = a + j * L;
    if (flip && j >= runs / 2) {
      if (p0 < n) {
        for (uint u = 0; u < L; ++u) r[u] = load_g(keys INDEX_ARG, p0 - u, 0, 0, 0);
      } else {
        for (uint u = 0; u < L; ++u) r[u] = p0 - u < n ? load_g(keys INDEX_ARG, p0 - u, 0, 0, 0) : elem_pad();
      }
    } else if (p0 + L <= n) {
      for (uint u = 0; u < L; ++u) r[u] = load_g(keys INDEX_ARG, p0 + u, 0, 0, 0);
    } else {
      for (uint u = 0; u < L; ++u) r[u] = p0 + u < n ? load_g(keys INDEX_ARG, p0 + u, 0, 0, 0) : elem_pad();
    }
  }
  for (uint i = 0; i < K; ++i) {
    const uint h = runs >> (i + 1);
    for (uint j = 0; j < runs; ++j) {
      if (flip && i == 0) {
        if (j >= h) continue;
      } else if (j & h) {
        continue;
      }
      local elem_t* x = a + j * L;
      local elem_t* y = a + (flip && i == 0 ? runs - 1 - j : j + h) * L;
      for (uint u = 0; u < L; u += VW) {
        vec_t vx = VLOAD(x, u), vy = VLOAD(y, u);
        vce(&vx, &vy);
        VSTORE(x, u, vx);
        VSTORE(y, u, vy);
      }
    }
  }
  for (uint j = 0; j < runs; ++j) {
    const uint p0 = group_pos(j, K, x0, lo, flip, size);
    local elem_t* r = a + j * L;
    if (flip && j >= runs / 2) {
      for (uint u = 0; u < L; ++u)
        if (p0 - u < n) store_g(keys INDEX_ARG, p0 - u, r[u], 0, 0, 0);
    } else {
      const uint m = p0 < n ? min(L, n - p0) : 0u;
      for (uint u = 0; u < m; ++u) store_g(keys INDEX_ARG, p0 + u, r[u], 0, 0, 0);
    }
  }
}

#endif  // BITONIC_CPU
