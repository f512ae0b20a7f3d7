// The clsort command line: `clsort devices`, `clsort sort`, `clsort lexsort`, `clsort bench`. Exit status: 0
// success, 1 failure (bad input, OpenCL error, failed verification), 2 usage error.
#include <clsort/version.hpp>

#include <cstdio>
#include <exception>

#include "cli_common.hpp"
#include "commands.hpp"
#ifdef CLSORT_CLI_HAVE_MPI
#include "mpi_commands.hpp"
#endif

int main(int argc, char** argv) {
  using namespace clsort_cli;
#ifdef CLSORT_CLI_HAVE_MPI
  // `clsort sort --mpi` and `clsort bench --mpi` under mpirun (tools/cli/mpi_command.cpp).
  if (mpi_requested(argc, argv)) return run_mpi_command(argc, argv);
#endif
  CLI::App app("clsort " CLSORT_VERSION_STRING ": sorting on any OpenCL device", "clsort");
  app.set_version_flag("--version,-V", "clsort " CLSORT_VERSION_STRING);
  app.require_subcommand(1);
  app.footer("Run `clsort COMMAND --help` for a command's options.");

  DevicesArgs devices_args;
  SortArgs sort_args;
  LexsortArgs lexsort_args;
  BenchArgs bench_args;
  CLI::App* devices = add_devices_command(app, devices_args);
  CLI::App* sort = add_sort_command(app, sort_args);
  CLI::App* lexsort = add_lexsort_command(app, lexsort_args);
  CLI::App* bench = add_bench_command(app, bench_args);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;  // --help and --version are not errors
  }

  try {
    if (*devices) return run_devices(devices_args);
    if (*sort) return run_sort(sort_args);
    if (*lexsort) return run_lexsort(lexsort_args);
    if (*bench) return run_bench(bench_args);
  } catch (const CliError& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "clsort: error: %s\n", e.what());
    return 1;
  } catch (const clsort::Error& e) {
    // The library's messages start with "clsort: " already and name the failing call or argument.
    std::fflush(stdout);
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  } catch (const std::bad_alloc&) {
    std::fflush(stdout);
    std::fprintf(stderr, "clsort: error: out of host memory\n");
    return 1;
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "clsort: error: %s\n", e.what());
    return 1;
  }
  return 2;
}
