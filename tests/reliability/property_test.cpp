// Randomized property test: random n, key type, order, algorithm (and radix shape), distribution, mode
// (keys, by key with 4- or 8-byte values, argsort) and path (host arrays, or device sub-buffers between
// canaries); every result must be sorted, a permutation of the input bits, stable, and leave the canaries.
//
// CLSORT_PROPERTY_SEED (default fixed, "random" for a new one) and CLSORT_PROPERTY_CASES (default 600)
// set the run; CLSORT_PROPERTY_CASE=i replays case i alone. Failures print the seed and case to replay.
#include <doctest/doctest.h>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <sstream>

#include "reference.hpp"

namespace reliability {
namespace {

std::uint64_t env_u64(const char* name, std::uint64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoull(v, nullptr, 0) : fallback;
}

std::uint64_t run_seed() {
  const char* v = std::getenv("CLSORT_PROPERTY_SEED");
  if (v && std::string(v) == "random")
    return std::uint64_t(std::chrono::steady_clock::now().time_since_epoch().count()) * 0x9E3779B97F4A7C15ull;
  return env_u64("CLSORT_PROPERTY_SEED", 0x50F7C0DEull);
}

// A splitmix64 step: case seeds independent of each other, so any case replays alone.
std::uint64_t mix(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

enum class Mode { keys, by_key4, by_key8, argsort };
const char* to_string(Mode m) {
  static const char* names[] = {"keys", "by_key4", "by_key8", "argsort"};
  return names[int(m)];
}

// The Sorters cases draw from, all on one context: the device's tuning, the other radix shape, and small
// work-groups and tiles so that even small n span many work-groups.
struct Sorters {
  std::unique_ptr<clsort::Sorter> base, other_shape, small;
  std::string other_tuning;
  Sorters() {
    base = std::make_unique<clsort::Sorter>();
    const cl::CommandQueue q(base->context(), base->device());
    other_shape = std::make_unique<clsort::Sorter>(q);
    other_tuning =
        base->plan().tuning.find("radix.cpu=1") != std::string::npos ? "radix.cpu=0" : "radix.cpu=1";
    other_shape->tune(other_tuning);
    small = std::make_unique<clsort::Sorter>(cl::CommandQueue(base->context(), base->device()));
    small->tune("radix.wg=16 radix.items=3 radix.groups=8 bitonic.wg=16 bitonic.tile=64 selection.wg=32");
  }
};

struct Case {
  std::size_t index;
  std::uint64_t seed;
  KeyType type;
  Order order;
  Algorithm algorithm;
  int sorter;  // 0 base, 1 other radix shape, 2 small tuning
  Dist dist;
  Mode mode;
  bool device;  // device buffers (sub-buffers between canaries) instead of host arrays
  std::size_t n;

  std::string describe(std::uint64_t run) const {
    static const char* sorters[] = {"device tuning", "other radix shape", "small tuning"};
    std::ostringstream s;
    s << "case " << index << " (CLSORT_PROPERTY_SEED=" << run << " CLSORT_PROPERTY_CASE=" << index
      << "): " << clsort::to_string(algorithm) << " [" << sorters[sorter] << "] " << clsort::to_string(type)
      << " " << clsort::to_string(order) << " n=" << n << " " << reliability::to_string(dist) << " "
      << to_string(mode) << (device ? " device" : " host");
    return s.str();
  }
};

Case draw(std::uint64_t run, std::size_t index) {
  Case c;
  c.index = index;
  c.seed = mix(run ^ mix(index));
  std::mt19937_64 rng(c.seed);
  c.type = all_types()[rng() % all_types().size()];
  c.order = rng() % 2 ? Order::descending : Order::ascending;
  static const Algorithm algorithms[] = {Algorithm::radix, Algorithm::radix, Algorithm::bitonic,
                                         Algorithm::selection, Algorithm::automatic};
  c.algorithm = algorithms[rng() % 5];
  c.sorter = int(rng() % 3);
  c.dist = Dist(rng() % kDists);
  c.mode = Mode(rng() % 4);
  c.device = c.mode != Mode::argsort && rng() % 2;
  // Log-uniform n: mostly small and medium (where the boundaries of work-groups and tiles are), some
  // large; selection sort is O(n^2), so it stays small.
  const unsigned bits = unsigned(rng() % (c.algorithm == Algorithm::selection ? 12 : 18));
  c.n = std::size_t(rng() % (std::uint64_t(1) << bits)) + (rng() % 8 == 0 ? 0 : 1);
  if (rng() % 8 == 0) c.n = (std::size_t(1) << bits) + (rng() % 3) - 1;  // a power of two +-1
  return c;
}

std::size_t base_align(const cl::Device& d) {
  return std::max<std::size_t>(d.getInfo<CL_DEVICE_MEM_BASE_ADDR_ALIGN>() / 8, 4);
}

// `data` inside a device allocation between random canary bytes; the sort sees a sub-buffer that starts
// at an aligned offset and ends inside the canary after the data.
struct Guarded {
  std::size_t pre, len;
  std::vector<unsigned char> initial;
  cl::Buffer parent, view;
  Guarded(const clsort::Sorter& s, const std::vector<unsigned char>& data, std::mt19937_64& rng) {
    pre = base_align(s.device()) * std::size_t(rng() % 3);
    const std::size_t post = 1 + std::size_t(rng() % 29);
    initial.resize(pre + data.size() + post);
    for (auto& b : initial) b = static_cast<unsigned char>(rng());
    std::copy(data.begin(), data.end(), initial.begin() + std::ptrdiff_t(pre));
    parent =
        cl::Buffer(s.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, initial.size(), initial.data());
    len = data.size() + std::size_t(rng() % (post + 1));
    if (len == 0) len = 1;
    cl_buffer_region region{pre, len};
    cl_int status = CL_SUCCESS;
    view = parent.createSubBuffer(CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, &status);
    REQUIRE(status == CL_SUCCESS);
  }
  // The first `bytes` of the view, or an error naming a changed byte outside them.
  std::string read(const cl::CommandQueue& q, std::size_t bytes, std::vector<unsigned char>& out) const {
    std::vector<unsigned char> now(initial.size());
    REQUIRE(q.enqueueReadBuffer(parent, CL_TRUE, 0, now.size(), now.data()) == CL_SUCCESS);
    for (std::size_t i = 0; i < now.size(); ++i)
      if ((i < pre || i >= pre + bytes) && now[i] != initial[i])
        return "canary byte " + std::to_string(i) + " changed (" + (i < pre ? "before" : "after") +
               " the data)";
    out.assign(now.begin() + std::ptrdiff_t(pre), now.begin() + std::ptrdiff_t(pre + bytes));
    return {};
  }
};

// Runs one case; returns an empty string or what went wrong.
std::string run_case(Sorters& sorters, const Case& c) {
  clsort::Sorter& s = c.sorter == 0 ? *sorters.base : c.sorter == 1 ? *sorters.other_shape : *sorters.small;
  std::mt19937_64 rng(mix(c.seed));
  const std::vector<std::uint64_t> keys = make_keys(c.type, c.dist, c.n, rng);
  const clsort::Options options{c.order, c.algorithm};
  const std::vector<unsigned char> kbytes = pack(c.type, keys);
  const unsigned vb = c.mode == Mode::by_key4 ? 4 : c.mode == Mode::by_key8 ? 8 : 0;
  const std::vector<unsigned char> vbytes = make_values(c.n, vb ? vb : 4, rng);

  if (c.mode == Mode::argsort) {
    std::vector<std::uint32_t> perm(c.n, 0xFFFFFFFFu);
    s.argsort_host(c.type, kbytes.data(), c.n, perm.data(), options);
    std::vector<std::uint64_t> out(c.n), index(c.n);
    for (std::size_t i = 0; i < c.n; ++i) {
      index[i] = perm[i];
      out[i] = perm[i] < c.n ? keys[perm[i]] : ~0ull;
    }
    return check_pairs(c.type, c.order, keys, out, index);
  }
  std::vector<unsigned char> ko, vo;
  if (!c.device) {
    ko = kbytes;
    vo = vbytes;
    s.sort_host(c.type, ko.empty() ? nullptr : ko.data(), c.n, vb && !vo.empty() ? vo.data() : nullptr, vb,
                options);
  } else {
    Guarded kg(s, kbytes, rng);
    std::unique_ptr<Guarded> vg;
    if (vb) vg = std::make_unique<Guarded>(s, vbytes, rng);
    s.sort_buffer(c.type, kg.view, vg ? &vg->view : nullptr, vb, c.n, options, {}).wait();
    if (std::string e = kg.read(s.queue(), kbytes.size(), ko); !e.empty()) return "keys: " + e;
    if (vg)
      if (std::string e = vg->read(s.queue(), vbytes.size(), vo); !e.empty()) return "values: " + e;
  }
  const std::vector<std::uint64_t> out = unpack(c.type, ko.data(), c.n);
  if (!vb) return check_keys(c.type, c.order, keys, out);
  if (std::string e = check_pairs(c.type, c.order, keys, out, value_indices(vo, vb)); !e.empty()) return e;
  return check_values_follow(vbytes, vo, vb);
}

TEST_CASE("property: random sorts against the reference order") {
  const std::uint64_t run = run_seed();
  const std::size_t cases = std::size_t(env_u64("CLSORT_PROPERTY_CASES", 600));
  const char* only = std::getenv("CLSORT_PROPERTY_CASE");
  Sorters sorters;
  std::cout << "property test on '" << sorters.base->device().getInfo<CL_DEVICE_NAME>()
            << "': CLSORT_PROPERTY_SEED=" << run << ", "
            << (only ? std::string("case ") + only : std::to_string(cases) + " cases")
            << " (other radix shape: " << sorters.other_tuning << ")" << std::endl;
  const auto start = std::chrono::steady_clock::now();
  int failures = 0;
  std::size_t keys_sorted = 0, count[4] = {0, 0, 0, 0};
  const std::size_t first = only ? std::size_t(std::strtoull(only, nullptr, 0)) : 0;
  const std::size_t last = only ? first + 1 : cases;
  for (std::size_t i = first; i < last; ++i) {
    const Case c = draw(run, i);
    std::string error;
    try {
      error = run_case(sorters, c);
    } catch (const std::exception& e) {
      error = std::string("threw: ") + e.what();
    }
    if (!error.empty()) {
      FAIL_CHECK(c.describe(run) << ": " << error);
      if (++failures >= 10) break;
    }
    keys_sorted += c.n;
    ++count[int(c.mode)];
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << "property test: " << (count[0] + count[1] + count[2] + count[3]) << " cases (" << count[0]
            << " keys, " << count[1] << " by key 4, " << count[2] << " by key 8, " << count[3]
            << " argsort), " << keys_sorted << " keys, " << failures << " failures, " << s << " s"
            << std::endl;
  CHECK(failures == 0);
}

}  // namespace
}  // namespace reliability
