// Internal: the state behind a Sorter: its OpenCL objects, what it knows of the device, the tuning
// overrides, and what sorts reuse (kernels, scratch buffers, pinned staging, each driver's own state).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "algorithms/plan.hpp"
#include "clsort/clsort.hpp"
#include "device/tuning.hpp"
#include "engine/check.hpp"
#include "host_data/copy_pool.hpp"

namespace clsort {
namespace detail {
struct RadixState;     // host/src/algorithms/radix.cpp
struct SegmentsState;  // host/src/segments.cpp

/// Which of a state's two copies (Onesweep's histogram words, the segmented sort's classification) the
/// commands enqueued so far leave reset for the next call, for copies of `words` words: usable while the
/// Sorter's scratch_made is still `made` (a scratch buffer made since may have replaced the one holding it).
struct ResetCopy {
  std::uint64_t made = 0;
  std::size_t words = 0;
  unsigned copy = 0;
  bool valid = false;
  bool usable(std::uint64_t scratch_made, std::size_t words_now) const {
    return valid && made == scratch_made && words == words_now;
  }
};

/// What a Sorter keeps between calls by key, made on first use: plans, whose making took several µs of
/// host time that a GPU sort of 2^16 keys waits for. At most `Max` (then all go), so a caller whose n
/// changes every call keeps a small map, not a growing one.
template <class Key, class Value, std::size_t Max = 64>
class Kept {
 public:
  /// The value kept for `key`, made by `make()` if there is none. Valid until the next call that makes one.
  template <class Make>
  const Value& get(const Key& key, Make make) {
    auto it = items_.find(key);
    if (it == items_.end()) {
      if (items_.size() >= Max) items_.clear();
      it = items_.emplace(key, make()).first;
    }
    return it->second;
  }
  void clear() { items_.clear(); }

 private:
  std::map<Key, Value> items_;
};
}  // namespace detail

// Sorter is exported (CLSORT_API) and its nested Impl would be exported with it; it stays internal.
#if defined(__GNUC__) && !defined(_WIN32)
#define CLSORT_SORTER_IMPL_HIDDEN __attribute__((visibility("hidden")))
#else
#define CLSORT_SORTER_IMPL_HIDDEN
#endif

struct CLSORT_SORTER_IMPL_HIDDEN Sorter::Impl {
  Impl(cl::Context context, cl::Device device, cl::CommandQueue queue);
  ~Impl();

  cl::Context context;
  cl::Device device;
  cl::CommandQueue queue;
  bool profiling = false;
  bool in_order = true;
  detail::DeviceFacts facts;  // read once
  // CLSORT_TUNING and every Sorter::tune string, in order, applied over the table's rows.
  std::string overrides;
  // The tuning per (key bytes, value bytes): the rows for those widths plus the overrides, fitted to the
  // device. Made once per width (by sorts and by choose(), which is const); cleared by tune().
  mutable std::map<std::pair<unsigned, unsigned>, detail::Tuning> fitted;
  const detail::Tuning& tuning(unsigned key_bytes, unsigned value_bytes) const;
  // Sort plans by (algorithm, key bytes, carried value bytes, n, begin_bit, end_bit), made from `fitted`;
  // cleared by tune(). Shared, so that a plan a caller holds outlives its eviction by a later call.
  using PlanKey = std::tuple<int, unsigned, unsigned, std::uint32_t, unsigned, unsigned>;
  mutable detail::Kept<PlanKey, std::shared_ptr<const detail::Plan>> plans;

  // Kernels are created per Sorter (a cl::Kernel's arguments are not thread-safe); programs are shared.
  // By ProgramSpec::key, then kernel name.
  std::map<std::string, std::map<std::string, cl::Kernel>> kernels;
  // Scratch buffers by slot, grown on demand and reused by later sorts; scratch_made counts the buffers
  // made, so that a sort can tell that none was replaced since an earlier sort left words in one.
  std::map<int, std::pair<cl::Buffer, std::size_t>> scratch;
  std::uint64_t scratch_made = 0;
  std::unique_ptr<detail::RadixState> radix;  // the radix driver's, between sorts
  // sort_custom: the device's sizeof of each user type seen, by the program source that declares it.
  std::map<std::string, unsigned> custom_sizes;
  cl::Buffer custom_size_out;  // where the device writes a type's sizeof; kept, as scratch buffers are
  // Host-data staging (sort_host on GPUs): pinned host memory (CL_MEM_ALLOC_HOST_PTR), mapped once and
  // grown on demand, and the threads that copy the caller's data into and out of it.
  cl::Buffer pinned;
  unsigned char* pinned_ptr = nullptr;
  std::size_t pinned_bytes = 0;
  std::unique_ptr<detail::CopyPool> copy_pool;
  unsigned copy_threads = 0;  // what copy_pool was made for (it may have started fewer)
  // The segmented sort's chunk table, written to the device without blocking: kept until the next call.
  std::vector<std::uint32_t> segment_chunks, segment_radix;
  // The segmented sort's plans between calls (as `plans`); reset by tune().
  std::shared_ptr<detail::SegmentsState> segments;
  // Completion of the previous sort: a new sort reuses scratch only after it (out-of-order queues).
  cl::Event last;
  // The last sort's commands for Sorter::last_profile (profiling queues only), in the order enqueued.
  std::vector<std::pair<std::string, cl::Event>> profile;
};

namespace detail {

enum ScratchSlot {
  kScratchKeys,
  kScratchValues,
  kScratchIndex,
  kScratchCounts,
  kScratchTotals,
  kScratchOnesweep,  // only Onesweep's state and look-back words, which outlive a sort (radix.cpp)
  kHostKeys,
  kHostValues,
  kHostIndices,  // top_k of host data: the selected indices
  // Radix selection (top_k, select; algorithms/select.cpp): its state words, two candidate index arrays,
  // the selected indices and their sort keys. Apart from the sorts' slots: top_k sorts its selection.
  kSelectState,
  kSelectCandidatesA,
  kSelectCandidatesB,
  kSelectOut,
  kSelectCodes,
  kLexKeys,        // lexsort: the column being sorted by, gathered through the permutation so far
  kLexIndices,     // lexsort of device data: the permutation, copied to the caller's buffer at the end
  kCustomIndices,  // sort_custom's bitonic network: each element's input index, its tie-break
  // Segmented sort (segments.cpp): its state words, the large segments' list and chunk table, the merge
  // passes' compact scratch, host offsets, and the copies of huge segments that the whole-device sort takes.
  kSegState,
  kSegChunks,
  kSegRadix,  // the segments sorted by radix, one work-group each
  kSegBins,
  kSegKeys,
  kSegValues,
  kSegOffsets,
  kSegHugeKeys,
  kSegHugeValues,
  kSegSeqKeys,
  kSegSeqValues,
  kSegRangeCodes,  // a bit range: the range's bits, sorted in the keys' place, and the keys saved
  kSegRangeKeys,
  // Values the passes do not carry (host/src/permute.cpp): the indices sorted with the keys and the
  // values saved for the gather; argsort of device keys: the copy of the keys it sorts.
  kScratchPermIndex,
  kScratchPermValues,
  kScratchArgsortKeys,
  // n past radix.split_min (host/src/huge.cpp): the partitioned keys and values, the per-chunk counts and
  // offsets, the buckets' layout.
  kSplitKeys,
  kSplitValues,
  kSplitCounts,
  kSplitOffsets,
  kSplitBuckets
};

/// What Algorithm::automatic picks for n keys of `type` with values of `value_bytes` (0: none).
Algorithm automatic_choice(const Sorter::Impl& s, KeyType type, std::size_t n, std::size_t value_bytes);
/// The algorithm `options` asks for, or automatic's choice, for a sort of n keys of `type` with values
/// of `value_bytes` (0: none; a bit range means radix); throws Error naming n where n is over the
/// algorithm's limit, and naming begin_bit, end_bit or algorithm for a bad bit range.
Algorithm resolve_algorithm(const Sorter::Impl& s, KeyType type, std::size_t n, std::size_t value_bytes,
                            const Options& options);

/// Whether options hold an empty bit range (begin_bit == end_bit, end_bit 0 meaning the key's width): the
/// sort orders by nothing, so every key keeps its place.
bool empty_range(KeyType type, const Options& options);
/// A marker after `wait`: the event of a call with nothing to do.
cl::Event enqueue_nothing(Sorter::Impl& s, const std::vector<cl::Event>& wait);

/// Enqueues the sort of n keys (and values) already in device buffers, arguments already checked and
/// options.algorithm resolved (resolve_algorithm), after `wait`; appends its commands to s.profile. The
/// one path every public sort call ends in.
cl::Event enqueue_sort(Sorter::Impl& s, KeyType type, const cl::Buffer& keys, const cl::Buffer* values,
                       std::size_t value_bytes, std::size_t n, const Options& options,
                       const std::vector<cl::Event>& wait);

/// Whether the sort passes carry values of `value_bytes` themselves (0: no values, 4, 8).
bool carried_by_passes(std::size_t value_bytes);
/// Values narrower than 8 bytes that the passes do not carry (1, 2, 3, 5, 6, 7): widened to 4 or 8 bytes,
/// they ride the passes, and are narrowed back (enqueue_sort_widened).
inline bool widened(std::size_t value_bytes) {
  return value_bytes > 0 && value_bytes < 8 && value_bytes != 4;
}
/// Values wider than 8 bytes: sorted as 32-bit indices (64-bit past most_sort_keys) and moved once
/// (enqueue_sort_permuted).
inline bool permuted(std::size_t value_bytes) {
  return value_bytes > 8;
}
/// The value width the passes of a sort with values of `value_bytes` carry: 4 or 8 for widened values,
/// the 32-bit indices for permuted ones (below 2^32 keys).
inline std::size_t carried_width(std::size_t value_bytes) {
  return carried_by_passes(value_bytes) ? value_bytes : widened(value_bytes) && value_bytes > 4 ? 8 : 4;
}
/// enqueue_sort for values of 1 to 7 bytes the passes do not carry: widened to carried_width() bytes,
/// sorted as such, narrowed back (dispatch/values.cpp).
cl::Event enqueue_sort_widened(Sorter::Impl& s, KeyType type, const cl::Buffer& keys,
                               const cl::Buffer& values, std::size_t value_bytes, std::size_t n,
                               const Options& options, const std::vector<cl::Event>& wait);
/// enqueue_sort for values wider than 8 bytes: sorts the keys with their indices (32-bit, or 64-bit past
/// most_sort_keys), then moves each value once through the permutation (dispatch/values.cpp).
cl::Event enqueue_sort_permuted(Sorter::Impl& s, KeyType type, const cl::Buffer& keys,
                                const cl::Buffer& values, std::size_t value_bytes, std::size_t n,
                                const Options& options, const std::vector<cl::Event>& wait);
/// The most keys one sort of the passes takes (radix.split_max, at most 2^32 - 1); more take the split path.
std::uint64_t most_sort_keys(const Sorter::Impl& s, KeyType type);
/// Whether a sort of n keys takes the split path (enqueue_sort_split): radix sort from radix.split_min on,
/// which n >= 2^32 always reaches.
bool needs_split(const Sorter::Impl& s, KeyType type, std::size_t n, std::size_t value_bytes,
                 const Options& options);
/// The radix sort of n keys past radix.split_min: a stable MSD partition by the top digit of the key's
/// code with 64-bit counts, then a radix sort of each bucket (dispatch/split.cpp); values of a width the
/// passes carry (enqueue_sort widens or permutes the others first).
cl::Event enqueue_sort_split(Sorter::Impl& s, KeyType type, const cl::Buffer& keys, const cl::Buffer* values,
                             std::size_t value_bytes, std::size_t n, const Options& options,
                             const std::vector<cl::Event>& wait);
/// Whether values of value_bytes ride the passes of this sort although carried_by_passes says otherwise:
/// 16-byte values where the plan is Onesweep with the multisplit ranking and radix.values16 is set.
bool rides_passes(const Sorter::Impl& s, KeyType type, std::size_t n, std::size_t value_bytes,
                  const Options& options);
/// The caller's host memory as a buffer of the Sorter's CPU device (CL_MEM_USE_HOST_PTR), whose runtime
/// then uses that memory itself (PoCL, Intel's CPU runtime). Read-write also where the device only reads
/// it: Intel's CPU runtime 2026.2 read a CL_MEM_READ_ONLY one on memory off a 128-byte boundary (a
/// std::vector's) about 3 times as slowly (top_k of 2^24 u32 keys: 64 ms against 21-23). Sets *status.
cl::Buffer wrap_host(const Sorter::Impl& s, const void* host, std::size_t bytes, cl_int* status);
/// The plan of a sort of n keys (value_bytes 0: keys alone) where it is the radix CPU shape, with any
/// values riding its passes and no split: such a sort can read another buffer (Run::source) and start
/// anywhere in its buffers (Run::offset). Null elsewhere.
std::shared_ptr<const Plan> cpu_shape_plan(const Sorter::Impl& s, KeyType type, std::size_t n,
                                           std::size_t value_bytes, const Options& options);
/// enqueue_sort without the split: n < 2^32.
cl::Event enqueue_sort_whole(Sorter::Impl& s, KeyType type, const cl::Buffer& keys, const cl::Buffer* values,
                             std::size_t value_bytes, std::size_t n, const Options& options,
                             const std::vector<cl::Event>& wait);

/// Enqueues the argsort of n device keys, arguments checked and options.algorithm resolved: a copy of
/// the keys is sorted with their indices (index_bytes 4 or 8) as values, the indices landing in `indices`.
cl::Event enqueue_argsort(Sorter::Impl& s, KeyType type, const cl::Buffer& keys, const cl::Buffer& indices,
                          std::size_t index_bytes, std::size_t n, const Options& options,
                          const std::vector<cl::Event>& wait);

}  // namespace detail
}  // namespace clsort
