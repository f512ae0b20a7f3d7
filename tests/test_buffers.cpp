// Device-buffer sorts: bytes outside the first n elements stay untouched, sub-buffers, the application's
// own context and queue (wait lists, user events, out-of-order queues), profiling, the free functions.
#include <doctest/doctest.h>

#include <chrono>
#include <numeric>
#include <thread>

#include "support/support.hpp"

namespace clsort_test {
namespace {

std::size_t base_align(const cl::Device& device) {
  return std::max<std::size_t>(device.getInfo<CL_DEVICE_MEM_BASE_ADDR_ALIGN>() / 8, 64);
}

std::vector<unsigned char> random_bytes(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<unsigned char> b(n);
  for (auto& x : b) x = static_cast<unsigned char>(rng());
  return b;
}

std::vector<unsigned char> read_all(const cl::CommandQueue& q, const cl::Buffer& b) {
  std::vector<unsigned char> out(b.getInfo<CL_MEM_SIZE>());
  REQUIRE(q.enqueueReadBuffer(b, CL_TRUE, 0, out.size(), out.data()) == CL_SUCCESS);
  return out;
}

// One array of T inside a device allocation with random canary bytes on both sides:
// [pre canary | n elements | post canary]. `view` is what the sort sees: a sub-buffer starting at the
// elements and running into the post canary, or (without a sub-buffer) the whole allocation.
template <class T>
struct Guarded {
  std::size_t pre = 0, post = 0;
  std::vector<unsigned char> initial;
  cl::Buffer parent, view;

  Guarded(const clsort::Sorter& s, const std::vector<T>& data, bool sub_buffer, std::uint64_t seed) {
    const std::size_t align = base_align(s.device());
    pre = sub_buffer ? align : 0;
    post = 3 * sizeof(T) + 5;  // not a multiple of the element size: the tail is partial
    initial = random_bytes(pre + data.size() * sizeof(T) + post, seed);
    if (!data.empty()) std::memcpy(initial.data() + pre, data.data(), data.size() * sizeof(T));
    parent =
        cl::Buffer(s.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, initial.size(), initial.data());
    if (sub_buffer) {
      cl_buffer_region region{pre, initial.size() - pre};
      cl_int status = CL_SUCCESS;
      view = parent.createSubBuffer(CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, &status);
      REQUIRE(status == CL_SUCCESS);
    } else {
      view = parent;
    }
  }

  // The elements now in the buffer, or an error naming a changed canary byte.
  std::string read(const cl::CommandQueue& q, std::size_t n, std::vector<T>& out) const {
    const std::vector<unsigned char> now = read_all(q, parent);
    const std::size_t end = pre + n * sizeof(T);
    for (std::size_t i = 0; i < now.size(); ++i)
      if ((i < pre || i >= end) && now[i] != initial[i])
        return "byte " + std::to_string(i) + " outside the " + std::to_string(n) + " elements changed (" +
               (i < pre ? "before" : "after") + " them)";
    out.resize(n);
    if (n) std::memcpy(out.data(), now.data() + pre, n * sizeof(T));
    return {};
  }
};

template <class K>
void guarded_sorts(Algorithm algorithm) {
  clsort::Sorter& sorter = shared_sorter();
  const KeyType type = clsort::key_type_of<K>::value;
  const std::size_t tile = plan_value(sorter, "bitonic.tile");
  std::vector<std::size_t> sizes{0, 1, 2, 3, 33, 65, 1000, tile - 1, tile + 1};
  if (matrix_max_n(algorithm) >= 65537) sizes.push_back(65537);
  FailureBudget budget;
  for (std::size_t n : sizes) {
    for (Order order : both_orders()) {
      for (bool sub_buffer : {true, false}) {
        const Dist dist = sub_buffer ? special_distribution<K>() : Dist::few_unique;
        const std::uint64_t seed = seed_for(type, int(dist), n, 3);
        const std::string what = describe(algorithm, type, order, n, dist, seed) +
                                 (sub_buffer ? " (sub-buffer)" : " (whole buffer)");
        const std::vector<K> keys = make_keys<K>(dist, n, seed);

        // Keys only.
        {
          Guarded<K> g(sorter, keys, sub_buffer, seed);
          std::vector<K> got;
          sorter.sort<K>(g.view, n, {order, algorithm}).wait();
          std::string error = g.read(sorter.queue(), n, got);
          if (error.empty()) error = compare_sorted(reference_sort(keys, order), got);
          CHECK_MESSAGE(error.empty(), what << " keys only: " << error);
          if (!budget.record(error.empty())) FAIL("too many failures");
        }
        // With values of both widths.
        auto by_key = [&](auto value_tag) {
          using V = decltype(value_tag);
          const std::vector<V> values = make_values<V>(n, seed);
          Guarded<K> gk(sorter, keys, sub_buffer, seed);
          Guarded<V> gv(sorter, values, sub_buffer, ~seed);
          sorter.sort_by_key<K, V>(gk.view, gv.view, n, {order, algorithm}).wait();
          std::vector<K> got_keys;
          std::vector<V> got_values;
          std::string error = gk.read(sorter.queue(), n, got_keys);
          if (error.empty()) error = gv.read(sorter.queue(), n, got_values);
          if (error.empty()) {
            const auto perm = reference_argsort(keys, order);
            std::vector<K> ek(n);
            std::vector<V> ev(n);
            for (std::size_t i = 0; i < n; ++i) ek[i] = keys[perm[i]], ev[i] = values[perm[i]];
            error = compare_sorted(ek, got_keys, &ev, &got_values);
          }
          CHECK_MESSAGE(error.empty(), what << " with " << sizeof(V) << "-byte values: " << error);
          if (!budget.record(error.empty())) FAIL("too many failures");
        };
        by_key(std::uint32_t{});
        by_key(std::uint64_t{});
      }
    }
  }
}

TEST_CASE("buffers keep bytes outside n") {
  for (Algorithm algorithm : all_algorithms()) {
    CAPTURE(std::string(clsort::to_string(algorithm)));
    guarded_sorts<std::uint32_t>(algorithm);
    guarded_sorts<float>(algorithm);
    guarded_sorts<std::int64_t>(algorithm);
    guarded_sorts<double>(algorithm);
  }
}

TEST_CASE("host arrays keep elements past n") {
  clsort::Sorter& sorter = shared_sorter();
  for (Algorithm algorithm : all_algorithms()) {
    for (std::size_t n : {std::size_t(1), std::size_t(7), std::size_t(300), std::size_t(5000)}) {
      CAPTURE(std::string(clsort::to_string(algorithm)));
      CAPTURE(n);
      const std::uint64_t seed = seed_for(KeyType::f64, 0, n, 4);
      std::vector<double> all = make_keys<double>(Dist::float_specials, n + 9, seed);
      const std::vector<double> initial = all;
      sorter.sort(all.data(), n, {Order::descending, algorithm});
      CHECK(std::memcmp(all.data() + n, initial.data() + n, 9 * sizeof(double)) == 0);
      const std::vector<double> head(all.begin(), all.begin() + std::ptrdiff_t(n));
      const std::vector<double> input(initial.begin(), initial.begin() + std::ptrdiff_t(n));
      CHECK_MESSAGE(compare_sorted(reference_sort(input, Order::descending), head).empty(), "seed " << seed);
    }
  }
}

// Keys and values in disjoint sub-buffers of one allocation are legal (only overlap is an error).
TEST_CASE("keys and values in adjacent sub-buffers of one buffer") {
  clsort::Sorter& sorter = shared_sorter();
  const std::size_t align = base_align(sorter.device());
  const std::size_t n = 3 * align / 4;  // keys fill [0, 3 align) exactly; values start right after
  const std::uint64_t seed = seed_for(KeyType::u32, 0, n, 5);
  std::vector<std::uint32_t> keys = make_keys<std::uint32_t>(Dist::few_unique, n, seed);
  std::vector<std::uint32_t> values = make_values<std::uint32_t>(n, seed);
  std::vector<std::uint32_t> both = keys;
  both.insert(both.end(), values.begin(), values.end());
  cl::Buffer parent(sorter.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, both.size() * 4, both.data());
  cl_buffer_region kr{0, n * 4}, vr{n * 4, n * 4};
  cl::Buffer kb = parent.createSubBuffer(CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &kr);
  cl::Buffer vb = parent.createSubBuffer(CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &vr);
  for (Algorithm algorithm : all_algorithms()) {
    CAPTURE(std::string(clsort::to_string(algorithm)));
    REQUIRE(sorter.queue().enqueueWriteBuffer(parent, CL_TRUE, 0, both.size() * 4, both.data()) ==
            CL_SUCCESS);
    sorter.sort_by_key<std::uint32_t, std::uint32_t>(kb, vb, n, {Order::ascending, algorithm}).wait();
    std::vector<std::uint32_t> got(2 * n);
    REQUIRE(sorter.queue().enqueueReadBuffer(parent, CL_TRUE, 0, got.size() * 4, got.data()) == CL_SUCCESS);
    const auto perm = reference_argsort(keys, Order::ascending);
    for (std::size_t i = 0; i < n; ++i) {
      CHECK(got[i] == keys[perm[i]]);
      CHECK(got[n + i] == values[perm[i]]);
    }
  }
}

TEST_CASE("sorter on the application's context and queue") {
  const cl::Device device = shared_sorter().device();
  cl::Context context(device);
  cl::CommandQueue queue(context, device);
  clsort::Sorter sorter(queue);
  CHECK(sorter.queue()() == queue());
  CHECK(sorter.context()() == context());
  CHECK(sorter.device()() == device());

  const std::size_t n = 70000;
  const std::uint64_t seed = seed_for(KeyType::f32, 0, n, 6);
  const std::vector<float> keys = make_keys<float>(Dist::float_specials, n, seed);
  const std::vector<std::uint32_t> values = make_values<std::uint32_t>(n, seed);
  cl::Buffer kb(context, CL_MEM_READ_WRITE, n * 4), vb(context, CL_MEM_READ_WRITE, n * 4);
  for (Algorithm algorithm : all_algorithms()) {
    CAPTURE(std::string(clsort::to_string(algorithm)));
    // Non-blocking uploads whose events the sort waits for, a read that waits for the sort's event.
    std::vector<cl::Event> uploads(2);
    REQUIRE(queue.enqueueWriteBuffer(kb, CL_FALSE, 0, n * 4, keys.data(), nullptr, &uploads[0]) ==
            CL_SUCCESS);
    REQUIRE(queue.enqueueWriteBuffer(vb, CL_FALSE, 0, n * 4, values.data(), nullptr, &uploads[1]) ==
            CL_SUCCESS);
    const std::size_t sort_n = std::min<std::size_t>(n, matrix_max_n(algorithm));
    cl::Event done =
        sorter.sort_by_key<float, std::uint32_t>(kb, vb, sort_n, {Order::descending, algorithm}, uploads);
    std::vector<cl::Event> after{done};
    std::vector<float> got_keys(sort_n);
    std::vector<std::uint32_t> got_values(sort_n);
    REQUIRE(queue.enqueueReadBuffer(kb, CL_FALSE, 0, sort_n * 4, got_keys.data(), &after) == CL_SUCCESS);
    REQUIRE(queue.enqueueReadBuffer(vb, CL_TRUE, 0, sort_n * 4, got_values.data(), &after) == CL_SUCCESS);
    const std::vector<float> input(keys.begin(), keys.begin() + std::ptrdiff_t(sort_n));
    const auto perm = reference_argsort(input, Order::descending);
    std::vector<float> ek(sort_n);
    std::vector<std::uint32_t> ev(sort_n);
    for (std::size_t i = 0; i < sort_n; ++i) ek[i] = input[perm[i]], ev[i] = values[perm[i]];
    const std::string error = compare_sorted(ek, got_keys, &ev, &got_values);
    CHECK_MESSAGE(error.empty(), "seed " << hex(seed) << ": " << error);
  }
  // Host-data calls on the application's queue.
  std::vector<std::int64_t> host = make_keys<std::int64_t>(Dist::extremes, 5000, seed);
  const auto expected = reference_sort(host, Order::ascending);
  sorter.sort(host);
  CHECK(host == expected);
}

// The sort must not start before its wait list completes, enqueueing it must not block, and its event
// must complete only after the whole sort.
void check_waits_for_user_event(clsort::Sorter& sorter, Algorithm algorithm) {
  CAPTURE(std::string(clsort::to_string(algorithm)));
  cl::CommandQueue side(sorter.context(), sorter.device());
  const std::size_t n = 5000;
  const std::uint64_t seed = seed_for(KeyType::u32, 0, n, 7);
  const std::vector<std::uint32_t> keys = make_keys<std::uint32_t>(Dist::random, n, seed);
  std::vector<std::uint32_t> changed = keys;
  changed[0] = 0xFFFFFFFFu;
  changed[n - 1] = 0;
  cl::Buffer kb(sorter.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * 4,
                const_cast<std::uint32_t*>(keys.data()));
  cl::UserEvent gate(sorter.context());
  cl::Event done = sorter.sort<std::uint32_t>(kb, n, {Order::ascending, algorithm}, {gate});
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // time enough to finish if it ran early
  CHECK(done.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>() != CL_COMPLETE);
  // Changed while the sort is held (through another queue): the sort must see the new data.
  REQUIRE(side.enqueueWriteBuffer(kb, CL_TRUE, 0, n * 4, changed.data()) == CL_SUCCESS);
  gate.setStatus(CL_COMPLETE);
  REQUIRE(done.wait() == CL_SUCCESS);
  // Read through the other queue, which nothing orders after the sort but `done`: the returned event
  // must stand for every command of the sort (intermediate commands have no events of their own).
  std::vector<std::uint32_t> got(n);
  REQUIRE(side.enqueueReadBuffer(kb, CL_TRUE, 0, n * 4, got.data()) == CL_SUCCESS);
  CHECK(got == reference_sort(changed, Order::ascending));
}

TEST_CASE("sort waits for a user event") {
  for (Algorithm algorithm : all_algorithms()) check_waits_for_user_event(shared_sorter(), algorithm);
  // Onesweep's self-test runs inside the process's first Onesweep call of a program (here, nothing in
  // this test binary sorts u32 keys with Onesweep before): it must not wait for the gated queue (it once
  // did, and the call never returned).
  clsort::Sorter onesweep(shared_sorter().device());
  onesweep.tune("radix.cpu=0,radix.onesweep=1");
  check_waits_for_user_event(onesweep, Algorithm::radix);
}

// On an out-of-order queue successive sorts by one Sorter must still follow each other (they share
// scratch buffers, and the second sort of one buffer must see the first's result).
TEST_CASE("sorts on an out-of-order queue") {
  const cl::Device device = shared_sorter().device();
  if (!(device.getInfo<CL_DEVICE_QUEUE_PROPERTIES>() & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)) {
    MESSAGE("device has no out-of-order queues: skipped");
    return;
  }
  cl::Context context(device);
  cl::CommandQueue queue(context, device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
  clsort::Sorter sorter(queue);
  for (Algorithm algorithm : all_algorithms()) {
    CAPTURE(std::string(clsort::to_string(algorithm)));
    const std::size_t n = std::min<std::size_t>(40000, matrix_max_n(algorithm));
    const std::uint64_t seed = seed_for(KeyType::f64, 0, n, 8);
    const std::vector<double> a = make_keys<double>(Dist::float_specials, n, seed);
    const std::vector<double> b = make_keys<double>(Dist::random, n, seed + 1);
    cl::Buffer ab(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * 8, const_cast<double*>(a.data()));
    cl::Buffer bb(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * 8, const_cast<double*>(b.data()));
    // a: ascending then descending, never waited for in between; b sorted in between; a host sort too.
    sorter.sort<double>(ab, n, {Order::ascending, algorithm});
    cl::Event eb = sorter.sort<double>(bb, n, {Order::ascending, algorithm});
    std::vector<double> host = a;
    sorter.sort(host, {Order::ascending, algorithm});
    cl::Event ea = sorter.sort<double>(ab, n, {Order::descending, algorithm});
    std::vector<double> got_a(n), got_b(n);
    std::vector<cl::Event> wa{ea}, wb{eb};
    REQUIRE(queue.enqueueReadBuffer(ab, CL_TRUE, 0, n * 8, got_a.data(), &wa) == CL_SUCCESS);
    REQUIRE(queue.enqueueReadBuffer(bb, CL_TRUE, 0, n * 8, got_b.data(), &wb) == CL_SUCCESS);
    std::string error = compare_sorted(reference_sort(a, Order::descending), got_a);
    CHECK_MESSAGE(error.empty(), "a, seed " << hex(seed) << ": " << error);
    error = compare_sorted(reference_sort(b, Order::ascending), got_b);
    CHECK_MESSAGE(error.empty(), "b, seed " << hex(seed + 1) << ": " << error);
    error = compare_sorted(reference_sort(a, Order::ascending), host);
    CHECK_MESSAGE(error.empty(), "host, seed " << hex(seed) << ": " << error);
  }
}

// Scratch that earlier calls left goes back when a call needs new buffers past keep_scratch, oldest
// first, and never a buffer of the call under way: every result stays right with nothing kept, also for
// the Onesweep state words a sort leaves in its scratch for the next one (forgotten with the buffer).
TEST_CASE("scratch: kept within keep_scratch, released on request") {
  const cl::CommandQueue& queue = shared_sorter().queue();
  const std::size_t n = 1 << 18;
  const std::vector<std::uint32_t> keys =
      make_keys<std::uint32_t>(Dist::random, n, seed_for(KeyType::u32, 0, n, 9));
  const std::vector<std::uint32_t> sorted = reference_sort(keys, Order::ascending);
  std::vector<std::uint32_t> perm(n);
  std::iota(perm.begin(), perm.end(), 0u);
  std::stable_sort(perm.begin(), perm.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return keys[a] < keys[b]; });
  cl::Buffer kbuf(queue.getInfo<CL_QUEUE_CONTEXT>(), CL_MEM_READ_WRITE, n * 4);
  cl::Buffer ibuf(queue.getInfo<CL_QUEUE_CONTEXT>(), CL_MEM_READ_WRITE, n * 4);
  // A top_k, then an argsort of device keys (slots of its own): the bytes held after each.
  auto two_calls = [&](clsort::Sorter& s) {
    const clsort::TopK<std::uint32_t> top = s.top_k(keys, 1000);
    CHECK(std::equal(top.indices.begin(), top.indices.end(), perm.begin()));
    const std::size_t after_top_k = s.scratch_bytes();
    CHECK(after_top_k > 0);
    REQUIRE(queue.enqueueWriteBuffer(kbuf, CL_TRUE, 0, n * 4, keys.data()) == CL_SUCCESS);
    s.argsort<std::uint32_t>(kbuf, n, ibuf, {Order::ascending, Algorithm::radix}).wait();
    std::vector<std::uint32_t> got(n);
    REQUIRE(queue.enqueueReadBuffer(ibuf, CL_TRUE, 0, n * 4, got.data()) == CL_SUCCESS);
    CHECK(got == perm);
    return std::make_pair(after_top_k, s.scratch_bytes());
  };
  clsort::Sorter keeping(queue);
  const auto [first_kept, both_kept] = two_calls(keeping);
  CHECK(both_kept > first_kept);  // the default keeps top_k's buffers
  clsort::Sorter trimming(queue);
  trimming.keep_scratch(0);
  const auto [first_only, after_trim] = two_calls(trimming);
  CHECK(first_only == first_kept);  // a call's own buffers stay, whatever the limit
  CHECK(after_trim < both_kept);    // top_k's went when the argsort needed its own
  // Nothing kept between calls, every kind of call in turn, twice (the second time on fresh buffers).
  for (int round = 0; round < 2; ++round) {
    CAPTURE(round);
    std::vector<std::uint32_t> host = keys;
    trimming.sort(host);
    CHECK(host == sorted);
    const clsort::TopK<std::uint32_t> top = trimming.top_k(keys, 100);
    CHECK(std::equal(top.keys.begin(), top.keys.end(), sorted.begin()));
    CHECK(std::equal(top.indices.begin(), top.indices.end(), perm.begin()));
    CHECK(trimming.select(keys, n / 2) == sorted[n / 2]);
    std::vector<std::uint32_t> segmented = keys;
    const std::vector<std::uint32_t> offsets{0, 1000, std::uint32_t(n / 2), std::uint32_t(n)};
    trimming.sort_segments(segmented, offsets);
    for (std::size_t i = 0; i + 1 < offsets.size(); ++i) {
      std::vector<std::uint32_t> part(keys.begin() + offsets[i], keys.begin() + offsets[i + 1]);
      std::sort(part.begin(), part.end());
      CHECK(std::equal(part.begin(), part.end(), segmented.begin() + offsets[i]));
    }
    REQUIRE(queue.enqueueWriteBuffer(kbuf, CL_TRUE, 0, n * 4, keys.data()) == CL_SUCCESS);
    trimming.sort<std::uint32_t>(kbuf, n, {Order::ascending, Algorithm::radix}).wait();
    std::vector<std::uint32_t> got(n);
    REQUIRE(queue.enqueueReadBuffer(kbuf, CL_TRUE, 0, n * 4, got.data()) == CL_SUCCESS);
    CHECK(got == sorted);
  }
  trimming.release_scratch();
  CHECK(trimming.scratch_bytes() == 0);
  std::vector<std::uint32_t> host = keys;
  trimming.sort(host);
  CHECK(host == sorted);
}

}  // namespace
}  // namespace clsort_test
