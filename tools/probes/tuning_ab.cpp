// clsort_probe_tuning: tuning strings against each other on one device, in one process, alternating.
//
// Run-to-run spread on a shared GPU (1-3% between machine starts) is as large as most tuning gains, so
// a variant is only worth keeping against its reference measured beside it. Each variant gets its own
// Sorter (its own programs); every round times each (type, n, variant) in turn, REPS device sorts back
// to back on keys already on the device, and prints the median. Every output is checked in O(n): sorted,
// the same bit patterns (sum and xor), and for pairs each value still names its key. With --profile the
// Sorters time their kernels (a profiling queue) and the Onesweep histogram and passes are printed too.
//
//   clsort_probe_tuning --types u32,pairs --sizes 24,26 --variant "" --variant "radix.items=20" --rounds 2
//
// docs/benchmarks.md calls it the sweep driver; docs/tuning.md says how a row is measured with it.
#include <CLI/CLI.hpp>
#include <clsort/clsort.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace {

struct Timing {
  double ms = 0, histogram_ms = 0, passes_ms = 0;
  bool ok = false;
};

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

template <class K>
std::vector<K> random_keys(std::size_t n) {
  std::mt19937_64 g(42);
  std::vector<K> h(n);
  for (auto& x : h) {
    if constexpr (std::is_same_v<K, float>) {
      const auto bits = std::uint32_t(g());
      std::memcpy(&x, &bits, 4);
      if (x != x) x = 0;  // NaNs have no place in is_sorted's check
    } else {
      x = K(g());
    }
  }
  return h;
}

template <class K>
std::uint64_t bits_of(const K& k) {
  std::uint64_t b = 0;
  std::memcpy(&b, &k, sizeof(K));
  return b;
}

template <class K>
Timing time_sorts(clsort::Sorter& s, std::size_t n, bool pairs, int reps) {
  const auto h = random_keys<K>(n);
  std::vector<std::uint32_t> hv(n);
  for (std::size_t i = 0; i < n; ++i) hv[i] = std::uint32_t(i);
  auto& q = s.queue();
  const auto key_bytes = n * sizeof(K);
  cl::Buffer src(s.context(), CL_MEM_READ_WRITE, key_bytes), work(s.context(), CL_MEM_READ_WRITE, key_bytes);
  cl::Buffer vsrc(s.context(), CL_MEM_READ_WRITE, n * 4), vwork(s.context(), CL_MEM_READ_WRITE, n * 4);
  q.enqueueWriteBuffer(src, CL_TRUE, 0, key_bytes, h.data());
  q.enqueueWriteBuffer(vsrc, CL_TRUE, 0, n * 4, hv.data());
  std::vector<double> ts, hist, passes;
  for (int r = 0; r < reps + 2; ++r) {  // two warm-ups: builds, the Onesweep self-test, first touches
    q.enqueueCopyBuffer(src, work, 0, 0, key_bytes);
    if (pairs) q.enqueueCopyBuffer(vsrc, vwork, 0, 0, n * 4);
    q.finish();
    const auto t0 = std::chrono::steady_clock::now();
    cl::Event e = pairs ? s.sort_by_key<K, std::uint32_t>(work, vwork, n) : s.sort<K>(work, n);
    e.wait();
    const auto t1 = std::chrono::steady_clock::now();
    if (r < 2) continue;
    ts.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    double hm = 0, pm = 0;
    for (const auto& kt : s.last_profile()) {
      if (kt.name == "radix_onesweep_histogram")
        hm += kt.ms;
      else if (kt.name == "radix_onesweep")
        pm += kt.ms;
    }
    hist.push_back(hm);
    passes.push_back(pm);
  }
  std::vector<K> out(n);
  std::vector<std::uint32_t> ov(n);
  q.enqueueReadBuffer(work, CL_TRUE, 0, key_bytes, out.data());
  if (pairs) q.enqueueReadBuffer(vwork, CL_TRUE, 0, n * 4, ov.data());
  bool ok = std::is_sorted(out.begin(), out.end());
  std::uint64_t s_in = 0, x_in = 0, s_out = 0, x_out = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t a = bits_of(h[i]), b = bits_of(out[i]);
    s_in += a * 0x9E3779B97F4A7C15ull;
    x_in ^= a;
    s_out += b * 0x9E3779B97F4A7C15ull;
    x_out ^= b;
    if (pairs && (ov[i] >= n || bits_of(h[ov[i]]) != b)) ok = false;
  }
  return {median(ts), median(hist), median(passes), ok && s_in == s_out && x_in == x_out};
}

Timing time_type(clsort::Sorter& s, const std::string& type, std::size_t n, int reps) {
  if (type == "u32") return time_sorts<std::uint32_t>(s, n, false, reps);
  if (type == "i32") return time_sorts<std::int32_t>(s, n, false, reps);
  if (type == "f32") return time_sorts<float>(s, n, false, reps);
  if (type == "u64") return time_sorts<std::uint64_t>(s, n, false, reps);
  if (type == "pairs") return time_sorts<std::uint32_t>(s, n, true, reps);
  return time_sorts<std::uint64_t>(s, n, true, reps);  // u64pairs
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("clsort_probe_tuning: tuning strings against each other, alternating in one process",
               "clsort_probe_tuning");
  std::vector<std::string> types{"u32"}, variants;
  std::vector<unsigned> sizes{24};
  int rounds = 2, reps = 7;
  bool profile = false;
  std::string device;
  app.add_option("--types", types, "u32, i32, f32, u64, pairs (u32 keys, u32 values), u64pairs")
      ->delimiter(',')
      ->check(CLI::IsMember({"u32", "i32", "f32", "u64", "pairs", "u64pairs"}));
  app.add_option("--sizes", sizes, "log2 of n, comma-separated")->delimiter(',')->check(CLI::Range(0u, 31u));
  app.add_option(
      "--variant", variants,
      "a tuning string (as CLSORT_TUNING) applied over the device's row; repeat it; \"\" is the row "
      "itself, which runs first when no variant is given");
  app.add_option("--rounds", rounds, "times each (type, n, variant) is measured, alternating")
      ->check(CLI::Range(1, 1000));
  app.add_option("--reps", reps, "sorts per measurement; the median is printed")->check(CLI::Range(1, 10000));
  app.add_flag("--profile", profile,
               "time kernels on a profiling queue; print the Onesweep histogram and passes");
  app.add_option("--device", device,
                 "as CLSORT_DEVICE (gpu, cpu, P:D, a name); default: the library's choice");
  CLI11_PARSE(app, argc, argv);
  if (variants.empty()) variants.push_back("");

  try {
    const cl::Device dev = device.empty() ? clsort::default_device() : clsort::select_device(device);
    std::printf("device %s\n", dev.getInfo<CL_DEVICE_NAME>().c_str());
    std::vector<clsort::Sorter> sorters;
    for (const auto& v : variants) {
      sorters.emplace_back(dev, profile);
      if (!v.empty()) sorters.back().tune(v);  // a bad name or value throws here, before anything is timed
    }
    bool all_ok = true;
    for (int round = 0; round < rounds; ++round)
      for (const auto& type : types)
        for (const unsigned lg : sizes) {
          const std::size_t n = std::size_t(1) << lg;
          for (std::size_t i = 0; i < variants.size(); ++i) {
            const Timing t = time_type(sorters[i], type, n, reps);
            all_ok = all_ok && t.ok;
            std::printf("round %d %-8s 2^%-2u %-45s %9.4f ms %8.2f Gkeys/s", round, type.c_str(), lg,
                        variants[i].empty() ? "(row)" : variants[i].c_str(), t.ms, double(n) / t.ms / 1e6);
            if (profile) std::printf("  histogram %.4f ms, passes %.4f ms", t.histogram_ms, t.passes_ms);
            std::printf("  %s\n", t.ok ? "ok" : "WRONG");
            std::fflush(stdout);
          }
        }
    return all_ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "clsort_probe_tuning: %s\n", e.what());
    return 2;
  }
}
