// A process for the multi-process disk cache test: sorts with every algorithm on both key widths, keys
// only and by key (so several programs are loaded or built through CLSORT_CACHE_DIR), verifies each result
// and exits 0 only if all are right.
#include <cstdio>

#include "reference.hpp"

int main() {
  using namespace reliability;
  int failures = 0, sorts = 0;
  try {
    clsort::Sorter s;
    std::mt19937_64 rng(99);
    for (Algorithm a : {Algorithm::radix, Algorithm::bitonic, Algorithm::selection}) {
      for (KeyType t : {KeyType::f32, KeyType::i64}) {
        const std::size_t n = 3000;
        const std::vector<std::uint64_t> keys = make_keys(t, Dist::specials, n, rng);
        std::vector<unsigned char> k = pack(t, keys);
        s.sort_host(t, k.data(), n, nullptr, 0, {Order::descending, a});
        std::string e = check_keys(t, Order::descending, keys, unpack(t, k.data(), n));
        k = pack(t, keys);
        std::vector<unsigned char> v = make_values(n, 4, rng);
        s.sort_host(t, k.data(), n, v.data(), 4, {Order::ascending, a});
        if (e.empty())
          e = check_pairs(t, Order::ascending, keys, unpack(t, k.data(), n), value_indices(v, 4));
        sorts += 2;
        if (!e.empty()) {
          std::fprintf(stderr, "FAIL %s %s: %s\n", clsort::to_string(a), clsort::to_string(t), e.c_str());
          ++failures;
        }
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "FAIL: %s\n", e.what());
    return 1;
  }
  std::printf("%d sorts, %d failures\n", sorts, failures);
  return failures ? 1 : 0;
}
