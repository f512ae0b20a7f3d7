// Radix sort, what every GPU shape shares: the tunables, digits, a work-group scan, and the stores of a
// tile that sits in local memory in digit order. A program is common.cl, this file, one ranking
// (radix_rank_portable.cl, or a radix_sg_*.cl file and radix_rank_multisplit.cl) and one shape
// (radix_rts.cl or radix_onesweep.cl); the
// CPU shape is common.cl, this file and radix_cpu.cl (host/src/algorithms/radix/radix_plan.cpp decides).
// Keys are encoded (common.cl) as the first pass reads them and decoded as the last pass writes them.

#ifndef RADIX_BITS
#define RADIX_BITS 8
#endif
#ifndef RADIX_WG
#define RADIX_WG 256
#endif
#ifndef RADIX_ITEMS
#define RADIX_ITEMS 8  // keys per work-item per block; at most 15 for the portable ranking's 4-bit counters
#endif
#if RADIX_ITEMS > 32
#error "RADIX_ITEMS must be at most 32"
#endif
#if RADIX_WG < 8 || RADIX_WG % 8 != 0
#error "RADIX_WG must be a multiple of 8"  // the portable block scan's raking segments are 8 work-items
#endif
#define RADIX (1u << RADIX_BITS)
#define RADIX_MASK (RADIX - 1u)
#define RADIX_BLOCK (RADIX_WG * RADIX_ITEMS)

// The shift of pass q's digit: KEY_BEGIN_BIT up in steps of RADIX_BITS, the last digit ending at
// KEY_END_BIT. Where the bits are not a multiple of RADIX_BITS the last pass overlaps the one before; a
// stable LSD pass over bits it partly shares with the passes before still leaves the keys ordered by all
// of them. (The plan gives a range narrower than a digit a digit of its width.)
#define RADIX_RANGE_BITS (KEY_END_BIT - KEY_BEGIN_BIT)
#if RADIX_RANGE_BITS % RADIX_BITS == 0
#define RADIX_PASS_SHIFT(q) (KEY_BEGIN_BIT + (q)*RADIX_BITS)
#else
#define RADIX_PASS_SHIFT(q) min((uint)(KEY_BEGIN_BIT + (q)*RADIX_BITS), (uint)(KEY_END_BIT - RADIX_BITS))
#endif
#define PASSES ((RADIX_RANGE_BITS + RADIX_BITS - 1) / RADIX_BITS)

inline uint digit_of(ukey_t k, uint shift) {
  return (uint)(k >> shift) & RADIX_MASK;
}

// Exclusive scan of one value per work-item; *total gets the sum. Called by the whole group.
inline uint group_scan_exclusive(uint v, local uint* s, uint* total) {
  const uint lid = get_local_id(0);
  s[lid] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint off = 1; off < RADIX_WG; off <<= 1) {
    const uint add = lid >= off ? s[lid - off] : 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    s[lid] += add;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  const uint inclusive = s[lid];
  *total = s[RADIX_WG - 1];
  barrier(CLK_LOCAL_MEM_FENCE);
  return inclusive - v;
}

inline uint2 group_range(uint n, uint blocks_per_group) {
  const ulong begin = (ulong)get_group_id(0) * blocks_per_group * RADIX_BLOCK;
  const ulong end = begin + (ulong)blocks_per_group * RADIX_BLOCK;
  return (uint2)((uint)min(begin, (ulong)n), (uint)min(end, (ulong)n));
}

#if VALUE_BYTES != 0
#define VALUES(...) __VA_ARGS__
#else
#define VALUES(...)
#endif

// lk holds a block sorted by digit, and a key of digit d at block position p goes to gofs[d] + p: each
// digit's keys go to consecutive global positions. dest[j] receives the place of the key at block
// position lid + j * RADIX_WG, for its value. Whether a whole block stores without the bounds test (as
// load_keys loads) depends on the width: for 8- and 16-bit keys alone it pays; pairs and 64-bit keys were
// slower with it at large n and 4-byte keys no faster (docs/design.md, "Measurements behind the kernels").
#ifndef RADIX_STORE_WHOLE
#define RADIX_STORE_WHOLE (KEY_BITS <= 16 && VALUE_BYTES == 0)
#endif
INLINE void store_keys(local const ukey_t* lk, uint valid, uint shift, uint decode, uint kind,
                       uint descending, local const uint* gofs, global gkey_t* dst, uint* dest) {
  const uint lid = get_local_id(0);
  if (RADIX_STORE_WHOLE && valid == RADIX_BLOCK) {
#pragma unroll
    for (uint j = 0; j < RADIX_ITEMS; ++j) {
      const uint p = lid + j * RADIX_WG;
      const ukey_t key = lk[p];
      dest[j] = gofs[digit_of(key, shift)] + p;
      dst[dest[j]] = decode ? decode_key(key, kind, descending) : key;
    }
    return;
  }
#pragma unroll
  for (uint j = 0; j < RADIX_ITEMS; ++j) {
    const uint p = lid + j * RADIX_WG;
    if (p < valid) {
      const ukey_t key = lk[p];
      dest[j] = gofs[digit_of(key, shift)] + p;
      dst[dest[j]] = decode ? decode_key(key, kind, descending) : key;
    }
  }
}

#if VALUE_BYTES != 0
// The values in lv, in the block's digit order like the keys store_keys wrote, to their keys' places.
INLINE void store_values(local const value_t* lv, const uint* dest, uint valid, global value_t* vdst) {
  const uint lid = get_local_id(0);
#pragma unroll
  for (uint j = 0; j < RADIX_ITEMS; ++j)
    if (lid + j * RADIX_WG < valid) vdst[dest[j]] = lv[lid + j * RADIX_WG];
}
#endif
