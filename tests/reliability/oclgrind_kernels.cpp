// Drives every kernel through Oclgrind's checker: one algorithm shape per run (argv[1]), every key type,
// both orders, keys only (device buffer) and by key (4-byte values on the host, 8-byte on the device),
// with tuning small enough that a few hundred keys span several work-groups. Run under
// `oclgrind --data-races --uninitialized` by oclgrind_check.cmake, which fails on any Oclgrind report.
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <set>
#include <string>

#include "oclgrind_configs.hpp"
#include "reference.hpp"

namespace {

using namespace reliability;

int failures = 0;
std::vector<cl::Buffer>* buffers;                           // every buffer made, kept to the end: see main()
std::vector<std::unique_ptr<clsort::Sorter>>* sorter_pool;  // every Sorter made, kept to the end
std::set<std::string> kernels_run;  // from the profiling queue: which kernels Oclgrind checked

void note_kernels(const clsort::Sorter& sorter) {
  for (const clsort::KernelTime& k : sorter.last_profile()) kernels_run.insert(k.name);
}

void report(const std::string& what, const std::string& error) {
  if (error.empty()) return;
  std::fprintf(stderr, "FAIL %s: %s\n", what.c_str(), error.c_str());
  ++failures;
}

// top_k of n / 3 + 1 keys into device buffers with room past k that must stay untouched, checked against
// the stable order of (key, index); select of the last of them.
void run_select(clsort::Sorter& sorter, KeyType type, Order order, const std::vector<std::uint64_t>& keys,
                const std::string& what) {
  const std::size_t n = keys.size(), k = n / 3 + 1, kb = width(type), tail = 3;
  const cl::CommandQueue& q = sorter.queue();
  std::vector<std::uint32_t> ref(n);
  for (std::size_t i = 0; i < n; ++i) ref[i] = std::uint32_t(i);
  std::stable_sort(ref.begin(), ref.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return before(type, order, keys[a], keys[b]); });
  std::vector<unsigned char> bytes = pack(type, keys);
  cl::Buffer in(sorter.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes.size(), bytes.data());
  std::vector<unsigned char> kinit((k + tail) * kb, 0xA5), iinit((k + tail) * 4, 0x5A);
  cl::Buffer kout(sorter.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, kinit.size(), kinit.data());
  cl::Buffer iout(sorter.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, iinit.size(), iinit.data());
  cl::Buffer one(sorter.context(), CL_MEM_READ_WRITE, kb);
  for (const cl::Buffer& b : {in, kout, iout, one}) buffers->push_back(b);
  sorter.top_k_buffer(type, in, n, k, kout, iout, {order}, {}).wait();
  note_kernels(sorter);
  std::vector<unsigned char> ko(kinit.size()), io(iinit.size()), so(kb);
  q.enqueueReadBuffer(kout, CL_TRUE, 0, ko.size(), ko.data());
  q.enqueueReadBuffer(iout, CL_TRUE, 0, io.size(), io.data());
  const std::vector<std::uint64_t> got = unpack(type, ko.data(), k);
  for (std::size_t i = 0; i < k; ++i) {
    std::uint32_t index;
    std::memcpy(&index, io.data() + i * 4, 4);
    if (index != ref[i] || got[i] != keys[ref[i]]) {
      report(what + " top_k", "position " + std::to_string(i) + ": index " + std::to_string(index) +
                                  ", expected " + std::to_string(ref[i]));
      break;
    }
  }
  if (!std::equal(ko.begin() + std::ptrdiff_t(k * kb), ko.end(), kinit.begin() + std::ptrdiff_t(k * kb)) ||
      !std::equal(io.begin() + std::ptrdiff_t(k * 4), io.end(), iinit.begin() + std::ptrdiff_t(k * 4)))
    report(what + " top_k", "bytes past k changed");
  sorter.select_buffer(type, in, n, k - 1, one, {order}, {}).wait();
  note_kernels(sorter);
  q.enqueueReadBuffer(one, CL_TRUE, 0, kb, so.data());
  if (unpack(type, so.data(), 1)[0] != keys[ref[k - 1]]) report(what + " select", "wrong key");
}

// lexsort of (keys, order) then an i16 column of few distinct values in the other order, from device
// buffers into indices with room past n that must stay untouched; against std::stable_sort.
void run_lexsort(clsort::Sorter& sorter, KeyType type, Order order, const std::vector<std::uint64_t>& keys,
                 std::mt19937_64& rng, const std::string& what) {
  const std::size_t n = keys.size(), tail = 3;
  const Order other = order == Order::ascending ? Order::descending : Order::ascending;
  const std::vector<std::uint64_t> second = make_keys(KeyType::i16, Dist::few_unique, n, rng);
  std::vector<std::uint32_t> ref(n);
  for (std::size_t i = 0; i < n; ++i) ref[i] = std::uint32_t(i);
  std::stable_sort(ref.begin(), ref.end(), [&](std::uint32_t a, std::uint32_t b) {
    if (before(type, order, keys[a], keys[b])) return true;
    if (before(type, order, keys[b], keys[a])) return false;
    return before(KeyType::i16, other, second[a], second[b]);
  });
  std::vector<unsigned char> k = pack(type, keys), s = pack(KeyType::i16, second);
  cl::Buffer kb(sorter.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, k.size(), k.data());
  cl::Buffer sb(sorter.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, s.size(), s.data());
  std::vector<unsigned char> init((n + tail) * 4, 0x5A);
  cl::Buffer out(sorter.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, init.size(), init.data());
  for (const cl::Buffer& b : {kb, sb, out}) buffers->push_back(b);
  sorter.lexsort({{type, kb, order}, {KeyType::i16, sb, other}}, n, out).wait();
  note_kernels(sorter);
  std::vector<unsigned char> got(init.size());
  sorter.queue().enqueueReadBuffer(out, CL_TRUE, 0, got.size(), got.data());
  for (std::size_t i = 0; i < n; ++i) {
    std::uint32_t index;
    std::memcpy(&index, got.data() + i * 4, 4);
    if (index != ref[i]) {
      report(what + " lexsort", "position " + std::to_string(i) + ": row " + std::to_string(index) +
                                    ", expected " + std::to_string(ref[i]));
      break;
    }
  }
  if (!std::equal(got.begin() + std::ptrdiff_t(n * 4), got.end(), init.begin() + std::ptrdiff_t(n * 4)))
    report(what + " lexsort", "bytes past n changed");
}

// The segmented sort of n keys between guards: lengths 0 to 40 with one of 100 keys and one of 33 (one chunk
// of a single key past a full one, n >= 200), keys only (32-bit offsets) and with 8-byte values (64-bit
// offsets), each segment checked, the guards unchanged.
void run_segments(clsort::Sorter& sorter, KeyType type, Order order, const std::vector<std::uint64_t>& keys,
                  std::mt19937_64& rng, const std::string& what, bool permuted) {
  const std::size_t n = keys.size(), guard = 3, kb = width(type);
  std::vector<std::uint64_t> off{guard};
  while (off.back() < guard + n) {
    const std::size_t len = n >= 200 && off.size() == 4   ? (n >= 1500 ? 1100 : 100)
                            : n >= 200 && off.size() == 6 ? 33
                                                          : rng() % 41;
    off.push_back(std::min<std::uint64_t>(guard + n, off.back() + len));
  }
  const std::size_t num = off.size() - 1;
  std::vector<std::uint64_t> all(guard, 0x5A);
  all.insert(all.end(), keys.begin(), keys.end());
  all.insert(all.end(), guard, 0x5A);
  const std::vector<unsigned char> bytes = pack(type, all);
  const std::vector<std::uint32_t> off32(off.begin(), off.end());
  const cl::CommandQueue& q = sorter.queue();
  // Keys alone (32-bit offsets), 8-byte values (64-bit offsets), and where the configuration asks for it
  // 12-byte values (32-bit offsets), which the segment kernels carry as 32-bit indices and
  // kernels/permute.cl moves over the span: that route's kernels are the same under every configuration.
  for (unsigned vb : {0u, 8u, 12u}) {
    if (vb == 12 && !permuted) continue;
    const bool with_values = vb != 0, offsets64 = vb == 8;
    const unsigned wb = with_values ? vb : 8;
    std::vector<unsigned char> k = bytes;
    std::vector<unsigned char> v(all.size() * wb);
    for (auto& b : v) b = static_cast<unsigned char>(rng());
    for (std::size_t i = 0; i < all.size(); ++i) std::memcpy(&v[i * wb], &i, 4);
    cl::Buffer kbuf(sorter.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, k.size(), k.data());
    cl::Buffer vbuf(sorter.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, v.size(),
                    const_cast<unsigned char*>(v.data()));
    cl::Buffer obuf = offsets64 ? cl::Buffer(sorter.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                             off.size() * 8, off.data())
                                : cl::Buffer(sorter.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                             off32.size() * 4, const_cast<std::uint32_t*>(off32.data()));
    for (const cl::Buffer& b : {kbuf, vbuf, obuf}) buffers->push_back(b);
    sorter
        .sort_segments_buffer(type, kbuf, with_values ? &vbuf : nullptr, wb, obuf, offsets64 ? 8 : 4, num,
                              {order}, {})
        .wait();
    note_kernels(sorter);
    std::vector<unsigned char> ko(k.size()), vo(v.size());
    q.enqueueReadBuffer(kbuf, CL_TRUE, 0, ko.size(), ko.data());
    q.enqueueReadBuffer(vbuf, CL_TRUE, 0, vo.size(), vo.data());
    const std::string mode =
        what + (with_values ? " segments by key (" + std::to_string(vb) + ")" : std::string(" segments"));
    if (!std::equal(ko.begin(), ko.begin() + std::ptrdiff_t(guard * kb), bytes.begin()) ||
        !std::equal(ko.end() - std::ptrdiff_t(guard * kb), ko.end(),
                    bytes.end() - std::ptrdiff_t(guard * kb)))
      report(mode, "guard keys changed");
    const std::vector<std::uint64_t> out = unpack(type, ko.data(), all.size());
    const std::vector<std::uint64_t> index = value_indices(vo, wb);
    for (std::size_t s = 0; s < num; ++s) {
      const auto b = std::ptrdiff_t(off[s]), e = std::ptrdiff_t(off[s + 1]);
      const std::vector<std::uint64_t> in_seg(all.begin() + b, all.begin() + e),
          out_seg(out.begin() + b, out.begin() + e);
      std::vector<std::uint64_t> idx(index.begin() + b, index.begin() + e);
      for (auto& i : idx) i -= std::uint64_t(b);
      report(mode, with_values ? check_pairs(type, order, in_seg, out_seg, idx)
                               : check_keys(type, order, in_seg, out_seg));
    }
    if (with_values)
      report(mode, check_values_follow(v, vo, wb));
    else if (vo != v)
      report(mode, "values changed by a keys-only sort");
  }
}

// sort_custom of n structs in a device buffer with room past n: 1-byte ones ordered by their high nibble
// (u8), or 12-byte (float key, uint id, uint position) by key, then id (f32); against std::stable_sort.
void run_custom(clsort::Sorter& sorter, const Config& c, KeyType type, Order order, std::size_t n,
                std::mt19937_64& rng, const std::string& what) {
  struct S12 {
    float key;
    std::uint32_t id, tag;
  };
  const bool small = type == KeyType::u8;
  const std::size_t size = small ? 1 : sizeof(S12), tail = 2 * size;
  std::vector<unsigned char> bytes((n + tail) * size);
  for (auto& b : bytes) b = static_cast<unsigned char>(rng());
  for (std::size_t i = 0; i < n && !small; ++i) {
    const S12 e{float(rng() % 5) - 2.0f, std::uint32_t(rng() % 3), std::uint32_t(i)};
    std::memcpy(&bytes[i * size], &e, size);
  }
  // Sized, then copied: built from the iterator range, GCC 12 warned of a delete at an offset
  // (-Wfree-nonheap-object, a false positive of its inlining).
  std::vector<unsigned char> expected(n * size);
  std::copy_n(bytes.begin(), n * size, expected.begin());
  if (small) {
    auto less = [&](unsigned char a, unsigned char b) {
      return order == Order::ascending ? (a >> 4) < (b >> 4) : (b >> 4) < (a >> 4);
    };
    std::stable_sort(expected.begin(), expected.end(), less);
  } else {
    std::vector<S12> e(n);
    if (n) std::memcpy(e.data(), expected.data(), n * size);
    auto less = [](const S12& a, const S12& b) { return a.key < b.key || (a.key == b.key && a.id < b.id); };
    std::stable_sort(e.begin(), e.end(), [&](const S12& a, const S12& b) {
      return order == Order::ascending ? less(a, b) : less(b, a);
    });
    if (n) std::memcpy(expected.data(), e.data(), n * size);
  }
  cl::Buffer buf(sorter.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes.size(), bytes.data());
  buffers->push_back(buf);
  const clsort::Options options{order, c.algorithm};
  if (small)
    sorter
        .sort_custom_buffer(buf, n, 1, "typedef struct { uchar v; } B;", "(a.v >> 4) < (b.v >> 4)", options,
                            {})
        .wait();
  else
    sorter
        .sort_custom_buffer(buf, n, size, "typedef struct { float key; uint id, tag; } S12;",
                            "a.key < b.key || (a.key == b.key && a.id < b.id)", options, {})
        .wait();
  note_kernels(sorter);
  std::vector<unsigned char> got(bytes.size());
  sorter.queue().enqueueReadBuffer(buf, CL_TRUE, 0, got.size(), got.data());
  if (!std::equal(expected.begin(), expected.end(), got.begin()))
    report(what + " sort_custom", "wrong order");
  if (!std::equal(got.begin() + std::ptrdiff_t(n * size), got.end(),
                  bytes.begin() + std::ptrdiff_t(n * size)))
    report(what + " sort_custom", "bytes past n changed");
}

// Values of 12 bytes (device buffers, room past n untouched) and 3 bytes (host), and argsort64 of device
// keys, each checked against the stable order.
void run_wide(clsort::Sorter& sorter, const Config& c, KeyType type, Order order,
              const std::vector<std::uint64_t>& keys, std::mt19937_64& rng, const std::string& what) {
  const std::size_t n = keys.size(), kb = width(type), tail = 5;
  const cl::CommandQueue& q = sorter.queue();
  const clsort::Options options{order, Algorithm::radix};
  std::vector<std::uint32_t> ref(n);
  for (std::size_t i = 0; i < n; ++i) ref[i] = std::uint32_t(i);
  std::stable_sort(ref.begin(), ref.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return before(type, order, keys[a], keys[b]); });
  for (std::size_t vb : c.value_widths) {
    std::vector<unsigned char> v((n + tail) * vb);
    for (auto& b : v) b = static_cast<unsigned char>(rng());
    for (std::size_t i = 0; i < n; ++i) std::memcpy(&v[i * vb], &i, std::min<std::size_t>(vb, 4));
    std::vector<unsigned char> k = pack(type, keys), vo = v;
    if (vb >= 12) {
      k.resize((n + tail) * kb, 0xA5);
      cl::Buffer kbuf(sorter.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, k.size(), k.data());
      cl::Buffer vbuf(sorter.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, v.size(), v.data());
      buffers->push_back(kbuf);
      buffers->push_back(vbuf);
      sorter.sort_buffer(type, kbuf, &vbuf, vb, n, options, {}).wait();
      q.enqueueReadBuffer(kbuf, CL_TRUE, 0, k.size(), k.data());
      q.enqueueReadBuffer(vbuf, CL_TRUE, 0, vo.size(), vo.data());
      if (!std::equal(vo.begin() + std::ptrdiff_t(n * vb), vo.end(), v.begin() + std::ptrdiff_t(n * vb)))
        report(what + " by key (" + std::to_string(vb) + ")", "bytes past n changed");
    } else {
      sorter.sort_host(type, k.data(), n, vo.data(), vb, options);
    }
    note_kernels(sorter);
    const std::vector<std::uint64_t> got = unpack(type, k.data(), n);
    for (std::size_t i = 0; i < n; ++i) {
      if (got[i] != keys[ref[i]] || std::memcmp(&vo[i * vb], &v[ref[i] * vb], vb) != 0) {
        report(what + " by key (" + std::to_string(vb) + ")", "position " + std::to_string(i) + " differs");
        break;
      }
    }
  }
  const std::vector<unsigned char> k = pack(type, keys);
  std::vector<unsigned char> init((n + tail) * 8, 0x5A), io(init.size());
  cl::Buffer kbuf(sorter.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, k.size(),
                  const_cast<unsigned char*>(k.data()));
  cl::Buffer ibuf(sorter.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, init.size(), init.data());
  buffers->push_back(kbuf);
  buffers->push_back(ibuf);
  sorter.argsort_buffer(type, kbuf, n, ibuf, 8, options, {}).wait();
  note_kernels(sorter);
  q.enqueueReadBuffer(ibuf, CL_TRUE, 0, io.size(), io.data());
  for (std::size_t i = 0; i < n; ++i) {
    std::uint64_t index;
    std::memcpy(&index, &io[i * 8], 8);
    if (index != ref[i]) {
      report(what + " argsort64", "position " + std::to_string(i) + " differs");
      break;
    }
  }
  if (!std::equal(io.begin() + std::ptrdiff_t(n * 8), io.end(), init.begin() + std::ptrdiff_t(n * 8)))
    report(what + " argsort64", "bytes past n changed");
}

void run(clsort::Sorter& sorter, const Config& c, KeyType type, Order order, std::size_t n,
         std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const bool is_float =
      type == KeyType::f32 || type == KeyType::f64 || type == KeyType::f16 || type == KeyType::bf16;
  // Wide mode checks exact positions: NaN-free keys (the sorts leave the order among NaNs open).
  const Dist dist = is_float && c.mode != Mode::wide ? Dist::specials : Dist::few_unique;
  const std::vector<std::uint64_t> keys = make_keys(type, dist, n, rng);
  const clsort::Options options{order, c.algorithm};
  const std::string what = std::string(c.name) + " " + clsort::to_string(type) + " " +
                           clsort::to_string(order) + " n=" + std::to_string(n);
  const unsigned kb = width(type);
  const cl::CommandQueue& q = sorter.queue();
  if (c.mode == Mode::select) return run_select(sorter, type, order, keys, what);
  if (c.mode == Mode::lexsort) return run_lexsort(sorter, type, order, keys, rng, what);
  if (c.mode == Mode::custom) return run_custom(sorter, c, type, order, n, rng, what);
  if (c.mode == Mode::segments)
    return run_segments(sorter, type, order, keys, rng, what, std::string(c.name) == "segments");
  auto fresh = [&]() -> clsort::Sorter& {
    if (!c.sorter_per_mode) return sorter;
    sorter_pool->push_back(std::make_unique<clsort::Sorter>(sorter.queue()));
    sorter_pool->back()->tune(c.tuning);
    return *sorter_pool->back();
  };
  if (c.mode == Mode::wide) return run_wide(sorter, c, type, order, keys, rng, what);

  {  // Keys only, in a device buffer with room past n that must stay untouched.
    clsort::Sorter& ms = fresh();
    std::vector<unsigned char> bytes = pack(type, keys);
    const std::size_t tail = 3 * kb;
    bytes.resize(bytes.size() + tail, 0xA5);
    cl::Buffer buf(ms.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes.size(), bytes.data());
    buffers->push_back(buf);
    ms.sort_buffer(type, buf, nullptr, 0, n, options, {}).wait();
    note_kernels(ms);
    std::vector<unsigned char> out(bytes.size());
    q.enqueueReadBuffer(buf, CL_TRUE, 0, out.size(), out.data());
    report(what + " keys", check_keys(type, order, keys, unpack(type, out.data(), n)));
    if (!std::equal(out.end() - tail, out.end(), bytes.end() - tail))
      report(what + " keys", "bytes past n changed");
  }
  {  // By key, 4-byte values, through the host path.
    clsort::Sorter& ms = fresh();
    std::vector<unsigned char> k = pack(type, keys), v = make_values(n, 4, rng);
    const std::vector<unsigned char> v0 = v;
    ms.sort_host(type, k.data(), n, v.data(), 4, options);
    note_kernels(ms);
    report(what + " by key (4)",
           check_pairs(type, order, keys, unpack(type, k.data(), n), value_indices(v, 4)));
    report(what + " by key (4)", check_values_follow(v0, v, 4));
  }
  {  // By key, 8-byte values, in device buffers.
    clsort::Sorter& ms = fresh();
    const std::vector<unsigned char> k = pack(type, keys), v = make_values(n, 8, rng);
    cl::Buffer kbuf(ms.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, k.size(),
                    const_cast<unsigned char*>(k.data()));
    cl::Buffer vbuf(ms.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, v.size(),
                    const_cast<unsigned char*>(v.data()));
    buffers->push_back(kbuf);
    buffers->push_back(vbuf);
    ms.sort_buffer(type, kbuf, &vbuf, 8, n, options, {}).wait();
    note_kernels(ms);
    std::vector<unsigned char> ko(k.size()), vo(v.size());
    q.enqueueReadBuffer(kbuf, CL_TRUE, 0, ko.size(), ko.data());
    q.enqueueReadBuffer(vbuf, CL_TRUE, 0, vo.size(), vo.data());
    report(what + " by key (8)",
           check_pairs(type, order, keys, unpack(type, ko.data(), n), value_indices(vo, 8)));
    report(what + " by key (8)", check_values_follow(v, vo, 8));
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2 && argc != 3) {
    std::fprintf(stderr, "usage: %s <config> [key type]\nconfigs:", argv[0]);
    for (const Config& c : kConfigs) std::fprintf(stderr, " %s", c.name);
    std::fprintf(stderr, "\n");
    return 2;
  }
  const Config* config = nullptr;
  for (const Config& c : kConfigs)
    if (argv[1] == std::string(c.name)) config = &c;
  if (!config) {
    std::fprintf(stderr, "unknown config '%s'\n", argv[1]);
    return 2;
  }
  // A key type to run alone must be one: an unknown name would select no case and pass unchecked.
  if (argc == 3) {
    bool known = false;
    for (KeyType type : all_types()) known = known || argv[2] == std::string(clsort::to_string(type));
    if (!known) {
      std::fprintf(stderr, "unknown key type '%s'\n", argv[2]);
      return 2;
    }
  }
  try {
    // Under the oclgrind wrapper its simulator is the only platform; refuse to pass silently elsewhere.
    const cl::Device device = clsort::all_devices().at(0);
    const std::string name = device.getInfo<CL_DEVICE_NAME>();
    if (name.find("Oclgrind") == std::string::npos && !std::getenv("CLSORT_OCLGRIND_ANY_DEVICE")) {
      std::fprintf(stderr,
                   "not running under oclgrind (device '%s'); set CLSORT_OCLGRIND_ANY_DEVICE=1 to "
                   "run anyway\n",
                   name.c_str());
      return 1;
    }
    // Oclgrind 21.10's --uninitialized loses track of what a kernel wrote to a buffer that reuses the
    // memory of a freed, smaller one, and then reports reads of it (a false positive; a plain OpenCL
    // program that frees an 80-byte buffer and fills a 960-byte one shows it). So nothing is freed until
    // the end: each case gets its own Sorter (its own scratch; programs are shared through the context),
    // and every Sorter and buffer lives to the end of the run.
    const cl::Context context(device);
    const cl::CommandQueue queue(context, device, CL_QUEUE_PROFILING_ENABLE);  // to list the kernels run
    std::printf("%s on '%s': %s\n", config->name, name.c_str(), config->tuning);
    std::vector<std::unique_ptr<clsort::Sorter>> sorters;
    sorter_pool = &sorters;
    std::vector<cl::Buffer> kept;
    buffers = &kept;
    std::uint64_t seed = 0xC150A7;
    int cases = 0;
    // Oclgrind is slow: the larger sizes run for one type per key width (f32 ascending, i64 descending),
    // the smaller ones for every type and order (the kernels take the key kind as an argument).
    for (std::size_t i = 0; i < config->sizes.size(); ++i) {
      const bool largest = i >= config->every_type;
      for (KeyType type : all_types()) {
        if (largest && type != KeyType::f32 && type != KeyType::i64) continue;
        if (config->only && config->only != std::string(clsort::to_string(type))) continue;
        if (config->mode == Mode::custom && type != KeyType::u8 && type != KeyType::f32) continue;
        if (argc == 3 && argv[2] != std::string(clsort::to_string(type))) continue;
        for (Order order : {Order::ascending, Order::descending}) {
          if (largest && (type == KeyType::f32) != (order == Order::ascending)) continue;
          if (largest && config->mode == Mode::custom && type != KeyType::f32) continue;
          sorters.push_back(std::make_unique<clsort::Sorter>(queue));
          sorters.back()->tune(config->tuning);
          run(*sorters.back(), *config, type, order, config->sizes[i], ++seed);
          ++cases;
        }
      }
    }
    std::printf("%d cases x %s, %d failures; kernels run:", cases,
                config->mode == Mode::select     ? "(top_k, select)"
                : config->mode == Mode::lexsort  ? "lexsort"
                : config->mode == Mode::custom   ? "sort_custom"
                : config->mode == Mode::segments ? "(segments, by key)"
                : config->mode == Mode::wide     ? "(wide values, argsort64)"
                                                 : "3 modes",
                failures);
    for (const std::string& k : kernels_run) std::printf(" %s", k.c_str());
    std::printf("\n");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "FAIL: %s\n", e.what());
    return 1;
  }
  return failures ? 1 : 0;
}
