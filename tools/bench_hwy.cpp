// Optional `clsort bench` row from Highway, built only when CMake finds it: vqsort, the vectorized
// quicksort of hwy/contrib/sort, on one thread.
#include <hwy/contrib/sort/vqsort.h>

#include <memory>

#include "bench.hpp"

namespace clsort_cli::bench {

Contender vqsort_contender() {
#ifdef CLSORT_CLI_HWY_VQSORT
  auto sort = [](auto* keys, std::size_t n) { hwy::VQSort(keys, n, hwy::SortAscending()); };
#else
  // Highway before 1.1 (Debian 12: 1.0.3) sorts through a Sorter object, which holds its scratch space.
  auto sorter = std::make_shared<hwy::Sorter>();
  auto sort = [sorter](auto* keys, std::size_t n) { (*sorter)(keys, n, hwy::SortAscending()); };
#endif
  Contender c = host_contender("highway vqsort", "", "baseline", 0, sort_keys(sort));
  c.clsort_float_order = false;  // -0 and +0 compare equal, so their order is its own
  return c;
}

}  // namespace clsort_cli::bench
