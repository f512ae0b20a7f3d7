// Segmented sort (Sorter::sort_segments): many independent arrays given by num + 1 offsets into one
// buffer, each sorted stably in place. This file holds the parameters, the state, the check of the
// offsets and the classification by length; segments_short.cl and segments_local.cl follow it in the
// program. Segments are split by length:
//  - sequential: 2 <= len <= `seq` (a kernel argument; CPU devices): one work-item per segment
//    (seg_sequential, segments_short.cl).
//  - local: seq < len <= SEG_BIN. Work-group b takes every local segment that starts within
//    [first + b * SEG_BIN, first + (b + 1) * SEG_BIN), so its elements lie in a span of 2 * SEG_BIN, and
//    sorts them together in local memory (seg_local, segments_local.cl).
//  - large: SEG_BIN < len <= the host's `huge` threshold. Up to segments.radix keys (GPUs), a radix sort
//    each, one work-group per segment (kernels/radix_segments.cl, a program of the radix sort's files).
//    Longer ones: chunks of SEG_SPAN keys sorted like local segments (seg_local again, one chunk per
//    work-group), then merged pairwise (seg_merge) until each segment is one run.
//  - huge: the host sorts each by the library's whole-device sort.
// The local sort pads each segment to a power of two P (its slot block, P-aligned: blocks are laid out
// from the largest P down) and runs a bitonic network of the variant that leaves every block ascending.
// Compare-exchanges between slots of different segments are skipped, so each block sorts alone; stages
// beyond a block's own size find it sorted and change nothing. Keys are compared as (code, source index),
// which is unique, so the sort is stable. Nothing assumes a sub-group size or lockstep: every step ends
// in a work-group barrier, reached by all work-items (loop bounds are work-group uniform).

#ifndef SEG_WG
#define SEG_WG 256
#endif
#ifndef SEG_SLOTS
#define SEG_SLOTS 4096  // slots of local memory per work-group: a power of two, at most 32768
#endif
#ifndef SEG_OFFSET_64
#define SEG_OFFSET_64 0
#endif
#if SEG_OFFSET_64
typedef ulong offset_t;
#else
typedef uint offset_t;
#endif
#define SEG_SPAN (SEG_SLOTS / 2)     // source elements one work-group reads
#define SEG_BIN (SEG_SLOTS / 4)      // the longest local segment, and the range of starts a bin takes
#define SEG_NONE 0xFFFFu             // no segment / padding (slots and sources are below 32768)
#define SEG_CLASSES 16               // P = 2^c for c in [1, 15]
#define SEG_TABLE (SEG_BIN / 2 + 1)  // local segments per bin: each holds >= 2 keys and starts in the bin

// The state (seg_clear, seg_classify): two copies of ST_WORDS words, used by alternate calls, then the
// list of large segments; the host reads them back together. A call's seg_classify fills copy `copy` and
// resets the other for the next call, so that only a call that finds no reset copy (a new scratch buffer)
// needs seg_clear: a launch, and the gap before the next one, are a tenth of a call of short segments.
#define ST_BAD 0    // the lowest segment whose offsets are decreasing or past the buffer; ~0: none
#define ST_LARGE 1  // segments longer than SEG_BIN and seq, listed as (start, length) after both copies
#define ST_FIRST 2  // offsets[0]
#define ST_LAST 3   // offsets[num]
#define ST_LOCAL 4  // 1: some segment is for the bins of seg_local (seq < length <= SEG_BIN)
#define ST_WORDS 6  // the large segments' list starts 8-byte aligned

INLINE uint seg_state_reset(uint word) {
  return word == ST_BAD ? 0xFFFFFFFFu : 0u;
}

// Resets both copies.
kernel void seg_clear(global uint* state) {
  const uint i = get_global_id(0);
  if (i < 2 * ST_WORDS) state[i] = seg_state_reset(i % ST_WORDS);
}

// Whether the offsets passed seg_classify's checks, and the values (value_limit of them) reach
// offsets[num]: the kernels that may run before the host has read the state back write nothing otherwise.
INLINE bool seg_offsets_good(global const uint* st, uint value_limit) {
  return st[ST_BAD] == 0xFFFFFFFFu && st[ST_LAST] <= value_limit;
}

// Checks the offsets and lists the large segments (longer than the bins take, and than seg_sequential
// takes: `seq` may exceed SEG_BIN), SEG_CLASSIFY_EACH segments a work-item.
#define SEG_CLASSIFY_EACH 4
kernel void seg_classify(global const offset_t* off, uint num, ulong limit, uint seq, global uint* state,
                         uint copy, uint large_cap) {
  global uint* st = state + copy * ST_WORDS;
  global uint* large = state + 2 * ST_WORDS;
  local uint any_local;  // a segment for the bins: one global atomic per group, not per segment
  const uint lid = get_local_id(0), size = get_local_size(0);
  if (get_global_id(0) < ST_WORDS)
    state[(1 - copy) * ST_WORDS + get_global_id(0)] = seg_state_reset(get_global_id(0));
  if (lid == 0) any_local = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  // Consecutive work-items take consecutive segments in each round: the offsets' loads coalesce.
  const uint base = get_group_id(0) * size * SEG_CLASSIFY_EACH + lid;
  for (uint r = 0; r < SEG_CLASSIFY_EACH; ++r) {
    const uint i = base + r * size;
    if (i >= num) break;
    const ulong a = off[i], b = off[i + 1];
    if (i == 0) st[ST_FIRST] = (uint)min(a, (ulong)0xFFFFFFFFu);
    if (i == num - 1) st[ST_LAST] = (uint)min(b, (ulong)0xFFFFFFFFu);
    if (b < a || b > limit || (i == 0 && a > limit)) {
      atomic_min(&st[ST_BAD], i);
    } else {
      const uint len = (uint)(b - a);
      if (len > seq && len >= 2 && len <= SEG_BIN) atomic_or(&any_local, 1u);
      if (len > SEG_BIN && len > seq) {
        const uint k = atomic_inc(&st[ST_LARGE]);
        if (k < large_cap) {
          large[2 * k] = (uint)a;
          large[2 * k + 1] = len;
        }
      }
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid == 0 && any_local) atomic_or(&st[ST_LOCAL], 1u);
}

// The first i in [0, num) with off[i] >= x, or num.
INLINE uint seg_lower_bound(global const offset_t* off, uint num, ulong x) {
  uint lo = 0, hi = num;
  while (lo < hi) {
    const uint mid = (lo + hi) >> 1;
    if ((ulong)off[mid] < x)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

// bin_first[b], b <= nbins: the first segment that starts at or after bin b's range, so that bin b takes
// the segments [bin_first[b], bin_first[b + 1]). One work-item per entry, instead of a dependent chain of
// global loads in every work-item of seg_local.
kernel void seg_bins(global const offset_t* off, uint num, uint first, global uint* bin_first, uint nbins) {
  const uint b = get_global_id(0);
  if (b <= nbins) bin_first[b] = seg_lower_bound(off, num, (ulong)first + (ulong)b * SEG_BIN);
}

INLINE uint seg_class(uint len) {  // ceil(log2(len)) for len >= 2
  return 32u - clz(len - 1u);
}
