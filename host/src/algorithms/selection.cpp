// Selection (rank) sort driver: one rank-and-scatter kernel into scratch, then a copy back.
#include "sorter_impl.hpp"

namespace clsort::detail {

void selection_sort(Run& run) {
  const Tuning t = run.tuning();
  cl::Kernel rank = run.kernel("selection.cl", "selection_rank",
                               "-DSELECTION_WG=" + std::to_string(t.selection_wg), run.value_bytes);
  const cl_uint n = run.n, kind = run.kind, descending = run.descending;
  cl::Buffer keys_out = run.scratch(kScratchKeys, std::size_t(n) * run.key_bytes);
  cl::Buffer values_out;
  if (run.values) {
    values_out = run.scratch(kScratchValues, std::size_t(n) * run.value_bytes);
    set_args(rank, run.keys, keys_out, *run.values, values_out, n, kind, descending);
  } else {
    set_args(rank, run.keys, keys_out, n, kind, descending);
  }
  run.launch(rank, n, t.selection_wg, "selection_rank");
  run.copy(keys_out, run.keys, std::size_t(n) * run.key_bytes, "copy keys");
  if (run.values) run.copy(values_out, *run.values, std::size_t(n) * run.value_bytes, "copy values");
}

}  // namespace clsort::detail
