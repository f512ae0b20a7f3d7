// Sequential CPU versions of clsort's algorithms, the baselines `clsort bench` measures each device
// algorithm against: written for clarity and correctness, on clsort::encode_key bits like the kernels.
#pragma once

#include <clsort/key_transform.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace clsort_cli::serial {

/// LSD radix sort, 8-bit digits, one counting pass per digit (stable).
template <class K>
void radix_sort(K* keys, std::size_t n, bool descending = false) {
  using U = clsort::key_bits_t<K>;
  std::vector<U> a(n), b(n);
  for (std::size_t i = 0; i < n; ++i) a[i] = clsort::encode_key(keys[i], descending);
  for (unsigned shift = 0; shift < sizeof(U) * 8; shift += 8) {
    std::size_t count[257] = {};
    for (std::size_t i = 0; i < n; ++i) ++count[((a[i] >> shift) & 0xFF) + 1];
    for (int d = 0; d < 256; ++d) count[d + 1] += count[d];
    for (std::size_t i = 0; i < n; ++i) b[count[(a[i] >> shift) & 0xFF]++] = a[i];
    a.swap(b);
  }
  for (std::size_t i = 0; i < n; ++i) keys[i] = clsort::decode_key<K>(a[i], descending);
}

/// radix_sort moving each value with its key; stability keeps equal keys' values in input order.
template <class K, class V>
void radix_sort_by_key(K* keys, V* values, std::size_t n, bool descending = false) {
  using U = clsort::key_bits_t<K>;
  std::vector<U> a(n), b(n);
  std::vector<V> va(values, values + n), vb(n);
  for (std::size_t i = 0; i < n; ++i) a[i] = clsort::encode_key(keys[i], descending);
  for (unsigned shift = 0; shift < sizeof(U) * 8; shift += 8) {
    std::size_t count[257] = {};
    for (std::size_t i = 0; i < n; ++i) ++count[((a[i] >> shift) & 0xFF) + 1];
    for (int d = 0; d < 256; ++d) count[d + 1] += count[d];
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t to = count[(a[i] >> shift) & 0xFF]++;
      b[to] = a[i];
      vb[to] = va[i];
    }
    a.swap(b);
    va.swap(vb);
  }
  for (std::size_t i = 0; i < n; ++i) keys[i] = clsort::decode_key<K>(a[i], descending);
  std::copy(va.begin(), va.end(), values);
}

/// The keys' codes (clsort::encode_key) padded with the largest code to the next power of two. Pads equal to
/// real keys are indistinguishable after decoding, so the first n codes sorted are the sorted keys.
template <class K>
std::vector<clsort::key_bits_t<K>> padded_codes(const K* keys, std::size_t n, bool descending) {
  using U = clsort::key_bits_t<K>;
  std::size_t m = 1;
  while (m < n) m <<= 1;
  std::vector<U> a(m, U(~U(0)));
  for (std::size_t i = 0; i < n; ++i) a[i] = clsort::encode_key(keys[i], descending);
  return a;
}

/// The bitonic sorting network over m (a power of two) elements: compare_exchange(i, j, up) for each pair
/// i < j it compares, in network order; `up`: whether the pair is to end in ascending order.
template <class F>
void bitonic_network(std::size_t m, F&& compare_exchange) {
  for (std::size_t size = 2; size <= m; size <<= 1)
    for (std::size_t stride = size / 2; stride > 0; stride >>= 1)
      for (std::size_t i = 0; i < m; ++i) {
        const std::size_t j = i ^ stride;
        if (j > i) compare_exchange(i, j, (i & size) == 0);
      }
}

/// Bitonic sorting network over the next power of two (padded_codes).
template <class K>
void bitonic_sort(K* keys, std::size_t n, bool descending = false) {
  std::vector<clsort::key_bits_t<K>> a = padded_codes(keys, n, descending);
  bitonic_network(a.size(), [&](std::size_t i, std::size_t j, bool up) {
    if ((a[i] > a[j]) == up) std::swap(a[i], a[j]);
  });
  for (std::size_t i = 0; i < n; ++i) keys[i] = clsort::decode_key<K>(a[i], descending);
}

/// bitonic_sort made stable the way clsort's kernels make it: each code carries its input position, which
/// breaks ties, and the values are gathered by position at the end. Pads carry positions past every
/// real one, so they still end up last.
template <class K, class V>
void bitonic_sort_by_key(K* keys, V* values, std::size_t n, bool descending = false) {
  std::vector<clsort::key_bits_t<K>> a = padded_codes(keys, n, descending);
  std::vector<std::uint32_t> index(a.size());
  for (std::size_t i = 0; i < index.size(); ++i) index[i] = std::uint32_t(i);
  bitonic_network(a.size(), [&](std::size_t i, std::size_t j, bool up) {
    const bool greater = a[i] > a[j] || (a[i] == a[j] && index[i] > index[j]);
    if (greater == up) {
      std::swap(a[i], a[j]);
      std::swap(index[i], index[j]);
    }
  });
  const std::vector<V> v(values, values + n);
  for (std::size_t i = 0; i < n; ++i) {
    keys[i] = clsort::decode_key<K>(a[i], descending);
    values[i] = v[index[i]];
  }
}

/// Each key's position in the sorted order: the number of keys before it in order, ties broken by input
/// position (stable), as kernels/selection.cl computes it. O(n^2).
template <class K>
std::vector<std::size_t> selection_ranks(const K* keys, std::size_t n, bool descending) {
  using U = clsort::key_bits_t<K>;
  std::vector<U> a(n);
  for (std::size_t i = 0; i < n; ++i) a[i] = clsort::encode_key(keys[i], descending);
  std::vector<std::size_t> rank(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < i; ++j) rank[i] += a[j] <= a[i];
    for (std::size_t j = i + 1; j < n; ++j) rank[i] += a[j] < a[i];
  }
  return rank;
}

/// Selection (rank) sort, O(n^2): each key moved to its selection_ranks position.
template <class K>
void selection_sort(K* keys, std::size_t n, bool descending = false) {
  const std::vector<std::size_t> rank = selection_ranks(keys, n, descending);
  std::vector<K> out(n);
  for (std::size_t i = 0; i < n; ++i) out[rank[i]] = keys[i];
  std::copy(out.begin(), out.end(), keys);
}

/// selection_sort moving each value to its key's rank.
template <class K, class V>
void selection_sort_by_key(K* keys, V* values, std::size_t n, bool descending = false) {
  const std::vector<std::size_t> rank = selection_ranks(keys, n, descending);
  std::vector<K> out(n);
  std::vector<V> out_values(n);
  for (std::size_t i = 0; i < n; ++i) {
    out[rank[i]] = keys[i];
    out_values[rank[i]] = values[i];
  }
  std::copy(out.begin(), out.end(), keys);
  std::copy(out_values.begin(), out_values.end(), values);
}

/// Odd-even transposition sort, O(n^2): n phases comparing neighbours (even pairs, then odd pairs);
/// only strictly out-of-order neighbours swap, so equal keys never pass each other.
template <class K>
void odd_even_sort(K* keys, std::size_t n, bool descending = false) {
  using U = clsort::key_bits_t<K>;
  std::vector<U> a(n);
  for (std::size_t i = 0; i < n; ++i) a[i] = clsort::encode_key(keys[i], descending);
  for (std::size_t phase = 0; phase < n; ++phase)
    for (std::size_t i = phase % 2; i + 1 < n; i += 2)
      if (a[i] > a[i + 1]) std::swap(a[i], a[i + 1]);
  for (std::size_t i = 0; i < n; ++i) keys[i] = clsort::decode_key<K>(a[i], descending);
}

/// odd_even_sort moving each value with its key (stable: equal neighbours never swap).
template <class K, class V>
void odd_even_sort_by_key(K* keys, V* values, std::size_t n, bool descending = false) {
  using U = clsort::key_bits_t<K>;
  std::vector<U> a(n);
  for (std::size_t i = 0; i < n; ++i) a[i] = clsort::encode_key(keys[i], descending);
  for (std::size_t phase = 0; phase < n; ++phase)
    for (std::size_t i = phase % 2; i + 1 < n; i += 2)
      if (a[i] > a[i + 1]) {
        std::swap(a[i], a[i + 1]);
        std::swap(values[i], values[i + 1]);
      }
  for (std::size_t i = 0; i < n; ++i) keys[i] = clsort::decode_key<K>(a[i], descending);
}

/// Bottom-up merge sort: runs of width 1, 2, 4, ... merged pairwise into a second buffer and back; on
/// ties the left run's key goes first (stable). `values` may be null.
template <class K, class V = std::uint32_t>
void merge_sort_by_key(K* keys, V* values, std::size_t n, bool descending = false) {
  using U = clsort::key_bits_t<K>;
  std::vector<U> a(n), b(n);
  std::vector<V> va(values ? n : 0), vb(values ? n : 0);
  for (std::size_t i = 0; i < n; ++i) a[i] = clsort::encode_key(keys[i], descending);
  if (values) std::copy(values, values + n, va.begin());
  for (std::size_t w = 1; w < n; w *= 2) {
    for (std::size_t lo = 0; lo < n; lo += 2 * w) {
      const std::size_t mid = std::min(lo + w, n), hi = std::min(lo + 2 * w, n);
      std::size_t i = lo, j = mid, o = lo;
      while (i < mid || j < hi) {
        const bool left = j >= hi || (i < mid && a[i] <= a[j]);
        const std::size_t from = left ? i++ : j++;
        b[o] = a[from];
        if (values) vb[o] = va[from];
        ++o;
      }
    }
    a.swap(b);
    va.swap(vb);
  }
  for (std::size_t i = 0; i < n; ++i) keys[i] = clsort::decode_key<K>(a[i], descending);
  if (values) std::copy(va.begin(), va.end(), values);
}

/// merge_sort_by_key for keys alone.
template <class K>
void merge_sort(K* keys, std::size_t n, bool descending = false) {
  merge_sort_by_key<K, std::uint32_t>(keys, nullptr, n, descending);
}

}  // namespace clsort_cli::serial
