// fit_to_device: a tuning from the table, fitted to one device for one key and value width, one function
// per policy (radix, bitonic, selection, radix selection, merge, odd-even, segments). Each clamps its
// work-groups to the device's limit and shrinks its tiles until the local memory its kernels declare fits.
// sort_custom derives its own sizes in its plan; the host staging and the automatic choice have nothing
// the device bounds (tuning_for drops the staging where transfers cross no bus).
#include <algorithm>

#include "device/tuning.hpp"

namespace clsort::detail {
namespace {

// What the fit of every policy reads: the device, its limits, and the widths as the kernels hold them.
struct FitInput {
  const DeviceFacts& device;
  // Local memory a kernel may declare: the device's, less room for the implementation's own use.
  std::size_t budget;
  unsigned key_bits;  // the key's own width: a digit wider than the key would only add empty counters
  // Keys of 8 and 16 bits are 32-bit codes in registers and local memory (kernels/common.cl), so the
  // budgets below take them as 4 bytes.
  unsigned key_bytes;
  unsigned value_bytes;
  // Bitonic by-key sorts, merge and odd-even carry a 4-byte index or source position with each key.
  unsigned index_bytes;
  unsigned max_wg;  // the largest power-of-two work-group the device runs

  void clamp_wg(unsigned& wg) const { wg = std::min(wg, max_wg); }
};

unsigned floor_pow2(std::size_t v) {
  unsigned p = 1;
  while (p * 2 <= v) p *= 2;
  return p;
}

FitInput fit_input(const DeviceFacts& device, unsigned key_bytes, unsigned value_bytes) {
  const std::size_t budget = device.local_mem > 4096 ? device.local_mem - 1024 : device.local_mem;
  return {device,
          budget,
          key_bytes * 8,
          std::max(key_bytes, 4u),
          value_bytes,
          value_bytes ? 4u : 0u,
          floor_pow2(device.max_work_group)};
}

// ---- Radix sort.

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

void fit_radix(RadixPolicy& r, const FitInput& f) {
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

// ---- The comparison sorts and radix selection.

void fit_bitonic(BitonicPolicy& b, const FitInput& f) {
  f.clamp_wg(b.wg);
  const std::size_t element = f.key_bytes + f.index_bytes;
  if (b.cpu) {
    // One work-item per tile; a tile holds at least two vectors of the widest (16-lane) kind.
    b.tile = std::max(b.tile, 32u);
    while (b.tile * element > f.budget && b.tile > 32) b.tile /= 2;
    return;
  }
  if (b.tile < 2 * b.wg) b.tile = 2 * b.wg;
  // The local kernels hold tile/wg elements per work-item in registers: at most 64.
  if (b.tile > 64 * b.wg) b.tile = 64 * b.wg;
  while ((b.tile + b.tile / 32) * element > f.budget && b.tile > 2) {
    b.tile /= 2;
    if (b.wg > b.tile / 2) b.wg = b.tile / 2;
  }
}

void fit_selection(SelectionPolicy& s, const FitInput& f) {
  f.clamp_wg(s.wg);
  while (std::size_t(s.wg) * f.key_bytes > f.budget && s.wg > 1) s.wg /= 2;
}

void fit_select(SelectPolicy& s, const FitInput& f) {
  f.clamp_wg(s.wg);
}

// The GPU shape keeps a tile of keys, values and source positions in local memory; the CPU shape two
// chunks of keys and values (it merges back and forth).
void fit_merge(MergePolicy& m, const FitInput& f) {
  f.clamp_wg(m.wg);
  const std::size_t element = f.key_bytes + f.value_bytes + f.index_bytes;
  while (std::size_t(m.wg) * m.items * element > f.budget && m.items > 1) --m.items;
  while (std::size_t(m.wg) * m.items * element > f.budget && m.wg > 1) m.wg /= 2;
  while (2 * std::size_t(m.chunk) * (f.key_bytes + f.value_bytes) > f.budget && m.chunk > 16) m.chunk /= 2;
}

// The tile sort holds a tile, the merge-split two tiles plus source positions; a tile is at least one pair
// per work-item.
void fit_odd_even(OddEvenPolicy& o, const FitInput& f) {
  f.clamp_wg(o.wg);
  const std::size_t element = f.key_bytes + f.value_bytes + f.index_bytes;
  if (o.tile < 2 * o.wg) o.tile = 2 * o.wg;
  while (2 * std::size_t(o.tile) * element > f.budget && o.tile > 2) {
    o.tile /= 2;
    if (o.wg > o.tile / 2) o.wg = o.tile / 2;
  }
}

// ---- Segmented sort.

// Per slot a key code and three 16-bit words, values for half the slots, and the table of a bin's
// segments (kernels/segments_local.cl).
std::size_t segment_bytes(const SegmentsPolicy& g, const FitInput& f) {
  return std::size_t(g.slots) * (f.key_bytes + 6) + std::size_t(g.slots / 2) * f.value_bytes +
         std::size_t(g.slots / 8 + 1) * 6 + 256;
}

void fit_segments(SegmentsPolicy& g, const FitInput& f) {
  if (g.seq_wg) f.clamp_wg(g.seq_wg);
  // CPU devices only: the vector lanes (one core's vector registers). A GPU would hold them in private
  // memory and reserve that for every resident work-item, gigabytes in all, where test processes running
  // side by side then failed to launch them (CL_OUT_OF_HOST_MEMORY).
  if (f.device.type != "cpu") g.vec = 0;
  f.clamp_wg(g.wg);
  while (segment_bytes(g, f) > f.budget && g.slots > 16) g.slots /= 2;
  g.huge = std::max(g.huge, g.slots / 2);
  // seq may exceed the bins' longest segment (slots / 4): seg_classify then lists only longer segments as
  // large, and seg_local's bins skip them, so each is sorted once, by seg_sequential.
}

}  // namespace

Tuning fit_to_device(Tuning t, const DeviceFacts& device, unsigned key_bytes, unsigned value_bytes) {
  const FitInput f = fit_input(device, key_bytes, value_bytes);
  fit_radix(t.radix, f);
  fit_bitonic(t.bitonic, f);
  fit_selection(t.selection, f);
  fit_select(t.select, f);
  fit_merge(t.merge, f);
  fit_odd_even(t.odd_even, f);
  fit_segments(t.segments, f);
  return t;
}

}  // namespace clsort::detail
