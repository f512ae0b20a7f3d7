// Optional `clsort bench` row from Highway, built only when CMake finds it: vqsort, the vectorized
// quicksort of hwy/contrib/sort, on one thread.

#include <memory>
#include <type_traits>

#include "bench.hpp"
#include "hwy_vqsort.hpp"

namespace clsort_cli::bench {

Contender vqsort_contender() {
  // vqsort has no 8-bit keys and (before Highway 1.1) no 16-bit floats: those types get no row.
  auto sortable = [](auto* keys) {
    using K = std::remove_pointer_t<decltype(keys)>;
    return std::bool_constant < is_arithmetic_key_v<K> && sizeof(K) >= 2 > {};
  };
  auto vq = std::make_shared<Vqsort>();
  auto sort = [vq, sortable](auto* keys, std::size_t n) {
    if constexpr (decltype(sortable(keys))::value) (*vq)(keys, n);
  };
  Contender c = host_contender("highway vqsort", "", "baseline", 0, sort_keys(sort));
  c.supports = [sortable](clsort::KeyType t) {
    return visit_key_type(t, [&](auto tag) {
      return decltype(sortable(static_cast<typename decltype(tag)::type*>(nullptr)))::value;
    });
  };
  c.clsort_float_order = false;  // -0 and +0 compare equal, so their order is its own
  return c;
}

}  // namespace clsort_cli::bench
