// The probes' timing: each row is the median of REPS calls timed by the host's steady clock.
#pragma once

#include <algorithm>
#include <chrono>
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

}  // namespace clsort_probe
