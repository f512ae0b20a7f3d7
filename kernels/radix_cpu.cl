// Radix sort, CPU shape (tuning radix.cpu=1): on CPU devices each work-group is one core's loop over its
// work-items and barriers cost a pass over them, so work-groups are single work-items with long serial
// loops. One most-significant-digit pass splits the keys into RADIX buckets (a stable counting sort per
// contiguous chunk, chunks in parallel); then each bucket is sorted by one work-item with LSD passes over
// the remaining bits. A bucket of n / RADIX keys fits a core's cache, so only the MSD pass pays for main
// memory: about 20 bytes per 32-bit key instead of 12 per pass.

// counts[d * chunks + c] = keys with digit d in chunk c.
kernel void radix_cpu_histogram(global const ukey_t* src, uint n, uint shift, uint encode, uint kind,
                                uint descending, uint chunk, global uint* counts) {
  const uint c = get_global_id(0), chunks = get_global_size(0);
  uint hist[RADIX];
  for (uint d = 0; d < RADIX; ++d) hist[d] = 0;
  const uint begin = min((ulong)c * chunk, (ulong)n), end = min((ulong)begin + chunk, (ulong)n);
  for (uint i = begin; i < end; ++i) {
    ukey_t k = src[i];
    if (encode) k = encode_key(k, kind, descending);
    ++hist[digit_of(k, shift)];
  }
  for (uint d = 0; d < RADIX; ++d) counts[d * chunks + c] = hist[d];
}

// Each chunk's first position per digit is the keys of smaller digits plus the keys of its digit in
// earlier chunks; with few chunks every work-item sums that itself, so no separate scan is needed.
kernel void radix_cpu_scatter(global const ukey_t* src, global ukey_t* dst,
#if VALUE_BYTES != 0
                              global const value_t* vsrc, global value_t* vdst,
#endif
                              uint n, uint shift, uint encode, uint decode, uint kind, uint descending,
                              uint chunk, global const uint* counts, global uint* starts) {
  const uint c = get_global_id(0), chunks = get_global_size(0);
  uint next[RADIX];
  uint base = 0;
  for (uint d = 0; d < RADIX; ++d) {
    uint before = 0, total = 0;
    for (uint o = 0; o < chunks; ++o) {
      const uint v = counts[d * chunks + o];
      total += v;
      before += o < c ? v : 0;
    }
    next[d] = base + before;
    if (c == 0) starts[d] = base;  // where each bucket begins, for radix_cpu_buckets
    base += total;
  }
  if (c == 0) starts[RADIX] = base;
  const uint begin = min((ulong)c * chunk, (ulong)n), end = min((ulong)begin + chunk, (ulong)n);
  for (uint i = begin; i < end; ++i) {
    ukey_t k = src[i];
    if (encode) k = encode_key(k, kind, descending);
    const uint to = next[digit_of(k, shift)]++;
    dst[to] = decode ? decode_key(k, kind, descending) : k;
#if VALUE_BYTES != 0
    vdst[to] = vsrc[i];
#endif
  }
}

// Buckets of at most this many keys are sorted by insertion: the LSD passes' per-pass histogram work
// (2 * RADIX steps) would outweigh a few dozen keys.
#ifndef RADIX_CPU_SMALL
#define RADIX_CPU_SMALL 64
#endif
// The most significant digit's shift and the LSD passes below it: constants, so that the per-key loops
// over passes unroll.
#define RADIX_CPU_SHIFT (KEY_BITS - RADIX_BITS)
#define RADIX_CPU_PASSES ((KEY_BITS - 1) / RADIX_BITS)

// Work-item b sorts bucket b, which the MSD pass left encoded in `tmp` at [starts[b], starts[b + 1]),
// by the bits below RADIX_CPU_SHIFT (least significant digit first, stable), and leaves it decoded in `keys`.
// A pass whose digit is the same for the whole bucket moves nothing and is skipped, so equal and
// few-unique keys cost little.
kernel void radix_cpu_buckets(global ukey_t* keys, global ukey_t* tmp,
#if VALUE_BYTES != 0
                              global value_t* values, global value_t* vtmp,
#endif
                              uint kind, uint descending, global const uint* starts) {
  const uint b = get_global_id(0);
  const uint begin = starts[b], size = starts[b + 1] - begin;
  global ukey_t* from = tmp + begin;
  global ukey_t* out = keys + begin;
#if VALUE_BYTES != 0
  global value_t* vfrom = vtmp + begin;
  global value_t* vout = values + begin;
#endif
  if (size <= RADIX_CPU_SMALL) {
    for (uint i = 0; i < size; ++i) {
      out[i] = from[i];
      WITH_VALUES(vout[i] = vfrom[i];)
    }
    insertion_sort_global(out, WITH_VALUES(vout, ) 0, size);
    for (uint i = 0; i < size; ++i) out[i] = decode_key(out[i], kind, descending);
    return;
  }
  // Every pass's histogram in one read of the bucket; a pass whose digit is constant moves nothing.
  // A digit reaching past RADIX_CPU_SHIFT takes MSD bits too, which are the same throughout the bucket.
  uint hist[RADIX_CPU_PASSES][RADIX];
  for (uint p = 0; p < RADIX_CPU_PASSES; ++p)
    for (uint d = 0; d < RADIX; ++d) hist[p][d] = 0;
  for (uint i = 0; i < size; ++i) {
    const ukey_t k = from[i];
    for (uint p = 0, s = 0; s < RADIX_CPU_SHIFT; ++p, s += RADIX_BITS) ++hist[p][digit_of(k, s)];
  }
  ulong active = 0;  // bit p: pass p moves keys
  uint last = 0;
  for (uint p = 0, s = 0; s < RADIX_CPU_SHIFT; ++p, s += RADIX_BITS) {
    uint sum = 0, single = 0;
    for (uint d = 0; d < RADIX; ++d) {
      const uint h = hist[p][d];
      single |= h == size;
      hist[p][d] = sum;
      sum += h;
    }
    if (!single) {
      active |= 1UL << p;
      last = p;
    }
  }
  // Passes alternate tmp -> keys -> tmp ...: an odd number of moving passes ends in `keys`, decoded by
  // the last; an even number (or none) ends in `tmp`, copied back decoded.
  global ukey_t* to = out;
#if VALUE_BYTES != 0
  global value_t* vto = vout;
#endif
  const uint moves = (uint)popcount(active);
  for (uint p = 0, s = 0; s < RADIX_CPU_SHIFT; ++p, s += RADIX_BITS) {
    if (!(active >> p & 1UL)) continue;
    const uint dec = p == last && moves % 2 == 1;
    for (uint i = 0; i < size; ++i) {
      const ukey_t k = from[i];
      const uint at = hist[p][digit_of(k, s)]++;
      to[at] = dec ? decode_key(k, kind, descending) : k;
#if VALUE_BYTES != 0
      vto[at] = vfrom[i];
#endif
    }
    global ukey_t* t = from;
    from = to;
    to = t;
#if VALUE_BYTES != 0
    global value_t* vt = vfrom;
    vfrom = vto;
    vto = vt;
#endif
  }
  if (moves % 2 == 0) {
    for (uint i = 0; i < size; ++i) out[i] = decode_key(from[i], kind, descending);
#if VALUE_BYTES != 0
    for (uint i = 0; i < size; ++i) vout[i] = vfrom[i];
#endif
  }
}
