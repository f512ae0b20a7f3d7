// Running a CallPlan: the value path and the split for device buffers, then the host path for the caller's
// host arrays (pinned staging, the arrays in place on CPU devices, or single transfers).
#include "dispatch/execute.hpp"

#include <cstdint>
#include <cstring>

#include "engine/run.hpp"
#include "host_data/staging.hpp"

namespace clsort::detail {

namespace {

// The caller's arrays are the device's buffers (HostPath::zero_copy): a CPU device's buffers are host
// memory, so the upload and download copies go. The CPU shape only reads its input until its last
// kernel, which writes the result, so a sort that fails before that leaves the caller's arrays as they
// were.
void sort_in_place(Sorter::Impl& s, const CallPlan& plan, const void* keys_in, void* keys, void* values) {
  const std::size_t n = plan.n, kb = key_size(plan.type), vb = plan.value_bytes;
  cl_int status = CL_SUCCESS;
  auto wrap = [&](const void* host, std::size_t bytes) {
    cl::Buffer b = wrap_host(s, host, bytes, &status);
    if (status != CL_SUCCESS) throw_cl_error(status, "clCreateBuffer(CL_MEM_USE_HOST_PTR)");
    return b;
  };
  const cl::Buffer out = wrap(keys, n * kb);
  const cl::Buffer in = keys_in == keys ? out : wrap(keys_in, n * kb);  // only read (Run::source)
  cl::Buffer vbuf;
  if (values) vbuf = wrap(values, n * vb);
  // Every command with an event of its own (as on an out-of-order queue): the sort then ends in its last
  // kernel's event, and nothing that could fail (a marker) is enqueued after the kernel that writes the
  // caller's arrays.
  Run run = Run::for_call(s, plan.type, plan.options, out, values ? &vbuf : nullptr, unsigned(vb), n, {},
                          /*in_order=*/false);
  if (keys_in != keys) run.source = &in;
  try {
    detail::execute(run, *plan.kernels);
    cl::Event done = run.finish();
    // Where the runtime copied after all, mapping brings the result back; where it did not, it is free.
    // The sort is waited for on the host first: a map that waited for it on the queue was slower on
    // Intel's CPU runtime.
    CLSORT_CHECK(done.wait());
    cl::Event unmapped;
    for (const cl::Buffer* b : std::initializer_list<const cl::Buffer*>{&out, &vbuf}) {
      if (b == &vbuf && !values) continue;
      void* p = s.queue.enqueueMapBuffer(*b, CL_TRUE, CL_MAP_READ, 0, b == &out ? n * kb : n * vb, nullptr,
                                         nullptr, &status);
      if (status != CL_SUCCESS) throw_cl_error(status, "clEnqueueMapBuffer");
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
}

// HostPath::transfers: one asynchronous transfer each way per array. The caller's arrays are only written
// by the final reads, which run only if the sort succeeded. Every enqueued transfer is waited for before
// anything (an exception too) leaves: the caller's memory must not be read or written after we return.
void sort_transferred(Sorter::Impl& s, const CallPlan& plan, const cl::Buffer& kbuf, const cl::Buffer* vbuf,
                      const void* keys_in, void* keys, void* values) {
  const std::size_t n = plan.n, kb = key_size(plan.type), vb = plan.value_bytes;
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
      CLSORT_CHECK(s.queue.enqueueWriteBuffer(*vbuf, CL_FALSE, 0, n * vb, values, &before, &up[1]));
      record("upload", up[1]);
    }
    cl::Event done = execute(s, plan, kbuf, vbuf, up);
    std::vector<cl::Event> after{done};
    cl::Event rk, rv;
    CLSORT_CHECK(s.queue.enqueueReadBuffer(kbuf, CL_FALSE, 0, n * kb, keys, &after, &rk));
    record("download", rk);
    if (values) {
      CLSORT_CHECK(s.queue.enqueueReadBuffer(*vbuf, CL_FALSE, 0, n * vb, values, &after, &rv));
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

}  // namespace

cl::Event enqueue_nothing(Sorter::Impl& s, const std::vector<cl::Event>& wait) {
  cl::Event done;
  CLSORT_CHECK(s.queue.enqueueMarkerWithWaitList(&wait, &done));
  return done;
}

cl::Event execute(Sorter::Impl& s, const CallPlan& plan, const cl::Buffer& keys, const cl::Buffer* values,
                  const std::vector<cl::Event>& wait) {
  if (plan.orders_nothing) return enqueue_nothing(s, wait);
  if (values && plan.values == ValuePath::widened) return enqueue_sort_widened(s, plan, keys, *values, wait);
  if (values && plan.values == ValuePath::by_index)
    return enqueue_sort_by_index(s, plan, keys, *values, wait);
  if (plan.split)
    return enqueue_sort_split(s, plan.type, keys, values, plan.value_bytes, plan.n, plan.options, wait);
  Run run = Run::for_call(s, plan.type, plan.options, keys, values, plan.pass_value_bytes, plan.n, wait);
  if (plan.n > 1) execute(run, *plan.kernels);
  s.last = run.finish();
  return s.last;
}

cl::Event enqueue_sort_whole(Sorter::Impl& s, KeyType type, const cl::Buffer& keys, const cl::Buffer* values,
                             std::size_t value_bytes, std::size_t n, const Options& options,
                             const std::vector<cl::Event>& wait) {
  Run run = Run::for_call(s, type, options, keys, values, unsigned(value_bytes), n, wait);
  if (n > 1) execute(run, *kernel_plan(s, options.algorithm, type, n, unsigned(value_bytes), options));
  s.last = run.finish();
  return s.last;
}

void execute_host(Sorter::Impl& s, const CallPlan& plan, const void* keys_in, void* keys, void* values) {
  if (plan.orders_nothing) {  // every key keeps its place: nothing moves to the device
    if (keys != keys_in) std::memcpy(keys, keys_in, plan.n * key_size(plan.type));
    return;
  }
  if (plan.host == HostPath::zero_copy) return sort_in_place(s, plan, keys_in, keys, values);
  const std::size_t n = plan.n, kb = key_size(plan.type), vb = values ? plan.value_bytes : 0;
  Run scratch = Run::for_call(s, plan.type, plan.options, {}, nullptr, 0, 0, {});
  const cl::Buffer kbuf = scratch.scratch(kHostKeys, n * kb);
  cl::Buffer vbuf;
  if (values) vbuf = scratch.scratch(kHostValues, n * vb);
  const cl::Buffer* vptr = values ? &vbuf : nullptr;
  if (plan.host == HostPath::staged) {
    std::vector<HostArray> arrays{
        {static_cast<unsigned char*>(keys), kbuf, n * kb, static_cast<const unsigned char*>(keys_in)}};
    if (values) arrays.push_back({static_cast<unsigned char*>(values), vbuf, n * vb});
    // Without pinned memory or a copy thread to be had, the single transfers below.
    if (stage_host_arrays(s, plan.type, arrays, vb, [&](const std::vector<cl::Event>& uploads) {
          return execute(s, plan, kbuf, vptr, uploads);
        }))
      return;
  }
  sort_transferred(s, plan, kbuf, vptr, keys_in, keys, values);
}

}  // namespace clsort::detail
