// The reference for clsort's sort_custom on NVIDIA GPUs: CUB's DeviceMergeSort::StableSortKeys of a
// 12-byte struct (float key, uint id, uint tag) by key, then id, with the comparison as a C++ functor,
// the same comparison tools/lab/custom_lex.cpp gives clsort in OpenCL C. The keys are few-distinct
// floats (2^16 values) and ids of 4 values, so that ties are common and stability matters; tag is the
// input position. Median of REPS calls timed with CUDA events (each call sorts a fresh copy of the input,
// copied outside the timed region); the result is checked against std::stable_sort. Not built by CMake
// (it needs nvcc and CUB); tools/lab/gpu_custom.sh builds it against the CCCL headers in .cccl:
//   nvcc -O3 -std=c++17 -arch=sm_90 -I<cccl> -o cub_merge_custom tools/lab/cub_merge_custom.cu
//   cub_merge_custom [REPS] [log2 n ...]        (defaults: 10; 20 24)
#include <cub/device/device_merge_sort.cuh>
#include <cub/version.cuh>

#include "cub_probe.cuh"
#include "probe_inputs.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>


namespace {

using clsort_probe::S12;

struct Less {
  __host__ __device__ bool operator()(const S12& a, const S12& b) const {
    return a.key < b.key || (a.key == b.key && a.id < b.id);
  }
};


void run(std::size_t n, int reps) {
  const std::vector<S12> input = clsort_probe::make_s12(n);
  std::vector<S12> expected = input;
  std::stable_sort(expected.begin(), expected.end(), Less());
  S12 *src = nullptr, *data = nullptr;
  CHECK_CUDA(cudaMalloc(&src, n * sizeof(S12)));
  CHECK_CUDA(cudaMalloc(&data, n * sizeof(S12)));
  CHECK_CUDA(cudaMemcpy(src, input.data(), n * sizeof(S12), cudaMemcpyHostToDevice));
  std::size_t temp_bytes = 0;
  CHECK_CUDA(cub::DeviceMergeSort::StableSortKeys(nullptr, temp_bytes, data, std::int64_t(n), Less()));
  void* temp = nullptr;
  CHECK_CUDA(cudaMalloc(&temp, temp_bytes));
  const float median = median_ms(
      reps, [&] { CHECK_CUDA(cub::DeviceMergeSort::StableSortKeys(temp, temp_bytes, data, std::int64_t(n), Less())); },
      [&] { CHECK_CUDA(cudaMemcpy(data, src, n * sizeof(S12), cudaMemcpyDeviceToDevice)); });
  std::vector<S12> got(n);
  CHECK_CUDA(cudaMemcpy(got.data(), data, n * sizeof(S12), cudaMemcpyDeviceToHost));
  const bool ok = std::memcmp(got.data(), expected.data(), n * sizeof(S12)) == 0;
  std::printf("cub DeviceMergeSort::StableSortKeys S12 (key, id) n=2^%d: %.3f ms median of %d, %.3f Gelem/s%s\n",
              int(std::log2(double(n)) + 0.5), median, reps, double(n) / median * 1e-6, ok ? "" : "  WRONG RESULT");
  CHECK_CUDA(cudaFree(temp));
  CHECK_CUDA(cudaFree(data));
  CHECK_CUDA(cudaFree(src));
  if (!ok) std::exit(1);
}

}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 10;
  std::vector<int> logs;
  for (int i = 2; i < argc; ++i) logs.push_back(std::atoi(argv[i]));
  if (logs.empty()) logs = {20, 24};
  cudaDeviceProp prop{};
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  std::printf("CUB %d.%d.%d on %s\n", CUB_MAJOR_VERSION, CUB_MINOR_VERSION, CUB_SUBMINOR_VERSION, prop.name);
  for (int l : logs) run(std::size_t(1) << l, reps);
  return 0;
}
