// Radix sort of more keys than one sort of the passes takes (2^32 - 1: they count and address keys in 32
// bits; radix.split_max). One stable MSD partition by the top digit of the key's code (64-bit counts and
// offsets) splits the keys into buckets, each sorted by the usual radix sort over the remaining bits as a
// sub-buffer, then copied back in place. The partition (kernels/partition.cl) counts the digits per piece
// of fewer than 2^32 keys, sorts each piece in place by the top digit alone (one pass of the device's own
// radix sort, through a bit range), and gathers every piece's run of each digit into its bucket. The
// buckets start at the device's sub-buffer alignment in a scratch copy of the keys (and values): n keys
// need about n more bytes per key width.
//
// No distribution is refused. A digit that every key shares (small integers' zero top bits) moves
// nothing: the partition goes down to the next digit at the cost of one count. A bucket still too large
// for one sort (2^32 keys equal in their top bits) is partitioned again by the next digit, from the
// scratch copy into its final place in the caller's buffer; its sub-buckets are then sorted there, or
// through the scratch where their start is off the sub-buffer alignment. Keys equal in every bit of the
// range are already in order: the partitions are stable, so they keep their input order.
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
constexpr std::uint64_t kMax32 = std::numeric_limits<std::uint32_t>::max();

// The most keys one sort of the passes takes: a piece or a bucket.
std::uint64_t most_keys(const RadixPolicy& radix) {
  return std::min<std::uint64_t>(radix.split_max, kMax32);
}

// Where one partition put its buckets: each one's start (in the buffer it gathered into) and size.
struct Layout {
  std::vector<cl_ulong> start, size;
  unsigned shift = 0;  // the digit it partitioned by starts at this bit; buckets are sorted below it
  bool moved = false;  // false: the keys are equal in every bit of the range, and nothing moved
};

class Split {
 public:
  Split(Sorter::Impl& s, KeyType type, const cl::Buffer& keys, const cl::Buffer* values, std::size_t vb,
        const Options& options, std::vector<cl::Event> wait)
      : s_(s),
        type_(type),
        kb_(key_size(type)),
        vb_(values ? vb : 0),
        keys_(keys),
        values_(values),
        options_(options),
        q_{s.queue, s.profiling, s.in_order},
        after_(std::move(wait)) {
    const RadixPolicy& radix = s.tuning(unsigned(kb_), unsigned(pass_width(vb_))).radix;
    most_ = most_keys(radix);
    // Bucket and piece starts: a multiple of `align` elements puts both the keys and the values on the
    // device's sub-buffer alignment (powers of two, the alignment at least the widest element).
    align_ = std::max<std::size_t>(1, s.facts.base_align / std::min(kb_, vb_ ? vb_ : kb_));
    piece_keys_ = std::min(radix.split_piece, most_);
    wg_ = std::min<std::size_t>(kPartWg, s.facts.max_work_group);
    ProgramSpec program;
    program.files = {"partition.cl"};
    program.defines.set("KEY_BITS", kb_ * 8)
        .set("VALUE_BYTES", vb_)
        .set("PART_WG", wg_)
        .set("PART_ITEMS", kPartItems);
    Run run = chain();
    zero_ = run.kernel(program, "partition_zero");
    count_ = run.kernel(program, "partition_count");
    offsets_kernel_ = run.kernel(program, "partition_offsets");
    gather_ = run.kernel(program, "partition_gather");
    copy_ = run.kernel(program, "partition_copy");
  }

  cl::Event sort(std::size_t n) {
    const unsigned begin = options_.begin_bit;
    unsigned end = options_.end_bit ? options_.end_bit : unsigned(kb_) * 8;
    const std::size_t padded = n + kRadix * align_;
    // The caller's keys into the scratch copy, by buckets on the sub-buffer alignment.
    const Layout top = partition(keys_, values_, n, begin, end, padded, /*into_scratch=*/true, 0, align_);
    if (top.moved) {
      // Crowded buckets first: their parts are read back from the caller's buffers by kernels, and
      // Oclgrind 21.10 takes a buffer that a partial clEnqueueCopyBuffer wrote to as uninitialized from
      // then on (the other buckets' copies below). Each bucket has its own place, so the order is free.
      auto crowded = [&](unsigned d) { return top.size[d] > most_ && top.shift > begin; };
      std::size_t placed = 0;
      for (unsigned d = 0; d < kRadix; placed += top.size[d++])
        if (crowded(d)) split_bucket(top.start[d], top.size[d], placed, begin, top.shift);
      placed = 0;
      for (unsigned d = 0; d < kRadix; placed += top.size[d++]) {
        const std::size_t start = top.start[d], size = top.size[d];
        if (size == 0 || crowded(d)) continue;
        if (size > 1 && top.shift > begin) {
          const cl::Buffer bk = sub(part_keys_, start, size, kb_);
          const cl::Buffer bv = values_ ? sub(part_values_, start, size, vb_) : cl::Buffer();
          sort_whole(bk, values_ ? &bv : nullptr, size, begin, top.shift);
        }
        copy(part_keys_, part_values_, start, keys_, values_, placed, size);
      }
    }
    cl::Event done;
    CLSORT_CHECK(s_.queue.enqueueMarkerWithWaitList(&after_, &done));
    s_.last = done;
    return done;
  }

 private:
  Run chain() {
    std::vector<cl::Event> deps = after_;
    if (s_.last()) deps.push_back(s_.last);
    return Run(s_, q_, type_, options_.order == Order::descending, keys_, values_, unsigned(vb_), 0,
               std::move(deps));
  }
  void done(Run& run) {
    s_.last = run.finish();
    after_.assign(1, s_.last);
  }

  cl::Buffer sub(const cl::Buffer& b, std::size_t first, std::size_t count, std::size_t width) const {
    return sub_buffer_of(b, first * width, count * width, s_.facts.base_align);
  }

  // Sorts `count` keys (and values) of the given buffers by bits [begin, end): the usual radix sort.
  void sort_whole(const cl::Buffer& k, const cl::Buffer* v, std::size_t count, unsigned begin, unsigned end) {
    Options o;
    o.order = options_.order;
    o.algorithm = Algorithm::radix;
    o.begin_bit = begin;
    o.end_bit = end;
    after_.assign(1, enqueue_sort_whole(s_, type_, k, v, vb_, count, o, after_));
  }

  void copy(const cl::Buffer& from_keys, const cl::Buffer& from_values, std::size_t from,
            const cl::Buffer& to_keys, const cl::Buffer* to_values, std::size_t to, std::size_t count) {
    Run run = chain();
    run.copy(from_keys, to_keys, count * kb_, "partition copy", from * kb_, to * kb_);
    if (values_) run.copy(from_values, *to_values, count * vb_, "partition copy", from * vb_, to * vb_);
    done(run);
  }
  // The same by a kernel (partition_copy), for the parts of a crowded bucket: kernels read them next, or
  // read the caller's buffers they land in (see sort()).
  void move(const cl::Buffer& from_keys, const cl::Buffer& from_values, std::size_t from,
            const cl::Buffer& to_keys, const cl::Buffer* to_values, std::size_t to, std::size_t count) {
    Run run = chain();
    if (values_)
      set_args(copy_, from_keys, to_keys, from_values, *to_values, cl_ulong(count), cl_ulong(from),
               cl_ulong(to));
    else
      set_args(copy_, from_keys, to_keys, cl_ulong(count), cl_ulong(from), cl_ulong(to));
    const std::size_t items = std::min<std::size_t>(count, std::size_t(s_.facts.compute_units) * 2048);
    run.launch(copy_, round_up(std::max<std::size_t>(items, 1), wg_), wg_, "partition_copy");
    done(run);
  }

  // Partitions the m keys of `src` (and `src_values`) by the top digit of bits [begin, end) that not every
  // key shares, into the scratch copy (into_scratch) or the caller's buffers, buckets from element `base`
  // on, each starting on a multiple of `out_align` elements. Where every key shares every digit of the
  // range, nothing moves (Layout::moved false).
  Layout partition(const cl::Buffer& src, const cl::Buffer* src_values, std::size_t m, unsigned begin,
                   unsigned end, std::size_t scratch_keys, bool into_scratch, std::size_t base,
                   std::size_t out_align) {
    const std::size_t piece =
        std::min<std::size_t>(m, std::max<std::size_t>(align_, std::size_t(piece_keys_) / align_ * align_));
    const std::size_t pieces = (m + piece - 1) / piece;
    const std::size_t tile = wg_ * kPartItems;
    const std::size_t tiles = (piece + tile - 1) / tile;
    Run first = chain();
    cl::Buffer counts = first.scratch(kSplitCounts, std::size_t(kRadix) * pieces * 4);
    cl::Buffer offsets = first.scratch(kSplitOffsets, std::size_t(kRadix) * pieces * 8);
    cl::Buffer buckets = first.scratch(kSplitBuckets, 2 * kRadix * 8);
    const cl_uint kind = first.kind, descending = first.descending;
    Layout layout;
    layout.start.resize(2 * kRadix);
    while (end > begin) {
      const unsigned digit_bits = std::min(8u, end - begin), shift = end - digit_bits;
      const cl_uint digits = 1u << digit_bits, mask = digits - 1;
      // The buckets' sizes first, from the keys as they are.
      Run run = chain();
      set_args(zero_, counts, cl_uint(kRadix * pieces));
      run.launch(zero_, kRadix * pieces, wg_, "partition_zero");
      set_args(count_, src, cl_ulong(m), cl_ulong(piece), cl_uint(tiles), counts, kind, descending,
               cl_uint(shift), mask);
      run.launch(count_, pieces * tiles * wg_, wg_, "partition_count");
      set_args(offsets_kernel_, counts, cl_uint(pieces), digits, cl_ulong(out_align), cl_ulong(base), offsets,
               buckets);
      const std::size_t scan_wg = std::min<std::size_t>(kRadix, s_.facts.max_work_group);
      run.launch(offsets_kernel_, scan_wg, scan_wg, "partition_offsets");
      done(run);
      // The host lays out what follows: it reads where the buckets lie.
      CLSORT_CHECK(s_.queue.enqueueReadBuffer(buckets, CL_TRUE, 0, layout.start.size() * 8,
                                              layout.start.data(), &after_));
      const auto sizes = layout.start.begin() + kRadix;
      if (std::find(sizes, sizes + digits, cl_ulong(m)) != sizes + digits) {
        end = shift;  // one digit holds every key: nothing to partition by here
        continue;
      }
      layout.size.assign(sizes, sizes + kRadix);
      layout.start.resize(kRadix);
      layout.shift = shift;
      layout.moved = true;
      // Buffers before anything moves: what an allocation failure throws leaves the keys as they were.
      if (into_scratch) {
        part_keys_ = first.scratch(kSplitKeys, scratch_keys * kb_);
        if (values_) part_values_ = first.scratch(kSplitValues, scratch_keys * vb_);
      }
      const cl::Buffer& dst = into_scratch ? part_keys_ : keys_;
      const cl::Buffer* dst_values = values_ ? into_scratch ? &part_values_ : values_ : nullptr;
      reserve_sorts(piece, layout);

      // Each piece sorted in place by the digit alone: one stable pass, the plan's own.
      for (std::size_t p = 0; p < pieces; ++p) {
        const std::size_t at = p * piece, size = std::min(piece, m - at);
        if (size < 2) continue;
        const cl::Buffer pk = sub(src, at, size, kb_);
        const cl::Buffer pv = values_ ? sub(*src_values, at, size, vb_) : cl::Buffer();
        sort_whole(pk, values_ ? &pv : nullptr, size, shift, end);
      }
      // Then every run of a piece to its place in its bucket.
      Run move = chain();
      if (values_)
        set_args(gather_, src, dst, *src_values, *dst_values, cl_ulong(m), cl_ulong(piece), cl_uint(tiles),
                 offsets, kind, descending, cl_uint(shift), mask);
      else
        set_args(gather_, src, dst, cl_ulong(m), cl_ulong(piece), cl_uint(tiles), offsets, kind, descending,
                 cl_uint(shift), mask);
      move.launch(gather_, pieces * tiles * wg_, wg_, "partition_gather");
      done(move);
      return layout;
    }
    return layout;
  }

  // The sorts' scratch at the size of the largest piece or bucket one sort takes at once, not grown sort by
  // sort (each growth would reallocate and free the smaller one). A bucket split again reserves for its
  // own parts.
  void reserve_sorts(std::size_t piece, const Layout& layout) {
    std::size_t largest = piece;
    for (unsigned d = 0; d < kRadix; ++d)
      if (layout.size[d] <= most_) largest = std::max<std::size_t>(largest, layout.size[d]);
    Run run = chain();
    run.scratch(kScratchKeys, largest * kb_);
    if (values_) run.scratch(kScratchValues, largest * vb_);
  }

  // A bucket of more keys than one sort takes: its m keys lie in the scratch copy from element `start`
  // (on the sub-buffer alignment), to be sorted by bits [begin, end) into the caller's buffers from element
  // `placed`. It is partitioned by its next digit into its place in the caller's buffers; each part is then
  // sorted there, or through the bucket's room in the scratch copy (free once the bucket moved out) where it
  // starts off the alignment or is itself too large.
  void split_bucket(std::size_t start, std::size_t m, std::size_t placed, unsigned begin, unsigned end) {
    const cl::Buffer bk = sub(part_keys_, start, m, kb_);
    const cl::Buffer bv = values_ ? sub(part_values_, start, m, vb_) : cl::Buffer();
    const Layout parts = partition(bk, values_ ? &bv : nullptr, m, begin, end, 0, false, placed, 1);
    if (!parts.moved) {  // equal in every bit below: in order already
      move(part_keys_, part_values_, start, keys_, values_, placed, m);
      return;
    }
    for (unsigned d = 0; d < kRadix; ++d) {
      const std::size_t at = parts.start[d], size = parts.size[d];
      if (size < 2 || parts.shift == begin) continue;  // in place and in order
      if (size > most_) {
        move(keys_, values_ ? *values_ : cl::Buffer(), at, part_keys_, &part_values_, start, size);
        split_bucket(start, size, at, begin, parts.shift);
        continue;
      }
      const cl::Buffer dk = sub(keys_, at, size, kb_);
      const cl::Buffer dv = values_ ? sub(*values_, at, size, vb_) : cl::Buffer();
      if (dk() && (!values_ || dv())) {
        sort_whole(dk, values_ ? &dv : nullptr, size, begin, parts.shift);
        continue;
      }
      move(keys_, values_ ? *values_ : cl::Buffer(), at, part_keys_, &part_values_, start, size);
      const cl::Buffer sk = sub(part_keys_, start, size, kb_);
      const cl::Buffer sv = values_ ? sub(part_values_, start, size, vb_) : cl::Buffer();
      sort_whole(sk, values_ ? &sv : nullptr, size, begin, parts.shift);
      move(part_keys_, part_values_, start, keys_, values_, at, size);
    }
  }

  Sorter::Impl& s_;
  const KeyType type_;
  const std::size_t kb_, vb_;
  const cl::Buffer keys_;
  const cl::Buffer* const values_;
  const Options options_;
  const Queue q_;
  std::vector<cl::Event> after_;  // what the next command waits for
  std::uint64_t most_ = kMax32, piece_keys_ = 0;
  std::size_t align_ = 1, wg_ = kPartWg;
  cl::Kernel zero_, count_, offsets_kernel_, gather_, copy_;
  cl::Buffer part_keys_, part_values_;  // the scratch copy
};

}  // namespace

cl::Event enqueue_sort_split(Sorter::Impl& s, KeyType type, const cl::Buffer& keys, const cl::Buffer* values,
                             std::size_t value_bytes, std::size_t n, const Options& options,
                             const std::vector<cl::Event>& wait) {
  Split split(s, type, keys, values, value_bytes, options, wait);
  return split.sort(n);
}

}  // namespace clsort::detail
