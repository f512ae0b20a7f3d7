// The reference for clsort's top_k on NVIDIA GPUs: CUB's DeviceTopK (AIR top-k) for the k smallest keys
// with their indices, beside CUB's DeviceRadixSort of the same keys, on random u32, f32 (finite) and u64
// keys already in device memory; median of REPS calls timed with CUDA events. CUB 3.5 implements only
// the unsorted, non-deterministic configuration (which of the keys tied at the k-th place it returns is
// unspecified), so its output is neither sorted nor stable, which clsort's is; the check sorts CUB's k keys
// on the host and compares them with the k smallest, and checks that each index names its key. Not built by
// CMake (it needs nvcc and CUB); tools/lab/gpu_topk.sh builds it against the CCCL headers in .cccl:
//   nvcc -O3 -std=c++17 -arch=sm_90 -I<cccl> -o cub_topk tools/lab/cub_topk.cu
//   cub_topk [REPS] [log2 n] [k ...]        (defaults: 20; 26; 1 16 1024)
#include <cub/cub.cuh>
#include <cub/device/device_topk.cuh>
#include <cub/version.cuh>
#include <cuda/execution.determinism.h>
#include <cuda/execution.output_ordering.h>
#include <cuda/execution.require.h>

#include "cub_probe.cuh"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <type_traits>
#include <vector>


namespace {

template <class K>
std::vector<K> random_keys(std::size_t n) {
  std::vector<K> keys(n);
  std::mt19937_64 rng(42);
  for (auto& k : keys)
    for (;;) {
      const std::uint64_t r = rng();
      std::memcpy(&k, &r, sizeof k);
      if constexpr (std::is_floating_point_v<K>) {
        if (!std::isfinite(k)) continue;
      }
      break;
    }
  return keys;
}

template <class K>
void run(const char* name, std::size_t n, const std::vector<std::size_t>& ks, int reps) {
  const std::vector<K> keys = random_keys<K>(n);
  std::vector<K> smallest = keys;
  const std::size_t kmax = *std::max_element(ks.begin(), ks.end());
  std::partial_sort(smallest.begin(), smallest.begin() + std::ptrdiff_t(kmax), smallest.end());
  K *src, *work, *sorted, *kout;
  std::uint32_t *index, *iout;
  CHECK_CUDA(cudaMalloc(&src, n * sizeof(K)));
  CHECK_CUDA(cudaMalloc(&work, n * sizeof(K)));
  CHECK_CUDA(cudaMalloc(&sorted, n * sizeof(K)));
  CHECK_CUDA(cudaMalloc(&index, n * 4));
  CHECK_CUDA(cudaMalloc(&kout, kmax * sizeof(K)));
  CHECK_CUDA(cudaMalloc(&iout, kmax * 4));
  CHECK_CUDA(cudaMemcpy(src, keys.data(), n * sizeof(K), cudaMemcpyHostToDevice));
  std::vector<std::uint32_t> iota(n);
  for (std::size_t i = 0; i < n; ++i) iota[i] = std::uint32_t(i);
  CHECK_CUDA(cudaMemcpy(index, iota.data(), n * 4, cudaMemcpyHostToDevice));

  // The full sort of the same keys (out of place: the input stays).
  void* temp = nullptr;
  std::size_t temp_bytes = 0;
  CHECK_CUDA(cub::DeviceRadixSort::SortKeys(temp, temp_bytes, src, sorted, n));
  CHECK_CUDA(cudaMalloc(&temp, temp_bytes));
  const float sort_ms = median_ms(reps, [&] { CHECK_CUDA(cub::DeviceRadixSort::SortKeys(temp, temp_bytes, src, sorted, n)); });
  CHECK_CUDA(cudaFree(temp));

  const auto env = cuda::execution::require(cuda::execution::determinism::not_guaranteed,
                                            cuda::execution::output_ordering::unsorted);
  for (std::size_t k : ks) {
    temp = nullptr;
    temp_bytes = 0;
    CHECK_CUDA(cub::DeviceTopK::MinPairs(temp, temp_bytes, src, kout, index, iout, n, k, env));
    CHECK_CUDA(cudaMalloc(&temp, temp_bytes));
    const float ms =
        median_ms(reps, [&] { CHECK_CUDA(cub::DeviceTopK::MinPairs(temp, temp_bytes, src, kout, index, iout, n, k, env)); });
    CHECK_CUDA(cudaFree(temp));
    std::vector<K> got(k);
    std::vector<std::uint32_t> gi(k);
    CHECK_CUDA(cudaMemcpy(got.data(), kout, k * sizeof(K), cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(gi.data(), iout, k * 4, cudaMemcpyDeviceToHost));
    bool ok = true;
    for (std::size_t i = 0; i < k; ++i)
      if (gi[i] >= n || std::memcmp(&keys[gi[i]], &got[i], sizeof(K)) != 0) ok = false;
    std::sort(got.begin(), got.end());
    ok = ok && std::equal(got.begin(), got.end(), smallest.begin());
    std::printf("cub %-4s n=2^%d k=%-5zu DeviceTopK::MinPairs %9.4f ms  DeviceRadixSort::SortKeys %9.4f ms  "
                "sort/topk %6.1fx  %s\n",
                name, int(std::log2(double(n))), k, ms, sort_ms, sort_ms / ms, ok ? "checked" : "WRONG OUTPUT");
    std::fflush(stdout);
  }
  CHECK_CUDA(cudaFree(src));
  CHECK_CUDA(cudaFree(work));
  CHECK_CUDA(cudaFree(sorted));
  CHECK_CUDA(cudaFree(index));
  CHECK_CUDA(cudaFree(kout));
  CHECK_CUDA(cudaFree(iout));
}

}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 20;
  const int log_n = argc > 2 ? std::atoi(argv[2]) : 26;
  std::vector<std::size_t> ks;
  for (int i = 3; i < argc; ++i) ks.push_back(std::size_t(std::atoll(argv[i])));
  if (ks.empty()) ks = {1, 16, 1024};
  cudaDeviceProp prop;
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  std::printf("CUB %d.%d.%d on %s\n", CUB_MAJOR_VERSION, CUB_MINOR_VERSION, CUB_SUBMINOR_VERSION, prop.name);
  const std::size_t n = std::size_t(1) << log_n;
  run<std::uint32_t>("u32", n, ks, reps);
  run<float>("f32", n, ks, reps);
  run<std::uint64_t>("u64", n, ks, reps);
  return 0;
}
