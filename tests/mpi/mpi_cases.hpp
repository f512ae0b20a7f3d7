// One distributed sort checked on every rank: this rank's share of a global input goes through
// clsort::mpi (host vectors or device buffers), and its result must be its slice of std::stable_sort of
// the gathered input, bit for bit (NaN positions as a multiset, as the single-device tests compare).
#pragma once

#include <cstring>
#include <optional>
#include <sstream>

#include "mpi_support.hpp"

namespace clsort_mpi_test {

enum class Data { host, buffer };
inline const char* to_string(Data d) {
  return d == Data::host ? "host" : "buffer";
}

inline clsort::mpi::Options mpi_options(Order order, unsigned begin_bit = 0, unsigned end_bit = 0,
                                        clsort::mpi::Balance balance = clsort::mpi::Balance::exact) {
  clsort::mpi::Options o;
  o.order = order;
  o.begin_bit = begin_bit;
  o.end_bit = end_bit;
  o.balance = balance;
  return o;
}

/// The bytes a device buffer holds past n: a sort must leave them alone.
constexpr std::size_t kCanary = 3;

/// A device buffer of `v` plus kCanary elements of 0xA5 bytes; null for an empty vector.
template <class T>
cl::Buffer upload(clsort::Sorter& sorter, const std::vector<T>& v) {
  if (v.empty()) return cl::Buffer();
  std::vector<unsigned char> bytes((v.size() + kCanary) * sizeof(T), 0xA5);
  std::memcpy(bytes.data(), v.data(), v.size() * sizeof(T));
  return cl::Buffer(sorter.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes.size(), bytes.data());
}

/// Reads `n` elements back into `out`; empty when the canary past them is intact, else a problem.
template <class T>
std::string download(clsort::Sorter& sorter, const cl::Buffer& b, std::size_t n, std::vector<T>& out) {
  out.resize(n);
  if (!n) return {};
  std::vector<unsigned char> bytes((n + kCanary) * sizeof(T));
  sorter.queue().enqueueReadBuffer(b, CL_TRUE, 0, bytes.size(), bytes.data());
  std::memcpy(out.data(), bytes.data(), n * sizeof(T));
  for (std::size_t i = n * sizeof(T); i < bytes.size(); ++i)
    if (bytes[i] != 0xA5) return "a byte past n was written";
  return {};
}

/// Sorts this rank's `keys` (and `values`, when given) across `w` and checks the result against the
/// gathered reference. Returns the rank's problem, empty when none; `stats` receives the call's Stats.
template <class K, class V = std::uint32_t>
std::string sort_and_check(const World& w, clsort::Sorter& sorter, const std::vector<K>& keys,
                           const std::vector<V>* values, const clsort::mpi::Options& o, Data data,
                           clsort::mpi::Stats* stats = nullptr) {
  const std::vector<K> all_keys = gather_all(w.comm, keys);
  std::vector<V> all_values;
  if (values) all_values = gather_all(w.comm, *values);
  std::vector<K> got = keys;
  std::vector<V> got_values;
  if (values) got_values = *values;
  clsort::mpi::Stats st;
  std::string problem;
  try {
    if (data == Data::host) {
      st = values ? clsort::mpi::sort_by_key(w.comm, sorter, got, got_values, o)
                  : clsort::mpi::sort(w.comm, sorter, got, o);
    } else {
      const cl::Buffer kb = upload(sorter, keys);
      std::optional<cl::Buffer> vb;
      if (values) vb = upload(sorter, *values);
      st = values ? clsort::mpi::sort_by_key<K, V>(w.comm, sorter, kb, *vb, keys.size(), o)
                  : clsort::mpi::sort<K>(w.comm, sorter, kb, keys.size(), o);
      problem = download(sorter, kb, keys.size(), got);
      if (values && problem.empty()) problem = download(sorter, *vb, keys.size(), got_values);
    }
  } catch (const std::exception& e) {
    problem = std::string("threw: ") + e.what();
  }
  if (stats) *stats = st;
  // Where this rank's output starts: the counts before it, as the ranks report them.
  const std::vector<std::uint64_t> outs = gather_all(w.comm, std::vector<std::uint64_t>{got.size()});
  std::uint64_t begin = 0, total = 0;
  for (int i = 0; i < w.size; ++i) {
    if (i < w.rank) begin += outs[std::size_t(i)];
    total += outs[std::size_t(i)];
  }
  if (!problem.empty()) return problem;
  if (total != all_keys.size())
    return "the ranks hold " + std::to_string(total) + " keys, not " + std::to_string(all_keys.size());
  if (o.balance == clsort::mpi::Balance::exact && got.size() != keys.size())
    return "holds " + std::to_string(got.size()) + " keys, gave " + std::to_string(keys.size());
  if (st.n_in != keys.size() || st.n_out != got.size() || st.global_n != all_keys.size())
    return "Stats counts are off";
  const std::vector<std::uint32_t> perm = reference_order(all_keys, o);
  std::vector<K> expected(got.size());
  std::vector<V> expected_values(values ? got.size() : 0);
  for (std::size_t i = 0; i < got.size(); ++i) {
    expected[i] = all_keys[perm[std::size_t(begin) + i]];
    if (values) expected_values[i] = all_values[perm[std::size_t(begin) + i]];
  }
  return values ? compare_sorted(expected, got, &expected_values, &got_values)
                : compare_sorted(expected, got);
}

/// Keys alone.
template <class K>
std::string sort_and_check(const World& w, clsort::Sorter& sorter, const std::vector<K>& keys, std::nullptr_t,
                           const clsort::mpi::Options& o, Data data, clsort::mpi::Stats* stats = nullptr) {
  return sort_and_check<K, std::uint32_t>(w, sorter, keys, nullptr, o, data, stats);
}

/// This rank's share of a global input of n keys from `dist` laid out by `layout`.
template <class K>
std::vector<K> share(const World& w, Dist dist, Layout layout, std::size_t n, std::uint64_t seed) {
  const std::vector<K> global = make_keys<K>(dist, n, seed);
  const std::vector<std::size_t> counts = layout_counts(layout, n, w.size, seed);
  std::size_t begin = 0;
  for (int i = 0; i < w.rank; ++i) begin += counts[std::size_t(i)];
  return std::vector<K>(global.begin() + std::ptrdiff_t(begin),
                        global.begin() + std::ptrdiff_t(begin + counts[std::size_t(w.rank)]));
}

/// Values naming each key's global input position (the first rank's first key is 0).
template <class V>
std::vector<V> positions(const World& w, std::size_t n) {
  const std::vector<std::uint64_t> counts = gather_all(w.comm, std::vector<std::uint64_t>{n});
  std::uint64_t begin = 0;
  for (int i = 0; i < w.rank; ++i) begin += counts[std::size_t(i)];
  std::vector<V> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    if constexpr (std::is_integral_v<V>)
      v[i] = V(begin + i);
    else
      v[i] = value_for<sizeof(V)>(begin + i);
  }
  return v;
}

inline std::string describe_case(const World& w, KeyType type, const char* values, Order order, std::size_t n,
                                 Dist dist, Layout layout, Data data) {
  std::ostringstream s;
  s << to_string(type) << " keys" << (values ? std::string(" with ") + values + " values" : std::string())
    << ", " << clsort::to_string(order) << ", n=" << n << ", " << to_string(dist) << ", layout "
    << to_string(layout) << ", " << to_string(data) << " data, " << w.size << " ranks";
  return s.str();
}

}  // namespace clsort_mpi_test
