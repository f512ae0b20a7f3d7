// clsort::mpi::alltoallv: MPI_Alltoallv with 64-bit counts, and the test knobs.
#include <cstring>

#include "exchange.hpp"
#include "mpi_check.hpp"
#include "testing.hpp"

namespace clsort::mpi {
namespace detail {

Testing& testing() {
  static Testing knobs;
  return knobs;
}

namespace {

/// A committed datatype, freed at scope exit.
class Type {
 public:
  Type() = default;
  Type(const Type&) = delete;
  Type& operator=(const Type&) = delete;
  ~Type() {
    if (type_ != MPI_DATATYPE_NULL) MPI_Type_free(&type_);
  }
  MPI_Datatype* out() { return &type_; }
  MPI_Datatype get() const { return type_; }
  void commit() { check_mpi(MPI_Type_commit(&type_), "MPI_Type_commit"); }

 private:
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
};

/// Rank i's block as one datatype at absolute addresses (for MPI_BOTTOM): its pieces of `element`.
void block_type(Type& type, const unsigned char* base, std::uint64_t offset, std::uint64_t count,
                std::size_t element_bytes, MPI_Datatype element, std::uint64_t limit) {
  const std::vector<Piece> pieces = split_block(offset, count, limit);
  std::vector<int> lengths(pieces.size());
  std::vector<MPI_Aint> addresses(pieces.size());
  for (std::size_t k = 0; k < pieces.size(); ++k) {
    lengths[k] = pieces[k].count;
    check_mpi(MPI_Get_address(base + pieces[k].offset * element_bytes, &addresses[k]), "MPI_Get_address");
  }
  check_mpi(
      MPI_Type_create_hindexed(int(pieces.size()), lengths.data(), addresses.data(), element, type.out()),
      "MPI_Type_create_hindexed");
  type.commit();
}

}  // namespace
}  // namespace detail

void alltoallv(MPI_Comm comm, const void* send, const std::uint64_t* send_counts, void* recv,
               const std::uint64_t* recv_counts, std::size_t element_bytes) {
  int ranks = 0;
  detail::check_mpi(MPI_Comm_size(comm, &ranks), "MPI_Comm_size");
  const std::vector<std::uint64_t> sd = detail::packed_displacements(send_counts, std::size_t(ranks));
  const std::vector<std::uint64_t> rd = detail::packed_displacements(recv_counts, std::size_t(ranks));
  detail::exchange(comm, send, send_counts, sd.data(), recv, recv_counts, rd.data(), element_bytes);
}

namespace detail {

void exchange(MPI_Comm comm, const void* send, const std::uint64_t* send_counts,
              const std::uint64_t* send_displacements, void* recv, const std::uint64_t* recv_counts,
              const std::uint64_t* recv_displacements, std::size_t element_bytes) {
  int ranks = 0;
  check_mpi(MPI_Comm_size(comm, &ranks), "MPI_Comm_size");
  const std::size_t p = std::size_t(ranks);
  const std::uint64_t limit =
      std::max<std::uint64_t>(1, std::min<std::uint64_t>(testing().max_count, INT_MAX));
  // Every rank must take the same path: one flag, reduced.
  int large = !fits_counts(send_counts, send_displacements, p, limit) ||
              !fits_counts(recv_counts, recv_displacements, p, limit);
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, &large, 1, MPI_INT, MPI_LOR, comm), "MPI_Allreduce");
  Type element;
  check_mpi(MPI_Type_contiguous(int(element_bytes), MPI_BYTE, element.out()), "MPI_Type_contiguous");
  element.commit();
  if (!large) {
    std::vector<int> sc(p), sd(p), rc(p), rd(p);
    for (std::size_t i = 0; i < p; ++i) {
      sc[i] = int(send_counts[i]);
      sd[i] = int(send_displacements[i]);
      rc[i] = int(recv_counts[i]);
      rd[i] = int(recv_displacements[i]);
    }
    check_mpi(MPI_Alltoallv(send, sc.data(), sd.data(), element.get(), recv, rc.data(), rd.data(),
                            element.get(), comm),
              "MPI_Alltoallv");
    return;
  }
  // Each rank's block becomes one datatype of pieces below the limit at absolute addresses, so that
  // neither counts nor displacements (MPI_Alltoallw's are int bytes) overflow.
  std::vector<Type> send_types(p), recv_types(p);
  std::vector<MPI_Datatype> st(p, MPI_BYTE), rt(p, MPI_BYTE);
  std::vector<int> sc(p, 0), rc(p, 0), zero(p, 0);
  for (std::size_t i = 0; i < p; ++i) {
    if (send_counts[i]) {
      block_type(send_types[i], static_cast<const unsigned char*>(send), send_displacements[i],
                 send_counts[i], element_bytes, element.get(), limit);
      st[i] = send_types[i].get();
      sc[i] = 1;
    }
    if (recv_counts[i]) {
      block_type(recv_types[i], static_cast<const unsigned char*>(recv), recv_displacements[i],
                 recv_counts[i], element_bytes, element.get(), limit);
      rt[i] = recv_types[i].get();
      rc[i] = 1;
    }
  }
  check_mpi(MPI_Alltoallw(MPI_BOTTOM, sc.data(), zero.data(), st.data(), MPI_BOTTOM, rc.data(), zero.data(),
                          rt.data(), comm),
            "MPI_Alltoallw");
}

}  // namespace detail
}  // namespace clsort::mpi
