// doctest's main() for the MPI tests: MPI around the run, and every rank running the same test cases in
// the same order (each case is collective). Rank 0 reports in full, the others only their failures. As
// support/doctest_main.cpp does, a run whose filters select no test case fails.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>
#include <mpi.h>

#include <clsort/mpi.hpp>

#include <cstdio>

#include "../support/run_record.hpp"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  doctest::Context context(argc, argv);
  context.setOption("order-by", "file");  // the same order on every rank
  if (rank != 0) context.setOption("minimal", true);
  int result = context.run();
  if (result == 0 && !record.query && record.started == 0) {
    if (rank == 0)
      std::fprintf(stderr, "%s: no test case matched the filters: nothing was tested\n", argv[0]);
    result = 1;
  }
  // The job fails when any rank failed.
  MPI_Allreduce(MPI_IN_PLACE, &result, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  clsort::mpi::release_buffers();
  MPI_Finalize();
  return result;
}
