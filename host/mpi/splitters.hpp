// Internal: where each rank's sorted run splits between the ranks, found by a collective search over the
// runs (docs/design.md, "Sorting across ranks (MPI)").
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "clsort/mpi.hpp"

namespace clsort::mpi::detail {

/// One rank's sorted run as the search sees it: 64-bit order codes, whose unsigned order is the sort's
/// order (bit range and descending applied), so that equal codes are the keys the sort keeps in input
/// order.
class SortedCodes {
 public:
  explicit SortedCodes(std::size_t n) : n_(n) {}
  virtual ~SortedCodes() = default;
  std::size_t size() const { return n_; }
  virtual std::uint64_t code(std::size_t i) const = 0;
  /// The first position in [lo, hi) whose code is above c; hi when there is none.
  virtual std::size_t upper_bound(std::uint64_t c, std::size_t lo, std::size_t hi) const = 0;

 private:
  std::size_t n_;
};

/// The codes of n sorted keys of `type` at `keys` under `options` (valid: checked before).
std::unique_ptr<SortedCodes> sorted_codes(KeyType type, const void* keys, std::size_t n,
                                          const clsort::Options& options);

struct Cuts {
  std::vector<std::uint64_t> send_counts;  ///< of this rank's run, the keys each rank receives
  unsigned rounds = 0;                     ///< collective rounds the search took
};

/// Collective: splits every rank's sorted run so that rank j receives the keys at global positions
/// [targets[j], targets[j + 1]) of the stable order by (code, rank, position), where targets are the
/// prefix sums of `counts` (every rank's input count, in rank order). With Balance::any a boundary may
/// move by up to `tolerance` positions to where no block of equal keys is split.
Cuts find_cuts(MPI_Comm comm, int rank, const SortedCodes& run, const std::vector<std::uint64_t>& counts,
               Balance balance, std::uint64_t tolerance);

}  // namespace clsort::mpi::detail
