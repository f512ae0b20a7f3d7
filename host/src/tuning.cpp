// The tuning table. Each row: vendor, device class and device-name substrings (empty matches any), the
// parameters it sets, and the speed it was measured at. Rows are applied from least to most specific.
#include "tuning.hpp"

#include <algorithm>
#include <cctype>
#include <sstream>
#include <vector>

#include <CL/cl_ext.h>

#include "check.hpp"

namespace clsort::detail {
namespace {

struct Row {
  const char* vendor;  // substring of CL_DEVICE_VENDOR, lower case; "" = any
  const char* type;    // "gpu", "cpu", "accelerator"; "" = any
  const char* name;    // substring of CL_DEVICE_NAME, lower case; "" = any
  const char* params;
  const char* measured;
};

// Keep rows ordered from general to specific; a row's `measured` says on what and when it was measured.
const Row k_table[] = {
    {"", "", "", "", "portable default, not measured"},
    // CPU devices (PoCL, Intel's CPU runtime): work-groups run on one core each and barriers are loops
    // over work-items, so fewer, larger work-groups with more keys per work-item.
    {"", "cpu", "",
     "radix.cpu=1 radix.groups=32 radix.wg=64 radix.items=15 bitonic.wg=64 bitonic.tile=8192 selection.wg=64"
     // Comparison sorts: the CPU shapes (vector loops per tile, sequential merges per chunk).
     " bitonic.cpu=1 selection.items=8 merge.cpu=1 merge.chunk=16384 odd_even.wg=64 odd_even.tile=512",
     "PoCL 3.1, 2 cores, 2026-11-22: radix u32 100 Mkeys/s at 2^20 (11.5x std::sort, 7.3x Boost.Sort's "
     "parallel sort, 11.1x Boost.Compute in the same run)"},
    {"nvidia", "gpu", "",
     "radix.wg=256 radix.items=24 radix.items64=21 radix.items_pairs=32 radix.items_small=8 radix.match=1 "
     "radix.onesweep=1 radix.regs=64 radix.regs64=80 radix.prefetch_max=33554432 "
     "radix.groups=4096 "
     "bitonic.wg=512 bitonic.tile=8192"
     " selection.wg=256 bitonic.steps=6 selection.items=8 merge.wg=256 merge.items=12"
     " odd_even.wg=256 odd_even.tile=1024",
     "H200 and H100 2026-11-23, radix.prefetch_max=2^25 (4-byte keys alone from 8 tiles per SM): u32 "
     "Gkeys/s at 2^24 43.48-43.56 against 41.20-41.31 without (H200), 41.13 against 39.19 (H100), f32 "
     "43.10 / 40.98 (H200), 40.82 / 38.92 (H100); at 2^28 level on the H200, 6% slower on the H100 (an "
     "earlier claim point); "
     "H100 2026-11-23, radix.items64=21 radix.regs64=80 (3 work-groups per SM instead of 2 at 128 "
     "registers): u64 Gkeys/s 2^24 14.10-14.25, 2^26 14.91-15.21, 2^28 15.59-15.65 (items64=22 uncapped: "
     "13.10-13.13, 14.04-14.11, 14.42-14.43); "
     "H100 2026-11-23, radix.items_pairs=32 (values loaded after the keys are stored): u32 pairs "
     "Gkeys/s 2^24 24.23-24.32, 2^26 27.95-27.98, 2^28 29.13-29.31 (28: 24.47-24.66, 26.85-26.88, "
     "28.10-28.15); "
     "H100 2026-11-23, radix.items_small=8: 2^16 u32 0.044-0.059 ms (24 items: 0.058-0.061), "
     "pairs 0.052-0.055 (0.066-0.073), u64 0.080-0.093 (0.099-0.103); 2^19 level or slower; "
     "H100 2026-11-22, u32 Gkeys/s at 2^24 / 2^26: radix 35.9 / 43.0 with radix.regs=64 (34.1 / 39.9 "
     "without: 3 work-groups per SM at 80 registers, 4 at 64), "
     "before it 32.7-35.6 / 40.1-40.7 with Onesweep, "
     "0.84-0.91x / 0.86-0.87x CUB "
     "(before early counts: 26.7 / 31.7; without Onesweep: 24.2 / 22.8; radix.match=0: 13.5 / 15.4), u64 "
     "12.8 / 14.2 (0.91x / 0.92x), u32 pairs 23.1 / 27.1 (0.89x / 0.93x); bitonic 8.16 / 7.39 (tile 2048, "
     "steps 4: 6.40 / "
     "5.84); merge 12.70 / 14.62 (items 8: 11.25 / 12.05); selection 6.8e12 comparisons/s at 2^16"},
    {"advanced micro devices", "gpu", "", "radix.wg=256 radix.items=4 bitonic.wg=256 bitonic.tile=2048",
     "not measured (no AMD GPU available)"},
    {"intel", "gpu", "", "radix.wg=128 radix.items=4 bitonic.wg=128 bitonic.tile=1024",
     "not measured (no Intel GPU available)"},
};

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return s;
}

bool is_pow2(std::size_t v) {
  return v && !(v & (v - 1));
}

unsigned floor_pow2(std::size_t v) {
  unsigned p = 1;
  while (p * 2 <= v) p *= 2;
  return p;
}

}  // namespace

std::string Tuning::describe() const {
  std::ostringstream s;
  s << "radix.bits=" << radix_bits << " radix.wg=" << radix_wg << " radix.items=" << radix_items
    << " radix.items64=" << radix_items64 << " radix.items_pairs=" << radix_items_pairs
    << " radix.items_small=" << radix_items_small << " radix.groups=" << radix_groups
    << " radix.cpu=" << radix_cpu << " radix.match=" << radix_match << " radix.onesweep=" << radix_onesweep
    << " radix.regs=" << radix_regs << " radix.regs64=" << radix_regs64
    << " radix.regs_pairs=" << radix_regs_pairs << " radix.prefetch_max=" << radix_prefetch_max
    << " radix.spins=" << radix_spins << " bitonic.wg=" << bitonic_wg << " bitonic.tile=" << bitonic_tile
    << " bitonic.steps=" << bitonic_steps << " bitonic.cpu=" << bitonic_cpu
    << " selection.wg=" << selection_wg << " selection.items=" << selection_items << " merge.wg=" << merge_wg
    << " merge.items=" << merge_items << " merge.cpu=" << merge_cpu << " merge.chunk=" << merge_chunk
    << " odd_even.wg=" << odd_even_wg << " odd_even.tile=" << odd_even_tile << " auto.small_n=" << small_n;
  s << " host.chunk=" << host_chunk << " host.min=" << host_min << " host.threads=" << host_threads
    << " host.stream=" << host_stream;
  return s.str();
}

void Tuning::apply(const std::string& overrides, const std::string& source) {
  std::string text = overrides;
  std::replace(text.begin(), text.end(), ',', ' ');
  std::istringstream in(text);
  std::string item;
  bool items = false, items64 = false, items_pairs = false, items_small = false;  // which this string sets
  while (in >> item) {
    const auto eq = item.find('=');
    const std::string name = item.substr(0, eq);
    unsigned long value = 0;
    try {
      std::size_t used = 0;
      // stoul accepts "-1" as ULONG_MAX: only plain digits are numbers here.
      if (eq == std::string::npos || eq + 1 >= item.size() || !std::isdigit((unsigned char)item[eq + 1]))
        throw std::invalid_argument(item);
      value = std::stoul(item.substr(eq + 1), &used);
      if (used != item.size() - eq - 1) throw std::invalid_argument(item);
    } catch (const std::exception&) {
      throw_argument_error(source, "expected name=number, got '" + item + "'");
    }
    // field = value within lo..hi; the message reads "0 or 1" for switches.
    auto range = [&](unsigned& field, unsigned long lo, unsigned long hi) {
      if (value < lo || value > hi)
        throw_argument_error(source,
                             name + " must be " +
                                 (lo == 0 && hi == 1 ? std::string("0 or 1")
                                                     : std::to_string(lo) + ".." + std::to_string(hi)));
      field = unsigned(value);
    };
    auto register_cap = [&](unsigned& field) {
      if (value != 0 && (value < 16 || value > 255))
        throw_argument_error(source, name + " must be 0 (the compiler's choice) or 16..255");
      field = unsigned(value);
    };
    auto pow2 = [&](unsigned& field) {
      if (!is_pow2(value) || value > 4096)
        throw_argument_error(source, name + " must be a power of two <= 4096");
      field = unsigned(value);
    };
    if (name == "radix.bits") {
      range(radix_bits, 1, 12);
    } else if (name == "radix.wg") {
      // Any multiple of 8: the kernels' scans need no power of two (CUB runs 384-wide tiles on NVIDIA).
      if (value % 8 || value < 8 || value > 4096)
        throw_argument_error(source, "radix.wg must be a multiple of 8 in 8..4096");
      radix_wg = unsigned(value);
    } else if (name == "radix.items") {
      range(radix_items, 1, 32);
      items = true;
    } else if (name == "radix.items_pairs") {
      range(radix_items_pairs, 0, 32);
      items_pairs = true;
    } else if (name == "radix.items64") {
      range(radix_items64, 0, 32);
      items64 = true;
    } else if (name == "radix.items_small") {
      range(radix_items_small, 0, 32);
      items_small = true;
    } else if (name == "radix.groups") {
      range(radix_groups, 1, 65536);
    } else if (name == "radix.cpu") {
      range(radix_cpu, 0, 1);
    } else if (name == "radix.match") {
      range(radix_match, 0, 1);
    } else if (name == "radix.onesweep") {
      range(radix_onesweep, 0, 1);
    } else if (name == "radix.regs") {
      register_cap(radix_regs);
    } else if (name == "radix.regs64") {
      register_cap(radix_regs64);
    } else if (name == "radix.regs_pairs") {
      register_cap(radix_regs_pairs);
    } else if (name == "radix.prefetch_max") {
      range(radix_prefetch_max, 0, 0xFFFFFFFFul);
    } else if (name == "radix.spins") {
      range(radix_spins, 0, 1ul << 31);
    } else if (name == "bitonic.wg") {
      pow2(bitonic_wg);
    } else if (name == "bitonic.tile") {
      if (!is_pow2(value) || value < 2 || value > 65536)
        throw_argument_error(source, "bitonic.tile must be a power of two in 2..65536");
      bitonic_tile = unsigned(value);
    } else if (name == "bitonic.steps") {
      range(bitonic_steps, 1, 6);
    } else if (name == "bitonic.cpu") {
      range(bitonic_cpu, 0, 1);
    } else if (name == "selection.wg") {
      pow2(selection_wg);
    } else if (name == "selection.items") {
      range(selection_items, 1, 16);
    } else if (name == "merge.wg") {
      pow2(merge_wg);
    } else if (name == "merge.items") {
      range(merge_items, 1, 32);
    } else if (name == "merge.cpu") {
      range(merge_cpu, 0, 1);
    } else if (name == "merge.chunk") {
      if (!is_pow2(value) || value < 16 || value > (1u << 20))
        throw_argument_error(source, "merge.chunk must be a power of two in 16..2^20");
      merge_chunk = unsigned(value);
    } else if (name == "odd_even.wg") {
      pow2(odd_even_wg);
    } else if (name == "odd_even.tile") {
      if (!is_pow2(value) || value < 2 || value > 65536)
        throw_argument_error(source, "odd_even.tile must be a power of two in 2..65536");
      odd_even_tile = unsigned(value);
    } else if (name == "auto.small_n") {
      small_n = value;
    } else if (name == "host.chunk") {
      if (value != 0 && (value < 256 || value > (1ul << 30)))
        throw_argument_error(source, "host.chunk must be 0 (off) or 256..2^30 bytes");
      host_chunk = value;
    } else if (name == "host.min") {
      host_min = value;
    } else if (name == "host.threads") {
      if (value > 64) throw_argument_error(source, "host.threads must be 0 (automatic) to 64");
      host_threads = unsigned(value);
    } else if (name == "host.stream") {
      range(host_stream, 0, 1);
    } else {
      throw_argument_error(source, "unknown tuning parameter '" + name + "'");
    }
  }
  // radix.items alone means every key type and every n: a device row's values for 64-bit keys, pairs and
  // small n would otherwise override it (radix.items=3 on NVIDIA sorted u64 keys in tiles of 22).
  if (items && !items64) radix_items64 = 0;
  if (items && !items_pairs) radix_items_pairs = 0;
  if (items && !items_small) radix_items_small = 0;
}

Tuning tuning_for(const cl::Device& device) {
  const std::string vendor = lower(device.getInfo<CL_DEVICE_VENDOR>());
  const std::string name = lower(device.getInfo<CL_DEVICE_NAME>());
  const cl_device_type type = device.getInfo<CL_DEVICE_TYPE>();
  const std::string cls = (type & CL_DEVICE_TYPE_GPU)           ? "gpu"
                          : (type & CL_DEVICE_TYPE_CPU)         ? "cpu"
                          : (type & CL_DEVICE_TYPE_ACCELERATOR) ? "accelerator"
                                                                : "other";
  Tuning t;
  for (const Row& r : k_table) {
    if (*r.vendor && vendor.find(r.vendor) == std::string::npos) continue;
    if (*r.type && cls != r.type) continue;
    if (*r.name && name.find(r.name) == std::string::npos) continue;
    t.apply(r.params, "tuning table");
    t.row = std::string(*r.vendor ? r.vendor : "any") + "/" + (*r.type ? r.type : "any") + "/" +
            (*r.name ? r.name : "default");
    t.measured = r.measured;
  }
  // Staging host data through pinned memory pays off where transfers cross a bus: not on CPU devices
  // (their buffers are host memory) or GPUs that share host memory (integrated ones).
  if (cls != "gpu" || device.getInfo<CL_DEVICE_HOST_UNIFIED_MEMORY>()) t.host_chunk = 0;
  return t;
}

Tuning fit_to_device(Tuning t, const cl::Device& device, unsigned key_bytes, unsigned value_bytes) {
  const std::size_t max_wg = device.getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE>();
  const std::size_t local_mem = device.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>();
  // Leave room for the implementation's own local memory use.
  const std::size_t budget = local_mem > 4096 ? local_mem - 1024 : local_mem;
  auto clamp_wg = [&](unsigned& wg) { wg = std::min<unsigned>(wg, floor_pow2(max_wg)); };
  // The radix kernels' scans take any multiple of 8 work-items (kernels/radix.cl).
  t.radix_wg = std::min<unsigned>(t.radix_wg, unsigned(max_wg / 8 * 8));
  clamp_wg(t.bitonic_wg);
  clamp_wg(t.selection_wg);

  const bool nvidia = lower(device.getInfo<CL_DEVICE_VENDOR>()).find("nvidia") != std::string::npos;
  // The warp-multisplit ranking (radix.match) is inline PTX: NVIDIA's compiler only. It needs warps of 32,
  // which NVIDIA guarantees, a work-group of whole warps and a work-item per digit, and at most 8 bits.
  // Other tunings (tests reach radix.wg=24 and radix.bits=11 on any device) take the portable ranking,
  // whose 4-bit counters allow at most 15 keys per work-item.
  auto match_fits = [&] {
    return t.radix_match && !t.radix_cpu && t.radix_bits <= 8 && t.radix_wg % 32 == 0 &&
           (1u << t.radix_bits) <= t.radix_wg && nvidia;
  };
  if (key_bytes == 8 && t.radix_items64)
    t.radix_items = t.radix_items64;
  else if (key_bytes == 4 && value_bytes && t.radix_items_pairs)
    t.radix_items = t.radix_items_pairs;
  t.radix_match = match_fits();
  if (!t.radix_match) t.radix_items = std::min(t.radix_items, 15u);
  // The portable scatter kernels hold a block of keys and values, per-digit arrays and about 44 bytes per
  // work-item of scan state. The multisplit ranking's counter and peer mask per warp and digit share
  // words with the block, whose keys and values pass through one after the other (kernels/radix.cl).
  // Fewer keys per work-item first: the tile shrinks by a work-group's keys at a time.
  auto radix_bytes = [&] {
    const std::size_t block = std::size_t(t.radix_wg) * t.radix_items, digit = std::size_t(4) << t.radix_bits;
    if (t.radix_match)
      return std::max(block * std::max(key_bytes, value_bytes), 2 * (t.radix_wg / 32) * digit) + digit + 256;
    return block * (key_bytes + value_bytes) + 4 * digit + 44 * std::size_t(t.radix_wg);
  };
  while (radix_bytes() > budget && t.radix_items > 1) --t.radix_items;
  // Halving keeps whole warps for the multisplit ranking (992 would go to 496, which it cannot build);
  // from a width whose counters overflow the budget (over 736 at 8 bits) it stays at or above RADIX.
  const unsigned wg_step = t.radix_match ? 32 : 8;
  while (radix_bytes() > budget && t.radix_wg > wg_step)
    t.radix_wg = std::max(wg_step, t.radix_wg / 2 / wg_step * wg_step);
  while (radix_bytes() > budget && t.radix_bits > 4) --t.radix_bits;
  // The register cap is written into NVIDIA's PTX binaries (program_cache.cpp); elsewhere the compiler
  // chooses. Each kernel kind has its own: a cap that pays for one tile spills another (docs/tuning.md).
  // A cap above a work-group's share of the register file fails the launch (CL_OUT_OF_RESOURCES: 1024
  // work-items at 80 registers on the H100), where the compiler alone would have fitted the group, so it
  // is set once the work-group size is final.
  if (value_bytes)
    t.radix_regs = t.radix_regs_pairs;
  else if (key_bytes == 8)
    t.radix_regs = t.radix_regs64;
  if (!nvidia) t.radix_regs = 0;
  if (t.radix_regs) {
    cl_uint file = 65536;  // registers per work-group on every NVIDIA GPU since Kepler
    const std::string extensions = device.getInfo<CL_DEVICE_EXTENSIONS>();
    if (extensions.find("cl_nv_device_attribute_query") != std::string::npos)
      clGetDeviceInfo(device(), CL_DEVICE_REGISTERS_PER_BLOCK_NV, sizeof file, &file, nullptr);
    const unsigned share = unsigned(file / t.radix_wg / 8 * 8);  // allocated in steps of 8
    t.radix_regs = share < 16 ? 0 : std::min(t.radix_regs, share);
  }
  // Onesweep's histogram kernel counts every pass's digits in local memory at once.
  const std::size_t passes = (key_bytes * 8 + t.radix_bits - 1) / t.radix_bits;
  if (passes * (std::size_t(4) << t.radix_bits) > budget) t.radix_onesweep = 0;

  // Bitonic by-key sorts, merge and odd-even carry a 4-byte index or source position with each key.
  const unsigned index_bytes = value_bytes ? 4 : 0;
  if (t.bitonic_cpu) {
    // One work-item per tile; a tile holds at least two vectors of the widest (16-lane) kind.
    t.bitonic_tile = std::max(t.bitonic_tile, 32u);
    while (std::size_t(t.bitonic_tile) * (key_bytes + index_bytes) > budget && t.bitonic_tile > 32)
      t.bitonic_tile /= 2;
  } else {
    if (t.bitonic_tile < 2 * t.bitonic_wg) t.bitonic_tile = 2 * t.bitonic_wg;
    // The local kernels hold tile/wg elements per work-item in registers: at most 64.
    if (t.bitonic_tile > 64 * t.bitonic_wg) t.bitonic_tile = 64 * t.bitonic_wg;
    while (std::size_t(t.bitonic_tile + t.bitonic_tile / 32) * (key_bytes + index_bytes) > budget &&
           t.bitonic_tile > 2) {
      t.bitonic_tile /= 2;
      if (t.bitonic_wg > t.bitonic_tile / 2) t.bitonic_wg = t.bitonic_tile / 2;
    }
  }
  while (std::size_t(t.selection_wg) * key_bytes > budget && t.selection_wg > 1) t.selection_wg /= 2;

  // Merge: the GPU shape keeps a tile of keys, values and source positions in local memory; the CPU
  // shape two chunks of keys and values (it merges back and forth).
  clamp_wg(t.merge_wg);
  const std::size_t merge_bytes = key_bytes + value_bytes + index_bytes;
  while (std::size_t(t.merge_wg) * t.merge_items * merge_bytes > budget && t.merge_items > 1) --t.merge_items;
  while (std::size_t(t.merge_wg) * t.merge_items * merge_bytes > budget && t.merge_wg > 1) t.merge_wg /= 2;
  while (2 * std::size_t(t.merge_chunk) * (key_bytes + value_bytes) > budget && t.merge_chunk > 16)
    t.merge_chunk /= 2;

  // Odd-even: the tile sort holds a tile, the merge-split two tiles plus source positions; a tile is at
  // least one pair per work-item.
  clamp_wg(t.odd_even_wg);
  if (t.odd_even_tile < 2 * t.odd_even_wg) t.odd_even_tile = 2 * t.odd_even_wg;
  while (2 * std::size_t(t.odd_even_tile) * merge_bytes > budget && t.odd_even_tile > 2) {
    t.odd_even_tile /= 2;
    if (t.odd_even_wg > t.odd_even_tile / 2) t.odd_even_wg = t.odd_even_tile / 2;
  }
  return t;
}

}  // namespace clsort::detail
