// The consumer's C++ side: sorts on the default device through the C++ API and checks the result.
#include <clsort/clsort.hpp>

#include <algorithm>
#include <cstdio>
#include <random>
#include <vector>

int main() {
  std::mt19937 rng(42);
  std::vector<float> keys(10000);
  for (auto& k : keys) k = std::uniform_real_distribution<float>(-100, 100)(rng);
  std::vector<float> expect = keys;
  std::sort(expect.begin(), expect.end());
  try {
    clsort::sort(keys);
  } catch (const clsort::Error& e) {
    std::fprintf(stderr, "consumer: %s\n", e.what());
    return 1;
  }
  if (keys != expect) {
    std::fprintf(stderr, "consumer: wrong order\n");
    return 1;
  }
  std::printf("consumer (C++): sorted %zu floats with clsort %s on %s\n", keys.size(), CLSORT_VERSION_STRING,
              clsort::default_sorter().device().getInfo<CL_DEVICE_NAME>().c_str());
  return 0;
}
