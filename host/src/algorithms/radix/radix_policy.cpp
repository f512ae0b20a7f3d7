// Radix sort's tuning (radix_policy.hpp): its parameter lines, and its fit to a device.
#include "algorithms/radix/radix_policy.hpp"

#include <algorithm>

#include "algorithms/plan.hpp"
#include "device/tuning.hpp"

namespace clsort::detail {

CLSORT_PARAMS(radix_params, CLSORT_PARAM("radix.bits", radix.bits, 1, 12, Check::range, ""),
              CLSORT_PARAM("radix.wg", radix.wg, 8, 4096, Check::multiple_of_8, ""),
              CLSORT_PARAM("radix.items", radix.items, 1, 32, Check::zero_or_range,
                           "derived from the device"),
              CLSORT_PARAM("radix.items_small", radix.items_small, 0, 32, Check::range, ""),
              CLSORT_PARAM("radix.items_local", radix.items_local, 1, 32, Check::zero_or_range,
                           "radix.items"),
              CLSORT_PARAM("radix.groups", radix.groups, 1, 65536, Check::range, ""),
              CLSORT_PARAM("radix.cpu", radix.cpu, 0, 1, Check::range, ""),
              CLSORT_PARAM("radix.buckets", radix.buckets, 0, 2, Check::range, ""),
              CLSORT_PARAM("radix.wc", radix.wc, 8, 128, Check::pow2_or_zero, ""),
              CLSORT_PARAM("radix.wc_min", radix.wc_min, 0, ~0ull, Check::range, ""),
              CLSORT_PARAM("radix.match", radix.match, 0, 1, Check::range, ""),
              CLSORT_PARAM("radix.subgroups", radix.subgroups, 0, 3, Check::range, ""),
              CLSORT_PARAM("radix.peers", radix.peers, 0, 2, Check::range, ""),
              CLSORT_PARAM("radix.sg_size", radix.sg_size, 4, 64, Check::pow2_or_zero, ""),
              CLSORT_PARAM("radix.onesweep", radix.onesweep, 0, 1, Check::range, ""),
              CLSORT_PARAM("radix.regs", radix.regs, 16, 255, Check::zero_or_range, "the compiler's choice"),
              CLSORT_PARAM("radix.prefetch_max", radix.prefetch_max, 0, 0xFFFFFFFFull, Check::range, ""),
              CLSORT_PARAM("radix.spins", radix.spins, 0, 1ull << 31, Check::range, ""),
              CLSORT_PARAM("radix.split_min", radix.split_min, 2, 1ull << 32, Check::range, ""),
              CLSORT_PARAM("radix.split_piece", radix.split_piece, 1, (1ull << 32) - 1, Check::range, ""),
              CLSORT_PARAM("radix.split_max", radix.split_max, 2, (1ull << 32) - 1, Check::range, ""),
              CLSORT_PARAM("radix.values16", radix.values16, 0, 1, Check::range, ""))

namespace {

// The widest group of work-items in local memory that divides the work-group: the sub-groups of the
// multisplit ranking where the device's primitives are emulated (radix.subgroups=3).
unsigned local_lanes(const RadixPolicy& r) {
  return r.wg % 32 == 0 ? 32u : r.wg % 16 == 0 ? 16u : 8u;
}

// The multisplit ranking (radix.match, kernels/radix_rank_multisplit.cl) needs at most 8-bit digits and
// a work-item per digit, and sub-group primitives: NVIDIA's warps through inline PTX (1), the device's
// cl_khr_subgroup_ballot held to a size it offers (2), or groups of work-items in local memory (3),
// which any device runs. Other tunings (tests reach radix.wg=24 and radix.bits=11 on any device) take
// the portable ranking, whose 4-bit counters allow at most 15 keys per work-item.
void choose_subgroups(RadixPolicy& r, const DeviceFacts& device) {
  auto offered = [&](unsigned lanes) {
    return device.subgroup_ballot && lanes <= 64 && r.wg % lanes == 0 &&
           std::find(device.subgroup_sizes.begin(), device.subgroup_sizes.end(), lanes) !=
               device.subgroup_sizes.end();
  };
  unsigned khr = 0;
  if (r.sg_size)
    khr = offered(r.sg_size) ? r.sg_size : 0;
  else
    for (unsigned lanes : {32u, 16u, 64u, 8u, 4u})
      if (!khr && offered(lanes)) khr = lanes;
  const bool ptx = device.nv_compiler && r.wg % 32 == 0;
  unsigned use = r.subgroups ? r.subgroups : ptx ? 1 : khr ? 2 : 3;
  if ((use == 1 && !ptx) || (use == 2 && !khr)) use = 3;
  r.subgroups = use;
  r.sg_size = use == 1 ? 32 : use == 2 ? khr : local_lanes(r);
  // Peers: ballots where the device has them natively, except on NVIDIA, where a local atomic per key
  // measured faster (kernels/radix_rank_multisplit.cl); local atomics where there is no ballot, and
  // ballots for sub-groups wider than a 32-bit atomic.
  if (!r.peers) r.peers = use == 2 ? 1 : 2;
  if (use == 3) r.peers = 2;
  if (use == 2 && r.sg_size > 32) r.peers = 1;
  // Local-memory sub-groups sync by work-group barriers, which a larger tile pays for with fewer
  // tiles (docs/tuning.md, radix.items_local); a derived tile starts from 32 keys there.
  if (use == 3 && r.derived)
    r.items = 32;
  else if (use == 3 && r.items_local)
    r.items = r.items_local;
}

void no_multisplit(RadixPolicy& r) {
  r.match = r.subgroups = r.peers = r.sg_size = 0;
  r.items = std::min(r.items, 15u);
}

// The portable scatter kernels hold a tile of keys and values, per-digit arrays and about 44 bytes per
// work-item of scan state. The multisplit ranking's counter (and peer masks) per sub-group and digit
// share words with the tile, whose keys and values pass through one after the other.
std::size_t radix_bytes(const RadixPolicy& r, const FitInput& f) {
  const std::size_t block = std::size_t(r.wg) * r.items, digit = std::size_t(4) << r.bits;
  if (!r.match) return block * (f.key_bytes + f.value_bytes) + 4 * digit + 44 * std::size_t(r.wg);
  const unsigned lanes = r.subgroups == 3 ? local_lanes(r) : r.sg_size;
  const std::size_t masks = r.peers == 1 ? 0 : radix_mask_banks(r.subgroups) * digit;
  const std::size_t rank = std::size_t(r.wg / lanes) * (digit + masks);
  const std::size_t scan = r.subgroups == 1 ? 0 : 4 * std::size_t(r.wg);
  return std::max(block * std::max(f.key_bytes, f.value_bytes), rank) + digit + scan + 256;
}

// Fewer keys per work-item first: the tile shrinks by a work-group's keys at a time.
void fit_radix_tile(RadixPolicy& r, const FitInput& f) {
  while (radix_bytes(r, f) > f.budget && r.items > 1) --r.items;
  // Halving keeps whole sub-groups for the multisplit ranking; a width below a work-item per digit
  // takes the portable ranking.
  const unsigned wg_step = r.match && r.subgroups != 3 ? r.sg_size : 8;
  while (radix_bytes(r, f) > f.budget && r.wg > wg_step)
    r.wg = std::max(wg_step, r.wg / 2 / wg_step * wg_step);
  if (r.match && (1u << r.bits) > r.wg) no_multisplit(r);
  if (r.subgroups == 3) r.sg_size = local_lanes(r);
  while (radix_bytes(r, f) > f.budget && r.items > 1) --r.items;
  while (radix_bytes(r, f) > f.budget && r.bits > 4) --r.bits;
}

// The register cap is written into NVIDIA's PTX binaries (engine/program_cache.cpp); elsewhere the
// compiler chooses. A cap above a work-group's share of the register file fails the launch
// (CL_OUT_OF_RESOURCES), where the compiler alone would have fitted the group, so it is set once the
// work-group size is final. The NVIDIA rows' caps were measured for the PTX ranking; the local-memory
// sub-groups run faster uncapped (docs/tuning.md, nvidia/gpu/default).
void fit_radix_registers_cap(RadixPolicy& r, const DeviceFacts& device) {
  if (!device.nv_compiler || (r.match && r.subgroups == 3)) r.regs = 0;
  if (r.regs) {
    const unsigned share = device.registers_per_group / r.wg / 8 * 8;  // allocated in steps of 8
    r.regs = share < 16 ? 0 : std::min(r.regs, share);
  }
}

// fit_radix for primitives as the device's extensions offer them, before the probe has a say.
void fit_radix_to_limits(RadixPolicy& r, const FitInput& f) {
  r.bits = std::min(r.bits, f.key_bits);
  // A tile derived from the device: the most keys per work-item that local memory holds, up to the 24 that
  // a 64-register work-item holds on NVIDIA's GPUs without spilling much (32 with local-memory sub-groups,
  // set where those are chosen below); fit_radix_registers then takes keys off while the compiler reports
  // spilling. Below half a tile per compute unit, 8 keys, as the NVIDIA row has it.
  if (r.items == 0) {
    r.derived = !r.cpu;
    r.items = r.cpu ? 15 : 24;
    if (!r.items_small) r.items_small = 8;
  }
  // The radix kernels' scans take any multiple of 8 work-items (kernels/radix_common.cl).
  r.wg = std::max(8u, std::min<unsigned>(r.wg, unsigned(f.device.max_work_group / 8 * 8)));
  // CPU devices only: the CPU radix shape's write-combining lines (the cache of one core); a GPU would hold
  // them in private memory, tens of KiB a work-item, and reserve that for every resident work-item.
  if (f.device.type != "cpu") r.wc = 0;
  r.match = r.match && !r.cpu && r.bits <= 8 && (1u << r.bits) <= r.wg;
  if (r.match)
    choose_subgroups(r, f.device);
  else
    no_multisplit(r);
  fit_radix_tile(r, f);
  fit_radix_registers_cap(r, f.device);
  // Onesweep's histogram kernel counts every pass's digits in local memory at once.
  const std::size_t passes = (f.key_bits + r.bits - 1) / r.bits;
  if (passes * (std::size_t(4) << r.bits) > f.budget) r.onesweep = 0;
}

}  // namespace

void fit_radix(RadixPolicy& r, const FitInput& f) {
  const RadixPolicy asked = r;
  fit_radix_to_limits(r, f);
  // The device's extensions chose the ranking's sub-group primitives; where they fail the probe's
  // self-test, the fit starts again from what was asked with the local-memory ones, which need nothing of
  // the device.
  const DeviceProbe* probe = f.device.probe.get();
  if (probe && r.match && (r.subgroups == 1 || r.subgroups == 2) && !probe->subgroups_work(r)) {
    r = asked;
    r.subgroups = 3;
    fit_radix_to_limits(r, f);
  }
}

void fit_radix_registers(Tuning& t, const DeviceFacts& facts, unsigned key_bytes, unsigned value_bytes) {
  RadixPolicy& r = t.radix;
  if (!r.derived || !facts.probe) return;
  // The pass kernel of a large sort, as the plan builds it; each spilled item costs a memory round trip
  // per key. 8 keys per work-item is the floor: below it the tile's scatter writes too little per digit.
  constexpr unsigned kStep = 4, kFloor = 8;
  while (r.items > kFloor) {
    const PlanInput in{facts, t, key_bytes, value_bytes, 1u << 24};
    const RadixPlan plan = plan_radix(in);
    if (plan.shape == RadixPlan::Shape::cpu) return;
    const std::optional<std::uint64_t> spill = facts.probe->pass_private_bytes(plan);
    if (!spill || *spill == 0) return;
    r.items = std::max(kFloor, r.items - kStep);
  }
}

}  // namespace clsort::detail
