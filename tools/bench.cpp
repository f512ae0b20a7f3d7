// `clsort bench`: times each clsort algorithm on an OpenCL device against its own sequential version and
// std::sort over a range of n, verifies every timed output, and reports first-call (program build) cost,
// per-kernel profiles and work-group sweeps on request.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <thread>
#include <type_traits>

#include <clsort/key_transform.hpp>
#include <clsort/version.hpp>

#include "bench.hpp"
#include "cli_common.hpp"
#include "commands.hpp"
#include "io.hpp"
#include "serial_sorts.hpp"

namespace clsort_cli {
namespace {

using bench::Contender;
using bench::kDeviceWarmups;
using bench::Row;
using bench::Stage;
using bench::Workload;
using clsort::KeyType;
using Clock = std::chrono::steady_clock;

// ---- The algorithm table: a new clsort algorithm is one entry here plus its serial version in
// serial_sorts.hpp (and its key-value version, without which --values has no serial row for it).

using SerialFn = void (*)(KeyType, void*, std::size_t);
#define CLSORT_SERIAL(fn)                                                                              \
  [](KeyType t, void* data, std::size_t n) {                                                           \
    visit_key_type(                                                                                    \
        t, [&](auto tag) { serial::fn(static_cast<typename decltype(tag)::type*>(data), n, false); }); \
  }

/// Calls f(Tag<V>{}) with V the value type of `value_bytes` (4 or 8).
template <class F>
decltype(auto) visit_value_type(std::size_t value_bytes, F&& f) {
  if (value_bytes == 4) return f(Tag<std::uint32_t>{});
  return f(Tag<std::uint64_t>{});
}

// The key-value version of a serial sort (--values): keys and values of `value_bytes` each.
using SerialByKeyFn = void (*)(KeyType, void*, void*, std::size_t, std::size_t);
#define CLSORT_SERIAL_BY_KEY(fn)                                                    \
  [](KeyType t, void* keys, void* values, std::size_t value_bytes, std::size_t n) { \
    visit_key_type(t, [&](auto k) {                                                 \
      visit_value_type(value_bytes, [&](auto v) {                                   \
        serial::fn(static_cast<typename decltype(k)::type*>(keys),                  \
                   static_cast<typename decltype(v)::type*>(values), n, false);     \
      });                                                                           \
    });                                                                             \
  }

struct AlgorithmEntry {
  const char* name;  // as clsort::parse_algorithm reads it, and the prefix of its tuning names
  clsort::Algorithm algorithm;
  std::size_t device_cap;  // default largest n timed on the device (0: clsort::max_n); --no-caps lifts it
  std::size_t serial_cap;  // the same for its serial version (0: no cap)
  double growth;           // time ~ n^growth, to predict whether the next n fits the row budget
  SerialFn serial;
  SerialByKeyFn serial_by_key = nullptr;  // null: no serial row with --values
};

const AlgorithmEntry k_algorithms[] = {
    {"radix", clsort::Algorithm::radix, 0, 0, 1.15, CLSORT_SERIAL(radix_sort),
     CLSORT_SERIAL_BY_KEY(radix_sort_by_key)},
    // n log^2 n compare-exchanges: 2^20 keys take about half a second serially.
    {"bitonic", clsort::Algorithm::bitonic, 0, std::size_t(1) << 20, 1.15, CLSORT_SERIAL(bitonic_sort),
     CLSORT_SERIAL_BY_KEY(bitonic_sort_by_key)},
    // n^2: 2^14 keys are 2^28 comparisons on the device; serially 2^13 keys already take ~0.1 s.
    {"selection", clsort::Algorithm::selection, std::size_t(1) << 14, std::size_t(1) << 13, 2.0,
     CLSORT_SERIAL(selection_sort), CLSORT_SERIAL_BY_KEY(selection_sort_by_key)},
    // One launch per tile (n / tile block phases, each O(n)); serially n phases of n / 2 compares.
    {"odd_even", clsort::Algorithm::odd_even, std::size_t(1) << 16, std::size_t(1) << 13, 2.0,
     CLSORT_SERIAL(odd_even_sort), CLSORT_SERIAL_BY_KEY(odd_even_sort_by_key)},
    {"merge", clsort::Algorithm::merge, 0, 0, 1.1, CLSORT_SERIAL(merge_sort),
     CLSORT_SERIAL_BY_KEY(merge_sort_by_key)},
};

const AlgorithmEntry* find_algorithm(const std::string& name) {
  for (const auto& a : k_algorithms)
    if (name == a.name) return &a;
  return nullptr;
}

std::vector<std::string> algorithm_names() {
  std::vector<std::string> v;
  for (const auto& a : k_algorithms) v.push_back(a.name);
  return v;
}

void check(cl_int status, const char* what) {
  if (status != CL_SUCCESS)
    throw CliError(std::string(what) + " failed with " + clsort::status_name(status) + " (" +
                   std::to_string(status) + ")");
}

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

double median(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

// ---- Data and verification.

/// Each key's input index as a value of `value_bytes`, so that verification knows where every value came
/// from: pairing and stability are checked exactly.
std::vector<unsigned char> index_values(std::size_t n, std::size_t value_bytes) {
  std::vector<unsigned char> out(n * value_bytes);
  visit_value_type(value_bytes, [&](auto tag) {
    using V = typename decltype(tag)::type;
    for (std::size_t i = 0; i < n; ++i) {
      const V v = V(i);
      std::memcpy(out.data() + i * sizeof v, &v, sizeof v);
    }
  });
  return out;
}

/// A key next to its value, the layout std::stable_sort needs to move both.
template <class K, class V>
struct Pair {
  K key;
  V value;
};

template <class K, class V>
std::vector<Pair<K, V>> zip(const unsigned char* keys, const unsigned char* values, std::size_t n) {
  std::vector<Pair<K, V>> p(n);
  for (std::size_t i = 0; i < n; ++i) {
    std::memcpy(&p[i].key, keys + i * sizeof(K), sizeof(K));
    std::memcpy(&p[i].value, values + i * sizeof(V), sizeof(V));
  }
  return p;
}

template <class K, class V>
void unzip(const std::vector<Pair<K, V>>& p, void* keys, void* values) {
  for (std::size_t i = 0; i < p.size(); ++i) {
    std::memcpy(static_cast<unsigned char*>(keys) + i * sizeof(K), &p[i].key, sizeof(K));
    std::memcpy(static_cast<unsigned char*>(values) + i * sizeof(V), &p[i].value, sizeof(V));
  }
}

template <class K, class V>
void stable_sort_pairs(std::vector<Pair<K, V>>& p) {
  std::stable_sort(p.begin(), p.end(),
                   [](const Pair<K, V>& a, const Pair<K, V>& b) { return clsort::key_less(a.key, b.key); });
}

/// What every timed output must equal: the keys sorted by std::sort or, with values, the pairs sorted by
/// std::stable_sort (clsort's sort_by_key is stable).
struct Reference {
  std::vector<unsigned char> keys, values;
};

Reference reference_sort(KeyType t, const unsigned char* keys, const unsigned char* values,
                         std::size_t value_bytes, std::size_t n) {
  Reference ref;
  if (!values) {
    ref.keys.assign(keys, keys + n * clsort::key_size(t));
    visit_key_type(t, [&](auto tag) {
      using K = typename decltype(tag)::type;
      K* p = reinterpret_cast<K*>(ref.keys.data());
      std::sort(p, p + n, [](K a, K b) { return clsort::key_less(a, b); });
    });
    return ref;
  }
  ref.keys.resize(n * clsort::key_size(t));
  ref.values.resize(n * value_bytes);
  visit_key_type(t, [&](auto k) {
    visit_value_type(value_bytes, [&](auto v) {
      auto p = zip<typename decltype(k)::type, typename decltype(v)::type>(keys, values, n);
      stable_sort_pairs(p);
      unzip(p, ref.keys.data(), ref.values.data());
    });
  });
  return ref;
}

/// Bit-for-bit equality of keys and values with the reference, except in the NaN region (where the
/// reference holds NaNs, which key_less treats as equal and clsort orders arbitrarily): there the
/// (key bits, value) pairs must be the same multiset. `out_values` is ignored without values.
bool verify(KeyType t, const void* out_keys, const void* out_values, const Reference& ref, std::size_t n,
            std::size_t value_bytes) {
  return visit_key_type(t, [&](auto tag) {
    using K = typename decltype(tag)::type;
    if constexpr (!std::is_floating_point_v<K>) {
      return std::memcmp(out_keys, ref.keys.data(), n * sizeof(K)) == 0 &&
             (!value_bytes || std::memcmp(out_values, ref.values.data(), n * value_bytes) == 0);
    } else {
      using U = clsort::key_bits_t<K>;
      const auto* out = static_cast<const K*>(out_keys);
      const auto* expected = reinterpret_cast<const K*>(ref.keys.data());
      auto bits = [](K k) {
        U u;
        std::memcpy(&u, &k, sizeof u);
        return u;
      };
      auto value = [&](const void* base, std::size_t i) {
        std::uint64_t v = 0;
        if (value_bytes)
          std::memcpy(&v, static_cast<const unsigned char*>(base) + i * value_bytes, value_bytes);
        return v;
      };
      std::vector<std::pair<U, std::uint64_t>> nan_out, nan_ref;
      for (std::size_t i = 0; i < n; ++i) {
        if (std::isnan(expected[i])) {
          if (!std::isnan(out[i])) return false;
          nan_ref.emplace_back(bits(expected[i]), value(ref.values.data(), i));
          nan_out.emplace_back(bits(out[i]), value(out_values, i));
        } else if (bits(out[i]) != bits(expected[i]) || value(out_values, i) != value(ref.values.data(), i)) {
          return false;
        }
      }
      std::sort(nan_out.begin(), nan_out.end());
      std::sort(nan_ref.begin(), nan_ref.end());
      return nan_out == nan_ref;
    }
  });
}

// ---- Contenders.

/// The host data of the host-to-host rows, in the typed vectors applications pass to
/// Sorter::sort(std::vector&) and Sorter::sort_by_key(std::vector&, std::vector&).
struct HostData {
  virtual ~HostData() = default;
  virtual void assign(const Workload& in) = 0;
  virtual void sort(clsort::Sorter& sorter, const clsort::Options& o) = 0;
  virtual void result(void* keys, void* values) const = 0;
};

struct NoValues {};

template <class K, class V>  // V = NoValues: keys only
struct TypedHostData final : HostData {
  static constexpr bool pairs = !std::is_same_v<V, NoValues>;
  std::vector<K> keys;
  std::vector<V> values;
  void assign(const Workload& in) override {
    keys.resize(in.n);
    std::memcpy(keys.data(), in.keys, in.n * sizeof(K));
    if constexpr (pairs) {
      values.resize(in.n);
      std::memcpy(values.data(), in.values, in.n * sizeof(V));
    }
  }
  void sort(clsort::Sorter& sorter, const clsort::Options& o) override {
    if constexpr (pairs)
      sorter.sort_by_key(keys, values, o);
    else
      sorter.sort(keys, o);
  }
  void result(void* k, void* v) const override {
    std::memcpy(k, keys.data(), keys.size() * sizeof(K));
    if constexpr (pairs) std::memcpy(v, values.data(), values.size() * sizeof(V));
  }
};

std::unique_ptr<HostData> make_host_data(KeyType t, std::size_t value_bytes) {
  return visit_key_type(t, [&](auto k) -> std::unique_ptr<HostData> {
    using K = typename decltype(k)::type;
    if (!value_bytes) return std::make_unique<TypedHostData<K, NoValues>>();
    return visit_value_type(value_bytes, [&](auto v) -> std::unique_ptr<HostData> {
      return std::make_unique<TypedHostData<K, typename decltype(v)::type>>();
    });
  });
}

/// A Sorter and the device buffers its rows share. The unsorted keys (and values) are uploaded once per
/// (type, n) into `src` (`values_src`); each repetition copies them into `work` (`values_work`) outside
/// the timed region.
struct DeviceState {
  explicit DeviceState(const cl::Device& d) : device(d), sorter(d) {}
  ~DeviceState() { unmap_staging(); }
  DeviceState(const DeviceState&) = delete;
  DeviceState& operator=(const DeviceState&) = delete;
  cl::Device device;
  clsort::Sorter sorter;
  std::unique_ptr<clsort::Sorter> profiler;  // --profile: a Sorter whose queue records event times
  cl::Buffer src, work, values_src, values_work;
  std::size_t capacity = 0, values_capacity = 0;
  // The verified warm-up output (see Contender::keep_reference), sized with `work`, and the count of
  // 32-bit words in which a timed output differed from it.
  cl::Buffer reference, values_reference, differ;
  cl::Kernel differ_kernel;
  Workload in;
  std::unique_ptr<HostData> host;
  // The copy bound's staging: pinned host memory (CL_MEM_ALLOC_HOST_PTR), mapped while it lives, as
  // drivers want it for their fastest transfers.
  cl::Buffer staging;
  unsigned char* mapped = nullptr;
  std::size_t staging_capacity = 0;

  std::size_t bytes() const { return in.n * clsort::key_size(in.type); }
  std::size_t values_bytes() const { return in.values ? in.n * in.value_bytes : 0; }

  cl::Buffer device_buffer(std::size_t size) {
    cl_int status = CL_SUCCESS;
    cl::Buffer b(sorter.context(), CL_MEM_READ_WRITE, size, nullptr, &status);
    check(status, "clCreateBuffer");
    return b;
  }

  void prepare(const Workload& input) {
    in = input;
    if (bytes() > capacity) {
      src = device_buffer(bytes());
      work = device_buffer(bytes());
      reference = device_buffer(bytes());
      capacity = bytes();
    }
    check(sorter.queue().enqueueWriteBuffer(src, CL_TRUE, 0, bytes(), in.keys), "uploading keys");
    if (in.values) {
      if (values_bytes() > values_capacity) {
        values_src = device_buffer(values_bytes());
        values_work = device_buffer(values_bytes());
        values_reference = device_buffer(values_bytes());
        values_capacity = values_bytes();
      }
      check(sorter.queue().enqueueWriteBuffer(values_src, CL_TRUE, 0, values_bytes(), in.values),
            "uploading values");
    }
    host = make_host_data(in.type, in.values ? in.value_bytes : 0);
  }
  void reset() {
    check(sorter.queue().enqueueCopyBuffer(src, work, 0, 0, bytes()), "clEnqueueCopyBuffer");
    if (in.values)
      check(sorter.queue().enqueueCopyBuffer(values_src, values_work, 0, 0, values_bytes()),
            "clEnqueueCopyBuffer");
    check(sorter.queue().finish(), "clFinish");
  }
  void run(clsort::Algorithm a) {
    clsort::Options o;
    o.algorithm = a;
    check(sorter.sort_buffer(in.type, work, in.values ? &values_work : nullptr, in.value_bytes, in.n, o, {})
              .wait(),
          "waiting for the sort");
  }
  void keep_reference() {
    const cl::CommandQueue& q = sorter.queue();
    if (!differ_kernel()) {
      // Keys and values are whole 32-bit words (4 or 8 bytes each).
      const char* source =
          "kernel void bench_differ(global const uint* a, global const uint* b, uint words, global uint* "
          "differ) {\n"
          "  uint d = 0;\n"
          "  for (uint i = get_global_id(0); i < words; i += get_global_size(0)) d += a[i] != b[i];\n"
          "  if (d) atomic_add(differ, d);\n"
          "}\n";
      cl_int status = CL_SUCCESS;
      cl::Program program(sorter.context(), source, false, &status);
      check(status, "clCreateProgramWithSource(bench_differ)");
      check(program.build(std::vector<cl::Device>{device}), "clBuildProgram(bench_differ)");
      differ_kernel = cl::Kernel(program, "bench_differ", &status);
      check(status, "clCreateKernel(bench_differ)");
      differ = device_buffer(4);
    }
    check(q.enqueueCopyBuffer(work, reference, 0, 0, bytes()), "clEnqueueCopyBuffer");
    if (in.values)
      check(q.enqueueCopyBuffer(values_work, values_reference, 0, 0, values_bytes()), "clEnqueueCopyBuffer");
    const cl_uint zero = 0;
    check(q.enqueueWriteBuffer(differ, CL_TRUE, 0, 4, &zero), "clEnqueueWriteBuffer");
  }
  void compare_with_reference() {
    auto compare = [&](const cl::Buffer& a, const cl::Buffer& b, std::size_t size) {
      const cl_uint words = cl_uint(size / 4);
      if (!words) return;
      check(differ_kernel.setArg(0, a), "clSetKernelArg");
      check(differ_kernel.setArg(1, b), "clSetKernelArg");
      check(differ_kernel.setArg(2, words), "clSetKernelArg");
      check(differ_kernel.setArg(3, differ), "clSetKernelArg");
      const std::size_t global = std::min<std::size_t>((words + 63) / 64 * 64, std::size_t(1) << 16);
      check(sorter.queue().enqueueNDRangeKernel(differ_kernel, cl::NullRange, cl::NDRange(global)),
            "clEnqueueNDRangeKernel(bench_differ)");
    };
    compare(work, reference, bytes());
    if (in.values) compare(values_work, values_reference, values_bytes());
  }
  bool matched_reference() {
    cl_uint count = 0;
    check(sorter.queue().enqueueReadBuffer(differ, CL_TRUE, 0, 4, &count), "reading the differing words");
    return count == 0;
  }
  void result(void* keys, void* values) {
    check(sorter.queue().enqueueReadBuffer(work, CL_TRUE, 0, bytes(), keys), "downloading keys");
    if (in.values)
      check(sorter.queue().enqueueReadBuffer(values_work, CL_TRUE, 0, values_bytes(), values),
            "downloading values");
  }

  /// Copies this (type, n)'s keys and values into the pinned staging, for copy_round_trip().
  void stage() {
    const std::size_t total = bytes() + values_bytes();
    if (total > staging_capacity) {
      unmap_staging();
      cl_int status = CL_SUCCESS;
      staging =
          cl::Buffer(sorter.context(), CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, total, nullptr, &status);
      check(status, "clCreateBuffer(CL_MEM_ALLOC_HOST_PTR)");
      mapped = static_cast<unsigned char*>(sorter.queue().enqueueMapBuffer(
          staging, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, total, nullptr, nullptr, &status));
      check(status, "clEnqueueMapBuffer");
      staging_capacity = total;
    }
    std::memcpy(mapped, in.keys, bytes());
    if (in.values) std::memcpy(mapped + bytes(), in.values, values_bytes());
  }
  /// The copies any host-to-host sort of this data makes: keys (and values) from pinned host memory to
  /// the device and back, each call blocking.
  void copy_round_trip() {
    const cl::CommandQueue& q = sorter.queue();
    check(q.enqueueWriteBuffer(work, CL_TRUE, 0, bytes(), mapped), "uploading keys");
    if (in.values)
      check(q.enqueueWriteBuffer(values_work, CL_TRUE, 0, values_bytes(), mapped + bytes()),
            "uploading values");
    check(q.enqueueReadBuffer(work, CL_TRUE, 0, bytes(), mapped), "downloading keys");
    if (in.values)
      check(q.enqueueReadBuffer(values_work, CL_TRUE, 0, values_bytes(), mapped + bytes()),
            "downloading values");
  }
  /// Whether the staging still holds the input after the round trips.
  bool staging_intact() const {
    return std::memcmp(mapped, in.keys, bytes()) == 0 &&
           (!in.values || std::memcmp(mapped + bytes(), in.values, values_bytes()) == 0);
  }
  void unmap_staging() {
    if (!mapped) return;
    // Errors are ignored: this also runs from the destructor, and the buffer is released either way.
    sorter.queue().enqueueUnmapMemObject(staging, mapped);
    sorter.queue().finish();
    mapped = nullptr;
    staging_capacity = 0;
  }

  std::vector<Stage> profile(clsort::Algorithm a) {
    if (!profiler) profiler = std::make_unique<clsort::Sorter>(device, true);
    const cl::CommandQueue& q = profiler->queue();
    cl_int status = CL_SUCCESS;
    cl::Buffer buf(profiler->context(), CL_MEM_READ_WRITE, bytes(), nullptr, &status);
    check(status, "clCreateBuffer");
    cl::Buffer values_buf;
    if (in.values) {
      values_buf = cl::Buffer(profiler->context(), CL_MEM_READ_WRITE, values_bytes(), nullptr, &status);
      check(status, "clCreateBuffer");
    }
    std::vector<unsigned char> back(bytes() + values_bytes());
    auto event_ms = [](const cl::Event& e) {
      cl_ulong start = 0, end = 0;
      check(e.getProfilingInfo(CL_PROFILING_COMMAND_START, &start), "clGetEventProfilingInfo");
      check(e.getProfilingInfo(CL_PROFILING_COMMAND_END, &end), "clGetEventProfilingInfo");
      return double(end - start) * 1e-6;
    };
    clsort::Options o;
    o.algorithm = a;
    // With values, "upload" and "download" are two copies each: keys, then values.
    Stage upload{"upload", 0, 0}, download{"download", 0, 0};
    cl::Event e;
    check(q.enqueueWriteBuffer(buf, CL_TRUE, 0, bytes(), in.keys, nullptr, &e), "uploading keys");
    upload.calls++, upload.ms += event_ms(e);
    if (in.values) {
      check(q.enqueueWriteBuffer(values_buf, CL_TRUE, 0, values_bytes(), in.values, nullptr, &e),
            "uploading values");
      upload.calls++, upload.ms += event_ms(e);
    }
    check(profiler->sort_buffer(in.type, buf, in.values ? &values_buf : nullptr, in.value_bytes, in.n, o, {})
              .wait(),
          "waiting for the sort");
    const std::vector<clsort::KernelTime> kernels = profiler->last_profile();
    check(q.enqueueReadBuffer(buf, CL_TRUE, 0, bytes(), back.data(), nullptr, &e), "downloading keys");
    download.calls++, download.ms += event_ms(e);
    if (in.values) {
      check(q.enqueueReadBuffer(values_buf, CL_TRUE, 0, values_bytes(), back.data() + bytes(), nullptr, &e),
            "downloading values");
      download.calls++, download.ms += event_ms(e);
    }
    std::vector<Stage> stages{upload};
    for (const auto& k : kernels) {
      auto it = std::find_if(stages.begin(), stages.end(), [&](const Stage& s) { return s.name == k.name; });
      if (it == stages.end()) it = stages.insert(stages.end(), Stage{k.name, 0, 0});
      ++it->calls;
      it->ms += k.ms;
    }
    stages.push_back(download);
    return stages;
  }
};

Contender device_contender(const AlgorithmEntry& a, const std::shared_ptr<DeviceState>& s, bool caps) {
  Contender c;
  c.label = std::string(a.name) + " (OpenCL)";
  c.algorithm = a.name;
  c.kind = "device";
  c.cap = caps && a.device_cap ? a.device_cap : clsort::max_n(a.algorithm);
  c.growth = a.growth;
  const clsort::Algorithm alg = a.algorithm;
  c.prepare = [s](const Workload& in) { s->prepare(in); };
  c.reset = [s] { s->reset(); };
  c.run = [s, alg] { s->run(alg); };
  c.result = [s](void* keys, void* values) { s->result(keys, values); };
  c.reset_host = [s] { s->host->assign(s->in); };
  c.run_host = [s, alg] {
    clsort::Options o;
    o.algorithm = alg;
    s->host->sort(s->sorter, o);
  };
  c.result_host = [s](void* keys, void* values) { s->host->result(keys, values); };
  c.profile = [s, alg] { return s->profile(alg); };
  c.keep_reference = [s] { s->keep_reference(); };
  c.compare_with_reference = [s] { s->compare_with_reference(); };
  c.matched_reference = [s] { return s->matched_reference(); };
  return c;
}

/// A CPU sort of a host copy of the keys (and values): `sort(type, keys, values, value_bytes, n)` is the
/// timed part; values is null without --values.
Contender host_contender(std::string label, std::string algorithm, std::string kind, std::size_t cap,
                         std::function<void(KeyType, void*, void*, std::size_t, std::size_t)> sort) {
  struct State {
    Workload in;
    std::vector<unsigned char> keys, values;
  };
  auto s = std::make_shared<State>();
  Contender c;
  c.label = std::move(label);
  c.algorithm = std::move(algorithm);
  c.kind = std::move(kind);
  c.cap = cap;
  c.prepare = [s](const Workload& in) { s->in = in; };
  c.reset = [s] {
    const auto* keys = static_cast<const unsigned char*>(s->in.keys);
    s->keys.assign(keys, keys + s->in.n * clsort::key_size(s->in.type));
    if (s->in.values) {
      const auto* values = static_cast<const unsigned char*>(s->in.values);
      s->values.assign(values, values + s->in.n * s->in.value_bytes);
    }
  };
  c.run = [s, sort] {
    sort(s->in.type, s->keys.data(), s->in.values ? s->values.data() : nullptr, s->in.value_bytes, s->in.n);
  };
  c.result = [s](void* keys, void* values) {
    std::memcpy(keys, s->keys.data(), s->keys.size());
    if (s->in.values) std::memcpy(values, s->values.data(), s->values.size());
  };
  return c;
}

void std_sort(KeyType t, void* data, void*, std::size_t, std::size_t n) {
  visit_key_type(t, [&](auto tag) {
    using K = typename decltype(tag)::type;
    K* p = static_cast<K*>(data);
    std::sort(p, p + n, [](K a, K b) { return clsort::key_less(a, b); });
  });
}

/// The CPU baseline for pairs: std::stable_sort of (key, value) structs, stable like sort_by_key. Zipping
/// the two arrays into structs and back is left out of the timed region: the baseline is the sort alone.
Contender stable_sort_contender() {
  struct State {
    std::function<void()> reset, run;
    std::function<void(void*, void*)> result;
  };
  auto s = std::make_shared<State>();
  Contender c;
  c.label = "std::stable_sort";
  c.kind = "baseline";
  c.prepare = [s](const Workload& in) {
    visit_key_type(in.type, [&](auto k) {
      visit_value_type(in.value_bytes, [&](auto v) {
        using K = typename decltype(k)::type;
        using V = typename decltype(v)::type;
        auto pairs = std::make_shared<std::vector<Pair<K, V>>>();
        s->reset = [pairs, in] {
          *pairs = zip<K, V>(static_cast<const unsigned char*>(in.keys),
                             static_cast<const unsigned char*>(in.values), in.n);
        };
        s->run = [pairs] { stable_sort_pairs(*pairs); };
        s->result = [pairs](void* keys, void* values) { unzip(*pairs, keys, values); };
      });
    });
  };
  c.reset = [s] { s->reset(); };
  c.run = [s] { s->run(); };
  c.result = [s](void* keys, void* values) { s->result(keys, values); };
  return c;
}

/// The row that the speedup column compares against: std::sort, or std::stable_sort with --values.
bool is_std_row(const std::string& label) {
  return label == "std::sort" || label == "std::stable_sort";
}

// ---- Measuring.

/// A status line on stderr while measuring, only on a terminal.
class Status {
 public:
  Status() : enabled_(stderr_is_terminal()) {}
  ~Status() { clear(); }
  void show(const std::string& text) {
    if (!enabled_) return;
    std::fprintf(stderr, "\r  measuring %s ...\033[K", text.c_str());
    std::fflush(stderr);
  }
  void clear() {
    if (enabled_) std::fputs("\r\033[K", stderr), std::fflush(stderr);
  }

 private:
  bool enabled_;
};

/// How many timed repetitions a row gets: `reps`, or with `adaptive` (no --reps given) at least
/// `min_reps` and no more once the timed repetitions passed `budget_ms`.
struct RepPolicy {
  int reps = 5;
  bool adaptive = true;
  int min_reps = 3;
  double budget_ms = 2000;
};

std::string values_name(const Workload& in) {
  return !in.values ? "none" : in.value_bytes == 4 ? "u32" : "u64";
}

Row measure(Contender& c, const Workload& in, const Reference& ref, const RepPolicy& policy, bool profile) {
  Row r;
  r.n = in.n;
  r.type = in.type;
  r.values = values_name(in);
  r.label = c.label;
  r.algorithm = c.algorithm;
  r.kind = c.kind;
  const std::size_t value_bytes = in.values ? in.value_bytes : 0;
  std::vector<unsigned char> out(in.n * clsort::key_size(in.type)), out_values(in.n * value_bytes);
  c.prepare(in);
  c.reset();
  c.run();  // warm-up: program builds, scratch allocation, first-touch page faults
  const bool on_device = bool(c.keep_reference);
  if (on_device) {
    c.result(out.data(), out_values.data());
    r.verified = verify(in.type, out.data(), out_values.data(), ref, in.n, value_bytes);
    c.keep_reference();
    for (int i = 0; i < kDeviceWarmups; ++i) {
      c.reset();
      c.run();
      c.compare_with_reference();
    }
  }
  double spent = 0;
  for (int i = 0; i < policy.reps; ++i) {
    if (policy.adaptive && i >= policy.min_reps && spent > policy.budget_ms) break;
    c.reset();
    const auto t0 = Clock::now();
    c.run();
    r.times_ms.push_back(ms_since(t0));
    spent += r.times_ms.back();
    if (on_device) {
      c.compare_with_reference();
    } else {
      c.result(out.data(), out_values.data());
      r.verified = verify(in.type, out.data(), out_values.data(), ref, in.n, value_bytes) && r.verified;
    }
  }
  if (on_device) r.verified = c.matched_reference() && r.verified;
  r.median_ms = median(r.times_ms);
  r.min_ms = *std::min_element(r.times_ms.begin(), r.times_ms.end());
  if (c.run_host) {
    // No warm-up of its own: the device warm-up built the programs; the median absorbs the first
    // call's staging-buffer allocation.
    std::vector<double> host;
    for (std::size_t i = 0; i < r.times_ms.size(); ++i) {
      c.reset_host();
      const auto t0 = Clock::now();
      c.run_host();
      host.push_back(ms_since(t0));
      c.result_host(out.data(), out_values.data());
      r.verified = verify(in.type, out.data(), out_values.data(), ref, in.n, value_bytes) && r.verified;
    }
    r.host_ms = median(host);
  }
  if (profile && c.profile) {
    // The repetition with the median total stands for all: its stages add up to its total.
    std::vector<std::vector<Stage>> runs;
    for (std::size_t i = 0; i < r.times_ms.size(); ++i) runs.push_back(c.profile());
    auto total = [](const std::vector<Stage>& s) {
      double sum = 0;
      for (const auto& x : s) sum += x.ms;
      return sum;
    };
    std::sort(runs.begin(), runs.end(), [&](const auto& a, const auto& b) { return total(a) < total(b); });
    r.profile = runs[runs.size() / 2];
  }
  return r;
}

/// The "copy bound (pinned)" row: what the host-to-host call of this data cannot go below on copies
/// alone, timed like the other rows (one untimed warm-up, the same repetition policy).
Row measure_copy_bound(DeviceState& s, const Workload& in, const RepPolicy& policy) {
  Row r;
  r.n = in.n;
  r.type = in.type;
  r.values = values_name(in);
  r.label = "copy bound (pinned)";
  r.kind = "bound";
  s.prepare(in);
  s.stage();
  s.copy_round_trip();  // warm-up: first-touch of the device buffers and of the driver's own staging
  double spent = 0;
  for (int i = 0; i < policy.reps; ++i) {
    if (policy.adaptive && i >= policy.min_reps && spent > policy.budget_ms) break;
    const auto t0 = Clock::now();
    s.copy_round_trip();
    r.times_ms.push_back(ms_since(t0));
    spent += r.times_ms.back();
    r.verified = s.staging_intact() && r.verified;
  }
  r.median_ms = median(r.times_ms);
  r.min_ms = *std::min_element(r.times_ms.begin(), r.times_ms.end());
  return r;
}

void add_speedups(std::vector<Row>& group) {
  double std_ms = -1, bound_ms = -1;
  std::map<std::string, double> serial_ms;
  for (const Row& r : group) {
    if (is_std_row(r.label)) std_ms = r.median_ms;
    if (r.kind == "serial") serial_ms[r.algorithm] = r.median_ms;
    if (r.kind == "bound") bound_ms = r.median_ms;
  }
  for (Row& r : group) {
    if (r.kind == "bound") continue;  // copies, not a sort: no speedup
    if (std_ms > 0) r.speedup_std = std_ms / r.median_ms;
    if (r.kind == "device" && serial_ms.count(r.algorithm))
      r.speedup_serial = serial_ms[r.algorithm] / r.median_ms;
    if (r.kind == "device" && bound_ms > 0 && r.host_ms > 0) r.host_bound = bound_ms / r.host_ms;
  }
}

/// "radix.wg" for radix: the work-group tuning name of `algorithm` as Sorter::plan().tuning lists it.
std::string wg_parameter(const clsort::DevicePlan& plan, const std::string& algorithm) {
  std::istringstream in(plan.tuning);
  std::string item;
  while (in >> item) {
    const std::string name = item.substr(0, item.find('='));
    if (name == algorithm + ".wg") return name;
  }
  return {};
}

std::vector<std::size_t> parse_sizes(const std::vector<std::string>& items) {
  std::vector<std::size_t> sizes;
  for (const std::string& item : items) {
    // "A..B" is every power-of-two step from A to B, "A..B:xF" every factor F.
    const auto dots = item.find("..");
    if (dots == std::string::npos) {
      sizes.push_back(parse_size(item));
      continue;
    }
    std::string hi = item.substr(dots + 2);
    std::size_t factor = 2;
    if (const auto colon = hi.find(':'); colon != std::string::npos) {
      std::string f = hi.substr(colon + 1);
      if (!f.empty() && (f[0] == 'x' || f[0] == '*')) f = f.substr(1);
      factor = parse_size(f);
      hi = hi.substr(0, colon);
      if (factor < 2) throw CliError("--sizes: the factor in '" + item + "' must be at least 2");
    }
    const std::size_t a = parse_size(item.substr(0, dots)), b = parse_size(hi);
    if (a == 0) throw CliError("--sizes: a range must start above 0: '" + item + "'");
    for (std::size_t v = a; v <= b; v *= factor) {
      sizes.push_back(v);
      if (v > b / factor) break;
    }
  }
  for (std::size_t s : sizes)
    if (s == 0) throw CliError("--sizes: n must be at least 1");
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

std::vector<unsigned> parse_wg_list(const std::vector<std::string>& items, const cl::Device& d) {
  std::vector<unsigned> v;
  for (const auto& s : items) v.push_back(unsigned(parse_size(s)));
  if (v.empty()) {
    // Powers of two from 16 to the device's limit (at most 1024: larger groups do not fit GPUs' tuning).
    const std::size_t max_wg = std::min<std::size_t>(1024, d.getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE>());
    for (unsigned wg = 16; wg <= max_wg; wg *= 2) v.push_back(wg);
  }
  return v;
}

}  // namespace

CLI::App* add_bench_command(CLI::App& app, BenchArgs& a) {
  CLI::App* cmd = app.add_subcommand(
      "bench", "Time each algorithm on the device against its serial version and std::sort, verified");
  cmd->footer(
      "Defaults: n = 2^10..2^22 by x4, u32 keys, 5 repetitions after a warm-up (3 for rows past 2 s);\n"
      "selection sort (O(n^2)) up to 2^14 keys on the device and 2^13 serially, odd-even up to 2^16 on the\n"
      "device and 2^13 serially, serial bitonic up to 2^20,\n"
      "and a row is left out from the n where it is predicted to take over 12 s. --no-caps lifts these.\n"
      "Sizes accept 2^k and 1e6 notation and ranges A..B (doubling) or A..B:x4 (factor 4).\n"
      "\nExamples:\n"
      "  clsort bench\n"
      "  clsort bench --sizes 2^16..2^24:x4 --types u32,f64 --algorithms radix --reps 9\n"
      "  clsort bench --sizes 2^16,2^20 --values u32 --algorithms radix\n"
      "  clsort bench --profile --sizes 2^20 --csv out.csv --json out.json --plot out.png\n"
      "  clsort bench --sweep-wg --sizes 2^18 --algorithms radix,bitonic");
  cmd->add_option("--sizes,-n", a.sizes, "Key counts, e.g. 1000,2^16,2^18..2^22:x2")->delimiter(',');
  cmd->add_option("--types,-t", a.types, "Key types")
      ->delimiter(',')
      ->check(CLI::IsMember(key_type_names()))
      ->capture_default_str();
  cmd->add_option("--values", a.values,
                  "Sort (key, value) pairs with Sorter::sort_by_key: u32 or u64 values, each key's input "
                  "index (none: keys only)")
      ->check(CLI::IsMember({"none", "u32", "u64"}))
      ->capture_default_str();
  cmd->add_option("--algorithms,-a", a.algorithms, "clsort algorithms to time (default: all)")
      ->delimiter(',')
      ->check(CLI::IsMember(algorithm_names()));
  cmd->add_option("--reps,-r", a.reps,
                  "Timed repetitions per row after one warm-up (default: 5, or 3 for rows that pass 2 s)")
      ->check(CLI::Range(1, 1000));
  cmd->add_option("--device", a.device, "Device: gpu, cpu, a name substring or PLATFORM:DEVICE");
  cmd->add_flag("--profile", a.profile, "Split device time into upload, each kernel and download");
  cmd->add_flag("--sweep-wg", a.sweep_wg, "Also time each algorithm over work-group sizes");
  cmd->add_option("--wg", a.wg_sizes, "Work-group sizes for --sweep-wg (default: 16..1024 by x2)")
      ->delimiter(',');
  cmd->add_flag("--no-caps", a.no_caps, "Time every row at every n: no size caps, no row time budget (slow)");
  cmd->add_flag("--no-serial", a.no_serial, "Leave out the serial versions of the algorithms");
  cmd->add_flag("--no-cpu-libraries", a.no_cpu_libraries,
                "Leave out Boost.Sort's CPU rows and time std::sort once per n: on a GPU machine the CPU "
                "rows cost more than the device rows they put in proportion");
  cmd->add_flag("--no-first-call", a.no_first_call, "Leave out the first-call (program build) table");
  cmd->add_flag(
      "--cold", a.cold,
      "Turn off clsort's and PoCL's on-disk program caches (CLSORT_CACHE=0, POCL_KERNEL_CACHE=0) so "
      "that first calls include a full compile");
  cmd->add_option("--seed", a.seed, "Random seed of the keys")->capture_default_str();
  cmd->add_flag("--specials", a.specials,
                "One key in eight an edge case: NaNs of both signs, infinities, -0, subnormals (floats), "
                "extremes (integers)");
  cmd->add_option("--csv", a.csv, "Also write the rows as CSV");
  cmd->add_option("--json", a.json, "Also write everything as JSON");
  cmd->add_option("--plot", a.plot, "Draw time against n (log-log) into a PNG with gnuplot");
  return cmd;
}

int run_bench(const BenchArgs& a) {
  const auto start = Clock::now();
  if (a.cold) {
    // Before any OpenCL call: PoCL reads its settings when the platform is first loaded.
    ::setenv("CLSORT_CACHE", "0", 1);
    ::setenv("POCL_KERNEL_CACHE", "0", 1);
  }
  const std::vector<std::size_t> sizes =
      parse_sizes(a.sizes.empty() ? std::vector<std::string>{"2^10..2^22:x4"} : a.sizes);
  std::vector<KeyType> types;
  for (const auto& t : a.types) types.push_back(parse_key_type(t));
  std::vector<const AlgorithmEntry*> algorithms;
  for (const auto& name : a.algorithms.empty() ? algorithm_names() : a.algorithms)
    if (const AlgorithmEntry* e = find_algorithm(name);
        e && std::find(algorithms.begin(), algorithms.end(), e) == algorithms.end())
      algorithms.push_back(e);
  if (!a.plot.empty() && bench::find_gnuplot().empty())
    throw CliError(
        "--plot needs gnuplot, which is not on PATH (Debian/Ubuntu: apt-get install gnuplot-nox); "
        "the bench did not run. Leave out --plot, or use --csv/--json and plot those.");

  const cl::Device device = open_device(a.device);
  auto state = std::make_shared<DeviceState>(device);
  const bool caps = !a.no_caps;

  bench::Report report;
  report.version = CLSORT_VERSION_STRING;
  report.date = now_string();
  report.device = describe_device(device);
  report.device_name = device.getInfo<CL_DEVICE_NAME>();
  report.device_reason = a.device.empty() ? clsort::default_device_reason() : "--device " + a.device;
  report.platform = cl::Platform(device.getInfo<CL_DEVICE_PLATFORM>()).getInfo<CL_PLATFORM_NAME>();
  report.pocl = report.platform.find("Portable Computing Language") != std::string::npos;
  auto env_is = [](const char* name, const char* value) {
    const char* v = std::getenv(name);
    return v && std::string(v) == value;
  };
  report.clsort_cache = !env_is("CLSORT_CACHE", "0") && !env_is("CLSORT_CACHE_DIR", "");
  report.pocl_cache = !env_is("POCL_KERNEL_CACHE", "0");
  const clsort::DevicePlan plan = state->sorter.plan();
  report.tuning_row = plan.tuning_row;
  report.tuning = plan.tuning;
  report.measured = plan.measured;
  report.automatic = plan.automatic;
  RepPolicy policy;
  policy.adaptive = a.reps == 0;
  policy.reps = a.reps ? a.reps : 5;
  report.reps = policy.reps;
  report.adaptive_reps = policy.adaptive;
  report.min_reps = policy.min_reps;
  report.rep_budget_s = policy.budget_ms / 1000;
  const double row_budget_ms = report.row_budget_s * 1000;
  report.host_threads = std::thread::hardware_concurrency();
  report.profile = a.profile;
  report.keys_description =
      std::string(a.specials
                      ? "random bit patterns, one in eight an edge case (NaN, inf, -0, subnormal, extremes)"
                      : "uniformly random bit patterns (floats: finite values only)") +
      ", seed " + std::to_string(a.seed);
  const std::size_t value_bytes = a.values == "u32" ? 4 : a.values == "u64" ? 8 : 0;
  report.values = a.values;

  // Print order: clsort's device rows, other device sorts, the copy bound, serial twins, CPU baselines.
  std::vector<Contender> contenders;
  for (const AlgorithmEntry* e : algorithms) contenders.push_back(device_contender(*e, state, caps));
  std::vector<Contender> boost;
#ifdef CLSORT_CLI_HAVE_BOOST
  bench::add_boost_contenders(boost, device);
  if (value_bytes && !boost.empty()) {
    boost.clear();
    report.notes.push_back("Boost rows: not run with --values (they sort keys only).");
  }
#else
  report.notes.push_back(
      "Boost rows: not built (install libboost-dev and reconfigure to add Boost.Sort and "
      "Boost.Compute rows).");
#endif
  for (auto& c : boost)
    if (c.kind == "device") contenders.push_back(c);
  if (!a.no_serial)
    for (const AlgorithmEntry* e : algorithms) {
      const std::string label = std::string(e->name) + " (serial)";
      const std::size_t cap = caps ? e->serial_cap : 0;
      if (!value_bytes) {
        const SerialFn fn = e->serial;
        contenders.push_back(
            host_contender(label, e->name, "serial", cap,
                           [fn](KeyType t, void* k, void*, std::size_t, std::size_t n) { fn(t, k, n); }));
      } else if (e->serial_by_key) {
        contenders.push_back(host_contender(label, e->name, "serial", cap, e->serial_by_key));
      } else {
        report.notes.push_back(label +
                               ": not run with --values (tools/serial_sorts.hpp has no key-value "
                               "version of it)");
      }
    }
  contenders.push_back(value_bytes ? stable_sort_contender()
                                   : host_contender("std::sort", "", "baseline", 0, std_sort));
  if (!a.no_cpu_libraries)
    for (auto& c : boost)
      if (c.kind != "device") contenders.push_back(c);

  const std::string bound_label = "copy bound (pinned)";
  for (const Contender& c : contenders) report.labels.push_back(c.label);
  if (!algorithms.empty()) report.labels.push_back(bound_label);
  bench::print_header(report);
  Status status;
  std::map<std::string, std::size_t> skipped_above;  // label -> smallest n left out by a cap
  const std::vector<unsigned char> values_data = index_values(value_bytes ? sizes.back() : 0, value_bytes);
  const unsigned char* values = value_bytes ? values_data.data() : nullptr;  // the first n for each n
  for (KeyType t : types) {
    const std::vector<unsigned char> data = random_keys(t, sizes.back(), a.seed, a.specials);
    // Per row: the last n timed and its median, to predict the next n's cost; rows over the budget stop.
    std::map<std::string, std::pair<std::size_t, double>> last;
    std::map<std::string, bool> stopped;
    for (std::size_t n : sizes) {
      const Workload in{t, n, data.data(), values, value_bytes};
      status.show(std::string(value_bytes ? "std::stable_sort" : "std::sort") +
                  " reference, n = " + format_n(n));
      const Reference ref = reference_sort(t, data.data(), values, value_bytes, n);
      std::vector<Row> group;
      for (Contender& c : contenders) {
        if (!c.supports(t)) continue;
        if (a.specials && !c.clsort_float_order && (t == KeyType::f32 || t == KeyType::f64)) {
          const std::string note = c.label + ": not run on " + clsort::to_string(t) +
                                   " keys with --specials (it orders NaNs and -0 its own way)";
          if (std::find(report.notes.begin(), report.notes.end(), note) == report.notes.end())
            report.notes.push_back(note);
          continue;
        }
        if (c.cap && n > c.cap) {
          auto& s = skipped_above[c.label];
          s = s ? std::min(s, n) : n;
          continue;
        }
        if (stopped[c.label]) continue;
        RepPolicy row_policy = policy;
        if (a.no_cpu_libraries && is_std_row(c.label)) {
          row_policy.reps = 1;
          row_policy.adaptive = false;
        }
        if (caps && last.count(c.label)) {
          const auto [n0, ms0] = last[c.label];
          const double per_call = ms0 * std::pow(double(n) / double(n0), c.growth);
          // Warm-up, device rows' untimed sorts, timed repetitions, host-to-host calls.
          const int calls =
              1 + (c.keep_reference ? kDeviceWarmups : 0) + policy.min_reps * (c.run_host ? 2 : 1);
          if (per_call * calls > row_budget_ms) {
            const std::string where = c.label + ", " + clsort::to_string(t) + ": ";
            const std::string why = "about " + format_sig(per_call / 1000) +
                                    " s per sort predicted, over the row budget of " +
                                    format_fixed(report.row_budget_s, 0) + " s (--no-caps times it fully)";
            if (is_std_row(c.label)) {
              // The speedup column's baseline stays, timed once.
              row_policy.reps = 1;
              row_policy.adaptive = false;
              report.notes.push_back(where + "one repetition at n = " + format_n(n) + ": " + why);
            } else {
              stopped[c.label] = true;
              report.notes.push_back(where + "not timed from n = " + format_n(n) + " up: " + why);
              continue;
            }
          }
        }
        status.show(c.label + ", " + clsort::to_string(t) + ", n = " + format_n(n));
        try {
          group.push_back(measure(c, in, ref, row_policy, a.profile && c.kind == "device"));
        } catch (const std::exception& e) {
          // A third-party row (Boost) that fails is reported and dropped; clsort's own failures are fatal.
          if (!c.algorithm.empty() || is_std_row(c.label)) throw;
          stopped[c.label] = true;
          report.notes.push_back(c.label + ", " + clsort::to_string(t) + ": failed at n = " + format_n(n) +
                                 ": " + e.what());
          continue;
        }
        last[c.label] = {n, group.back().median_ms};
      }
      // After the device rows, which it puts in proportion; only where one of them ran.
      const auto after_device =
          std::find_if(group.rbegin(), group.rend(), [](const Row& r) { return r.kind == "device"; }).base();
      if (after_device != group.begin() && !stopped[bound_label]) {
        status.show(bound_label + ", " + clsort::to_string(t) + ", n = " + format_n(n));
        try {
          group.insert(after_device, measure_copy_bound(*state, in, policy));
        } catch (const std::exception& e) {
          stopped[bound_label] = true;
          report.notes.push_back(bound_label + ", " + clsort::to_string(t) +
                                 ": failed at n = " + format_n(n) + ": " + e.what());
        }
      }
      add_speedups(group);
      status.clear();
      bench::print_rows(group);
      report.rows.insert(report.rows.end(), group.begin(), group.end());
    }
  }
  for (const auto& [label, n] : skipped_above)
    report.notes.push_back(
        label + ": not timed from n = " + format_n(n) + " up" +
        (caps ? " (capped; --no-caps times every n)" : " (above the largest n it accepts)"));

  // First call: a fresh Sorter on a fresh context builds its programs on its first sort.
  if (!a.no_first_call) {
    for (KeyType t : types)
      for (const AlgorithmEntry* e : algorithms) {
        const std::size_t cap = caps && e->device_cap ? e->device_cap : clsort::max_n(e->algorithm);
        const std::size_t n = sizes.front();
        if (n > cap) continue;
        status.show(std::string("first call of ") + e->name + ", " + clsort::to_string(t));
        const std::vector<unsigned char> data = random_keys(t, n, a.seed, a.specials);
        const Reference ref = reference_sort(t, data.data(), values, value_bytes, n);
        std::vector<unsigned char> out(data.size()), out_values(n * value_bytes);
        bench::FirstCall f{e->name, t, n, 0, 0, 0, -1, true};
        auto t0 = Clock::now();
        DeviceState fresh(device);
        f.context_ms = ms_since(t0);
        fresh.prepare({t, n, data.data(), values, value_bytes});
        for (double* slot : {&f.first_ms, &f.second_ms}) {
          fresh.reset();
          t0 = Clock::now();
          fresh.run(e->algorithm);
          *slot = ms_since(t0);
          fresh.result(out.data(), out_values.data());
          f.verified = verify(t, out.data(), out_values.data(), ref, n, value_bytes) && f.verified;
        }
        for (const Row& r : report.rows)
          if (r.kind == "device" && r.algorithm == e->name && r.type == t && r.n == n)
            f.steady_ms = r.median_ms;
        report.first.push_back(f);
      }
    status.clear();
  }

  if (a.sweep_wg) {
    const std::vector<unsigned> wgs = parse_wg_list(a.wg_sizes, device);
    for (const AlgorithmEntry* e : algorithms) {
      const std::string param = wg_parameter(plan, e->name);
      if (param.empty()) {
        report.notes.push_back(std::string("--sweep-wg: ") + e->name +
                               " has no work-group parameter in the tuning");
        continue;
      }
      auto sweep_state = std::make_shared<DeviceState>(device);
      Contender c = device_contender(*e, sweep_state, caps);
      c.run_host = nullptr;
      for (KeyType t : types) {
        const std::vector<unsigned char> data = random_keys(t, sizes.back(), a.seed, a.specials);
        for (std::size_t n : sizes) {
          if (n > c.cap) continue;
          const Workload in{t, n, data.data(), values, value_bytes};
          const Reference ref = reference_sort(t, data.data(), values, value_bytes, n);
          for (unsigned wg : wgs) {
            const std::string tuning = param + "=" + std::to_string(wg);
            try {
              sweep_state->sorter.tune(tuning);
            } catch (const clsort::Error& err) {
              report.notes.push_back("--sweep-wg: " + tuning + " rejected: " + err.what());
              continue;
            }
            status.show("sweep " + tuning + ", " + clsort::to_string(t) + ", n = " + format_n(n));
            try {
              Row r = measure(c, in, ref, policy, false);
              r.tuning = tuning;
              report.sweep.push_back(r);
            } catch (const clsort::Error& err) {
              report.notes.push_back("--sweep-wg: " + tuning + " failed at n = " + format_n(n) + ": " +
                                     err.what());
            }
          }
        }
      }
    }
    status.clear();
  }

  report.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  bench::print_footer(report);
  if (!a.csv.empty()) bench::write_csv(report, a.csv);
  if (!a.json.empty()) bench::write_json(report, a.json);
  if (!a.plot.empty()) bench::write_plot(report, a.plot);

  bool ok = true;
  for (const Row& r : report.rows) ok = ok && r.verified;
  for (const Row& r : report.sweep) ok = ok && r.verified;
  for (const auto& f : report.first) ok = ok && f.verified;
  if (!ok)
    std::fprintf(stderr, "clsort: error: some sorted outputs did not match std::sort (rows marked FAILED)\n");
  return ok ? 0 : 1;
}

}  // namespace clsort_cli
