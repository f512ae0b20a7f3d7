// The public face of a Sorter: construction, argument checks, then one CallPlan per call
// (dispatch/call_plan.cpp) handed to execute (dispatch/execute.cpp). Nothing here decides a call's route.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <mutex>

#include "dispatch/call_plan.hpp"
#include "dispatch/execute.hpp"
#include "engine/buffer_checks.hpp"

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

// Values of any width: n of them must be addressable. Values are at least a byte wide.
void check_values(std::size_t value_bytes, std::size_t n) {
  if (value_bytes == 0) detail::throw_argument_error("value_bytes", "values must be at least 1 byte wide");
  if (n > std::numeric_limits<std::size_t>::max() / value_bytes)
    detail::throw_argument_error(
        "n", std::to_string(n) + " values of " + std::to_string(value_bytes) + " bytes do not fit in memory");
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

// The call's route, after which nothing may fail for want of device memory that max_n foresaw.
detail::CallPlan plan_checked(const Sorter& sorter, const Sorter::Impl& s, const detail::CallInput& in) {
  detail::CallPlan plan = detail::plan_call(s, in);
  if (!plan.orders_nothing) check_fits(sorter, in.type, in.n, in.value_bytes);
  return plan;
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
  detail::key_type_row(type);
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
  if (value_bytes) check_values(value_bytes, n);
  const Impl& s = *impl_;
  detail::CallInput in{type, n, value_bytes, options, detail::DataAt::host};
  const detail::CallPlan call = detail::plan_call(s, in);
  SortPlan p;
  p.algorithm = call.options.algorithm;
  p.shape = call.shape();
  p.host = call.host_route();
  if (call.kernels) p.build_options = detail::build_options(*call.kernels);
  const detail::Tuning& t = s.tuning(unsigned(key_size(type)), call.pass_value_bytes);
  p.tuning_row = t.row;
  p.tuning = t.describe();
  return p;
}

std::size_t Sorter::max_n(KeyType type, std::size_t value_bytes) const {
  detail::key_type_row(type);
  const detail::DeviceFacts& f = impl_->facts;
  const std::size_t kb = key_size(type);
  // What the passes carry (widened values, or an index for wide ones: 32-bit below 2^32 keys, 64-bit from
  // there) and what else lives through the sort.
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
  if (value_bytes <= 8) return most(detail::pass_width(value_bytes));
  const std::size_t wide = most(8);
  return wide > kMax32 ? wide : std::min(most(4), kMax32);
}

void Sorter::tune(const std::string& overrides) {
  detail::Tuning().apply(overrides, "tune");  // a bad string changes nothing
  impl_->overrides = detail::merge_overrides(impl_->overrides, overrides);
  impl_->retune();
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

std::size_t Sorter::scratch_bytes() const {
  return impl_->scratch_held();
}

void Sorter::keep_scratch(std::size_t bytes) {
  impl_->scratch_keep = bytes;
}

void Sorter::release_scratch() {
  Impl& s = *impl_;
  s.scratch.clear();
  ++s.scratch_made;
}

cl::Event Sorter::sort_buffer(KeyType type, const cl::Buffer& keys, const cl::Buffer* values,
                              std::size_t value_bytes, std::size_t n, const Options& options,
                              const std::vector<cl::Event>& wait) {
  Impl& s = *impl_;
  const std::size_t kb = detail::key_type_row(type).bytes;
  // Everything is checked before anything is enqueued, so errors change nothing.
  detail::check_buffer(s, keys, "keys", n, kb, "n", /*blame_count=*/true);
  if (values) {
    check_values(value_bytes, n);
    detail::check_buffer(s, *values, "values", n, value_bytes, "n");
    if ((*values)() == keys() ||
        detail::overlap(detail::region_of(keys, n * kb), detail::region_of(*values, n * value_bytes)))
      detail::throw_argument_error("values", "keys and values must not be the same or overlapping buffers");
  } else {
    value_bytes = 0;
  }
  const detail::CallPlan plan = plan_checked(*this, s, {type, n, value_bytes, options});
  const auto call_scope = s.begin_call();
  return detail::execute(s, plan, keys, values, wait);
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

// The host sort: keys read from keys_in, written sorted to keys (the same array, or sort_copy_host's output).
void Sorter::sort_host_from(KeyType type, const void* keys_in, void* keys, std::size_t n, void* values,
                            std::size_t value_bytes, const Options& options) {
  const std::size_t kb = detail::key_type_row(type).bytes;
  if (values == nullptr) {
    value_bytes = 0;
  } else {
    check_values(value_bytes, n);
    const auto* k = static_cast<const unsigned char*>(keys);
    const auto* v = static_cast<const unsigned char*>(values);
    if (k < v + n * value_bytes && v < k + n * kb)
      detail::throw_argument_error("values", "keys and values must not be the same or overlapping arrays");
  }
  // The kernels load whole keys and values: arrays off their type's alignment (a NumPy view at an odd
  // offset) cannot be the device's buffers themselves.
  auto aligned = [](const void* p, std::size_t a) { return reinterpret_cast<std::uintptr_t>(p) % a == 0; };
  detail::CallInput in{type, n, value_bytes, options, detail::DataAt::host};
  in.host_aligned = aligned(keys, kb) && aligned(keys_in, kb) && (!values || aligned(values, value_bytes));
  Impl& s = *impl_;
  const detail::CallPlan plan =
      plan_checked(*this, s, in);  // n over the limit throws here, before any upload
  const auto call_scope = s.begin_call();
  detail::execute_host(s, plan, keys_in, keys, values);
}

void Sorter::argsort_host(KeyType type, const void* keys, std::size_t n, std::uint32_t* indices,
                          const Options& options) {
  if (n == 0) return;
  if (!keys || !indices) detail::throw_argument_error(keys ? "indices" : "keys", "null pointer");
  if (n > kMax32)
    detail::throw_argument_error("n", "argsort returns 32-bit indices: n must be < 2^32 (argsort64)");
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
  const std::size_t kb = detail::key_type_row(type).bytes;
  if (index_bytes != 4 && index_bytes != 8)
    detail::throw_argument_error("index_bytes", std::to_string(index_bytes) + " is neither 4 nor 8");
  detail::check_buffer(s, keys, "keys", n, kb, "n");
  detail::check_buffer(s, indices, "indices", n, index_bytes, "n");
  if (index_bytes == 4 && n > kMax32)
    detail::throw_argument_error("n", std::to_string(n) + " keys: 32-bit indices need n < 2^32 (argsort64)");
  if (indices() == keys() ||
      detail::overlap(detail::region_of(keys, n * kb), detail::region_of(indices, n * index_bytes)))
    detail::throw_argument_error("indices", "keys and indices must not be the same or overlapping buffers");
  const detail::CallPlan plan = plan_checked(*this, s, {type, n, index_bytes, options});
  const auto call_scope = s.begin_call();
  return detail::execute_argsort(s, plan, keys, indices, wait);
}

namespace detail {

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
