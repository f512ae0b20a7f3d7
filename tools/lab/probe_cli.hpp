// The command line the probes (tools/lab/*.cpp) share: their --reps and --device options, and the
// device line each prints first.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdio>
#include <string>

#include "../cli/cli_common.hpp"

namespace clsort_probe {

/// --reps (calls per measurement, whose median is printed) and --device (CLSORT_DEVICE's syntax).
inline void add_reps_and_device(CLI::App& app, int& reps, std::string& device) {
  app.add_option("--reps", reps, "calls per measurement; the median is printed")->check(CLI::Range(1, 1000));
  app.add_option("--device", device, "as CLSORT_DEVICE; default: the library's choice");
}

/// The device `spec` selects, after printing "device <description>, <date>".
inline cl::Device open_and_print_device(const std::string& spec) {
  const cl::Device dev = clsort_cli::open_device(spec);
  std::printf("device %s, %s\n", clsort_cli::describe_device(dev).c_str(), clsort_cli::now_string().c_str());
  return dev;
}

}  // namespace clsort_probe
