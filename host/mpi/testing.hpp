// Internal knobs of clsort_mpi for its tests: a lowered MPI count limit, so that the large-count
// exchange runs at sizes a test machine holds, and an injected failure on one rank at one phase.
#pragma once

#include <climits>
#include <cstdint>

#include "clsort/mpi.hpp"

namespace clsort::mpi::detail {

/// Where an injected failure strikes: before the local sort, or after the exchange (at the final sort,
/// when other ranks have already exchanged and sorted their data).
enum class FaultPhase { none, local_sort, merge };

struct Testing {
  /// The largest count or displacement one MPI call takes; beyond it the exchange splits into blocks.
  std::uint64_t max_count = INT_MAX;
  /// The rank that fails at `fault_phase` with an OpenCL error (CL_OUT_OF_RESOURCES), -1: none.
  int fault_rank = -1;
  FaultPhase fault_phase = FaultPhase::none;
};

/// The process's knobs (tests set them on every rank alike before a collective call).
CLSORT_MPI_API Testing& testing();

}  // namespace clsort::mpi::detail
