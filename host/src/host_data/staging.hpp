// Internal: Sorter::sort_host on GPUs, through pinned staging in chunks (docs/design.md, "Host data").
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "engine/run.hpp"

namespace clsort::detail {

/// One array of a host sort: the caller's memory and the device buffer it is sorted in, from byte
/// `device_offset` of it. The upload reads `source` where it is set (a sort into other memory than its
/// input), else `host`.
struct HostArray {
  unsigned char* host;
  cl::Buffer device;
  std::size_t bytes;
  const unsigned char* source = nullptr;
  std::size_t device_offset = 0;
};

/// Enqueues the sort of the uploaded arrays after the given events; returns its completion event.
using EnqueueStaged = std::function<cl::Event(const std::vector<cl::Event>& uploads)>;

/// The device copies of host arrays that do not stage: keys, values, and the indices of top_k and lexsort.
enum HostScratch : unsigned { kHostKeys, kHostValues, kHostIndices };
constexpr const char* scratch_owner(HostScratch) {
  return "host";
}

/// Whether host data of `bytes` in all (keys of `type`, values of value_bytes) goes through the pinned
/// staging: the host policy's host.chunk is on (GPUs) and the data reaches host.min.
bool stages(const Sorter::Impl& s, KeyType type, std::size_t value_bytes, std::size_t bytes);

/// Which ways stage_host_arrays moves the arrays.
enum class Staged { both, upload, download };

/// Uploads the arrays through the Sorter's pinned staging, enqueues `sort` after the uploads and downloads
/// the arrays the same way once it completed: the caller's arrays are written only if the sort succeeded.
/// Staged::upload returns once the uploads completed, the sort's event in s.last (whatever reads its
/// results waits for it); Staged::download enqueues `sort` with no uploads (it waits for s.last itself).
/// Returns false, having enqueued nothing, where the data does not stage (stages()) or no pinned memory or
/// no copy thread can be had: the caller then takes the single transfers.
bool stage_host_arrays(Sorter::Impl& s, KeyType type, const std::vector<HostArray>& arrays,
                       std::size_t value_bytes, const EnqueueStaged& sort, Staged ways = Staged::both);

/// The caller's host memory as a buffer of the Sorter's CPU device (CL_MEM_USE_HOST_PTR), whose runtime
/// then uses that memory itself (PoCL, Intel's CPU runtime). Read-write also where the device only reads
/// it: Intel's CPU runtime read a CL_MEM_READ_ONLY one on memory off a 128-byte boundary (a std::vector's)
/// about 3 times as slowly. Sets *status.
cl::Buffer wrap_host(const Sorter::Impl& s, const void* host, std::size_t bytes, cl_int* status);

}  // namespace clsort::detail
