// Looks up embedded kernel sources, with the CLSORT_KERNEL_DIR development override.
#include "engine/kernel_sources.hpp"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "engine/check.hpp"

namespace clsort::detail {

std::string kernel_source(const std::string& name) {
  if (const char* dir = std::getenv("CLSORT_KERNEL_DIR"); dir && *dir) {
    const std::string path = std::string(dir) + "/" + name;
    std::ifstream in(path, std::ios::binary);
    if (!in)
      throw Error(CL_INVALID_VALUE, "CLSORT_KERNEL_DIR", "clsort: cannot read kernel source " + path, {},
                  Error::Kind::build_failure);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  }
  for (const EmbeddedKernel* k = k_embedded_kernels; k->name; ++k)
    if (name == k->name) return std::string(k->data, k->size);
  throw Error(CL_INVALID_VALUE, name, "clsort: no embedded kernel source named " + name, {},
              Error::Kind::build_failure);
}

}  // namespace clsort::detail
