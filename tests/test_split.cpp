// Radix sort past the most keys one sort takes, at small n: the split path (a stable MSD partition by
// the top digit, then each bucket sorted apart) with radix.split_min lowered, crowded buckets with
// radix.split_max lowered, and, on a device that holds them (CLSORT_TEST_HUGE=1), n >= 2^32 itself.
#include <doctest/doctest.h>

#include <clsort/clsort.h>

#include <array>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "support/guarded.hpp"
#include "support/support.hpp"
#include "support/wide_values.hpp"

namespace clsort_test {
namespace {

// The path of n >= 2^32 (a stable MSD partition by the top digit, then each bucket sorted apart) at
// small n: radix.split_min lowered on a Sorter of the shared queue.
template <class K>
void split_case(clsort::Sorter& s, FailureBudget& budget, const std::vector<std::size_t>& sizes) {
  const KeyType type = clsort::key_type_of<K>::value;
  for (std::size_t n : sizes) {
    for (Dist dist : {Dist::random, Dist::few_unique, Dist::all_equal, special_distribution<K>()}) {
      if (n > 5000 && dist != Dist::few_unique && !full_matrix()) continue;
      for (Order order : both_orders()) {
        const std::uint64_t seed = seed_for(type, int(dist), n, 33);
        const std::vector<K> keys = make_keys<K>(dist, n, seed);
        const std::string what = describe(Algorithm::radix, type, order, n, dist, seed) + " split";
        // Keys alone (host), keys with 4-byte values (buffers), 16-byte values (host), argsort64 (8-byte
        // values riding the passes).
        std::vector<K> got = keys;
        s.sort(got, {order, Algorithm::radix});
        std::string error = compare_sorted(reference_sort(keys, order), got);
        CHECK_MESSAGE(error.empty(), what << " keys: " << error);
        for (std::size_t width : {std::size_t(3), std::size_t(4), std::size_t(16)}) {
          const std::vector<unsigned char> values = wide_values(n, width, seed);
          std::vector<K> gk = keys;
          std::vector<unsigned char> gv = values;
          try {
            if (width != 16)
              error = sort_wide_buffer(s, {order, Algorithm::radix}, gk, gv, width);
            else
              s.sort_host(type, gk.data(), n, gv.data(), width, {order, Algorithm::radix});
          } catch (const clsort::Error& e) {
            error = std::string("threw: ") + e.what();
          }
          if (error.empty()) error = compare_wide(keys, values, width, order, gk, gv);
          CHECK_MESSAGE(error.empty(), what << " values of " << width << " bytes: " << error);
          if (!budget.record(error.empty())) FAIL("too many failures");
        }
        const std::vector<std::uint32_t> expected = reference_argsort(keys, order);
        std::vector<bool> nan_at(n);
        for (std::size_t i = 0; i < n; ++i) nan_at[i] = is_nan_key(keys[expected[i]]);
        error = compare_indices(expected, s.argsort64(keys, {order, Algorithm::radix}), nan_at);
        CHECK_MESSAGE(error.empty(), what << " argsort64: " << error);
      }
    }
  }
  // A bit range: the partition takes the range's top bits.
  if (sizeof(K) >= 4) {
    const std::vector<K> keys = make_keys<K>(Dist::random, 5000, 9);
    clsort::Options o{Order::descending, Algorithm::radix};
    o.begin_bit = 4;
    o.end_bit = 21;
    std::vector<K> a = keys, b = keys;
    shared_sorter().sort(a, o);  // not split: the reference
    s.sort(b, o);
    CHECK_MESSAGE(compare_sorted(a, b).empty(), to_string(type) << " split with a bit range");
  }
}

TEST_CASE("split path") {
  clsort::Sorter s(shared_sorter().queue());
  s.tune("radix.split_min=1000,radix.split_piece=1500");
  CHECK(s.plan(KeyType::u32, 5000, 0, {Order::ascending, Algorithm::radix}).shape.find("partition") !=
        std::string::npos);
  FailureBudget budget;
  const std::vector<std::size_t> sizes{2, 1001, 4099, 70001};
  split_case<std::uint32_t>(s, budget, sizes);
  split_case<double>(s, budget, sizes);
  split_case<std::int16_t>(s, budget, sizes);
  split_case<std::uint8_t>(s, budget, sizes);
  // The buckets sorted by Onesweep (the GPUs' shape; on CPU devices only at small n).
  clsort::Sorter onesweep(shared_sorter().queue());
  onesweep.tune("radix.split_min=1000,radix.split_piece=1500,radix.cpu=0,radix.onesweep=1");
  split_case<std::uint32_t>(onesweep, budget, {1001, 4099});
  split_case<float>(onesweep, budget, {4099});
}

// Keys that crowd the split path's buckets: the distributions that n >= 2^32 must sort although many keys
// share their top bits (a bucket of more keys than one sort takes is partitioned again by its next digit,
// and a digit that every key shares moves nothing).
enum class Crowd { all_equal, few_unique, small_integers, sorted, reversed, one_bucket, unit_floats };
const char* to_string(Crowd c) {
  static constexpr const char* names[] = {"all equal",
                                          "few unique",
                                          "small integers",
                                          "sorted small integers",
                                          "reversed small integers",
                                          "one huge bucket",
                                          "floats in [0, 1)"};
  return enum_name(c, names);
}

template <class K>
std::vector<K> crowded_keys(Crowd crowd, std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<K> v(n);
  // Small integers: 1024 values, each about n / 1024 times (their top bits all zero).
  auto small = [&] {
    if constexpr (is_float_v<K>)
      return K(float(rng() % 1024));
    else
      return K(rng() % std::min<std::uint64_t>(1024, std::uint64_t(std::numeric_limits<K>::max()) + 1));
  };
  switch (crowd) {
    case Crowd::all_equal:
      std::fill(v.begin(), v.end(), random_key<K>(rng));
      break;
    case Crowd::few_unique: {
      const K pool[3] = {random_key<K>(rng), random_key<K>(rng), random_key<K>(rng)};
      for (auto& x : v) x = pool[rng() % 3];
      break;
    }
    case Crowd::small_integers:
    case Crowd::sorted:
    case Crowd::reversed:
      for (auto& x : v) x = small();
      if (crowd != Crowd::small_integers) v = reference_sort(std::move(v), Order::ascending);
      if (crowd == Crowd::reversed) std::reverse(v.begin(), v.end());
      break;
    case Crowd::one_bucket: {
      // 60% one key, 20% keys differing from it in the low bits only, 20% anywhere: the bucket of that key
      // stays too large at every digit, and its neighbours at each digit are small.
      const Bits<K> x = bits_of(random_key<K>(rng));
      const Bits<K> low = Bits<K>((Bits<K>(1) << (sizeof(K) * 4)) - 1);
      for (auto& k : v) {
        const std::uint64_t r = rng() % 5;
        k = r < 3    ? from_bits<K>(x)
            : r == 3 ? from_bits<K>(Bits<K>(x ^ (Bits<K>(rng()) & low)))
                     : random_key<K>(rng);
      }
      break;
    }
    case Crowd::unit_floats:
      if constexpr (is_float_v<K>) {
        std::uniform_real_distribution<float> unit(0.0f, 1.0f);
        for (auto& x : v) x = K(unit(rng));  // half of them in [0.5, 1): one top digit of the code
      }
      break;
  }
  return v;
}

// The split path over crowded keys: the most keys one sort takes (radix.split_max) lowered below the
// buckets, so that small n reaches the code that n >= 2^32 runs on the GPU. Keys alone (host), values of
// 2 bytes (widened), 4 (device buffers), 12 (sorted as 64-bit indices, as past 2^32 keys) and 8
// (argsort64), both orders.
template <class K>
void crowded_case(clsort::Sorter& s, FailureBudget& budget, const std::vector<Crowd>& crowds, std::size_t n,
                  const std::vector<std::size_t>& widths, const clsort::Options& base = {}) {
  const KeyType type = clsort::key_type_of<K>::value;
  for (Crowd crowd : crowds) {
    for (Order order : both_orders()) {
      clsort::Options options = base;
      options.order = order;
      options.algorithm = Algorithm::radix;
      const std::uint64_t seed = seed_for(type, int(crowd), n, 77);
      const std::vector<K> keys = crowded_keys<K>(crowd, n, seed);
      std::ostringstream what_stream;
      what_stream << to_string(type) << " " << to_string(crowd) << " n=" << n << " "
                  << (order == Order::ascending ? "ascending" : "descending") << " bits [" << base.begin_bit
                  << ", " << base.end_bit << ") seed=" << seed;
      const std::string what = what_stream.str();
      // The reference: a stable sort by the range's bits of the codes, as the unsplit radix sort does.
      std::vector<K> expected = keys;
      const bool range = base.begin_bit || base.end_bit;
      if (range)
        shared_sorter().sort(expected, options);
      else
        expected = reference_sort(keys, order);
      std::vector<K> got = keys;
      s.sort(got, options);
      std::string error = compare_sorted(expected, got);
      CHECK_MESSAGE(error.empty(), what << " keys: " << error);
      if (!budget.record(error.empty())) FAIL("too many failures");
      for (std::size_t width : widths) {
        const std::vector<unsigned char> values = wide_values(n, width, seed);
        std::vector<K> gk = keys;
        std::vector<unsigned char> gv = values;
        try {
          if (width == 4)
            error = sort_wide_buffer(s, options, gk, gv, width);
          else
            s.sort_host(type, gk.data(), n, gv.data(), width, options);
          if (error.empty() && !range) error = compare_wide(keys, values, width, order, gk, gv);
          if (error.empty() && range) {
            std::vector<K> rk = keys;
            std::vector<unsigned char> rv = values;
            shared_sorter().sort_host(type, rk.data(), n, rv.data(), width, options);
            if (compare_sorted(rk, gk) != "" || rv != gv) error = "differs from the unsplit sort";
          }
        } catch (const clsort::Error& e) {
          error = std::string("threw: ") + e.what();
        }
        CHECK_MESSAGE(error.empty(), what << " values of " << width << " bytes: " << error);
        if (!budget.record(error.empty())) FAIL("too many failures");
      }
      if (range) continue;
      const std::vector<std::uint32_t> perm = reference_argsort(keys, order);
      std::vector<bool> nan_at(n);
      for (std::size_t i = 0; i < n; ++i) nan_at[i] = is_nan_key(keys[perm[i]]);
      error = compare_indices(perm, s.argsort64(keys, options), nan_at);
      CHECK_MESSAGE(error.empty(), what << " argsort64: " << error);
      if (!budget.record(error.empty())) FAIL("too many failures");
    }
  }
}

TEST_CASE("split path: crowded buckets") {
  // Buckets of more than 3000 keys are partitioned again; pieces of 1500.
  const std::string tuning = "radix.split_min=1000,radix.split_piece=1500,radix.split_max=3000";
  clsort::Sorter s(shared_sorter().queue());
  s.tune(tuning);
  // Values wider than 8 bytes move through 64-bit indices where one sort cannot take every key.
  CHECK(s.plan(KeyType::u32, 20011, 12, {Order::ascending, Algorithm::radix}).shape.find("64-bit indices") !=
        std::string::npos);
  CHECK(s.plan(KeyType::u32, 2000, 12, {Order::ascending, Algorithm::radix}).shape.find("32-bit indices") !=
        std::string::npos);
  FailureBudget budget;
  const std::vector<Crowd> all{Crowd::all_equal, Crowd::few_unique, Crowd::small_integers,
                               Crowd::sorted,    Crowd::reversed,   Crowd::one_bucket};
  crowded_case<std::uint32_t>(s, budget, all, 20011, {2, 4, 12});
  crowded_case<float>(s, budget, {Crowd::unit_floats, Crowd::small_integers}, 20011, {4});
  crowded_case<std::uint64_t>(s, budget, {Crowd::one_bucket, Crowd::all_equal, Crowd::few_unique}, 9001, {4});
  crowded_case<std::int16_t>(s, budget, {Crowd::one_bucket, Crowd::small_integers}, 9001, {});
  crowded_case<clsort::half>(s, budget, {Crowd::unit_floats}, 9001, {});
  // A bit range: the partitions take its bits only.
  clsort::Options range;
  range.begin_bit = 3;
  range.end_bit = 29;
  crowded_case<std::uint32_t>(s, budget, {Crowd::one_bucket, Crowd::small_integers}, 20011, {4}, range);
  // The buckets' sorts by Onesweep (the GPUs' shape).
  clsort::Sorter onesweep(shared_sorter().queue());
  onesweep.tune(tuning + ",radix.cpu=0,radix.onesweep=1");
  crowded_case<std::uint32_t>(onesweep, budget, {Crowd::one_bucket, Crowd::small_integers}, 20011, {4});
}

TEST_CASE("split path: keys equal in every bit move nothing") {
  clsort::Sorter s(shared_sorter().device(), true);
  s.tune("radix.split_min=1000,radix.split_piece=1500,radix.split_max=3000");
  const std::size_t n = 5000;
  const std::vector<std::uint64_t> keys(n, 0x0123456789abcdefull);
  std::vector<std::uint32_t> values(n);
  std::iota(values.begin(), values.end(), 0u);
  cl::Buffer kbuf(s.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * 8,
                  const_cast<std::uint64_t*>(keys.data()));
  cl::Buffer vbuf(s.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * 4, values.data());
  s.sort_by_key<std::uint64_t, std::uint32_t>(kbuf, vbuf, n, {Order::descending, Algorithm::radix}).wait();
  std::vector<std::uint64_t> got_keys(n);
  std::vector<std::uint32_t> got_values(n);
  REQUIRE(s.queue().enqueueReadBuffer(kbuf, CL_TRUE, 0, n * 8, got_keys.data()) == CL_SUCCESS);
  REQUIRE(s.queue().enqueueReadBuffer(vbuf, CL_TRUE, 0, n * 4, got_values.data()) == CL_SUCCESS);
  CHECK(got_keys == keys);
  CHECK(got_values == values);
  // One count per digit, nothing else: no piece sort, no gather, no copy.
  const std::vector<clsort::KernelTime> profile = s.last_profile();
  CHECK(profile.size() == 8 * 3);
  for (const clsort::KernelTime& t : profile)
    CHECK_MESSAGE(t.name.rfind("partition_", 0) == 0, "ran " << t.name);
}

// n >= 2^32 on a device that holds it (CLSORT_TEST_HUGE=1: about 2^33 u32 keys need 64 GiB on the device,
// 32 GiB per allocation). Sorts n = CLSORT_TEST_HUGE_N keys (default 2^32 + 2^20) of each distribution in
// CLSORT_TEST_HUGE_DIST (comma-separated: random, all_equal, few_unique, small_integers, sorted, reversed,
// one_bucket, unit_floats; default random), u32 keys (f32 for unit_floats) from the host, and checks
// the order and the multiset (a sum and a hash sum of the keys). CLSORT_TEST_HUGE_ARGSORT=1 also takes
// argsort64 of the same keys in device buffers and checks it is the stable permutation: every index
// once, keys in order, equal keys by ascending index.
std::uint64_t mix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

TEST_CASE("huge n") {
  const char* env = std::getenv("CLSORT_TEST_HUGE");
  if (!env || std::string(env) != "1") {
    MESSAGE("CLSORT_TEST_HUGE is not 1: skipped");
    return;
  }
  std::size_t n = (std::size_t(1) << 32) + (std::size_t(1) << 20);
  if (const char* e = std::getenv("CLSORT_TEST_HUGE_N")) n = std::strtoull(e, nullptr, 0);
  std::string dists = "random";
  if (const char* e = std::getenv("CLSORT_TEST_HUGE_DIST")) dists = e;
  const char* argsort_env = std::getenv("CLSORT_TEST_HUGE_ARGSORT");
  const bool argsort = argsort_env && std::string(argsort_env) == "1";
  clsort::Sorter& s = shared_sorter();
  std::stringstream list(dists);
  for (std::string dist; std::getline(list, dist, ',');) {
    CAPTURE(dist);
    CAPTURE(n);
    const bool unit = dist == "unit_floats";
    const char* known[] = {"random", "all_equal", "few_unique", "small_integers",
                           "sorted", "reversed",  "one_bucket", "unit_floats"};
    REQUIRE_MESSAGE(std::find(std::begin(known), std::end(known), dist) != std::end(known),
                    "unknown distribution " << dist);
    std::vector<std::uint32_t> keys(n);
    std::mt19937_64 rng(base_seed());
    const std::uint32_t x = std::uint32_t(rng()), pool[3] = {x, std::uint32_t(rng()), std::uint32_t(rng())};
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint64_t r = rng();
      std::uint32_t k = std::uint32_t(r);
      if (dist == "all_equal")
        k = x;
      else if (dist == "few_unique")
        k = pool[r % 3];
      else if (dist == "small_integers")  // about 4300 of each value below 10^6 at 2^32 keys
        k = std::uint32_t(r % 1000000);
      else if (dist == "sorted")
        k = std::uint32_t(i * 1000000 / n);
      else if (dist == "reversed")
        k = std::uint32_t((n - 1 - i) * 1000000 / n);
      else if (dist == "one_bucket")
        k = r % 5 < 3 ? x : r % 5 == 3 ? x ^ std::uint32_t(r >> 48) : std::uint32_t(r >> 32);
      else if (unit)  // uniform in [0, 1), 24 bits
        k = bits_of(float(r >> 40) * 0x1p-24f);
      keys[i] = k;
    }
    auto less = [unit](std::uint32_t a, std::uint32_t b) {
      return unit ? from_bits<float>(a) < from_bits<float>(b) : a < b;
    };
    std::uint64_t sum = 0, hash = 0;
    for (std::uint32_t k : keys) {
      sum += k;
      hash += mix64(k);
    }
    std::vector<std::uint32_t> sorted = keys;
    if (unit)
      s.sort(reinterpret_cast<float*>(sorted.data()), n, {Order::ascending, Algorithm::radix});
    else
      s.sort(sorted, {Order::ascending, Algorithm::radix});
    std::uint64_t sum_after = 0, hash_after = 0;
    std::size_t unsorted = 0;
    for (std::size_t i = 0; i < n; ++i) {
      sum_after += sorted[i];
      hash_after += mix64(sorted[i]);
      if (i && less(sorted[i], sorted[i - 1])) ++unsorted;
    }
    CHECK(unsorted == 0);
    CHECK(sum_after == sum);
    CHECK(hash_after == hash);
    sorted = {};
    if (!argsort) continue;
    std::vector<std::uint64_t> indices(n);
    {
      cl::Buffer kbuf(s.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * 4, keys.data());
      cl::Buffer ibuf(s.context(), CL_MEM_READ_WRITE, n * 8);
      if (unit)
        s.argsort64<float>(kbuf, n, ibuf, {Order::ascending, Algorithm::radix}).wait();
      else
        s.argsort64<std::uint32_t>(kbuf, n, ibuf, {Order::ascending, Algorithm::radix}).wait();
      REQUIRE(s.queue().enqueueReadBuffer(ibuf, CL_TRUE, 0, n * 8, indices.data()) == CL_SUCCESS);
    }
    // Checked in parallel chunks (a single thread takes minutes at 2^32): each position's index in range
    // and after its predecessor in stable order; every index exactly once by the sum and the hash sum of
    // the indices, which a repeated index changes unless another is missing in exactly compensating ways.
    const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
    std::vector<std::size_t> bad_at(threads, 0);
    std::vector<std::uint64_t> sums(threads, 0), hashes(threads, 0), want_hashes(threads, 0);
    std::vector<std::thread> workers;
    for (unsigned t = 0; t < threads; ++t)
      workers.emplace_back([&, t] {
        const std::size_t first = n * t / threads, last = n * (t + 1) / threads;
        for (std::size_t j = first; j < last; ++j) want_hashes[t] += mix64(j);
        for (std::size_t i = first; i < last; ++i) {
          const std::uint64_t j = indices[i];
          sums[t] += j;
          hashes[t] += mix64(j);
          if (j >= n) {
            ++bad_at[t];
            continue;
          }
          if (i == 0 || indices[i - 1] >= n) continue;
          const std::uint64_t p = indices[i - 1];
          if (!(less(keys[p], keys[j]) || (!less(keys[j], keys[p]) && p < j))) ++bad_at[t];
        }
      });
    for (std::thread& w : workers) w.join();
    std::uint64_t index_sum = 0, index_hash = 0, want_hash = 0;  // all modulo 2^64
    std::size_t bad = 0;
    for (unsigned t = 0; t < threads; ++t) {
      index_sum += sums[t];
      index_hash += hashes[t];
      bad += bad_at[t];
      want_hash += want_hashes[t];
    }
    // 0 + 1 + ... + (n - 1), halving the even factor first: n (n - 1) itself overflows from 2^32 keys.
    const std::uint64_t want_sum = n % 2 ? std::uint64_t(n) * ((n - 1) / 2) : std::uint64_t(n / 2) * (n - 1);
    CHECK_MESSAGE(bad == 0, bad << " positions out of range, unsorted or not stable");
    CHECK(index_sum == want_sum);
    CHECK(index_hash == want_hash);
  }
}

}  // namespace
}  // namespace clsort_test
