// The reliability tests' own model of clsort's order (written from the README, not from clsort's code),
// key generators, and checks of sortedness, bit-pattern permutation and stability on type-erased keys.
#pragma once

#include <clsort/clsort.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace reliability {

using clsort::Algorithm;
using clsort::KeyType;
using clsort::Order;

inline const std::vector<KeyType>& all_types() {
  static const std::vector<KeyType> t{KeyType::u32, KeyType::i32, KeyType::f32, KeyType::u64,
                                      KeyType::i64, KeyType::f64, KeyType::u8,  KeyType::i8,
                                      KeyType::u16, KeyType::i16, KeyType::f16, KeyType::bf16};
  return t;
}

inline unsigned width(KeyType t) {
  return unsigned(clsort::key_size(t));
}

inline std::uint64_t width_mask(KeyType t) {
  return width(t) == 8 ? ~0ull : (1ull << (8 * width(t))) - 1;
}

// The 16-bit floats' value from their fields (IEEE 754's definition), as a double: exact.
inline double float16_value(KeyType t, std::uint64_t b) {
  const int mant = t == KeyType::f16 ? 10 : 7, bias = t == KeyType::f16 ? 15 : 127;
  const std::uint64_t frac = b & ((1u << mant) - 1), exp = (b >> mant) & ((1u << (15 - mant)) - 1);
  const bool negative = (b >> 15) & 1;
  double v;
  if (exp == (1u << (15 - mant)) - 1)
    v = frac ? std::nan("") : HUGE_VAL;
  else if (exp == 0)
    v = std::ldexp(double(frac), 1 - bias - mant);
  else
    v = std::ldexp(double(frac | (1u << mant)), int(exp) - bias - mant);
  return negative ? -v : v;
}

// Keys are held as their bit patterns, zero-extended to 64 bits, so one code path serves every type.
inline bool is_nan(KeyType t, std::uint64_t b) {
  if (t == KeyType::f16 || t == KeyType::bf16) return std::isnan(float16_value(t, b));
  if (t == KeyType::f32) return (b & 0x7F800000u) == 0x7F800000u && (b & 0x007FFFFFu) != 0;
  if (t == KeyType::f64)
    return (b & 0x7FF0000000000000ull) == 0x7FF0000000000000ull && (b & 0x000FFFFFFFFFFFFFull) != 0;
  return false;
}

// The README's ascending order: by value; -0.0 before +0.0; every NaN after +inf, NaNs equivalent.
// Spelled with the C++ float predicates rather than bit tricks so that it cannot share a bug with
// clsort's encode_key.
inline bool less(KeyType t, std::uint64_t a, std::uint64_t b) {
  switch (t) {
    case KeyType::u8:
    case KeyType::u16:
    case KeyType::u32:
    case KeyType::u64:
      return a < b;
    case KeyType::i8:
      return std::int8_t(std::uint8_t(a)) < std::int8_t(std::uint8_t(b));
    case KeyType::i16:
      return std::int16_t(std::uint16_t(a)) < std::int16_t(std::uint16_t(b));
    case KeyType::i32:
      return std::int32_t(std::uint32_t(a)) < std::int32_t(std::uint32_t(b));
    case KeyType::i64:
      return std::int64_t(a) < std::int64_t(b);
    case KeyType::f16:
    case KeyType::bf16:
    case KeyType::f32:
    case KeyType::f64: {
      double x, y;
      if (t == KeyType::f16 || t == KeyType::bf16) {
        x = float16_value(t, a);
        y = float16_value(t, b);
      } else if (t == KeyType::f32) {
        float fx, fy;
        const std::uint32_t ax = std::uint32_t(a), by = std::uint32_t(b);
        std::memcpy(&fx, &ax, 4);
        std::memcpy(&fy, &by, 4);
        x = fx, y = fy;  // exact: every float is a double
      } else {
        std::memcpy(&x, &a, 8);
        std::memcpy(&y, &b, 8);
      }
      const bool nx = std::isnan(x), ny = std::isnan(y);
      if (nx || ny) return !nx && ny;
      if (x != y) return x < y;
      return std::signbit(x) && !std::signbit(y);
    }
  }
  return false;
}

inline bool before(KeyType t, Order o, std::uint64_t a, std::uint64_t b) {
  return o == Order::ascending ? less(t, a, b) : less(t, b, a);
}

// Host arrays of the key type's width from bit patterns, and back.
inline std::vector<unsigned char> pack(KeyType t, const std::vector<std::uint64_t>& bits) {
  const unsigned w = width(t);
  std::vector<unsigned char> out(bits.size() * w);
  for (std::size_t i = 0; i < bits.size(); ++i) std::memcpy(&out[i * w], &bits[i], w);  // little-endian
  return out;
}
inline std::vector<std::uint64_t> unpack(KeyType t, const unsigned char* bytes, std::size_t n) {
  const unsigned w = width(t);
  std::vector<std::uint64_t> out(n, 0);
  for (std::size_t i = 0; i < n; ++i) std::memcpy(&out[i], bytes + i * w, w);  // little-endian
  return out;
}

inline std::string hex(std::uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

// Empty when `out` is `in` reordered (same multiset of bit patterns) and sorted under `order`.
inline std::string check_keys(KeyType t, Order o, const std::vector<std::uint64_t>& in,
                              const std::vector<std::uint64_t>& out) {
  if (in.size() != out.size()) return "size changed";
  for (std::size_t i = 1; i < out.size(); ++i)
    if (before(t, o, out[i], out[i - 1]))
      return "not sorted at " + std::to_string(i) + ": " + hex(out[i - 1]) + " then " + hex(out[i]);
  std::vector<std::uint64_t> a = in, b = out;
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i]) return "not a permutation of the input bit patterns (e.g. " + hex(a[i]) + ")";
  return {};
}

// For sorts that carry each key's input position (by-key values, argsort): `index[i]` is where out[i]
// came from. Checks that the positions are a permutation, that each key travelled with its own position,
// that the keys are sorted, and stability: keys with the same bit pattern keep their input order.
inline std::string check_pairs(KeyType t, Order o, const std::vector<std::uint64_t>& in,
                               const std::vector<std::uint64_t>& out,
                               const std::vector<std::uint64_t>& index) {
  if (in.size() != out.size() || index.size() != out.size()) return "size changed";
  std::vector<char> seen(in.size(), 0);
  std::map<std::uint64_t, std::uint64_t> last_index;  // per bit pattern, the last position seen
  for (std::size_t i = 0; i < out.size(); ++i) {
    const std::uint64_t j = index[i];
    if (j >= in.size() || seen[j]) return "position " + std::to_string(i) + " carries a bad index " + hex(j);
    seen[j] = 1;
    if (in[j] != out[i])
      return "position " + std::to_string(i) + ": key " + hex(out[i]) + " with the value of input " +
             std::to_string(j) + " (key " + hex(in[j]) + ")";
    if (i > 0 && before(t, o, out[i], out[i - 1]))
      return "not sorted at " + std::to_string(i) + ": " + hex(out[i - 1]) + " then " + hex(out[i]);
    auto it = last_index.find(out[i]);
    if (it != last_index.end() && it->second > j)
      return "unstable: key " + hex(out[i]) + " from input " + std::to_string(j) + " after input " +
             std::to_string(it->second);
    last_index[out[i]] = j;
  }
  return {};
}

enum class Dist { random, narrow, few_unique, sorted, reversed, all_equal, specials, sawtooth };
inline const char* to_string(Dist d) {
  static const char* names[] = {"random",   "narrow",    "few_unique", "sorted",
                                "reversed", "all_equal", "specials",   "sawtooth"};
  return names[int(d)];
}
constexpr int kDists = 8;

// Values that stress the transforms: signed zeros, infinities, NaNs of both signs and several payloads
// (quiet and signalling), denormals, and the integer extremes.
inline std::vector<std::uint64_t> special_bits(KeyType t) {
  if (t == KeyType::f32)
    return {0x0,        0x80000000, 0x7F800000, 0xFF800000, 0x00000001, 0x80000001, 0x007FFFFF,
            0x807FFFFF, 0x7F7FFFFF, 0xFF7FFFFF, 0x3F800000, 0xBF800000, 0x7FC00000, 0xFFC00000,
            0x7F800001, 0xFF800001, 0x7FFFFFFF, 0xFFFFFFFF, 0x7FC05A5A, 0x00800000};
  if (t == KeyType::f64)
    return {0x0,
            0x8000000000000000ull,
            0x7FF0000000000000ull,
            0xFFF0000000000000ull,
            0x1,
            0x8000000000000001ull,
            0x000FFFFFFFFFFFFFull,
            0x800FFFFFFFFFFFFFull,
            0x7FEFFFFFFFFFFFFFull,
            0xFFEFFFFFFFFFFFFFull,
            0x3FF0000000000000ull,
            0xBFF0000000000000ull,
            0x7FF8000000000000ull,
            0xFFF8000000000000ull,
            0x7FF0000000000001ull,
            0xFFF0000000000001ull,
            0x7FFFFFFFFFFFFFFFull,
            0xFFFFFFFFFFFFFFFFull,
            0x0010000000000000ull};
  if (t == KeyType::f16)  // the same set for binary16
    return {0x0,    0x8000, 0x7C00, 0xFC00, 0x0001, 0x8001, 0x03FF, 0x83FF, 0x7BFF, 0xFBFF,
            0x3C00, 0xBC00, 0x7E00, 0xFE00, 0x7C01, 0xFC01, 0x7FFF, 0xFFFF, 0x7E5A, 0x0400};
  if (t == KeyType::bf16)  // and for bfloat16
    return {0x0,    0x8000, 0x7F80, 0xFF80, 0x0001, 0x8001, 0x007F, 0x807F, 0x7F7F, 0xFF7F,
            0x3F80, 0xBF80, 0x7FC0, 0xFFC0, 0x7F81, 0xFF81, 0x7FFF, 0xFFFF, 0x7FDA, 0x0080};
  const std::uint64_t top = width_mask(t);
  const std::uint64_t sign = (top >> 1) + 1;
  return {0, 1, 2, top, top - 1, sign, sign - 1, sign + 1, top / 3};
}

inline std::vector<std::uint64_t> make_keys(KeyType t, Dist d, std::size_t n, std::mt19937_64& rng) {
  const std::uint64_t mask = width_mask(t);
  std::vector<std::uint64_t> v(n);
  const std::vector<std::uint64_t> specials = special_bits(t);
  std::vector<std::uint64_t> pool;
  for (int i = 0; i < 5; ++i) pool.push_back(rng() & mask);
  pool.push_back(specials[rng() % specials.size()]);
  for (std::size_t i = 0; i < n; ++i) {
    switch (d) {
      case Dist::random:
      case Dist::sorted:
      case Dist::reversed:
        v[i] = rng() & mask;
        break;
      case Dist::narrow:  // many duplicates, and the high digits all equal: a radix pass per digit
        v[i] = ((pool[0] & ~std::uint64_t(0xFFF)) | (rng() & 0x3F)) & mask;
        break;
      case Dist::few_unique:
        v[i] = pool[rng() % pool.size()];
        break;
      case Dist::all_equal:
        v[i] = pool[0];
        break;
      case Dist::specials:
        v[i] = rng() % 4 ? specials[rng() % specials.size()] : rng() & mask;
        break;
      case Dist::sawtooth:
        v[i] = (i % 61) * 0x01010101ull & mask;
        break;
    }
  }
  if (d == Dist::sorted || d == Dist::reversed) {
    std::stable_sort(v.begin(), v.end(), [t](std::uint64_t a, std::uint64_t b) { return less(t, a, b); });
    if (d == Dist::reversed) std::reverse(v.begin(), v.end());
  }
  return v;
}

// Values for by-key sorts: the input position in the low 32 bits, noise above (8-byte values), so the
// output values tell where each key came from.
inline std::vector<unsigned char> make_values(std::size_t n, unsigned value_bytes, std::mt19937_64& rng) {
  std::vector<unsigned char> out(n * value_bytes);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t v = (rng() << 32) | std::uint32_t(i);
    std::memcpy(&out[i * value_bytes], &v, value_bytes);  // little-endian: the low bytes first
  }
  return out;
}
inline std::vector<std::uint64_t> value_indices(const std::vector<unsigned char>& values,
                                                unsigned value_bytes) {
  std::vector<std::uint64_t> out(values.size() / value_bytes);
  for (std::size_t i = 0; i < out.size(); ++i) {
    std::uint32_t v;
    std::memcpy(&v, &values[i * value_bytes], 4);
    out[i] = v;
  }
  return out;
}

// Empty when each output value is, byte for byte, the input value at the position it names.
inline std::string check_values_follow(const std::vector<unsigned char>& in,
                                       const std::vector<unsigned char>& out, unsigned value_bytes) {
  const std::vector<std::uint64_t> index = value_indices(out, value_bytes);
  for (std::size_t i = 0; i < index.size(); ++i)
    if (index[i] >= index.size() ||
        std::memcmp(&out[i * value_bytes], &in[index[i] * value_bytes], value_bytes) != 0)
      return "value at " + std::to_string(i) + " is not the input value it names";
  return {};
}

}  // namespace reliability
