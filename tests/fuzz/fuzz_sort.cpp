// libFuzzer target: arbitrary bytes become a sort call (key type, order, algorithm, keys only / by key /
// argsort, host or device data, a tuning string, sometimes a bad argument) and its keys; the result is
// checked against the reference order of tests/reliability/reference.hpp, and bad calls must throw
// clsort::Error and change nothing. Built with -DCLSORT_FUZZ=ON (clang); see docs/reliability.md.
//
// Input: byte 0: key type (% 6), bit 3 descending, bits 4-5 mode (keys, by key 4, by key 8, argsort),
// bit 6 device buffers, bit 7 a bad call; byte 1: algorithm (% 6), bits 3-7 >= 16: a tuning string
// follows, its length in byte 2 (% 64); the remaining bytes are the keys.
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>

#include "reference.hpp"

namespace {

using namespace reliability;

struct State {
  cl::Device device;
  cl::Context context;
  cl::CommandQueue queue;
  std::map<std::string, std::unique_ptr<clsort::Sorter>> sorters;  // by tuning string
};

State& state() {
  static State* s = [] {
    auto* st = new State;  // lives to the end: OpenCL teardown at exit is not the target's business
    st->device = clsort::default_device();
    st->context = cl::Context(st->device);
    st->queue = cl::CommandQueue(st->context, st->device);
    return st;
  }();
  return *s;
}

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "clsort fuzz: %s\n", what.c_str());
  std::abort();
}

// A Sorter with `tuning` applied, or null when the string is refused (which must change nothing).
clsort::Sorter* sorter_for(const std::string& tuning) {
  State& st = state();
  auto it = st.sorters.find(tuning);
  if (it != st.sorters.end()) return it->second.get();
  if (st.sorters.size() >= 32) st.sorters.clear();  // bound the kernels and scratch kept
  auto s = std::make_unique<clsort::Sorter>(st.queue);
  const std::string before = s->plan().tuning;
  try {
    s->tune(tuning);
  } catch (const clsort::Error& e) {
    if (e.status() != CL_INVALID_VALUE) fail("tune() threw with status " + std::to_string(e.status()));
    if (s->plan().tuning != before) fail("a refused tuning string changed the tuning: '" + tuning + "'");
    return nullptr;
  }
  return st.sorters.emplace(tuning, std::move(s)).first->second.get();
}

std::string bad_call(clsort::Sorter& s, KeyType t, const std::vector<unsigned char>& k, std::size_t n,
                     unsigned vb, std::uint8_t selector) {
  const unsigned kb = width(t);
  std::vector<unsigned char> kbytes = k;
  kbytes.resize(std::max<std::size_t>(kbytes.size(), kb));
  cl::Buffer kbuf(s.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, kbytes.size(), kbytes.data());
  std::vector<unsigned char> vbytes(std::max<std::size_t>(n, 1) * 8, 0x77);
  cl::Buffer vbuf(s.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, vbytes.size(), vbytes.data());
  const std::size_t cap = kbytes.size() / kb;
  std::size_t bad_n = cap + 1 + selector % 7;
  std::size_t bad_vb = vb ? vb : 4;
  const cl::Buffer* values = vb ? &vbuf : nullptr;
  switch (selector % 4) {
    case 0:  // n past the keys
      break;
    case 1:  // a value width of 0
      bad_n = std::min(n, cap);
      bad_vb = 0;
      values = &vbuf;
      break;
    case 2:  // keys and values the same buffer
      bad_n = std::max<std::size_t>(1, std::min(n, cap));
      values = &kbuf;
      break;
    case 3:  // n of 2^32 and more
      bad_n = (std::size_t(1) << 32) + selector;
      break;
  }
  try {
    s.sort_buffer(t, kbuf, values, bad_vb, bad_n, {}, {}).wait();
    return "a bad call (case " + std::to_string(selector % 4) + ") was accepted";
  } catch (const clsort::Error& e) {
    if (e.status() != CL_INVALID_VALUE)
      return std::string("a bad call failed with ") + clsort::status_name(e.status());
  }
  std::vector<unsigned char> now(kbytes.size());
  s.queue().enqueueReadBuffer(kbuf, CL_TRUE, 0, now.size(), now.data());
  if (now != kbytes) return "a refused call changed the keys";
  now.resize(vbytes.size());
  s.queue().enqueueReadBuffer(vbuf, CL_TRUE, 0, now.size(), now.data());
  if (now != vbytes) return "a refused call changed the values";
  return {};
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  static const Algorithm algorithms[] = {Algorithm::automatic, Algorithm::radix,    Algorithm::bitonic,
                                         Algorithm::selection, Algorithm::odd_even, Algorithm::merge};
  const KeyType type = all_types()[data[0] % 6];
  const Order order = data[0] & 8 ? Order::descending : Order::ascending;
  const int mode = (data[0] >> 4) & 3;
  const bool device = data[0] & 64, bad = data[0] & 128;
  const Algorithm algorithm = algorithms[data[1] % 6];
  std::size_t at = 2;
  std::string tuning;
  if ((data[1] >> 3) >= 16 && size > 2) {
    const std::size_t len = std::min<std::size_t>(data[2] % 64, size - 3);
    tuning.assign(reinterpret_cast<const char*>(data + 3), len);
    at = 3 + len;
  }
  const unsigned kb = width(type);
  const bool quadratic = algorithm == Algorithm::selection || algorithm == Algorithm::odd_even;
  const std::size_t n = std::min<std::size_t>((size - at) / kb, quadratic ? 512 : 2048);
  const std::vector<std::uint64_t> keys = unpack(type, data + at, n);
  const std::vector<unsigned char> k0 = pack(type, keys);

  clsort::Sorter* s = sorter_for(tuning);
  if (!s) return 0;
  const std::string what = std::string(clsort::to_string(algorithm)) + " " + clsort::to_string(type) + " " +
                           clsort::to_string(order) + " mode " + std::to_string(mode) +
                           (device ? " device" : " host") + " n=" + std::to_string(n) + " tuning '" + tuning +
                           "'";
  const unsigned vb = mode == 1 ? 4 : mode == 2 ? 8 : 0;
  std::string error;
  try {
    if (bad) {
      error = bad_call(*s, type, k0, n, vb, data[1]);
    } else if (mode == 3) {
      std::vector<std::uint32_t> perm(n);
      s->argsort_host(type, k0.data(), n, perm.data(), {order, algorithm});
      std::vector<std::uint64_t> out(n), index(n);
      for (std::size_t i = 0; i < n; ++i) index[i] = perm[i], out[i] = perm[i] < n ? keys[perm[i]] : 0;
      error = check_pairs(type, order, keys, out, index);
    } else {
      std::mt19937_64 rng(n);
      const std::vector<unsigned char> v0 = make_values(n, vb ? vb : 4, rng);
      std::vector<unsigned char> k = k0, v = v0;
      if (device && n > 0) {
        cl::Buffer kbuf(s->context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, k.size(), k.data());
        cl::Buffer vbuf(s->context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, v.size(), v.data());
        s->sort_buffer(type, kbuf, vb ? &vbuf : nullptr, vb, n, {order, algorithm}, {}).wait();
        s->queue().enqueueReadBuffer(kbuf, CL_TRUE, 0, k.size(), k.data());
        s->queue().enqueueReadBuffer(vbuf, CL_TRUE, 0, v.size(), v.data());
      } else {
        s->sort_host(type, k.data(), n, vb ? v.data() : nullptr, vb, {order, algorithm});
      }
      const std::vector<std::uint64_t> out = unpack(type, k.data(), n);
      if (!vb) {
        error = check_keys(type, order, keys, out);
        if (error.empty() && v != v0) error = "keys-only sort changed the values";
      } else {
        error = check_pairs(type, order, keys, out, value_indices(v, vb));
        if (error.empty()) error = check_values_follow(v0, v, vb);
      }
    }
  } catch (const clsort::Error& e) {
    error = std::string("threw: ") + e.what();
  }
  if (!error.empty()) fail(what + ": " + error);
  return 0;
}
