// Segmented sort: every key type, both orders, segment shapes (empty, single, many tiny, one huge among
// tiny ones, offsets not covering the keys, power-law lengths) and distributions, against
// std::stable_sort per segment bit for bit (values too: stability); 32- and 64-bit offsets; the paths of
// one work-item per segment and of a radix sort per segment. Device buffers, bad input, the C API and
// sub-buffers: test_segments_buffers.cpp.
//
// Most cases run on Sorters tuned to small local tiles and a low `huge` threshold (segments.slots=256,
// segments.huge=1024), so that a few thousand keys reach every path: segments sorted in local memory or
// one work-item each (segments.seq), chunks with merge passes, a radix sort per segment (segments.radix;
// off for the other Sorters, so that chunks run on every device), and whole-device sorts of huge segments.
#include <doctest/doctest.h>

#include "support/key_type_cases.hpp"
#include "support/segments.hpp"
#include "support/support.hpp"

namespace clsort_test {
namespace {

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

CLSORT_CASES_PER_KEY_TYPE("segments", segments_matrix)

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

}  // namespace
}  // namespace clsort_test
