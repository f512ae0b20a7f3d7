// Odd-even transposition sort's tuning: OddEvenPolicy (`odd_even.*`), its parameter lines and its fit to a
// device (odd_even.cpp).
#pragma once

#include "device/policy.hpp"

namespace clsort::detail {

struct OddEvenPolicy {
  unsigned wg = 256;
  unsigned tile = 1024;  // keys one work-group sorts by element phases
};

/// The `odd_even.*` lines of the parameter table, in describe()'s order.
const std::vector<Param>& odd_even_params();
/// Clamps the work-group and the tile to the device.
void fit_odd_even(OddEvenPolicy& p, const FitInput& f);

}  // namespace clsort::detail
