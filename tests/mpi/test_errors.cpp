// Collective errors: a bad argument or an OpenCL failure on one rank makes every rank throw
// clsort::Error naming that rank, nobody hangs (CTest's timeout would turn a hang into a failure), and
// every rank's data is as it was. Then a sort on the same Sorters still works.
#include "mpi_cases.hpp"
#include "testing.hpp"

namespace clsort_mpi_test {
namespace {

using clsort::mpi::detail::FaultPhase;

/// The rank a test makes fail: 1 where there is one.
int culprit(const World& w) {
  return w.size > 1 ? 1 : 0;
}

/// Runs `sort` (which throws or not) on every rank and checks that it threw an Error naming `rank`, of
/// `kind`, with where() == `where` (empty: any).
template <class F>
std::string expect_error(const World& w, F&& sort, int rank, clsort::Error::Kind kind,
                         const std::string& where) {
  try {
    sort();
  } catch (const clsort::Error& e) {
    const std::string message = e.what();
    const std::string who = "rank " + std::to_string(rank) + " of " + std::to_string(w.size) + " failed";
    if (message.find(who) == std::string::npos) return "the message does not name " + who + ": " + message;
    if (e.kind() != kind) return "kind " + std::to_string(int(e.kind())) + ": " + message;
    if (!where.empty() && e.where() != where) return "where() is '" + e.where() + "': " + message;
    return {};
  } catch (const std::exception& e) {
    return std::string("threw something else: ") + e.what();
  }
  return "did not throw";
}

struct Knobs {
  explicit Knobs(int rank, FaultPhase phase) {
    clsort::mpi::detail::testing().fault_rank = rank;
    clsort::mpi::detail::testing().fault_phase = phase;
  }
  ~Knobs() {
    clsort::mpi::detail::testing().fault_rank = -1;
    clsort::mpi::detail::testing().fault_phase = FaultPhase::none;
  }
};

TEST_CASE("mpi errors: a values vector of the wrong size on one rank") {
  const World w = world();
  const int bad = culprit(w);
  for (Layout layout : {Layout::even, Layout::one}) {
    const std::vector<std::uint32_t> keys = share<std::uint32_t>(w, Dist::random, layout, 999, 5);
    std::vector<std::uint64_t> values = positions<std::uint64_t>(w, keys.size());
    if (w.rank == bad) values.push_back(7);
    std::vector<std::uint32_t> k = keys;
    std::vector<std::uint64_t> v = values;
    std::string problem = expect_error(
        w, [&] { clsort::mpi::sort_by_key(w.comm, shared_sorter(), k, v); }, bad,
        clsort::Error::Kind::invalid_argument, "values");
    if (problem.empty() && (k != keys || v != values)) problem = "the data changed";
    check_everywhere(w.comm, problem, std::string("layout ") + to_string(layout));
  }
}

TEST_CASE("mpi errors: an OpenCL failure on one rank") {
  // After the exchange (the other ranks have sorted what they received when it strikes), and at the local
  // sort; host vectors and device buffers. One rank sorts everything alone: there the local sort fails.
  const World w = world();
  const int bad = w.size - 1;
  for (FaultPhase phase : {FaultPhase::merge, FaultPhase::local_sort})
    for (Data data : {Data::host, Data::buffer}) {
      const std::vector<double> keys = share<double>(w, Dist::float_specials, Layout::even, 3001, 9);
      const std::vector<Bytes<12>> values = positions<Bytes<12>>(w, keys.size());
      std::string problem;
      {
        const Knobs knobs(bad, w.size == 1 ? FaultPhase::local_sort : phase);
        if (data == Data::host) {
          std::vector<double> k = keys;
          std::vector<Bytes<12>> v = values;
          problem = expect_error(
              w, [&] { clsort::mpi::sort_by_key(w.comm, shared_sorter(), k, v); }, bad,
              clsort::Error::Kind::opencl, "clEnqueueNDRangeKernel");
          if (problem.empty() &&
              (std::memcmp(k.data(), keys.data(), keys.size() * sizeof(double)) != 0 ||
               std::memcmp(v.data(), values.data(), values.size() * sizeof(Bytes<12>)) != 0))
            problem = "the data changed";
        } else {
          const cl::Buffer kb = upload(shared_sorter(), keys), vb = upload(shared_sorter(), values);
          problem = expect_error(
              w,
              [&] {
                clsort::mpi::sort_by_key<double, Bytes<12>>(w.comm, shared_sorter(), kb, vb, keys.size());
              },
              bad, clsort::Error::Kind::opencl, "clEnqueueNDRangeKernel");
          std::vector<double> k;
          std::vector<Bytes<12>> v;
          if (problem.empty()) problem = download(shared_sorter(), kb, keys.size(), k);
          if (problem.empty()) problem = download(shared_sorter(), vb, keys.size(), v);
          if (problem.empty() &&
              (std::memcmp(k.data(), keys.data(), keys.size() * sizeof(double)) != 0 ||
               std::memcmp(v.data(), values.data(), values.size() * sizeof(Bytes<12>)) != 0))
            problem = "the data changed";
        }
      }
      check_everywhere(w.comm, problem,
                       std::string(to_string(data)) +
                           (phase == FaultPhase::merge ? ", at the merge" : ", at the local sort"));
    }
  // The same Sorters sort again.
  const std::vector<std::uint32_t> keys = share<std::uint32_t>(w, Dist::random, Layout::ragged, 2000, 11);
  check_everywhere(
      w.comm, sort_and_check(w, shared_sorter(), keys, nullptr, mpi_options(Order::ascending), Data::buffer),
      "a sort after the failures");
}

TEST_CASE("mpi errors: arguments") {
  const World w = world();
  const int bad = culprit(w);
  const std::vector<std::uint32_t> keys = share<std::uint32_t>(w, Dist::random, Layout::gaps, 500, 3);

  // A buffer shorter than n on one rank; the others' buffers are left as they were.
  {
    const cl::Buffer b = upload(shared_sorter(), keys);
    const std::size_t n = w.rank == bad ? keys.size() + kCanary + 1 : keys.size();
    std::string problem = expect_error(
        w, [&] { clsort::mpi::sort<std::uint32_t>(w.comm, shared_sorter(), b, n); }, bad,
        clsort::Error::Kind::invalid_argument, "keys");
    std::vector<std::uint32_t> after;
    if (problem.empty()) problem = download(shared_sorter(), b, keys.size(), after);
    if (problem.empty() && after != keys) problem = "the data changed";
    check_everywhere(w.comm, problem, "a short buffer");
  }

  // An empty range of bits, refused on every rank (also those without keys): the lowest rank is named.
  {
    std::vector<std::uint32_t> k = keys;
    const std::string problem = expect_error(
        w, [&] { clsort::mpi::sort(w.comm, shared_sorter(), k, mpi_options(Order::ascending, 40, 0)); }, 0,
        clsort::Error::Kind::invalid_argument, "begin_bit");
    check_everywhere(w.comm, problem.empty() && k != keys ? "the data changed" : problem, "begin_bit 40");
  }

  // Balance::any on device buffers.
  {
    const cl::Buffer b = upload(shared_sorter(), keys);
    const std::string problem = expect_error(
        w,
        [&] {
          clsort::mpi::sort<std::uint32_t>(w.comm, shared_sorter(), b, keys.size(),
                                           mpi_options(Order::ascending, 0, 0, clsort::mpi::Balance::any));
        },
        0, clsort::Error::Kind::invalid_argument, "balance");
    check_everywhere(w.comm, problem, "Balance::any on buffers");
  }

  // Ranks that disagree on the key type: every rank throws, naming the field.
  if (w.size > 1) {
    std::string problem;
    try {
      if (w.rank == bad) {
        std::vector<std::uint64_t> k(keys.begin(), keys.end());
        clsort::mpi::sort(w.comm, shared_sorter(), k);
      } else {
        std::vector<std::uint32_t> k = keys;
        clsort::mpi::sort(w.comm, shared_sorter(), k);
        if (k != keys) problem = "the data changed";
      }
      problem = "did not throw";
    } catch (const clsort::Error& e) {
      if (std::string(e.what()).find("key type") == std::string::npos ||
          e.kind() != clsort::Error::Kind::invalid_argument)
        problem = std::string("wrong error: ") + e.what();
    }
    check_everywhere(w.comm, problem, "key types that differ");
  }
}

}  // namespace
}  // namespace clsort_mpi_test
