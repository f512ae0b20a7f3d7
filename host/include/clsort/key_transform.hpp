// The order-preserving bit transforms clsort applies to keys, on the host. The device versions live in
// kernels/common.cl and must stay identical: every algorithm sorts encode_key(x) as unsigned integers.
// Useful to users who want clsort's exact order on the CPU (e.g. to merge results).
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "clsort/float16.hpp"

namespace clsort {

/// The unsigned integer type of the same width as K.
template <class K>
using key_bits_t =
    std::conditional_t<sizeof(K) == 8, std::uint64_t,
                       std::conditional_t<sizeof(K) == 4, std::uint32_t,
                                          std::conditional_t<sizeof(K) == 2, std::uint16_t, std::uint8_t>>>;

/// Whether K is one of clsort's floating-point key types (float, double, half, bfloat16).
template <class K>
constexpr bool is_float_key_v =
    std::is_floating_point_v<K> || std::is_same_v<K, half> || std::is_same_v<K, bfloat16>;

namespace detail {
// The fraction bits' all-ones pattern: how many NaN codes there are of each sign.
template <class K>
constexpr std::uint64_t nan_span() {
  if constexpr (std::is_same_v<K, double>) return 0x000FFFFFFFFFFFFFull;
  if constexpr (std::is_same_v<K, float>) return 0x007FFFFFull;
  if constexpr (std::is_same_v<K, half>) return 0x3FFull;
  return 0x7Full;  // bfloat16
}
}  // namespace detail

/// Maps a key to unsigned bits whose unsigned order is clsort's order: by value; for floats -0 < +0 and
/// every NaN after +inf; `descending` reverses it exactly. A bijection: decode_key() inverts it.
template <class K>
key_bits_t<K> encode_key(K key, bool descending = false) {
  using U = key_bits_t<K>;
  constexpr U sign = U(U(1) << (sizeof(U) * 8 - 1));
  U x;
  std::memcpy(&x, &key, sizeof x);
  if constexpr (is_float_key_v<K>) {
    // After the sign-magnitude flip, negative NaNs are the smallest codes; rotating by their count
    // moves them above the positive NaNs.
    x = (x & sign) ? U(~x) : U(x | sign);
    x = U(x - U(detail::nan_span<K>()));
  } else if constexpr (std::is_signed_v<K>) {
    x = U(x ^ sign);
  }
  return descending ? U(~x) : x;
}

template <class K>
K decode_key(key_bits_t<K> x, bool descending = false) {
  using U = key_bits_t<K>;
  constexpr U sign = U(U(1) << (sizeof(U) * 8 - 1));
  if (descending) x = U(~x);
  if constexpr (is_float_key_v<K>) {
    x = U(x + U(detail::nan_span<K>()));
    x = (x & sign) ? U(x ^ sign) : U(~x);
  } else if constexpr (std::is_signed_v<K>) {
    x = U(x ^ sign);
  }
  K key;
  std::memcpy(&key, &x, sizeof key);
  return key;
}

/// Whether a key is a NaN (false for integer keys).
template <class K>
bool key_is_nan(K key) {
  if constexpr (is_float_key_v<K>) {
    using U = key_bits_t<K>;
    // The NaNs' codes are the 2 * span largest, above +inf's.
    return encode_key(key) > U(U(~U(0)) - U(2 * detail::nan_span<K>()));
  } else {
    (void)key;
    return false;
  }
}

/// clsort's strict weak order on keys (NaNs compare equal to each other).
template <class K>
bool key_less(K a, K b, bool descending = false) {
  if (key_is_nan(a) && key_is_nan(b)) return false;
  return encode_key(a, descending) < encode_key(b, descending);
}

}  // namespace clsort
