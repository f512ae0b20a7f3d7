// `mpirun -np P clsort sort --mpi INPUT OUTPUT --type T`: each rank reads its slice of a raw binary file
// with MPI-IO, the ranks sort together (clsort::mpi), and each rank writes its slice of the output, so no
// rank ever holds the whole file. The output goes to a temporary file beside OUTPUT that rank 0 renames
// once every rank has written: a failure leaves an existing OUTPUT as it was.
#include <clsort/mpi.hpp>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <optional>
#include <random>

#include "mpi_commands.hpp"

namespace clsort_cli {
namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

std::string mpi_error(int code) {
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  MPI_Error_string(code, text, &length);
  return std::string(text, std::size_t(length));
}

/// An MPI file, closed at scope exit.
class File {
 public:
  File(const MpiRun& run, const std::string& path, int mode, const char* role) : path_(path) {
    const int code = MPI_File_open(run.comm, path.c_str(), mode, MPI_INFO_NULL, &file_);
    // Collective: every rank gets the same answer.
    if (code != MPI_SUCCESS) {
      file_ = MPI_FILE_NULL;
      throw CliError(std::string("cannot open the ") + role + " '" + path + "': " + mpi_error(code));
    }
  }
  File(const File&) = delete;
  File& operator=(const File&) = delete;
  ~File() { close(); }
  MPI_File get() const { return file_; }
  std::uint64_t size() const {
    MPI_Offset bytes = 0;
    const int code = MPI_File_get_size(file_, &bytes);
    if (code != MPI_SUCCESS) throw CliError("cannot read the size of '" + path_ + "': " + mpi_error(code));
    return std::uint64_t(bytes);
  }
  void close() {
    if (file_ != MPI_FILE_NULL) MPI_File_close(&file_);
  }

 private:
  MPI_File file_ = MPI_FILE_NULL;
  std::string path_;
};

/// Reads (or writes) `bytes` at `offset` in collective calls of at most 1 GiB each (MPI counts are int);
/// every rank makes as many calls as the rank that needs the most. Returns this rank's failure, if any.
std::string transfer(const MpiRun& run, const File& f, std::uint64_t offset, void* data, std::uint64_t bytes,
                     bool write) {
  constexpr std::uint64_t kPiece = std::uint64_t(1) << 30;
  std::uint64_t calls = (bytes + kPiece - 1) / kPiece;
  MPI_Allreduce(MPI_IN_PLACE, &calls, 1, MPI_UINT64_T, MPI_MAX, run.comm);
  std::string failure;
  for (std::uint64_t i = 0; i < calls; ++i) {
    const std::uint64_t at = std::min(bytes, i * kPiece), count = std::min(kPiece, bytes - at);
    char* p = static_cast<char*>(data) + at;
    MPI_Status status;
    const int code =
        write ? MPI_File_write_at_all(f.get(), MPI_Offset(offset + at), p, int(count), MPI_BYTE, &status)
              : MPI_File_read_at_all(f.get(), MPI_Offset(offset + at), p, int(count), MPI_BYTE, &status);
    if (code != MPI_SUCCESS && failure.empty()) failure = mpi_error(code);
    int done = 0;
    MPI_Get_count(&status, MPI_BYTE, &done);
    if (code == MPI_SUCCESS && std::uint64_t(done) != count && failure.empty())
      failure = write ? "short write" : "the file ended early";
  }
  return failure;
}

std::string gib(std::uint64_t bytes) {
  return format_bytes(bytes);
}

template <class K, class V>
int sort_file(const MpiRun& run, const MpiSortArgs& a, clsort::KeyType type, std::size_t value_bytes) {
  const auto start = Clock::now();
  // Progress lines, rank 0's.
  auto progress = [&](const char* format, auto... args) {
    if (!a.quiet) say(run, format, args...);
  };
  const bool with_values = !a.values.empty();
  const std::size_t kb = sizeof(K);

  // Each rank's slice: an equal share of the keys, the first ranks one more.
  File in(run, a.input, MPI_MODE_RDONLY, "input");
  const std::uint64_t in_bytes = in.size();
  if (in_bytes % kb)
    throw CliError("'" + a.input + "' holds " + std::to_string(in_bytes) + " bytes, not a whole number of " +
                   clsort::to_string(type) + " keys");
  const std::uint64_t n = in_bytes / kb, p = std::uint64_t(run.size), r = std::uint64_t(run.rank);
  const std::uint64_t begin = n / p * r + std::min(r, n % p), count = n / p + (r < n % p ? 1 : 0);
  std::optional<File> vin;
  if (with_values) {
    vin.emplace(run, a.values, MPI_MODE_RDONLY, "values");
    if (vin->size() != n * value_bytes)
      throw CliError("'" + a.values + "' holds " + std::to_string(vin->size()) + " bytes, not " +
                     std::to_string(n) + " values of " + std::to_string(value_bytes) + " bytes");
  }
  std::vector<K> keys;
  std::vector<V> values;
  std::string failure;
  try {
    keys.resize(count);
    if (with_values) values.resize(count);
  } catch (const std::bad_alloc&) {
    failure = "out of host memory for " + gib(count * (kb + value_bytes));
  }
  agree(run, failure);
  failure = transfer(run, in, begin * kb, keys.data(), count * kb, false);
  if (with_values && failure.empty())
    failure = transfer(run, *vin, begin * value_bytes, values.data(), count * value_bytes, false);
  agree(run, failure);
  in.close();
  if (vin) vin->close();
  progress("clsort: %d ranks read %s (%llu %s keys%s) in %.3f s\n", run.size, gib(in_bytes).c_str(),
           (unsigned long long)n, clsort::to_string(type), with_values ? " with values" : "",
           seconds_since(start));

  // The device of each rank, and the sort.
  const auto sort_start = Clock::now();
  const std::unique_ptr<clsort::Sorter> opened = open_sorter(run, a.device);
  clsort::Sorter& sorter = *opened;
  if (a.verbose) {
    const std::string line = "rank " + std::to_string(run.rank) + " of " + std::to_string(run.size) + ": " +
                             describe_device(sorter.device()) + "\n";
    std::fprintf(stderr, "clsort: %s", line.c_str());
  }
  clsort::mpi::Options o;
  o.order = a.descending ? clsort::Order::descending : clsort::Order::ascending;
  o.algorithm = clsort::parse_algorithm(a.algorithm);
  o.begin_bit = a.begin_bit;
  o.end_bit = a.end_bit;
  o.balance = a.balance == "any" ? clsort::mpi::Balance::any : clsort::mpi::Balance::exact;
  const clsort::mpi::Stats st = with_values ? clsort::mpi::sort_by_key(run.comm, sorter, keys, values, o)
                                            : clsort::mpi::sort(run.comm, sorter, keys, o);
  // Each phase as the slowest rank took it.
  double phases[] = {st.local_sort_ms, st.splitters_ms, st.exchange_ms, st.merge_ms, st.total_ms};
  MPI_Allreduce(MPI_IN_PLACE, phases, 5, MPI_DOUBLE, MPI_MAX, run.comm);
  progress("clsort: sorted on %d ranks in %.3f s\n", run.size, seconds_since(sort_start));
  if (a.verbose)
    progress(
        "clsort: phases (slowest rank): local sort %.3f s, splitters %.3f s (%u rounds), exchange %.3f s, "
        "merge %.3f s; the sort %.3f s\n",
        phases[0] / 1000, phases[1] / 1000, st.rounds, phases[2] / 1000, phases[3] / 1000, phases[4] / 1000);

  // Each rank's slice of the output starts after the keys the ranks before it hold (Balance::any may have
  // changed the counts).
  const auto write_start = Clock::now();
  std::uint64_t out_begin = 0, out_count = keys.size();
  MPI_Exscan(&out_count, &out_begin, 1, MPI_UINT64_T, MPI_SUM, run.comm);
  if (run.rank == 0) out_begin = 0;
  auto write_file = [&](const std::string& path, const void* data, std::size_t width, const char* role) {
    // A temporary name beside the output, chosen by rank 0.
    std::string temp;
    if (run.rank == 0) {
      std::random_device rd;
      temp = path + ".clsort-" + std::to_string(rd()) + ".tmp";
    }
    std::uint64_t length = temp.size();
    MPI_Bcast(&length, 1, MPI_UINT64_T, 0, run.comm);
    temp.resize(length);
    MPI_Bcast(temp.data(), int(length), MPI_CHAR, 0, run.comm);
    std::string failure;
    {
      File out(run, temp, MPI_MODE_CREATE | MPI_MODE_WRONLY | MPI_MODE_EXCL, role);
      const int code = MPI_File_set_size(out.get(), MPI_Offset(n * width));
      if (code != MPI_SUCCESS) failure = mpi_error(code);
      const std::string f =
          transfer(run, out, out_begin * width, const_cast<void*>(data), out_count * width, true);
      if (failure.empty()) failure = f;
    }
    try {
      agree(run, failure);
    } catch (const CliError&) {
      if (run.rank == 0) MPI_File_delete(temp.c_str(), MPI_INFO_NULL);
      throw;
    }
    failure.clear();
    if (run.rank == 0 && std::rename(temp.c_str(), path.c_str()) != 0) {
      failure = "cannot rename '" + temp + "' onto '" + path + "': " + std::strerror(errno);
      MPI_File_delete(temp.c_str(), MPI_INFO_NULL);
    }
    agree(run, failure);
  };
  write_file(a.output, keys.data(), kb, "output");
  if (with_values)
    write_file(a.values_out.empty() ? a.output + ".values" : a.values_out, values.data(), value_bytes,
               "values output");
  progress("clsort: wrote %s in %.3f s; %.3f s in all\n", a.output.c_str(), seconds_since(write_start),
           seconds_since(start));
  return 0;
}

}  // namespace

int run_mpi_sort(const MpiRun& run, const MpiSortArgs& a) {
  if (a.input == "-" || a.output == "-") throw CliError("--mpi reads and writes files (MPI-IO), not '-'");
  if (!a.values_type.empty() && a.values.empty()) throw CliError("--values-type needs --values");
  const clsort::KeyType type = parse_key_type(a.type);
  const std::size_t value_bytes =
      a.values.empty() ? 0 : clsort::key_size(parse_key_type(a.values_type.empty() ? a.type : a.values_type));
  return visit_key_type(type, [&](auto tag) {
    using K = typename decltype(tag)::type;
    switch (value_bytes) {
      case 1:
        return sort_file<K, std::uint8_t>(run, a, type, 1);
      case 2:
        return sort_file<K, std::uint16_t>(run, a, type, 2);
      case 4:
        return sort_file<K, std::uint32_t>(run, a, type, 4);
      case 8:
        return sort_file<K, std::uint64_t>(run, a, type, 8);
      default:
        return sort_file<K, std::uint32_t>(run, a, type, 0);
    }
  });
}

}  // namespace clsort_cli
