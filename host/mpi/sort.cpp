// The distributed sorts of clsort::mpi, host data and device data, from the checks to the commit
// (docs/design.md, "Sorting across ranks (MPI)"). Each rank sorts its share stably on its device, the
// ranks find where every sorted run splits between them (splitters.cpp), exchange the pieces in one
// all-to-all (exchange.cpp), and each rank sorts what it received stably: the pieces arrive in source-rank
// order, so keys equal across ranks keep their (rank, position) order. Agreement rounds (agreement.hpp)
// stand between the local steps, and the caller's data is written only after the last one.
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <deque>
#include <optional>
#include <system_error>
#include <thread>

#include "agreement.hpp"
#include "clsort/mpi.hpp"
#include "exchange.hpp"
#include "mpi_check.hpp"
#include "splitters.hpp"
#include "testing.hpp"
#include "workspace.hpp"

namespace clsort::mpi {
namespace detail {
namespace {

using Clock = std::chrono::steady_clock;

/// Wall time of consecutive phases.
class Laps {
 public:
  /// Milliseconds since the previous lap (or the start).
  double lap() {
    const Clock::time_point now = Clock::now();
    const double ms = std::chrono::duration<double, std::milli>(now - last_).count();
    last_ = now;
    return ms;
  }
  double total() const { return std::chrono::duration<double, std::milli>(Clock::now() - start_).count(); }

 private:
  Clock::time_point start_ = Clock::now(), last_ = start_;
};

/// The communicator's shape; refuses what no collective could run on. Every rank of a valid
/// communicator sees the same answer, so these throw alike on every rank without an agreement.
struct Ranks {
  MPI_Comm comm;
  int rank = 0, size = 1;
};
Ranks ranks_of(MPI_Comm comm) {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (!initialized || finalized) throw_invalid("comm", "MPI is not initialized (or already finalized)");
  if (comm == MPI_COMM_NULL) throw_invalid("comm", "MPI_COMM_NULL");
  int inter = 0;
  check_mpi(MPI_Comm_test_inter(comm, &inter), "MPI_Comm_test_inter");
  if (inter) throw_invalid("comm", "an inter-communicator (the sort runs on an intra-communicator)");
  Ranks r{comm};
  check_mpi(MPI_Comm_rank(comm, &r.rank), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(comm, &r.size), "MPI_Comm_size");
  return r;
}

/// What every rank must pass alike.
std::vector<Field> shape_of(KeyType type, std::size_t value_bytes, const Options& o, bool device) {
  return {{"key type", std::int64_t(type)},           {"value bytes", std::int64_t(value_bytes)},
          {"order", std::int64_t(o.order)},           {"begin_bit", std::int64_t(o.begin_bit)},
          {"end_bit", std::int64_t(o.end_bit)},       {"balance", std::int64_t(o.balance)},
          {"data (host 0, device 1)", device ? 1 : 0}};
}

/// The single-device checks of a bit range, made here too, since a rank with no keys may never reach
/// them in its own sort.
void check_options(KeyType type, const Options& o) {
  const unsigned bits = unsigned(key_size(type)) * 8;
  if (o.begin_bit == 0 && o.end_bit == 0) return;
  const unsigned end = o.end_bit ? o.end_bit : bits;
  if (o.end_bit > bits)
    throw_invalid("end_bit", std::to_string(o.end_bit) + " is past the " + std::to_string(bits) +
                                 " bits of " + to_string(type) + " keys");
  if (o.begin_bit >= end)
    throw_invalid("begin_bit", std::to_string(o.begin_bit) + " is not below end_bit " + std::to_string(end) +
                                   " (the range of bits to sort by is empty)");
  if (o.algorithm != Algorithm::automatic && o.algorithm != Algorithm::radix)
    throw_invalid("algorithm", std::string("a bit range (begin_bit, end_bit) needs radix sort, not ") +
                                   to_string(o.algorithm));
}

void inject(FaultPhase phase, int rank) {
  const Testing& t = testing();
  if (t.fault_phase == phase && t.fault_rank == rank)
    throw Error(CL_OUT_OF_RESOURCES, "clEnqueueNDRangeKernel",
                "clsort: OpenCL call failed with CL_OUT_OF_RESOURCES (-5): clEnqueueNDRangeKernel "
                "(injected by the test knob)");
}

/// Threads for host copies: the cores this process may run on (mpirun binds ranks), at most 8.
unsigned copy_threads() {
  cpu_set_t set;
  CPU_ZERO(&set);
  int cores = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 0;
  if (cores <= 0) cores = int(std::max(1u, std::thread::hardware_concurrency()));
  return unsigned(std::min(cores, 8));
}

/// memcpy by several threads for large copies: one thread copies about 8 GB/s out of pageable memory.
void copy_bytes(void* to, const void* from, std::size_t bytes) {
  constexpr std::size_t kSerial = std::size_t(8) << 20;
  const unsigned threads =
      bytes < 2 * kSerial ? 1u : unsigned(std::min<std::size_t>(copy_threads(), bytes / kSerial));
  if (threads <= 1) {
    if (bytes) std::memcpy(to, from, bytes);
    return;
  }
  const std::size_t part = (bytes / threads + 4095) / 4096 * 4096;
  std::vector<std::thread> pool;
  auto copy = [&](std::size_t i) {
    const std::size_t begin = std::min(bytes, i * part), end = std::min(bytes, begin + part);
    if (end > begin)
      std::memcpy(static_cast<char*>(to) + begin, static_cast<const char*>(from) + begin, end - begin);
  };
  unsigned i = 1;
  try {
    for (; i < threads; ++i) pool.emplace_back(copy, i);
  } catch (const std::system_error&) {
    for (; i < threads; ++i) copy(i);  // no thread to be had: this one copies the rest
  }
  copy(0);
  for (std::thread& t : pool) t.join();
}

std::vector<std::uint64_t> gather_counts(const Ranks& r, std::uint64_t n) {
  std::vector<std::uint64_t> counts(std::size_t(r.size));
  check_mpi(MPI_Allgather(&n, 1, MPI_UINT64_T, counts.data(), 1, MPI_UINT64_T, r.comm), "MPI_Allgather");
  return counts;
}

std::vector<std::uint64_t> swap_counts(const Ranks& r, const std::vector<std::uint64_t>& send) {
  std::vector<std::uint64_t> recv(send.size());
  check_mpi(MPI_Alltoall(send.data(), 1, MPI_UINT64_T, recv.data(), 1, MPI_UINT64_T, r.comm), "MPI_Alltoall");
  return recv;
}

std::uint64_t sum(const std::vector<std::uint64_t>& v) {
  std::uint64_t s = 0;
  for (std::uint64_t x : v) s += x;
  return s;
}

/// One received run: `count` codes of `codes` from `offset`.
struct Received {
  const SortedCodes* codes;
  std::uint64_t offset, count;
};
/// Whether the received runs, read one after the other, are sorted already (each run's last code at
/// most the next one's first): then nothing needs sorting, as with input that was in order across ranks.
bool in_order(const std::vector<Received>& runs) {
  bool have = false;
  std::uint64_t last = 0;
  for (const Received& r : runs) {
    if (!r.count) continue;
    if (have && r.codes->code(std::size_t(r.offset)) < last) return false;
    last = r.codes->code(std::size_t(r.offset + r.count - 1));
    have = true;
  }
  return true;
}

/// Events of commands that may still run; waited for on every way out, so that nothing touches a
/// workspace or the caller's buffers after the call returns or throws.
class Pending {
 public:
  Pending() = default;
  Pending(const Pending&) = delete;
  Pending& operator=(const Pending&) = delete;
  ~Pending() {
    for (cl::Event& e : events_)
      if (e()) e.wait();
  }
  cl::Event* add() {
    events_.emplace_back();
    return &events_.back();
  }
  void wait(cl::Event& e) { check_cl(e.wait(), "clWaitForEvents"); }

 private:
  std::deque<cl::Event> events_;
};

std::uint64_t tolerance_of(const Options& o, std::uint64_t total, int ranks) {
  return o.balance == Balance::any ? total / (64 * std::uint64_t(ranks)) : 0;
}

}  // namespace

// ---- Host data ---------------------------------------------------------------------------------------
Stats sort_host(MPI_Comm comm, Sorter& sorter, const HostArrays& d, const Options& o) {
  const Ranks r = ranks_of(comm);
  Laps laps;
  Stats st;
  st.n_in = d.n;
  // value_bytes says whether there are values: an empty vector's data() may be null.
  const std::size_t kb = key_size(d.type), vb = d.value_bytes, n = d.n;
  Agreement agreement(r.comm, r.rank, r.size);

  agreement.attempt([&] {
    check_options(d.type, o);
    if (vb && d.values_n != n)
      throw_invalid("values",
                    "has " + std::to_string(d.values_n) + " elements but keys has " + std::to_string(n));
    if (o.balance != Balance::exact && !d.resize)
      throw_invalid("balance", "Balance::any needs arrays that resize");
  });
  agreement.agree(shape_of(d.type, vb, o, false));
  st.check_ms = laps.lap();

  if (r.size == 1) {
    // One rank: the single-device sort, which leaves the data unchanged when it throws.
    agreement.attempt([&] {
      inject(FaultPhase::local_sort, r.rank);
      sorter.sort_host(d.type, d.keys, n, d.values, vb, o);
    });
    agreement.agree();
    st.local_sort_ms = laps.lap();
    st.global_n = st.n_out = n;
    st.send_counts = st.recv_counts = {n};
    st.total_ms = laps.total();
    return st;
  }

  // The local sort into scratch: the caller's arrays stay as they are until the commit.
  std::optional<Lease> ws;
  unsigned char *sorted_keys = nullptr, *sorted_values = nullptr;
  agreement.attempt([&] {
    ws.emplace(sorter.context());
    sorted_keys = (*ws)->host(0, n * kb);
    if (vb) sorted_values = (*ws)->host(1, n * vb);
    inject(FaultPhase::local_sort, r.rank);
    if (vb) {
      copy_bytes(sorted_keys, d.keys, n * kb);
      copy_bytes(sorted_values, d.values, n * vb);
      sorter.sort_host(d.type, sorted_keys, n, sorted_values, vb, o);
    } else {
      sorter.sort_copy_host(d.type, d.keys, sorted_keys, n, o);
    }
  });
  agreement.agree();
  st.local_sort_ms = laps.lap();

  const std::vector<std::uint64_t> counts = gather_counts(r, n);
  st.global_n = sum(counts);
  const auto mine = sorted_codes(d.type, sorted_keys, n, o);
  Cuts cuts = find_cuts(r.comm, r.rank, *mine, counts, o.balance, tolerance_of(o, st.global_n, r.size));
  st.rounds = cuts.rounds;
  st.send_counts = std::move(cuts.send_counts);
  st.recv_counts = swap_counts(r, st.send_counts);
  st.n_out = sum(st.recv_counts);
  st.splitters_ms = laps.lap();

  unsigned char *keys = nullptr, *values = nullptr;
  agreement.attempt([&] {
    keys = (*ws)->host(2, st.n_out * kb);
    if (vb) values = (*ws)->host(3, st.n_out * vb);
  });
  agreement.agree();
  alltoallv(r.comm, sorted_keys, st.send_counts.data(), keys, st.recv_counts.data(), kb);
  if (vb) alltoallv(r.comm, sorted_values, st.send_counts.data(), values, st.recv_counts.data(), vb);
  st.exchange_ms = laps.lap();

  agreement.attempt([&] {
    const auto received = sorted_codes(d.type, keys, st.n_out, o);
    std::vector<Received> runs;
    std::uint64_t offset = 0;
    for (std::uint64_t c : st.recv_counts) {
      runs.push_back({received.get(), offset, c});
      offset += c;
    }
    st.merged = !in_order(runs);
    inject(FaultPhase::merge, r.rank);
    if (st.merged) sorter.sort_host(d.type, keys, st.n_out, values, vb, o);
    // Growing arrays allocate now, so that the commit cannot fail.
    if (st.n_out > n) d.resize(d.owner, st.n_out, true, nullptr, nullptr);
  });
  agreement.agree();
  st.merge_ms = laps.lap();

  // Commit: every rank succeeded.
  void* out_keys = d.keys;
  void* out_values = d.values;
  if (st.n_out != n) d.resize(d.owner, st.n_out, false, &out_keys, &out_values);
  copy_bytes(out_keys, keys, st.n_out * kb);
  if (vb) copy_bytes(out_values, values, st.n_out * vb);
  st.commit_ms = laps.lap();
  st.total_ms = laps.total();
  return st;
}

// ---- Device data -------------------------------------------------------------------------------------
namespace {

/// The bytes a buffer covers within its parent allocation, to refuse keys and values that overlap.
struct Region {
  cl_mem parent;
  std::size_t begin, end;
};
Region region_of(const cl::Buffer& b, std::size_t bytes) {
  cl_mem parent = nullptr;
  std::size_t offset = 0;
  check_cl(b.getInfo(CL_MEM_ASSOCIATED_MEMOBJECT, &parent), "clGetMemObjectInfo");
  if (!parent) return {b(), 0, bytes};
  check_cl(b.getInfo(CL_MEM_OFFSET, &offset), "clGetMemObjectInfo");
  return {parent, offset, offset + bytes};
}

void check_buffer(const Sorter& sorter, const cl::Buffer& b, const char* name, std::size_t n,
                  std::size_t size) {
  if (!b()) {
    if (n == 0) return;
    throw_invalid(name, "null cl::Buffer");
  }
  cl::Context context;
  check_cl(b.getInfo(CL_MEM_CONTEXT, &context), "clGetMemObjectInfo");
  if (context() != sorter.context()()) throw_invalid(name, "buffer belongs to another OpenCL context");
  std::size_t bytes = 0;
  check_cl(b.getInfo(CL_MEM_SIZE, &bytes), "clGetMemObjectInfo");
  if (n > bytes / size)
    throw_invalid(name,
                  "holds " + std::to_string(bytes / size) + " elements, fewer than n = " + std::to_string(n));
}

}  // namespace

Stats sort_buffer(MPI_Comm comm, Sorter& sorter, KeyType type, const cl::Buffer& user_keys,
                  const cl::Buffer* user_values, std::size_t value_bytes, std::size_t n, const Options& o) {
  const Ranks r = ranks_of(comm);
  Laps laps;
  Stats st;
  st.n_in = n;
  const std::size_t kb = key_size(type), vb = user_values ? value_bytes : 0;
  const cl::CommandQueue& queue = sorter.queue();
  Agreement agreement(r.comm, r.rank, r.size);

  agreement.attempt([&] {
    check_options(type, o);
    if (o.balance != Balance::exact)
      throw_invalid("balance", "device buffers keep their count: Balance::exact only");
    check_buffer(sorter, user_keys, "keys", n, kb);
    if (user_values) {
      if (vb == 0) throw_invalid("value_bytes", "0 (values are 1 byte or wider)");
      check_buffer(sorter, *user_values, "values", n, vb);
      if (n && user_keys() && (*user_values)()) {
        const Region a = region_of(user_keys, n * kb), b = region_of(*user_values, n * vb);
        if (a.parent == b.parent && a.begin < b.end && b.begin < a.end)
          throw_invalid("values", "overlaps the keys");
      }
    }
  });
  agreement.agree(shape_of(type, vb, o, true));
  st.check_ms = laps.lap();

  // Declared before `pending`, so that the workspace goes back to the pool only once nothing runs on it.
  std::optional<Lease> ws;
  Pending pending;
  if (r.size == 1) {
    agreement.attempt([&] {
      inject(FaultPhase::local_sort, r.rank);
      if (!n) return;
      cl::Event done = sorter.sort_buffer(type, user_keys, user_values, vb, n, o, {});
      *pending.add() = done;
      pending.wait(done);
    });
    agreement.agree();
    st.local_sort_ms = laps.lap();
    st.global_n = st.n_out = n;
    st.send_counts = st.recv_counts = {n};
    st.total_ms = laps.total();
    return st;
  }

  // The local sort in device scratch, then the sorted share into pinned host memory. The values' read
  // goes on while the keys are searched and exchanged.
  cl::Buffer keys, values;                                     // the sorted share on the device
  unsigned char *host_keys = nullptr, *host_values = nullptr;  // and in host memory
  cl::Event values_read;
  agreement.attempt([&] {
    ws.emplace(sorter.context());
    keys = (*ws)->device(0, n * kb);
    host_keys = (*ws)->pinned(0, n * kb, queue);
    if (vb) {
      values = (*ws)->device(1, n * vb);
      host_values = (*ws)->pinned(1, n * vb, queue);
    }
    inject(FaultPhase::local_sort, r.rank);
    if (!n) return;
    std::vector<cl::Event> copied(1);
    check_cl(queue.enqueueCopyBuffer(user_keys, keys, 0, 0, n * kb, nullptr, &copied[0]),
             "clEnqueueCopyBuffer");
    *pending.add() = copied[0];
    if (vb) {
      copied.emplace_back();
      check_cl(queue.enqueueCopyBuffer(*user_values, values, 0, 0, n * vb, nullptr, &copied[1]),
               "clEnqueueCopyBuffer");
      *pending.add() = copied[1];
    }
    const std::vector<cl::Event> sorted{
        sorter.sort_buffer(type, keys, vb ? &values : nullptr, vb, n, o, copied)};
    *pending.add() = sorted[0];
    cl::Event* keys_read = pending.add();
    check_cl(queue.enqueueReadBuffer(keys, CL_FALSE, 0, n * kb, host_keys, &sorted, keys_read),
             "clEnqueueReadBuffer");
    if (vb) {
      check_cl(queue.enqueueReadBuffer(values, CL_FALSE, 0, n * vb, host_values, &sorted, &values_read),
               "clEnqueueReadBuffer");
      *pending.add() = values_read;
    }
    check_cl(queue.flush(), "clFlush");
    cl::Event done = sorted[0];
    pending.wait(done);
    st.local_sort_ms = laps.lap();
    pending.wait(*keys_read);
  });
  agreement.agree();
  st.download_ms = laps.lap();

  const std::vector<std::uint64_t> counts = gather_counts(r, n);
  st.global_n = sum(counts);
  const auto mine = sorted_codes(type, host_keys, n, o);
  Cuts cuts = find_cuts(r.comm, r.rank, *mine, counts, o.balance, 0);
  st.rounds = cuts.rounds;
  st.send_counts = std::move(cuts.send_counts);
  st.recv_counts = swap_counts(r, st.send_counts);
  st.n_out = sum(st.recv_counts);
  st.splitters_ms = laps.lap();

  // The block a rank keeps stays on the device: MPI moves the others, with a hole where it goes.
  const std::size_t self = std::size_t(r.rank);
  const std::vector<std::uint64_t> send_at =
      packed_displacements(st.send_counts.data(), st.send_counts.size());
  const std::vector<std::uint64_t> recv_at =
      packed_displacements(st.recv_counts.data(), st.recv_counts.size());
  std::vector<std::uint64_t> send_counts = st.send_counts, recv_counts = st.recv_counts;
  send_counts[self] = recv_counts[self] = 0;
  cl::Buffer merged_keys, merged_values;
  unsigned char *recv_keys = nullptr, *recv_values = nullptr;
  agreement.attempt([&] {
    if (st.n_out != n)
      throw Error(CL_INVALID_OPERATION, "clsort::mpi", "clsort::mpi: received a wrong count");
    merged_keys = (*ws)->device(2, n * kb);
    recv_keys = (*ws)->pinned(2, n * kb, queue);
    if (vb) {
      merged_values = (*ws)->device(3, n * vb);
      recv_values = (*ws)->pinned(3, n * vb, queue);
    }
  });
  agreement.agree();

  // Uploads of what arrived, before and after the hole, and the kept block copied on the device.
  std::vector<cl::Event> uploaded;
  auto upload = [&](const cl::Buffer& to, const unsigned char* from, const cl::Buffer& kept,
                    std::size_t bytes) {
    const std::uint64_t hole = recv_at[self], kept_n = st.recv_counts[self];
    if (hole) {
      uploaded.emplace_back();
      check_cl(queue.enqueueWriteBuffer(to, CL_FALSE, 0, hole * bytes, from, nullptr, &uploaded.back()),
               "clEnqueueWriteBuffer");
      *pending.add() = uploaded.back();
    }
    if (n > hole + kept_n) {
      const std::size_t at = std::size_t(hole + kept_n) * bytes;
      uploaded.emplace_back();
      check_cl(
          queue.enqueueWriteBuffer(to, CL_FALSE, at, n * bytes - at, from + at, nullptr, &uploaded.back()),
          "clEnqueueWriteBuffer");
      *pending.add() = uploaded.back();
    }
    if (kept_n) {
      uploaded.emplace_back();
      check_cl(queue.enqueueCopyBuffer(kept, to, send_at[self] * bytes, hole * bytes, kept_n * bytes, nullptr,
                                       &uploaded.back()),
               "clEnqueueCopyBuffer");
      *pending.add() = uploaded.back();
    }
    check_cl(queue.flush(), "clFlush");
  };
  exchange(r.comm, host_keys, send_counts.data(), send_at.data(), recv_keys, recv_counts.data(),
           recv_at.data(), kb);
  agreement.attempt([&] { upload(merged_keys, recv_keys, keys, kb); });
  if (vb) {
    agreement.attempt([&] {
      if (values_read()) pending.wait(values_read);
    });
    exchange(r.comm, host_values, send_counts.data(), send_at.data(), recv_values, recv_counts.data(),
             recv_at.data(), vb);
    agreement.attempt([&] { upload(merged_values, recv_values, values, vb); });
  }
  st.exchange_ms = laps.lap();

  agreement.attempt([&] {
    for (cl::Event& e : uploaded) pending.wait(e);
    st.upload_ms = laps.lap();
    const auto received = sorted_codes(type, recv_keys, n, o);
    std::vector<Received> runs;
    for (std::size_t i = 0; i < st.recv_counts.size(); ++i)
      runs.push_back(i == self ? Received{mine.get(), send_at[self], st.recv_counts[i]}
                               : Received{received.get(), recv_at[i], st.recv_counts[i]});
    st.merged = !in_order(runs);
    inject(FaultPhase::merge, r.rank);
    if (st.merged) {
      cl::Event done = sorter.sort_buffer(type, merged_keys, vb ? &merged_values : nullptr, vb, n, o, {});
      *pending.add() = done;
      pending.wait(done);
    }
  });
  agreement.agree();
  st.merge_ms = laps.lap();

  // Commit: every rank succeeded.
  if (n) {
    cl::Event* k = pending.add();
    check_cl(queue.enqueueCopyBuffer(merged_keys, user_keys, 0, 0, n * kb, nullptr, k),
             "clEnqueueCopyBuffer");
    if (vb) {
      cl::Event* v = pending.add();
      check_cl(queue.enqueueCopyBuffer(merged_values, *user_values, 0, 0, n * vb, nullptr, v),
               "clEnqueueCopyBuffer");
      pending.wait(*v);
    }
    pending.wait(*k);
  }
  st.commit_ms = laps.lap();
  st.total_ms = laps.total();
  return st;
}

}  // namespace detail

void release_buffers() {
  detail::release_idle_workspaces();
}

}  // namespace clsort::mpi
