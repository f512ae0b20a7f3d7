// clsort::Error as the package's clsort.Error, with its attributes: the translator both extension modules
// (module.cpp, mpi_module.cpp) register, so that every failure reaches Python the same way.
#pragma once

#include <nanobind/nanobind.h>

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

}  // namespace clsort_python
