// What the segmented sort's tests share: segment shapes, the reference (each segment stably sorted by
// std::stable_sort), Sorters tuned so that a few thousand keys reach every path, and one host-vector case.
#pragma once

#include <doctest/doctest.h>

#include <clsort/clsort.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <mutex>
#include <numeric>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "support/support.hpp"

namespace clsort_test {

enum class Shape { single, all_empty, tiny, mixed, uncovered, power_law, medium };
inline std::string to_string(Shape s) {
  static constexpr const char* names[] = {"single",    "all_empty", "tiny",  "mixed",
                                          "uncovered", "power_law", "medium"};
  return enum_name(s, names);
}

// num_segments + 1 offsets into n keys. `big`: the long segment of `mixed`.
inline std::vector<std::uint64_t> make_offsets(Shape shape, std::size_t n, std::size_t big,
                                               std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::uint64_t> o{0};
  auto fill = [&](std::size_t end, auto length) {
    while (o.back() < end) o.push_back(std::min<std::uint64_t>(end, o.back() + length()));
  };
  switch (shape) {
    case Shape::single:
      o.push_back(n);
      break;
    case Shape::all_empty:
      o.assign(7, n / 2);
      break;
    case Shape::tiny:
      fill(n, [&] { return rng() % 18; });  // empty segments and single keys too
      break;
    case Shape::mixed: {
      const std::size_t at = std::min<std::size_t>(n - std::min(n, big), rng() % (n / 2 + 1));
      fill(at, [&] { return rng() % 9; });
      o.push_back(std::min<std::uint64_t>(n, at + big));
      fill(n, [&] { return rng() % 9; });
      break;
    }
    case Shape::uncovered:
      o[0] = std::min<std::size_t>(n, 3);
      fill(n > 8 ? n - 5 : o[0], [&] { return rng() % 300; });
      break;
    case Shape::power_law:  // lengths ~ 1 / u^1.5: mostly short, a few of thousands
      fill(n, [&] {
        const double u = (double(rng() >> 11) + 1.0) / 9007199254740992.0;
        return std::uint64_t(std::min(1e7, std::pow(u, -1.5)));
      });
      break;
    case Shape::medium:
      fill(n, [&] { return 40 + rng() % 600; });
      break;
  }
  return o;
}

// The expected result: each segment stably sorted, everything else as it was.
template <class K, class V>
inline void reference(std::vector<K>& keys, std::vector<V>* values, const std::vector<std::uint64_t>& o,
                      Order order) {
  for (std::size_t s = 0; s + 1 < o.size(); ++s) {
    std::vector<std::uint32_t> idx(o[s + 1] - o[s]);
    std::iota(idx.begin(), idx.end(), 0u);
    const K* k = keys.data() + o[s];
    std::stable_sort(idx.begin(), idx.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return ref_before(k[a], k[b], order); });
    std::vector<K> ks(idx.size());
    for (std::size_t i = 0; i < idx.size(); ++i) ks[i] = k[idx[i]];
    std::copy(ks.begin(), ks.end(), keys.begin() + std::ptrdiff_t(o[s]));
    if (values) {
      std::vector<V> vs(idx.size());
      for (std::size_t i = 0; i < idx.size(); ++i) vs[i] = (*values)[o[s] + idx[i]];
      std::copy(vs.begin(), vs.end(), values->begin() + std::ptrdiff_t(o[s]));
    }
  }
}

template <class O>
inline std::vector<O> narrow(const std::vector<std::uint64_t>& o) {
  return std::vector<O>(o.begin(), o.end());
}

// The Sorter tuned by `tuning`, on a queue of its own (the shared sorter's context and device): made on
// first use, then kept for the process.
inline clsort::Sorter& tuned_sorter(const std::string& tuning) {
  static std::mutex mutex;
  static std::map<std::string, clsort::Sorter*> made;
  const std::lock_guard<std::mutex> lock(mutex);
  clsort::Sorter*& s = made[tuning];
  if (!s) {
    auto* p = new clsort::Sorter(cl::CommandQueue(shared_sorter().context(), shared_sorter().device()));
    p->tune(tuning);
    s = p;
  }
  return *s;
}
// Local tiles of 256 slots (segments up to 64 keys): the GPU path, segments up to 16 keys one work-item
// each in registers, 64 to a group that stages their span through local memory, longer ones in the tiles.
inline clsort::Sorter& small_sorter() {
  return tuned_sorter(
      "segments.slots=256,segments.huge=1024,segments.seq=16,segments.seq_wg=64,segments.radix=0");
}
// Every short segment through the tiles, from 2 keys.
inline clsort::Sorter& tiles_sorter() {
  return tuned_sorter("segments.slots=256,segments.huge=1024,segments.seq=0,segments.radix=0");
}
// Segments up to 64 keys sorted one work-item each (the CPU path): runs of 16 and merges below 32 keys,
// the radix passes (segments.seq_radix) from 32.
inline clsort::Sorter& sequential_sorter() {
  return tuned_sorter(
      "segments.slots=256,segments.huge=1024,segments.seq=64,segments.seq_radix=32,segments.radix=0");
}

// Host vectors through the pinned staging in chunks of 4 KiB (the GPU rows' host path, forced on here
// whatever the device), so that the keys and values between the first and last offsets span several
// chunks, uploaded to and downloaded from the same place in the device's buffers; the device's own
// segment tuning.
inline clsort::Sorter& staged_sorter() {
  return tuned_sorter("host.chunk=4096,host.min=0,host.threads=2");
}

// Segments up to 1024 keys by groups of 16 (keys alone up to 32 bits) or 8 consecutive ones, each in a
// vector lane (segments.vec), where they fill a quarter of the group's slots; one work-item each otherwise
// and on devices other than CPUs, which ignore segments.vec.
inline clsort::Sorter& vector_sorter() {
  return tuned_sorter(
      "segments.slots=256,segments.huge=1024,segments.seq=1024,segments.vec=1024,segments.seq_radix=32,"
      "segments.radix=0");
}

// Segments of 65 to 4096 keys by a radix sort each (kernels/radix_segments.cl), over tiles of 4 keys per
// work-item so that they span several; the device's own ranking (the portable one on CPU devices).
inline clsort::Sorter& radix_sorter() {
  return tuned_sorter(
      "segments.slots=256,segments.huge=4096,segments.seq=16,segments.radix=4096,radix.items=4");
}
// The same with the multisplit ranking over sub-groups emulated in local memory, which any device runs.
inline clsort::Sorter& radix_match_sorter() {
  return tuned_sorter(
      "segments.slots=256,segments.huge=4096,segments.seq=16,segments.radix=4096,radix.items=4,radix.cpu=0,"
      "radix.match=1,radix.subgroups=3,radix.wg=256");
}

// One host-vector segmented sort against the reference; V = void: keys only. Empty on success.
template <class K, class V, class O>
inline std::string run_case(clsort::Sorter& sorter, const std::vector<K>& input,
                            const std::vector<std::uint64_t>& o, Order order) {
  std::vector<K> keys = input, expected = input;
  const std::vector<O> offsets = narrow<O>(o);
  try {
    if constexpr (std::is_void_v<V>) {
      reference<K, std::uint32_t>(expected, nullptr, o, order);
      sorter.sort_segments(keys, offsets, {order});
      return compare_sorted(expected, keys);
    } else {
      std::vector<V> values = make_values<V>(input.size(), input.size() * 7 + 1), vexpected = values;
      reference(expected, &vexpected, o, order);
      sorter.sort_segments_by_key(keys, values, offsets, {order});
      return compare_sorted(expected, keys, &vexpected, &values);
    }
  } catch (const clsort::Error& e) {
    return std::string("threw: ") + e.what();
  }
}

// A device buffer holding `data`, and n elements read back from one.
template <class T>
cl::Buffer device_buffer(const clsort::Sorter& s, const std::vector<T>& data) {
  return cl::Buffer(s.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, data.size() * sizeof(T),
                    const_cast<T*>(data.data()));
}
template <class T>
std::vector<T> read_back(const clsort::Sorter& s, const cl::Buffer& b, std::size_t n) {
  std::vector<T> out(n);
  REQUIRE(s.queue().enqueueReadBuffer(b, CL_TRUE, 0, n * sizeof(T), out.data()) == CL_SUCCESS);
  return out;
}

}  // namespace clsort_test
