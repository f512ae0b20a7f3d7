// Optional `clsort bench` row from Highway, built only when CMake finds it: vqsort, the vectorized
// quicksort of hwy/contrib/sort, on one thread.
#include <hwy/contrib/sort/vqsort.h>

#include <memory>
#include <type_traits>

#include "bench.hpp"

namespace clsort_cli::bench {

Contender vqsort_contender() {
  // vqsort has no 8-bit keys and (before Highway 1.1) no 16-bit floats: those types get no row.
  auto sortable = [](auto* keys) {
    using K = std::remove_pointer_t<decltype(keys)>;
    return std::bool_constant < is_arithmetic_key_v<K> && sizeof(K) >= 2 > {};
  };
#ifdef CLSORT_CLI_HWY_VQSORT
  auto sort = [sortable](auto* keys, std::size_t n) {
    if constexpr (decltype(sortable(keys))::value) hwy::VQSort(keys, n, hwy::SortAscending());
  };
#else
  // Highway before 1.1 (Debian 12: 1.0.3) sorts through a Sorter object, which holds its scratch space.
  auto sorter = std::make_shared<hwy::Sorter>();
  auto sort = [sorter, sortable](auto* keys, std::size_t n) {
    if constexpr (decltype(sortable(keys))::value) (*sorter)(keys, n, hwy::SortAscending());
  };
#endif
  Contender c = host_contender("highway vqsort", "", "baseline", 0, sort_keys(sort));
  c.supports = [](clsort::KeyType t) {
    return clsort::key_size(t) >= 2 && t != clsort::KeyType::f16 && t != clsort::KeyType::bf16;
  };
  c.clsort_float_order = false;  // -0 and +0 compare equal, so their order is its own
  return c;
}

}  // namespace clsort_cli::bench
