// Radix sort's plan: which shape runs (the CPU shape, reduce-then-scan, or Onesweep with
// reduce-then-scan behind it), with which ranking, tile and defines. Decided here only.
#include <algorithm>

#include "algorithms/radix/radix.hpp"

namespace clsort::detail {

namespace {
// A bit range's programs carry it (kernels/common.cl KEY_BEGIN_BIT, KEY_END_BIT); a full range adds
// nothing, so the usual programs stay as they are.
void range_defines(const PlanInput& in, Defines& d) {
  if (in.bit_range()) d.set("KEY_BEGIN_BIT", in.begin_bit).set("KEY_END_BIT", in.end());
}
}  // namespace

ProgramSpec radix_program(const PlanInput& in, const RadixPlan& p, const char* shape_file) {
  using S = RadixPlan::Subgroups;
  ProgramSpec spec;
  spec.files = {"radix_common.cl"};
  if (p.multisplit) {
    spec.files.push_back(p.subgroups == S::ptx   ? "radix_sg_ptx.cl"
                         : p.subgroups == S::khr ? "radix_sg_khr.cl"
                                                 : "radix_sg_local.cl");
    spec.files.push_back("radix_rank_multisplit.cl");
  } else {
    spec.files.push_back("radix_rank_portable.cl");
  }
  spec.files.push_back(shape_file);
  spec.defines = width_defines(in);
  spec.defines.set("RADIX_BITS", p.bits).set("RADIX_WG", p.wg).set("RADIX_ITEMS", p.items);
  range_defines(in, spec.defines);
  if (p.multisplit) {
    spec.defines.set("RADIX_MATCH", 1);
    if (p.peers_ballot) spec.defines.set("RADIX_PEERS_BALLOT", 1);
    spec.defines.set("RADIX_MASK_BANKS", radix_mask_banks(in.tuning.radix.subgroups));
    if (p.subgroups == S::khr) spec.defines.set("RADIX_SG", p.sg_lanes).set("RADIX_SG_REQUIRED", 1);
  }
  spec.register_cap = in.tuning.radix.regs;
  return spec;
}

RadixPlan plan_radix(const PlanInput& in) {
  const RadixPolicy& r = in.tuning.radix;
  const std::uint32_t n = in.n;
  const unsigned units = in.device.compute_units;
  RadixPlan p;
  // A range narrower than a digit takes a digit of its width (a program of its own): a wider one would
  // order by bits outside the range.
  const unsigned range = in.end() - in.begin_bit;
  p.bits = std::min(r.bits, range);
  p.radix = 1u << p.bits;
  p.passes = (range + p.bits - 1) / p.bits;
  p.begin_bit = in.begin_bit;
  p.end_bit = in.end();
  p.bit_range = in.bit_range();
  p.wg = r.wg;
  p.items = r.items;
  p.derived = r.derived;

  if (r.cpu) {
    p.shape = RadixPlan::Shape::cpu;
    // Chunks small enough to balance the cores, large enough that the per-chunk offset sums stay cheap.
    constexpr std::uint32_t kMinChunk = 16384;
    p.chunks = std::max<std::uint32_t>(1, std::min<std::uint32_t>(r.groups, (n + kMinChunk - 1) / kMinChunk));
    p.chunk = (n + p.chunks - 1) / p.chunks;
    p.program.files = {"radix_common.cl", "radix_cpu.cl"};
    p.program.defines = width_defines(in);
    p.program.defines.set("RADIX_BITS", p.bits).set("RADIX_WG", p.wg).set("RADIX_ITEMS", p.items);
    range_defines(in, p.program.defines);
    // The buckets' top passes find runs of keys equal in their top digits by whole-code compares; with a
    // bit range every pass runs over the bucket instead.
    if (r.buckets || in.bit_range())
      p.program.defines.set("RADIX_CPU_TOP", r.buckets == 2 && !in.bit_range() ? 1 : 0);
    if (r.wc && std::uint64_t(n) * (in.key_bytes + in.value_bytes) >= r.wc_min)
      p.program.defines.set("RADIX_CPU_WC", r.wc);
    return p;
  }

  // Below half a tile per compute unit, most compute units sit idle and each pass takes as long as one
  // tile's ranking and scatter: smaller tiles spread the keys over more of them and finish sooner. Between
  // a half and one tile per compute unit they did not (H100: 2^19 keys level or slower with 8 keys per
  // work-item against 24, 2^18 faster).
  if (r.items_small && r.items_small < r.items && std::size_t(n) * 2 < std::size_t(r.wg) * r.items * units)
    p.items = r.items_small;
  p.multisplit = r.match != 0;  // fit_to_device chose primitives the device has
  if (p.multisplit) {
    using S = RadixPlan::Subgroups;
    p.subgroups = r.subgroups == 1 ? S::ptx : r.subgroups == 2 ? S::khr : S::local;
    p.sg_lanes = r.sg_size;
    p.peers_ballot = r.peers == 1;
  }
  p.tile = p.wg * p.items;
  const std::uint32_t tiles = (n + p.tile - 1) / p.tile;

  RadixPlan rts = p;
  rts.shape = RadixPlan::Shape::reduce_then_scan;
  rts.groups = std::min<std::uint32_t>(tiles, r.groups);
  rts.tiles_per_group = (tiles + rts.groups - 1) / rts.groups;
  rts.groups = (tiles + rts.tiles_per_group - 1) / rts.tiles_per_group;  // no empty trailing groups
  rts.program = radix_program(in, rts, "radix_rts.cl");

  // Onesweep's look-back words hold counts below 2^30.
  if (!r.onesweep || n >= (1u << 30)) return rts;
  p.shape = RadixPlan::Shape::onesweep;
  p.tiles = tiles;
  // Enough histogram groups to fill the device several times over; each counts a contiguous range.
  p.histogram_groups = std::min<std::uint32_t>(tiles, std::max(1u, units * 4));
  p.spins = r.spins;
  // The multisplit pass's prefetch, where work-groups get several tiles each: from 8 tiles per compute
  // unit; with fewer the loop only costs (H200, 2^16 u32 keys in 32 tiles: 0.046-0.053 ms against
  // 0.044-0.045). The loop is written for 4-byte codes alone (narrower keys are 4-byte codes in
  // registers): values and 64-bit keys need the registers the next tile's keys would take.
  p.prefetch = p.multisplit && in.key_bytes <= 4 && !in.value_bytes && n <= r.prefetch_max &&
               tiles >= 8 * std::size_t(units);
  p.program = radix_program(in, p, "radix_onesweep.cl");
  // On NVIDIA the look-back reads its words with plain volatile loads, which its L2 keeps coherent with
  // the atomics that publish them; elsewhere OpenCL 1.2 promises nothing for them, and reads are atomic.
  if (p.subgroups == RadixPlan::Subgroups::ptx) p.program.defines.set("RADIX_STATUS_VOLATILE", 1);
  if (p.prefetch) p.program.defines.set("RADIX_PREFETCH", 1);
  p.fallback.push_back(rts);
  return p;
}

SegmentsRadixPlan plan_radix_segments(const PlanInput& in) {
  Tuning t = in.tuning;
  t.radix.cpu = 0;
  t.radix.onesweep = 0;
  const PlanInput gpu{in.device, t, in.key_bytes, in.value_bytes, in.n};
  SegmentsRadixPlan p{plan_radix(gpu), {}};
  p.radix.program = radix_program(gpu, p.radix, "radix_segments.cl");
  // The one-tile kernel holds a tile's state, as the whole-array pass does, and takes the row's cap.
  if (p.radix.multisplit) p.tile_program = p.radix.program;
  // The multi-tile kernel its own: a group keeps a whole segment's pass state beside its tile, and under
  // the whole-array rows' caps it ran at half speed (H100, 2^10 segments of 16384 u32 keys: 0.93 ms at
  // 64 registers, 0.43 with the compiler's choice).
  p.radix.program.register_cap = in.tuning.segments.radix_regs;
  return p;
}

}  // namespace clsort::detail
