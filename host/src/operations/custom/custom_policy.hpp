// sort_custom's tuning: CustomPolicy (`custom.*`) and its parameter lines; its plan derives the sizes
// from the device (custom_sort.cpp).
#pragma once

#include "device/policy.hpp"

namespace clsort::detail {

/// sort_custom's merge sort and bitonic network (kernels/custom.cl): 0 derives each from the device's
/// local memory and the element size.
struct CustomPolicy {
  unsigned wg = 0;
  unsigned items = 0;  // elements per work-item (tile = wg * items)
};

/// The `custom.*` lines of the parameter table, in describe()'s order.
const std::vector<Param>& custom_params();

}  // namespace clsort::detail
