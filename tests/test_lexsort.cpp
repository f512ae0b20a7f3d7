// lexsort: every key type as a column (with ties, so that the next column and then the input order
// decide), mixed types and orders over up to four columns, against std::stable_sort with the lexicographic
// comparison, bit for bit; float columns with NaNs of both signs and payloads (equal to each other),
// +-0, +-inf and subnormals; device buffers with canaries; the C API; bad arguments.
#include <doctest/doctest.h>

#include <clsort/clsort.h>

#include <cstring>
#include <functional>

#include "support/guarded.hpp"
#include "support/key_type_cases.hpp"
#include "support/support.hpp"

namespace clsort_test {
namespace {

// A column of the reference: its keys as the test generated them, and its order.
struct RefColumn {
  std::function<int(std::uint32_t, std::uint32_t)> compare;  // <0, 0, >0: row a before, tied, after b
  clsort::Column column;
};

template <class K>
RefColumn ref_column(const std::vector<K>& keys, Order order) {
  RefColumn c;
  c.column = clsort::column(keys, order);
  const std::vector<K>* k = &keys;
  c.compare = [k, order](std::uint32_t a, std::uint32_t b) {
    if (ref_before((*k)[a], (*k)[b], order)) return -1;
    if (ref_before((*k)[b], (*k)[a], order)) return 1;
    return 0;  // ref_less: NaNs are equal to each other, as lexsort's columns say
  };
  return c;
}

std::vector<std::uint32_t> reference_lexsort(const std::vector<RefColumn>& columns, std::size_t n) {
  std::vector<std::uint32_t> idx(n);
  std::iota(idx.begin(), idx.end(), 0u);
  std::stable_sort(idx.begin(), idx.end(), [&](std::uint32_t a, std::uint32_t b) {
    for (const RefColumn& c : columns)
      if (const int r = c.compare(a, b)) return r < 0;
    return false;
  });
  return idx;
}

std::string compare_indices(const std::vector<std::uint32_t>& expected,
                            const std::vector<std::uint32_t>& got) {
  if (expected.size() != got.size())
    return "size " + std::to_string(got.size()) + ", expected " + std::to_string(expected.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    if (got[i] != expected[i])
      return "position " + std::to_string(i) + ": row " + std::to_string(got[i]) + ", expected " +
             std::to_string(expected[i]);
  return {};
}

const std::vector<std::size_t>& lex_sizes() {
  static const std::vector<std::size_t> sizes{0,   1,    2,    3,    7,    31,   255,  256,
                                              257, 1021, 1024, 2047, 2049, 4099, 65537};
  return sizes;
}
constexpr std::size_t kLarge = 300007;

// Keys with many ties: a distribution reduced to few distinct values where it has many.
template <class K>
std::vector<K> tied_keys(Dist dist, std::size_t n, std::uint64_t seed) {
  if (dist == Dist::random) dist = Dist::few_unique;
  return make_keys<K>(dist, n, seed);
}

// Columns (K with ties, order) then (u16 few unique, the other order) then (K random, order): every key
// type as the most and the least significant column.
template <class K>
void lexsort_matrix() {
  const KeyType type = clsort::key_type_of<K>::value;
  clsort::Sorter& sorter = shared_sorter();
  FailureBudget budget;
  std::vector<std::size_t> sizes = lex_sizes();
  sizes.push_back(kLarge);
  for (std::size_t n : sizes) {
    for (Dist dist : distributions<K>()) {
      if (n >= 4099 && !full_matrix() && dist != Dist::random && dist != special_distribution<K>()) continue;
      const std::uint64_t seed = seed_for(type, int(dist), n, 0x1e5);
      const std::vector<K> first = tied_keys<K>(dist, n, seed);
      const std::vector<std::uint16_t> middle = make_keys<std::uint16_t>(Dist::few_unique, n, seed + 1);
      const std::vector<K> last = make_keys<K>(dist, n, seed + 2);
      for (Order order : both_orders()) {
        const Order other = order == Order::ascending ? Order::descending : Order::ascending;
        const std::vector<RefColumn> ref{ref_column(first, order), ref_column(middle, other),
                                         ref_column(last, order)};
        std::vector<clsort::Column> columns;
        for (const RefColumn& c : ref) columns.push_back(c.column);
        std::string error;
        try {
          error = compare_indices(reference_lexsort(ref, n), sorter.lexsort(columns));
        } catch (const clsort::Error& e) {
          error = std::string("threw: ") + e.what();
        }
        CHECK_MESSAGE(error.empty(), "lexsort " << clsort::to_string(type) << " " << clsort::to_string(order)
                                                << " n=" << n << " dist=" << to_string(dist)
                                                << " seed=" << hex(seed) << ": " << error);
        if (!budget.record(error.empty())) FAIL("too many failures");
      }
    }
  }
}

CLSORT_CASES_PER_KEY_TYPE("lexsort", lexsort_matrix)

TEST_CASE("lexsort api: one column is argsort; NaNs of every sign and payload tie; -0 before +0") {
  clsort::Sorter& sorter = shared_sorter();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float neg_nan = -nan;
  const float payload = from_bits<float>(0x7fc00123u), neg_payload = from_bits<float>(0xffa00001u);
  const std::vector<float> price{nan, 0.0f, -0.0f, neg_nan, 1.0f, payload, -0.0f, 0.0f, neg_payload, -1.0f};
  const std::vector<std::int32_t> id{5, 3, 9, 2, 0, 1, 7, 1, 4, 8};
  // NaNs last, equal, so ordered by id descending: 5 (row 0), 4 (8), 2 (3), 1 (5).
  const std::vector<std::uint32_t> expected{9, 2, 6, 1, 7, 4, 0, 8, 3, 5};
  CHECK(sorter.lexsort({clsort::column(price), clsort::column(id, Order::descending)}) == expected);
  // Descending price: NaNs first, then +0 before -0 (the exact reverse).
  const std::vector<std::uint32_t> expected_desc{0, 8, 3, 5, 4, 1, 7, 2, 6, 9};
  CHECK(sorter.lexsort({clsort::column(price, Order::descending), clsort::column(id, Order::descending)}) ==
        expected_desc);
  const std::vector<std::uint64_t> keys = make_keys<std::uint64_t>(Dist::few_unique, 5000, 7);
  CHECK(sorter.lexsort({clsort::column(keys, Order::descending)}) ==
        sorter.argsort(keys, {Order::descending}));
  CHECK(clsort::lexsort({clsort::column(price), clsort::column(id, Order::descending)}) == expected);
  // Four columns of four widths and the raw-pointer form.
  const std::size_t n = 3001;
  const std::vector<std::uint8_t> a = make_keys<std::uint8_t>(Dist::few_unique, n, 1);
  const std::vector<double> b = make_keys<double>(Dist::float_specials, n, 2);
  const std::vector<std::int16_t> c = make_keys<std::int16_t>(Dist::few_unique, n, 3);
  const std::vector<clsort::bfloat16> d = make_keys<clsort::bfloat16>(Dist::random, n, 4);
  const std::vector<RefColumn> ref{ref_column(a, Order::ascending), ref_column(b, Order::descending),
                                   ref_column(c, Order::ascending), ref_column(d, Order::descending)};
  const clsort::Column columns[] = {clsort::column(a.data(), n), clsort::column(b, Order::descending),
                                    clsort::column(c), clsort::column(d, Order::descending)};
  std::vector<std::uint32_t> got(n);
  sorter.lexsort_host(columns, 4, got.data());
  CHECK(compare_indices(reference_lexsort(ref, n), got) == "");
}

// Host columns through the pinned staging in 4 KiB chunks (the GPU rows' path, forced on here whatever
// the device) and in one write each; a u32 column off its alignment (inside a byte array).
TEST_CASE("lexsort api: host columns through the staging and in one write, one off its alignment") {
  for (const char* tuning : {"host.chunk=4096,host.min=0,host.threads=2", "host.chunk=0"}) {
    clsort::Sorter sorter(cl::CommandQueue(shared_sorter().context(), shared_sorter().device()));
    sorter.tune(tuning);
    for (std::size_t n : {std::size_t(1001), std::size_t(65537)}) {
      const std::uint64_t seed = seed_for(KeyType::u32, 3, n, 0x57a6);
      const std::vector<std::uint8_t> a = make_keys<std::uint8_t>(Dist::few_unique, n, seed);
      const std::vector<double> b = tied_keys<double>(Dist::random, n, seed + 1);
      const std::vector<std::uint32_t> c = make_keys<std::uint32_t>(Dist::random, n, seed + 2);
      std::vector<unsigned char> bytes(n * 4 + 1);
      std::memcpy(bytes.data() + 1, c.data(), n * 4);
      const std::vector<RefColumn> ref{ref_column(a, Order::ascending), ref_column(b, Order::descending),
                                       ref_column(c, Order::ascending)};
      clsort::Column off = ref[2].column;
      off.data = bytes.data() + 1;
      const std::vector<clsort::Column> columns{ref[0].column, ref[1].column, off};
      CHECK_MESSAGE(compare_indices(reference_lexsort(ref, n), sorter.lexsort(columns)) == "",
                    tuning << " n=" << n);
    }
  }
}

TEST_CASE("lexsort api: device buffers keep bytes past n and the columns") {
  clsort::Sorter& sorter = shared_sorter();
  const cl::Context& ctx = sorter.context();
  const cl::CommandQueue& q = sorter.queue();
  for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(1000), std::size_t(70001)}) {
    const std::vector<std::int64_t> a = make_keys<std::int64_t>(Dist::few_unique, n + 5, 11);
    const std::vector<float> b = make_keys<float>(Dist::float_specials, n + 3, 12);
    cl::Buffer ba(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, a.size() * 8,
                  const_cast<std::int64_t*>(a.data()));
    cl::Buffer bb(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, b.size() * 4, const_cast<float*>(b.data()));
    Filled out(ctx, (n + 17) * 4, 99 + n);
    cl::Event done = sorter.lexsort(
        {clsort::column<std::int64_t>(ba, Order::descending), clsort::column<float>(bb)}, n, out.buffer);
    REQUIRE(done.wait() == CL_SUCCESS);
    std::vector<std::uint32_t> got(n + 17);
    REQUIRE(q.enqueueReadBuffer(out.buffer, CL_TRUE, 0, got.size() * 4, got.data()) == CL_SUCCESS);
    CHECK(std::memcmp(got.data() + n, out.bytes.data() + n * 4, 17 * 4) == 0);
    got.resize(n);
    // The reference over the first n rows only.
    std::vector<std::int64_t> a_n(a.begin(), a.begin() + long(n));
    std::vector<float> b_n(b.begin(), b.begin() + long(n));
    CHECK(compare_indices(
              reference_lexsort({ref_column(a_n, Order::descending), ref_column(b_n, Order::ascending)}, n),
              got) == "");
    std::vector<std::int64_t> a_after(a.size());
    REQUIRE(q.enqueueReadBuffer(ba, CL_TRUE, 0, a.size() * 8, a_after.data()) == CL_SUCCESS);
    CHECK(a_after == a);
    std::vector<unsigned char> b_after(b.size() * 4);
    REQUIRE(q.enqueueReadBuffer(bb, CL_TRUE, 0, b_after.size(), b_after.data()) == CL_SUCCESS);
    CHECK(std::memcmp(b_after.data(), b.data(), b_after.size()) == 0);
  }
}

TEST_CASE("lexsort api: an out-of-order queue, after a user event") {
  clsort::Sorter& base = shared_sorter();
  cl::CommandQueue q(base.context(), base.device(), CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
  clsort::Sorter s(q);
  const std::size_t n = 9001;
  const std::vector<std::uint16_t> a = make_keys<std::uint16_t>(Dist::few_unique, n, 41);
  const std::vector<double> b = make_keys<double>(Dist::float_specials, n, 42);
  cl::Buffer ba(s.context(), CL_MEM_READ_WRITE, n * 2), bb(s.context(), CL_MEM_READ_WRITE, n * 8),
      out(s.context(), CL_MEM_READ_WRITE, n * 4);
  cl::UserEvent gate(s.context());
  const std::vector<cl::Event> gated{gate};
  cl::Event wa, wb;
  REQUIRE(q.enqueueWriteBuffer(ba, CL_FALSE, 0, n * 2, a.data(), &gated, &wa) == CL_SUCCESS);
  REQUIRE(q.enqueueWriteBuffer(bb, CL_FALSE, 0, n * 8, b.data(), &gated, &wb) == CL_SUCCESS);
  cl::Event done = s.lexsort(
      {clsort::column<std::uint16_t>(ba), clsort::column<double>(bb, Order::descending)}, n, out, {wa, wb});
  gate.setStatus(CL_COMPLETE);
  REQUIRE(done.wait() == CL_SUCCESS);
  std::vector<std::uint32_t> got(n);
  REQUIRE(q.enqueueReadBuffer(out, CL_TRUE, 0, n * 4, got.data()) == CL_SUCCESS);
  CHECK(compare_indices(
            reference_lexsort({ref_column(a, Order::ascending), ref_column(b, Order::descending)}, n), got) ==
        "");
}

TEST_CASE("lexsort api: bad arguments throw naming them and change nothing") {
  clsort::Sorter& sorter = shared_sorter();
  const cl::Context& ctx = sorter.context();
  const cl::CommandQueue& q = sorter.queue();
  const std::vector<std::uint32_t> a{3, 1, 2}, b{1, 2};
  std::vector<std::uint32_t> out{7, 7, 7};
  auto where = [](const std::optional<clsort::Error>& e) { return e ? e->where() : std::string("no error"); };
  CHECK(where(thrown([&] { sorter.lexsort(std::vector<clsort::Column>{}); })) == "columns");
  CHECK(where(thrown([&] { sorter.lexsort({clsort::column(a), clsort::column(b)}); })) == "columns[1]");
  clsort::Column null_data{KeyType::u32, nullptr, 3, Order::ascending};
  CHECK(where(thrown([&] { sorter.lexsort({clsort::column(a), null_data}); })) == "columns[1].data");
  clsort::Column bad_type{KeyType(77), a.data(), 3, Order::ascending};
  CHECK(where(thrown([&] { sorter.lexsort({bad_type}); })) == "columns[0].type");
  const clsort::Column one = clsort::column(a);
  CHECK(where(thrown([&] { sorter.lexsort_host(&one, 1, nullptr); })) == "indices");
  CHECK(where(thrown([&] { sorter.lexsort_host(nullptr, 1, out.data()); })) == "columns");
  CHECK(out == std::vector<std::uint32_t>{7, 7, 7});
  CHECK(a == std::vector<std::uint32_t>{3, 1, 2});
  // Device form.
  Filled col(ctx, 64, 1), idx(ctx, 64, 2), small(ctx, 8, 3);
  const clsort::BufferColumn c32 = clsort::column<std::uint32_t>(col.buffer);
  CHECK(where(thrown([&] { sorter.lexsort(std::vector<clsort::BufferColumn>{}, 4, idx.buffer); })) ==
        "columns");
  CHECK(where(thrown([&] { sorter.lexsort({c32}, 17, idx.buffer); })) == "columns[0].data");
  CHECK(where(thrown([&] {
          sorter.lexsort({c32, clsort::column<std::uint64_t>(small.buffer)}, 4, idx.buffer);
        })) == "columns[1].data");
  CHECK(where(thrown([&] { sorter.lexsort({c32}, 4, small.buffer); })) == "indices_out");
  CHECK(where(thrown([&] { sorter.lexsort({c32}, 4, col.buffer); })) == "indices_out");
  CHECK(where(thrown([&] { sorter.lexsort({c32}, 4, cl::Buffer()); })) == "indices_out");
  cl_buffer_region region{16, 32};
  cl::Buffer sub = col.buffer.createSubBuffer(CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region);
  CHECK(where(thrown([&] { sorter.lexsort({c32}, 8, sub); })) == "indices_out");
  CHECK(col.unchanged(q));
  CHECK(idx.unchanged(q));
  CHECK(small.unchanged(q));
}

TEST_CASE("lexsort api: the C API") {
  clsort::Sorter& base = shared_sorter();
  clsort_sorter cs = nullptr;
  REQUIRE(clsort_sorter_create(base.queue()(), &cs) == CLSORT_SUCCESS);
  const std::size_t n = 2500;
  const std::vector<std::int8_t> a = make_keys<std::int8_t>(Dist::few_unique, n, 21);
  const std::vector<clsort::half> b = make_keys<clsort::half>(Dist::float_specials, n, 22);
  const std::vector<std::uint32_t> expected =
      reference_lexsort({ref_column(a, Order::descending), ref_column(b, Order::ascending)}, n);
  clsort_column cols[2] = {{CLSORT_KEY_I8, a.data(), nullptr, CLSORT_DESCENDING},
                           {CLSORT_KEY_F16, b.data(), nullptr, CLSORT_ASCENDING}};
  std::vector<std::uint32_t> got(n);
  CHECK(clsort_lexsort_host(cs, cols, 2, n, got.data()) == CLSORT_SUCCESS);
  CHECK(got == expected);
  std::fill(got.begin(), got.end(), 0u);
  CHECK(clsort_lexsort_host(nullptr, cols, 2, n, got.data()) == CLSORT_SUCCESS);
  CHECK(got == expected);
  // Device buffers.
  const cl::Context& ctx = base.context();
  cl::Buffer ba(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n, const_cast<std::int8_t*>(a.data()));
  cl::Buffer bb(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * 2, const_cast<clsort::half*>(b.data()));
  cl::Buffer out(ctx, CL_MEM_READ_WRITE, n * 4);
  clsort_column dcols[2] = {{CLSORT_KEY_I8, nullptr, ba(), CLSORT_DESCENDING},
                            {CLSORT_KEY_F16, nullptr, bb(), CLSORT_ASCENDING}};
  cl_event ev = nullptr;
  REQUIRE(clsort_lexsort(cs, dcols, 2, n, out(), 0, nullptr, &ev) == CLSORT_SUCCESS);
  REQUIRE(ev != nullptr);
  CHECK(clWaitForEvents(1, &ev) == CL_SUCCESS);
  clReleaseEvent(ev);
  std::vector<std::uint32_t> dgot(n);
  REQUIRE(base.queue().enqueueReadBuffer(out, CL_TRUE, 0, n * 4, dgot.data()) == CLSORT_SUCCESS);
  CHECK(dgot == expected);
  // Bad arguments.
  clsort_column bad = cols[0];
  bad.flags = CLSORT_ALGORITHM_RADIX;
  CHECK(clsort_lexsort_host(cs, &bad, 1, n, got.data()) == CLSORT_ERROR_INVALID_ARGUMENT);
  CHECK(std::string(clsort_last_error_message()).find("columns[0].flags") != std::string::npos);
  bad = cols[0];
  bad.key_type = clsort_key_type(99);
  CHECK(clsort_lexsort_host(cs, &bad, 1, n, got.data()) == CLSORT_ERROR_INVALID_ARGUMENT);
  CHECK(clsort_lexsort_host(cs, cols, 0, n, got.data()) == CLSORT_ERROR_INVALID_ARGUMENT);
  CHECK(std::string(clsort_last_error_message()).find("columns") != std::string::npos);
  CHECK(clsort_lexsort(cs, cols, 2, n, out(), 0, nullptr, nullptr) == CLSORT_ERROR_INVALID_ARGUMENT);
  CHECK(std::string(clsort_last_error_message()).find("columns[0].buffer") != std::string::npos);
  clsort_sorter_destroy(cs);
}

}  // namespace
}  // namespace clsort_test
