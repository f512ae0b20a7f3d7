// Internal: what the radix driver's files share (radix_plan.cpp plans, radix.cpp runs the CPU and
// reduce-then-scan shapes and dispatches, radix_onesweep.cpp runs Onesweep and its self-test), and the
// state the driver keeps in a Sorter between sorts.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "engine/run.hpp"

namespace clsort::detail {

/// What the radix driver keeps in a Sorter between sorts.
struct RadixState : ModuleState {
  ResetCopy onesweep;  // Onesweep's state words (radix_onesweep.cpp)
};

/// The files of a GPU-shape program: the shared part, the ranking, the shape's kernels.
ProgramSpec radix_program(const PlanInput& in, const RadixPlan& plan, const char* shape_file);

/// The probe of `device` that DeviceFacts::probe holds (radix_probe.cpp): it builds and runs the
/// sub-group probe kernel (kernels/radix_sg_probe.cl) and asks the compiler for the pass kernel's spills.
std::shared_ptr<const DeviceProbe> make_device_probe(const cl::Context& context, const cl::Device& device);

/// Enqueues plan (shape onesweep) if its self-test passed on this device, and returns true; false
/// (nothing enqueued) where it failed, so that the caller runs plan.fallback.
bool run_onesweep(Run& run, const RadixPlan& plan);
void run_reduce_then_scan(Run& run, const RadixPlan& plan);

}  // namespace clsort::detail
