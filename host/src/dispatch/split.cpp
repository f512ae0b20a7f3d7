// Radix sort of 2^32 keys and more. The passes count keys, and address them, in 32 bits; past that, one
// stable MSD partition by the top digit of the key's code (64-bit counts and offsets) splits the keys into
// buckets of fewer keys, each sorted by the usual radix sort over the remaining bits as a sub-buffer, then
// copied back in place. The partition (kernels/partition.cl) counts the digits per piece of fewer than
// 2^32 keys, sorts each piece in place by the top digit alone (one pass of the device's own radix sort,
// through a bit range), and gathers every piece's run of each digit into its bucket. The buckets start at
// the device's sub-buffer alignment in a scratch copy of the keys (and values): n keys need about n more
// bytes per key width.
#include <algorithm>
#include <limits>
#include <numeric>

#include "dispatch/execute.hpp"
#include "engine/run.hpp"

namespace clsort::detail {

namespace {

constexpr unsigned kRadix = 256;     // PART_RADIX of kernels/partition.cl
constexpr unsigned kPartWg = 256;    // PART_WG at most
constexpr unsigned kPartItems = 32;  // PART_ITEMS
// The partition's scratch: the partitioned keys and values, the per-piece counts and offsets, the buckets'
// layout.
enum SplitScratch : unsigned { kSplitKeys, kSplitValues, kSplitCounts, kSplitOffsets, kSplitBuckets };
constexpr const char* scratch_owner(SplitScratch) {
  return "split";
}
constexpr std::size_t kMaxBucket = std::numeric_limits<std::uint32_t>::max();

}  // namespace

cl::Event enqueue_sort_split(Sorter::Impl& s, KeyType type, const cl::Buffer& keys, const cl::Buffer* values,
                             std::size_t value_bytes, std::size_t n, const Options& options,
                             const std::vector<cl::Event>& wait) {
  const std::size_t kb = key_size(type), vb = values ? value_bytes : 0;
  const unsigned key_bits = unsigned(kb) * 8;
  const unsigned begin = options.begin_bit, end = options.end_bit ? options.end_bit : key_bits;
  const unsigned digit_bits = std::min(8u, end - begin), shift = end - digit_bits;
  const unsigned digits = 1u << digit_bits;
  // Bucket and piece starts: a multiple of `align` elements puts both the keys and the values on the
  // device's sub-buffer alignment (powers of two, the alignment at least the widest element).
  const std::size_t align = std::max<std::size_t>(1, s.facts.base_align / std::min(kb, vb ? vb : kb));
  const std::size_t padded = n + kRadix * align;
  const std::uint64_t piece_keys = s.tuning(unsigned(kb), unsigned(pass_width(vb))).radix.split_piece;
  const std::size_t piece =
      std::min<std::size_t>(n, std::max<std::size_t>(align, piece_keys / align * align));
  const std::size_t pieces = (n + piece - 1) / piece;
  const std::size_t wg = std::min<std::size_t>(kPartWg, s.facts.max_work_group);
  const std::size_t tile = wg * kPartItems;
  const std::size_t tiles = (piece + tile - 1) / tile;

  Run run = Run::for_call(s, type, options, keys, values, unsigned(vb), 0, wait);
  ProgramSpec program;
  program.files = {"partition.cl"};
  program.defines.set("KEY_BITS", key_bits)
      .set("VALUE_BYTES", vb)
      .set("PART_WG", wg)
      .set("PART_ITEMS", kPartItems);
  cl::Kernel zero = run.kernel(program, "partition_zero");
  cl::Kernel count = run.kernel(program, "partition_count");
  cl::Kernel offsets_kernel = run.kernel(program, "partition_offsets");
  cl::Kernel gather = run.kernel(program, "partition_gather");
  cl::Buffer counts = run.scratch(kSplitCounts, std::size_t(kRadix) * pieces * 4);
  cl::Buffer offsets = run.scratch(kSplitOffsets, std::size_t(kRadix) * pieces * 8);
  cl::Buffer buckets = run.scratch(kSplitBuckets, 2 * kRadix * 8);

  // The buckets' sizes first, from the keys as they are: an argument error below leaves them unchanged.
  const cl_uint kind = run.kind, descending = run.descending, mask = digits - 1;
  set_args(zero, counts, cl_uint(kRadix * pieces));
  run.launch(zero, kRadix * pieces, wg, "partition_zero");
  set_args(count, keys, cl_ulong(n), cl_ulong(piece), cl_uint(tiles), counts, kind, descending,
           cl_uint(shift), mask);
  run.launch(count, pieces * tiles * wg, wg, "partition_count");
  set_args(offsets_kernel, counts, cl_uint(pieces), cl_uint(digits), cl_ulong(align), offsets, buckets);
  const std::size_t scan_wg = std::min<std::size_t>(kRadix, s.facts.max_work_group);
  run.launch(offsets_kernel, scan_wg, scan_wg, "partition_offsets");

  // The host lays out the bucket sorts: it reads where the buckets lie.
  std::vector<cl_ulong> layout(2 * kRadix);
  {
    std::vector<cl::Event> done{run.finish()};
    CLSORT_CHECK(s.queue.enqueueReadBuffer(buckets, CL_TRUE, 0, layout.size() * 8, layout.data(), &done));
  }
  for (unsigned d = 0; d < digits; ++d)
    if (layout[kRadix + d] > kMaxBucket && shift > begin)
      throw Error(CL_INVALID_VALUE, "n",
                  "clsort: " + std::to_string(layout[kRadix + d]) + " of the " + std::to_string(n) +
                      " keys share their top " + std::to_string(digit_bits) +
                      " bits: a radix sort of n >= 2^32 sorts at most 2^32 - 1 keys per value of those bits",
                  {}, Error::Kind::invalid_argument);

  // The sorts' scratch at the size of the largest piece or bucket at once, not grown sort by sort (each
  // growth would reallocate and free the smaller one).
  std::size_t largest = piece;
  if (shift > begin)
    for (unsigned d = 0; d < digits; ++d) largest = std::max<std::size_t>(largest, layout[kRadix + d]);
  run.scratch(kScratchKeys, largest * kb);
  if (values) run.scratch(kScratchValues, largest * vb);
  cl::Buffer part_keys = run.scratch(kSplitKeys, padded * kb);
  cl::Buffer part_values;
  if (values) part_values = run.scratch(kSplitValues, padded * vb);

  // Each piece sorted in place by the top digit alone: one stable pass, the plan's own.
  Options top;
  top.order = options.order;
  top.algorithm = Algorithm::radix;
  top.begin_bit = shift;
  top.end_bit = end;
  std::vector<cl::Event> after;
  if (!s.in_order) after.push_back(run.finish());
  s.last = run.finish();
  for (std::size_t p = 0; p < pieces; ++p) {
    const std::size_t first = p * piece, size = std::min(piece, n - first);
    if (size < 2) continue;
    cl::Buffer pk = sub_buffer_of(keys, first * kb, size * kb, s.facts.base_align);
    cl::Buffer pv;
    if (values) pv = sub_buffer_of(*values, first * vb, size * vb, s.facts.base_align);
    const cl::Event sorted = enqueue_sort_whole(s, type, pk, values ? &pv : nullptr, vb, size, top, after);
    after.assign(1, sorted);
  }
  {
    // Then every run of a piece to its place in its bucket.
    Run move(s, run.q, type, run.descending, keys, values, unsigned(vb), 0, after);
    if (values)
      set_args(gather, keys, part_keys, *values, part_values, cl_ulong(n), cl_ulong(piece), cl_uint(tiles),
               offsets, kind, descending, cl_uint(shift), mask);
    else
      set_args(gather, keys, part_keys, cl_ulong(n), cl_ulong(piece), cl_uint(tiles), offsets, kind,
               descending, cl_uint(shift), mask);
    move.launch(gather, pieces * tiles * wg, wg, "partition_gather");
    after.assign(1, move.finish());
    s.last = after[0];
  }

  // Each bucket: sorted by the bits below the digit, then copied back to its place.
  Options inner;
  inner.order = options.order;
  inner.algorithm = Algorithm::radix;
  inner.begin_bit = begin;
  inner.end_bit = shift;
  std::size_t placed = 0;
  for (unsigned d = 0; d < digits; ++d) {
    const std::size_t start = layout[d], size = layout[kRadix + d];
    if (size == 0) continue;
    cl::Buffer bk = sub_buffer_of(part_keys, start * kb, size * kb, s.facts.base_align);
    cl::Buffer bv;
    if (values) bv = sub_buffer_of(part_values, start * vb, size * vb, s.facts.base_align);
    if (size > 1 && shift > begin) {
      const cl::Event sorted =
          enqueue_sort_whole(s, type, bk, values ? &bv : nullptr, vb, size, inner, after);
      after.assign(1, sorted);
    }
    std::vector<cl::Event> copied(1);
    CLSORT_CHECK(
        s.queue.enqueueCopyBuffer(part_keys, keys, start * kb, placed * kb, size * kb, &after, &copied[0]));
    if (s.profiling) s.profile.emplace_back("partition copy", copied[0]);
    if (values) {
      copied.emplace_back();
      CLSORT_CHECK(s.queue.enqueueCopyBuffer(part_values, *values, start * vb, placed * vb, size * vb, &after,
                                             &copied[1]));
      if (s.profiling) s.profile.emplace_back("partition copy", copied[1]);
    }
    // The next bucket's sort reuses the scratch of this one's: it waits for this bucket's copies too.
    after = copied;
    placed += size;
  }
  cl::Event done;
  CLSORT_CHECK(s.queue.enqueueMarkerWithWaitList(&after, &done));
  s.last = done;
  return done;
}

}  // namespace clsort::detail
