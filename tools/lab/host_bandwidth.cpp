// clsort_probe_host: what bounds a host-to-host sort on this machine (docs/design.md, "Host data").
//
// A staged sort copies the caller's pageable array into pinned memory and back on the host while the
// DMA moves the pinned bytes, so both the host's copy bandwidth and the bus matter, and they share the
// host's memory. This measures, on the default device (CLSORT_DEVICE picks another):
//   1. host copies, pageable to pageable, with 1..hardware threads, the staging's own way (its copy
//      threads, memcpy or its streaming copy: host.stream=0 / 1);
//   2. one pinned DMA each way, alone and beside copy threads;
//   3. whether the driver page-locks a CL_MEM_USE_HOST_PTR buffer's range, and what creating one costs
//      (NVIDIA's does: transfers from that pointer then run at pinned speed).
// Usage: clsort_probe_host [copy MiB, default 256] [DMA MiB, default 64]
#include <CL/opencl.hpp>
#include <clsort/clsort.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

// The library's own copy threads, streaming copy and error checks (host/src), so that the probe copies
// the way the staging does.
#include "engine/check.hpp"
#include "host_data/copy_pool.hpp"

namespace {

using clsort::detail::CopyPool;
using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

// Copies src to dst on the pool's threads, which claim 1 MiB parts in turn as the staging's do, with
// the staging's host copy (host_copy: host.stream=1 streams, 0 is memcpy); returns the milliseconds taken.
double pool_copy(CopyPool& pool, unsigned char* dst, const unsigned char* src, std::size_t bytes,
                 bool streaming) {
  constexpr std::size_t kPart = std::size_t(1) << 20;
  const clsort::detail::CopyFunction copy = clsort::detail::host_copy(streaming);
  std::atomic<std::size_t> next{0};
  const auto t0 = Clock::now();
  pool.start([&] {
    for (std::size_t begin; (begin = next.fetch_add(1) * kPart) < bytes;)
      copy(dst + begin, src + begin, std::min(kPart, bytes - begin));
  });
  pool.join();
  return ms_since(t0);
}

template <class F>
double best_of(int reps, F f) {
  double best = 1e30;
  for (int i = 0; i < reps; ++i) best = std::min(best, f());
  return best;
}

double gbps(std::size_t bytes, double ms) {
  return double(bytes) / ms * 1e-6;
}

void check(cl_int status, const char* call) {
  if (status != CL_SUCCESS) clsort::detail::throw_cl_error(status, call);
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t copy_bytes_total = std::size_t(argc > 1 ? std::atoi(argv[1]) : 256) << 20;
  const std::size_t dma_bytes = std::size_t(argc > 2 ? std::atoi(argv[2]) : 64) << 20;
  if (!copy_bytes_total || !dma_bytes) {
    std::fprintf(stderr, "usage: clsort_probe_host [copy MiB] [DMA MiB]\n");
    return 2;
  }
  try {
    const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
    std::vector<unsigned> counts{1};
    for (unsigned t = 4; t < hw; t *= 2) counts.push_back(t);
    if (hw > 1) counts.push_back(hw);
    // Pools made once per thread count: starting threads costs more than a copy's part.
    std::vector<std::unique_ptr<CopyPool>> pools(hw + 1);
    auto pool = [&](unsigned t) -> CopyPool& {
      if (!pools[t]) pools[t] = std::make_unique<CopyPool>(t);
      return *pools[t];
    };

    std::vector<unsigned char> a(copy_bytes_total, 1), b(copy_bytes_total, 2);
    std::printf("host copies of %zu MiB, pageable to pageable (GB/s copied, best of 5):\n",
                copy_bytes_total >> 20);
    for (unsigned t : counts)
      for (bool streaming : {false, true})
        std::printf("  %2u threads, host.stream=%d %6.1f\n", pool(t).threads(), int(streaming),
                    gbps(copy_bytes_total, best_of(5, [&] {
                           return pool_copy(pool(t), b.data(), a.data(), copy_bytes_total, streaming);
                         })));

    clsort::Sorter sorter(clsort::default_device());
    const cl::Context& context = sorter.context();
    const cl::CommandQueue& q = sorter.queue();
    std::printf("device: %s\n", sorter.device().getInfo<CL_DEVICE_NAME>().c_str());
    cl_int status = CL_SUCCESS;
    cl::Buffer device(context, CL_MEM_READ_WRITE, dma_bytes, nullptr, &status);
    check(status, "clCreateBuffer");
    cl::Buffer pinned(context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, dma_bytes, nullptr, &status);
    check(status, "clCreateBuffer(CL_MEM_ALLOC_HOST_PTR)");
    auto* staging = static_cast<unsigned char*>(q.enqueueMapBuffer(
        pinned, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, dma_bytes, nullptr, nullptr, &status));
    check(status, "clEnqueueMapBuffer");
    std::memset(staging, 3, dma_bytes);
    auto dma = [&](bool upload, void* host) {
      const auto t0 = Clock::now();
      if (upload)
        CLSORT_CHECK(q.enqueueWriteBuffer(device, CL_TRUE, 0, dma_bytes, host));
      else
        CLSORT_CHECK(q.enqueueReadBuffer(device, CL_TRUE, 0, dma_bytes, host));
      return ms_since(t0);
    };

    std::printf("pinned DMA of %zu MiB (GB/s), alone and beside host copy threads (GB/s copied):\n",
                dma_bytes >> 20);
    const std::size_t beside_bytes = std::min(copy_bytes_total, dma_bytes);
    for (bool upload : {true, false}) {
      std::printf("  %s alone %6.1f\n", upload ? "host to device" : "device to host",
                  gbps(dma_bytes, best_of(5, [&] { return dma(upload, staging); })));
      for (unsigned t : {std::max(1u, hw * 3 / 4), hw})
        for (bool streaming : {false, true}) {
          std::atomic<bool> stop{false};
          std::atomic<std::size_t> copied{0};
          const auto t0 = Clock::now();
          std::thread background([&] {
            while (!stop) {
              pool_copy(pool(t), b.data(), a.data(), beside_bytes, streaming);
              copied += beside_bytes;
            }
          });
          double total = 0;
          for (int i = 0; i < 5; ++i) total += dma(upload, staging);
          stop = true;
          background.join();
          std::printf("    beside %2u copy threads, host.stream=%d: DMA %6.1f, copies %6.1f\n",
                      pool(t).threads(), int(streaming), gbps(dma_bytes, total / 5),
                      gbps(copied, ms_since(t0)));
        }
    }

    std::vector<unsigned char> user(dma_bytes, 4);
    std::printf("the caller's pageable memory (%zu MiB):\n", dma_bytes >> 20);
    std::printf("  transfers from it        %6.1f GB/s up, %6.1f down\n",
                gbps(dma_bytes, best_of(3, [&] { return dma(true, user.data()); })),
                gbps(dma_bytes, best_of(3, [&] { return dma(false, user.data()); })));
    const double create_ms = best_of(3, [&] {
      const auto t0 = Clock::now();
      cl::Buffer lock(context, CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR, dma_bytes, user.data(), &status);
      check(status, "clCreateBuffer(CL_MEM_USE_HOST_PTR)");
      CLSORT_CHECK(q.finish());
      return ms_since(t0);
    });
    {
      cl::Buffer lock(context, CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR, dma_bytes, user.data(), &status);
      check(status, "clCreateBuffer(CL_MEM_USE_HOST_PTR)");
      std::printf(
          "  while a USE_HOST_PTR buffer covers it: %6.1f GB/s up, %6.1f down; creating one: %.2f ms\n",
          gbps(dma_bytes, best_of(3, [&] { return dma(true, user.data()); })),
          gbps(dma_bytes, best_of(3, [&] { return dma(false, user.data()); })), create_ms);
    }
    std::printf("  after its release        %6.1f GB/s up\n",
                gbps(dma_bytes, best_of(3, [&] { return dma(true, user.data()); })));
    CLSORT_CHECK(q.enqueueUnmapMemObject(pinned, staging));
    CLSORT_CHECK(q.finish());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "clsort_probe_host: %s\n", e.what());
    return 1;
  }
  return 0;
}
