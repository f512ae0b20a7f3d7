// Host data through the pinned staging pipeline (host.chunk, on by default for GPUs only): forced on
// whatever the device with tiny chunks, so that arrays span many chunks, the last one partial, or fit in
// less than one; checked bit for bit against the stable reference like the single transfers.
#include <doctest/doctest.h>

#include "support/env_guard.hpp"
#include "support/guarded.hpp"
#include "support/support.hpp"

namespace clsort_test {
namespace {

// A Sorter on the shared context (its programs are built already) with the staging forced on.
std::unique_ptr<clsort::Sorter> staged_sorter(const std::string& tuning) {
  const clsort::Sorter& base = shared_sorter();
  auto s = std::make_unique<clsort::Sorter>(cl::CommandQueue(base.context(), base.device()));
  s->tune(tuning);
  return s;
}

template <class K>
std::string sort_keys(clsort::Sorter& s, Dist dist, std::size_t n, Order order, Algorithm a = {}) {
  const std::uint64_t seed = seed_for(clsort::key_type_of<K>::value, int(dist), n, 41);
  const std::vector<K> keys = make_keys<K>(dist, n, seed);
  std::vector<K> got = keys;
  s.sort(got, {order, a});
  const std::string error = compare_sorted(reference_sort(keys, order), got);
  return error.empty() ? "" : describe(a, clsort::key_type_of<K>::value, order, n, dist, seed) + ": " + error;
}

template <class K, class V>
std::string sort_pairs(clsort::Sorter& s, Dist dist, std::size_t n, Order order, Algorithm a = {}) {
  const std::uint64_t seed = seed_for(clsort::key_type_of<K>::value, int(dist), n, 42);
  const std::vector<K> keys = make_keys<K>(dist, n, seed);
  const std::vector<V> values = make_values<V>(n, seed);
  const std::vector<std::uint32_t> perm = reference_argsort(keys, order);
  std::vector<K> want_keys(n);
  std::vector<V> want_values(n);
  for (std::size_t i = 0; i < n; ++i) want_keys[i] = keys[perm[i]], want_values[i] = values[perm[i]];
  std::vector<K> got_keys = keys;
  std::vector<V> got_values = values;
  s.sort_by_key(got_keys, got_values, {order, a});
  const std::string error = compare_sorted(want_keys, got_keys, &want_values, &got_values);
  return error.empty() ? ""
                       : describe(a, clsort::key_type_of<K>::value, order, n, dist, seed) + " by key (" +
                             std::to_string(sizeof(V)) + "-byte values): " + error;
}

TEST_CASE("host staging: the device class picks the default") {
  const clsort::Sorter& s = shared_sorter();
  const cl_device_type type = s.device().getInfo<CL_DEVICE_TYPE>();
  const bool unified = s.device().getInfo<CL_DEVICE_HOST_UNIFIED_MEMORY>();
  if (type & CL_DEVICE_TYPE_GPU && !unified)
    CHECK(plan_value(s, "host.chunk") > 0);
  else
    CHECK(plan_value(s, "host.chunk") == 0);  // a CPU device's buffers are host memory already
  // CLSORT_TUNING turns it on anywhere, as the tests below do with tune().
  EnvGuard env("CLSORT_TUNING", "host.chunk=4096,host.min=0,host.threads=3");
  clsort::Sorter tuned(s.device());
  CHECK(plan_value(tuned, "host.chunk") == 4096);
  CHECK(plan_value(tuned, "host.min") == 0);
  CHECK(plan_value(tuned, "host.threads") == 3);
}

TEST_CASE("host staging: 4 KiB chunks, keys and pairs, every width, both orders") {
  auto s = staged_sorter("host.chunk=4096,host.min=0,host.threads=2");
  FailureBudget budget;
  auto check = [&](const std::string& error) {
    CHECK_MESSAGE(error.empty(), error);
    if (!budget.record(error.empty())) FAIL("too many failures");
  };
  // 100003: many chunks, the last partial; 1024 u32 keys: exactly one chunk; fewer: less than one.
  for (std::size_t n : {std::size_t(100003), std::size_t(1025), std::size_t(1024), std::size_t(1000),
                        std::size_t(3), std::size_t(1)})
    for (Order order : both_orders()) {
      CAPTURE(n);
      check(sort_keys<std::uint32_t>(*s, Dist::random, n, order));
      check(sort_keys<float>(*s, Dist::float_specials, n, order));
      check(sort_keys<std::uint64_t>(*s, Dist::random, n, order));
      check(sort_keys<std::int64_t>(*s, Dist::extremes, n, order));
      check(sort_pairs<std::uint32_t, std::uint32_t>(*s, Dist::few_unique, n, order));
      check(sort_pairs<double, std::uint64_t>(*s, Dist::float_specials, n, order));
      check(sort_pairs<std::uint64_t, Tagged>(*s, Dist::few_unique, n, order));
      check(sort_pairs<std::int32_t, std::uint64_t>(*s, Dist::sawtooth, n,
                                                    order));  // 4-byte keys, 8-byte values
    }
  // Chunk sizes that are no multiple of the key or value width: chunks split elements.
  s->tune("host.chunk=1000");
  for (Order order : both_orders()) {
    check(sort_keys<std::uint64_t>(*s, Dist::random, 20011, order));
    check(sort_pairs<float, std::uint64_t>(*s, Dist::float_specials, 20011, order));
  }
  // Another algorithm, and argsort (a host sort of a copy and of indices).
  s->tune("host.chunk=4096");
  check(sort_pairs<std::uint32_t, std::uint32_t>(*s, Dist::few_unique, 5001, Order::descending,
                                                 Algorithm::bitonic));
  const std::vector<double> keys = make_keys<double>(Dist::float_specials, 30007, 43);
  check(compare_argsort(keys, reference_argsort(keys, Order::ascending), s->argsort(keys)));
}

TEST_CASE("host staging: chunks copied by several threads") {
  // Chunks of 512 KiB and more are split among the copy threads (in parts of at least 64 KiB).
  auto s = staged_sorter("host.chunk=1048576,host.min=0,host.threads=4");
  const std::size_t n = (std::size_t(1) << 20) + 12345;
  CHECK(sort_pairs<std::uint32_t, std::uint32_t>(*s, Dist::random, n, Order::ascending) == "");
  CHECK(sort_keys<double>(*s, Dist::float_specials, n, Order::descending) == "");
  // A new thread count replaces the pool; one thread copies alone.
  s->tune("host.threads=1");
  CHECK(sort_pairs<std::int64_t, std::uint64_t>(*s, Dist::few_unique, n / 2, Order::descending) == "");
  // Copies with cached stores (host.stream=0) instead of streaming ones (the default, which the 1000-byte
  // chunks above run misaligned).
  s->tune("host.threads=3,host.stream=0");
  CHECK(sort_pairs<float, std::uint32_t>(*s, Dist::float_specials, n, Order::ascending) == "");
}

TEST_CASE("host staging: a profiling queue sees every chunk's transfer, in order") {
  // 60000 u32 keys in chunks of at most 16 KiB: more chunks than the staging's 4 slots, so slots are
  // reused while transfers run.
  const clsort::Sorter& base = shared_sorter();
  clsort::Sorter s(cl::CommandQueue(base.context(), base.device(), CL_QUEUE_PROFILING_ENABLE));
  s.tune("host.chunk=16384,host.min=0,host.threads=3");
  CHECK(sort_keys<std::uint32_t>(s, Dist::random, 60000, Order::ascending) == "");
  const std::vector<clsort::KernelTime> profile = s.last_profile();
  std::size_t uploads = 0, kernels = 0, downloads = 0;
  std::string order;  // u, k, d per entry, consecutive repeats merged
  double last_start = 0;
  for (const clsort::KernelTime& k : profile) {
    const char tag = k.name == "upload" ? 'u' : k.name == "download" ? 'd' : 'k';
    (tag == 'u' ? uploads : tag == 'd' ? downloads : kernels)++;
    if (order.empty() || order.back() != tag) order += tag;
    CHECK(k.ms >= 0);
    CHECK(k.start_ms >= last_start);  // an in-order queue runs them as enqueued
    last_start = k.start_ms;
  }
  CHECK(order == "ukd");
  CHECK(uploads > 4);
  CHECK(downloads == uploads);
  CHECK(kernels > 0);
}

TEST_CASE("host staging: below host.min, and off") {
  // host.min above the data: the single transfers; host.chunk=0: off whatever the size.
  for (const char* tuning : {"host.chunk=4096,host.min=100000000", "host.chunk=0,host.min=0"}) {
    CAPTURE(tuning);
    auto s = staged_sorter(tuning);
    CHECK(sort_pairs<float, std::uint32_t>(*s, Dist::float_specials, 50001, Order::descending) == "");
  }
  // On, off and on again on one Sorter.
  auto s = staged_sorter("host.chunk=4096,host.min=0");
  CHECK(sort_keys<std::uint32_t>(*s, Dist::random, 40000, Order::ascending) == "");
  s->tune("host.chunk=0");
  CHECK(sort_keys<std::uint32_t>(*s, Dist::random, 40000, Order::ascending) == "");
  s->tune("host.chunk=65536");  // larger: the staging grows
  CHECK(sort_keys<std::uint32_t>(*s, Dist::random, 400000, Order::descending) == "");
}

// sort_copy: the input uploaded as it is, the result downloaded into other memory, guard elements on both
// sides of the output untouched; through the single transfers and through the staging's chunks.
template <class K>
std::string sort_copy_keys(clsort::Sorter& s, Dist dist, std::size_t n, Order order) {
  const std::uint64_t seed = seed_for(clsort::key_type_of<K>::value, int(dist), n, 44);
  const std::vector<K> keys = make_keys<K>(dist, n, seed);
  const std::vector<K> input = keys;
  const K guard = make_keys<K>(Dist::random, 1, seed + 1)[0];
  std::vector<K> out(n + 2, guard);
  s.sort_copy(input.data(), out.data() + 1, n, {order});
  const std::string what = describe({}, clsort::key_type_of<K>::value, order, n, dist, seed) + ": ";
  if (!same_bits(out.front(), guard) || !same_bits(out.back(), guard)) return what + "a guard was written";
  for (std::size_t i = 0; i < n; ++i)
    if (!same_bits(input[i], keys[i])) return what + "the input changed";
  const std::string error = compare_sorted(reference_sort(keys, order), {out.begin() + 1, out.end() - 1});
  return error.empty() ? "" : what + error;
}

TEST_CASE("host staging: sort_copy into other memory, the input unchanged") {
  for (const char* tuning : {"host.chunk=0", "host.chunk=4096,host.min=0,host.threads=2"}) {
    CAPTURE(tuning);
    auto s = staged_sorter(tuning);
    for (std::size_t n : {std::size_t(1), std::size_t(2), std::size_t(1000), std::size_t(100003)})
      for (Order order : both_orders()) {
        CHECK(sort_copy_keys<std::uint32_t>(*s, Dist::random, n, order) == "");
        CHECK(sort_copy_keys<double>(*s, Dist::float_specials, n, order) == "");
        CHECK(sort_copy_keys<std::int16_t>(*s, Dist::extremes, n, order) == "");
      }
  }
  // In place through sort_copy; overlapping arrays and null pointers are refused, changing nothing.
  clsort::Sorter& s = shared_sorter();
  std::vector<std::uint32_t> keys{5, 3, 9, 1, 7, 2};
  s.sort_copy(keys.data(), keys.data(), keys.size());
  CHECK(keys == std::vector<std::uint32_t>{1, 2, 3, 5, 7, 9});
  const std::vector<std::uint32_t> before{9, 8, 7, 6, 5, 4};
  keys = before;
  auto where = [](auto f) {
    const auto e = thrown(f);
    return e ? e->where() : std::string("nothing thrown");
  };
  CHECK(where([&] { s.sort_copy(keys.data(), keys.data() + 1, 5); }) == "keys_out");
  CHECK(where([&] { s.sort_copy_host(clsort::KeyType::u32, nullptr, keys.data(), 3, {}); }) == "keys_in");
  CHECK(where([&] { s.sort_copy<std::uint32_t>(keys.data(), nullptr, 3); }) == "keys_out");
  CHECK(keys == before);
  s.sort_copy<std::uint32_t>(nullptr, nullptr, 0);  // nothing to sort: no pointer is read
}

// A CPU device sorts a radix sort's host data in the caller's arrays (sort_host_zero_copy): no upload or
// download in the profile, the keys, pairs and sort_copy right; an algorithm that writes its buffer before
// it is done (bitonic) still copies.
TEST_CASE("host data on a CPU device: the radix CPU shape sorts in the caller's arrays") {
  const clsort::Sorter& base = shared_sorter();
  if (!(base.device().getInfo<CL_DEVICE_TYPE>() & CL_DEVICE_TYPE_CPU)) {
    MESSAGE("not a CPU device");
    return;
  }
  clsort::Sorter s(cl::CommandQueue(base.context(), base.device(), CL_QUEUE_PROFILING_ENABLE));
  auto transfers = [&] {
    int t = 0;
    for (const auto& k : s.last_profile()) t += k.name == "upload" || k.name == "download";
    return t;
  };
  for (std::size_t n : {std::size_t(2), std::size_t(3001), std::size_t(200003)}) {
    CAPTURE(n);
    CHECK(sort_keys<std::uint64_t>(s, Dist::random, n, Order::descending, Algorithm::radix) == "");
    CHECK(transfers() == 0);
    CHECK(sort_pairs<float, std::uint32_t>(s, Dist::float_specials, n, Order::ascending, Algorithm::radix) ==
          "");
    CHECK(transfers() == 0);
    CHECK(sort_copy_keys<std::uint32_t>(s, Dist::random, n, Order::ascending) == "");
    CHECK(sort_keys<std::uint32_t>(s, Dist::few_unique, n, Order::ascending, Algorithm::bitonic) == "");
    CHECK(transfers() == 2);
  }
  // Keys off their type's alignment (a view at an odd offset) go through a copy, and sort right.
  const std::size_t n = 5003;
  const std::vector<std::uint64_t> keys = make_keys<std::uint64_t>(Dist::random, n, 46);
  std::vector<unsigned char> bytes(n * 8 + 4);
  std::memcpy(bytes.data() + 4, keys.data(), n * 8);
  s.sort_host(clsort::KeyType::u64, bytes.data() + 4, n, nullptr, 0, {Order::ascending, Algorithm::radix});
  CHECK(transfers() == 2);
  std::vector<std::uint64_t> got(n);
  std::memcpy(got.data(), bytes.data() + 4, n * 8);
  CHECK(compare_sorted(reference_sort(keys, Order::ascending), got) == "");
}

TEST_CASE("host staging: an out-of-order queue") {
  const clsort::Sorter& base = shared_sorter();
  cl_command_queue_properties props = 0;
  REQUIRE(base.device().getInfo(CL_DEVICE_QUEUE_PROPERTIES, &props) == CL_SUCCESS);
  if (!(props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)) {
    MESSAGE("the device has no out-of-order queues");
    return;
  }
  clsort::Sorter s(cl::CommandQueue(base.context(), base.device(), CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE));
  s.tune("host.chunk=4096,host.min=0,host.threads=2");
  for (int round = 0; round < 3; ++round) {  // each sort reuses the staging and scratch of the last
    CHECK(sort_pairs<std::uint64_t, std::uint32_t>(s, Dist::random, 60013, Order::ascending) == "");
    CHECK(sort_keys<float>(s, Dist::float_specials, 70001, Order::descending) == "");
  }
}

}  // namespace
}  // namespace clsort_test
