// What the CUB reference probes (tools/lab/cub_*.cu) share: a CUDA error check that stops the probe,
// and the median of REPS calls timed with CUDA events after two warm-ups (each after an untimed setup).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#define CHECK_CUDA(x)                                                               \
  do {                                                                              \
    cudaError_t e_ = (x);                                                           \
    if (e_ != cudaSuccess) {                                                        \
      std::printf("CUDA error %s at line %d\n", cudaGetErrorString(e_), __LINE__); \
      std::exit(1);                                                                 \
    }                                                                               \
  } while (0)

// `setup` runs before each call, outside the timed region (restoring an input sorted in place). With
// CUB_TIMING=host in the environment each call is timed on the host from launch to completion
// (cudaDeviceSynchronize), as clsort_probe_tuning times clsort without --events.
template <class F, class Setup = void (*)()>
float median_ms(int reps, F&& f, Setup&& setup = [] {}) {
  const char* timing = std::getenv("CUB_TIMING");
  if (timing && std::string(timing) == "host") {
    std::vector<float> ms;
    for (int r = 0; r < reps + 2; ++r) {
      setup();
      CHECK_CUDA(cudaDeviceSynchronize());
      const auto t0 = std::chrono::steady_clock::now();
      f();
      CHECK_CUDA(cudaDeviceSynchronize());
      const auto t1 = std::chrono::steady_clock::now();
      if (r >= 2) ms.push_back(std::chrono::duration<float, std::milli>(t1 - t0).count());
    }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
  }
  cudaEvent_t a, b;
  CHECK_CUDA(cudaEventCreate(&a));
  CHECK_CUDA(cudaEventCreate(&b));
  std::vector<float> ms;
  for (int r = 0; r < reps + 2; ++r) {  // two warm-ups
    setup();
    CHECK_CUDA(cudaEventRecord(a));
    f();
    CHECK_CUDA(cudaEventRecord(b));
    CHECK_CUDA(cudaEventSynchronize(b));
    float t = 0;
    CHECK_CUDA(cudaEventElapsedTime(&t, a, b));
    if (r >= 2) ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  CHECK_CUDA(cudaEventDestroy(a));
  CHECK_CUDA(cudaEventDestroy(b));
  return ms[ms.size() / 2];
}
