// Internal: what a device is (DeviceFacts, queried once) and how to sort on it (Tuning: one policy per
// kernel role), from a table keyed vendor -> device class -> device name -> key and value widths, with
// a default row at each level (CLBlast's shape). Later rows override earlier ones field by field.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "clsort/clsort.hpp"

namespace clsort::detail {

/// What the tuning, the plans and the drivers need to know of a device, read once per Sorter. Every
/// query is checked: a failed one throws Error naming the query rather than becoming a size of 0.
struct DeviceFacts {
  std::string vendor, name;  // lower case
  std::string type;          // "gpu", "cpu", "accelerator" or "other"
  std::size_t max_work_group = 1;
  std::size_t local_mem = 0;
  std::uint64_t max_alloc = 0;
  std::uint64_t global_mem = 0;
  std::size_t base_align = 128;  // CL_DEVICE_MEM_BASE_ADDR_ALIGN in bytes: where a sub-buffer may start
  unsigned compute_units = 1;
  bool host_unified = false;
  // NVIDIA's OpenCL (it reports cl_nv_device_attribute_query): its compiler takes inline PTX, which a
  // self-test confirms before the ranking uses it, and its binaries are PTX, which take register caps
  bool nv_compiler = false;
  bool subgroup_ballot = false;          // cl_khr_subgroup_ballot
  std::vector<unsigned> subgroup_sizes;  // sizes a kernel can require (cl_intel_required_subgroup_size)
  unsigned registers_per_group = 0;      // NVIDIA: registers one work-group may use; 0: unknown
  std::string extensions;
};
DeviceFacts query_device(const cl::Device& device);

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
struct BitonicPolicy {
  unsigned wg = 256;
  unsigned tile = 2048;  // elements sorted in local memory by one work-group
  unsigned steps = 4;    // global steps fused per launch (2^steps elements per work-item)
  unsigned cpu = 0;      // 1: the CPU shape (a work-item per tile, steps as vector loops)
};
struct SelectionPolicy {
  unsigned wg = 256;
  unsigned items = 4;  // keys ranked per work-item (each local load serves that many)
};
/// Radix selection (top_k, select; kernels/radix_select.cl).
struct SelectPolicy {
  unsigned wg = 256;       // work-items per group; 1: the CPU shape (no local atomics, barriers are no-ops)
  unsigned items = 8;      // elements per work-item per tile
  unsigned groups = 8;     // work-groups per compute unit, each looping over tiles
  unsigned sample = 4096;  // keys sampled to guess level 0's bucket (kernels/radix_select.cl); 0: no guess
};
struct MergePolicy {
  unsigned wg = 256;
  unsigned items = 8;      // keys per work-item (tile = wg * items)
  unsigned cpu = 0;        // 1: the CPU shape (sequential merges, one work-item per chunk)
  unsigned chunk = 16384;  // CPU shape: keys per work-item
};
/// sort_custom's merge sort and bitonic network (kernels/custom.cl): 0 derives each from the device's
/// local memory and the element size.
struct CustomPolicy {
  unsigned wg = 0;
  unsigned items = 0;  // elements per work-item (tile = wg * items)
};
struct OddEvenPolicy {
  unsigned wg = 256;
  unsigned tile = 1024;  // keys one work-group sorts by element phases
};
/// Segmented sort (Sorter::sort_segments; kernels/segments.cl).
struct SegmentsPolicy {
  unsigned wg = 256;         // work-items of the local sort and merge kernels
  unsigned slots = 4096;     // local-memory slots per work-group: segments up to slots / 4 keys sort there
  unsigned huge = 1u << 20;  // longer segments: one whole-device sort each; up to it, chunks and merges
  unsigned seq = 0;  // segments up to this long: one work-item each, sequentially (CPU devices); 0: none
  // those of them at least this long: an LSD radix sort by bytes instead of runs and merges; 0: merges only
  unsigned seq_radix = 256;
  // work-items per group of the one-work-item path; 0: by device (CPU devices 1, with up to 64 segments
  // each; others 64, one segment each, which stage their spans through local memory where seq <= 16)
  unsigned seq_wg = 0;
  // of those, up to this long: sorted by groups of consecutive segments, one segment per lane of a
  // vector (kernels/segments_short.cl, seg_vector); 0: none
  unsigned vec = 0;
  // longer than the bins take and up to this long: a radix sort per segment, one work-group each
  // (kernels/radix_segments.cl), instead of chunks and merges; 0: never
  unsigned radix = 0;
  unsigned radix_regs = 0;  // register cap of that kernel (like radix.regs); 0: the compiler's choice
};
struct AutoPolicy {
  std::size_t small_n = 2048;  // up to this n, one work-group's bitonic sort; radix above
};
/// Host data (sort(std::vector&), the C API): transfers staged through pinned memory in chunks.
struct HostPolicy {
  std::size_t chunk = std::size_t(8) << 20;  // largest staged chunk, bytes; 0: one transfer each way
  std::size_t min = std::size_t(1) << 20;    // staged only from this many bytes (keys + values)
  unsigned threads = 0;                      // threads copying each chunk; 0: from the core count
  unsigned stream = 1;                       // 1: staging copies with streaming stores; 0: memcpy
};

struct Tuning {
  std::string row = "any/any/default";  // the most specific table row that matched
  std::string measured;                 // where and how that row was measured (its figures: docs/tuning.md)
  RadixPolicy radix;
  BitonicPolicy bitonic;
  SelectionPolicy selection;
  SelectPolicy select;
  MergePolicy merge;
  CustomPolicy custom;
  OddEvenPolicy odd_even;
  SegmentsPolicy segments;
  AutoPolicy automatic;
  HostPolicy host;

  /// "radix.bits=8 radix.wg=256 ..." in the syntax apply() reads: every parameter, in table order.
  std::string describe() const;
  /// Applies "name=value" pairs separated by commas or spaces. Throws Error naming `source` on an
  /// unknown name or a value out of range, leaving *this unchanged.
  void apply(const std::string& overrides, const std::string& source = "tuning");
};

/// Peer-mask banks of the multisplit ranking with local-atomic peers (RADIX_MASK_BANKS) for its sub-group
/// primitives (RadixPolicy::subgroups): NVIDIA's warp syncs are cheap enough for a third sync per item;
/// elsewhere, where a sync may be a work-group barrier, a second bank of masks saves it.
inline unsigned radix_mask_banks(unsigned subgroups) {
  return subgroups == 1 ? 1 : 2;
}

/// `earlier` then `later` (tuning strings already checked by Tuning::apply) as one string holding each
/// parameter once, at its last value: what a Sorter keeps of every tune() call.
std::string merge_overrides(const std::string& earlier, const std::string& later);

/// One row of the tuning table: its name (vendor/class/device, then /keysN and /values or /no-values where
/// it is for some widths only), the parameters it sets, and where and how it was measured.
struct TuningRow {
  std::string name, params, measured;
};
/// Every row of the table, in the order rows apply.
std::vector<TuningRow> tuning_rows();
/// The rows (indices into tuning_rows()) that apply to `device` and these widths, in the order they apply:
/// what tuning_for applies before the overrides.
std::vector<std::size_t> matching_rows(const DeviceFacts& device, unsigned key_bytes, unsigned value_bytes);

/// The table's rows for `device` and keys of `key_bytes` with values of `value_bytes` (0: keys alone),
/// then `overrides` (CLSORT_TUNING, Sorter::tune). Not yet fitted to the device's limits.
Tuning tuning_for(const DeviceFacts& device, unsigned key_bytes, unsigned value_bytes,
                  const std::string& overrides);

/// Clamps work-group sizes and tiles to what `device` supports for keys of `key_bytes` and values of
/// `value_bytes` (local memory use depends on both), and drops what it cannot run: sub-group primitives
/// its extensions do not offer, register caps where binaries are not PTX or above a work-group's share.
/// One function per policy (device/fit.cpp).
Tuning fit_to_device(Tuning t, const DeviceFacts& device, unsigned key_bytes, unsigned value_bytes);

}  // namespace clsort::detail
