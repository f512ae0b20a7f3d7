// What both extension modules (module.cpp, mpi_module.cpp) share: clsort::Error as the package's
// clsort.Error, with its attributes, so that every failure reaches Python the same way; and a Sorter on an
// OpenCL queue that Python hands over as an integer (pyopencl's int_ptr).
#pragma once

#include <nanobind/nanobind.h>

#include <cstdint>
#include <string>

#include <clsort/clsort.hpp>

namespace clsort_python {

inline const char* kind_name(clsort::Error::Kind k) {
  switch (k) {
    case clsort::Error::Kind::opencl:
      return "opencl";
    case clsort::Error::Kind::invalid_argument:
      return "invalid_argument";
    case clsort::Error::Kind::build_failure:
      return "build_failure";
    case clsort::Error::Kind::device_not_found:
      return "device_not_found";
    case clsort::Error::Kind::out_of_memory:
      return "out_of_memory";
  }
  return "unknown";
}

/// Registers the translator of clsort::Error into `error_type` (clsort.Error, kept for the process's life).
inline void translate_errors(PyObject* error_type) {
  static PyObject* type = nullptr;
  type = error_type;
  nanobind::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const clsort::Error& e) {
      nanobind::object err = nanobind::handle(type)(e.what());
      err.attr("status") = e.status();
      err.attr("status_name") = clsort::status_name(e.status());
      err.attr("where") = e.where();
      err.attr("build_log") = e.build_log();
      err.attr("kind") = kind_name(e.kind());
      PyErr_SetObject(type, err.ptr());
    }
  });
}

/// A Sorter on the queue at `queue` (an int_ptr), retained: the Sorter holds the queue for its life,
/// whatever pyopencl does with its object. `who` names the caller in the error for a null queue.
inline clsort::Sorter sorter_on_queue(std::uintptr_t queue, const char* who) {
  if (!queue) throw nanobind::value_error((std::string(who) + ": null command queue").c_str());
  return clsort::Sorter(cl::CommandQueue(reinterpret_cast<cl_command_queue>(queue), true));
}

}  // namespace clsort_python
