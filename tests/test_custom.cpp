// sort_custom: structs of 1, 12, 16 and 64 bytes sorted by comparisons written in OpenCL C, by merge sort
// and by the bitonic network, both orders, against std::stable_sort with the same comparison written in
// C++, byte for byte (each element carries its input position where the comparison ties, so stability
// shows); device buffers with canaries; the ways to name the type and write the comparison; a comparison
// that does not compile (the build log in the Error); a wrong sizeof; the C API; bad arguments.
#include <doctest/doctest.h>

#include <clsort/clsort.h>

#include "support/guarded.hpp"
#include "support/support.hpp"

namespace clsort_test {
namespace {

struct B1 {
  std::uint8_t v;  // ordered by the high nibble: the low one tells equal elements apart
};
struct S12 {
  float key;
  std::uint32_t id;
  std::uint32_t tag;  // the input position
};
struct Particle {
  float x, y, z;
  std::uint32_t id;
};
struct S64 {
  std::uint32_t key;
  std::uint32_t rest[15];
};
static_assert(sizeof(B1) == 1 && sizeof(S12) == 12 && sizeof(Particle) == 16 && sizeof(S64) == 64);

const char* const kB1 = "typedef struct { uchar v; } B1;";
const char* const kB1Less = "(a.v >> 4) < (b.v >> 4)";
bool b1_less(const B1& a, const B1& b) {
  return (a.v >> 4) < (b.v >> 4);
}
const char* const kS12 = "typedef struct { float key; uint id; uint tag; } S12;";
const char* const kS12Less = "a.key < b.key || (a.key == b.key && a.id < b.id)";
bool s12_less(const S12& a, const S12& b) {
  return a.key < b.key || (a.key == b.key && a.id < b.id);
}
const char* const kS64 = "typedef struct { uint key; uint rest[15]; } S64;";
const char* const kS64Less = "a.key < b.key";
bool s64_less(const S64& a, const S64& b) {
  return a.key < b.key;
}

// Elements whose compared fields follow `dist` (few distinct values where it is random or few_unique,
// so that ties are common) and whose other bytes are random.
template <class T>
std::vector<T> make_elements(Dist dist, std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<T> v(n);
  for (auto& e : v) {
    unsigned char* p = reinterpret_cast<unsigned char*>(&e);
    for (std::size_t i = 0; i < sizeof(T); ++i) p[i] = static_cast<unsigned char>(rng());
  }
  const bool tied = dist == Dist::few_unique || dist == Dist::random;
  const std::vector<std::uint32_t> base =
      make_keys<std::uint32_t>(tied ? Dist::few_unique : dist, n, seed + 1);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t k = base[i];
    if constexpr (std::is_same_v<T, B1>) {
      v[i].v = static_cast<std::uint8_t>((k % 16) << 4 | (i & 15));
    } else if constexpr (std::is_same_v<T, S12>) {
      v[i].key = float(k % 64) - 20.0f;
      if (v[i].key == 0.0f && (i & 1)) v[i].key = -0.0f;  // -0 and +0 compare equal
      v[i].id = std::uint32_t(rng() % 4);
      v[i].tag = std::uint32_t(i);
    } else if constexpr (std::is_same_v<T, S64>) {
      v[i].key = tied ? k % 32 : k;
      v[i].rest[0] = std::uint32_t(i);
    }
  }
  return v;
}

const std::vector<std::size_t>& custom_sizes() {
  static const std::vector<std::size_t> sizes{0,   1,   2,   3,   7,    31,   63,   64,   65,   255,  256,
                                              257, 511, 512, 513, 1023, 1024, 1025, 2047, 2048, 2049, 4099};
  return sizes;
}

template <class T, class Less>
std::string check_sorted(const std::vector<T>& input, const std::vector<T>& got, Order order, Less less) {
  std::vector<T> expected = input;
  if (order == Order::ascending)
    std::stable_sort(expected.begin(), expected.end(), less);
  else
    std::stable_sort(expected.begin(), expected.end(), [&](const T& a, const T& b) { return less(b, a); });
  if (got.size() != expected.size()) return "size " + std::to_string(got.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    if (std::memcmp(&got[i], &expected[i], sizeof(T)) != 0)
      return "position " + std::to_string(i) + ": " + hex(got[i]) + ", expected " + hex(expected[i]);
  return {};
}

template <class T, class Less>
void custom_matrix(const char* type_source, const char* less_source, Less less, std::size_t large) {
  clsort::Sorter& sorter = shared_sorter();
  FailureBudget budget;
  std::vector<std::size_t> sizes = custom_sizes();
  sizes.push_back(65537);
  if (large) sizes.push_back(large);
  for (Algorithm algorithm : {Algorithm::merge, Algorithm::bitonic}) {
    for (std::size_t n : sizes) {
      if (algorithm == Algorithm::bitonic && n > 65537) continue;  // log2(n)^2 / 2 launches
      for (Dist dist : {Dist::random, Dist::sorted, Dist::reversed, Dist::all_equal, Dist::few_unique}) {
        if (n >= 65537 && !full_matrix() && dist != Dist::random) continue;
        const std::uint64_t seed = seed_for(KeyType::u32, int(dist), n, 0xc057 + sizeof(T));
        std::vector<T> input = make_elements<T>(dist, n, seed);
        if (dist == Dist::sorted) std::stable_sort(input.begin(), input.end(), less);
        if (dist == Dist::reversed)
          std::stable_sort(input.begin(), input.end(), [&](const T& a, const T& b) { return less(b, a); });
        for (Order order : both_orders()) {
          std::vector<T> got = input;
          std::string error;
          try {
            clsort::Options options{order, algorithm};
            sorter.sort_custom(got, type_source, less_source, options);
            error = check_sorted(input, got, order, less);
          } catch (const clsort::Error& e) {
            error = std::string("threw: ") + e.what();
          }
          CHECK_MESSAGE(error.empty(), "sort_custom " << sizeof(T) << "-byte " << clsort::to_string(algorithm)
                                                      << " " << clsort::to_string(order) << " n=" << n
                                                      << " dist=" << to_string(dist) << " seed=" << hex(seed)
                                                      << ": " << error);
          if (!budget.record(error.empty())) FAIL("too many failures");
        }
      }
    }
  }
}

TEST_CASE("custom 1-byte") {
  custom_matrix<B1>(kB1, kB1Less, b1_less, 0);
}
TEST_CASE("custom 12-byte") {
  custom_matrix<S12>(kS12, kS12Less, s12_less, 300007);
}
TEST_CASE("custom 64-byte") {
  custom_matrix<S64>(kS64, kS64Less, s64_less, 0);
}

// Host data through the pinned staging in 4 KiB chunks (the GPU rows' path, forced on here whatever the
// device): 12-byte elements that straddle the chunks, the last chunk partial.
TEST_CASE("custom: host data through the pinned staging") {
  clsort::Sorter sorter(cl::CommandQueue(shared_sorter().context(), shared_sorter().device()));
  sorter.tune("host.chunk=4096,host.min=0,host.threads=2");
  for (Algorithm algorithm : {Algorithm::merge, Algorithm::bitonic})
    for (std::size_t n : {std::size_t(2), std::size_t(1001), std::size_t(65537)})
      for (Order order : both_orders()) {
        const std::uint64_t seed = seed_for(KeyType::u32, 1, n, 0x57a9);
        const std::vector<S12> input = make_elements<S12>(Dist::few_unique, n, seed);
        std::vector<S12> got = input;
        sorter.sort_custom(got, kS12, kS12Less, {order, algorithm});
        const std::string error = check_sorted(input, got, order, s12_less);
        CHECK_MESSAGE(error.empty(), clsort::to_string(algorithm)
                                         << " " << clsort::to_string(order) << " n=" << n << ": " << error);
      }
}

TEST_CASE("custom api: ways to name the type and write the comparison") {
  clsort::Sorter& sorter = shared_sorter();
  // The example: a 16-byte Particle by z, then id.
  std::vector<Particle> p(3001);
  std::mt19937_64 rng(5);
  for (std::size_t i = 0; i < p.size(); ++i)
    p[i] = {float(rng() % 100), float(i), float(rng() % 7), std::uint32_t(rng() % 3)};
  auto pless = [](const Particle& a, const Particle& b) { return a.z < b.z || (a.z == b.z && a.id < b.id); };
  std::vector<Particle> got = p;
  sorter.sort_custom(got, "typedef struct { float x, y, z; uint id; } Particle;",
                     "a.z < b.z || (a.z == b.z && a.id < b.id)");
  CHECK(check_sorted(p, got, Order::ascending, pless) == "");
  // A function body, a struct tag, comments and a descending order.
  got = p;
  sorter.sort_custom(got, "/* particles */ struct P { float x, y, z; uint id; };",
                     "if (a.z != b.z) return a.z < b.z; // by z\n return a.id < b.id;", {Order::descending});
  CHECK(check_sorted(p, got, Order::descending, pless) == "");
  // Helper functions after the type, which then names itself clsort_t.
  got = p;
  sorter.sort_custom(got,
                     "typedef struct { float x, y, z; uint id; } Particle; typedef Particle clsort_t;\n"
                     "inline float depth(Particle q) { return q.z; }",
                     "depth(a) < depth(b) || (depth(a) == depth(b) && a.id < b.id)");
  CHECK(check_sorted(p, got, Order::ascending, pless) == "");
  // The process-wide Sorter.
  got = p;
  clsort::sort_custom(got, "typedef struct { float x, y, z; uint id; } Particle;",
                      "a.z < b.z || (a.z == b.z && a.id < b.id)", {Order::descending});
  CHECK(check_sorted(p, got, Order::descending, pless) == "");
  // A built-in type named alone.
  std::vector<std::uint32_t> u = make_keys<std::uint32_t>(Dist::few_unique, 5000, 9);
  std::vector<std::uint32_t> ug = u;
  sorter.sort_custom(ug, "uint", "a % 1000 > b % 1000");
  std::stable_sort(u.begin(), u.end(), [](std::uint32_t a, std::uint32_t b) { return a % 1000 > b % 1000; });
  CHECK(ug == u);
  // Device buffer: bytes past n stay.
  const cl::Context& ctx = sorter.context();
  const cl::CommandQueue& q = sorter.queue();
  for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(777), std::size_t(20001)}) {
    const std::vector<S12> input = make_elements<S12>(Dist::random, n, 31 + n);
    Filled buf(ctx, (n + 9) * sizeof(S12), 17 + n);
    if (n) REQUIRE(q.enqueueWriteBuffer(buf.buffer, CL_TRUE, 0, n * sizeof(S12), input.data()) == CL_SUCCESS);
    cl::Event done = sorter.sort_custom<S12>(buf.buffer, n, kS12, kS12Less, {Order::descending});
    REQUIRE(done.wait() == CL_SUCCESS);
    std::vector<unsigned char> all(buf.bytes.size());
    REQUIRE(q.enqueueReadBuffer(buf.buffer, CL_TRUE, 0, all.size(), all.data()) == CL_SUCCESS);
    std::vector<S12> result(n);
    if (n) std::memcpy(result.data(), all.data(), n * sizeof(S12));
    CHECK(check_sorted(input, result, Order::descending, s12_less) == "");
    CHECK(std::memcmp(all.data() + n * sizeof(S12), buf.bytes.data() + n * sizeof(S12), 9 * sizeof(S12)) ==
          0);
  }
}

// A new type's one-time device check must not wait behind the caller's queue: here an in-order queue
// holds a write gated by a user event that is set only after sort_custom returns.
TEST_CASE("custom api: after a user event, on in-order and out-of-order queues") {
  clsort::Sorter& base = shared_sorter();
  for (cl_command_queue_properties props :
       {cl_command_queue_properties(0),
        cl_command_queue_properties(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)}) {
    cl::CommandQueue q(base.context(), base.device(), props);
    clsort::Sorter s(q);
    const std::vector<S12> input = make_elements<S12>(Dist::random, 5003, 77 + props);
    cl::Buffer buf(s.context(), CL_MEM_READ_WRITE, input.size() * sizeof(S12));
    cl::UserEvent gate(s.context());
    cl::Event written;
    const std::vector<cl::Event> gated{gate};
    REQUIRE(q.enqueueWriteBuffer(buf, CL_FALSE, 0, input.size() * sizeof(S12), input.data(), &gated,
                                 &written) == CL_SUCCESS);
    // A type this Sorter has not seen (the check is per Sorter and type source).
    const std::string type = std::string(kS12) + (props ? " /* ooo */" : " /* in order */");
    cl::Event done = s.sort_custom<S12>(buf, input.size(), type, kS12Less, {}, {written});
    gate.setStatus(CL_COMPLETE);
    REQUIRE(done.wait() == CL_SUCCESS);
    std::vector<S12> got(input.size());
    REQUIRE(q.enqueueReadBuffer(buf, CL_TRUE, 0, got.size() * sizeof(S12), got.data()) == CL_SUCCESS);
    CHECK(check_sorted(input, got, Order::ascending, s12_less) == "");
  }
}

TEST_CASE("custom api: a comparison that does not compile, a wrong sizeof, bad arguments") {
  clsort::Sorter& sorter = shared_sorter();
  const std::vector<S12> input = make_elements<S12>(Dist::random, 1000, 3);
  std::vector<S12> data = input;
  auto where = [](const std::optional<clsort::Error>& e) { return e ? e->where() : std::string("no error"); };
  // Build failure: the log names the error.
  const auto e = thrown([&] { sorter.sort_custom(data, kS12, "a.nope < b.key"); });
  REQUIRE(e.has_value());
  CHECK(e->kind() == clsort::Error::Kind::build_failure);
  CHECK(e->build_log().find("nope") != std::string::npos);
  CHECK(std::string(e->what()).find("nope") != std::string::npos);
  // The device's sizeof differs from the application's.
  const auto wide = thrown(
      [&] { sorter.sort_custom(data, "typedef struct { float key; uint id, tag, more; } S;", kS12Less); });
  REQUIRE(wide.has_value());
  CHECK(wide->where() == "T");
  CHECK(wide->kind() == clsort::Error::Kind::invalid_argument);
  CHECK(where(thrown([&] { sorter.sort_custom(data, "typedef float3 V;", "a.x < b.x"); })) == "T");
  CHECK(where(thrown([&] { sorter.sort_custom(data, "", kS12Less); })) == "type_source");
  CHECK(where(thrown([&] { sorter.sort_custom(data, "struct { uint k; };", kS12Less); })) == "type_source");
  CHECK(where(thrown([&] { sorter.sort_custom(data, kS12, "  "); })) == "less");
  CHECK(where(thrown([&] {
          sorter.sort_custom(data, kS12, kS12Less, {Order::ascending, Algorithm::radix});
        })) == "algorithm");
  clsort::Options range;
  range.begin_bit = 4;
  CHECK(where(thrown([&] { sorter.sort_custom(data, kS12, kS12Less, range); })) == "begin_bit");
  CHECK(where(thrown([&] { sorter.sort_custom_host(nullptr, 5, 12, kS12, kS12Less, {}); })) == "data");
  CHECK(where(thrown([&] { sorter.sort_custom_host(data.data(), 5, 0, kS12, kS12Less, {}); })) == "T");
  CHECK(where(thrown([&] { sorter.sort_custom_host(data.data(), 5, 300, kS12, kS12Less, {}); })) == "T");
  CHECK(std::memcmp(data.data(), input.data(), input.size() * sizeof(S12)) == 0);
  // Device buffers: too small, another context.
  const cl::Context& ctx = sorter.context();
  Filled small(ctx, 100, 4);
  CHECK(where(thrown([&] { sorter.sort_custom<S12>(small.buffer, 9, kS12, kS12Less); })) == "data");
  CHECK(where(thrown([&] { sorter.sort_custom<S12>(small.buffer, 8, kS12, "a.nope"); })) == "clBuildProgram");
  CHECK(small.unchanged(sorter.queue()));
}

TEST_CASE("custom api: the C API") {
  clsort::Sorter& base = shared_sorter();
  clsort_sorter cs = nullptr;
  REQUIRE(clsort_sorter_create(base.queue()(), &cs) == CLSORT_SUCCESS);
  const std::vector<S12> input = make_elements<S12>(Dist::random, 3000, 8);
  std::vector<S12> data = input;
  CHECK(clsort_sort_custom_host(cs, data.data(), data.size(), sizeof(S12), kS12, kS12Less,
                                CLSORT_DESCENDING | CLSORT_ALGORITHM_BITONIC) == CLSORT_SUCCESS);
  CHECK(check_sorted(input, data, Order::descending, s12_less) == "");
  data = input;
  CHECK(clsort_sort_custom_host(nullptr, data.data(), data.size(), sizeof(S12), kS12, kS12Less, 0) ==
        CLSORT_SUCCESS);
  CHECK(check_sorted(input, data, Order::ascending, s12_less) == "");
  cl::Buffer buf(base.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, input.size() * sizeof(S12),
                 const_cast<S12*>(input.data()));
  cl_event ev = nullptr;
  REQUIRE(clsort_sort_custom(cs, buf(), input.size(), sizeof(S12), kS12, kS12Less, CLSORT_ALGORITHM_MERGE, 0,
                             nullptr, &ev) == CLSORT_SUCCESS);
  REQUIRE(ev != nullptr);
  CHECK(clWaitForEvents(1, &ev) == CL_SUCCESS);
  clReleaseEvent(ev);
  REQUIRE(base.queue().enqueueReadBuffer(buf, CL_TRUE, 0, data.size() * sizeof(S12), data.data()) ==
          CL_SUCCESS);
  CHECK(check_sorted(input, data, Order::ascending, s12_less) == "");
  // Failures.
  data = input;
  CHECK(clsort_sort_custom_host(cs, data.data(), data.size(), sizeof(S12), kS12, "a.nope < b", 0) ==
        CLSORT_ERROR_BUILD_FAILURE);
  CHECK(std::string(clsort_last_error_message()).find("nope") != std::string::npos);
  CHECK(clsort_sort_custom_host(cs, data.data(), data.size(), 16, kS12, kS12Less, 0) ==
        CLSORT_ERROR_INVALID_ARGUMENT);
  CHECK(std::string(clsort_last_error_message()).find("'T'") != std::string::npos);
  CHECK(clsort_sort_custom_host(cs, data.data(), data.size(), 12, nullptr, kS12Less, 0) ==
        CLSORT_ERROR_INVALID_ARGUMENT);
  CHECK(clsort_sort_custom_host(cs, data.data(), data.size(), 12, kS12, kS12Less, CLSORT_BIT_RANGE(0, 8)) ==
        CLSORT_ERROR_INVALID_ARGUMENT);
  CHECK(clsort_sort_custom_host(cs, data.data(), data.size(), 12, kS12, kS12Less,
                                CLSORT_ALGORITHM_SELECTION) == CLSORT_ERROR_INVALID_ARGUMENT);
  CHECK(std::string(clsort_last_error_message()).find("algorithm") != std::string::npos);
  CHECK(std::memcmp(data.data(), input.data(), input.size() * sizeof(S12)) == 0);
  clsort_sorter_destroy(cs);
}

}  // namespace
}  // namespace clsort_test
