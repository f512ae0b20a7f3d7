// The key-only matrix: every algorithm forced through Options::algorithm, every key type, both orders,
// every size and distribution, checked bit for bit against std::stable_sort in the documented order.
#include <doctest/doctest.h>

#include "support/key_type_cases.hpp"
#include "support/support.hpp"

namespace clsort_test {
namespace {

// Sizes from this one up are "large". By default they run random data and the type's most special
// distribution only (about a quarter of the matrix's time each otherwise); CLSORT_TEST_FULL runs all.
constexpr std::size_t kLarge = std::size_t(1) << 20;

template <class K>
bool runs_at(Dist d, std::size_t n) {
  return n < kLarge || full_matrix() || d == Dist::random || d == special_distribution<K>();
}

template <class K>
void key_matrix(clsort::Sorter& sorter, Algorithm algorithm, const std::string& note = {}) {
  const KeyType type = clsort::key_type_of<K>::value;
  FailureBudget budget;
  int runs = 0;
  for (std::size_t n : matrix_sizes(sorter, matrix_max_n(algorithm))) {
    for (Dist dist : distributions<K>()) {
      if (!runs_at<K>(dist, n)) continue;
      const std::uint64_t seed = seed_for(type, int(dist), n);
      const std::vector<K> input = make_keys<K>(dist, n, seed);
      for (Order order : both_orders()) {
        const std::string what = describe(algorithm, type, order, n, dist, seed) + note;
        const std::vector<K> expected = reference_sort(input, order);
        std::vector<K> got = input;
        std::string error;
        try {
          sorter.sort(got, {order, algorithm});
          error = compare_sorted(expected, got);
        } catch (const clsort::Error& e) {
          error = std::string("threw: ") + e.what();
        }
        ++runs;
        CHECK_MESSAGE(error.empty(), what << ": " << error);
        if (!budget.record(error.empty())) FAIL("too many failures, stopping at " << what);
      }
    }
  }
  CHECK(runs > 0);
}

template <class K>
void key_matrix(const char* name) {
  key_matrix<K>(shared_sorter(), algorithm_named(name));
}

// radix_alt: the radix shape the device's tuning does not choose.
template <class K>
void key_matrix_radix_alt() {
  if (clsort::Sorter* sorter = alternate_radix_sorter_to_test())
    key_matrix<K>(*sorter, Algorithm::radix, " tuning " + alternate_radix_tuning());
}

#define CLSORT_MATRIX_CASE(K, name, algorithm) \
  TEST_CASE("matrix " #algorithm " " name) {   \
    key_matrix<K>(#algorithm);                 \
  }
#define CLSORT_MATRIX_ALGORITHM(algorithm) CLSORT_EACH_KEY_TYPE(CLSORT_MATRIX_CASE, algorithm)

CLSORT_MATRIX_ALGORITHM(radix)
CLSORT_MATRIX_ALGORITHM(bitonic)
CLSORT_MATRIX_ALGORITHM(selection)
CLSORT_MATRIX_ALGORITHM(automatic)
CLSORT_MATRIX_ALGORITHM(odd_even)
CLSORT_MATRIX_ALGORITHM(merge)

CLSORT_CASES_PER_KEY_TYPE("matrix radix_alt", key_matrix_radix_alt)

}  // namespace
}  // namespace clsort_test
