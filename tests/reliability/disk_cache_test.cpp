// The disk program cache under faults: a miss writes entries, a hit rewrites nothing, a corrupt entry is
// rebuilt and rewritten, an unwritable directory and CLSORT_CACHE=0 write nothing, and every sort is right.
// Each step makes a new context, so programs come from the disk cache or the compiler, never from memory.
#include <sys/stat.h>
#include <unistd.h>

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>

#include "reference.hpp"
#include "support/env_guard.hpp"

namespace reliability {
namespace {

namespace fs = std::filesystem;

using clsort_test::EnvGuard;

struct TempDir {
  fs::path path;
  explicit TempDir(const std::string& what)
      : path(fs::temp_directory_path() / ("clsort-reliability-" + what + "-" + std::to_string(::getpid()))) {
    fs::remove_all(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::permissions(path, fs::perms::owner_all, ec);
    fs::remove_all(path, ec);
  }
};

// Sorts that need three programs (radix keys only, bitonic by key, selection 64-bit) on a new context;
// returns what went wrong.
std::string probe_sorts() {
  const cl::Device device = clsort::default_device();
  const cl::Context context(device);
  clsort::Sorter s(cl::CommandQueue(context, device));
  std::mt19937_64 rng(42);
  std::string error;
  const struct {
    Algorithm a;
    KeyType t;
    bool by_key;
  } runs[] = {{Algorithm::radix, KeyType::u32, false},
              {Algorithm::bitonic, KeyType::f32, true},
              {Algorithm::selection, KeyType::f64, false}};
  for (const auto& r : runs) {
    const std::size_t n = 2500;
    const std::vector<std::uint64_t> keys = make_keys(r.t, Dist::specials, n, rng);
    std::vector<unsigned char> k = pack(r.t, keys), v = make_values(n, 4, rng);
    try {
      s.sort_host(r.t, k.data(), n, r.by_key ? v.data() : nullptr, 4, {Order::descending, r.a});
    } catch (const std::exception& e) {
      return std::string(clsort::to_string(r.a)) + " threw: " + e.what();
    }
    const std::vector<std::uint64_t> out = unpack(r.t, k.data(), n);
    error = r.by_key ? check_pairs(r.t, Order::descending, keys, out, value_indices(v, 4))
                     : check_keys(r.t, Order::descending, keys, out);
    if (!error.empty()) return std::string(clsort::to_string(r.a)) + ": " + error;
  }
  return {};
}

// name -> (inode, contents)
std::map<std::string, std::pair<ino_t, std::string>> entries(const fs::path& dir) {
  std::map<std::string, std::pair<ino_t, std::string>> out;
  if (!fs::exists(dir)) return out;
  for (const auto& f : fs::directory_iterator(dir)) {
    struct stat st {};
    REQUIRE(::stat(f.path().c_str(), &st) == 0);
    std::ifstream in(f.path(), std::ios::binary);
    out[f.path().filename().string()] = {st.st_ino, std::string(std::istreambuf_iterator<char>(in), {})};
  }
  return out;
}

TEST_CASE("disk cache: miss, hit, corrupt entries") {
  TempDir dir("cache");
  EnvGuard off("CLSORT_CACHE", std::nullopt);
  EnvGuard at("CLSORT_CACHE_DIR", dir.path.string());

  // Miss: a cold directory is created (0700) and gets one private (0600) entry per program.
  CHECK(probe_sorts() == "");
  const auto written = entries(dir.path);
  CHECK(written.size() >= 3);
  CHECK((fs::status(dir.path).permissions() & fs::perms::all) == fs::perms::owner_all);
  for (const auto& [name, e] : written) {
    CAPTURE(name);
    CHECK(e.second.compare(0, 8, "CLSORTB1") == 0);
    CHECK((fs::status(dir.path / name).permissions() & fs::perms::all) ==
          (fs::perms::owner_read | fs::perms::owner_write));
  }

  // Hit: nothing is rewritten.
  CHECK(probe_sorts() == "");
  CHECK(entries(dir.path) == written);

  // Corrupt entries (garbage, a flipped payload byte, truncated, empty): still sorted, and rewritten whole.
  int i = 0;
  std::map<std::string, std::string> corrupted;
  for (const auto& [name, e] : written) {
    std::string bad = e.second;
    switch (i++ % 4) {
      case 0:
        bad.assign(e.second.size(), '\x5a');
        break;
      case 1:
        bad[bad.size() - 1] = char(bad[bad.size() - 1] ^ 0x40);
        break;
      case 2:
        bad.resize(bad.size() / 2);
        break;
      case 3:
        bad.clear();
        break;
    }
    std::ofstream(dir.path / name, std::ios::binary | std::ios::trunc) << bad;
    corrupted[name] = bad;
  }
  CHECK(probe_sorts() == "");
  const auto rewritten = entries(dir.path);
  CHECK(rewritten.size() == written.size());
  for (const auto& [name, e] : written) {
    CAPTURE(name);
    REQUIRE(rewritten.count(name));
    // A whole entry again. Not necessarily the same bytes: some compilers (Intel's) do not rebuild a
    // program into an identical binary.
    const std::string& entry = rewritten.at(name).second;
    CHECK(entry.compare(0, 8, "CLSORTB1") == 0);
    CHECK(entry != corrupted.at(name));
    CHECK(entry.size() > 8);
  }
  CHECK(probe_sorts() == "");  // and the rewritten entries are hits
  CHECK(entries(dir.path) == rewritten);
}

TEST_CASE("disk cache: unwritable directories and CLSORT_CACHE=0 write nothing and fail nothing") {
  TempDir dir("cache-off");
  EnvGuard off("CLSORT_CACHE", std::nullopt);

  SUBCASE("a directory below a regular file (unwritable even for root)") {
    fs::create_directories(dir.path);
    std::ofstream(dir.path / "file") << "not a directory";
    EnvGuard at("CLSORT_CACHE_DIR", (dir.path / "file" / "sub").string());
    CHECK(probe_sorts() == "");
    CHECK(fs::is_regular_file(dir.path / "file"));
  }
  SUBCASE("a read-only directory (0500)") {
    fs::create_directories(dir.path / "ro");
    fs::permissions(dir.path / "ro", fs::perms::owner_read | fs::perms::owner_exec);
    EnvGuard at("CLSORT_CACHE_DIR", (dir.path / "ro").string());
    CHECK(probe_sorts() == "");
    if (::geteuid() != 0)  // root writes regardless of permissions
      CHECK(entries(dir.path / "ro").empty());
  }
  SUBCASE("CLSORT_CACHE=0") {
    fs::create_directories(dir.path / "off");
    EnvGuard at("CLSORT_CACHE_DIR", (dir.path / "off").string());
    EnvGuard zero("CLSORT_CACHE", std::string("0"));
    CHECK(probe_sorts() == "");
    CHECK(entries(dir.path / "off").empty());
  }
  SUBCASE("CLSORT_CACHE_DIR empty") {
    EnvGuard at("CLSORT_CACHE_DIR", std::string(""));
    CHECK(probe_sorts() == "");
  }
}

}  // namespace
}  // namespace reliability
