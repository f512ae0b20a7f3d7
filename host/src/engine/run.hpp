// Internal: Run, what an algorithm driver sees of one sort call: validated device buffers, the queue to
// enqueue on, and helpers to get kernels and scratch buffers and to enqueue commands in a chain.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "algorithms/plan.hpp"
#include "engine/check.hpp"
#include "engine/sorter_impl.hpp"

namespace clsort::detail {

/// A queue and what clsort needs to know of it.
struct Queue {
  cl::CommandQueue queue;
  bool profiling = false;  // record each command's event for Sorter::last_profile
  bool in_order = true;
};

/// One sort call as the drivers see it. Drivers first obtain every kernel and scratch buffer they need
/// (so that build and allocation errors come before anything is enqueued), then enqueue, each command
/// waiting for the last.
class Run {
 public:
  Run(Sorter::Impl& sorter, Queue queue, KeyType type, bool descending, cl::Buffer keys,
      const cl::Buffer* values, unsigned value_bytes, std::uint32_t n, std::vector<cl::Event> wait);

  /// The Run of one call's commands on the Sorter's own queue, after `wait` and after the Sorter's
  /// previous call (s.last); in the order options.order asks. n past 2^32 - 1 is clamped: drivers that
  /// sort take fewer, and the others read their sizes from their own plans. `in_order` false gives every
  /// command an event of its own, as on an out-of-order queue.
  static Run for_call(Sorter::Impl& s, KeyType type, const Options& options, cl::Buffer keys,
                      const cl::Buffer* values, unsigned value_bytes, std::size_t n,
                      std::vector<cl::Event> wait, bool in_order = true);

  Sorter::Impl& s;
  const Queue q;
  const KeyType type;
  const unsigned key_bytes;
  const unsigned kind;  // KIND_UNSIGNED / KIND_SIGNED / KIND_FLOAT of kernels/common.cl
  const bool descending;
  const cl::Buffer keys;
  const cl::Buffer* const values;  // null for keys only
  const unsigned value_bytes;      // 0 for keys only
  const std::uint32_t n;
  /// Where the keys are read from when not `keys` (a host sort into other memory on a CPU device, whose
  /// caller's input is only read); null: `keys`. Only the radix CPU shape takes it (cpu_shape_plan).
  const cl::Buffer* source = nullptr;
  /// Elements before the first key in `keys`, `values` and `source`: a huge segment sorted where it lies,
  /// off the device's sub-buffer alignment. Only the radix CPU shape takes it (cpu_shape_plan).
  std::size_t offset = 0;

  /// The kernel `name` of `program` (built once per context and device, created once per Sorter).
  cl::Kernel kernel(const ProgramSpec& program, const std::string& name);
  cl::Buffer scratch(ScratchSlot slot, std::size_t bytes);
  /// A slot of a module's own enum E, whose owner's name scratch_owner(E) gives (found beside E).
  template <class E, class = std::enable_if_t<std::is_enum_v<E>>>
  cl::Buffer scratch(E slot, std::size_t bytes) {
    return scratch(ScratchSlot{scratch_owner(slot), unsigned(slot)}, bytes);
  }

  void launch(cl::Kernel& k, std::size_t global, std::size_t local, const char* label);
  void copy(const cl::Buffer& src, const cl::Buffer& dst, std::size_t bytes, const char* label,
            std::size_t src_offset = 0, std::size_t dst_offset = 0);
  void write(const cl::Buffer& dst, const void* src, std::size_t bytes, const char* label);
  cl::Event finish();  // the event the caller gets: completion of everything enqueued

 private:
  bool events() const;  // whether each command needs an event of its own (see launch)
  // A command was enqueued, with event ev (null where events() is false): what the next one waits for.
  void after(const cl::Event& ev, const char* label);
  std::vector<cl::Event> deps_;  // what the next command waits for
  cl::Event last_;               // the last command enqueued
};

/// Moves values of any width once through a permutation of 32- or 64-bit indices (kernels/permute.cl), for
/// sorts that carry the indices in their place: enqueue_sort_by_index, the segmented sort's values.
class ValueMover {
 public:
  /// Obtains (builds) the kernels through `run`, before anything is enqueued; index_bytes 4 or 8.
  ValueMover(Run& run, std::size_t value_bytes, std::size_t index_bytes = 4);
  /// Enqueues on run: index[at + i] = i and saved[i] = values[at + i], for i < n.
  void stage(Run& run, const cl::Buffer& index, const cl::Buffer& values, const cl::Buffer& saved,
             std::size_t n, std::size_t at = 0);
  /// Enqueues on run: values[at + i] = saved[index[at + i]], for i < n.
  void gather(Run& run, const cl::Buffer& saved, const cl::Buffer& index, const cl::Buffer& values,
              std::size_t n, std::size_t at = 0);

 private:
  std::size_t value_bytes_, unit_;
  bool cpu_;
  cl::Kernel stage_, gather_;
};

/// Bits [begin, end) of each key's order-preserving code, in the requested order, as unsigned keys of the
/// key's width (kernels/permute.cl, permute_codes): what a sort that compares whole codes sorts for a bit
/// range (the segmented sort).
class RangeCodes {
 public:
  /// Obtains (builds) the kernel through `run`, for run's key type.
  explicit RangeCodes(Run& run);
  /// Enqueues on run: codes[at + i] = the range's bits of keys[at + i], for i < n; end > begin.
  void write(Run& run, const cl::Buffer& keys, const cl::Buffer& codes, std::size_t n, std::size_t at,
             unsigned begin, unsigned end);

 private:
  cl::Kernel codes_;
};

template <class... A>
void set_args(cl::Kernel& k, const A&... args) {
  cl_uint i = 0;
  (
      [&] {
        const cl_int status = k.setArg(i++, args);
        if (status != CL_SUCCESS) throw_cl_error(status, "clSetKernelArg");
      }(),
      ...);
}

/// The bytes [origin, origin + bytes) of `b` as a buffer of their own: a sub-buffer of `b`, or of its
/// parent where `b` is itself a sub-buffer (OpenCL takes sub-buffers of whole buffers only). A null
/// buffer where the region's start does not lie on the device's sub-buffer alignment `align` (bytes).
cl::Buffer sub_buffer_of(const cl::Buffer& b, std::size_t origin, std::size_t bytes, std::size_t align);

inline std::size_t round_up(std::size_t v, std::size_t m) {
  return (v + m - 1) / m * m;
}

/// Gives back scratch buffers of earlier calls, oldest first, until what the Sorter holds plus `adding`
/// bytes is within Sorter::keep_scratch or none of them is left.
void trim_idle_scratch(Sorter::Impl& s, std::size_t adding);

/// The sorts' scratch (host/src/algorithms/): the passes' second copy of keys and values, the comparison
/// sorts' indices, the radix counts and totals, and Onesweep's state and look-back words, which outlive
/// a sort (radix_onesweep.cpp).
enum SortScratch : unsigned {
  kScratchKeys,
  kScratchValues,
  kScratchIndex,
  kScratchCounts,
  kScratchTotals,
  kScratchOnesweep
};
constexpr const char* scratch_owner(SortScratch) {
  return "sort";
}

// The drivers, one per algorithm (host/src/algorithms/): each enqueues its plan.
void run_radix(Run& run, const RadixPlan& plan);
void run_bitonic(Run& run, const BitonicPlan& plan);
void run_merge(Run& run, const MergePlan& plan);
void run_selection(Run& run, const SelectionPlan& plan);
void run_odd_even(Run& run, const OddEvenPlan& plan);
void execute(Run& run, const Plan& plan);

}  // namespace clsort::detail
