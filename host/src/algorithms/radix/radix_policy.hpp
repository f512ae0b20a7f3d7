// Radix sort's tuning: RadixPolicy (`radix.*`), its parameter lines and its fit to a device
// (radix_policy.cpp).
#pragma once

#include "device/policy.hpp"

namespace clsort::detail {

struct RadixPolicy {
  unsigned bits = 8;  // digit width
  unsigned wg = 256;  // work-group size of the radix kernels
  // Keys per work-item per tile (tile = wg * items); 0: derived from the device (fit_to_device, then
  // fit_radix_registers)
  unsigned items = 8;
  unsigned items_small = 0;  // keys per work-item below half a tile per compute unit; 0: `items` at every n
  // keys per work-item where the multisplit ranking's sub-groups are work-item groups in local memory,
  // whose syncs are work-group barriers that larger tiles amortize; 0: `items`
  unsigned items_local = 0;
  unsigned groups = 1024;  // most work-groups per reduce-then-scan pass; each owns a contiguous run of tiles
  unsigned cpu = 0;        // 1: the CPU shape (an MSD pass over chunks, then one work-item per bucket)
  // The CPU shape's buckets: 0 the kernel's choice by key width, 1 every LSD pass over the bucket, 2 the
  // top passes over the bucket, then runs of keys equal in them sorted by the rest
  unsigned buckets = 0;
  unsigned wc = 0;  // the CPU shape's MSD scatter: bytes per write-combining line (RADIX_CPU_WC); 0: none
  // ... from this many bytes of keys and values on: below, the scattered keys stay in the cache for the
  // buckets, and the lines' non-temporal stores would send them to memory
  std::uint64_t wc_min = 0;
  unsigned match = 0;  // 1: rank tiles by sub-group multisplit; 0: by the portable counting sort
  // The multisplit ranking's sub-group primitives: 0 the device's best, 1 NVIDIA's PTX warps, 2
  // cl_khr_subgroup_ballot, 3 work-item groups in local memory (any device); one it cannot run is 3.
  unsigned subgroups = 0;
  unsigned peers = 0;     // how keys find their peers: 0 the primitives' best, 1 ballots, 2 local atomics
  unsigned sg_size = 0;   // lanes of cl_khr_subgroup_ballot sub-groups; 0: the device's best offered
  unsigned onesweep = 0;  // 1: one histogram for all passes, decoupled look-back (after a self-test)
  unsigned regs = 0;      // registers per work-item (NVIDIA: PTX .maxnreg); 0: the compiler's choice
  // Onesweep with the multisplit ranking, 4-byte keys alone: up to this n, each work-group sorts tiles
  // until none is left and loads the next tile's keys during this one's look-back; 0: never
  unsigned prefetch_max = 0;
  // Onesweep: reads of an earlier tile's look-back word before counting its keys instead; 0: always count
  unsigned spins = 1u << 20;
  // 1: values of 16 bytes ride the passes beside their keys where the plan is Onesweep with the
  // multisplit ranking; 0 (and other plans): sorted as 32-bit indices, then moved once (dispatch/values.cpp)
  unsigned values16 = 0;
  // From this n on, one stable MSD partition by the top digit first (dispatch/split.cpp), each bucket then
  // sorted apart: the passes count in 32 bits, so n >= 2^32 needs it; lower only to test it
  std::uint64_t split_min = std::uint64_t(1) << 32;
  // The split path's pieces (keys, rounded down to the sub-buffer alignment): each is sorted by the top
  // digit apart (dispatch/split.cpp), so a piece must hold fewer than 2^32 keys; lower only to test it
  std::uint64_t split_piece = std::uint64_t(1) << 28;
  // The most keys one sort of the passes takes (a whole sort, a piece, a bucket of the split path): more
  // take the split path, and a bucket of more is partitioned again by its next digit. The passes count
  // in 32 bits; lower only to test it
  std::uint64_t split_max = (std::uint64_t(1) << 32) - 1;
  bool derived = false;  // (not a parameter) items was 0: the tile comes from the device
};

/// Peer-mask banks of the multisplit ranking with local-atomic peers (RADIX_MASK_BANKS) for its sub-group
/// primitives (RadixPolicy::subgroups): NVIDIA's warp syncs are cheap enough for a third sync per item;
/// elsewhere, where a sync may be a work-group barrier, a second bank of masks saves it.
inline unsigned radix_mask_banks(unsigned subgroups) {
  return subgroups == 1 ? 1 : 2;
}

/// The `radix.*` lines of the parameter table, in describe()'s order.
const std::vector<Param>& radix_params();
/// Clamps the work-group and tile to the device, chooses the ranking's sub-group primitives it runs (those
/// the device probe passes), and drops what it cannot run.
void fit_radix(RadixPolicy& p, const FitInput& f);
/// Then, for a tile derived from the device (RadixPolicy::derived): takes keys per work-item off t.radix, 4
/// at a time down to 8, while the device probe reports the pass kernel spilling to private memory.
void fit_radix_registers(Tuning& t, const DeviceFacts& facts, unsigned key_bytes, unsigned value_bytes);

}  // namespace clsort::detail
