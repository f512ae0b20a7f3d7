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

// n values of `width` bytes: random bytes, the first (up to four) holding the input index, so that a
// mispairing or an unstable pair shows.
std::vector<unsigned char> wide_values(std::size_t n, std::size_t width, std::uint64_t seed) {
  std::mt19937_64 rng(seed ^ 0x5851f42d4c957f2dull);
  std::vector<unsigned char> v(n * width);
  for (auto& b : v) b = static_cast<unsigned char>(rng());
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t index = std::uint32_t(i);
    std::memcpy(&v[i * width], &index, std::min<std::size_t>(width, 4));
  }
  return v;
}

// "" when (got_keys, got_values) is the stable sort of (keys, values): bit for bit, except that positions
// of NaN keys hold the same multiset of (key, value) bytes.
template <class K>
std::string compare_wide(const std::vector<K>& keys, const std::vector<unsigned char>& values,
                         std::size_t width, Order order, const std::vector<K>& got_keys,
                         const std::vector<unsigned char>& got_values) {
  const std::vector<std::uint32_t> perm = reference_argsort(keys, order);
  std::vector<std::vector<unsigned char>> nan_expected, nan_got;
  auto record = [&](const K& k, const unsigned char* v) {
    std::vector<unsigned char> r = bytes_of(k);
    r.insert(r.end(), v, v + width);
    return r;
  };
  for (std::size_t i = 0; i < perm.size(); ++i) {
    const K& e = keys[perm[i]];
    const unsigned char* ev = &values[std::size_t(perm[i]) * width];
    const unsigned char* gv = &got_values[i * width];
    if (is_nan_key(e)) {
      if (!is_nan_key(got_keys[i])) return "index " + std::to_string(i) + ": expected a NaN key";
      nan_expected.push_back(record(e, ev));
      nan_got.push_back(record(got_keys[i], gv));
      continue;
    }
    if (!same_bits(e, got_keys[i]))
      return "index " + std::to_string(i) + ": got key " + hex(got_keys[i]) + ", expected " + hex(e);
    if (std::memcmp(ev, gv, width) != 0)
      return "index " + std::to_string(i) + " (key " + hex(e) + "): value differs (unstable or unpaired)";
  }
  std::sort(nan_expected.begin(), nan_expected.end());
  std::sort(nan_got.begin(), nan_got.end());
  if (nan_expected != nan_got) return "the NaN positions hold a different multiset of (key, value) bytes";
  return {};
}

// The device form: keys and values in sub-buffers with guard bytes before and after, which must survive.
template <class K>
std::string sort_wide_buffer(clsort::Sorter& s, const clsort::Options& options, std::vector<K>& keys,
                             std::vector<unsigned char>& values, std::size_t width) {
  const std::size_t n = keys.size();
  cl_uint align_bits = 0;
  REQUIRE(s.device().getInfo(CL_DEVICE_MEM_BASE_ADDR_ALIGN, &align_bits) == CL_SUCCESS);
  const std::size_t align = std::max<std::size_t>(align_bits / 8, 64), guard = 64;
  auto make = [&](const unsigned char* data, std::size_t bytes, std::uint64_t seed) {
    auto parent = std::make_unique<Filled>(s.context(), align + bytes + guard, seed);
    std::memcpy(parent->bytes.data() + align, data, bytes);
    REQUIRE(s.queue().enqueueWriteBuffer(parent->buffer, CL_TRUE, 0, parent->bytes.size(),
                                         parent->bytes.data()) == CL_SUCCESS);
    const cl_buffer_region region{align, bytes + guard};
    cl_int status = CL_SUCCESS;
    cl::Buffer sub =
        parent->buffer.createSubBuffer(CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, &status);
    REQUIRE(status == CL_SUCCESS);
    return std::make_pair(std::move(parent), sub);
  };
  auto [kparent, kbuf] = make(reinterpret_cast<const unsigned char*>(keys.data()), n * sizeof(K), 41);
  auto [vparent, vbuf] = make(values.data(), n * width, 42);
  s.sort_buffer(clsort::key_type_of<K>::value, kbuf, &vbuf, width, n, options, {}).wait();
  std::vector<unsigned char> kb(kparent->bytes.size()), vb(vparent->bytes.size());
  REQUIRE(s.queue().enqueueReadBuffer(kparent->buffer, CL_TRUE, 0, kb.size(), kb.data()) == CL_SUCCESS);
  REQUIRE(s.queue().enqueueReadBuffer(vparent->buffer, CL_TRUE, 0, vb.size(), vb.data()) == CL_SUCCESS);
  auto guards_kept = [&](const std::vector<unsigned char>& now, const Filled& was, std::size_t bytes) {
    return std::equal(now.begin(), now.begin() + align, was.bytes.begin()) &&
           std::equal(now.begin() + align + bytes, now.end(), was.bytes.begin() + align + bytes);
  };
  if (!guards_kept(kb, *kparent, n * sizeof(K))) return "bytes around the keys changed";
  if (!guards_kept(vb, *vparent, n * width)) return "bytes around the values changed";
  std::memcpy(keys.data(), kb.data() + align, n * sizeof(K));
  std::memcpy(values.data(), vb.data() + align, n * width);
  return {};
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

template <class I>
std::string compare_indices(const std::vector<std::uint32_t>& expected, const std::vector<I>& got,
                            const std::vector<bool>& nan_at) {
  if (expected.size() != got.size()) return "size differs";
  std::vector<I> nan_e, nan_g;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (nan_at[i]) {
      nan_e.push_back(expected[i]);
      nan_g.push_back(got[i]);
    } else if (I(expected[i]) != got[i]) {
      return "index " + std::to_string(i) + ": got " + std::to_string(got[i]) + ", expected " +
             std::to_string(expected[i]);
    }
  }
  std::sort(nan_e.begin(), nan_e.end());
  std::sort(nan_g.begin(), nan_g.end());
  return nan_e == nan_g ? std::string() : "the NaN positions hold other indices";
}

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
    std::vector<bool> seen(n);
    std::size_t bad = 0;
    for (std::size_t i = 0; i < n && bad < 10; ++i) {
      const std::uint64_t j = indices[i];
      if (j >= n || seen[j]) {
        ++bad;
        MESSAGE("argsort64 position " << i << ": index " << j << " out of range or repeated");
        continue;
      }
      seen[j] = true;
      if (i == 0) continue;
      const std::uint64_t p = indices[i - 1];
      const bool ordered = less(keys[p], keys[j]) || (!less(keys[j], keys[p]) && p < j);
      if (!ordered) {
        ++bad;
        MESSAGE("argsort64 position " << i << ": index " << j << " after " << p
                                      << " (not stable or not sorted)");
      }
    }
    CHECK(bad == 0);
  }
}

}  // namespace
}  // namespace clsort_test
