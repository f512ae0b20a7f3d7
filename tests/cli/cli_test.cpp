// Tests of the clsort executable's commands (devices, sort, lexsort): runs it through the shell on files
// written here and checks exit codes, messages and outputs, and that a failed run creates nothing and
// leaves an existing output untouched. The bench's tests: cli_bench_test.cpp.
#include <doctest/doctest.h>

#include <clsort/clsort.hpp>
#include <clsort/key_transform.hpp>
#include <clsort/version.hpp>

#include <sys/wait.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <limits>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "cli_support.hpp"
#include "support/key_type_cases.hpp"

using namespace clsort_cli_test;

namespace {

// ---- Keys.

template <class K>
std::string bytes_of(const std::vector<K>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(K));
}

template <class K>
std::vector<K> from_bytes(const std::string& s) {
  REQUIRE(s.size() % sizeof(K) == 0);
  std::vector<K> v(s.size() / sizeof(K));
  std::memcpy(v.data(), s.data(), s.size());
  return v;
}

template <class K>
K from_bits(clsort::key_bits_t<K> u) {
  K k;
  std::memcpy(&k, &u, sizeof k);
  return k;
}

/// Random keys with many duplicates; floats also get both zeros, both infinities, subnormals and NaNs of
/// both signs with payloads.
template <class K>
std::vector<K> make_keys(std::size_t n, std::uint64_t seed) {
  using U = clsort::key_bits_t<K>;
  std::mt19937_64 rng(seed);
  std::vector<K> v(n);
  for (auto& k : v) {
    k = from_bits<K>(U(rng()));
    if (rng() % 4 == 0) k = from_bits<K>(U(rng() % 16));  // duplicates
    if constexpr (std::is_floating_point_v<K>) {
      switch (rng() % 16) {
        case 0:
          k = std::numeric_limits<K>::quiet_NaN();
          break;
        case 1:
          k = -std::numeric_limits<K>::quiet_NaN();
          break;
        case 2:
          k = std::numeric_limits<K>::infinity() * (rng() % 2 ? 1 : -1);
          break;
        case 3:
          k = rng() % 2 ? K(0) : -K(0);
          break;
        case 4:
          k = std::numeric_limits<K>::denorm_min() * K(rng() % 100);
          break;
        default:
          break;
      }
    } else if constexpr (clsort::is_float_key_v<K>) {  // clsort::half, clsort::bfloat16: from their bits
      constexpr U sign = U(U(~U(0) >> 1) + 1), fraction = U(clsort::detail::nan_span<K>());
      constexpr U exponent = U(U(~U(0) >> 1) & U(~fraction)), quiet = U((fraction >> 1) + 1);
      const U options[] = {
          U(exponent | quiet),   U(sign | exponent | quiet), exponent, U(sign | exponent), 0, sign,
          U(U(rng()) % fraction)};
      if (rng() % 16 < 7) k = from_bits<K>(options[rng() % 7]);
    }
  }
  return v;
}

// Text: integers as themselves, 16-bit floats as the float of the same value (what the CLI writes).
template <class K>
auto text_value(K k) {
  if constexpr (clsort::is_float_key_v<K> && !std::is_floating_point_v<K>)
    return float(k);
  else
    return k;
}

/// clsort's order, written from the documented semantics via encode_key (a bijection): the result is
/// unique, so outputs compare bit for bit, NaNs included.
template <class K>
std::vector<K> expected(std::vector<K> v, bool descending) {
  std::stable_sort(v.begin(), v.end(), [&](K a, K b) {
    return clsort::encode_key(a, descending) < clsort::encode_key(b, descending);
  });
  return v;
}

template <class K>
std::string to_text(const std::vector<K>& v) {
  std::string s;
  char buf[64];
  for (K k : v) {
    const auto r = std::to_chars(buf, buf + sizeof buf, text_value(k));
    s.append(buf, r.ptr);
    s += '\n';
  }
  return s;
}

template <class K>
std::vector<K> parse_text(const std::string& s) {
  std::vector<K> v;
  std::istringstream in(s);
  std::string line;
  while (std::getline(in, line)) {
    decltype(text_value(K{})) t{};
    const auto r = std::from_chars(line.data(), line.data() + line.size(), t);
    REQUIRE(r.ec == std::errc());
    v.push_back(K(t));
  }
  return v;
}

template <class K>
const char* type_name() {
  if constexpr (std::is_same_v<K, std::uint32_t>) return "u32";
  if constexpr (std::is_same_v<K, std::int32_t>) return "i32";
  if constexpr (std::is_same_v<K, float>) return "f32";
  if constexpr (std::is_same_v<K, std::uint64_t>) return "u64";
  if constexpr (std::is_same_v<K, std::int64_t>) return "i64";
  if constexpr (std::is_same_v<K, std::uint8_t>) return "u8";
  if constexpr (std::is_same_v<K, std::int8_t>) return "i8";
  if constexpr (std::is_same_v<K, std::uint16_t>) return "u16";
  if constexpr (std::is_same_v<K, std::int16_t>) return "i16";
  if constexpr (std::is_same_v<K, clsort::half>) return "f16";
  if constexpr (std::is_same_v<K, clsort::bfloat16>) return "bf16";
  return "f64";
}

/// Binary and text, both orders, files and stdin/stdout.
template <class K>
void roundtrip() {
  const std::string type = type_name<K>();
  Dir d(std::string("roundtrip_") + type);
  const std::vector<K> keys = make_keys<K>(5000, 42 + sizeof(K));
  write_file(d / "in.bin", bytes_of(keys));
  // Text holds what the numbers print as (NaN payloads do not survive text), so expect text's own parse.
  const std::string text = to_text(keys);
  write_file(d / "in.txt", text);
  for (bool descending : {false, true}) {
    const std::string order = descending ? " --descending" : "";
    CAPTURE(descending);
    const std::string want = bytes_of(expected(keys, descending));
    Result r = d.run("sort --type " + type + order + " in.bin -o out.bin");
    REQUIRE(r.code == 0);
    CHECK(r.err.empty());
    CHECK(read_file(d / "out.bin") == want);

    r = d.run("sort --type " + type + order + " -", "in.bin");
    REQUIRE(r.code == 0);
    CHECK(r.out == want);

    r = d.run("sort -t " + type + order + " --algorithm bitonic - -o -", "in.bin");
    REQUIRE(r.code == 0);
    CHECK(r.out == want);

    const std::string want_text = to_text(expected(parse_text<K>(text), descending));
    r = d.run("sort --type " + type + order + " --text in.txt -o out.txt");
    REQUIRE(r.code == 0);
    CHECK(read_file(d / "out.txt") == want_text);

    r = d.run("sort --type " + type + order + " --text -", "in.txt");
    REQUIRE(r.code == 0);
    CHECK(r.out == want_text);
  }
  CHECK(d.files() == std::set<std::string>{"in.bin", "in.txt", "out.bin", "out.txt"});
}

/// Runs a command that must fail with `code` and a message containing `message`, creating no file and
/// leaving an existing output as it was.
void expect_failure(const Dir& d, const std::string& args, int code, const std::string& message,
                    const std::string& in = "") {
  const std::set<std::string> before = d.files();
  const std::string sentinel = read_file(d / "existing.out");
  const Result r = d.run(args, in);
  INFO("clsort " << args << "\nstderr: " << r.err);
  CHECK(r.code == code);
  CHECK(r.err.find(message) != std::string::npos);
  CHECK(r.out.empty());
  CHECK(d.files() == before);
  CHECK(read_file(d / "existing.out") == sentinel);
}

}  // namespace

TEST_CASE("cli help and version") {
  Dir d("help");
  Result r = d.run("--version");
  CHECK(r.code == 0);
  CHECK(r.out.find(CLSORT_VERSION_STRING) != std::string::npos);
  r = d.run("--help");
  CHECK(r.code == 0);
  for (const char* word : {"devices", "sort", "bench"}) CHECK(r.out.find(word) != std::string::npos);
  for (const char* sub : {"sort --help", "bench --help", "devices --help"}) {
    r = d.run(sub);
    CHECK(r.code == 0);
    CHECK(r.out.find("Usage") != std::string::npos);
  }
  r = d.run("");
  CHECK(r.code == 2);
  r = d.run("frobnicate");
  CHECK(r.code == 2);
}

// The command line's key-type names are the library's table (clsort::key_types()), in its order.
TEST_CASE("cli key types") {
  std::vector<std::string> table;
  for (const clsort::KeyTypeInfo& t : clsort::key_types()) table.push_back(t.name);
  // CLI11 lists an option's allowed names in --help as "--option TEXT:{a,b,c}".
  auto listed = [](const std::string& help, const std::string& option) {
    const std::size_t at = help.find(option + " TEXT:{");
    REQUIRE_MESSAGE(at != std::string::npos, option);
    const std::size_t begin = help.find('{', at) + 1, end = help.find('}', begin);
    std::vector<std::string> names;
    std::istringstream in(help.substr(begin, end - begin));
    for (std::string name; std::getline(in, name, ',');) names.push_back(name);
    return names;
  };
  Dir d("key_types");
  Result r = d.run("sort --help");
  REQUIRE(r.code == 0);
  CHECK(listed(r.out, "--type") == table);
  CHECK(listed(r.out, "--values-type") == table);
  r = d.run("bench --help");
  REQUIRE(r.code == 0);
  CHECK(listed(r.out, "--types") == table);
  // lexsort's TYPE of TYPE[:desc]=FILE: an unknown one lists the table's names.
  r = d.run("lexsort -k u31=keys.bin");
  CHECK(r.code == 1);
  std::string expected;
  for (const std::string& name : table) expected += (expected.empty() ? "" : ", ") + name;
  CHECK(r.err.find("unknown key type 'u31' (expected one of " + expected + ")") != std::string::npos);
}

TEST_CASE("cli devices") {
  Dir d("devices");
  const Result r = d.run("devices");
  REQUIRE(r.code == 0);
  for (const char* word :
       {"Platform 0", "Device 0:0", "<- default", "default because", "compute units", "global memory",
        "local memory", "max work-group size", "clsort automatic", "clsort tuning row", "clsort tuning"})
    CHECK_MESSAGE(r.out.find(word) != std::string::npos, word);
}

CLSORT_CASES_PER_KEY_TYPE("cli roundtrip", roundtrip)

TEST_CASE("cli text forms") {
  Dir d("text_forms");
  // Signs, surrounding blanks, CRLF and a missing final newline are all accepted.
  write_file(d / "in.txt", "  +5\r\n-3\t\n7\n0\n-0\n 12 ");
  Result r = d.run("sort --type i32 --text in.txt");
  REQUIRE(r.code == 0);
  CHECK(r.out == "-3\n0\n0\n5\n7\n12\n");
  write_file(d / "f.txt", "nan\n-inf\n1e3\n-0\n0\n-nan\ninf\n2.5\n");
  r = d.run("sort --type f64 --text f.txt");
  REQUIRE(r.code == 0);
  CHECK(r.out == "-inf\n-0\n0\n2.5\n1000\ninf\nnan\n-nan\n");
  r = d.run("sort --type f32 --text --descending f.txt");
  REQUIRE(r.code == 0);
  CHECK(r.out == "-nan\nnan\ninf\n1000\n2.5\n0\n-0\n-inf\n");
  write_file(d / "empty.txt", "");
  r = d.run("sort --type u64 --text empty.txt -o empty.out");
  REQUIRE(r.code == 0);
  CHECK(read_file(d / "empty.out").empty());
}

TEST_CASE("cli top k") {
  Dir d("top_k");
  write_file(d / "in.txt", "5\n-3\n9\n0\n-3\n7\n");
  Result r = d.run("sort --type i32 --text --top-k 3 in.txt --indices-out idx.txt");
  REQUIRE(r.code == 0);
  CHECK(r.out == "-3\n-3\n0\n");
  CHECK(read_file(d / "idx.txt") == "1\n4\n3\n");
  r = d.run("sort --type i32 --text --top-k 2 --descending in.txt");
  REQUIRE(r.code == 0);
  CHECK(r.out == "9\n7\n");
  write_file(d / "f.txt", "nan\n-inf\n1e3\n-0\n0\n-nan\ninf\n2.5\n");
  r = d.run("sort --type f64 --text --top-k 3 --descending f.txt");  // NaNs tie: lower index first
  REQUIRE(r.code == 0);
  CHECK(r.out == "nan\n-nan\ninf\n");
  const std::vector<std::uint64_t> keys{40, 10, 30, 10, 20};
  write_file(d / "k.bin", bytes_of(keys));
  r = d.run("sort --type u64 --top-k 4 k.bin -o top.bin --indices-out top.idx");
  REQUIRE(r.code == 0);
  CHECK(from_bytes<std::uint64_t>(read_file(d / "top.bin")) == std::vector<std::uint64_t>{10, 10, 20, 30});
  CHECK(from_bytes<std::uint32_t>(read_file(d / "top.idx")) == std::vector<std::uint32_t>{1, 3, 4, 2});
  r = d.run("sort --type u64 --top-k 0 k.bin -o none.bin");
  REQUIRE(r.code == 0);
  CHECK(read_file(d / "none.bin").empty());
  // errors: k over n, --indices-out without --top-k, values; no output left behind
  r = d.run("sort --type u64 --top-k 6 k.bin -o bad.bin");
  CHECK(r.code == 1);
  CHECK(r.err.find("--top-k 6 exceeds the 5 keys") != std::string::npos);
  CHECK(!fs::exists(d / "bad.bin"));
  r = d.run("sort --type u64 k.bin -o bad.bin --indices-out i.bin");
  CHECK(r.code == 1);
  CHECK(r.err.find("without --top-k") != std::string::npos);
  r = d.run("sort --type u64 --top-k 2 k.bin -o bad.bin --values k.bin --values-type u64");
  CHECK(r.code == 1);
  CHECK(!fs::exists(d / "bad.bin"));
}

TEST_CASE("cli segments") {
  Dir d("segments");
  write_file(d / "in.txt", "5\n-3\n9\n0\n-3\n7\n1\n");
  write_file(d / "off.txt", "1\n4\n4\n6\n");  // [1,4), empty, [4,6); keys 0 and 6 stay
  Result r = d.run("sort --type i32 --text --segments off.txt in.txt");
  REQUIRE(r.code == 0);
  CHECK(r.out == "5\n-3\n0\n9\n-3\n7\n1\n");
  r = d.run("sort --type i32 --text --descending --segments off.txt in.txt");
  REQUIRE(r.code == 0);
  CHECK(r.out == "5\n9\n0\n-3\n7\n-3\n1\n");
  // Binary, with values (stable: equal keys keep their input order).
  const std::vector<std::uint32_t> keys{3, 1, 3, 1, 2, 2, 0};
  const std::vector<std::uint64_t> values{0, 1, 2, 3, 4, 5, 6}, offsets{0, 4, 7};
  write_file(d / "k.bin", bytes_of(keys));
  write_file(d / "v.bin", bytes_of(values));
  write_file(d / "o.bin", bytes_of(offsets));
  r = d.run(
      "sort --type u32 --segments o.bin k.bin -o k.out --values v.bin --values-type u64 --values-out v.out");
  REQUIRE(r.code == 0);
  CHECK(from_bytes<std::uint32_t>(read_file(d / "k.out")) == std::vector<std::uint32_t>{1, 1, 3, 3, 0, 2, 2});
  CHECK(from_bytes<std::uint64_t>(read_file(d / "v.out")) == std::vector<std::uint64_t>{1, 3, 0, 2, 6, 4, 5});
  // A bit range: bit 0 alone, which every key of a segment shares, so each keeps its input order.
  r = d.run(
      "sort --type u32 --segments o.bin k.bin -o k.out --values v.bin --values-type u64 --values-out v.out "
      "--begin-bit 0 --end-bit 1");
  REQUIRE(r.code == 0);
  CHECK(from_bytes<std::uint32_t>(read_file(d / "k.out")) == keys);
  CHECK(from_bytes<std::uint64_t>(read_file(d / "v.out")) == values);
  // Bad offsets name the file; no output is left behind.
  write_file(d / "bad.txt", "0\n5\n3\n");
  r = d.run("sort --type i32 --text --segments bad.txt in.txt -o bad.out");
  CHECK(r.code == 1);
  CHECK(r.err.find("bad.txt") != std::string::npos);
  CHECK(r.err.find("offsets") != std::string::npos);
  CHECK(!fs::exists(d / "bad.out"));
  r = d.run("sort --type i32 --text --segments off.txt --top-k 2 in.txt");
  CHECK(r.code == 1);
  CHECK(r.err.find("cannot be combined") != std::string::npos);
}

TEST_CASE("cli lexsort") {
  Dir d("lexsort");
  write_file(d / "a.txt", "3\n1\n3\n1\n2\n");
  write_file(d / "b.txt", "nan\n1.5\n-0\n0\n-nan\n");
  Result r = d.run("lexsort --text -k u32=a.txt -k f64:desc=b.txt");
  REQUIRE(r.code == 0);
  CHECK(r.out == "1\n3\n4\n0\n2\n");
  // Binary columns of several widths, the second from stdin; checked against std::stable_sort.
  std::mt19937_64 rng(3);
  std::vector<std::uint8_t> a(3000);
  std::vector<std::int64_t> b(3000);
  for (auto& x : a) x = std::uint8_t(rng() % 4);
  for (auto& x : b) x = std::int64_t(rng() % 50) - 25;
  write_file(d / "a.bin", bytes_of(a));
  write_file(d / "b.bin", bytes_of(b));
  r = d.run("lexsort -k u8:desc=a.bin -k i64=- -o rows.bin", "b.bin");
  REQUIRE(r.code == 0);
  std::vector<std::uint32_t> expected(a.size());
  for (std::uint32_t i = 0; i < expected.size(); ++i) expected[i] = i;
  std::stable_sort(expected.begin(), expected.end(), [&](std::uint32_t x, std::uint32_t y) {
    return a[x] != a[y] ? a[x] > a[y] : b[x] < b[y];
  });
  CHECK(from_bytes<std::uint32_t>(read_file(d / "rows.bin")) == expected);
  // Errors: lengths differ, a bad column spec, two stdin columns; no output left behind.
  write_file(d / "short.bin", bytes_of(std::vector<std::int64_t>(7)));
  r = d.run("lexsort -k u8=a.bin -k i64=short.bin -o bad.bin");
  CHECK(r.code == 1);
  CHECK(r.err.find("same count") != std::string::npos);
  r = d.run("lexsort -k u8:sideways=a.bin -o bad.bin");
  CHECK(r.code == 1);
  CHECK(r.err.find("asc or desc") != std::string::npos);
  r = d.run("lexsort -k u8=- -k i64=- -o bad.bin");
  CHECK(r.code == 1);
  r = d.run("lexsort -k q32=a.bin -o bad.bin");
  CHECK(r.code != 0);
  CHECK(!fs::exists(d / "bad.bin"));
}

TEST_CASE("cli sort by key") {
  Dir d("by_key");
  // Few distinct keys: stability is visible. Values are the input positions.
  std::mt19937_64 rng(7);
  std::vector<std::uint32_t> keys(6000);
  for (auto& k : keys) k = std::uint32_t(rng() % 37);
  std::vector<std::uint64_t> values(keys.size());
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = i;
  write_file(d / "keys.bin", bytes_of(keys));
  write_file(d / "values.bin", bytes_of(values));
  for (bool descending : {false, true}) {
    CAPTURE(descending);
    std::vector<std::uint64_t> order = values;
    std::stable_sort(order.begin(), order.end(), [&](std::uint64_t a, std::uint64_t b) {
      return descending ? keys[a] > keys[b] : keys[a] < keys[b];
    });
    std::vector<std::uint32_t> sorted_keys;
    for (auto i : order) sorted_keys.push_back(keys[i]);
    const Result r = d.run(std::string("sort --type u32 ") + (descending ? "-d " : "") +
                           "keys.bin -o k.out --values values.bin --values-type u64 --values-out v.out");
    REQUIRE(r.code == 0);
    CHECK(read_file(d / "k.out") == bytes_of(sorted_keys));
    CHECK(read_file(d / "v.out") == bytes_of(order));
  }
  // Default values output, and text values of another type.
  Result r = d.run("sort --type u32 keys.bin -o k2.out --values values.bin --values-type f64");
  REQUIRE(r.code == 0);
  CHECK(read_file(d / "k2.out.values").size() == values.size() * 8);
  write_file(d / "k.txt", "3\n1\n2\n1\n");
  write_file(d / "v.txt", "-1.5\n10\n20\n30\n");
  r = d.run("sort --type i64 --text k.txt -o ks.txt --values v.txt --values-type f32 --values-out vs.txt");
  REQUIRE(r.code == 0);
  CHECK(read_file(d / "ks.txt") == "1\n1\n2\n3\n");
  CHECK(read_file(d / "vs.txt") == "10\n30\n20\n-1.5\n");
}

TEST_CASE("cli bad input") {
  Dir d("bad_input");
  write_file(d / "existing.out", "precious contents\n");
  write_file(d / "ten.bin", std::string(10, 'x'));
  write_file(d / "twelve.bin", std::string(12, '\1'));
  write_file(d / "bad.txt", "1\n2\nthree\n4\n");
  write_file(d / "blank.txt", "1\n\n2\n");
  write_file(d / "big.txt", "1\n4294967296\n");
  write_file(d / "three.bin", std::string(12, '\2'));
  write_file(d / "two.bin", std::string(8, '\3'));

  SUBCASE("size not a multiple of the key size") {
    expect_failure(d, "sort --type u32 ten.bin -o existing.out", 1, "not a multiple of 4 bytes");
    expect_failure(d, "sort --type f64 twelve.bin -o existing.out", 1, "not a multiple of 8 bytes");
    expect_failure(d, "sort --type u32 ten.bin -o new.out", 1, "ten.bin");
    expect_failure(d, "sort --type u64 - -o existing.out", 1, "not a multiple of 8 bytes", "twelve.bin");
    expect_failure(d, "sort --type u64 - -o existing.out", 1, "partial", "|twelve.bin");  // found at the end
  }
  SUBCASE("unknown type") {
    expect_failure(d, "sort --type u12 twelve.bin -o existing.out", 2, "u12");
    expect_failure(d, "sort --type u32 twelve.bin -o existing.out --values two.bin --values-type x8", 2,
                   "x8");
  }
  SUBCASE("unreadable input") {
    expect_failure(d, "sort --type u32 missing.bin -o existing.out", 1, "missing.bin");
    expect_failure(d, "sort --type u32 . -o existing.out", 1, "is a directory");
  }
  SUBCASE("unparsable text line, with its line number") {
    expect_failure(d, "sort --type i32 --text bad.txt -o existing.out", 1, "line 3");
    expect_failure(d, "sort --type i32 --text bad.txt -o existing.out", 1, "three");
    expect_failure(d, "sort --type u32 --text blank.txt -o existing.out", 1, "line 2: empty line");
    expect_failure(d, "sort --type u32 --text big.txt -o existing.out", 1,
                   "line 2: '4294967296' is out of range");
    expect_failure(d, "sort --type f32 --text - -o existing.out", 1, "stdin: line 3", "bad.txt");
  }
  SUBCASE("values count differs") {
    expect_failure(d, "sort --type u32 three.bin -o existing.out --values two.bin --values-type u32", 1,
                   "same count");
    expect_failure(d, "sort --type u32 - -o existing.out --values two.bin --values-type u32", 1, "same count",
                   "|three.bin");
    expect_failure(d, "sort --type u32 - -o existing.out --values three.bin --values-type u32", 1,
                   "same count", "|two.bin");
    expect_failure(d, "sort --type u32 three.bin -o existing.out --values twelve.bin --values-type u16", 1,
                   "same count");
    expect_failure(d, "sort --type u32 three.bin -o existing.out --values two.bin", 1, "--values-type");
  }
  SUBCASE("output cannot be written") {
    expect_failure(d, "sort --type u32 three.bin -o no/such/dir/out", 1, "no/such/dir");
    expect_failure(d, "sort --type u32 three.bin -o .", 1, "is a directory");
  }
  SUBCASE("unknown device") {
    expect_failure(d, "sort --type u32 three.bin -o existing.out --device no-such-device-xyz", 1,
                   "no-such-device-xyz");
  }
}

TEST_CASE("cli bit range") {
  Dir d("bit_range");
  const std::vector<std::uint32_t> keys = make_keys<std::uint32_t>(20000, 7);
  write_file(d / "in.bin", bytes_of(keys));
  write_file(d / "existing.out", "precious contents\n");
  for (bool descending : {false, true}) {
    CAPTURE(descending);
    std::vector<std::uint32_t> want = keys;
    std::stable_sort(want.begin(), want.end(), [&](std::uint32_t a, std::uint32_t b) {
      const std::uint32_t fa = (a >> 4) & 0xFF, fb = (b >> 4) & 0xFF;
      return descending ? fa > fb : fa < fb;
    });
    const std::string order = descending ? " --descending" : "";
    // One device pass, and chunks merged on the host by the same bits.
    for (const char* chunks : {"", " --chunk-keys 3000"}) {
      const Result r = d.run(std::string("sort -t u32 --begin-bit 4 --end-bit 12") + order + chunks +
                             " in.bin -o out.bin");
      REQUIRE(r.code == 0);
      CHECK(read_file(d / "out.bin") == bytes_of(want));
    }
  }
  // An empty range: the input order, in one pass and through merged chunks.
  for (const char* chunks : {"", " --chunk-keys 3000"}) {
    const Result r = d.run(std::string("sort -t u32 --begin-bit 9 --end-bit 9 --descending") + chunks +
                           " in.bin -o out.bin");
    REQUIRE(r.code == 0);
    CHECK(read_file(d / "out.bin") == bytes_of(keys));
  }
  expect_failure(d, "sort -t u32 --begin-bit 12 --end-bit 4 in.bin -o existing.out", 1, "--begin-bit 12");
  expect_failure(d, "sort -t u16 --end-bit 17 in.bin -o existing.out", 1, "--end-bit 17");
  expect_failure(d, "sort -t u32 --end-bit 8 -a merge in.bin -o existing.out", 1, "need radix");
}

TEST_CASE("cli multi chunk") {
  Dir d("multi_chunk");
  // Chunks of 1000 (and of 7: many runs, past the merge fan-in) give the single pass's output bit for bit.
  const std::vector<double> keys = make_keys<double>(20011, 5);
  const std::vector<std::int32_t> ikeys = make_keys<std::int32_t>(20011, 6);
  std::vector<std::uint32_t> values(keys.size());
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = std::uint32_t(i);
  write_file(d / "f.bin", bytes_of(keys));
  write_file(d / "i.bin", bytes_of(ikeys));
  write_file(d / "v.bin", bytes_of(values));
  write_file(d / "i1280.bin", bytes_of(std::vector<std::int32_t>(ikeys.begin(), ikeys.begin() + 1280)));
  for (bool descending : {false, true}) {
    CAPTURE(descending);
    const std::string order = descending ? " -d" : "";
    Result r = d.run("sort -t f64" + order + " f.bin -o one.out -v");
    REQUIRE(r.code == 0);
    CHECK(r.err.find("in 1 device pass") != std::string::npos);
    CHECK(read_file(d / "one.out") == bytes_of(expected(keys, descending)));
    r = d.run("sort -t f64" + order + " f.bin -o many.out --chunk-keys 1000 -v");
    REQUIRE(r.code == 0);
    CHECK(r.err.find("in 21 device passes") != std::string::npos);
    CHECK(read_file(d / "many.out") == read_file(d / "one.out"));
    r = d.run("sort -t f64" + order + " - --chunk-keys 7", "f.bin");
    REQUIRE(r.code == 0);
    CHECK(r.out == read_file(d / "one.out"));

    // By key: stable across chunk boundaries.
    r = d.run("sort -t i32" + order +
              " i.bin -o k1.out --values v.bin --values-type u32 --values-out v1.out");
    REQUIRE(r.code == 0);
    r = d.run("sort -t i32" + order +
              " i.bin -o k2.out --values v.bin --values-type u32 --values-out v2.out --chunk-keys 999");
    REQUIRE(r.code == 0);
    CHECK(read_file(d / "k2.out") == read_file(d / "k1.out"));
    CHECK(read_file(d / "v2.out") == read_file(d / "v1.out"));
    const auto sorted_values = from_bytes<std::uint32_t>(read_file(d / "v1.out"));
    std::vector<std::uint32_t> want = values;
    std::stable_sort(want.begin(), want.end(), [&](std::uint32_t a, std::uint32_t b) {
      return descending ? ikeys[a] > ikeys[b] : ikeys[a] < ikeys[b];
    });
    CHECK(sorted_values == want);

    // A device that runs out of memory: passes are halved until they fit.
    r = d.run(
        "sort -t i32" + order +
        " i.bin -o k3.out --values v.bin --values-type u32 --values-out v3.out --device-limit-keys 3000 -v");
    REQUIRE(r.code == 0);
    CHECK(r.err.find("retrying in passes of") != std::string::npos);
    CHECK(read_file(d / "k3.out") == read_file(d / "k1.out"));
    CHECK(read_file(d / "v3.out") == read_file(d / "v1.out"));

    // Exactly as many runs as the merge fan-in (128), which are merged down to one before the end.
    r = d.run("sort -t i32" + order + " - --chunk-keys 10", "|i1280.bin");
    REQUIRE(r.code == 0);
    CHECK(r.out ==
          bytes_of(expected(std::vector<std::int32_t>(ikeys.begin(), ikeys.begin() + 1280), descending)));

    // Text through several chunks.
    write_file(d / "i.txt", to_text(ikeys));
    r = d.run("sort -t i32 --text" + order + " i.txt -o t.out --chunk-keys 4096");
    REQUIRE(r.code == 0);
    CHECK(read_file(d / "t.out") == to_text(expected(ikeys, descending)));
  }
}
