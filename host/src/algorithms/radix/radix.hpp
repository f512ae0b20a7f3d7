// Internal: what the radix driver's files share (radix_plan.cpp plans, radix.cpp runs the CPU and
// reduce-then-scan shapes and dispatches, radix_onesweep.cpp runs Onesweep and its self-test), and the
// state the driver keeps in a Sorter between sorts.
#pragma once

#include <cstddef>
#include <cstdint>

#include "engine/run.hpp"

namespace clsort::detail {

/// What the radix driver keeps in a Sorter between sorts.
struct RadixState : ModuleState {
  ResetCopy onesweep;  // Onesweep's state words (radix_onesweep.cpp)
};

/// The files of a GPU-shape program: the shared part, the ranking, the shape's kernels.
ProgramSpec radix_program(const PlanInput& in, const RadixPlan& plan, const char* shape_file);

/// Whether the multisplit ranking's sub-group primitives in `radix` (PTX warps or cl_khr_subgroup_ballot)
/// answer on `device` as the ranking assumes (kernels/radix_sg_probe.cl); true for local memory and for
/// other rankings. Tested once per device and program in a process.
bool subgroups_pass(const cl::Context& context, const cl::Device& device, const RadixPolicy& radix);

/// For a tile derived from the device (RadixPolicy::derived): takes keys per work-item off t.radix, 4 at a
/// time down to 8, while the compiler reports the pass kernel spilling to private memory.
void fit_radix_registers(const cl::Context& context, const cl::Device& device, const DeviceFacts& facts,
                         Tuning& t, unsigned key_bytes, unsigned value_bytes);

/// Enqueues plan (shape onesweep) if its self-test passed on this device, and returns true; false
/// (nothing enqueued) where it failed, so that the caller runs plan.fallback.
bool run_onesweep(Run& run, const RadixPlan& plan);
void run_reduce_then_scan(Run& run, const RadixPlan& plan);

}  // namespace clsort::detail
