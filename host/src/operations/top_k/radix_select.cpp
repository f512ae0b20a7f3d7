// Radix selection driver (top_k, select): the plan, the levels of kernels/radix_select.cl, and top_k's sort
// of what they select by the library's own sort.
#include <algorithm>

#include "device/tuning.hpp"
#include "engine/run.hpp"
#include "operations/top_k/radix_select.hpp"
#include "operations/top_k/select_policy.hpp"

namespace clsort::detail {

SelectPlan plan_select(const PlanInput& in) {
  SelectPlan p;
  // The CPU row asks for one work-item per group with long tiles (select.wg=1): a work-group is one core's
  // loop there, so local counters need no atomics and no barrier costs a pass over the work-items.
  const SelectPolicy& policy = in.tuning.select;
  p.wg = policy.wg;
  p.items = policy.items;
  const std::uint64_t tile = std::uint64_t(p.wg) * p.items;
  const std::uint64_t tiles = std::max<std::uint64_t>(1, (std::uint64_t(in.n) + tile - 1) / tile);
  p.groups =
      std::uint32_t(std::min<std::uint64_t>(tiles, std::uint64_t(in.device.compute_units) * policy.groups));
  p.levels = in.key_bytes + 4;
  p.state_words = 64 + (p.levels + 2) * 256;
  p.program.files = {"radix_select.cl"};
  p.program.defines = width_defines(in);
  p.program.defines.set("SELECT_WG", p.wg).set("SELECT_ITEMS", p.items).set("SELECT_SAMPLE", policy.sample);
  return p;
}

void run_select(Run& run, const SelectPlan& p, std::uint32_t need, bool select_mode, const cl::Buffer& out,
                const cl::Buffer& state) {
  cl::Kernel clear = run.kernel(p.program, "select_clear");
  cl::Kernel histogram = run.kernel(p.program, "select_histogram");
  cl::Kernel level = run.kernel(p.program, "select_level");
  const cl_uint n = run.n, kind = run.kind, descending = run.descending;
  cl::Buffer cand[2] = {run.scratch(kSelectCandidatesA, std::size_t(n) * 4),
                        run.scratch(kSelectCandidatesB, std::size_t(n) * 4)};
  const std::size_t global = std::size_t(p.groups) * p.wg;
  set_args(clear, run.keys, state, n, need, kind, descending);
  run.launch(clear, p.wg, p.wg, "select_clear");
  // The second histogram pass runs only where the guess of select_clear collected too few candidates.
  for (cl_uint pass = 0; pass < 2; ++pass) {
    set_args(histogram, run.keys, cand[1], state, n, kind, descending, pass);
    run.launch(histogram, global, p.wg, "select_histogram");
  }
  const cl_uint mode = select_mode, out_size = select_mode ? 0 : need;
  // Without reading the state back, every level is enqueued; those after the selection ended return at
  // once. Level L writes candidates to cand[L % 2] and reads level L - 1's from the other, level 0 the
  // guess's from cand[1].
  for (cl_uint l = 0; l < p.levels; ++l) {
    set_args(level, run.keys, cand[(l + 1) % 2], cand[l % 2], out, state, l, kind, descending, mode,
             out_size);
    run.launch(level, global, p.wg, "select_level");
  }
}

}  // namespace clsort::detail

namespace clsort::detail {

void fit_select(SelectPolicy& s, const FitInput& f) {
  f.clamp_wg(s.wg);
}

CLSORT_PARAMS(select_params, CLSORT_PARAM("select.wg", select.wg, 1, 4096, Check::pow2, ""),
              CLSORT_PARAM("select.items", select.items, 1, 4096, Check::range, ""),
              CLSORT_PARAM("select.groups", select.groups, 1, 1024, Check::range, ""),
              CLSORT_PARAM("select.sample", select.sample, 0, 65536, Check::range, ""))

}  // namespace clsort::detail
