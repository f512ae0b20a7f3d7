// `clsort devices`: every OpenCL platform and device, which one clsort uses by default and why, and what
// clsort would run on each (automatic algorithm choice and tuning).
#include <cmath>
#include <cstdio>

#include "cli_common.hpp"
#include "commands.hpp"

namespace clsort_cli {
namespace {

std::vector<cl::Platform> platforms() {
  std::vector<cl::Platform> result;
  const cl_int status = cl::Platform::get(&result);
  if (status != CL_SUCCESS && status != -1001 /* CL_PLATFORM_NOT_FOUND_KHR: no ICD installed */)
    throw CliError(std::string("listing OpenCL platforms failed with ") + clsort::status_name(status));
  return result;
}

std::vector<cl::Device> devices_of(const cl::Platform& p) {
  std::vector<cl::Device> result;
  const cl_int status = p.getDevices(CL_DEVICE_TYPE_ALL, &result);
  if (status != CL_SUCCESS && status != CL_DEVICE_NOT_FOUND)
    throw CliError(std::string("listing devices failed with ") + clsort::status_name(status));
  return result;
}

void field(const char* name, const std::string& value) {
  std::printf("      %-22s %s\n", name, value.c_str());
}

}  // namespace

CLI::App* add_devices_command(CLI::App& app, DevicesArgs&) {
  CLI::App* cmd = app.add_subcommand("devices", "List OpenCL devices and what clsort would do on each");
  cmd->footer(
      "A device is chosen with --device SPEC or the CLSORT_DEVICE environment variable: gpu, cpu,\n"
      "accelerator, a substring of the device, vendor or platform name, or PLATFORM:DEVICE indices as\n"
      "listed here.");
  return cmd;
}

int run_devices(const DevicesArgs&) {
  const auto ps = platforms();
  if (ps.empty()) {
    std::printf("No OpenCL platform found. Install an ICD, e.g. pocl-opencl-icd for the CPU.\n");
    return 1;
  }
  cl::Device def;
  std::string def_error, def_index;
  try {
    def = clsort::default_device();
  } catch (const clsort::Error& e) {
    def_error = e.what();
  }
  for (std::size_t pi = 0; pi < ps.size(); ++pi) {
    const cl::Platform& p = ps[pi];
    std::printf("Platform %zu: %s (%s, %s)\n", pi, p.getInfo<CL_PLATFORM_NAME>().c_str(),
                p.getInfo<CL_PLATFORM_VENDOR>().c_str(), p.getInfo<CL_PLATFORM_VERSION>().c_str());
    const auto ds = devices_of(p);
    if (ds.empty()) std::printf("  (no devices)\n");
    for (std::size_t di = 0; di < ds.size(); ++di) {
      const cl::Device& d = ds[di];
      const bool is_default = def() && def() == d();
      std::printf("  Device %zu:%zu: %s%s\n", pi, di, d.getInfo<CL_DEVICE_NAME>().c_str(),
                  is_default ? "   <- default" : "");
      if (is_default) {
        field("default because", clsort::default_device_reason());
        def_index = std::to_string(pi) + ":" + std::to_string(di);
      }
      field("type", device_type_name(d.getInfo<CL_DEVICE_TYPE>()));
      field("vendor", d.getInfo<CL_DEVICE_VENDOR>());
      field("version", d.getInfo<CL_DEVICE_VERSION>() + ", driver " + d.getInfo<CL_DRIVER_VERSION>());
      field("compute units", std::to_string(d.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>()) + " at " +
                                 std::to_string(d.getInfo<CL_DEVICE_MAX_CLOCK_FREQUENCY>()) + " MHz");
      field("global memory", format_bytes(d.getInfo<CL_DEVICE_GLOBAL_MEM_SIZE>()) + " (largest buffer " +
                                 format_bytes(d.getInfo<CL_DEVICE_MAX_MEM_ALLOC_SIZE>()) + ")");
      const bool local_is_global = d.getInfo<CL_DEVICE_LOCAL_MEM_TYPE>() == CL_GLOBAL;
      field("local memory", format_bytes(d.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>()) +
                                (local_is_global ? " (emulated in global memory)" : ""));
      field("max work-group size", std::to_string(d.getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE>()));
      field("available", d.getInfo<CL_DEVICE_AVAILABLE>() ? "yes" : "no");
      try {
        // Building a Sorter creates a context but compiles nothing: plan() only reads the tuning table.
        clsort::Sorter sorter(d);
        const clsort::DevicePlan plan = sorter.plan();
        field("clsort automatic", plan.automatic);
        field("clsort tuning row",
              plan.tuning_row + (plan.measured.empty() ? "" : " (" + plan.measured + ")"));
        field("clsort tuning", plan.tuning);
        // What limits n: radix sort counts past 2^32 keys, so memory does (Sorter::max_n).
        auto largest = [&](clsort::KeyType type, std::size_t value_bytes) {
          const std::size_t n = sorter.max_n(type, value_bytes);
          char log2[32];
          std::snprintf(log2, sizeof log2, "2^%.2f", n ? std::log2(double(n)) : 0.0);
          return std::to_string(n) + " (" + log2 + ")";
        };
        field("clsort largest n",
              "radix sort of device buffers, by memory: u32 keys " + largest(clsort::KeyType::u32, 0) +
                  ", u32+u32 pairs " + largest(clsort::KeyType::u32, 4) + ", u32 + 16-byte values " +
                  largest(clsort::KeyType::u32, 16) + ", u64 keys " + largest(clsort::KeyType::u64, 0) +
                  "; other algorithms: bitonic and merge 2^31, selection and odd_even 2^20");
        // What a sort of 2^24 keys runs, per key width, alone and with 4-byte values.
        for (const auto& [type, value_bytes] : {std::pair{clsort::KeyType::u32, std::size_t(0)},
                                                {clsort::KeyType::u64, std::size_t(0)},
                                                {clsort::KeyType::u32, std::size_t(4)}}) {
          const std::string what =
              std::string("plan ") + clsort::to_string(type) + (value_bytes ? "+u32" : "") + " 2^24";
          field(what.c_str(), sorter.plan(type, std::size_t(1) << 24, value_bytes).shape);
        }
      } catch (const std::exception& e) {
        field("clsort", std::string("cannot use this device: ") + e.what());
      }
    }
  }
  if (!def())
    std::printf("\nNo default device: %s\n", def_error.c_str());
  else
    std::printf("\nclsort uses device %s (%s) by default: %s.\n", def_index.c_str(),
                def.getInfo<CL_DEVICE_NAME>().c_str(), clsort::default_device_reason().c_str());
  return 0;
}

}  // namespace clsort_cli
