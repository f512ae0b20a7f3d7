// Merge sort's tuning: MergePolicy (`merge.*`), its parameter lines and its fit to a device (merge.cpp).
#pragma once

#include "device/policy.hpp"

namespace clsort::detail {

struct MergePolicy {
  unsigned wg = 256;
  unsigned items = 8;      // keys per work-item (tile = wg * items)
  unsigned cpu = 0;        // 1: the CPU shape (sequential merges, one work-item per chunk)
  unsigned chunk = 16384;  // CPU shape: keys per work-item
};

/// The `merge.*` lines of the parameter table, in describe()'s order.
const std::vector<Param>& merge_params();
/// Shrinks the tile (GPU shape) or chunk (CPU shape) to the device's local memory.
void fit_merge(MergePolicy& p, const FitInput& f);

}  // namespace clsort::detail
