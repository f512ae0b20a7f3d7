// Run configuration of the tests: seeds, the size list, the shared Sorter.
#include "support.hpp"

#include <doctest/doctest.h>

#include <cstdlib>
#include <iostream>
#include <mutex>
#include <stdexcept>

namespace clsort_test {

bool full_matrix() {
  const char* env = std::getenv("CLSORT_TEST_FULL");
  return env && *env && std::string(env) != "0";
}

std::uint64_t base_seed() {
  static const std::uint64_t seed = [] {
    const char* env = std::getenv("CLSORT_TEST_SEED");
    return env && *env ? std::strtoull(env, nullptr, 0) : 0xC150A7ull;
  }();
  return seed;
}

std::uint64_t seed_for(KeyType type, int what, std::size_t n, std::uint64_t salt) {
  // splitmix64 over the fields, so that neighbouring sizes get unrelated data.
  std::uint64_t z = base_seed();
  for (std::uint64_t v : {std::uint64_t(type), std::uint64_t(what), std::uint64_t(n), salt}) {
    z += 0x9e3779b97f4a7c15ull + v;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
  }
  return z;
}

clsort::Sorter& shared_sorter() {
  static clsort::Sorter* sorter = [] {
    auto* s = new clsort::Sorter();  // leaked: OpenCL teardown during static destruction is unsafe
    std::cerr << "clsort tests on '" << s->device().getInfo<CL_DEVICE_NAME>() << "' ("
              << clsort::default_device_reason() << "), tuning: " << s->plan().tuning
              << ", base seed CLSORT_TEST_SEED=" << base_seed() << (full_matrix() ? ", full matrix" : "")
              << "\n";
    return s;
  }();
  return *sorter;
}

std::string alternate_radix_tuning() {
  const std::string tuning = shared_sorter().plan().tuning;
  if (tuning.find("radix.cpu=") == std::string::npos) return {};
  return plan_value(shared_sorter(), "radix.cpu") ? "radix.cpu=0" : "radix.cpu=1";
}

clsort::Sorter* alternate_radix_sorter() {
  static clsort::Sorter* sorter = []() -> clsort::Sorter* {
    const std::string tuning = alternate_radix_tuning();
    if (tuning.empty()) return nullptr;
    clsort::Sorter& base = shared_sorter();
    auto* s = new clsort::Sorter(cl::CommandQueue(base.context(), base.device()));
    s->tune(tuning);
    return s;
  }();
  return sorter;
}

clsort::Sorter* alternate_radix_sorter_to_test() {
  clsort::Sorter* sorter = alternate_radix_sorter();
  if (!sorter) MESSAGE("the tuning has no alternative radix shape: nothing to test");
  return sorter;
}

std::size_t plan_value(const clsort::Sorter& sorter, const std::string& name) {
  std::istringstream in(sorter.plan().tuning);
  std::string item;
  while (in >> item)
    if (item.compare(0, name.size() + 1, name + "=") == 0) return std::stoull(item.substr(name.size() + 1));
  return 0;
}

std::vector<std::size_t> matrix_sizes(const clsort::Sorter& sorter, std::size_t max_n) {
  std::vector<std::size_t> sizes{
      0,  1,   2,   3,   5,    7,    31,   32,   33,   63,    64,
      65, 255, 256, 257, 1000, 4095, 4096, 4097, 6144, 65537, (std::size_t(1) << 20) + 3};
  // The boundaries of this device's tuning: work-groups, radix blocks, bitonic tiles, automatic's switch.
  const std::size_t bitonic_tile = plan_value(sorter, "bitonic.tile");
  const std::size_t small = std::min(plan_value(sorter, "auto.small_n"), bitonic_tile);
  for (std::size_t b :
       {plan_value(sorter, "radix.wg"), plan_value(sorter, "bitonic.wg"), plan_value(sorter, "selection.wg"),
        bitonic_tile, small, plan_value(sorter, "radix.wg") * plan_value(sorter, "radix.items")})
    if (b > 1)
      for (std::size_t s : {b - 1, b, b + 1}) sizes.push_back(s);
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  sizes.erase(std::remove_if(sizes.begin(), sizes.end(), [&](std::size_t s) { return s > max_n; }),
              sizes.end());
  return sizes;
}

Algorithm algorithm_named(const std::string& name) {
  try {
    return clsort::parse_algorithm(name);
  } catch (const clsort::Error& e) {
    throw std::invalid_argument("test helper algorithm_named: unknown algorithm name '" + name + "' (" +
                                e.what() + ")");
  }
}

const std::vector<Algorithm>& all_algorithms() {
  static const std::vector<Algorithm> all = [] {
    std::vector<Algorithm> a;
    for (const char* name : {"radix", "bitonic", "selection", "automatic", "odd_even", "merge"})
      a.push_back(algorithm_named(name));
    return a;
  }();
  return all;
}

std::size_t matrix_max_n(Algorithm a) {
  const std::string name = clsort::to_string(a);
  const std::size_t cap = name == "selection" || name == "odd_even" ? 6144 : SIZE_MAX;
  return std::min(cap, clsort::max_n(a));
}

const char* to_string(Dist d) {
  static constexpr const char* names[] = {"random",     "sorted",   "reversed", "all_equal",
                                          "few_unique", "sawtooth", "extremes", "float_specials"};
  return enum_name(d, names);
}

std::string describe(Algorithm a, KeyType t, Order o, std::size_t n, Dist d, std::uint64_t seed) {
  std::ostringstream s;
  s << clsort::to_string(a) << " " << clsort::to_string(t) << " " << clsort::to_string(o) << " n=" << n
    << " dist=" << to_string(d) << " seed=" << hex(seed) << " (CLSORT_TEST_SEED=" << base_seed() << ")";
  return s.str();
}

}  // namespace clsort_test
