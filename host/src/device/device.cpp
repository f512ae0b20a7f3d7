// Device discovery and the CLSORT_DEVICE selection rules.
#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "engine/check.hpp"

namespace clsort {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return s;
}

std::vector<cl::Platform> platforms() {
  std::vector<cl::Platform> result;
  const cl_int status = cl::Platform::get(&result);
  // The ICD loader reports "no platforms" as an error; that is an empty list to us.
  if (status != CL_SUCCESS && status != -1001 /* CL_PLATFORM_NOT_FOUND_KHR */)
    detail::throw_cl_error(status, "cl::Platform::get");
  return result;
}

std::vector<cl::Device> devices_of(const cl::Platform& p, cl_device_type type) {
  std::vector<cl::Device> result;
  const cl_int status = p.getDevices(type, &result);
  if (status == CL_DEVICE_NOT_FOUND) return {};
  CLSORT_CHECK(status);
  return result;
}

cl::Device first_of_type(cl_device_type type) {
  for (const auto& p : platforms())
    for (const auto& d : devices_of(p, type)) return d;
  return cl::Device();
}

[[noreturn]] void no_device(const std::string& why) {
  throw Error(CL_DEVICE_NOT_FOUND, "CLSORT_DEVICE", "clsort: " + why, {}, Error::Kind::device_not_found);
}

}  // namespace

std::vector<cl::Device> all_devices() {
  std::vector<cl::Device> result;
  for (const auto& p : platforms())
    for (const auto& d : devices_of(p, CL_DEVICE_TYPE_ALL)) result.push_back(d);
  return result;
}

cl::Device select_device(const std::string& spec_in) {
  const std::string spec = lower(spec_in);
  if (spec.empty() || spec == "default") {
    if (cl::Device d = first_of_type(CL_DEVICE_TYPE_GPU); d()) return d;
    if (cl::Device d = first_of_type(CL_DEVICE_TYPE_CPU); d()) return d;
    if (cl::Device d = first_of_type(CL_DEVICE_TYPE_ALL); d()) return d;
    no_device("no OpenCL device found (is an ICD such as pocl-opencl-icd installed?)");
  }
  if (spec == "gpu" || spec == "cpu" || spec == "accelerator") {
    const cl_device_type type = spec == "gpu"   ? CL_DEVICE_TYPE_GPU
                                : spec == "cpu" ? CL_DEVICE_TYPE_CPU
                                                : CL_DEVICE_TYPE_ACCELERATOR;
    if (cl::Device d = first_of_type(type); d()) return d;
    no_device("no OpenCL device of type '" + spec + "' found");
  }
  const auto colon = spec.find(':');
  if (colon != std::string::npos && colon > 0 && std::all_of(spec.begin(), spec.end(), [](char c) {
        return std::isdigit((unsigned char)c) || c == ':';
      })) {
    const auto pi = std::stoul(spec.substr(0, colon));
    const auto di = std::stoul(spec.substr(colon + 1));
    const auto ps = platforms();
    if (pi >= ps.size())
      no_device("platform index " + std::to_string(pi) + " out of range in '" + spec_in + "'");
    const auto ds = devices_of(ps[pi], CL_DEVICE_TYPE_ALL);
    if (di >= ds.size())
      no_device("device index " + std::to_string(di) + " out of range in '" + spec_in + "'");
    return ds[di];
  }
  for (const auto& p : platforms()) {
    const std::string pname = lower(p.getInfo<CL_PLATFORM_NAME>());
    for (const auto& d : devices_of(p, CL_DEVICE_TYPE_ALL)) {
      if (lower(d.getInfo<CL_DEVICE_NAME>()).find(spec) != std::string::npos ||
          lower(d.getInfo<CL_DEVICE_VENDOR>()).find(spec) != std::string::npos ||
          pname.find(spec) != std::string::npos)
        return d;
    }
  }
  no_device("no OpenCL device matches '" + spec_in + "' (try `clsort devices`)");
}

cl::Device default_device() {
  const char* env = std::getenv("CLSORT_DEVICE");
  return select_device(env ? env : "");
}

std::string default_device_reason() {
  if (const char* env = std::getenv("CLSORT_DEVICE"); env && *env) return std::string("CLSORT_DEVICE=") + env;
  if (first_of_type(CL_DEVICE_TYPE_GPU)()) return "the first GPU (CLSORT_DEVICE unset)";
  if (first_of_type(CL_DEVICE_TYPE_CPU)()) return "no GPU found: the first CPU device (CLSORT_DEVICE unset)";
  return "the first device (CLSORT_DEVICE unset)";
}

}  // namespace clsort
