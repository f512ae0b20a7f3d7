// `clsort bench`'s sections after the main table: first calls (a fresh Sorter's program builds) and the
// work-group sweep (--sweep-wg); and the keys and workloads every section times.
#include <algorithm>
#include <sstream>

#include "bench.hpp"

namespace clsort_cli::bench {
namespace {

/// "radix.wg" for radix: the work-group tuning name of `algorithm` as Sorter::plan().tuning lists it.
std::string wg_parameter(const clsort::DevicePlan& plan, const std::string& algorithm) {
  std::istringstream in(plan.tuning);
  std::string item;
  while (in >> item) {
    const std::string name = item.substr(0, item.find('='));
    if (name == algorithm + ".wg") return name;
  }
  return {};
}

std::vector<unsigned> parse_wg_list(const std::vector<std::string>& items, const cl::Device& d) {
  std::vector<unsigned> v;
  for (const auto& s : items) v.push_back(unsigned(parse_size(s)));
  if (v.empty()) {
    // Powers of two from 16 to the device's limit (at most 1024: larger groups do not fit GPUs' tuning).
    const std::size_t max_wg = std::min<std::size_t>(1024, d.getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE>());
    for (unsigned wg = 16; wg <= max_wg; wg *= 2) v.push_back(wg);
  }
  return v;
}

}  // namespace

std::vector<unsigned char> Setup::keys(clsort::KeyType t, std::size_t n) const {
  return random_keys(t, n, seed, specials);
}

Workload Setup::workload(clsort::KeyType t, std::size_t n, const std::vector<unsigned char>& keys) const {
  return {t, n, keys.data(), value_bytes ? values.data() : nullptr, value_bytes};
}

void first_calls(const Setup& s, Report& report, Status& status) {
  for (clsort::KeyType t : s.types)
    for (const AlgorithmInfo* e : s.algorithms) {
      const std::size_t cap = s.caps && e->device_cap ? e->device_cap : clsort::max_n(e->algorithm);
      const std::size_t n = s.sizes.front();
      if (n > cap) continue;
      status.show(std::string("first call of ") + e->name() + ", " + clsort::to_string(t));
      const std::vector<unsigned char> data = s.keys(t, n);
      const Workload in = s.workload(t, n, data);
      const Reference ref = reference_sort(in);
      std::vector<unsigned char> out(data.size()), out_values(n * s.value_bytes);
      FirstCall f{e->name(), t, n, 0, 0, 0, -1, true};
      auto t0 = Clock::now();
      DeviceState fresh(s.device);
      f.context_ms = ms_since(t0);
      fresh.prepare(in);
      for (double* slot : {&f.first_ms, &f.second_ms}) {
        fresh.reset();
        t0 = Clock::now();
        fresh.run(e->algorithm);
        *slot = ms_since(t0);
        fresh.result(out.data(), out_values.data());
        f.verified = verify(in, out.data(), out_values.data(), ref) && f.verified;
      }
      for (const Row& r : report.rows)
        if (r.kind == "device" && r.algorithm == e->name() && r.type == t && r.n == n)
          f.steady_ms = r.median_ms;
      report.first.push_back(f);
    }
  status.clear();
}

void sweep_wg(const Setup& s, const clsort::DevicePlan& plan, const std::vector<std::string>& wg_sizes,
              Report& report, Status& status) {
  const std::vector<unsigned> wgs = parse_wg_list(wg_sizes, s.device);
  for (const AlgorithmInfo* e : s.algorithms) {
    const std::string param = wg_parameter(plan, e->name());
    if (param.empty()) {
      report.notes.push_back(std::string("--sweep-wg: ") + e->name() +
                             " has no work-group parameter in the tuning");
      continue;
    }
    auto sweep_state = std::make_shared<DeviceState>(s.device);
    Contender c = device_contender(*e, sweep_state, s.caps);
    c.run_host = nullptr;
    for (clsort::KeyType t : s.types) {
      const std::vector<unsigned char> data = s.keys(t, s.sizes.back());
      for (std::size_t n : s.sizes) {
        if (n > c.cap) continue;
        const Workload in = s.workload(t, n, data);
        const Reference ref = reference_sort(in);
        for (unsigned wg : wgs) {
          const std::string tuning = param + "=" + std::to_string(wg);
          try {
            sweep_state->sorter.tune(tuning);
          } catch (const clsort::Error& err) {
            report.notes.push_back("--sweep-wg: " + tuning + " rejected: " + err.what());
            continue;
          }
          status.show("sweep " + tuning + ", " + clsort::to_string(t) + ", n = " + format_n(n));
          try {
            Row r = measure(c, in, ref, s.policy, false);
            r.tuning = tuning;
            report.sweep.push_back(r);
          } catch (const clsort::Error& err) {
            report.notes.push_back("--sweep-wg: " + tuning + " failed at n = " + format_n(n) + ": " +
                                   err.what());
          }
        }
      }
    }
  }
  status.clear();
}

}  // namespace clsort_cli::bench
