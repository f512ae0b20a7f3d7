// The public entry points: Sorter construction, argument validation, dispatch to an algorithm driver,
// and the host-data paths (upload, sort, download).
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>
#include <sstream>

#include "program_cache.hpp"
#include "sorter_impl.hpp"
#include "staging.hpp"

namespace clsort {
namespace {

constexpr std::size_t kMaxRadix = std::numeric_limits<std::uint32_t>::max();
constexpr std::size_t kMaxBitonic = std::size_t(1) << 31;  // its virtual size 2^k must fit in 32 bits
constexpr std::size_t kMaxSelection = std::size_t(1) << 20;
// Odd-even transposition runs one launch per tile (O(n) phases, O(n^2 / tile) work).
constexpr std::size_t kMaxOddEven = std::size_t(1) << 20;
constexpr std::size_t kMaxMerge = std::size_t(1) << 31;  // run pairs of width 2^31 must fit in 32 bits

unsigned kind_of(KeyType t) {
  switch (t) {
    case KeyType::u32:
    case KeyType::u64:
      return 0;
    case KeyType::i32:
    case KeyType::i64:
      return 1;
    case KeyType::f32:
    case KeyType::f64:
      return 2;
  }
  return 0;
}

template <class T>
T info(const cl::Device& d, cl_device_info what) {
  T value{};
  CLSORT_CHECK(d.getInfo(what, &value));
  return value;
}

cl::Context context_of(const cl::CommandQueue& q) {
  cl::Context c;
  CLSORT_CHECK(q.getInfo(CL_QUEUE_CONTEXT, &c));
  return c;
}
cl::Device device_of(const cl::CommandQueue& q) {
  cl::Device d;
  CLSORT_CHECK(q.getInfo(CL_QUEUE_DEVICE, &d));
  return d;
}

std::unique_ptr<Sorter::Impl> make_impl(const cl::Device& device, bool profiling) {
  if (!device()) detail::throw_argument_error("device", "null cl::Device");
  cl_int status = CL_SUCCESS;
  cl::Context context(device, nullptr, nullptr, nullptr, &status);
  CLSORT_CHECK(status);
  cl::CommandQueue queue(context, device, profiling ? CL_QUEUE_PROFILING_ENABLE : 0, &status);
  CLSORT_CHECK(status);
  return std::make_unique<Sorter::Impl>(context, device, queue);
}

// Where a buffer's bytes lie within its parent allocation, to detect keys and values that overlap.
std::pair<cl_mem, std::size_t> origin_of(const cl::Buffer& b) {
  cl_mem parent = nullptr;
  std::size_t offset = 0;
  CLSORT_CHECK(b.getInfo(CL_MEM_ASSOCIATED_MEMOBJECT, &parent));
  if (!parent) return {b(), 0};
  CLSORT_CHECK(b.getInfo(CL_MEM_OFFSET, &offset));
  return {parent, offset};
}

}  // namespace

std::size_t max_n(Algorithm a) noexcept {
  switch (a) {
    case Algorithm::selection:
      return kMaxSelection;
    case Algorithm::odd_even:
      return kMaxOddEven;
    case Algorithm::merge:
      return kMaxMerge;
    case Algorithm::bitonic:
      return kMaxBitonic;
    case Algorithm::automatic:
    case Algorithm::radix:
      return kMaxRadix;
  }
  return 0;
}

Sorter::Impl::Impl(cl::Context c, cl::Device d, cl::CommandQueue q)
    : context(std::move(c)), device(std::move(d)), queue(std::move(q)) {
  cl_command_queue_properties props = 0;
  CLSORT_CHECK(queue.getInfo(CL_QUEUE_PROPERTIES, &props));
  profiling = (props & CL_QUEUE_PROFILING_ENABLE) != 0;
  in_order = (props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) == 0;
  max_alloc = info<cl_ulong>(device, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
  compute_units = info<cl_uint>(device, CL_DEVICE_MAX_COMPUTE_UNITS);
  tuning = detail::tuning_for(device);
  if (const char* env = std::getenv("CLSORT_TUNING"); env && *env) tuning.apply(env, "CLSORT_TUNING");
  detail::retain_context_programs(context());
}

Sorter::Impl::~Impl() {
  // Destructors never throw; a context being torn down with work in flight is the caller's to avoid.
  detail::release_staging(*this);
  detail::release_context_programs(context());
}

const detail::Tuning& Sorter::Impl::fitted_tuning(unsigned key_bytes, unsigned value_bytes) const {
  auto it = fitted.find({key_bytes, value_bytes});
  if (it == fitted.end())
    it = fitted
             .emplace(std::make_pair(key_bytes, value_bytes),
                      detail::fit_to_device(tuning, device, key_bytes, value_bytes))
             .first;
  return it->second;
}

Sorter::Sorter() : impl_(make_impl(default_device(), false)) {}
Sorter::Sorter(const cl::Device& device, bool profiling) : impl_(make_impl(device, profiling)) {}
Sorter::Sorter(const cl::CommandQueue& queue) {
  if (!queue()) detail::throw_argument_error("queue", "null cl::CommandQueue");
  impl_ = std::make_unique<Impl>(context_of(queue), device_of(queue), queue);
}
Sorter::~Sorter() = default;
Sorter::Sorter(Sorter&&) noexcept = default;
Sorter& Sorter::operator=(Sorter&&) noexcept = default;

const cl::CommandQueue& Sorter::queue() const {
  return impl_->queue;
}
const cl::Context& Sorter::context() const {
  return impl_->context;
}
const cl::Device& Sorter::device() const {
  return impl_->device;
}

void Sorter::throw_size_mismatch(std::size_t keys, std::size_t values) {
  detail::throw_argument_error(
      "values", "has " + std::to_string(values) + " elements but keys has " + std::to_string(keys));
}

Algorithm Sorter::choose(KeyType type, std::size_t n, bool with_values) const {
  const detail::Tuning& t = impl_->fitted_tuning(unsigned(key_size(type)), with_values ? 8 : 0);
  // One work-group's local-memory bitonic sort is a single launch: best while the tile holds n.
  if (n <= t.small_n && n <= t.bitonic_tile) return Algorithm::bitonic;
  return Algorithm::radix;
}

DevicePlan Sorter::plan() const {
  DevicePlan p;
  const detail::Tuning& t = impl_->tuning;
  p.tuning_row = t.row;
  p.tuning = t.describe();
  p.measured = t.measured;
  // The same thresholds choose() applies, per key and value width (local memory fits fewer wide keys).
  auto small = [&](unsigned key_bytes, unsigned value_bytes) {
    const detail::Tuning f = detail::fit_to_device(t, impl_->device, key_bytes, value_bytes);
    return std::to_string(std::min<std::size_t>(f.small_n, f.bitonic_tile));
  };
  const std::string s32 = small(4, 0), s64 = small(8, 0), s64v = small(8, 8);
  p.automatic = "n <= " + s32 + ": bitonic (one work-group); above: radix";
  if (s64 != s32 || s64v != s32)
    p.automatic += " (64-bit keys: " + s64 + ", 64-bit keys with 8-byte values: " + s64v + ")";
  return p;
}

void Sorter::tune(const std::string& overrides) {
  detail::Tuning t = impl_->tuning;
  t.apply(overrides, "tune");
  impl_->tuning = t;  // only once every pair parsed: a bad override changes nothing
  impl_->fitted.clear();
}

std::vector<KernelTime> Sorter::last_profile() const {
  std::vector<KernelTime> result;
  std::vector<cl_ulong> starts;
  for (auto& [name, ev] : impl_->profile) {
    cl_ulong start = 0, end = 0;
    CLSORT_CHECK(ev.wait());
    CLSORT_CHECK(ev.getProfilingInfo(CL_PROFILING_COMMAND_START, &start));
    CLSORT_CHECK(ev.getProfilingInfo(CL_PROFILING_COMMAND_END, &end));
    result.push_back({name, double(end - start) * 1e-6});
    starts.push_back(start);
  }
  if (!starts.empty()) {
    const cl_ulong first = *std::min_element(starts.begin(), starts.end());
    for (std::size_t i = 0; i < result.size(); ++i) result[i].start_ms = double(starts[i] - first) * 1e-6;
  }
  return result;
}

cl::Event Sorter::sort_buffer(KeyType type, const cl::Buffer& keys, const cl::Buffer* values,
                              std::size_t value_bytes, std::size_t n, const Options& options,
                              const std::vector<cl::Event>& wait) {
  Impl& s = *impl_;
  const std::size_t kb = key_size(type);
  // ---- Validation: everything is checked before anything is enqueued, so errors change nothing.
  if (!keys()) detail::throw_argument_error("keys", "null cl::Buffer");
  cl::Context kctx;
  CLSORT_CHECK(keys.getInfo(CL_MEM_CONTEXT, &kctx));
  if (kctx() != s.context()) detail::throw_argument_error("keys", "buffer belongs to another OpenCL context");
  std::size_t kbytes = 0;
  CLSORT_CHECK(keys.getInfo(CL_MEM_SIZE, &kbytes));
  if (n > kbytes / kb)
    detail::throw_argument_error(
        "n", std::to_string(n) + " keys do not fit in a buffer of " + std::to_string(kbytes) + " bytes");
  if (values) {
    if (value_bytes != 4 && value_bytes != 8)
      detail::throw_argument_error("values", "must be 4 or 8 bytes wide");
    if (!(*values)()) detail::throw_argument_error("values", "null cl::Buffer");
    cl::Context vctx;
    CLSORT_CHECK(values->getInfo(CL_MEM_CONTEXT, &vctx));
    if (vctx() != s.context())
      detail::throw_argument_error("values", "buffer belongs to another OpenCL context");
    std::size_t vbytes = 0;
    CLSORT_CHECK(values->getInfo(CL_MEM_SIZE, &vbytes));
    if (n > vbytes / value_bytes)
      detail::throw_argument_error("values", "holds " + std::to_string(vbytes / value_bytes) +
                                                 " values, fewer than n = " + std::to_string(n));
    const auto ko = origin_of(keys), vo = origin_of(*values);
    if ((*values)() == keys() ||
        (ko.first == vo.first && ko.second < vo.second + n * value_bytes && vo.second < ko.second + n * kb))
      detail::throw_argument_error("values", "keys and values must not be the same or overlapping buffers");
  } else {
    value_bytes = 0;
  }
  Algorithm algorithm = options.algorithm;
  if (algorithm == Algorithm::automatic) algorithm = choose(type, n, values != nullptr);
  if (n > max_n(algorithm))
    detail::throw_argument_error("n", std::to_string(n) + " exceeds the largest n " + to_string(algorithm) +
                                          " sort accepts (" + std::to_string(max_n(algorithm)) + ")");

  detail::Run run{s,    type,   unsigned(kb),          kind_of(type),    options.order == Order::descending,
                  keys, values, unsigned(value_bytes), std::uint32_t(n), wait,
                  {}};
  s.profile.clear();
  if (s.last()) run.deps.push_back(s.last);
  if (n > 1) {
    switch (algorithm) {
      case Algorithm::radix:
        detail::radix_sort(run);
        break;
      case Algorithm::bitonic:
        detail::bitonic_sort(run);
        break;
      case Algorithm::selection:
        detail::selection_sort(run);
        break;
      case Algorithm::odd_even:
        detail::odd_even_sort(run);
        break;
      case Algorithm::merge:
        detail::merge_sort(run);
        break;
      case Algorithm::automatic:
        break;
    }
  }
  s.last = run.finish();
  return s.last;
}

void Sorter::sort_host(KeyType type, void* keys, std::size_t n, void* values, std::size_t value_bytes,
                       const Options& options) {
  if (n == 0) return;
  if (!keys) detail::throw_argument_error("keys", "null pointer");
  if (values == nullptr) value_bytes = 0;
  Impl& s = *impl_;
  const std::size_t kb = key_size(type);
  detail::Run staging{s, type, unsigned(kb), 0, false, {}, nullptr, unsigned(value_bytes), 0, {}, {}};
  if (n > max_n(options.algorithm))
    detail::throw_argument_error("n", std::to_string(n) + " exceeds the largest n " +
                                          to_string(options.algorithm) + " sort accepts (" +
                                          std::to_string(max_n(options.algorithm)) + ")");
  cl::Buffer kbuf = staging.scratch(detail::kHostKeys, n * kb);
  cl::Buffer vbuf;
  if (values) vbuf = staging.scratch(detail::kHostValues, n * value_bytes);
  // GPUs: through pinned staging in chunks (host.chunk; off on CPU devices, whose buffers are host memory).
  if (s.tuning.host_chunk && n * (kb + value_bytes) >= s.tuning.host_min) {
    std::vector<detail::HostArray> arrays{{static_cast<unsigned char*>(keys), kbuf, n * kb}};
    if (values) arrays.push_back({static_cast<unsigned char*>(values), vbuf, n * value_bytes});
    if (detail::sort_host_staged(*this, s, type, arrays, n, value_bytes, options)) return;
  }
  // The caller's arrays are only written by the final reads, which run only if the sort succeeded. The
  // transfers are asynchronous, so every enqueued one is waited for before anything (an exception too)
  // leaves: the caller's memory must not be read or written after we return.
  std::vector<cl::Event> pending;
  auto wait_all = [&pending] {
    for (cl::Event& e : pending) e.wait();  // statuses are checked below; errors here only drain
  };
  try {
    std::vector<cl::Event> up(1);
    if (s.last()) staging.deps.push_back(s.last);
    CLSORT_CHECK(s.queue.enqueueWriteBuffer(kbuf, CL_FALSE, 0, n * kb, keys, &staging.deps, &up[0]));
    pending.push_back(up[0]);
    if (values) {
      up.emplace_back();
      CLSORT_CHECK(
          s.queue.enqueueWriteBuffer(vbuf, CL_FALSE, 0, n * value_bytes, values, &staging.deps, &up[1]));
      pending.push_back(up[1]);
    }
    cl::Event done = sort_buffer(type, kbuf, values ? &vbuf : nullptr, value_bytes, n, options, up);
    s.record_before("upload", up);
    std::vector<cl::Event> after{done};
    cl::Event rk, rv;
    CLSORT_CHECK(s.queue.enqueueReadBuffer(kbuf, CL_FALSE, 0, n * kb, keys, &after, &rk));
    pending.push_back(rk);
    s.record("download", rk);
    if (values) {
      CLSORT_CHECK(s.queue.enqueueReadBuffer(vbuf, CL_FALSE, 0, n * value_bytes, values, &after, &rv));
      pending.push_back(rv);
      s.record("download", rv);
    }
    wait_all();
    CLSORT_CHECK(rk.wait());
    if (values) CLSORT_CHECK(rv.wait());
    s.last = values ? rv : rk;
  } catch (...) {
    wait_all();
    throw;
  }
}

void Sorter::argsort_host(KeyType type, const void* keys, std::size_t n, std::uint32_t* indices,
                          const Options& options) {
  if (n == 0) return;
  if (!keys || !indices) detail::throw_argument_error(keys ? "indices" : "keys", "null pointer");
  if (n > kMaxRadix) detail::throw_argument_error("n", "argsort returns 32-bit indices: n must be < 2^32");
  std::vector<std::uint32_t> iota(n);
  for (std::size_t i = 0; i < n; ++i) iota[i] = std::uint32_t(i);
  const std::size_t kb = key_size(type);
  std::vector<unsigned char> copy(static_cast<const unsigned char*>(keys),
                                  static_cast<const unsigned char*>(keys) + n * kb);
  sort_host(type, copy.data(), n, iota.data(), 4, options);
  std::memcpy(indices, iota.data(), n * 4);
}

namespace detail {

Tuning Run::tuning() const {
  return s.fitted_tuning(key_bytes, value_bytes);
}

std::string Run::program_options(const std::string& defines, unsigned program_value_bytes) const {
  return "-DKEY_BITS=" + std::to_string(key_bytes * 8) +
         " -DVALUE_BYTES=" + std::to_string(program_value_bytes) + " " + defines;
}

cl::Kernel Run::kernel(const std::string& file, const std::string& name, const std::string& defines,
                       unsigned program_value_bytes) {
  const std::string options = program_options(defines, program_value_bytes);
  const std::string key = file + "|" + name + "|" + options;
  auto it = s.kernels.find(key);
  if (it != s.kernels.end()) return it->second;
  cl::Program program = get_program(s.context, s.device, {"common.cl", file}, options);
  cl_int status = CL_SUCCESS;
  cl::Kernel k(program, name.c_str(), &status);
  if (status != CL_SUCCESS) throw_cl_error(status, ("clCreateKernel(" + name + ")").c_str());
  s.kernels.emplace(key, k);
  return k;
}

cl::Buffer Run::scratch(ScratchSlot slot, std::size_t bytes) {
  bytes = std::max<std::size_t>(bytes, 64);
  auto& entry = s.scratch[slot];
  if (entry.second >= bytes) return entry.first;
  if (bytes > s.max_alloc)
    throw Error(CL_INVALID_BUFFER_SIZE, "n",
                "clsort: the sort needs a " + std::to_string(bytes) +
                    "-byte scratch buffer, more than the device's " + "largest allocation (" +
                    std::to_string(s.max_alloc) + " bytes)",
                {}, Error::Kind::out_of_memory);
  // Grow with headroom so that slowly growing n does not reallocate every call.
  const std::size_t size = std::min<std::size_t>(s.max_alloc, bytes + bytes / 4);
  cl_int status = CL_SUCCESS;
  cl::Buffer b(s.context, CL_MEM_READ_WRITE, size, nullptr, &status);
  if (status != CL_SUCCESS) throw_cl_error(status, "clCreateBuffer(scratch)");
  entry = {b, size};
  ++s.scratch_made;
  return b;
}

void Run::launch(cl::Kernel& k, std::size_t global, std::size_t local, const char* label) {
  cl::Event ev;
  CLSORT_CHECK(s.queue.enqueueNDRangeKernel(k, cl::NullRange, cl::NDRange(round_up(global, local)),
                                            cl::NDRange(local), &deps, events() ? &ev : nullptr));
  after(ev, label);
}

void Run::copy(const cl::Buffer& src, const cl::Buffer& dst, std::size_t bytes, const char* label) {
  cl::Event ev;
  CLSORT_CHECK(s.queue.enqueueCopyBuffer(src, dst, 0, 0, bytes, &deps, events() ? &ev : nullptr));
  after(ev, label);
}

// An in-order queue already orders our commands, so only the first command carries the caller's wait
// list there (explicit wait lists cost time per launch on some drivers), and, unless the queue profiles,
// no command gets an event of its own: NVIDIA's OpenCL spends about 2 µs creating each, 10-15% of a sort
// of 2^16 keys, whose six launches cost the host more than the GPU needs to run them
// (docs/benchmarks.md). finish() then marks the end.
bool Run::events() const {
  return !s.in_order || s.profiling;
}

void Run::after(const cl::Event& ev, const char* label) {
  last = ev;
  if (s.in_order)
    deps.clear();
  else
    deps.assign(1, ev);
  s.record(label, ev);
}

cl::Event Run::finish() {
  if (last() && deps.empty()) return last;
  if (deps.size() == 1) return deps[0];
  // Commands without events, or several events to wait for: a marker (with an empty list, it waits for
  // everything enqueued before it on the queue).
  cl::Event ev;
  CLSORT_CHECK(s.queue.enqueueMarkerWithWaitList(&deps, &ev));
  deps.assign(1, ev);
  return ev;
}

void with_default_sorter(void (*f)(Sorter&, void*), void* arg) {
  static std::mutex m;
  std::lock_guard<std::mutex> lock(m);
  f(default_sorter(), arg);
}

}  // namespace detail

Sorter& default_sorter() {
  // Deliberately leaked: destroying OpenCL objects during static destruction races the ICD's own teardown.
  static Sorter* s = new Sorter();
  return *s;
}

}  // namespace clsort
