// Load held: 8 threads x 200 mixed sorts (algorithm, key type, order, n, host or device data) on Sorters
// sharing one fresh context, every result verified; and processes sharing one cold disk program cache.
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <thread>
#include <tuple>

#include "reference.hpp"

#ifndef CLSORT_CACHE_WORKER
#error "CLSORT_CACHE_WORKER must name the cache_worker executable"
#endif

extern char** environ;

namespace reliability {
namespace {

std::size_t env_size(const char* name, std::size_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::size_t(std::strtoull(v, nullptr, 0)) : fallback;
}

// One sort of n keys of type t by algorithm a, checked; mode 0: host keys, 1: host keys with 8-byte values,
// 2: argsort, 3: device keys. Returns what went wrong, or nothing.
std::string one_sort(clsort::Sorter& s, KeyType t, Order o, Algorithm a, std::size_t n, Dist d, int mode,
                     std::mt19937_64& rng) {
  const std::vector<std::uint64_t> keys = make_keys(t, d, n, rng);
  std::vector<unsigned char> k = pack(t, keys);
  if (mode == 0) {
    s.sort_host(t, k.data(), n, nullptr, 0, {o, a});
    return check_keys(t, o, keys, unpack(t, k.data(), n));
  }
  if (mode == 1) {
    std::vector<unsigned char> v = make_values(n, 8, rng);
    s.sort_host(t, k.data(), n, v.data(), 8, {o, a});
    return check_pairs(t, o, keys, unpack(t, k.data(), n), value_indices(v, 8));
  }
  if (mode == 2) {
    std::vector<std::uint32_t> perm(n);
    s.argsort_host(t, k.data(), n, perm.data(), {o, a});
    std::vector<std::uint64_t> out(n), index(n);
    for (std::size_t j = 0; j < n; ++j) index[j] = perm[j], out[j] = keys[perm[j] % n];
    return check_pairs(t, o, keys, out, index);
  }
  if (n == 0) return {};
  cl::Buffer b(s.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, k.size(), k.data());
  s.sort_buffer(t, b, nullptr, 0, n, {o, a}, {}).wait();
  if (s.queue().enqueueReadBuffer(b, CL_TRUE, 0, k.size(), k.data()) != CL_SUCCESS) return "read failed";
  return check_keys(t, o, keys, unpack(t, k.data(), n));
}

// one_sort, described by `who` and its parameters when it fails or throws; nothing when it passed.
std::string checked_sort(clsort::Sorter& s, const std::string& who, KeyType t, Order o, Algorithm a,
                         std::size_t n, Dist d, int mode, std::mt19937_64& rng) {
  const std::string what = who + " " + clsort::to_string(a) + " " + clsort::to_string(t) + " " +
                           clsort::to_string(o) + " n=" + std::to_string(n) + " " + to_string(d) + " mode " +
                           std::to_string(mode);
  try {
    const std::string e = one_sort(s, t, o, a, n, d, mode, rng);
    return e.empty() ? e : what + ": " + e;
  } catch (const std::exception& ex) {
    return what + " threw: " + ex.what();
  }
}

const Algorithm kAlgorithms[] = {Algorithm::radix, Algorithm::bitonic, Algorithm::selection,
                                 Algorithm::automatic};
// Every sort by a has fewer keys than this: 1500 for the quadratic selection sort, 4000 for the others.
std::size_t sizes_below(Algorithm a) {
  return a == Algorithm::selection ? 1500 : 4000;
}

// One thread's sorts; returns the failures (doctest assertions are not thread-safe: the main thread
// reports them).
std::vector<std::string> thread_sorts(clsort::Sorter& s, int thread, std::size_t sorts, std::uint64_t seed) {
  std::vector<std::string> failures;
  std::mt19937_64 rng(seed + std::uint64_t(thread) * 0x9E3779B97F4A7C15ull);
  for (std::size_t i = 0; i < sorts && failures.size() < 5; ++i) {
    const KeyType t = all_types()[rng() % all_types().size()];
    const Order o = rng() % 2 ? Order::descending : Order::ascending;
    const Algorithm a = kAlgorithms[rng() % 4];
    const std::size_t n = std::size_t(rng() % sizes_below(a));
    const Dist d = Dist(rng() % kDists);
    const int mode = int(rng() % 4);
    const std::string who = "thread " + std::to_string(thread) + " sort " + std::to_string(i);
    const std::string e = checked_sort(s, who, t, o, a, n, d, mode, rng);
    if (!e.empty()) failures.push_back(e);
  }
  return failures;
}

// PoCL 3.1 aborts, now and then, when several queues run one kernel while it compiles a binary for a new
// grid width of it: a PoCL bug (docs/reliability.md), likely whenever its kernel cache is cold. So every
// kernel the threads can run is run first from this thread, on a Sorter with a context of its own, at
// sizes across the threads' range: PoCL then only loads binaries while the threads run, and the threads
// still race to build their programs in their own fresh context.
std::vector<std::string> warm_up(const cl::Device& device) {
  clsort::Sorter s(device);
  std::vector<std::string> failures;
  std::mt19937_64 rng(7);
  for (std::size_t n : {1, 2, 3, 17, 64, 65, 257, 1025, 1499, 2049, 3999})
    for (const Algorithm a : kAlgorithms)
      for (const KeyType t : all_types())
        for (int mode = 0; mode < 4; ++mode) {
          if (n >= sizes_below(a)) continue;
          const std::string e =
              checked_sort(s, "warm-up", t, Order::ascending, a, n, Dist::random, mode, rng);
          if (!e.empty()) failures.push_back(e);
        }
  return failures;
}

TEST_CASE("concurrency: 8 threads x 200 mixed sorts on Sorters sharing one context") {
  const int threads = int(env_size("CLSORT_CONCURRENCY_THREADS", 8));
  const std::size_t sorts = env_size("CLSORT_CONCURRENCY_SORTS", 200);
  const std::uint64_t seed = env_size("CLSORT_CONCURRENCY_SEED", 0xC0C0);
  const cl::Device device = clsort::default_device();
  for (const auto& f : warm_up(device)) FAIL_CHECK(f);
  // A fresh context: no program is built for it yet, so the threads' first sorts race to build them.
  const cl::Context context(device);
  std::vector<std::unique_ptr<clsort::Sorter>> sorters;
  for (int t = 0; t < threads; ++t)
    sorters.push_back(std::make_unique<clsort::Sorter>(cl::CommandQueue(context, device)));
  std::vector<std::vector<std::string>> failures(static_cast<std::size_t>(threads));
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back(
        [&, t] { failures[std::size_t(t)] = thread_sorts(*sorters[std::size_t(t)], t, sorts, seed); });
  for (auto& th : pool) th.join();
  int total = 0;
  for (const auto& f : failures)
    for (const auto& m : f)
      if (++total <= 10) FAIL_CHECK(m << " (CLSORT_CONCURRENCY_SEED=" << seed << ")");
  MESSAGE(threads << " threads x " << sorts << " sorts, " << total << " failures");
  CHECK(total == 0);
}

// ---- Processes sharing one disk cache -----------------------------------------------------------------

pid_t spawn_worker(const std::string& cache_dir) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e)
    if (std::strncmp(*e, "CLSORT_CACHE", 12) != 0) env.emplace_back(*e);
  env.push_back("CLSORT_CACHE_DIR=" + cache_dir);
  std::vector<char*> envp;
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  char* argv[] = {const_cast<char*>(CLSORT_CACHE_WORKER), nullptr};
  pid_t pid = 0;
  REQUIRE(posix_spawn(&pid, CLSORT_CACHE_WORKER, nullptr, nullptr, argv, envp.data()) == 0);
  return pid;
}

int wait_for(pid_t pid) {
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// name -> (inode, size, modification time): any rewrite shows as a new inode (entries are renamed into
// place).
std::map<std::string, std::tuple<ino_t, off_t, long>> snapshot(const std::filesystem::path& dir) {
  std::map<std::string, std::tuple<ino_t, off_t, long>> out;
  for (const auto& f : std::filesystem::directory_iterator(dir)) {
    struct stat st {};
    REQUIRE(::stat(f.path().c_str(), &st) == 0);
    out[f.path().filename().string()] = {st.st_ino, st.st_size,
                                         long(st.st_mtim.tv_sec * 1000000000L + st.st_mtim.tv_nsec)};
  }
  return out;
}

TEST_CASE("concurrency: two processes on one cold disk cache, then a third hits it") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("clsort-reliability-cache-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const pid_t a = spawn_worker(dir.string()), b = spawn_worker(dir.string());
  CHECK(wait_for(a) == 0);
  CHECK(wait_for(b) == 0);
  const auto after_two = snapshot(dir);
  REQUIRE(!after_two.empty());
  for (const auto& [name, info] : after_two) {
    CAPTURE(name);
    CHECK(name.size() == 20);  // 16 hex digits + ".bin": no temporary left behind
    CHECK(name.substr(16) == ".bin");
    std::ifstream in(dir / name, std::ios::binary);
    char magic[8] = {};
    in.read(magic, 8);
    CHECK(std::string(magic, 8) == "CLSORTB1");
  }
  const pid_t c = spawn_worker(dir.string());
  CHECK(wait_for(c) == 0);
  CHECK(snapshot(dir) == after_two);  // every program came from the cache: nothing was rewritten
  MESSAGE(after_two.size() << " cache entries, written by two processes at once, all hit by a third");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace reliability
