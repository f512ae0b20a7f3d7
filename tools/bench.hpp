// `clsort bench` internals shared by its measuring (bench.cpp), its optional Boost rows (bench_boost.cpp)
// and its output (bench_report.cpp): contenders, measured rows and the report.
#pragma once

#include <clsort/clsort.hpp>

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace clsort_cli::bench {

/// What one OpenCL command of a profiled sort cost, summed over its launches.
struct Stage {
  std::string name;
  int calls = 0;
  double ms = 0;
};

/// The data of one (type, n): the keys and, with --values, the values sorted with them.
struct Workload {
  clsort::KeyType type = clsort::KeyType::u32;
  std::size_t n = 0;
  const void* keys = nullptr;
  const void* values = nullptr;  // null: keys only
  std::size_t value_bytes = 0;   // 4 or 8 with values, else 0
};

/// One way of sorting that the bench times. The bench calls prepare() once per (type, n), then per
/// repetition reset() (untimed), run() (timed) and result() (untimed, for verification).
struct Contender {
  std::string label;      // the table's row name, e.g. "radix (OpenCL)"
  std::string algorithm;  // the algorithm table's name for clsort rows and their serial twins, else ""
  std::string kind;       // "device" (clsort), "serial" (its CPU twin), "baseline" (std::sort, Boost)
  std::size_t cap = 0;    // largest n timed (0: no limit)
  double growth = 1.1;    // time ~ n^growth: predicts whether a larger n fits the row budget
  bool clsort_float_order = true;  // orders NaNs and -0 as clsort does (else not run with --specials)
  std::function<bool(clsort::KeyType)> supports = [](clsort::KeyType) { return true; };
  std::function<void(const Workload&)> prepare;
  std::function<void()> reset, run;
  std::function<void(void* keys, void* values)> result;  // values: null when keys only
  // Device rows also time the host-to-host call, Sorter::sort(std::vector&) or with values
  // Sorter::sort_by_key(std::vector&, std::vector&): upload, sort, download.
  std::function<void()> reset_host, run_host;
  std::function<void(void* keys, void* values)> result_host;
  // Device rows with --profile: one sort on a profiling queue, from host data back to host data.
  std::function<std::vector<Stage>()> profile;
  // Device rows: the warm-up's output, once verified on the host, stays on the device as the reference,
  // and each timed repetition's output is compared with it there; the host reads one count at the end.
  // So nothing leaves the GPU idle between repetitions, as CUB's anchor times them back to back: idle
  // gaps lower the next sort's clocks (H100 2^24 u32: 0.428-0.430 ms back to back, 0.470-0.487 after 30-100
  // ms of host work).
  std::function<void()> keep_reference, compare_with_reference;
  std::function<bool()> matched_reference;
};

struct Row {
  std::size_t n = 0;
  clsort::KeyType type = clsort::KeyType::u32;
  std::string values = "none";  // the value type sorted with the keys: "none", "u32" or "u64"
  std::string label, algorithm, kind;
  std::string tuning;  // sweep rows: the override, e.g. "radix.wg=64"
  std::vector<double> times_ms;
  double median_ms = 0, min_ms = 0;
  double host_ms = -1;     // host-to-host median (device rows), -1 when not measured
  double host_bound = -1;  // device rows: the copy bound's median / host_ms (1: as fast as the copies)
  double speedup_std = -1, speedup_serial = -1;  // -1: not applicable
  bool verified = true;
  std::vector<Stage> profile;  // --profile: upload, each kernel, download
};

struct FirstCall {
  std::string algorithm;
  clsort::KeyType type;
  std::size_t n;
  double context_ms, first_ms, second_ms, steady_ms;  // steady: the main table's median (-1 if absent)
  bool verified;
};

// Untimed device sorts right before a device row's timed ones, as CUB's anchor runs: the warm-up's check
// on the host leaves the device idle long enough to lower its clocks, which a 2^16-key row of 0.05 ms
// sorts feels (H100: f32 at 2^16 0.85x CUB without them, 1.33x with).
constexpr int kDeviceWarmups = 3;

struct Report {
  std::string version, date, device, device_name, device_reason, platform, tuning_row, tuning, measured,
      automatic;
  std::string keys_description;
  std::string values = "none";  // --values
  int reps = 0;
  bool adaptive_reps = true;  // reps is a maximum: slow rows stop at min_reps
  int min_reps = 3;
  double rep_budget_s = 2, row_budget_s = 12;
  unsigned host_threads = 0;
  bool pocl = false;
  bool clsort_cache = true, pocl_cache = true;  // on-disk program caches in force
  std::vector<std::string> labels;              // every row the bench may print, for the legend
  std::vector<Row> rows;                        // the main table, in print order
  std::vector<FirstCall> first;                 // first call vs steady state
  std::vector<Row> sweep;                       // --sweep-wg
  std::vector<std::string> notes;               // skipped cells, unavailable rows
  double seconds = 0;
  bool profile = false;
};

/// The header and column legend, printed before measuring.
void print_header(const Report& r);
/// One group of rows (one n and type), printed as soon as it is measured.
void print_rows(const std::vector<Row>& rows);
/// Everything after the main table: first calls, profiles, sweeps, notes, total time.
void print_footer(const Report& r);
void write_csv(const Report& r, const std::string& path);
void write_json(const Report& r, const std::string& path);
/// Draws median time against n on log-log axes, one line per row and key type.
void write_plot(const Report& r, const std::string& path);
/// The gnuplot executable on PATH, or "" when there is none.
std::string find_gnuplot();

#ifdef CLSORT_CLI_HAVE_BOOST
/// Boost.Sort's pdqsort and block_indirect_sort, and Boost.Compute's sort on `device`.
void add_boost_contenders(std::vector<Contender>& out, const cl::Device& device);
#endif

}  // namespace clsort_cli::bench
