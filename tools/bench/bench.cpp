// `clsort bench`: its options, and the run they make: the main table, each clsort algorithm on an OpenCL
// device against its serial version and std::sort over a range of n, then the sections and the output.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <thread>

#include <clsort/version.hpp>

#include "../cli/cli_common.hpp"
#include "../cli/commands.hpp"
#include "bench.hpp"

namespace clsort_cli {
namespace {

using bench::Contender;
using bench::Row;
using bench::Workload;
using clsort::KeyType;

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

/// The main table: every contender at every (type, n) it takes, each group of rows printed when measured.
void main_table(const bench::Setup& s, std::vector<Contender>& contenders, bench::DeviceState& state,
                bool no_cpu_libraries, bool profile, bench::Report& report, bench::Status& status) {
  const double row_budget_ms = report.row_budget_s * 1000;
  const std::string bound_label = bench::kCopyBoundLabel;
  std::map<std::string, std::size_t> skipped_above;  // label -> smallest n left out by a cap
  for (KeyType t : s.types) {
    const std::vector<unsigned char> data = s.keys(t, s.sizes.back());
    // Per row: the last n timed and its median, to predict the next n's cost; rows over the budget stop.
    std::map<std::string, std::pair<std::size_t, double>> last;
    std::map<std::string, bool> stopped;
    for (std::size_t n : s.sizes) {
      const Workload in = s.workload(t, n, data);
      status.show(std::string(s.value_bytes ? "std::stable_sort" : "std::sort") +
                  " reference, n = " + format_n(n));
      const bench::Reference ref = bench::reference_sort(in);
      std::vector<Row> group;
      for (Contender& c : contenders) {
        if (!c.supports(t)) continue;
        if (s.specials && !c.clsort_float_order && clsort::find_key_type(t)->is_float()) {
          const std::string note = c.label + ": not run on " + clsort::to_string(t) +
                                   " keys with --specials (it orders NaNs and -0 its own way)";
          if (std::find(report.notes.begin(), report.notes.end(), note) == report.notes.end())
            report.notes.push_back(note);
          continue;
        }
        if (c.cap && n > c.cap) {
          auto& skipped = skipped_above[c.label];
          skipped = skipped ? std::min(skipped, n) : n;
          continue;
        }
        if (stopped[c.label]) continue;
        bench::RepPolicy row_policy = s.policy;
        if (no_cpu_libraries && bench::is_std_row(c.label)) {
          row_policy.reps = 1;
          row_policy.adaptive = false;
        }
        if (s.caps && last.count(c.label)) {
          const auto [n0, ms0] = last[c.label];
          const double per_call = ms0 * std::pow(double(n) / double(n0), c.growth);
          // Warm-up, device rows' untimed sorts, timed repetitions, host-to-host calls.
          const int calls =
              1 + (c.keep_reference ? bench::kDeviceWarmups : 0) + s.policy.min_reps * (c.run_host ? 2 : 1);
          if (per_call * calls > row_budget_ms) {
            const std::string where = c.label + ", " + clsort::to_string(t) + ": ";
            const std::string why = "about " + format_sig(per_call / 1000) +
                                    " s per sort predicted, over the row budget of " +
                                    format_fixed(report.row_budget_s, 0) + " s (--no-caps times it fully)";
            if (bench::is_std_row(c.label)) {
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
          group.push_back(bench::measure(c, in, ref, row_policy, profile && c.kind == "device"));
        } catch (const std::exception& e) {
          // A third-party row (Boost) that fails is reported and dropped; clsort's own failures are fatal.
          if (!c.algorithm.empty() || bench::is_std_row(c.label)) throw;
          stopped[c.label] = true;
          report.notes.push_back(c.label + ", " + clsort::to_string(t) + ": failed at n = " + format_n(n) +
                                 ": " + e.what());
          continue;
        }
        last[c.label] = {n, group.back().median_ms};
      }
      // After the device rows, which it puts in proportion; only where one of them ran.
      const auto after_device =
          std::find_if(group.rbegin(), group.rend(), [](const Row& r) { return r.kind == "device"; }).base();
      if (after_device != group.begin() && !stopped[bound_label]) {
        status.show(bound_label + ", " + clsort::to_string(t) + ", n = " + format_n(n));
        try {
          group.insert(after_device, bench::measure_copy_bound(state, in, s.policy));
        } catch (const std::exception& e) {
          stopped[bound_label] = true;
          report.notes.push_back(bound_label + ", " + clsort::to_string(t) +
                                 ": failed at n = " + format_n(n) + ": " + e.what());
        }
      }
      bench::add_speedups(group);
      const std::optional<bench::Comparison> best = bench::best_comparison(group);
      status.clear();
      bench::print_rows(group, best);
      report.rows.insert(report.rows.end(), group.begin(), group.end());
      if (best) report.comparisons.push_back(*best);
    }
  }
  for (const auto& [label, n] : skipped_above)
    report.notes.push_back(
        label + ": not timed from n = " + format_n(n) + " up" +
        (s.caps ? " (capped; --no-caps times every n)" : " (above the largest n it accepts)"));
}

}  // namespace

CLI::App* add_bench_command(CLI::App& app, BenchArgs& a) {
  CLI::App* cmd = app.add_subcommand(
      "bench", "Time each algorithm on the device against its serial version and std::sort, verified");
  cmd->footer(
      "Defaults: n = 2^10..2^22 by x4, u32 keys, 5 repetitions after a warm-up (3 for rows past 2 s);\n"
      "selection sort (O(n^2)) up to 2^14 keys on the device and 2^13 serially, odd-even up to 2^16 on the\n"
      "device and 2^13 serially, serial bitonic up to 2^20,\n"
      "and a row is left out from the n where it is predicted to take over 12 s. --no-caps lifts these.\n"
      "Sizes accept 2^k and 1e6 notation and ranges A..B (doubling) or A..B:x4 (factor 4).\n"
      "\nExamples:\n"
      "  clsort bench\n"
      "  clsort bench --sizes 2^16..2^24:x4 --types u32,f64 --algorithms radix --reps 9\n"
      "  clsort bench --sizes 2^16,2^20 --values u32 --algorithms radix\n"
      "  clsort bench --profile --sizes 2^20 --csv out.csv --json out.json --plot out.png\n"
      "  clsort bench --sweep-wg --sizes 2^18 --algorithms radix,bitonic");
  cmd->add_option("--sizes,-n", a.sizes, "Key counts, e.g. 1000,2^16,2^18..2^22:x2")->delimiter(',');
  cmd->add_option("--types,-t", a.types, "Key types")
      ->delimiter(',')
      ->check(CLI::IsMember(key_type_names()))
      ->capture_default_str();
  cmd->add_option("--values", a.values,
                  "Sort (key, value) pairs with Sorter::sort_by_key: u32 or u64 values, each key's input "
                  "index (none: keys only)")
      ->check(CLI::IsMember({"none", "u32", "u64"}))
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
  cmd->add_flag("--no-cpu-libraries", a.no_cpu_libraries,
                "Leave out the CPU rows of other libraries (Boost.Sort, Highway vqsort, tbb::parallel_sort) "
                "and time std::sort once per n: on a GPU machine the CPU rows cost more than the device rows "
                "they put in proportion");
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
  const auto start = bench::Clock::now();
  if (a.cold) {
    // Before any OpenCL call: PoCL reads its settings when the platform is first loaded.
    ::setenv("CLSORT_CACHE", "0", 1);
    ::setenv("POCL_KERNEL_CACHE", "0", 1);
  }
  bench::Setup setup;
  setup.sizes = parse_sizes(a.sizes.empty() ? std::vector<std::string>{"2^10..2^22:x4"} : a.sizes);
  for (const auto& t : a.types) setup.types.push_back(parse_key_type(t));
  for (const auto& name : a.algorithms.empty() ? algorithm_names() : a.algorithms)
    if (const AlgorithmInfo* e = find_algorithm(name);
        e && std::find(setup.algorithms.begin(), setup.algorithms.end(), e) == setup.algorithms.end())
      setup.algorithms.push_back(e);
  if (!a.plot.empty() && bench::find_gnuplot().empty())
    throw CliError(
        "--plot needs gnuplot, which is not on PATH (Debian/Ubuntu: apt-get install gnuplot-nox); "
        "the bench did not run. Leave out --plot, or use --csv/--json and plot those.");

  setup.device = open_device(a.device);
  const cl::Device& device = setup.device;
  auto state = std::make_shared<bench::DeviceState>(device);
  setup.caps = !a.no_caps;
  setup.seed = a.seed;
  setup.specials = a.specials;

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
  // What each device row runs at the largest n: the plan a sort of that shape is given.
  if (!setup.sizes.empty())
    for (clsort::KeyType t : setup.types)
      for (const AlgorithmInfo* e : setup.algorithms) {
        const std::size_t n =
            std::min(setup.sizes.back(), e->device_cap ? e->device_cap : clsort::max_n(e->algorithm));
        try {
          const clsort::SortPlan p =
              state->sorter.plan(t, n, setup.value_bytes, {clsort::Order::ascending, e->algorithm});
          report.plans.push_back(std::string(clsort::to_string(t)) + " n=" + std::to_string(n) + ": " +
                                 p.shape);
        } catch (const clsort::Error&) {  // n over the algorithm's limit: the row says so itself
        }
      }
  bench::RepPolicy& policy = setup.policy;
  policy.adaptive = a.reps == 0;
  policy.reps = a.reps ? a.reps : 5;
  report.reps = policy.reps;
  report.adaptive_reps = policy.adaptive;
  report.min_reps = policy.min_reps;
  report.rep_budget_s = policy.budget_ms / 1000;
  report.host_threads = std::thread::hardware_concurrency();
  report.profile = a.profile;
  report.keys_description =
      std::string(a.specials
                      ? "random bit patterns, one in eight an edge case (NaN, inf, -0, subnormal, extremes)"
                      : "uniformly random bit patterns (floats: finite values only)") +
      ", seed " + std::to_string(a.seed);
  setup.value_bytes = a.values == "u32" ? 4 : a.values == "u64" ? 8 : 0;
  report.values = a.values;

  // Print order: clsort's device rows, other device sorts, the copy bound, serial twins, CPU baselines.
  std::vector<Contender> contenders;
  for (const AlgorithmInfo* e : setup.algorithms)
    contenders.push_back(bench::device_contender(*e, state, setup.caps));
  // The optional rows of other libraries (tools/CMakeLists.txt adds each one that it finds); all sort keys
  // alone.
  std::vector<Contender> libraries;
#ifdef CLSORT_CLI_HAVE_BOOST
  bench::add_boost_contenders(libraries, device);
#else
  report.notes.push_back(
      "Boost rows: not built (install libboost-dev and reconfigure to add Boost.Sort and "
      "Boost.Compute rows).");
#endif
#ifdef CLSORT_CLI_HAVE_HWY
  libraries.push_back(bench::vqsort_contender());
#else
  report.notes.push_back("highway vqsort: not built (install libhwy-dev and reconfigure to add it).");
#endif
#ifdef CLSORT_CLI_HAVE_TBB
  libraries.push_back(bench::tbb_contender());
#else
  report.notes.push_back("tbb::parallel_sort: not built (install libtbb-dev and reconfigure to add it).");
#endif
  if (setup.value_bytes && !libraries.empty()) {
    std::string names;
    for (const Contender& c : libraries) names += (names.empty() ? "" : ", ") + c.label;
    libraries.clear();
    report.notes.push_back(names + ": not run with --values (they sort keys only).");
  }
  for (auto& c : libraries)
    if (c.kind == "device") contenders.push_back(c);
  if (!a.no_serial)
    for (const AlgorithmInfo* e : setup.algorithms) {
      if (auto c = bench::serial_contender(*e, setup.value_bytes, setup.caps))
        contenders.push_back(std::move(*c));
      else
        report.notes.push_back(std::string(e->name()) +
                               " (serial): not run with --values (tools/bench/serial_sorts.hpp has no "
                               "key-value version of it)");
    }
  contenders.push_back(bench::std_contender(setup.value_bytes));
  if (!a.no_cpu_libraries)
    for (auto& c : libraries)
      if (c.kind != "device") contenders.push_back(c);

  for (const Contender& c : contenders) report.labels.push_back(c.label);
  if (!setup.algorithms.empty()) report.labels.push_back(bench::kCopyBoundLabel);
  bench::print_header(report);
  bench::Status status;
  setup.values = index_values(setup.value_bytes ? setup.sizes.back() : 0, setup.value_bytes);
  main_table(setup, contenders, *state, a.no_cpu_libraries, a.profile, report, status);
  if (!a.no_first_call) bench::first_calls(setup, report, status);
  if (a.sweep_wg) bench::sweep_wg(setup, plan, a.wg_sizes, report, status);

  report.seconds = std::chrono::duration<double>(bench::Clock::now() - start).count();
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
