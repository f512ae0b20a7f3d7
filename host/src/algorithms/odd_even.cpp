// Odd-even transposition sort driver: each tile sorted by element phases in local memory, then one launch
// per block phase (odd-even merge-split of neighbouring tiles), as many as there are tiles, and a decode.
#include "algorithms/odd_even_policy.hpp"
#include "device/tuning.hpp"
#include "engine/run.hpp"

namespace clsort::detail {

OddEvenPlan plan_odd_even(const PlanInput& in) {
  OddEvenPlan p;
  p.policy = in.tuning.odd_even;
  p.program.files = {"odd_even.cl"};
  p.program.defines = width_defines(in);
  p.program.defines.set("ODD_EVEN_WG", p.policy.wg).set("ODD_EVEN_TILE", p.policy.tile);
  p.tiles = (in.n + p.policy.tile - 1) / p.policy.tile;
  return p;
}

void run_odd_even(Run& run, const OddEvenPlan& p) {
  cl::Kernel local = run.kernel(p.program, "odd_even_local");
  cl::Kernel merge_split = run.kernel(p.program, "odd_even_merge_split");
  cl::Kernel decode = run.kernel(p.program, "util_decode");
  const cl_uint n = run.n, kind = run.kind, descending = run.descending;
  const cl_uint wg = p.policy.wg, tiles = p.tiles;
  auto bind = [&](cl::Kernel& k, auto... rest) {
    if (run.values)
      set_args(k, run.keys, *run.values, rest...);
    else
      set_args(k, run.keys, rest...);
  };
  bind(local, n, kind, descending, cl_uint(tiles == 1));
  run.launch(local, std::size_t(tiles) * wg, wg, "odd_even_local");
  if (tiles == 1) return;
  // Block phase p merges the tile pairs starting at even (p even) or odd (p odd) tiles.
  for (cl_uint phase = 0; phase < tiles; ++phase) {
    const cl_uint pairs = (tiles - (phase & 1)) / 2;
    if (pairs == 0) continue;
    bind(merge_split, n, phase);
    run.launch(merge_split, std::size_t(pairs) * wg, wg, "odd_even_merge_split");
  }
  set_args(decode, run.keys, n, kind, descending);
  run.launch(decode, n, std::min<std::size_t>(wg, 256), "util_decode");
}

}  // namespace clsort::detail

namespace clsort::detail {

CLSORT_PARAMS(odd_even_params, CLSORT_PARAM("odd_even.wg", odd_even.wg, 1, 4096, Check::pow2, ""),
              CLSORT_PARAM("odd_even.tile", odd_even.tile, 2, 65536, Check::pow2, ""))

// The tile sort holds a tile, the merge-split two tiles plus source positions; a tile is at least one pair
// per work-item.
void fit_odd_even(OddEvenPolicy& o, const FitInput& f) {
  f.clamp_wg(o.wg);
  const std::size_t element = f.key_bytes + f.value_bytes + f.index_bytes;
  if (o.tile < 2 * o.wg) o.tile = 2 * o.wg;
  while (2 * std::size_t(o.tile) * element > f.budget && o.tile > 2) {
    o.tile /= 2;
    if (o.wg > o.tile / 2) o.wg = o.tile / 2;
  }
}

}  // namespace clsort::detail
