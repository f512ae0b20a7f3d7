// The large-count exchange: MPI takes int counts and displacements, so blocks beyond them travel as
// derived datatypes of pieces. The splitting is checked at counts past 2^32 without the memory, and the
// exchange and whole sorts run through the pieces with the limit lowered to a few elements.
#include "exchange.hpp"
#include "mpi_cases.hpp"
#include "testing.hpp"

namespace clsort_mpi_test {
namespace {

using clsort::mpi::detail::Piece;
using clsort::mpi::detail::split_block;

/// Restores the count limit at scope exit.
struct Limit {
  explicit Limit(std::uint64_t limit) { clsort::mpi::detail::testing().max_count = limit; }
  ~Limit() { clsort::mpi::detail::testing().max_count = INT_MAX; }
};

TEST_CASE("exchange pieces") {
  const std::uint64_t limit = INT_MAX;
  for (std::uint64_t count : {std::uint64_t(0), std::uint64_t(1), limit, limit + 1, 2 * limit,
                              (std::uint64_t(5) << 31) + 3, (std::uint64_t(1) << 33) + 12345}) {
    const std::uint64_t offset = (std::uint64_t(3) << 32) + 7;  // past 2^32 elements already
    const std::vector<Piece> pieces = split_block(offset, count, limit);
    std::uint64_t at = offset;
    for (const Piece& p : pieces) {
      CHECK(p.offset == at);
      CHECK(p.count > 0);
      CHECK(std::uint64_t(p.count) <= limit);
      at += std::uint64_t(p.count);
    }
    CHECK(at - offset == count);
    CHECK(pieces.size() == (count + limit - 1) / limit);
  }
  const std::uint64_t counts[] = {5, std::uint64_t(INT_MAX) + 1, 0};
  const std::uint64_t at[] = {0, 5, std::uint64_t(INT_MAX) + 6};
  CHECK(!clsort::mpi::detail::fits_counts(counts, at, 3, INT_MAX));
  CHECK(clsort::mpi::detail::fits_counts(counts, at, 1, INT_MAX));
  const std::uint64_t small[] = {5, 6, 7}, small_at[] = {0, 5, 11};
  CHECK(clsort::mpi::detail::fits_counts(small, small_at, 3, 11));
  CHECK(!clsort::mpi::detail::fits_counts(small, small_at, 3, 10));
}

TEST_CASE("mpi alltoallv in pieces") {
  // Random counts of 3-byte elements that name their source, destination and position, under limits
  // from 1 element (every element a piece) up to none.
  const World w = world();
  for (std::uint64_t limit :
       {std::uint64_t(1), std::uint64_t(4), std::uint64_t(37), std::uint64_t(INT_MAX)}) {
    const Limit knob(limit);
    std::mt19937_64 rng(seed_for(KeyType::u8, w.rank, limit, 3));
    std::vector<std::uint64_t> send_counts(std::size_t(w.size));
    for (auto& c : send_counts) c = rng() % 3 == 0 ? 0 : rng() % 200;
    std::vector<Bytes<3>> send;
    for (std::size_t to = 0; to < send_counts.size(); ++to)
      for (std::uint64_t i = 0; i < send_counts[to]; ++i)
        send.push_back(Bytes<3>{{static_cast<unsigned char>(w.rank), static_cast<unsigned char>(to),
                                 static_cast<unsigned char>(i)}});
    std::vector<std::uint64_t> recv_counts(send_counts.size());
    MPI_Alltoall(send_counts.data(), 1, MPI_UINT64_T, recv_counts.data(), 1, MPI_UINT64_T, w.comm);
    std::uint64_t total = 0;
    for (std::uint64_t c : recv_counts) total += c;
    std::vector<Bytes<3>> recv(std::size_t(total), Bytes<3>{{0xEE, 0xEE, 0xEE}});
    clsort::mpi::alltoallv(w.comm, send.data(), send_counts.data(), recv.data(), recv_counts.data(), 3);
    std::string problem;
    std::size_t k = 0;
    for (std::size_t from = 0; from < recv_counts.size() && problem.empty(); ++from)
      for (std::uint64_t i = 0; i < recv_counts[from]; ++i, ++k)
        if (recv[k].b[0] != from || recv[k].b[1] != std::size_t(w.rank) || recv[k].b[2] != (i & 0xFF)) {
          problem = "element " + std::to_string(k) + " from rank " + std::to_string(from) + " is wrong";
          break;
        }
    check_everywhere(w.comm, problem, "limit " + std::to_string(limit));
  }
}

TEST_CASE("mpi large counts") {
  // Whole sorts, host and device, with every block split into pieces of at most 5 elements.
  const World w = world();
  const Limit knob(5);
  for (Layout layout : all_layouts())
    for (Data data : {Data::host, Data::buffer}) {
      const std::vector<std::uint64_t> keys = share<std::uint64_t>(w, Dist::few_unique, layout, 3001, 23);
      const std::vector<Bytes<12>> values = positions<Bytes<12>>(w, keys.size());
      const std::string problem =
          sort_and_check(w, shared_sorter(), keys, &values, mpi_options(Order::ascending), data);
      if (check_everywhere(w.comm, problem,
                           describe_case(w, KeyType::u64, "12-byte", Order::ascending, 3001, Dist::few_unique,
                                         layout, data) +
                               ", pieces of 5"))
        break;
    }
}

}  // namespace
}  // namespace clsort_mpi_test
