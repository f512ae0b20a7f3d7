// The reference for clsort's GPU radix sort: CUB's DeviceRadixSort on the same keys as
// clsort_probe_tuning (random u32, f32 and u64 keys, u32 keys with u32 values that are their input
// index), already in device memory, median of REPS sorts timed with CUDA events; every output checked in
// O(n) like the probe does (order, sum and xor of the key bits, each value naming its key). Not built by
// CMake (it needs nvcc and CUB); tools/gpu_paths.sh builds it against the newest CCCL headers:
//   nvcc -O3 -std=c++17 -arch=sm_90 -I<cccl> -o cub_radix tools/probes/cub_radix.cu
//   cub_radix [REPS] [log2 n ...]        (defaults: 20; 16 20 24 26 28)
#include <cub/cub.cuh>
#include <cub/version.cuh>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <type_traits>
#include <vector>

#define CHECK_CUDA(x)                                                                             \
  do {                                                                                            \
    cudaError_t e_ = (x);                                                                         \
    if (e_ != cudaSuccess) {                                                                      \
      std::printf("CUDA error %s at line %d\n", cudaGetErrorString(e_), __LINE__);               \
      std::exit(1);                                                                               \
    }                                                                                             \
  } while (0)

namespace {

constexpr std::uint64_t kMix = 0x9E3779B97F4A7C15ull;

template <class K>
std::uint64_t bits_of(K k) {
  std::conditional_t<sizeof(K) == 8, std::uint64_t, std::uint32_t> b;
  std::memcpy(&b, &k, sizeof k);
  return b;
}

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

template <class K, bool Pairs>
void run(const char* name, std::size_t n, int reps) {
  const std::vector<K> keys = random_keys<K>(n);
  std::uint64_t sum = 0, xor_ = 0;
  for (K k : keys) sum += bits_of(k) * kMix, xor_ ^= bits_of(k);
  K *src, *k0, *k1;
  std::uint32_t *vsrc = nullptr, *v0 = nullptr, *v1 = nullptr;
  CHECK_CUDA(cudaMalloc(&src, n * sizeof(K)));
  CHECK_CUDA(cudaMalloc(&k0, n * sizeof(K)));
  CHECK_CUDA(cudaMalloc(&k1, n * sizeof(K)));
  CHECK_CUDA(cudaMemcpy(src, keys.data(), n * sizeof(K), cudaMemcpyHostToDevice));
  if (Pairs) {
    std::vector<std::uint32_t> index(n);
    for (std::size_t i = 0; i < n; ++i) index[i] = std::uint32_t(i);
    CHECK_CUDA(cudaMalloc(&vsrc, n * 4));
    CHECK_CUDA(cudaMalloc(&v0, n * 4));
    CHECK_CUDA(cudaMalloc(&v1, n * 4));
    CHECK_CUDA(cudaMemcpy(vsrc, index.data(), n * 4, cudaMemcpyHostToDevice));
  }
  cub::DoubleBuffer<K> dk(k0, k1);
  cub::DoubleBuffer<std::uint32_t> dv(v0, v1);
  void* temp = nullptr;
  std::size_t temp_bytes = 0;
  auto sort = [&] {
    if (Pairs)
      CHECK_CUDA(cub::DeviceRadixSort::SortPairs(temp, temp_bytes, dk, dv, n));
    else
      CHECK_CUDA(cub::DeviceRadixSort::SortKeys(temp, temp_bytes, dk, n));
  };
  sort();
  CHECK_CUDA(cudaMalloc(&temp, temp_bytes));
  cudaEvent_t a, b;
  CHECK_CUDA(cudaEventCreate(&a));
  CHECK_CUDA(cudaEventCreate(&b));
  std::vector<float> ms;
  for (int r = 0; r < reps + 2; ++r) {  // two warm-ups, as the probe does
    CHECK_CUDA(cudaMemcpy(k0, src, n * sizeof(K), cudaMemcpyDeviceToDevice));
    if (Pairs) CHECK_CUDA(cudaMemcpy(v0, vsrc, n * 4, cudaMemcpyDeviceToDevice));
    dk = cub::DoubleBuffer<K>(k0, k1);
    dv = cub::DoubleBuffer<std::uint32_t>(v0, v1);
    CHECK_CUDA(cudaEventRecord(a));
    sort();
    CHECK_CUDA(cudaEventRecord(b));
    CHECK_CUDA(cudaEventSynchronize(b));
    float t = 0;
    CHECK_CUDA(cudaEventElapsedTime(&t, a, b));
    if (r >= 2) ms.push_back(t);
  }
  std::vector<K> out(n);
  std::vector<std::uint32_t> index(Pairs ? n : 0);
  CHECK_CUDA(cudaMemcpy(out.data(), dk.Current(), n * sizeof(K), cudaMemcpyDeviceToHost));
  if (Pairs) CHECK_CUDA(cudaMemcpy(index.data(), dv.Current(), n * 4, cudaMemcpyDeviceToHost));
  bool ok = std::is_sorted(out.begin(), out.end());
  std::uint64_t osum = 0, oxor = 0;
  for (std::size_t i = 0; i < n; ++i) {
    osum += bits_of(out[i]) * kMix, oxor ^= bits_of(out[i]);
    if (Pairs && (index[i] >= n || bits_of(keys[index[i]]) != bits_of(out[i]))) ok = false;
  }
  ok = ok && osum == sum && oxor == xor_;
  std::sort(ms.begin(), ms.end());
  const double med = ms[ms.size() / 2];
  std::printf("%-10s %11zu %10.4f ms %9.3f Gkeys/s %s\n", name, n, med, n / med / 1e6,
              ok ? "checked" : "WRONG OUTPUT");
  std::fflush(stdout);
  cudaFree(temp), cudaFree(src), cudaFree(k0), cudaFree(k1);
  if (Pairs) cudaFree(vsrc), cudaFree(v0), cudaFree(v1);
  cudaEventDestroy(a), cudaEventDestroy(b);
}

}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 20;
  std::vector<int> logs;
  for (int i = 2; i < argc; ++i) logs.push_back(std::atoi(argv[i]));
  if (logs.empty()) logs = {16, 20, 24, 26, 28};
  cudaDeviceProp prop;
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  std::printf("CUB %d.%d.%d on %s, median of %d sorts\n", CUB_MAJOR_VERSION, CUB_MINOR_VERSION,
              CUB_SUBMINOR_VERSION, prop.name, reps);
  for (int lg : logs) {
    const std::size_t n = std::size_t(1) << lg;
    run<std::uint32_t, false>("u32", n, reps);
    run<float, false>("f32", n, reps);
    run<std::uint64_t, false>("u64", n, reps);
    run<std::uint32_t, true>("u32+u32", n, reps);
  }
}
