// Internal: the OpenCL C sources, embedded at build time (cmake/embed_kernels.cmake) and overridable from
// the directory named by CLSORT_KERNEL_DIR for kernel development without rebuilding the library.
#pragma once

#include <cstddef>
#include <string>

namespace clsort::detail {

struct EmbeddedKernel {
  const char* name;  // file name, e.g. "radix_common.cl"
  const char* data;
  std::size_t size;
};
extern const EmbeddedKernel k_embedded_kernels[];

/// The text of kernels/<name>, from CLSORT_KERNEL_DIR when set, else the embedded copy.
std::string kernel_source(const std::string& name);

}  // namespace clsort::detail
