// clsort_probe_host: what bounds a host-to-host sort on this machine (docs/design.md, "Host data").
//
// A staged sort copies the caller's pageable array into pinned memory and back on the host while the
// DMA moves the pinned bytes, so both the host's copy bandwidth and the bus matter, and they share the
// host's memory. This measures, on the default device (CLSORT_DEVICE picks another):
//   1. host copies, pageable to pageable, with 1..hardware threads (memcpy, and streaming stores where
//      the CPU has SSE2, as host.stream does);
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
#include <thread>
#include <vector>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

void copy_bytes(unsigned char* dst, const unsigned char* src, std::size_t bytes, bool streaming) {
#ifdef __SSE2__
  // Streaming stores need 16-byte aligned destinations: the allocator's base plus 4096-byte parts.
  if (streaming) {
    std::size_t i = 0;
    for (; i + 64 <= bytes; i += 64)
      for (std::size_t k = 0; k < 64; k += 16)
        _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i + k),
                         _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + k)));
    _mm_sfence();
    std::memcpy(dst + i, src + i, bytes - i);
    return;
  }
#endif
  (void)streaming;
  std::memcpy(dst, src, bytes);
}

// Copies src to dst with `threads` threads, one contiguous part each; returns the milliseconds taken.
double parallel_copy(unsigned char* dst, const unsigned char* src, std::size_t bytes, unsigned threads,
                     bool streaming) {
  const std::size_t part = (bytes / threads + 4095) / 4096 * 4096;
  std::vector<std::thread> pool;
  const auto t0 = Clock::now();
  for (std::size_t begin = 0; begin < bytes; begin += part) {
    const std::size_t size = std::min(part, bytes - begin);
    pool.emplace_back([=] { copy_bytes(dst + begin, src + begin, size, streaming); });
  }
  for (std::thread& t : pool) t.join();
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

struct Failed : std::exception {
  Failed(const char* call, cl_int status) {
    std::snprintf(text, sizeof text, "%s failed with OpenCL status %d", call, int(status));
  }
  const char* what() const noexcept override { return text; }
  char text[128];
};
void check(cl_int status, const char* call) {
  if (status != CL_SUCCESS) throw Failed(call, status);
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
    std::vector<bool> kinds{false};
#ifdef __SSE2__
    kinds.push_back(true);
#endif

    std::vector<unsigned char> a(copy_bytes_total, 1), b(copy_bytes_total, 2);
    std::printf("host copies of %zu MiB, pageable to pageable (GB/s copied, best of 5):\n",
                copy_bytes_total >> 20);
    for (unsigned t : counts)
      for (bool streaming : kinds)
        std::printf("  %2u threads, %-9s %6.1f\n", t, streaming ? "streaming" : "memcpy",
                    gbps(copy_bytes_total, best_of(5, [&] {
                           return parallel_copy(b.data(), a.data(), copy_bytes_total, t, streaming);
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
        check(q.enqueueWriteBuffer(device, CL_TRUE, 0, dma_bytes, host), "clEnqueueWriteBuffer");
      else
        check(q.enqueueReadBuffer(device, CL_TRUE, 0, dma_bytes, host), "clEnqueueReadBuffer");
      return ms_since(t0);
    };

    std::printf("pinned DMA of %zu MiB (GB/s), alone and beside host copy threads (GB/s copied):\n",
                dma_bytes >> 20);
    const std::size_t beside_bytes = std::min(copy_bytes_total, dma_bytes);
    for (bool upload : {true, false}) {
      std::printf("  %s alone %6.1f\n", upload ? "host to device" : "device to host",
                  gbps(dma_bytes, best_of(5, [&] { return dma(upload, staging); })));
      for (unsigned t : {std::max(1u, hw * 3 / 4), hw})
        for (bool streaming : kinds) {
          std::atomic<bool> stop{false};
          std::atomic<std::size_t> copied{0};
          const auto t0 = Clock::now();
          std::thread background([&] {
            while (!stop) {
              parallel_copy(b.data(), a.data(), beside_bytes, t, streaming);
              copied += beside_bytes;
            }
          });
          double total = 0;
          for (int i = 0; i < 5; ++i) total += dma(upload, staging);
          stop = true;
          background.join();
          std::printf("    beside %2u %-9s copy threads: DMA %6.1f, copies %6.1f\n", t,
                      streaming ? "streaming" : "memcpy", gbps(dma_bytes, total / 5),
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
      check(q.finish(), "clFinish");
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
    check(q.enqueueUnmapMemObject(pinned, staging), "clEnqueueUnmapMemObject");
    check(q.finish(), "clFinish");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "clsort_probe_host: %s\n", e.what());
    return 1;
  }
  return 0;
}
