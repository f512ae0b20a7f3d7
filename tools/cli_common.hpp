// Shared by the clsort subcommands and the probes: the error that maps to exit status 1, key-type
// dispatch, device opening, random keys and number formatting.
#pragma once

#include <clsort/clsort.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace clsort_cli {

/// A failure the user can act on (bad input, unreadable file, ...): printed as "clsort: error: <what>",
/// exit status 1. Usage errors are CLI11's and exit with status 2.
class CliError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

template <class T>
struct Tag {
  using type = T;
};

/// Calls f(Tag<K>{}) with K the C++ type of `t`.
template <class F>
decltype(auto) visit_key_type(clsort::KeyType t, F&& f) {
  switch (t) {
    case clsort::KeyType::u32:
      return f(Tag<std::uint32_t>{});
    case clsort::KeyType::i32:
      return f(Tag<std::int32_t>{});
    case clsort::KeyType::f32:
      return f(Tag<float>{});
    case clsort::KeyType::u64:
      return f(Tag<std::uint64_t>{});
    case clsort::KeyType::i64:
      return f(Tag<std::int64_t>{});
    case clsort::KeyType::f64:
      break;
  }
  return f(Tag<double>{});
}

/// "u32", "i32", ... in the order of clsort::KeyType.
const std::vector<std::string>& key_type_names();
clsort::KeyType parse_key_type(const std::string& name);  // throws CliError

/// The device `spec` selects (CLSORT_DEVICE syntax), or the default device when spec is empty.
cl::Device open_device(const std::string& spec);
/// "pthread-skylake (Portable Computing Language), CPU, 2 compute units, 4.6 GiB"
std::string describe_device(const cl::Device& d);
std::string device_type_name(cl_device_type type);

/// Uniformly random bit patterns, n keys of type t as bytes; for floats only finite ones, so that every
/// baseline's order (Boost's included) agrees with clsort's. With `specials`, one key in eight is an edge
/// case instead: for floats NaNs of both signs with random payloads, infinities, both zeros and
/// subnormals; for integers the extremes and zero.
std::vector<unsigned char> random_keys(clsort::KeyType t, std::size_t n, unsigned seed, bool specials);

/// 1536 -> "1.5 KiB"
std::string format_bytes(std::uint64_t bytes);
/// Fixed-point with `digits` decimals; "-" for NaN.
std::string format_fixed(double v, int digits);
/// Three significant digits in fixed notation ("0.0123", "12.3", "1234"); "-" for NaN.
std::string format_sig(double v);
/// n as "2^k" when a power of two of at least 2^10, else decimal.
std::string format_n(std::size_t n);
/// Parses "1000", "2^20", "1e6", "4k"/"4Ki" style sizes; throws CliError.
std::size_t parse_size(const std::string& text);

/// Today as YYYY-MM-DD HH:MM (local time).
std::string now_string();

}  // namespace clsort_cli
