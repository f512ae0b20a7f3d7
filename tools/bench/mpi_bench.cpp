// `mpirun -np P clsort bench --mpi`: clsort::mpi's sort of each rank's share, phase by phase, against
// floors measured in the same run on the same ranks: each rank's local sort of its share, and the
// exchange floor: the sorted share read to pinned host memory, the same MPI_Alltoallv of the same bytes
// (the counts the sort sent), and what arrived written back to the device, nothing else. Every time is
// the slowest rank's (a collective call ends when its last rank does), the median of the repetitions.
#include <clsort/key_transform.hpp>
#include <clsort/mpi.hpp>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <memory>

#include "../cli/mpi_commands.hpp"

namespace clsort_cli {
namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

/// Each of `v` as the slowest rank saw it.
std::vector<double> slowest(const MpiRun& run, std::vector<double> v) {
  MPI_Allreduce(MPI_IN_PLACE, v.data(), int(v.size()), MPI_DOUBLE, MPI_MAX, run.comm);
  return v;
}

/// Pinned host memory for the exchange floor: a mapped CL_MEM_ALLOC_HOST_PTR buffer, as the sort uses.
class Pinned {
 public:
  Pinned(const clsort::Sorter& sorter, std::size_t bytes) : queue_(sorter.queue()) {
    cl_int status = CL_SUCCESS;
    buffer_ = cl::Buffer(sorter.context(), CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR,
                         std::max<std::size_t>(bytes, 64), nullptr, &status);
    check_cl(status, "clCreateBuffer");
    data_ = static_cast<unsigned char*>(queue_.enqueueMapBuffer(buffer_, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE,
                                                                0, std::max<std::size_t>(bytes, 64), nullptr,
                                                                nullptr, &status));
    check_cl(status, "clEnqueueMapBuffer");
  }
  Pinned(const Pinned&) = delete;
  Pinned& operator=(const Pinned&) = delete;
  ~Pinned() {
    cl::Event e;
    if (queue_.enqueueUnmapMemObject(buffer_, data_, nullptr, &e) == CL_SUCCESS) e.wait();
  }
  unsigned char* data() const { return data_; }

 private:
  cl::CommandQueue queue_;
  cl::Buffer buffer_;
  unsigned char* data_ = nullptr;
};

/// The phases of one call, in Stats order, then the call's wall time.
std::vector<double> phases_of(const clsort::mpi::Stats& s, double wall_ms) {
  return {s.check_ms,  s.local_sort_ms, s.download_ms, s.splitters_ms, s.exchange_ms,
          s.upload_ms, s.merge_ms,      s.commit_ms,   wall_ms};
}

struct Row {
  std::string type, values;
  std::size_t n = 0;
  int ranks = 1;
  std::vector<double> phases;  // medians of phases_of
  double floor_local = 0, floor_exchange = 0;
  unsigned rounds = 0;
  std::uint64_t moved = 0;  // keys that changed rank, all ranks together
  bool verified = false;
  double total() const { return phases.back(); }
  double ratio() const { return total() / (floor_local + floor_exchange); }
};

/// A checksum of (key, value) pairs that no reordering changes and a lost or unpaired element does.
std::uint64_t mix(std::uint64_t key, std::uint64_t value) {
  std::uint64_t z = key * 0x9e3779b97f4a7c15ull ^ (value + 0x632be59bd9b4e019ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/// Whether the ranks' keys (and values) after the sort are the sorted input: each rank in order, each
/// rank's last key at most the next non-empty rank's first, the same count, the same checksum of pairs.
template <class K>
bool verify(const MpiRun& run, const std::vector<unsigned char>& in_keys,
            const std::vector<unsigned char>& in_values, const std::vector<unsigned char>& out_keys,
            const std::vector<unsigned char>& out_values, std::size_t vb) {
  using U = clsort::key_bits_t<K>;
  const std::size_t n = in_keys.size() / sizeof(K);
  auto value_at = [&](const std::vector<unsigned char>& v, std::size_t i) {
    std::uint64_t x = 0;
    if (vb) std::memcpy(&x, v.data() + i * vb, vb);
    return x;
  };
  auto key_at = [&](const std::vector<unsigned char>& v, std::size_t i) {
    K k;
    std::memcpy(&k, v.data() + i * sizeof(K), sizeof(K));
    return k;
  };
  std::uint64_t sums[2] = {0, 0};
  int ok = out_keys.size() == in_keys.size();
  for (std::size_t i = 0; i < n; ++i) {
    sums[0] += mix(std::uint64_t(U(clsort::encode_key(key_at(in_keys, i)))), value_at(in_values, i));
    if (!ok) continue;
    const U code = clsort::encode_key(key_at(out_keys, i));
    sums[1] += mix(std::uint64_t(code), value_at(out_values, i));
    if (i && code < clsort::encode_key(key_at(out_keys, i - 1))) ok = 0;
  }
  MPI_Allreduce(MPI_IN_PLACE, sums, 2, MPI_UINT64_T, MPI_SUM, run.comm);
  // (has keys, first code, last code) of every rank.
  std::uint64_t edge[3] = {n > 0, n ? std::uint64_t(clsort::encode_key(key_at(out_keys, 0))) : 0,
                           n ? std::uint64_t(clsort::encode_key(key_at(out_keys, n - 1))) : 0};
  std::vector<std::uint64_t> edges(3 * std::size_t(run.size));
  MPI_Allgather(edge, 3, MPI_UINT64_T, edges.data(), 3, MPI_UINT64_T, run.comm);
  bool have = false;
  std::uint64_t last = 0;
  for (int i = 0; i < run.size; ++i) {
    const std::uint64_t* e = &edges[3 * std::size_t(i)];
    if (!e[0]) continue;
    if (have && e[1] < last) ok = 0;
    last = e[2];
    have = true;
  }
  if (sums[0] != sums[1]) ok = 0;
  MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, run.comm);
  return ok != 0;
}

/// One (type, values, n): the warm-up (verified), the timed sorts and the floors.
template <class K>
Row measure(const MpiRun& run, clsort::Sorter& sorter, const MpiBenchArgs& a, std::size_t n, std::size_t vb) {
  const clsort::KeyType type = clsort::key_type_of<K>::value;
  const std::size_t kb = sizeof(K);
  const bool device = a.data == "device";
  const cl::CommandQueue& queue = sorter.queue();
  Row row;
  row.type = clsort::to_string(type);
  row.values = vb ? "u" + std::to_string(vb * 8) : "none";
  row.n = n;
  row.ranks = run.size;

  // Each rank's keys and values: its own random keys, values naming the global input position.
  const std::vector<unsigned char> keys = random_keys(type, n, a.seed * 7919 + unsigned(run.rank), false);
  std::vector<unsigned char> values(n * vb);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t v = std::uint64_t(run.rank) * n + i;
    std::memcpy(values.data() + i * vb, &v, vb);
  }
  std::vector<unsigned char> work_keys, work_values;
  cl::Buffer pristine_keys, pristine_values, work_kbuf, work_vbuf;
  auto buffer = [&](const std::vector<unsigned char>* from, std::size_t bytes) {
    return from ? cl::Buffer(sorter.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                             std::max<std::size_t>(bytes, 64),
                             bytes ? const_cast<unsigned char*>(from->data()) : nullptr)
                : cl::Buffer(sorter.context(), CL_MEM_READ_WRITE, std::max<std::size_t>(bytes, 64));
  };
  if (device) {
    pristine_keys = n ? buffer(&keys, n * kb) : buffer(nullptr, 0);
    work_kbuf = buffer(nullptr, n * kb);
    if (vb) {
      pristine_values = n ? buffer(&values, n * vb) : buffer(nullptr, 0);
      work_vbuf = buffer(nullptr, n * vb);
    }
  }
  // The input again, untimed, before each timed call.
  auto reset = [&] {
    if (device) {
      if (n) {
        queue.enqueueCopyBuffer(pristine_keys, work_kbuf, 0, 0, n * kb);
        if (vb) queue.enqueueCopyBuffer(pristine_values, work_vbuf, 0, 0, n * vb);
        cl::Event e;
        queue.enqueueMarkerWithWaitList(nullptr, &e);
        e.wait();
      }
    } else {
      work_keys = keys;
      work_values = values;
    }
    MPI_Barrier(run.comm);
  };
  clsort::mpi::Options options;
  auto sort = [&] {
    if (device)
      return clsort::mpi::detail::sort_buffer(run.comm, sorter, type, work_kbuf, vb ? &work_vbuf : nullptr,
                                              vb, n, options);
    clsort::mpi::detail::HostArrays h;
    h.type = type;
    h.keys = work_keys.data();
    h.n = n;
    h.values = vb ? work_values.data() : nullptr;
    h.value_bytes = vb;
    h.values_n = n;
    return clsort::mpi::detail::sort_host(run.comm, sorter, h, options);
  };

  // Warm-up: programs, workspace, pinned memory; its result is verified.
  reset();
  clsort::mpi::Stats st = sort();
  {
    std::vector<unsigned char> out_keys = work_keys, out_values = work_values;
    if (device) {
      out_keys.resize(n * kb);
      out_values.resize(n * vb);
      if (n) queue.enqueueReadBuffer(work_kbuf, CL_TRUE, 0, n * kb, out_keys.data());
      if (n && vb) queue.enqueueReadBuffer(work_vbuf, CL_TRUE, 0, n * vb, out_values.data());
    }
    row.verified = verify<K>(run, keys, values, out_keys, out_values, vb);
  }
  std::uint64_t moved = 0;
  for (std::size_t i = 0; i < st.send_counts.size(); ++i)
    if (int(i) != run.rank) moved += st.send_counts[i];
  MPI_Allreduce(&moved, &row.moved, 1, MPI_UINT64_T, MPI_SUM, run.comm);
  row.rounds = st.rounds;

  std::vector<std::vector<double>> runs;
  for (int rep = 0; rep < a.reps; ++rep) {
    reset();
    const auto t = Clock::now();
    st = sort();
    runs.push_back(slowest(run, phases_of(st, ms_since(t))));
  }
  row.phases.assign(runs[0].size(), 0);
  for (std::size_t c = 0; c < row.phases.size(); ++c) {
    std::vector<double> column;
    for (const auto& r : runs) column.push_back(r[c]);
    row.phases[c] = median(column);
  }

  // Floor 1: each rank's sort of its own share, all ranks at once as in the distributed sort.
  std::vector<double> local;
  for (int rep = 0; rep < a.reps; ++rep) {
    reset();
    const auto t = Clock::now();
    if (device) {
      if (n) sorter.sort_buffer(type, work_kbuf, vb ? &work_vbuf : nullptr, vb, n, options, {}).wait();
    } else {
      sorter.sort_host(type, work_keys.data(), n, vb ? work_values.data() : nullptr, vb, options);
    }
    local.push_back(slowest(run, {ms_since(t)})[0]);
  }
  row.floor_local = median(local);

  // Floor 2: the exchange alone, with the counts the sort sent: device to pinned host memory, the
  // all-to-all, pinned host memory to the device (host data: the all-to-all alone).
  std::uint64_t received = 0;
  for (std::uint64_t c : st.recv_counts) received += c;
  {
    std::unique_ptr<Pinned> send_keys, send_values, recv_keys, recv_values;
    std::vector<unsigned char> host_recv_keys, host_recv_values;
    if (device) {
      send_keys = std::make_unique<Pinned>(sorter, n * kb);
      recv_keys = std::make_unique<Pinned>(sorter, received * kb);
      if (vb) {
        send_values = std::make_unique<Pinned>(sorter, n * vb);
        recv_values = std::make_unique<Pinned>(sorter, received * vb);
      }
    } else {
      host_recv_keys.resize(received * kb);
      host_recv_values.resize(received * vb);
    }
    std::vector<double> exchange;
    for (int rep = 0; rep < a.reps; ++rep) {
      reset();
      const auto t = Clock::now();
      if (device) {
        if (n) queue.enqueueReadBuffer(work_kbuf, CL_TRUE, 0, n * kb, send_keys->data());
        if (n && vb) queue.enqueueReadBuffer(work_vbuf, CL_TRUE, 0, n * vb, send_values->data());
        clsort::mpi::alltoallv(run.comm, send_keys->data(), st.send_counts.data(), recv_keys->data(),
                               st.recv_counts.data(), kb);
        if (vb)
          clsort::mpi::alltoallv(run.comm, send_values->data(), st.send_counts.data(), recv_values->data(),
                                 st.recv_counts.data(), vb);
        if (received) queue.enqueueWriteBuffer(work_kbuf, CL_TRUE, 0, received * kb, recv_keys->data());
        if (received && vb)
          queue.enqueueWriteBuffer(work_vbuf, CL_TRUE, 0, received * vb, recv_values->data());
      } else {
        clsort::mpi::alltoallv(run.comm, work_keys.data(), st.send_counts.data(), host_recv_keys.data(),
                               st.recv_counts.data(), kb);
        if (vb)
          clsort::mpi::alltoallv(run.comm, work_values.data(), st.send_counts.data(), host_recv_values.data(),
                                 st.recv_counts.data(), vb);
      }
      exchange.push_back(slowest(run, {ms_since(t)})[0]);
    }
    row.floor_exchange = median(exchange);
  }
  return row;
}

std::string fixed(double v, int digits) {
  return format_fixed(v, digits);
}

void print_header(const MpiRun& run, const MpiBenchArgs& a, const clsort::Sorter& sorter) {
  // The devices the ranks use, as rank 0 gathers their names.
  constexpr int kName = 96;
  char name[kName] = {};
  std::snprintf(name, kName, "%s", sorter.device().getInfo<CL_DEVICE_NAME>().c_str());
  std::vector<char> names(std::size_t(kName) * std::size_t(run.size));
  MPI_Gather(name, kName, MPI_CHAR, names.data(), kName, MPI_CHAR, 0, run.comm);
  if (run.rank != 0) return;
  std::vector<std::pair<std::string, int>> devices;
  for (int i = 0; i < run.size; ++i) {
    const std::string d(&names[std::size_t(i) * kName]);
    auto it = std::find_if(devices.begin(), devices.end(), [&](const auto& x) { return x.first == d; });
    if (it == devices.end())
      devices.emplace_back(d, 1);
    else
      ++it->second;
  }
  std::string list;
  for (const auto& d : devices)
    list += (list.empty() ? "" : ", ") + d.first + " (" + std::to_string(d.second) + " ranks)";
  std::printf(
      "clsort bench --mpi: %d ranks, %s data, %d repetitions (medians of the slowest rank's times, ms)\n",
      run.size, a.data.c_str(), a.reps);
  std::printf("devices: %s\n", list.c_str());
  std::printf("floors: local = each rank's own sort of its share, all ranks at once; exchange = %s\n",
              a.data == "device" ? "device to pinned host, the same MPI_Alltoallv, pinned host to device"
                                 : "the same MPI_Alltoallv of host memory");
  std::printf("%-5s %-6s %-7s %9s | %7s %7s %7s %8s %7s %7s %7s | %8s %8s | %6s %8s %s\n", "type", "values",
              "n/rank", "total", "local", "down", "split", "exchange", "up", "merge", "commit", "local",
              "exchange", "ratio", "Gkeys/s", "");
  std::fflush(stdout);
}

void print_row(const MpiRun& run, const Row& r) {
  if (run.rank != 0) return;
  const double gkeys = double(r.n) * run.size / (r.total() * 1e6);
  std::printf("%-5s %-6s %-7s %9s | %7s %7s %7s %8s %7s %7s %7s | %8s %8s | %6s %8s %s\n", r.type.c_str(),
              r.values.c_str(), format_n(r.n).c_str(), fixed(r.total(), 2).c_str(),
              fixed(r.phases[1], 2).c_str(), fixed(r.phases[2], 2).c_str(), fixed(r.phases[3], 2).c_str(),
              fixed(r.phases[4], 2).c_str(), fixed(r.phases[5], 2).c_str(), fixed(r.phases[6], 2).c_str(),
              fixed(r.phases[7], 2).c_str(), fixed(r.floor_local, 2).c_str(),
              fixed(r.floor_exchange, 2).c_str(), fixed(r.ratio(), 2).c_str(), fixed(gkeys, 3).c_str(),
              r.verified ? "" : "WRONG RESULT");
  std::fflush(stdout);
}

}  // namespace

int run_mpi_bench(const MpiRun& run, const MpiBenchArgs& a) {
  if (a.reps < 1) throw CliError("--reps must be at least 1");
  std::vector<std::size_t> sizes;
  for (const std::string& s : a.sizes) sizes.push_back(parse_size(s));
  const std::unique_ptr<clsort::Sorter> opened = open_sorter(run, a.device);
  clsort::Sorter& sorter = *opened;
  print_header(run, a, sorter);
  std::ofstream csv;
  if (run.rank == 0 && !a.csv.empty()) {
    csv.open(a.csv);
    if (!csv) throw CliError("cannot write '" + a.csv + "'");
    csv << "type,values,n_per_rank,ranks,data,total_ms,check_ms,local_sort_ms,download_ms,splitters_ms,"
           "exchange_ms,"
           "upload_ms,merge_ms,commit_ms,floor_local_ms,floor_exchange_ms,ratio,rounds,moved_keys,verified\n";
  }
  bool all_verified = true;
  for (const std::string& t : a.types)
    for (const std::string& v : a.values)
      for (std::size_t n : sizes) {
        const std::size_t vb = v == "u32" ? 4 : v == "u64" ? 8 : 0;
        const Row r = visit_key_type(parse_key_type(t), [&](auto tag) {
          using K = typename decltype(tag)::type;
          return measure<K>(run, sorter, a, n, vb);
        });
        print_row(run, r);
        all_verified = all_verified && r.verified;
        if (csv.is_open()) {
          csv << r.type << ',' << r.values << ',' << r.n << ',' << r.ranks << ',' << a.data << ','
              << r.total();
          for (std::size_t c = 0; c + 1 < r.phases.size(); ++c) csv << ',' << r.phases[c];
          csv << ',' << r.floor_local << ',' << r.floor_exchange << ',' << r.ratio() << ',' << r.rounds << ','
              << r.moved << ',' << (r.verified ? 1 : 0) << '\n';
        }
      }
  if (!all_verified) throw CliError("a sort gave a wrong result (rows marked WRONG RESULT)");
  return 0;
}

}  // namespace clsort_cli
