// clsort_probe_top_k: top_k and select (radix selection) against a full clsort sort of the same keys on
// the same device, and against std::partial_sort and std::nth_element on the host, in one process.
//
// Keys are the bench's random keys (clsort_cli::random_keys), already on the device. Each row is the
// median of REPS calls, each timed from enqueue to completion (wall clock, what a caller waits): top_k
// and select on the device buffer (they leave the keys as they are); the full sort on a fresh copy of the
// keys each time (the copy is not timed); the host references on a copy of the keys (copy not timed),
// std::partial_sort of (key, index) pairs for top_k and std::nth_element of the keys for select, by
// clsort's order (clsort::key_less). Every top_k result is checked against the partial_sort (keys bit for
// bit, indices), every select against nth_element, every sort for order; a mismatch prints WRONG and the
// exit status is 1. With --vectors, top_k and select take the keys from a host vector (the host API:
// each call uploads them) instead of the device buffer.
//
//   clsort_probe_top_k --types u32,f32,u64 --sizes 2^20,2^24 --ks 16,1024 --reps 5 [--no-host]
#include <CLI/CLI.hpp>
#include <clsort/clsort.hpp>
#include <clsort/key_transform.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "../cli/cli_common.hpp"
#include "probe_cli.hpp"
#include "probe_timing.hpp"

namespace {

using clsort::KeyType;
using clsort_probe::Clock;
using clsort_probe::median;
using clsort_probe::ms_since;

template <class K>
bool same(const K& a, const K& b) {
  return std::memcmp(&a, &b, sizeof(K)) == 0;
}

struct Row {
  double top_k = 0, select = 0, sort = 0, partial = 0, nth = 0;
  bool ok = true;
};

template <class K>
Row measure(clsort::Sorter& s, const std::vector<K>& keys, std::size_t k, int reps, bool host, bool profile,
            bool vectors) {
  const std::size_t n = keys.size();
  Row r;
  cl::Buffer input(s.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * sizeof(K),
                   const_cast<K*>(keys.data()));
  cl::Buffer work(s.context(), CL_MEM_READ_WRITE, n * sizeof(K));
  cl::Buffer kout(s.context(), CL_MEM_READ_WRITE, k * sizeof(K)), iout(s.context(), CL_MEM_READ_WRITE, k * 4);
  cl::Buffer one(s.context(), CL_MEM_READ_WRITE, sizeof(K));
  const std::size_t pos = k - 1;  // select: the last key of the top k
  // The reference: (key, index) pairs by clsort's order, ties by index (what top_k promises).
  std::vector<std::uint32_t> ref_index(n);
  std::iota(ref_index.begin(), ref_index.end(), 0u);
  auto before = [&](std::uint32_t a, std::uint32_t b) {
    if (clsort::key_less(keys[a], keys[b])) return true;
    if (clsort::key_less(keys[b], keys[a])) return false;
    return a < b;
  };
  std::vector<double> t_top, t_sel, t_sort, t_partial, t_nth;
  std::vector<K> got_keys(k), sorted(n);
  std::vector<std::uint32_t> got_index(k);
  K got_one{};
  clsort::TopK<K> host_top;
  K host_one{};
  for (int rep = 0; rep < reps; ++rep) {
    auto t0 = Clock::now();
    if (vectors)
      host_top = s.top_k(keys, k);
    else
      s.top_k<K>(input, n, k, kout, iout).wait();
    t_top.push_back(ms_since(t0));
    t0 = Clock::now();
    if (vectors)
      host_one = s.select(keys, pos);
    else
      s.select<K>(input, n, pos, one).wait();
    t_sel.push_back(ms_since(t0));
    s.queue().enqueueCopyBuffer(input, work, 0, 0, n * sizeof(K));
    s.queue().finish();
    t0 = Clock::now();
    s.sort<K>(work, n).wait();
    t_sort.push_back(ms_since(t0));
    if (host) {
      std::vector<std::uint32_t> idx = ref_index;
      t0 = Clock::now();
      std::partial_sort(idx.begin(), idx.begin() + std::ptrdiff_t(k), idx.end(), before);
      t_partial.push_back(ms_since(t0));
      std::vector<K> copy = keys;
      t0 = Clock::now();
      std::nth_element(copy.begin(), copy.begin() + std::ptrdiff_t(pos), copy.end(),
                       [](K a, K b) { return clsort::key_less(a, b); });
      t_nth.push_back(ms_since(t0));
      if (rep == 0) {
        ref_index = idx;  // its first k are the reference
        if (!same(copy[pos], keys[idx[pos]])) r.ok = false;
      }
    }
  }
  if (profile) {  // one more top_k on the profiling queue
    if (vectors)
      s.top_k(keys, k);
    else
      s.top_k<K>(input, n, k, kout, iout).wait();
    clsort_probe::print_profile(s.last_profile());
  }
  if (!host)
    std::partial_sort(ref_index.begin(), ref_index.begin() + std::ptrdiff_t(k), ref_index.end(), before);
  if (vectors) {
    got_keys = host_top.keys;
    got_index = host_top.indices;
    got_one = host_one;
  } else {
    s.queue().enqueueReadBuffer(kout, CL_TRUE, 0, k * sizeof(K), got_keys.data());
    s.queue().enqueueReadBuffer(iout, CL_TRUE, 0, k * 4, got_index.data());
    s.queue().enqueueReadBuffer(one, CL_TRUE, 0, sizeof(K), &got_one);
  }
  s.queue().enqueueReadBuffer(work, CL_TRUE, 0, n * sizeof(K), sorted.data());
  for (std::size_t i = 0; i < k; ++i)
    if (got_index[i] != ref_index[i] || !same(got_keys[i], keys[ref_index[i]])) r.ok = false;
  if (!same(got_one, keys[ref_index[pos]])) r.ok = false;
  for (std::size_t i = 1; i < n; ++i)
    if (clsort::key_less(sorted[i], sorted[i - 1])) r.ok = false;
  r.top_k = median(t_top);
  r.select = median(t_sel);
  r.sort = median(t_sort);
  if (host) {
    r.partial = median(t_partial);
    r.nth = median(t_nth);
  }
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("clsort_probe_top_k: top_k and select against a full sort and std::partial_sort",
               "clsort_probe_top_k");
  std::vector<std::string> types{"u32"}, sizes{"2^20"}, ks{"16", "1024"};
  int reps = 5;
  bool no_host = false, profile = false, vectors = false;
  std::string device;
  app.add_option("--types", types, "key types, comma-separated")
      ->delimiter(',')
      ->check(CLI::IsMember(clsort_cli::key_type_names()));
  app.add_option("--sizes", sizes, "n, comma-separated (2^20, 1e6)")->delimiter(',');
  app.add_option("--ks", ks, "k, comma-separated")->delimiter(',');
  app.add_flag("--no-host", no_host,
               "skip std::partial_sort and std::nth_element (large n on a GPU machine)");
  app.add_flag(
      "--vectors", vectors,
      "top_k and select of host vectors (the host API, keys uploaded each call) instead of a buffer");
  app.add_flag("--profile", profile,
               "time on a profiling queue; print the kernels of one top_k after each row");
  clsort_probe::add_reps_and_device(app, reps, device);
  CLI11_PARSE(app, argc, argv);
  try {
    const cl::Device dev = clsort_probe::open_and_print_device(device);
    std::printf("%-4s %-6s %6s %10s %10s %10s %8s %12s %12s %9s\n", "type", "n", "k", "top_k ms", "select ms",
                "sort ms", "sort/top", "partial ms", "nth ms", "check");
    clsort::Sorter sorter(dev, profile);
    bool all_ok = true;
    for (const auto& name : types)
      for (const auto& size : sizes) {
        const std::size_t n = clsort_cli::parse_size(size);
        const KeyType type = clsort_cli::parse_key_type(name);
        const std::vector<unsigned char> bytes = clsort_cli::random_keys(type, n, 1, false);
        for (const auto& ktext : ks) {
          const std::size_t k = std::min(n, clsort_cli::parse_size(ktext));
          const Row r = clsort_cli::visit_key_type(type, [&](auto tag) {
            using K = typename decltype(tag)::type;
            std::vector<K> keys(n);
            std::memcpy(keys.data(), bytes.data(), n * sizeof(K));
            return measure<K>(sorter, keys, k, reps, !no_host, profile, vectors);
          });
          all_ok = all_ok && r.ok;
          std::printf("%-4s %-6s %6zu %10.3f %10.3f %10.3f %7.1fx %12.3f %12.3f %9s\n", name.c_str(),
                      clsort_cli::format_n(n).c_str(), k, r.top_k, r.select, r.sort, r.sort / r.top_k,
                      no_host ? 0.0 : r.partial, no_host ? 0.0 : r.nth, r.ok ? "ok" : "WRONG");
          std::fflush(stdout);
        }
      }
    return all_ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "clsort_probe_top_k: %s\n", e.what());
    return 2;
  }
}
