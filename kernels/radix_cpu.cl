// Radix sort, CPU shape (tuning radix.cpu=1): on CPU devices each work-group is one core's loop over its
// work-items and barriers cost a pass over them, so work-groups are single work-items with long serial
// loops. One most-significant-digit pass splits the keys into RADIX buckets (a stable counting sort per
// contiguous chunk, chunks in parallel); then each bucket is sorted by one work-item with LSD passes over
// the remaining bits. A bucket of n / RADIX keys fits a core's cache, so only the MSD pass pays for main
// memory: about 20 bytes per 32-bit key instead of 12 per pass.
// The caller's keys (and values) start `origin` elements into their buffers, so that a huge segment is
// sorted where it lies whatever its alignment (sub-buffers need the device's); the scratch starts at 0.

// counts[d * chunks + c] = keys with digit d in chunk c.
kernel void radix_cpu_histogram(global const gkey_t* src, uint n, uint shift, uint encode, uint kind,
                                uint descending, uint chunk, global uint* counts, ulong origin) {
  const uint c = get_global_id(0), chunks = get_global_size(0);
  src += origin;
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

// The MSD scatter's write-combining (radix.wc): each digit's keys gather in a line-sized buffer in the
// core's cache, and only whole lines go to memory, with non-temporal stores where the compiler offers
// them (clang's builtin, x86), so that the 256 write streams neither read each line before writing it nor
// evict the cache. RADIX_CPU_WC is the line's bytes (0: no buffers), RADIX_CPU_LINE its keys.
#ifndef RADIX_CPU_WC
#define RADIX_CPU_WC 0
#endif
#define RADIX_CPU_LINE (RADIX_CPU_WC / (KEY_BITS / 8))
#if RADIX_CPU_WC && defined(__clang__) && defined(__x86_64__)
#define STREAM_STORE(p, v) __builtin_nontemporal_store((v), (p))
#else
#define STREAM_STORE(p, v) (*(p) = (v))
#endif

// Each chunk's first position per digit is the keys of smaller digits plus the keys of its digit in
// earlier chunks; with few chunks every work-item sums that itself, so no separate scan is needed.
kernel void radix_cpu_scatter(global const gkey_t* src, global gkey_t* dst,
#if VALUE_BYTES != 0
                              global const value_t* vsrc, global value_t* vdst,
#endif
                              uint n, uint shift, uint encode, uint decode, uint kind, uint descending,
                              uint chunk, global const uint* counts, global uint* starts, ulong origin) {
  const uint c = get_global_id(0), chunks = get_global_size(0);
  src += origin;
  WITH_VALUES(vsrc += origin;)
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
#if RADIX_CPU_WC
  // Slot s of digit d's line is key next[d] + s, next[d] a multiple of the line: the slots below head[d]
  // belong to keys before this chunk's (another work-item's), and the first line starts at them.
  gkey_t line[RADIX][RADIX_CPU_LINE];
  WITH_VALUES(value_t vline[RADIX][RADIX_CPU_LINE];)
  uint head[RADIX], fill[RADIX];
  for (uint d = 0; d < RADIX; ++d) {
    head[d] = fill[d] = next[d] % RADIX_CPU_LINE;
    next[d] -= head[d];
  }
  for (uint i = begin; i < end; ++i) {
    ukey_t k = src[i];
    if (encode) k = encode_key(k, kind, descending);
    const uint d = digit_of(k, shift), f = fill[d];
    line[d][f] = decode ? decode_key(k, kind, descending) : k;
    WITH_VALUES(vline[d][f] = vsrc[i];)
    if (f + 1 < RADIX_CPU_LINE) {
      fill[d] = f + 1;
      continue;
    }
    global gkey_t* to = dst + next[d];
    WITH_VALUES(global value_t* vto = vdst + next[d];)
    if (head[d] == 0) {
      for (uint s = 0; s < RADIX_CPU_LINE; ++s) {
        STREAM_STORE(to + s, line[d][s]);
        WITH_VALUES(STREAM_STORE(vto + s, vline[d][s]);)
      }
    } else {
      for (uint s = head[d]; s < RADIX_CPU_LINE; ++s) {
        to[s] = line[d][s];
        WITH_VALUES(vto[s] = vline[d][s];)
      }
      head[d] = 0;
    }
    next[d] += RADIX_CPU_LINE;
    fill[d] = 0;
  }
  for (uint d = 0; d < RADIX; ++d)
    for (uint s = head[d]; s < fill[d]; ++s) {
      dst[next[d] + s] = line[d][s];
      WITH_VALUES(vdst[next[d] + s] = vline[d][s];)
    }
  // Non-temporal stores are weakly ordered: they must reach memory before the buckets kernel reads them.
  mem_fence(CLK_GLOBAL_MEM_FENCE);
#else
  for (uint i = begin; i < end; ++i) {
    ukey_t k = src[i];
    if (encode) k = encode_key(k, kind, descending);
    const uint to = next[digit_of(k, shift)]++;
    dst[to] = decode ? decode_key(k, kind, descending) : k;
#if VALUE_BYTES != 0
    vdst[to] = vsrc[i];
#endif
  }
#endif
}

// Buckets and runs of at most this many keys are sorted by insertion: the LSD passes' per-pass histogram
// work (2 * RADIX steps) would outweigh a few dozen keys.
#ifndef RADIX_CPU_SMALL
#define RADIX_CPU_SMALL 64
#endif
// The most significant digit's shift and the LSD passes below it (pass p sorts by the digit at
// RADIX_CPU_PASS_SHIFT(p): KEY_BEGIN_BIT up in steps of RADIX_BITS, the last one overlapping the one
// before where the bits below the top digit are not a multiple of RADIX_BITS, as RADIX_PASS_SHIFT does):
// constants, so that the per-key loops over passes unroll.
#define RADIX_CPU_SHIFT (KEY_END_BIT - RADIX_BITS)
#define RADIX_CPU_PASSES ((RADIX_RANGE_BITS - 1) / RADIX_BITS)
#if RADIX_RANGE_BITS % RADIX_BITS == 0
#define RADIX_CPU_PASS_SHIFT(p) (KEY_BEGIN_BIT + (p) * RADIX_BITS)
#else
#define RADIX_CPU_PASS_SHIFT(p) \
  min((uint)(KEY_BEGIN_BIT + (p) * RADIX_BITS), (uint)max(KEY_BEGIN_BIT, RADIX_CPU_SHIFT - RADIX_BITS))
#endif
// How many of a bucket's passes run over the whole bucket. 0: all of them. 1: only the top ones that
// tell its keys apart: digits enough for 2^RADIX_CPU_TOP_MARGIN times as many values as the bucket has
// keys (8-bit digits: 2 up to 2^12 keys, 3 up to 2^20), so that few keys share them. The stable passes
// leave keys sharing those digits in runs, in input order, and each run is then sorted by the digits below
// (by insertion when short). Random 64-bit keys take 2 or 3 passes and a scan instead of 7 passes, which
// is faster on both CPU runtimes. 32-bit keys have 3 passes to save at most one, which the scan costs
// back, so they keep every pass. Keys that differ only in low bits fall back to every pass, run by run.
// Without the margin, runs were common at 2^16 keys a bucket (docs/design.md, "Measurements behind the
// kernels").
#ifndef RADIX_CPU_TOP
#define RADIX_CPU_TOP (KEY_BITS == 64)
#endif
#ifndef RADIX_CPU_TOP_MARGIN
#define RADIX_CPU_TOP_MARGIN 4
#endif

// Whether one digit holds all n keys of a pass's counts: the pass would move nothing.
INLINE uint one_digit(const uint* count, uint n) {
  uint single = 0;
  for (uint d = 0; d < RADIX; ++d) single |= count[d] == n;
  return single;
}

// Passes [lo, hi) of the LSD sort of the range [0, n) of `from` (whose every pass's digit counts `hist`
// holds), moving keys (and values) between `from` and `to`; a pass whose digit is the same throughout
// moves nothing and is skipped. Returns whether the result is in `to`.
INLINE uint lsd_passes(global gkey_t* from, global gkey_t* to,
#if VALUE_BYTES != 0
                       global value_t* vfrom, global value_t* vto,
#endif
                       uint n, uint lo, uint hi, uint (*hist)[RADIX]) {
  uint in_to = 0;
  for (uint p = lo; p < hi; ++p) {
    if (one_digit(hist[p], n)) continue;
    uint sum = 0;
    for (uint d = 0; d < RADIX; ++d) {
      const uint h = hist[p][d];
      hist[p][d] = sum;
      sum += h;
    }
    const uint s = RADIX_CPU_PASS_SHIFT(p);
    for (uint i = 0; i < n; ++i) {
      const ukey_t k = from[i];
      const uint at = hist[p][digit_of(k, s)]++;
      to[at] = k;
      WITH_VALUES(vto[at] = vfrom[i];)
    }
    global gkey_t* t = from;
    from = to;
    to = t;
    WITH_VALUES(global value_t* vt = vfrom; vfrom = vto; vto = vt;)
    in_to ^= 1;
  }
  return in_to;
}

// Counts the digits of passes [lo, hi) of the range [0, n) of k into hist.
INLINE void count_passes(global const gkey_t* k, uint n, uint lo, uint hi, uint (*hist)[RADIX]) {
  for (uint p = lo; p < hi; ++p)
    for (uint d = 0; d < RADIX; ++d) hist[p][d] = 0;
  for (uint i = 0; i < n; ++i) {
    const ukey_t key = k[i];
    for (uint p = lo; p < hi; ++p) ++hist[p][digit_of(key, RADIX_CPU_PASS_SHIFT(p))];
  }
}

// Work-item b sorts bucket b, which the MSD pass left encoded in `tmp` at [starts[b], starts[b + 1]),
// by the bits below RADIX_CPU_SHIFT (least significant digit first, stable), and leaves it decoded in
// `keys`. A pass whose digit is the same for the whole bucket (or run) moves nothing and is skipped, so
// equal and few-unique keys cost little.
kernel void radix_cpu_buckets(global gkey_t* keys, global gkey_t* tmp,
#if VALUE_BYTES != 0
                              global value_t* values, global value_t* vtmp,
#endif
                              uint kind, uint descending, global const uint* starts, ulong origin) {
  const uint b = get_global_id(0);
  keys += origin;
  WITH_VALUES(values += origin;)
  const uint begin = starts[b], size = starts[b + 1] - begin;
  global gkey_t* cur = tmp + begin;
  global gkey_t* other = keys + begin;
  global gkey_t* out = keys + begin;
#if VALUE_BYTES != 0
  global value_t* vcur = vtmp + begin;
  global value_t* vother = values + begin;
  global value_t* vout = values + begin;
#endif
  if (size <= RADIX_CPU_SMALL) {
    for (uint i = 0; i < size; ++i) {
      out[i] = cur[i];
      WITH_VALUES(vout[i] = vcur[i];)
    }
    insertion_sort_global(out, WITH_VALUES(vout, ) 0, size);
    for (uint i = 0; i < size; ++i) out[i] = decode_key(out[i], kind, descending);
    return;
  }
  uint hist[RADIX_CPU_PASSES > 0 ? RADIX_CPU_PASSES : 1][RADIX];  // 8-bit keys: no pass below the MSD
  // The passes run over the whole bucket: [low, RADIX_CPU_PASSES).
  uint low = 0;
#if RADIX_CPU_TOP
  const uint size_bits = 32 - (uint)clz(size - 1);  // ceil(log2(size))
  const uint want = (size_bits + RADIX_CPU_TOP_MARGIN + RADIX_BITS - 1) / RADIX_BITS;
  low = RADIX_CPU_PASSES > want ? RADIX_CPU_PASSES - want : 0;
#endif
  count_passes(cur, size, low, RADIX_CPU_PASSES, hist);
#if RADIX_CPU_TOP
  // Top digits that are the same throughout the bucket tell nothing apart: as many more are taken from
  // below, counted in one more read of the bucket.
  uint missing = 0;
  for (uint p = low; p < RADIX_CPU_PASSES; ++p) missing += one_digit(hist[p], size);
  if (missing && low > 0) {
    count_passes(cur, size, 0, low, hist);
    while (missing && low > 0) {
      --low;
      missing -= !one_digit(hist[low], size);
    }
  }
#endif
  if (lsd_passes(cur, other, WITH_VALUES(vcur, vother, ) size, low, RADIX_CPU_PASSES, hist)) {
    global gkey_t* t = cur;
    cur = other;
    other = t;
    WITH_VALUES(global value_t* vt = vcur; vcur = vother; vother = vt;)
  }
#if RADIX_CPU_TOP
  // Keys equal in every digit from pass `low` up form runs in input order: each is sorted by the rest.
  if (low > 0) {
    const uint high_shift = RADIX_CPU_PASS_SHIFT(low);
    for (uint i = 0; i < size;) {
      const ukey_t prefix = cur[i] >> high_shift;
      uint j = i + 1;
      while (j < size && cur[j] >> high_shift == prefix) ++j;
      const uint run = j - i;
      if (run > RADIX_CPU_SMALL) {
        count_passes(cur + i, run, 0, low, hist);
        if (lsd_passes(cur + i, other + i, WITH_VALUES(vcur + i, vother + i, ) run, 0, low, hist))
          for (uint r = i; r < j; ++r) {
            cur[r] = other[r];
            WITH_VALUES(vcur[r] = vother[r];)
          }
      } else if (run > 1) {
        insertion_sort_global(cur, WITH_VALUES(vcur, ) i, j);
      }
      i = j;
    }
  }
#endif
  if (cur == out) {
    for (uint i = 0; i < size; ++i) out[i] = decode_key(out[i], kind, descending);
  } else {
    for (uint i = 0; i < size; ++i) {
      out[i] = decode_key(cur[i], kind, descending);
      WITH_VALUES(vout[i] = vcur[i];)
    }
  }
}
