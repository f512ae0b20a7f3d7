// clsort_probe_cpu_rounds: a CPU device's sort against vqsort, round by round, each round with a reading
// of the share of the host's cores that the device's threads could get.
//
// On a shared or virtual machine the cores an OpenCL CPU device sees are not always the machine's to use.
// On a Firecracker VM with 2 vCPUs (kernel option sched_vcpu_pack) two threads of work got between one
// and two cores' worth of it, changing within seconds, and a single thread itself ran at full or half
// speed; a 2-thread sort then moves against vqsort, one thread, from one round to the next, so that one
// process's median says as much about the machine as about the code. Each round here times REPS clsort
// sorts of a host vector (Sorter::sort, which on a CPU device sorts in the vector itself) and then REPS
// vqsort sorts of the same keys, each on a fresh copy (not timed), and prints the medians and their
// ratio; the summary gives each case's median ratio over the rounds, its range, and with --target how many
// rounds reached it.
//
// Before and after its sorts a round reads how many cores' worth of work the device's T threads (its
// compute units) get at once: a fixed piece of sorting work in cache on one thread, then on T threads
// together; cores = T * t1 / tT (T when each thread had a core of its own, 1 when they shared one). The
// readings show the machine's state around the round, not within it: it can change between them.
//
// With --segment LEN both sort fixed segments of LEN keys (Sorter::sort_segments, and vqsort looping
// over the segments), and with --pairs move a u32 value per key (clsort stably; vqsort as K32V32 or
// K64V64 records of the key's code and the value). Random keys (the bench's generator, seed 42). clsort's
// result is checked against std::stable_sort, vqsort's keys against the same; a mismatch prints WRONG
// and the exit status is 1. On a device other than a CPU it measures nothing and exits with 77.
//
//   clsort_probe_cpu_rounds --types u64 --sizes 2^20,2^24 --rounds 10 --reps 5 --target 1.5
//   clsort_probe_cpu_rounds --types u32 --sizes 2^24 --segment 16384 --pairs --target 3
//   taskset -c 0 clsort_probe_cpu_rounds ...      (one core: the per-core comparison)
#include <CLI/CLI.hpp>
#include <clsort/clsort.hpp>
#include <clsort/key_transform.hpp>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "../cli/cli_common.hpp"
#include "probe_cli.hpp"
#include "probe_timing.hpp"
#include "probe_vqsort.hpp"

namespace {

using clsort::KeyType;
using clsort_probe::Clock;
using clsort_probe::median;
using clsort_probe::ms_since;

std::atomic<std::uint64_t> work_sink{0};

// A fixed piece of sorting work that stays in a core's own caches (std::sort of 2^14 random 64-bit keys,
// 128 KiB, 12 times): threads on separate cores do not slow each other, and threads that share one core
// (or its SMT siblings) take turns or split its resources, as the sorts themselves would.
void sort_work() {
  std::vector<std::uint64_t> keys(1 << 14);
  std::uint64_t x = 0x9E3779B97F4A7C15u, sum = 0;
  for (int round = 0; round < 12; ++round) {
    for (auto& k : keys) k = x = x * 6364136223846793005u + 1442695040888963407u;
    std::sort(keys.begin(), keys.end());
    sum += keys[keys.size() / 2];
  }
  work_sink += sum;
}

// How many cores' worth of work `threads` threads got at once: threads * (one thread's time for the
// work) / (the time for all of them to do it together). The one-thread time is the minimum of two runs.
double host_cores(unsigned threads) {
  double one = 1e30;
  for (int i = 0; i < 2; ++i) {
    const auto t0 = Clock::now();
    sort_work();
    one = std::min(one, ms_since(t0));
  }
  const auto t0 = Clock::now();
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) pool.emplace_back(sort_work);
  for (auto& t : pool) t.join();
  return threads * one / ms_since(t0);
}

struct Times {
  double clsort = 0, vqsort = 0;
  bool ok = true, vq_ok = true;
};

template <class K>
Times measure(clsort::Sorter& s, clsort_cli::Vqsort& vq, const std::vector<K>& keys,
              const std::vector<std::uint32_t>& o, bool segmented, bool pairs, int reps,
              const std::vector<K>& expected, const std::vector<std::uint32_t>& vexpected) {
  const std::size_t n = keys.size();
  Times r;
  std::vector<double> tc;
  std::vector<K> work(n);
  std::vector<std::uint32_t> values(n);
  for (int rep = 0; rep <= reps; ++rep) {  // one warm-up: the first call of a type builds its programs
    work = keys;
    std::iota(values.begin(), values.end(), 0u);
    const auto t0 = Clock::now();
    if (segmented && pairs)
      s.sort_segments_by_key(work, values, o);
    else if (segmented)
      s.sort_segments(work, o);
    else if (pairs)
      s.sort_by_key(work, values);
    else
      s.sort(work);
    if (rep > 0) tc.push_back(ms_since(t0));
  }
  r.ok = std::memcmp(work.data(), expected.data(), n * sizeof(K)) == 0 && (!pairs || values == vexpected);
  r.vqsort = clsort_probe::time_vqsort(vq, keys, o, expected, pairs, reps, &r.vq_ok);
  r.clsort = median(tc);
  return r;
}

// "1.62x (1.01-1.78x), 5 of 6 rounds >= 1.5x": the median ratio, its range and, for a target, the
// rounds that reached it.
std::string summary(std::vector<double> ratio, double target) {
  std::sort(ratio.begin(), ratio.end());
  char text[128];
  int n = std::snprintf(text, sizeof text, "%.2fx (%.2f-%.2fx)", median(ratio), ratio.front(), ratio.back());
  if (target > 0) {
    const auto met = ratio.end() - std::lower_bound(ratio.begin(), ratio.end(), target);
    std::snprintf(text + n, sizeof text - std::size_t(n), ", %td of %zu rounds >= %.2fx", met, ratio.size(),
                  target);
  }
  return text;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app(
      "clsort_probe_cpu_rounds: a CPU device's sort against vqsort, round by round, beside the "
      "cores its threads got",
      "clsort_probe_cpu_rounds");
  std::vector<std::string> types{"u64"}, sizes{"2^20", "2^24"};
  int rounds = 8, reps = 5;
  std::size_t segment = 0;
  bool pairs = false;
  double target = 0;
  std::string device;
  app.add_option("--types", types, "key types, comma-separated (integers and floats of 4 or 8 bytes)")
      ->delimiter(',')
      ->check(CLI::IsMember({"u32", "i32", "f32", "u64", "i64", "f64"}));
  app.add_option("--sizes", sizes, "key counts, comma-separated (2^20, 1e6)")->delimiter(',');
  app.add_option("--rounds", rounds, "rounds; each measures the cores, then every type and size")
      ->check(CLI::Range(1, 1000));
  app.add_option("--segment", segment, "sort fixed segments of this many keys (0: the whole array)");
  app.add_flag("--pairs", pairs, "move a u32 value (the input index) with each key");
  app.add_option("--target", target, "count the rounds whose speed-up over vqsort reached this");
  clsort_probe::add_reps_and_device(app, reps, device);
  CLI11_PARSE(app, argc, argv);
  try {
    const cl::Device dev = clsort_probe::open_and_print_device(device);
    if (dev.getInfo<CL_DEVICE_TYPE>() != CL_DEVICE_TYPE_CPU) {
      std::fprintf(stderr, "clsort_probe_cpu_rounds: the device is not a CPU device; nothing measured\n");
      return 77;  // CTest's skip status (tests/cli)
    }
    const unsigned threads = std::max(1u, dev.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>());
    clsort::Sorter sorter(dev);
    clsort_cli::Vqsort vq;

    struct Case {
      std::string type;
      std::size_t n;
      std::vector<std::uint32_t> offsets;
      std::vector<unsigned char> keys, expected;
      std::vector<std::uint32_t> vexpected;
      std::vector<double> ratio;
    };
    std::vector<Case> cases;
    for (const auto& type : types)
      for (const auto& size : sizes) {
        Case c{type, clsort_cli::parse_size(size), {}, {}, {}, {}, {}};
        const KeyType kt = clsort_cli::parse_key_type(type);
        c.keys = clsort_cli::random_keys(kt, c.n, 42, false);
        const std::size_t len = segment ? segment : std::max<std::size_t>(c.n, 1);
        c.offsets.push_back(0);
        for (std::size_t at = len; at <= c.n; at += len) c.offsets.push_back(std::uint32_t(at));
        if (c.offsets.back() != c.n) c.offsets.push_back(std::uint32_t(c.n));  // a shorter last segment
        // The reference: each segment stably by clsort's key order.
        clsort_cli::visit_key_type(kt, [&](auto tag) {
          using K = typename decltype(tag)::type;
          std::vector<K> k(c.n);
          std::memcpy(k.data(), c.keys.data(), c.n * sizeof(K));
          c.vexpected.resize(c.n);
          std::iota(c.vexpected.begin(), c.vexpected.end(), 0u);
          for (std::size_t i = 0; i + 1 < c.offsets.size(); ++i)
            std::stable_sort(c.vexpected.begin() + c.offsets[i], c.vexpected.begin() + c.offsets[i + 1],
                             [&](std::uint32_t a, std::uint32_t b) { return clsort::key_less(k[a], k[b]); });
          c.expected.resize(c.n * sizeof(K));
          for (std::size_t j = 0; j < c.n; ++j)
            std::memcpy(&c.expected[j * sizeof(K)], &k[c.vexpected[j]], sizeof(K));
          return 0;
        });
        cases.push_back(std::move(c));
      }

    std::printf("%u threads; %s, %s; medians of %d\n", threads, segment ? "segments" : "whole arrays",
                pairs ? "pairs (u32 values)" : "keys", reps);
    std::printf("%5s %-4s %10s %9s %12s %12s %9s %6s\n", "round", "type", "n", "cores", "clsort ms",
                "vqsort ms", "vs vqsort", "check");
    bool all_ok = true;
    for (int round = 0; round < rounds; ++round)
      for (auto& c : cases) {
        const double before = host_cores(threads);
        const KeyType kt = clsort_cli::parse_key_type(c.type);
        const Times t = clsort_cli::visit_key_type(kt, [&](auto tag) {
          using K = typename decltype(tag)::type;
          if constexpr (std::is_arithmetic_v<K> && sizeof(K) >= 4) {  // the types --types allows
            std::vector<K> k(c.n), e(c.n);
            std::memcpy(k.data(), c.keys.data(), c.n * sizeof(K));
            std::memcpy(e.data(), c.expected.data(), c.n * sizeof(K));
            return measure<K>(sorter, vq, k, c.offsets, segment != 0, pairs, reps, e, c.vexpected);
          } else {
            return Times{};
          }
        });
        const double after = host_cores(threads);
        c.ratio.push_back(t.vqsort / t.clsort);
        all_ok = all_ok && t.ok && t.vq_ok;
        std::printf("%5d %-4s %10zu %4.2f/%4.2f %12.3f %12.3f %8.2fx %6s%s\n", round, c.type.c_str(), c.n,
                    before, after, t.clsort, t.vqsort, t.vqsort / t.clsort, t.ok ? "ok" : "WRONG",
                    t.vq_ok ? "" : " vqsort WRONG");
        std::fflush(stdout);
      }
    std::printf("summary: clsort's speed-up over vqsort, the median over the rounds (their range)\n");
    for (const auto& c : cases)
      std::printf("  %-4s %10zu: %s\n", c.type.c_str(), c.n, summary(c.ratio, target).c_str());
    return all_ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "clsort_probe_cpu_rounds: %s\n", e.what());
    return 2;
  }
}
