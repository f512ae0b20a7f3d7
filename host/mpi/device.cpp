// clsort::mpi::local_device and local_rank: a device per rank from the rank's place on its node.
#include <cstdlib>

#include "clsort/mpi.hpp"
#include "mpi_check.hpp"

namespace clsort::mpi {
namespace {

/// The node's communicator (MPI_COMM_TYPE_SHARED), freed at scope exit.
struct NodeComm {
  explicit NodeComm(MPI_Comm comm) {
    int rank = 0;
    detail::check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
    detail::check_mpi(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node),
                      "MPI_Comm_split_type");
  }
  NodeComm(const NodeComm&) = delete;
  NodeComm& operator=(const NodeComm&) = delete;
  ~NodeComm() { MPI_Comm_free(&node); }
  MPI_Comm node = MPI_COMM_NULL;
};

}  // namespace

int local_rank(MPI_Comm comm) {
  NodeComm n(comm);
  int rank = 0;
  detail::check_mpi(MPI_Comm_rank(n.node, &rank), "MPI_Comm_rank");
  return rank;
}

cl::Device local_device(MPI_Comm comm) {
  // Collective in every case, so that ranks with and without CLSORT_DEVICE (mpirun -x) still match.
  const int rank = local_rank(comm);
  if (const char* env = std::getenv("CLSORT_DEVICE"); env && *env) return default_device();
  std::vector<cl::Device> gpus;
  for (const cl::Device& d : all_devices())
    if (d.getInfo<CL_DEVICE_TYPE>() & CL_DEVICE_TYPE_GPU) gpus.push_back(d);
  if (gpus.empty()) return default_device();
  return gpus[std::size_t(rank) % gpus.size()];
}

}  // namespace clsort::mpi
