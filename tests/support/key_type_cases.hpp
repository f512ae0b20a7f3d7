// Test cases named by key type ("segments u32", ..., "segments bf16"): tests/CMakeLists.txt and
// tests/cli/CMakeLists.txt select test cases by these names.
#pragma once

#include <doctest/doctest.h>

#include <clsort/clsort.hpp>

#include <cstdint>

/// X(K, "name", ...) for each of clsort's twelve key types and its name (clsort::to_string's); what follows
/// X is passed on after the name.
#define CLSORT_EACH_KEY_TYPE(X, ...)   \
  X(std::uint32_t, "u32", __VA_ARGS__) \
  X(std::int32_t, "i32", __VA_ARGS__)  \
  X(float, "f32", __VA_ARGS__)         \
  X(std::uint64_t, "u64", __VA_ARGS__) \
  X(std::int64_t, "i64", __VA_ARGS__)  \
  X(double, "f64", __VA_ARGS__)        \
  X(std::uint8_t, "u8", __VA_ARGS__)   \
  X(std::int8_t, "i8", __VA_ARGS__)    \
  X(std::uint16_t, "u16", __VA_ARGS__) \
  X(std::int16_t, "i16", __VA_ARGS__)  \
  X(clsort::half, "f16", __VA_ARGS__)  \
  X(clsort::bfloat16, "bf16", __VA_ARGS__)

/// TEST_CASE(prefix " u32") { run<std::uint32_t>(); }, and so on for each key type.
#define CLSORT_KEY_TYPE_CASE(K, name, prefix, run) \
  TEST_CASE(prefix " " name) {                     \
    run<K>();                                      \
  }
#define CLSORT_CASES_PER_KEY_TYPE(prefix, run) CLSORT_EACH_KEY_TYPE(CLSORT_KEY_TYPE_CASE, prefix, run)
