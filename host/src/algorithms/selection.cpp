// Selection (rank) sort driver: a rank kernel over (key block, part of the array) work-groups, which
// scatters into scratch itself when there is one part and otherwise leaves partial ranks for a scatter
// kernel, then a copy back.
#include <algorithm>

#include "sorter_impl.hpp"

namespace clsort::detail {

void selection_sort(Run& run) {
  const Tuning t = run.tuning();
  const std::string defines = "-DSELECTION_WG=" + std::to_string(t.selection_wg) +
                              " -DSELECTION_ITEMS=" + std::to_string(t.selection_items);
  cl::Kernel rank = run.kernel("selection.cl", "selection_rank", defines, run.value_bytes);
  const cl_uint n = run.n, kind = run.kind, descending = run.descending, wg = t.selection_wg;
  const cl_uint block = wg * t.selection_items, blocks = (n + block - 1) / block;
  // Enough work-groups for every compute unit several times over, each part at least four tiles long.
  const cl_uint units = run.s.compute_units;
  cl_uint parts = std::max<cl_uint>(1, (4 * units + blocks - 1) / blocks);
  parts = std::min<cl_uint>({parts, std::max<cl_uint>(1, n / (4 * wg)), 1024});
  const cl_uint part_len = cl_uint(round_up((n + parts - 1) / parts, wg));
  parts = (n + part_len - 1) / part_len;

  cl::Buffer keys_out = run.scratch(kScratchKeys, std::size_t(n) * run.key_bytes);
  cl::Buffer values_out, partial;
  cl::Kernel scatter;
  if (run.values) values_out = run.scratch(kScratchValues, std::size_t(n) * run.value_bytes);
  if (parts > 1) {
    scatter = run.kernel("selection.cl", "selection_scatter", defines, run.value_bytes);
    partial = run.scratch(kScratchCounts, std::size_t(parts) * n * 4);
  } else {
    partial = keys_out;  // unused: the rank kernel scatters itself
  }
  if (run.values)
    set_args(rank, run.keys, keys_out, *run.values, values_out, partial, n, kind, descending, blocks, parts,
             part_len);
  else
    set_args(rank, run.keys, keys_out, partial, n, kind, descending, blocks, parts, part_len);
  run.launch(rank, std::size_t(blocks) * parts * wg, wg, "selection_rank");
  if (parts > 1) {
    if (run.values)
      set_args(scatter, run.keys, keys_out, *run.values, values_out, partial, n, parts);
    else
      set_args(scatter, run.keys, keys_out, partial, n, parts);
    run.launch(scatter, n, std::min<cl_uint>(wg, 256), "selection_scatter");
  }
  run.copy(keys_out, run.keys, std::size_t(n) * run.key_bytes, "copy keys");
  if (run.values) run.copy(values_out, *run.values, std::size_t(n) * run.value_bytes, "copy values");
}

}  // namespace clsort::detail
