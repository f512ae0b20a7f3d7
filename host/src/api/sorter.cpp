// The public entry points: Sorter construction, argument validation, planning and dispatch to an
// algorithm driver (enqueue_sort), and the host-data paths (upload, the same enqueue_sort, download).
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>

#include "algorithms/plan.hpp"
#include "algorithms/radix/radix.hpp"
#include "engine/program_cache.hpp"
#include "engine/run.hpp"
#include "engine/sorter_impl.hpp"
#include "host_data/staging.hpp"

namespace clsort {
namespace {

// Radix sort past 2^32 - 1 keys partitions them first (dispatch/split.cpp): device memory is the limit.
constexpr std::size_t kMaxRadix = std::numeric_limits<std::size_t>::max();
constexpr std::size_t kMax32 = std::numeric_limits<std::uint32_t>::max();  // 32-bit indices
constexpr std::size_t kMaxBitonic = std::size_t(1) << 31;  // its virtual size 2^k must fit in 32 bits
constexpr std::size_t kMaxSelection = std::size_t(1) << 20;
// Odd-even transposition runs one launch per tile (O(n) phases, O(n^2 / tile) work).
constexpr std::size_t kMaxOddEven = std::size_t(1) << 20;
constexpr std::size_t kMaxMerge = std::size_t(1) << 31;  // run pairs of width 2^31 must fit in 32 bits

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

// Values of any width: n of them must be addressable. `value_bytes` 0 with values is refused by the
// callers, which know whether there are values.
void check_value_bytes(std::size_t value_bytes, std::size_t n) {
  if (value_bytes && n > std::numeric_limits<std::size_t>::max() / value_bytes)
    detail::throw_argument_error(
        "n", std::to_string(n) + " values of " + std::to_string(value_bytes) + " bytes do not fit in memory");
}
void check_values_width(std::size_t value_bytes) {
  if (value_bytes == 0) detail::throw_argument_error("value_bytes", "values must be at least 1 byte wide");
}

// Before any memory is touched: n that the device cannot hold (Sorter::max_n) is refused.
void check_fits(const Sorter& sorter, KeyType type, std::size_t n, std::size_t value_bytes) {
  const std::size_t most = sorter.max_n(type, value_bytes);
  if (n > most)
    throw Error(
        CL_INVALID_BUFFER_SIZE, "n",
        "clsort: " + std::to_string(n) + " " + to_string(type) + " keys" +
            (value_bytes ? " with values of " + std::to_string(value_bytes) + " bytes" : std::string()) +
            " need more memory than the device has: at most " + std::to_string(most) +
            " there (Sorter::max_n: its largest allocation and its global memory)",
        {}, Error::Kind::out_of_memory);
}

// The plan of one sort at the value width its passes carry; kept for the next call of the same shape
// (Sorter::Impl::plans).
std::shared_ptr<const detail::Plan> plan_at(const Sorter::Impl& s, Algorithm algorithm, KeyType type,
                                            std::size_t n, unsigned vb, const Options& options) {
  const unsigned kb = unsigned(key_size(type));
  const std::uint32_t n32 = std::uint32_t(std::min(n, kMax32));
  const Sorter::Impl::PlanKey key{int(algorithm), kb, vb, n32, options.begin_bit, options.end_bit};
  return s.plans.get(key, [&] {
    const detail::PlanInput in{s.facts, s.tuning(kb, vb), kb, vb, n32, options.begin_bit, options.end_bit};
    return std::make_shared<const detail::Plan>(detail::make_plan(algorithm, in));
  });
}

// The plan that carries values of 16 bytes through its passes beside their keys, where the tuning asks
// for it (radix.values16) and the plan is Onesweep with the multisplit ranking; null elsewhere, where they
// are sorted as 32-bit indices and then moved once (host/src/permute.cpp).
std::shared_ptr<const detail::Plan> riding_plan(const Sorter::Impl& s, Algorithm algorithm, KeyType type,
                                                std::size_t n, std::size_t value_bytes,
                                                const Options& options) {
  if (value_bytes != 16 || algorithm != Algorithm::radix || n > kMax32 ||
      !s.tuning(unsigned(key_size(type)), 16).radix.values16)
    return nullptr;
  auto plan = plan_at(s, algorithm, type, n, 16, options);
  const auto* radix = std::get_if<detail::RadixPlan>(plan.get());
  return radix && radix->shape == detail::RadixPlan::Shape::onesweep && radix->multisplit ? plan : nullptr;
}

// The plan of one sort: the fitted tuning for its widths, then the algorithm's plan function.
std::shared_ptr<const detail::Plan> plan_of(const Sorter::Impl& s, Algorithm algorithm, KeyType type,
                                            std::size_t n, std::size_t value_bytes, const Options& options) {
  if (auto plan = riding_plan(s, algorithm, type, n, value_bytes, options)) return plan;
  return plan_at(s, algorithm, type, n, unsigned(detail::carried_width(value_bytes)), options);
}

// A host sort on a CPU device whose plan is the radix CPU shape runs in the caller's arrays themselves
// (CL_MEM_USE_HOST_PTR): a CPU device's buffers are host memory, and PoCL and Intel's CPU runtime both use
// the caller's pointer as the buffer at any alignment, so the upload and download copies go (PoCL, u64
// 2^20: 1.3 ms of 5.3). The CPU shape only reads its input until its last kernel, which writes the
// result, so a sort that fails before that leaves the caller's arrays as they were. Returns false, having
// enqueued nothing, where this does not apply.
bool sort_host_zero_copy(Sorter::Impl& s, KeyType type, const void* keys_in, void* keys, std::size_t n,
                         void* values, std::size_t value_bytes, const Options& options) {
  if (s.facts.type != "cpu") return false;
  const auto plan = detail::cpu_shape_plan(s, type, n, values ? value_bytes : 0, options);
  if (!plan) return false;
  const std::size_t kb = key_size(type);
  // The kernels load whole keys and values: an array off its type's alignment (a NumPy view at an odd
  // offset) is copied into a buffer instead.
  auto aligned = [](const void* p, std::size_t a) { return reinterpret_cast<std::uintptr_t>(p) % a == 0; };
  if (!aligned(keys, kb) || !aligned(keys_in, kb) || (values && !aligned(values, value_bytes))) return false;
  cl_int status = CL_SUCCESS;
  auto wrap = [&](const void* host, std::size_t bytes) {
    cl::Buffer b = detail::wrap_host(s, host, bytes, &status);
    if (status != CL_SUCCESS) detail::throw_cl_error(status, "clCreateBuffer(CL_MEM_USE_HOST_PTR)");
    return b;
  };
  const cl::Buffer out = wrap(keys, n * kb);
  const cl::Buffer in = keys_in == keys ? out : wrap(keys_in, n * kb);  // only read (Run::source)
  cl::Buffer vbuf;
  if (values) vbuf = wrap(values, n * value_bytes);
  std::vector<cl::Event> deps;
  if (s.last()) deps.push_back(s.last);
  // Every command with an event of its own (as on an out-of-order queue): the sort then ends in its last
  // kernel's event, and nothing that could fail (a marker) is enqueued after the kernel that writes the
  // caller's arrays.
  detail::Run run(s, {s.queue, s.profiling, false}, type, options.order == Order::descending, out,
                  values ? &vbuf : nullptr, unsigned(value_bytes), std::uint32_t(n), std::move(deps));
  if (keys_in != keys) run.source = &in;
  try {
    detail::execute(run, *plan);
    cl::Event done = run.finish();
    // Where the runtime copied after all, mapping brings the result back; where it did not, it is free.
    // The sort is waited for on the host first: a map that waited for it on the queue took 4.5 ms longer
    // at 2^20 u64 keys on Intel's CPU runtime 2026.2.
    CLSORT_CHECK(done.wait());
    cl::Event unmapped;
    for (const cl::Buffer* b : std::initializer_list<const cl::Buffer*>{&out, &vbuf}) {
      if (b == &vbuf && !values) continue;
      void* p = s.queue.enqueueMapBuffer(*b, CL_TRUE, CL_MAP_READ, 0, b == &out ? n * kb : n * value_bytes,
                                         nullptr, nullptr, &status);
      if (status != CL_SUCCESS) detail::throw_cl_error(status, "clEnqueueMapBuffer");
      CLSORT_CHECK(s.queue.enqueueUnmapMemObject(*b, p, nullptr, &unmapped));
      CLSORT_CHECK(unmapped.wait());
    }
    s.last = unmapped;
  } catch (...) {
    // Nothing enqueued may touch the caller's arrays after we return: every command has an event, and the
    // last one enqueued waits for those before it (errors here only drain; the first one is thrown).
    try {
      if (cl::Event last = run.finish(); last()) last.wait();
    } catch (...) {
    }
    throw;
  }
  return true;
}

// Whether the argsort of host keys is the identity because its bit range is empty; the options are
// checked as a sort checks them first.
bool identity_order(const Sorter::Impl& s, KeyType type, std::size_t n, const Options& options) {
  detail::resolve_algorithm(s, type, n, 4, options);
  return detail::empty_range(type, options);
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
  facts = detail::query_device(device);
  if (const char* env = std::getenv("CLSORT_TUNING"); env && *env) {
    detail::Tuning().apply(env, "CLSORT_TUNING");  // refused here, naming the variable
    overrides = detail::merge_overrides("", env);
  }
  radix = std::make_unique<detail::RadixState>();
  detail::retain_context_programs(context());
}

Sorter::Impl::~Impl() {
  // Destructors never throw; a context being torn down with work in flight is the caller's to avoid.
  detail::release_staging(*this);
  detail::release_context_programs(context());
}

const detail::Tuning& Sorter::Impl::tuning(unsigned key_bytes, unsigned value_bytes) const {
  auto it = fitted.find({key_bytes, value_bytes});
  if (it == fitted.end()) {
    detail::Tuning t = detail::fit_to_device(detail::tuning_for(facts, key_bytes, value_bytes, overrides),
                                             facts, key_bytes, value_bytes);
    // The device's extensions chose the ranking's sub-group primitives; where they fail their self-test,
    // the ranking takes the local-memory ones, which need nothing of the device.
    if (!detail::subgroups_pass(context, device, t.radix)) {
      const std::string local = detail::merge_overrides(overrides, "radix.subgroups=3");
      t = detail::fit_to_device(detail::tuning_for(facts, key_bytes, value_bytes, local), facts, key_bytes,
                                value_bytes);
    }
    detail::fit_radix_registers(context, device, facts, t, key_bytes, value_bytes);
    it = fitted.emplace(std::make_pair(key_bytes, value_bytes), t).first;
  }
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
  return detail::automatic_choice(*impl_, type, n, with_values ? 8 : 0);
}

DevicePlan Sorter::plan() const {
  DevicePlan p;
  const detail::Tuning t = detail::tuning_for(impl_->facts, 4, 0, impl_->overrides);
  p.tuning_row = t.row;
  p.tuning = t.describe();
  p.measured = t.measured;
  // The same thresholds choose() applies, per key and value width (local memory fits fewer wide keys).
  auto small = [&](unsigned key_bytes, unsigned value_bytes) {
    const detail::Tuning& f = impl_->tuning(key_bytes, value_bytes);
    return std::to_string(std::min<std::size_t>(f.automatic.small_n, f.bitonic.tile));
  };
  const std::string s32 = small(4, 0), s64 = small(8, 0), s64v = small(8, 8);
  p.automatic = "n <= " + s32 + ": bitonic (one work-group); above: radix";
  if (s64 != s32 || s64v != s32)
    p.automatic += " (64-bit keys: " + s64 + ", 64-bit keys with 8-byte values: " + s64v + ")";
  return p;
}

SortPlan Sorter::plan(KeyType type, std::size_t n, std::size_t value_bytes, const Options& options) const {
  check_value_bytes(value_bytes, n);
  const Impl& s = *impl_;
  SortPlan p;
  p.algorithm = detail::resolve_algorithm(s, type, n, value_bytes, options);
  if (detail::empty_range(type, options)) {
    p.shape = "nothing to sort: the bit range is empty, so every key keeps its place (argsort: the identity)";
    const detail::Tuning& t =
        s.tuning(unsigned(key_size(type)), unsigned(detail::carried_width(value_bytes)));
    p.tuning_row = t.row;
    p.tuning = t.describe();
    return p;
  }
  Options split = options;
  split.algorithm = p.algorithm;
  const bool rides = detail::rides_passes(s, type, n, value_bytes, split);
  const bool index64 = detail::permuted(value_bytes) && n > detail::most_sort_keys(s, type);
  const unsigned carried = rides     ? unsigned(value_bytes)
                           : index64 ? 8u
                                     : unsigned(detail::carried_width(value_bytes));
  const auto plan = plan_at(s, p.algorithm, type, n, carried, options);
  p.shape = detail::describe(*plan);
  if (detail::needs_split(s, type, n, value_bytes, split))
    p.shape =
        "one stable MSD partition by the top digit of the code that the keys do not all share (64-bit "
        "counts; a bucket too large for one sort partitioned again by its next digit), then per bucket: " +
        p.shape;
  if (rides)
    p.shape += "; values of " + std::to_string(value_bytes) + " bytes ride the passes beside their keys";
  else if (detail::permuted(value_bytes))
    p.shape += "; values of " + std::to_string(value_bytes) + " bytes: sorted as " + (index64 ? "64" : "32") +
               "-bit indices, then moved once through the permutation";
  else if (detail::widened(value_bytes))
    p.shape += "; values of " + std::to_string(value_bytes) + " bytes ride the passes widened to " +
               std::to_string(detail::carried_width(value_bytes));
  p.build_options = detail::build_options(*plan);
  const detail::Tuning& t = s.tuning(unsigned(key_size(type)), carried);
  p.tuning_row = t.row;
  p.tuning = t.describe();
  return p;
}

std::size_t Sorter::max_n(KeyType type, std::size_t value_bytes) const {
  const detail::DeviceFacts& f = impl_->facts;
  const std::size_t kb = key_size(type);
  // What the passes carry (widened values, or an index for wide ones: 32-bit below 2^32 keys, 64-bit
  // from there) and what else lives through the sort.
  auto most = [&](std::size_t carried) {
    const std::size_t widest = std::max({kb, value_bytes, carried});
    // The split path's buckets start on the sub-buffer alignment: up to 256 of them of padding.
    const std::size_t pad = 256 * f.base_align;
    std::size_t n = f.max_alloc > pad ? std::size_t((f.max_alloc - pad) / widest) : 0;
    // The caller's keys and values, one scratch copy of each (the split path's, or the passes' ping-pong
    // buffers), the permutation's indices (twice) and saved values; scratch buffers grow with a quarter of
    // headroom (up to the largest allocation); the split path's scratch for its pieces (2^28 keys) and
    // buckets (n / 256 of each for spread keys) is left to the slack. Widened values: their widened copy
    // and its scratch.
    double per_key = 2.25 * double(kb + value_bytes);
    if (!detail::carried_by_passes(value_bytes)) per_key += 2.5 * double(carried);
    return std::min<std::size_t>(n, std::size_t(double(f.global_mem) * 0.97 / per_key));
  };
  if (!detail::permuted(value_bytes)) return most(detail::carried_width(value_bytes));
  const std::size_t wide = most(8);
  return wide > kMax32 ? wide : std::min(most(4), kMax32);
}

void Sorter::tune(const std::string& overrides) {
  detail::Tuning().apply(overrides, "tune");  // a bad string changes nothing
  impl_->overrides = detail::merge_overrides(impl_->overrides, overrides);
  impl_->fitted.clear();
  impl_->plans.clear();
  impl_->segments.reset();
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
    check_values_width(value_bytes);
    check_value_bytes(value_bytes, n);
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
  Options resolved = options;
  resolved.algorithm = detail::resolve_algorithm(s, type, n, value_bytes, options);
  s.profile.clear();
  // An empty bit range orders nothing: every key keeps its place, and nothing is enqueued but a marker.
  if (detail::empty_range(type, options)) return detail::enqueue_nothing(s, wait);
  check_fits(*this, type, n, values ? value_bytes : 0);
  return detail::enqueue_sort(s, type, keys, values, value_bytes, n, resolved, wait);
}

void Sorter::sort_host(KeyType type, void* keys, std::size_t n, void* values, std::size_t value_bytes,
                       const Options& options) {
  if (n == 0) return;
  if (!keys) detail::throw_argument_error("keys", "null pointer");
  sort_host_from(type, keys, keys, n, values, value_bytes, options);
}

void Sorter::sort_copy_host(KeyType type, const void* keys_in, void* keys_out, std::size_t n,
                            const Options& options) {
  if (n == 0) return;
  if (!keys_in || !keys_out) detail::throw_argument_error(keys_in ? "keys_out" : "keys_in", "null pointer");
  const auto* in = static_cast<const unsigned char*>(keys_in);
  const auto* out = static_cast<const unsigned char*>(keys_out);
  const std::size_t bytes = n * key_size(type);
  if (in != out && in < out + bytes && out < in + bytes)
    detail::throw_argument_error("keys_out", "overlaps keys_in without being the same array");
  sort_host_from(type, keys_in, keys_out, n, nullptr, 0, options);
}

// The host sort: keys uploaded from keys_in, downloaded to keys (the same array, or sort_copy_host's output).
void Sorter::sort_host_from(KeyType type, const void* keys_in, void* keys, std::size_t n, void* values,
                            std::size_t value_bytes, const Options& options) {
  if (values == nullptr)
    value_bytes = 0;
  else
    check_values_width(value_bytes);
  check_value_bytes(value_bytes, n);
  if (values) {
    const auto* k = static_cast<const unsigned char*>(keys);
    const auto* v = static_cast<const unsigned char*>(values);
    if (k < v + n * value_bytes && v < k + n * key_size(type))
      detail::throw_argument_error("values", "keys and values must not be the same or overlapping arrays");
  }
  Impl& s = *impl_;
  const std::size_t kb = key_size(type);
  Options resolved = options;  // n over the limit throws here, before any upload
  resolved.algorithm = detail::resolve_algorithm(s, type, n, value_bytes, options);
  s.profile.clear();
  if (detail::empty_range(type, options)) {  // every key keeps its place: nothing moves to the device
    if (keys != keys_in) std::memcpy(keys, keys_in, n * kb);
    return;
  }
  check_fits(*this, type, n, values ? value_bytes : 0);
  // GPUs: through pinned staging in chunks (host.chunk; off on CPU devices, whose buffers are host memory,
  // unless a tuning forces it); CPU devices: in the caller's arrays where the sort allows it.
  const bool staged = detail::stages(s, type, value_bytes, n * (kb + value_bytes));
  if (!staged && sort_host_zero_copy(s, type, keys_in, keys, n, values, value_bytes, resolved)) return;
  detail::Run staging(s, {s.queue, s.profiling, s.in_order}, type, false, {}, nullptr, 0, 0, {});
  cl::Buffer kbuf = staging.scratch(detail::kHostKeys, n * kb);
  cl::Buffer vbuf;
  if (values) vbuf = staging.scratch(detail::kHostValues, n * value_bytes);
  if (staged) {
    std::vector<detail::HostArray> arrays{
        {static_cast<unsigned char*>(keys), kbuf, n * kb, static_cast<const unsigned char*>(keys_in)}};
    if (values) arrays.push_back({static_cast<unsigned char*>(values), vbuf, n * value_bytes});
    if (detail::sort_host_staged(s, type, arrays, n, value_bytes, resolved)) return;
  }
  // The caller's arrays are only written by the final reads, which run only if the sort succeeded. The
  // transfers are asynchronous, so every enqueued one is waited for before anything (an exception too)
  // leaves: the caller's memory must not be read or written after we return.
  std::vector<cl::Event> pending;
  auto wait_all = [&pending] {
    for (cl::Event& e : pending) e.wait();  // statuses are checked below; errors here only drain
  };
  auto record = [&](const char* name, const cl::Event& ev) {
    pending.push_back(ev);
    if (s.profiling) s.profile.emplace_back(name, ev);
  };
  try {
    std::vector<cl::Event> before, up(1);
    if (s.last()) before.push_back(s.last);
    CLSORT_CHECK(s.queue.enqueueWriteBuffer(kbuf, CL_FALSE, 0, n * kb, keys_in, &before, &up[0]));
    record("upload", up[0]);
    if (values) {
      up.emplace_back();
      CLSORT_CHECK(s.queue.enqueueWriteBuffer(vbuf, CL_FALSE, 0, n * value_bytes, values, &before, &up[1]));
      record("upload", up[1]);
    }
    cl::Event done =
        detail::enqueue_sort(s, type, kbuf, values ? &vbuf : nullptr, value_bytes, n, resolved, up);
    std::vector<cl::Event> after{done};
    cl::Event rk, rv;
    CLSORT_CHECK(s.queue.enqueueReadBuffer(kbuf, CL_FALSE, 0, n * kb, keys, &after, &rk));
    record("download", rk);
    if (values) {
      CLSORT_CHECK(s.queue.enqueueReadBuffer(vbuf, CL_FALSE, 0, n * value_bytes, values, &after, &rv));
      record("download", rv);
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
  if (n > kMax32)
    detail::throw_argument_error("n", "argsort returns 32-bit indices: n must be < 2^32 (argsort64)");
  if (identity_order(*impl_, type, n, options)) {
    for (std::size_t i = 0; i < n; ++i) indices[i] = std::uint32_t(i);
    return;
  }
  // Not std::vector: its zeroing would be one more pass over n indices before the fill.
  const std::unique_ptr<std::uint32_t[]> iota(new std::uint32_t[n]);
  for (std::size_t i = 0; i < n; ++i) iota[i] = std::uint32_t(i);
  // The keys are uploaded from the caller's array and come back sorted into memory of our own.
  const std::unique_ptr<unsigned char[]> sorted(new unsigned char[n * key_size(type)]);
  sort_host_from(type, keys, sorted.get(), n, iota.get(), 4, options);
  std::memcpy(indices, iota.get(), n * 4);
}

void Sorter::argsort64_host(KeyType type, const void* keys, std::size_t n, std::uint64_t* indices,
                            const Options& options) {
  if (n == 0) return;
  if (!keys || !indices) detail::throw_argument_error(keys ? "indices" : "keys", "null pointer");
  if (identity_order(*impl_, type, n, options)) {
    for (std::size_t i = 0; i < n; ++i) indices[i] = i;
    return;
  }
  const std::unique_ptr<std::uint64_t[]> iota(new std::uint64_t[n]);
  for (std::size_t i = 0; i < n; ++i) iota[i] = i;
  const std::unique_ptr<unsigned char[]> sorted(new unsigned char[n * key_size(type)]);
  sort_host_from(type, keys, sorted.get(), n, iota.get(), 8, options);
  std::memcpy(indices, iota.get(), n * 8);
}

cl::Event Sorter::argsort_buffer(KeyType type, const cl::Buffer& keys, std::size_t n,
                                 const cl::Buffer& indices, std::size_t index_bytes, const Options& options,
                                 const std::vector<cl::Event>& wait) {
  Impl& s = *impl_;
  const std::size_t kb = key_size(type);
  if (index_bytes != 4 && index_bytes != 8)
    detail::throw_argument_error("index_bytes", std::to_string(index_bytes) + " is neither 4 nor 8");
  auto check = [&](const cl::Buffer& b, const char* name, std::size_t size) {
    if (!b()) detail::throw_argument_error(name, "null cl::Buffer");
    cl::Context c;
    CLSORT_CHECK(b.getInfo(CL_MEM_CONTEXT, &c));
    if (c() != s.context()) detail::throw_argument_error(name, "buffer belongs to another OpenCL context");
    std::size_t bytes = 0;
    CLSORT_CHECK(b.getInfo(CL_MEM_SIZE, &bytes));
    if (n > bytes / size)
      detail::throw_argument_error(
          name, "holds " + std::to_string(bytes / size) + " elements, fewer than n = " + std::to_string(n));
  };
  check(keys, "keys", kb);
  check(indices, "indices", index_bytes);
  if (index_bytes == 4 && n > kMax32)
    detail::throw_argument_error("n", std::to_string(n) + " keys: 32-bit indices need n < 2^32 (argsort64)");
  const auto ko = origin_of(keys), io = origin_of(indices);
  if (indices() == keys() ||
      (ko.first == io.first && ko.second < io.second + n * index_bytes && io.second < ko.second + n * kb))
    detail::throw_argument_error("indices", "keys and indices must not be the same or overlapping buffers");
  Options resolved = options;
  resolved.algorithm = detail::resolve_algorithm(s, type, n, index_bytes, options);
  if (!detail::empty_range(type, options)) check_fits(*this, type, n, index_bytes);
  s.profile.clear();
  return detail::enqueue_argsort(s, type, keys, indices, index_bytes, n, resolved, wait);
}

namespace detail {

Algorithm automatic_choice(const Sorter::Impl& s, KeyType type, std::size_t n, std::size_t value_bytes) {
  // The by-key thresholds are those of 8-byte values, the wider (local memory fits fewer).
  const Tuning& t = s.tuning(unsigned(key_size(type)), value_bytes ? 8 : 0);
  // One work-group's local-memory bitonic sort is a single launch: best while the tile holds n.
  return n <= t.automatic.small_n && n <= t.bitonic.tile ? Algorithm::bitonic : Algorithm::radix;
}

Algorithm resolve_algorithm(const Sorter::Impl& s, KeyType type, std::size_t n, std::size_t value_bytes,
                            const Options& options) {
  // A bit range is radix sort's (CUB's semantics); the comparison sorts order by whole keys.
  const unsigned key_bits = unsigned(key_size(type)) * 8;
  const bool range = options.begin_bit != 0 || options.end_bit != 0;
  if (range) {
    const unsigned end = options.end_bit ? options.end_bit : key_bits;
    if (options.end_bit > key_bits)
      throw_argument_error("end_bit", std::to_string(options.end_bit) + " is past the " +
                                          std::to_string(key_bits) + " bits of " + to_string(type) + " keys");
    if (options.begin_bit > end)
      throw_argument_error("begin_bit",
                           std::to_string(options.begin_bit) + " is past end_bit " + std::to_string(end));
    if (options.algorithm != Algorithm::automatic && options.algorithm != Algorithm::radix)
      throw_argument_error("algorithm",
                           std::string("a bit range (begin_bit, end_bit) needs radix sort, not ") +
                               to_string(options.algorithm));
  }
  const Algorithm algorithm = range ? Algorithm::radix
                              : options.algorithm == Algorithm::automatic
                                  ? automatic_choice(s, type, n, value_bytes)
                                  : options.algorithm;
  if (n > max_n(algorithm))
    throw_argument_error("n", std::to_string(n) + " exceeds the largest n " + to_string(algorithm) +
                                  " sort accepts (" + std::to_string(max_n(algorithm)) + ")");
  return algorithm;
}

bool empty_range(KeyType type, const Options& options) {
  const unsigned end = options.end_bit ? options.end_bit : unsigned(key_size(type)) * 8;
  return (options.begin_bit != 0 || options.end_bit != 0) && options.begin_bit == end;
}

cl::Event enqueue_nothing(Sorter::Impl& s, const std::vector<cl::Event>& wait) {
  cl::Event done;
  CLSORT_CHECK(s.queue.enqueueMarkerWithWaitList(&wait, &done));
  return done;
}

bool rides_passes(const Sorter::Impl& s, KeyType type, std::size_t n, std::size_t value_bytes,
                  const Options& options) {
  return n >= 2 && !needs_split(s, type, n, value_bytes, options) &&
         riding_plan(s, options.algorithm, type, n, value_bytes, options) != nullptr;
}

cl::Event enqueue_sort(Sorter::Impl& s, KeyType type, const cl::Buffer& keys, const cl::Buffer* values,
                       std::size_t value_bytes, std::size_t n, const Options& options,
                       const std::vector<cl::Event>& wait) {
  if (empty_range(type, options)) return enqueue_nothing(s, wait);
  if (values && widened(value_bytes))
    return enqueue_sort_widened(s, type, keys, *values, value_bytes, n, options, wait);
  if (values && permuted(value_bytes) && !rides_passes(s, type, n, value_bytes, options))
    return enqueue_sort_permuted(s, type, keys, *values, value_bytes, n, options, wait);
  if (needs_split(s, type, n, value_bytes, options))
    return enqueue_sort_split(s, type, keys, values, value_bytes, n, options, wait);
  return enqueue_sort_whole(s, type, keys, values, value_bytes, n, options, wait);
}

cl::Buffer wrap_host(const Sorter::Impl& s, const void* host, std::size_t bytes, cl_int* status) {
  return cl::Buffer(s.context, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, bytes, const_cast<void*>(host),
                    status);
}

std::shared_ptr<const Plan> cpu_shape_plan(const Sorter::Impl& s, KeyType type, std::size_t n,
                                           std::size_t value_bytes, const Options& options) {
  if (n < 2 || n > kMax32) return nullptr;
  if (value_bytes && !carried_by_passes(value_bytes)) return nullptr;
  if (needs_split(s, type, n, value_bytes, options)) return nullptr;
  auto plan = plan_of(s, options.algorithm, type, n, value_bytes, options);
  const auto* radix = std::get_if<RadixPlan>(plan.get());
  return radix && radix->shape == RadixPlan::Shape::cpu ? plan : nullptr;
}

cl::Event enqueue_sort_whole(Sorter::Impl& s, KeyType type, const cl::Buffer& keys, const cl::Buffer* values,
                             std::size_t value_bytes, std::size_t n, const Options& options,
                             const std::vector<cl::Event>& wait) {
  const Algorithm algorithm = options.algorithm;
  std::vector<cl::Event> deps = wait;
  if (s.last()) deps.push_back(s.last);
  Run run(s, {s.queue, s.profiling, s.in_order}, type, options.order == Order::descending, keys, values,
          unsigned(value_bytes), std::uint32_t(n), std::move(deps));
  if (n > 1) execute(run, *plan_of(s, algorithm, type, n, value_bytes, options));
  s.last = run.finish();
  return s.last;
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
