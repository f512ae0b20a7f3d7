// Internal: the state behind a Sorter, and Run, what an algorithm driver sees of one sort call.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "check.hpp"
#include "clsort/clsort.hpp"
#include "copy_pool.hpp"
#include "tuning.hpp"

namespace clsort {

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
  detail::Tuning tuning;  // the table's row plus overrides, before fitting to a key/value width
  // `tuning` fitted to the device per (key bytes, value bytes): fitting queries the device, so it is done
  // once per width (by sorts and by choose(), which is const). Cleared whenever `tuning` changes.
  mutable std::map<std::pair<unsigned, unsigned>, detail::Tuning> fitted;
  const detail::Tuning& fitted_tuning(unsigned key_bytes, unsigned value_bytes) const;
  // Device facts the drivers need on every sort, read once.
  std::size_t max_alloc = 0;
  cl_uint compute_units = 1;

  // Kernels are created per Sorter (a cl::Kernel's arguments are not thread-safe); programs are shared.
  std::map<std::string, cl::Kernel> kernels;
  // Scratch buffers by slot, grown on demand and reused by later sorts; scratch_made counts the buffers
  // made, so that a sort can tell that none was replaced since an earlier sort left words in one.
  std::map<int, std::pair<cl::Buffer, std::size_t>> scratch;
  std::uint64_t scratch_made = 0;
  // Which copy of Onesweep's state words (algorithms/radix.cpp) the commands enqueued so far leave
  // zeroed, for copies of `words` words, as long as scratch_made is still `made`.
  struct OnesweepZeroed {
    std::uint64_t made = 0;
    std::size_t words = 0;
    unsigned copy = 0;
    bool valid = false;
  } onesweep_zeroed;
  // Host-data staging (sort_host on GPUs): pinned host memory (CL_MEM_ALLOC_HOST_PTR), mapped once and
  // grown on demand, and the threads that copy the caller's data into and out of it.
  cl::Buffer pinned;
  unsigned char* pinned_ptr = nullptr;
  std::size_t pinned_bytes = 0;
  std::unique_ptr<detail::CopyPool> copy_pool;
  unsigned copy_threads = 0;  // what copy_pool was made for (it may have started fewer)
  // Completion of the previous sort: a new sort reuses scratch only after it (out-of-order queues).
  cl::Event last;
  // The last sort's commands for Sorter::last_profile (profiling queues only): sort_buffer starts it
  // afresh, so a host sort adds its uploads in front afterwards.
  std::vector<std::pair<std::string, cl::Event>> profile;
  void record(const char* name, const cl::Event& ev) {
    if (profiling) profile.emplace_back(name, ev);
  }
  void record_before(const char* name, const std::vector<cl::Event>& events) {
    if (!profiling) return;
    std::vector<std::pair<std::string, cl::Event>> front;
    for (const cl::Event& ev : events) front.emplace_back(name, ev);
    profile.insert(profile.begin(), front.begin(), front.end());
  }
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
  kHostValues
};

/// One sort call as the algorithm drivers see it: keys (and values) in device buffers, already
/// validated. Drivers first obtain every kernel and scratch buffer they need (so that build and
/// allocation errors come before anything is enqueued), then enqueue, each command waiting for the last.
struct Run {
  Sorter::Impl& s;
  KeyType type;
  unsigned key_bytes;
  unsigned kind;  // KIND_UNSIGNED / KIND_SIGNED / KIND_FLOAT of kernels/common.cl
  bool descending;
  cl::Buffer keys;
  const cl::Buffer* values;  // null for keys only
  unsigned value_bytes;      // 0 for keys only
  std::uint32_t n;
  std::vector<cl::Event> deps;  // what the next command waits for
  cl::Event last;               // the last command enqueued

  Tuning tuning() const;  // fitted to this run's key and value widths
  /// The kernel `name` from the program of `file` (after common.cl) built with `defines` plus the
  /// key and value widths.
  cl::Kernel kernel(const std::string& file, const std::string& name, const std::string& defines,
                    unsigned value_bytes_for_program);
  /// The build options of that program: the widths, then `defines`.
  std::string program_options(const std::string& defines, unsigned value_bytes_for_program) const;
  cl::Buffer scratch(ScratchSlot slot, std::size_t bytes);

  void launch(cl::Kernel& k, std::size_t global, std::size_t local, const char* label);
  void copy(const cl::Buffer& src, const cl::Buffer& dst, std::size_t bytes, const char* label);
  cl::Event finish();   // the event the caller gets: completion of everything enqueued
  bool events() const;  // whether each command needs an event of its own (see launch)
  // A command was enqueued, with event ev (null where events() is false): what the next one waits for.
  void after(const cl::Event& ev, const char* label);
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

inline std::size_t round_up(std::size_t v, std::size_t m) {
  return (v + m - 1) / m * m;
}

// The drivers, one per algorithm (host/src/algorithms/).
void radix_sort(Run& run);
void bitonic_sort(Run& run);
void selection_sort(Run& run);
void odd_even_sort(Run& run);
void merge_sort(Run& run);

}  // namespace detail
}  // namespace clsort
