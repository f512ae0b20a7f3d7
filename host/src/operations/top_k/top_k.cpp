// top_k and select: argument validation (everything before anything is enqueued, as for sort), the host
// data paths, and the commands of one call: the radix selection (algorithms/select.cpp), then for top_k
// the sort of the selected (key, index) pairs by the library's own sort, and the gather into the outputs.
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>

#include "dispatch/execute.hpp"
#include "engine/buffer_checks.hpp"
#include "engine/run.hpp"
#include "engine/sorter_impl.hpp"
#include "host_data/staging.hpp"
#include "operations/top_k/radix_select.hpp"

namespace clsort {
namespace {

constexpr std::size_t kMaxSelect = std::numeric_limits<std::uint32_t>::max();  // indices are 32-bit

using detail::check_buffer;
using detail::overlap;
using detail::Region;
using detail::region_of;

// The checks on n and k that every form shares. select needs k < n, top_k k <= n.
void check_n_k(std::size_t n, std::size_t k, bool select) {
  if (n > kMaxSelect)
    detail::throw_argument_error("n", "top_k and select return 32-bit indices: n must be < 2^32");
  if (select ? k >= n : k > n)
    detail::throw_argument_error(
        "k", std::to_string(k) + (select ? " is not below n = " : " exceeds n = ") + std::to_string(n));
}

detail::Run make_run(Sorter::Impl& s, KeyType type, const Options& options, const cl::Buffer& keys,
                     std::size_t n, std::vector<cl::Event> wait) {
  return detail::Run::for_call(s, type, options, keys, nullptr, 0, n, std::move(wait));
}

detail::SelectPlan select_plan(const Sorter::Impl& s, KeyType type, std::size_t n) {
  const unsigned kb = unsigned(key_size(type));
  return detail::plan_select({s.facts, s.tuning(kb, 0), kb, 0, std::uint32_t(n)});
}

// The sort of top_k's selection: ascending unsigned keys (the codes already carry the order).
cl::Event sort_selection(Sorter::Impl& s, KeyType type, const cl::Buffer& keys, const cl::Buffer* values,
                         std::size_t n, const cl::Event& after) {
  const detail::CallPlan plan = detail::plan_call(s, {type, n, values ? 4u : 0u, Options{}});
  return detail::execute(s, plan, keys, values, {after});
}

// The commands of top_k on validated buffers.
cl::Event enqueue_top_k(Sorter::Impl& s, KeyType type, const cl::Buffer& keys, std::size_t n, std::size_t k,
                        const Options& options, const cl::Buffer& keys_out, const cl::Buffer& indices_out,
                        const std::vector<cl::Event>& wait) {
  detail::Run run = make_run(s, type, options, keys, n, wait);
  if (k == 0) return s.last = run.finish();
  const detail::SelectPlan plan = select_plan(s, type, n);
  // Kernels and buffers first, so that build and allocation failures come before any command.
  cl::Kernel codes = run.kernel(plan.program, "select_codes");
  cl::Kernel gather = run.kernel(plan.program, "select_gather");
  cl::Buffer state = run.scratch(detail::kSelectState, plan.state_words * 4);
  cl::Buffer selected = run.scratch(detail::kSelectOut, k * 4);
  cl::Buffer sort_keys = run.scratch(detail::kSelectCodes, k * 8);
  const cl_uint kk = cl_uint(k), kind = run.kind, desc = run.descending;
  detail::run_select(run, plan, kk, false, selected, state);
  const bool wide = key_size(type) == 8;
  if (!wide) {  // keys of up to 4 bytes: one sort of unique (code << 32 | index)
    detail::set_args(codes, keys, selected, sort_keys, kk, kind, desc);
    run.launch(codes, k, 64, "select_codes");
    s.last = sort_selection(s, KeyType::u64, sort_keys, nullptr, k, run.finish());
  } else {  // 8-byte keys: the indices in order, then a stable sort of them by code
    s.last = sort_selection(s, KeyType::u32, selected, nullptr, k, run.finish());
    detail::Run middle = make_run(s, type, options, keys, n, {});
    detail::set_args(codes, keys, selected, sort_keys, kk, kind, desc);
    middle.launch(codes, k, 64, "select_codes");
    s.last = sort_selection(s, KeyType::u64, sort_keys, &selected, k, middle.finish());
  }
  detail::Run last = make_run(s, type, options, keys, n, {});
  detail::set_args(gather, keys, sort_keys, selected, keys_out, indices_out, kk);
  last.launch(gather, k, 64, "select_gather");
  return s.last = last.finish();
}

// The commands of select on validated buffers; the chosen index stays in the state buffer's word 1, and
// where key_out is given the key goes there.
cl::Event enqueue_select(Sorter::Impl& s, KeyType type, const cl::Buffer& keys, std::size_t n, std::size_t k,
                         const Options& options, const cl::Buffer* key_out,
                         const std::vector<cl::Event>& wait, cl::Buffer* state_out) {
  detail::Run run = make_run(s, type, options, keys, n, wait);
  const detail::SelectPlan plan = select_plan(s, type, n);
  cl::Kernel result;
  if (key_out) result = run.kernel(plan.program, "select_result");
  cl::Buffer state = run.scratch(detail::kSelectState, plan.state_words * 4);
  cl::Buffer unused = run.scratch(detail::kSelectOut, 4);
  detail::run_select(run, plan, cl_uint(k + 1), true, unused, state);
  if (key_out) {
    detail::set_args(result, keys, state, *key_out);
    run.launch(result, 1, 1, "select_result");
  }
  if (state_out) *state_out = state;
  return s.last = run.finish();
}

}  // namespace

cl::Event Sorter::top_k_buffer(KeyType type, const cl::Buffer& keys, std::size_t n, std::size_t k,
                               const cl::Buffer& keys_out, const cl::Buffer& indices_out,
                               const Options& options, const std::vector<cl::Event>& wait) {
  Impl& s = *impl_;
  const std::size_t kb = detail::key_type_row(type).bytes;  // an invalid type is refused naming "type"
  if (!keys()) detail::throw_argument_error("keys", "null cl::Buffer");
  check_buffer(s, keys, "keys", n, kb, "n");
  check_n_k(n, k, false);
  check_buffer(s, keys_out, "keys_out", k, kb, "k");
  check_buffer(s, indices_out, "indices_out", k, 4, "k");
  const Region in = region_of(keys, n * kb), ko = region_of(keys_out, k * kb),
               io = region_of(indices_out, k * 4);
  if (keys_out() == keys() || overlap(ko, in))
    detail::throw_argument_error("keys_out", "must not overlap keys");
  if (indices_out() == keys() || overlap(io, in))
    detail::throw_argument_error("indices_out", "must not overlap keys");
  if (indices_out() == keys_out() || overlap(io, ko))
    detail::throw_argument_error("indices_out", "must not overlap keys_out");
  const auto call_scope = s.begin_call();
  return enqueue_top_k(s, type, keys, n, k, options, keys_out, indices_out, wait);
}

cl::Event Sorter::select_buffer(KeyType type, const cl::Buffer& keys, std::size_t n, std::size_t k,
                                const cl::Buffer& key_out, const Options& options,
                                const std::vector<cl::Event>& wait) {
  Impl& s = *impl_;
  const std::size_t kb = detail::key_type_row(type).bytes;
  if (!keys()) detail::throw_argument_error("keys", "null cl::Buffer");
  check_buffer(s, keys, "keys", n, kb, "n");
  check_n_k(n, k, true);
  check_buffer(s, key_out, "key_out", 1, kb, "one key");
  if (key_out() == keys() || overlap(region_of(key_out, kb), region_of(keys, n * kb)))
    detail::throw_argument_error("key_out", "must not overlap keys");
  const auto call_scope = s.begin_call();
  return enqueue_select(s, type, keys, n, k, options, &key_out, wait, nullptr);
}

namespace {

// Enqueues `select` on the caller's n host keys as a device buffer, which the selection only reads: the
// host-keys scratch uploaded through the pinned staging in chunks where the host policy has it (GPUs), as
// Sorter::sort_host does; on a CPU device the caller's memory itself (detail::wrap_host) where it is on
// its type's alignment, as the CPU sorts of host data do; else the scratch, in one write.
// Returns select's event; the caller waits for whatever reads its results, so the caller's keys are not read
// after it returns.
cl::Event with_host_keys(
    Sorter::Impl& s, KeyType type, const void* keys, std::size_t n,
    const std::function<cl::Event(const cl::Buffer&, const std::vector<cl::Event>&)>& select) {
  const std::size_t kb = detail::key_type_row(type).bytes;
  std::vector<cl::Event> before;
  if (s.last()) before.push_back(s.last);
  detail::Run staging = make_run(s, type, Options{}, {}, 0, {});
  if (detail::stages(s, type, 0, n * kb)) {
    cl::Buffer kbuf = staging.scratch(detail::kHostKeys, n * kb);
    const std::vector<detail::HostArray> arrays{{static_cast<unsigned char*>(const_cast<void*>(keys)), kbuf,
                                                 n * kb, static_cast<const unsigned char*>(keys)}};
    auto enqueue = [&](const std::vector<cl::Event>& uploads) { return select(kbuf, uploads); };
    if (detail::stage_host_arrays(s, type, arrays, 0, enqueue, detail::Staged::upload)) return s.last;
  }
  if (s.facts.type == "cpu" && reinterpret_cast<std::uintptr_t>(keys) % kb == 0) {
    cl_int status = CL_SUCCESS;
    const cl::Buffer wrapped = detail::wrap_host(s, keys, n * kb, &status);
    if (status == CL_SUCCESS) return select(wrapped, before);
  }
  cl::Buffer kbuf = staging.scratch(detail::kHostKeys, n * kb);
  cl::Event up;
  CLSORT_CHECK(s.queue.enqueueWriteBuffer(kbuf, CL_TRUE, 0, n * kb, keys, &before, &up));
  if (s.profiling) s.profile.emplace_back("upload", up);
  return select(kbuf, {up});
}

}  // namespace

void Sorter::top_k_host(KeyType type, const void* keys, std::size_t n, std::size_t k, void* keys_out,
                        std::uint32_t* indices_out, const Options& options) {
  if (!keys && n) detail::throw_argument_error("keys", "null pointer");
  check_n_k(n, k, false);
  if (k == 0) return;
  if (!keys_out) detail::throw_argument_error("keys_out", "null pointer");
  if (!indices_out) detail::throw_argument_error("indices_out", "null pointer");
  Impl& s = *impl_;
  const std::size_t kb = detail::key_type_row(type).bytes;
  const auto call_scope = s.begin_call();
  detail::Run staging = make_run(s, type, Options{}, {}, 0, {});
  cl::Buffer kout = staging.scratch(detail::kHostValues, k * kb);
  cl::Buffer iout = staging.scratch(detail::kHostIndices, k * 4);
  // Blocking reads: the caller's memory is never touched after this returns or throws, and the outputs
  // are written only once everything succeeded.
  const cl::Event done =
      with_host_keys(s, type, keys, n, [&](const cl::Buffer& kbuf, const std::vector<cl::Event>& deps) {
        return enqueue_top_k(s, type, kbuf, n, k, options, kout, iout, deps);
      });
  std::vector<unsigned char> got_keys(k * kb);
  std::vector<std::uint32_t> got_indices(k);
  const std::vector<cl::Event> after{done};
  CLSORT_CHECK(s.queue.enqueueReadBuffer(kout, CL_TRUE, 0, k * kb, got_keys.data(), &after));
  cl::Event read;
  CLSORT_CHECK(s.queue.enqueueReadBuffer(iout, CL_TRUE, 0, k * 4, got_indices.data(), &after, &read));
  s.last = read;
  std::memcpy(keys_out, got_keys.data(), k * kb);
  std::memcpy(indices_out, got_indices.data(), k * 4);
}

void Sorter::select_host(KeyType type, const void* keys, std::size_t n, std::size_t k, void* key_out,
                         const Options& options) {
  if (!keys && n) detail::throw_argument_error("keys", "null pointer");
  check_n_k(n, k, true);
  if (!key_out) detail::throw_argument_error("key_out", "null pointer");
  Impl& s = *impl_;
  const std::size_t kb = detail::key_type_row(type).bytes;
  const auto call_scope = s.begin_call();
  cl::Buffer state;
  const cl::Event done =
      with_host_keys(s, type, keys, n, [&](const cl::Buffer& kbuf, const std::vector<cl::Event>& deps) {
        return enqueue_select(s, type, kbuf, n, k, options, nullptr, deps, &state);
      });
  std::uint32_t index = 0;
  const std::vector<cl::Event> after{done};
  cl::Event read;
  CLSORT_CHECK(s.queue.enqueueReadBuffer(state, CL_TRUE, 4, 4, &index, &after, &read));
  s.last = read;
  if (index >= n) throw Error(CL_INVALID_VALUE, "select", "clsort: select found no key (internal error)");
  std::memcpy(key_out, static_cast<const unsigned char*>(keys) + std::size_t(index) * kb, kb);
}

}  // namespace clsort
