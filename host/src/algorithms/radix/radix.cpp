// Radix sort driver: runs a RadixPlan (radix_plan.cpp). The CPU shape and reduce-then-scan are here;
// Onesweep, with its self-test, in radix_onesweep.cpp.
#include "algorithms/radix/radix.hpp"

#include <stdexcept>

namespace clsort::detail {

namespace {

// The CPU shape: one MSD counting-sort pass over `chunks` chunks in parallel (one work-item each), then
// one work-item per bucket sorting it in cache by the remaining digits (kernels/radix_cpu.cl).
void run_cpu(Run& run, const RadixPlan& p) {
  cl::Kernel histogram = run.kernel(p.program, "radix_cpu_histogram");
  cl::Kernel scatter = run.kernel(p.program, "radix_cpu_scatter");
  cl::Kernel buckets = run.kernel(p.program, "radix_cpu_buckets");
  const cl_uint n = run.n, chunks = p.chunks, chunk = p.chunk;
  const cl_uint shift = p.end_bit - p.bits;  // the most significant digit (RADIX_CPU_SHIFT)

  cl::Buffer keys_tmp = run.scratch(kScratchKeys, std::size_t(n) * run.key_bytes);
  cl::Buffer values_tmp;
  if (run.values) values_tmp = run.scratch(kScratchValues, std::size_t(n) * run.value_bytes);
  cl::Buffer counts = run.scratch(kScratchCounts, std::size_t(p.radix) * chunks * 4);
  cl::Buffer starts = run.scratch(kScratchTotals, (std::size_t(p.radix) + 1) * 4);

  // The MSD pass only reads the input: the caller's keys stay as they were until the buckets kernel.
  const cl::Buffer& in = run.source ? *run.source : run.keys;
  const cl_uint kind = run.kind, descending = run.descending, encode = 1, decode = 0;
  const cl_ulong origin = run.offset;
  set_args(histogram, in, n, shift, encode, kind, descending, chunk, counts, origin);
  run.launch(histogram, chunks, 1, "radix_cpu_histogram");
  if (run.values) {
    set_args(scatter, in, keys_tmp, *run.values, values_tmp, n, shift, encode, decode, kind, descending,
             chunk, counts, starts, origin);
    set_args(buckets, run.keys, keys_tmp, *run.values, values_tmp, kind, descending, starts, origin);
  } else {
    set_args(scatter, in, keys_tmp, n, shift, encode, decode, kind, descending, chunk, counts, starts,
             origin);
    set_args(buckets, run.keys, keys_tmp, kind, descending, starts, origin);
  }
  run.launch(scatter, chunks, 1, "radix_cpu_scatter");
  run.launch(buckets, p.radix, 1, "radix_cpu_buckets");
}

}  // namespace

// Per pass a histogram, a scan of it and a stable scatter (kernels/radix_rts.cl), passes alternating
// between the caller's buffers and scratch.
void run_reduce_then_scan(Run& run, const RadixPlan& p) {
  cl::Kernel histogram = run.kernel(p.program, "radix_histogram");
  cl::Kernel scan = run.kernel(p.program, "radix_scan");
  cl::Kernel scatter = run.kernel(p.program, "radix_scatter");
  const cl_uint n = run.n, wg = p.wg, groups = p.groups, tiles_per_group = p.tiles_per_group;

  cl::Buffer keys_tmp = run.scratch(kScratchKeys, std::size_t(n) * run.key_bytes);
  cl::Buffer values_tmp;
  if (run.values) values_tmp = run.scratch(kScratchValues, std::size_t(n) * run.value_bytes);
  cl::Buffer counts = run.scratch(kScratchCounts, std::size_t(p.radix) * groups * 4);
  cl::Buffer totals = run.scratch(kScratchTotals, std::size_t(p.radix) * 4);

  cl::Buffer src = run.keys, dst = keys_tmp;
  cl::Buffer vsrc = run.values ? *run.values : cl::Buffer(), vdst = values_tmp;
  const cl_uint kind = run.kind, descending = run.descending;
  for (unsigned pass = 0; pass < p.passes; ++pass) {
    const cl_uint shift = p.shift(pass);
    const cl_uint encode = pass == 0, decode = pass + 1 == p.passes;
    set_args(histogram, src, n, shift, encode, kind, descending, tiles_per_group, counts);
    run.launch(histogram, std::size_t(groups) * wg, wg, "radix_histogram");
    set_args(scan, counts, groups, totals);
    run.launch(scan, std::size_t(p.radix) * wg, wg, "radix_scan");
    if (run.values)
      set_args(scatter, src, dst, vsrc, vdst, n, shift, encode, decode, kind, descending, tiles_per_group,
               counts, totals);
    else
      set_args(scatter, src, dst, n, shift, encode, decode, kind, descending, tiles_per_group, counts,
               totals);
    run.launch(scatter, std::size_t(groups) * wg, wg, "radix_scatter");
    std::swap(src, dst);
    std::swap(vsrc, vdst);
  }
  if (p.passes % 2) {  // the result sits in scratch
    run.copy(keys_tmp, run.keys, std::size_t(n) * run.key_bytes, "copy keys");
    if (run.values) run.copy(values_tmp, *run.values, std::size_t(n) * run.value_bytes, "copy values");
  }
}

void run_radix(Run& run, const RadixPlan& plan) {
  if (run.offset && plan.shape != RadixPlan::Shape::cpu)
    throw std::logic_error("clsort: only the radix CPU shape sorts at an offset (Run::offset)");
  switch (plan.shape) {
    case RadixPlan::Shape::cpu:
      return run_cpu(run, plan);
    case RadixPlan::Shape::reduce_then_scan:
      return run_reduce_then_scan(run, plan);
    case RadixPlan::Shape::onesweep:
      if (!run_onesweep(run, plan)) run_reduce_then_scan(run, plan.fallback.at(0));
      return;
  }
}

}  // namespace clsort::detail
