// clsort::Error, OpenCL status names and the names of clsort's enums.
#include <cstddef>
#include <sstream>

#include "engine/check.hpp"

namespace clsort {

Error::Error(cl_int status, std::string where, const std::string& message, std::string build_log, Kind kind)
    : std::runtime_error(message),
      status_(status),
      kind_(kind),
      where_(std::move(where)),
      build_log_(std::move(build_log)) {}

const char* status_name(cl_int status) noexcept {
  switch (status) {
#define CLSORT_STATUS(s) \
  case s:                \
    return #s;
    CLSORT_STATUS(CL_SUCCESS)
    CLSORT_STATUS(CL_DEVICE_NOT_FOUND)
    CLSORT_STATUS(CL_DEVICE_NOT_AVAILABLE)
    CLSORT_STATUS(CL_COMPILER_NOT_AVAILABLE)
    CLSORT_STATUS(CL_MEM_OBJECT_ALLOCATION_FAILURE)
    CLSORT_STATUS(CL_OUT_OF_RESOURCES)
    CLSORT_STATUS(CL_OUT_OF_HOST_MEMORY)
    CLSORT_STATUS(CL_PROFILING_INFO_NOT_AVAILABLE)
    CLSORT_STATUS(CL_MEM_COPY_OVERLAP)
    CLSORT_STATUS(CL_IMAGE_FORMAT_MISMATCH)
    CLSORT_STATUS(CL_IMAGE_FORMAT_NOT_SUPPORTED)
    CLSORT_STATUS(CL_BUILD_PROGRAM_FAILURE)
    CLSORT_STATUS(CL_MAP_FAILURE)
    CLSORT_STATUS(CL_MISALIGNED_SUB_BUFFER_OFFSET)
    CLSORT_STATUS(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
    CLSORT_STATUS(CL_COMPILE_PROGRAM_FAILURE)
    CLSORT_STATUS(CL_LINKER_NOT_AVAILABLE)
    CLSORT_STATUS(CL_LINK_PROGRAM_FAILURE)
    CLSORT_STATUS(CL_DEVICE_PARTITION_FAILED)
    CLSORT_STATUS(CL_KERNEL_ARG_INFO_NOT_AVAILABLE)
    CLSORT_STATUS(CL_INVALID_VALUE)
    CLSORT_STATUS(CL_INVALID_DEVICE_TYPE)
    CLSORT_STATUS(CL_INVALID_PLATFORM)
    CLSORT_STATUS(CL_INVALID_DEVICE)
    CLSORT_STATUS(CL_INVALID_CONTEXT)
    CLSORT_STATUS(CL_INVALID_QUEUE_PROPERTIES)
    CLSORT_STATUS(CL_INVALID_COMMAND_QUEUE)
    CLSORT_STATUS(CL_INVALID_HOST_PTR)
    CLSORT_STATUS(CL_INVALID_MEM_OBJECT)
    CLSORT_STATUS(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
    CLSORT_STATUS(CL_INVALID_IMAGE_SIZE)
    CLSORT_STATUS(CL_INVALID_SAMPLER)
    CLSORT_STATUS(CL_INVALID_BINARY)
    CLSORT_STATUS(CL_INVALID_BUILD_OPTIONS)
    CLSORT_STATUS(CL_INVALID_PROGRAM)
    CLSORT_STATUS(CL_INVALID_PROGRAM_EXECUTABLE)
    CLSORT_STATUS(CL_INVALID_KERNEL_NAME)
    CLSORT_STATUS(CL_INVALID_KERNEL_DEFINITION)
    CLSORT_STATUS(CL_INVALID_KERNEL)
    CLSORT_STATUS(CL_INVALID_ARG_INDEX)
    CLSORT_STATUS(CL_INVALID_ARG_VALUE)
    CLSORT_STATUS(CL_INVALID_ARG_SIZE)
    CLSORT_STATUS(CL_INVALID_KERNEL_ARGS)
    CLSORT_STATUS(CL_INVALID_WORK_DIMENSION)
    CLSORT_STATUS(CL_INVALID_WORK_GROUP_SIZE)
    CLSORT_STATUS(CL_INVALID_WORK_ITEM_SIZE)
    CLSORT_STATUS(CL_INVALID_GLOBAL_OFFSET)
    CLSORT_STATUS(CL_INVALID_EVENT_WAIT_LIST)
    CLSORT_STATUS(CL_INVALID_EVENT)
    CLSORT_STATUS(CL_INVALID_OPERATION)
    CLSORT_STATUS(CL_INVALID_GL_OBJECT)
    CLSORT_STATUS(CL_INVALID_BUFFER_SIZE)
    CLSORT_STATUS(CL_INVALID_MIP_LEVEL)
    CLSORT_STATUS(CL_INVALID_GLOBAL_WORK_SIZE)
    CLSORT_STATUS(CL_INVALID_PROPERTY)
    CLSORT_STATUS(CL_INVALID_IMAGE_DESCRIPTOR)
    CLSORT_STATUS(CL_INVALID_COMPILER_OPTIONS)
    CLSORT_STATUS(CL_INVALID_LINKER_OPTIONS)
    CLSORT_STATUS(CL_INVALID_DEVICE_PARTITION_COUNT)
#undef CLSORT_STATUS
    case -1001:
      return "CL_PLATFORM_NOT_FOUND_KHR";
    default:
      return "unknown OpenCL status";
  }
}

namespace {
// Enumerator `e`'s name in `names`, the enum's names in declaration order ("?" past its end).
template <class E, std::size_t N>
const char* enum_name(E e, const char* const (&names)[N]) noexcept {
  const auto i = static_cast<std::size_t>(e);
  return i < N ? names[i] : "?";
}
}  // namespace

const char* to_string(Algorithm a) noexcept {
  static constexpr const char* names[] = {"automatic", "radix", "bitonic", "selection", "odd_even", "merge"};
  return enum_name(a, names);
}

const char* to_string(KeyType t) noexcept {
  const KeyTypeInfo* row = find_key_type(t);
  return row ? row->name : "?";
}

const char* to_string(KeyKind k) noexcept {
  static constexpr const char* names[] = {"unsigned_int", "signed_int", "ieee_float", "bfloat"};
  return enum_name(k, names);
}

const char* to_string(Order o) noexcept {
  return o == Order::ascending ? "ascending" : "descending";
}

Algorithm parse_algorithm(const std::string& name) {
  for (Algorithm a : {Algorithm::automatic, Algorithm::radix, Algorithm::bitonic, Algorithm::selection,
                      Algorithm::odd_even, Algorithm::merge})
    if (name == to_string(a)) return a;
  detail::throw_argument_error(
      "algorithm",
      "unknown algorithm '" + name + "' (expected automatic, radix, bitonic, selection, odd_even or merge)");
}

KeyType parse_key_type(const std::string& name) {
  if (const KeyTypeInfo* row = find_key_type(name)) return row->type;
  std::string expected;
  for (const KeyTypeInfo& row : key_types()) expected += std::string(expected.empty() ? "" : ", ") + row.name;
  detail::throw_argument_error("key_type",
                               "unknown key type '" + name + "' (expected one of " + expected + ")");
}

std::size_t key_size(KeyType t) noexcept {
  const KeyTypeInfo* row = find_key_type(t);
  return row ? row->bytes : 0;
}

namespace detail {

const KeyTypeInfo& key_type_row(KeyType type, const std::string& argument) {
  const KeyTypeInfo* row = find_key_type(type);
  if (!row) throw_argument_error(argument, "is not a KeyType (" + std::to_string(unsigned(type)) + ")");
  return *row;
}

void throw_cl_error(cl_int status, const char* call) {
  std::ostringstream msg;
  msg << "clsort: OpenCL call failed with " << status_name(status) << " (" << status << "): " << call;
  throw Error(status, call, msg.str());
}

void throw_argument_error(const std::string& argument, const std::string& message) {
  throw Error(CL_INVALID_VALUE, argument, "clsort: invalid argument '" + argument + "': " + message, {},
              Error::Kind::invalid_argument);
}

}  // namespace detail
}  // namespace clsort
