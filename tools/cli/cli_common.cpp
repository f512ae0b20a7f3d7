// Shared helpers of the clsort command line and its probes: the table of algorithms, key type names,
// device opening and description, random keys and values, and the number formats every table uses.
#include "cli_common.hpp"

#include <clsort/key_transform.hpp>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <limits>
#include <random>
#include <type_traits>

namespace clsort_cli {

const std::vector<AlgorithmInfo>& algorithms() {
  using clsort::Algorithm;
  constexpr std::size_t k13 = std::size_t(1) << 13, k14 = std::size_t(1) << 14, k16 = std::size_t(1) << 16,
                        k20 = std::size_t(1) << 20;
  static const std::vector<AlgorithmInfo> table = {
      {Algorithm::radix, 0, 0, 1.15},
      // n log^2 n compare-exchanges: 2^20 keys take about half a second serially.
      {Algorithm::bitonic, 0, k20, 1.15},
      // n^2: 2^14 keys are 2^28 comparisons on the device; serially 2^13 keys already take ~0.1 s.
      {Algorithm::selection, k14, k13, 2.0},
      // One launch per tile (n / tile block phases, each O(n)); serially n phases of n / 2 compares.
      {Algorithm::odd_even, k16, k13, 2.0},
      {Algorithm::merge, 0, 0, 1.1},
  };
  return table;
}

std::vector<std::string> algorithm_names(bool automatic) {
  std::vector<std::string> names;
  if (automatic) names.push_back(clsort::to_string(clsort::Algorithm::automatic));
  for (const AlgorithmInfo& a : algorithms()) names.push_back(a.name());
  return names;
}

const AlgorithmInfo* find_algorithm(const std::string& name) {
  for (const AlgorithmInfo& a : algorithms())
    if (name == a.name()) return &a;
  return nullptr;
}

const std::vector<std::string>& key_type_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> r;
    for (const clsort::KeyTypeInfo& t : clsort::key_types()) r.push_back(t.name);
    return r;
  }();
  return names;
}

clsort::KeyType parse_key_type(const std::string& name) {
  if (const clsort::KeyTypeInfo* t = clsort::find_key_type(name)) return t->type;
  std::string expected;
  for (const std::string& n : key_type_names()) expected += (expected.empty() ? "" : ", ") + n;
  throw CliError("unknown key type '" + name + "' (expected one of " + expected + ")");
}

cl::Device open_device(const std::string& spec) {
  try {
    return spec.empty() ? clsort::default_device() : clsort::select_device(spec);
  } catch (const clsort::Error& e) {
    // The library's message already names the spec; drop its "clsort: " prefix, main() adds ours.
    std::string what = e.what();
    if (what.rfind("clsort: ", 0) == 0) what = what.substr(8);
    throw CliError(what);
  }
}

std::string cl_failure(cl_int status, const char* what) {
  return std::string(what) + " failed with " + clsort::status_name(status) + " (" + std::to_string(status) +
         ")";
}

void check_cl(cl_int status, const char* what) {
  if (status != CL_SUCCESS) throw CliError(cl_failure(status, what));
}

std::string device_type_name(cl_device_type type) {
  std::string s;
  auto add = [&](cl_device_type bit, const char* name) {
    if (!(type & bit)) return;
    if (!s.empty()) s += "+";
    s += name;
  };
  add(CL_DEVICE_TYPE_GPU, "GPU");
  add(CL_DEVICE_TYPE_CPU, "CPU");
  add(CL_DEVICE_TYPE_ACCELERATOR, "accelerator");
  add(CL_DEVICE_TYPE_CUSTOM, "custom");
  return s.empty() ? "other" : s;
}

std::string describe_device(const cl::Device& d) {
  const cl::Platform p(d.getInfo<CL_DEVICE_PLATFORM>());
  return d.getInfo<CL_DEVICE_NAME>() + " (" + p.getInfo<CL_PLATFORM_NAME>() + "), " +
         device_type_name(d.getInfo<CL_DEVICE_TYPE>()) + ", " +
         std::to_string(d.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>()) + " compute units, " +
         format_bytes(d.getInfo<CL_DEVICE_GLOBAL_MEM_SIZE>()) + " global memory";
}

std::string format_bytes(std::uint64_t bytes) {
  static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = double(bytes);
  int u = 0;
  while (v >= 1024 && u < 4) v /= 1024, ++u;
  char buf[32];
  if (u == 0)
    std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(bytes));
  else
    std::snprintf(buf, sizeof buf, v < 10 ? "%.2f %s" : v < 100 ? "%.1f %s" : "%.0f %s", v, units[u]);
  return buf;
}

std::string format_fixed(double v, int digits) {
  if (std::isnan(v)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string format_sig(double v) {
  if (std::isnan(v)) return "-";
  const double a = std::fabs(v);
  const int digits = a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : a >= 0.1 ? 3 : a >= 0.01 ? 4 : 5;
  return format_fixed(v, digits);
}

std::string format_n(std::size_t n) {
  if (n >= 1024 && (n & (n - 1)) == 0) {
    int k = 0;
    while ((std::size_t(1) << k) < n) ++k;
    return "2^" + std::to_string(k);
  }
  return std::to_string(n);
}

std::size_t parse_size(const std::string& text) {
  auto bad = [&]() -> std::size_t {
    throw CliError("invalid size '" + text + "' (expected a number such as 4096, 2^12 or 1e6)");
  };
  auto number = [&](const std::string& s) -> unsigned long long {
    if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos) bad();
    try {
      return std::stoull(s);
    } catch (const std::exception&) {
      return bad();
    }
  };
  const std::size_t max = std::numeric_limits<std::size_t>::max();
  if (const auto caret = text.find('^'); caret != std::string::npos) {
    const auto base = number(text.substr(0, caret)), exp = number(text.substr(caret + 1));
    long double v = std::pow((long double)base, (long double)exp);
    if (v > (long double)max) bad();
    return std::size_t(v);
  }
  if (const auto e = text.find_first_of("eE"); e != std::string::npos) {
    const auto mant = number(text.substr(0, e)), exp = number(text.substr(e + 1));
    long double v = mant * std::pow(10.0L, (long double)exp);
    if (v > (long double)max) bad();
    return std::size_t(v);
  }
  return std::size_t(number(text));
}

std::string now_string() {
  const std::time_t t = std::time(nullptr);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M %Z", std::localtime(&t));
  return buf;
}

std::vector<unsigned char> random_keys(clsort::KeyType t, std::size_t n, unsigned seed, bool specials) {
  const std::size_t w = clsort::key_size(t);
  std::vector<unsigned char> out(n * w);
  std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + unsigned(t));
  visit_key_type(t, [&](auto tag) {
    using K = typename decltype(tag)::type;
    using U = clsort::key_bits_t<K>;
    constexpr bool is_float = clsort::is_float_key_v<K>;
    for (std::size_t i = 0; i < n; ++i) {
      K k;
      const std::uint64_t pick = rng();
      if (specials && pick % 8 == 0) {
        if constexpr (is_float) {
          constexpr U sign = U(U(1) << (sizeof(U) * 8 - 1));
          constexpr U fraction = U(clsort::detail::nan_span<K>());  // the fraction field's bits
          constexpr U exponent = U(U(~U(0) >> 1) & U(~fraction));
          constexpr U quiet = U((fraction >> 1) + 1);
          const U payload = U(U(rng()) & fraction);
          const U options[] = {U(exponent | payload | quiet),         // quiet NaN
                               U(sign | exponent | payload | quiet),  // negative NaN
                               exponent,
                               U(sign | exponent),  // +-inf
                               0,
                               sign,                     // +-0
                               U(U(rng()) & fraction)};  // subnormal
          const U bits = options[(pick >> 8) % 7];
          std::memcpy(&k, &bits, sizeof k);
        } else {
          using L = std::numeric_limits<K>;
          const K options[] = {L::min(), L::max(), K(0)};
          k = options[(pick >> 8) % 3];
        }
      } else {
        for (;;) {
          const std::uint64_t bits = rng();
          std::memcpy(&k, &bits, sizeof k);
          if constexpr (std::is_floating_point_v<K>) {
            if (!std::isfinite(k)) continue;
          } else if constexpr (is_float) {
            if (!std::isfinite(float(k))) continue;
          }
          break;
        }
      }
      std::memcpy(out.data() + i * w, &k, w);
    }
  });
  return out;
}

std::vector<unsigned char> index_values(std::size_t n, std::size_t value_bytes) {
  std::vector<unsigned char> out(n * value_bytes);
  visit_value_type(value_bytes, [&](auto tag) {
    using V = typename decltype(tag)::type;
    for (std::size_t i = 0; i < n; ++i) {
      const V v = V(i);
      std::memcpy(out.data() + i * sizeof v, &v, sizeof v);
    }
  });
  return out;
}

}  // namespace clsort_cli
