// The probes' timing: each row is the median of REPS calls timed by the host's steady clock.
#pragma once

#include <clsort/clsort.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace clsort_probe {

using Clock = std::chrono::steady_clock;

/// The middle value; of an even count, the upper of the two middle ones. v is not empty.
inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

inline double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

/// The kernels of one call on a profiling queue (Sorter::last_profile): their times summed per name, the
/// span from the first command's start to the last one's end, then every launch in order.
inline void print_profile(const std::vector<clsort::KernelTime>& profile) {
  std::vector<std::pair<std::string, std::pair<double, int>>> kernels;
  double span = 0;  // the kernels and the gaps between them
  for (const auto& kt : profile) {
    span = std::max(span, kt.start_ms + kt.ms);
    auto it = std::find_if(kernels.begin(), kernels.end(), [&](const auto& e) { return e.first == kt.name; });
    if (it == kernels.end()) it = kernels.insert(kernels.end(), {kt.name, {0.0, 0}});
    it->second.first += kt.ms;
    it->second.second += 1;
  }
  std::printf("  one call, %.4f ms on the device:", span);
  for (const auto& [name, t] : kernels) std::printf(" %s %.4f ms (%d)", name.c_str(), t.first, t.second);
  std::printf("\n  each, in order (ms, start):");
  for (const auto& kt : profile) std::printf(" %s %.4f @%.4f", kt.name.c_str(), kt.ms, kt.start_ms);
  std::printf("\n");
}

}  // namespace clsort_probe
