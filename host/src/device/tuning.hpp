// Internal: what a device is (DeviceFacts, queried once) and how to sort on it (Tuning: one policy per
// kernel role), from a table keyed vendor -> device class -> device name -> key and value widths, with
// a default row at each level (CLBlast's shape). Later rows override earlier ones field by field.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "algorithms/bitonic_policy.hpp"
#include "algorithms/merge_policy.hpp"
#include "algorithms/odd_even_policy.hpp"
#include "algorithms/radix/radix_policy.hpp"
#include "algorithms/selection_policy.hpp"
#include "clsort/clsort.hpp"
#include "device/policy.hpp"
#include "dispatch/auto_policy.hpp"
#include "host_data/host_policy.hpp"
#include "operations/custom/custom_policy.hpp"
#include "operations/segments/segments_policy.hpp"
#include "operations/top_k/select_policy.hpp"

namespace clsort::detail {

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
/// Each policy's own fit (fit_radix, fit_segments, ...), from device/fit.cpp.
Tuning fit_to_device(Tuning t, const DeviceFacts& device, unsigned key_bytes, unsigned value_bytes);

}  // namespace clsort::detail
