// Internal: what the segmented sort's two files share. segments.cpp plans a call and enqueues its
// commands on validated buffers (kernels/segments.cl); segments_api.cpp is the public face (validation,
// host data) and moves what the kernels do not carry through a permutation.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/sorter_impl.hpp"

namespace clsort::detail {

// The segmented sort's scratch: its state words, the large segments' chunk table and radix list, the
// bins, the merge passes' compact keys and values, host offsets, the copies of huge segments that the
// whole-device sort takes, and the sequential sort's keys and values.
enum SegmentsScratch : unsigned {
  kSegState,
  kSegChunks,
  kSegRadix,
  kSegBins,
  kSegKeys,
  kSegValues,
  kSegOffsets,
  kSegHugeKeys,
  kSegHugeValues,
  kSegSeqKeys,
  kSegSeqValues,
  // What the kernels do not carry moves through a permutation: the indices sorted in the values' place,
  // the values and keys saved for the gather, and a bit range's codes sorted in the keys' place.
  kSegPermIndex,
  kSegPermValues,
  kSegRangeKeys,
  kSegRangeCodes
};
constexpr const char* scratch_owner(SegmentsScratch) {
  return "segments";
}

/// The commands of one segmented sort on validated buffers. `limit` is how many keys the keys buffer
/// holds (at most 2^32 - 1), `value_limit` how many values. Throws Error naming offsets or values, having
/// written nothing, when the offsets are bad.
cl::Event enqueue_segments(Sorter::Impl& s, KeyType type, const cl::Buffer& keys, const cl::Buffer* values,
                           unsigned value_bytes, std::uint64_t value_limit, const cl::Buffer& offsets,
                           unsigned offset_bytes, std::size_t num, std::uint64_t limit,
                           const Options& options, const std::vector<cl::Event>& wait);

}  // namespace clsort::detail
