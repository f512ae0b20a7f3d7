// What the MPI tests share: the communicator's shape, how a global input is laid out over the ranks, the
// gathered reference (std::stable_sort of every rank's input in rank order) and checks that every rank
// takes part in, so that a failure on one rank never leaves the others waiting in a collective.
#pragma once

#include <doctest/doctest.h>
#include <mpi.h>

#include <clsort/key_transform.hpp>
#include <clsort/mpi.hpp>

#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "support/support.hpp"

namespace clsort_mpi_test {

using namespace clsort_test;

struct World {
  MPI_Comm comm = MPI_COMM_WORLD;
  int rank = 0, size = 1;
};
inline World world(MPI_Comm comm = MPI_COMM_WORLD) {
  World w{comm};
  MPI_Comm_rank(comm, &w.rank);
  MPI_Comm_size(comm, &w.size);
  return w;
}

/// How a global input of n keys is spread over the ranks.
enum class Layout {
  even,    ///< n / p each, the remainder on the first ranks
  gaps,    ///< every other rank (rank 0 included) empty, the rest even
  one,     ///< everything on the last rank
  ragged,  ///< random counts, some of them 0
};
inline const char* to_string(Layout l) {
  static constexpr const char* names[] = {"even", "gaps", "one", "ragged"};
  return enum_name(l, names);
}
inline const std::vector<Layout>& all_layouts() {
  static const std::vector<Layout> l{Layout::even, Layout::gaps, Layout::one, Layout::ragged};
  return l;
}

/// Every rank's count under `layout` (the same on every rank).
inline std::vector<std::size_t> layout_counts(Layout layout, std::size_t n, int ranks, std::uint64_t seed) {
  const std::size_t p = std::size_t(ranks);
  std::vector<std::size_t> c(p, 0);
  auto spread = [&](const std::vector<std::size_t>& who) {
    for (std::size_t i = 0; i < who.size(); ++i) c[who[i]] = n / who.size() + (i < n % who.size() ? 1 : 0);
  };
  std::vector<std::size_t> all(p);
  std::iota(all.begin(), all.end(), std::size_t(0));
  switch (layout) {
    case Layout::even:
      spread(all);
      break;
    case Layout::gaps: {
      std::vector<std::size_t> odd;
      for (std::size_t i = 1; i < p; i += 2) odd.push_back(i);
      spread(odd.empty() ? all : odd);
      break;
    }
    case Layout::one:
      c[p - 1] = n;
      break;
    case Layout::ragged: {
      std::mt19937_64 rng(seed);
      std::vector<double> w(p);
      for (double& x : w) x = rng() % 3 == 0 ? 0.0 : double(rng() % 1000 + 1);
      if (std::accumulate(w.begin(), w.end(), 0.0) == 0) w[0] = 1;
      const double total = std::accumulate(w.begin(), w.end(), 0.0);
      std::size_t given = 0;
      for (std::size_t i = 0; i < p; ++i) given += c[i] = std::size_t(double(n) * w[i] / total);
      for (std::size_t i = 0; given < n; i = (i + 1) % p)
        if (w[i] > 0) ++c[i], ++given;
      break;
    }
  }
  return c;
}

/// Every rank's vector, in rank order, on every rank.
template <class T>
std::vector<T> gather_all(MPI_Comm comm, const std::vector<T>& mine) {
  const World w = world(comm);
  const long long bytes = (long long)(mine.size() * sizeof(T));
  std::vector<long long> all(std::size_t(w.size));
  MPI_Allgather(&bytes, 1, MPI_LONG_LONG, all.data(), 1, MPI_LONG_LONG, comm);
  std::vector<int> counts(all.size()), displacements(all.size());
  long long total = 0;
  for (std::size_t i = 0; i < all.size(); ++i) {
    counts[i] = int(all[i]);
    displacements[i] = int(total);
    total += all[i];
  }
  std::vector<T> out(std::size_t(total) / sizeof(T));
  MPI_Allgatherv(mine.data(), int(bytes), MPI_BYTE, out.data(), counts.data(), displacements.data(), MPI_BYTE,
                 comm);
  return out;
}

/// Whether any rank has a problem. Each rank reports its own with CHECK; every rank returns the same.
inline bool check_everywhere(MPI_Comm comm, const std::string& problem, const std::string& what) {
  const World w = world(comm);
  CHECK_MESSAGE(problem.empty(), "rank ", w.rank, " of ", w.size, ": ", what, ": ", problem);
  int bad = problem.empty() ? 0 : 1;
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, comm);
  return bad != 0;
}

/// A value of N bytes that names its global input position in its first bytes (as many as fit) and fills
/// the rest with bits derived from it, so that pairing and stability show in every byte.
template <std::size_t N>
struct Bytes {
  unsigned char b[N];
};
template <std::size_t N>
Bytes<N> value_for(std::uint64_t index) {
  Bytes<N> v;
  std::uint64_t x = index, mix = index * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull;
  for (std::size_t i = 0; i < N; ++i) {
    if (i < 8) {
      v.b[i] = static_cast<unsigned char>(x);
      x >>= 8;
    } else {
      v.b[i] = static_cast<unsigned char>(mix >> (8 * (i % 8)));
      if (i % 8 == 7) mix = mix * 0xbf58476d1ce4e5b9ull + 1;
    }
  }
  return v;
}

/// The stable permutation of `keys` by the sort's order under `options`: the tests' reference order
/// (support.hpp's ref_before, written apart from clsort's transforms; NaNs by their codes) without a bit
/// range, the range's bits of encode_key (as tests/test_bit_range.cpp) with one.
template <class K>
std::vector<std::uint32_t> reference_order(const std::vector<K>& keys, const clsort::Options& options) {
  using U = clsort::key_bits_t<K>;
  std::vector<std::uint32_t> idx(keys.size());
  std::iota(idx.begin(), idx.end(), 0u);
  if (options.begin_bit == 0 && options.end_bit == 0) {
    // NaNs in the order of their codes, as clsort orders them: across ranks the NaN block is split by
    // that order, which the single-device tests' multiset comparison of NaN positions leaves open.
    const bool descending = options.order == Order::descending;
    std::stable_sort(idx.begin(), idx.end(), [&](std::uint32_t a, std::uint32_t b) {
      if (is_nan_key(keys[a]) && is_nan_key(keys[b]))
        return clsort::encode_key(keys[a], descending) < clsort::encode_key(keys[b], descending);
      return ref_before(keys[a], keys[b], options.order);
    });
    return idx;
  }
  constexpr unsigned bits = sizeof(K) * 8;
  const unsigned end = options.end_bit ? options.end_bit : bits, width = end - options.begin_bit;
  auto field = [&](K k) {
    const U c = U(clsort::encode_key(k, options.order == Order::descending) >> options.begin_bit);
    return width == bits ? c : U(c & U((U(1) << width) - 1));
  };
  std::stable_sort(idx.begin(), idx.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return field(keys[a]) < field(keys[b]); });
  return idx;
}

}  // namespace clsort_mpi_test
