// Internal: a plan is everything one sort call runs, decided once before anything is enqueued: the
// algorithm's shape, its sizes and the programs with their exact -D defines. One function per algorithm
// makes it (plan_radix, plan_bitonic, ...; host/src/algorithms/) from the device's facts, the fitted
// tuning, the key and value widths and n; the drivers only execute it (run_radix, run_bitonic, ...).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "device/tuning.hpp"

namespace clsort::detail {

/// A program's -D defines, as data: the program cache and the disk cache take them as they are.
class Defines {
 public:
  Defines& set(const std::string& name, std::uint64_t value) { return set(name, std::to_string(value)); }
  Defines& set(const std::string& name, const std::string& value);
  /// "-DNAME=value ..." in the order set.
  std::string options() const;

 private:
  std::vector<std::pair<std::string, std::string>> items_;
};

/// One OpenCL program: kernel files concatenated after common.cl, built with the defines. register_cap
/// (NVIDIA: PTX .maxnreg written into the binary, program_cache.cpp) is 0 for the compiler's choice.
/// `inline_source` (an application's code, sort_custom) goes between common.cl and the files.
struct ProgramSpec {
  std::vector<std::string> files;
  Defines defines;
  unsigned register_cap = 0;
  std::string inline_source;

  /// Everything above as one string: the program's name in the Sorter's kernel table and in the Onesweep
  /// self-test's results. Made at the first call and kept, since a sort's host time counts at small n
  /// (building it took a few µs of every call); so fields must not change after it. A copy starts
  /// without it, so a spec copied from a plan and then changed gets its own.
  const std::string& key() const;

 private:
  struct Memo {
    std::string text;
    Memo() = default;
    Memo(const Memo&) {}
    Memo& operator=(const Memo&) {
      text.clear();
      return *this;
    }
  };
  mutable Memo key_;
};

/// Whether the sort passes carry values of `value_bytes` themselves (0: no values, 4, 8).
inline bool carried_by_passes(std::size_t value_bytes) {
  return value_bytes == 0 || value_bytes == 4 || value_bytes == 8;
}
/// The value width the passes carry for values of `value_bytes` that do not ride them at their own width:
/// 4 or 8 for narrower values widened into those slots, the 32-bit indices for wider values moved by index.
inline std::size_t pass_width(std::size_t value_bytes) {
  return carried_by_passes(value_bytes) ? value_bytes : value_bytes > 4 && value_bytes < 8 ? 8 : 4;
}

/// What every plan function reads.
struct PlanInput {
  const DeviceFacts& device;
  const Tuning& tuning;  // fitted to the device for these widths
  unsigned key_bytes;
  unsigned value_bytes;  // 0: keys alone
  std::uint32_t n;
  // The bits of the code a radix sort orders by, [begin_bit, end_bit); end_bit 0: every bit of the key.
  unsigned begin_bit = 0, end_bit = 0;
  unsigned end() const { return end_bit ? end_bit : key_bytes * 8; }
  bool bit_range() const { return begin_bit != 0 || end() != key_bytes * 8; }
};

/// The defines every program of a sort starts with: the key and value widths.
Defines width_defines(const PlanInput& in);

struct RadixPlan {
  enum class Shape { cpu, reduce_then_scan, onesweep };
  Shape shape = Shape::reduce_then_scan;
  // The ranking: sub-group multisplit (kernels/radix_rank_multisplit.cl) or the portable counting sort.
  bool multisplit = false;
  enum class Subgroups { none, ptx, khr, local };  // the multisplit ranking's primitives
  Subgroups subgroups = Subgroups::none;
  unsigned sg_lanes = 0;      // lanes per sub-group
  bool peers_ballot = false;  // peers by ballots; else by local atomics
  unsigned bits = 8, radix = 256, passes = 4;
  // Pass p sorts by the digit at shift(p): begin_bit up in steps of `bits`, the last pass ending at
  // end_bit (it overlaps the one before where the range is not a multiple of `bits`; kernels/radix_common.cl
  // RADIX_PASS_SHIFT).
  unsigned begin_bit = 0, end_bit = 32;
  bool bit_range = false;  // fewer bits than the key's
  unsigned shift(unsigned pass) const {
    const unsigned s = begin_bit + pass * bits;
    return s + bits > end_bit ? end_bit - bits : s;
  }
  unsigned wg = 256, items = 8, tile = 2048;
  bool derived = false;  // wg x items came from the device's local memory and compiler, not a tuning row
  ProgramSpec program;
  // The CPU shape: one MSD pass over `chunks` chunks of `chunk` keys, then a work-item per bucket.
  std::uint32_t chunks = 0, chunk = 0;
  // Reduce-then-scan: `groups` work-groups each own `tiles_per_group` contiguous tiles.
  std::uint32_t groups = 0, tiles_per_group = 0;
  // Onesweep: `tiles` tiles; the histogram kernel runs on `histogram_groups` groups; look-back waits are
  // bounded by `spins` reads. Where its self-test fails on the device, `fallback` (reduce-then-scan)
  // runs instead.
  std::uint32_t tiles = 0, histogram_groups = 0, spins = 0;
  bool prefetch = false;            // work-groups loop over tiles, loading the next during the look-back
  std::vector<RadixPlan> fallback;  // empty or one plan
};
struct BitonicPlan {
  BitonicPolicy policy;
  ProgramSpec program;
  unsigned max_steps = 1;    // global steps fused per launch
  unsigned global_wg = 256;  // work-group of the global-step and gather kernels
};
struct MergePlan {
  MergePolicy policy;
  ProgramSpec program;
  std::uint32_t tile = 0, tiles = 0;
  unsigned passes = 0;
};
struct SelectionPlan {
  SelectionPolicy policy;
  ProgramSpec program;
  std::uint32_t blocks = 0, parts = 1, part_len = 0;
};
struct OddEvenPlan {
  OddEvenPolicy policy;
  ProgramSpec program;
  std::uint32_t tiles = 0;
};

using Plan = std::variant<RadixPlan, BitonicPlan, MergePlan, SelectionPlan, OddEvenPlan>;

RadixPlan plan_radix(const PlanInput& in);
/// The radix sort of long segments, one work-group each (kernels/radix_segments.cl): the ranking and tile
/// of the device's whole-array radix sort, on any device (a CPU device's is the portable ranking).
struct SegmentsRadixPlan {
  RadixPlan radix;           // radix.program: radix_segments, segments of several tiles
  ProgramSpec tile_program;  // radix_segment_tiles, segments of one tile (multisplit ranking only)
};
SegmentsRadixPlan plan_radix_segments(const PlanInput& in);
BitonicPlan plan_bitonic(const PlanInput& in);
MergePlan plan_merge(const PlanInput& in);
SelectionPlan plan_selection(const PlanInput& in);
OddEvenPlan plan_odd_even(const PlanInput& in);

/// The plan of `algorithm` (not automatic) for `in`.
Plan make_plan(Algorithm algorithm, const PlanInput& in);
/// One line for people: "radix: onesweep, multisplit ranking, tiles of 256 x 24, 4 passes".
std::string describe(const Plan& plan);
/// The defines of the plan's (first) program, as its build options.
std::string build_options(const Plan& plan);

}  // namespace clsort::detail
