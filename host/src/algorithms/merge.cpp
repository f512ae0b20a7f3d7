// Merge sort driver: tiles sorted by one work-group each, then log2(tiles) passes, each a merge-path
// partition and a merge (kernels/merge.cl); or the CPU shape, chunks sorted and merged sequentially per
// work-item. Passes alternate between the caller's buffers and scratch, starting where the last one ends
// in the caller's buffers, so no copy is needed. Stable: values move with their keys.
#include "sorter_impl.hpp"

namespace clsort::detail {

void merge_sort(Run& run) {
  const Tuning t = run.tuning();
  const bool cpu = t.merge_cpu != 0;
  const std::string defines = "-DMERGE_WG=" + std::to_string(cpu ? 1 : t.merge_wg) +
                              " -DMERGE_ITEMS=" + std::to_string(cpu ? 1 : t.merge_items) +
                              " -DMERGE_CHUNK=" + std::to_string(t.merge_chunk) +
                              " -DMERGE_CPU=" + std::to_string(cpu ? 1 : 0);
  const unsigned vb = run.value_bytes;
  cl::Kernel block = run.kernel("merge.cl", cpu ? "merge_cpu_block" : "merge_block_sort", defines, vb);
  cl::Kernel pass = run.kernel("merge.cl", cpu ? "merge_cpu_pass" : "merge_pass", defines, vb);
  cl::Kernel partition;
  if (!cpu) partition = run.kernel("merge.cl", "merge_partition", defines, vb);

  const cl_uint n = run.n, kind = run.kind, descending = run.descending;
  const cl_uint tile = cpu ? t.merge_chunk : t.merge_wg * t.merge_items;
  const std::size_t group = cpu ? 1 : t.merge_wg;
  const cl_uint tiles = (n + tile - 1) / tile;
  unsigned passes = 0;
  while ((std::size_t(tile) << passes) < n) ++passes;

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
  for (unsigned p = 0; p < passes; ++p) {
    src = dst;
    dst = p % 2 != passes % 2 ? run.keys : keys_tmp;
    if (run.values) {
      vsrc = vdst;
      vdst = p % 2 != passes % 2 ? *run.values : values_tmp;
    }
    const cl_uint width = tile << p, last = p + 1 == passes;
    if (cpu) {
      bind(pass, n, width, kind, descending, last);
      run.launch(pass, tiles, 1, "merge_cpu_pass");
    } else {
      set_args(partition, src, splits, n, width, tiles);
      run.launch(partition, tiles, std::min<std::size_t>(t.merge_wg, 256), "merge_partition");
      bind(pass, splits, n, width, kind, descending, last);
      run.launch(pass, tiles * group, group, "merge_pass");
    }
  }
}

}  // namespace clsort::detail
