// `clsort bench`'s timing of one row: warm-up, timed repetitions under the repetition policy, every output
// verified, host-to-host calls and profiles of device rows; then the speedup columns of a group of rows.
#include <cmath>
#include <cstdio>
#include <map>

#include "../cli/io.hpp"
#include "bench.hpp"

namespace clsort_cli::bench {

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

double median(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

Status::Status() : enabled_(stderr_is_terminal()) {}

void Status::show(const std::string& text) {
  if (!enabled_) return;
  std::fprintf(stderr, "\r  measuring %s ...\033[K", text.c_str());
  std::fflush(stderr);
}

void Status::clear() {
  if (enabled_) std::fputs("\r\033[K", stderr), std::fflush(stderr);
}

Row new_row(const Workload& in, const std::string& label, const std::string& algorithm,
            const std::string& kind) {
  Row r;
  r.n = in.n;
  r.type = in.type;
  r.values = !in.values ? "none" : in.value_bytes == 4 ? "u32" : "u64";
  r.label = label;
  r.algorithm = algorithm;
  r.kind = kind;
  return r;
}

void summarize(Row& r) {
  r.median_ms = median(r.times_ms);
  r.min_ms = *std::min_element(r.times_ms.begin(), r.times_ms.end());
}

Row measure(Contender& c, const Workload& in, const Reference& ref, const RepPolicy& policy, bool profile) {
  Row r = new_row(in, c.label, c.algorithm, c.kind);
  const std::size_t value_bytes = in.values ? in.value_bytes : 0;
  std::vector<unsigned char> out(in.n * clsort::key_size(in.type)), out_values(in.n * value_bytes);
  c.prepare(in);
  c.reset();
  c.run();  // warm-up: program builds, scratch allocation, first-touch page faults
  const bool on_device = bool(c.keep_reference);
  if (on_device) {
    c.result(out.data(), out_values.data());
    r.verified = verify(in, out.data(), out_values.data(), ref);
    c.keep_reference();
    for (int i = 0; i < kDeviceWarmups; ++i) {
      c.reset();
      c.run();
      c.compare_with_reference();
    }
  }
  double spent = 0;
  for (int i = 0; !policy.done(i, spent); ++i) {
    c.reset();
    const auto t0 = Clock::now();
    c.run();
    r.times_ms.push_back(ms_since(t0));
    spent += r.times_ms.back();
    if (on_device) {
      c.compare_with_reference();
    } else {
      c.result(out.data(), out_values.data());
      r.verified = verify(in, out.data(), out_values.data(), ref) && r.verified;
    }
  }
  if (on_device) r.verified = c.matched_reference() && r.verified;
  summarize(r);
  if (c.run_host) {
    // No warm-up of its own: the device warm-up built the programs; the median absorbs the first
    // call's staging-buffer allocation.
    std::vector<double> host;
    for (std::size_t i = 0; i < r.times_ms.size(); ++i) {
      c.reset_host();
      const auto t0 = Clock::now();
      c.run_host();
      host.push_back(ms_since(t0));
      c.result_host(out.data(), out_values.data());
      r.verified = verify(in, out.data(), out_values.data(), ref) && r.verified;
    }
    r.host_ms = median(host);
  }
  if (profile && c.profile) {
    // The repetition with the median total stands for all: its stages add up to its total.
    std::vector<std::vector<Stage>> runs;
    for (std::size_t i = 0; i < r.times_ms.size(); ++i) runs.push_back(c.profile());
    auto total = [](const std::vector<Stage>& s) {
      double sum = 0;
      for (const auto& x : s) sum += x.ms;
      return sum;
    };
    std::sort(runs.begin(), runs.end(), [&](const auto& a, const auto& b) { return total(a) < total(b); });
    r.profile = runs[runs.size() / 2];
  }
  return r;
}

void add_speedups(std::vector<Row>& group) {
  double std_ms = -1, bound_ms = -1;
  std::map<std::string, double> serial_ms;
  for (const Row& r : group) {
    if (is_std_row(r.label)) std_ms = r.median_ms;
    if (r.kind == "serial") serial_ms[r.algorithm] = r.median_ms;
    if (r.kind == "bound") bound_ms = r.median_ms;
  }
  for (Row& r : group) {
    if (r.kind == "bound") continue;  // copies, not a sort: no speedup
    if (std_ms > 0) r.speedup_std = std_ms / r.median_ms;
    if (r.kind == "device" && serial_ms.count(r.algorithm))
      r.speedup_serial = serial_ms[r.algorithm] / r.median_ms;
    if (r.kind == "device" && bound_ms > 0 && r.host_ms > 0) r.host_bound = bound_ms / r.host_ms;
  }
}

std::optional<Comparison> best_comparison(const std::vector<Row>& group) {
  const Row *best_clsort = nullptr, *best_reference = nullptr;
  auto keep_faster = [](const Row*& best, const Row& r) {
    if (!best || r.median_ms < best->median_ms) best = &r;
  };
  for (const Row& r : group) {
    if (!r.verified || !(r.median_ms > 0)) continue;
    // clsort's own device rows carry their algorithm; Boost.Compute's device row does not.
    if (r.kind == "device" && !r.algorithm.empty()) keep_faster(best_clsort, r);
    if (r.kind == "baseline") keep_faster(best_reference, r);
  }
  if (!best_clsort || !best_reference) return std::nullopt;
  Comparison c;
  c.n = best_clsort->n;
  c.type = best_clsort->type;
  c.values = best_clsort->values;
  c.clsort_label = best_clsort->label;
  c.clsort_ms = best_clsort->median_ms;
  c.reference_label = best_reference->label;
  c.reference_ms = best_reference->median_ms;
  return c;
}

}  // namespace clsort_cli::bench
