// clsort._clsort_mpi: the nanobind module behind clsort.mpi (host/python/clsort/mpi.py), the sort across
// the ranks of an mpi4py communicator. A module of its own, built only where CMake finds MPI and linking
// clsort_mpi, so that clsort._clsort (module.cpp) keeps no MPI dependency. Like that module it stays thin:
// clsort.mpi checks arguments and picks dtypes in Python; this holds the Sorters, turns the communicator
// into an MPI_Comm, releases the GIL while a sort runs and turns clsort::Error into clsort.Error.
//
// The communicator: mpi4py's MPI._addressof(comm) is the address of the MPI_Comm inside the Python
// object, as an int, which this module dereferences. That works alike for Open MPI (MPI_Comm is a
// pointer) and MPICH (an int), and needs neither mpi4py's headers at build time nor mpi4py >= 3.1
// (MPI._handleof). It is only right when mpi4py and this module use the same MPI library (the same ABI):
// mpi4py built against the system MPI, or mpi4py 4's wheels, which carry one build per MPI ABI (Open MPI's
// libmpi.so.40, MPICH's libmpi.so.12) and load the one the system has. Every call checks the handle's
// size and rank against what mpi4py says (comm.Get_size(), comm.Get_rank()), so that a mismatch shows as
// an error rather than as a wrong sort.
#include <mpi.h>
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include <clsort/clsort.hpp>

#include <clsort/mpi.hpp>
#include "error_translation.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace {

// clsort.Error, the core module's (clsort._clsort.Error), so that the package has one exception type.
PyObject* error_type = nullptr;

// The MPI_Comm at `address` (MPI._addressof(comm)), checked against mpi4py's size and rank of it.
MPI_Comm comm_at(std::uintptr_t address, int size, int rank) {
  if (!address) throw nb::value_error("clsort.mpi: null communicator address");
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (!initialized || finalized)
    throw nb::value_error(
        "clsort.mpi: MPI is not initialized (or already finalized): import mpi4py.MPI first");
  const MPI_Comm comm = *reinterpret_cast<const MPI_Comm*>(address);
  if (comm == MPI_COMM_NULL) throw nb::value_error("clsort.mpi: the communicator is MPI.COMM_NULL");
  int my_size = 0, my_rank = 0;
  if (MPI_Comm_size(comm, &my_size) != MPI_SUCCESS || MPI_Comm_rank(comm, &my_rank) != MPI_SUCCESS ||
      my_size != size || my_rank != rank)
    throw nb::type_error(
        "clsort.mpi: the communicator's handle does not match mpi4py's view of it: mpi4py and clsort must "
        "use the same MPI library (pip install --no-binary mpi4py mpi4py builds mpi4py against the "
        "system's)");
  return comm;
}

// A Sorter serves one thread at a time; the GIL is released while it sorts.
struct MpiSorter {
  explicit MpiSorter(clsort::Sorter&& s) : sorter(std::move(s)) {}
  clsort::Sorter sorter;
  std::mutex mutex;
};

using Array = nb::ndarray<nb::ndim<1>, nb::c_contig, nb::device::cpu>;

nb::dict stats_dict(const clsort::mpi::Stats& s) {
  nb::dict d;
  d["check_ms"] = s.check_ms;
  d["local_sort_ms"] = s.local_sort_ms;
  d["splitters_ms"] = s.splitters_ms;
  d["exchange_ms"] = s.exchange_ms;
  d["merge_ms"] = s.merge_ms;
  d["commit_ms"] = s.commit_ms;
  d["total_ms"] = s.total_ms;
  d["rounds"] = s.rounds;
  d["merged"] = s.merged;
  d["global_n"] = s.global_n;
  d["n_in"] = s.n_in;
  d["n_out"] = s.n_out;
  d["send_counts"] = s.send_counts;
  d["recv_counts"] = s.recv_counts;
  return d;
}

// Sorts `keys` (n keys of `type`, or their bits for bf16) with `values` (None, or n * value_bytes bytes as
// uint8) in place across the ranks; Balance::exact, so every rank keeps its count. Returns the Stats.
nb::dict sort_host(MpiSorter& s, std::uintptr_t comm_address, int size, int rank, clsort::KeyType type,
                   Array keys, nb::object values_obj, std::size_t value_bytes, bool descending) {
  const MPI_Comm comm = comm_at(comm_address, size, rank);
  if (keys.itemsize() != clsort::key_size(type))
    throw nb::type_error(("clsort.mpi: keys do not hold " + std::string(clsort::to_string(type))).c_str());
  clsort::mpi::detail::HostArrays a;
  a.type = type;
  a.keys = keys.data();
  a.n = keys.shape(0);
  Array values;
  if (!values_obj.is_none()) {
    if (!nb::try_cast(values_obj, values, false) || values.itemsize() != 1 || value_bytes == 0)
      throw nb::type_error(
          "clsort.mpi: values must be a writable C-contiguous uint8 array with value_bytes > 0");
    if (values.shape(0) % value_bytes != 0)
      throw nb::value_error("clsort.mpi: the values' bytes are not a whole number of values");
    a.values = values.data();
    a.value_bytes = value_bytes;
    a.values_n = values.shape(0) / value_bytes;  // checked against n by the library, collectively
  }
  clsort::mpi::Options options;
  options.order = descending ? clsort::Order::descending : clsort::Order::ascending;
  clsort::mpi::Stats stats;
  {
    nb::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(s.mutex);
    stats = clsort::mpi::detail::sort_host(comm, s.sorter, a, options);
  }
  return stats_dict(stats);
}

// clsort::mpi::alltoallv of uint8 arrays holding elements of element_bytes bytes (64-bit counts).
void alltoallv(std::uintptr_t comm_address, int size, int rank, Array send,
               const std::vector<std::uint64_t>& send_counts, Array recv,
               const std::vector<std::uint64_t>& recv_counts, std::size_t element_bytes) {
  const MPI_Comm comm = comm_at(comm_address, size, rank);
  if (send_counts.size() != std::size_t(size) || recv_counts.size() != std::size_t(size) ||
      element_bytes == 0)
    throw nb::value_error("clsort.mpi: alltoallv needs one count per rank and element_bytes > 0");
  std::uint64_t sent = 0, received = 0;
  for (int i = 0; i < size; ++i) sent += send_counts[i], received += recv_counts[i];
  if (send.itemsize() != 1 || recv.itemsize() != 1 || send.shape(0) < sent * element_bytes ||
      recv.shape(0) < received * element_bytes)
    throw nb::value_error("clsort.mpi: alltoallv's arrays must be uint8 and hold the counted elements");
  nb::gil_scoped_release release;
  clsort::mpi::alltoallv(comm, send.data(), send_counts.data(), recv.data(), recv_counts.data(),
                         element_bytes);
}

}  // namespace

NB_MODULE(_clsort_mpi, m) {
  m.doc() = "clsort's MPI extension module; use clsort.mpi instead.";

  nb::module_ core = nb::module_::import_("clsort._clsort");
  error_type = core.attr("Error").ptr();
  Py_INCREF(error_type);  // kept for the process's life, as the core module keeps it
  clsort_python::translate_errors(error_type);

  m.def(
      "local_device",
      [](std::uintptr_t comm, int size, int rank) {
        const MPI_Comm c = comm_at(comm, size, rank);
        cl::Device d;
        {
          nb::gil_scoped_release release;
          d = clsort::mpi::local_device(c);
        }
        return reinterpret_cast<std::uintptr_t>(d());
      },
      "comm_address"_a, "size"_a, "rank"_a,
      "The cl_device_id (int) this rank should sort on: clsort::mpi::local_device(). Collective.");
  m.def(
      "local_rank",
      [](std::uintptr_t comm, int size, int rank) {
        return clsort::mpi::local_rank(comm_at(comm, size, rank));
      },
      "comm_address"_a, "size"_a, "rank"_a);
  m.def("release_buffers", &clsort::mpi::release_buffers);
  m.def("alltoallv", &alltoallv, "comm_address"_a, "size"_a, "rank"_a, "send"_a.noconvert(), "send_counts"_a,
        "recv"_a.noconvert(), "recv_counts"_a, "element_bytes"_a);

  nb::class_<MpiSorter>(m, "Sorter")
      .def_static(
          "from_device",
          [](std::uintptr_t device) {
            if (!device) throw nb::value_error("clsort.mpi: null device");
            return new MpiSorter(clsort::Sorter(cl::Device(reinterpret_cast<cl_device_id>(device), true)));
          },
          "device_int_ptr"_a, nb::rv_policy::take_ownership)
      .def_static(
          "from_queue",
          [](std::uintptr_t queue) {
            return new MpiSorter(clsort_python::sorter_on_queue(queue, "clsort.mpi"));
          },
          "queue_int_ptr"_a, nb::rv_policy::take_ownership)
      .def_prop_ro("device_int_ptr",
                   [](const MpiSorter& s) { return reinterpret_cast<std::uintptr_t>(s.sorter.device()()); })
      .def("sort_host", &sort_host, "comm_address"_a, "size"_a, "rank"_a, "type"_a, "keys"_a.noconvert(),
           "values"_a.none(), "value_bytes"_a, "descending"_a);
}
