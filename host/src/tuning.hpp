// Internal: tuning parameters per device, from a table keyed vendor -> device class -> device name with a
// default row at each level (CLBlast's shape). Later rows override earlier ones field by field.
#pragma once

#include <cstddef>
#include <string>

#include "clsort/clsort.hpp"

namespace clsort::detail {

struct Tuning {
  std::string row = "default";     // the most specific table row that matched
  std::string measured;            // what that row was measured at, with the device and date
  unsigned radix_bits = 8;         // digit width
  unsigned radix_wg = 256;         // work-group size of the radix kernels
  unsigned radix_items = 8;        // keys per work-item per block (block = wg * items)
  unsigned radix_items64 = 0;      // the same for 64-bit keys; 0: radix.items
  unsigned radix_items_pairs = 0;  // the same for 32-bit keys with values; 0: radix.items
  // Keys per work-item below half a tile per compute unit at radix.items (the fitted one: 64-bit keys and
  // pairs have their own); 0: radix.items at every n.
  unsigned radix_items_small = 0;
  unsigned radix_groups = 1024;   // most work-groups per pass; each owns a contiguous run of blocks
  unsigned radix_cpu = 0;         // 1: the CPU shape (an MSD pass over chunks, then one work-item per bucket)
  unsigned radix_match = 0;       // 1: on NVIDIA GPUs, rank blocks by warp multisplit (inline PTX)
  unsigned radix_onesweep = 0;    // 1: one histogram for all passes, decoupled look-back (after a self-test)
  unsigned radix_regs = 0;        // registers per work-item, 4-byte keys alone (NVIDIA: PTX .maxnreg); 0: any
  unsigned radix_regs64 = 0;      // the same for 64-bit keys
  unsigned radix_regs_pairs = 0;  // the same for keys of either width with values
  // Onesweep on NVIDIA, 4-byte keys alone: up to this n, each work-group sorts tiles until none is left and
  // loads the next tile's keys during this one's look-back (kernels/radix.cl, RADIX_PREFETCH); 0: never
  unsigned radix_prefetch_max = 0;
  // Onesweep: reads of an earlier tile's look-back word before counting its keys instead; 0: always count
  // (slow: tests)
  unsigned radix_spins = 1u << 20;
  unsigned bitonic_wg = 256;
  unsigned bitonic_tile = 2048;  // elements sorted in local memory by one work-group
  unsigned bitonic_steps = 4;    // global steps fused per launch (2^steps elements per work-item)
  unsigned bitonic_cpu = 0;      // 1: the CPU shape (a work-item per tile, steps as vector loops)
  unsigned selection_wg = 256;
  unsigned selection_items = 4;  // keys ranked per work-item (each local load serves that many)
  unsigned merge_wg = 256;
  unsigned merge_items = 8;      // keys per work-item (tile = merge.wg * merge.items)
  unsigned merge_cpu = 0;        // 1: the CPU shape (sequential merges, one work-item per chunk)
  unsigned merge_chunk = 16384;  // CPU shape: keys per work-item
  unsigned odd_even_wg = 256;
  unsigned odd_even_tile = 1024;  // keys one work-group sorts by element phases
  std::size_t small_n = 2048;     // automatic: up to this n, one work-group's bitonic sort; radix above
  // Host data (sort(std::vector&), the C API): transfers staged through pinned memory in chunks.
  std::size_t host_chunk = std::size_t(8) << 20;  // largest staged chunk, bytes; 0: one transfer each way
  std::size_t host_min = std::size_t(1) << 20;    // staged only from this many bytes (keys + values)
  unsigned host_threads = 0;                      // threads copying each chunk; 0: from the core count
  unsigned host_stream = 1;  // 1: staging copies with streaming stores (stream_copy); 0: memcpy

  /// "radix.bits=8 radix.wg=256 ..." in the syntax apply() reads.
  std::string describe() const;
  /// Applies "name=value" pairs separated by commas or spaces; throws Error on unknown names or values.
  void apply(const std::string& overrides, const std::string& source = "tuning");
};

/// The table's tuning for `device`, clamped to its limits (work-group size, local memory).
Tuning tuning_for(const cl::Device& device);

/// Clamps work-group sizes and tiles to what `device` supports for keys of `key_bytes` and values of
/// `value_bytes` (local memory use depends on both).
Tuning fit_to_device(Tuning t, const cl::Device& device, unsigned key_bytes, unsigned value_bytes);

}  // namespace clsort::detail
