// clsort::mpi::sort and sort_by_key across the ranks of MPI_COMM_WORLD against std::stable_sort of the
// gathered input: every key type, values of 1 to 64 bytes, layouts that leave ranks empty or put every
// key on one rank, all-equal, few-unique, sorted and reversed keys, floats with NaNs of both signs and
// +-0, both orders, a bit range, Balance::any, device buffers and a sub-communicator.
#include "mpi_cases.hpp"

namespace clsort_mpi_test {
namespace {

using clsort::mpi::Balance;

const std::vector<std::size_t>& key_sizes() {
  static const std::vector<std::size_t> s{0, 1, 5, 100, 1000, 4099};
  return s;
}

/// Keys alone, host vectors: every layout, distribution and order at each size.
template <class K>
void keys_case(const World& w) {
  const KeyType type = clsort::key_type_of<K>::value;
  for (std::size_t n : key_sizes())
    for (Layout layout : all_layouts())
      for (Dist dist : distributions<K>()) {
        if (dist == Dist::sawtooth) continue;  // an equal-key case the others cover
        for (Order order : both_orders()) {
          const std::uint64_t seed = seed_for(type, int(dist), n, 700 + std::uint64_t(layout));
          const std::vector<K> keys = share<K>(w, dist, layout, n, seed);
          const std::string problem =
              sort_and_check(w, shared_sorter(), keys, nullptr, mpi_options(order), Data::host);
          if (check_everywhere(w.comm, problem,
                               describe_case(w, type, nullptr, order, n, dist, layout, Data::host)))
            return;
        }
      }
}

TEST_CASE("mpi keys narrow") {
  const World w = world();
  keys_case<std::uint8_t>(w);
  keys_case<std::int8_t>(w);
  keys_case<std::uint16_t>(w);
  keys_case<std::int16_t>(w);
  keys_case<clsort::half>(w);
  keys_case<clsort::bfloat16>(w);
}

TEST_CASE("mpi keys 32-bit") {
  const World w = world();
  keys_case<std::uint32_t>(w);
  keys_case<std::int32_t>(w);
  keys_case<float>(w);
}

TEST_CASE("mpi keys 64-bit") {
  const World w = world();
  keys_case<std::uint64_t>(w);
  keys_case<std::int64_t>(w);
  keys_case<double>(w);
}

/// Keys with values of V naming their global positions: pairing and stability show in every value.
template <class K, class V>
void pairs_case(const World& w, const char* value_name, Data data = Data::host) {
  const KeyType type = clsort::key_type_of<K>::value;
  for (std::size_t n : {std::size_t(0), std::size_t(7), std::size_t(1000), std::size_t(5003)})
    for (Layout layout : all_layouts())
      for (Dist dist : {Dist::random, Dist::few_unique, Dist::all_equal, special_distribution<K>()})
        for (Order order : both_orders()) {
          const std::uint64_t seed =
              seed_for(type, int(dist), n, 900 + sizeof(V) * 10 + std::uint64_t(layout));
          const std::vector<K> keys = share<K>(w, dist, layout, n, seed);
          const std::vector<V> values = positions<V>(w, keys.size());
          const std::string problem =
              sort_and_check(w, shared_sorter(), keys, &values, mpi_options(order), data);
          if (check_everywhere(w.comm, problem,
                               describe_case(w, type, value_name, order, n, dist, layout, data)))
            return;
        }
}

TEST_CASE("mpi pairs") {
  const World w = world();
  pairs_case<std::uint32_t, Bytes<1>>(w, "1-byte");
  pairs_case<std::uint32_t, Bytes<2>>(w, "2-byte");
  pairs_case<std::uint32_t, Bytes<3>>(w, "3-byte");
  pairs_case<std::uint32_t, std::uint32_t>(w, "u32");
  pairs_case<std::uint32_t, std::uint64_t>(w, "u64");
  pairs_case<std::uint32_t, Bytes<12>>(w, "12-byte");
  pairs_case<std::uint32_t, Bytes<16>>(w, "16-byte");
  pairs_case<std::uint32_t, Bytes<24>>(w, "24-byte");
  pairs_case<std::uint32_t, Bytes<64>>(w, "64-byte");
  pairs_case<double, Bytes<3>>(w, "3-byte");
  pairs_case<double, Bytes<12>>(w, "12-byte");
  pairs_case<std::int64_t, std::uint32_t>(w, "u32");
  pairs_case<clsort::half, std::uint64_t>(w, "u64");
}

TEST_CASE("mpi buffers") {
  const World w = world();
  const KeyType types[] = {KeyType::u32, KeyType::f64};
  for (KeyType type : types) {
    auto run = [&](auto tag) {
      using K = decltype(tag);
      for (std::size_t n : key_sizes())
        for (Layout layout : all_layouts())
          for (Dist dist : {Dist::random, Dist::all_equal, Dist::sorted, special_distribution<K>()})
            for (Order order : both_orders()) {
              const std::uint64_t seed = seed_for(type, int(dist), n, 1100 + std::uint64_t(layout));
              const std::vector<K> keys = share<K>(w, dist, layout, n, seed);
              const std::string problem =
                  sort_and_check(w, shared_sorter(), keys, nullptr, mpi_options(order), Data::buffer);
              if (check_everywhere(w.comm, problem,
                                   describe_case(w, type, nullptr, order, n, dist, layout, Data::buffer)))
                return;
            }
    };
    if (type == KeyType::u32)
      run(std::uint32_t{});
    else
      run(double{});
  }
  pairs_case<std::uint32_t, std::uint32_t>(w, "u32", Data::buffer);
  pairs_case<std::uint64_t, Bytes<12>>(w, "12-byte", Data::buffer);
  pairs_case<float, Bytes<3>>(w, "3-byte", Data::buffer);
}

TEST_CASE("mpi bit range") {
  // One range (each builds radix programs of its own), both orders, keys and pairs, host and device.
  const World w = world();
  for (std::size_t n : {std::size_t(0), std::size_t(9), std::size_t(3001)})
    for (Layout layout : all_layouts())
      for (Dist dist : {Dist::random, Dist::few_unique})
        for (Order order : both_orders())
          for (Data data : {Data::host, Data::buffer}) {
            const std::uint64_t seed = seed_for(KeyType::u32, int(dist), n, 1300 + std::uint64_t(layout));
            const std::vector<std::uint32_t> keys = share<std::uint32_t>(w, dist, layout, n, seed);
            const std::vector<std::uint32_t> values = positions<std::uint32_t>(w, keys.size());
            const std::string problem =
                sort_and_check(w, shared_sorter(), keys, &values, mpi_options(order, 8, 20), data);
            if (check_everywhere(
                    w.comm, problem,
                    describe_case(w, KeyType::u32, "u32", order, n, dist, layout, data) + ", bits [8, 20)"))
              return;
          }
}

TEST_CASE("mpi balance any") {
  // Counts may change; the ranks in order still hold the stable sort, and each rank stays within
  // N / (32 p) of what it gave.
  const World w = world();
  for (std::size_t n : {std::size_t(0), std::size_t(50), std::size_t(20000)})
    for (Layout layout : all_layouts())
      for (Dist dist : {Dist::random, Dist::all_equal, Dist::few_unique, Dist::sorted})
        for (Order order : both_orders()) {
          const std::uint64_t seed = seed_for(KeyType::u64, int(dist), n, 1500 + std::uint64_t(layout));
          const std::vector<std::uint64_t> keys = share<std::uint64_t>(w, dist, layout, n, seed);
          const std::vector<std::uint32_t> values = positions<std::uint32_t>(w, keys.size());
          clsort::mpi::Stats st;
          std::string problem = sort_and_check(w, shared_sorter(), keys, &values,
                                               mpi_options(order, 0, 0, Balance::any), Data::host, &st);
          const std::uint64_t bound = n / (32 * std::uint64_t(w.size));
          const std::uint64_t moved = st.n_out > st.n_in ? st.n_out - st.n_in : st.n_in - st.n_out;
          if (problem.empty() && moved > bound)
            problem = "ends with " + std::to_string(st.n_out) + " keys from " + std::to_string(st.n_in) +
                      ", beyond N / (32 p) = " + std::to_string(bound);
          if (check_everywhere(w.comm, problem,
                               describe_case(w, KeyType::u64, "u32", order, n, dist, layout, Data::host) +
                                   ", Balance::any"))
            return;
        }
}

TEST_CASE("mpi sub-communicator") {
  // Even and odd ranks sort apart, at the same time, on communicators of their own.
  const World all = world();
  MPI_Comm half = MPI_COMM_NULL;
  MPI_Comm_split(all.comm, all.rank % 2, all.rank, &half);
  const World w = world(half);
  for (Layout layout : all_layouts())
    for (Data data : {Data::host, Data::buffer}) {
      const std::size_t n = 2000 + std::size_t(all.rank % 2) * 77;
      const std::uint64_t seed = seed_for(KeyType::f32, 1, n, 1700 + std::uint64_t(all.rank % 2));
      const std::vector<float> keys = share<float>(w, Dist::float_specials, layout, n, seed);
      const std::vector<std::uint64_t> values = positions<std::uint64_t>(w, keys.size());
      const std::string problem =
          sort_and_check(w, shared_sorter(), keys, &values, mpi_options(Order::descending), data);
      // The verdict over all ranks, so that both halves leave the loop together.
      const std::string what =
          describe_case(w, KeyType::f32, "u64", Order::descending, n, Dist::float_specials, layout, data) +
          ", half " + std::to_string(all.rank % 2);
      check_everywhere(w.comm, problem, what);
      if (check_everywhere(all.comm, problem, what)) break;
    }
  MPI_Comm_free(&half);
}

TEST_CASE("mpi stats and device") {
  const World w = world();
  const std::vector<std::uint32_t> keys = share<std::uint32_t>(w, Dist::random, Layout::even, 3000, 17);
  clsort::mpi::Stats st;
  std::string problem =
      sort_and_check(w, shared_sorter(), keys, nullptr, mpi_options(Order::ascending), Data::host, &st);
  std::uint64_t sent = 0, received = 0;
  for (std::uint64_t c : st.send_counts) sent += c;
  for (std::uint64_t c : st.recv_counts) received += c;
  if (problem.empty() &&
      (st.send_counts.size() != std::size_t(w.size) || sent != st.n_in || received != st.n_out))
    problem = "send and receive counts do not add up";
  if (problem.empty() && w.size > 1 && st.global_n > 0 && st.rounds == 0) problem = "no search rounds";
  check_everywhere(w.comm, problem, "stats");

  // Without CLSORT_DEVICE and without a GPU, local_device is the default device; the node-local rank
  // is below the number of ranks.
  const int local = clsort::mpi::local_rank(w.comm);
  const cl::Device d = clsort::mpi::local_device(w.comm);
  problem.clear();
  if (local < 0 || local >= w.size) problem = "local rank " + std::to_string(local);
  if (!d()) problem = "no device";
  if (std::getenv("CLSORT_DEVICE") && d() != clsort::default_device()())
    problem = "CLSORT_DEVICE did not win";
  check_everywhere(w.comm, problem, "local_device");
}

}  // namespace
}  // namespace clsort_mpi_test
