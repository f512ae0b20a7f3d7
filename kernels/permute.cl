// Values the passes do not carry, and the indices of argsort (host/src/dispatch/values.cpp).
//
// Wider than 8 bytes: they move once, after the keys are sorted with their input indices: permute_stage
// writes those indices and saves the values, permute_gather puts each saved value at its key's position.
// Both work on the n elements from position `at` of the index and value arrays (the segmented sort's
// span of segments; 0 for a whole sort); the indices count from there, and the saved values from 0.
// A value is PERM_UNITS units of PERM_UNIT bytes, the widest of 16, 8, 4, 2, 1 that divides its width; on
// GPUs each work-item moves one unit: consecutive work-items write consecutive units (coalesced), and the
// units of one value are read together.
//
// 1 to 7 bytes (not 4): they ride the passes widened to PERM_WIDE (4 or 8) bytes, zero-extended:
// permute_widen before the sort, permute_narrow after it.
//
// argsort of device keys starts from permute_iota32 or permute_iota64.
//
// Ids are size_t: n * PERM_UNITS may pass 2^32, and work-items loop over the range so that no launch needs
// more than the host asked for: interleaved on GPUs (coalesced), a contiguous run each on CPU devices
// (PERM_CPU: a work-item's accesses then stay in its own cache lines).

#ifndef PERM_UNIT
#define PERM_UNIT 4
#endif
#ifndef PERM_UNITS
#define PERM_UNITS 1
#endif
#ifndef PERM_CPU
#define PERM_CPU 0
#endif
// The permutation's indices: 32-bit, or 64-bit where a sort holds 2^32 keys or more.
#if PERM_INDEX64
typedef ulong perm_index_t;
#else
typedef uint perm_index_t;
#endif

#if PERM_UNIT == 16
typedef uint4 unit_t;
#elif PERM_UNIT == 8
typedef uint2 unit_t;
#elif PERM_UNIT == 4
typedef uint unit_t;
#elif PERM_UNIT == 2
typedef ushort unit_t;
#elif PERM_UNIT == 1
typedef uchar unit_t;
#else
#error "PERM_UNIT must be 1, 2, 4, 8 or 16"
#endif

// for i in this work-item's share of [0, count).
#if PERM_CPU
#define PERM_LOOP(i, count)                                                                       \
  for (size_t i##_per = ((count) + get_global_size(0) - 1) / get_global_size(0),                 \
              i = get_global_id(0) * i##_per, i##_end = min((size_t)(count), i + i##_per); \
       i < i##_end; ++i)
#else
#define PERM_LOOP(i, count) \
  for (size_t i = get_global_id(0), i##_end = (count); i < i##_end; i += get_global_size(0))
#endif

// index[at + i] = i and saved[i] = values[at + i], for the n elements.
kernel void permute_stage(global perm_index_t* index, global const unit_t* values, global unit_t* saved,
                          ulong n, ulong at) {
  PERM_LOOP(i, n) index[at + i] = (perm_index_t)i;
  values += at * PERM_UNITS;
  PERM_LOOP(u, n * PERM_UNITS) saved[u] = values[u];
}

// values[at + i] = saved[index[at + i]]: unit by unit on GPUs; value by value on CPU devices, a work-item
// copying a value's units in a loop (no coalescing to win there, and no division per unit).
kernel void permute_gather(global const unit_t* saved, global const perm_index_t* index,
                           global unit_t* values, ulong n, ulong at) {
  index += at;
  values += at * PERM_UNITS;
#if PERM_CPU
  PERM_LOOP(e, n) {
    global const unit_t* from = saved + (size_t)index[e] * PERM_UNITS;
    global unit_t* to = values + e * PERM_UNITS;
    for (uint w = 0; w < PERM_UNITS; ++w) to[w] = from[w];
  }
#else
  PERM_LOOP(u, n * PERM_UNITS) {
    const size_t e = u / PERM_UNITS;
    values[u] = saved[(size_t)index[e] * PERM_UNITS + (u - e * PERM_UNITS)];
  }
#endif
}

#ifdef PERM_WIDE
#if PERM_WIDE == 8
typedef ulong wide_t;
#else
typedef uint wide_t;
#endif

kernel void permute_widen(global const uchar* values, global wide_t* wide, ulong n) {
  PERM_LOOP(i, n) {
    wide_t w = 0;
#pragma unroll
    for (uint b = 0; b < PERM_BYTES; ++b) w |= (wide_t)values[i * PERM_BYTES + b] << (8 * b);
    wide[i] = w;
  }
}

kernel void permute_narrow(global const wide_t* wide, global uchar* values, ulong n) {
  PERM_LOOP(i, n) {
    const wide_t w = wide[i];
#pragma unroll
    for (uint b = 0; b < PERM_BYTES; ++b) values[i * PERM_BYTES + b] = (uchar)(w >> (8 * b));
  }
}
#endif

kernel void permute_iota32(global uint* index, ulong n) {
  PERM_LOOP(i, n) index[i] = (uint)i;
}

kernel void permute_iota64(global ulong* index, ulong n) {
  PERM_LOOP(i, n) index[i] = i;
}

#ifdef PERM_CODES
// A bit range of a sort that compares whole codes (the segmented sort): codes[at + i] = bits [begin, end) of
// keys[at + i]'s order-preserving code (descending's inversion included), as an unsigned key of the
// key's width, so that an ascending sort of the codes is the range's order. end > begin.
kernel void permute_codes(global const gkey_t* keys, global gkey_t* codes, ulong n, ulong at, uint kind,
                          uint descending, uint begin, uint end) {
  const ukey_t mask = ((((ukey_t)1 << (end - begin - 1)) << 1) - 1);
  PERM_LOOP(i, n) codes[at + i] = (gkey_t)((encode_key(keys[at + i], kind, descending) >> begin) & mask);
}
#endif
