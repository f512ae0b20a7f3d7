// The order-preserving bit transforms clsort applies to keys, on the host. The device versions live in
// kernels/common.cl and must stay identical: every algorithm sorts encode_key(x) as unsigned integers.
// Useful to users who want clsort's exact order on the CPU (e.g. to merge results).
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace clsort {

/// The unsigned integer type of the same width as K.
template <class K>
using key_bits_t = std::conditional_t<sizeof(K) == 8, std::uint64_t, std::uint32_t>;

/// Maps a key to unsigned bits whose unsigned order is clsort's order: by value; for floats -0 < +0 and
/// every NaN after +inf; `descending` reverses it exactly. A bijection: decode_key() inverts it.
template <class K>
key_bits_t<K> encode_key(K key, bool descending = false) {
  using U = key_bits_t<K>;
  constexpr U sign = U(1) << (sizeof(U) * 8 - 1);
  U x;
  std::memcpy(&x, &key, sizeof x);
  if constexpr (std::is_floating_point_v<K>) {
    // After the sign-magnitude flip, negative NaNs are the smallest codes; rotating by their count
    // moves them above the positive NaNs.
    constexpr U neg_nan_span = sizeof(U) == 8 ? U(0x000FFFFFFFFFFFFFull) : U(0x007FFFFFu);
    x = (x & sign) ? U(~x) : U(x | sign);
    x -= neg_nan_span;
  } else if constexpr (std::is_signed_v<K>) {
    x ^= sign;
  }
  return descending ? U(~x) : x;
}

template <class K>
K decode_key(key_bits_t<K> x, bool descending = false) {
  using U = key_bits_t<K>;
  constexpr U sign = U(1) << (sizeof(U) * 8 - 1);
  if (descending) x = U(~x);
  if constexpr (std::is_floating_point_v<K>) {
    constexpr U neg_nan_span = sizeof(U) == 8 ? U(0x000FFFFFFFFFFFFFull) : U(0x007FFFFFu);
    x += neg_nan_span;
    x = (x & sign) ? U(x ^ sign) : U(~x);
  } else if constexpr (std::is_signed_v<K>) {
    x ^= sign;
  }
  K key;
  std::memcpy(&key, &x, sizeof key);
  return key;
}

/// clsort's strict weak order on keys (NaNs compare equal to each other).
template <class K>
bool key_less(K a, K b, bool descending = false) {
  if constexpr (std::is_floating_point_v<K>) {
    if (a != a && b != b) return false;
  }
  return encode_key(a, descending) < encode_key(b, descending);
}

}  // namespace clsort
