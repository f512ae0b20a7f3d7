// Internal: what every module's tuning policy is made of. Each module keeps its policy with its code (the
// struct, its `name.*` lines of the parameter table and its fit to a device: radix_policy.hpp beside the
// radix sort, segments_policy.hpp beside the segmented sort, ...); device/tuning.hpp gathers them into
// one Tuning and applies the table's rows, keyed vendor -> device class -> device name -> widths.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "clsort/clsort.hpp"

namespace clsort::detail {

struct RadixPolicy;
struct RadixPlan;

/// What a device answers only when built and run for (algorithms/radix/radix_probe.cpp): the fits ask,
/// and each answer is found once per process, device and program. Facts made by hand (tests) have none:
/// then every primitive answers and nothing spills.
class DeviceProbe {
 public:
  virtual ~DeviceProbe() = default;
  /// Whether the multisplit ranking's sub-group primitives in `radix` (PTX warps, or
  /// cl_khr_subgroup_ballot at radix.sg_size lanes) answer as the ranking assumes, in groups of radix.wg.
  virtual bool subgroups_work(const RadixPolicy& radix) const = 0;
  /// The private memory per work-item (spilled registers) of the pass kernel of `plan`, as the compiler
  /// reports it; nothing where the program does not build or the kernel cannot be asked.
  virtual std::optional<std::uint64_t> pass_private_bytes(const RadixPlan& plan) const = 0;
};

/// What the tuning, the plans and the drivers need to know of a device, read once per Sorter. Every
/// query is checked: a failed one throws Error naming the query rather than becoming a size of 0.
struct DeviceFacts {
  std::string vendor, name;  // lower case
  std::string type;          // "gpu", "cpu", "accelerator" or "other"
  std::size_t max_work_group = 1;
  std::size_t local_mem = 0;
  std::uint64_t max_alloc = 0;
  std::uint64_t global_mem = 0;
  std::size_t base_align = 128;  // CL_DEVICE_MEM_BASE_ADDR_ALIGN in bytes: where a sub-buffer may start
  unsigned compute_units = 1;
  bool host_unified = false;
  // NVIDIA's OpenCL (it reports cl_nv_device_attribute_query): its compiler takes inline PTX, which a
  // self-test confirms before the ranking uses it, and its binaries are PTX, which take register caps
  bool nv_compiler = false;
  bool subgroup_ballot = false;          // cl_khr_subgroup_ballot
  std::vector<unsigned> subgroup_sizes;  // sizes a kernel can require (cl_intel_required_subgroup_size)
  unsigned registers_per_group = 0;      // NVIDIA: registers one work-group may use; 0: unknown
  std::string extensions;
  std::shared_ptr<const DeviceProbe> probe;  // null for facts made by hand
};
DeviceFacts query_device(const cl::Device& device);

struct Tuning;

// ---- A parameter line: its name ("radix.bits"), how to read and set it in a Tuning, and what it accepts.
enum class Check {
  range,          // lo..hi ("0 or 1" for switches)
  pow2,           // a power of two in lo..hi
  multiple_of_8,  // a multiple of 8 in lo..hi (the radix scans' raking segments)
  zero_or_range,  // 0 (off / the compiler's choice) or lo..hi
  pow2_or_zero    // 0 (automatic) or a power of two in lo..hi
};

struct Param {
  const char* name;
  std::uint64_t (*get)(const Tuning&);
  void (*set)(Tuning&, std::uint64_t);
  std::uint64_t lo, hi;
  Check check;
  const char* zero_means;  // for zero_or_range: what 0 means in the message
};

/// Defines `const std::vector<Param>& fn()`: a module's lines of the parameter table, in describe()'s order.
#define CLSORT_PARAMS(fn, ...)                              \
  const std::vector<Param>& fn() {                          \
    static const std::vector<Param> params = {__VA_ARGS__}; \
    return params;                                          \
  }

#define CLSORT_PARAM(name, field, lo, hi, check, zero)                                                       \
  Param {                                                                                                    \
    name, [](const Tuning& t) -> std::uint64_t { return t.field; },                                          \
        [](Tuning& t, std::uint64_t v) { t.field = static_cast<decltype(t.field)>(v); }, lo, hi, check, zero \
  }

// What the fit of every policy reads: the device, its limits, and the widths as the kernels hold them.
struct FitInput {
  const DeviceFacts& device;
  // Local memory a kernel may declare: the device's, less room for the implementation's own use.
  std::size_t budget;
  unsigned key_bits;  // the key's own width: a digit wider than the key would only add empty counters
  // Keys of 8 and 16 bits are 32-bit codes in registers and local memory (kernels/common.cl), so the
  // budgets below take them as 4 bytes.
  unsigned key_bytes;
  unsigned value_bytes;
  // Bitonic by-key sorts, merge and odd-even carry a 4-byte index or source position with each key.
  unsigned index_bytes;
  unsigned max_wg;  // the largest power-of-two work-group the device runs

  void clamp_wg(unsigned& wg) const { wg = std::min(wg, max_wg); }
};

/// The fit's view of `device` for keys of `key_bytes` and values of `value_bytes` (device/fit.cpp).
FitInput fit_input(const DeviceFacts& device, unsigned key_bytes, unsigned value_bytes);

}  // namespace clsort::detail
