// The output of `clsort bench`: the aligned table with its legend on stdout, CSV, JSON and a gnuplot
// log-log plot of time against n.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "../cli/cli_common.hpp"
#include "bench.hpp"

namespace clsort_cli::bench {
namespace {

bool has_label(const Report& r, const std::string& needle) {
  for (const auto& l : r.labels)
    if (l.find(needle) != std::string::npos) return true;
  return false;
}

std::string speedup(double s) {
  return s < 0 ? "-" : format_sig(s) + "x";
}

double mkeys(const Row& r) {
  return double(r.n) / (r.median_ms * 1e3);
}

void print_line(const char* fmt, const std::string& a) {
  std::printf(fmt, a.c_str());
}

constexpr const char* kRowFormat = "%10s  %-4s  %-26s %10s %9s %12s %10s %10s %10s %4s  %s\n";

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += char(c);
        }
    }
  }
  return out + "\"";
}

std::string json_number(double v) {
  if (!std::isfinite(v) || v < 0) return "null";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string profile_text(const Row& r) {
  std::string s;
  for (const Stage& st : r.profile) {
    if (!s.empty()) s += ";";
    s += st.name + "=" + format_fixed(st.ms, 4) + (st.calls > 1 ? "/" + std::to_string(st.calls) : "");
  }
  return s;
}

void open_or_fail(std::ofstream& f, const std::string& path) {
  f.open(path, std::ios::binary | std::ios::trunc);
  if (!f) throw CliError(path + ": cannot write: " + std::strerror(errno));
}

void close_or_fail(std::ofstream& f, const std::string& path) {
  f.close();
  if (!f) throw CliError(path + ": write error");
}

}  // namespace

void print_header(const Report& r) {
  std::printf("clsort bench %s, %s\n", r.version.c_str(), r.date.c_str());
  std::printf("device   %s\n", r.device.c_str());
  std::printf("         chosen by: %s\n", r.device_reason.c_str());
  std::printf("tuning   %s (%s): %s\n", r.tuning_row.c_str(), r.measured.c_str(), r.tuning.c_str());
  std::printf("         automatic picks: %s\n", r.automatic.c_str());
  for (const std::string& plan : r.plans) std::printf("plan     %s\n", plan.c_str());
  std::printf("host     %u hardware threads; serial rows and std::sort run on one thread\n", r.host_threads);
  std::printf("keys     %s\n", r.keys_description.c_str());
  const bool pairs = r.values != "none";
  if (pairs)
    std::printf("values   %s: each key's input index, sorted with it (Sorter::sort_by_key)\n",
                r.values.c_str());
  else
    std::printf("values   none: keys only (--values u32|u64 sorts key-value pairs)\n");
  if (r.adaptive_reps)
    std::printf(
        "timing   median of %d repetitions after one untimed warm-up (%d for rows whose repetitions pass\n"
        "         %s s); every output verified\n",
        r.reps, r.min_reps, format_fixed(r.rep_budget_s, 0).c_str());
  else
    std::printf("timing   median of %d repetition%s after one untimed warm-up; every output verified\n",
                r.reps, r.reps == 1 ? "" : "s");
  std::printf(
      "         device rows also sort %d times untimed right before the timed repetitions, as\n"
      "         CUB's anchor does: the warm-up's check on the host idles the device\n",
      kDeviceWarmups);
  std::printf("\nColumns\n");
  print_line("%s", pairs ? "  n             number of (key, value) pairs sorted\n"
                         : "  n             number of keys sorted\n");
  print_line("%s", "  type          key type\n");
  if (pairs)
    print_line(
        "%s",
        "  row           ALG (OpenCL): clsort's ALG sort on the device, timed from\n"
        "                Sorter::sort_by_key(cl::Buffer, cl::Buffer) until its event completes; keys and\n"
        "                values are already on the device and are restored by device-to-device copies\n"
        "                before each repetition, outside the timed region\n"
        "                ALG (serial): the same algorithm as plain sequential C++\n"
        "                (tools/bench/serial_sorts.hpp), moving the values with the keys (bitonic: each\n"
        "                key carries its position, for stability, and the values are gathered at the\n"
        "                end, as on the device)\n"
        "                std::stable_sort: std::stable_sort of (key, value) structs with clsort::key_less\n"
        "                on one thread; zipping the arrays into structs and back is not timed\n");
  else
    print_line(
        "%s",
        "  row           ALG (OpenCL): clsort's ALG sort on the device, timed from Sorter::sort(cl::Buffer)\n"
        "                until its event completes; the keys are already on the device and are restored\n"
        "                by a device-to-device copy before each repetition, outside the timed region\n"
        "                ALG (serial): the same algorithm as plain sequential C++\n"
        "                (tools/bench/serial_sorts.hpp)\n"
        "                std::sort: std::sort with clsort::key_less on one thread\n");
  if (has_label(r, "copy bound"))
    print_line(
        "%s",
        "                copy bound (pinned): the copies any host-to-host sort makes: the same bytes\n"
        "                written from pinned host memory (CL_MEM_ALLOC_HOST_PTR, mapped) to the device\n"
        "                and read back, each copy blocking\n");
  if (has_label(r, "boost pdqsort"))
    print_line("%s", "                boost pdqsort: Boost.Sort's pdqsort, one thread\n");
  if (has_label(r, "block_indirect"))
    std::printf("                boost block_indirect_sort: Boost.Sort's parallel sort, %u threads\n",
                r.host_threads);
  if (has_label(r, "highway vqsort"))
    print_line(
        "%s",
        "                highway vqsort: Highway's vectorized quicksort (hwy/contrib/sort), one thread\n");
  if (has_label(r, "tbb::parallel_sort"))
    std::printf(
        "                tbb::parallel_sort: oneTBB's parallel sort with clsort::key_less, %u threads\n",
        r.host_threads);
  if (has_label(r, "boost.compute"))
    print_line("%s",
               "                boost.compute (OpenCL): boost::compute::sort on the same device, timed like\n"
               "                clsort's rows (data on the device, until the queue finishes)\n");
  print_line("%s", "  median ms     median wall time of the timed repetitions, in milliseconds\n");
  print_line("%s", pairs ? "  Mkeys/s       n / median time, in millions of pairs per second\n"
                         : "  Mkeys/s       n / median time, in millions of keys per second\n");
  print_line(
      "%s", pairs
                ? "  vs std::sort  speedup over std::stable_sort: its median / this row's (above 1: faster)\n"
                : "  vs std::sort  speedup over std::sort: its median / this row's (above 1: faster)\n");
  print_line("%s", "  vs serial     device rows: speedup over the same algorithm's serial version\n");
  if (pairs)
    print_line(
        "%s",
        "  host ms       device rows: median of Sorter::sort_by_key(std::vector&, std::vector&), host\n"
        "                to host (upload, sort, download)\n");
  else
    print_line(
        "%s",
        "  host ms       device rows: median of Sorter::sort(std::vector&), host to host (upload, sort,\n"
        "                download)\n");
  print_line(
      "%s",
      "  host/bound    device rows: the copy bound's median / host ms; 1 would be a host-to-host call\n"
      "                that costs no more than its copies (target: 0.8 or more)\n");
  print_line("%s", "  reps          timed repetitions behind the median\n");
  if (pairs)
    print_line("%s",
               "  ok            yes: every output equals std::stable_sort's of the (key, input index)\n"
               "                pairs, keys bit for bit and values exactly (where the keys are NaN, the\n"
               "                (key bits, value) pairs compared as a multiset); FAILED otherwise. Device\n"
               "                rows check the warm-up's output so and compare each timed output with it on\n"
               "                the device, which stays busy between repetitions as CUB's are timed\n");
  else
    print_line("%s",
               "  ok            yes: every output equals std::sort's, bit for bit (NaNs compared as a\n"
               "                multiset); FAILED otherwise. Device rows check the warm-up's output so and\n"
               "                compare each timed output with it on the device, which stays busy between\n"
               "                repetitions as CUB's are timed\n");
  if (has_label(r, "copy bound"))
    print_line("%s", "                copy bound: the data came back unchanged\n");
  print_line(
      "%s",
      "Below each group of rows\n"
      "  clsort / best CPU reference (REF): REF's median / the fastest clsort (OpenCL) row's (above\n"
      "                1: clsort is faster). REF is the fastest CPU reference that ran: std::sort\n"
      "                (std::stable_sort with --values), Boost.Sort, Highway vqsort or tbb::parallel_sort\n");
  std::printf("\n");
  std::printf(kRowFormat, "n", "type", "row", "median ms", "Mkeys/s", "vs std::sort", "vs serial", "host ms",
              "host/bound", "reps", "ok");
  std::fflush(stdout);
}

void print_rows(const std::vector<Row>& rows, const std::optional<Comparison>& best) {
  for (const Row& r : rows)
    std::printf(kRowFormat, std::to_string(r.n).c_str(), clsort::to_string(r.type), r.label.c_str(),
                format_sig(r.median_ms).c_str(), format_sig(mkeys(r)).c_str(), speedup(r.speedup_std).c_str(),
                speedup(r.speedup_serial).c_str(), r.host_ms < 0 ? "-" : format_sig(r.host_ms).c_str(),
                r.host_bound < 0 ? "-" : format_sig(r.host_bound).c_str(),
                std::to_string(r.times_ms.size()).c_str(), r.verified ? "yes" : "FAILED");
  if (best)
    std::printf("%10zu  %-4s  clsort / best CPU reference (%s): %s  (%s %s ms, %s %s ms)\n", best->n,
                clsort::to_string(best->type), best->reference_label.c_str(),
                speedup(best->speedup()).c_str(), best->clsort_label.c_str(),
                format_sig(best->clsort_ms).c_str(), best->reference_label.c_str(),
                format_sig(best->reference_ms).c_str());
  if (!rows.empty()) std::printf("\n");
  std::fflush(stdout);
}

void print_footer(const Report& r) {
  if (!r.first.empty()) {
    std::printf(
        "First call vs steady state: a fresh Sorter on a fresh OpenCL context; its first sort builds the\n"
        "programs (build ~ first sort - second sort); steady: the main table's median at that n\n");
    std::printf("  %-10s %-4s %10s %11s %14s %15s %10s %10s  %s\n", "algorithm", "type", "n", "context ms",
                "first sort ms", "second sort ms", "steady ms", "build ms", "ok");
    for (const FirstCall& f : r.first)
      std::printf("  %-10s %-4s %10zu %11s %14s %15s %10s %10s  %s\n", f.algorithm.c_str(),
                  clsort::to_string(f.type), f.n, format_sig(f.context_ms).c_str(),
                  format_sig(f.first_ms).c_str(), format_sig(f.second_ms).c_str(),
                  f.steady_ms < 0 ? "-" : format_sig(f.steady_ms).c_str(),
                  format_sig(f.first_ms - f.second_ms).c_str(), f.verified ? "yes" : "FAILED");
    const bool pocl_cache = r.pocl && r.pocl_cache;
    if (r.clsort_cache || pocl_cache)
      std::printf(
          "  %s on-disk program cache%s on, so a build may be a cache load: --cold turns\n"
          "  %s off (%s) to time a full compile.\n",
          r.clsort_cache && pocl_cache ? "clsort's and PoCL's"
          : r.clsort_cache             ? "clsort's"
                                       : "PoCL's",
          r.clsort_cache && pocl_cache ? "s were" : " was", r.clsort_cache && pocl_cache ? "them" : "it",
          r.clsort_cache && pocl_cache ? "CLSORT_CACHE=0, POCL_KERNEL_CACHE=0"
          : r.clsort_cache             ? "CLSORT_CACHE=0"
                                       : "POCL_KERNEL_CACHE=0");
    else
      std::printf("  On-disk program caches were off: the first sort includes a full compile.\n");
    std::printf("\n");
  }

  if (r.profile) {
    std::printf(
        "Profile: OpenCL event times (ms) of one host-to-host sort on a profiling queue (the repetition\n"
        "with the median total); kernels as name calls x total\n");
    std::printf("  %10s  %-4s  %-18s %9s %9s %9s  %s\n", "n", "type", "row", "total", "upload", "download",
                "kernels");
    for (const Row& row : r.rows) {
      if (row.profile.empty()) continue;
      double total = 0, up = 0, down = 0;
      std::string kernels;
      for (const Stage& s : row.profile) {
        total += s.ms;
        if (s.name == "upload") {
          up = s.ms;
        } else if (s.name == "download") {
          down = s.ms;
        } else {
          if (!kernels.empty()) kernels += ", ";
          kernels += s.name + " " + std::to_string(s.calls) + "x " + format_sig(s.ms);
        }
      }
      std::printf("  %10zu  %-4s  %-18s %9s %9s %9s  %s\n", row.n, clsort::to_string(row.type),
                  row.label.c_str(), format_sig(total).c_str(), format_sig(up).c_str(),
                  format_sig(down).c_str(), kernels.c_str());
    }
    std::printf("\n");
  }

  if (!r.sweep.empty()) {
    std::printf("Work-group sweep (Sorter::tune); * marks the fastest per algorithm, type and n\n");
    std::printf("  %10s  %-4s  %-20s %10s %9s  %s\n", "n", "type", "tuning", "median ms", "Mkeys/s", "ok");
    std::map<std::string, double> best;
    auto key = [](const Row& x) {
      return x.algorithm + "|" + clsort::to_string(x.type) + "|" + std::to_string(x.n);
    };
    for (const Row& x : r.sweep) {
      auto it = best.find(key(x));
      if (it == best.end() || x.median_ms < it->second) best[key(x)] = x.median_ms;
    }
    std::string last;
    for (const Row& x : r.sweep) {
      if (!last.empty() && last != key(x)) std::printf("\n");
      last = key(x);
      std::printf("  %10zu  %-4s  %-20s %10s %9s  %s%s\n", x.n, clsort::to_string(x.type), x.tuning.c_str(),
                  format_sig(x.median_ms).c_str(), format_sig(mkeys(x)).c_str(),
                  x.verified ? "yes" : "FAILED", x.median_ms == best[key(x)] ? "  *" : "");
    }
    std::printf("\n");
  }

  if (!r.notes.empty()) {
    std::printf("Notes\n");
    for (const auto& n : r.notes) std::printf("  %s\n", n.c_str());
    std::printf("\n");
  }
  std::printf("The bench took %.1f s.\n", r.seconds);
  std::fflush(stdout);
}

void write_csv(const Report& r, const std::string& path) {
  std::ofstream f;
  open_or_fail(f, path);
  f << "n,type,values,row,algorithm,kind,tuning,reps,median_ms,min_ms,mkeys_per_s,speedup_vs_std_sort,"
       "speedup_vs_serial,host_to_host_ms,host_over_bound,verified,profile\n";
  auto num = [](double v) { return v < 0 || !std::isfinite(v) ? std::string() : json_number(v); };
  for (const auto* rows : {&r.rows, &r.sweep})
    for (const Row& x : *rows)
      f << x.n << ',' << clsort::to_string(x.type) << ',' << x.values << ',' << csv_field(x.label) << ','
        << x.algorithm << ',' << x.kind << ',' << csv_field(x.tuning) << ',' << x.times_ms.size() << ','
        << num(x.median_ms) << ',' << num(x.min_ms) << ',' << num(mkeys(x)) << ',' << num(x.speedup_std)
        << ',' << num(x.speedup_serial) << ',' << num(x.host_ms) << ',' << num(x.host_bound) << ','
        << (x.verified ? "yes" : "no") << ',' << csv_field(profile_text(x)) << '\n';
  close_or_fail(f, path);
}

void write_json(const Report& r, const std::string& path) {
  std::ofstream f;
  open_or_fail(f, path);
  auto rows = [&](const std::vector<Row>& v) {
    f << "[";
    for (std::size_t i = 0; i < v.size(); ++i) {
      const Row& x = v[i];
      f << (i ? ",\n    " : "\n    ") << "{\"n\": " << x.n
        << ", \"type\": " << json_string(clsort::to_string(x.type))
        << ", \"values\": " << json_string(x.values) << ", \"row\": " << json_string(x.label)
        << ", \"algorithm\": " << json_string(x.algorithm) << ", \"kind\": " << json_string(x.kind)
        << ", \"tuning\": " << json_string(x.tuning) << ", \"median_ms\": " << json_number(x.median_ms)
        << ", \"min_ms\": " << json_number(x.min_ms) << ", \"mkeys_per_s\": " << json_number(mkeys(x))
        << ", \"speedup_vs_std_sort\": " << json_number(x.speedup_std)
        << ", \"speedup_vs_serial\": " << json_number(x.speedup_serial)
        << ", \"host_to_host_ms\": " << json_number(x.host_ms)
        << ", \"host_over_bound\": " << json_number(x.host_bound)
        << ", \"verified\": " << (x.verified ? "true" : "false") << ", \"times_ms\": [";
      for (std::size_t j = 0; j < x.times_ms.size(); ++j) f << (j ? ", " : "") << json_number(x.times_ms[j]);
      f << "], \"profile\": [";
      for (std::size_t j = 0; j < x.profile.size(); ++j)
        f << (j ? ", " : "") << "{\"name\": " << json_string(x.profile[j].name)
          << ", \"calls\": " << x.profile[j].calls << ", \"ms\": " << json_number(x.profile[j].ms) << "}";
      f << "]}";
    }
    f << (v.empty() ? "]" : "\n  ]");
  };
  f << "{\n  \"tool\": \"clsort bench\",\n  \"version\": " << json_string(r.version)
    << ",\n  \"date\": " << json_string(r.date) << ",\n  \"device\": " << json_string(r.device)
    << ",\n  \"device_reason\": " << json_string(r.device_reason)
    << ",\n  \"tuning_row\": " << json_string(r.tuning_row) << ",\n  \"tuning\": " << json_string(r.tuning)
    << ",\n  \"tuning_measured\": " << json_string(r.measured)
    << ",\n  \"automatic\": " << json_string(r.automatic)
    << ",\n  \"keys\": " << json_string(r.keys_description) << ",\n  \"values\": " << json_string(r.values)
    << ",\n  \"reps\": " << r.reps << ",\n  \"host_threads\": " << r.host_threads << ",\n  \"rows\": ";
  rows(r.rows);
  f << ",\n  \"best_cpu_reference\": [";
  for (std::size_t i = 0; i < r.comparisons.size(); ++i) {
    const Comparison& x = r.comparisons[i];
    f << (i ? ",\n    " : "\n    ") << "{\"n\": " << x.n
      << ", \"type\": " << json_string(clsort::to_string(x.type)) << ", \"values\": " << json_string(x.values)
      << ", \"clsort_row\": " << json_string(x.clsort_label)
      << ", \"clsort_ms\": " << json_number(x.clsort_ms)
      << ", \"reference_row\": " << json_string(x.reference_label)
      << ", \"reference_ms\": " << json_number(x.reference_ms)
      << ", \"speedup\": " << json_number(x.speedup()) << "}";
  }
  f << (r.comparisons.empty() ? "]" : "\n  ]");
  f << ",\n  \"first_call\": [";
  for (std::size_t i = 0; i < r.first.size(); ++i) {
    const FirstCall& x = r.first[i];
    f << (i ? ",\n    " : "\n    ") << "{\"algorithm\": " << json_string(x.algorithm)
      << ", \"type\": " << json_string(clsort::to_string(x.type)) << ", \"n\": " << x.n
      << ", \"context_ms\": " << json_number(x.context_ms) << ", \"first_ms\": " << json_number(x.first_ms)
      << ", \"second_ms\": " << json_number(x.second_ms) << ", \"steady_ms\": " << json_number(x.steady_ms)
      << ", \"verified\": " << (x.verified ? "true" : "false") << "}";
  }
  f << (r.first.empty() ? "]" : "\n  ]") << ",\n  \"sweep\": ";
  rows(r.sweep);
  f << ",\n  \"notes\": [";
  for (std::size_t i = 0; i < r.notes.size(); ++i) f << (i ? ", " : "") << json_string(r.notes[i]);
  f << "],\n  \"seconds\": " << json_number(r.seconds) << "\n}\n";
  close_or_fail(f, path);
}

std::string find_gnuplot() {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    const std::string candidate = (dir.empty() ? std::string(".") : dir) + "/gnuplot";
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return {};
}

void write_plot(const Report& r, const std::string& path) {
  const std::string gnuplot = find_gnuplot();
  if (gnuplot.empty())
    throw CliError("--plot: gnuplot is not on PATH (Debian/Ubuntu: apt-get install gnuplot-nox)");
  // One series per row and key type, in table order.
  std::vector<std::string> names;
  std::map<std::string, std::vector<std::pair<std::size_t, double>>> series;
  const bool many_types = [&] {
    for (const Row& x : r.rows)
      if (x.type != r.rows.front().type) return true;
    return false;
  }();
  for (const Row& x : r.rows) {
    const std::string name = x.label + (many_types ? std::string(" ") + clsort::to_string(x.type) : "");
    if (!series.count(name)) names.push_back(name);
    series[name].emplace_back(x.n, x.median_ms);
  }
  auto quote = [](const std::string& s) {  // a gnuplot single-quoted string
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("''") : std::string(1, c);
    return q + "'";
  };
  std::ostringstream script;
  script << "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
            "  set terminal pngcairo size 1280,800 noenhanced font ',10'\n"
            "} else {\n"
            "  set terminal png size 1280,800 noenhanced\n"
            "}\n"
         << "set output " << quote(std::filesystem::absolute(path).string()) << "\n"
         << "set title " << quote("clsort bench " + r.version + ": " + r.device_name + ", " + r.date) << "\n"
         << "set logscale x 2\nset format x '2^%L'\nset logscale y 10\nset format y '%g'\n"
         << "set xlabel 'n (keys)'\nset ylabel 'median time (ms)'\nset grid\nset key outside right top\n";
  for (std::size_t i = 0; i < names.size(); ++i) {
    script << "$d" << i << " << EOD\n";
    for (const auto& [n, ms] : series[names[i]]) script << n << ' ' << ms << '\n';
    script << "EOD\n";
  }
  script << "plot ";
  for (std::size_t i = 0; i < names.size(); ++i) {
    const bool device = names[i].find("OpenCL") != std::string::npos;
    script << (i ? ", \\\n     " : "") << "$d" << i << " using 1:2 with linespoints "
           << (device ? "lw 2 " : "dt 2 ") << "title " << quote(names[i]);
  }
  script << "\n";

  std::string tmp = (std::filesystem::temp_directory_path() / "clsort-plot-XXXXXX").string();
  const int fd = ::mkstemp(tmp.data());
  if (fd < 0)
    throw CliError("--plot: cannot create a temporary gnuplot script: " + std::string(std::strerror(errno)));
  const std::string text = script.str();
  const bool written = ::write(fd, text.data(), text.size()) == ssize_t(text.size());
  ::close(fd);
  const std::string command = "'" + gnuplot + "' '" + tmp + "'";
  const int rc = written ? std::system(command.c_str()) : -1;
  ::unlink(tmp.c_str());
  if (rc != 0) throw CliError("--plot: gnuplot failed to draw " + path);
  std::printf("Plot written to %s\n", path.c_str());
}

}  // namespace clsort_cli::bench
