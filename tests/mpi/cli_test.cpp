// `mpiexec -n P clsort sort --mpi INPUT OUTPUT --type T`: files written here, sorted by the command line on
// several ranks (MPI-IO), compared with std::stable_sort by clsort's order codes; failures leave no
// output and an existing one untouched. A plain program that starts mpiexec through the shell.
#include <doctest/doctest.h>

#include <clsort/key_transform.hpp>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli_support.hpp"

namespace {

using clsort_cli_test::quote;
using clsort_cli_test::Result;
namespace fs = std::filesystem;

template <class T>
void write_vector(const fs::path& p, const std::vector<T>& v) {
  std::ofstream f(p, std::ios::binary | std::ios::trunc);
  f.write(reinterpret_cast<const char*>(v.data()), std::streamsize(v.size() * sizeof(T)));
  REQUIRE(f.good());
}

template <class T>
std::vector<T> read_vector(const fs::path& p) {
  const std::string bytes = clsort_cli_test::read_file(p);
  std::vector<T> v(bytes.size() / sizeof(T));
  std::memcpy(v.data(), bytes.data(), v.size() * sizeof(T));
  return v;
}

/// A fresh directory per test case (cli_support.hpp's), where the command line runs under mpiexec.
class Dir : public clsort_cli_test::Dir {
 public:
  using clsort_cli_test::Dir::Dir;
  /// The names of the files in the directory, sorted.
  std::vector<std::string> files() const {
    const std::set<std::string> names = clsort_cli_test::Dir::files();
    return {names.begin(), names.end()};
  }
  /// `mpiexec -n ranks clsort ARGS` in this directory: its exit code and stderr.
  Result run(int ranks, const std::string& args) const {
    const fs::path err = path() / "stderr.capture";
    const std::string cmd = "cd " + quote(path().string()) + " && " + CLSORT_MPIEXEC + " " +
                            std::to_string(ranks) + " " + quote(CLSORT_CLI_EXE) + " " + args +
                            " >/dev/null 2>" + quote(err.string());
    const int status = std::system(cmd.c_str());
    const std::string error = clsort_cli_test::read_file(err);
    fs::remove(err);
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, {}, error};
  }
};

/// The stable order of keys by clsort's codes (NaNs by their bits), as a permutation.
template <class K>
std::vector<std::size_t> stable_order(const std::vector<K>& keys, bool descending) {
  std::vector<std::size_t> idx(keys.size());
  std::iota(idx.begin(), idx.end(), std::size_t(0));
  std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) {
    return clsort::encode_key(keys[a], descending) < clsort::encode_key(keys[b], descending);
  });
  return idx;
}

template <class K>
std::vector<K> random_bits(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<K> v(n);
  for (K& k : v) {
    const std::uint64_t bits = rng();
    std::memcpy(&k, &bits, sizeof k);
  }
  return v;
}

template <class K>
bool same_bits(const std::vector<K>& a, const std::vector<K>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(K)) == 0;
}

}  // namespace

TEST_CASE("mpi cli sort by key") {
  const Dir dir("by_key");
  const std::vector<std::uint64_t> keys = random_bits<std::uint64_t>(100003, 1);
  std::vector<std::uint32_t> values(keys.size());
  std::iota(values.begin(), values.end(), 0u);
  write_vector(dir / "k.u64", keys);
  write_vector(dir / "v.u32", values);
  const Result r = dir.run(3, "sort --mpi k.u64 out.u64 --type u64 --values v.u32 --values-type u32");
  REQUIRE_MESSAGE(r.code == 0, r.err);
  CHECK(r.err.find("3 ranks read") != std::string::npos);  // rank 0's progress
  const std::vector<std::size_t> order = stable_order(keys, false);
  std::vector<std::uint64_t> expected(keys.size());
  std::vector<std::uint32_t> expected_values(keys.size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    expected[i] = keys[order[i]];
    expected_values[i] = values[order[i]];
  }
  CHECK(read_vector<std::uint64_t>(dir / "out.u64") == expected);
  CHECK(read_vector<std::uint32_t>(dir / "out.u64.values") == expected_values);
  CHECK(dir.files() == std::vector<std::string>{"k.u64", "out.u64", "out.u64.values", "v.u32"});
}

TEST_CASE("mpi cli floats descending, any balance, in place") {
  const Dir dir("floats");
  std::vector<float> keys = random_bits<float>(50001, 2);  // every bit pattern: NaNs of both signs, +-0
  for (std::size_t i = 0; i < keys.size(); i += 7) keys[i] = i % 2 ? -0.0f : 0.0f;
  write_vector(dir / "k.f32", keys);
  const Result r = dir.run(4, "sort --mpi k.f32 k.f32 --type f32 --descending --balance any -q");
  REQUIRE_MESSAGE(r.code == 0, r.err);
  CHECK(r.err.empty());  // --quiet
  const std::vector<std::size_t> order = stable_order(keys, true);
  std::vector<float> expected(keys.size());
  for (std::size_t i = 0; i < order.size(); ++i) expected[i] = keys[order[i]];
  CHECK(same_bits(read_vector<float>(dir / "k.f32"), expected));
}

TEST_CASE("mpi cli fewer keys than ranks") {
  const Dir dir("few");
  for (std::size_t n : {std::size_t(0), std::size_t(2)}) {
    const std::vector<std::uint16_t> keys = random_bits<std::uint16_t>(n, 3);
    write_vector(dir / "k.u16", keys);
    const Result r = dir.run(4, "sort --mpi k.u16 out.u16 --type u16 --begin-bit 4 --end-bit 12");
    REQUIRE_MESSAGE(r.code == 0, r.err);
    std::vector<std::uint16_t> expected = keys;
    std::stable_sort(expected.begin(), expected.end(),
                     [](std::uint16_t a, std::uint16_t b) { return (a >> 4 & 0xFF) < (b >> 4 & 0xFF); });
    CHECK(read_vector<std::uint16_t>(dir / "out.u16") == expected);
  }
}

TEST_CASE("mpi cli errors") {
  const Dir dir("errors");
  write_vector(dir / "k.u32", random_bits<std::uint32_t>(1000, 4));
  write_vector(dir / "odd.bin", std::vector<unsigned char>(4001, 1));
  write_vector(dir / "short.u32", std::vector<std::uint32_t>(999, 1));
  write_vector(dir / "out.u32", std::vector<std::uint32_t>{42});  // an existing output
  const std::vector<std::string> before = dir.files();
  struct Bad {
    std::string args, message;
  };
  for (const Bad& b :
       {Bad{"sort --mpi missing.u32 out.u32 --type u32", "cannot open the input"},
        Bad{"sort --mpi odd.bin out.u32 --type u32", "not a whole number"},
        Bad{"sort --mpi k.u32 out.u32 --type u32 --values short.u32 --values-type u32", "values"},
        Bad{"sort --mpi k.u32 out.u32 --type u32 --begin-bit 40", "begin_bit"},
        Bad{"sort --mpi k.u32 out.u32 --type u32 --device no-such-device", "no-such-device"}}) {
    const Result r = dir.run(2, b.args);
    CHECK_MESSAGE(r.code == 1, b.args, ": ", r.err);
    CHECK_MESSAGE(r.err.find(b.message) != std::string::npos, b.args, ": ", r.err);
    CHECK(dir.files() == before);
    CHECK(read_vector<std::uint32_t>(dir / "out.u32") == std::vector<std::uint32_t>{42});
  }
  const Result usage = dir.run(2, "sort --mpi k.u32 --type u32");  // no OUTPUT
  CHECK(usage.code == 2);
  CHECK(dir.run(1, "sort --mpi --help").code == 0);
}

TEST_CASE("mpi cli bench") {
  // Small sizes, one repetition: the table, verified results, and the CSV.
  const Dir dir("bench");
  for (const char* data : {"device", "host"}) {
    const Result r =
        dir.run(3, std::string("bench --mpi --types u32,f64 --values none,u64 --sizes 1000,2^12 --reps 1 "
                               "--csv rows.csv --data ") +
                       data);
    REQUIRE_MESSAGE(r.code == 0, r.err);
    std::ifstream csv((dir / "rows.csv").string());
    std::string line;
    int rows = 0;
    while (std::getline(csv, line))
      if (rows++ > 0) CHECK_MESSAGE(line.substr(line.size() - 2) == ",1", line);  // verified
    CHECK(rows == 1 + 2 * 2 * 2);
  }
}
