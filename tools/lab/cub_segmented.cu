// The reference for clsort's segmented sort on NVIDIA GPUs: CUB's DeviceSegmentedSort (SortKeys,
// StableSortKeys, SortPairs, StableSortPairs) on random u32 keys (pairs: u32 values, the input index)
// already in device memory, the shapes of tools/lab/segments.cpp with the same offsets generator:
// 2^20 segments of 16, 2^16 of 256, 2^10 of 16384 (counts scaled to 2^LOG keys in all) and power_law.
// Median of REPS calls timed with CUDA events (out of place, as CUB sorts; the input stays). Each result
// is checked against std::stable_sort of each segment on the host (values too, for the stable calls;
// SortPairs's values only as a permutation of each segment's). Not built by CMake (it needs nvcc and
// CUB); tools/lab/gpu_segments.sh builds it against the CCCL headers in .cccl:
//   nvcc -O3 -std=c++17 -arch=sm_90 -I<cccl> -o cub_segmented tools/lab/cub_segmented.cu
//   cub_segmented [REPS] [log2 total] [SHAPES]   (defaults: 20; 24; the four above, comma-separated)
#include <cub/cub.cuh>
#include <cub/device/device_segmented_sort.cuh>
#include <cub/version.cuh>

#include "cub_probe.cuh"
#include "probe_inputs.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <vector>


namespace {

// tools/lab/segments.cpp's shapes: "AxB" or power_law.
std::vector<std::uint32_t> make_offsets(const std::string& shape, std::size_t total) {
  if (shape == "power_law") return clsort_probe::power_law_offsets(total);
  return clsort_probe::fixed_offsets(total, std::size_t(std::atoll(shape.c_str() + shape.find('x') + 1)));
}

void run(const std::string& shape, std::size_t total, int reps) {
  const std::vector<std::uint32_t> o = make_offsets(shape, total);
  const int num = int(o.size() - 1);
  std::size_t longest = 0;
  for (int i = 0; i < num; ++i) longest = std::max<std::size_t>(longest, o[i + 1] - o[i]);
  std::vector<std::uint32_t> keys(total), index(total);
  std::mt19937_64 rng(42);
  for (auto& k : keys) k = std::uint32_t(rng());
  std::iota(index.begin(), index.end(), 0u);
  // The reference: each segment's stable order.
  std::vector<std::uint32_t> ref_index = index, ref_keys(total);
  for (int i = 0; i < num; ++i)
    std::stable_sort(ref_index.begin() + o[i], ref_index.begin() + o[i + 1],
                     [&](std::uint32_t a, std::uint32_t b) { return keys[a] < keys[b]; });
  for (std::size_t j = 0; j < total; ++j) ref_keys[j] = keys[ref_index[j]];

  std::uint32_t *kin, *kout, *vin, *vout, *off;
  CHECK_CUDA(cudaMalloc(&kin, total * 4));
  CHECK_CUDA(cudaMalloc(&kout, total * 4));
  CHECK_CUDA(cudaMalloc(&vin, total * 4));
  CHECK_CUDA(cudaMalloc(&vout, total * 4));
  CHECK_CUDA(cudaMalloc(&off, o.size() * 4));
  CHECK_CUDA(cudaMemcpy(kin, keys.data(), total * 4, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(vin, index.data(), total * 4, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(off, o.data(), o.size() * 4, cudaMemcpyHostToDevice));
  const int n = int(total);

  auto check = [&](bool pairs, bool stable) {
    std::vector<std::uint32_t> gk(total), gv(total);
    CHECK_CUDA(cudaMemcpy(gk.data(), kout, total * 4, cudaMemcpyDeviceToHost));
    if (gk != ref_keys) return false;
    if (!pairs) return true;
    CHECK_CUDA(cudaMemcpy(gv.data(), vout, total * 4, cudaMemcpyDeviceToHost));
    if (stable) return gv == ref_index;
    for (std::size_t j = 0; j < total; ++j)
      if (gv[j] >= total || keys[gv[j]] != gk[j]) return false;
    return true;
  };
  auto report = [&](const char* what, float ms, bool ok) {
    std::printf("cub u32 %-10s %-11s segments=%-8d longest=%-9zu %9.4f ms %8.3f Gkeys/s  %s\n", what,
                shape.c_str(), num, longest, ms, double(total) / ms * 1e-6, ok ? "checked" : "WRONG OUTPUT");
    std::fflush(stdout);
  };
  void* temp = nullptr;
  std::size_t bytes = 0, temp_bytes = 0;
  // One temporary allocation, the largest any call asks for.
  CHECK_CUDA(cub::DeviceSegmentedSort::SortKeys(nullptr, bytes, kin, kout, n, num, off, off + 1));
  temp_bytes = std::max(temp_bytes, bytes);
  CHECK_CUDA(cub::DeviceSegmentedSort::StableSortKeys(nullptr, bytes, kin, kout, n, num, off, off + 1));
  temp_bytes = std::max(temp_bytes, bytes);
  CHECK_CUDA(cub::DeviceSegmentedSort::SortPairs(nullptr, bytes, kin, kout, vin, vout, n, num, off, off + 1));
  temp_bytes = std::max(temp_bytes, bytes);
  CHECK_CUDA(
      cub::DeviceSegmentedSort::StableSortPairs(nullptr, bytes, kin, kout, vin, vout, n, num, off, off + 1));
  temp_bytes = std::max(temp_bytes, bytes);
  CHECK_CUDA(cudaMalloc(&temp, temp_bytes));
  float ms = median_ms(reps, [&] {
    bytes = temp_bytes;
    CHECK_CUDA(cub::DeviceSegmentedSort::SortKeys(temp, bytes, kin, kout, n, num, off, off + 1));
  });
  report("SortKeys", ms, check(false, false));
  ms = median_ms(reps, [&] {
    bytes = temp_bytes;
    CHECK_CUDA(cub::DeviceSegmentedSort::StableSortKeys(temp, bytes, kin, kout, n, num, off, off + 1));
  });
  report("StableKeys", ms, check(false, true));
  ms = median_ms(reps, [&] {
    bytes = temp_bytes;
    CHECK_CUDA(cub::DeviceSegmentedSort::SortPairs(temp, bytes, kin, kout, vin, vout, n, num, off, off + 1));
  });
  report("SortPairs", ms, check(true, false));
  ms = median_ms(reps, [&] {
    bytes = temp_bytes;
    CHECK_CUDA(
        cub::DeviceSegmentedSort::StableSortPairs(temp, bytes, kin, kout, vin, vout, n, num, off, off + 1));
  });
  report("StablePairs", ms, check(true, true));
  CHECK_CUDA(cudaFree(temp));
  CHECK_CUDA(cudaFree(kin));
  CHECK_CUDA(cudaFree(kout));
  CHECK_CUDA(cudaFree(vin));
  CHECK_CUDA(cudaFree(vout));
  CHECK_CUDA(cudaFree(off));
}

}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 20;
  const int log_total = argc > 2 ? std::atoi(argv[2]) : 24;
  cudaDeviceProp prop;
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  std::printf("CUB %d.%d.%d on %s\n", CUB_MAJOR_VERSION, CUB_MINOR_VERSION, CUB_SUBMINOR_VERSION, prop.name);
  const std::size_t total = std::size_t(1) << log_total;
  // Shapes: argv[3], comma-separated, or the probe's four.
  std::string shapes = argc > 3 ? argv[3] : "2^20x16,2^16x256,2^10x16384,power_law";
  for (std::size_t at = 0; at <= shapes.size();) {
    const std::size_t end = std::min(shapes.find(',', at), shapes.size());
    run(shapes.substr(at, end - at), total, reps);
    at = end + 1;
  }
  return 0;
}
