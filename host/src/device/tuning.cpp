// The tuning table and the parameter table that parses, checks and describes every tuning parameter.
// Each row: vendor, device class and device-name substrings (empty matches any), the key and value widths
// it is for, the parameters it sets, and one line on where it was measured (docs/tuning.md has the
// figures). Rows apply from least to most specific.
#include "device/tuning.hpp"

#include <algorithm>
#include <cctype>
#include <sstream>
#include <vector>

#include <CL/cl_ext.h>

#include "engine/check.hpp"

namespace clsort::detail {
namespace {

enum Values { kAnyValues, kNoValues, kWithValues };

struct Row {
  const char* vendor;  // substring of CL_DEVICE_VENDOR, lower case; "" = any
  const char* type;    // "gpu", "cpu", "accelerator"; "" = any
  const char* name;    // substring of CL_DEVICE_NAME, lower case; "" = any
  unsigned key_bytes;  // 1, 2, 4 or 8; 0 = any
  Values values;
  const char* params;
  const char* measured;
};

// Keep rows ordered from general to specific.
const Row k_table[] = {
    {"", "", "", 0, kAnyValues, "", "portable default, not measured"},
    // CPU devices (PoCL, Intel's CPU runtime): work-groups run on one core each and barriers are loops
    // over work-items, so fewer, larger work-groups with more keys per work-item, and the CPU shapes.
    {"", "cpu", "", 0, kAnyValues,
     "radix.cpu=1 radix.groups=32 radix.wg=64 radix.items=15 bitonic.wg=64 bitonic.tile=8192 selection.wg=64"
     " bitonic.cpu=1 selection.items=8 merge.cpu=1 merge.chunk=16384 odd_even.wg=64 odd_even.tile=512"
     " select.wg=1 select.items=4096 select.groups=4 segments.wg=16 segments.huge=2048 segments.seq=65536"
     " segments.vec=1024 radix.wc=64 radix.wc_min=33554432",
     "PoCL 3.1, 2 cores, 2026-11-22: radix u32 2^20 11.5x std::sort; the same best parameters on Intel's CPU "
     "runtime 2026.2 (2026-11-25); radix.wc PoCL 2026-11-27, one core: u32 2^23 / 2^24 65-78 / 128-130 ms "
     "against 74-80 / 144-150, u64 2^22 / 2^24 48-49 / 179-190 against 50-60 / 205-243, slower below 32 MiB "
     "(u32 2^22 34-35 against 30-32, u64 2^21 25-26 against 24); segments: PoCL 2026-11-26, 2^22 u32 keys "
     "(tools/probes/segments.cpp), "
     "every segment up to 65536 keys one work-item each, by radix from 256 keys: segments of 2048 / 4096 / "
     "16384 keys 19-24 / 16-22 / 15-21 ms against 47-52 (merges) / 60-93 / 43-65 (whole-device sorts); "
     "segments.vec PoCL 2026-11-27, 2^24 u32 keys beside another test run: segments of 16 / 256 / 1024 keys "
     "14-29 / 19-25 / 28-39 ms against 43-47 / 103-157 / 76-143 one work-item each"},
    // Intel's CPU runtime: the MSD scatter's write-combining lines cost more than they save there.
    {"intel(r) corporation", "cpu", "", 0, kAnyValues, "radix.wc=0",
     "Intel's CPU runtime 2026.2, 2 cores, 2026-11-27: u64 2^24 110-118 ms without against 128-139 with "
     "radix.wc=64 (clsort_probe_tuning, alternating)"},
    // Values ride 8 lanes instead of 16 and are moved by position afterwards: segments of 1024 keys did no
    // better in lanes on PoCL; 64-bit keys alone take 8 lanes too.
    {"", "cpu", "", 0, kWithValues, "segments.vec=512",
     "PoCL 2026-11-27, 2^24 u32 pairs beside another test run: segments of 256 / 512 / 1024 keys 62-67 / "
     "70-73 / 81-84 ms in lanes against 103-144 / 83-119 / 71-127 one work-item each"},
    {"", "cpu", "", 8, kAnyValues, "segments.vec=512", "segments.vec not measured: 8 lanes, as with values"},
    // GPUs without a row of their own: the multisplit ranking and Onesweep (after its self-test), with
    // tiles of 256 x 16 (fit_to_device shrinks them to the device's local memory); the ranking's
    // sub-group primitives are the best the device reports.
    {"", "gpu", "", 0, kAnyValues, "radix.wg=256 radix.items=0 radix.match=1 radix.onesweep=1",
     "derived from the device, not measured"},
    // Values of 16 bytes ride the passes (Onesweep with the multisplit ranking; the tile shrinks to fit
    // them in local memory) instead of a permutation after an index sort, whose gather reads them at
    // random, half a 32-byte sector each.
    {"", "gpu", "", 0, kWithValues, "radix.values16=1",
     "H100, 2026-11-26: u32 + 16-byte values 2^20 / 2^24 / 2^26 0.114-0.115 / 1.341-1.350 / 5.24-5.26 ms "
     "against 0.123 / 1.523-1.537 / 5.83-5.86 permuted (CUB 3.5 SortPairs 0.116 / 1.356 / 5.33)"},
    // 64-bit keys take eight passes, which would move the values eight times: about 256 bytes a key
    // against about 100 through the permutation.
    {"", "gpu", "", 8, kWithValues, "radix.values16=0", "not measured: the byte count above"},
    // Segments of up to 16 keys: one work-item each, sorted in registers from a span staged through local
    // memory, instead of bins in local memory. Segments past the bins and up to 65536 keys: a radix sort
    // each, one work-group, instead of chunks and merges. Power-law lengths lose 10-20% by it (a long segment
    // on one work-group ends last), still 40x faster than CUB there.
    {"", "gpu", "", 0, kAnyValues, "segments.seq=16 segments.radix=65536",
     "H100, 2026-11-26: 2^20 segments of 16 u32 keys 0.127 ms against 0.380 in bins, pairs 0.193 against "
     "0.415; 2^8 segments of 65536 u32 keys 0.60 ms against 1.89 in chunks and merges"},
    {"nvidia", "gpu", "", 0, kAnyValues,
     "radix.wg=256 radix.items=24 radix.items_small=8 radix.items_local=32 radix.match=1 radix.onesweep=1 "
     "radix.regs=64 "
     "radix.groups=4096 bitonic.wg=512 bitonic.tile=8192 bitonic.steps=6"
     " selection.wg=256 selection.items=8 merge.wg=256 merge.items=12 odd_even.wg=256 odd_even.tile=1024",
     "H100, 2026-11-25: u32 2^24 38.1-38.3 Gkeys/s, 2^28 45.0-45.4 (prefetch off, docs/tuning.md); "
     "local-memory sub-groups H200, 2026-11-26: u32 2^28 35.9 Gkeys/s at 32 keys, 31.4 at 24"},
    // 64-bit keys fill local memory before registers; at 80 registers 3 work-groups fit per SM, not 2.
    {"nvidia", "gpu", "", 8, kAnyValues, "radix.items=21 radix.items_local=32 radix.regs=80",
     "H100, 2026-11-23: u64 2^24 1.04x CUB; local-memory sub-groups H200, 2026-11-26: u64 2^28 13.5 Gkeys/s "
     "at 32 keys (local memory holds fewer), 13.2 at 21"},
    // 4-byte keys and 8-byte keys alone rank by ballots (kernels/radix_rank_multisplit.cl, rank_keys), the
    // path of every device with cl_khr_subgroup_ballot (and 16-bit keys with values, below); 8-byte keys
    // with values and 16-bit keys alone keep the local-atomic peers.
    {"nvidia", "gpu", "", 4, kAnyValues, "radix.peers=1",
     "H100, 2026-11-26: u32 2^28 5.79 ms against 5.97 with atomic peers (0.95x / 0.92x CUB 3.5), u32 pairs "
     "2^24 0.679 against 0.699; 2^20 within 2%"},
    {"nvidia", "gpu", "", 8, kNoValues, "radix.peers=1",
     "H100, 2026-11-27: u64 2^24 / 2^26 / 2^28 15.19-15.24 / 15.18-15.43 / 16.48 Gkeys/s against 14.73-14.82 "
     "/ 14.67-15.65 / 16.33 with atomic peers (tools/gpu_paths.sh, CUB 3.5 in the same command)"},
    // Pairs spill under every register cap tried.
    {"nvidia", "gpu", "", 0, kWithValues, "radix.regs=0", "H100, 2026-11-23: u32 pairs 2^28 1.01x CUB"},
    {"nvidia", "gpu", "", 4, kWithValues, "radix.items=32", "H100, 2026-11-23: u32 pairs 2^26 27.95 Gkeys/s"},
    // Keys of 8 and 16 bits run the 4-byte keys' kernels on 32-bit codes (only their global loads and
    // stores are narrow), so they take the 4-byte rows' parameters; for 16-bit keys no other tile was faster.
    {"nvidia", "gpu", "", 2, kNoValues, "radix.items=24 radix.regs=64",
     "H100, 2026-11-27: u16 2^24 / 2^26 1.03-1.04x / 1.03x CUB 3.5, f16 1.08-1.10x / 1.09x; H200, "
     "2026-11-26: 20, 28, 32 keys slower"},
    {"nvidia", "gpu", "", 2, kWithValues, "radix.items=32 radix.regs=0 radix.peers=1",
     "H100, 2026-11-27: u16 pairs 2^24 / 2^26 1.01-1.02x / 1.06x CUB 3.5; H200, 2026-11-26: 24, 28 keys "
     "slower; H100, 2026-11-26: ballot peers 0.340-0.350 / 1.159-1.163 ms against 0.347-0.364 / "
     "1.176-1.178 with atomic peers"},
    {"nvidia", "gpu", "", 1, kNoValues, "radix.items=24 radix.regs=64",
     "H100, 2026-11-27: u8 2^24 / 2^26 1.13-1.14x / 1.20x CUB 3.5 (the 4-byte keys' parameters)"},
    {"nvidia", "gpu", "", 1, kWithValues, "radix.items=32 radix.regs=0",
     "not measured: the u32 pairs' parameters"},
    {"advanced micro devices", "gpu", "", 0, kAnyValues, "bitonic.wg=256 bitonic.tile=2048",
     "not measured (no AMD GPU available)"},
    {"intel", "gpu", "", 0, kAnyValues, "bitonic.wg=128 bitonic.tile=1024",
     "not measured (no Intel GPU available)"},
};

// ---- The parameter table: one line per parameter drives parsing, checking and describe().
enum class Check {
  range,          // lo..hi ("0 or 1" for switches)
  pow2,           // a power of two in lo..hi
  multiple_of_8,  // a multiple of 8 in lo..hi (the radix scans' raking segments)
  zero_or_range,  // 0 (off / the compiler's choice) or lo..hi
  pow2_or_zero    // 0 (automatic) or a power of two in lo..hi
};

struct Param {
  const char* name;
  std::uint64_t (*get)(const Tuning&);
  void (*set)(Tuning&, std::uint64_t);
  std::uint64_t lo, hi;
  Check check;
  const char* zero_means;  // for zero_or_range: what 0 means in the message
};

#define CLSORT_PARAM(name, field, lo, hi, check, zero)                                                       \
  Param {                                                                                                    \
    name, [](const Tuning& t) -> std::uint64_t { return t.field; },                                          \
        [](Tuning& t, std::uint64_t v) { t.field = static_cast<decltype(t.field)>(v); }, lo, hi, check, zero \
  }

const Param k_params[] = {
    CLSORT_PARAM("radix.bits", radix.bits, 1, 12, Check::range, ""),
    CLSORT_PARAM("radix.wg", radix.wg, 8, 4096, Check::multiple_of_8, ""),
    CLSORT_PARAM("radix.items", radix.items, 1, 32, Check::zero_or_range, "derived from the device"),
    CLSORT_PARAM("radix.items_small", radix.items_small, 0, 32, Check::range, ""),
    CLSORT_PARAM("radix.items_local", radix.items_local, 1, 32, Check::zero_or_range, "radix.items"),
    CLSORT_PARAM("radix.groups", radix.groups, 1, 65536, Check::range, ""),
    CLSORT_PARAM("radix.cpu", radix.cpu, 0, 1, Check::range, ""),
    CLSORT_PARAM("radix.buckets", radix.buckets, 0, 2, Check::range, ""),
    CLSORT_PARAM("radix.wc", radix.wc, 8, 128, Check::pow2_or_zero, ""),
    CLSORT_PARAM("radix.wc_min", radix.wc_min, 0, ~0ull, Check::range, ""),
    CLSORT_PARAM("radix.match", radix.match, 0, 1, Check::range, ""),
    CLSORT_PARAM("radix.subgroups", radix.subgroups, 0, 3, Check::range, ""),
    CLSORT_PARAM("radix.peers", radix.peers, 0, 2, Check::range, ""),
    CLSORT_PARAM("radix.sg_size", radix.sg_size, 4, 64, Check::pow2_or_zero, ""),
    CLSORT_PARAM("radix.onesweep", radix.onesweep, 0, 1, Check::range, ""),
    CLSORT_PARAM("radix.regs", radix.regs, 16, 255, Check::zero_or_range, "the compiler's choice"),
    CLSORT_PARAM("radix.prefetch_max", radix.prefetch_max, 0, 0xFFFFFFFFull, Check::range, ""),
    CLSORT_PARAM("radix.spins", radix.spins, 0, 1ull << 31, Check::range, ""),
    CLSORT_PARAM("radix.split_min", radix.split_min, 2, 1ull << 32, Check::range, ""),
    CLSORT_PARAM("radix.split_piece", radix.split_piece, 1, (1ull << 32) - 1, Check::range, ""),
    CLSORT_PARAM("radix.split_max", radix.split_max, 2, (1ull << 32) - 1, Check::range, ""),
    CLSORT_PARAM("radix.values16", radix.values16, 0, 1, Check::range, ""),
    CLSORT_PARAM("bitonic.wg", bitonic.wg, 1, 4096, Check::pow2, ""),
    CLSORT_PARAM("bitonic.tile", bitonic.tile, 2, 65536, Check::pow2, ""),
    CLSORT_PARAM("bitonic.steps", bitonic.steps, 1, 6, Check::range, ""),
    CLSORT_PARAM("bitonic.cpu", bitonic.cpu, 0, 1, Check::range, ""),
    CLSORT_PARAM("selection.wg", selection.wg, 1, 4096, Check::pow2, ""),
    CLSORT_PARAM("selection.items", selection.items, 1, 16, Check::range, ""),
    CLSORT_PARAM("select.wg", select.wg, 1, 4096, Check::pow2, ""),
    CLSORT_PARAM("select.items", select.items, 1, 4096, Check::range, ""),
    CLSORT_PARAM("select.groups", select.groups, 1, 1024, Check::range, ""),
    CLSORT_PARAM("select.sample", select.sample, 0, 65536, Check::range, ""),
    CLSORT_PARAM("merge.wg", merge.wg, 1, 4096, Check::pow2, ""),
    CLSORT_PARAM("merge.items", merge.items, 1, 32, Check::range, ""),
    CLSORT_PARAM("merge.cpu", merge.cpu, 0, 1, Check::range, ""),
    CLSORT_PARAM("merge.chunk", merge.chunk, 16, 1u << 20, Check::pow2, ""),
    CLSORT_PARAM("custom.wg", custom.wg, 1, 1024, Check::pow2_or_zero, ""),
    CLSORT_PARAM("custom.items", custom.items, 1, 32, Check::zero_or_range, "derived from the device"),
    CLSORT_PARAM("odd_even.wg", odd_even.wg, 1, 4096, Check::pow2, ""),
    CLSORT_PARAM("odd_even.tile", odd_even.tile, 2, 65536, Check::pow2, ""),
    CLSORT_PARAM("segments.wg", segments.wg, 1, 4096, Check::pow2, ""),
    CLSORT_PARAM("segments.slots", segments.slots, 16, 32768, Check::pow2, ""),
    CLSORT_PARAM("segments.huge", segments.huge, 1024, 1u << 24, Check::range, ""),
    CLSORT_PARAM("segments.seq", segments.seq, 0, 65536, Check::range, "off"),
    CLSORT_PARAM("segments.seq_radix", segments.seq_radix, 0, 65536, Check::range, "off"),
    CLSORT_PARAM("segments.seq_wg", segments.seq_wg, 0, 256, Check::pow2_or_zero, "by device"),
    CLSORT_PARAM("segments.vec", segments.vec, 16, 1024, Check::pow2_or_zero, "off"),
    CLSORT_PARAM("segments.radix", segments.radix, 0, 1u << 24, Check::range, "off"),
    CLSORT_PARAM("segments.radix_regs", segments.radix_regs, 16, 255, Check::zero_or_range,
                 "the compiler's choice"),
    CLSORT_PARAM("auto.small_n", automatic.small_n, 0, ~0ull, Check::range, ""),
    CLSORT_PARAM("host.chunk", host.chunk, 256, 1u << 30, Check::zero_or_range, "off"),
    CLSORT_PARAM("host.min", host.min, 0, ~0ull, Check::range, ""),
    CLSORT_PARAM("host.threads", host.threads, 0, 64, Check::range, ""),
    CLSORT_PARAM("host.stream", host.stream, 0, 1, Check::range, ""),
};
#undef CLSORT_PARAM

bool is_pow2(std::uint64_t v) {
  return v && !(v & (v - 1));
}

bool valid(const Param& p, std::uint64_t v) {
  switch (p.check) {
    case Check::range:
      return v >= p.lo && v <= p.hi;
    case Check::pow2:
      return is_pow2(v) && v >= p.lo && v <= p.hi;
    case Check::multiple_of_8:
      return v % 8 == 0 && v >= p.lo && v <= p.hi;
    case Check::zero_or_range:
      return v == 0 || (v >= p.lo && v <= p.hi);
    case Check::pow2_or_zero:
      return v == 0 || (is_pow2(v) && v >= p.lo && v <= p.hi);
  }
  return false;
}

std::string requirement(const Param& p) {
  const std::string span = std::to_string(p.lo) + ".." + std::to_string(p.hi);
  switch (p.check) {
    case Check::range:
      return p.lo == 0 && p.hi == 1 ? "0 or 1" : span;
    case Check::pow2:
      return "a power of two in " + span;
    case Check::multiple_of_8:
      return "a multiple of 8 in " + span;
    case Check::zero_or_range:
      return std::string("0 (") + p.zero_means + ") or " + span;
    case Check::pow2_or_zero:
      return "0 (automatic) or a power of two in " + span;
  }
  return span;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return s;
}

unsigned floor_pow2(std::size_t v) {
  unsigned p = 1;
  while (p * 2 <= v) p *= 2;
  return p;
}

template <class T>
T info(const cl::Device& d, cl_device_info what, const char* name) {
  T value{};
  const cl_int status = d.getInfo(what, &value);
  if (status != CL_SUCCESS) throw_cl_error(status, (std::string("clGetDeviceInfo(") + name + ")").c_str());
  return value;
}

}  // namespace

DeviceFacts query_device(const cl::Device& device) {
  DeviceFacts f;
  f.vendor = lower(info<std::string>(device, CL_DEVICE_VENDOR, "CL_DEVICE_VENDOR"));
  f.name = lower(info<std::string>(device, CL_DEVICE_NAME, "CL_DEVICE_NAME"));
  const auto type = info<cl_device_type>(device, CL_DEVICE_TYPE, "CL_DEVICE_TYPE");
  f.type = (type & CL_DEVICE_TYPE_GPU)           ? "gpu"
           : (type & CL_DEVICE_TYPE_CPU)         ? "cpu"
           : (type & CL_DEVICE_TYPE_ACCELERATOR) ? "accelerator"
                                                 : "other";
  f.max_work_group =
      info<std::size_t>(device, CL_DEVICE_MAX_WORK_GROUP_SIZE, "CL_DEVICE_MAX_WORK_GROUP_SIZE");
  f.local_mem = info<cl_ulong>(device, CL_DEVICE_LOCAL_MEM_SIZE, "CL_DEVICE_LOCAL_MEM_SIZE");
  f.max_alloc = info<cl_ulong>(device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, "CL_DEVICE_MAX_MEM_ALLOC_SIZE");
  f.compute_units = info<cl_uint>(device, CL_DEVICE_MAX_COMPUTE_UNITS, "CL_DEVICE_MAX_COMPUTE_UNITS");
  f.global_mem = info<cl_ulong>(device, CL_DEVICE_GLOBAL_MEM_SIZE, "CL_DEVICE_GLOBAL_MEM_SIZE");
  f.base_align = std::max<std::size_t>(
      8, info<cl_uint>(device, CL_DEVICE_MEM_BASE_ADDR_ALIGN, "CL_DEVICE_MEM_BASE_ADDR_ALIGN") / 8);
  f.host_unified = info<cl_bool>(device, CL_DEVICE_HOST_UNIFIED_MEMORY, "CL_DEVICE_HOST_UNIFIED_MEMORY");
  f.extensions = info<std::string>(device, CL_DEVICE_EXTENSIONS, "CL_DEVICE_EXTENSIONS");
  // A driver answering 0 would turn into work-groups of 0 and empty tiles: refuse it by name.
  auto require = [](bool ok, const char* what) {
    if (!ok)
      throw_cl_error(CL_INVALID_DEVICE, (std::string("clGetDeviceInfo(") + what + ") returned 0").c_str());
  };
  require(f.max_work_group > 0, "CL_DEVICE_MAX_WORK_GROUP_SIZE");
  require(f.local_mem > 0, "CL_DEVICE_LOCAL_MEM_SIZE");
  require(f.max_alloc > 0, "CL_DEVICE_MAX_MEM_ALLOC_SIZE");
  require(f.compute_units > 0, "CL_DEVICE_MAX_COMPUTE_UNITS");
  f.nv_compiler = f.extensions.find("cl_nv_device_attribute_query") != std::string::npos;
  f.subgroup_ballot = f.extensions.find("cl_khr_subgroup_ballot") != std::string::npos;
  if (f.extensions.find("cl_intel_required_subgroup_size") != std::string::npos) {
    std::vector<std::size_t> sizes;
    const cl_int status = device.getInfo(CL_DEVICE_SUB_GROUP_SIZES_INTEL, &sizes);
    if (status != CL_SUCCESS) throw_cl_error(status, "clGetDeviceInfo(CL_DEVICE_SUB_GROUP_SIZES_INTEL)");
    for (std::size_t v : sizes) f.subgroup_sizes.push_back(unsigned(v));
  }
  if (f.nv_compiler)
    f.registers_per_group =
        info<cl_uint>(device, CL_DEVICE_REGISTERS_PER_BLOCK_NV, "CL_DEVICE_REGISTERS_PER_BLOCK_NV");
  return f;
}

std::string Tuning::describe() const {
  std::string s;
  for (const Param& p : k_params) {
    if (!s.empty()) s += ' ';
    s += std::string(p.name) + "=" + std::to_string(p.get(*this));
  }
  return s;
}

void Tuning::apply(const std::string& overrides, const std::string& source) {
  Tuning t = *this;  // every pair parsed before any takes effect: a bad string changes nothing
  std::string text = overrides;
  std::replace(text.begin(), text.end(), ',', ' ');
  std::istringstream in(text);
  std::string item;
  std::vector<std::string> names;
  while (in >> item) {
    const auto eq = item.find('=');
    const std::string name = item.substr(0, eq);
    std::uint64_t value = 0;
    try {
      std::size_t used = 0;
      // stoull accepts "-1" as ULLONG_MAX: only plain digits are numbers here.
      if (eq == std::string::npos || eq + 1 >= item.size() || !std::isdigit((unsigned char)item[eq + 1]))
        throw std::invalid_argument(item);
      value = std::stoull(item.substr(eq + 1), &used);
      if (used != item.size() - eq - 1) throw std::invalid_argument(item);
    } catch (const std::exception&) {
      throw_argument_error(source, "expected name=number, got '" + item + "'");
    }
    const Param* p = std::find_if(std::begin(k_params), std::end(k_params),
                                  [&](const Param& q) { return name == q.name; });
    if (p == std::end(k_params)) throw_argument_error(source, "unknown tuning parameter '" + name + "'");
    if (!valid(*p, value)) throw_argument_error(source, name + " must be " + requirement(*p));
    p->set(t, value);
    names.push_back(name);
  }
  // radix.items without radix.items_local sets the keys per work-item of every ranking: an override of the
  // tile is not undone by a row's tile for local-memory sub-groups.
  auto given = [&](const char* n) { return std::find(names.begin(), names.end(), n) != names.end(); };
  if (given("radix.items") && !given("radix.items_local")) t.radix.items_local = 0;
  *this = t;
}

std::string merge_overrides(const std::string& earlier, const std::string& later) {
  std::vector<std::pair<std::string, std::string>> items;
  std::string text = earlier + " " + later;
  std::replace(text.begin(), text.end(), ',', ' ');
  std::istringstream in(text);
  for (std::string item; in >> item;) {
    const auto eq = item.find('=');
    const std::string name = item.substr(0, eq), value = item.substr(eq + 1);
    auto it = std::find_if(items.begin(), items.end(), [&](const auto& p) { return p.first == name; });
    if (it != items.end())
      it->second = value;
    else
      items.emplace_back(name, value);
  }
  std::string merged;
  for (const auto& [name, value] : items) merged += (merged.empty() ? "" : " ") + name + "=" + value;
  return merged;
}

Tuning tuning_for(const DeviceFacts& device, unsigned key_bytes, unsigned value_bytes,
                  const std::string& overrides) {
  Tuning t;
  for (const Row& r : k_table) {
    if (*r.vendor && device.vendor.find(r.vendor) == std::string::npos) continue;
    if (*r.type && device.type != r.type) continue;
    if (*r.name && device.name.find(r.name) == std::string::npos) continue;
    if (r.key_bytes && r.key_bytes != key_bytes) continue;
    if ((r.values == kNoValues && value_bytes) || (r.values == kWithValues && !value_bytes)) continue;
    t.apply(r.params, "tuning table");
    // The row's name: the device part, then the widths where the row is for some only.
    t.row = std::string(*r.vendor ? r.vendor : "any") + "/" + (*r.type ? r.type : "any") + "/" +
            (*r.name ? r.name : "default");
    if (r.key_bytes) t.row += "/keys" + std::to_string(r.key_bytes * 8);
    if (r.values != kAnyValues) t.row += r.values == kWithValues ? "/values" : "/no-values";
    t.measured = r.measured;
  }
  // Staging host data through pinned memory pays off where transfers cross a bus: not on CPU devices
  // (their buffers are host memory) or GPUs that share host memory (integrated ones).
  if (device.type != "gpu" || device.host_unified) t.host.chunk = 0;
  t.apply(overrides, "tuning");
  return t;
}

Tuning fit_to_device(Tuning t, const DeviceFacts& device, unsigned key_bytes, unsigned value_bytes) {
  // Leave room for the implementation's own local memory use.
  const std::size_t budget = device.local_mem > 4096 ? device.local_mem - 1024 : device.local_mem;
  // Keys of 8 and 16 bits are 32-bit codes in registers and local memory (kernels/common.cl), so the
  // budgets below take them as 4 bytes; a digit wider than the key would only add empty counters.
  const unsigned key_bits = key_bytes * 8;
  key_bytes = std::max(key_bytes, 4u);
  t.radix.bits = std::min(t.radix.bits, key_bits);
  auto clamp_wg = [&](unsigned& wg) { wg = std::min<unsigned>(wg, floor_pow2(device.max_work_group)); };
  RadixPolicy& r = t.radix;
  // A tile derived from the device: the most keys per work-item that local memory holds, up to the 24 that
  // a 64-register work-item held on the H100 without spilling much (32 with local-memory sub-groups, set
  // where those are chosen below); fit_radix_registers then takes keys
  // off while the compiler reports spilling. Below half a tile per compute unit, 8 keys, as on the H100.
  if (r.items == 0) {
    r.derived = !r.cpu;
    r.items = r.cpu ? 15 : 24;
    if (!r.items_small) r.items_small = 8;
  }
  // The radix kernels' scans take any multiple of 8 work-items (kernels/radix_common.cl).
  r.wg = std::max(8u, std::min<unsigned>(r.wg, unsigned(device.max_work_group / 8 * 8)));
  clamp_wg(t.bitonic.wg);
  clamp_wg(t.selection.wg);
  clamp_wg(t.select.wg);
  if (t.segments.seq_wg) clamp_wg(t.segments.seq_wg);
  // CPU devices only: the segments' vector lanes (one core's vector registers) and the CPU radix shape's
  // write-combining lines (the cache of one core). A GPU would hold them in private memory (96 KiB a
  // work-item at segments.vec=1024, 64 KiB at radix.wc=128 for u32 pairs) and reserve that for every
  // resident work-item: 26 GB on an H100 for the lanes, where test processes running side by side then
  // failed to launch them (CL_OUT_OF_HOST_MEMORY).
  if (device.type != "cpu") {
    t.segments.vec = 0;
    t.radix.wc = 0;
  }

  // The multisplit ranking (radix.match, kernels/radix_rank_multisplit.cl) needs at most 8-bit digits and
  // a work-item per digit, and sub-group primitives: NVIDIA's warps through inline PTX (1), the device's
  // cl_khr_subgroup_ballot held to a size it offers (2), or groups of work-items in local memory (3),
  // which any device runs. Other tunings (tests reach radix.wg=24 and radix.bits=11 on any device) take
  // the portable ranking, whose 4-bit counters allow at most 15 keys per work-item.
  auto offered = [&](unsigned lanes) {
    return device.subgroup_ballot && lanes <= 64 && r.wg % lanes == 0 &&
           std::find(device.subgroup_sizes.begin(), device.subgroup_sizes.end(), lanes) !=
               device.subgroup_sizes.end();
  };
  auto local_lanes = [&] { return r.wg % 32 == 0 ? 32u : r.wg % 16 == 0 ? 16u : 8u; };
  auto choose_subgroups = [&] {
    unsigned khr = 0;
    if (r.sg_size)
      khr = offered(r.sg_size) ? r.sg_size : 0;
    else
      for (unsigned lanes : {32u, 16u, 64u, 8u, 4u})
        if (!khr && offered(lanes)) khr = lanes;
    const bool ptx = device.nv_compiler && r.wg % 32 == 0;
    unsigned use = r.subgroups ? r.subgroups : ptx ? 1 : khr ? 2 : 3;
    if ((use == 1 && !ptx) || (use == 2 && !khr)) use = 3;
    r.subgroups = use;
    r.sg_size = use == 1 ? 32 : use == 2 ? khr : local_lanes();
    // Peers: ballots where the device has them natively, except on NVIDIA, where a local atomic per key
    // measured faster (kernels/radix_rank_multisplit.cl); local atomics where there is no ballot, and
    // ballots for sub-groups wider than a 32-bit atomic.
    if (!r.peers) r.peers = use == 2 ? 1 : 2;
    if (use == 3) r.peers = 2;
    if (use == 2 && r.sg_size > 32) r.peers = 1;
    // Local-memory sub-groups sync by work-group barriers, which a larger tile pays for with fewer
    // tiles (H200, u32 2^28: 8.40 ms at 24 keys, 7.40 at 32); a derived tile starts from 32 keys there.
    if (use == 3 && r.derived)
      r.items = 32;
    else if (use == 3 && r.items_local)
      r.items = r.items_local;
  };
  auto no_multisplit = [&] {
    r.match = r.subgroups = r.peers = r.sg_size = 0;
    r.items = std::min(r.items, 15u);
  };
  r.match = r.match && !r.cpu && r.bits <= 8 && (1u << r.bits) <= r.wg;
  if (r.match)
    choose_subgroups();
  else
    no_multisplit();
  // The portable scatter kernels hold a tile of keys and values, per-digit arrays and about 44 bytes per
  // work-item of scan state. The multisplit ranking's counter (and peer masks) per sub-group and digit
  // share words with the tile, whose keys and values pass through one after the other.
  // Fewer keys per work-item first: the tile shrinks by a work-group's keys at a time.
  auto radix_bytes = [&] {
    const std::size_t block = std::size_t(r.wg) * r.items, digit = std::size_t(4) << r.bits;
    if (!r.match) return block * (key_bytes + value_bytes) + 4 * digit + 44 * std::size_t(r.wg);
    const unsigned lanes = r.subgroups == 3 ? local_lanes() : r.sg_size;
    const std::size_t masks = r.peers == 1 ? 0 : radix_mask_banks(r.subgroups) * digit;
    const std::size_t rank = std::size_t(r.wg / lanes) * (digit + masks);
    const std::size_t scan = r.subgroups == 1 ? 0 : 4 * std::size_t(r.wg);
    return std::max(block * std::max(key_bytes, value_bytes), rank) + digit + scan + 256;
  };
  while (radix_bytes() > budget && r.items > 1) --r.items;
  // Halving keeps whole sub-groups for the multisplit ranking; a width below a work-item per digit
  // takes the portable ranking.
  const unsigned wg_step = r.match && r.subgroups != 3 ? r.sg_size : 8;
  while (radix_bytes() > budget && r.wg > wg_step) r.wg = std::max(wg_step, r.wg / 2 / wg_step * wg_step);
  if (r.match && (1u << r.bits) > r.wg) no_multisplit();
  if (r.subgroups == 3) r.sg_size = local_lanes();
  while (radix_bytes() > budget && r.items > 1) --r.items;
  while (radix_bytes() > budget && r.bits > 4) --r.bits;
  // The register cap is written into NVIDIA's PTX binaries (program_cache.cpp); elsewhere the compiler
  // chooses. A cap above a work-group's share of the register file fails the launch (CL_OUT_OF_RESOURCES:
  // 1024 work-items at 80 registers on the H100), where the compiler alone would have fitted the group,
  // so it is set once the work-group size is final. The NVIDIA rows' caps were measured for the PTX
  // ranking; the local-memory sub-groups run faster uncapped there (H100, u32 / u64 2^28: 30.8 / 12.6
  // Gkeys/s against 27.4 / 10.8 under the rows' 64 / 80 registers).
  if (!device.nv_compiler || (r.match && r.subgroups == 3)) r.regs = 0;
  if (r.regs) {
    const unsigned share = device.registers_per_group / r.wg / 8 * 8;  // allocated in steps of 8
    r.regs = share < 16 ? 0 : std::min(r.regs, share);
  }
  // Onesweep's histogram kernel counts every pass's digits in local memory at once.
  const std::size_t passes = (key_bits + r.bits - 1) / r.bits;
  if (passes * (std::size_t(4) << r.bits) > budget) r.onesweep = 0;

  // Bitonic by-key sorts, merge and odd-even carry a 4-byte index or source position with each key.
  const unsigned index_bytes = value_bytes ? 4 : 0;
  BitonicPolicy& b = t.bitonic;
  if (b.cpu) {
    // One work-item per tile; a tile holds at least two vectors of the widest (16-lane) kind.
    b.tile = std::max(b.tile, 32u);
    while (std::size_t(b.tile) * (key_bytes + index_bytes) > budget && b.tile > 32) b.tile /= 2;
  } else {
    if (b.tile < 2 * b.wg) b.tile = 2 * b.wg;
    // The local kernels hold tile/wg elements per work-item in registers: at most 64.
    if (b.tile > 64 * b.wg) b.tile = 64 * b.wg;
    while (std::size_t(b.tile + b.tile / 32) * (key_bytes + index_bytes) > budget && b.tile > 2) {
      b.tile /= 2;
      if (b.wg > b.tile / 2) b.wg = b.tile / 2;
    }
  }
  while (std::size_t(t.selection.wg) * key_bytes > budget && t.selection.wg > 1) t.selection.wg /= 2;

  // Merge: the GPU shape keeps a tile of keys, values and source positions in local memory; the CPU
  // shape two chunks of keys and values (it merges back and forth).
  MergePolicy& m = t.merge;
  clamp_wg(m.wg);
  const std::size_t merge_bytes = key_bytes + value_bytes + index_bytes;
  while (std::size_t(m.wg) * m.items * merge_bytes > budget && m.items > 1) --m.items;
  while (std::size_t(m.wg) * m.items * merge_bytes > budget && m.wg > 1) m.wg /= 2;
  while (2 * std::size_t(m.chunk) * (key_bytes + value_bytes) > budget && m.chunk > 16) m.chunk /= 2;

  // Odd-even: the tile sort holds a tile, the merge-split two tiles plus source positions; a tile is at
  // least one pair per work-item.
  // Segmented sort: per slot a key code and three 16-bit words, values for half the slots, and the
  // table of a bin's segments (kernels/segments.cl).
  SegmentsPolicy& g = t.segments;
  clamp_wg(g.wg);
  auto segment_bytes = [&] {
    return std::size_t(g.slots) * (key_bytes + 6) + std::size_t(g.slots / 2) * value_bytes +
           std::size_t(g.slots / 8 + 1) * 6 + 256;
  };
  while (segment_bytes() > budget && g.slots > 16) g.slots /= 2;
  g.huge = std::max(g.huge, g.slots / 2);
  // seq may exceed the bins' longest segment (slots / 4): seg_classify then lists only longer segments as
  // large, and seg_local's bins skip them, so each is sorted once, by seg_sequential.

  OddEvenPolicy& o = t.odd_even;
  clamp_wg(o.wg);
  if (o.tile < 2 * o.wg) o.tile = 2 * o.wg;
  while (2 * std::size_t(o.tile) * merge_bytes > budget && o.tile > 2) {
    o.tile /= 2;
    if (o.wg > o.tile / 2) o.wg = o.tile / 2;
  }
  return t;
}

}  // namespace clsort::detail
