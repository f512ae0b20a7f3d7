// Optional `clsort bench` row from oneTBB, built only when CMake finds it: tbb::parallel_sort with
// clsort::key_less, on every hardware thread.
#include <tbb/parallel_sort.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <memory>
#include <thread>
#include <type_traits>

#include "bench.hpp"

namespace clsort_cli::bench {

Contender tbb_contender() {
  // An arena of the host's hardware threads, as many as block_indirect_sort is given.
  auto arena = std::make_shared<tbb::task_arena>(int(std::max(1u, std::thread::hardware_concurrency())));
  return host_contender("tbb::parallel_sort", "", "baseline", 0, sort_keys([arena](auto* p, std::size_t n) {
                          using K = std::remove_pointer_t<decltype(p)>;
                          arena->execute([&] {
                            tbb::parallel_sort(p, p + n, [](K a, K b) { return clsort::key_less(a, b); });
                          });
                        }));
}

}  // namespace clsort_cli::bench
