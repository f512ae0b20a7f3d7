// Shared test machinery: seeded key and value generators, a reference order written independently of
// clsort's key transforms, and comparisons that report the first difference in bits.
#pragma once

#include <clsort/clsort.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <numeric>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace clsort_test {

using clsort::Algorithm;
using clsort::KeyType;
using clsort::Order;

// ---- Run configuration ---------------------------------------------------------------------------

/// CLSORT_TEST_FULL=1 (or -DCLSORT_TEST_FULL=ON): every distribution at every size, for GPU runs.
bool full_matrix();
/// The base of every seed: CLSORT_TEST_SEED if set, else a fixed constant, so runs are reproducible.
std::uint64_t base_seed();
/// A seed per data set, derived from the base seed and what the data set is.
std::uint64_t seed_for(KeyType type, int what, std::size_t n, std::uint64_t salt = 0);

/// The process-wide Sorter the tests share (CLSORT_DEVICE picks the device, as for applications).
clsort::Sorter& shared_sorter();

/// A Sorter on the shared context whose radix sort takes the other shape than the device's tuning picks
/// (radix.cpu flipped: CPU devices then run the GPU kernels and vice versa), so that both shapes meet the
/// whole matrix on any device. Null when the tuning offers no such choice.
clsort::Sorter* alternate_radix_sorter();
/// The tune() string alternate_radix_sorter() applied, for messages.
std::string alternate_radix_tuning();
/// alternate_radix_sorter() for the radix_alt test cases: null after a MESSAGE that there is nothing to test.
clsort::Sorter* alternate_radix_sorter_to_test();

/// The sizes the issue lists plus every work-group, block and tile size of `sorter`'s tuning +-1,
/// up to max_n.
std::vector<std::size_t> matrix_sizes(const clsort::Sorter& sorter, std::size_t max_n);
/// The tuning value `name` from DevicePlan::tuning ("radix.wg" -> 64), 0 if absent.
std::size_t plan_value(const clsort::Sorter& sorter, const std::string& name);

/// Every algorithm: radix, bitonic, selection, automatic, odd_even and merge, through algorithm_named().
const std::vector<Algorithm>& all_algorithms();
/// The algorithm `name` names (clsort::parse_algorithm). An unknown name throws std::invalid_argument,
/// which fails the running test case: a misspelt name in a test must not make it test nothing.
Algorithm algorithm_named(const std::string& name);
/// The largest n the tests sort with `a`: algorithms of O(n^2) work or O(n) launches stop at 6144.
std::size_t matrix_max_n(Algorithm a);
inline const std::vector<Order>& both_orders() {
  static const std::vector<Order> o{Order::ascending, Order::descending};
  return o;
}

/// Enumerator `e`'s name in `names`, the enum's names in declaration order ("?" past its end): the tests'
/// to_string functions.
template <class E, std::size_t N>
const char* enum_name(E e, const char* const (&names)[N]) {
  const auto i = static_cast<std::size_t>(e);
  return i < N ? names[i] : "?";
}

// ---- Key distributions ---------------------------------------------------------------------------

enum class Dist { random, sorted, reversed, all_equal, few_unique, sawtooth, extremes, float_specials };
const char* to_string(Dist d);

/// Floating-point keys: float, double and the 16-bit clsort::half and clsort::bfloat16.
template <class K>
constexpr bool is_float_v =
    std::is_floating_point_v<K> || std::is_same_v<K, clsort::half> || std::is_same_v<K, clsort::bfloat16>;
/// The fraction bits of a floating-point key type.
template <class K>
constexpr int fraction_bits() {
  if constexpr (std::is_same_v<K, clsort::half>)
    return 10;
  else if constexpr (std::is_same_v<K, clsort::bfloat16>)
    return 7;
  else
    return std::numeric_limits<K>::digits - 1;
}

template <class K>
std::vector<Dist> distributions() {
  std::vector<Dist> d{Dist::random,     Dist::sorted,   Dist::reversed, Dist::all_equal,
                      Dist::few_unique, Dist::sawtooth, Dist::extremes};
  if (is_float_v<K>) d.push_back(Dist::float_specials);
  return d;
}
/// The one non-random distribution kept at the largest size when the matrix is not full: the one most
/// likely to break a transform (NaNs, +-0, infinities for floats; min/max for integers).
template <class K>
Dist special_distribution() {
  return is_float_v<K> ? Dist::float_specials : Dist::extremes;
}

template <class K>
using Bits =
    std::conditional_t<sizeof(K) == 8, std::uint64_t,
                       std::conditional_t<sizeof(K) == 4, std::uint32_t,
                                          std::conditional_t<sizeof(K) == 2, std::uint16_t, std::uint8_t>>>;

template <class T>
Bits<T> bits_of(T x) {
  Bits<T> b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}
template <class T>
T from_bits(Bits<T> b) {
  T x;
  std::memcpy(&x, &b, sizeof x);
  return x;
}

template <class K>
bool is_nan_key(K k) {
  if constexpr (std::is_floating_point_v<K>)
    return std::isnan(k);
  else if constexpr (is_float_v<K>)
    return std::isnan(float(k));  // exact: every half and bfloat16 is a float
  else
    return false;
}

template <class T>
std::string hex(const T& x) {
  unsigned char b[sizeof(T)];
  std::memcpy(b, &x, sizeof b);
  std::string s = "0x";
  char buf[3];
  for (std::size_t i = sizeof b; i-- > 0;) {  // little-endian host: most significant byte first
    std::snprintf(buf, sizeof buf, "%02x", b[i]);
    s += buf;
  }
  return s;
}

/// Float values every float test must survive: signed zeros, infinities, NaNs of both signs with
/// several payloads (quiet and signalling), denormals of both signs, and the normal extremes. Built from
/// bits, so that the 16-bit types get the same set.
template <class F>
std::vector<F> special_floats() {
  using U = Bits<F>;
  constexpr int mant = fraction_bits<F>();
  const U sign = U(U(1) << (sizeof(U) * 8 - 1));
  const U exp_all = U(((U(1) << (sizeof(U) * 8 - 1 - mant)) - 1) << mant);
  const U quiet = U(U(1) << (mant - 1));
  const U mant_max = U((U(1) << mant) - 1);
  const U bias = U(exp_all >> (mant + 1));  // the exponent field of 1.0
  const U one = U(bias << mant), min_normal = U(U(1) << mant), max_finite = U(exp_all - 1);
  const U epsilon = U(U(bias - mant) << mant);
  auto f = [](U b) { return from_bits<F>(b); };
  std::vector<F> v{f(0),
                   f(sign),
                   f(exp_all),
                   f(U(sign | exp_all)),
                   f(1),  // smallest denormal
                   f(U(sign | 1)),
                   f(mant_max),            // largest denormal
                   f(U(sign | mant_max)),  // its negative
                   f(U(U(0x1234) & mant_max)),
                   f(min_normal),
                   f(U(sign | min_normal)),
                   f(max_finite),
                   f(U(sign | max_finite)),
                   f(epsilon),
                   f(one),
                   f(U(sign | one))};
  for (U payload : {U(0), U(1), U(U(0x5a5a) & (quiet - 1)), U(quiet - 1)}) {
    v.push_back(f(U(exp_all | quiet | payload)));         // quiet NaN
    v.push_back(f(U(sign | exp_all | quiet | payload)));  // negative quiet NaN
    if (payload) {                                        // signalling NaN (payload != 0)
      v.push_back(f(U(exp_all | payload)));
      v.push_back(f(U(sign | exp_all | payload)));
    }
  }
  return v;
}

template <class K>
std::vector<K> integer_extremes() {
  using L = std::numeric_limits<K>;
  std::vector<K> v{L::min(), K(L::min() + 1), K(0), K(1), K(L::max() - 1), L::max(), K(2), K(L::max() / 2)};
  if (std::is_signed_v<K>) v.push_back(K(-1));
  return v;
}

template <class K>
std::vector<K> type_extremes() {
  if constexpr (is_float_v<K>) {
    // lowest, max, +-min normal, +-denorm_min, +-0, +-inf, epsilon, 1: special_floats without its NaNs
    // and its odd denormals.
    const std::vector<K> s = special_floats<K>();
    return {s[12], s[11], s[9], s[10], s[4], s[5], s[0], s[1], s[2], s[3], s[13], s[14]};
  } else {
    return integer_extremes<K>();
  }
}

// ---- Reference order ------------------------------------------------------------------------------

/// clsort's documented ascending order, spelled out with the C++ float predicates rather than bit tricks
/// (deliberately not clsort::key_less or encode_key, so that a transform bug cannot hide in both).
template <class K>
bool ref_less(K a, K b) {
  if constexpr (is_float_v<K> && !std::is_floating_point_v<K>) {
    return ref_less(float(a), float(b));  // exact conversions: the same order and the same NaNs and zeros
  } else if constexpr (std::is_floating_point_v<K>) {
    const bool na = std::isnan(a), nb = std::isnan(b);
    if (na || nb) return !na && nb;  // NaNs after everything, equivalent among themselves
    if (a != b) return a < b;
    return std::signbit(a) && !std::signbit(b);  // -0 before +0; other equal floats have equal bits
  } else {
    return a < b;
  }
}

template <class K>
bool ref_before(K a, K b, Order order) {
  return order == Order::ascending ? ref_less(a, b) : ref_less(b, a);
}

template <class K>
std::vector<K> reference_sort(std::vector<K> keys, Order order) {
  std::stable_sort(keys.begin(), keys.end(), [order](K a, K b) { return ref_before(a, b, order); });
  return keys;
}

/// The stable permutation that sorts keys in `order`.
template <class K>
std::vector<std::uint32_t> reference_argsort(const std::vector<K>& keys, Order order) {
  std::vector<std::uint32_t> idx(keys.size());
  std::iota(idx.begin(), idx.end(), 0u);
  std::stable_sort(idx.begin(), idx.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return ref_before(keys[a], keys[b], order); });
  return idx;
}

// ---- Generators ------------------------------------------------------------------------------------

template <class K>
K random_key(std::mt19937_64& rng) {
  // Uniform over bit patterns: for floats every exponent, denormals and NaNs occur.
  return from_bits<K>(Bits<K>(rng()));
}

template <class K>
std::vector<K> make_keys(Dist dist, std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<K> v(n);
  auto pick = [&](const std::vector<K>& pool) { return pool[rng() % pool.size()]; };
  switch (dist) {
    case Dist::random:
      for (auto& x : v) x = random_key<K>(rng);
      break;
    case Dist::sorted:
    case Dist::reversed:
      for (auto& x : v) x = random_key<K>(rng);
      v = reference_sort(std::move(v), Order::ascending);
      if (dist == Dist::reversed) std::reverse(v.begin(), v.end());
      break;
    case Dist::all_equal: {
      const K k = random_key<K>(rng);
      std::fill(v.begin(), v.end(), k);
      break;
    }
    case Dist::few_unique: {
      std::vector<K> pool{K(0)};
      if (is_float_v<K>) pool.push_back(K(-0.0f));  // -0 and +0 are distinct keys
      for (int i = 0; i < 4; ++i) pool.push_back(random_key<K>(rng));
      for (auto& x : v) x = pick(pool);
      break;
    }
    case Dist::sawtooth: {
      const std::size_t period = 61;  // prime, so the teeth straddle every power-of-two boundary
      for (std::size_t i = 0; i < n; ++i) {
        const long long t = static_cast<long long>(i % period);
        if constexpr (is_float_v<K>)
          v[i] = K(float(t - 30) * 0.5f);
        else if constexpr (std::is_signed_v<K>)
          v[i] = K(t - 30);
        else
          v[i] = K(t);
      }
      break;
    }
    case Dist::extremes: {
      const auto pool = type_extremes<K>();
      for (auto& x : v) x = pick(pool);
      break;
    }
    case Dist::float_specials: {
      std::vector<K> pool;
      if constexpr (is_float_v<K>) pool = special_floats<K>();
      if (pool.empty()) pool = type_extremes<K>();
      for (auto& x : v) {
        const auto r = rng();
        if (r % 2)
          x = pick(pool);
        else if (r % 4 == 0)  // random denormal of either sign
          x = from_bits<K>(Bits<K>(Bits<K>(rng() & ((Bits<K>(1) << fraction_bits<K>()) - 1)) |
                                   Bits<K>(Bits<K>(r >> 3 & 1) << (sizeof(K) * 8 - 1))));
        else
          x = random_key<K>(rng);
      }
      break;
    }
  }
  return v;
}

/// An 8-byte value type that is neither an integer nor a float.
struct Tagged {
  std::uint32_t index;
  std::uint16_t tag;
  std::uint8_t a, b;
};
static_assert(sizeof(Tagged) == 8 && std::is_trivially_copyable_v<Tagged>);

/// A value that identifies its input position (to check stability and pairing) and otherwise has
/// arbitrary bits (for double: some are NaNs, which must travel unchanged).
template <class V>
V make_value(std::size_t index, std::mt19937_64& rng) {
  const std::uint64_t r = rng();
  if constexpr (std::is_same_v<V, Tagged>) {
    return Tagged{std::uint32_t(index), std::uint16_t(r), std::uint8_t(r >> 16), std::uint8_t(r >> 24)};
  } else if constexpr (sizeof(V) == 4) {
    return from_bits<V>(std::uint32_t(index));
  } else {
    return from_bits<V>((r & 0xFFFFFFFF00000000ull) | std::uint64_t(index));
  }
}

template <class V>
std::vector<V> make_values(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed ^ 0x9e3779b97f4a7c15ull);
  std::vector<V> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = make_value<V>(i, rng);
  return v;
}

// ---- Comparisons -----------------------------------------------------------------------------------

template <class T>
bool same_bits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

template <class T>
std::vector<unsigned char> bytes_of(const T& x) {
  std::vector<unsigned char> b(sizeof(T));
  std::memcpy(b.data(), &x, sizeof(T));
  return b;
}

/// Empty when `got` equals `expected` bit for bit, except that the NaN positions of `expected` must hold
/// NaNs in `got` whose (key, value) bit patterns form the same multiset. Otherwise, the first difference.
/// `values_*` may be null for key-only sorts.
template <class K, class V = std::uint32_t>
std::string compare_sorted(const std::vector<K>& expected, const std::vector<K>& got,
                           const std::vector<V>* values_expected = nullptr,
                           const std::vector<V>* values_got = nullptr) {
  std::ostringstream out;
  if (expected.size() != got.size()) {
    out << "size " << got.size() << ", expected " << expected.size();
    return out.str();
  }
  using Item = std::pair<std::vector<unsigned char>, std::vector<unsigned char>>;
  std::vector<Item> nan_expected, nan_got;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const bool nan = is_nan_key(expected[i]);
    if (nan) {
      if (!is_nan_key(got[i])) {
        out << "index " << i << ": got key " << hex(got[i]) << ", expected a NaN (" << hex(expected[i])
            << ")";
        return out.str();
      }
      nan_expected.emplace_back(bytes_of(expected[i]), values_expected ? bytes_of((*values_expected)[i])
                                                                       : std::vector<unsigned char>{});
      nan_got.emplace_back(bytes_of(got[i]),
                           values_got ? bytes_of((*values_got)[i]) : std::vector<unsigned char>{});
      continue;
    }
    if (!same_bits(expected[i], got[i])) {
      out << "index " << i << ": got key " << hex(got[i]) << ", expected " << hex(expected[i]);
      return out.str();
    }
    if (values_expected && !same_bits((*values_expected)[i], (*values_got)[i])) {
      out << "index " << i << " (key " << hex(got[i]) << "): got value " << hex((*values_got)[i])
          << ", expected " << hex((*values_expected)[i]) << " (unstable or unpaired)";
      return out.str();
    }
  }
  std::sort(nan_expected.begin(), nan_expected.end());
  std::sort(nan_got.begin(), nan_got.end());
  if (nan_expected != nan_got) {
    out << "the " << nan_expected.size() << " NaN positions hold a different multiset of "
        << (values_expected ? "(key, value) bit patterns" : "key bit patterns");
    return out.str();
  }
  return {};
}

/// Like compare_sorted for an argsort result: `perm` must equal the stable reference permutation, except
/// that positions holding NaN keys may list those keys' indices in any order.
template <class K>
std::string compare_argsort(const std::vector<K>& keys, const std::vector<std::uint32_t>& expected,
                            const std::vector<std::uint32_t>& got) {
  std::ostringstream out;
  if (expected.size() != got.size()) {
    out << "size " << got.size() << ", expected " << expected.size();
    return out.str();
  }
  std::vector<std::uint32_t> nan_expected, nan_got;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    if (got[i] >= keys.size()) {
      out << "index " << i << ": " << got[i] << " is out of range";
      return out.str();
    }
    if (is_nan_key(keys[expected[i]])) {
      nan_expected.push_back(expected[i]);
      nan_got.push_back(got[i]);
    } else if (got[i] != expected[i]) {
      out << "index " << i << ": got " << got[i] << " (key " << hex(keys[got[i]]) << "), expected "
          << expected[i] << " (key " << hex(keys[expected[i]]) << ")";
      return out.str();
    }
  }
  std::sort(nan_expected.begin(), nan_expected.end());
  std::sort(nan_got.begin(), nan_got.end());
  if (nan_expected != nan_got) return "the NaN positions hold different input indices";
  return {};
}

// ---- Reporting ---------------------------------------------------------------------------------------

template <class K>
const char* type_name() {
  return clsort::to_string(clsort::key_type_of<K>::value);
}

/// "radix f32 descending n=4097 dist=sawtooth seed=0x..." for failure messages.
std::string describe(Algorithm a, KeyType t, Order o, std::size_t n, Dist d, std::uint64_t seed);

/// Counts failed checks of one test case so that a broken algorithm reports a handful, not thousands.
class FailureBudget {
 public:
  explicit FailureBudget(int limit = 12) : left_(limit) {}
  /// False once the budget is spent: the caller should stop.
  bool record(bool ok) { return ok || --left_ > 0; }

 private:
  int left_;
};

}  // namespace clsort_test
