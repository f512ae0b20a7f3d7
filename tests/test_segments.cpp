// Segmented sort: every key type, both orders, segment shapes (empty, single, many tiny, one huge among
// tiny ones, offsets not covering the keys, power-law lengths) and distributions, against
// std::stable_sort per segment bit for bit (values too: stability); 32- and 64-bit offsets; device
// buffers with guard bytes outside the segments; every bad input leaves the caller's data unchanged.
//
// Most cases run on Sorters tuned to small local tiles and a low `huge` threshold (segments.slots=256,
// segments.huge=1024), so that a few thousand keys reach every path: segments sorted in local memory or
// one work-item each (segments.seq), chunks with merge passes, a radix sort per segment (segments.radix;
// off for the other Sorters, so that chunks run on every device), and whole-device sorts of huge segments.
#include <doctest/doctest.h>

#include <clsort/clsort.h>
#include <clsort/key_transform.hpp>

#include <array>
#include <cmath>
#include <cstring>

#include "support/guarded.hpp"
#include "support/support.hpp"

namespace clsort_test {
namespace {

enum class Shape { single, all_empty, tiny, mixed, uncovered, power_law, medium };
std::string to_string(Shape s) {
  switch (s) {
    case Shape::single:
      return "single";
    case Shape::all_empty:
      return "all_empty";
    case Shape::tiny:
      return "tiny";
    case Shape::mixed:
      return "mixed";
    case Shape::uncovered:
      return "uncovered";
    case Shape::power_law:
      return "power_law";
    case Shape::medium:
      return "medium";
  }
  return "?";
}

// num_segments + 1 offsets into n keys. `big`: the long segment of `mixed`.
std::vector<std::uint64_t> make_offsets(Shape shape, std::size_t n, std::size_t big, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::uint64_t> o{0};
  auto fill = [&](std::size_t end, auto length) {
    while (o.back() < end) o.push_back(std::min<std::uint64_t>(end, o.back() + length()));
  };
  switch (shape) {
    case Shape::single:
      o.push_back(n);
      break;
    case Shape::all_empty:
      o.assign(7, n / 2);
      break;
    case Shape::tiny:
      fill(n, [&] { return rng() % 18; });  // empty segments and single keys too
      break;
    case Shape::mixed: {
      const std::size_t at = std::min<std::size_t>(n - std::min(n, big), rng() % (n / 2 + 1));
      fill(at, [&] { return rng() % 9; });
      o.push_back(std::min<std::uint64_t>(n, at + big));
      fill(n, [&] { return rng() % 9; });
      break;
    }
    case Shape::uncovered:
      o[0] = std::min<std::size_t>(n, 3);
      fill(n > 8 ? n - 5 : o[0], [&] { return rng() % 300; });
      break;
    case Shape::power_law:  // lengths ~ 1 / u^1.5: mostly short, a few of thousands
      fill(n, [&] {
        const double u = (double(rng() >> 11) + 1.0) / 9007199254740992.0;
        return std::uint64_t(std::min(1e7, std::pow(u, -1.5)));
      });
      break;
    case Shape::medium:
      fill(n, [&] { return 40 + rng() % 600; });
      break;
  }
  return o;
}

// The expected result: each segment stably sorted, everything else as it was.
template <class K, class V>
void reference(std::vector<K>& keys, std::vector<V>* values, const std::vector<std::uint64_t>& o,
               Order order) {
  for (std::size_t s = 0; s + 1 < o.size(); ++s) {
    std::vector<std::uint32_t> idx(o[s + 1] - o[s]);
    std::iota(idx.begin(), idx.end(), 0u);
    const K* k = keys.data() + o[s];
    std::stable_sort(idx.begin(), idx.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return ref_before(k[a], k[b], order); });
    std::vector<K> ks(idx.size());
    for (std::size_t i = 0; i < idx.size(); ++i) ks[i] = k[idx[i]];
    std::copy(ks.begin(), ks.end(), keys.begin() + std::ptrdiff_t(o[s]));
    if (values) {
      std::vector<V> vs(idx.size());
      for (std::size_t i = 0; i < idx.size(); ++i) vs[i] = (*values)[o[s] + idx[i]];
      std::copy(vs.begin(), vs.end(), values->begin() + std::ptrdiff_t(o[s]));
    }
  }
}

template <class O>
std::vector<O> narrow(const std::vector<std::uint64_t>& o) {
  return std::vector<O>(o.begin(), o.end());
}

clsort::Sorter* tuned_sorter(const char* tuning) {
  auto* p = new clsort::Sorter(cl::CommandQueue(shared_sorter().context(), shared_sorter().device()));
  p->tune(tuning);
  return p;
}
// Local tiles of 256 slots (segments up to 64 keys): the GPU path, segments up to 16 keys one work-item
// each in registers, 64 to a group that stages their span through local memory, longer ones in the tiles.
clsort::Sorter& small_sorter() {
  static clsort::Sorter* s = tuned_sorter(
      "segments.slots=256,segments.huge=1024,segments.seq=16,segments.seq_wg=64,segments.radix=0");
  return *s;
}
// Every short segment through the tiles, from 2 keys.
clsort::Sorter& tiles_sorter() {
  static clsort::Sorter* s =
      tuned_sorter("segments.slots=256,segments.huge=1024,segments.seq=0,segments.radix=0");
  return *s;
}
// Segments up to 64 keys sorted one work-item each (the CPU path): runs of 16 and merges below 32 keys,
// the radix passes (segments.seq_radix) from 32.
clsort::Sorter& sequential_sorter() {
  static clsort::Sorter* s = tuned_sorter(
      "segments.slots=256,segments.huge=1024,segments.seq=64,segments.seq_radix=32,segments.radix=0");
  return *s;
}

// Host vectors through the pinned staging in chunks of 4 KiB (the GPU rows' host path, forced on here
// whatever the device), so that the keys and values between the first and last offsets span several
// chunks, uploaded to and downloaded from the same place in the device's buffers; the device's own
// segment tuning.
clsort::Sorter& staged_sorter() {
  static clsort::Sorter* s = tuned_sorter("host.chunk=4096,host.min=0,host.threads=2");
  return *s;
}

// Segments up to 1024 keys by groups of 16 (keys alone up to 32 bits) or 8 consecutive ones, each in a
// vector lane (segments.vec), where they fill a quarter of the group's slots; one work-item each otherwise
// and on devices other than CPUs, which ignore segments.vec.
clsort::Sorter& vector_sorter() {
  static clsort::Sorter* s = tuned_sorter(
      "segments.slots=256,segments.huge=1024,segments.seq=1024,segments.vec=1024,segments.seq_radix=32,"
      "segments.radix=0");
  return *s;
}

// Segments of 65 to 4096 keys by a radix sort each (kernels/radix_segments.cl), over tiles of 4 keys per
// work-item so that they span several; the device's own ranking (the portable one on CPU devices).
clsort::Sorter& radix_sorter() {
  static clsort::Sorter* s =
      tuned_sorter("segments.slots=256,segments.huge=4096,segments.seq=16,segments.radix=4096,radix.items=4");
  return *s;
}
// The same with the multisplit ranking over sub-groups emulated in local memory, which any device runs.
clsort::Sorter& radix_match_sorter() {
  static clsort::Sorter* s = tuned_sorter(
      "segments.slots=256,segments.huge=4096,segments.seq=16,segments.radix=4096,radix.items=4,radix.cpu=0,"
      "radix.match=1,radix.subgroups=3,radix.wg=256");
  return *s;
}

// One host-vector segmented sort against the reference; V = void: keys only. Empty on success.
template <class K, class V, class O>
std::string run_case(clsort::Sorter& sorter, const std::vector<K>& input, const std::vector<std::uint64_t>& o,
                     Order order) {
  std::vector<K> keys = input, expected = input;
  const std::vector<O> offsets = narrow<O>(o);
  try {
    if constexpr (std::is_void_v<V>) {
      reference<K, std::uint32_t>(expected, nullptr, o, order);
      sorter.sort_segments(keys, offsets, {order});
      return compare_sorted(expected, keys);
    } else {
      std::vector<V> values = make_values<V>(input.size(), input.size() * 7 + 1), vexpected = values;
      reference(expected, &vexpected, o, order);
      sorter.sort_segments_by_key(keys, values, offsets, {order});
      return compare_sorted(expected, keys, &vexpected, &values);
    }
  } catch (const clsort::Error& e) {
    return std::string("threw: ") + e.what();
  }
}

template <class K>
void segments_matrix() {
  const KeyType type = clsort::key_type_of<K>::value;
  FailureBudget budget;
  struct Case {
    Shape shape;
    std::size_t n, big;
  };
  const std::vector<Case> cases{
      {Shape::single, 1, 0},      {Shape::single, 2, 0},       {Shape::single, 31, 0},
      {Shape::single, 129, 0},    {Shape::single, 257, 0},     {Shape::single, 3001, 0},
      {Shape::all_empty, 50, 0},  {Shape::tiny, 997, 0},       {Shape::mixed, 1500, 700},
      {Shape::mixed, 3000, 1300}, {Shape::uncovered, 2049, 0}, {Shape::power_law, 4099, 0},
      {Shape::medium, 5003, 0}};
  int runs = 0;
  for (const Case& c : cases) {
    for (Dist dist : distributions<K>()) {
      if (!full_matrix() && dist != Dist::random && dist != special_distribution<K>() &&
          dist != Dist::few_unique && c.n > 300)
        continue;
      const std::uint64_t seed = seed_for(type, int(dist), c.n, 0x5e6 + int(c.shape));
      const std::vector<K> input = make_keys<K>(dist, c.n, seed);
      const std::vector<std::uint64_t> o = make_offsets(c.shape, c.n, c.big, seed);
      for (Order order : both_orders()) {
        std::string error = run_case<K, void, std::uint32_t>(small_sorter(), input, o, order);
        if (error.empty() &&
            (c.shape == Shape::tiny || c.shape == Shape::power_law || c.shape == Shape::medium))
          error = run_case<K, void, std::uint32_t>(sequential_sorter(), input, o, order);
        if (error.empty() && (c.shape == Shape::tiny || c.shape == Shape::power_law))
          error = run_case<K, void, std::uint32_t>(tiles_sorter(), input, o, order);
        if (error.empty() && (c.shape == Shape::tiny || c.shape == Shape::power_law ||
                              c.shape == Shape::medium || c.shape == Shape::uncovered))
          error = run_case<K, void, std::uint32_t>(vector_sorter(), input, o, order);
        if (error.empty() && c.n > 64 &&
            (c.shape == Shape::single || c.shape == Shape::mixed || c.shape == Shape::medium ||
             c.shape == Shape::power_law))
          error = run_case<K, void, std::uint32_t>(radix_sorter(), input, o, order);
        if (error.empty() && (c.shape == Shape::medium || c.shape == Shape::mixed))
          error = run_case<K, void, std::uint32_t>(radix_match_sorter(), input, o, order);
        if (error.empty() && (c.shape == Shape::mixed || c.shape == Shape::uncovered))
          error = run_case<K, void, std::uint32_t>(staged_sorter(), input, o, order);
        ++runs;
        CHECK_MESSAGE(error.empty(),
                      "segments " << std::string(clsort::to_string(type)) << " "
                                  << std::string(clsort::to_string(order)) << " shape=" << to_string(c.shape)
                                  << " n=" << c.n << " segments=" << o.size() - 1 << " dist="
                                  << std::string(to_string(dist)) << " seed=" << hex(seed) << ": " << error);
        if (!budget.record(error.empty())) FAIL("too many failures");
      }
    }
  }
  // The device's own tuning once per type: its local tiles and a segment past them.
  const std::vector<K> input = make_keys<K>(Dist::random, 20000, seed_for(type, 1, 20000, 0x5e6));
  const std::vector<std::uint64_t> o = make_offsets(Shape::mixed, 20000, 9000, 17);
  for (Order order : both_orders()) {
    const std::string error = run_case<K, void, std::uint32_t>(shared_sorter(), input, o, order);
    CHECK_MESSAGE(error.empty(), "default tuning " << std::string(clsort::to_string(order)) << ": " << error);
  }
  CHECK(runs > 0);
}

TEST_CASE("segments u32") {
  segments_matrix<std::uint32_t>();
}
TEST_CASE("segments i32") {
  segments_matrix<std::int32_t>();
}
TEST_CASE("segments f32") {
  segments_matrix<float>();
}
TEST_CASE("segments u64") {
  segments_matrix<std::uint64_t>();
}
TEST_CASE("segments i64") {
  segments_matrix<std::int64_t>();
}
TEST_CASE("segments f64") {
  segments_matrix<double>();
}
TEST_CASE("segments u16") {
  segments_matrix<std::uint16_t>();
}
TEST_CASE("segments i16") {
  segments_matrix<std::int16_t>();
}
TEST_CASE("segments f16") {
  segments_matrix<clsort::half>();
}
TEST_CASE("segments bf16") {
  segments_matrix<clsort::bfloat16>();
}
TEST_CASE("segments u8") {
  segments_matrix<std::uint8_t>();
}
TEST_CASE("segments i8") {
  segments_matrix<std::int8_t>();
}

template <class K, class V>
void by_key_case() {
  const KeyType type = clsort::key_type_of<K>::value;
  for (Shape shape : {Shape::tiny, Shape::mixed, Shape::power_law, Shape::uncovered}) {
    for (Dist dist : {Dist::few_unique, Dist::all_equal, special_distribution<K>()}) {
      const std::size_t n = 3001;
      const std::uint64_t seed = seed_for(type, int(dist), n, 0xb4 + int(shape));
      const std::vector<K> input = make_keys<K>(dist, n, seed);
      const std::vector<std::uint64_t> o = make_offsets(shape, n, 1300, seed);
      for (Order order : both_orders()) {
        std::string error = run_case<K, V, std::uint32_t>(small_sorter(), input, o, order);
        if (error.empty()) error = run_case<K, V, std::uint32_t>(sequential_sorter(), input, o, order);
        if (error.empty()) error = run_case<K, V, std::uint32_t>(tiles_sorter(), input, o, order);
        if (error.empty()) error = run_case<K, V, std::uint32_t>(vector_sorter(), input, o, order);
        if (error.empty()) error = run_case<K, V, std::uint32_t>(radix_sorter(), input, o, order);
        if (error.empty()) error = run_case<K, V, std::uint32_t>(radix_match_sorter(), input, o, order);
        if (error.empty()) error = run_case<K, V, std::uint32_t>(staged_sorter(), input, o, order);
        CHECK_MESSAGE(error.empty(), "by_key " << std::string(clsort::to_string(type)) << " values of "
                                               << sizeof(V) << " bytes " << clsort::to_string(order)
                                               << " shape=" << to_string(shape) << " dist=" << to_string(dist)
                                               << ": " << error);
      }
    }
  }
}

TEST_CASE("segments by_key: stable, values follow their keys") {
  by_key_case<std::uint32_t, std::uint32_t>();
  by_key_case<float, Tagged>();
  by_key_case<std::int64_t, std::uint32_t>();
  by_key_case<double, std::uint64_t>();
  by_key_case<clsort::half, std::uint32_t>();
  by_key_case<std::uint8_t, std::uint32_t>();
}

// The benchmark's shapes (tools/lab/segments.cpp) on the device's own tuning: 2^16 keys in all, 2^22
// under CLSORT_TEST_FULL; keys and pairs.
TEST_CASE("segments: benchmark shapes, device tuning") {
  const std::size_t total = full_matrix() ? std::size_t(1) << 22 : std::size_t(1) << 16;
  const std::vector<std::uint32_t> input = make_keys<std::uint32_t>(Dist::random, total, 0xbe7c);
  for (std::size_t len : {std::size_t(16), std::size_t(256), std::size_t(16384), std::size_t(0)}) {
    std::vector<std::uint64_t> o{0};
    if (len) {
      while (o.back() < total) o.push_back(o.back() + len);
    } else {
      o = make_offsets(Shape::power_law, total, 0, 0xbe7c);
    }
    CAPTURE(len);
    for (Order order : both_orders()) {
      CHECK(run_case<std::uint32_t, void, std::uint32_t>(shared_sorter(), input, o, order) == "");
      CHECK(run_case<std::uint32_t, std::uint32_t, std::uint32_t>(shared_sorter(), input, o, order) == "");
    }
  }
}

// A `seq` past the bins' longest segment (the CPU row's): segments up to seq go to seg_sequential alone,
// never also through the large segments' chunks (no chunk table, no merge pass); longer ones still take
// the chunks and the whole-device sort.
TEST_CASE("segments: the sequential path past the bins sorts each segment once") {
  const clsort::Sorter& base = shared_sorter();
  clsort::Sorter s(cl::CommandQueue(base.context(), base.device(), CL_QUEUE_PROFILING_ENABLE));
  s.tune("segments.slots=256,segments.huge=1024,segments.seq=300,segments.radix=0");
  const std::vector<std::uint32_t> input = make_keys<std::uint32_t>(Dist::few_unique, 20000, 0x5e9);
  std::vector<std::uint64_t> o{0};
  const std::size_t lengths[] = {5, 70, 150, 299, 300};
  for (std::size_t i = 0; o.back() < 19000; ++i) o.push_back(o.back() + lengths[i % 5]);
  auto ran = [&](const char* name) {
    int c = 0;
    for (const auto& k : s.last_profile()) c += k.name == name;
    return c;
  };
  for (Order order : both_orders()) {
    CHECK(run_case<std::uint32_t, void, std::uint32_t>(s, input, o, order) == "");
    CHECK(ran("seg_sequential") == 1);
    CHECK(ran("seg_chunks") + ran("seg_merge") == 0);
    CHECK(run_case<std::uint32_t, std::uint64_t, std::uint32_t>(s, input, o, order) == "");
    CHECK(ran("seg_chunks") + ran("seg_merge") == 0);
  }
  // Past seq: chunks (301 and 900 keys) and the whole-device sort (2000 keys) beside sequential ones.
  o = {0, 40, 341, 1241, 1500, 3500, 3800, 20000};
  for (Order order : both_orders()) {
    CHECK(run_case<std::uint32_t, void, std::uint32_t>(s, input, o, order) == "");
    CHECK(ran("seg_chunks") == 1);
    CHECK(run_case<std::uint32_t, std::uint64_t, std::uint32_t>(s, input, o, order) == "");
  }
  // The Sorter keeps its plan between calls; tune() must drop it: now the 301- and 900-key segments take
  // a radix kernel (one tile's, with the multisplit ranking where a tile holds them), no chunks.
  s.tune("segments.radix=4096");
  CHECK(run_case<std::uint32_t, void, std::uint32_t>(s, input, o, Order::ascending) == "");
  CHECK(ran("radix_segments") + ran("radix_segment_tiles") >= 1);
  CHECK(ran("seg_chunks") + ran("seg_merge") == 0);
}

// The radix kernel skips a pass whose digit is the same for every key of a segment, and copies a segment
// home that an odd number of moving passes left in the scratch; chunks and merges never run for it. With
// the multisplit ranking, segments of one tile (here up to 1024 keys) take radix_segment_tiles.
TEST_CASE("segments: radix per segment, skipped passes") {
  for (clsort::Sorter* base : {&radix_sorter(), &radix_match_sorter()}) {
    clsort::Sorter s(cl::CommandQueue(base->context(), base->device(), CL_QUEUE_PROFILING_ENABLE));
    s.tune("segments.slots=256,segments.huge=8192,segments.seq=16,segments.radix=4096,radix.items=4");
    if (base == &radix_match_sorter()) s.tune("radix.cpu=0,radix.match=1,radix.subgroups=3,radix.wg=256");
    auto ran = [&](const char* name) {
      int c = 0;
      for (const auto& k : s.last_profile()) c += k.name == name;
      return c;
    };
    const std::size_t n = 9000;
    const std::vector<std::uint64_t> o{0, 100, 1100, 1101, 5198, 6000, 9000};  // 4097 keys: chunks, merges
    std::mt19937 rng(7);
    // Digits that vary: bytes 0-1 (two moving passes), byte 1 only (one: copied home), byte 3 only,
    // none (all equal), every byte.
    for (std::uint32_t mask : {0xFFFFu, 0xFF00u, 0xFF000000u, 0u, 0xFFFFFFFFu}) {
      std::vector<std::uint32_t> input(n);
      for (auto& k : input) k = (rng() & mask) | (0x12345678u & ~mask);
      for (Order order : both_orders()) {
        CAPTURE(mask);
        CHECK(run_case<std::uint32_t, void, std::uint32_t>(s, input, o, order) == "");
        CHECK(ran("radix_segments") == 1);
        CHECK(run_case<std::uint32_t, std::uint64_t, std::uint32_t>(s, input, o, order) == "");
        CHECK(ran("radix_segments") == 1);
        // The device's own ranking takes it where that is the multisplit one (GPUs), not on CPU devices.
        CHECK(ran("radix_segment_tiles") == (base == &radix_match_sorter() ? 1 : ran("radix_segment_tiles")));
        CHECK(ran("radix_segment_tiles") <= 1);
        CHECK(ran("seg_merge") >= 1);  // the segment of 4097 keys
      }
    }
  }
}

TEST_CASE("segments with 64-bit offsets") {
  for (Shape shape : {Shape::mixed, Shape::power_law, Shape::uncovered}) {
    const std::size_t n = 4000;
    const std::vector<float> input = make_keys<float>(Dist::float_specials, n, 0x64 + int(shape));
    const std::vector<std::uint64_t> o = make_offsets(shape, n, 2500, 0x64);
    for (Order order : both_orders()) {
      std::string error = run_case<float, void, std::uint64_t>(small_sorter(), input, o, order);
      CHECK_MESSAGE(error.empty(), to_string(shape) << ": " << error);
      error = run_case<float, std::uint64_t, std::uint64_t>(small_sorter(), input, o, order);
      CHECK_MESSAGE(error.empty(), to_string(shape) << " by key: " << error);
    }
  }
}

TEST_CASE("segments: nothing to sort") {
  clsort::Sorter& s = small_sorter();
  std::vector<std::uint32_t> keys{5, 4, 3, 2, 1}, same = keys;
  s.sort_segments(keys, std::vector<std::uint32_t>{});
  s.sort_segments(keys, std::vector<std::uint32_t>{2});
  s.sort_segments(keys, std::vector<std::uint32_t>{0, 0, 1, 1, 2, 3, 3, 4, 5});
  CHECK(keys == same);
  std::vector<std::uint32_t> none;
  s.sort_segments(none, std::vector<std::uint64_t>{0, 0, 0});
  cl::Buffer kb(s.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, std::size_t(20), keys.data());
  cl::Buffer ob(s.context(), CL_MEM_READ_WRITE, 8);
  s.sort_segments<std::uint32_t>(kb, ob, 0).wait();  // the offsets are not read
  std::vector<std::uint32_t> back(5);
  REQUIRE(s.queue().enqueueReadBuffer(kb, CL_TRUE, 0, 20, back.data()) == CL_SUCCESS);
  CHECK(back == same);
}

template <class T>
cl::Buffer device_buffer(const clsort::Sorter& s, const std::vector<T>& data) {
  return cl::Buffer(s.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, data.size() * sizeof(T),
                    const_cast<T*>(data.data()));
}
template <class T>
std::vector<T> read_back(const clsort::Sorter& s, const cl::Buffer& b, std::size_t n) {
  std::vector<T> out(n);
  REQUIRE(s.queue().enqueueReadBuffer(b, CL_TRUE, 0, n * sizeof(T), out.data()) == CL_SUCCESS);
  return out;
}

// Values of widths the segment kernels do not carry (1, 2, 3, 12, 16, 24, 64 bytes): sorted as 32-bit
// indices, then moved once through the permutation. Host vectors on the tuned Sorters and through the
// staging, device buffers with guard keys and values outside the segments; ties (few unique keys) show
// a value that does not follow its key stably.
template <std::size_t W>
struct Bytes {
  unsigned char b[W];
};

template <std::size_t W>
std::vector<Bytes<W>> byte_values(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Bytes<W>> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    for (auto& c : v[i].b) c = static_cast<unsigned char>(rng());
    const std::uint32_t index = std::uint32_t(i);
    std::memcpy(v[i].b, &index, std::min<std::size_t>(W, 4));
  }
  return v;
}

template <class K, std::size_t W>
void any_width_case() {
  using V = Bytes<W>;
  const KeyType type = clsort::key_type_of<K>::value;
  for (Shape shape : {Shape::tiny, Shape::mixed, Shape::power_law, Shape::uncovered}) {
    for (Dist dist : {Dist::few_unique, special_distribution<K>()}) {
      const std::size_t n = 3001, guard = 9;
      const std::uint64_t seed = seed_for(type, int(dist), n, 0xa0 + W + int(shape));
      const std::vector<K> input = make_keys<K>(dist, n, seed);
      const std::vector<V> values = byte_values<W>(n, seed);
      const std::vector<std::uint64_t> o = make_offsets(shape, n, 1300, seed);
      for (Order order : both_orders()) {
        std::ostringstream what;
        what << clsort::to_string(type) << " values of " << W << " bytes " << clsort::to_string(order)
             << " shape=" << to_string(shape) << " dist=" << to_string(dist);
        std::vector<K> expected = input;
        std::vector<V> vexpected = values;
        reference(expected, &vexpected, o, order);
        for (clsort::Sorter* sorter :
             {&small_sorter(), &sequential_sorter(), &radix_sorter(), &staged_sorter()}) {
          std::vector<K> keys = input;
          std::vector<V> got = values;
          std::string error;
          try {
            sorter->sort_segments_by_key(keys, got, narrow<std::uint32_t>(o), {order});
            error = compare_sorted(expected, keys, &vexpected, &got);
          } catch (const clsort::Error& e) {
            error = std::string("threw: ") + e.what();
          }
          CHECK_MESSAGE(error.empty(), what.str() << " host: " << error);
        }
        // Device buffers: segments from `guard` to `guard` before the end, 64-bit offsets.
        std::vector<K> gk(guard, K{});
        gk.insert(gk.end(), input.begin(), input.end());
        gk.insert(gk.end(), guard, K{});
        std::vector<V> gv = byte_values<W>(n + 2 * guard, seed + 1);
        std::copy(values.begin(), values.end(), gv.begin() + guard);
        std::vector<std::uint64_t> go = o;
        for (auto& x : go) x += guard;
        std::vector<K> gexpected = gk;
        std::vector<V> gvexpected = gv;
        reference(gexpected, &gvexpected, go, order);
        clsort::Sorter& s = small_sorter();
        cl::Buffer kb = device_buffer(s, gk), vb = device_buffer(s, gv), ob = device_buffer(s, go);
        s.sort_segments_by_key<K, V, std::uint64_t>(kb, vb, ob, go.size() - 1, {order}).wait();
        const std::vector<V> got_values = read_back<V>(s, vb, gv.size());
        CHECK_MESSAGE(
            compare_sorted(gexpected, read_back<K>(s, kb, gk.size()), &gvexpected, &got_values) == "",
            what.str() << " device buffers");
      }
    }
  }
}

TEST_CASE("segments by_key: values of any width") {
  any_width_case<std::uint32_t, 1>();
  any_width_case<float, 2>();
  any_width_case<std::uint64_t, 3>();
  any_width_case<std::uint32_t, 12>();
  any_width_case<double, 16>();
  any_width_case<std::int16_t, 24>();
  any_width_case<std::uint32_t, 64>();
}

// Device buffers: offsets that leave guard keys and values at both ends; the guards must survive.
template <class K, class V, class O>
void buffer_case(clsort::Sorter& s, Shape shape, std::size_t n) {
  const KeyType type = clsort::key_type_of<K>::value;
  const std::uint64_t seed = seed_for(type, 5, n, 0xbf + int(shape));
  std::vector<std::uint64_t> o = make_offsets(shape, n, 2000, seed);
  const std::size_t guard = 9;
  for (auto& x : o) x += guard;
  const std::vector<K> input = make_keys<K>(Dist::random, n + 2 * guard, seed);
  for (Order order : both_orders()) {
    CAPTURE(to_string(shape));
    CAPTURE(n);
    std::vector<K> expected = input;
    cl::Buffer kb = device_buffer(s, input), ob = device_buffer(s, narrow<O>(o));
    if constexpr (std::is_void_v<V>) {
      reference<K, std::uint32_t>(expected, nullptr, o, order);
      s.sort_segments<K, O>(kb, ob, o.size() - 1, {order}).wait();
      CHECK(compare_sorted(expected, read_back<K>(s, kb, input.size())) == "");
    } else {
      const std::vector<V> values = make_values<V>(input.size(), seed);
      std::vector<V> vexpected = values;
      reference(expected, &vexpected, o, order);
      // The wait list: the upload of the values, which the sort must follow. (A user event completed only
      // after the call would deadlock: the call reads the state back after its wait list.)
      cl::Buffer vb(s.context(), CL_MEM_READ_WRITE, values.size() * sizeof(V));
      std::vector<cl::Event> wait(1);
      REQUIRE(s.queue().enqueueWriteBuffer(vb, CL_FALSE, 0, values.size() * sizeof(V), values.data(), nullptr,
                                           &wait[0]) == CL_SUCCESS);
      s.sort_segments_by_key<K, V, O>(kb, vb, ob, o.size() - 1, {order}, wait).wait();
      const std::vector<V> got_values = read_back<V>(s, vb, values.size());
      CHECK(compare_sorted(expected, read_back<K>(s, kb, input.size()), &vexpected, &got_values) == "");
    }
  }
}

// A bit range (Options::begin_bit, end_bit, as CUB's DeviceSegmentedRadixSort takes them): each segment
// stably by bits [begin, end) of the order-preserving code (descending's inversion included), keys and
// values moved with them; an empty range keeps every key where it is. Host vectors on two tuned Sorters
// and device buffers with guards, 4- and 12-byte values.
template <class K>
void range_case(unsigned begin, unsigned end) {
  using U = clsort::key_bits_t<K>;
  constexpr unsigned bits = sizeof(K) * 8;
  const KeyType type = clsort::key_type_of<K>::value;
  const unsigned last = end ? end : bits, width = last - begin;
  for (Shape shape : {Shape::tiny, Shape::mixed, Shape::power_law}) {
    const std::size_t n = 3001, guard = 5;
    const std::uint64_t seed = seed_for(type, int(shape), n, 0x5a + begin * 64 + end);
    const std::vector<K> input = make_keys<K>(special_distribution<K>(), n, seed);
    const std::vector<Bytes<12>> values = byte_values<12>(n, seed);
    std::vector<std::uint64_t> o = make_offsets(shape, n, 1300, seed);
    for (Order order : both_orders()) {
      std::ostringstream what;
      what << clsort::to_string(type) << " bits [" << begin << ", " << end << ") " << clsort::to_string(order)
           << " shape=" << to_string(shape);
      auto field = [&](K k) {
        const U c = U(clsort::encode_key(k, order == Order::descending) >> begin);
        return width == bits ? c : width == 0 ? U(0) : U(c & U((U(1) << width) - 1));
      };
      std::vector<K> expected = input;
      std::vector<Bytes<12>> vexpected = values;
      for (std::size_t g = 0; g + 1 < o.size(); ++g) {
        std::vector<std::uint32_t> idx(o[g + 1] - o[g]);
        std::iota(idx.begin(), idx.end(), 0u);
        std::stable_sort(idx.begin(), idx.end(), [&](std::uint32_t a, std::uint32_t b) {
          return field(input[o[g] + a]) < field(input[o[g] + b]);
        });
        for (std::size_t i = 0; i < idx.size(); ++i) {
          expected[o[g] + i] = input[o[g] + idx[i]];
          vexpected[o[g] + i] = values[o[g] + idx[i]];
        }
      }
      const clsort::Options options{order, Algorithm::automatic, begin, end};
      for (clsort::Sorter* sorter : {&small_sorter(), &radix_sorter()}) {
        std::vector<K> keys = input;
        std::vector<Bytes<12>> got = values;
        std::string error;
        try {
          sorter->sort_segments(keys, narrow<std::uint32_t>(o), options);
          error = compare_sorted(expected, keys);
          keys = input;
          if (error.empty()) sorter->sort_segments_by_key(keys, got, o, options);
          if (error.empty()) error = compare_sorted(expected, keys, &vexpected, &got);
        } catch (const clsort::Error& e) {
          error = std::string("threw: ") + e.what();
        }
        CHECK_MESSAGE(error.empty(), what.str() << " host: " << error);
      }
      // Device buffers with 4-byte values and guards at both ends.
      std::vector<K> gk(guard, K{});
      gk.insert(gk.end(), input.begin(), input.end());
      gk.insert(gk.end(), guard, K{});
      std::vector<std::uint32_t> gv(gk.size());
      std::iota(gv.begin(), gv.end(), 7u);
      std::vector<std::uint64_t> go = o;
      for (auto& x : go) x += guard;
      std::vector<K> gexpected = gk;
      std::vector<std::uint32_t> gvexpected = gv;
      for (std::size_t i = 0; i < n; ++i) {
        gexpected[guard + i] = expected[i];
        std::size_t from = 0;  // where expected[i] came from: vexpected's index bytes
        std::memcpy(&from, vexpected[i].b, 4);
        gvexpected[guard + i] = gv[guard + from];
      }
      clsort::Sorter& s = small_sorter();
      cl::Buffer kb = device_buffer(s, gk), vb = device_buffer(s, gv), ob = device_buffer(s, go);
      s.sort_segments_by_key<K, std::uint32_t, std::uint64_t>(kb, vb, ob, go.size() - 1, options).wait();
      const std::vector<std::uint32_t> got_values = read_back<std::uint32_t>(s, vb, gv.size());
      CHECK_MESSAGE(compare_sorted(gexpected, read_back<K>(s, kb, gk.size()), &gvexpected, &got_values) == "",
                    what.str() << " device buffers");
    }
  }
}

TEST_CASE("segments with a bit range") {
  range_case<std::uint32_t>(4, 20);
  range_case<float>(16, 0);
  range_case<std::int16_t>(3, 11);
  range_case<std::uint64_t>(8, 40);
  range_case<clsort::half>(0, 9);
  range_case<std::uint8_t>(2, 5);
  range_case<std::uint32_t>(0, 32);  // the whole key, spelled out
  // Empty ranges: every key in place, whatever the offsets say (they are not read).
  range_case<std::uint32_t>(9, 9);
  range_case<double>(64, 0);
}

TEST_CASE("segments of device buffers, guard keys outside the segments") {
  for (Shape shape : {Shape::tiny, Shape::mixed, Shape::power_law, Shape::single}) {
    buffer_case<std::uint32_t, void, std::uint32_t>(small_sorter(), shape, 3000);
    buffer_case<std::int16_t, void, std::uint64_t>(small_sorter(), shape, 3000);
    buffer_case<double, std::uint32_t, std::uint64_t>(small_sorter(), shape, 3000);
    buffer_case<std::uint32_t, std::uint64_t, std::uint32_t>(small_sorter(), shape, 3000);
    buffer_case<std::uint32_t, std::uint64_t, std::uint32_t>(sequential_sorter(), shape, 3000);
    buffer_case<std::uint32_t, std::uint64_t, std::uint32_t>(radix_sorter(), shape, 3000);
    buffer_case<double, std::uint32_t, std::uint64_t>(radix_match_sorter(), shape, 3000);
  }
  buffer_case<float, std::uint32_t, std::uint32_t>(shared_sorter(), Shape::medium, 30000);
}

TEST_CASE("segments: bad arguments name the argument and change nothing") {
  clsort::Sorter& s = small_sorter();
  auto expect = [](const std::optional<clsort::Error>& e, const char* where) {
    REQUIRE(e.has_value());
    CHECK(e->where() == where);
    CHECK(e->kind() == clsort::Error::Kind::invalid_argument);
  };
  const std::vector<std::uint32_t> input = make_keys<std::uint32_t>(Dist::random, 100, 3);
  std::vector<std::uint32_t> keys = input, values(100, 7);
  // Host forms.
  expect(thrown([&] { s.sort_segments(keys, std::vector<std::uint32_t>{0, 50, 40, 100}); }), "offsets");
  expect(thrown([&] { s.sort_segments(keys, std::vector<std::uint64_t>{0, 50, 101}); }), "offsets");
  expect(thrown([&] { s.sort_segments(keys, std::vector<std::uint64_t>{0, 1ull << 40}); }), "offsets");
  expect(thrown([&] { s.sort_segments(keys, std::vector<std::uint32_t>{5, 4}); }), "offsets");
  std::vector<std::uint32_t> short_values(99);
  expect(thrown([&] {
           s.sort_segments_by_key(keys, short_values, std::vector<std::uint32_t>{0, 10});
         }),
         "values");
  clsort::Options range;
  range.end_bit = 33;
  expect(thrown([&] { s.sort_segments(keys, std::vector<std::uint32_t>{0, 100}, range); }), "end_bit");
  range.end_bit = 8;
  range.begin_bit = 9;
  expect(thrown([&] { s.sort_segments(keys, std::vector<std::uint32_t>{0, 100}, range); }), "begin_bit");
  expect(thrown([&] {
           s.sort_segments_host(KeyType::u32, keys.data(), keys.size(), nullptr, 0, nullptr, 4, 3, {});
         }),
         "offsets");
  expect(thrown([&] {
           const std::uint32_t o[2] = {0, 100};
           s.sort_segments_host(KeyType::u32, keys.data(), keys.size(), nullptr, 0, o, 2, 1, {});
         }),
         "offsets");
  expect(thrown([&] {
           const std::uint32_t o[2] = {0, 100};
           s.sort_segments_host(KeyType::u32, keys.data(), keys.size(), values.data(), 0, o, 4, 1, {});
         }),
         "value_bytes");
  expect(thrown([&] {
           const std::uint32_t o[2] = {0, 100};
           s.sort_segments_host(KeyType::u32, nullptr, 100, nullptr, 0, o, 4, 1, {});
         }),
         "keys");
  expect(thrown([&] {
           const std::uint32_t o[2] = {0, 0};
           s.sort_segments_host(KeyType::u32, keys.data(), 100, nullptr, 0, o, 4, std::size_t(1) << 32, {});
         }),
         "num_segments");
  CHECK(keys == input);
  CHECK(values == std::vector<std::uint32_t>(100, 7));

  // Device forms: the buffers keep their random bytes.
  const cl::Context& ctx = s.context();
  const cl::CommandQueue& q = s.queue();
  Filled kb(ctx, 400, 1), vb(ctx, 400, 2), wide(ctx, 800, 3);
  auto offsets = [&](std::vector<std::uint32_t> o) { return device_buffer(s, o); };
  expect(thrown([&] { s.sort_segments<std::uint32_t>(kb.buffer, offsets({0, 50, 40, 100}), 3); }), "offsets");
  expect(thrown([&] { s.sort_segments<std::uint32_t>(kb.buffer, offsets({0, 50, 101}), 2); }), "offsets");
  // Short segments beside bad ones: nothing may be sorted before the offsets' check comes back.
  expect(thrown([&] {
           s.sort_segments<std::uint32_t>(kb.buffer, offsets({0, 5, 16, 10, 100}), 4);
         }),
         "offsets");
  expect(thrown([&] {
           s.sort_segments<std::uint32_t>(kb.buffer, offsets({0, 5, 16, 30, 101}), 4);
         }),
         "offsets");
  expect(thrown([&] {
           s.sort_segments_by_key<std::uint32_t, std::uint64_t>(kb.buffer, vb.buffer, offsets({0, 9, 16, 60}),
                                                                3);
         }),
         "values");  // 400 bytes hold 50 values of 8 bytes
  expect(thrown([&] { s.sort_segments<std::uint32_t>(kb.buffer, offsets({7, 3}), 1); }), "offsets");
  expect(thrown([&] { s.sort_segments<std::uint32_t>(kb.buffer, offsets({0, 50, 100}), 3); }), "offsets");
  expect(thrown([&] {
           s.sort_segments<std::uint32_t, std::uint64_t>(kb.buffer, offsets({0, 50, 100}), 2);  // 1.5 offsets
         }),
         "offsets");
  expect(thrown([&] {
           s.sort_segments<std::uint32_t, std::uint64_t>(
               kb.buffer, device_buffer(s, std::vector<std::uint64_t>{0, 1ull << 40}), 1);
         }),
         "offsets");
  expect(thrown([&] {
           s.sort_segments<std::uint32_t, std::uint64_t>(
               kb.buffer, device_buffer(s, std::vector<std::uint64_t>{1ull << 33, 1ull << 33}), 1);
         }),
         "offsets");
  expect(thrown([&] { s.sort_segments<std::uint32_t>(cl::Buffer(), offsets({0, 1}), 1); }), "keys");
  expect(thrown([&] { s.sort_segments<std::uint32_t>(kb.buffer, cl::Buffer(), 1); }), "offsets");
  expect(thrown([&] { s.sort_segments<std::uint32_t>(kb.buffer, kb.buffer, 1); }), "offsets");
  expect(thrown([&] {
           s.sort_segments<std::uint32_t>(kb.buffer, offsets({0, 1}), std::size_t(1) << 32);
         }),
         "num_segments");
  expect(thrown([&] {
           s.sort_segments_by_key<std::uint32_t, std::uint32_t>(kb.buffer, kb.buffer, offsets({0, 100}), 1);
         }),
         "values");
  expect(thrown([&] {
           s.sort_segments_by_key<std::uint32_t, std::uint64_t>(kb.buffer, vb.buffer, offsets({0, 100}), 1);
         }),
         "values");  // 400 bytes hold 50 values of 8 bytes: found on the device, before any write
  expect(thrown([&] {
           s.sort_segments_by_key<std::uint32_t, std::uint32_t>(kb.buffer, vb.buffer, offsets({0, 100}), 1,
                                                                range);
         }),
         "begin_bit");
  // Values the kernels do not carry (12 bytes): the span of the segments is checked on the host, the
  // rest on the device as usual, before anything is written.
  using Twelve = std::array<std::uint32_t, 3>;
  expect(thrown([&] {
           s.sort_segments_by_key<std::uint32_t, Twelve>(kb.buffer, wide.buffer, offsets({0, 30, 20, 60}), 3);
         }),
         "offsets");
  expect(thrown([&] {
           s.sort_segments_by_key<std::uint32_t, Twelve>(kb.buffer, wide.buffer, offsets({0, 50, 101}), 2);
         }),
         "offsets");
  expect(thrown([&] {
           s.sort_segments_by_key<std::uint32_t, Twelve>(kb.buffer, wide.buffer, offsets({0, 10, 100}), 2);
         }),
         "values");  // 800 bytes hold 66 values of 12 bytes
  expect(thrown([&] {
           s.sort_segments_by_key<std::uint32_t, Twelve>(kb.buffer, kb.buffer, offsets({0, 10}), 1);
         }),
         "values");
  cl::Context other(s.device());
  cl::Buffer foreign(other, CL_MEM_READ_WRITE, 400);
  expect(thrown([&] { s.sort_segments<std::uint32_t>(foreign, offsets({0, 100}), 1); }), "keys");
  CHECK(kb.unchanged(q));
  CHECK(vb.unchanged(q));
  CHECK(wide.unchanged(q));
  // The Sorter still sorts after every refusal.
  std::vector<std::uint32_t> k2 = input;
  s.sort_segments(k2, std::vector<std::uint32_t>{0, 100});
  CHECK(std::is_sorted(k2.begin(), k2.end()));
}

TEST_CASE("segments through the C API") {
  clsort::Sorter& s = shared_sorter();
  clsort_sorter cs = nullptr;
  REQUIRE(clsort_sorter_create(s.queue()(), &cs) == CLSORT_SUCCESS);
  const std::size_t n = 3000;
  const std::vector<std::uint64_t> o = make_offsets(Shape::mixed, n, 1500, 11);
  const std::vector<float> input = make_keys<float>(Dist::float_specials, n, 11);
  for (Order order : both_orders()) {
    const clsort_flags flags = order == Order::descending ? CLSORT_DESCENDING : 0;
    std::vector<float> expected = input, keys = input;
    std::vector<std::uint32_t> values(n), vexpected(n);
    std::iota(values.begin(), values.end(), 0u);
    vexpected = values;
    reference(expected, &vexpected, o, order);
    CHECK(clsort_sort_segments_host(cs, keys.data(), values.data(), n, o.data(), 8, o.size() - 1,
                                    CLSORT_KEY_F32, 4, flags) == CLSORT_SUCCESS);
    CHECK(compare_sorted(expected, keys, &vexpected, &values) == "");
    // Device buffers, keys only, 32-bit offsets.
    cl::Buffer kb = device_buffer(s, input), ob = device_buffer(s, narrow<std::uint32_t>(o));
    cl_event done = nullptr;
    REQUIRE(clsort_sort_segments(cs, kb(), nullptr, ob(), 4, o.size() - 1, CLSORT_KEY_F32, 0, flags, 0,
                                 nullptr, &done) == CLSORT_SUCCESS);
    REQUIRE(done != nullptr);
    clWaitForEvents(1, &done);
    clReleaseEvent(done);
    CHECK(compare_sorted(expected, read_back<float>(s, kb, n)) == "");
  }
  // Bad offsets: refused, naming them, the keys unchanged.
  std::vector<float> keys = input;
  const std::vector<std::uint32_t> bad{0, 10, 5};
  CHECK(clsort_sort_segments_host(cs, keys.data(), nullptr, n, bad.data(), 4, 2, CLSORT_KEY_F32, 0, 0) ==
        CLSORT_ERROR_INVALID_ARGUMENT);
  CHECK(std::string(clsort_last_error_message()).find("offsets") != std::string::npos);
  CHECK(clsort_sort_segments_host(cs, keys.data(), nullptr, n, bad.data(), 2, 2, CLSORT_KEY_F32, 0, 0) ==
        CLSORT_ERROR_INVALID_ARGUMENT);
  CHECK(std::string(clsort_last_error_message()).find("offset_size") != std::string::npos);
  CHECK(std::memcmp(keys.data(), input.data(), n * sizeof(float)) == 0);
  Filled kb(s.context(), n * 4, 9);
  cl::Buffer ob = device_buffer(s, bad);
  cl_event ev = reinterpret_cast<cl_event>(1);
  CHECK(clsort_sort_segments(cs, kb.buffer(), nullptr, ob(), 4, 2, CLSORT_KEY_F32, 0, 0, 0, nullptr, &ev) ==
        CLSORT_ERROR_INVALID_ARGUMENT);
  CHECK(ev == nullptr);
  CHECK(kb.unchanged(s.queue()));
  CHECK(clsort_sort_segments(cs, kb.buffer(), nullptr, nullptr, 4, 2, CLSORT_KEY_F32, 0, 0, 0, nullptr,
                             nullptr) == CLSORT_ERROR_INVALID_ARGUMENT);
  clsort_sorter_destroy(cs);
}

// The caller's keys and values in sub-buffers of larger buffers: a segment past segments.huge that starts
// on the device's sub-buffer alignment is sorted in place, through a region of the parent buffer (OpenCL
// takes no sub-buffer of a sub-buffer), or at its offset in the sub-buffer on the radix CPU shape; the
// parents' bytes outside the sub-buffers stay as they were.
TEST_CASE("segments in sub-buffers: a huge segment sorted through the parent") {
  clsort::Sorter& s = tiles_sorter();  // segments.huge=1024
  cl_uint align_bits = 0;
  REQUIRE(s.device().getInfo(CL_DEVICE_MEM_BASE_ADDR_ALIGN, &align_bits) == CL_SUCCESS);
  const std::size_t lead = std::max<std::size_t>(align_bits / 8, 64) / 4, n = 3020, tail = 7;
  const std::vector<std::uint64_t> o{0, 3000, 3010, n};
  const std::vector<std::uint32_t> all = make_keys<std::uint32_t>(Dist::random, lead + n + tail, 77);
  const std::vector<std::uint32_t> values_all = make_values<std::uint32_t>(lead + n + tail, 78);
  for (Order order : both_orders()) {
    cl::Buffer kparent = device_buffer(s, all), vparent = device_buffer(s, values_all);
    const cl_buffer_region region{lead * 4, n * 4};
    cl_int status = CL_SUCCESS;
    cl::Buffer kb =
        kparent.createSubBuffer(CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, &status);
    REQUIRE(status == CL_SUCCESS);
    cl::Buffer vb =
        vparent.createSubBuffer(CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, &status);
    REQUIRE(status == CL_SUCCESS);
    s.sort_segments_by_key<std::uint32_t, std::uint32_t, std::uint64_t>(kb, vb, device_buffer(s, o), 3,
                                                                        {order})
        .wait();
    std::vector<std::uint32_t> keys(all.begin() + lead, all.begin() + lead + n);
    std::vector<std::uint32_t> values(values_all.begin() + lead, values_all.begin() + lead + n);
    reference(keys, &values, o, order);
    std::vector<std::uint32_t> want = all, want_values = values_all;
    std::copy(keys.begin(), keys.end(), want.begin() + lead);
    std::copy(values.begin(), values.end(), want_values.begin() + lead);
    CHECK(read_back<std::uint32_t>(s, kparent, all.size()) == want);
    CHECK(read_back<std::uint32_t>(s, vparent, values_all.size()) == want_values);
  }
}

}  // namespace
}  // namespace clsort_test
