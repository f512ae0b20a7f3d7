// top_k and select: every key type, both orders, sizes and k around the kernels' tiles, every
// distribution, against std::stable_sort of (key, index) bit for bit, indices included; device buffers
// with canaries; the C API; bad arguments leave every buffer and array unchanged.
#include <doctest/doctest.h>

#include <clsort/clsort.h>

#if defined(__unix__)
#include <sys/mman.h>
#endif

#include <cstring>

#include "support/guarded.hpp"
#include "support/key_type_cases.hpp"
#include "support/support.hpp"

namespace clsort_test {
namespace {

// The sizes: tiny, odd, primes, around 256 (a digit's range and the GPU work-group), the GPU tile (2048)
// and the CPU tile (1024), 2^16 +- 1, and one large size.
const std::vector<std::size_t>& top_k_sizes() {
  static const std::vector<std::size_t> sizes{1,    2,    3,    7,    31,    255,   256,    257,
                                              1021, 1024, 2049, 4099, 65535, 65537, 1000003};
  return sizes;
}
constexpr std::size_t kLarge = 100000;  // from here: random and the type's special distribution only

std::vector<std::size_t> ks_for(std::size_t n) {
  std::vector<std::size_t> ks;
  for (std::size_t k : {std::size_t(1), std::size_t(2), std::size_t(7), std::size_t(255), std::size_t(256),
                        std::size_t(1024), std::size_t(2049), n / 2, n - 1, n})
    if (k >= 1 && k <= n && (n < kLarge || k <= 2049)) ks.push_back(k);
  std::sort(ks.begin(), ks.end());
  ks.erase(std::unique(ks.begin(), ks.end()), ks.end());
  return ks;
}

// Empty when (keys, indices) are the first k of the stable reference order of `input`.
template <class K>
std::string check_top_k(const std::vector<K>& input, const std::vector<std::uint32_t>& order_ref,
                        std::size_t k, const std::vector<K>& keys,
                        const std::vector<std::uint32_t>& indices) {
  std::ostringstream out;
  if (keys.size() != k || indices.size() != k) {
    out << "sizes " << keys.size() << ", " << indices.size() << ", expected " << k;
    return out.str();
  }
  for (std::size_t i = 0; i < k; ++i) {
    if (indices[i] != order_ref[i]) {
      out << "position " << i << ": index " << indices[i] << ", expected " << order_ref[i] << " (key "
          << hex(input[order_ref[i]]) << ")";
      return out.str();
    }
    if (!same_bits(keys[i], input[order_ref[i]])) {
      out << "position " << i << ": key " << hex(keys[i]) << ", expected " << hex(input[order_ref[i]]);
      return out.str();
    }
  }
  return {};
}

template <class K>
void top_k_matrix(clsort::Sorter& sorter, std::size_t max_n = SIZE_MAX) {
  const KeyType type = clsort::key_type_of<K>::value;
  FailureBudget budget;
  int runs = 0;
  for (std::size_t n : top_k_sizes()) {
    if (n > max_n) continue;
    for (Dist dist : distributions<K>()) {
      if (n >= kLarge && !full_matrix() && dist != Dist::random && dist != special_distribution<K>())
        continue;
      const std::uint64_t seed = seed_for(type, int(dist), n, 0x70b);
      const std::vector<K> input = make_keys<K>(dist, n, seed);
      for (Order order : both_orders()) {
        const std::vector<std::uint32_t> ref = reference_argsort(input, order);
        for (std::size_t k : ks_for(n)) {
          std::ostringstream what;
          what << "top_k " << clsort::to_string(type) << " " << clsort::to_string(order) << " n=" << n
               << " k=" << k << " dist=" << to_string(dist) << " seed=" << hex(seed);
          std::string error;
          try {
            const clsort::TopK<K> got = sorter.top_k(input, k, {order});
            error = check_top_k(input, ref, k, got.keys, got.indices);
          } catch (const clsort::Error& e) {
            error = std::string("threw: ") + e.what();
          }
          ++runs;
          CHECK_MESSAGE(error.empty(), what.str() << ": " << error);
          if (!budget.record(error.empty())) FAIL("too many failures, stopping at " << what.str());
        }
        // select at a few positions, one of them random
        std::mt19937_64 rng(seed);
        for (std::size_t k : {std::size_t(0), n / 2, n - 1, std::size_t(rng() % n)}) {
          std::string error;
          try {
            const K got = sorter.select(input, k, {order});
            if (!same_bits(got, input[ref[k]]))
              error = "got " + hex(got) + ", expected " + hex(input[ref[k]]);
          } catch (const clsort::Error& e) {
            error = std::string("threw: ") + e.what();
          }
          ++runs;
          CHECK_MESSAGE(error.empty(), "select " << clsort::to_string(type) << " " << clsort::to_string(order)
                                                 << " n=" << n << " k=" << k << " dist=" << to_string(dist)
                                                 << ": " << error);
          if (!budget.record(error.empty())) FAIL("too many failures");
        }
      }
    }
  }
  CHECK(runs > 0);
}

template <class K>
void top_k_matrix_shared() {
  top_k_matrix<K>(shared_sorter());
}
CLSORT_CASES_PER_KEY_TYPE("top_k", top_k_matrix_shared)

// The shapes the device's row does not pick: the GPU shape (local atomics, barriers) on CPU devices and
// the CPU shape on GPUs, and small tiles, so that a few thousand keys span many groups and tiles.
TEST_CASE("top_k under other select shapes") {
  clsort::Sorter& base = shared_sorter();
  const bool cpu_row = plan_value(base, "select.wg") == 1;
  for (const char* tuning :
       {cpu_row ? "select.wg=256 select.items=8 select.groups=8" : "select.wg=1 select.items=64",
        "select.wg=16 select.items=3 select.groups=2", "select.sample=0",
        // The host keys through the pinned staging in 4 KiB chunks (the GPU rows' path, here on any
        // device), and on GPUs in one write.
        "host.chunk=4096,host.min=0,host.threads=2", "host.chunk=0"}) {
    CAPTURE(std::string(tuning));
    clsort::Sorter s(cl::CommandQueue(base.context(), base.device()));
    s.tune(tuning);
    top_k_matrix<std::uint32_t>(s, 70000);
    top_k_matrix<float>(s, 5000);
    top_k_matrix<std::int64_t>(s, 5000);
    top_k_matrix<double>(s, 5000);
    top_k_matrix<clsort::half>(s, 5000);
    top_k_matrix<std::uint8_t>(s, 5000);
  }
}

// The sample that guesses level 0's bucket (kernels/radix_select.cl) reads every (n / 4096)-th key. Here one
// in 16 of those is tiny, every other sampled key huge and every key the sample skips in between, so the
// guess keeps the tiny keys alone: fewer than k. The second histogram pass must count every key. Descending,
// the sample sees mostly huge keys and takes no guess.
template <class K>
void misleading_sample_case(clsort::Sorter& s) {
  using U = Bits<K>;
  const U top = U(U(1) << (8 * sizeof(K) - 8));
  const std::size_t n = std::size_t(1) << 20, stride = n / 4096;
  std::vector<K> input(n);
  std::mt19937_64 rng(seed_for(clsort::key_type_of<K>::value, 77, n));
  for (std::size_t i = 0; i < n; ++i) {
    const U low = U(rng() % top);
    const U high = i % stride ? U(0x80) : i % (16 * stride) ? U(0xFF) : U(0);
    input[i] = from_bits<K>(U(high * top + low));
  }
  for (Order order : both_orders()) {
    const std::vector<std::uint32_t> ref = reference_argsort(input, order);
    for (std::size_t k : {std::size_t(300), std::size_t(1024)}) {
      CAPTURE(clsort::to_string(order));
      CAPTURE(k);
      const clsort::TopK<K> got = s.top_k(input, k, {order});
      const std::string error = check_top_k(input, ref, k, got.keys, got.indices);
      CHECK_MESSAGE(error.empty(), error);
      CHECK(same_bits(s.select(input, k, {order}), input[ref[k]]));
    }
  }
}

#if defined(__unix__)
// top_k, select and sort_copy only read the caller's keys, and on CPU devices they read them where they
// lie through read-write buffers (host/src/top_k.cpp says why): keys in read-only memory, 16 bytes into a
// page as a malloc block's, must still work (a runtime writing them back would fault), on every device.
TEST_CASE("host keys in read-only memory: top_k, select and sort_copy only read them") {
  clsort::Sorter& s = shared_sorter();
  const std::size_t n = 70001, bytes = n * 4 + 4096;
  void* map = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(map != MAP_FAILED);
  auto* keys = reinterpret_cast<std::uint32_t*>(static_cast<unsigned char*>(map) + 16);
  const std::vector<std::uint32_t> input = make_keys<std::uint32_t>(Dist::random, n, 0x0e0);
  std::memcpy(keys, input.data(), n * 4);
  REQUIRE(mprotect(map, bytes, PROT_READ) == 0);
  const std::vector<std::uint32_t> ref = reference_argsort(input, Order::ascending);
  const clsort::TopK<std::uint32_t> got = s.top_k(keys, n, 1000);
  CHECK(check_top_k(input, ref, 1000, got.keys, got.indices) == "");
  std::uint32_t selected = 0;
  s.select_host(KeyType::u32, keys, n, 4321, &selected, {});
  CHECK(selected == input[ref[4321]]);
  std::vector<std::uint32_t> sorted(n);
  s.sort_copy(keys, sorted.data(), n);
  CHECK(compare_sorted(reference_sort(input, Order::ascending), sorted) == "");
  munmap(map, bytes);
}
#endif

TEST_CASE("top_k and select where the sample misleads") {
  misleading_sample_case<std::uint32_t>(shared_sorter());
  misleading_sample_case<std::uint64_t>(shared_sorter());
  misleading_sample_case<std::uint16_t>(shared_sorter());
}

TEST_CASE("top_k ties: lower input index first, NaNs of every payload tie") {
  clsort::Sorter& s = shared_sorter();
  const float nan_a = from_bits<float>(0x7fc00001u), nan_b = from_bits<float>(0xffc00002u);
  const std::vector<float> keys{2.0f, nan_a, 1.0f, -0.0f, nan_b, 1.0f, 0.0f, 1.0f, nan_a};
  auto r = s.top_k(keys, 5);
  CHECK(r.indices == std::vector<std::uint32_t>{3, 6, 2, 5, 7});
  r = s.top_k(keys, 6, {Order::descending});  // exact reverse order, ties still by lower index
  CHECK(r.indices == std::vector<std::uint32_t>{1, 4, 8, 0, 2, 5});
  CHECK(same_bits(r.keys[1], nan_b));
  CHECK(same_bits(s.select(keys, 7), nan_b));
  CHECK(s.top_k(keys, 0).keys.empty());
  CHECK(s.top_k(std::vector<float>{}, 0).indices.empty());
}

template <class T>
cl::Buffer device_buffer(const clsort::Sorter& s, std::vector<T> data) {
  return cl::Buffer(s.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, data.size() * sizeof(T),
                    data.data());
}
template <class T>
std::vector<T> read_back(const clsort::Sorter& s, const cl::Buffer& b, std::size_t n) {
  std::vector<T> out(n);
  REQUIRE(s.queue().enqueueReadBuffer(b, CL_TRUE, 0, n * sizeof(T), out.data()) == CL_SUCCESS);
  return out;
}

template <class K>
void buffers_case() {
  clsort::Sorter& s = shared_sorter();
  const KeyType type = clsort::key_type_of<K>::value;
  for (std::size_t n : {std::size_t(1), std::size_t(300), std::size_t(5003)}) {
    const std::vector<K> input = make_keys<K>(special_distribution<K>(), n, seed_for(type, 99, n));
    for (Order order : both_orders()) {
      const std::vector<std::uint32_t> ref = reference_argsort(input, order);
      for (std::size_t k : {std::size_t(1), n / 3 + 1, n}) {
        CAPTURE(n);
        CAPTURE(k);
        const std::size_t canary = 5;
        const std::vector<K> key_canary(k + canary, from_bits<K>(Bits<K>(0x5a5a5a5a)));
        const std::vector<std::uint32_t> index_canary(k + canary, 0xdeadbeefu);
        cl::Buffer keys = device_buffer(s, input), kout = device_buffer(s, key_canary),
                   iout = device_buffer(s, index_canary);
        s.top_k<K>(keys, n, k, kout, iout, {order}).wait();
        std::vector<K> got_keys = read_back<K>(s, kout, k + canary);
        std::vector<std::uint32_t> got_indices = read_back<std::uint32_t>(s, iout, k + canary);
        for (std::size_t i = k; i < k + canary; ++i) {
          CHECK(same_bits(got_keys[i], key_canary[i]));
          CHECK(got_indices[i] == 0xdeadbeefu);
        }
        got_keys.resize(k);
        got_indices.resize(k);
        const std::string error = check_top_k(input, ref, k, got_keys, got_indices);
        CHECK_MESSAGE(error.empty(), error);
        const std::vector<K> after = read_back<K>(s, keys, n);
        CHECK(std::memcmp(after.data(), input.data(), n * sizeof(K)) == 0);  // the keys are unchanged
        cl::Buffer one = device_buffer(s, std::vector<K>(2, K(7)));
        s.select<K>(keys, n, k - 1, one, {order}).wait();
        const std::vector<K> sel = read_back<K>(s, one, 2);
        CHECK(same_bits(sel[0], input[ref[k - 1]]));
        CHECK(same_bits(sel[1], K(7)));
      }
    }
  }
}

TEST_CASE("top_k and select on device buffers keep bytes past k") {
  buffers_case<std::uint32_t>();
  buffers_case<float>();
  buffers_case<std::int64_t>();
  buffers_case<double>();
  buffers_case<std::uint8_t>();
  buffers_case<std::int8_t>();
  buffers_case<std::int16_t>();
  buffers_case<clsort::half>();
  buffers_case<clsort::bfloat16>();
}

TEST_CASE("top_k on an out-of-order queue, after a user event") {
  clsort::Sorter& base = shared_sorter();
  cl::CommandQueue q(base.context(), base.device(), CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
  clsort::Sorter s(q);
  const std::vector<std::uint64_t> input = make_keys<std::uint64_t>(Dist::few_unique, 7001, 5);
  const std::vector<std::uint32_t> ref = reference_argsort(input, Order::descending);
  cl::Buffer keys = device_buffer(s, std::vector<std::uint64_t>(input.size()));
  cl::Buffer kout = device_buffer(s, std::vector<std::uint64_t>(100)),
             iout = device_buffer(s, std::vector<std::uint32_t>(100));
  cl::UserEvent gate(s.context());
  cl::Event written;
  REQUIRE(q.enqueueWriteBuffer(keys, CL_FALSE, 0, input.size() * 8, input.data(), nullptr, &written) ==
          CL_SUCCESS);
  std::vector<cl::Event> wait{gate, written};
  cl::Event done = s.top_k<std::uint64_t>(keys, input.size(), 100, kout, iout, {Order::descending}, wait);
  gate.setStatus(CL_COMPLETE);
  REQUIRE(done.wait() == CL_SUCCESS);
  std::vector<std::uint64_t> got_keys(100);
  std::vector<std::uint32_t> got_indices(100);
  REQUIRE(q.enqueueReadBuffer(kout, CL_TRUE, 0, 800, got_keys.data()) == CL_SUCCESS);
  REQUIRE(q.enqueueReadBuffer(iout, CL_TRUE, 0, 400, got_indices.data()) == CL_SUCCESS);
  CHECK(check_top_k(input, ref, 100, got_keys, got_indices).empty());
}

void expect_argument_error(const std::optional<clsort::Error>& e, const std::string& where) {
  REQUIRE(e);
  CHECK(e->kind() == clsort::Error::Kind::invalid_argument);
  CHECK(e->where() == where);
  CHECK(std::string(e->what()).find(where) != std::string::npos);
}

// 8- and 16-bit keys through the C API, host and device forms: the key type given at run time.
TEST_CASE("top_k and select of 8- and 16-bit keys through the C API") {
  clsort_sorter cs = nullptr;
  REQUIRE(clsort_sorter_create(shared_sorter().queue()(), &cs) == CLSORT_SUCCESS);
  const std::vector<clsort::half> input = make_keys<clsort::half>(Dist::float_specials, 2001, 12);
  const std::vector<std::uint32_t> ref = reference_argsort(input, Order::descending);
  std::vector<clsort::half> keys_out(30);
  std::vector<std::uint32_t> indices_out(30);
  REQUIRE(clsort_top_k_host(cs, input.data(), input.size(), 30, CLSORT_KEY_F16, CLSORT_DESCENDING,
                            keys_out.data(), indices_out.data()) == CLSORT_SUCCESS);
  CHECK(check_top_k(input, ref, 30, keys_out, indices_out).empty());
  clsort::half median;
  REQUIRE(clsort_select_host(cs, input.data(), input.size(), 1000, CLSORT_KEY_F16, CLSORT_DESCENDING,
                             &median) == CLSORT_SUCCESS);
  CHECK(same_bits(median, input[ref[1000]]));
  const std::vector<std::int8_t> bytes = make_keys<std::int8_t>(Dist::random, 3001, 13);
  const std::vector<std::uint32_t> ref8 = reference_argsort(bytes, Order::ascending);
  cl::Buffer keys = device_buffer(shared_sorter(), bytes),
             kout = device_buffer(shared_sorter(), std::vector<std::int8_t>(500)),
             iout = device_buffer(shared_sorter(), std::vector<std::uint32_t>(500)),
             one = device_buffer(shared_sorter(), std::vector<std::int8_t>(1));
  REQUIRE(clsort_top_k(cs, keys(), bytes.size(), 500, CLSORT_KEY_I8, 0, kout(), iout(), 0, nullptr,
                       nullptr) == CLSORT_SUCCESS);
  REQUIRE(clsort_select(cs, keys(), bytes.size(), 2999, CLSORT_KEY_I8, 0, one(), 0, nullptr, nullptr) ==
          CLSORT_SUCCESS);
  CHECK(check_top_k(bytes, ref8, 500, read_back<std::int8_t>(shared_sorter(), kout, 500),
                    read_back<std::uint32_t>(shared_sorter(), iout, 500))
            .empty());
  CHECK(read_back<std::int8_t>(shared_sorter(), one, 1)[0] == bytes[ref8[2999]]);
  clsort_sorter_destroy(cs);
}

TEST_CASE("top_k and select: bad arguments throw naming them and change nothing") {
  clsort::Sorter& s = shared_sorter();
  Filled keys(s.context(), 100 * 4, 1), kout(s.context(), 10 * 4, 2), iout(s.context(), 10 * 4, 3),
      one(s.context(), 4, 4);
  auto all_unchanged = [&] {
    CHECK(keys.unchanged(s.queue()));
    CHECK(kout.unchanged(s.queue()));
    CHECK(iout.unchanged(s.queue()));
    CHECK(one.unchanged(s.queue()));
  };
  expect_argument_error(thrown([&] { s.top_k<float>(keys.buffer, 101, 5, kout.buffer, iout.buffer); }),
                        "keys");
  expect_argument_error(thrown([&] { s.top_k<float>(keys.buffer, 100, 101, kout.buffer, iout.buffer); }),
                        "k");
  expect_argument_error(thrown([&] { s.top_k<float>(keys.buffer, 100, 11, kout.buffer, iout.buffer); }),
                        "keys_out");
  expect_argument_error(thrown([&] { s.top_k<double>(keys.buffer, 50, 6, kout.buffer, iout.buffer); }),
                        "keys_out");  // 40 bytes hold 5 doubles
  Filled short_idx(s.context(), 9 * 4, 5);
  expect_argument_error(thrown([&] { s.top_k<float>(keys.buffer, 100, 10, kout.buffer, short_idx.buffer); }),
                        "indices_out");
  expect_argument_error(thrown([&] { s.top_k<float>(keys.buffer, 100, 10, keys.buffer, iout.buffer); }),
                        "keys_out");
  expect_argument_error(thrown([&] { s.top_k<float>(keys.buffer, 100, 10, kout.buffer, kout.buffer); }),
                        "indices_out");
  expect_argument_error(thrown([&] { s.top_k<float>(cl::Buffer(), 0, 0, kout.buffer, iout.buffer); }),
                        "keys");
  expect_argument_error(thrown([&] { s.top_k<float>(keys.buffer, 10, 1, cl::Buffer(), iout.buffer); }),
                        "keys_out");
  // overlapping sub-buffers of one allocation
  const std::size_t align =
      std::max<std::size_t>(s.device().getInfo<CL_DEVICE_MEM_BASE_ADDR_ALIGN>() / 8, 64);
  Filled big(s.context(), 2 * align + 64 * 4, 6);
  cl_buffer_region r1{0, align + 32 * 4}, r2{align, 64 * 4};
  cl::Buffer a = big.buffer.createSubBuffer(CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &r1);
  cl::Buffer b = big.buffer.createSubBuffer(CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &r2);
  expect_argument_error(thrown([&] { s.top_k<std::uint32_t>(a, align / 4 + 32, 8, b, iout.buffer); }),
                        "keys_out");
  CHECK(big.unchanged(s.queue()));
  // another context
  cl::Context other(s.device());
  cl::Buffer foreign(other, CL_MEM_READ_WRITE, 400);
  expect_argument_error(thrown([&] { s.top_k<float>(keys.buffer, 100, 10, kout.buffer, foreign); }),
                        "indices_out");
  // select
  expect_argument_error(thrown([&] { s.select<float>(keys.buffer, 100, 100, one.buffer); }), "k");
  expect_argument_error(thrown([&] { s.select<float>(keys.buffer, 0, 0, one.buffer); }), "k");
  expect_argument_error(thrown([&] { s.select<double>(keys.buffer, 10, 0, one.buffer); }), "key_out");
  expect_argument_error(thrown([&] { s.select<float>(keys.buffer, 100, 3, keys.buffer); }), "key_out");
  all_unchanged();

  // host data
  const std::vector<std::int32_t> host{5, -3, 9, 0};
  const std::vector<std::int32_t> copy = host;
  expect_argument_error(thrown([&] { s.top_k(host, 5); }), "k");
  expect_argument_error(thrown([&] { s.select(host, 4); }), "k");
  expect_argument_error(thrown([&] { s.select(std::vector<double>{}, 0); }), "k");
  std::int32_t out_key = 77;
  std::uint32_t out_index = 88;
  expect_argument_error(
      thrown([&] { s.top_k_host(KeyType::i32, host.data(), 4, 1, nullptr, &out_index, {}); }), "keys_out");
  expect_argument_error(thrown([&] { s.top_k_host(KeyType::i32, nullptr, 4, 1, &out_key, &out_index, {}); }),
                        "keys");
  CHECK(host == copy);
  CHECK(out_key == 77);
  CHECK(out_index == 88);
}

TEST_CASE("top_k and select through the C API") {
  clsort::Sorter& base = shared_sorter();
  clsort_sorter cs = nullptr;
  REQUIRE(clsort_sorter_create(base.queue()(), &cs) == CLSORT_SUCCESS);
  const std::vector<double> input = make_keys<double>(Dist::float_specials, 3001, 11);
  const std::vector<std::uint32_t> ref = reference_argsort(input, Order::descending);
  // host arrays
  std::vector<double> keys_out(40, 1.5);
  std::vector<std::uint32_t> indices_out(40, 7);
  REQUIRE(clsort_top_k_host(cs, input.data(), input.size(), 40, CLSORT_KEY_F64, CLSORT_DESCENDING,
                            keys_out.data(), indices_out.data()) == CLSORT_SUCCESS);
  CHECK(check_top_k(input, ref, 40, keys_out, indices_out).empty());
  double median = 0;
  REQUIRE(clsort_select_host(nullptr, input.data(), input.size(), 1500, CLSORT_KEY_F64, CLSORT_DESCENDING,
                             &median) == CLSORT_SUCCESS);
  CHECK(same_bits(median, input[ref[1500]]));
  // device buffers
  cl::Buffer keys = device_buffer(base, input), kout = device_buffer(base, std::vector<double>(40)),
             iout = device_buffer(base, std::vector<std::uint32_t>(40)),
             one = device_buffer(base, std::vector<double>(1));
  cl_event done = nullptr;
  REQUIRE(clsort_top_k(cs, keys(), input.size(), 40, CLSORT_KEY_F64, CLSORT_DESCENDING, kout(), iout(), 0,
                       nullptr, &done) == CLSORT_SUCCESS);
  REQUIRE(done);
  CHECK(clWaitForEvents(1, &done) == CL_SUCCESS);
  clReleaseEvent(done);
  CHECK(
      check_top_k(input, ref, 40, read_back<double>(base, kout, 40), read_back<std::uint32_t>(base, iout, 40))
          .empty());
  REQUIRE(clsort_select(cs, keys(), input.size(), 0, CLSORT_KEY_F64, CLSORT_DESCENDING, one(), 0, nullptr,
                        nullptr) == CLSORT_SUCCESS);
  CHECK(same_bits(read_back<double>(base, one, 1)[0], input[ref[0]]));
  // errors: status, message naming the argument, outputs unchanged
  std::fill(keys_out.begin(), keys_out.end(), 1.5);
  CHECK(clsort_top_k_host(cs, input.data(), 10, 11, CLSORT_KEY_F64, 0, keys_out.data(), indices_out.data()) ==
        CLSORT_ERROR_INVALID_ARGUMENT);
  CHECK(std::string(clsort_last_error_message()).find("'k'") != std::string::npos);
  CHECK(keys_out == std::vector<double>(40, 1.5));
  CHECK(clsort_top_k(cs, keys(), input.size(), 41, CLSORT_KEY_F64, 0, kout(), iout(), 0, nullptr, &done) ==
        CLSORT_ERROR_INVALID_ARGUMENT);
  CHECK(done == nullptr);
  CHECK(clsort_select(cs, keys(), 3001, 0, CLSORT_KEY_F64, 0, nullptr, 0, nullptr, nullptr) ==
        CLSORT_ERROR_INVALID_ARGUMENT);
  CHECK(clsort_select_host(cs, input.data(), 3001, 3001, CLSORT_KEY_F64, 0, &median) ==
        CLSORT_ERROR_INVALID_ARGUMENT);
  clsort_sorter_destroy(cs);
}

}  // namespace
}  // namespace clsort_test
