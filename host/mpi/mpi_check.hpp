// Internal: MPI return codes as clsort::Error, for communicators whose error handler returns them (the
// default handler aborts the job before a code comes back).
#pragma once

#include <mpi.h>

#include <string>

#include "clsort/clsort.hpp"

namespace clsort::mpi::detail {

[[noreturn]] inline void throw_mpi_error(int code, const char* call) {
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw Error(CL_INVALID_OPERATION, call,
              std::string("clsort::mpi: ") + call + " failed: " + std::string(text, std::size_t(length)));
}

inline void check_mpi(int code, const char* call) {
  if (code != MPI_SUCCESS) throw_mpi_error(code, call);
}

}  // namespace clsort::mpi::detail

namespace clsort::mpi::detail {

/// An OpenCL status as clsort::Error, worded as the core library words it.
inline void check_cl(cl_int status, const char* call) {
  if (status != CL_SUCCESS)
    throw Error(status, call,
                std::string("clsort: OpenCL call failed with ") + status_name(status) + " (" +
                    std::to_string(status) + "): " + call);
}

/// An argument refused before anything runs.
[[noreturn]] inline void throw_invalid(const std::string& argument, const std::string& message) {
  throw Error(CL_INVALID_VALUE, argument, "clsort: invalid argument '" + argument + "': " + message, {},
              Error::Kind::invalid_argument);
}

}  // namespace clsort::mpi::detail
