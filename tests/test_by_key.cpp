// sort_by_key and argsort for every algorithm, key type and order: values follow their keys, equal keys
// keep input order (also descending), values of every width and kind keep their bits.
#include <doctest/doctest.h>

#include "support/key_type_cases.hpp"
#include "support/support.hpp"

namespace clsort_test {
namespace {

constexpr std::size_t kLarge = std::size_t(1) << 20;

// Returns the first difference between clsort's sort_by_key and a stable reference, or "".
template <class K, class V>
std::string check_by_key(clsort::Sorter& sorter, Algorithm algorithm, Order order, const std::vector<K>& keys,
                         std::uint64_t seed) {
  const std::vector<V> values = make_values<V>(keys.size(), seed);
  // The reference: pairs sorted stably by key. Values identify their input index, so any instability
  // or mispairing shows up as a value difference.
  const std::vector<std::uint32_t> perm = reference_argsort(keys, order);
  std::vector<K> expected_keys(keys.size());
  std::vector<V> expected_values(keys.size());
  for (std::size_t i = 0; i < perm.size(); ++i) {
    expected_keys[i] = keys[perm[i]];
    expected_values[i] = values[perm[i]];
  }
  std::vector<K> got_keys = keys;
  std::vector<V> got_values = values;
  try {
    sorter.sort_by_key(got_keys, got_values, {order, algorithm});
  } catch (const clsort::Error& e) {
    return std::string("threw: ") + e.what();
  }
  return compare_sorted(expected_keys, got_keys, &expected_values, &got_values);
}

template <class V>
const char* value_name() {
  if constexpr (std::is_same_v<V, Tagged>)
    return "Tagged";
  else if constexpr (std::is_same_v<V, double>)
    return "double";
  else if constexpr (std::is_same_v<V, std::uint64_t>)
    return "u64";
  else
    return "u32";
}

template <class K>
void by_key_matrix(clsort::Sorter& sorter, Algorithm algorithm, const std::string& note = {}) {
  const KeyType type = clsort::key_type_of<K>::value;
  const std::size_t max_n = matrix_max_n(algorithm);
  const Dist special = special_distribution<K>();
  FailureBudget budget;
  auto run = [&](auto value_tag, std::size_t n, Dist dist, Order order) {
    using V = decltype(value_tag);
    const std::uint64_t seed = seed_for(type, int(dist), n, 1);
    const std::vector<K> keys = make_keys<K>(dist, n, seed);
    const std::string error = check_by_key<K, V>(sorter, algorithm, order, keys, seed);
    CHECK_MESSAGE(error.empty(), describe(algorithm, type, order, n, dist, seed)
                                     << note << " values=" << value_name<V>() << ": " << error);
    if (!budget.record(error.empty())) FAIL("too many failures");
  };
  for (std::size_t n : matrix_sizes(sorter, max_n)) {
    for (Order order : both_orders()) {
      // 4-byte values (the width argsort uses): the whole matrix, as for keys alone.
      for (Dist dist : distributions<K>())
        if (n < kLarge || full_matrix() || dist == Dist::random || dist == special)
          run(std::uint32_t{}, n, dist, order);
      // 8-byte values: duplicates (where stability matters) and special keys; the three 8-byte value kinds
      // share one kernel build, so the integer kind takes every size and the others the smaller ones.
      for (Dist dist : {Dist::few_unique, special, Dist::random}) {
        if (n >= kLarge && !full_matrix()) continue;  // 65537 already spans many blocks and work-groups
        run(std::uint64_t{}, n, dist, order);
        if (n <= 4097 || full_matrix()) {
          run(double{}, n, dist, order);
          run(Tagged{}, n, dist, order);
        }
      }
    }
  }
}

template <class K>
void argsort_matrix(Algorithm algorithm) {
  clsort::Sorter& sorter = shared_sorter();
  const KeyType type = clsort::key_type_of<K>::value;
  FailureBudget budget;
  for (std::size_t n : matrix_sizes(sorter, matrix_max_n(algorithm))) {
    for (Dist dist : {Dist::random, Dist::all_equal, Dist::few_unique, Dist::sawtooth, Dist::reversed,
                      special_distribution<K>()}) {
      if (n >= kLarge && !full_matrix() && dist != Dist::few_unique) continue;
      const std::uint64_t seed = seed_for(type, int(dist), n, 2);
      const std::vector<K> keys = make_keys<K>(dist, n, seed);
      for (Order order : both_orders()) {
        std::string error;
        try {
          const std::vector<K> before = keys;
          const std::vector<std::uint32_t> got = sorter.argsort(keys, {order, algorithm});
          error = compare_argsort(keys, reference_argsort(keys, order), got);
          if (error.empty() && std::memcmp(before.data(), keys.data(), n * sizeof(K)) != 0)
            error = "argsort modified its input";
        } catch (const clsort::Error& e) {
          error = std::string("threw: ") + e.what();
        }
        CHECK_MESSAGE(error.empty(),
                      "argsort " << describe(algorithm, type, order, n, dist, seed) << ": " << error);
        if (!budget.record(error.empty())) FAIL("too many failures");
      }
    }
  }
}

// radix_alt: the radix shape the device's tuning does not choose (see alternate_radix_sorter()).
template <class K>
void by_key_matrix_radix_alt() {
  if (clsort::Sorter* sorter = alternate_radix_sorter_to_test())
    by_key_matrix<K>(*sorter, Algorithm::radix, " tuning " + alternate_radix_tuning());
}

#define CLSORT_BY_KEY_CASES(K, name, algorithm)                     \
  TEST_CASE("by_key " #algorithm " " name) {                        \
    by_key_matrix<K>(shared_sorter(), algorithm_named(#algorithm)); \
  }                                                                 \
  TEST_CASE("argsort " #algorithm " " name) {                       \
    argsort_matrix<K>(algorithm_named(#algorithm));                 \
  }
#define CLSORT_BY_KEY_ALGORITHM(algorithm) CLSORT_EACH_KEY_TYPE(CLSORT_BY_KEY_CASES, algorithm)

CLSORT_BY_KEY_ALGORITHM(radix)
CLSORT_BY_KEY_ALGORITHM(bitonic)
CLSORT_BY_KEY_ALGORITHM(selection)
CLSORT_BY_KEY_ALGORITHM(automatic)
CLSORT_BY_KEY_ALGORITHM(odd_even)
CLSORT_BY_KEY_ALGORITHM(merge)

CLSORT_CASES_PER_KEY_TYPE("by_key radix_alt", by_key_matrix_radix_alt)

// Stability with hand-made data, readable when it fails: equal keys interleaved, both orders.
TEST_CASE("by_key stability by hand") {
  clsort::Sorter& sorter = shared_sorter();
  for (Algorithm algorithm : all_algorithms()) {
    for (Order order : both_orders()) {
      CAPTURE(std::string(clsort::to_string(algorithm)));
      CAPTURE(std::string(clsort::to_string(order)));
      std::vector<float> keys{2.f, 1.f, 2.f, -0.f, 1.f, 0.f, 2.f, -0.f, 0.f, 1.f};
      std::vector<std::uint32_t> values{0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
      sorter.sort_by_key(keys, values, {order, algorithm});
      const std::vector<std::uint32_t> ascending{3, 7, 5, 8, 1, 4, 9, 0, 2, 6};
      const std::vector<std::uint32_t> descending{0, 2, 6, 1, 4, 9, 5, 8, 3, 7};
      CHECK(values == (order == Order::ascending ? ascending : descending));
      CHECK(sorter.argsort(std::vector<float>{2.f, 1.f, 2.f, -0.f, 1.f, 0.f, 2.f, -0.f, 0.f, 1.f},
                           {order, algorithm}) == (order == Order::ascending ? ascending : descending));
    }
  }
}

}  // namespace
}  // namespace clsort_test
