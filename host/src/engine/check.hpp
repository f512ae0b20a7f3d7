// Internal: turning OpenCL status codes into clsort::Error that names the failing call.
#pragma once

#include <string>

#include "clsort/clsort.hpp"

namespace clsort::detail {

[[noreturn]] void throw_cl_error(cl_int status, const char* call);
[[noreturn]] void throw_argument_error(const std::string& argument, const std::string& message);
/// The table's row of `type`; Error naming `argument` when `type` is not a KeyType (a cast from a bad
/// integer), which every call refuses before it touches memory.
const KeyTypeInfo& key_type_row(KeyType type, const std::string& argument = "type");

}  // namespace clsort::detail

// CLSORT_CHECK(queue.enqueueWriteBuffer(...)) throws clsort::Error naming the call and the status.
#define CLSORT_CHECK(call)                                                                     \
  do {                                                                                         \
    const cl_int clsort_status_ = (call);                                                      \
    if (clsort_status_ != CL_SUCCESS) ::clsort::detail::throw_cl_error(clsort_status_, #call); \
  } while (0)
