// The tuning table and the parameter table that parses, checks and describes every tuning parameter.
// Each row: vendor, device class and device-name substrings (empty matches any), the key and value widths
// it is for, the parameters it sets, and one line on where and how it was measured (docs/tuning.md has the
// figures under the row's name). Rows apply from least to most specific.
#include "device/tuning.hpp"

#include <algorithm>
#include <cctype>
#include <iterator>
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

// Keep rows ordered from general to specific. Each row's name (row_name) is unique: docs/tuning.md gives
// its figures under that name.
const Row k_table[] = {
    {"", "", "", 0, kAnyValues, "", "portable defaults, not measured"},
    // CPU devices (PoCL, Intel's CPU runtime): work-groups run on one core each and barriers are loops
    // over work-items, so fewer, larger work-groups with more keys per work-item, and the CPU shapes.
    {"", "cpu", "", 0, kAnyValues,
     "radix.cpu=1 radix.groups=32 radix.wg=64 radix.items=15 bitonic.wg=64 bitonic.tile=8192 selection.wg=64"
     " bitonic.cpu=1 selection.items=8 merge.cpu=1 merge.chunk=16384 odd_even.wg=64 odd_even.tile=512"
     " select.wg=1 select.items=4096 select.groups=4 segments.wg=16 segments.huge=2048 segments.seq=65536"
     " segments.vec=1024 radix.wc=64 radix.wc_min=33554432",
     "PoCL and Intel's CPU runtime, 2 cores: clsort bench and clsort_probe_tuning against the CPU sorts; "
     "segments by clsort_probe_segments"},
    // Intel's CPU runtime: the MSD scatter's write-combining lines cost more than they save there.
    {"intel(r) corporation", "cpu", "", 0, kAnyValues, "radix.wc=0",
     "Intel's CPU runtime, 2 cores: clsort_probe_tuning, alternating with radix.wc=64"},
    // Values ride 8 lanes instead of 16 and are moved by position afterwards: segments of 1024 keys did no
    // better in lanes on PoCL; 64-bit keys alone take 8 lanes too.
    {"", "cpu", "", 0, kWithValues, "segments.vec=512",
     "PoCL, 2 cores: clsort_probe_segments --pairs, in lanes against one work-item per segment"},
    {"", "cpu", "", 8, kAnyValues, "segments.vec=512", "not measured: 8 lanes, as with values"},
    // GPUs without a row of their own: the multisplit ranking and Onesweep (after its self-test), with
    // tiles derived from the device (fit_to_device, then fit_radix_registers); the ranking's sub-group
    // primitives are the best the device reports. Segments of up to 16 keys: one work-item each, sorted in
    // registers from a span staged through local memory, instead of bins in local memory. Segments past
    // the bins and up to 65536 keys: a radix sort each, one work-group, instead of chunks and merges;
    // power-law lengths lose a little by it (a long segment on one work-group ends last).
    {"", "gpu", "", 0, kAnyValues,
     "radix.wg=256 radix.items=0 radix.match=1 radix.onesweep=1 segments.seq=16 segments.radix=65536",
     "radix derived from the device, not measured; segments: H100, clsort_probe_segments against CUB "
     "(tools/lab/gpu_segments.sh)"},
    // Values of 16 bytes ride the passes (Onesweep with the multisplit ranking; the tile shrinks to fit
    // them in local memory) instead of a permutation after an index sort, whose gather reads them at
    // random, half a 32-byte sector each.
    {"", "gpu", "", 0, kWithValues, "radix.values16=1",
     "H100: clsort_probe_wide_pairs, riding against permuted, CUB's SortPairs in the same command "
     "(tools/lab/gpu_wide.sh)"},
    // 64-bit keys take eight passes, which would move the values eight times: about 256 bytes a key
    // against about 100 through the permutation.
    {"", "gpu", "", 8, kWithValues, "radix.values16=0", "not measured: the bytes each way would move"},
    {"nvidia", "gpu", "", 0, kAnyValues,
     "radix.wg=256 radix.items=24 radix.items_small=8 radix.items_local=32 radix.match=1 radix.onesweep=1 "
     "radix.regs=64 "
     "radix.groups=4096 bitonic.wg=512 bitonic.tile=8192 bitonic.steps=6"
     " selection.wg=256 selection.items=8 merge.wg=256 merge.items=12 odd_even.wg=256 odd_even.tile=1024",
     "H100 and H200: clsort bench and clsort_probe_tuning against CUB (tools/lab/gpu_run.sh, gpu_paths.sh)"},
    // 64-bit keys fill local memory before registers; at 80 registers 3 work-groups fit per SM, not 2.
    {"nvidia", "gpu", "", 8, kAnyValues, "radix.items=21 radix.items_local=32 radix.regs=80",
     "H100 and H200: clsort_probe_tuning against CUB (tools/lab/gpu_paths.sh)"},
    // 4-byte keys and 8-byte keys alone rank by ballots (kernels/radix_rank_multisplit.cl, rank_keys), the
    // path of every device with cl_khr_subgroup_ballot (and 16-bit keys with values, below); 8-byte keys
    // with values and 16-bit keys alone keep the local-atomic peers.
    {"nvidia", "gpu", "", 4, kAnyValues, "radix.peers=1",
     "H100: clsort_probe_tuning, ballot against atomic peers, CUB in the same command "
     "(tools/lab/gpu_paths.sh)"},
    {"nvidia", "gpu", "", 8, kNoValues, "radix.peers=1",
     "H100: clsort_probe_tuning, ballot against atomic peers, CUB in the same command "
     "(tools/lab/gpu_paths.sh)"},
    // Pairs spill under every register cap tried.
    {"nvidia", "gpu", "", 0, kWithValues, "radix.regs=0",
     "H100: clsort_probe_tuning --values under register caps, against CUB"},
    {"nvidia", "gpu", "", 4, kWithValues, "radix.items=32",
     "H100: clsort_probe_tuning --values, tiles against each other"},
    // Keys of 8 and 16 bits run the 4-byte keys' kernels on 32-bit codes (only their global loads and
    // stores are narrow), so they take the 4-byte rows' parameters; for 16-bit keys no other tile was faster.
    {"nvidia", "gpu", "", 2, kNoValues, "radix.items=24 radix.regs=64",
     "H100 and H200: clsort_probe_tuning against CUB (tools/lab/gpu_narrow.sh)"},
    {"nvidia", "gpu", "", 2, kWithValues, "radix.items=32 radix.regs=0 radix.peers=1",
     "H100 and H200: clsort_probe_tuning --values against CUB (tools/lab/gpu_narrow.sh)"},
    {"nvidia", "gpu", "", 1, kNoValues, "radix.items=24 radix.regs=64",
     "H100: clsort_probe_tuning against CUB (tools/lab/gpu_narrow.sh)"},
    {"nvidia", "gpu", "", 1, kWithValues, "radix.items=32 radix.regs=0",
     "not measured: the u32 pairs' parameters"},
    {"advanced micro devices", "gpu", "", 0, kAnyValues, "bitonic.wg=256 bitonic.tile=2048",
     "not measured (no AMD GPU available)"},
    {"intel", "gpu", "", 0, kAnyValues, "bitonic.wg=128 bitonic.tile=1024",
     "not measured (no Intel GPU available)"},
};

// vendor/class/device, then the widths where the row is for some only: "nvidia/gpu/default/keys32/values".
std::string row_name(const Row& r) {
  std::string name = std::string(*r.vendor ? r.vendor : "any") + "/" + (*r.type ? r.type : "any") + "/" +
                     (*r.name ? r.name : "default");
  if (r.key_bytes) name += "/keys" + std::to_string(r.key_bytes * 8);
  if (r.values != kAnyValues) name += r.values == kWithValues ? "/values" : "/no-values";
  return name;
}

bool matches(const Row& r, const DeviceFacts& device, unsigned key_bytes, unsigned value_bytes) {
  if (*r.vendor && device.vendor.find(r.vendor) == std::string::npos) return false;
  if (*r.type && device.type != r.type) return false;
  if (*r.name && device.name.find(r.name) == std::string::npos) return false;
  if (r.key_bytes && r.key_bytes != key_bytes) return false;
  return !(r.values == kNoValues && value_bytes) && !(r.values == kWithValues && !value_bytes);
}

// The parameter table: each module's lines (its *_params()), in describe()'s order.
const std::vector<const Param*>& all_params() {
  static const std::vector<const Param*> params = [] {
    std::vector<const Param*> all;
    for (const std::vector<Param>* module :
         {&radix_params(), &bitonic_params(), &selection_params(), &select_params(), &merge_params(),
          &custom_params(), &odd_even_params(), &segments_params(), &auto_params(), &host_params()})
      for (const Param& p : *module) all.push_back(&p);
    return all;
  }();
  return params;
}

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
  for (const Param* p : all_params()) {
    if (!s.empty()) s += ' ';
    s += std::string(p->name) + "=" + std::to_string(p->get(*this));
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
    const auto& params = all_params();
    const auto it =
        std::find_if(params.begin(), params.end(), [&](const Param* q) { return name == q->name; });
    if (it == params.end()) throw_argument_error(source, "unknown tuning parameter '" + name + "'");
    if (!valid(**it, value)) throw_argument_error(source, name + " must be " + requirement(**it));
    (*it)->set(t, value);
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

std::vector<TuningRow> tuning_rows() {
  std::vector<TuningRow> rows;
  for (const Row& r : k_table) rows.push_back({row_name(r), r.params, r.measured});
  return rows;
}

std::vector<std::size_t> matching_rows(const DeviceFacts& device, unsigned key_bytes, unsigned value_bytes) {
  std::vector<std::size_t> rows;
  for (std::size_t i = 0; i < std::size(k_table); ++i)
    if (matches(k_table[i], device, key_bytes, value_bytes)) rows.push_back(i);
  return rows;
}

Tuning tuning_for(const DeviceFacts& device, unsigned key_bytes, unsigned value_bytes,
                  const std::string& overrides) {
  Tuning t;
  for (std::size_t i : matching_rows(device, key_bytes, value_bytes)) {
    const Row& r = k_table[i];
    t.apply(r.params, "tuning table");
    t.row = row_name(r);
    t.measured = r.measured;
  }
  // Staging host data through pinned memory pays off where transfers cross a bus: not on CPU devices
  // (their buffers are host memory) or GPUs that share host memory (integrated ones).
  if (device.type != "gpu" || device.host_unified) t.host.chunk = 0;
  t.apply(overrides, "tuning");
  return t;
}

}  // namespace clsort::detail
