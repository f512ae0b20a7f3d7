// Bitonic sort driver: tiles sorted in local memory, then per merge stage the global (K, L) steps whose
// pairs span tiles, finished by a local-memory kernel (kernels/bitonic.cl). By-key sorts carry input
// indices for stability and gather the values at the end.
#include "sorter_impl.hpp"

namespace clsort::detail {

void bitonic_sort(Run& run) {
  const Tuning t = run.tuning();
  const std::string defines =
      "-DBITONIC_WG=" + std::to_string(t.bitonic_wg) + " -DBITONIC_TILE=" + std::to_string(t.bitonic_tile);
  const unsigned vb = run.value_bytes;
  cl::Kernel encode = run.kernel("bitonic.cl", "util_encode", defines, vb);
  cl::Kernel decode = run.kernel("bitonic.cl", "util_decode", defines, vb);
  cl::Kernel sort_local = run.kernel("bitonic.cl", "bitonic_sort_local", defines, vb);
  cl::Kernel merge_local = run.kernel("bitonic.cl", "bitonic_merge_local", defines, vb);
  cl::Kernel step = run.kernel("bitonic.cl", "bitonic_step", defines, vb);
  cl::Kernel iota, gather;
  cl::Buffer index, values_tmp;
  if (run.values) {
    iota = run.kernel("bitonic.cl", "util_iota", defines, vb);
    gather = run.kernel("bitonic.cl", "util_gather", defines, vb);
    index = run.scratch(kScratchIndex, std::size_t(run.n) * 4);
    values_tmp = run.scratch(kScratchValues, std::size_t(run.n) * vb);
  }

  const cl_uint n = run.n, kind = run.kind, descending = run.descending;
  const cl_uint wg = t.bitonic_wg, tile = t.bitonic_tile;
  const std::size_t util_wg = wg;
  cl_uint size_pow2 = 1;
  while (size_pow2 < n) size_pow2 <<= 1;
  const std::size_t tiles = (std::size_t(n) + tile - 1) / tile;

  set_args(encode, run.keys, n, kind, descending);
  run.launch(encode, n, util_wg, "util_encode");
  if (run.values) {
    set_args(iota, index, n);
    run.launch(iota, n, util_wg, "util_iota");
  }
  auto bind = [&](cl::Kernel& k, auto... rest) {
    if (run.values)
      set_args(k, run.keys, index, rest...);
    else
      set_args(k, run.keys, rest...);
  };
  bind(sort_local, n);
  run.launch(sort_local, tiles * wg, wg, "bitonic_sort_local");
  for (cl_uint size = 2 * tile; size != 0 && size <= size_pow2; size <<= 1) {
    for (cl_uint stride = size / 2; stride >= tile; stride >>= 1) {
      bind(step, n, size, stride);
      run.launch(step, size_pow2 / 2, util_wg, "bitonic_step");
    }
    bind(merge_local, n, size);
    run.launch(merge_local, tiles * wg, wg, "bitonic_merge_local");
  }
  set_args(decode, run.keys, n, kind, descending);
  run.launch(decode, n, util_wg, "util_decode");
  if (run.values) {
    run.copy(*run.values, values_tmp, std::size_t(n) * vb, "copy values");
    set_args(gather, values_tmp, index, *run.values, n);
    run.launch(gather, n, util_wg, "util_gather");
  }
}

}  // namespace clsort::detail
