// clsort_probe_custom: sort_custom of a 12-byte struct and lexsort of 2 and 3 columns, timed on device
// buffers, every result checked against std::stable_sort with the same comparison.
//
// sort_custom: the struct (float key, uint id, uint tag) by key, then id, with the same input as
// tools/lab/cub_merge_custom.cu (CUB's DeviceMergeSort::StableSortKeys with that comparison as a C++
// functor), so the rows compare directly. lexsort: (u32 of 1024 values ascending, f32 descending) and
// (u16 of 64 values ascending, i32 of 1024 values descending, f64 ascending), beside one stable
// sort_by_key of u32 keys with u32 values (what each column's pass runs, plus a gather). Each row is the
// median of REPS calls: wall clock from enqueue to completion, and device time from the profiling events
// (first command's start to last command's end); sort_custom sorts a fresh copy each call (not timed).
// With --vectors both take host data (the host API, uploaded and downloaded in each call) instead.
//
//   clsort_probe_custom --sizes 2^20,2^24 --lex-rows 2^24 --reps 10 [--bitonic] [--no-check]
#include <CLI/CLI.hpp>
#include <clsort/clsort.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "../cli/cli_common.hpp"
#include "probe_cli.hpp"
#include "probe_inputs.hpp"
#include "probe_timing.hpp"

namespace {

using clsort_probe::Clock;
using clsort_probe::median;
using clsort_probe::ms_since;
using clsort_probe::S12;
const char* const kType = "typedef struct { float key; uint id; uint tag; } S12;";
const char* const kLess = "a.key < b.key || (a.key == b.key && a.id < b.id)";
bool less(const S12& a, const S12& b) {
  return a.key < b.key || (a.key == b.key && a.id < b.id);
}

// The device time of the Sorter's last call: first command's start to last command's end.
double device_ms(const clsort::Sorter& s) {
  double end = 0;
  for (const clsort::KernelTime& k : s.last_profile()) end = std::max(end, k.start_ms + k.ms);
  return end;
}

struct Timing {
  double wall = 0, device = 0;
};

template <class F>
Timing time_calls(clsort::Sorter& s, int reps, F&& call) {
  std::vector<double> wall, dev;
  for (int r = 0; r < reps + 1; ++r) {  // one warm-up (program builds)
    const auto t0 = Clock::now();
    call();
    const double ms = ms_since(t0);
    if (r == 0) continue;
    wall.push_back(ms);
    dev.push_back(device_ms(s));
  }
  return {median(wall), median(dev)};
}

void print(const char* what, std::size_t n, const Timing& t, bool ok, bool checked) {
  std::printf("%-44s n=%-6s %10.3f %10.3f %9.3f %9s\n", what, clsort_cli::format_n(n).c_str(), t.wall,
              t.device, t.device > 0 ? double(n) / t.device * 1e-6 : 0.0,
              checked ? (ok ? "ok" : "WRONG") : "-");
  std::fflush(stdout);
}

bool custom_row(clsort::Sorter& s, std::size_t n, int reps, clsort::Algorithm algorithm, bool check,
                bool vectors) {
  const std::vector<S12> input = clsort_probe::make_s12(n);
  if (vectors) {  // host data: each call on a fresh copy (not timed)
    std::vector<S12> got;
    std::vector<double> wall, dev;
    for (int r = 0; r < reps + 1; ++r) {
      got = input;
      const auto t0 = Clock::now();
      s.sort_custom(got, kType, kLess, {clsort::Order::ascending, algorithm});
      if (r == 0) continue;
      wall.push_back(ms_since(t0));
      dev.push_back(device_ms(s));
    }
    std::vector<S12> expected = input;
    if (check) std::stable_sort(expected.begin(), expected.end(), less);
    const bool ok = !check || std::memcmp(expected.data(), got.data(), n * sizeof(S12)) == 0;
    print(algorithm == clsort::Algorithm::bitonic ? "sort_custom S12 (key, id) bitonic, host vector"
                                                  : "sort_custom S12 (key, id) merge, host vector",
          n, {median(wall), median(dev)}, ok, check);
    return ok;
  }
  cl::Buffer src(s.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * sizeof(S12),
                 const_cast<S12*>(input.data()));
  cl::Buffer data(s.context(), CL_MEM_READ_WRITE, n * sizeof(S12));
  const clsort::Options options{clsort::Order::ascending, algorithm};
  const Timing t = time_calls(s, reps, [&] {
    s.queue().enqueueCopyBuffer(src, data, 0, 0, n * sizeof(S12));
    s.queue().finish();
    s.sort_custom<S12>(data, n, kType, kLess, options).wait();
  });
  bool ok = true;
  if (check) {
    std::vector<S12> expected = input, got(n);
    std::stable_sort(expected.begin(), expected.end(), less);
    s.queue().enqueueReadBuffer(data, CL_TRUE, 0, n * sizeof(S12), got.data());
    ok = std::memcmp(expected.data(), got.data(), n * sizeof(S12)) == 0;
  }
  print(algorithm == clsort::Algorithm::bitonic ? "sort_custom S12 (key, id) bitonic"
                                                : "sort_custom S12 (key, id) merge",
        n, t, ok, check);
  return ok;
}

// A column of the lexsort rows: its host keys, device copy, order and a comparison of two rows.
struct LexColumn {
  clsort::BufferColumn device;
  clsort::Column host;
  std::function<int(std::uint32_t, std::uint32_t)> compare;
};

template <class K>
LexColumn lex_column(clsort::Sorter& s, const std::vector<K>& keys, clsort::Order order) {
  cl::Buffer b(s.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, keys.size() * sizeof(K),
               const_cast<K*>(keys.data()));
  const bool desc = order == clsort::Order::descending;
  return {clsort::column<K>(b, order), clsort::column(keys, order),
          [&keys, desc](std::uint32_t a, std::uint32_t b) {
            const K x = keys[a], y = keys[b];  // no NaNs in these columns
            if (x == y) return 0;
            return (x < y) != desc ? -1 : 1;
          }};
}

bool lex_row(clsort::Sorter& s, const char* what, const std::vector<LexColumn>& columns, std::size_t n,
             int reps, bool check, bool vectors) {
  cl::Buffer out(s.context(), CL_MEM_READ_WRITE, n * 4);
  std::vector<clsort::BufferColumn> device;
  std::vector<clsort::Column> host;
  for (const LexColumn& c : columns) device.push_back(c.device), host.push_back(c.host);
  std::vector<std::uint32_t> from_host;
  const Timing t = time_calls(s, reps, [&] {
    if (vectors)
      from_host = s.lexsort(host);
    else
      s.lexsort(device, n, out).wait();
  });
  bool ok = true;
  if (check) {
    std::vector<std::uint32_t> expected(n), got(n);
    std::iota(expected.begin(), expected.end(), 0u);
    std::stable_sort(expected.begin(), expected.end(), [&](std::uint32_t a, std::uint32_t b) {
      for (const LexColumn& c : columns)
        if (const int r = c.compare(a, b)) return r < 0;
      return false;
    });
    if (vectors)
      got = from_host;
    else
      s.queue().enqueueReadBuffer(out, CL_TRUE, 0, n * 4, got.data());
    ok = expected == got;
  }
  print((std::string(what) + (vectors ? ", host columns" : "")).c_str(), n, t, ok, check);
  return ok;
}

template <class K>
std::vector<K> keys_mod(std::size_t n, std::uint64_t seed, std::uint64_t values) {
  std::mt19937_64 rng(seed);
  std::vector<K> v(n);
  for (auto& k : v) k = K(rng() % values);
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("clsort_probe_custom: sort_custom of a 12-byte struct and lexsort of 2 and 3 columns",
               "clsort_probe_custom");
  std::vector<std::string> sizes{"2^20", "2^24"};
  std::string lex_rows = "2^24", device;
  int reps = 10;
  bool bitonic = false, no_check = false, vectors = false;
  app.add_option("--sizes", sizes, "sort_custom n, comma-separated (2^20, 1e6)")->delimiter(',');
  app.add_option("--lex-rows", lex_rows, "lexsort rows; 0: no lexsort rows");
  app.add_flag("--bitonic", bitonic, "also sort_custom's bitonic network");
  app.add_flag("--no-check", no_check, "skip the std::stable_sort checks");
  app.add_flag("--vectors", vectors,
               "sort_custom and lexsort of host data (the host API) instead of buffers");
  clsort_probe::add_reps_and_device(app, reps, device);
  CLI11_PARSE(app, argc, argv);
  try {
    const cl::Device dev = clsort_probe::open_and_print_device(device);
    std::printf("%-44s %-8s %10s %10s %9s %9s\n", "call", "n", "wall ms", "device ms", "Gelem/s", "check");
    clsort::Sorter s(dev, /*profiling=*/true);
    bool ok = true;
    for (const std::string& size : sizes) {
      const std::size_t n = clsort_cli::parse_size(size);
      ok = custom_row(s, n, reps, clsort::Algorithm::merge, !no_check, vectors) && ok;
      if (bitonic) ok = custom_row(s, n, reps, clsort::Algorithm::bitonic, !no_check, vectors) && ok;
    }
    const std::size_t rows = clsort_cli::parse_size(lex_rows);
    if (rows) {
      using clsort::Order;
      const auto u32 = keys_mod<std::uint32_t>(rows, 1, 1024);
      std::vector<float> f32(rows);
      std::mt19937_64 rng(2);
      for (auto& f : f32) f = float(std::int64_t(rng() % 2000001) - 1000000) * 0.001f;
      const auto u16 = keys_mod<std::uint16_t>(rows, 3, 64);
      const auto i32 = keys_mod<std::int32_t>(rows, 4, 1024);
      std::vector<double> f64(rows);
      for (auto& d : f64) d = double(std::int64_t(rng() >> 11)) * 1e-9;
      ok = lex_row(s, "lexsort (u32 asc, f32 desc)",
                   {lex_column(s, u32, Order::ascending), lex_column(s, f32, Order::descending)}, rows, reps,
                   !no_check, vectors) &&
           ok;
      ok = lex_row(s, "lexsort (u16 asc, i32 desc, f64 asc)",
                   {lex_column(s, u16, Order::ascending), lex_column(s, i32, Order::descending),
                    lex_column(s, f64, Order::ascending)},
                   rows, reps, !no_check, vectors) &&
           ok;
      // One pass's sort alone: u32 keys with u32 values, on a fresh copy each call.
      std::vector<std::uint32_t> index(rows);
      std::iota(index.begin(), index.end(), 0u);
      cl::Buffer ksrc(s.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, rows * 4,
                      const_cast<std::uint32_t*>(u32.data()));
      cl::Buffer vsrc(s.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, rows * 4, index.data());
      cl::Buffer k(s.context(), CL_MEM_READ_WRITE, rows * 4), v(s.context(), CL_MEM_READ_WRITE, rows * 4);
      const Timing t = time_calls(s, reps, [&] {
        s.queue().enqueueCopyBuffer(ksrc, k, 0, 0, rows * 4);
        s.queue().enqueueCopyBuffer(vsrc, v, 0, 0, rows * 4);
        s.queue().finish();
        s.sort_by_key<std::uint32_t, std::uint32_t>(k, v, rows).wait();
      });
      print("(one pass alone: sort_by_key u32 -> u32)", rows, t, true, false);
    }
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "clsort_probe_custom: %s\n", e.what());
    return 2;
  }
}
