/* clsort's key types, one row each. Every list of key types derives from this one: the C enum
 * clsort_key_type (clsort.h), the C++ enum clsort::KeyType with its table clsort::key_types() and
 * clsort::key_type_of (clsort.hpp), the command line's type names and the Python package's dtype map.
 * Valid C99 and C++; it defines one macro and includes nothing. */
#ifndef CLSORT_KEY_TYPES_H
#define CLSORT_KEY_TYPES_H

/** @file key_types.h
 * @brief The key-type table: `CLSORT_KEY_TYPES(X)` calls `X(name, NAME, value, bytes, kind, cpp_type)` once
 * per key type.
 *
 * - `name`: the C++ enumerator clsort::KeyType::name, its to_string(), the command line's `--type` and
 *   the Python enum's name.
 * - `NAME`: the C enumerator `CLSORT_KEY_<NAME>`.
 * - `value`: both enumerators' value. The C ABI and the Python module depend on it: a row keeps its value
 *   for good, and a new row takes a new one.
 * - `bytes`: the width of one key.
 * - `kind`: the clsort::KeyKind enumerator that says how the kernels' encode_key orders its bits
 *   (kernels/common.cl and clsort/key_transform.hpp implement each kind).
 * - `cpp_type`: the C++ key type that clsort::key_type_of maps to the row. C passes 16-bit floats as
 *   their bits (uint16_t).
 *
 * A new key type is a row here (with a new value) and, when no kind orders it yet, its kind's encode.
 */
/* clang-format off */
#define CLSORT_KEY_TYPES(X)                                    \
  X(u32,  U32,  0,  4, unsigned_int, std::uint32_t)            \
  X(i32,  I32,  1,  4, signed_int,   std::int32_t)             \
  X(f32,  F32,  2,  4, ieee_float,   float)                    \
  X(u64,  U64,  3,  8, unsigned_int, std::uint64_t)            \
  X(i64,  I64,  4,  8, signed_int,   std::int64_t)             \
  X(f64,  F64,  5,  8, ieee_float,   double)                   \
  X(u8,   U8,   6,  1, unsigned_int, std::uint8_t)             \
  X(i8,   I8,   7,  1, signed_int,   std::int8_t)              \
  X(u16,  U16,  8,  2, unsigned_int, std::uint16_t)            \
  X(i16,  I16,  9,  2, signed_int,   std::int16_t)             \
  X(f16,  F16,  10, 2, ieee_float,   ::clsort::half)           \
  X(bf16, BF16, 11, 2, bfloat,       ::clsort::bfloat16)
/* clang-format on */

#endif /* CLSORT_KEY_TYPES_H */
