// Internal: the checks of device-buffer arguments that every call taking buffers shares (sorts, argsort,
// top_k, select, lexsort, segments, sort_custom): context, size, and overlap between outputs and inputs.
#pragma once

#include <string>

#include "engine/sorter_impl.hpp"

namespace clsort::detail {

/// The bytes of a buffer within its parent allocation, to find outputs that overlap inputs.
struct Region {
  cl_mem parent;
  std::size_t begin, end;
};
inline Region region_of(const cl::Buffer& b, std::size_t bytes) {
  cl_mem parent = nullptr;
  std::size_t offset = 0;
  CLSORT_CHECK(b.getInfo(CL_MEM_ASSOCIATED_MEMOBJECT, &parent));
  if (!parent) return {b(), 0, bytes};
  CLSORT_CHECK(b.getInfo(CL_MEM_OFFSET, &offset));
  return {parent, offset, offset + bytes};
}
inline bool overlap(const Region& a, const Region& b) {
  return a.parent == b.parent && a.begin < b.end && b.begin < a.end && a.begin < a.end && b.begin < b.end;
}

/// A buffer argument: not null, of the Sorter's context, holding at least `elements` of `size` bytes. A
/// buffer too small is blamed on `count_name` where `blame_count` is set (the keys of a sort: their count
/// is what is off), else on the buffer.
inline void check_buffer(const Sorter::Impl& s, const cl::Buffer& b, const std::string& name,
                         std::size_t elements, std::size_t size, const char* count_name,
                         bool blame_count = false) {
  if (!b()) throw_argument_error(name, "null cl::Buffer");
  cl::Context context;
  CLSORT_CHECK(b.getInfo(CL_MEM_CONTEXT, &context));
  if (context() != s.context()) throw_argument_error(name, "buffer belongs to another OpenCL context");
  std::size_t bytes = 0;
  CLSORT_CHECK(b.getInfo(CL_MEM_SIZE, &bytes));
  if (elements > bytes / size && blame_count)
    throw_argument_error(count_name, std::to_string(elements) + " elements of " + std::to_string(size) +
                                         " bytes do not fit in " + name + "'s " + std::to_string(bytes) +
                                         " bytes");
  if (elements > bytes / size)
    throw_argument_error(name, "holds " + std::to_string(bytes / size) + " elements, fewer than " +
                                   count_name + " = " + std::to_string(elements));
}

}  // namespace clsort::detail
