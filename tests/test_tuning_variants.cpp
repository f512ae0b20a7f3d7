// Sorts under non-default tuning (odd radix widths, tiny tiles and work-groups, both radix rankings, every
// sub-group size, both shapes of the comparison sorts) that reach code paths the device's own tuning
// never takes, each checked against the reference.
#include <doctest/doctest.h>

#include "support/support.hpp"

namespace clsort_test {
namespace {

enum TypeMask : unsigned { kU32 = 1, kF32 = 2, kI64 = 4, kF64 = 8, kAllTypes = 15 };

struct Variant {
  const char* tuning;
  Algorithm algorithm;
  unsigned types;  // which key types run: a program per key width and tuning costs seconds on PoCL
  // On CPU devices, unless CLSORT_TEST_FULL: none of the usual sizes above this (0: all of them), and
  // instead the edges of the row's radix tile (wg x items keys) and six tiles, the last of one key.
  std::size_t cpu_max_n = 0;
};

// Onesweep's look-back has each work-group wait for the tiles before it; on PoCL, where a work-group is a
// loop on one of a few threads, that makes many tiles slow: n = 65537 (33 to 2731 tiles per pass) took
// 11 of the 13 s that the four Onesweep rows spent sorting (PoCL 3.1, 2 cores, programs cached). Up to
// 4097 keys they still cross 3 to 171 tiles per pass, and the tile sizes cover what 65537 added: a
// partial last tile after full ones, and a walk back past one window of OS_WINDOW tiles.
constexpr std::size_t kOnesweepCpuMaxN = 4097;

// Each variant reaches a path the device's tuning does not: both radix shapes (radix.cpu) whatever the
// device, an odd number of radix passes (the result lands in scratch), a top digit narrower than the
// others, digits of 4+1 and 4+3 bits in the block sort, non-power-of-two blocks, a single work-group or
// chunk, a global bitonic step at every stride, a tile exactly twice the work-group, selection with one
// work-item per group, and automatic switching at the extremes. Both radix rankings (radix.match), the
// multisplit one (over the device's best sub-group primitives) also with fewer digits than work-items, one
// sub-group, many sub-groups and a narrower top digit. Variants differing only in radix.cpu or
// radix.groups share their programs.
const Variant kVariants[] = {
    {"radix.cpu=0,radix.groups=1", Algorithm::radix, kAllTypes},
    {"radix.cpu=0,radix.match=0", Algorithm::radix, kAllTypes},
    {"radix.cpu=0,radix.match=1,radix.bits=4,radix.wg=32,radix.items=3,radix.groups=5", Algorithm::radix,
     kU32 | kF64},
    {"radix.cpu=0,radix.match=1,radix.bits=7,radix.wg=1024,radix.items=2,radix.groups=2", Algorithm::radix,
     kF32 | kI64},
    {"radix.cpu=0,radix.groups=3", Algorithm::radix, kAllTypes},
    // A width that is no power of two; on NVIDIA also one whose warp counters overflow local memory, so
    // the fit halves it, to whole warps (992 -> 480).
    {"radix.cpu=0,radix.match=1,radix.wg=992,radix.items_small=0", Algorithm::radix, kU32, kOnesweepCpuMaxN},
    // The device's own tiles below half a tile per compute unit, where its row may choose smaller ones
    // (radix.items_small); on PoCL the same as the default.
    {"radix.items_small=0", Algorithm::radix, kAllTypes, kOnesweepCpuMaxN},
    {"radix.cpu=1,radix.groups=1", Algorithm::radix, kAllTypes},
    {"radix.cpu=1,radix.groups=65536", Algorithm::radix, kAllTypes},
    {"radix.cpu=0,radix.bits=11", Algorithm::radix, kF32},
    {"radix.cpu=1,radix.bits=11,radix.groups=3", Algorithm::radix, kF32},
    {"radix.cpu=0,radix.bits=5,radix.wg=24,radix.items=3,radix.groups=3", Algorithm::radix, kI64},
    {"radix.cpu=1,radix.bits=5,radix.wg=8,radix.items=3,radix.groups=1", Algorithm::radix, kI64},
    // The CPU shape's per-bucket histograms for every pass at the widest and narrowest digits.
    {"radix.cpu=1,radix.bits=12,radix.groups=2", Algorithm::radix, kF64},
    {"radix.cpu=1,radix.bits=1", Algorithm::radix, kU32},
    // The CPU shape's buckets both ways whatever the key width: every pass over the bucket, or its top
    // passes and then the runs of keys equal in them (radix.buckets).
    {"radix.cpu=1,radix.buckets=1", Algorithm::radix, kI64 | kF64},
    {"radix.cpu=1,radix.buckets=2", Algorithm::radix, kU32 | kF32},
    {"radix.cpu=1,radix.buckets=2,radix.bits=4,radix.groups=3", Algorithm::radix, kI64 | kF64},
    // The MSD scatter's write-combining lines at every n: one 64-bit key a line, and lines of 32 keys (on
    // CPU devices; GPUs ignore radix.wc).
    {"radix.cpu=1,radix.wc=8,radix.wc_min=0", Algorithm::radix, kAllTypes},
    {"radix.cpu=1,radix.wc=128,radix.wc_min=0,radix.groups=3", Algorithm::radix, kU32 | kI64 | kF64},
    {"bitonic.tile=2,bitonic.wg=1", Algorithm::bitonic, kF32},
    {"bitonic.tile=256,bitonic.wg=128", Algorithm::bitonic, kI64},
    {"bitonic.tile=64,bitonic.wg=8", Algorithm::bitonic, kU32},
    {"bitonic.tile=32,bitonic.wg=128", Algorithm::bitonic, kF64},  // tile < 2 wg: the library must fix it up
    {"selection.wg=1", Algorithm::selection, kF64},
    {"selection.wg=128", Algorithm::selection, kU32},
    {"auto.small_n=0", Algorithm::automatic, kAllTypes},
    {"auto.small_n=100000,bitonic.tile=512,bitonic.wg=64", Algorithm::automatic, kF32 | kF64},
};

// Onesweep's variants, a test of their own: on PoCL, where the look-back has groups wait for each other on
// two threads, they take as long as all the others.
const Variant kOnesweepVariants[] = {
    // Onesweep: an even number of passes (passes with one digit are skipped), an odd number (none are;
    // the result is copied back), tiles of 72 keys (long look-back chains); on NVIDIA the multisplit
    // ranking with 4- and 7-bit digits.
    {"radix.cpu=0,radix.onesweep=1", Algorithm::radix, kAllTypes, kOnesweepCpuMaxN},
    {"radix.cpu=0,radix.onesweep=1,radix.bits=5,radix.wg=24,radix.items=3", Algorithm::radix, kI64 | kU32,
     kOnesweepCpuMaxN},
    // The look-back's recount, which a tile waited for in vain gets: with no waiting at all, every tile
    // recounts every earlier one (on NVIDIA the multisplit program's, elsewhere the portable one's).
    {"radix.cpu=0,radix.onesweep=1,radix.spins=0", Algorithm::radix, kU32 | kF64, kOnesweepCpuMaxN},
    // On NVIDIA a register cap in the PTX tight enough to spill, for every kernel kind: 32-bit keys,
    // 64-bit keys, and (argsort) keys with values; elsewhere the row above's program.
    {"radix.cpu=0,radix.onesweep=1,radix.regs=40", Algorithm::radix, kU32 | kI64, kOnesweepCpuMaxN},
    {"radix.cpu=0,radix.onesweep=1,radix.match=1,radix.bits=4,radix.wg=32,radix.items=3", Algorithm::radix,
     kU32 | kF64, kOnesweepCpuMaxN},
    // On NVIDIA also caps above a 1024-wide group's share of the register file, which must be lowered to
    // it or the launch fails.
    {"radix.cpu=0,radix.onesweep=1,radix.match=1,radix.bits=7,radix.wg=1024,radix.items=2,radix.regs=255",
     Algorithm::radix, kF32 | kI64, kOnesweepCpuMaxN},
};

// The sizes sort_with_tuning runs under variant v on sorter's device.
std::vector<std::size_t> tuning_sizes(const clsort::Sorter& sorter, const Variant& v) {
  std::vector<std::size_t> sizes{0, 1, 2, 3, 5, 17, 33, 64, 65, 255, 257, 1000, 1025, 4097};
  if (matrix_max_n(v.algorithm) >= 65537) sizes.push_back(65537);
  const bool cpu = sorter.device().getInfo<CL_DEVICE_TYPE>() & CL_DEVICE_TYPE_CPU;
  if (!v.cpu_max_n || !cpu || full_matrix()) return sizes;
  sizes.erase(std::remove_if(sizes.begin(), sizes.end(), [&](std::size_t n) { return n > v.cpu_max_n; }),
              sizes.end());
  // The tile as the row tunes it (the device's fit may shrink it; PoCL's leaves these rows alone).
  // radix.items=0 (a tile derived from the device) has no tile to read here.
  const std::size_t tile = plan_value(sorter, "radix.wg") * plan_value(sorter, "radix.items");
  if (tile)
    for (std::size_t n : {tile - 1, tile, tile + 1, 5 * tile + 1})
      if (std::find(sizes.begin(), sizes.end(), n) == sizes.end()) sizes.push_back(n);
  std::sort(sizes.begin(), sizes.end());
  return sizes;
}

template <class K>
void sort_with_tuning(clsort::Sorter& sorter, const Variant& v, FailureBudget& budget) {
  const KeyType type = clsort::key_type_of<K>::value;
  for (std::size_t n : tuning_sizes(sorter, v))
    for (Dist dist : {Dist::random, Dist::few_unique, special_distribution<K>()})
      for (Order order : both_orders()) {
        const std::uint64_t seed = seed_for(type, int(dist), n, 9);
        const std::string what = describe(v.algorithm, type, order, n, dist, seed) + " tuning " + v.tuning;
        const std::vector<K> keys = make_keys<K>(dist, n, seed);
        std::vector<K> got = keys;
        std::string error;
        try {
          sorter.sort(got, {order, v.algorithm});
          error = compare_sorted(reference_sort(keys, order), got);
          if (error.empty()) {
            const std::vector<std::uint32_t> perm = sorter.argsort(keys, {order, v.algorithm});
            error = compare_argsort(keys, reference_argsort(keys, order), perm);
            if (!error.empty()) error = "argsort: " + error;
          }
        } catch (const clsort::Error& e) {
          error = std::string("threw: ") + e.what();
        }
        CHECK_MESSAGE(error.empty(), what << ": " << error);
        if (!budget.record(error.empty())) FAIL("too many failures");
      }
}

// Both shapes of the comparison sorts whatever the device picks (bitonic.cpu, merge.cpu), at tunings that
// reach their edge cases: the most fused steps, a merge tile that is not a power of two, chunks of a few
// vectors, small odd-even tiles, selection blocks that are not a power of two. Few variants and types:
// each builds two programs per key width, seconds each on PoCL.
const Variant kComparisonVariants[] = {
    {"bitonic.cpu=0,bitonic.tile=256,bitonic.wg=32,bitonic.steps=6", Algorithm::bitonic, kU32 | kI64},
    {"bitonic.cpu=0,bitonic.tile=2048,bitonic.wg=256,bitonic.steps=4", Algorithm::bitonic, kF64},
    {"bitonic.cpu=1,bitonic.tile=32,bitonic.steps=1", Algorithm::bitonic, kF32},
    {"merge.cpu=0,merge.wg=32,merge.items=3", Algorithm::merge, kU32 | kF64},
    {"merge.cpu=0,merge.wg=256,merge.items=8", Algorithm::merge, kI64},
    {"merge.cpu=1,merge.chunk=16", Algorithm::merge, kF32},
    {"odd_even.wg=8,odd_even.tile=64", Algorithm::odd_even, kU32 | kI64},
    {"selection.wg=32,selection.items=5", Algorithm::selection, kF64},
};

// Keys, then keys with 8-byte values (each holding its input index) under one variant's tuning.
template <class K>
void comparison_with_tuning(clsort::Sorter& sorter, const Variant& v, FailureBudget& budget) {
  const KeyType type = clsort::key_type_of<K>::value;
  std::vector<std::size_t> sizes{2, 3, 17, 33, 64, 65, 257, 1000, 1025, 4097};
  if (matrix_max_n(v.algorithm) >= 65537) sizes.push_back(65537);
  for (std::size_t n : sizes)
    for (Dist dist : {Dist::random, Dist::few_unique, special_distribution<K>()})
      for (Order order : both_orders()) {
        const std::uint64_t seed = seed_for(type, int(dist), n, 10);
        const std::string what = describe(v.algorithm, type, order, n, dist, seed) + " tuning " + v.tuning;
        const std::vector<K> keys = make_keys<K>(dist, n, seed);
        const std::vector<std::uint32_t> expected = reference_argsort(keys, order);
        std::string error;
        try {
          std::vector<K> got = keys;
          sorter.sort(got, {order, v.algorithm});
          error = compare_sorted(reference_sort(keys, order), got);
          if (error.empty()) {
            std::vector<std::uint64_t> values = make_values<std::uint64_t>(n, seed);
            const std::vector<std::uint64_t> original = values;
            got = keys;
            sorter.sort_by_key(got, values, {order, v.algorithm});
            std::vector<std::uint32_t> perm(n);
            for (std::size_t i = 0; i < n; ++i) perm[i] = std::uint32_t(values[i]);
            error = compare_argsort(keys, expected, perm);
            for (std::size_t i = 0; error.empty() && i < n; ++i)
              if (perm[i] < n && values[i] != original[perm[i]]) error = "value bits changed";
            if (!error.empty()) error = "by key (8-byte values): " + error;
          }
        } catch (const clsort::Error& e) {
          error = std::string("threw: ") + e.what();
        }
        CHECK_MESSAGE(error.empty(), what << ": " << error);
        if (!budget.record(error.empty())) FAIL("too many failures");
      }
}

// A Sorter per variant on the shared context (the tuning is per Sorter, the programs per context);
// `check(key, sorter, variant)` runs once for each key type the variant lists, `key` of that type.
template <std::size_t N, class Check>
void for_each_variant(const Variant (&variants)[N], Check check) {
  const clsort::Sorter& base = shared_sorter();
  for (const Variant& v : variants) {
    clsort::Sorter sorter(cl::CommandQueue(base.context(), base.device()));
    sorter.tune(v.tuning);
    if (v.types & kU32) check(std::uint32_t{}, sorter, v);
    if (v.types & kF32) check(float{}, sorter, v);
    if (v.types & kI64) check(std::int64_t{}, sorter, v);
    if (v.types & kF64) check(double{}, sorter, v);
  }
}

TEST_CASE("comparison sorts under non-default tuning") {
  FailureBudget budget;
  for_each_variant(kComparisonVariants, [&](auto key, clsort::Sorter& sorter, const Variant& v) {
    comparison_with_tuning<decltype(key)>(sorter, v, budget);
  });
}

TEST_CASE("sorts under non-default tuning") {
  FailureBudget budget;
  for_each_variant(kVariants, [&](auto key, clsort::Sorter& sorter, const Variant& v) {
    sort_with_tuning<decltype(key)>(sorter, v, budget);
  });
}

// The CPU shape's top passes leave runs of keys that are equal in them; here runs longer than insertion
// takes (each key's three bytes above bit 32 are one of five values, its low 32 bits random, and its top
// byte zero, so one bucket holds them all), sorted by the bits below, stably (values are input indices).
TEST_CASE("CPU radix buckets: long runs of keys equal in their top digits") {
  for (const char* tuning : {"radix.cpu=1,radix.buckets=2", "radix.cpu=1,radix.buckets=2,radix.bits=4",
                             "radix.cpu=1,radix.buckets=2,radix.wc=16,radix.wc_min=0"})
    for (std::size_t n : {std::size_t(1000), std::size_t(1) << 16, (std::size_t(1) << 16) + 3}) {
      CAPTURE(tuning);
      CAPTURE(n);
      clsort::Sorter sorter(cl::CommandQueue(shared_sorter().context(), shared_sorter().device()));
      sorter.tune(tuning);
      std::mt19937_64 rng(n);
      std::vector<std::uint64_t> keys(n);
      std::vector<std::uint32_t> values(n);
      for (std::size_t i = 0; i < n; ++i) {
        keys[i] = (rng() % 5) * 0x010101ull << 32 | (rng() & 0xFFFFFFFFull);
        if (i % 7 == 0 && i) keys[i] = keys[i - 1];  // equal keys: their values must keep input order
        values[i] = std::uint32_t(i);
      }
      std::vector<std::uint32_t> order(values);
      std::stable_sort(order.begin(), order.end(),
                       [&](std::uint32_t a, std::uint32_t b) { return keys[a] < keys[b]; });
      std::vector<std::uint64_t> expected(n);
      for (std::size_t i = 0; i < n; ++i) expected[i] = keys[order[i]];
      sorter.sort_by_key(keys, values, {Order::ascending, Algorithm::radix});
      CHECK(keys == expected);
      CHECK(values == order);
    }
}

TEST_CASE("sorts under non-default Onesweep tuning") {
  FailureBudget budget;
  for_each_variant(kOnesweepVariants, [&](auto key, clsort::Sorter& sorter, const Variant& v) {
    sort_with_tuning<decltype(key)>(sorter, v, budget);
  });
}

// The multisplit ranking (kernels/radix_rank_multisplit.cl) on any device: its local-memory sub-groups of
// 32 (with their own keys per work-item, radix.items_local), 8 and 16 work-items, ballot peers where the
// device has ballots (NVIDIA's PTX, cl_khr_subgroup_ballot; elsewhere the same as local atomics), each with
// reduce-then-scan and with Onesweep, and the look-back's recount under the local-memory sub-groups.
const Variant kMultisplitVariants[] = {
    {"radix.cpu=0,radix.onesweep=0,radix.match=1,radix.subgroups=3,radix.wg=256,radix.items=5,"
     "radix.items_local=8",
     Algorithm::radix, kAllTypes},
    {"radix.cpu=0,radix.onesweep=0,radix.match=1,radix.subgroups=3,radix.bits=4,radix.wg=24,radix.items=5",
     Algorithm::radix, kU32 | kI64},
    {"radix.cpu=0,radix.onesweep=0,radix.match=1,radix.subgroups=3,radix.bits=5,radix.wg=48,radix.items=3",
     Algorithm::radix, kF32},
    {"radix.cpu=0,radix.onesweep=0,radix.match=1,radix.peers=1,radix.wg=256,radix.items=8", Algorithm::radix,
     kU32 | kF64},
    {"radix.cpu=0,radix.onesweep=1,radix.match=1,radix.subgroups=3,radix.wg=256,radix.items=8",
     Algorithm::radix, kAllTypes, kOnesweepCpuMaxN},
    {"radix.cpu=0,radix.onesweep=1,radix.match=1,radix.peers=1,radix.wg=256,radix.items=8", Algorithm::radix,
     kU32 | kI64, kOnesweepCpuMaxN},
    {"radix.cpu=0,radix.onesweep=1,radix.match=1,radix.subgroups=3,radix.spins=0,radix.bits=4,radix.wg=16,"
     "radix.items=3",
     Algorithm::radix, kU32 | kF64, kOnesweepCpuMaxN},
    // The tile of a GPU without a tuning row: from local memory and the compiler's spill report.
    {"radix.cpu=0,radix.onesweep=1,radix.match=1,radix.wg=256,radix.items=0", Algorithm::radix,
     kU32 | kI64 | kF32, kOnesweepCpuMaxN},
};

// radix.items=0 (the any/gpu row): keys per work-item from the device's local memory, then fewer while the
// compiler reports the pass spilling; 24 at most (32 with local-memory sub-groups), 8 at least, and never
// more for wider keys.
TEST_CASE("a radix tile derived from the device") {
  clsort::Sorter sorter(shared_sorter().device());
  sorter.tune("radix.cpu=0,radix.onesweep=1,radix.match=1,radix.wg=256,radix.items=0");
  const clsort::Options radix{Order::ascending, Algorithm::radix};
  unsigned items[2] = {};
  for (int wide : {0, 1}) {
    const clsort::SortPlan plan = sorter.plan(wide ? KeyType::u64 : KeyType::u32, 1 << 24, 0, radix);
    CAPTURE(plan.shape);
    const std::string tiles = "tiles of 256 x ";
    const auto at = plan.shape.find(tiles);
    REQUIRE(at != std::string::npos);
    CHECK(plan.shape.find("(derived from the device)", at) != std::string::npos);
    items[wide] = unsigned(std::stoul(plan.shape.substr(at + tiles.size())));
    CHECK(items[wide] >= 8);
    CHECK(items[wide] <= (plan.shape.find("local-memory sub-groups") != std::string::npos ? 32u : 24u));
  }
  CHECK(items[1] <= items[0]);
  // radix.items_local replaces radix.items where the sub-groups are local-memory groups, and only there.
  for (const char* subgroups : {"3", "0"}) {
    clsort::Sorter local(shared_sorter().device());
    local.tune(std::string("radix.cpu=0,radix.onesweep=1,radix.match=1,radix.wg=256,radix.items=4,"
                           "radix.items_local=11,radix.subgroups=") +
               subgroups);
    const std::string shape = local.plan(KeyType::u32, 1 << 20, 0, radix).shape;
    CAPTURE(shape);
    const bool is_local = shape.find("local-memory sub-groups") != std::string::npos;
    CHECK(shape.find(is_local ? "tiles of 256 x 11" : "tiles of 256 x 4") != std::string::npos);
    if (subgroups[0] == '3') CHECK(is_local);
  }
}

TEST_CASE("sorts under the multisplit ranking's variants") {
  FailureBudget budget;
  for_each_variant(kMultisplitVariants, [&](auto key, clsort::Sorter& sorter, const Variant& v) {
    sort_with_tuning<decltype(key)>(sorter, v, budget);
  });
}

// The ballot path at every sub-group size the device can be held to (cl_khr_subgroup_ballot with
// cl_intel_required_subgroup_size: Intel's runtimes), with both shapes. A device without them must plan
// the local-memory sub-groups when the ballot path is asked for.
TEST_CASE("multisplit ranking at every sub-group size the device offers") {
  const clsort::Sorter& base = shared_sorter();
  const cl::Device& device = base.device();
  const std::string extensions = device.getInfo<CL_DEVICE_EXTENSIONS>();
  std::vector<std::size_t> sizes;
  if (extensions.find("cl_khr_subgroup_ballot") != std::string::npos &&
      extensions.find("cl_intel_required_subgroup_size") != std::string::npos)
    REQUIRE(device.getInfo(CL_DEVICE_SUB_GROUP_SIZES_INTEL, &sizes) == CL_SUCCESS);
  sizes.erase(std::remove_if(sizes.begin(), sizes.end(), [](std::size_t s) { return s < 4 || s > 64; }),
              sizes.end());
  const clsort::Options radix{Order::ascending, Algorithm::radix};
  if (sizes.empty()) {
    clsort::Sorter sorter(device);
    sorter.tune("radix.cpu=0,radix.match=1,radix.subgroups=2,radix.wg=256");
    const std::string shape = sorter.plan(KeyType::u32, 1 << 20, 0, radix).shape;
    CAPTURE(shape);
    CHECK(shape.find("local-memory sub-groups of 32") != std::string::npos);
    return;
  }
  FailureBudget budget;
  for (std::size_t lanes : sizes)
    for (int onesweep : {0, 1}) {
      const std::string tuning =
          "radix.cpu=0,radix.match=1,radix.subgroups=2,radix.wg=256,radix.items=8,radix.sg_size=" +
          std::to_string(lanes) + ",radix.onesweep=" + std::to_string(onesweep);
      const Variant v{tuning.c_str(), Algorithm::radix, kU32 | kF64, kOnesweepCpuMaxN};
      clsort::Sorter sorter(cl::CommandQueue(base.context(), device));
      sorter.tune(tuning);
      const std::string shape = sorter.plan(KeyType::u32, 1 << 20, 0, radix).shape;
      CAPTURE(shape);
      REQUIRE(shape.find("cl_khr_subgroup_ballot of " + std::to_string(lanes) + ",") != std::string::npos);
      sort_with_tuning<std::uint32_t>(sorter, v, budget);
      sort_with_tuning<double>(sorter, v, budget);
    }
}

}  // namespace
}  // namespace clsort_test
