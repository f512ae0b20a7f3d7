// The workspace pool of clsort::mpi (workspace.hpp).
#include "workspace.hpp"

#include "mpi_check.hpp"

#include <map>
#include <mutex>
#include <string>

namespace clsort::mpi::detail {
namespace {

// Grown slots keep a quarter of headroom, so that slowly growing calls do not reallocate each time.
std::size_t grown(std::size_t bytes) {
  return bytes + bytes / 4;
}

struct Pool {
  std::mutex mutex;
  std::map<cl_context, std::vector<std::unique_ptr<Workspace>>> idle;
};
// Never destroyed: buffers released at exit could outlive the OpenCL runtime's own teardown.
Pool& pool() {
  static Pool* p = new Pool;
  return *p;
}

}  // namespace

void Workspace::unmap(Pinned& p) noexcept {
  if (!p.data) return;
  cl::Event done;
  if (p.queue.enqueueUnmapMemObject(p.buffer, p.data, nullptr, &done) == CL_SUCCESS) done.wait();
  p.data = nullptr;
}

Workspace::~Workspace() {
  for (Pinned& p : pinned_) unmap(p);
}

unsigned char* Workspace::pinned(std::size_t slot, std::size_t bytes, const cl::CommandQueue& queue) {
  if (pinned_.size() <= slot) pinned_.resize(slot + 1);
  Pinned& p = pinned_[slot];
  if (p.data && p.bytes >= bytes) return p.data;
  unmap(p);
  p = Pinned{};
  const std::size_t size = std::max<std::size_t>(grown(bytes), 64);
  cl_int status = CL_SUCCESS;
  cl::Buffer buffer(context_, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, size, nullptr, &status);
  check_cl(status, "clCreateBuffer(CL_MEM_ALLOC_HOST_PTR)");
  void* mapped =
      queue.enqueueMapBuffer(buffer, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, size, nullptr, nullptr, &status);
  check_cl(status, "clEnqueueMapBuffer");
  p = Pinned{buffer, queue, static_cast<unsigned char*>(mapped), size};
  return p.data;
}

unsigned char* Workspace::host(std::size_t slot, std::size_t bytes) {
  if (host_.size() <= slot) host_.resize(slot + 1);
  Host& h = host_[slot];
  if (h.data && h.bytes >= bytes) return h.data.get();
  h = Host{};
  const std::size_t size = std::max<std::size_t>(grown(bytes), 64);
  // Default-initialized: no pass over the memory before the data lands in it.
  h.data.reset(new unsigned char[size]);
  h.bytes = size;
  return h.data.get();
}

const cl::Buffer& Workspace::device(std::size_t slot, std::size_t bytes) {
  if (device_.size() <= slot) device_.resize(slot + 1);
  Device& d = device_[slot];
  if (d.buffer() && d.bytes >= bytes) return d.buffer;
  d = Device{};
  const std::size_t size = std::max<std::size_t>(grown(bytes), 64);
  cl_int status = CL_SUCCESS;
  cl::Buffer buffer(context_, CL_MEM_READ_WRITE, size, nullptr, &status);
  check_cl(status, "clCreateBuffer");
  d = Device{buffer, size};
  return d.buffer;
}

Lease::Lease(const cl::Context& context) {
  Pool& p = pool();
  {
    std::lock_guard<std::mutex> lock(p.mutex);
    auto& idle = p.idle[context()];
    if (!idle.empty()) {
      workspace_ = std::move(idle.back());
      idle.pop_back();
    }
  }
  if (!workspace_) workspace_ = std::make_unique<Workspace>(context);
}

Lease::~Lease() {
  Pool& p = pool();
  try {
    std::lock_guard<std::mutex> lock(p.mutex);
    p.idle[workspace_->context()()].push_back(std::move(workspace_));
  } catch (...) {
    // Out of host memory for the list: the workspace is freed instead of kept.
  }
}

void release_idle_workspaces() {
  std::map<cl_context, std::vector<std::unique_ptr<Workspace>>> idle;
  {
    std::lock_guard<std::mutex> lock(pool().mutex);
    idle.swap(pool().idle);
  }
}

}  // namespace clsort::mpi::detail
