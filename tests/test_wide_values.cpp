// Values of any width (1, 2, 3, 7 bytes: widened to ride the passes; 12, 16, 64 bytes: moved once through
// the permutation, or 16 bytes riding Onesweep's passes where radix.values16 is set) and argsort with
// 32- and 64-bit indices of host and device keys, against a stable reference, bit for bit. The value
// width is a run-time argument (Sorter::sort_host, sort_buffer), so the widths share one instantiation
// per key type; one typed 12-byte struct goes through the templates for every key type.
#include <doctest/doctest.h>

#include <clsort/clsort.h>

#include <array>
#include <cstdlib>
#include <cstring>

#include "support/guarded.hpp"
#include "support/support.hpp"
#include "support/wide_values.hpp"

namespace clsort_test {
namespace {

// Widened to 4 bytes (1, 2, 3) or 8 (7) to ride the passes; moved through the permutation (12, 16, 64).
const std::size_t kWidths[] = {1, 2, 3, 7, 12, 16, 64};

// Sizes around the work-group and tile sizes, small enough for every algorithm on a CPU device.
std::vector<std::size_t> wide_sizes(const clsort::Sorter& sorter, Algorithm algorithm) {
  std::vector<std::size_t> sizes{0, 1, 2, 3, 5, 17, 97, 255, 256, 257, 1000, 4097};
  for (std::size_t n : matrix_sizes(sorter, matrix_max_n(algorithm)))
    if (n <= 5000 && std::find(sizes.begin(), sizes.end(), n) == sizes.end()) sizes.push_back(n);
  if (matrix_max_n(algorithm) >= 65537) sizes.push_back(65537);
  if (full_matrix() && matrix_max_n(algorithm) >= (std::size_t(1) << 20) + 1) sizes.push_back((1 << 20) + 1);
  return sizes;
}

template <class K>
void wide_matrix(Algorithm algorithm, clsort::Sorter& s = shared_sorter(),
                 const std::vector<std::size_t>& widths = {std::begin(kWidths), std::end(kWidths)}) {
  const KeyType type = clsort::key_type_of<K>::value;
  FailureBudget budget;
  const Dist special = special_distribution<K>();
  for (std::size_t n : wide_sizes(s, algorithm)) {
    for (std::size_t width : widths) {
      for (Dist dist : {Dist::random, Dist::few_unique, Dist::all_equal, Dist::reversed, special}) {
        if (n > 5000 && dist != Dist::few_unique && dist != special && !full_matrix()) continue;
        for (Order order : both_orders()) {
          const std::uint64_t seed = seed_for(type, int(dist), n, 100 + width);
          const std::vector<K> keys = make_keys<K>(dist, n, seed);
          const std::vector<unsigned char> values = wide_values(n, width, seed);
          // Host data and device buffers alternate by size, both reaching every width and order.
          const bool buffer = (n + width) % 2 == 1;
          std::vector<K> got_keys = keys;
          std::vector<unsigned char> got_values = values;
          std::string error;
          try {
            if (buffer)
              error = sort_wide_buffer(s, {order, algorithm}, got_keys, got_values, width);
            else
              s.sort_host(type, got_keys.data(), n, got_values.data(), width, {order, algorithm});
          } catch (const clsort::Error& e) {
            error = std::string("threw: ") + e.what();
          }
          if (error.empty()) error = compare_wide(keys, values, width, order, got_keys, got_values);
          CHECK_MESSAGE(error.empty(), describe(algorithm, type, order, n, dist, seed)
                                           << " values of " << width << " bytes"
                                           << (buffer ? " (buffers)" : " (host)") << ": " << error);
          if (!budget.record(error.empty())) FAIL("too many failures");
        }
      }
    }
  }
}

#define CLSORT_WIDE_CASE(algorithm, K, name)      \
  TEST_CASE("wide values " #algorithm " " name) { \
    wide_matrix<K>(algorithm_named(#algorithm));  \
  }
#define CLSORT_WIDE_ALGORITHM(algorithm)           \
  CLSORT_WIDE_CASE(algorithm, std::uint8_t, "u8")  \
  CLSORT_WIDE_CASE(algorithm, clsort::half, "f16") \
  CLSORT_WIDE_CASE(algorithm, float, "f32")        \
  CLSORT_WIDE_CASE(algorithm, double, "f64")

CLSORT_WIDE_ALGORITHM(radix)

// 16-byte values riding Onesweep's passes beside their keys (radix.values16, set for GPUs), through the
// multisplit ranking of work-item groups in local memory, which every device runs.
clsort::Sorter& riding_sorter() {
  static clsort::Sorter* s = [] {
    auto* p = new clsort::Sorter(shared_sorter().queue());
    p->tune("radix.cpu=0,radix.match=1,radix.subgroups=3,radix.onesweep=1,radix.wg=256,radix.values16=1");
    return p;
  }();
  return *s;
}
TEST_CASE("wide values ride: 16-byte values on Onesweep's passes") {
  clsort::Sorter& s = riding_sorter();
  const clsort::Options radix{Order::ascending, Algorithm::radix};
  for (KeyType type : {KeyType::f32, KeyType::u64}) {
    CHECK(s.plan(type, 100000, 16, radix).shape.find("ride the passes") != std::string::npos);
    CHECK(s.plan(type, 100000, 12, radix).shape.find("32-bit indices") != std::string::npos);
  }
  clsort::Sorter off(shared_sorter().queue());
  off.tune("radix.cpu=0,radix.match=1,radix.subgroups=3,radix.onesweep=1,radix.wg=256,radix.values16=0");
  CHECK(off.plan(KeyType::f32, 100000, 16, radix).shape.find("32-bit indices") != std::string::npos);
  wide_matrix<float>(Algorithm::radix, s, {16});
  wide_matrix<double>(Algorithm::radix, s, {16});
  wide_matrix<std::uint8_t>(Algorithm::radix, s, {16});
}

CLSORT_WIDE_ALGORITHM(bitonic)
CLSORT_WIDE_ALGORITHM(selection)
CLSORT_WIDE_ALGORITHM(automatic)
CLSORT_WIDE_ALGORITHM(odd_even)
CLSORT_WIDE_ALGORITHM(merge)

// A 12-byte struct through the typed templates, for every key type, host and buffer forms.
struct Twelve {
  std::uint32_t index;
  float f;
  std::uint16_t a;
  std::uint8_t b, c;
};
static_assert(sizeof(Twelve) == 12);

template <class K>
void typed_twelve() {
  clsort::Sorter& s = shared_sorter();
  const KeyType type = clsort::key_type_of<K>::value;
  for (std::size_t n :
       {std::size_t(0), std::size_t(1), std::size_t(3), std::size_t(257), std::size_t(4099)}) {
    for (Order order : both_orders()) {
      const std::uint64_t seed = seed_for(type, 7, n, 12);
      const std::vector<K> keys = make_keys<K>(Dist::few_unique, n, seed);
      const std::vector<unsigned char> bytes = wide_values(n, sizeof(Twelve), seed);
      std::vector<Twelve> values(n);
      if (n) std::memcpy(values.data(), bytes.data(), bytes.size());
      std::vector<K> got_keys = keys;
      std::vector<Twelve> got = values;
      s.sort_by_key(got_keys, got, {order});
      std::vector<unsigned char> got_bytes(bytes.size());
      if (n) std::memcpy(got_bytes.data(), got.data(), got_bytes.size());
      std::string error = compare_wide(keys, bytes, sizeof(Twelve), order, got_keys, got_bytes);
      CHECK_MESSAGE(error.empty(), to_string(type) << " n=" << n << " host: " << error);
      if (n == 0) continue;
      cl::Buffer kbuf(s.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * sizeof(K),
                      const_cast<K*>(keys.data()));
      cl::Buffer vbuf(s.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * sizeof(Twelve),
                      values.data());
      s.sort_by_key<K, Twelve>(kbuf, vbuf, n, {order}).wait();
      REQUIRE(s.queue().enqueueReadBuffer(kbuf, CL_TRUE, 0, n * sizeof(K), got_keys.data()) == CL_SUCCESS);
      REQUIRE(s.queue().enqueueReadBuffer(vbuf, CL_TRUE, 0, bytes.size(), got_bytes.data()) == CL_SUCCESS);
      error = compare_wide(keys, bytes, sizeof(Twelve), order, got_keys, got_bytes);
      CHECK_MESSAGE(error.empty(), to_string(type) << " n=" << n << " buffers: " << error);
    }
  }
}

TEST_CASE("wide values typed struct every key type") {
  typed_twelve<std::uint32_t>();
  typed_twelve<std::int32_t>();
  typed_twelve<float>();
  typed_twelve<std::uint64_t>();
  typed_twelve<std::int64_t>();
  typed_twelve<double>();
  typed_twelve<std::uint8_t>();
  typed_twelve<std::int8_t>();
  typed_twelve<std::uint16_t>();
  typed_twelve<std::int16_t>();
  typed_twelve<clsort::half>();
  typed_twelve<clsort::bfloat16>();
}

// ---- argsort with 32- and 64-bit indices, host and device keys.

template <class K>
void argsort_widths(Algorithm algorithm) {
  clsort::Sorter& s = shared_sorter();
  const KeyType type = clsort::key_type_of<K>::value;
  for (std::size_t n : wide_sizes(s, algorithm)) {
    for (Dist dist : {Dist::random, Dist::few_unique, special_distribution<K>()}) {
      if (n > 5000 && dist == Dist::random && !full_matrix()) continue;
      for (Order order : both_orders()) {
        const std::uint64_t seed = seed_for(type, int(dist), n, 64);
        const std::vector<K> keys = make_keys<K>(dist, n, seed);
        const std::vector<std::uint32_t> expected = reference_argsort(keys, order);
        std::vector<bool> nan_at(n);
        for (std::size_t i = 0; i < n; ++i) nan_at[i] = is_nan_key(keys[expected[i]]);
        const std::string what = describe(algorithm, type, order, n, dist, seed);
        const clsort::Options options{order, algorithm};
        CHECK_MESSAGE(compare_indices(expected, s.argsort64(keys, options), nan_at).empty(),
                      what << " argsort64");
        if (n == 0) continue;
        // Device keys: unchanged, indices written to the first n elements only.
        Filled guard64(s.context(), n * 8 + 64, 3), guard32(s.context(), n * 4 + 64, 4);
        cl::Buffer kbuf(s.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * sizeof(K),
                        const_cast<K*>(keys.data()));
        s.argsort64<K>(kbuf, n, guard64.buffer, options);
        s.argsort<K>(kbuf, n, guard32.buffer, options).wait();
        std::vector<std::uint64_t> got64(n);
        std::vector<std::uint32_t> got32(n);
        std::vector<unsigned char> all64(guard64.bytes.size()), all32(guard32.bytes.size());
        REQUIRE(s.queue().enqueueReadBuffer(guard64.buffer, CL_TRUE, 0, all64.size(), all64.data()) ==
                CL_SUCCESS);
        REQUIRE(s.queue().enqueueReadBuffer(guard32.buffer, CL_TRUE, 0, all32.size(), all32.data()) ==
                CL_SUCCESS);
        std::memcpy(got64.data(), all64.data(), n * 8);
        std::memcpy(got32.data(), all32.data(), n * 4);
        CHECK_MESSAGE(compare_indices(expected, got64, nan_at).empty(), what << " argsort64 buffer");
        CHECK_MESSAGE(compare_indices(expected, got32, nan_at).empty(), what << " argsort buffer");
        CHECK_MESSAGE(std::equal(all64.begin() + n * 8, all64.end(), guard64.bytes.begin() + n * 8),
                      what << " argsort64 wrote past n");
        CHECK_MESSAGE(std::equal(all32.begin() + n * 4, all32.end(), guard32.bytes.begin() + n * 4),
                      what << " argsort wrote past n");
        std::vector<K> after(n);
        REQUIRE(s.queue().enqueueReadBuffer(kbuf, CL_TRUE, 0, n * sizeof(K), after.data()) == CL_SUCCESS);
        CHECK_MESSAGE(std::memcmp(after.data(), keys.data(), n * sizeof(K)) == 0, what << " keys changed");
      }
    }
  }
}

TEST_CASE("argsort64 radix") {
  argsort_widths<float>(Algorithm::radix);
  argsort_widths<std::uint64_t>(Algorithm::radix);
  argsort_widths<std::int16_t>(Algorithm::radix);
  argsort_widths<std::uint8_t>(Algorithm::radix);
}
TEST_CASE("argsort64 other algorithms") {
  for (Algorithm a : {Algorithm::bitonic, Algorithm::merge, Algorithm::automatic}) {
    argsort_widths<double>(a);
    argsort_widths<std::uint32_t>(a);
  }
}

TEST_CASE("argsort64 free function and C API") {
  const std::vector<float> keys{2.f, 1.f, 2.f, -0.f, 1.f, 0.f, 2.f, -0.f, 0.f, 1.f};
  const std::vector<std::uint64_t> ascending{3, 7, 5, 8, 1, 4, 9, 0, 2, 6};
  CHECK(clsort::argsort64(keys) == ascending);
  clsort::Sorter& s = shared_sorter();
  clsort_sorter cs = nullptr;
  REQUIRE(clsort_sorter_create(s.queue()(), &cs) == CLSORT_SUCCESS);
  std::vector<std::uint64_t> got(keys.size());
  CHECK(clsort_argsort64_host(cs, keys.data(), keys.size(), CLSORT_KEY_F32, got.data(), 0) == CLSORT_SUCCESS);
  CHECK(got == ascending);
  cl::Buffer kbuf(s.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, keys.size() * 4,
                  const_cast<float*>(keys.data()));
  cl::Buffer ibuf(s.context(), CL_MEM_READ_WRITE, keys.size() * 8);
  cl_event done = nullptr;
  CHECK(clsort_argsort(cs, kbuf(), keys.size(), CLSORT_KEY_F32, ibuf(), 8, 0, 0, nullptr, &done) ==
        CLSORT_SUCCESS);
  REQUIRE(done);
  clWaitForEvents(1, &done);
  clReleaseEvent(done);
  std::fill(got.begin(), got.end(), 0);
  REQUIRE(s.queue().enqueueReadBuffer(ibuf, CL_TRUE, 0, got.size() * 8, got.data()) == CL_SUCCESS);
  CHECK(got == ascending);
  // 12-byte values through the C API, host and device.
  std::vector<float> k2 = keys;
  std::vector<Twelve> v(keys.size());
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = Twelve{std::uint32_t(i), float(i), 7, 8, 9};
  CHECK(clsort_sort_by_key_host(cs, k2.data(), v.data(), k2.size(), CLSORT_KEY_F32, sizeof(Twelve), 0) ==
        CLSORT_SUCCESS);
  for (std::size_t i = 0; i < v.size(); ++i) CHECK(v[i].index == ascending[i]);
  CHECK(clsort_argsort(cs, kbuf(), keys.size(), CLSORT_KEY_F32, ibuf(), 2, 0, 0, nullptr, nullptr) ==
        CLSORT_ERROR_INVALID_ARGUMENT);
  CHECK(std::string(clsort_last_error_message()).find("index_size") != std::string::npos);
  CHECK(clsort_sort_by_key_host(cs, k2.data(), v.data(), k2.size(), CLSORT_KEY_F32, 0, 0) ==
        CLSORT_ERROR_INVALID_ARGUMENT);
  CHECK(std::string(clsort_last_error_message()).find("value_size") != std::string::npos);
  clsort_sorter_destroy(cs);
}

void expect_argument_error(const std::optional<clsort::Error>& e, const std::string& where) {
  REQUIRE(e.has_value());
  CHECK(e->kind() == clsort::Error::Kind::invalid_argument);
  CHECK(e->where() == where);
}

TEST_CASE("wide values bad input") {
  clsort::Sorter& s = shared_sorter();
  const std::size_t n = 100;
  Filled keys(s.context(), n * 4, 12), values(s.context(), n * 12, 13), small(s.context(), n * 4, 14);
  // A value width of 0 is refused, naming it; nothing changes.
  expect_argument_error(
      thrown([&] { s.sort_buffer(KeyType::u32, keys.buffer, &values.buffer, 0, n, {}, {}).wait(); }),
      "value_bytes");
  std::vector<std::uint32_t> hk(n, 5);
  std::vector<unsigned char> hv(n * 3, 9);
  expect_argument_error(thrown([&] { s.sort_host(KeyType::u32, hk.data(), n, hv.data(), 0, {}); }),
                        "value_bytes");
  // Too few values of 12 bytes in a buffer.
  expect_argument_error(
      thrown([&] { s.sort_buffer(KeyType::u32, keys.buffer, &small.buffer, 12, n, {}, {}).wait(); }),
      "values");
  // argsort: indices too small, overlapping the keys, an index width other than 4 or 8.
  expect_argument_error(thrown([&] { s.argsort64<std::uint32_t>(keys.buffer, n, small.buffer).wait(); }),
                        "indices");
  expect_argument_error(thrown([&] { s.argsort<std::uint32_t>(keys.buffer, n, keys.buffer).wait(); }),
                        "indices");
  expect_argument_error(
      thrown([&] { s.argsort_buffer(KeyType::u32, keys.buffer, n, values.buffer, 2, {}, {}).wait(); }),
      "index_bytes");
  expect_argument_error(thrown([&] { s.argsort<std::uint32_t>(keys.buffer, n + 1, values.buffer).wait(); }),
                        "keys");
  CHECK(keys.unchanged(s.queue()));
  CHECK(values.unchanged(s.queue()));
  CHECK(small.unchanged(s.queue()));
  CHECK(hk == std::vector<std::uint32_t>(n, 5));
  CHECK(hv == std::vector<unsigned char>(n * 3, 9));
  // What a plan says of wide values (16-byte ones may ride the passes: "wide values ride").
  const clsort::SortPlan p = s.plan(KeyType::u32, 1 << 20, 12, {Order::ascending, Algorithm::radix});
  CHECK(p.shape.find("permutation") != std::string::npos);
}

}  // namespace
}  // namespace clsort_test
