// `clsort bench`: times each clsort algorithm on an OpenCL device against its own sequential version and
// std::sort over a range of n, verifies every timed output, and reports first-call (program build) cost,
// per-kernel profiles and work-group sweeps on request.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <thread>
#include <type_traits>

#include <clsort/key_transform.hpp>
#include <clsort/version.hpp>

#include "bench.hpp"
#include "cli_common.hpp"
#include "commands.hpp"
#include "io.hpp"
#include "serial_sorts.hpp"

namespace clsort_cli {
namespace {

using bench::Contender;
using bench::Row;
using bench::Stage;
using clsort::KeyType;
using Clock = std::chrono::steady_clock;

// ---- The algorithm table: a new clsort algorithm is one entry here plus its serial version in
// serial_sorts.hpp.

using SerialFn = void (*)(KeyType, void*, std::size_t);
#define CLSORT_SERIAL(fn)                                                                              \
  [](KeyType t, void* data, std::size_t n) {                                                           \
    visit_key_type(                                                                                    \
        t, [&](auto tag) { serial::fn(static_cast<typename decltype(tag)::type*>(data), n, false); }); \
  }

struct AlgorithmEntry {
  const char* name;  // as clsort::parse_algorithm reads it, and the prefix of its tuning names
  clsort::Algorithm algorithm;
  std::size_t device_cap;  // default largest n timed on the device (0: clsort::max_n); --no-caps lifts it
  std::size_t serial_cap;  // the same for its serial version (0: no cap)
  double growth;           // time ~ n^growth, to predict whether the next n fits the row budget
  SerialFn serial;
};

const AlgorithmEntry k_algorithms[] = {
    {"radix", clsort::Algorithm::radix, 0, 0, 1.15, CLSORT_SERIAL(radix_sort)},
    // n log^2 n compare-exchanges: 2^20 keys take about half a second serially.
    {"bitonic", clsort::Algorithm::bitonic, 0, std::size_t(1) << 20, 1.15, CLSORT_SERIAL(bitonic_sort)},
    // n^2: 2^14 keys are 2^28 comparisons on the device; serially 2^13 keys already take ~0.1 s.
    {"selection", clsort::Algorithm::selection, std::size_t(1) << 14, std::size_t(1) << 13, 2.0,
     CLSORT_SERIAL(selection_sort)},
};

const AlgorithmEntry* find_algorithm(const std::string& name) {
  for (const auto& a : k_algorithms)
    if (name == a.name) return &a;
  return nullptr;
}

std::vector<std::string> algorithm_names() {
  std::vector<std::string> v;
  for (const auto& a : k_algorithms) v.push_back(a.name);
  return v;
}

void check(cl_int status, const char* what) {
  if (status != CL_SUCCESS)
    throw CliError(std::string(what) + " failed with " + clsort::status_name(status) + " (" +
                   std::to_string(status) + ")");
}

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

double median(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

// ---- Data and verification.

/// Uniformly random bit patterns; for floats only finite ones, so that every baseline's order (Boost's
/// included) agrees with clsort's. With `specials`, one key in eight is an edge case instead: for floats
/// NaNs of both signs with random payloads, infinities, both zeros and subnormals; for integers the
/// extremes and zero.
std::vector<unsigned char> random_keys(KeyType t, std::size_t n, unsigned seed, bool specials) {
  const std::size_t w = clsort::key_size(t);
  std::vector<unsigned char> out(n * w);
  std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + unsigned(t));
  visit_key_type(t, [&](auto tag) {
    using K = typename decltype(tag)::type;
    using U = clsort::key_bits_t<K>;
    using L = std::numeric_limits<K>;
    for (std::size_t i = 0; i < n; ++i) {
      K k;
      const std::uint64_t pick = rng();
      if (specials && pick % 8 == 0) {
        if constexpr (std::is_floating_point_v<K>) {
          constexpr U sign = U(1) << (sizeof(U) * 8 - 1);
          const U exponent = U(~U(0) >> 1) & ~U(L::denorm_min() == 0 ? 0 : (U(1) << (L::digits - 1)) - 1);
          const U payload = U(rng()) & ((U(1) << (L::digits - 1)) - 1);
          const U options[] = {exponent | payload | (U(1) << (L::digits - 2)),         // quiet NaN
                               sign | exponent | payload | (U(1) << (L::digits - 2)),  // negative NaN
                               exponent,
                               sign | exponent,  // +-inf
                               0,
                               sign,                                         // +-0
                               U(rng()) & ((U(1) << (L::digits - 1)) - 1)};  // subnormal
          const U bits = options[(pick >> 8) % 7];
          std::memcpy(&k, &bits, sizeof k);
        } else {
          const K options[] = {L::min(), L::max(), K(0)};
          k = options[(pick >> 8) % 3];
        }
      } else {
        for (;;) {
          const std::uint64_t bits = rng();
          std::memcpy(&k, &bits, sizeof k);
          if constexpr (std::is_floating_point_v<K>) {
            if (!std::isfinite(k)) continue;
          }
          break;
        }
      }
      std::memcpy(out.data() + i * w, &k, w);
    }
  });
  return out;
}

std::vector<unsigned char> reference_sort(KeyType t, const unsigned char* keys, std::size_t n) {
  std::vector<unsigned char> ref(keys, keys + n * clsort::key_size(t));
  visit_key_type(t, [&](auto tag) {
    using K = typename decltype(tag)::type;
    K* p = reinterpret_cast<K*>(ref.data());
    std::sort(p, p + n, [](K a, K b) { return clsort::key_less(a, b); });
  });
  return ref;
}

/// Bit-for-bit equality with the std::sort reference, except that the NaN region (where the reference
/// holds NaNs, which key_less treats as equal) must hold the same NaN bit patterns in any order.
bool verify(KeyType t, const void* out_bytes, const void* ref_bytes, std::size_t n) {
  return visit_key_type(t, [&](auto tag) {
    using K = typename decltype(tag)::type;
    if constexpr (!std::is_floating_point_v<K>) {
      return std::memcmp(out_bytes, ref_bytes, n * sizeof(K)) == 0;
    } else {
      using U = clsort::key_bits_t<K>;
      const auto* out = static_cast<const K*>(out_bytes);
      const auto* ref = static_cast<const K*>(ref_bytes);
      auto bits = [](K k) {
        U u;
        std::memcpy(&u, &k, sizeof u);
        return u;
      };
      std::vector<U> nan_out, nan_ref;
      for (std::size_t i = 0; i < n; ++i) {
        if (std::isnan(ref[i])) {
          if (!std::isnan(out[i])) return false;
          nan_ref.push_back(bits(ref[i]));
          nan_out.push_back(bits(out[i]));
        } else if (bits(out[i]) != bits(ref[i])) {
          return false;
        }
      }
      std::sort(nan_out.begin(), nan_out.end());
      std::sort(nan_ref.begin(), nan_ref.end());
      return nan_out == nan_ref;
    }
  });
}

// ---- Contenders.

/// A Sorter and the device buffers its rows share. The unsorted keys are uploaded once per (type, n)
/// into `src`; each repetition copies them into `work` outside the timed region.
struct DeviceState {
  explicit DeviceState(const cl::Device& d) : device(d), sorter(d) {}
  cl::Device device;
  clsort::Sorter sorter;
  std::unique_ptr<clsort::Sorter> profiler;  // --profile: a Sorter whose queue records event times
  cl::Buffer src, work;
  std::size_t capacity = 0;
  KeyType type = KeyType::u32;
  std::size_t n = 0;
  const unsigned char* input = nullptr;
  std::vector<unsigned char> host;

  std::size_t bytes() const { return n * clsort::key_size(type); }

  void prepare(KeyType t, const void* data, std::size_t count) {
    type = t;
    n = count;
    input = static_cast<const unsigned char*>(data);
    if (bytes() > capacity) {
      cl_int status = CL_SUCCESS;
      src = cl::Buffer(sorter.context(), CL_MEM_READ_WRITE, bytes(), nullptr, &status);
      check(status, "clCreateBuffer");
      work = cl::Buffer(sorter.context(), CL_MEM_READ_WRITE, bytes(), nullptr, &status);
      check(status, "clCreateBuffer");
      capacity = bytes();
    }
    check(sorter.queue().enqueueWriteBuffer(src, CL_TRUE, 0, bytes(), input), "uploading keys");
  }
  void reset() {
    check(sorter.queue().enqueueCopyBuffer(src, work, 0, 0, bytes()), "clEnqueueCopyBuffer");
    check(sorter.queue().finish(), "clFinish");
  }
  void run(clsort::Algorithm a) {
    clsort::Options o;
    o.algorithm = a;
    check(sorter.sort_buffer(type, work, nullptr, 0, n, o, {}).wait(), "waiting for the sort");
  }
  void result(void* out) {
    check(sorter.queue().enqueueReadBuffer(work, CL_TRUE, 0, bytes(), out), "downloading keys");
  }

  std::vector<Stage> profile(clsort::Algorithm a) {
    if (!profiler) profiler = std::make_unique<clsort::Sorter>(device, true);
    const cl::CommandQueue& q = profiler->queue();
    cl_int status = CL_SUCCESS;
    cl::Buffer buf(profiler->context(), CL_MEM_READ_WRITE, bytes(), nullptr, &status);
    check(status, "clCreateBuffer");
    std::vector<unsigned char> back(bytes());
    auto event_ms = [](const cl::Event& e) {
      cl_ulong start = 0, end = 0;
      check(e.getProfilingInfo(CL_PROFILING_COMMAND_START, &start), "clGetEventProfilingInfo");
      check(e.getProfilingInfo(CL_PROFILING_COMMAND_END, &end), "clGetEventProfilingInfo");
      return double(end - start) * 1e-6;
    };
    clsort::Options o;
    o.algorithm = a;
    cl::Event up, down;
    check(q.enqueueWriteBuffer(buf, CL_TRUE, 0, bytes(), input, nullptr, &up), "uploading keys");
    check(profiler->sort_buffer(type, buf, nullptr, 0, n, o, {}).wait(), "waiting for the sort");
    const std::vector<clsort::KernelTime> kernels = profiler->last_profile();
    check(q.enqueueReadBuffer(buf, CL_TRUE, 0, bytes(), back.data(), nullptr, &down), "downloading keys");
    std::vector<Stage> stages{{"upload", 1, event_ms(up)}};
    for (const auto& k : kernels) {
      auto it = std::find_if(stages.begin(), stages.end(), [&](const Stage& s) { return s.name == k.name; });
      if (it == stages.end()) it = stages.insert(stages.end(), Stage{k.name, 0, 0});
      ++it->calls;
      it->ms += k.ms;
    }
    stages.push_back({"download", 1, event_ms(down)});
    return stages;
  }
};

Contender device_contender(const AlgorithmEntry& a, const std::shared_ptr<DeviceState>& s, bool caps) {
  Contender c;
  c.label = std::string(a.name) + " (OpenCL)";
  c.algorithm = a.name;
  c.kind = "device";
  c.cap = caps && a.device_cap ? a.device_cap : clsort::max_n(a.algorithm);
  c.growth = a.growth;
  const clsort::Algorithm alg = a.algorithm;
  c.prepare = [s](KeyType t, const void* data, std::size_t n) { s->prepare(t, data, n); };
  c.reset = [s] { s->reset(); };
  c.run = [s, alg] { s->run(alg); };
  c.result = [s](void* out) { s->result(out); };
  c.reset_host = [s] { s->host.assign(s->input, s->input + s->bytes()); };
  c.run_host = [s, alg] {
    clsort::Options o;
    o.algorithm = alg;
    s->sorter.sort_host(s->type, s->host.data(), s->n, nullptr, 0, o);
  };
  c.result_host = [s](void* out) { std::memcpy(out, s->host.data(), s->bytes()); };
  c.profile = [s, alg] { return s->profile(alg); };
  return c;
}

/// A CPU sort of a host copy: `sort(type, data, n)` is the timed part.
Contender host_contender(std::string label, std::string algorithm, std::string kind, std::size_t cap,
                         std::function<void(KeyType, void*, std::size_t)> sort) {
  struct State {
    KeyType type;
    std::size_t n;
    const unsigned char* input;
    std::vector<unsigned char> data;
  };
  auto s = std::make_shared<State>();
  Contender c;
  c.label = std::move(label);
  c.algorithm = std::move(algorithm);
  c.kind = std::move(kind);
  c.cap = cap;
  c.prepare = [s](KeyType t, const void* data, std::size_t n) {
    s->type = t;
    s->n = n;
    s->input = static_cast<const unsigned char*>(data);
  };
  c.reset = [s] { s->data.assign(s->input, s->input + s->n * clsort::key_size(s->type)); };
  c.run = [s, sort] { sort(s->type, s->data.data(), s->n); };
  c.result = [s](void* out) { std::memcpy(out, s->data.data(), s->data.size()); };
  return c;
}

void std_sort(KeyType t, void* data, std::size_t n) {
  visit_key_type(t, [&](auto tag) {
    using K = typename decltype(tag)::type;
    K* p = static_cast<K*>(data);
    std::sort(p, p + n, [](K a, K b) { return clsort::key_less(a, b); });
  });
}

// ---- Measuring.

/// A status line on stderr while measuring, only on a terminal.
class Status {
 public:
  Status() : enabled_(stderr_is_terminal()) {}
  ~Status() { clear(); }
  void show(const std::string& text) {
    if (!enabled_) return;
    std::fprintf(stderr, "\r  measuring %s ...\033[K", text.c_str());
    std::fflush(stderr);
  }
  void clear() {
    if (enabled_) std::fputs("\r\033[K", stderr), std::fflush(stderr);
  }

 private:
  bool enabled_;
};

/// How many timed repetitions a row gets: `reps`, or with `adaptive` (no --reps given) at least
/// `min_reps` and no more once the timed repetitions passed `budget_ms`.
struct RepPolicy {
  int reps = 5;
  bool adaptive = true;
  int min_reps = 3;
  double budget_ms = 2000;
};

Row measure(Contender& c, KeyType t, std::size_t n, const unsigned char* input, const unsigned char* ref,
            const RepPolicy& policy, bool profile) {
  Row r;
  r.n = n;
  r.type = t;
  r.label = c.label;
  r.algorithm = c.algorithm;
  r.kind = c.kind;
  std::vector<unsigned char> out(n * clsort::key_size(t));
  c.prepare(t, input, n);
  c.reset();
  c.run();  // warm-up: program builds, scratch allocation, first-touch page faults
  double spent = 0;
  for (int i = 0; i < policy.reps; ++i) {
    if (policy.adaptive && i >= policy.min_reps && spent > policy.budget_ms) break;
    c.reset();
    const auto t0 = Clock::now();
    c.run();
    r.times_ms.push_back(ms_since(t0));
    spent += r.times_ms.back();
    c.result(out.data());
    r.verified = verify(t, out.data(), ref, n) && r.verified;
  }
  r.median_ms = median(r.times_ms);
  r.min_ms = *std::min_element(r.times_ms.begin(), r.times_ms.end());
  if (c.run_host) {
    // No warm-up of its own: the device warm-up built the programs; the median absorbs the first
    // call's staging-buffer allocation.
    std::vector<double> host;
    for (std::size_t i = 0; i < r.times_ms.size(); ++i) {
      c.reset_host();
      const auto t0 = Clock::now();
      c.run_host();
      host.push_back(ms_since(t0));
      c.result_host(out.data());
      r.verified = verify(t, out.data(), ref, n) && r.verified;
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
  double std_ms = -1;
  std::map<std::string, double> serial_ms;
  for (const Row& r : group) {
    if (r.label == "std::sort") std_ms = r.median_ms;
    if (r.kind == "serial") serial_ms[r.algorithm] = r.median_ms;
  }
  for (Row& r : group) {
    if (std_ms > 0) r.speedup_std = std_ms / r.median_ms;
    if (r.kind == "device" && serial_ms.count(r.algorithm))
      r.speedup_serial = serial_ms[r.algorithm] / r.median_ms;
  }
}

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

std::vector<std::size_t> parse_sizes(const std::vector<std::string>& items) {
  std::vector<std::size_t> sizes;
  for (const std::string& item : items) {
    // "A..B" is every power-of-two step from A to B, "A..B:xF" every factor F.
    const auto dots = item.find("..");
    if (dots == std::string::npos) {
      sizes.push_back(parse_size(item));
      continue;
    }
    std::string hi = item.substr(dots + 2);
    std::size_t factor = 2;
    if (const auto colon = hi.find(':'); colon != std::string::npos) {
      std::string f = hi.substr(colon + 1);
      if (!f.empty() && (f[0] == 'x' || f[0] == '*')) f = f.substr(1);
      factor = parse_size(f);
      hi = hi.substr(0, colon);
      if (factor < 2) throw CliError("--sizes: the factor in '" + item + "' must be at least 2");
    }
    const std::size_t a = parse_size(item.substr(0, dots)), b = parse_size(hi);
    if (a == 0) throw CliError("--sizes: a range must start above 0: '" + item + "'");
    for (std::size_t v = a; v <= b; v *= factor) {
      sizes.push_back(v);
      if (v > b / factor) break;
    }
  }
  for (std::size_t s : sizes)
    if (s == 0) throw CliError("--sizes: n must be at least 1");
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
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

CLI::App* add_bench_command(CLI::App& app, BenchArgs& a) {
  CLI::App* cmd = app.add_subcommand(
      "bench", "Time each algorithm on the device against its serial version and std::sort, verified");
  cmd->footer(
      "Defaults: n = 2^10..2^22 by x4, u32 keys, 5 repetitions after a warm-up (3 for rows past 2 s);\n"
      "selection sort (O(n^2)) up to 2^14 keys on the device and 2^13 serially, serial bitonic up to 2^20,\n"
      "and a row is left out from the n where it is predicted to take over 12 s. --no-caps lifts these.\n"
      "Sizes accept 2^k and 1e6 notation and ranges A..B (doubling) or A..B:x4 (factor 4).\n"
      "\nExamples:\n"
      "  clsort bench\n"
      "  clsort bench --sizes 2^16..2^24:x4 --types u32,f64 --algorithms radix --reps 9\n"
      "  clsort bench --profile --sizes 2^20 --csv out.csv --json out.json --plot out.png\n"
      "  clsort bench --sweep-wg --sizes 2^18 --algorithms radix,bitonic");
  cmd->add_option("--sizes,-n", a.sizes, "Key counts, e.g. 1000,2^16,2^18..2^22:x2")->delimiter(',');
  cmd->add_option("--types,-t", a.types, "Key types")
      ->delimiter(',')
      ->check(CLI::IsMember(key_type_names()))
      ->capture_default_str();
  cmd->add_option("--algorithms,-a", a.algorithms, "clsort algorithms to time (default: all)")
      ->delimiter(',')
      ->check(CLI::IsMember(algorithm_names()));
  cmd->add_option("--reps,-r", a.reps,
                  "Timed repetitions per row after one warm-up (default: 5, or 3 for rows that pass 2 s)")
      ->check(CLI::Range(1, 1000));
  cmd->add_option("--device", a.device, "Device: gpu, cpu, a name substring or PLATFORM:DEVICE");
  cmd->add_flag("--profile", a.profile, "Split device time into upload, each kernel and download");
  cmd->add_flag("--sweep-wg", a.sweep_wg, "Also time each algorithm over work-group sizes");
  cmd->add_option("--wg", a.wg_sizes, "Work-group sizes for --sweep-wg (default: 16..1024 by x2)")
      ->delimiter(',');
  cmd->add_flag("--no-caps", a.no_caps, "Time every row at every n: no size caps, no row time budget (slow)");
  cmd->add_flag("--no-serial", a.no_serial, "Leave out the serial versions of the algorithms");
  cmd->add_flag("--no-first-call", a.no_first_call, "Leave out the first-call (program build) table");
  cmd->add_flag(
      "--cold", a.cold,
      "Turn off clsort's and PoCL's on-disk program caches (CLSORT_CACHE=0, POCL_KERNEL_CACHE=0) so "
      "that first calls include a full compile");
  cmd->add_option("--seed", a.seed, "Random seed of the keys")->capture_default_str();
  cmd->add_flag("--specials", a.specials,
                "One key in eight an edge case: NaNs of both signs, infinities, -0, subnormals (floats), "
                "extremes (integers)");
  cmd->add_option("--csv", a.csv, "Also write the rows as CSV");
  cmd->add_option("--json", a.json, "Also write everything as JSON");
  cmd->add_option("--plot", a.plot, "Draw time against n (log-log) into a PNG with gnuplot");
  return cmd;
}

int run_bench(const BenchArgs& a) {
  const auto start = Clock::now();
  if (a.cold) {
    // Before any OpenCL call: PoCL reads its settings when the platform is first loaded.
    ::setenv("CLSORT_CACHE", "0", 1);
    ::setenv("POCL_KERNEL_CACHE", "0", 1);
  }
  const std::vector<std::size_t> sizes =
      parse_sizes(a.sizes.empty() ? std::vector<std::string>{"2^10..2^22:x4"} : a.sizes);
  std::vector<KeyType> types;
  for (const auto& t : a.types) types.push_back(parse_key_type(t));
  std::vector<const AlgorithmEntry*> algorithms;
  for (const auto& name : a.algorithms.empty() ? algorithm_names() : a.algorithms)
    if (const AlgorithmEntry* e = find_algorithm(name);
        e && std::find(algorithms.begin(), algorithms.end(), e) == algorithms.end())
      algorithms.push_back(e);
  if (!a.plot.empty() && bench::find_gnuplot().empty())
    throw CliError(
        "--plot needs gnuplot, which is not on PATH (Debian/Ubuntu: apt-get install gnuplot-nox); "
        "the bench did not run. Leave out --plot, or use --csv/--json and plot those.");

  const cl::Device device = open_device(a.device);
  auto state = std::make_shared<DeviceState>(device);
  const bool caps = !a.no_caps;

  bench::Report report;
  report.version = CLSORT_VERSION_STRING;
  report.date = now_string();
  report.device = describe_device(device);
  report.device_name = device.getInfo<CL_DEVICE_NAME>();
  report.device_reason = a.device.empty() ? clsort::default_device_reason() : "--device " + a.device;
  report.platform = cl::Platform(device.getInfo<CL_DEVICE_PLATFORM>()).getInfo<CL_PLATFORM_NAME>();
  report.pocl = report.platform.find("Portable Computing Language") != std::string::npos;
  auto env_is = [](const char* name, const char* value) {
    const char* v = std::getenv(name);
    return v && std::string(v) == value;
  };
  report.clsort_cache = !env_is("CLSORT_CACHE", "0") && !env_is("CLSORT_CACHE_DIR", "");
  report.pocl_cache = !env_is("POCL_KERNEL_CACHE", "0");
  const clsort::DevicePlan plan = state->sorter.plan();
  report.tuning_row = plan.tuning_row;
  report.tuning = plan.tuning;
  report.measured = plan.measured;
  report.automatic = plan.automatic;
  RepPolicy policy;
  policy.adaptive = a.reps == 0;
  policy.reps = a.reps ? a.reps : 5;
  report.reps = policy.reps;
  report.adaptive_reps = policy.adaptive;
  report.min_reps = policy.min_reps;
  report.rep_budget_s = policy.budget_ms / 1000;
  const double row_budget_ms = report.row_budget_s * 1000;
  report.host_threads = std::thread::hardware_concurrency();
  report.profile = a.profile;
  report.keys_description =
      std::string(a.specials
                      ? "random bit patterns, one in eight an edge case (NaN, inf, -0, subnormal, extremes)"
                      : "uniformly random bit patterns (floats: finite values only)") +
      ", seed " + std::to_string(a.seed);

  // Print order: clsort's device rows, other device sorts, serial twins, CPU baselines.
  std::vector<Contender> contenders;
  for (const AlgorithmEntry* e : algorithms) contenders.push_back(device_contender(*e, state, caps));
  std::vector<Contender> boost;
#ifdef CLSORT_CLI_HAVE_BOOST
  bench::add_boost_contenders(boost, device);
#else
  report.notes.push_back(
      "Boost rows: not built (install libboost-dev and reconfigure to add Boost.Sort and "
      "Boost.Compute rows).");
#endif
  for (auto& c : boost)
    if (c.kind == "device") contenders.push_back(c);
  if (!a.no_serial)
    for (const AlgorithmEntry* e : algorithms) {
      const SerialFn fn = e->serial;
      contenders.push_back(host_contender(std::string(e->name) + " (serial)", e->name, "serial",
                                          caps ? e->serial_cap : 0,
                                          [fn](KeyType t, void* d, std::size_t n) { fn(t, d, n); }));
    }
  contenders.push_back(host_contender("std::sort", "", "baseline", 0, std_sort));
  for (auto& c : boost)
    if (c.kind != "device") contenders.push_back(c);

  for (const Contender& c : contenders) report.labels.push_back(c.label);
  bench::print_header(report);
  Status status;
  std::map<std::string, std::size_t> skipped_above;  // label -> smallest n left out by a cap
  for (KeyType t : types) {
    const std::vector<unsigned char> data = random_keys(t, sizes.back(), a.seed, a.specials);
    // Per row: the last n timed and its median, to predict the next n's cost; rows over the budget stop.
    std::map<std::string, std::pair<std::size_t, double>> last;
    std::map<std::string, bool> stopped;
    for (std::size_t n : sizes) {
      status.show("std::sort reference, n = " + format_n(n));
      const std::vector<unsigned char> ref = reference_sort(t, data.data(), n);
      std::vector<Row> group;
      for (Contender& c : contenders) {
        if (!c.supports(t)) continue;
        if (a.specials && !c.clsort_float_order && (t == KeyType::f32 || t == KeyType::f64)) {
          const std::string note = c.label + ": not run on " + clsort::to_string(t) +
                                   " keys with --specials (it orders NaNs and -0 its own way)";
          if (std::find(report.notes.begin(), report.notes.end(), note) == report.notes.end())
            report.notes.push_back(note);
          continue;
        }
        if (c.cap && n > c.cap) {
          auto& s = skipped_above[c.label];
          s = s ? std::min(s, n) : n;
          continue;
        }
        if (stopped[c.label]) continue;
        RepPolicy row_policy = policy;
        if (caps && last.count(c.label)) {
          const auto [n0, ms0] = last[c.label];
          const double per_call = ms0 * std::pow(double(n) / double(n0), c.growth);
          const int calls = 1 + policy.min_reps * (c.run_host ? 2 : 1);  // warm-up, timed, host-to-host
          if (per_call * calls > row_budget_ms) {
            const std::string where = c.label + ", " + clsort::to_string(t) + ": ";
            const std::string why = "about " + format_sig(per_call / 1000) +
                                    " s per sort predicted, over the row budget of " +
                                    format_fixed(report.row_budget_s, 0) + " s (--no-caps times it fully)";
            if (c.label == "std::sort") {
              // The speedup column's baseline stays, timed once.
              row_policy.reps = 1;
              row_policy.adaptive = false;
              report.notes.push_back(where + "one repetition at n = " + format_n(n) + ": " + why);
            } else {
              stopped[c.label] = true;
              report.notes.push_back(where + "not timed from n = " + format_n(n) + " up: " + why);
              continue;
            }
          }
        }
        status.show(c.label + ", " + clsort::to_string(t) + ", n = " + format_n(n));
        try {
          group.push_back(
              measure(c, t, n, data.data(), ref.data(), row_policy, a.profile && c.kind == "device"));
        } catch (const std::exception& e) {
          // A third-party row (Boost) that fails is reported and dropped; clsort's own failures are fatal.
          if (!c.algorithm.empty() || c.label == "std::sort") throw;
          stopped[c.label] = true;
          report.notes.push_back(c.label + ", " + clsort::to_string(t) + ": failed at n = " + format_n(n) +
                                 ": " + e.what());
          continue;
        }
        last[c.label] = {n, group.back().median_ms};
      }
      add_speedups(group);
      status.clear();
      bench::print_rows(group);
      report.rows.insert(report.rows.end(), group.begin(), group.end());
    }
  }
  for (const auto& [label, n] : skipped_above)
    report.notes.push_back(
        label + ": not timed from n = " + format_n(n) + " up" +
        (caps ? " (capped; --no-caps times every n)" : " (above the largest n it accepts)"));

  // First call: a fresh Sorter on a fresh context builds its programs on its first sort.
  if (!a.no_first_call) {
    for (KeyType t : types)
      for (const AlgorithmEntry* e : algorithms) {
        const std::size_t cap = caps && e->device_cap ? e->device_cap : clsort::max_n(e->algorithm);
        const std::size_t n = sizes.front();
        if (n > cap) continue;
        status.show(std::string("first call of ") + e->name + ", " + clsort::to_string(t));
        const std::vector<unsigned char> data = random_keys(t, n, a.seed, a.specials);
        const std::vector<unsigned char> ref = reference_sort(t, data.data(), n);
        std::vector<unsigned char> out(data.size());
        bench::FirstCall f{e->name, t, n, 0, 0, 0, -1, true};
        auto t0 = Clock::now();
        DeviceState fresh(device);
        f.context_ms = ms_since(t0);
        fresh.prepare(t, data.data(), n);
        for (double* slot : {&f.first_ms, &f.second_ms}) {
          fresh.reset();
          t0 = Clock::now();
          fresh.run(e->algorithm);
          *slot = ms_since(t0);
          fresh.result(out.data());
          f.verified = verify(t, out.data(), ref.data(), n) && f.verified;
        }
        for (const Row& r : report.rows)
          if (r.kind == "device" && r.algorithm == e->name && r.type == t && r.n == n)
            f.steady_ms = r.median_ms;
        report.first.push_back(f);
      }
    status.clear();
  }

  if (a.sweep_wg) {
    const std::vector<unsigned> wgs = parse_wg_list(a.wg_sizes, device);
    for (const AlgorithmEntry* e : algorithms) {
      const std::string param = wg_parameter(plan, e->name);
      if (param.empty()) {
        report.notes.push_back(std::string("--sweep-wg: ") + e->name +
                               " has no work-group parameter in the tuning");
        continue;
      }
      auto sweep_state = std::make_shared<DeviceState>(device);
      Contender c = device_contender(*e, sweep_state, caps);
      c.run_host = nullptr;
      for (KeyType t : types) {
        const std::vector<unsigned char> data = random_keys(t, sizes.back(), a.seed, a.specials);
        for (std::size_t n : sizes) {
          if (n > c.cap) continue;
          const std::vector<unsigned char> ref = reference_sort(t, data.data(), n);
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
              Row r = measure(c, t, n, data.data(), ref.data(), policy, false);
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

  report.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  bench::print_footer(report);
  if (!a.csv.empty()) bench::write_csv(report, a.csv);
  if (!a.json.empty()) bench::write_json(report, a.json);
  if (!a.plot.empty()) bench::write_plot(report, a.plot);

  bool ok = true;
  for (const Row& r : report.rows) ok = ok && r.verified;
  for (const Row& r : report.sweep) ok = ok && r.verified;
  for (const auto& f : report.first) ok = ok && f.verified;
  if (!ok)
    std::fprintf(stderr, "clsort: error: some sorted outputs did not match std::sort (rows marked FAILED)\n");
  return ok ? 0 : 1;
}

}  // namespace clsort_cli
