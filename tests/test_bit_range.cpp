// Radix sort by a range of bits (Options::begin_bit, end_bit): results against std::stable_sort comparing
// only those bits of the order-preserving code, on every radix shape, with values and as argsort; the
// passes launched; the errors.
#include <doctest/doctest.h>

#include <clsort/key_transform.hpp>

#include "support/key_type_cases.hpp"
#include "support/support.hpp"

namespace clsort_test {
namespace {

struct Range {
  unsigned begin, end;  // as Options takes them (end 0: the key's width)
};

// The documented order: bits [begin, end) of encode_key(k, descending), ascending, stable. Written as a
// shift and a mask of the field, unlike the kernels' whole-code masks and overlapping passes.
template <class K>
std::vector<std::uint32_t> range_argsort(const std::vector<K>& keys, Range r, Order order) {
  using U = clsort::key_bits_t<K>;
  constexpr unsigned bits = sizeof(K) * 8;
  const unsigned end = r.end ? r.end : bits, width = end - r.begin;
  auto field = [&](K k) {
    U c = U(clsort::encode_key(k, order == Order::descending) >> r.begin);
    return width == bits ? c : U(c & U((U(1) << width) - 1));
  };
  std::vector<std::uint32_t> idx(keys.size());
  std::iota(idx.begin(), idx.end(), 0u);
  std::stable_sort(idx.begin(), idx.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return field(keys[a]) < field(keys[b]); });
  return idx;
}

std::string range_name(Range r) {
  return "bits [" + std::to_string(r.begin) + ", " + (r.end ? std::to_string(r.end) : "width") + ")";
}

// Keys alone and, with `values`, by key (4-byte values naming their input index) and argsort: every
// result equals the reference permutation bit for bit (stability makes it unique, NaNs included).
template <class K>
void check_range(clsort::Sorter& sorter, Range r, const std::vector<std::size_t>& sizes, bool values,
                 const std::string& note) {
  const KeyType type = clsort::key_type_of<K>::value;
  FailureBudget budget;
  for (std::size_t n : sizes)
    for (Dist dist : {Dist::random, Dist::few_unique, special_distribution<K>()})
      for (Order order : both_orders()) {
        const std::uint64_t seed = seed_for(type, int(dist), n, 40 + r.begin * 100 + r.end);
        const std::vector<K> keys = make_keys<K>(dist, n, seed);
        const std::vector<std::uint32_t> perm = range_argsort(keys, r, order);
        std::vector<K> expected(n);
        for (std::size_t i = 0; i < n; ++i) expected[i] = keys[perm[i]];
        const clsort::Options options{order, Algorithm::automatic, r.begin, r.end};
        const std::string what =
            describe(Algorithm::radix, type, order, n, dist, seed) + " " + range_name(r) + note;
        std::string error;
        try {
          std::vector<K> got = keys;
          sorter.sort(got, options);
          for (std::size_t i = 0; i < n && error.empty(); ++i)
            if (!same_bits(got[i], expected[i]))
              error = "keys: index " + std::to_string(i) + " holds " + hex(got[i]) + ", expected " +
                      hex(expected[i]);
          if (values && error.empty()) {
            got = keys;
            std::vector<std::uint32_t> v(n);
            std::iota(v.begin(), v.end(), 0u);
            sorter.sort_by_key(got, v, options);
            if (v != perm) error = "by key: the values are not the stable permutation";
            if (sorter.argsort(keys, options) != perm) error = "argsort: not the stable permutation";
          }
        } catch (const clsort::Error& e) {
          error = std::string("threw: ") + e.what();
        }
        CHECK_MESSAGE(error.empty(), what << ": " << error);
        if (!budget.record(error.empty())) FAIL("too many failures, stopping at " << what);
      }
}

const std::vector<std::size_t> kSizes{0, 1, 2, 7, 64, 65, 257, 1000, 4097, 6144, 65537};
const std::vector<std::size_t> kSmallSizes{0, 1, 2, 7, 257, 1000, 4097};

TEST_CASE("bit range: radix results against a stable reference over the range") {
  clsort::Sorter& s = shared_sorter();
  // Each range builds programs of its own (seconds on a CPU device), so each kind of range appears once per
  // key width: from bit 0, within one digit, a single bit, across digits, up to the top. Whole keys are the
  // other tests' business.
  for (Range r : {Range{0, 20}, Range{7, 8}, Range{3, 17}, Range{12, 0}})
    check_range<std::uint32_t>(s, r, kSizes, true, "");
  for (Range r : {Range{9, 31}, Range{31, 32}}) check_range<float>(s, r, kSizes, true, "");
  for (Range r : {Range{20, 64}, Range{13, 50}, Range{63, 0}})
    check_range<std::uint64_t>(s, r, kSizes, true, "");
  for (Range r : {Range{4, 16}, Range{5, 6}}) check_range<std::int16_t>(s, r, kSizes, true, "");
  check_range<clsort::half>(s, Range{10, 16}, kSizes, true, "");
  for (Range r : {Range{1, 7}, Range{0, 3}}) check_range<std::uint8_t>(s, r, kSizes, true, "");
}

// The shapes the device's tuning does not pick: the other of CPU shape and GPU shape, reduce-then-scan
// with the portable ranking, Onesweep with the multisplit ranking (small n: Onesweep on a CPU device waits
// for many tiles slowly), a digit wider than the range's remainder.
TEST_CASE("bit range: every radix shape") {
  clsort::Sorter& base = shared_sorter();
  // Every range builds programs of its own for each shape (seconds each on a CPU device): the ranges that
  // cross digits, a 64-bit one and one with values on each shape, and narrow keys where the digit differs.
  struct Shape {
    const char* tuning;
    bool all_ranges;
  };
  for (const Shape& shape :
       {Shape{"radix.cpu=0,radix.match=0,radix.onesweep=0", true},
        Shape{"radix.cpu=0,radix.match=1,radix.onesweep=1", true}, Shape{"radix.cpu=1", true},
        Shape{"radix.cpu=0,radix.match=0,radix.onesweep=0,radix.bits=11", false},
        Shape{"radix.cpu=1,radix.bits=5", false}}) {
    clsort::Sorter s(cl::CommandQueue(base.context(), base.device()));
    s.tune(shape.tuning);
    const std::string note = std::string(" tuning ") + shape.tuning;
    check_range<std::uint32_t>(s, Range{3, 17}, kSmallSizes, false, note);
    check_range<clsort::bfloat16>(s, Range{4, 16}, kSmallSizes, false, note);
    if (!shape.all_ranges) continue;
    check_range<std::uint32_t>(s, Range{7, 8}, kSmallSizes, false, note);
    check_range<std::int64_t>(s, Range{13, 50}, kSmallSizes, false, note);
    check_range<float>(s, Range{0, 20}, kSmallSizes, true, note);
  }
}

// Only the passes over the range run: the plan says how many, and a profiling Sorter counts the launches.
TEST_CASE("bit range: passes") {
  clsort::Sorter& base = shared_sorter();
  struct Case {
    KeyType type;
    Range range;
    unsigned passes, bits;
  };
  // Whole keys, a range from bit 0, one inside a digit, a 64-bit one, a single bit and a digit narrower
  // than 8 bits (each builds its programs: seconds on a CPU device).
  const Case cases[] = {{KeyType::u32, {0, 0}, 4, 8},   {KeyType::u32, {0, 20}, 3, 8},
                        {KeyType::u32, {4, 12}, 1, 8},  {KeyType::u64, {20, 64}, 6, 8},
                        {KeyType::f32, {31, 32}, 1, 1}, {KeyType::u8, {0, 3}, 1, 3}};
  for (const char* tuning :
       {"radix.cpu=0,radix.onesweep=0", "radix.cpu=0,radix.match=1,radix.onesweep=1", "radix.cpu=1"}) {
    CAPTURE(tuning);
    clsort::Sorter s(base.device(), /*profiling=*/true);
    s.tune(tuning);
    const std::string shape_kind = std::string(tuning).find("cpu=1") != std::string::npos ? "CPU shape"
                                   : std::string(tuning).find("onesweep=1") != std::string::npos
                                       ? "onesweep"
                                       : "reduce-then-scan";
    // Where Onesweep runs for whole keys (its self-test passed), it runs for ranges too: their programs
    // pass the same self-test, ordered by the range.
    bool onesweep_whole = false;
    for (const Case& c : cases) {
      const clsort::Options options{Order::ascending, Algorithm::automatic, c.range.begin, c.range.end};
      CAPTURE(clsort::to_string(c.type));
      CAPTURE(range_name(c.range));
      const std::size_t n = 3000;
      const clsort::SortPlan plan = s.plan(c.type, n, 0, options);
      CHECK(plan.algorithm == Algorithm::radix);
      CHECK(plan.shape.find(shape_kind) != std::string::npos);
      CHECK(plan.shape.find(std::to_string(c.passes) + " passes of " + std::to_string(c.bits) + " bits") !=
            std::string::npos);
      std::vector<unsigned char> keys(n * clsort::key_size(c.type));
      std::mt19937_64 rng(7);
      for (auto& b : keys) b = static_cast<unsigned char>(rng());
      s.sort_host(c.type, keys.data(), n, nullptr, 0, options);
      unsigned launched = 0;
      bool onesweep_ran = false;
      for (const clsort::KernelTime& k : s.last_profile()) {
        launched += k.name == "radix_scatter" || k.name == "radix_onesweep";
        onesweep_ran = onesweep_ran || k.name == "radix_onesweep";
      }
      // The CPU shape has no per-pass launch; Onesweep may have fallen back to reduce-then-scan.
      if (shape_kind != "CPU shape") CHECK(launched == c.passes);
      if (shape_kind == "reduce-then-scan") CHECK_FALSE(onesweep_ran);
      if (c.range.begin == 0 && c.range.end == 0) onesweep_whole = onesweep_ran;
      // Each program passes its own self-test: on a CPU device under load one of them may decline
      // Onesweep (a preempted work-group outlasting the look-back's spins) while another does not.
      if (shape_kind == "onesweep" && !(s.device().getInfo<CL_DEVICE_TYPE>() & CL_DEVICE_TYPE_CPU))
        CHECK(onesweep_ran == onesweep_whole);
    }
  }
}

TEST_CASE("bit range: bad ranges throw naming the argument and change nothing") {
  clsort::Sorter& s = shared_sorter();
  std::vector<std::uint32_t> keys{5, 3, 9, 1, 7};
  const std::vector<std::uint32_t> before = keys;
  auto where = [&](const clsort::Options& o) -> std::string {
    try {
      s.sort(keys, o);
    } catch (const clsort::Error& e) {
      CHECK(e.kind() == clsort::Error::Kind::invalid_argument);
      return e.where();
    }
    return "nothing thrown";
  };
  CHECK(where({Order::ascending, Algorithm::radix, 9, 4}) == "begin_bit");
  CHECK(where({Order::ascending, Algorithm::radix, 33, 0}) == "begin_bit");
  CHECK(where({Order::ascending, Algorithm::automatic, 0, 33}) == "end_bit");
  CHECK(where({Order::ascending, Algorithm::merge, 8, 8}) == "algorithm");  // empty, but still radix's
  for (Algorithm a : {Algorithm::bitonic, Algorithm::merge, Algorithm::selection, Algorithm::odd_even})
    CHECK(where({Order::descending, a, 0, 8}) == "algorithm");
  CHECK(keys == before);
  std::vector<std::uint16_t> narrow{3, 1};
  CHECK_THROWS_AS(s.sort(narrow, {Order::ascending, Algorithm::radix, 0, 17}), clsort::Error);
  CHECK(narrow == std::vector<std::uint16_t>{3, 1});
  // With a range, automatic means radix, also where it would pick bitonic.
  CHECK(s.plan(KeyType::u32, 10, 0, {Order::ascending, Algorithm::automatic, 0, 8}).algorithm ==
        Algorithm::radix);
  CHECK(s.plan(KeyType::u32, 10, 0, {}).algorithm != Algorithm::radix);
}

// An empty range (begin_bit == end_bit, as CUB takes it): every key equal in it, so the stable order is
// the input order. Keys and values stay as they are, argsort is the identity, and nothing but a marker
// (argsort of device keys: its indices) is enqueued. Every key type, every call that takes a range.
template <class K>
void empty_range_case(clsort::Sorter& s) {
  const KeyType type = clsort::key_type_of<K>::value;
  constexpr unsigned bits = sizeof(K) * 8;
  const std::size_t n = 3001;
  const std::vector<K> keys = make_keys<K>(special_distribution<K>(), n, seed_for(type, 50, n));
  std::vector<std::uint32_t> iota(n);
  std::iota(iota.begin(), iota.end(), 0u);
  for (Range r : {Range{bits, 0}, Range{1, 1}, Range{bits / 2, bits / 2}, Range{bits, bits}})
    for (Algorithm a : {Algorithm::automatic, Algorithm::radix})
      for (Order order : both_orders()) {
        const clsort::Options o{order, a, r.begin, r.end};
        CAPTURE(clsort::to_string(type));
        CAPTURE(range_name(r));
        CAPTURE(clsort::to_string(order));
        std::vector<K> got = keys;
        s.sort(got, o);
        CHECK(compare_sorted(keys, got) == "");
        CHECK(s.last_profile().empty());
        std::vector<K> copy(n);
        s.sort_copy(keys.data(), copy.data(), n, o);
        CHECK(compare_sorted(keys, copy) == "");
        for (std::size_t width : {std::size_t(3), std::size_t(4), std::size_t(12)}) {
          std::vector<unsigned char> values(n * width), before;
          for (std::size_t i = 0; i < values.size(); ++i)
            values[i] = static_cast<unsigned char>(i * 7 + width);
          before = values;
          got = keys;
          s.sort_host(type, got.data(), n, values.data(), width, o);
          CHECK(compare_sorted(keys, got) == "");
          CHECK(values == before);
        }
        CHECK(s.argsort(keys, o) == iota);
        const std::vector<std::uint64_t> iota64(iota.begin(), iota.end());
        CHECK(s.argsort64(keys, o) == iota64);
        // Device buffers: keys and values untouched, argsort's indices written and nothing else run.
        cl::Buffer kbuf(s.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * sizeof(K),
                        const_cast<K*>(keys.data()));
        std::vector<std::uint64_t> v(n, 0x5a5a5a5a5a5a5a5aull);
        cl::Buffer vbuf(s.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * 8, v.data());
        s.sort<K>(kbuf, n, o).wait();
        CHECK(s.last_profile().empty());
        s.sort_by_key<K, std::uint64_t>(kbuf, vbuf, n, o).wait();
        CHECK(s.last_profile().empty());
        std::vector<K> back(n);
        REQUIRE(s.queue().enqueueReadBuffer(kbuf, CL_TRUE, 0, n * sizeof(K), back.data()) == CL_SUCCESS);
        CHECK(compare_sorted(keys, back) == "");
        std::vector<std::uint64_t> vback(n);
        REQUIRE(s.queue().enqueueReadBuffer(vbuf, CL_TRUE, 0, n * 8, vback.data()) == CL_SUCCESS);
        CHECK(vback == v);
        cl::Buffer ibuf(s.context(), CL_MEM_READ_WRITE, n * 8);
        s.argsort<K>(kbuf, n, ibuf, o).wait();
        std::vector<std::uint32_t> idx(n);
        REQUIRE(s.queue().enqueueReadBuffer(ibuf, CL_TRUE, 0, n * 4, idx.data()) == CL_SUCCESS);
        CHECK(idx == iota);
        const std::vector<clsort::KernelTime> profile = s.last_profile();
        REQUIRE(profile.size() == 1);
        CHECK(profile[0].name == "argsort_iota");
        s.argsort64<K>(kbuf, n, ibuf, o).wait();
        std::vector<std::uint64_t> idx64(n);
        REQUIRE(s.queue().enqueueReadBuffer(ibuf, CL_TRUE, 0, n * 8, idx64.data()) == CL_SUCCESS);
        CHECK(idx64 == iota64);
        CHECK(s.last_profile().size() == 1);
        CHECK(s.plan(type, n, 4, o).shape.find("nothing to sort") != std::string::npos);
      }
}

TEST_CASE("bit range: an empty range keeps the input order") {
  clsort::Sorter s(shared_sorter().device(), true);
#define CLSORT_EMPTY_RANGE_CASE(K, name, sorter) empty_range_case<K>(sorter);
  CLSORT_EACH_KEY_TYPE(CLSORT_EMPTY_RANGE_CASE, s)
#undef CLSORT_EMPTY_RANGE_CASE
}

}  // namespace
}  // namespace clsort_test
