// Internal: running a CallPlan (call_plan.hpp). execute takes device buffers, execute_host the caller's
// host arrays; both hand the plan's route to its pieces below, each in its own file of dispatch/.
#pragma once

#include <vector>

#include "dispatch/call_plan.hpp"

namespace clsort::detail {

/// Enqueues the sort of plan.n keys (and values of plan.value_bytes) in device buffers, arguments already
/// checked, after `wait`; appends its commands to s.profile. The path every device sort ends in.
cl::Event execute(Sorter::Impl& s, const CallPlan& plan, const cl::Buffer& keys, const cl::Buffer* values,
                  const std::vector<cl::Event>& wait);

/// The sort of the caller's host arrays along plan.host: keys read from `keys_in` and written sorted to
/// `keys` (the same array, or sort_copy's output), values (null: none) with them. The caller's arrays are
/// written only once the sort succeeded, and nothing touches them after this returns or throws.
void execute_host(Sorter::Impl& s, const CallPlan& plan, const void* keys_in, void* keys, void* values);

/// The argsort of plan.n device keys: a copy of the keys is sorted with their indices (plan.value_bytes 4
/// or 8) as values, the indices landing in `indices` (dispatch/values.cpp).
cl::Event execute_argsort(Sorter::Impl& s, const CallPlan& plan, const cl::Buffer& keys,
                          const cl::Buffer& indices, const std::vector<cl::Event>& wait);

// The route's pieces.

/// A marker after `wait`: the event of a call with nothing to do (CallPlan::orders_nothing).
cl::Event enqueue_nothing(Sorter::Impl& s, const std::vector<cl::Event>& wait);

/// A sort below the split, its values (if any) carried by the passes at value_bytes: the kernel plan for
/// n keys, made or kept, enqueued by its algorithm's driver. The split sorts its pieces and buckets so.
cl::Event enqueue_sort_whole(Sorter::Impl& s, KeyType type, const cl::Buffer& keys, const cl::Buffer* values,
                             std::size_t value_bytes, std::size_t n, const Options& options,
                             const std::vector<cl::Event>& wait);
/// The radix sort of n keys past radix.split_min: a stable MSD partition by the top digit of the key's
/// code with 64-bit counts, then a radix sort of each bucket (dispatch/split.cpp). Values are carried by
/// the passes (4 or 8 bytes).
cl::Event enqueue_sort_split(Sorter::Impl& s, KeyType type, const cl::Buffer& keys, const cl::Buffer* values,
                             std::size_t value_bytes, std::size_t n, const Options& options,
                             const std::vector<cl::Event>& wait);
/// ValuePath::widened: the values copied into plan.pass_value_bytes-wide slots, sorted with the keys by
/// plan.in_passes(), narrowed back (dispatch/values.cpp).
cl::Event enqueue_sort_widened(Sorter::Impl& s, const CallPlan& plan, const cl::Buffer& keys,
                               const cl::Buffer& values, const std::vector<cl::Event>& wait);
/// ValuePath::by_index: the keys sorted with their indices (plan.pass_value_bytes: 4 or 8) by
/// plan.in_passes(), then each value moved once through the permutation (dispatch/values.cpp).
cl::Event enqueue_sort_by_index(Sorter::Impl& s, const CallPlan& plan, const cl::Buffer& keys,
                                const cl::Buffer& values, const std::vector<cl::Event>& wait);

}  // namespace clsort::detail
