// Radix sort driver: per digit pass a histogram, a scan and a stable scatter (kernels/radix.cl).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "sorter_impl.hpp"

namespace clsort::detail {

namespace {

// The CPU shape: one MSD counting-sort pass over `chunks` chunks in parallel (one work-item each), then
// one work-item per bucket sorting it in cache by the remaining digits (kernels/radix.cl).
void radix_sort_cpu(Run& run, const Tuning& t, const std::string& defines) {
  cl::Kernel histogram = run.kernel("radix.cl", "radix_cpu_histogram", defines, run.value_bytes);
  cl::Kernel scatter = run.kernel("radix.cl", "radix_cpu_scatter", defines, run.value_bytes);
  cl::Kernel buckets = run.kernel("radix.cl", "radix_cpu_buckets", defines, run.value_bytes);
  const cl_uint n = run.n;
  const cl_uint radix = 1u << t.radix_bits;
  // Chunks small enough to balance the cores, large enough that the per-chunk offset sums stay cheap.
  constexpr cl_uint kMinChunk = 16384;
  const cl_uint chunks =
      std::max<cl_uint>(1, std::min<cl_uint>(t.radix_groups, (n + kMinChunk - 1) / kMinChunk));
  const cl_uint chunk = (n + chunks - 1) / chunks;
  const cl_uint shift = run.key_bytes * 8 - t.radix_bits;  // the most significant digit (RADIX_CPU_SHIFT)

  cl::Buffer keys_tmp = run.scratch(kScratchKeys, std::size_t(n) * run.key_bytes);
  cl::Buffer values_tmp;
  if (run.values) values_tmp = run.scratch(kScratchValues, std::size_t(n) * run.value_bytes);
  cl::Buffer counts = run.scratch(kScratchCounts, std::size_t(radix) * chunks * 4);
  cl::Buffer starts = run.scratch(kScratchTotals, (std::size_t(radix) + 1) * 4);

  const cl_uint kind = run.kind, descending = run.descending, encode = 1, decode = 0;
  set_args(histogram, run.keys, n, shift, encode, kind, descending, chunk, counts);
  run.launch(histogram, chunks, 1, "radix_cpu_histogram");
  if (run.values) {
    set_args(scatter, run.keys, keys_tmp, *run.values, values_tmp, n, shift, encode, decode, kind, descending,
             chunk, counts, starts);
    set_args(buckets, run.keys, keys_tmp, *run.values, values_tmp, kind, descending, starts);
  } else {
    set_args(scatter, run.keys, keys_tmp, n, shift, encode, decode, kind, descending, chunk, counts, starts);
    set_args(buckets, run.keys, keys_tmp, kind, descending, starts);
  }
  run.launch(scatter, chunks, 1, "radix_cpu_scatter");
  run.launch(buckets, radix, 1, "radix_cpu_buckets");
}

// Onesweep's shape for n keys under tuning t, and its scratch: two copies of the state words (every
// pass's histogram, tile counters, timeout flag, first key: the layout of kernels/radix.cl's OS_* words)
// used by alternate sorts, and two look-back arrays of tiles x radix words.
struct OnesweepLayout {
  cl_uint radix, block, tiles;
  unsigned passes;
  std::size_t state_words, status_words;
  OnesweepLayout(const Tuning& t, unsigned key_bytes, cl_uint n)
      : radix(1u << t.radix_bits),
        block(t.radix_wg * t.radix_items),
        tiles((n + block - 1) / block),
        passes((key_bytes * 8 + t.radix_bits - 1) / t.radix_bits),
        state_words(std::size_t(passes) * radix + passes + 3),
        status_words(std::size_t(tiles) * radix) {}
  std::size_t status_at() const { return 2 * state_words; }
  std::size_t bytes() const { return (2 * state_words + 2 * status_words) * 4; }
  std::size_t timeout_byte() const { return (state_words - 3) * 4; }  // OS_TIMEOUT of copy 0
};

struct OnesweepKernels {
  cl::Kernel clear, histogram, sweep;
};

// Enqueues a whole Onesweep sort of keys (and values) in `a`, with `b` as the other buffer, and, when
// the number of passes is odd, the copy of the result from b back to a. `zeroed` is what the Sorter
// knows of the state copies in `work` (its Onesweep scratch), or null for a buffer of no sort before.
void enqueue_onesweep(Run& run, OnesweepKernels& k, const Tuning& t, const cl::Buffer& a, const cl::Buffer& b,
                      const cl::Buffer* va, const cl::Buffer* vb, const cl::Buffer& work, cl_uint n,
                      cl_uint spin_limit, Sorter::Impl::OnesweepZeroed* zeroed) {
  const OnesweepLayout layout(t, run.key_bytes, n);
  const cl_uint tiles = layout.tiles, state_words = cl_uint(layout.state_words);
  // The copy that an earlier sort's histogram kernel zeroes, if no scratch buffer was replaced since;
  // otherwise copy 0, cleared first.
  const bool reuse =
      zeroed && zeroed->valid && zeroed->made == run.s.scratch_made && zeroed->words == layout.state_words;
  const cl_uint copy = reuse ? zeroed->copy : 0;
  if (zeroed) zeroed->valid = false;  // until this sort's histogram kernel is enqueued
  // Word offsets into one buffer: sub-buffers would need the device's base alignment.
  const cl_uint state_at = copy * state_words, other_at = (1 - copy) * state_words;
  const cl_uint status_at = cl_uint(layout.status_at()), status_words = cl_uint(layout.status_words);
  if (!reuse) {  // both copies: as cheap as one
    const cl_uint clear_words = 2 * state_words;
    set_args(k.clear, work, clear_words);
    run.launch(k.clear, round_up(clear_words, 256), 256, "radix_onesweep_clear");
  }
  const cl_uint kind = run.kind, descending = run.descending;
  // Enough groups to fill the device several times over; each counts a contiguous range.
  const cl_uint groups = std::min<cl_uint>(tiles, std::max<cl_uint>(1, run.s.compute_units * 4));
  set_args(k.histogram, a, n, kind, descending, work, state_at, other_at, state_words, status_at,
           status_words);
  run.launch(k.histogram, std::size_t(groups) * t.radix_wg, t.radix_wg, "radix_onesweep_histogram");
  if (zeroed) *zeroed = {run.s.scratch_made, layout.state_words, 1 - copy, true};
  for (cl_uint pass = 0; pass < layout.passes; ++pass) {
    if (va)
      set_args(k.sweep, a, b, *va, *vb, n, pass, kind, descending, work, state_at, status_at, tiles,
               spin_limit);
    else
      set_args(k.sweep, a, b, n, pass, kind, descending, work, state_at, status_at, tiles, spin_limit);
    run.launch(k.sweep, std::size_t(tiles) * t.radix_wg, t.radix_wg, "radix_onesweep");
  }
  if (layout.passes % 2) {  // nothing was skipped (see radix_onesweep): the result sits in b
    run.copy(b, a, std::size_t(n) * run.key_bytes, "copy keys");
    if (va) run.copy(*vb, *va, std::size_t(n) * run.value_bytes, "copy values");
  }
}

// Onesweep's look-back is correct only where work-groups that have started keep making progress and
// atomics publish to every work-group; OpenCL 1.2 promises neither. So before its first use with a
// program (see onesweep_passes), a test array is sorted with it and compared with std::stable_sort. A
// failure means reduce-then-scan for that program: wrong order, or a look-back that gave up waiting and
// recounted (still correct, but a device that starves waiting work-groups would do it all the time).
bool onesweep_self_test(Run& run, OnesweepKernels& k, const Tuning& t) {
  // Enough tiles that every compute unit runs several work-groups at once, which wait for each other;
  // small enough that checking on the host costs little (and Oclgrind can run it).
  const cl_uint n = t.radix_wg * t.radix_items * std::max<cl_uint>(16, 2 * run.s.compute_units) + 7;
  const unsigned kb = run.key_bytes, vb = run.value_bytes;
  std::vector<unsigned char> keys(std::size_t(n) * kb), values(std::size_t(n) * vb);
  std::uint64_t x = 0x9E3779B97F4A7C15ull;
  for (cl_uint i = 0; i < n; ++i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    const std::uint64_t key = x >> (i % 3 == 0 ? 40 : 0);  // some duplicates: stability matters too
    std::memcpy(&keys[std::size_t(i) * kb], &key, kb);
    const std::uint64_t index = i;
    if (vb) std::memcpy(&values[std::size_t(i) * vb], &index, vb);
  }
  // Each key's expected place: a stable sort of (key, index) by key, as unsigned bits ascending.
  auto key_at = [&](const std::vector<unsigned char>& v, std::size_t i) {
    std::uint64_t key = 0;
    std::memcpy(&key, &v[i * kb], kb);
    return key;
  };
  std::vector<cl_uint> order(n);
  for (cl_uint i = 0; i < n; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](cl_uint l, cl_uint r) { return key_at(keys, l) < key_at(keys, r); });

  const OnesweepLayout layout(t, kb, n);
  // The test must not wait for the caller's work: on the caller's queue its blocking reads would wait
  // for whatever was enqueued before (an in-order queue), and the caller may release that only after this
  // call returns (a user event). So it runs on a queue of its own, with buffers of its own (the scratch
  // buffers may still be in use by the previous sort on an out-of-order queue), and out of the profile.
  auto buffer = [&](std::size_t bytes) {
    cl_int status = CL_SUCCESS;
    cl::Buffer b(run.s.context, CL_MEM_READ_WRITE, bytes, nullptr, &status);
    if (status != CL_SUCCESS) throw_cl_error(status, "clCreateBuffer(onesweep self-test)");
    return b;
  };
  cl::Buffer a = buffer(keys.size()), b = buffer(keys.size()), work = buffer(layout.bytes());
  cl::Buffer va, vbuf;
  if (vb) va = buffer(values.size()), vbuf = buffer(values.size());
  cl_int status = CL_SUCCESS;
  cl::CommandQueue queue(run.s.context, run.s.device, 0, &status);
  if (status != CL_SUCCESS) throw_cl_error(status, "clCreateCommandQueue(onesweep self-test)");
  struct Swap {  // the Sorter's queue and flags, restored however the test ends
    Sorter::Impl& s;
    cl::CommandQueue queue;
    bool profiling, in_order;
    ~Swap() {
      s.queue = queue;
      s.profiling = profiling;
      s.in_order = in_order;
    }
  } swap{run.s, run.s.queue, run.s.profiling, run.s.in_order};
  run.s.queue = queue;
  run.s.profiling = false;
  run.s.in_order = true;
  Run test{run.s, run.type, kb, 0 /* unsigned bits */, false, a, vb ? &va : nullptr, vb, n, {}, {}};
  CLSORT_CHECK(queue.enqueueWriteBuffer(a, CL_FALSE, 0, keys.size(), keys.data()));
  if (vb) CLSORT_CHECK(queue.enqueueWriteBuffer(va, CL_FALSE, 0, values.size(), values.data()));
  // A healthy device answers in microseconds; a starved look-back recounts after 2^20 reads.
  enqueue_onesweep(test, k, t, a, b, vb ? &va : nullptr, vb ? &vbuf : nullptr, work, n, 1u << 20, nullptr);
  std::vector<unsigned char> out_keys(keys.size()), out_values(values.size());
  cl_uint timeout = 0;
  CLSORT_CHECK(queue.enqueueReadBuffer(a, CL_TRUE, 0, out_keys.size(), out_keys.data()));
  if (vb) CLSORT_CHECK(queue.enqueueReadBuffer(va, CL_TRUE, 0, out_values.size(), out_values.data()));
  CLSORT_CHECK(queue.enqueueReadBuffer(work, CL_TRUE, layout.timeout_byte(), 4, &timeout));
  if (timeout) return false;
  for (cl_uint i = 0; i < n; ++i) {
    if (key_at(out_keys, i) != key_at(keys, order[i])) return false;
    std::uint64_t index = 0;
    if (vb) std::memcpy(&index, &out_values[std::size_t(i) * vb], vb);
    if (vb && index != order[i]) return false;
  }
  return true;
}

// Self-test results by device and program, for the whole process: a property of the device and its
// compiler, not of a Sorter (tests and tools create many Sorters; each would pay the test again).
bool onesweep_passes(Run& run, OnesweepKernels& k, const Tuning& t, const std::string& program) {
  static std::mutex mutex;
  static std::map<std::pair<cl_device_id, std::string>, bool> results;
  const auto key = std::make_pair(run.s.device(), program);
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto found = results.find(key); found != results.end()) return found->second;
  }
  const bool ok = onesweep_self_test(run, k, t);  // unlocked: Sorters on other threads need not wait
  std::lock_guard<std::mutex> lock(mutex);
  return results.emplace(key, ok).first->second;
}

}  // namespace

void radix_sort(Run& run) {
  Tuning t = run.tuning();
  // Below half a tile per compute unit, most compute units sit idle and each pass takes as long as one
  // tile's ranking and scatter: smaller tiles spread the keys over more of them and finish sooner. Between
  // a half and one tile per compute unit they did not (H100: 2^19 keys level or slower with 8 keys per
  // work-item against 24, 2^18 faster).
  if (!t.radix_cpu && t.radix_items_small && t.radix_items_small < t.radix_items &&
      std::size_t(run.n) * 2 < std::size_t(t.radix_wg) * t.radix_items * run.s.compute_units)
    t.radix_items = t.radix_items_small;
  std::string defines =
      "-DRADIX_BITS=" + std::to_string(t.radix_bits) + " -DRADIX_WG=" + std::to_string(t.radix_wg) +
      " -DRADIX_ITEMS=" + std::to_string(t.radix_items) + " -DRADIX_CPU=" + std::to_string(t.radix_cpu);
  if (t.radix_cpu) return radix_sort_cpu(run, t, defines);
  if (t.radix_match) defines += " -DRADIX_MATCH=1";  // fit_to_device checked that it can
  if (t.radix_regs) defines += " -DPTX_MAXNREG=" + std::to_string(t.radix_regs);  // see program_cache.cpp

  const cl_uint n = run.n;
  // The multisplit pass's prefetch (RADIX_PREFETCH in radix.cl), where work-groups get several tiles each:
  // from 8 tiles per compute unit. With fewer the loop only costs (H200, 2^16 u32 keys in 32 tiles:
  // 0.046-0.053 ms against 0.044-0.045).
  if (t.radix_match && t.radix_onesweep && run.key_bytes == 4 && !run.values && n <= t.radix_prefetch_max &&
      n / (t.radix_wg * t.radix_items) >= 8 * run.s.compute_units)
    defines += " -DRADIX_PREFETCH=1";
  // Onesweep's look-back words hold counts below 2^30.
  if (t.radix_onesweep && n < (1u << 30)) {
    OnesweepKernels k{run.kernel("radix.cl", "radix_onesweep_clear", defines, run.value_bytes),
                      run.kernel("radix.cl", "radix_onesweep_histogram", defines, run.value_bytes),
                      run.kernel("radix.cl", "radix_onesweep", defines, run.value_bytes)};
    if (onesweep_passes(run, k, t, run.program_options(defines, run.value_bytes))) {
      const OnesweepLayout layout(t, run.key_bytes, n);
      cl::Buffer keys_tmp = run.scratch(kScratchKeys, std::size_t(n) * run.key_bytes);
      cl::Buffer values_tmp;
      if (run.values) values_tmp = run.scratch(kScratchValues, std::size_t(n) * run.value_bytes);
      cl::Buffer work = run.scratch(kScratchOnesweep, layout.bytes());
      enqueue_onesweep(run, k, t, run.keys, keys_tmp, run.values, run.values ? &values_tmp : nullptr, work, n,
                       t.radix_spins, &run.s.onesweep_zeroed);
      return;
    }
  }

  cl::Kernel histogram = run.kernel("radix.cl", "radix_histogram", defines, run.value_bytes);
  cl::Kernel scan = run.kernel("radix.cl", "radix_scan", defines, run.value_bytes);
  cl::Kernel scatter = run.kernel("radix.cl", "radix_scatter", defines, run.value_bytes);

  const cl_uint wg = t.radix_wg;
  const cl_uint radix = 1u << t.radix_bits;
  const cl_uint block = wg * t.radix_items;
  const cl_uint blocks = (n + block - 1) / block;
  cl_uint groups = std::min<cl_uint>(blocks, t.radix_groups);
  const cl_uint blocks_per_group = (blocks + groups - 1) / groups;
  groups = (blocks + blocks_per_group - 1) / blocks_per_group;  // no empty trailing groups
  const unsigned passes = (run.key_bytes * 8 + t.radix_bits - 1) / t.radix_bits;

  cl::Buffer keys_tmp = run.scratch(kScratchKeys, std::size_t(n) * run.key_bytes);
  cl::Buffer values_tmp;
  if (run.values) values_tmp = run.scratch(kScratchValues, std::size_t(n) * run.value_bytes);
  cl::Buffer counts = run.scratch(kScratchCounts, std::size_t(radix) * groups * 4);
  cl::Buffer totals = run.scratch(kScratchTotals, std::size_t(radix) * 4);

  cl::Buffer src = run.keys, dst = keys_tmp;
  cl::Buffer vsrc = run.values ? *run.values : cl::Buffer(), vdst = values_tmp;
  const cl_uint kind = run.kind, descending = run.descending;
  for (unsigned pass = 0; pass < passes; ++pass) {
    const cl_uint shift = pass * t.radix_bits;
    const cl_uint encode = pass == 0, decode = pass + 1 == passes;
    set_args(histogram, src, n, shift, encode, kind, descending, blocks_per_group, counts);
    run.launch(histogram, std::size_t(groups) * wg, wg, "radix_histogram");
    set_args(scan, counts, groups, totals);
    run.launch(scan, std::size_t(radix) * wg, wg, "radix_scan");
    if (run.values)
      set_args(scatter, src, dst, vsrc, vdst, n, shift, encode, decode, kind, descending, blocks_per_group,
               counts, totals);
    else
      set_args(scatter, src, dst, n, shift, encode, decode, kind, descending, blocks_per_group, counts,
               totals);
    run.launch(scatter, std::size_t(groups) * wg, wg, "radix_scatter");
    std::swap(src, dst);
    std::swap(vsrc, vdst);
  }
  if (passes % 2) {  // the result sits in scratch
    run.copy(keys_tmp, run.keys, std::size_t(n) * run.key_bytes, "copy keys");
    if (run.values) run.copy(values_tmp, *run.values, std::size_t(n) * run.value_bytes, "copy values");
  }
}

}  // namespace clsort::detail
