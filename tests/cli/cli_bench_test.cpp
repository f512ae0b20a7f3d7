// Tests of `clsort bench`: its tables, JSON and CSV files, options, and the CPU reference rows of other
// libraries, run through the shell on small sizes (cli_support.hpp).
#include <doctest/doctest.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli_support.hpp"

using namespace clsort_cli_test;

namespace {

// ---- Minimal JSON and CSV checks for the bench's files.

class JsonChecker {
 public:
  explicit JsonChecker(const std::string& s) : s_(s) {}
  bool valid() {
    try {
      value();
      ws();
      return i_ == s_.size();
    } catch (...) {
      return false;
    }
  }

 private:
  void ws() {
    while (i_ < s_.size() && std::strchr(" \t\r\n", s_[i_])) ++i_;
  }
  void expect(char c) {
    ws();
    if (i_ >= s_.size() || s_[i_] != c) throw 0;
    ++i_;
  }
  void literal(const char* word) {
    for (const char* p = word; *p; ++p, ++i_)
      if (i_ >= s_.size() || s_[i_] != *p) throw 0;
  }
  void string() {
    expect('"');
    while (i_ < s_.size() && s_[i_] != '"') {
      if (static_cast<unsigned char>(s_[i_]) < 0x20) throw 0;
      if (s_[i_] == '\\') ++i_;
      ++i_;
    }
    expect('"');
  }
  void number() {
    const std::size_t start = i_;
    while (i_ < s_.size() && std::strchr("+-0123456789.eE", s_[i_])) ++i_;
    double v = 0;
    const auto r = std::from_chars(s_.data() + start, s_.data() + i_, v);
    if (i_ == start || r.ec != std::errc() || r.ptr != s_.data() + i_) throw 0;
  }
  void value() {
    ws();
    if (i_ >= s_.size()) throw 0;
    const char c = s_[i_];
    if (c == '{') {
      ++i_;
      ws();
      if (s_[i_] == '}') return void(++i_);
      do {
        string();
        expect(':');
        value();
        ws();
      } while (i_ < s_.size() && s_[i_] == ',' && ++i_);
      expect('}');
    } else if (c == '[') {
      ++i_;
      ws();
      if (s_[i_] == ']') return void(++i_);
      do {
        value();
        ws();
      } while (i_ < s_.size() && s_[i_] == ',' && ++i_);
      expect(']');
    } else if (c == '"') {
      string();
    } else if (c == 't') {
      literal("true");
    } else if (c == 'f') {
      literal("false");
    } else if (c == 'n') {
      literal("null");
    } else {
      number();
    }
  }
  const std::string& s_;
  std::size_t i_ = 0;
};

std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
  std::string field;
  bool quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      row.push_back(field);
      field.clear();
    } else if (c == '\n') {
      row.push_back(field);
      field.clear();
      rows.push_back(row);
      row.clear();
    } else {
      field += c;
    }
  }
  REQUIRE_FALSE(quoted);
  REQUIRE(field.empty());
  return rows;
}

// The index of a CSV header's column; the test fails when the bench did not write it.
std::size_t csv_column(const std::vector<std::string>& header, const char* name) {
  const auto it = std::find(header.begin(), header.end(), name);
  REQUIRE(it != header.end());
  return std::size_t(it - header.begin());
}

}  // namespace

TEST_CASE("cli bench") {
  Dir d("bench");
  const Result r = d.run("bench --sizes 2^8,1000 --types u32,f64 --reps 2 --csv b.csv --json b.json");
  INFO(r.out);
  REQUIRE(r.code == 0);
  for (const char* word :
       {"device", "Columns", "median ms", "Mkeys/s", "vs std::sort", "vs serial", "host ms", "radix (OpenCL)",
        "bitonic (OpenCL)", "selection (OpenCL)", "radix (serial)", "bitonic (serial)", "selection (serial)",
        "std::sort", "First call"})
    CHECK_MESSAGE(r.out.find(word) != std::string::npos, word);
  CHECK(r.out.find("FAILED\n") == std::string::npos);

  const auto csv = parse_csv(read_file(d / "b.csv"));
  REQUIRE(csv.size() > 1);
  const auto& header = csv[0];
  const auto col = [&](const char* name) { return csv_column(header, name); };
  const std::size_t verified = col("verified"), n = col("n"), type = col("type"), ms = col("median_ms");
  std::set<std::string> rows;
  for (std::size_t i = 1; i < csv.size(); ++i) {
    REQUIRE(csv[i].size() == header.size());
    CHECK(csv[i][verified] == "yes");
    CHECK(std::stod(csv[i][ms]) > 0);
    CHECK(csv[i][col("values")] == "none");
    rows.insert(csv[i][n] + " " + csv[i][type] + " " + csv[i][col("row")]);
  }
  // Every algorithm, its serial version, the copy bound and std::sort at both sizes and types.
  for (const char* size : {"256", "1000"})
    for (const char* t : {"u32", "f64"})
      for (const char* row :
           {"radix (OpenCL)", "bitonic (OpenCL)", "selection (OpenCL)", "copy bound (pinned)",
            "radix (serial)", "bitonic (serial)", "selection (serial)", "std::sort"})
        CHECK_MESSAGE(rows.count(std::string(size) + " " + t + " " + row), size, " ", t, " ", row);

  const std::string json = read_file(d / "b.json");
  CHECK(JsonChecker(json).valid());
  CHECK(json.find("\"rows\"") != std::string::npos);
  CHECK(json.find("\"first_call\"") != std::string::npos);
  CHECK(json.find("\"verified\": false") == std::string::npos);
}

TEST_CASE("cli bench values") {
  // Key-value rows: the values are each key's input index, so "ok" checks pairing and stability exactly.
  Dir d("bench_values");
  for (const std::string values : {"u32", "u64"}) {
    // u64 with edge cases: equal keys (stability) and NaNs (compared as a multiset of pairs).
    const std::string args = values == "u32" ? "--types u32,f64" : "--types f32,i64 --specials";
    const Result r = d.run("bench --sizes 2^8,1000 " + args + " --values " + values +
                           " --reps 1 --no-first-call --csv v.csv --json v.json");
    INFO(r.out);
    REQUIRE(r.code == 0);
    for (const char* word :
         {"values   ", "sort_by_key", "std::stable_sort", "copy bound (pinned)", "host/bound"})
      CHECK_MESSAGE(r.out.find(word) != std::string::npos, word);
    CHECK(r.out.find("values   " + values) != std::string::npos);
    CHECK(r.out.find("FAILED\n") == std::string::npos);

    const auto csv = parse_csv(read_file(d / "v.csv"));
    REQUIRE(csv.size() > 1);
    const auto& header = csv[0];
    const auto col = [&](const char* name) { return csv_column(header, name); };
    std::set<std::string> rows;
    for (std::size_t i = 1; i < csv.size(); ++i) {
      REQUIRE(csv[i].size() == header.size());
      CHECK(csv[i][col("verified")] == "yes");
      CHECK(csv[i][col("values")] == values);
      // Device rows are put in proportion to the copy bound; nothing else is.
      CHECK(csv[i][col("host_over_bound")].empty() == (csv[i][col("kind")] != "device"));
      rows.insert(csv[i][col("row")]);
    }
    for (const char* row : {"radix (OpenCL)", "bitonic (OpenCL)", "selection (OpenCL)", "copy bound (pinned)",
                            "radix (serial)", "bitonic (serial)", "selection (serial)", "std::stable_sort"})
      CHECK_MESSAGE(rows.count(row), row);
    CHECK_FALSE(rows.count("std::sort"));

    const std::string json = read_file(d / "v.json");
    CHECK(JsonChecker(json).valid());
    CHECK(json.find("\"values\": \"" + values + "\"") != std::string::npos);
    CHECK(json.find("\"host_over_bound\"") != std::string::npos);
    CHECK(json.find("\"verified\": false") == std::string::npos);
  }
  const Result r = d.run("bench --values u16");
  CHECK(r.code == 2);
}

TEST_CASE("cli bench options") {
  Dir d("bench_options");
  Result r =
      d.run("bench --sizes 2^9 --algorithms radix --reps 1 --profile --sweep-wg --wg 32,64 --no-first-call");
  INFO(r.out);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("Profile") != std::string::npos);
  CHECK(r.out.find("upload") != std::string::npos);
  CHECK(r.out.find("radix.wg=32") != std::string::npos);
  CHECK(r.out.find("radix.wg=64") != std::string::npos);
  CHECK(r.out.find("bitonic (OpenCL)") == std::string::npos);
  CHECK(r.out.find("FAILED\n") == std::string::npos);
  // NaNs, infinities and zeros of both signs: the NaN region is verified as a multiset.
  r = d.run("bench --sizes 300,3000 --types f32,f64 --specials --reps 1 --no-first-call");
  CHECK(r.code == 0);
  CHECK(r.out.find("edge case") != std::string::npos);
  CHECK(r.out.find("FAILED\n") == std::string::npos);
  // A GPU run's shape: no Boost.Sort rows, std::sort timed once, the rest as usual.
  r = d.run("bench --sizes 2^9 --algorithms radix --reps 3 --no-cpu-libraries --no-serial --no-first-call");
  CHECK(r.code == 0);
  CHECK(r.out.find("block_indirect_sort") == std::string::npos);
  CHECK(r.out.find("pdqsort") == std::string::npos);
  CHECK(r.out.find("radix (serial)") == std::string::npos);
  {
    std::istringstream lines(r.out);
    bool std_row = false;
    for (std::string line; std::getline(lines, line);) {
      // A row ends with its repetitions and "yes".
      std::istringstream words(line);
      std::vector<std::string> w{std::istream_iterator<std::string>(words), {}};
      if (w.size() < 4 || w.back() != "yes" || w[1] != "u32") continue;
      if (line.find("std::sort") != std::string::npos) {
        std_row = true;
        CHECK_MESSAGE(w[w.size() - 2] == "1", line);
      } else if (line.find("radix (OpenCL)") != std::string::npos) {
        CHECK_MESSAGE(w[w.size() - 2] == "3", line);
      }
    }
    CHECK(std_row);
  }
  r = d.run("bench --sizes 0");
  CHECK(r.code == 1);
  r = d.run("bench --algorithms quicksort");
  CHECK(r.code == 2);
  r = d.run("bench --sizes 2^x");
  CHECK(r.code == 1);
  CHECK(r.err.find("2^x") != std::string::npos);
}

namespace {

/// The main table of a bench's output, one (n, type) group after another: each row's name and printed
/// median, and the group's "clsort / best CPU reference (REF): S" line.
struct BenchGroup {
  std::string n, type;
  std::vector<std::pair<std::string, double>> rows;  // row name, median ms
  std::string best_reference;                        // REF; empty without the line
  double best_speedup = -1;
};

std::vector<BenchGroup> bench_groups(const std::string& out) {
  std::vector<BenchGroup> groups;
  std::istringstream lines(out);
  const std::string marker = "clsort / best CPU reference (";
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::vector<std::string> w{std::istream_iterator<std::string>(words), {}};
    if (w.size() < 3 || w[0].find_first_not_of("0123456789") != std::string::npos) continue;
    if (groups.empty() || groups.back().n != w[0] || groups.back().type != w[1]) {
      groups.emplace_back();
      groups.back().n = w[0];
      groups.back().type = w[1];
    }
    BenchGroup& g = groups.back();
    if (const auto at = line.find(marker); at != std::string::npos) {
      const auto close = line.find("): ", at);
      REQUIRE(close != std::string::npos);
      g.best_reference = line.substr(at + marker.size(), close - at - marker.size());
      g.best_speedup = std::stod(line.substr(close + 3));
    } else if (w.size() >= 11 && (w.back() == "yes" || w.back() == "FAILED")) {
      // n, type, the name's words, then 8 columns: median ms, Mkeys/s, ..., reps, ok.
      std::string name;
      for (std::size_t i = 2; i + 8 < w.size(); ++i) name += (name.empty() ? "" : " ") + w[i];
      g.rows.emplace_back(name, std::stod(w[w.size() - 8]));
    }
  }
  return groups;
}

bool is_cpu_reference(const std::string& row) {
  for (const char* r : {"std::sort", "std::stable_sort", "boost pdqsort", "boost block_indirect_sort",
                        "highway vqsort", "tbb::parallel_sort"})
    if (row == r) return true;
  return false;
}

/// Every group names its fastest CPU reference row, and its ratio is that row's median / the fastest
/// clsort row's (the printed medians are rounded, so within a few percent).
void check_best_references(const std::vector<BenchGroup>& groups) {
  REQUIRE_FALSE(groups.empty());
  for (const BenchGroup& g : groups) {
    INFO(g.n << " " << g.type);
    REQUIRE(!g.best_reference.empty());
    double reference = -1, clsort = -1, named = -1;
    for (const auto& [row, ms] : g.rows) {
      const std::string device = " (OpenCL)";
      const bool clsort_row = row.size() > device.size() &&
                              row.compare(row.size() - device.size(), device.size(), device) == 0 &&
                              row.rfind("boost.compute", 0) != 0;
      if (is_cpu_reference(row)) reference = reference < 0 ? ms : std::min(reference, ms);
      if (clsort_row) clsort = clsort < 0 ? ms : std::min(clsort, ms);
      if (row == g.best_reference) named = ms;
    }
    CHECK(is_cpu_reference(g.best_reference));
    REQUIRE(named > 0);
    REQUIRE(clsort > 0);
    CHECK(named == reference);
    CHECK(g.best_speedup == doctest::Approx(named / clsort).epsilon(0.05));
  }
}

}  // namespace

TEST_CASE("cli bench references") {
  // The CPU reference rows of other libraries, each built only where CMake found it (tools/CMakeLists.txt):
  // a row that was not built says so in the notes, and its checks are skipped.
  Dir d("bench_references");
  Result r = d.run(
      "bench --sizes 2^12 --types u32,i32,f32,u64,i64,f64 --algorithms radix --reps 1 --no-serial "
      "--no-first-call --json r.json");
  // Shown for every run below (doctest reads r when a check fails), stderr too: the sanitizer pass reruns
  // a test whose only failure is LeakSanitizer's own crash at exit, which it recognizes from the message
  // there (tests/sanitizer/run.sh).
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("FAILED\n") == std::string::npos);
  const auto groups = bench_groups(r.out);
  CHECK(groups.size() == 6);
  check_best_references(groups);
  for (const char* row : {"highway vqsort", "tbb::parallel_sort"}) {
    if (r.out.find(std::string(row) + ": not built") != std::string::npos) {
      MESSAGE(row << " not built: its rows are not checked");
      continue;
    }
    // Every key type, verified like every row (a FAILED row would have failed the run above).
    for (const BenchGroup& g : groups)
      CHECK_MESSAGE(
          std::count_if(g.rows.begin(), g.rows.end(), [&](const auto& x) { return x.first == row; }) == 1,
          g.type, " ", row);
  }
  const std::string json = read_file(d / "r.json");
  CHECK(JsonChecker(json).valid());
  CHECK(json.find("\"best_cpu_reference\": [\n") != std::string::npos);
  CHECK(json.find("\"reference_row\"") != std::string::npos);

  // Runs where the libraries' rows sit out and a std sort is the only reference.
  auto std_reference_only = [&](const std::string& args, const std::string& reference) {
    r = d.run("bench --sizes 2^12 --algorithms radix --reps 1 --no-serial --no-first-call " + args);
    REQUIRE(r.code == 0);
    check_best_references(bench_groups(r.out));
    CHECK(r.out.find("clsort / best CPU reference (" + reference + ")") != std::string::npos);
    CHECK(r.out.find("highway vqsort  ") == std::string::npos);
    CHECK(r.out.find("tbb::parallel_sort  ") == std::string::npos);
  };
  // Pairs: the libraries' rows sort keys alone, so std::stable_sort is the only reference.
  std_reference_only("--values u32", "std::stable_sort");
  // A GPU run's shape: no library rows, std::sort the reference.
  std_reference_only("--types u64 --no-cpu-libraries", "std::sort");

  // Edge cases: vqsort orders -0 and +0 as equal, so it sits out float keys; tbb::parallel_sort runs with
  // clsort::key_less and must order NaNs, -0 and subnormals exactly as clsort does.
  r = d.run(
      "bench --sizes 3000 --types f32,i64 --specials --algorithms radix --reps 1 --no-serial "
      "--no-first-call");
  REQUIRE(r.code == 0);
  CHECK(r.out.find("FAILED\n") == std::string::npos);
  check_best_references(bench_groups(r.out));
  if (r.out.find("highway vqsort: not built") == std::string::npos)
    CHECK(r.out.find("highway vqsort: not run on f32 keys with --specials") != std::string::npos);
}
