// Internal: Sorter::sort_host on GPUs, through pinned staging in chunks (docs/design.md, "Host data").
#pragma once

#include <cstddef>
#include <vector>

#include "run.hpp"

namespace clsort::detail {

/// One array of a host sort: the caller's memory and the device buffer it is sorted in. The upload reads
/// `source` where it is set (a sort into other memory than its input), else `host`.
struct HostArray {
  unsigned char* host;
  cl::Buffer device;
  std::size_t bytes;
  const unsigned char* source = nullptr;
};

/// Uploads the arrays (keys first, then values) through the Sorter's pinned staging, sorts them with
/// enqueue_sort (options.algorithm resolved) and downloads them the same way. Returns false, having enqueued
/// nothing, when no pinned memory or no copy thread can be had: the caller then takes the single transfers.
bool sort_host_staged(Sorter::Impl& s, KeyType type, const std::vector<HostArray>& arrays, std::size_t n,
                      std::size_t value_bytes, const Options& options);

/// Unmaps and releases the pinned staging. Errors are ignored: this also runs from ~Impl.
void release_staging(Sorter::Impl& s) noexcept;

}  // namespace clsort::detail
