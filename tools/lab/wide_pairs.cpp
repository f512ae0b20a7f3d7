// clsort_probe_wide_pairs: sort_by_key of u32 keys with values of several widths (4 and 8 bytes ride the
// passes; 12, 16, 64 bytes move once through the permutation), the shapes of tools/lab/cub_wide_pairs.cu
// (the same keys: mt19937_64(42), low 32 bits; values whose first word is the input index), on device
// buffers. Each row is the median of REPS sorts, each timed from enqueue to completion (wall clock), after
// two warm-ups; the output is checked in O(n) (keys in order, sum and xor of the key bits, each value
// naming its key with every byte intact). With --profile, the permutation's own kernels are timed apart.
//
// --huge LOG2 (or N) sorts that many u32 keys alone, generated on the device, once (plus one timed repeat
// with --reps 2): past 2^32 the radix sort partitions first (host/src/huge.cpp); checked in chunks for
// order and for the multiset (sum and xor of the keys, which are a hash of their index).
//
//   clsort_probe_wide_pairs --sizes 20,24,26 --widths 4,8,12,16,64 --reps 10 [--profile]
//   clsort_probe_wide_pairs --huge 33 [--argsort64]
#include <clsort/clsort.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
constexpr std::uint64_t kMix = 0x9E3779B97F4A7C15ull;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}
double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

std::vector<std::size_t> parse_list(const std::string& s) {
  std::vector<std::size_t> v;
  std::size_t at = 0;
  while (at < s.size()) {
    const std::size_t comma = s.find(',', at);
    v.push_back(std::stoull(s.substr(at, comma == std::string::npos ? std::string::npos : comma - at)));
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  return v;
}

// A value of `width` bytes for input index i: the index, then bytes derived from it.
void make_value(unsigned char* v, std::size_t width, std::uint32_t i) {
  for (std::size_t b = 0; b < width; ++b) v[b] = static_cast<unsigned char>((i * 2654435761u) >> (b % 24));
  std::memcpy(v, &i, std::min<std::size_t>(width, 4));
}

bool run_pairs(clsort::Sorter& s, std::size_t n, std::size_t width, int reps, bool profile) {
  std::vector<std::uint32_t> keys(n);
  std::mt19937_64 rng(42);
  for (auto& k : keys) k = std::uint32_t(rng());
  std::uint64_t sum = 0, xor_ = 0;
  for (std::uint32_t k : keys) sum += k * kMix, xor_ ^= k;
  std::vector<unsigned char> values(n * width);
  for (std::size_t i = 0; i < n; ++i) make_value(&values[i * width], width, std::uint32_t(i));
  auto& q = s.queue();
  cl::Buffer ksrc(s.context(), CL_MEM_READ_WRITE, n * 4), kwork(s.context(), CL_MEM_READ_WRITE, n * 4);
  cl::Buffer vsrc(s.context(), CL_MEM_READ_WRITE, n * width),
      vwork(s.context(), CL_MEM_READ_WRITE, n * width);
  q.enqueueWriteBuffer(ksrc, CL_TRUE, 0, n * 4, keys.data());
  q.enqueueWriteBuffer(vsrc, CL_TRUE, 0, n * width, values.data());
  std::vector<double> ts, stage, gather;
  for (int r = 0; r < reps + 2; ++r) {
    q.enqueueCopyBuffer(ksrc, kwork, 0, 0, n * 4);
    q.enqueueCopyBuffer(vsrc, vwork, 0, 0, n * width);
    q.finish();
    const auto t0 = Clock::now();
    s.sort_buffer(clsort::KeyType::u32, kwork, &vwork, width, n, {}, {}).wait();
    const double ms = ms_since(t0);
    if (r < 2) continue;
    ts.push_back(ms);
    double before = 0, after = 0;  // widen or stage; narrow or gather
    for (const auto& kt : s.last_profile()) {
      if (kt.name == "permute_stage" || kt.name == "permute_widen") before += kt.ms;
      if (kt.name == "permute_gather" || kt.name == "permute_narrow") after += kt.ms;
    }
    stage.push_back(before);
    gather.push_back(after);
  }
  std::vector<std::uint32_t> out(n);
  std::vector<unsigned char> vout(n * width);
  q.enqueueReadBuffer(kwork, CL_TRUE, 0, n * 4, out.data());
  q.enqueueReadBuffer(vwork, CL_TRUE, 0, n * width, vout.data());
  bool ok = std::is_sorted(out.begin(), out.end());
  std::uint64_t osum = 0, oxor = 0;
  for (std::size_t i = 0; i < n; ++i) {
    osum += out[i] * kMix, oxor ^= out[i];
    std::uint32_t at = 0;
    std::memcpy(&at, &vout[i * width], std::min<std::size_t>(width, 4));
    if (width >= 4 && (at >= n || keys[at] != out[i] ||
                       std::memcmp(&vout[i * width], &values[std::size_t(at) * width], width) != 0))
      ok = false;
  }
  ok = ok && osum == sum && oxor == xor_;
  const double med = median(ts);
  std::printf("u32+v%-4zu %11zu %10.4f ms %9.3f Gkeys/s", width, n, med, double(n) / med / 1e6);
  if (profile) std::printf("  stage/widen %.4f ms, gather/narrow %.4f ms", median(stage), median(gather));
  std::printf(" %s\n", ok ? "checked" : "WRONG OUTPUT");
  std::fflush(stdout);
  return ok;
}

// The keys of the huge run: a hash of the index, so that the host knows their sum and xor.
const char* kFill = R"(
kernel void fill(global uint* k, ulong n) {
  for (size_t i = get_global_id(0); i < n; i += get_global_size(0)) {
    ulong x = (ulong)i * 0x9E3779B97F4A7C15UL;
    x ^= x >> 29; x *= 0xBF58476D1CE4E5B9UL; x ^= x >> 32;
    k[i] = (uint)x;
  }
})";
std::uint32_t fill_key(std::uint64_t i) {
  std::uint64_t x = i * 0x9E3779B97F4A7C15ull;
  x ^= x >> 29;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 32;
  return std::uint32_t(x);
}

bool run_huge(clsort::Sorter& s, std::size_t n, int reps, bool argsort64, bool profile) {
  std::printf("huge: %zu u32 keys (2^%.3f), %s; largest n here (Sorter::max_n): %zu\n", n,
              std::log2(double(n)), argsort64 ? "argsort64" : "keys alone",
              s.max_n(clsort::KeyType::u32, argsort64 ? 8 : 0));
  std::fflush(stdout);
  auto& q = s.queue();
  cl_int status = CL_SUCCESS;
  cl::Buffer keys(s.context(), CL_MEM_READ_WRITE, n * 4, nullptr, &status);
  if (status != CL_SUCCESS) {
    std::printf("allocating %zu bytes of keys failed: %s\n", n * 4, clsort::status_name(status));
    return false;
  }
  cl::Buffer indices;
  if (argsort64) indices = cl::Buffer(s.context(), CL_MEM_READ_WRITE, n * 8, nullptr, &status);
  if (status != CL_SUCCESS) {
    std::printf("allocating %zu bytes of indices failed: %s\n", n * 8, clsort::status_name(status));
    return false;
  }
  cl::Program program(s.context(), kFill);
  if (program.build({s.device()}) != CL_SUCCESS) {
    std::printf("the fill kernel did not build\n");
    return false;
  }
  cl::Kernel fill(program, "fill");
  fill.setArg(0, keys);
  fill.setArg(1, cl_ulong(n));
  std::vector<double> ts;
  for (int r = 0; r < std::max(1, reps); ++r) {
    q.enqueueNDRangeKernel(fill, cl::NullRange, cl::NDRange(std::size_t(1) << 20), cl::NDRange(256));
    q.finish();
    const auto t0 = Clock::now();
    try {
      if (argsort64)
        s.argsort64<std::uint32_t>(keys, n, indices).wait();
      else
        s.sort<std::uint32_t>(keys, n, {clsort::Order::ascending, clsort::Algorithm::radix}).wait();
    } catch (const clsort::Error& e) {
      std::printf("clsort::Error: %s\n", e.what());
      return false;
    }
    ts.push_back(ms_since(t0));
    std::printf("  run %d: %.1f ms (%.3f Gkeys/s)\n", r, ts.back(), double(n) / ts.back() / 1e6);
    if (profile) {
      std::vector<std::pair<std::string, double>> by_name;
      for (const auto& kt : s.last_profile()) {
        auto it =
            std::find_if(by_name.begin(), by_name.end(), [&](const auto& p) { return p.first == kt.name; });
        if (it == by_name.end())
          by_name.emplace_back(kt.name, kt.ms);
        else
          it->second += kt.ms;
      }
      for (const auto& [name, ms] : by_name) std::printf("    %-28s %10.2f ms\n", name.c_str(), ms);
    }
    std::fflush(stdout);
  }
  // Check in chunks: order across chunk borders, and the multiset by sum and xor.
  const std::size_t chunk = std::size_t(1) << 28;
  std::vector<std::uint32_t> buf(chunk);
  std::vector<std::uint64_t> ibuf(argsort64 ? chunk : 0);
  bool ok = true;
  std::uint64_t sum = 0, xor_ = 0, osum = 0, oxor = 0;
  std::uint32_t last = 0;
  for (std::size_t at = 0; at < n; at += chunk) {
    const std::size_t m = std::min(chunk, n - at);
    if (argsort64) {
      q.enqueueReadBuffer(indices, CL_TRUE, at * 8, m * 8, ibuf.data());
      for (std::size_t i = 0; i < m; ++i) {
        if (ibuf[i] >= n) {
          ok = false;
          break;
        }
        buf[i] = fill_key(ibuf[i]);
      }
    } else {
      q.enqueueReadBuffer(keys, CL_TRUE, at * 4, m * 4, buf.data());
    }
    for (std::size_t i = 0; i < m; ++i) {
      if (buf[i] < last) ok = false;
      last = buf[i];
      osum += buf[i] * kMix;
      oxor ^= buf[i];
    }
  }
  // The expected multiset, on every host thread.
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::uint64_t> sums(threads), xors(threads);
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      for (std::size_t i = t; i < n; i += threads) {
        const std::uint32_t k = fill_key(i);
        sums[t] += k * kMix;
        xors[t] ^= k;
      }
    });
  for (auto& th : pool) th.join();
  for (unsigned t = 0; t < threads; ++t) sum += sums[t], xor_ ^= xors[t];
  ok = ok && sum == osum && xor_ == oxor;
  std::printf("huge %zu keys: median %.1f ms, %.3f Gkeys/s %s\n", n, median(ts), double(n) / median(ts) / 1e6,
              ok ? "checked" : "WRONG OUTPUT");
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::size_t> sizes{20, 24, 26}, widths{4, 8, 12, 16, 64};
  int reps = 10;
  bool profile = false, argsort64 = false;
  std::size_t huge = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--sizes")
      sizes = parse_list(next());
    else if (a == "--widths")
      widths = parse_list(next());
    else if (a == "--reps")
      reps = std::atoi(next().c_str());
    else if (a == "--profile")
      profile = true;
    else if (a == "--argsort64")
      argsort64 = true;
    else if (a == "--huge") {
      const std::size_t v = std::stoull(next());
      huge = v < 64 ? std::size_t(1) << v : v;
    } else {
      std::fprintf(stderr,
                   "usage: clsort_probe_wide_pairs [--sizes 20,24,26] [--widths 4,8,12,16,64] [--reps 10] "
                   "[--profile] [--huge LOG2|N [--argsort64]]\n");
      return 2;
    }
  }
  const cl::Device device = clsort::default_device();
  clsort::Sorter s(device, profile);
  std::printf("clsort %s on %s, sort_by_key of u32 keys, median of %d sorts (wall clock)\n",
              CLSORT_VERSION_STRING, device.getInfo<CL_DEVICE_NAME>().c_str(), reps);
  bool ok = true;
  if (huge) return run_huge(s, huge, reps, argsort64, profile) ? 0 : 1;
  for (std::size_t lg : sizes)
    for (std::size_t w : widths) ok = run_pairs(s, std::size_t(1) << lg, w, reps, profile) && ok;
  return ok ? 0 : 1;
}
