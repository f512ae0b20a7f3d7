// The segmented sort's tuning: SegmentsPolicy (`segments.*`), its parameter lines and its fit to a device
// (segments.cpp).
#pragma once

#include "device/policy.hpp"

namespace clsort::detail {

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

/// The `segments.*` lines of the parameter table, in describe()'s order.
const std::vector<Param>& segments_params();
/// Clamps the work-groups and the local slots to the device.
void fit_segments(SegmentsPolicy& p, const FitInput& f);

}  // namespace clsort::detail
