// vqsort over segments for the probes that time it beside clsort (segments.cpp, cpu_rounds.cpp): Highway's
// vqsort on one thread, looping over the segments of a copy of the keys. Included only where CMake found
// Highway.
#pragma once

#include <clsort/key_transform.hpp>

#include <cstdint>
#include <type_traits>
#include <vector>

#include "../bench/hwy_vqsort.hpp"
#include "probe_timing.hpp"

namespace clsort_probe {

// vqsort's keys: no 8-bit or 16-bit float types.
template <class K>
inline constexpr bool vqsort_keys_v = std::is_arithmetic_v<K> && sizeof(K) >= 2;

// Times vqsort over the segments (median of `reps`), keys of their own type or, with pairs, (code, index)
// records; checks the last result against `expected` (keys in clsort's order). Returns -1 where vqsort
// has no such keys.
template <class K>
inline double time_vqsort(clsort_cli::Vqsort& vq, const std::vector<K>& keys,
                          const std::vector<std::uint32_t>& o, const std::vector<K>& expected, bool pairs,
                          int reps, bool* ok) {
  const std::size_t n = keys.size(), num = o.size() - 1;
  std::vector<double> t;
  if (pairs) {
    using P = std::conditional_t<sizeof(K) <= 4, hwy::K32V32, hwy::K64V64>;
    using C = decltype(P::key);
    std::vector<P> copy(n);
    for (int rep = 0; rep < reps; ++rep) {
      for (std::size_t i = 0; i < n; ++i) {
        copy[i].key = C(clsort::encode_key(keys[i]));
        copy[i].value = std::uint32_t(i);
      }
      const auto t0 = Clock::now();
      for (std::size_t i = 0; i < num; ++i) vq(copy.data() + o[i], o[i + 1] - o[i]);
      t.push_back(ms_since(t0));
    }
    std::vector<unsigned char> seen(n, 0);
    for (std::size_t i = 0; i < num && *ok; ++i)
      for (std::size_t j = o[i]; j < o[i + 1]; ++j) {
        const auto v = std::size_t(copy[j].value);
        const bool fine = v >= o[i] && v < o[i + 1] && !seen[v] &&
                          C(clsort::encode_key(keys[v])) == copy[j].key &&
                          copy[j].key == C(clsort::encode_key(expected[j]));
        seen[v < n ? v : 0] = 1;
        if (!fine) {
          *ok = false;
          break;
        }
      }
  } else if constexpr (!vqsort_keys_v<K>) {
    return -1;
  } else {
    std::vector<K> copy(n);
    for (int rep = 0; rep < reps; ++rep) {
      copy = keys;
      const auto t0 = Clock::now();
      for (std::size_t i = 0; i < num; ++i) vq(copy.data() + o[i], o[i + 1] - o[i]);
      t.push_back(ms_since(t0));
    }
    // vqsort's own order for floats: -0 and +0 are equal, so either may come first.
    for (std::size_t j = 0; j < n && *ok; ++j)
      if (clsort::encode_key(copy[j]) != clsort::encode_key(expected[j]) && !(copy[j] == expected[j]))
        *ok = false;
  }
  return median(t);
}

}  // namespace clsort_probe
