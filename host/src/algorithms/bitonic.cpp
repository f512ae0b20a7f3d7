// Bitonic sort driver: tiles sorted in local memory, then per merge stage the steps whose pairs span tiles,
// several per global launch (kernels/bitonic.cl), finished by a local-memory kernel. Keys are encoded by
// the first kernel and decoded by the last. By-key sorts carry input indices and gather values at the end.
#include <algorithm>

#include "algorithms/bitonic_policy.hpp"
#include "device/tuning.hpp"
#include "engine/run.hpp"

namespace clsort::detail {

namespace {

unsigned log2_of(std::size_t v) {
  unsigned b = 0;
  while ((std::size_t(1) << b) < v) ++b;
  return b;
}

// Groups of k fused steps with lowest mask bit lo: group t starts at x0 = t with k zero bits inserted at
// bit lo. Groups with x0 >= n hold only +inf, so launches end at the last group with x0 below n.
std::size_t live_groups(std::size_t n, unsigned lo, unsigned k) {
  std::size_t last = n - 1;
  const std::size_t low = (std::size_t(1) << lo) - 1, field = ((std::size_t(1) << k) - 1) << lo;
  if (last & field) last = (last & ~(field | low)) | low;
  return ((last >> (lo + k)) << lo | (last & low)) + 1;
}

// By-key sorts carry each key's input index through the network (the kernels take it after the keys) and
// gather the values by it at the end.
struct ByIndex {
  cl::Kernel gather;
  cl::Buffer index, values_tmp;

  ByIndex(Run& run, const BitonicPlan& p) {
    if (!run.values) return;
    gather = run.kernel(p.program, "util_gather");
    index = run.scratch(kScratchIndex, std::size_t(run.n) * 4);
    values_tmp = run.scratch(kScratchValues, std::size_t(run.n) * run.value_bytes);
  }
  template <class... Rest>
  void bind(Run& run, cl::Kernel& k, Rest... rest) const {
    if (run.values)
      set_args(k, run.keys, index, rest...);
    else
      set_args(k, run.keys, rest...);
  }
  void gather_values(Run& run, std::size_t wg) {
    if (!run.values) return;
    run.copy(*run.values, values_tmp, std::size_t(run.n) * run.value_bytes, "copy values");
    set_args(gather, values_tmp, index, *run.values, cl_uint(run.n));
    run.launch(gather, run.n, wg, "util_gather");
  }
};

// The CPU shape: one work-item per chunk of `tile` elements in local memory, steps as vector loops.
void run_cpu(Run& run, const BitonicPlan& p) {
  cl::Kernel local = run.kernel(p.program, "bitonic_cpu_local");
  cl::Kernel global = run.kernel(p.program, "bitonic_cpu_global");
  ByIndex by_index(run, p);
  const cl_uint n = run.n, kind = run.kind, descending = run.descending, tile = p.policy.tile;
  const unsigned tile_bits = log2_of(tile), total_bits = log2_of(n);
  const std::size_t chunks = (std::size_t(n) + tile - 1) / tile;
  const unsigned max_k = p.max_steps;
  auto bind = [&](cl::Kernel& k, auto... rest) { by_index.bind(run, k, rest...); };
  bind(local, n, kind, descending, cl_uint(1), cl_uint(total_bits <= tile_bits));
  run.launch(local, chunks, 1, "bitonic_cpu_local");
  for (unsigned bits = tile_bits + 1; bits <= total_bits; ++bits) {
    const cl_uint size = cl_uint(std::size_t(1) << bits);
    const unsigned global_steps = bits - tile_bits;
    for (unsigned done = 0; done < global_steps;) {
      const cl_uint k = std::min(max_k, global_steps - done);
      const cl_uint lo = bits - done - k, flip = done == 0;
      bind(global, n, size, lo, k, flip);
      const std::size_t run_length = tile >> k;  // each work-item takes run_length consecutive groups
      run.launch(global, (live_groups(n, lo, k) + run_length - 1) / run_length, 1, "bitonic_cpu_global");
      done += k;
    }
    bind(local, n, kind, descending, cl_uint(0), cl_uint(bits == total_bits));
    run.launch(local, chunks, 1, "bitonic_cpu_local");
  }
  by_index.gather_values(run, 64);
}

}  // namespace

BitonicPlan plan_bitonic(const PlanInput& in) {
  BitonicPlan p;
  p.policy = in.tuning.bitonic;
  p.program.files = {"bitonic.cl"};
  p.program.defines = width_defines(in);
  if (p.policy.cpu) {
    p.program.defines.set("BITONIC_CPU", 1).set("BITONIC_WG", 1).set("BITONIC_TILE", p.policy.tile);
    // Runs of a fused global group stay at least 16 elements long, a whole vector of any width.
    p.max_steps = std::max(1u, std::min(p.policy.steps, log2_of(p.policy.tile) - 4));
    return p;
  }
  p.program.defines.set("BITONIC_WG", p.policy.wg).set("BITONIC_TILE", p.policy.tile);
  // Intel's OpenCL compiler crashes on the fully unrolled loads of a six-step global kernel
  // (kernels/bitonic.cl, BITONIC_LOAD_UNROLL). Its runtimes name the vendor "Intel(R) Corporation"; PoCL
  // on an Intel CPU says "GenuineIntel" and compiles the full unroll.
  if (in.device.vendor.find("intel(r)") != std::string::npos)
    p.program.defines.set("BITONIC_LOAD_UNROLL", 16);
  // A work-item holds 2^k elements of a global group in registers: at most 64 32-bit words of them
  // (keys of 8 bytes or carrying an index take two or three; narrower keys are 32-bit codes there).
  const unsigned words = (std::max(in.key_bytes, 4u) + (in.value_bytes ? 4 : 0)) / 4;
  p.max_steps = std::max(1u, std::min(6u, p.policy.steps));
  while (p.max_steps > 1 && (words << p.max_steps) > 64) --p.max_steps;
  p.global_wg = std::min(p.policy.wg, 256u);
  return p;
}

void run_bitonic(Run& run, const BitonicPlan& p) {
  if (p.policy.cpu) return run_cpu(run, p);
  cl::Kernel sort_local = run.kernel(p.program, "bitonic_sort_local");
  cl::Kernel merge_local = run.kernel(p.program, "bitonic_merge_local");
  const unsigned max_k = p.max_steps;
  std::vector<cl::Kernel> global(max_k + 1);
  for (unsigned k = 1; k <= max_k; ++k)
    global[k] = run.kernel(p.program, "bitonic_global_" + std::to_string(k));
  ByIndex by_index(run, p);

  const cl_uint n = run.n, kind = run.kind, descending = run.descending;
  const cl_uint wg = p.policy.wg, tile = p.policy.tile;
  const unsigned tile_bits = log2_of(tile), total_bits = log2_of(n);
  const std::size_t tiles = (std::size_t(n) + tile - 1) / tile;
  const std::size_t global_wg = p.global_wg;

  auto bind = [&](cl::Kernel& k, auto... rest) { by_index.bind(run, k, rest...); };
  bind(sort_local, n, kind, descending, cl_uint(total_bits <= tile_bits));
  run.launch(sort_local, tiles * wg, wg, "bitonic_sort_local");
  for (unsigned bits = tile_bits + 1; bits <= total_bits; ++bits) {
    const cl_uint size = cl_uint(std::size_t(1) << bits);
    const unsigned global_steps = bits - tile_bits;  // strides size/2 .. tile
    for (unsigned done = 0; done < global_steps;) {
      const unsigned k = std::min(max_k, global_steps - done);
      const cl_uint lo = bits - done - k, flip = done == 0;
      bind(global[k], n, size, lo, flip);
      run.launch(global[k], live_groups(n, lo, k), global_wg, "bitonic_global");
      done += k;
    }
    bind(merge_local, n, kind, descending, cl_uint(bits == total_bits));
    run.launch(merge_local, tiles * wg, wg, "bitonic_merge_local");
  }
  by_index.gather_values(run, global_wg);
}

}  // namespace clsort::detail

namespace clsort::detail {

void fit_bitonic(BitonicPolicy& b, const FitInput& f) {
  f.clamp_wg(b.wg);
  const std::size_t element = f.key_bytes + f.index_bytes;
  if (b.cpu) {
    // One work-item per tile; a tile holds at least two vectors of the widest (16-lane) kind.
    b.tile = std::max(b.tile, 32u);
    while (b.tile * element > f.budget && b.tile > 32) b.tile /= 2;
    return;
  }
  if (b.tile < 2 * b.wg) b.tile = 2 * b.wg;
  // The local kernels hold tile/wg elements per work-item in registers: at most 64.
  if (b.tile > 64 * b.wg) b.tile = 64 * b.wg;
  while ((b.tile + b.tile / 32) * element > f.budget && b.tile > 2) {
    b.tile /= 2;
    if (b.wg > b.tile / 2) b.wg = b.tile / 2;
  }
}

CLSORT_PARAMS(bitonic_params, CLSORT_PARAM("bitonic.wg", bitonic.wg, 1, 4096, Check::pow2, ""),
              CLSORT_PARAM("bitonic.tile", bitonic.tile, 2, 65536, Check::pow2, ""),
              CLSORT_PARAM("bitonic.steps", bitonic.steps, 1, 6, Check::range, ""),
              CLSORT_PARAM("bitonic.cpu", bitonic.cpu, 0, 1, Check::range, ""))

}  // namespace clsort::detail
