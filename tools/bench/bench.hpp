// `clsort bench` internals shared by its files: the contenders, rows and report they pass around and the
// functions each file provides to the others (see each section's heading for the file that defines it).
#pragma once

#include <clsort/clsort.hpp>
#include <clsort/key_transform.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "../cli/cli_common.hpp"

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

/// One (type, n): the fastest clsort device row against the fastest CPU reference row (kind "baseline":
/// std::sort or std::stable_sort, Boost.Sort, Highway's vqsort, tbb::parallel_sort), verified rows only.
struct Comparison {
  std::size_t n = 0;
  clsort::KeyType type = clsort::KeyType::u32;
  std::string values = "none";
  std::string clsort_label, reference_label;
  double clsort_ms = 0, reference_ms = 0;
  /// The reference's median / clsort's: above 1, clsort is faster.
  double speedup() const { return reference_ms / clsort_ms; }
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
  std::vector<Comparison> comparisons;          // per (type, n): clsort against the best CPU reference
  std::vector<FirstCall> first;                 // first call vs steady state
  std::vector<Row> sweep;                       // --sweep-wg
  std::vector<std::string> notes;               // skipped cells, unavailable rows
  std::vector<std::string> plans;               // what each device row runs at the largest n, per key type
  double seconds = 0;
  bool profile = false;
};

// ---- bench_measure.cpp: timing one contender's row.

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0);
/// The middle value, or the mean of the two middle ones; NaN for none.
double median(std::vector<double> v);

/// How many timed repetitions a row gets: `reps`, or with `adaptive` (no --reps given) at least
/// `min_reps` and no more once the timed repetitions passed `budget_ms`.
struct RepPolicy {
  int reps = 5;
  bool adaptive = true;
  int min_reps = 3;
  double budget_ms = 2000;
  /// Whether repetition `i` is one too many after `spent_ms` of timed repetitions.
  bool done(int i, double spent_ms) const {
    return i >= reps || (adaptive && i >= min_reps && spent_ms > budget_ms);
  }
};

/// A status line on stderr while measuring, only on a terminal.
class Status {
 public:
  Status();
  ~Status() { clear(); }
  void show(const std::string& text);
  void clear();

 private:
  bool enabled_;
};

struct Reference;
/// A row of `in` for `label`, its times and verification still to come.
Row new_row(const Workload& in, const std::string& label, const std::string& algorithm,
            const std::string& kind);
/// Sets the row's median and minimum from its times.
void summarize(Row& r);
/// Times `c` on `in` under `policy` and verifies every output against `ref`; `profile`: also one
/// profiled sort per repetition, the median one kept.
Row measure(Contender& c, const Workload& in, const Reference& ref, const RepPolicy& policy, bool profile);
/// Fills the speedup and host/bound columns of one (n, type) group of rows.
void add_speedups(std::vector<Row>& group);
/// The group's fastest clsort row against its fastest CPU reference; none without either.
std::optional<Comparison> best_comparison(const std::vector<Row>& group);

// ---- bench_verify.cpp: what every timed output must equal.

/// A key next to its value, the layout std::stable_sort needs to move both.
template <class K, class V>
struct Pair {
  K key;
  V value;
};

template <class K, class V>
std::vector<Pair<K, V>> zip(const unsigned char* keys, const unsigned char* values, std::size_t n) {
  std::vector<Pair<K, V>> p(n);
  for (std::size_t i = 0; i < n; ++i) {
    std::memcpy(&p[i].key, keys + i * sizeof(K), sizeof(K));
    std::memcpy(&p[i].value, values + i * sizeof(V), sizeof(V));
  }
  return p;
}

template <class K, class V>
void unzip(const std::vector<Pair<K, V>>& p, void* keys, void* values) {
  for (std::size_t i = 0; i < p.size(); ++i) {
    std::memcpy(static_cast<unsigned char*>(keys) + i * sizeof(K), &p[i].key, sizeof(K));
    std::memcpy(static_cast<unsigned char*>(values) + i * sizeof(V), &p[i].value, sizeof(V));
  }
}

/// std::sort in clsort's order: the std::sort row and the reference of keys alone.
template <class K>
void std_sort(K* keys, std::size_t n) {
  std::sort(keys, keys + n, [](K a, K b) { return clsort::key_less(a, b); });
}

/// std::stable_sort of pairs by key in clsort's order: the std::stable_sort row and the reference of pairs.
template <class K, class V>
void stable_sort_pairs(std::vector<Pair<K, V>>& p) {
  std::stable_sort(p.begin(), p.end(),
                   [](const Pair<K, V>& a, const Pair<K, V>& b) { return clsort::key_less(a.key, b.key); });
}

/// What every timed output must equal: the keys sorted by std::sort or, with values, the pairs sorted by
/// std::stable_sort (clsort's sort_by_key is stable).
struct Reference {
  std::vector<unsigned char> keys, values;
};
Reference reference_sort(const Workload& in);
/// Bit-for-bit equality of keys and values with the reference, except in the NaN region (where the
/// reference holds NaNs, which key_less treats as equal and clsort orders arbitrarily): there the
/// (key bits, value) pairs must be the same multiset. `out_values` is ignored without values.
bool verify(const Workload& in, const void* out_keys, const void* out_values, const Reference& ref);

// ---- bench_host.cpp: the CPU rows.

/// A CPU sort of host data: keys, values (null without --values), value_bytes, n.
using HostSortFn = std::function<void(clsort::KeyType, void*, void*, std::size_t, std::size_t)>;

/// `sort(K* keys, n)` for every key type K, as a HostSortFn of keys alone.
template <class SortFn>
HostSortFn sort_keys(SortFn sort) {
  return [sort](clsort::KeyType t, void* keys, void*, std::size_t, std::size_t n) {
    visit_key_type(t, [&](auto tag) { sort(static_cast<typename decltype(tag)::type*>(keys), n); });
  };
}

/// `sort(K* keys, V* values, n)` for every key type K and value type V, as a HostSortFn of pairs.
template <class SortFn>
HostSortFn sort_pairs(SortFn sort) {
  return [sort](clsort::KeyType t, void* keys, void* values, std::size_t value_bytes, std::size_t n) {
    visit_key_type(t, [&](auto k) {
      visit_value_type(value_bytes, [&](auto v) {
        sort(static_cast<typename decltype(k)::type*>(keys), static_cast<typename decltype(v)::type*>(values),
             n);
      });
    });
  };
}

/// A CPU sort of a host copy of the keys (and values): `sort` is the timed part.
Contender host_contender(std::string label, std::string algorithm, std::string kind, std::size_t cap,
                         HostSortFn sort);
/// The "ALG (serial)" row of `a` (serial_sorts.hpp), keys alone or with values of `value_bytes`;
/// none when `a` has no key-value version there.
std::optional<Contender> serial_contender(const AlgorithmInfo& a, std::size_t value_bytes, bool caps);
/// The CPU baseline: std::sort or, with values (`value_bytes` > 0), std::stable_sort of pairs.
Contender std_contender(std::size_t value_bytes);
/// The row that the speedup column compares against: std::sort, or std::stable_sort with --values.
bool is_std_row(const std::string& label);

// ---- bench_device.cpp: clsort's device rows and the copy bound.

struct HostData;

/// A Sorter and the device buffers its rows share. The unsorted keys (and values) are uploaded once per
/// (type, n) into `src` (`values_src`); each repetition copies them into `work` (`values_work`) outside
/// the timed region.
struct DeviceState {
  explicit DeviceState(const cl::Device& d);
  ~DeviceState();
  DeviceState(const DeviceState&) = delete;
  DeviceState& operator=(const DeviceState&) = delete;
  cl::Device device;
  clsort::Sorter sorter;
  std::unique_ptr<clsort::Sorter> profiler;  // --profile: a Sorter whose queue records event times
  cl::Buffer src, work, values_src, values_work;
  std::size_t capacity = 0, values_capacity = 0;
  // The verified warm-up output (see Contender::keep_reference), sized with `work`, and the count of
  // 32-bit words in which a timed output differed from it.
  cl::Buffer reference, values_reference, differ;
  cl::Kernel differ_kernel;
  Workload in;
  std::unique_ptr<HostData> host;
  // The copy bound's staging: pinned host memory (CL_MEM_ALLOC_HOST_PTR), mapped while it lives, as
  // drivers want it for their fastest transfers.
  cl::Buffer staging;
  unsigned char* mapped = nullptr;
  std::size_t staging_capacity = 0;

  std::size_t bytes() const { return in.n * clsort::key_size(in.type); }
  std::size_t values_bytes() const { return in.values ? in.n * in.value_bytes : 0; }

  cl::Buffer device_buffer(std::size_t size);
  void prepare(const Workload& input);
  void reset();
  void run(clsort::Algorithm a);
  void keep_reference();
  void compare_with_reference();
  bool matched_reference();
  void result(void* keys, void* values);
  /// Copies this (type, n)'s keys and values into the pinned staging, for copy_round_trip().
  void stage();
  /// The copies any host-to-host sort of this data makes: keys (and values) from pinned host memory to
  /// the device and back, each call blocking.
  void copy_round_trip();
  /// Whether the staging still holds the input after the round trips.
  bool staging_intact() const;
  void unmap_staging();
  std::vector<Stage> profile(clsort::Algorithm a);
};

/// The "ALG (OpenCL)" row of `a` on `s`'s Sorter; `caps`: the table's device cap applies.
Contender device_contender(const AlgorithmInfo& a, const std::shared_ptr<DeviceState>& s, bool caps);
extern const char* const kCopyBoundLabel;  // "copy bound (pinned)"
/// The copy bound row: what the host-to-host call of this data cannot go below on copies alone, timed
/// like the other rows (one untimed warm-up, the same repetition policy).
Row measure_copy_bound(DeviceState& s, const Workload& in, const RepPolicy& policy);

// ---- bench_sections.cpp: the sections after the main table.

/// What one `clsort bench` run times, from its options.
struct Setup {
  cl::Device device;
  std::vector<clsort::KeyType> types;
  std::vector<std::size_t> sizes;  // ascending, no duplicates
  std::vector<const AlgorithmInfo*> algorithms;
  unsigned seed = 1;
  bool specials = false;
  bool caps = true;  // no --no-caps
  RepPolicy policy;
  std::size_t value_bytes = 0;        // --values: 4 or 8, else 0
  std::vector<unsigned char> values;  // each key's input index, for the largest n
  /// The bench's keys: n of type t, the first n of every larger n's.
  std::vector<unsigned char> keys(clsort::KeyType t, std::size_t n) const;
  /// The first n of `keys` with their values.
  Workload workload(clsort::KeyType t, std::size_t n, const std::vector<unsigned char>& keys) const;
};

/// First call: a fresh Sorter on a fresh context builds its programs on its first sort; at the smallest n.
void first_calls(const Setup& s, Report& report, Status& status);
/// --sweep-wg: each algorithm with a work-group parameter, over `wg_sizes` (default: 16 up to the device's
/// limit, at most 1024).
void sweep_wg(const Setup& s, const clsort::DevicePlan& plan, const std::vector<std::string>& wg_sizes,
              Report& report, Status& status);

// ---- bench_report.cpp: the output.

/// The header and column legend, printed before measuring.
void print_header(const Report& r);
/// One group of rows (one n and type), printed as soon as it is measured, then its comparison if any.
void print_rows(const std::vector<Row>& rows, const std::optional<Comparison>& best = std::nullopt);
/// Everything after the main table: first calls, profiles, sweeps, notes, total time.
void print_footer(const Report& r);
void write_csv(const Report& r, const std::string& path);
void write_json(const Report& r, const std::string& path);
/// Draws median time against n on log-log axes, one line per row and key type.
void write_plot(const Report& r, const std::string& path);
/// The gnuplot executable on PATH, or "" when there is none.
std::string find_gnuplot();

// ---- bench_boost.cpp: the optional Boost rows.

#ifdef CLSORT_CLI_HAVE_BOOST
/// Boost.Sort's pdqsort and block_indirect_sort, and Boost.Compute's sort on `device`.
void add_boost_contenders(std::vector<Contender>& out, const cl::Device& device);
#endif

// ---- bench_hwy.cpp, bench_tbb.cpp: the optional CPU reference rows, keys alone.

#ifdef CLSORT_CLI_HAVE_HWY
/// Highway's vqsort, one thread.
Contender vqsort_contender();
#endif
#ifdef CLSORT_CLI_HAVE_TBB
/// tbb::parallel_sort with clsort::key_less, in an arena of every hardware thread.
Contender tbb_contender();
#endif

}  // namespace clsort_cli::bench
