// Merge sort driver: tiles sorted by one work-group each, then log2(tiles) passes, each a merge-path
// partition and a merge (kernels/merge.cl); or the CPU shape, chunks sorted and merged sequentially per
// work-item. Passes alternate between the caller's buffers and scratch, starting where the last one ends
// in the caller's buffers, so no copy is needed. Stable: values move with their keys.
#include "algorithms/merge_policy.hpp"
#include "device/tuning.hpp"
#include "engine/run.hpp"

namespace clsort::detail {

MergePlan plan_merge(const PlanInput& in) {
  MergePlan p;
  p.policy = in.tuning.merge;
  const bool cpu = p.policy.cpu != 0;
  p.program.files = {"merge.cl"};
  p.program.defines = width_defines(in);
  p.program.defines.set("MERGE_WG", cpu ? 1 : p.policy.wg)
      .set("MERGE_ITEMS", cpu ? 1 : p.policy.items)
      .set("MERGE_CHUNK", p.policy.chunk)
      .set("MERGE_CPU", cpu ? 1 : 0);
  p.tile = cpu ? p.policy.chunk : p.policy.wg * p.policy.items;
  p.tiles = (in.n + p.tile - 1) / p.tile;
  while ((std::size_t(p.tile) << p.passes) < in.n) ++p.passes;
  return p;
}

void run_merge(Run& run, const MergePlan& p) {
  const bool cpu = p.policy.cpu != 0;
  const unsigned vb = run.value_bytes;
  cl::Kernel block = run.kernel(p.program, cpu ? "merge_cpu_block" : "merge_block_sort");
  cl::Kernel pass = run.kernel(p.program, cpu ? "merge_cpu_pass" : "merge_pass");
  cl::Kernel partition;
  if (!cpu) partition = run.kernel(p.program, "merge_partition");
  const cl_uint n = run.n, kind = run.kind, descending = run.descending;
  const cl_uint tile = p.tile, tiles = p.tiles;
  const std::size_t group = cpu ? 1 : p.policy.wg;
  const unsigned passes = p.passes;
  cl::Buffer keys_tmp, values_tmp, splits;
  if (passes) {
    keys_tmp = run.scratch(kScratchKeys, std::size_t(n) * run.key_bytes);
    if (run.values) values_tmp = run.scratch(kScratchValues, std::size_t(n) * vb);
    if (!cpu) splits = run.scratch(kScratchIndex, std::size_t(tiles) * 4);
  }
  // The buffers each pass reads and writes: the block sort writes where an even number of passes
  // leaves the result in the caller's buffers.
  cl::Buffer src = run.keys, dst = passes % 2 ? keys_tmp : run.keys;
  cl::Buffer vsrc = run.values ? *run.values : cl::Buffer(), vdst = passes % 2 ? values_tmp : vsrc;
  auto bind = [&](cl::Kernel& k, auto... rest) {
    if (run.values)
      set_args(k, src, dst, vsrc, vdst, rest...);
    else
      set_args(k, src, dst, rest...);
  };
  bind(block, n, kind, descending, cl_uint(passes == 0));
  run.launch(block, tiles * group, group, cpu ? "merge_cpu_block" : "merge_block_sort");
  for (unsigned i = 0; i < passes; ++i) {
    src = dst;
    dst = i % 2 != passes % 2 ? run.keys : keys_tmp;
    if (run.values) {
      vsrc = vdst;
      vdst = i % 2 != passes % 2 ? *run.values : values_tmp;
    }
    const cl_uint width = tile << i, last = i + 1 == passes;
    if (cpu) {
      bind(pass, n, width, kind, descending, last);
      run.launch(pass, tiles, 1, "merge_cpu_pass");
    } else {
      set_args(partition, src, splits, n, width, tiles);
      run.launch(partition, tiles, std::min<std::size_t>(p.policy.wg, 256), "merge_partition");
      bind(pass, splits, n, width, kind, descending, last);
      run.launch(pass, tiles * group, group, "merge_pass");
    }
  }
}

}  // namespace clsort::detail

namespace clsort::detail {

CLSORT_PARAMS(merge_params, CLSORT_PARAM("merge.wg", merge.wg, 1, 4096, Check::pow2, ""),
              CLSORT_PARAM("merge.items", merge.items, 1, 32, Check::range, ""),
              CLSORT_PARAM("merge.cpu", merge.cpu, 0, 1, Check::range, ""),
              CLSORT_PARAM("merge.chunk", merge.chunk, 16, 1u << 20, Check::pow2, ""))

// The GPU shape keeps a tile of keys, values and source positions in local memory; the CPU shape two
// chunks of keys and values (it merges back and forth).
void fit_merge(MergePolicy& m, const FitInput& f) {
  f.clamp_wg(m.wg);
  const std::size_t element = f.key_bytes + f.value_bytes + f.index_bytes;
  while (std::size_t(m.wg) * m.items * element > f.budget && m.items > 1) --m.items;
  while (std::size_t(m.wg) * m.items * element > f.budget && m.wg > 1) m.wg /= 2;
  while (2 * std::size_t(m.chunk) * (f.key_bytes + f.value_bytes) > f.budget && m.chunk > 16) m.chunk /= 2;
}

}  // namespace clsort::detail
