// Selection sort's tuning: SelectionPolicy (`selection.*`), its parameter lines and its fit to a device
// (selection.cpp).
#pragma once

#include "device/policy.hpp"

namespace clsort::detail {

struct SelectionPolicy {
  unsigned wg = 256;
  unsigned items = 4;  // keys ranked per work-item (each local load serves that many)
};

/// The `selection.*` lines of the parameter table, in describe()'s order.
const std::vector<Param>& selection_params();
/// Clamps the work-group to the device and its local memory.
void fit_selection(SelectionPolicy& p, const FitInput& f);

}  // namespace clsort::detail
