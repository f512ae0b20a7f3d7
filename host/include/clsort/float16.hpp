// clsort's 16-bit floating-point key types: IEEE 754 binary16 (`half`) and bfloat16 (`bfloat16`), each
// the 16 bits of one value. Sorting moves the bits; the conversions are for building and reading keys.
//
//   clsort::half h(1.5f);              // float -> half, rounded to nearest, ties to even
//   float f = float(h);                // exact: every half is a float
//   auto nan = clsort::half::from_bits(0xFE01);   // any bit pattern, NaN payloads and signs included
#pragma once

#include <cstdint>
#include <cstring>

namespace clsort {

namespace detail {
inline std::uint32_t float_bits(float f) {
  std::uint32_t x;
  std::memcpy(&x, &f, sizeof x);
  return x;
}
inline float bits_float(std::uint32_t x) {
  float f;
  std::memcpy(&f, &x, sizeof f);
  return f;
}
// Rounds m / 2^shift to nearest, ties to even (0 < shift < 32).
inline std::uint32_t round_shift(std::uint32_t m, unsigned shift) {
  const std::uint32_t q = m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
  return q + ((rem > half || (rem == half && (q & 1))) ? 1 : 0);
}
}  // namespace detail

/// IEEE 754 binary16: 1 sign, 5 exponent, 10 fraction bits. Trivially copyable, 2 bytes.
struct half {
  std::uint16_t bits;  ///< the value's bit pattern

  half() = default;
  /// Rounds to nearest, ties to even; overflow gives infinity; a NaN stays a NaN of the same sign (quiet,
  /// with the top fraction bits of its payload).
  explicit half(float f) : bits(from_float(f)) {}
  /// Exact.
  explicit operator float() const {
    const std::uint32_t sign = std::uint32_t(bits & 0x8000u) << 16;
    const std::uint32_t exp = (bits >> 10) & 0x1Fu, frac = bits & 0x3FFu;
    if (exp == 0x1F) return detail::bits_float(sign | 0x7F800000u | (frac << 13));
    if (exp != 0) return detail::bits_float(sign | ((exp + 112) << 23) | (frac << 13));
    // Zero or subnormal: frac * 2^-24, exact in a float.
    const float magnitude = float(frac) * detail::bits_float(0x33800000u);
    return sign ? -magnitude : magnitude;
  }
  /// The half with these bits.
  static half from_bits(std::uint16_t b) {
    half h;
    h.bits = b;
    return h;
  }

 private:
  static std::uint16_t from_float(float f) {
    const std::uint32_t x = detail::float_bits(f);
    const std::uint16_t sign = std::uint16_t((x >> 16) & 0x8000u);
    const std::uint32_t ax = x & 0x7FFFFFFFu;
    if (ax > 0x7F800000u) return std::uint16_t(sign | 0x7E00u | ((ax >> 13) & 0x3FFu));
    if (ax >= 0x477FF000u) return std::uint16_t(sign | 0x7C00u);  // from halfway past 65504: infinity
    if (ax >= 0x38800000u)                                        // a normal half (from 2^-14)
      return std::uint16_t(sign | detail::round_shift(ax - (112u << 23), 13));
    const std::uint32_t e = ax >> 23;
    if (e < 102) return sign;  // below 2^-25, or exactly 2^-25 (a tie, to even): zero
    // Subnormal: the value in units of 2^-24; rounding up to 0x400 gives the smallest normal, as it should.
    return std::uint16_t(sign | detail::round_shift((ax & 0x7FFFFFu) | 0x800000u, 126 - e));
  }
};

/// bfloat16: the top 16 bits of a float (1 sign, 8 exponent, 7 fraction bits). Trivially copyable, 2 bytes.
struct bfloat16 {
  std::uint16_t bits;  ///< the value's bit pattern

  bfloat16() = default;
  /// Rounds to nearest, ties to even; a NaN stays a NaN of the same sign (quiet, top payload bits kept).
  explicit bfloat16(float f) : bits(from_float(f)) {}
  /// Exact.
  explicit operator float() const { return detail::bits_float(std::uint32_t(bits) << 16); }
  /// The bfloat16 with these bits.
  static bfloat16 from_bits(std::uint16_t b) {
    bfloat16 h;
    h.bits = b;
    return h;
  }

 private:
  static std::uint16_t from_float(float f) {
    const std::uint32_t x = detail::float_bits(f);
    if ((x & 0x7FFFFFFFu) > 0x7F800000u) return std::uint16_t((x >> 16) | 0x0040u);
    return std::uint16_t(detail::round_shift(x, 16));
  }
};

}  // namespace clsort
