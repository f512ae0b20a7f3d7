// Shared by every algorithm's program (the host prepends this file): key and value types, the
// order-preserving key transforms, and small utility kernels (in-place encode/decode, iota, gather).
//
// Every algorithm sorts plain unsigned bits ascending. encode_key() maps each key type to unsigned bits
// whose unsigned order is the requested order; decode_key() is its exact inverse, so every input bit
// pattern survives. The host mirror of these transforms is host/include/clsort/key_transform.hpp.

#ifndef KEY_BITS
#define KEY_BITS 32
#endif
#ifndef VALUE_BYTES
#define VALUE_BYTES 0  // 0: keys only; 4 or 8: values of that width travel with the keys
#endif

// ukey_t holds a key's code in registers and local memory, gkey_t a key in global memory. Keys of 8 and
// 16 bits are widened to 32-bit codes as they are loaded (their codes fill only the low KEY_BITS bits), so
// every register and local-memory layout is that of 32-bit keys, and only global memory is narrow.
#if KEY_BITS == 64
typedef ulong ukey_t;
typedef ulong gkey_t;
#define KEY_SIGN 0x8000000000000000UL
// After the sign-magnitude flip, NaNs with the sign bit set occupy [0, 2^52 - 2]; rotating by their
// count moves them above every positive NaN, so all NaNs follow +inf and -inf becomes the smallest key.
#define NEG_NAN_SPAN 0x000FFFFFFFFFFFFFUL
#define KEY_MAX 0xFFFFFFFFFFFFFFFFUL
#elif KEY_BITS == 32
typedef uint ukey_t;
typedef uint gkey_t;
#define KEY_SIGN 0x80000000U
#define NEG_NAN_SPAN 0x007FFFFFU
#define KEY_MAX 0xFFFFFFFFU
#elif KEY_BITS == 16
typedef uint ukey_t;
typedef ushort gkey_t;
#define KEY_SIGN 0x8000U
#define NEG_NAN_SPAN 0x3FFU  // binary16; bfloat16 (KIND_BFLOAT) has 0x7F
#define KEY_MAX 0xFFFFU
#elif KEY_BITS == 8
typedef uint ukey_t;
typedef uchar gkey_t;
#define KEY_SIGN 0x80U
#define NEG_NAN_SPAN 0U  // no 8-bit float kind
#define KEY_MAX 0xFFU
#else
#error "KEY_BITS must be 8, 16, 32 or 64"
#endif
#if KEY_BITS == 64
#define UKEY_BITS 64
#else
#define UKEY_BITS 32
#endif

// Radix sort with a bit range (Options::begin_bit, end_bit) orders by bits [KEY_BEGIN_BIT, KEY_END_BIT)
// of the code only; the plan sets them only then, so other programs see the whole key.
#ifndef KEY_BEGIN_BIT
#define KEY_BEGIN_BIT 0
#endif
#ifndef KEY_END_BIT
#define KEY_END_BIT KEY_BITS
#endif
#define KEY_RANGE_MASK \
  (((((ukey_t)1 << (KEY_END_BIT - 1)) << 1) - (ukey_t)1) & ~(((ukey_t)1 << KEY_BEGIN_BIT) - (ukey_t)1))
#if KEY_BEGIN_BIT == 0 && KEY_END_BIT == KEY_BITS
#define KEY_RANGE(k) (k)
#else
#define KEY_RANGE(k) ((k)&KEY_RANGE_MASK)
#endif

#if VALUE_BYTES == 16
typedef uint4 value_t;  // only the Onesweep passes with the multisplit ranking carry these (sorter.cpp)
#elif VALUE_BYTES == 8
typedef ulong value_t;
#elif VALUE_BYTES == 4
typedef uint value_t;
#elif VALUE_BYTES != 0
#error "VALUE_BYTES must be 0, 4, 8 or 16"
#endif

// Helpers that must be inlined: PoCL leaves larger functions as calls, and a call in a kernel body keeps
// its work-item loops from being vectorized.
#define INLINE inline __attribute__((always_inline))

// Key kinds, a run-time argument so one program serves int, uint and float keys of one width (and both
// 16-bit float formats).
#define KIND_UNSIGNED 0u
#define KIND_SIGNED 1u
#define KIND_FLOAT 2u
#define KIND_BFLOAT 3u

#if KEY_BITS == 16
#define NAN_SPAN(kind) ((kind) == KIND_BFLOAT ? 0x7FU : NEG_NAN_SPAN)
#else
#define NAN_SPAN(kind) NEG_NAN_SPAN
#endif

// `^ KEY_MAX` and `& KEY_MAX` keep a narrow key's code within its KEY_BITS bits; for 32- and 64-bit keys
// they are ~x and nothing.
inline ukey_t encode_key(ukey_t x, uint kind, uint descending) {
  if (kind == KIND_SIGNED) {
    x ^= KEY_SIGN;
  } else if (kind >= KIND_FLOAT) {
    x = (x & KEY_SIGN) ? x ^ KEY_MAX : (x | KEY_SIGN);
    x = (x - NAN_SPAN(kind)) & KEY_MAX;
  }
  return descending ? x ^ KEY_MAX : x;
}

inline ukey_t decode_key(ukey_t x, uint kind, uint descending) {
  if (descending) x ^= KEY_MAX;
  if (kind == KIND_SIGNED) {
    x ^= KEY_SIGN;
  } else if (kind >= KIND_FLOAT) {
    x = (x + NAN_SPAN(kind)) & KEY_MAX;
    x = (x & KEY_SIGN) ? (x ^ KEY_SIGN) : x ^ KEY_MAX;
  }
  return x;
}

// Merge path, shared by merge sort, odd-even merge-split, the segmented sort's merges and the custom sort.

// The run pair of width w that output position p falls in: its start, and the lengths of its halves.
INLINE uint3 merge_pair(uint p, uint n, uint w) {
  const uint base = p / (2u * w) * (2u * w);
  const uint na = min(w, n - base);
  return (uint3)(base, na, min(w, n - base - na));
}

// How many of the first `diag` outputs of the stable merge of runs a[0, na) and b[0, nb) come from a: the
// merge path's crossing of that diagonal. One function per way of reaching and comparing elements:
// PARAMS is its parameter list (naming na, nb and diag), A_FIRST(x, y) whether a's x-th element goes
// before b's y-th (true on ties: a's goes first).
#define MERGE_PATH_SEARCH(name, PARAMS, A_FIRST)              \
  INLINE uint name PARAMS {                                   \
    uint lo = diag > nb ? diag - nb : 0u, hi = min(diag, na); \
    while (lo < hi) {                                         \
      const uint mid = (lo + hi) >> 1;                        \
      if (A_FIRST(mid, diag - 1u - mid))                      \
        lo = mid + 1u;                                        \
      else                                                    \
        hi = mid;                                             \
    }                                                         \
    return lo;                                                \
  }
#define KEY_A_FIRST(x, y) (a[x] <= b[y])
#define MERGE_PATH(name, AS, T) \
  MERGE_PATH_SEARCH(name, (AS const T* a, uint na, AS const T* b, uint nb, uint diag), KEY_A_FIRST)
MERGE_PATH(merge_path_global, global, gkey_t)
MERGE_PATH(merge_path_local, local, ukey_t)

// The kernel that finds where the merge path of each output tile (of TILE elements) of a pass of width w
// starts: splits[i] = how many elements of the first run of its pair precede output tile i. SEARCH is a
// merge-path search over global runs of T.
#define MERGE_PARTITION(name, T, TILE, SEARCH)                                             \
  kernel void name(global const T* src, global uint* splits, uint n, uint w, uint tiles) { \
    const uint i = get_global_id(0);                                                       \
    if (i >= tiles) return;                                                                \
    const uint p = i * (TILE);                                                             \
    const uint3 pr = merge_pair(p, n, w);                                                  \
    splits[i] = SEARCH(src + pr.x, pr.y, src + pr.x + pr.y, pr.z, p - pr.x);               \
  }

// The inputs of output tile `tile`, positions [out0, out1), of a merge pass of width w whose merge-path
// splits (how many keys of the first run of its pair precede each tile) are in splits[]: a's slice starts
// at .x (an index into the whole array) and holds .y elements, b's starts at .z and holds .w. A tile
// never straddles two pairs; the one that ends its pair takes the rest of both runs.
INLINE uint4 merge_tile_slices(global const uint* splits, uint tile, uint out0, uint out1, uint n, uint w) {
  const uint3 pr = merge_pair(out0, n, w);
  const uint d0 = out0 - pr.x, d1 = out1 - pr.x;
  const uint a0 = splits[tile], a1 = d1 == pr.y + pr.z ? pr.y : splits[tile + 1];
  return (uint4)(pr.x + a0, a1 - a0, pr.x + pr.y + (d0 - a0), (d1 - a1) - (d0 - a0));
}

// Stable insertion sort of k[begin, end) in place, values v following their keys: a key moves only past
// strictly greater ones. For runs of a few dozen keys (the CPU shapes' small buckets and runs).
#if VALUE_BYTES != 0
#define WITH_VALUES(...) __VA_ARGS__
#else
#define WITH_VALUES(...)
#endif
#define INSERTION_SORT(name, AS, T)                                              \
  INLINE void name(AS T* k, WITH_VALUES(AS value_t* v, ) uint begin, uint end) { \
    for (uint i = begin + 1; i < end; ++i) {                                     \
      const ukey_t key = k[i];                                                   \
      WITH_VALUES(const value_t val = v[i];)                                     \
      uint j = i;                                                                \
      for (; j > begin && KEY_RANGE(k[j - 1]) > KEY_RANGE(key); --j) {           \
        k[j] = k[j - 1];                                                         \
        WITH_VALUES(v[j] = v[j - 1];)                                            \
      }                                                                          \
      k[j] = key;                                                                \
      WITH_VALUES(v[j] = val;)                                                   \
    }                                                                            \
  }
INSERTION_SORT(insertion_sort_global, global, gkey_t)
INSERTION_SORT(insertion_sort_local, local, ukey_t)

// Per-work-item merges in registers over runs in local memory (merge sort's tiles and passes, odd-even
// merge-split), for ITEMS outputs a work-item. MERGE_TO_REGS: merges ITEMS outputs from diagonal `diag`
// of a[0, na) and b[0, nb) into k[]; o[] receives each key's offset from a (b's keys follow a's), to find
// its value afterwards. STORE_REGS: writes k[] (and, with values, o[] to lo) back from position `first`,
// none at or past `count`.
#define MERGE_TO_REGS(name, ITEMS)                                                                       \
  INLINE void name(local const ukey_t* a, uint na, local const ukey_t* b, uint nb, uint diag, ukey_t* k, \
                   uint* o) {                                                                            \
    uint i = merge_path_local(a, na, b, nb, diag);                                                       \
    uint j = diag - i;                                                                                   \
    _Pragma("unroll") for (uint e = 0; e < (ITEMS); ++e) {                                               \
      const ukey_t ka = i < na ? a[i] : KEY_MAX, kb = j < nb ? b[j] : KEY_MAX;                           \
      const bool take_a = i < na && (j >= nb || ka <= kb);                                               \
      k[e] = take_a ? ka : kb;                                                                           \
      o[e] = take_a ? i : na + j;                                                                        \
      i += take_a;                                                                                       \
      j += !take_a;                                                                                      \
    }                                                                                                    \
  }
#define STORE_REGS(name, ITEMS)                                                                    \
  INLINE void name(local ukey_t* lk, WITH_VALUES(local uint* lo, ) const ukey_t* k, const uint* o, \
                   uint first, uint count) {                                                       \
    _Pragma("unroll") for (uint e = 0; e < (ITEMS); ++e) {                                         \
      if (first + e < count) {                                                                     \
        lk[first + e] = k[e];                                                                      \
        WITH_VALUES(lo[first + e] = o[e];)                                                         \
      }                                                                                            \
    }                                                                                              \
  }

// Utility kernels. Each work-item handles one element; sizes are arguments so no n needs a rebuild.
kernel void util_decode(global gkey_t* keys, uint n, uint kind, uint descending) {
  const uint i = get_global_id(0);
  if (i < n) keys[i] = decode_key(keys[i], kind, descending);
}

#if VALUE_BYTES != 0
// dst[i] = src[index[i]]: applies a permutation found by a sort of (key, index) pairs to the values.
kernel void util_gather(global const value_t* src, global const uint* index, global value_t* dst, uint n) {
  const uint i = get_global_id(0);
  if (i < n) dst[i] = src[index[i]];
}
#endif
