// Internal: the memory a distributed sort keeps between calls, per OpenCL context: pinned host memory
// (mapped CL_MEM_ALLOC_HOST_PTR buffers, which the device reads and writes at the bus's speed and MPI
// sends from and receives into), plain host memory, and device scratch. A call leases a workspace of its
// own from a pool, so concurrent calls (other communicators, other threads) never share one and never
// wait for each other.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "clsort/clsort.hpp"

namespace clsort::mpi::detail {

class Workspace {
 public:
  explicit Workspace(const cl::Context& context) : context_(context) {}
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;
  ~Workspace();

  /// Pinned host memory of at least `bytes` in slot `slot`, mapped through `queue`.
  unsigned char* pinned(std::size_t slot, std::size_t bytes, const cl::CommandQueue& queue);
  /// Plain host memory of at least `bytes` in slot `slot`.
  unsigned char* host(std::size_t slot, std::size_t bytes);
  /// A device buffer of at least `bytes` in slot `slot`.
  const cl::Buffer& device(std::size_t slot, std::size_t bytes);
  const cl::Context& context() const { return context_; }

 private:
  struct Pinned {
    cl::Buffer buffer;
    cl::CommandQueue queue;  // the queue that mapped it unmaps it
    unsigned char* data = nullptr;
    std::size_t bytes = 0;
  };
  struct Host {
    std::unique_ptr<unsigned char[]> data;
    std::size_t bytes = 0;
  };
  struct Device {
    cl::Buffer buffer;
    std::size_t bytes = 0;
  };
  static void unmap(Pinned& p) noexcept;

  cl::Context context_;
  std::vector<Pinned> pinned_;
  std::vector<Host> host_;
  std::vector<Device> device_;
};

/// A workspace of the pool, taken for one call and given back at destruction.
class Lease {
 public:
  explicit Lease(const cl::Context& context);
  Lease(const Lease&) = delete;
  Lease& operator=(const Lease&) = delete;
  ~Lease();
  Workspace* operator->() { return workspace_.get(); }

 private:
  std::unique_ptr<Workspace> workspace_;
};

/// Frees the idle workspaces of the pool.
void release_idle_workspaces();

}  // namespace clsort::mpi::detail
