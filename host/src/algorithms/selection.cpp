// Selection (rank) sort driver: a rank kernel over (key block, part of the array) work-groups, which
// scatters into scratch itself when there is one part and otherwise leaves partial ranks for a scatter
// kernel, then a copy back.
#include <algorithm>

#include "algorithms/selection_policy.hpp"
#include "device/tuning.hpp"
#include "engine/run.hpp"

namespace clsort::detail {

SelectionPlan plan_selection(const PlanInput& in) {
  SelectionPlan p;
  p.policy = in.tuning.selection;
  p.program.files = {"selection.cl"};
  p.program.defines = width_defines(in);
  p.program.defines.set("SELECTION_WG", p.policy.wg).set("SELECTION_ITEMS", p.policy.items);
  const cl_uint n = in.n, wg = p.policy.wg, block = wg * p.policy.items;
  p.blocks = (n + block - 1) / block;
  // Enough work-groups for every compute unit several times over, each part at least four tiles long.
  const cl_uint units = in.device.compute_units;
  cl_uint parts = std::max<cl_uint>(1, (4 * units + p.blocks - 1) / p.blocks);
  parts = std::min<cl_uint>({parts, std::max<cl_uint>(1, n / (4 * wg)), 1024});
  p.part_len = cl_uint(((n + parts - 1) / parts + wg - 1) / wg * wg);
  p.parts = (n + p.part_len - 1) / p.part_len;
  return p;
}

void run_selection(Run& run, const SelectionPlan& p) {
  cl::Kernel rank = run.kernel(p.program, "selection_rank");
  const cl_uint n = run.n, kind = run.kind, descending = run.descending, wg = p.policy.wg;
  const cl_uint blocks = p.blocks, parts = p.parts, part_len = p.part_len;
  cl::Buffer keys_out = run.scratch(kScratchKeys, std::size_t(n) * run.key_bytes);
  cl::Buffer values_out, partial;
  cl::Kernel scatter;
  if (run.values) values_out = run.scratch(kScratchValues, std::size_t(n) * run.value_bytes);
  if (parts > 1) {
    scatter = run.kernel(p.program, "selection_scatter");
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

namespace clsort::detail {

CLSORT_PARAMS(selection_params, CLSORT_PARAM("selection.wg", selection.wg, 1, 4096, Check::pow2, ""),
              CLSORT_PARAM("selection.items", selection.items, 1, 16, Check::range, ""))

void fit_selection(SelectionPolicy& s, const FitInput& f) {
  f.clamp_wg(s.wg);
  while (std::size_t(s.wg) * f.key_bytes > f.budget && s.wg > 1) s.wg /= 2;
}

}  // namespace clsort::detail
