// clsort's key types for C++, from the one table in clsort/key_types.h: the KeyType enum, each row as a
// constexpr KeyTypeInfo (key_types(), find_key_type), and key_type_of<K> for the table's C++ types.
// Included by clsort/clsort.hpp.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>
#include <type_traits>

#include "clsort/float16.hpp"
#include "clsort/key_types.h"

namespace clsort {

/// Key types clsort sorts: one enumerator per row of CLSORT_KEY_TYPES (clsort/key_types.h), with its value:
/// u32, i32, f32, u64, i64, f64, u8, i8, u16, i16, f16 (IEEE binary16, clsort::half) and bf16 (bfloat16,
/// clsort::bfloat16); both 16-bit floats order like f32. Values may be any trivially copyable type (1 byte
/// or wider); those of up to 8 bytes ride the sort's passes (widened to 4 or 8), wider ones are sorted as
/// indices and move once at the end.
enum class KeyType {
#define CLSORT_KEY_ENUMERATOR(name, NAME, value, bytes, kind, cpp_type) name = value,
  CLSORT_KEY_TYPES(CLSORT_KEY_ENUMERATOR)
#undef CLSORT_KEY_ENUMERATOR
};

/// How a key's bits map to its order: each kind is one branch of encode_key in kernels/common.cl (its
/// KIND_* macro, of the same value) and in clsort/key_transform.hpp.
enum class KeyKind : unsigned {
  unsigned_int = 0,  ///< the bits as they are
  signed_int = 1,    ///< two's complement: the sign bit flipped
  ieee_float = 2,    ///< IEEE 754 binary16, 32 or 64: sign-magnitude, NaNs after +inf
  bfloat = 3         ///< bfloat16: as ieee_float, with bfloat16's 7 fraction bits
};

/// One row of the key-type table (clsort/key_types.h), as key_types() lists it.
struct KeyTypeInfo {
  KeyType type;
  const char* name;   ///< "u32", ...: to_string(type), the command line's --type
  std::size_t bytes;  ///< the width of one key: key_size(type)
  KeyKind kind;       ///< how the kernels order its bits
  int c_value;        ///< its clsort_key_type in the C API (clsort.h): CLSORT_KEY_U32, ...
  /// Whether its keys are floating point (NaNs, -0): f16, f32, f64, bf16.
  constexpr bool is_float() const noexcept { return kind == KeyKind::ieee_float || kind == KeyKind::bfloat; }
  /// Whether its keys are narrower than 32 bits (8- and 16-bit codes, widened to 32 bits in registers).
  constexpr bool is_narrow() const noexcept { return bytes < 4; }
};

/// How many key types there are: the rows of CLSORT_KEY_TYPES.
#define CLSORT_KEY_COUNT(...) +1
inline constexpr std::size_t key_type_count = 0 CLSORT_KEY_TYPES(CLSORT_KEY_COUNT);
#undef CLSORT_KEY_COUNT

namespace detail {
inline constexpr std::array<KeyTypeInfo, key_type_count> key_type_rows = {{
#define CLSORT_KEY_ROW(name, NAME, value, bytes, kind, cpp_type) \
  {KeyType::name, #name, bytes, KeyKind::kind, value},
    CLSORT_KEY_TYPES(CLSORT_KEY_ROW)
#undef CLSORT_KEY_ROW
}};
}  // namespace detail

/// Every key type, in the order of their values: `for (const clsort::KeyTypeInfo& t : clsort::key_types())`.
constexpr const std::array<KeyTypeInfo, key_type_count>& key_types() noexcept {
  return detail::key_type_rows;
}

/// The row of `t`, or null when `t` is not one of the enumerators (a cast from a bad integer).
constexpr const KeyTypeInfo* find_key_type(KeyType t) noexcept {
  for (const KeyTypeInfo& row : key_types())
    if (row.type == t) return &row;
  return nullptr;
}
/// The row named `name` ("u32", ..., "bf16"), or null.
constexpr const KeyTypeInfo* find_key_type(std::string_view name) noexcept {
  for (const KeyTypeInfo& row : key_types())
    if (name == row.name) return &row;
  return nullptr;
}

/// The KeyType of a C++ key type: key_type_of<float>::value is KeyType::f32. Defined for the table's
/// C++ types only.
template <class K>
struct key_type_of;
#define CLSORT_KEY_TRAITS(name, NAME, value, bytes, kind, cpp_type)                 \
  template <>                                                                       \
  struct key_type_of<cpp_type> : std::integral_constant<KeyType, KeyType::name> {}; \
  static_assert(sizeof(cpp_type) == (bytes), "clsort/key_types.h: " #name "'s width is not its type's");
CLSORT_KEY_TYPES(CLSORT_KEY_TRAITS)
#undef CLSORT_KEY_TRAITS

}  // namespace clsort
