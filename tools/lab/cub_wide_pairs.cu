// The reference for clsort's values of any width: CUB's DeviceRadixSort::SortPairs with random u32 keys
// (the keys of clsort_probe_wide_pairs) and values of 16 bytes (a struct whose first word is the input
// index), and of 4 bytes (the index) as a baseline, in device memory; median of REPS sorts timed with
// CUDA events (two warm-ups); every output checked in O(n): keys in order, sum and xor of the key bits,
// each value naming its key with all its words intact. Not built by CMake (it needs nvcc and CUB);
// tools/lab/gpu_wide.sh builds it:
//   nvcc -O3 -std=c++17 -arch=sm_90 -I<cccl> -o cub_wide_pairs tools/lab/cub_wide_pairs.cu
//   cub_wide_pairs [REPS] [log2 n ...]        (defaults: 20; 20 24 26)
#include <cub/cub.cuh>
#include <cub/version.cuh>

#include "cub_probe.cuh"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>


namespace {

constexpr std::uint64_t kMix = 0x9E3779B97F4A7C15ull;

// 16 bytes: the input index, then words derived from it (checked after the sort).
struct alignas(16) Value16 {
  std::uint32_t index, a, b, c;
};
static_assert(sizeof(Value16) == 16);

template <class V>
V make_value(std::uint32_t i) {
  if constexpr (sizeof(V) == 4) {
    return V(i);
  } else {
    return V{i, i * 2654435761u, ~i, i ^ 0x5bd1e995u};
  }
}
template <class V>
std::uint32_t index_of(const V& v) {
  if constexpr (sizeof(V) == 4)
    return v;
  else
    return v.index;
}

// The same keys as clsort_probe_wide_pairs: mt19937_64(42), low 32 bits.
std::vector<std::uint32_t> random_keys(std::size_t n) {
  std::vector<std::uint32_t> keys(n);
  std::mt19937_64 rng(42);
  for (auto& k : keys) k = std::uint32_t(rng());
  return keys;
}

template <class V>
void run(const char* name, std::size_t n, int reps) {
  const std::vector<std::uint32_t> keys = random_keys(n);
  std::uint64_t sum = 0, xor_ = 0;
  for (std::uint32_t k : keys) sum += k * kMix, xor_ ^= k;
  std::vector<V> values(n);
  for (std::size_t i = 0; i < n; ++i) values[i] = make_value<V>(std::uint32_t(i));
  std::uint32_t *src, *k0, *k1;
  V *vsrc, *v0, *v1;
  CHECK_CUDA(cudaMalloc(&src, n * 4));
  CHECK_CUDA(cudaMalloc(&k0, n * 4));
  CHECK_CUDA(cudaMalloc(&k1, n * 4));
  CHECK_CUDA(cudaMalloc(&vsrc, n * sizeof(V)));
  CHECK_CUDA(cudaMalloc(&v0, n * sizeof(V)));
  CHECK_CUDA(cudaMalloc(&v1, n * sizeof(V)));
  CHECK_CUDA(cudaMemcpy(src, keys.data(), n * 4, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(vsrc, values.data(), n * sizeof(V), cudaMemcpyHostToDevice));
  cub::DoubleBuffer<std::uint32_t> dk(k0, k1);
  cub::DoubleBuffer<V> dv(v0, v1);
  void* temp = nullptr;
  std::size_t temp_bytes = 0;
  CHECK_CUDA(cub::DeviceRadixSort::SortPairs(temp, temp_bytes, dk, dv, n));
  CHECK_CUDA(cudaMalloc(&temp, temp_bytes));
  cudaEvent_t a, b;
  CHECK_CUDA(cudaEventCreate(&a));
  CHECK_CUDA(cudaEventCreate(&b));
  std::vector<float> ms;
  for (int r = 0; r < reps + 2; ++r) {
    CHECK_CUDA(cudaMemcpy(k0, src, n * 4, cudaMemcpyDeviceToDevice));
    CHECK_CUDA(cudaMemcpy(v0, vsrc, n * sizeof(V), cudaMemcpyDeviceToDevice));
    dk = cub::DoubleBuffer<std::uint32_t>(k0, k1);
    dv = cub::DoubleBuffer<V>(v0, v1);
    CHECK_CUDA(cudaEventRecord(a));
    CHECK_CUDA(cub::DeviceRadixSort::SortPairs(temp, temp_bytes, dk, dv, n));
    CHECK_CUDA(cudaEventRecord(b));
    CHECK_CUDA(cudaEventSynchronize(b));
    float t = 0;
    CHECK_CUDA(cudaEventElapsedTime(&t, a, b));
    if (r >= 2) ms.push_back(t);
  }
  std::vector<std::uint32_t> out(n);
  std::vector<V> vout(n);
  CHECK_CUDA(cudaMemcpy(out.data(), dk.Current(), n * 4, cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(vout.data(), dv.Current(), n * sizeof(V), cudaMemcpyDeviceToHost));
  bool ok = std::is_sorted(out.begin(), out.end());
  std::uint64_t osum = 0, oxor = 0;
  for (std::size_t i = 0; i < n; ++i) {
    osum += out[i] * kMix, oxor ^= out[i];
    const std::uint32_t at = index_of(vout[i]);
    if (at >= n || keys[at] != out[i] || std::memcmp(&vout[i], &values[at], sizeof(V)) != 0) ok = false;
  }
  ok = ok && osum == sum && oxor == xor_;
  std::sort(ms.begin(), ms.end());
  const double med = ms[ms.size() / 2];
  std::printf("%-10s %11zu %10.4f ms %9.3f Gkeys/s %s\n", name, n, med, n / med / 1e6,
              ok ? "checked" : "WRONG OUTPUT");
  std::fflush(stdout);
  cudaFree(temp), cudaFree(src), cudaFree(k0), cudaFree(k1), cudaFree(vsrc), cudaFree(v0), cudaFree(v1);
  cudaEventDestroy(a), cudaEventDestroy(b);
}

}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 20;
  std::vector<int> logs;
  for (int i = 2; i < argc; ++i) logs.push_back(std::atoi(argv[i]));
  if (logs.empty()) logs = {20, 24, 26};
  cudaDeviceProp prop;
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  std::printf("CUB %d.%d.%d on %s, SortPairs, median of %d sorts\n", CUB_MAJOR_VERSION, CUB_MINOR_VERSION,
              CUB_SUBMINOR_VERSION, prop.name, reps);
  for (int lg : logs) {
    const std::size_t n = std::size_t(1) << lg;
    run<std::uint32_t>("u32+v4", n, reps);
    run<Value16>("u32+v16", n, reps);
  }
}
