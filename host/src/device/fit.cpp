// fit_to_device: a tuning from the table, fitted to one device for one key and value width by each
// policy's own fit (fit_radix in algorithms/radix/radix_policy.cpp, fit_segments beside the segmented sort,
// ...). Each clamps its work-groups to the device's limit and shrinks its tiles until the local memory its
// kernels declare fits.
// sort_custom derives its own sizes in its plan; the host staging and the automatic choice have nothing
// the device bounds (tuning_for drops the staging where transfers cross no bus).
#include <algorithm>

#include "device/tuning.hpp"

namespace clsort::detail {
namespace {

unsigned floor_pow2(std::size_t v) {
  unsigned p = 1;
  while (p * 2 <= v) p *= 2;
  return p;
}

}  // namespace

FitInput fit_input(const DeviceFacts& device, unsigned key_bytes, unsigned value_bytes) {
  const std::size_t budget = device.local_mem > 4096 ? device.local_mem - 1024 : device.local_mem;
  return {device,
          budget,
          key_bytes * 8,
          std::max(key_bytes, 4u),
          value_bytes,
          value_bytes ? 4u : 0u,
          floor_pow2(device.max_work_group)};
}

Tuning fit_to_device(Tuning t, const DeviceFacts& device, unsigned key_bytes, unsigned value_bytes) {
  const FitInput f = fit_input(device, key_bytes, value_bytes);
  fit_radix(t.radix, f);
  fit_bitonic(t.bitonic, f);
  fit_selection(t.selection, f);
  fit_select(t.select, f);
  fit_merge(t.merge, f);
  fit_odd_even(t.odd_even, f);
  fit_segments(t.segments, f);
  fit_radix_registers(t, device, key_bytes, value_bytes);
  return t;
}

}  // namespace clsort::detail
