// `clsort sort --mpi` and `clsort bench --mpi`: the command line under mpirun, built with clsort_mpi
// (CLSORT_CLI_HAVE_MPI). main() hands an argument list with --mpi to run_mpi_command before its own
// parsing, so MPI starts only for these.
#pragma once

#include <mpi.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli_common.hpp"

namespace clsort_cli {

/// Whether argv is `clsort sort ... --mpi ...` or `clsort bench ... --mpi ...`.
bool mpi_requested(int argc, char** argv);
/// Runs that command between MPI_Init and MPI_Finalize; returns the exit status (0, 1 failure, 2 usage).
int run_mpi_command(int argc, char** argv);

/// The communicator a command runs on.
struct MpiRun {
  MPI_Comm comm = MPI_COMM_WORLD;
  int rank = 0, size = 1;
};

/// Collective: returns when no rank has a failure; otherwise throws CliError on every rank with the
/// message of the lowest failing rank ("rank 2: ..."), so that every rank leaves together.
void agree(const MpiRun& run, const std::string& failure);

/// Collective: this rank's Sorter on the device `spec` selects (CLSORT_DEVICE syntax), or on
/// clsort::mpi::local_device when spec is empty; a rank that cannot open one fails every rank.
std::unique_ptr<clsort::Sorter> open_sorter(const MpiRun& run, const std::string& spec);

/// printf to stderr on rank 0 only, flushed (mpirun forwards each rank's output as it comes).
template <class... A>
void say(const MpiRun& run, const char* format, A... args) {
  if (run.rank != 0) return;
  std::fprintf(stderr, format, args...);
  std::fflush(stderr);
}

struct MpiSortArgs {
  std::string input, output, type, values, values_type, values_out, device, algorithm = "automatic";
  std::string balance = "exact";
  bool descending = false, quiet = false, verbose = false;
  unsigned begin_bit = 0, end_bit = 0;
};
int run_mpi_sort(const MpiRun& run, const MpiSortArgs& args);

struct MpiBenchArgs {
  std::vector<std::string> types{"u32", "u64"};
  std::vector<std::string> values{"none"};  // "none", "u32", "u64": keys alone or pairs
  std::vector<std::string> sizes{"2^20", "2^24"};
  std::string data = "device";  // "device": cl::Buffer on each rank; "host": std::vector
  std::string device, csv;
  int reps = 5;
  unsigned seed = 1;
};
int run_mpi_bench(const MpiRun& run, const MpiBenchArgs& args);

}  // namespace clsort_cli
