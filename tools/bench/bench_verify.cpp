// `clsort bench`'s verification: the reference every timed output must equal (std::sort, or
// std::stable_sort of pairs) and the comparison with it, NaNs compared as a multiset.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "bench.hpp"

namespace clsort_cli::bench {

Reference reference_sort(const Workload& in) {
  const std::size_t n = in.n;
  const auto* keys = static_cast<const unsigned char*>(in.keys);
  Reference ref;
  if (!in.values) {
    ref.keys.assign(keys, keys + n * clsort::key_size(in.type));
    visit_key_type(in.type, [&](auto tag) {
      using K = typename decltype(tag)::type;
      std_sort(reinterpret_cast<K*>(ref.keys.data()), n);
    });
    return ref;
  }
  ref.keys.resize(n * clsort::key_size(in.type));
  ref.values.resize(n * in.value_bytes);
  visit_key_type(in.type, [&](auto k) {
    visit_value_type(in.value_bytes, [&](auto v) {
      auto p = zip<typename decltype(k)::type, typename decltype(v)::type>(
          keys, static_cast<const unsigned char*>(in.values), n);
      stable_sort_pairs(p);
      unzip(p, ref.keys.data(), ref.values.data());
    });
  });
  return ref;
}

bool verify(const Workload& in, const void* out_keys, const void* out_values, const Reference& ref) {
  const std::size_t n = in.n, value_bytes = in.values ? in.value_bytes : 0;
  return visit_key_type(in.type, [&](auto tag) {
    using K = typename decltype(tag)::type;
    if constexpr (!clsort::is_float_key_v<K>) {
      return std::memcmp(out_keys, ref.keys.data(), n * sizeof(K)) == 0 &&
             (!value_bytes || std::memcmp(out_values, ref.values.data(), n * value_bytes) == 0);
    } else {
      using U = clsort::key_bits_t<K>;
      const auto* out = static_cast<const K*>(out_keys);
      const auto* expected = reinterpret_cast<const K*>(ref.keys.data());
      auto bits = [](K k) {
        U u;
        std::memcpy(&u, &k, sizeof u);
        return u;
      };
      auto value = [&](const void* base, std::size_t i) {
        std::uint64_t v = 0;
        if (value_bytes)
          std::memcpy(&v, static_cast<const unsigned char*>(base) + i * value_bytes, value_bytes);
        return v;
      };
      std::vector<std::pair<U, std::uint64_t>> nan_out, nan_ref;
      for (std::size_t i = 0; i < n; ++i) {
        if (clsort::key_is_nan(expected[i])) {
          if (!clsort::key_is_nan(out[i])) return false;
          nan_ref.emplace_back(bits(expected[i]), value(ref.values.data(), i));
          nan_out.emplace_back(bits(out[i]), value(out_values, i));
        } else if (bits(out[i]) != bits(expected[i]) || value(out_values, i) != value(ref.values.data(), i)) {
          return false;
        }
      }
      std::sort(nan_out.begin(), nan_out.end());
      std::sort(nan_ref.begin(), nan_ref.end());
      return nan_out == nan_ref;
    }
  });
}

}  // namespace clsort_cli::bench
