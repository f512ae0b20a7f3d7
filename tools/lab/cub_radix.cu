// The reference for clsort's GPU radix sort: CUB's DeviceRadixSort on the same keys as
// clsort_probe_tuning (random u32, f32 and u64 keys, u32 keys with u32 values that are their input
// index; u16, f16, u8 keys and u16 pairs on request), already in device memory, median of REPS sorts
// timed with CUDA events; every output checked in O(n) like the probe does (order, sum and xor of the key
// bits, each value naming its key). Not built by CMake (it needs nvcc and CUB); tools/lab/gpu_paths.sh and
// tools/lab/gpu_narrow.sh build it against the newest CCCL headers:
//   nvcc -O3 -std=c++17 -arch=sm_90 -I<cccl> -o cub_radix tools/lab/cub_radix.cu
//   cub_radix [REPS] [log2 n ...]        (defaults: 20; 16 20 24 26 28)
//   CUB_KINDS=u16,f16,u8,u16+u32 cub_radix ...   (default u32,f32,u64,u32+u32)
#include <cub/cub.cuh>
#include <cub/version.cuh>

#include "cub_probe.cuh"
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <type_traits>
#include <vector>


namespace {

constexpr std::uint64_t kMix = 0x9E3779B97F4A7C15ull;

template <class K>
std::uint64_t bits_of(K k) {
  std::uint64_t b = 0;
  std::memcpy(&b, &k, sizeof k);
  return b;
}

template <class K>
constexpr bool is_half = std::is_same_v<K, __half>;

// Finite keys only (as clsort_probe_tuning's), so every order agrees.
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
      } else if constexpr (is_half<K>) {
        if ((r & 0x7C00u) == 0x7C00u) continue;  // infinities and NaNs
      }
      break;
    }
  return keys;
}

// The keys' order: by value for numbers; for halves by the sign-magnitude flip of their bits, their value
// order, with -0 taken as +0 as CUB's radix sort takes it (clsort puts -0 first; the keys are random, so
// both zeros occur at 2^20 and up).
template <class K>
bool before(K a, K b) {
  if constexpr (is_half<K>) {
    auto code = [](K k) {
      std::uint64_t x = bits_of(k);
      if (x == 0x8000u) x = 0;
      return (x & 0x8000u) ? (~x & 0xFFFFu) : (x | 0x8000u);
    };
    return code(a) < code(b);
  } else {
    return a < b;
  }
}

template <class K, bool Pairs, class V = std::uint32_t>
void run(const char* name, std::size_t n, int reps) {
  const std::vector<K> keys = random_keys<K>(n);
  std::uint64_t sum = 0, xor_ = 0;
  for (K k : keys) sum += bits_of(k) * kMix, xor_ ^= bits_of(k);
  K *src, *k0, *k1;
  V *vsrc = nullptr, *v0 = nullptr, *v1 = nullptr;
  CHECK_CUDA(cudaMalloc(&src, n * sizeof(K)));
  CHECK_CUDA(cudaMalloc(&k0, n * sizeof(K)));
  CHECK_CUDA(cudaMalloc(&k1, n * sizeof(K)));
  CHECK_CUDA(cudaMemcpy(src, keys.data(), n * sizeof(K), cudaMemcpyHostToDevice));
  if (Pairs) {
    std::vector<V> index(n);
    for (std::size_t i = 0; i < n; ++i) index[i] = V(i);
    CHECK_CUDA(cudaMalloc(&vsrc, n * sizeof(V)));
    CHECK_CUDA(cudaMalloc(&v0, n * sizeof(V)));
    CHECK_CUDA(cudaMalloc(&v1, n * sizeof(V)));
    CHECK_CUDA(cudaMemcpy(vsrc, index.data(), n * sizeof(V), cudaMemcpyHostToDevice));
  }
  cub::DoubleBuffer<K> dk(k0, k1);
  cub::DoubleBuffer<V> dv(v0, v1);
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
    if (Pairs) CHECK_CUDA(cudaMemcpy(v0, vsrc, n * sizeof(V), cudaMemcpyDeviceToDevice));
    dk = cub::DoubleBuffer<K>(k0, k1);
    dv = cub::DoubleBuffer<V>(v0, v1);
    CHECK_CUDA(cudaEventRecord(a));
    sort();
    CHECK_CUDA(cudaEventRecord(b));
    CHECK_CUDA(cudaEventSynchronize(b));
    float t = 0;
    CHECK_CUDA(cudaEventElapsedTime(&t, a, b));
    if (r >= 2) ms.push_back(t);
  }
  std::vector<K> out(n);
  std::vector<V> index(Pairs ? n : 0);
  CHECK_CUDA(cudaMemcpy(out.data(), dk.Current(), n * sizeof(K), cudaMemcpyDeviceToHost));
  if (Pairs) CHECK_CUDA(cudaMemcpy(index.data(), dv.Current(), n * sizeof(V), cudaMemcpyDeviceToHost));
  bool ok = std::is_sorted(out.begin(), out.end(), before<K>);
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
  const char* kinds_env = std::getenv("CUB_KINDS");
  const std::string kinds = "," + std::string(kinds_env && *kinds_env ? kinds_env : "u32,f32,u64,u32+u32") + ",";
  auto want = [&](const char* kind) { return kinds.find("," + std::string(kind) + ",") != std::string::npos; };
  for (int lg : logs) {
    const std::size_t n = std::size_t(1) << lg;
    if (want("u32")) run<std::uint32_t, false>("u32", n, reps);
    if (want("f32")) run<float, false>("f32", n, reps);
    if (want("u64")) run<std::uint64_t, false>("u64", n, reps);
    if (want("u32+u32")) run<std::uint32_t, true>("u32+u32", n, reps);
    if (want("u16")) run<std::uint16_t, false>("u16", n, reps);
    if (want("f16")) run<__half, false>("f16", n, reps);
    if (want("u8")) run<std::uint8_t, false>("u8", n, reps);
    if (want("u16+u32")) run<std::uint16_t, true>("u16+u32", n, reps);
  }
}
