// Onesweep (kernels/radix_onesweep.cl): one histogram kernel for every pass, then one pass kernel each,
// whose work-groups find their tiles' global offsets by decoupled look-back. Runs only after a self-test
// of its program passed on the device.
#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <vector>

#include "algorithms/radix/radix.hpp"

namespace clsort::detail {

namespace {

// The scratch of Onesweep for n keys: two copies of the state words (every pass's histogram, tile
// counters, timeout flag, first key: the layout of kernels/radix_onesweep.cl's OS_* words) used by
// alternate sorts, and two look-back arrays of tiles x radix words.
struct Layout {
  std::size_t state_words, status_words;
  explicit Layout(const RadixPlan& p)
      : state_words(std::size_t(p.passes) * p.radix + p.passes + 3),
        status_words(std::size_t(p.tiles) * p.radix) {}
  std::size_t status_at() const { return 2 * state_words; }
  std::size_t bytes() const { return (2 * state_words + 2 * status_words) * 4; }
  std::size_t timeout_byte() const { return (state_words - 3) * 4; }  // OS_TIMEOUT of copy 0
};

struct Kernels {
  cl::Kernel clear, histogram, sweep;
  Kernels(Run& run, const ProgramSpec& program)
      : clear(run.kernel(program, "radix_onesweep_clear")),
        histogram(run.kernel(program, "radix_onesweep_histogram")),
        sweep(run.kernel(program, "radix_onesweep")) {}
};

// Enqueues a whole Onesweep sort of the keys (and values) in `a`, with `b` as the other buffer, and, when
// the number of passes is odd, the copy of the result from b back to a. `zeroed` is what the Sorter
// knows of the state copies in `work` (its Onesweep scratch), or null for a buffer of no sort before.
void enqueue(Run& run, Kernels& k, const RadixPlan& p, const cl::Buffer& a, const cl::Buffer& b,
             const cl::Buffer* va, const cl::Buffer* vb, const cl::Buffer& work, ResetCopy* zeroed) {
  const Layout layout(p);
  const cl_uint n = run.n, tiles = p.tiles, state_words = cl_uint(layout.state_words);
  // The copy that an earlier sort's histogram kernel zeroes, if no scratch buffer was replaced since;
  // otherwise copy 0, cleared first.
  const bool reuse = zeroed && zeroed->usable(run.s.scratch_made, layout.state_words);
  const cl_uint copy = reuse ? zeroed->copy : 0;
  if (zeroed) zeroed->valid = false;  // until this sort's histogram kernel is enqueued
  // Word offsets into one buffer: sub-buffers would need the device's base alignment.
  const cl_uint state_at = copy * state_words, other_at = (1 - copy) * state_words;
  const cl_uint status_at = cl_uint(layout.status_at()), status_words = cl_uint(layout.status_words);
  if (!reuse) {  // both copies: as cheap as one
    const cl_uint clear_words = 2 * state_words;
    set_args(k.clear, work, clear_words);
    run.launch(k.clear, round_up(clear_words, p.wg), p.wg, "radix_onesweep_clear");
  }
  const cl_uint kind = run.kind, descending = run.descending, spins = p.spins;
  set_args(k.histogram, a, n, kind, descending, work, state_at, other_at, state_words, status_at,
           status_words);
  run.launch(k.histogram, std::size_t(p.histogram_groups) * p.wg, p.wg, "radix_onesweep_histogram");
  if (zeroed) *zeroed = {run.s.scratch_made, layout.state_words, 1 - copy, true};
  // A launch takes the arguments as they are when it is enqueued, so only the pass changes between them:
  // each clSetKernelArg is host time, which at small n the sort waits for.
  const cl_uint first = 0;
  if (va)
    set_args(k.sweep, a, b, *va, *vb, n, first, kind, descending, work, state_at, status_at, tiles, spins);
  else
    set_args(k.sweep, a, b, n, first, kind, descending, work, state_at, status_at, tiles, spins);
  const cl_uint pass_arg = va ? 5 : 3;  // radix_onesweep(a, b, [va, vb,] n, pass, ...)
  for (cl_uint pass = 0; pass < p.passes; ++pass) {
    if (pass) CLSORT_CHECK(k.sweep.setArg(pass_arg, pass));
    run.launch(k.sweep, std::size_t(tiles) * p.wg, p.wg, "radix_onesweep");
  }
  if (p.passes % 2) {  // nothing was skipped (see radix_onesweep): the result sits in b
    run.copy(b, a, std::size_t(n) * run.key_bytes, "copy keys");
    if (va) run.copy(*vb, *va, std::size_t(n) * run.value_bytes, "copy values");
  }
}

// Onesweep's look-back is correct only where work-groups that have started keep making progress and
// atomics publish to every work-group; OpenCL 1.2 promises neither. So before its first use with a
// program (see passes), a test array is sorted with it and compared with std::stable_sort. A failure
// means reduce-then-scan for that program: wrong order, or a look-back that gave up waiting and
// recounted in every one of kSelfTestRuns sorts (still correct, but a device that starves waiting
// work-groups would do it all the time). One such sort is not enough: on a CPU device a work-group is an
// OS thread's loop, and a thread preempted for a time slice while it owns an earlier tile outlasts the
// spins (Intel's CPU runtime on 2 cores: 22 of 40 processes turned Onesweep off after one sort).
constexpr int kSelfTestRuns = 3;
bool self_test(Sorter::Impl& s, KeyType type, unsigned value_bytes, const RadixPlan& plan) {
  // Enough tiles that every compute unit runs several work-groups at once, which wait for each other;
  // small enough that checking on the host costs little (and Oclgrind can run it).
  const cl_uint n = plan.tile * std::max<cl_uint>(16, 2 * s.facts.compute_units) + 7;
  RadixPlan p = plan;  // the same program, for n keys
  p.tiles = (n + p.tile - 1) / p.tile;
  p.histogram_groups = std::min<cl_uint>(p.tiles, std::max(1u, s.facts.compute_units * 4));
  p.spins = 1u << 20;  // a healthy device answers in microseconds; a starved look-back recounts
  const unsigned kb = unsigned(key_size(type)), vb = value_bytes;
  std::vector<unsigned char> keys(std::size_t(n) * kb), values(std::size_t(n) * vb);
  std::uint64_t x = 0x9E3779B97F4A7C15ull;
  for (cl_uint i = 0; i < n; ++i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    const std::uint64_t key = x >> (i % 3 == 0 ? 40 : 0);  // some duplicates: stability matters too
    std::memcpy(&keys[std::size_t(i) * kb], &key, kb);
    // The index, and in a value's second 8 bytes (16-byte values) its complement.
    const std::uint64_t index[2] = {i, ~std::uint64_t(i)};
    if (vb) std::memcpy(&values[std::size_t(i) * vb], index, vb);
  }
  // Each key's expected place: a stable sort of (key, index) by key, as unsigned bits ascending, by the
  // plan's bits only (a program for a bit range orders by nothing else).
  auto key_at = [&](const std::vector<unsigned char>& v, std::size_t i) {
    std::uint64_t key = 0;
    std::memcpy(&key, &v[i * kb], kb);
    return key;
  };
  const unsigned width = p.end_bit - p.begin_bit;
  const std::uint64_t field_mask = width >= 64 ? ~0ull : (1ull << width) - 1;
  auto field = [&](std::size_t i) { return (key_at(keys, i) >> p.begin_bit) & field_mask; };
  std::vector<cl_uint> order(n);
  for (cl_uint i = 0; i < n; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](cl_uint l, cl_uint r) { return field(l) < field(r); });

  // The test must not wait for the caller's work: on the caller's queue its blocking reads would wait
  // for whatever was enqueued before (an in-order queue), and the caller may release that only after this
  // call returns (a user event). So it runs on a queue of its own, with buffers of its own (the scratch
  // buffers may still be in use by the previous sort on an out-of-order queue), and out of the profile.
  auto buffer = [&](std::size_t bytes) {
    cl_int status = CL_SUCCESS;
    cl::Buffer b(s.context, CL_MEM_READ_WRITE, bytes, nullptr, &status);
    if (status != CL_SUCCESS) throw_cl_error(status, "clCreateBuffer(onesweep self-test)");
    return b;
  };
  const Layout layout(p);
  cl::Buffer a = buffer(keys.size()), b = buffer(keys.size()), work = buffer(layout.bytes());
  cl::Buffer va, vbuf;
  if (vb) va = buffer(values.size()), vbuf = buffer(values.size());
  cl_int status = CL_SUCCESS;
  cl::CommandQueue queue(s.context, s.device, 0, &status);
  if (status != CL_SUCCESS) throw_cl_error(status, "clCreateCommandQueue(onesweep self-test)");
  // Unsigned bits ascending (kind 0): the order the host computed.
  const KeyType bits_type = kb == 8   ? KeyType::u64
                            : kb == 4 ? KeyType::u32
                            : kb == 2 ? KeyType::u16
                                      : KeyType::u8;
  Run test(s, {queue, false, true}, bits_type, false, a, vb ? &va : nullptr, vb, n, {});
  Kernels k(test, p.program);
  std::vector<unsigned char> out_keys(keys.size()), out_values(values.size());
  for (int attempt = 0; attempt < kSelfTestRuns; ++attempt) {
    test.write(a, keys.data(), keys.size(), "upload");
    if (vb) test.write(va, values.data(), values.size(), "upload");
    enqueue(test, k, p, a, b, vb ? &va : nullptr, vb ? &vbuf : nullptr, work, nullptr);
    cl_uint timeout = 0;
    CLSORT_CHECK(queue.enqueueReadBuffer(a, CL_TRUE, 0, out_keys.size(), out_keys.data()));
    if (vb) CLSORT_CHECK(queue.enqueueReadBuffer(va, CL_TRUE, 0, out_values.size(), out_values.data()));
    CLSORT_CHECK(queue.enqueueReadBuffer(work, CL_TRUE, layout.timeout_byte(), 4, &timeout));
    for (cl_uint i = 0; i < n; ++i) {  // a timeout recounts: the order must be right either way
      if (key_at(out_keys, i) != key_at(keys, order[i])) return false;
      std::uint64_t index[2] = {0, ~std::uint64_t(order[i])};
      if (vb) std::memcpy(index, &out_values[std::size_t(i) * vb], vb);
      if (vb && (index[0] != order[i] || index[1] != ~std::uint64_t(order[i]))) return false;
    }
    if (!timeout) return true;
  }
  return false;
}

// Self-test results by device and program, for the whole process: a property of the device and its
// compiler, not of a Sorter (tests and tools create many Sorters; each would pay the test again). A test
// that throws (a failed allocation, a launch the device refuses) counts as failed: the sort falls back to
// reduce-then-scan rather than throw on every sort.
bool passes(Sorter::Impl& s, KeyType type, unsigned value_bytes, const RadixPlan& plan) {
  static std::mutex mutex;
  static std::map<std::pair<cl_device_id, std::string>, bool> results;
  const auto key = std::make_pair(s.device(), plan.program.key());
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto found = results.find(key); found != results.end()) return found->second;
  }
  bool ok = false;
  try {
    ok = self_test(s, type, value_bytes, plan);  // unlocked: Sorters on other threads need not wait
  } catch (const Error&) {
    ok = false;
  }
  std::lock_guard<std::mutex> lock(mutex);
  return results.emplace(key, ok).first->second;
}

}  // namespace

bool run_onesweep(Run& run, const RadixPlan& plan) {
  Kernels k(run, plan.program);  // a build error throws here, as for every other shape
  if (!passes(run.s, run.type, run.value_bytes, plan)) return false;
  const Layout layout(plan);
  cl::Buffer keys_tmp = run.scratch(kScratchKeys, std::size_t(run.n) * run.key_bytes);
  cl::Buffer values_tmp;
  if (run.values) values_tmp = run.scratch(kScratchValues, std::size_t(run.n) * run.value_bytes);
  cl::Buffer work = run.scratch(kScratchOnesweep, layout.bytes());
  enqueue(run, k, plan, run.keys, keys_tmp, run.values, run.values ? &values_tmp : nullptr, work,
          &run.s.state<RadixState>().onesweep);
  return true;
}

}  // namespace clsort::detail
