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
#define KEY_RANGE(k) ((k) & KEY_RANGE_MASK)
#endif

#if VALUE_BYTES == 8
typedef ulong value_t;
#elif VALUE_BYTES == 4
typedef uint value_t;
#elif VALUE_BYTES != 0
#error "VALUE_BYTES must be 0, 4 or 8"
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

// Utility kernels. Each work-item handles one element; sizes are arguments so no n needs a rebuild.
// Merge-path search, shared by merge sort and odd-even merge-split.
// How many of the first `diag` outputs of the stable merge of a[0, na) and b[0, nb) come from a: the
// merge path's crossing of that diagonal. An a key equal to a b key goes first.
#define MERGE_PATH(name, AS, T)                                                               \
  INLINE uint name(AS const T* a, uint na, AS const T* b, uint nb, uint diag) {               \
    uint lo = diag > nb ? diag - nb : 0u, hi = min(diag, na);                                 \
    while (lo < hi) {                                                                         \
      const uint mid = (lo + hi) >> 1;                                                        \
      if (a[mid] <= b[diag - 1u - mid])                                                       \
        lo = mid + 1u;                                                                        \
      else                                                                                    \
        hi = mid;                                                                             \
    }                                                                                         \
    return lo;                                                                                \
  }
MERGE_PATH(merge_path_global, global, gkey_t)
MERGE_PATH(merge_path_local, local, ukey_t)

// Stable insertion sort of k[begin, end) in place, values v following their keys: a key moves only past
// strictly greater ones. For runs of a few dozen keys (the CPU shapes' small buckets and runs).
#if VALUE_BYTES != 0
#define WITH_VALUES(...) __VA_ARGS__
#else
#define WITH_VALUES(...)
#endif
#define INSERTION_SORT(name, AS, T)                                                      \
  INLINE void name(AS T* k, WITH_VALUES(AS value_t* v, ) uint begin, uint end) {         \
    for (uint i = begin + 1; i < end; ++i) {                                             \
      const ukey_t key = k[i];                                                           \
      WITH_VALUES(const value_t val = v[i];)                                             \
      uint j = i;                                                                        \
      for (; j > begin && KEY_RANGE(k[j - 1]) > KEY_RANGE(key); --j) {                   \
        k[j] = k[j - 1];                                                                 \
        WITH_VALUES(v[j] = v[j - 1];)                                                    \
      }                                                                                  \
      k[j] = key;                                                                        \
      WITH_VALUES(v[j] = val;)                                                           \
    }                                                                                    \
  }
INSERTION_SORT(insertion_sort_global, global, gkey_t)
INSERTION_SORT(insertion_sort_local, local, ukey_t)

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
