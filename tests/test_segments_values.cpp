// Segmented sort of what its kernels do not carry, which moves through a permutation: values of any width
// (1, 2, 3, 12, 16, 24, 64 bytes) and a bit range (the range's bits sorted as codes of their own, keys and
// values moved once after). Shapes, reference and tuned Sorters: support/segments.hpp.
#include <doctest/doctest.h>

#include <clsort/key_transform.hpp>

#include <cstring>
#include <numeric>
#include <sstream>

#include "support/segments.hpp"
#include "support/support.hpp"

namespace clsort_test {
namespace {

// Values of widths the segment kernels do not carry (1, 2, 3, 12, 16, 24, 64 bytes): sorted as 32-bit
// indices, then moved once through the permutation. Host vectors on the tuned Sorters and through the
// staging, device buffers with guard keys and values outside the segments; ties (few unique keys) show
// a value that does not follow its key stably.
// `input` between `guard` zero keys at each end, and offsets moved past the first ones.
template <class K>
std::vector<K> with_guards(const std::vector<K>& input, std::size_t guard) {
  std::vector<K> g(guard, K{});
  g.insert(g.end(), input.begin(), input.end());
  g.insert(g.end(), guard, K{});
  return g;
}
std::vector<std::uint64_t> shifted(std::vector<std::uint64_t> o, std::size_t guard) {
  for (auto& x : o) x += guard;
  return o;
}

template <std::size_t W>
struct Bytes {
  unsigned char b[W];
};

template <std::size_t W>
std::vector<Bytes<W>> byte_values(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Bytes<W>> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    for (auto& c : v[i].b) c = static_cast<unsigned char>(rng());
    const std::uint32_t index = std::uint32_t(i);
    std::memcpy(v[i].b, &index, std::min<std::size_t>(W, 4));
  }
  return v;
}

template <class K, std::size_t W>
void any_width_case() {
  using V = Bytes<W>;
  const KeyType type = clsort::key_type_of<K>::value;
  for (Shape shape : {Shape::tiny, Shape::mixed, Shape::power_law, Shape::uncovered}) {
    for (Dist dist : {Dist::few_unique, special_distribution<K>()}) {
      const std::size_t n = 3001, guard = 9;
      const std::uint64_t seed = seed_for(type, int(dist), n, 0xa0 + W + int(shape));
      const std::vector<K> input = make_keys<K>(dist, n, seed);
      const std::vector<V> values = byte_values<W>(n, seed);
      const std::vector<std::uint64_t> o = make_offsets(shape, n, 1300, seed);
      for (Order order : both_orders()) {
        std::ostringstream what;
        what << clsort::to_string(type) << " values of " << W << " bytes " << clsort::to_string(order)
             << " shape=" << to_string(shape) << " dist=" << to_string(dist);
        std::vector<K> expected = input;
        std::vector<V> vexpected = values;
        reference(expected, &vexpected, o, order);
        // The inner sort carries 4-byte indices, which every path's own tests cover: small tiles (bins
        // and merges) and the host staging of the span are what the permutation adds.
        for (clsort::Sorter* sorter : {&small_sorter(), &staged_sorter()}) {
          std::vector<K> keys = input;
          std::vector<V> got = values;
          std::string error;
          try {
            sorter->sort_segments_by_key(keys, got, narrow<std::uint32_t>(o), {order});
            error = compare_sorted(expected, keys, &vexpected, &got);
          } catch (const clsort::Error& e) {
            error = std::string("threw: ") + e.what();
          }
          CHECK_MESSAGE(error.empty(), what.str() << " host: " << error);
        }
        // Device buffers: segments from `guard` to `guard` before the end, 64-bit offsets.
        const std::vector<K> gk = with_guards(input, guard);
        std::vector<V> gv = byte_values<W>(n + 2 * guard, seed + 1);
        std::copy(values.begin(), values.end(), gv.begin() + guard);
        const std::vector<std::uint64_t> go = shifted(o, guard);
        std::vector<K> gexpected = gk;
        std::vector<V> gvexpected = gv;
        reference(gexpected, &gvexpected, go, order);
        clsort::Sorter& s = small_sorter();
        cl::Buffer kb = device_buffer(s, gk), vb = device_buffer(s, gv), ob = device_buffer(s, go);
        s.sort_segments_by_key<K, V, std::uint64_t>(kb, vb, ob, go.size() - 1, {order}).wait();
        const std::vector<V> got_values = read_back<V>(s, vb, gv.size());
        CHECK_MESSAGE(
            compare_sorted(gexpected, read_back<K>(s, kb, gk.size()), &gvexpected, &got_values) == "",
            what.str() << " device buffers");
      }
    }
  }
}

TEST_CASE("segments by_key: values of any width") {
  any_width_case<std::uint32_t, 1>();
  any_width_case<float, 2>();
  any_width_case<std::uint64_t, 3>();
  any_width_case<std::uint32_t, 12>();
  any_width_case<double, 16>();
  any_width_case<std::int16_t, 24>();
  any_width_case<std::uint32_t, 64>();
}

// A bit range (Options::begin_bit, end_bit, as CUB's DeviceSegmentedRadixSort takes them): each segment
// stably by bits [begin, end) of the order-preserving code (descending's inversion included), keys and
// values moved with them; an empty range keeps every key where it is. Host vectors on two tuned Sorters
// and device buffers with guards, 4- and 12-byte values.
template <class K>
void range_case(unsigned begin, unsigned end) {
  using U = clsort::key_bits_t<K>;
  constexpr unsigned bits = sizeof(K) * 8;
  const KeyType type = clsort::key_type_of<K>::value;
  const unsigned last = end ? end : bits, width = last - begin;
  for (Shape shape : {Shape::tiny, Shape::mixed, Shape::power_law}) {
    const std::size_t n = 3001, guard = 5;
    const std::uint64_t seed = seed_for(type, int(shape), n, 0x5a + begin * 64 + end);
    const std::vector<K> input = make_keys<K>(special_distribution<K>(), n, seed);
    const std::vector<Bytes<12>> values = byte_values<12>(n, seed);
    std::vector<std::uint64_t> o = make_offsets(shape, n, 1300, seed);
    for (Order order : both_orders()) {
      std::ostringstream what;
      what << clsort::to_string(type) << " bits [" << begin << ", " << end << ") " << clsort::to_string(order)
           << " shape=" << to_string(shape);
      auto field = [&](K k) {
        const U c = U(clsort::encode_key(k, order == Order::descending) >> begin);
        return width == bits ? c : width == 0 ? U(0) : U(c & U((U(1) << width) - 1));
      };
      std::vector<K> expected = input;
      std::vector<Bytes<12>> vexpected = values;
      for (std::size_t g = 0; g + 1 < o.size(); ++g) {
        std::vector<std::uint32_t> idx(o[g + 1] - o[g]);
        std::iota(idx.begin(), idx.end(), 0u);
        std::stable_sort(idx.begin(), idx.end(), [&](std::uint32_t a, std::uint32_t b) {
          return field(input[o[g] + a]) < field(input[o[g] + b]);
        });
        for (std::size_t i = 0; i < idx.size(); ++i) {
          expected[o[g] + i] = input[o[g] + idx[i]];
          vexpected[o[g] + i] = values[o[g] + idx[i]];
        }
      }
      const clsort::Options options{order, Algorithm::automatic, begin, end};
      for (clsort::Sorter* sorter : {&small_sorter(), &radix_sorter()}) {
        std::vector<K> keys = input;
        std::vector<Bytes<12>> got = values;
        std::string error;
        try {
          sorter->sort_segments(keys, narrow<std::uint32_t>(o), options);
          error = compare_sorted(expected, keys);
          keys = input;
          if (error.empty()) sorter->sort_segments_by_key(keys, got, o, options);
          if (error.empty()) error = compare_sorted(expected, keys, &vexpected, &got);
        } catch (const clsort::Error& e) {
          error = std::string("threw: ") + e.what();
        }
        CHECK_MESSAGE(error.empty(), what.str() << " host: " << error);
      }
      // Device buffers with 4-byte values and guards at both ends.
      const std::vector<K> gk = with_guards(input, guard);
      std::vector<std::uint32_t> gv(gk.size());
      std::iota(gv.begin(), gv.end(), 7u);
      const std::vector<std::uint64_t> go = shifted(o, guard);
      std::vector<K> gexpected = gk;
      std::vector<std::uint32_t> gvexpected = gv;
      for (std::size_t i = 0; i < n; ++i) {
        gexpected[guard + i] = expected[i];
        std::size_t from = 0;  // where expected[i] came from: vexpected's index bytes
        std::memcpy(&from, vexpected[i].b, 4);
        gvexpected[guard + i] = gv[guard + from];
      }
      clsort::Sorter& s = small_sorter();
      cl::Buffer kb = device_buffer(s, gk), vb = device_buffer(s, gv), ob = device_buffer(s, go);
      s.sort_segments_by_key<K, std::uint32_t, std::uint64_t>(kb, vb, ob, go.size() - 1, options).wait();
      const std::vector<std::uint32_t> got_values = read_back<std::uint32_t>(s, vb, gv.size());
      CHECK_MESSAGE(compare_sorted(gexpected, read_back<K>(s, kb, gk.size()), &gvexpected, &got_values) == "",
                    what.str() << " device buffers");
    }
  }
}

TEST_CASE("segments with a bit range") {
  range_case<std::uint32_t>(4, 20);
  range_case<float>(16, 0);
  range_case<std::int16_t>(3, 11);
  range_case<std::uint64_t>(8, 40);
  range_case<clsort::half>(0, 9);
  range_case<std::uint8_t>(2, 5);
  range_case<std::uint32_t>(0, 32);  // the whole key, spelled out
  // Empty ranges: every key in place, whatever the offsets say (they are not read).
  range_case<std::uint32_t>(9, 9);
  range_case<double>(64, 0);
}

}  // namespace
}  // namespace clsort_test
