// Bitonic sort's tuning: BitonicPolicy (`bitonic.*`), its parameter lines and its fit to a device
// (bitonic.cpp).
#pragma once

#include "device/policy.hpp"

namespace clsort::detail {

struct BitonicPolicy {
  unsigned wg = 256;
  unsigned tile = 2048;  // elements sorted in local memory by one work-group
  unsigned steps = 4;    // global steps fused per launch (2^steps elements per work-item)
  unsigned cpu = 0;      // 1: the CPU shape (a work-item per tile, steps as vector loops)
};

/// The `bitonic.*` lines of the parameter table, in describe()'s order.
const std::vector<Param>& bitonic_params();
/// Clamps the work-group and the local tile to the device.
void fit_bitonic(BitonicPolicy& p, const FitInput& f);

}  // namespace clsort::detail
