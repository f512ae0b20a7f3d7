// The MPI forms of `clsort sort` and `clsort bench`: their options, MPI's start and end, and the errors
// every rank leaves with together.
#include <CLI/CLI.hpp>
#include <clsort/mpi.hpp>
#include <clsort/version.hpp>

#include <cstring>
#include <new>

#include "mpi_commands.hpp"

namespace clsort_cli {

bool mpi_requested(int argc, char** argv) {
  if (argc < 2 || (std::strcmp(argv[1], "sort") != 0 && std::strcmp(argv[1], "bench") != 0)) return false;
  for (int i = 2; i < argc; ++i)
    if (std::strcmp(argv[i], "--mpi") == 0) return true;
  return false;
}

void agree(const MpiRun& run, const std::string& failure) {
  int first = failure.empty() ? run.size : run.rank;
  MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, run.comm);
  if (first == run.size) return;
  std::uint64_t length = failure.size();
  MPI_Bcast(&length, 1, MPI_UINT64_T, first, run.comm);
  std::string message = failure;
  message.resize(length);
  MPI_Bcast(message.data(), int(length), MPI_CHAR, first, run.comm);
  throw CliError(run.size > 1 ? "rank " + std::to_string(first) + ": " + message : message);
}

std::unique_ptr<clsort::Sorter> open_sorter(const MpiRun& run, const std::string& spec) {
  std::unique_ptr<clsort::Sorter> sorter;
  std::string failure;
  try {
    const cl::Device device = spec.empty() ? clsort::mpi::local_device(run.comm) : open_device(spec);
    sorter = std::make_unique<clsort::Sorter>(device);
  } catch (const std::exception& e) {
    failure = e.what();
  }
  agree(run, failure);
  return sorter;
}

namespace {

void add_sort(CLI::App& app, MpiSortArgs& a) {
  CLI::App* cmd = app.add_subcommand("sort", "Sort a binary file across the ranks of mpirun (MPI-IO)");
  cmd->footer(
      "Each rank reads its slice of INPUT, the ranks sort together (clsort::mpi::sort, each rank on its own "
      "device: the node's GPUs by node-local rank, CLSORT_DEVICE or --device wins), and each rank writes "
      "its slice of OUTPUT; no rank holds the whole file. Example: mpirun -np 4 clsort sort --mpi keys.u64 "
      "sorted.u64 --type u64");
  cmd->add_flag("--mpi", "Run under mpirun (required for this form)")->required();
  cmd->add_option("INPUT", a.input, "Input file of raw keys")->required();
  cmd->add_option("OUTPUT", a.output, "Output file (written whole, then renamed onto OUTPUT)")->required();
  cmd->add_option("--type,-t", a.type, "Key type")->required()->check(CLI::IsMember(key_type_names()));
  cmd->add_flag("--descending,-d", a.descending, "Sort in descending order");
  cmd->add_option("--begin-bit", a.begin_bit, "Radix sort by bits [begin, end) of the key's order code only");
  cmd->add_option("--end-bit", a.end_bit, "See --begin-bit; default: the key's width");
  cmd->add_option("--algorithm,-a", a.algorithm, "Each rank's local algorithm")
      ->check(CLI::IsMember(algorithm_names(true)));
  cmd->add_option("--device", a.device, "Device of every rank (default: clsort::mpi::local_device)");
  cmd->add_option("--values", a.values, "File of values to reorder with the keys (stable sort by key)");
  cmd->add_option("--values-type", a.values_type, "Type of the values (any key type's name: 1 to 8 bytes)")
      ->check(CLI::IsMember(key_type_names()));
  cmd->add_option("--values-out", a.values_out, "Where the reordered values go (default: OUTPUT.values)");
  cmd->add_option("--balance", a.balance,
                  "exact: each rank writes as many keys as it read; any: within N/(32p), fewer search rounds")
      ->check(CLI::IsMember({"exact", "any"}))
      ->capture_default_str();
  cmd->add_flag("--quiet,-q", a.quiet, "No progress lines (rank 0 prints them on stderr)");
  cmd->add_flag("--verbose,-v", a.verbose, "Also each phase of the sort and every rank's device");
}

void add_bench(CLI::App& app, MpiBenchArgs& a) {
  CLI::App* cmd = app.add_subcommand("bench", "Time clsort::mpi::sort across the ranks of mpirun");
  cmd->footer(
      "Per phase (the slowest rank's, median of the repetitions) against floors measured in the same run: "
      "the exchange floor (device to host, the same MPI_Alltoallv of the same bytes, host to device) and "
      "each rank's local sort of its share; ratio = total / (exchange floor + local sort). Example: mpirun "
      "-np 4 clsort bench --mpi --types u32,u64 --sizes 2^24,2^26");
  cmd->add_flag("--mpi", "Run under mpirun (required for this form)")->required();
  cmd->add_option("--types,-t", a.types, "Key types")->delimiter(',')->check(CLI::IsMember(key_type_names()));
  cmd->add_option("--values", a.values, "none, u32 or u64: keys alone or pairs (a list times each)")
      ->delimiter(',')
      ->check(CLI::IsMember({"none", "u32", "u64"}));
  cmd->add_option("--sizes,-n", a.sizes, "Keys per rank, e.g. 2^24,2^26")->delimiter(',');
  cmd->add_option("--data", a.data, "device: cl::Buffer on each rank; host: std::vector")
      ->check(CLI::IsMember({"device", "host"}))
      ->capture_default_str();
  cmd->add_option("--reps,-r", a.reps, "Timed repetitions (medians)")->capture_default_str();
  cmd->add_option("--device", a.device, "Device of every rank (default: clsort::mpi::local_device)");
  cmd->add_option("--seed", a.seed, "Random seed of the keys")->capture_default_str();
  cmd->add_option("--csv", a.csv, "Also write the rows as CSV (rank 0)");
}

}  // namespace

int run_mpi_command(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MpiRun run;
  MPI_Comm_rank(run.comm, &run.rank);
  MPI_Comm_size(run.comm, &run.size);
  CLI::App app("clsort " CLSORT_VERSION_STRING ": sorting across MPI ranks", "clsort");
  app.require_subcommand(1);
  MpiSortArgs sort_args;
  MpiBenchArgs bench_args;
  add_sort(app, sort_args);
  add_bench(app, bench_args);
  int status = 0;
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // Every rank parsed the same arguments: rank 0 speaks for all.
    status = run.rank == 0 ? app.exit(e) : (e.get_exit_code() == 0 ? 0 : 1);
    MPI_Finalize();
    return status == 0 ? 0 : 2;
  }
  try {
    status = app.got_subcommand("sort") ? run_mpi_sort(run, sort_args) : run_mpi_bench(run, bench_args);
  } catch (const clsort::Error& e) {
    // Collective: every rank holds the same error, naming the rank that failed.
    if (run.rank == 0) std::fprintf(stderr, "%s\n", e.what());
    status = 1;
  } catch (const CliError& e) {
    if (run.rank == 0) std::fprintf(stderr, "clsort: error: %s\n", e.what());
    status = 1;
  } catch (const std::bad_alloc&) {
    // Local: this rank cannot go on, and the others may be waiting for it.
    std::fprintf(stderr, "clsort: error: rank %d: out of host memory\n", run.rank);
    MPI_Abort(run.comm, 1);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "clsort: error: rank %d: %s\n", run.rank, e.what());
    MPI_Abort(run.comm, 1);
  }
  clsort::mpi::release_buffers();
  MPI_Finalize();
  return status;
}

}  // namespace clsort_cli
