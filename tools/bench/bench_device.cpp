// `clsort bench`'s device rows: clsort's sorts on buffers already on the device (and host to host through
// Sorter::sort(std::vector&)), checked on the device, their profiles, and the copy bound beside them.
#include <algorithm>
#include <cstring>
#include <type_traits>

#include "bench.hpp"

namespace clsort_cli::bench {

/// The host data of the host-to-host rows, in the typed vectors applications pass to
/// Sorter::sort(std::vector&) and Sorter::sort_by_key(std::vector&, std::vector&).
struct HostData {
  virtual ~HostData() = default;
  virtual void assign(const Workload& in) = 0;
  virtual void sort(clsort::Sorter& sorter, const clsort::Options& o) = 0;
  virtual void result(void* keys, void* values) const = 0;
};

namespace {

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

std::unique_ptr<HostData> make_host_data(clsort::KeyType t, std::size_t value_bytes) {
  return visit_key_type(t, [&](auto k) -> std::unique_ptr<HostData> {
    using K = typename decltype(k)::type;
    if (!value_bytes) return std::make_unique<TypedHostData<K, NoValues>>();
    return visit_value_type(value_bytes, [&](auto v) -> std::unique_ptr<HostData> {
      return std::make_unique<TypedHostData<K, typename decltype(v)::type>>();
    });
  });
}

}  // namespace

const char* const kCopyBoundLabel = "copy bound (pinned)";

DeviceState::DeviceState(const cl::Device& d) : device(d), sorter(d) {}

DeviceState::~DeviceState() {
  unmap_staging();
}

cl::Buffer DeviceState::device_buffer(std::size_t size) {
  cl_int status = CL_SUCCESS;
  cl::Buffer b(sorter.context(), CL_MEM_READ_WRITE, size, nullptr, &status);
  check_cl(status, "clCreateBuffer");
  return b;
}

void DeviceState::prepare(const Workload& input) {
  in = input;
  if (bytes() > capacity) {
    src = device_buffer(bytes());
    work = device_buffer(bytes());
    reference = device_buffer(bytes());
    capacity = bytes();
  }
  check_cl(sorter.queue().enqueueWriteBuffer(src, CL_TRUE, 0, bytes(), in.keys), "uploading keys");
  if (in.values) {
    if (values_bytes() > values_capacity) {
      values_src = device_buffer(values_bytes());
      values_work = device_buffer(values_bytes());
      values_reference = device_buffer(values_bytes());
      values_capacity = values_bytes();
    }
    check_cl(sorter.queue().enqueueWriteBuffer(values_src, CL_TRUE, 0, values_bytes(), in.values),
             "uploading values");
  }
  host = make_host_data(in.type, in.values ? in.value_bytes : 0);
}
void DeviceState::reset() {
  check_cl(sorter.queue().enqueueCopyBuffer(src, work, 0, 0, bytes()), "clEnqueueCopyBuffer");
  if (in.values)
    check_cl(sorter.queue().enqueueCopyBuffer(values_src, values_work, 0, 0, values_bytes()),
             "clEnqueueCopyBuffer");
  check_cl(sorter.queue().finish(), "clFinish");
}
void DeviceState::run(clsort::Algorithm a) {
  clsort::Options o;
  o.algorithm = a;
  check_cl(sorter.sort_buffer(in.type, work, in.values ? &values_work : nullptr, in.value_bytes, in.n, o, {})
               .wait(),
           "waiting for the sort");
}
void DeviceState::keep_reference() {
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
    check_cl(status, "clCreateProgramWithSource(bench_differ)");
    check_cl(program.build(std::vector<cl::Device>{device}), "clBuildProgram(bench_differ)");
    differ_kernel = cl::Kernel(program, "bench_differ", &status);
    check_cl(status, "clCreateKernel(bench_differ)");
    differ = device_buffer(4);
  }
  check_cl(q.enqueueCopyBuffer(work, reference, 0, 0, bytes()), "clEnqueueCopyBuffer");
  if (in.values)
    check_cl(q.enqueueCopyBuffer(values_work, values_reference, 0, 0, values_bytes()), "clEnqueueCopyBuffer");
  const cl_uint zero = 0;
  check_cl(q.enqueueWriteBuffer(differ, CL_TRUE, 0, 4, &zero), "clEnqueueWriteBuffer");
}
void DeviceState::compare_with_reference() {
  auto compare = [&](const cl::Buffer& a, const cl::Buffer& b, std::size_t size) {
    const cl_uint words = cl_uint(size / 4);
    if (!words) return;
    check_cl(differ_kernel.setArg(0, a), "clSetKernelArg");
    check_cl(differ_kernel.setArg(1, b), "clSetKernelArg");
    check_cl(differ_kernel.setArg(2, words), "clSetKernelArg");
    check_cl(differ_kernel.setArg(3, differ), "clSetKernelArg");
    const std::size_t global = std::min<std::size_t>((words + 63) / 64 * 64, std::size_t(1) << 16);
    check_cl(sorter.queue().enqueueNDRangeKernel(differ_kernel, cl::NullRange, cl::NDRange(global)),
             "clEnqueueNDRangeKernel(bench_differ)");
  };
  compare(work, reference, bytes());
  if (in.values) compare(values_work, values_reference, values_bytes());
}
bool DeviceState::matched_reference() {
  cl_uint count = 0;
  check_cl(sorter.queue().enqueueReadBuffer(differ, CL_TRUE, 0, 4, &count), "reading the differing words");
  return count == 0;
}
void DeviceState::result(void* keys, void* values) {
  check_cl(sorter.queue().enqueueReadBuffer(work, CL_TRUE, 0, bytes(), keys), "downloading keys");
  if (in.values)
    check_cl(sorter.queue().enqueueReadBuffer(values_work, CL_TRUE, 0, values_bytes(), values),
             "downloading values");
}

void DeviceState::stage() {
  const std::size_t total = bytes() + values_bytes();
  if (total > staging_capacity) {
    unmap_staging();
    cl_int status = CL_SUCCESS;
    staging =
        cl::Buffer(sorter.context(), CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, total, nullptr, &status);
    check_cl(status, "clCreateBuffer(CL_MEM_ALLOC_HOST_PTR)");
    mapped = static_cast<unsigned char*>(sorter.queue().enqueueMapBuffer(
        staging, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, total, nullptr, nullptr, &status));
    check_cl(status, "clEnqueueMapBuffer");
    staging_capacity = total;
  }
  std::memcpy(mapped, in.keys, bytes());
  if (in.values) std::memcpy(mapped + bytes(), in.values, values_bytes());
}
void DeviceState::copy_round_trip() {
  const cl::CommandQueue& q = sorter.queue();
  check_cl(q.enqueueWriteBuffer(work, CL_TRUE, 0, bytes(), mapped), "uploading keys");
  if (in.values)
    check_cl(q.enqueueWriteBuffer(values_work, CL_TRUE, 0, values_bytes(), mapped + bytes()),
             "uploading values");
  check_cl(q.enqueueReadBuffer(work, CL_TRUE, 0, bytes(), mapped), "downloading keys");
  if (in.values)
    check_cl(q.enqueueReadBuffer(values_work, CL_TRUE, 0, values_bytes(), mapped + bytes()),
             "downloading values");
}
bool DeviceState::staging_intact() const {
  return std::memcmp(mapped, in.keys, bytes()) == 0 &&
         (!in.values || std::memcmp(mapped + bytes(), in.values, values_bytes()) == 0);
}
void DeviceState::unmap_staging() {
  if (!mapped) return;
  // Errors are ignored: this also runs from the destructor, and the buffer is released either way.
  sorter.queue().enqueueUnmapMemObject(staging, mapped);
  sorter.queue().finish();
  mapped = nullptr;
  staging_capacity = 0;
}

std::vector<Stage> DeviceState::profile(clsort::Algorithm a) {
  if (!profiler) profiler = std::make_unique<clsort::Sorter>(device, true);
  const cl::CommandQueue& q = profiler->queue();
  cl_int status = CL_SUCCESS;
  cl::Buffer buf(profiler->context(), CL_MEM_READ_WRITE, bytes(), nullptr, &status);
  check_cl(status, "clCreateBuffer");
  cl::Buffer values_buf;
  if (in.values) {
    values_buf = cl::Buffer(profiler->context(), CL_MEM_READ_WRITE, values_bytes(), nullptr, &status);
    check_cl(status, "clCreateBuffer");
  }
  std::vector<unsigned char> back(bytes() + values_bytes());
  auto event_ms = [](const cl::Event& e) {
    cl_ulong start = 0, end = 0;
    check_cl(e.getProfilingInfo(CL_PROFILING_COMMAND_START, &start), "clGetEventProfilingInfo");
    check_cl(e.getProfilingInfo(CL_PROFILING_COMMAND_END, &end), "clGetEventProfilingInfo");
    return double(end - start) * 1e-6;
  };
  clsort::Options o;
  o.algorithm = a;
  // With values, "upload" and "download" are two copies each: keys, then values.
  Stage upload{"upload", 0, 0}, download{"download", 0, 0};
  cl::Event e;
  check_cl(q.enqueueWriteBuffer(buf, CL_TRUE, 0, bytes(), in.keys, nullptr, &e), "uploading keys");
  upload.calls++, upload.ms += event_ms(e);
  if (in.values) {
    check_cl(q.enqueueWriteBuffer(values_buf, CL_TRUE, 0, values_bytes(), in.values, nullptr, &e),
             "uploading values");
    upload.calls++, upload.ms += event_ms(e);
  }
  check_cl(profiler->sort_buffer(in.type, buf, in.values ? &values_buf : nullptr, in.value_bytes, in.n, o, {})
               .wait(),
           "waiting for the sort");
  const std::vector<clsort::KernelTime> kernels = profiler->last_profile();
  check_cl(q.enqueueReadBuffer(buf, CL_TRUE, 0, bytes(), back.data(), nullptr, &e), "downloading keys");
  download.calls++, download.ms += event_ms(e);
  if (in.values) {
    check_cl(q.enqueueReadBuffer(values_buf, CL_TRUE, 0, values_bytes(), back.data() + bytes(), nullptr, &e),
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

Contender device_contender(const AlgorithmInfo& a, const std::shared_ptr<DeviceState>& s, bool caps) {
  Contender c;
  c.label = std::string(a.name()) + " (OpenCL)";
  c.algorithm = a.name();
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

Row measure_copy_bound(DeviceState& s, const Workload& in, const RepPolicy& policy) {
  Row r = new_row(in, kCopyBoundLabel, "", "bound");
  s.prepare(in);
  s.stage();
  s.copy_round_trip();  // warm-up: first-touch of the device buffers and of the driver's own staging
  double spent = 0;
  for (int i = 0; !policy.done(i, spent); ++i) {
    const auto t0 = Clock::now();
    s.copy_round_trip();
    r.times_ms.push_back(ms_since(t0));
    spent += r.times_ms.back();
    r.verified = s.staging_intact() && r.verified;
  }
  summarize(r);
  return r;
}

}  // namespace clsort_cli::bench
