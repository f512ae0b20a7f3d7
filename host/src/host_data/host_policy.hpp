// Host data's tuning: HostPolicy (`host.*`), staging through pinned memory, and its parameter lines
// (staging.cpp).
#pragma once

#include "device/policy.hpp"

namespace clsort::detail {

/// Host data (sort(std::vector&), the C API): transfers staged through pinned memory in chunks.
struct HostPolicy {
  std::size_t chunk = std::size_t(8) << 20;  // largest staged chunk, bytes; 0: one transfer each way
  std::size_t min = std::size_t(1) << 20;    // staged only from this many bytes (keys + values)
  unsigned threads = 0;                      // threads copying each chunk; 0: from the core count
  unsigned stream = 1;                       // 1: staging copies with streaming stores; 0: memcpy
};

/// The `host.*` lines of the parameter table, in describe()'s order.
const std::vector<Param>& host_params();

}  // namespace clsort::detail
