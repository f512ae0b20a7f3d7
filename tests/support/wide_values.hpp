// What the wide-value tests share (test_wide_values.cpp, test_split.cpp): values of any width that
// carry their input index, and the checks of a stable sort of them and of argsort's indices.
#pragma once

#include <doctest/doctest.h>

#include <clsort/clsort.hpp>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "support/guarded.hpp"
#include "support/support.hpp"

namespace clsort_test {

// n values of `width` bytes: random bytes, the first (up to four) holding the input index, so that a
// mispairing or an unstable pair shows.
inline std::vector<unsigned char> wide_values(std::size_t n, std::size_t width, std::uint64_t seed) {
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

}  // namespace clsort_test
