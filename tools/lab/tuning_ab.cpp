// clsort_probe_tuning: tuning strings against each other on one device, in one process, alternating.
//
// Run-to-run spread on a shared GPU (1-3% between machine starts) is as large as most tuning gains, so
// a variant is only worth keeping against its reference measured beside it. Each variant gets its own
// Sorter (its own programs); every round times each (type, n, variant) in turn, REPS device sorts back
// to back on keys already on the device, and prints the median. The keys (the bench's random keys, so
// finite floats) are made once per (type, n) and shared by the variants. Every output is checked in O(n),
// as a full reference sort of 2^28 keys would take longer than the sorts: sorted, the same bit patterns
// (sum and xor), and with --values each value (its key's input index) still names its key. Each row also
// gives the median time the sort call took to return (the host's enqueueing, before the wait). With
// --profile the Sorters time their kernels (a profiling queue) and the Onesweep histogram and passes are
// printed too.
//
//   clsort_probe_tuning --types u32,f32 --sizes 2^24,2^26 --variant "" --variant "radix.items=20" --rounds 2
//   clsort_probe_tuning --values --sizes 2^24 --variant "" --variant "radix.items=28"
//   clsort_probe_tuning --types u16,f16 --sizes 2^24,2^26 --profile      (narrow keys: two passes)
//
// docs/benchmarks-history.md calls it the sweep driver; docs/tuning.md says how a row is measured with it.
#include <CLI/CLI.hpp>
#include <clsort/clsort.hpp>
#include <clsort/key_transform.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "../cli/cli_common.hpp"

namespace {

using clsort::KeyType;
using clsort_cli::visit_key_type;

struct Timing {
  double ms = 0, enqueue_ms = 0, histogram_ms = 0, passes_ms = 0;
  bool ok = false;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// One (type, n)'s input, shared by every variant: the keys' bytes and the O(n) check's sum and xor of
// their bit patterns.
struct Input {
  std::size_t n, width;
  std::vector<unsigned char> keys;
  std::uint64_t sum = 0, xor_ = 0;
};

std::uint64_t key_bits(const unsigned char* p, std::size_t width) {
  std::uint64_t b = 0;
  std::memcpy(&b, p, width);
  return b;
}

constexpr std::uint64_t kMix = 0x9E3779B97F4A7C15ull;

Input make_input(KeyType type, std::size_t n) {
  Input in{n, clsort::key_size(type), clsort_cli::random_keys(type, n, 42, false)};
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t b = key_bits(&in.keys[i * in.width], in.width);
    in.sum += b * kMix;
    in.xor_ ^= b;
  }
  return in;
}

template <class K>
Timing time_sorts(clsort::Sorter& s, const Input& in, bool values, int reps) {
  const std::size_t n = in.n, key_bytes = n * sizeof(K);
  auto& q = s.queue();
  cl::Buffer src(s.context(), CL_MEM_READ_WRITE, key_bytes), work(s.context(), CL_MEM_READ_WRITE, key_bytes);
  q.enqueueWriteBuffer(src, CL_TRUE, 0, key_bytes, in.keys.data());
  cl::Buffer vsrc, vwork;
  if (values) {
    const std::vector<unsigned char> index = clsort_cli::index_values(n, 4);
    vsrc = cl::Buffer(s.context(), CL_MEM_READ_WRITE, n * 4);
    vwork = cl::Buffer(s.context(), CL_MEM_READ_WRITE, n * 4);
    q.enqueueWriteBuffer(vsrc, CL_TRUE, 0, n * 4, index.data());
  }
  std::vector<double> ts, enq, hist, passes;
  for (int r = 0; r < reps + 2; ++r) {  // two warm-ups: builds, the Onesweep self-test, first touches
    q.enqueueCopyBuffer(src, work, 0, 0, key_bytes);
    if (values) q.enqueueCopyBuffer(vsrc, vwork, 0, 0, n * 4);
    q.finish();
    const auto t0 = std::chrono::steady_clock::now();
    cl::Event e = values ? s.sort_by_key<K, std::uint32_t>(work, vwork, n) : s.sort<K>(work, n);
    const auto returned = std::chrono::steady_clock::now();
    e.wait();
    const auto t1 = std::chrono::steady_clock::now();
    if (r < 2) continue;
    ts.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    enq.push_back(std::chrono::duration<double, std::milli>(returned - t0).count());
    double hm = 0, pm = 0;
    for (const auto& kt : s.last_profile()) {
      if (kt.name == "radix_onesweep_histogram")
        hm += kt.ms;
      else if (kt.name == "radix_onesweep")
        pm += kt.ms;
    }
    hist.push_back(hm);
    passes.push_back(pm);
  }
  std::vector<K> out(n);
  std::vector<std::uint32_t> index(values ? n : 0);
  q.enqueueReadBuffer(work, CL_TRUE, 0, key_bytes, out.data());
  if (values) q.enqueueReadBuffer(vwork, CL_TRUE, 0, n * 4, index.data());
  bool ok = std::is_sorted(out.begin(), out.end(), [](K a, K b) { return clsort::key_less(a, b); });
  std::uint64_t sum = 0, xor_ = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t b = key_bits(reinterpret_cast<const unsigned char*>(&out[i]), sizeof(K));
    sum += b * kMix;
    xor_ ^= b;
    if (values && (index[i] >= n || key_bits(&in.keys[index[i] * sizeof(K)], sizeof(K)) != b)) ok = false;
  }
  return {median(ts), median(enq), median(hist), median(passes), ok && sum == in.sum && xor_ == in.xor_};
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("clsort_probe_tuning: tuning strings against each other, alternating in one process",
               "clsort_probe_tuning");
  std::vector<std::string> types{"u32"}, sizes{"2^24"}, variants;
  int rounds = 2, reps = 7;
  bool values = false, profile = false;
  std::string device;
  app.add_option("--types", types,
                 "key types, comma-separated: u32, i32, f32, u64, i64, f64, u8, i8, u16, i16, f16, bf16")
      ->delimiter(',')
      ->check(CLI::IsMember(clsort_cli::key_type_names()));
  app.add_option("--sizes", sizes, "n, comma-separated (1000, 2^20, 1e6, 4Ki)")->delimiter(',');
  app.add_flag("--values", values, "sort u32 values (each key's input index) with the keys");
  app.add_option(
      "--variant", variants,
      "a tuning string (as CLSORT_TUNING) applied over the device's row; repeat it; \"\" is the row "
      "itself, which runs alone when no variant is given");
  app.add_option("--rounds", rounds, "times each (type, n, variant) is measured, alternating")
      ->check(CLI::Range(1, 1000));
  app.add_option("--reps", reps, "sorts per measurement; the median is printed")->check(CLI::Range(1, 10000));
  app.add_flag("--profile", profile,
               "time kernels on a profiling queue; print the Onesweep histogram and passes");
  app.add_option("--device", device,
                 "as CLSORT_DEVICE (gpu, cpu, P:D, a name); default: the library's choice");
  CLI11_PARSE(app, argc, argv);
  if (variants.empty()) variants.push_back("");

  try {
    std::vector<std::size_t> ns;
    for (const auto& text : sizes) ns.push_back(clsort_cli::parse_size(text));
    const cl::Device dev = clsort_cli::open_device(device);
    std::printf("device %s\n", clsort_cli::describe_device(dev).c_str());
    std::vector<clsort::Sorter> sorters;
    for (const auto& v : variants) {
      sorters.emplace_back(dev, profile);
      if (!v.empty()) sorters.back().tune(v);  // a bad name or value throws here, before anything is timed
    }
    bool all_ok = true;
    for (int round = 0; round < rounds; ++round)
      for (const auto& name : types)
        for (const std::size_t n : ns) {
          const KeyType type = clsort_cli::parse_key_type(name);
          const Input in = make_input(type, n);
          if (round == 0)  // the row's shape: its passes, tiles and ranking for this key type
            std::printf(
                "plan %s%s %-6s %s\n", name.c_str(), values ? "+u32" : "", clsort_cli::format_n(n).c_str(),
                sorters[0]
                    .plan(type, n, values ? 4 : 0, {clsort::Order::ascending, clsort::Algorithm::radix})
                    .shape.c_str());
          for (std::size_t i = 0; i < variants.size(); ++i) {
            const Timing t = visit_key_type(type, [&](auto tag) {
              return time_sorts<typename decltype(tag)::type>(sorters[i], in, values, reps);
            });
            all_ok = all_ok && t.ok;
            std::printf("round %d %s%s %-6s %-45s %9.4f ms %8.2f Gkeys/s", round, name.c_str(),
                        values ? "+u32" : "    ", clsort_cli::format_n(n).c_str(),
                        variants[i].empty() ? "(row)" : variants[i].c_str(), t.ms, double(n) / t.ms / 1e6);
            std::printf("  enqueue %.4f ms", t.enqueue_ms);
            if (profile) std::printf("  histogram %.4f ms, passes %.4f ms", t.histogram_ms, t.passes_ms);
            std::printf("  %s\n", t.ok ? "ok" : "WRONG");
            std::fflush(stdout);
          }
        }
    return all_ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "clsort_probe_tuning: %s\n", e.what());
    return 2;
  }
}
