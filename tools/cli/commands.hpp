// The clsort subcommands: each registers its options on the CLI11 app and runs from the parsed values.
#pragma once

#include <CLI/CLI.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace clsort_cli {

struct DevicesArgs {};
CLI::App* add_devices_command(CLI::App& app, DevicesArgs& args);
int run_devices(const DevicesArgs& args);

struct SortArgs {
  std::string type;
  bool descending = false;
  std::string algorithm = "automatic";
  std::string device;
  bool text = false;
  std::string input;
  std::string output = "-";
  std::string values, values_type, values_out;
  std::size_t chunk_keys = 0;         // testing: 0 sizes chunks from the device's memory
  std::size_t device_limit_keys = 0;  // testing: larger passes fail as if the device ran out of memory
  bool verbose = false;
  unsigned begin_bit = 0, end_bit = 0;  // radix: sort by these bits of the key's code only; 0, 0: all
  long long top_k = -1;     // >= 0: only the first top_k keys in order (radix selection), not a full sort
  std::string indices_out;  // with top_k: where their input indices go (u32)
  std::string segments;     // a file of num_segments + 1 offsets (u64): sort each segment on its own
};
CLI::App* add_sort_command(CLI::App& app, SortArgs& args);
int run_sort(const SortArgs& args);

struct LexsortArgs {
  std::vector<std::string> keys;  // TYPE[:desc]=FILE, the most significant first
  std::string device;
  bool text = false;
  std::string output = "-";
  bool verbose = false;
};
CLI::App* add_lexsort_command(CLI::App& app, LexsortArgs& args);
int run_lexsort(const LexsortArgs& args);

struct BenchArgs {
  std::vector<std::string> sizes;  // empty: the default sweep
  std::vector<std::string> types{"u32"};
  std::string values = "none";          // "u32"/"u64": sort (key, value) pairs
  std::vector<std::string> algorithms;  // empty: every algorithm of the table
  int reps = 0;  // 0: up to 5, at least 3, fewer than 5 only for rows slower than 2 s in total
  std::string device;
  bool profile = false;
  bool sweep_wg = false;
  std::vector<std::string> wg_sizes;
  bool no_caps = false;
  bool no_first_call = false;
  bool cold = false;
  bool no_serial = false;
  bool no_cpu_libraries = false;
  unsigned seed = 1;
  bool specials = false;
  std::string csv, json, plot;
};
CLI::App* add_bench_command(CLI::App& app, BenchArgs& args);
int run_bench(const BenchArgs& args);

}  // namespace clsort_cli
