// The key-type table (clsort/key_types.h) and its faces: the C++ enum, helpers and traits, the C enum and
// the C API's conversion, the kernels' key kinds; and a KeyType value outside the table, refused.
#include <doctest/doctest.h>

#include <clsort/clsort.h>
#include <clsort/key_transform.hpp>

#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "support/guarded.hpp"
#include "support/support.hpp"

#ifndef CLSORT_TEST_KERNEL_SOURCE_DIR
#error "CLSORT_TEST_KERNEL_SOURCE_DIR must name the kernels/ directory"
#endif

namespace clsort_test {
namespace {

using clsort::KeyKind;
using clsort::KeyTypeInfo;

// The rows as released, written out by hand: their names and values are the C ABI and the Python
// module's, so no row may change or go. New rows are checked against the table by the other cases.
struct Released {
  const char* name;
  KeyType type;
  int c_value;
  std::size_t bytes;
  KeyKind kind;
};
const Released kReleased[] = {
    {"u32", KeyType::u32, CLSORT_KEY_U32, 4, KeyKind::unsigned_int},
    {"i32", KeyType::i32, CLSORT_KEY_I32, 4, KeyKind::signed_int},
    {"f32", KeyType::f32, CLSORT_KEY_F32, 4, KeyKind::ieee_float},
    {"u64", KeyType::u64, CLSORT_KEY_U64, 8, KeyKind::unsigned_int},
    {"i64", KeyType::i64, CLSORT_KEY_I64, 8, KeyKind::signed_int},
    {"f64", KeyType::f64, CLSORT_KEY_F64, 8, KeyKind::ieee_float},
    {"u8", KeyType::u8, CLSORT_KEY_U8, 1, KeyKind::unsigned_int},
    {"i8", KeyType::i8, CLSORT_KEY_I8, 1, KeyKind::signed_int},
    {"u16", KeyType::u16, CLSORT_KEY_U16, 2, KeyKind::unsigned_int},
    {"i16", KeyType::i16, CLSORT_KEY_I16, 2, KeyKind::signed_int},
    {"f16", KeyType::f16, CLSORT_KEY_F16, 2, KeyKind::ieee_float},
    {"bf16", KeyType::bf16, CLSORT_KEY_BF16, 2, KeyKind::bfloat},
};

TEST_CASE("key types: the released rows keep their names, values, widths and kinds") {
  for (std::size_t i = 0; i < std::size(kReleased); ++i) {
    const Released& r = kReleased[i];
    CAPTURE(r.name);
    CHECK(r.c_value == int(i));  // the values clsort.h has always had
    CHECK(int(r.type) == r.c_value);
    const KeyTypeInfo* row = clsort::find_key_type(r.type);
    REQUIRE(row != nullptr);
    CHECK(std::string(row->name) == r.name);
    CHECK(row->c_value == r.c_value);
    CHECK(row->bytes == r.bytes);
    CHECK(row->kind == r.kind);
  }
}

TEST_CASE("key types: the helpers agree with the table") {
  std::set<std::string> names;
  std::set<int> values;
  int previous = -1;
  for (const KeyTypeInfo& row : clsort::key_types()) {
    CAPTURE(row.name);
    CHECK(names.insert(row.name).second);
    CHECK(values.insert(row.c_value).second);
    CHECK(row.c_value > previous);  // listed in the order of their values
    previous = row.c_value;
    CHECK(int(row.type) == row.c_value);
    CHECK(std::string(clsort::to_string(row.type)) == row.name);
    CHECK(clsort::key_size(row.type) == row.bytes);
    CHECK(clsort::parse_key_type(row.name) == row.type);
    CHECK(clsort::find_key_type(row.type) == &row);
    CHECK(clsort::find_key_type(std::string_view(row.name)) == &row);
    CHECK(row.is_narrow() == (row.bytes < 4));
    CHECK(row.is_float() == (row.kind == KeyKind::ieee_float || row.kind == KeyKind::bfloat));
  }
  CHECK(clsort::key_types().size() == clsort::key_type_count);
  CHECK(clsort::key_types().size() >= std::size(kReleased));

  const KeyType bad = KeyType(77);
  CHECK(clsort::find_key_type(bad) == nullptr);
  CHECK(std::string(clsort::to_string(bad)) == "?");
  CHECK(clsort::key_size(bad) == 0);
  CHECK(clsort::find_key_type("u31") == nullptr);
  CHECK(clsort::find_key_type("") == nullptr);
  for (const char* name : {"u31", "", "U32", "u32 ", "float"}) {
    CAPTURE(name);
    auto e = thrown([&] { clsort::parse_key_type(name); });
    REQUIRE(e);
    CHECK(e->kind() == clsort::Error::Kind::invalid_argument);
    CHECK(e->where() == "key_type");
    const std::string what = e->what();
    CHECK(what.find("'" + std::string(name) + "'") != std::string::npos);
    for (const KeyTypeInfo& row : clsort::key_types()) CHECK(what.find(row.name) != std::string::npos);
  }
}

// The C++ type of each row: key_type_of maps it back, its width is the row's, and the host transforms
// (clsort/key_transform.hpp) treat it as the row's kind.
template <class K>
void check_traits(const KeyTypeInfo& row) {
  CAPTURE(row.name);
  CHECK(clsort::key_type_of<K>::value == row.type);
  CHECK(sizeof(K) == row.bytes);
  CHECK(clsort::is_float_key_v<K> == row.is_float());
  CHECK(is_float_v<K> == row.is_float());
  if constexpr (!clsort::is_float_key_v<K>) {
    CHECK(std::is_unsigned_v<K> == (row.kind == KeyKind::unsigned_int));
    CHECK(std::is_signed_v<K> == (row.kind == KeyKind::signed_int));
  } else {
    CHECK((clsort::detail::nan_span<K>() == 0x7F) == (row.kind == KeyKind::bfloat));
  }
}

TEST_CASE("key types: C++ types and the C enum of every row") {
  std::size_t rows = 0;
#define CLSORT_TEST_ROW(name, NAME, value, bytes, kind, cpp_type)  \
  {                                                                \
    const KeyTypeInfo* row = clsort::find_key_type(KeyType::name); \
    REQUIRE(row != nullptr);                                       \
    CHECK(CLSORT_KEY_##NAME == row->c_value);                      \
    CHECK(sizeof(clsort_key_type) == sizeof(int));                 \
    check_traits<cpp_type>(*row);                                  \
    ++rows;                                                        \
  }
  CLSORT_KEY_TYPES(CLSORT_TEST_ROW)
#undef CLSORT_TEST_ROW
  CHECK(rows == clsort::key_types().size());
}

// KeyKind's values are the KIND_* macros of kernels/common.cl, which the kernels compare against.
TEST_CASE("key types: each kind is the kernels' KIND_ macro of the same value") {
  std::ifstream f(std::string(CLSORT_TEST_KERNEL_SOURCE_DIR) + "/common.cl");
  REQUIRE(f.good());
  std::stringstream source;
  source << f.rdbuf();
  const std::string text = source.str();
  std::map<std::string, unsigned> macros;
  const std::regex define(R"(#define KIND_([A-Z_]+) (\d+)u)");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), define); it != std::sregex_iterator(); ++it)
    macros[(*it)[1]] = unsigned(std::stoul((*it)[2]));
  const std::map<std::string, KeyKind> kernel_names = {{"UNSIGNED", KeyKind::unsigned_int},
                                                       {"SIGNED", KeyKind::signed_int},
                                                       {"FLOAT", KeyKind::ieee_float},
                                                       {"BFLOAT", KeyKind::bfloat}};
  CHECK(macros.size() == kernel_names.size());
  for (const auto& [macro, kind] : kernel_names) {
    CAPTURE(macro);
    REQUIRE(macros.count(macro));
    CHECK(macros[macro] == unsigned(kind));
  }
  for (const KeyTypeInfo& row : clsort::key_types()) {
    CAPTURE(row.name);
    bool known = false;
    for (const auto& [macro, kind] : kernel_names) known = known || kind == row.kind;
    CHECK(known);
    CHECK(std::string(clsort::to_string(row.kind)) != "?");
  }
}

// Keys of every bit pattern but NaN (whose order among themselves the reference leaves open): signed,
// unsigned and float readings of such keys order differently, so a row mapped to the wrong type or
// kind shows.
template <class K>
std::vector<K> mixed_keys(std::size_t n, std::uint64_t seed) {
  std::vector<K> keys = make_keys<K>(Dist::random, n, seed);
  for (K& k : keys)
    if (is_nan_key(k)) k = from_bits<K>(Bits<K>(0));
  return keys;
}

template <class K>
void check_c_api(clsort_key_type c, const KeyTypeInfo& row) {
  CAPTURE(row.name);
  const std::vector<K> keys = mixed_keys<K>(999, seed_for(row.type, 900, 999));
  for (Order order : both_orders()) {
    CAPTURE(clsort::to_string(order));
    const std::vector<std::uint32_t> expected = reference_argsort(keys, order);
    std::vector<std::uint32_t> from_c(keys.size());
    REQUIRE(clsort_argsort_host(nullptr, keys.data(), keys.size(), c, from_c.data(),
                                order == Order::descending ? CLSORT_DESCENDING : CLSORT_ASCENDING) ==
            CLSORT_SUCCESS);
    CHECK(from_c == expected);
    std::vector<std::uint32_t> from_cpp(keys.size());
    shared_sorter().argsort_host(row.type, keys.data(), keys.size(), from_cpp.data(), {order});
    CHECK(from_cpp == expected);
  }
}

TEST_CASE("key types: the C API sorts each C enumerator as its row's type") {
#define CLSORT_TEST_ROW(name, NAME, value, bytes, kind, cpp_type) \
  check_c_api<cpp_type>(CLSORT_KEY_##NAME, *clsort::find_key_type(KeyType::name));
  CLSORT_KEY_TYPES(CLSORT_TEST_ROW)
#undef CLSORT_TEST_ROW

  std::vector<std::uint32_t> keys = {3, 1, 2}, before = keys;
  for (int value : {-1, int(clsort::key_types().size()), 77}) {
    CAPTURE(value);
    CHECK(clsort_sort_host(nullptr, keys.data(), keys.size(), clsort_key_type(value), 0) ==
          CLSORT_ERROR_INVALID_ARGUMENT);
    CHECK(std::string(clsort_last_error_message()).find("key_type") != std::string::npos);
    CHECK(keys == before);
  }
}

// A KeyType cast from an integer outside the table: every call taking a type refuses it, naming "type",
// before it touches the caller's data.
TEST_CASE("key types: a KeyType outside the table is refused") {
  clsort::Sorter& s = shared_sorter();
  const KeyType bad = KeyType(77);
  const std::vector<std::uint32_t> original = {3, 1, 2, 9, 4, 0, 7, 5};
  const std::size_t n = original.size();
  std::vector<std::uint32_t> keys = original, values = original, out(n, 0xAAAAAAAAu);
  std::vector<std::uint64_t> out64(n, 0xAAAAAAAAAAAAAAAAull);
  const std::vector<std::uint32_t> offsets = {0, 3, std::uint32_t(n)};
  Filled kb(s.context(), n * 8, 1), vb(s.context(), n * 8, 2), ob(s.context(), n * 8, 3);
  const cl::Buffer offsets_buffer(s.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, offsets.size() * 4,
                                  const_cast<std::uint32_t*>(offsets.data()));
  const std::vector<std::pair<const char*, std::function<void()>>> calls = {
      {"sort_host", [&] { s.sort_host(bad, keys.data(), n, nullptr, 0, {}); }},
      {"sort_host with values", [&] { s.sort_host(bad, keys.data(), n, values.data(), 4, {}); }},
      {"sort_copy_host", [&] { s.sort_copy_host(bad, keys.data(), out.data(), n, {}); }},
      {"argsort_host", [&] { s.argsort_host(bad, keys.data(), n, out.data(), {}); }},
      {"argsort64_host", [&] { s.argsort64_host(bad, keys.data(), n, out64.data(), {}); }},
      {"top_k_host", [&] { s.top_k_host(bad, keys.data(), n, 2, out.data(), values.data(), {}); }},
      {"select_host", [&] { s.select_host(bad, keys.data(), n, 2, out.data(), {}); }},
      {"sort_segments_host",
       [&] { s.sort_segments_host(bad, keys.data(), n, nullptr, 0, offsets.data(), 4, 2, {}); }},
      {"sort_buffer", [&] { s.sort_buffer(bad, kb.buffer, nullptr, 0, n, {}, {}).wait(); }},
      {"sort_buffer with values", [&] { s.sort_buffer(bad, kb.buffer, &vb.buffer, 4, n, {}, {}).wait(); }},
      {"argsort_buffer", [&] { s.argsort_buffer(bad, kb.buffer, n, ob.buffer, 4, {}, {}).wait(); }},
      {"top_k_buffer", [&] { s.top_k_buffer(bad, kb.buffer, n, 2, ob.buffer, vb.buffer, {}, {}).wait(); }},
      {"select_buffer", [&] { s.select_buffer(bad, kb.buffer, n, 2, ob.buffer, {}, {}).wait(); }},
      {"sort_segments_buffer",
       [&] { s.sort_segments_buffer(bad, kb.buffer, nullptr, 0, offsets_buffer, 4, 2, {}, {}).wait(); }},
      {"plan", [&] { s.plan(bad, n); }},
      {"choose", [&] { s.choose(bad, n, false); }},
      {"max_n", [&] { s.max_n(bad); }},
  };
  for (const auto& [name, call] : calls) {
    CAPTURE(std::string(name));
    auto e = thrown(call);
    REQUIRE(e);
    CHECK(e->kind() == clsort::Error::Kind::invalid_argument);
    CHECK(e->where() == "type");
    CHECK(keys == original);
    CHECK(values == original);
    CHECK(std::all_of(out.begin(), out.end(), [](std::uint32_t x) { return x == 0xAAAAAAAAu; }));
    CHECK(
        std::all_of(out64.begin(), out64.end(), [](std::uint64_t x) { return x == 0xAAAAAAAAAAAAAAAAull; }));
    CHECK(kb.unchanged(s.queue()));
    CHECK(vb.unchanged(s.queue()));
    CHECK(ob.unchanged(s.queue()));
  }
}

}  // namespace
}  // namespace clsort_test
