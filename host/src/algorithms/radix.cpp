// Radix sort driver: per digit pass a histogram, a scan and a stable scatter (kernels/radix.cl).
#include <algorithm>
#include <string>

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

// The warp-multisplit scatter (radix.match) is inline PTX: NVIDIA's compiler only. It needs warps of 32,
// which NVIDIA guarantees, a work-group of whole warps and a work-item per digit. At most 8 bits, its
// per-warp counters (RADIX * wg / 8 bytes) plus the rest fit wherever the portable scatter's local memory
// does, so fit_to_device's budget holds for both. Other tunings (tests reach radix.wg=8 and radix.bits=11
// on any device) keep the portable scatter rather than fail.
bool use_match(const Tuning& t, bool nvidia) {
  return nvidia && t.radix_match && t.radix_bits <= 8 && t.radix_wg % 32 == 0 &&
         (1u << t.radix_bits) <= t.radix_wg;
}

}  // namespace

void radix_sort(Run& run) {
  const Tuning t = run.tuning();
  std::string defines =
      "-DRADIX_BITS=" + std::to_string(t.radix_bits) + " -DRADIX_WG=" + std::to_string(t.radix_wg) +
      " -DRADIX_ITEMS=" + std::to_string(t.radix_items) + " -DRADIX_CPU=" + std::to_string(t.radix_cpu);
  if (t.radix_cpu) return radix_sort_cpu(run, t, defines);
  if (use_match(t, run.s.nvidia)) defines += " -DRADIX_MATCH=1";
  cl::Kernel histogram = run.kernel("radix.cl", "radix_histogram", defines, run.value_bytes);
  cl::Kernel scan = run.kernel("radix.cl", "radix_scan", defines, run.value_bytes);
  cl::Kernel scatter = run.kernel("radix.cl", "radix_scatter", defines, run.value_bytes);

  const cl_uint n = run.n;
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
