// Odd-even transposition sort driver: each tile sorted by element phases in local memory, then one launch
// per block phase (odd-even merge-split of neighbouring tiles), as many as there are tiles, and a decode.
#include "sorter_impl.hpp"

namespace clsort::detail {

void odd_even_sort(Run& run) {
  const Tuning t = run.tuning();
  const std::string defines = "-DODD_EVEN_WG=" + std::to_string(t.odd_even_wg) +
                              " -DODD_EVEN_TILE=" + std::to_string(t.odd_even_tile);
  const unsigned vb = run.value_bytes;
  cl::Kernel local = run.kernel("odd_even.cl", "odd_even_local", defines, vb);
  cl::Kernel merge_split = run.kernel("odd_even.cl", "odd_even_merge_split", defines, vb);
  cl::Kernel decode = run.kernel("odd_even.cl", "util_decode", defines, vb);

  const cl_uint n = run.n, kind = run.kind, descending = run.descending;
  const cl_uint wg = t.odd_even_wg, tile = t.odd_even_tile;
  const cl_uint tiles = (n + tile - 1) / tile;
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
