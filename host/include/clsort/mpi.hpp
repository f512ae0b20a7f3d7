// clsort::mpi: one sort across the ranks of an MPI communicator, each rank sorting on its own device
// with its own clsort::Sorter (library clsort::clsort_mpi, pkg-config clsort-mpi; the core library has
// no MPI dependency).
//
//   #include <clsort/mpi.hpp>
//   MPI_Init(&argc, &argv);
//   clsort::Sorter sorter(clsort::mpi::local_device(MPI_COMM_WORLD));  // the node's GPUs by local rank
//   std::vector<std::uint64_t> keys = my_share();                      // any length on each rank
//   clsort::mpi::sort(MPI_COMM_WORLD, sorter, keys);                   // collective, blocking
//   // rank 0's keys, then rank 1's, ...: the stable sort of every rank's input, each rank keeping its count
//
// Semantics. Read the ranks' arrays in rank order, rank 0 first, as one array. After the call it holds the
// stable sort of the ranks' inputs read the same way, in the single-device order (clsort.hpp: by value;
// floats -0 before +0 and every NaN after +inf, NaNs ordered by their bits; descending its exact
// reverse; with a bit range, by the range's bits alone): keys that compare equal keep the order of (input
// rank, input position), and values move with their keys. With Balance::exact (the default) every rank
// ends with exactly as many keys as it gave, also when all keys are equal or sit on one rank; with
// Balance::any a rank may end with a few more or fewer (see Balance). Global counts are 64-bit: the ranks
// together may hold 2^32 keys and more.
//
// Every call is collective over `comm`: all its ranks call it with the same key type, value width,
// order, bit range and balance (checked: Error on every rank otherwise), and return together. Errors
// are collective too: a bad argument or an OpenCL failure on any rank makes the call throw clsort::Error
// on every rank, its message naming the rank that failed ("clsort::mpi: rank 1 of 4 failed: ...") and
// status(), kind() and where() those of that rank's error; no rank hangs, and every rank's data is as it
// was: the sort runs in scratch memory, and the caller's arrays are written only after every rank has
// reported success. (A failure of that last copy itself, a device loss, throws on that rank alone.)
//
// Each rank's Sorter may be on its own device or several ranks may share one (local_device() picks by
// node-local rank). Host data (std::vector) is sorted through the device. Device data (cl::Buffer on the
// Sorter's context) is sorted in device scratch and read into host memory for the splitter search and the
// exchange; what other ranks send comes back up, and the block a rank keeps stays on the device. Calls
// block until done and leave the Sorter's queue idle.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "clsort/clsort.hpp"

/// Marks what libclsort_mpi exports (built with hidden visibility like libclsort).
#ifndef CLSORT_MPI_API
#if defined(__GNUC__) && !defined(_WIN32)
#define CLSORT_MPI_API __attribute__((visibility("default")))
#else
#define CLSORT_MPI_API
#endif
#endif

namespace clsort::mpi {

/// How many keys each rank holds after the sort.
enum class Balance {
  /// Each rank ends with exactly as many keys as it gave: the splitters are the keys at the ranks'
  /// global positions, found exactly (ties broken by rank and position).
  exact,
  /// Each rank ends within N / (32 p) keys of its input count (N keys on p ranks): the splitter search
  /// stops as soon as each boundary between ranks is within N / (64 p) of its exact position, and a
  /// block of equal keys is split only where it must be. Saves search rounds (each one collective) at the
  /// price of
  /// unequal counts; host data only (a device buffer cannot change its count), std::vector resized.
  any
};

/// Options of a distributed sort: the single-device ones (order, algorithm, begin_bit/end_bit), which
/// every rank's sorts use, plus the balance. `{clsort::Order::descending}` initializes the order.
struct Options : clsort::Options {
  Balance balance = Balance::exact;
};

/// What one call did on this rank: phase times in milliseconds of wall time (the phases follow each
/// other on the calling thread, except where device transfers overlap the exchange) and counts.
struct Stats {
  double check_ms = 0;       ///< argument checks and the first agreement (a collective) of the ranks
  double local_sort_ms = 0;  ///< this rank's stable sort of its share (host data: with its transfers)
  double download_ms = 0;    ///< device data: the sorted share read into host memory (host data: 0)
  double splitters_ms = 0;   ///< the splitter search (collective rounds) and the count exchange
  double exchange_ms = 0;    ///< the all-to-all of keys and values between the ranks
  double upload_ms = 0;      ///< device data: what the rank received written to the device (host data: 0)
  double merge_ms = 0;       ///< the received runs sorted into one (a stable sort; host data: with transfers)
  double commit_ms = 0;      ///< the last agreement and the result written to the caller's data
  double total_ms = 0;       ///< the whole call
  unsigned rounds = 0;       ///< collective rounds of the splitter search (a tie split counts one)
  bool merged = false;       ///< false when the received runs were in order already and were not sorted
  std::uint64_t global_n = 0;              ///< keys on all ranks together
  std::uint64_t n_in = 0, n_out = 0;       ///< this rank's keys before and after
  std::vector<std::uint64_t> send_counts;  ///< keys sent to each rank (this one included)
  std::vector<std::uint64_t> recv_counts;  ///< keys received from each rank (this one included)
};

/// The device this rank should use: with CLSORT_DEVICE set, default_device() (the variable wins, as for
/// one process); otherwise the node's GPUs in platform order, the rank's node-local rank (its rank in
/// MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED)) modulo their count, so that ranks spread over a
/// node's GPUs and several share one when there are more ranks than GPUs; without a GPU,
/// default_device(). Collective over `comm`.
CLSORT_MPI_API cl::Device local_device(MPI_Comm comm);
/// This rank's rank among the ranks of `comm` on its node (MPI_COMM_TYPE_SHARED). Collective.
CLSORT_MPI_API int local_rank(MPI_Comm comm);

/// MPI_Alltoallv of `element_bytes`-byte elements with 64-bit counts, as the sort exchanges its data:
/// send_counts[i] elements go to rank i, taken from `send` in rank order (displacements are the prefix
/// sums), and recv_counts[i] come from rank i into `recv` likewise. Counts and displacements beyond
/// MPI's `int` travel through per-rank derived datatypes (MPI_Alltoallw), since MPI-4's large-count calls
/// are not in Open MPI 4.1. Collective; MPI errors are MPI's (by default they abort).
CLSORT_MPI_API void alltoallv(MPI_Comm comm, const void* send, const std::uint64_t* send_counts, void* recv,
                              const std::uint64_t* recv_counts, std::size_t element_bytes);

/// Frees the host and device buffers that sorts keep between calls (per OpenCL context: pinned host
/// memory for the transfers, device scratch). Not collective; call it when no sort runs.
CLSORT_MPI_API void release_buffers();

namespace detail {
/// A rank's host arrays for the type-erased entry point. `values_n` is the values' element count as
/// given (checked against n collectively). `resize` (may be null for Balance::exact) makes room for `n`
/// elements without changing the arrays (`reserve`), before the last agreement, and after it makes the
/// arrays hold `n` elements (which then cannot fail) and returns their addresses.
struct HostArrays {
  KeyType type = KeyType::u32;
  void* keys = nullptr;
  std::size_t n = 0;
  void* values = nullptr;
  std::size_t value_bytes = 0;  ///< 0: keys only
  std::size_t values_n = 0;
  void* owner = nullptr;
  void (*resize)(void* owner, std::size_t n, bool reserve, void** keys, void** values) = nullptr;
};
CLSORT_MPI_API Stats sort_host(MPI_Comm comm, Sorter& sorter, const HostArrays& data, const Options& options);
/// Device data: n keys of `type` in `keys`, values (may be null) of value_bytes in `values`.
CLSORT_MPI_API Stats sort_buffer(MPI_Comm comm, Sorter& sorter, KeyType type, const cl::Buffer& keys,
                                 const cl::Buffer* values, std::size_t value_bytes, std::size_t n,
                                 const Options& options);

template <class K, class V>
void resize_vectors(void* owner, std::size_t n, bool reserve, void** keys, void** values) {
  auto* v = static_cast<std::pair<std::vector<K>*, std::vector<V>*>*>(owner);
  if (reserve) {
    v->first->reserve(n);
    if (v->second) v->second->reserve(n);
    return;
  }
  v->first->resize(n);
  *keys = v->first->data();
  if (v->second) {
    v->second->resize(n);
    *values = v->second->data();
  }
}
}  // namespace detail

/// Sorts the keys of all ranks of `comm` (see the semantics above), each rank's share on `sorter`'s
/// device. Collective and blocking; returns this rank's Stats.
template <class K>
Stats sort(MPI_Comm comm, Sorter& sorter, std::vector<K>& keys, const Options& options = {}) {
  std::pair<std::vector<K>*, std::vector<unsigned char>*> owner{&keys, nullptr};
  detail::HostArrays a;
  a.type = key_type_of<K>::value;
  a.keys = keys.data();
  a.n = keys.size();
  a.owner = &owner;
  a.resize = &detail::resize_vectors<K, unsigned char>;
  return detail::sort_host(comm, sorter, a, options);
}

/// Sorts the keys of all ranks and moves each value with its key (stable). V is any trivially copyable
/// type, 1 byte or wider. values.size() must equal keys.size() on every rank (else Error on every rank).
template <class K, class V>
Stats sort_by_key(MPI_Comm comm, Sorter& sorter, std::vector<K>& keys, std::vector<V>& values,
                  const Options& options = {}) {
  static_assert(std::is_trivially_copyable<V>::value, "clsort values must be trivially copyable");
  std::pair<std::vector<K>*, std::vector<V>*> owner{&keys, &values};
  detail::HostArrays a;
  a.type = key_type_of<K>::value;
  a.keys = keys.data();
  a.n = keys.size();
  a.values = values.data();
  a.value_bytes = sizeof(V);
  a.values_n = values.size();
  a.owner = &owner;
  a.resize = &detail::resize_vectors<K, V>;
  return detail::sort_host(comm, sorter, a, options);
}

/// Sorts the first n keys (of K) of `keys` on every rank, a buffer of `sorter`'s context (null allowed
/// where n is 0), in place: each rank's first n keys afterwards are its part of the global order, and
/// bytes past n are not touched. Balance::exact only. Collective and blocking; the keys stay on the
/// device except those that change rank.
template <class K>
Stats sort(MPI_Comm comm, Sorter& sorter, const cl::Buffer& keys, std::size_t n,
           const Options& options = {}) {
  return detail::sort_buffer(comm, sorter, key_type_of<K>::value, keys, nullptr, 0, n, options);
}

/// Like sort(comm, sorter, keys, n), moving the first n values (of V) with their keys (stable). Keys and
/// values must be different buffers.
template <class K, class V>
Stats sort_by_key(MPI_Comm comm, Sorter& sorter, const cl::Buffer& keys, const cl::Buffer& values,
                  std::size_t n, const Options& options = {}) {
  static_assert(std::is_trivially_copyable<V>::value, "clsort values must be trivially copyable");
  return detail::sort_buffer(comm, sorter, key_type_of<K>::value, keys, &values, sizeof(V), n, options);
}

}  // namespace clsort::mpi
