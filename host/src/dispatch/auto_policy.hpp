// Algorithm::automatic's tuning: AutoPolicy (`auto.*`) and its parameter line (call_plan.cpp).
#pragma once

#include "device/policy.hpp"

namespace clsort::detail {

struct AutoPolicy {
  std::size_t small_n = 2048;  // up to this n, one work-group's bitonic sort; radix above
};

/// The `auto.*` lines of the parameter table, in describe()'s order.
const std::vector<Param>& auto_params();

}  // namespace clsort::detail
