// Highway's vqsort on one thread, through whichever interface the installed Highway has: hwy::VQSort()
// came with Highway 1.1; before it (Debian 12: 1.0.3) sorting goes through a hwy::Sorter object, which holds
// its scratch space. CMake defines CLSORT_HWY_VQSORT where hwy::VQSort() compiles (tools/CMakeLists.txt).
// Used by the bench's vqsort row and clsort_probe_segments.
#pragma once

#include <hwy/contrib/sort/vqsort.h>

#include <cstddef>

namespace clsort_cli {

struct Vqsort {
#ifdef CLSORT_HWY_VQSORT
  template <class T>
  void operator()(T* keys, std::size_t n) const {
    hwy::VQSort(keys, n, hwy::SortAscending());
  }
#else
  hwy::Sorter sorter;
  template <class T>
  void operator()(T* keys, std::size_t n) const {
    sorter(keys, n, hwy::SortAscending());
  }
#endif
};

}  // namespace clsort_cli
