// Run: kernels, scratch buffers and the chain of commands of one sort call; and the plan dispatch.
#include "engine/run.hpp"

#include <algorithm>

#include "engine/program_cache.hpp"

namespace clsort::detail {

namespace {
// The KIND_* of kernels/common.cl that encodes keys of `t`: KeyKind's values are those macros'.
unsigned kind_of(KeyType t) {
  return unsigned(key_type_row(t).kind);
}
}  // namespace

Run::Run(Sorter::Impl& sorter, Queue queue, KeyType key_type, bool desc, cl::Buffer key_buffer,
         const cl::Buffer* value_buffer, unsigned vbytes, std::uint32_t count, std::vector<cl::Event> wait)
    : s(sorter),
      q(std::move(queue)),
      type(key_type),
      key_bytes(unsigned(key_size(key_type))),
      kind(kind_of(key_type)),
      descending(desc),
      keys(std::move(key_buffer)),
      values(value_buffer),
      value_bytes(value_buffer ? vbytes : 0),
      n(count),
      deps_(std::move(wait)) {}

Run Run::for_call(Sorter::Impl& s, KeyType type, const Options& options, cl::Buffer keys,
                  const cl::Buffer* values, unsigned value_bytes, std::size_t n, std::vector<cl::Event> wait,
                  bool in_order) {
  if (s.last()) wait.push_back(s.last);
  const std::uint32_t n32 = std::uint32_t(std::min<std::size_t>(n, ~std::uint32_t(0)));
  return Run(s, {s.queue, s.profiling, s.in_order && in_order}, type, options.order == Order::descending,
             std::move(keys), values, value_bytes, n32, std::move(wait));
}

cl::Kernel Run::kernel(const ProgramSpec& program, const std::string& name) {
  auto& by_name = s.kernels[program.key()];
  auto it = by_name.find(name);
  if (it != by_name.end()) return it->second;
  std::vector<std::string> files{"common.cl"};
  files.insert(files.end(), program.files.begin(), program.files.end());
  cl::Program built = get_program(s.context, s.device, files, program.defines.options(), program.register_cap,
                                  program.inline_source);
  cl_int status = CL_SUCCESS;
  cl::Kernel k(built, name.c_str(), &status);
  if (status != CL_SUCCESS) throw_cl_error(status, ("clCreateKernel(" + name + ")").c_str());
  by_name.emplace(name, k);
  return k;
}

cl::Buffer Run::scratch(ScratchSlot slot, std::size_t bytes) {
  bytes = std::max<std::size_t>(bytes, 64);
  auto& entry = s.scratch[slot];
  entry.call = s.call;
  if (entry.bytes >= bytes) return entry.buffer;
  if (bytes > s.facts.max_alloc)
    throw Error(CL_INVALID_BUFFER_SIZE, "n",
                "clsort: the sort needs a " + std::to_string(bytes) +
                    "-byte scratch buffer, more than the device's " + "largest allocation (" +
                    std::to_string(s.facts.max_alloc) + " bytes)",
                {}, Error::Kind::out_of_memory);
  // Grow with headroom so that slowly growing n does not reallocate every call; a sixty-fourth of the
  // device's memory at most, which buffers near the largest allocation cannot spare.
  const std::size_t headroom = std::min<std::size_t>(bytes / 4, s.facts.global_mem / 64);
  const std::size_t size = std::min<std::size_t>(s.facts.max_alloc, bytes + headroom);
  // The slot's old buffer goes only once the new one exists (entry.buffer = b below): commands of this
  // call enqueued on it may not have run, and a buffer made in its place at the same address made
  // Oclgrind 21.10 report what those commands wrote as uninitialized.
  trim_idle_scratch(s, size);
  cl_int status = CL_SUCCESS;
  cl::Buffer b(s.context, CL_MEM_READ_WRITE, size, nullptr, &status);
  if (status != CL_SUCCESS) throw_cl_error(status, "clCreateBuffer(scratch)");
  entry.buffer = b;
  entry.bytes = size;
  ++s.scratch_made;
  return b;
}

void trim_idle_scratch(Sorter::Impl& s, std::size_t adding) {
  // Scratch of earlier calls is what a large sort after other large sorts needs back (drivers that
  // allocate on first use, NVIDIA's among them, fail at a launch later, when nothing can be undone). A
  // buffer given back here is freed once the commands enqueued before that use it have run.
  std::size_t held = s.scratch_held() + adding;
  // Oldest call first; of one call, the largest buffer first.
  auto older = [](const auto& a, const auto& b) {
    return a.second.call < b.second.call ||
           (a.second.call == b.second.call && a.second.bytes > b.second.bytes);
  };
  while (held > s.scratch_keep) {
    auto oldest = s.scratch.end();
    for (auto it = s.scratch.begin(); it != s.scratch.end(); ++it)
      if (it->second.call != s.call && (oldest == s.scratch.end() || older(*it, *oldest))) oldest = it;
    if (oldest == s.scratch.end()) break;
    held -= oldest->second.bytes;
    s.scratch.erase(oldest);
    ++s.scratch_made;  // words an earlier call left in it (ResetCopy) are gone with it
  }
}

void Run::launch(cl::Kernel& k, std::size_t global, std::size_t local, const char* label) {
  cl::Event ev;
  CLSORT_CHECK(q.queue.enqueueNDRangeKernel(k, cl::NullRange, cl::NDRange(round_up(global, local)),
                                            cl::NDRange(local), &deps_, events() ? &ev : nullptr));
  after(ev, label);
}

void Run::copy(const cl::Buffer& src, const cl::Buffer& dst, std::size_t bytes, const char* label,
               std::size_t src_offset, std::size_t dst_offset) {
  cl::Event ev;
  CLSORT_CHECK(
      q.queue.enqueueCopyBuffer(src, dst, src_offset, dst_offset, bytes, &deps_, events() ? &ev : nullptr));
  after(ev, label);
}

void Run::write(const cl::Buffer& dst, const void* src, std::size_t bytes, const char* label) {
  cl::Event ev;
  CLSORT_CHECK(q.queue.enqueueWriteBuffer(dst, CL_FALSE, 0, bytes, src, &deps_, events() ? &ev : nullptr));
  after(ev, label);
}

// An in-order queue already orders our commands, so only the first command carries the caller's wait
// list there (explicit wait lists cost time per launch on some drivers), and, unless the queue profiles,
// no command gets an event of its own: NVIDIA's OpenCL spends about 2 µs creating each, 10-15% of a sort
// of 2^16 keys, whose six launches cost the host more than the GPU needs to run them. finish() then
// marks the end.
bool Run::events() const {
  return !q.in_order || q.profiling;
}

void Run::after(const cl::Event& ev, const char* label) {
  last_ = ev;
  if (q.in_order)
    deps_.clear();
  else
    deps_.assign(1, ev);
  if (q.profiling) s.profile.emplace_back(label, ev);
}

cl::Event Run::finish() {
  if (last_() && deps_.empty()) return last_;
  if (deps_.size() == 1) return deps_[0];
  // Commands without events, or several events to wait for: a marker (with an empty list, it waits for
  // everything enqueued before it on the queue).
  cl::Event ev;
  CLSORT_CHECK(q.queue.enqueueMarkerWithWaitList(&deps_, &ev));
  deps_.assign(1, ev);
  return ev;
}

cl::Buffer sub_buffer_of(const cl::Buffer& b, std::size_t origin, std::size_t bytes, std::size_t align) {
  const cl::Memory parent = b.getInfo<CL_MEM_ASSOCIATED_MEMOBJECT>();
  cl::Buffer whole = b;
  if (parent()) {
    origin += b.getInfo<CL_MEM_OFFSET>();
    whole = cl::Buffer(parent(), true);  // retains it
  }
  if (origin % align) return cl::Buffer();
  const cl_buffer_region region{origin, bytes};
  cl_int status = CL_SUCCESS;
  cl::Buffer r = whole.createSubBuffer(CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, &status);
  if (status != CL_SUCCESS) throw_cl_error(status, "clCreateSubBuffer");
  return r;
}

void execute(Run& run, const Plan& plan) {
  std::visit(
      [&](const auto& p) {
        using P = std::decay_t<decltype(p)>;
        if constexpr (std::is_same_v<P, RadixPlan>)
          run_radix(run, p);
        else if constexpr (std::is_same_v<P, BitonicPlan>)
          run_bitonic(run, p);
        else if constexpr (std::is_same_v<P, MergePlan>)
          run_merge(run, p);
        else if constexpr (std::is_same_v<P, SelectionPlan>)
          run_selection(run, p);
        else
          run_odd_even(run, p);
      },
      plan);
}

}  // namespace clsort::detail
