// Inputs that a clsort probe and its CUB counterpart build alike, element for element, so that both time
// the same work: included by tools/lab/*.cpp and by the CUB probes (*.cu, through nvcc), so plain C++17.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace clsort_probe {

// Segment offsets (segments.cpp, cub_segmented.cu): segments of `len` keys, as many as fit in `total`.
inline std::vector<std::uint32_t> fixed_offsets(std::size_t total, std::size_t len) {
  std::vector<std::uint32_t> o{0};
  for (std::size_t at = len; at <= total; at += len) o.push_back(std::uint32_t(at));
  return o;
}

// Power-law segment lengths 1 + 4 / u^1.25 (u uniform in (0, 1], seed 42) up to `total` keys: many short
// segments and a few huge ones.
inline std::vector<std::uint32_t> power_law_offsets(std::size_t total) {
  std::vector<std::uint32_t> o{0};
  std::mt19937_64 rng(42);
  while (o.back() < total) {
    const double u = (double(rng() >> 11) + 1.0) / 9007199254740992.0;
    const double len = std::min(1e9, 1.0 + 4.0 / std::pow(u, 1.25));
    o.push_back(std::uint32_t(std::min<double>(double(total), double(o.back()) + std::floor(len))));
  }
  return o;
}

// The custom-comparison struct (custom_lex.cpp, cub_merge_custom.cu): ordered by key, then id; tag rides.
struct S12 {
  float key;
  std::uint32_t id;
  std::uint32_t tag;
};
static_assert(sizeof(S12) == 12, "a 12-byte struct");

// n structs: keys of 2^16 values in steps of 0.25 (many ties), ids 0-3, tags the input position.
inline std::vector<S12> make_s12(std::size_t n) {
  std::vector<S12> v(n);
  std::mt19937_64 rng(42);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t r = rng();
    v[i] = {float(std::int32_t(r & 0xFFFF) - 0x8000) * 0.25f, std::uint32_t((r >> 16) & 3), std::uint32_t(i)};
  }
  return v;
}

}  // namespace clsort_probe
