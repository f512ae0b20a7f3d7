// Shared by the clsort subcommands and the probes: the error that maps to exit status 1, the table of
// algorithms, key-type dispatch, device opening, random keys and values, and number formatting.
#pragma once

#include <clsort/clsort.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
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

/// Calls f(Tag<K>{}) with K the C++ type of `t` (clsort/key_types.h's row); CliError when `t` is not a
/// KeyType.
template <class F>
decltype(auto) visit_key_type(clsort::KeyType t, F&& f) {
  switch (t) {
#define CLSORT_CLI_VISIT(name, NAME, value, bytes, kind, cpp_type) \
  case clsort::KeyType::name:                                      \
    return f(Tag<cpp_type>{});
    CLSORT_KEY_TYPES(CLSORT_CLI_VISIT)
#undef CLSORT_CLI_VISIT
  }
  throw CliError("not a key type: " + std::to_string(unsigned(t)));
}

/// Whether K is a C++ arithmetic type, which libraries outside clsort sort (not clsort::half or
/// clsort::bfloat16).
template <class K>
constexpr bool is_arithmetic_key_v = std::is_arithmetic_v<K>;

/// Calls f(Tag<V>{}) with V the value type of `value_bytes` (4 or 8).
template <class F>
decltype(auto) visit_value_type(std::size_t value_bytes, F&& f) {
  if (value_bytes == 4) return f(Tag<std::uint32_t>{});
  return f(Tag<std::uint64_t>{});
}

/// One of clsort's algorithms, with the limits the bench times it under.
struct AlgorithmInfo {
  clsort::Algorithm algorithm;
  std::size_t device_cap;  // the bench's largest n on the device (0: clsort::max_n); --no-caps lifts it
  std::size_t serial_cap;  // the same for its serial version (0: no cap)
  double growth;           // time ~ n^growth, to predict whether the next n fits the row budget
  /// As clsort::parse_algorithm reads it, and the prefix of its tuning names.
  const char* name() const { return clsort::to_string(algorithm); }
};

/// The one table of algorithms, in the order of clsort::Algorithm (automatic, a choice among them, is not
/// one): `clsort sort --algorithm`, the bench's rows and options take their names and limits from it. A
/// new algorithm is an entry here plus its serial version in serial_sorts.hpp (see bench_host.cpp).
const std::vector<AlgorithmInfo>& algorithms();
/// The table's names; with `automatic`, "automatic" first.
std::vector<std::string> algorithm_names(bool automatic = false);
/// The table's entry named `name`, or null.
const AlgorithmInfo* find_algorithm(const std::string& name);

/// The names of clsort::key_types(), in its order: what --type and --types take.
const std::vector<std::string>& key_type_names();
clsort::KeyType parse_key_type(const std::string& name);  // throws CliError

/// The device `spec` selects (CLSORT_DEVICE syntax), or the default device when spec is empty.
cl::Device open_device(const std::string& spec);
/// "pthread-skylake (Portable Computing Language), CPU, 2 compute units, 4.6 GiB"
std::string describe_device(const cl::Device& d);
std::string device_type_name(cl_device_type type);

/// "<what> failed with CL_... (<status>)"
std::string cl_failure(cl_int status, const char* what);
/// Throws CliError(cl_failure(status, what)) unless status is CL_SUCCESS.
void check_cl(cl_int status, const char* what);

/// Uniformly random bit patterns, n keys of type t as bytes; for floats only finite ones, so that every
/// baseline's order (Boost's included) agrees with clsort's. With `specials`, one key in eight is an edge
/// case instead: for floats NaNs of both signs with random payloads, infinities, both zeros and
/// subnormals; for integers the extremes and zero.
std::vector<unsigned char> random_keys(clsort::KeyType t, std::size_t n, unsigned seed, bool specials);
/// Each key's input index as a value of `value_bytes` (4 or 8), n values as bytes, so that a check knows
/// where every sorted value came from: pairing and stability are checked exactly.
std::vector<unsigned char> index_values(std::size_t n, std::size_t value_bytes);

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
