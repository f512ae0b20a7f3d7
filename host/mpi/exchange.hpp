// Internal: the large-count all-to-all. MPI counts and displacements are `int`; beyond that, each rank's
// block travels as a derived datatype of pieces that each fit.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace clsort::mpi::detail {

/// One piece of a rank's block: `count` elements from element `offset` of the buffer.
struct Piece {
  std::uint64_t offset;
  int count;
};

/// The pieces of `count` elements from `offset` with at most `limit` (>= 1) elements each, in order;
/// none for an empty block.
inline std::vector<Piece> split_block(std::uint64_t offset, std::uint64_t count, std::uint64_t limit) {
  std::vector<Piece> pieces;
  pieces.reserve(std::size_t((count + limit - 1) / limit));
  for (std::uint64_t done = 0; done < count;) {
    const std::uint64_t take = std::min(limit, count - done);
    pieces.push_back({offset + done, int(take)});
    done += take;
  }
  return pieces;
}

/// Whether every count and every displacement is at most `limit`, so that plain MPI_Alltoallv can carry
/// the blocks.
inline bool fits_counts(const std::uint64_t* counts, const std::uint64_t* displacements, std::size_t ranks,
                        std::uint64_t limit) {
  for (std::size_t i = 0; i < ranks; ++i)
    if (counts[i] > limit || displacements[i] > limit) return false;
  return true;
}

/// The prefix sums of `counts`: the displacements of blocks that follow each other.
inline std::vector<std::uint64_t> packed_displacements(const std::uint64_t* counts, std::size_t ranks) {
  std::vector<std::uint64_t> d(ranks, 0);
  for (std::size_t i = 1; i < ranks; ++i) d[i] = d[i - 1] + counts[i - 1];
  return d;
}

/// MPI_Alltoallv of `element_bytes`-byte elements with 64-bit counts and displacements (in elements);
/// clsort::mpi::alltoallv with explicit displacements.
void exchange(MPI_Comm comm, const void* send, const std::uint64_t* send_counts,
              const std::uint64_t* send_displacements, void* recv, const std::uint64_t* recv_counts,
              const std::uint64_t* recv_displacements, std::size_t element_bytes);

}  // namespace clsort::mpi::detail
