// Internal: the route of one public sort call, decided once before anything is enqueued. plan_call turns
// (key type, n, value width, where the data lives, options, device facts, tuning) into a CallPlan; the
// public entries (api/sorter.cpp) build one and hand it to execute (dispatch/execute.cpp), and nothing
// downstream decides again. Sorter::plan prints the same object.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "algorithms/plan.hpp"
#include "engine/sorter_impl.hpp"

namespace clsort::detail {

/// Where a call's keys and values live.
enum class DataAt {
  device,  // the caller's cl::Buffers
  host,    // the caller's host arrays
};

/// How host arrays reach the device and come back.
enum class HostPath {
  none,       // the data is in device buffers already
  staged,     // through the Sorter's pinned staging in chunks, copies overlapping transfers (GPUs)
  zero_copy,  // the caller's arrays are the buffers themselves (CPU devices, radix CPU shape)
  transfers,  // one asynchronous transfer each way per array
};

/// How the values move with their keys.
enum class ValuePath {
  none,       // keys alone
  in_passes,  // the sort's passes move them beside their keys: 4 and 8 bytes, and 16 where the plan takes
              // them (Onesweep with the multisplit ranking, radix.values16)
  widened,    // 1 to 7 bytes other than 4: copied into 4- or 8-byte slots, sorted in_passes, narrowed back
  by_index,   // wider: the keys sorted with their input indices (32-bit; 64-bit where one sort of the
              // passes cannot take every key), then each value moved once
};

/// What plan_call reads besides the Sorter.
struct CallInput {
  KeyType type = KeyType::u32;
  std::size_t n = 0;
  std::size_t value_bytes = 0;  // 0: keys alone (an argsort's indices count as values)
  Options options;
  DataAt data = DataAt::device;
  // Host data: whether the caller's arrays lie on their elements' alignment (a NumPy view at an odd
  // offset does not), which the zero-copy path needs since its kernels load whole elements.
  bool host_aligned = true;
};

struct CallPlan {
  KeyType type = KeyType::u32;
  std::size_t n = 0;
  std::size_t value_bytes = 0;
  Options options;  // options.algorithm resolved: never automatic
  HostPath host = HostPath::none;
  ValuePath values = ValuePath::none;
  unsigned pass_value_bytes =
      0;  // what the passes carry beside each key: 0, 4, 8 or 16 (by_index: the index)
  // An empty bit range (begin_bit == end_bit, as CUB takes it): the sort orders by nothing, so every key
  // keeps its place; nothing is enqueued but a marker (an argsort: its indices), nothing moves on the host.
  bool orders_nothing = false;
  // n past radix.split_min, or more keys than one sort of the passes takes (radix.split_max, 2^32 - 1
  // at most): one stable MSD partition by the top digit with 64-bit counts, then each bucket sorted by the
  // lower bits, a bucket too large for one sort partitioned again by its next digit (dispatch/split.cpp).
  bool split = false;
  // The passes' kernel plan (for split sorts: that of one piece, radix.split_piece keys, as each piece's
  // and bucket's is made for its own size).
  std::shared_ptr<const Plan> kernels;

  /// Whether the sort is the radix CPU shape with any values riding its passes and no split: such a sort
  /// can read another buffer (Run::source) and start anywhere in its buffers (Run::offset).
  bool cpu_shape() const;
  /// The plan of the sort a value path runs inside: the same keys with the values the passes carry.
  CallPlan in_passes() const;
  /// One line for people: the kernel plan, the split and the value path (SortPlan::shape).
  std::string shape() const;
  /// How host arrays of this call move (SortPlan::host).
  std::string host_route() const;
};

/// The route of one call. Throws Error naming n where n is over the algorithm's limit, and naming
/// begin_bit, end_bit or algorithm for a bad bit range.
CallPlan plan_call(const Sorter::Impl& s, const CallInput& in);

/// Throws Error naming end_bit or begin_bit where options' bit range [begin_bit, end_bit) does not fit
/// keys of `type` (end_bit 0 meaning the key's width); radix sort and the segmented sort take the same.
void check_bit_range(KeyType type, const Options& options);

/// Whether options hold an empty bit range (begin_bit == end_bit, end_bit 0 meaning the key's width): a
/// sort by it orders nothing, so every key keeps its place.
bool empty_range(KeyType type, const Options& options);

/// The most keys one sort of the passes takes (radix.split_max of keys of `type` whose passes carry
/// `pass_value_bytes`, at most 2^32 - 1); more take the split path.
std::uint64_t most_sort_keys(const Sorter::Impl& s, KeyType type, unsigned pass_value_bytes);

/// What Algorithm::automatic picks for n keys of `type` with values of `value_bytes` (0: none).
Algorithm automatic_choice(const Sorter::Impl& s, KeyType type, std::size_t n, std::size_t value_bytes);

/// The kernel plan of one sort whose passes carry values of `pass_value_bytes`, kept for the next call of
/// the same shape (Sorter::Impl::plans).
std::shared_ptr<const Plan> kernel_plan(const Sorter::Impl& s, Algorithm algorithm, KeyType type,
                                        std::size_t n, unsigned pass_value_bytes, const Options& options);

}  // namespace clsort::detail
