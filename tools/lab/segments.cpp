// clsort_probe_segments: the segmented sort (Sorter::sort_segments, sort_segments_by_key) on device
// buffers, against a loop of single clsort sorts of the same segments on the same device, and against the
// best CPU sorts looping over the segments on the host (std::sort, and Highway's vqsort where CMake found
// Highway), in one process.
//
// Shapes (--shapes), each with --total keys in all (default 2^24): 2^20x16, 2^16x256, 2^10x16384 (the
// count scales with the total: total/16 segments of 16 and so on) and power_law (lengths 1 + 4 / u^1.25,
// u uniform in (0, 1], cut at what is left: mostly a few keys, a few segments of millions). The same
// generator (seed 42) as tools/lab/cub_segmented.cu, so both time the same offsets. Keys are random
// u32 (or --types), values (--pairs) their input index. Each row is the median of REPS calls, each timed
// from enqueue to completion (wall clock) on a fresh copy of the keys (the copy is not timed). The loop
// of single sorts runs on up to 512 segments, each already in a buffer of its own, and is scaled to all
// segments ("loop ms", an estimate). With --vectors the segmented sort is that of host vectors instead
// (Sorter::sort_segments of a std::vector: the upload, the sort and the download), timed from the call
// to its return on a fresh copy of the keys (and values). The host references sort each segment of a copy on
// one thread (the copy, and any packing, not timed): std::sort the keys (pairs: (key, value) pairs by key);
// vqsort (one hwy::Sorter for all segments) the keys where it has their type (16/32/64-bit integers, f32,
// f64), pairs as K32V32 (keys up to 4 bytes) or K64V64 (8 bytes) of the key's code (clsort/key_transform.hpp)
// and the value, not stably. "vs std" is std::sort's time over clsort's, "vs best" the faster host
// reference's. Every clsort result is checked against std::stable_sort of each segment (values too), and
// vqsort's against the same keys (its pairs: each value a distinct index of its segment, carrying its
// key); a mismatch prints WRONG (clsort) or "vqsort WRONG" and the exit status is 1.
//
//   clsort_probe_segments --total 2^24 --shapes 2^20x16,power_law --reps 10 [--pairs] [--no-host]
//   [--no-loop]
#include <CLI/CLI.hpp>
#include <clsort/clsort.hpp>
#include <clsort/key_transform.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#ifdef CLSORT_PROBE_HWY
#include "probe_vqsort.hpp"
#endif

#include "../cli/cli_common.hpp"
#include "probe_cli.hpp"
#include "probe_inputs.hpp"
#include "probe_timing.hpp"

namespace {

using clsort::KeyType;
using clsort_probe::Clock;
using clsort_probe::median;
using clsort_probe::ms_since;

// The offsets of a shape: "AxB" (A segments of B keys, A scaled so that A * B = total) or power_law.
std::vector<std::uint32_t> make_offsets(const std::string& shape, std::size_t total) {
  if (shape == "power_law") return clsort_probe::power_law_offsets(total);
  const std::size_t x = shape.find('x');
  if (x == std::string::npos) throw std::runtime_error("unknown shape " + shape);
  return clsort_probe::fixed_offsets(total, clsort_cli::parse_size(shape.substr(x + 1)));
}

struct Row {
  double sort = 0, loop = 0, host = 0, vq = -1;  // vq < 0: no vqsort time
  std::size_t segments = 0, longest = 0;
  bool ok = true, vq_ok = true;
};

template <class K>
Row measure(clsort::Sorter& s, const std::vector<K>& keys, const std::vector<std::uint32_t>& o, bool pairs,
            int reps, bool host, bool loop, bool profile, bool vectors) {
#ifdef CLSORT_PROBE_HWY
  static clsort_cli::Vqsort vq;
#endif
  const std::size_t n = keys.size(), num = o.size() - 1;
  Row r;
  r.segments = num;
  for (std::size_t i = 0; i < num; ++i) r.longest = std::max<std::size_t>(r.longest, o[i + 1] - o[i]);
  const cl::Context& ctx = s.context();
  const cl::CommandQueue& q = s.queue();
  std::vector<std::uint32_t> index(n);
  std::iota(index.begin(), index.end(), 0u);
  cl::Buffer input(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * sizeof(K), const_cast<K*>(keys.data()));
  cl::Buffer work(ctx, CL_MEM_READ_WRITE, n * sizeof(K));
  cl::Buffer vinput(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * 4, index.data());
  cl::Buffer vwork(ctx, CL_MEM_READ_WRITE, n * 4);
  cl::Buffer offsets(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, o.size() * 4,
                     const_cast<std::uint32_t*>(o.data()));
  std::vector<double> t_sort, t_loop, t_host;
  std::vector<K> vkeys;
  std::vector<std::uint32_t> vvalues;
  for (int rep = 0; vectors && rep < reps + 1; ++rep) {  // one warm-up
    vkeys = keys;
    vvalues = index;
    const auto t0 = Clock::now();
    if (pairs)
      s.sort_segments_by_key(vkeys, vvalues, o);
    else
      s.sort_segments(vkeys, o);
    if (rep > 0) t_sort.push_back(ms_since(t0));
  }
  for (int rep = 0; !vectors && rep < reps + 1; ++rep) {  // one warm-up
    q.enqueueCopyBuffer(input, work, 0, 0, n * sizeof(K));
    if (pairs) q.enqueueCopyBuffer(vinput, vwork, 0, 0, n * 4);
    q.finish();
    const auto t0 = Clock::now();
    if (pairs)
      s.sort_segments_by_key<K, std::uint32_t>(work, vwork, offsets, num).wait();
    else
      s.sort_segments<K>(work, offsets, num).wait();
    if (rep > 0) t_sort.push_back(ms_since(t0));
  }
  if (profile) {  // one more call on the profiling queue (the keys sorted already: the same launches)
    if (vectors) {
      std::vector<K> k = vkeys;
      std::vector<std::uint32_t> v = vvalues;
      if (pairs)
        s.sort_segments_by_key(k, v, o);
      else
        s.sort_segments(k, o);
    } else if (pairs) {
      s.sort_segments_by_key<K, std::uint32_t>(work, vwork, offsets, num).wait();
    } else {
      s.sort_segments<K>(work, offsets, num).wait();
    }
    clsort_probe::print_profile(s.last_profile());
  }
  // The loop of single sorts: up to 512 segments spread over the shape, each in a buffer of its own.
  if (loop) {
    const std::size_t count = std::min<std::size_t>(num, 512), step = num / count;
    std::vector<cl::Buffer> kb, vb;
    std::vector<std::size_t> len;
    for (std::size_t i = 0; i < count; ++i) {
      const std::size_t sgm = i * step, l = o[sgm + 1] - o[sgm];
      len.push_back(l);
      kb.emplace_back(ctx, CL_MEM_READ_WRITE, std::max<std::size_t>(l, 1) * sizeof(K));
      vb.emplace_back(ctx, CL_MEM_READ_WRITE, std::max<std::size_t>(l, 1) * 4);
    }
    for (int rep = 0; rep < std::max(1, reps / 2) + 1; ++rep) {
      for (std::size_t i = 0; i < count; ++i)
        if (len[i]) {
          q.enqueueCopyBuffer(input, kb[i], o[i * step] * sizeof(K), 0, len[i] * sizeof(K));
          if (pairs) q.enqueueCopyBuffer(vinput, vb[i], o[i * step] * 4, 0, len[i] * 4);
        }
      q.finish();
      const auto t0 = Clock::now();
      for (std::size_t i = 0; i < count; ++i) {
        if (pairs)
          s.sort_by_key<K, std::uint32_t>(kb[i], vb[i], len[i]);
        else
          s.sort<K>(kb[i], len[i]);
      }
      q.finish();
      if (rep > 0) t_loop.push_back(ms_since(t0) * double(num) / double(count));
    }
  }
  // The reference, and std::sort over the segments.
  std::vector<K> expected = keys;
  std::vector<std::uint32_t> vexpected = index;
  for (std::size_t i = 0; i < num; ++i) {
    std::stable_sort(vexpected.begin() + o[i], vexpected.begin() + o[i + 1],
                     [&](std::uint32_t a, std::uint32_t b) { return clsort::key_less(keys[a], keys[b]); });
    for (std::size_t j = o[i]; j < o[i + 1]; ++j) expected[j] = keys[vexpected[j]];
  }
  if (host) {
    for (int rep = 0; rep < std::max(1, reps / 2); ++rep) {
      if (pairs) {
        std::vector<std::pair<K, std::uint32_t>> copy(n);
        for (std::size_t i = 0; i < n; ++i) copy[i] = {keys[i], index[i]};
        const auto t0 = Clock::now();
        for (std::size_t i = 0; i < num; ++i)
          std::sort(copy.begin() + o[i], copy.begin() + o[i + 1],
                    [](const auto& a, const auto& b) { return clsort::key_less(a.first, b.first); });
        t_host.push_back(ms_since(t0));
      } else {
        std::vector<K> copy = keys;
        const auto t0 = Clock::now();
        for (std::size_t i = 0; i < num; ++i)
          std::sort(copy.begin() + o[i], copy.begin() + o[i + 1],
                    [](K a, K b) { return clsort::key_less(a, b); });
        t_host.push_back(ms_since(t0));
      }
    }
    r.host = median(t_host);
#ifdef CLSORT_PROBE_HWY
    r.vq = clsort_probe::time_vqsort(vq, keys, o, expected, pairs, std::max(1, reps / 2), &r.vq_ok);
#endif
  }
  std::vector<K> got(n);
  std::vector<std::uint32_t> gv(n);
  if (vectors) {
    got = vkeys;
    gv = vvalues;
  } else {
    q.enqueueReadBuffer(work, CL_TRUE, 0, n * sizeof(K), got.data());
    if (pairs) q.enqueueReadBuffer(vwork, CL_TRUE, 0, n * 4, gv.data());
  }
  r.ok = std::memcmp(got.data(), expected.data(), n * sizeof(K)) == 0 && (!pairs || gv == vexpected);
  r.sort = median(t_sort);
  r.loop = loop ? median(t_loop) : 0.0;
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("clsort_probe_segments: the segmented sort against a loop of sorts and std::sort per segment",
               "clsort_probe_segments");
  std::vector<std::string> types{"u32"}, shapes{"2^20x16", "2^16x256", "2^10x16384", "power_law"};
  std::string total_text = "2^24";
  int reps = 10;
  bool pairs = false, no_host = false, no_loop = false, profile = false, vectors = false;
  std::string device;
  app.add_option("--types", types, "key types, comma-separated")
      ->delimiter(',')
      ->check(CLI::IsMember(clsort_cli::key_type_names()));
  app.add_option("--shapes", shapes, "AxB (segments x length; the count scales to the total) or power_law")
      ->delimiter(',');
  app.add_option("--total", total_text, "keys in all segments together (2^24, 1e6)");
  app.add_flag("--pairs", pairs, "sort_segments_by_key with u32 values (the input index)");
  app.add_flag("--no-host", no_host, "skip the host references (std::sort, vqsort) over the segments");
  app.add_flag("--no-loop", no_loop, "skip the loop of single sorts (its columns print 0)");
  app.add_flag("--vectors", vectors,
               "sort host vectors (the host API: upload, sort, download) instead of device buffers");
  app.add_flag("--profile", profile,
               "time on a profiling queue; print the kernels of one more call after each row");
  clsort_probe::add_reps_and_device(app, reps, device);
  CLI11_PARSE(app, argc, argv);
  try {
    const std::size_t total = clsort_cli::parse_size(total_text);
    const cl::Device dev = clsort_probe::open_and_print_device(device);
    std::printf("%-4s %-5s %-11s %9s %9s %10s %9s %12s %12s %10s %9s %9s %9s %6s\n", "type", "what", "shape",
                "segments", "longest", "clsort ms", "Gkeys/s", "loop ms", "std::sort ms", "vqsort ms",
                "vs loop", "vs std", "vs best", "check");
    clsort::Sorter sorter(dev, profile);
    bool all_ok = true;
    for (const auto& name : types) {
      const KeyType type = clsort_cli::parse_key_type(name);
      const std::vector<unsigned char> bytes = clsort_cli::random_keys(type, total, 42, false);
      for (const auto& shape : shapes) {
        const std::vector<std::uint32_t> o = make_offsets(shape, total);
        const Row r = clsort_cli::visit_key_type(type, [&](auto tag) {
          using K = typename decltype(tag)::type;
          std::vector<K> keys(total);
          std::memcpy(keys.data(), bytes.data(), total * sizeof(K));
          return measure<K>(sorter, keys, o, pairs, reps, !no_host, !no_loop, profile, vectors);
        });
        all_ok = all_ok && r.ok && r.vq_ok;
        const double best = no_host ? 0.0 : r.vq >= 0 ? std::min(r.host, r.vq) : r.host;
        char vq_text[32] = "-";
        if (!no_host && r.vq >= 0) std::snprintf(vq_text, sizeof vq_text, "%.3f", r.vq);
        std::printf("%-4s %-5s %-11s %9zu %9zu %10.3f %9.3f %12.3f %12.3f %10s %8.1fx %8.2fx %8.2fx %6s%s\n",
                    name.c_str(), pairs ? "pairs" : "keys", shape.c_str(), r.segments, r.longest, r.sort,
                    double(total) / r.sort * 1e-6, r.loop, no_host ? 0.0 : r.host, vq_text,
                    no_loop ? 0.0 : r.loop / r.sort, no_host ? 0.0 : r.host / r.sort, best / r.sort,
                    r.ok ? "ok" : "WRONG", r.vq_ok ? "" : " vqsort WRONG");
        std::fflush(stdout);
      }
    }
    return all_ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "clsort_probe_segments: %s\n", e.what());
    return 2;
  }
}
