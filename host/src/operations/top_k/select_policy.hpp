// Radix selection's tuning (top_k, select): SelectPolicy (`select.*`), its parameter lines and its fit to
// a device (radix_select.cpp).
#pragma once

#include "device/policy.hpp"

namespace clsort::detail {

/// Radix selection (top_k, select; kernels/radix_select.cl).
struct SelectPolicy {
  unsigned wg = 256;       // work-items per group; 1: the CPU shape (no local atomics, barriers are no-ops)
  unsigned items = 8;      // elements per work-item per tile
  unsigned groups = 8;     // work-groups per compute unit, each looping over tiles
  unsigned sample = 4096;  // keys sampled to guess level 0's bucket (kernels/radix_select.cl); 0: no guess
};

/// The `select.*` lines of the parameter table, in describe()'s order.
const std::vector<Param>& select_params();
/// Clamps the work-group to the device.
void fit_select(SelectPolicy& p, const FitInput& f);

}  // namespace clsort::detail
