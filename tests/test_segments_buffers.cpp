// Segmented sort through its other doors: device buffers with guard keys and values outside the segments,
// every bad argument (named by the Error, the caller's data unchanged), the C API, and the caller's
// buffers as sub-buffers of larger ones. Shapes, reference and tuned Sorters: support/segments.hpp.
#include <doctest/doctest.h>

#include <clsort/clsort.h>

#include <array>
#include <cstring>

#include "support/guarded.hpp"
#include "support/segments.hpp"
#include "support/support.hpp"

namespace clsort_test {
namespace {

// Device buffers: offsets that leave guard keys and values at both ends; the guards must survive.
template <class K, class V, class O>
void buffer_case(clsort::Sorter& s, Shape shape, std::size_t n) {
  const KeyType type = clsort::key_type_of<K>::value;
  const std::uint64_t seed = seed_for(type, 5, n, 0xbf + int(shape));
  std::vector<std::uint64_t> o = make_offsets(shape, n, 2000, seed);
  const std::size_t guard = 9;
  for (auto& x : o) x += guard;
  const std::vector<K> input = make_keys<K>(Dist::random, n + 2 * guard, seed);
  for (Order order : both_orders()) {
    CAPTURE(to_string(shape));
    CAPTURE(n);
    std::vector<K> expected = input;
    cl::Buffer kb = device_buffer(s, input), ob = device_buffer(s, narrow<O>(o));
    if constexpr (std::is_void_v<V>) {
      reference<K, std::uint32_t>(expected, nullptr, o, order);
      s.sort_segments<K, O>(kb, ob, o.size() - 1, {order}).wait();
      CHECK(compare_sorted(expected, read_back<K>(s, kb, input.size())) == "");
    } else {
      const std::vector<V> values = make_values<V>(input.size(), seed);
      std::vector<V> vexpected = values;
      reference(expected, &vexpected, o, order);
      // The wait list: the upload of the values, which the sort must follow. (A user event completed only
      // after the call would deadlock: the call reads the state back after its wait list.)
      cl::Buffer vb(s.context(), CL_MEM_READ_WRITE, values.size() * sizeof(V));
      std::vector<cl::Event> wait(1);
      REQUIRE(s.queue().enqueueWriteBuffer(vb, CL_FALSE, 0, values.size() * sizeof(V), values.data(), nullptr,
                                           &wait[0]) == CL_SUCCESS);
      s.sort_segments_by_key<K, V, O>(kb, vb, ob, o.size() - 1, {order}, wait).wait();
      const std::vector<V> got_values = read_back<V>(s, vb, values.size());
      CHECK(compare_sorted(expected, read_back<K>(s, kb, input.size()), &vexpected, &got_values) == "");
    }
  }
}

TEST_CASE("segments of device buffers, guard keys outside the segments") {
  for (Shape shape : {Shape::tiny, Shape::mixed, Shape::power_law, Shape::single}) {
    buffer_case<std::uint32_t, void, std::uint32_t>(small_sorter(), shape, 3000);
    buffer_case<std::int16_t, void, std::uint64_t>(small_sorter(), shape, 3000);
    buffer_case<double, std::uint32_t, std::uint64_t>(small_sorter(), shape, 3000);
    buffer_case<std::uint32_t, std::uint64_t, std::uint32_t>(small_sorter(), shape, 3000);
    buffer_case<std::uint32_t, std::uint64_t, std::uint32_t>(sequential_sorter(), shape, 3000);
    buffer_case<std::uint32_t, std::uint64_t, std::uint32_t>(radix_sorter(), shape, 3000);
    buffer_case<double, std::uint32_t, std::uint64_t>(radix_match_sorter(), shape, 3000);
  }
  buffer_case<float, std::uint32_t, std::uint32_t>(shared_sorter(), Shape::medium, 30000);
}

TEST_CASE("segments: bad arguments name the argument and change nothing") {
  clsort::Sorter& s = small_sorter();
  auto expect = [](const std::optional<clsort::Error>& e, const char* where) {
    REQUIRE(e.has_value());
    CHECK(e->where() == where);
    CHECK(e->kind() == clsort::Error::Kind::invalid_argument);
  };
  const std::vector<std::uint32_t> input = make_keys<std::uint32_t>(Dist::random, 100, 3);
  std::vector<std::uint32_t> keys = input, values(100, 7);
  // Host forms.
  expect(thrown([&] { s.sort_segments(keys, std::vector<std::uint32_t>{0, 50, 40, 100}); }), "offsets");
  expect(thrown([&] { s.sort_segments(keys, std::vector<std::uint64_t>{0, 50, 101}); }), "offsets");
  expect(thrown([&] { s.sort_segments(keys, std::vector<std::uint64_t>{0, 1ull << 40}); }), "offsets");
  expect(thrown([&] { s.sort_segments(keys, std::vector<std::uint32_t>{5, 4}); }), "offsets");
  std::vector<std::uint32_t> short_values(99);
  expect(thrown([&] {
           s.sort_segments_by_key(keys, short_values, std::vector<std::uint32_t>{0, 10});
         }),
         "values");
  clsort::Options range;
  range.end_bit = 33;
  expect(thrown([&] { s.sort_segments(keys, std::vector<std::uint32_t>{0, 100}, range); }), "end_bit");
  range.end_bit = 8;
  range.begin_bit = 9;
  expect(thrown([&] { s.sort_segments(keys, std::vector<std::uint32_t>{0, 100}, range); }), "begin_bit");
  expect(thrown([&] {
           s.sort_segments_host(KeyType::u32, keys.data(), keys.size(), nullptr, 0, nullptr, 4, 3, {});
         }),
         "offsets");
  expect(thrown([&] {
           const std::uint32_t o[2] = {0, 100};
           s.sort_segments_host(KeyType::u32, keys.data(), keys.size(), nullptr, 0, o, 2, 1, {});
         }),
         "offsets");
  expect(thrown([&] {
           const std::uint32_t o[2] = {0, 100};
           s.sort_segments_host(KeyType::u32, keys.data(), keys.size(), values.data(), 0, o, 4, 1, {});
         }),
         "value_bytes");
  expect(thrown([&] {
           const std::uint32_t o[2] = {0, 100};
           s.sort_segments_host(KeyType::u32, nullptr, 100, nullptr, 0, o, 4, 1, {});
         }),
         "keys");
  expect(thrown([&] {
           const std::uint32_t o[2] = {0, 0};
           s.sort_segments_host(KeyType::u32, keys.data(), 100, nullptr, 0, o, 4, std::size_t(1) << 32, {});
         }),
         "num_segments");
  CHECK(keys == input);
  CHECK(values == std::vector<std::uint32_t>(100, 7));

  // Device forms: the buffers keep their random bytes.
  const cl::Context& ctx = s.context();
  const cl::CommandQueue& q = s.queue();
  Filled kb(ctx, 400, 1), vb(ctx, 400, 2), wide(ctx, 800, 3);
  auto offsets = [&](std::vector<std::uint32_t> o) { return device_buffer(s, o); };
  expect(thrown([&] { s.sort_segments<std::uint32_t>(kb.buffer, offsets({0, 50, 40, 100}), 3); }), "offsets");
  expect(thrown([&] { s.sort_segments<std::uint32_t>(kb.buffer, offsets({0, 50, 101}), 2); }), "offsets");
  // Short segments beside bad ones: nothing may be sorted before the offsets' check comes back.
  expect(thrown([&] {
           s.sort_segments<std::uint32_t>(kb.buffer, offsets({0, 5, 16, 10, 100}), 4);
         }),
         "offsets");
  expect(thrown([&] {
           s.sort_segments<std::uint32_t>(kb.buffer, offsets({0, 5, 16, 30, 101}), 4);
         }),
         "offsets");
  expect(thrown([&] {
           s.sort_segments_by_key<std::uint32_t, std::uint64_t>(kb.buffer, vb.buffer, offsets({0, 9, 16, 60}),
                                                                3);
         }),
         "values");  // 400 bytes hold 50 values of 8 bytes
  expect(thrown([&] { s.sort_segments<std::uint32_t>(kb.buffer, offsets({7, 3}), 1); }), "offsets");
  expect(thrown([&] { s.sort_segments<std::uint32_t>(kb.buffer, offsets({0, 50, 100}), 3); }), "offsets");
  expect(thrown([&] {
           s.sort_segments<std::uint32_t, std::uint64_t>(kb.buffer, offsets({0, 50, 100}), 2);  // 1.5 offsets
         }),
         "offsets");
  expect(thrown([&] {
           s.sort_segments<std::uint32_t, std::uint64_t>(
               kb.buffer, device_buffer(s, std::vector<std::uint64_t>{0, 1ull << 40}), 1);
         }),
         "offsets");
  expect(thrown([&] {
           s.sort_segments<std::uint32_t, std::uint64_t>(
               kb.buffer, device_buffer(s, std::vector<std::uint64_t>{1ull << 33, 1ull << 33}), 1);
         }),
         "offsets");
  expect(thrown([&] { s.sort_segments<std::uint32_t>(cl::Buffer(), offsets({0, 1}), 1); }), "keys");
  expect(thrown([&] { s.sort_segments<std::uint32_t>(kb.buffer, cl::Buffer(), 1); }), "offsets");
  expect(thrown([&] { s.sort_segments<std::uint32_t>(kb.buffer, kb.buffer, 1); }), "offsets");
  expect(thrown([&] {
           s.sort_segments<std::uint32_t>(kb.buffer, offsets({0, 1}), std::size_t(1) << 32);
         }),
         "num_segments");
  expect(thrown([&] {
           s.sort_segments_by_key<std::uint32_t, std::uint32_t>(kb.buffer, kb.buffer, offsets({0, 100}), 1);
         }),
         "values");
  expect(thrown([&] {
           s.sort_segments_by_key<std::uint32_t, std::uint64_t>(kb.buffer, vb.buffer, offsets({0, 100}), 1);
         }),
         "values");  // 400 bytes hold 50 values of 8 bytes: found on the device, before any write
  expect(thrown([&] {
           s.sort_segments_by_key<std::uint32_t, std::uint32_t>(kb.buffer, vb.buffer, offsets({0, 100}), 1,
                                                                range);
         }),
         "begin_bit");
  // Values the kernels do not carry (12 bytes): the span of the segments is checked on the host, the
  // rest on the device as usual, before anything is written.
  using Twelve = std::array<std::uint32_t, 3>;
  expect(thrown([&] {
           s.sort_segments_by_key<std::uint32_t, Twelve>(kb.buffer, wide.buffer, offsets({0, 30, 20, 60}), 3);
         }),
         "offsets");
  expect(thrown([&] {
           s.sort_segments_by_key<std::uint32_t, Twelve>(kb.buffer, wide.buffer, offsets({0, 50, 101}), 2);
         }),
         "offsets");
  expect(thrown([&] {
           s.sort_segments_by_key<std::uint32_t, Twelve>(kb.buffer, wide.buffer, offsets({0, 10, 100}), 2);
         }),
         "values");  // 800 bytes hold 66 values of 12 bytes
  expect(thrown([&] {
           s.sort_segments_by_key<std::uint32_t, Twelve>(kb.buffer, kb.buffer, offsets({0, 10}), 1);
         }),
         "values");
  cl::Context other(s.device());
  cl::Buffer foreign(other, CL_MEM_READ_WRITE, 400);
  expect(thrown([&] { s.sort_segments<std::uint32_t>(foreign, offsets({0, 100}), 1); }), "keys");
  CHECK(kb.unchanged(q));
  CHECK(vb.unchanged(q));
  CHECK(wide.unchanged(q));
  // The Sorter still sorts after every refusal.
  std::vector<std::uint32_t> k2 = input;
  s.sort_segments(k2, std::vector<std::uint32_t>{0, 100});
  CHECK(std::is_sorted(k2.begin(), k2.end()));
}

TEST_CASE("segments through the C API") {
  clsort::Sorter& s = shared_sorter();
  clsort_sorter cs = nullptr;
  REQUIRE(clsort_sorter_create(s.queue()(), &cs) == CLSORT_SUCCESS);
  const std::size_t n = 3000;
  const std::vector<std::uint64_t> o = make_offsets(Shape::mixed, n, 1500, 11);
  const std::vector<float> input = make_keys<float>(Dist::float_specials, n, 11);
  for (Order order : both_orders()) {
    const clsort_flags flags = order == Order::descending ? CLSORT_DESCENDING : 0;
    std::vector<float> expected = input, keys = input;
    std::vector<std::uint32_t> values(n), vexpected(n);
    std::iota(values.begin(), values.end(), 0u);
    vexpected = values;
    reference(expected, &vexpected, o, order);
    CHECK(clsort_sort_segments_host(cs, keys.data(), values.data(), n, o.data(), 8, o.size() - 1,
                                    CLSORT_KEY_F32, 4, flags) == CLSORT_SUCCESS);
    CHECK(compare_sorted(expected, keys, &vexpected, &values) == "");
    // Device buffers, keys only, 32-bit offsets.
    cl::Buffer kb = device_buffer(s, input), ob = device_buffer(s, narrow<std::uint32_t>(o));
    cl_event done = nullptr;
    REQUIRE(clsort_sort_segments(cs, kb(), nullptr, ob(), 4, o.size() - 1, CLSORT_KEY_F32, 0, flags, 0,
                                 nullptr, &done) == CLSORT_SUCCESS);
    REQUIRE(done != nullptr);
    clWaitForEvents(1, &done);
    clReleaseEvent(done);
    CHECK(compare_sorted(expected, read_back<float>(s, kb, n)) == "");
  }
  // Bad offsets: refused, naming them, the keys unchanged.
  std::vector<float> keys = input;
  const std::vector<std::uint32_t> bad{0, 10, 5};
  CHECK(clsort_sort_segments_host(cs, keys.data(), nullptr, n, bad.data(), 4, 2, CLSORT_KEY_F32, 0, 0) ==
        CLSORT_ERROR_INVALID_ARGUMENT);
  CHECK(std::string(clsort_last_error_message()).find("offsets") != std::string::npos);
  CHECK(clsort_sort_segments_host(cs, keys.data(), nullptr, n, bad.data(), 2, 2, CLSORT_KEY_F32, 0, 0) ==
        CLSORT_ERROR_INVALID_ARGUMENT);
  CHECK(std::string(clsort_last_error_message()).find("offset_size") != std::string::npos);
  CHECK(std::memcmp(keys.data(), input.data(), n * sizeof(float)) == 0);
  Filled kb(s.context(), n * 4, 9);
  cl::Buffer ob = device_buffer(s, bad);
  cl_event ev = reinterpret_cast<cl_event>(1);
  CHECK(clsort_sort_segments(cs, kb.buffer(), nullptr, ob(), 4, 2, CLSORT_KEY_F32, 0, 0, 0, nullptr, &ev) ==
        CLSORT_ERROR_INVALID_ARGUMENT);
  CHECK(ev == nullptr);
  CHECK(kb.unchanged(s.queue()));
  CHECK(clsort_sort_segments(cs, kb.buffer(), nullptr, nullptr, 4, 2, CLSORT_KEY_F32, 0, 0, 0, nullptr,
                             nullptr) == CLSORT_ERROR_INVALID_ARGUMENT);
  clsort_sorter_destroy(cs);
}

// The caller's keys and values in sub-buffers of larger buffers: a segment past segments.huge that starts
// on the device's sub-buffer alignment is sorted in place, through a region of the parent buffer (OpenCL
// takes no sub-buffer of a sub-buffer), or at its offset in the sub-buffer on the radix CPU shape; the
// parents' bytes outside the sub-buffers stay as they were.
TEST_CASE("segments in sub-buffers: a huge segment sorted through the parent") {
  clsort::Sorter& s = tiles_sorter();  // segments.huge=1024
  cl_uint align_bits = 0;
  REQUIRE(s.device().getInfo(CL_DEVICE_MEM_BASE_ADDR_ALIGN, &align_bits) == CL_SUCCESS);
  const std::size_t lead = std::max<std::size_t>(align_bits / 8, 64) / 4, n = 3020, tail = 7;
  const std::vector<std::uint64_t> o{0, 3000, 3010, n};
  const std::vector<std::uint32_t> all = make_keys<std::uint32_t>(Dist::random, lead + n + tail, 77);
  const std::vector<std::uint32_t> values_all = make_values<std::uint32_t>(lead + n + tail, 78);
  for (Order order : both_orders()) {
    cl::Buffer kparent = device_buffer(s, all), vparent = device_buffer(s, values_all);
    const cl_buffer_region region{lead * 4, n * 4};
    cl_int status = CL_SUCCESS;
    cl::Buffer kb =
        kparent.createSubBuffer(CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, &status);
    REQUIRE(status == CL_SUCCESS);
    cl::Buffer vb =
        vparent.createSubBuffer(CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, &status);
    REQUIRE(status == CL_SUCCESS);
    s.sort_segments_by_key<std::uint32_t, std::uint32_t, std::uint64_t>(kb, vb, device_buffer(s, o), 3,
                                                                        {order})
        .wait();
    std::vector<std::uint32_t> keys(all.begin() + lead, all.begin() + lead + n);
    std::vector<std::uint32_t> values(values_all.begin() + lead, values_all.begin() + lead + n);
    reference(keys, &values, o, order);
    std::vector<std::uint32_t> want = all, want_values = values_all;
    std::copy(keys.begin(), keys.end(), want.begin() + lead);
    std::copy(values.begin(), values.end(), want_values.begin() + lead);
    CHECK(read_back<std::uint32_t>(s, kparent, all.size()) == want);
    CHECK(read_back<std::uint32_t>(s, vparent, values_all.size()) == want_values);
  }
}

}  // namespace
}  // namespace clsort_test
