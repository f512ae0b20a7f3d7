// The tuning table against every kind of device, without one: the rows (tuning_for) applied to synthetic
// DeviceFacts of NVIDIA, AMD and Intel GPUs, CPU devices, an accelerator and a tiny copy of each (16 KiB of
// local memory, work-groups of 64), fitted (fit_to_device) for every key and value width, must give a
// tuning whose kernels fit the device's local memory and work-group limits, with the powers of two the
// kernels need, that every plan function takes. Every row must be reached by some device and width, so
// a row whose vendor, class or widths match nothing fails here too, and docs/tuning.md must name it.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "algorithms/plan.hpp"
#include "device/tuning.hpp"
#include "operations/top_k/radix_select.hpp"

namespace {

using namespace clsort::detail;

struct Device {
  std::string label;
  DeviceFacts facts;
};

DeviceFacts facts(const std::string& vendor, const std::string& name, const std::string& type,
                  std::size_t max_work_group, std::size_t local_mem, unsigned compute_units) {
  DeviceFacts f;
  f.vendor = vendor;
  f.name = name;
  f.type = type;
  f.max_work_group = max_work_group;
  f.local_mem = local_mem;
  f.max_alloc = std::uint64_t(4) << 30;
  f.global_mem = std::uint64_t(16) << 30;
  f.compute_units = compute_units;
  return f;
}

// What the drivers report, lower case as query_device leaves it.
std::vector<Device> base_devices() {
  std::vector<Device> d;
  DeviceFacts nvidia = facts("nvidia corporation", "nvidia h100 80gb hbm3", "gpu", 1024, 48 << 10, 132);
  nvidia.nv_compiler = true;
  nvidia.registers_per_group = 65536;
  d.push_back({"NVIDIA GPU", nvidia});
  d.push_back({"AMD GPU",
               facts("advanced micro devices, inc.", "gfx90a:sramecc+:xnack-", "gpu", 256, 64 << 10, 104)});
  DeviceFacts intel =
      facts("intel(r) corporation", "intel(r) arc(tm) a770 graphics", "gpu", 1024, 64 << 10, 512);
  intel.subgroup_ballot = true;
  intel.subgroup_sizes = {8, 16, 32};
  d.push_back({"Intel GPU", intel});
  DeviceFacts integrated =
      facts("intel(r) corporation", "intel(r) uhd graphics 770", "gpu", 512, 64 << 10, 32);
  integrated.subgroup_ballot = true;
  integrated.subgroup_sizes = {8, 16, 32};
  integrated.host_unified = true;
  d.push_back({"Intel integrated GPU", integrated});
  // A GPU of a vendor without rows, with cl_khr_subgroup_ballot in 64-lane sub-groups only.
  DeviceFacts wide = facts("some gpu vendor", "gpu with wave64", "gpu", 1024, 64 << 10, 60);
  wide.subgroup_ballot = true;
  wide.subgroup_sizes = {64};
  d.push_back({"GPU with 64-lane sub-groups", wide});
  DeviceFacts pocl = facts("authenticamd", "pthread-haswell-amd epyc", "cpu", 4096, 512 << 10, 2);
  pocl.host_unified = true;
  d.push_back({"PoCL CPU", pocl});
  DeviceFacts intel_cpu = facts("intel(r) corporation", "amd epyc 9r14", "cpu", 8192, 32 << 10, 2);
  intel_cpu.host_unified = true;
  intel_cpu.subgroup_ballot = true;
  intel_cpu.subgroup_sizes = {4, 8, 16, 32, 64};
  d.push_back({"Intel CPU runtime", intel_cpu});
  d.push_back({"accelerator", facts("some vendor", "an fpga", "accelerator", 128, 32 << 10, 4)});
  return d;
}

// Each of the above, and a tiny copy of it: 16 KiB of local memory, work-groups of at most 64.
std::vector<Device> devices() {
  std::vector<Device> all = base_devices();
  for (const Device& d : base_devices()) {
    Device tiny = d;
    tiny.label = "tiny " + d.label;
    tiny.facts.local_mem = 16 << 10;
    tiny.facts.max_work_group = 64;
    if (tiny.facts.registers_per_group) tiny.facts.registers_per_group = 4096;
    all.push_back(tiny);
  }
  return all;
}

constexpr unsigned kKeyWidths[] = {1, 2, 4, 8};
constexpr unsigned kValueWidths[] = {0, 4, 8, 16};

bool pow2(std::uint64_t v) {
  return v && !(v & (v - 1));
}

// Bytes of a key in registers and local memory: 8- and 16-bit keys are 32-bit codes (kernels/common.cl).
unsigned code_bytes(unsigned key_bytes) {
  return std::max(key_bytes, 4u);
}

// Local memory of the radix kernels at this plan's tile and ranking, as they declare it: the multisplit
// ranking's tile (keys, then values) shares words with its per-sub-group counters and peer masks
// (kernels/radix_rank_multisplit.cl, MATCH_WORDS) beside the digits' offsets and the block scan; the
// portable ranking keeps keys and values side by side with its scan words and per-digit arrays.
std::size_t radix_local_bytes(const RadixPlan& p, unsigned key_bytes, unsigned value_bytes) {
  const std::size_t block = std::size_t(p.wg) * p.items, digits = std::size_t(4) << p.bits;
  const unsigned kb = code_bytes(key_bytes);
  if (!p.multisplit) return block * (kb + value_bytes) + 4 * digits + 44 * std::size_t(p.wg);
  const bool ptx = p.subgroups == RadixPlan::Subgroups::ptx;
  const unsigned banks = ptx ? 1 : 2;
  const std::size_t masks = p.peers_ballot ? 0 : banks * digits;
  const std::size_t rank = std::size_t(p.wg / p.sg_lanes) * (digits + masks);
  const std::size_t scan = ptx ? 0 : 4 * std::size_t(p.wg);
  return std::max(block * std::max(kb, value_bytes), rank) + digits + scan;
}

void check_radix(const RadixPlan& p, const Tuning& t, const DeviceFacts& d, unsigned kb, unsigned vb,
                 std::uint32_t n) {
  INFO("radix plan: " << describe(Plan(p)));
  CHECK(p.bits >= 1);
  CHECK(p.bits <= std::min(12u, kb * 8));
  CHECK(p.radix == 1u << p.bits);
  CHECK(p.passes * p.bits >= kb * 8);
  CHECK((p.passes - 1) * p.bits < kb * 8);
  CHECK(p.wg >= 8);
  CHECK(p.wg % 8 == 0);  // the scans' raking segments (kernels/radix_common.cl)
  CHECK(p.wg <= d.max_work_group);
  CHECK(p.items >= 1);
  CHECK(p.items <= 32);
  CHECK_FALSE(p.program.files.empty());
  CHECK(p.program.register_cap == t.radix.regs);
  if (p.shape == RadixPlan::Shape::cpu) {
    CHECK(d.type == "cpu");
    CHECK(p.chunks >= 1);
    CHECK(std::uint64_t(p.chunks) * p.chunk >= n);
    return;
  }
  CHECK(p.tile == p.wg * p.items);
  if (p.multisplit) {
    using S = RadixPlan::Subgroups;
    CHECK(p.bits <= 8);
    CHECK(p.radix <= p.wg);  // a work-item per digit
    CHECK(p.sg_lanes >= 4);
    CHECK(p.wg % p.sg_lanes == 0);
    if (p.subgroups == S::ptx) {
      CHECK(d.nv_compiler);
      CHECK(p.sg_lanes == 32);
    } else if (p.subgroups == S::khr) {
      CHECK(d.subgroup_ballot);
      CHECK(std::count(d.subgroup_sizes.begin(), d.subgroup_sizes.end(), p.sg_lanes) == 1);
    } else {
      CHECK(p.subgroups == S::local);
      CHECK((p.sg_lanes == 8 || p.sg_lanes == 16 || p.sg_lanes == 32));
      CHECK_FALSE(p.peers_ballot);  // no ballot without sub-group hardware
    }
    if (p.sg_lanes > 32) CHECK(p.peers_ballot);  // masks by local atomics are 32 bits
  } else {
    CHECK(p.items <= 15);  // the portable ranking's 4-bit counters
  }
  CHECK(radix_local_bytes(p, kb, vb) <= d.local_mem);
  if (p.shape == RadixPlan::Shape::onesweep) {
    CHECK(n < (1u << 30));                                        // the look-back words count below 2^30
    CHECK(p.passes * (std::size_t(4) << p.bits) <= d.local_mem);  // one histogram kernel for every pass
    REQUIRE(p.fallback.size() == 1);
    CHECK(p.fallback[0].shape == RadixPlan::Shape::reduce_then_scan);
    CHECK(p.tiles >= 1);
    CHECK(std::uint64_t(p.tiles) * p.tile >= n);
  } else {
    CHECK(p.groups >= 1);
    CHECK(std::uint64_t(p.groups) * p.tiles_per_group * p.tile >= n);
  }
  // Register caps are written into NVIDIA's PTX binaries; a cap above a work-group's share fails the launch.
  if (p.program.register_cap) {
    CHECK(d.nv_compiler);
    CHECK(std::uint64_t(p.program.register_cap) * p.wg <= d.registers_per_group);
  }
}

void check_bitonic(const BitonicPlan& p, const DeviceFacts& d, unsigned kb, unsigned vb) {
  const BitonicPolicy& b = p.policy;
  const std::size_t element = code_bytes(kb) + (vb ? 4 : 0);  // a by-key sort carries a 4-byte index
  CHECK(pow2(b.tile));
  CHECK(b.steps >= 1);
  CHECK(p.max_steps >= 1);
  CHECK(p.max_steps <= 6);
  if (b.cpu) {
    CHECK(d.type == "cpu");
    CHECK(b.tile >= 32);  // two vectors of the widest kind
    CHECK(std::size_t(b.tile) * element <= d.local_mem);
    return;
  }
  CHECK(pow2(b.wg));
  CHECK(b.wg <= d.max_work_group);
  CHECK(p.global_wg <= b.wg);
  // kernels/bitonic.cl: a power of two in 2..64 elements per work-item.
  CHECK(b.tile % b.wg == 0);
  CHECK(b.tile / b.wg >= 2);
  CHECK(b.tile / b.wg <= 64);
  CHECK(std::size_t(b.tile + b.tile / 32) * element <= d.local_mem);
  CHECK((element / 4 << p.max_steps) <= 64);  // a global group's elements in registers
}

void check_merge(const MergePlan& p, const DeviceFacts& d, unsigned kb, unsigned vb, std::uint32_t n) {
  const MergePolicy& m = p.policy;
  CHECK(p.tile >= 1);
  CHECK(std::uint64_t(p.tiles) * p.tile >= n);
  CHECK((std::uint64_t(p.tile) << p.passes) >= n);
  CHECK(pow2(m.chunk));
  CHECK(m.chunk >= 16);
  if (m.cpu) {
    CHECK(d.type == "cpu");
    CHECK(p.tile == m.chunk);
    return;
  }
  CHECK(pow2(m.wg));
  CHECK(m.wg <= d.max_work_group);
  CHECK(p.tile == m.wg * m.items);
  // kernels/merge.cl: a tile of key codes, and with values the values and their source positions.
  CHECK(std::size_t(p.tile) * (code_bytes(kb) + (vb ? vb + 4 : 0)) <= d.local_mem);
}

void check_selection(const SelectionPlan& p, const DeviceFacts& d, unsigned kb, std::uint32_t n) {
  CHECK(pow2(p.policy.wg));
  CHECK(p.policy.wg <= d.max_work_group);
  CHECK(p.policy.items >= 1);
  CHECK(std::size_t(p.policy.wg) * code_bytes(kb) <= d.local_mem);  // kernels/selection.cl: a tile of codes
  CHECK(std::uint64_t(p.blocks) * p.policy.wg * p.policy.items >= n);
  CHECK(p.parts >= 1);
  CHECK(p.part_len % p.policy.wg == 0);
  CHECK(std::uint64_t(p.parts) * p.part_len >= n);
}

void check_odd_even(const OddEvenPlan& p, const DeviceFacts& d, unsigned kb, unsigned vb, std::uint32_t n) {
  const OddEvenPolicy& o = p.policy;
  CHECK(pow2(o.wg));
  CHECK(pow2(o.tile));
  CHECK(o.wg <= d.max_work_group);
  CHECK(o.tile >= 2 * o.wg);  // a pair per work-item
  // kernels/odd_even.cl, the merge-split: two tiles of codes, with values the values and positions.
  CHECK(2 * std::size_t(o.tile) * (code_bytes(kb) + (vb ? vb + 4 : 0)) <= d.local_mem);
  CHECK(std::uint64_t(p.tiles) * o.tile >= n);
}

// Radix selection (top_k, select): 32- and 64-bit keys.
void check_select(const SelectPlan& p, const DeviceFacts& d, unsigned kb, std::uint32_t n) {
  CHECK(pow2(p.wg));
  CHECK(p.wg <= d.max_work_group);
  CHECK(p.items >= 1);
  CHECK(p.groups >= 1);
  CHECK(p.levels == kb + 4);
  const std::uint64_t tile = std::uint64_t(p.wg) * p.items;
  CHECK(p.groups <= std::max<std::uint64_t>(1, (n + tile - 1) / tile));  // each group loops over tiles
  // kernels/radix_select.cl, select_level: two histograms, a word per work-item and a few counters.
  CHECK(4 * (2 * 256 + std::size_t(p.wg) + 8) <= d.local_mem);
  CHECK_FALSE(p.program.files.empty());
}

// The segmented sort's parameters (its plan needs a Sorter; kernels/segments*.cl and radix_segments.cl).
void check_segments(const Tuning& t, const DeviceFacts& d, unsigned kb, unsigned vb) {
  const SegmentsPolicy& g = t.segments;
  CHECK(pow2(g.wg));
  CHECK(g.wg <= d.max_work_group);
  CHECK(pow2(g.slots));
  CHECK(g.slots >= 16);
  CHECK(g.huge >= g.slots / 2);
  if (g.seq_wg) CHECK(g.seq_wg <= d.max_work_group);
  if (d.type != "cpu") CHECK(g.vec == 0);  // lanes in private memory: CPU devices only
  // seg_local: per slot a key code and three 16-bit words, values for half the slots, and the table of a
  // bin's segments (three 16-bit words each) beside three arrays of 16 counters.
  const std::size_t slots = g.slots;
  CHECK(slots * (code_bytes(kb) + 6) + slots / 2 * vb + (slots / 8 + 1) * 6 + 3 * 16 * 4 + 12 <= d.local_mem);
  if (g.radix > g.slots / 4) {
    const SegmentsRadixPlan p = plan_radix_segments({d, t, kb, vb, 1u << 20});
    CHECK(p.radix.shape != RadixPlan::Shape::cpu);
    CHECK(std::count(p.radix.program.files.begin(), p.radix.program.files.end(), "radix_segments.cl") == 1);
    CHECK(p.radix.program.register_cap == g.radix_regs);
    if (p.radix.multisplit) CHECK_FALSE(p.tile_program.files.empty());
    CHECK(radix_local_bytes(p.radix, kb, vb) <= d.local_mem);
  }
}

void check_tuning(const Tuning& t, const DeviceFacts& d, unsigned kb, unsigned vb) {
  // Every parameter within the range Tuning::apply accepts for it.
  Tuning again;
  CHECK_NOTHROW(again.apply(t.describe(), "fitted tuning"));
  CHECK_FALSE(t.row.empty());
  CHECK_FALSE(t.measured.empty());
  if (d.type != "cpu") CHECK(t.radix.wc == 0);
  if (d.type != "gpu" || d.host_unified) CHECK(t.host.chunk == 0);
  check_segments(t, d, kb, vb);
  for (std::uint32_t n : {1u, 3u, 4099u, 1u << 20, (1u << 30) + 7}) {
    INFO("n = " << n);
    const PlanInput in{d, t, kb, vb, n};
    check_radix(std::get<RadixPlan>(make_plan(clsort::Algorithm::radix, in)), t, d, kb, vb, n);
    check_radix(std::get<RadixPlan>(make_plan(clsort::Algorithm::automatic, in)), t, d, kb, vb, n);
    check_bitonic(std::get<BitonicPlan>(make_plan(clsort::Algorithm::bitonic, in)), d, kb, vb);
    check_merge(std::get<MergePlan>(make_plan(clsort::Algorithm::merge, in)), d, kb, vb, n);
    if (n <= (1u << 20)) {  // the O(n^2) sorts' limit
      check_selection(std::get<SelectionPlan>(make_plan(clsort::Algorithm::selection, in)), d, kb, n);
      check_odd_even(std::get<OddEvenPlan>(make_plan(clsort::Algorithm::odd_even, in)), d, kb, vb, n);
    }
    if (kb >= 4 && vb == 0) check_select(plan_select(in), d, kb, n);
  }
}

void check_device(const Device& device) {
  for (unsigned kb : kKeyWidths)
    for (unsigned vb : kValueWidths) {
      INFO(device.label << ", keys of " << kb << " bytes, values of " << vb);
      const Tuning table = tuning_for(device.facts, kb, vb, "");
      const std::vector<std::size_t> rows = matching_rows(device.facts, kb, vb);
      REQUIRE_FALSE(rows.empty());
      CHECK(table.row == tuning_rows()[rows.back()].name);
      INFO("rows: " << table.row << "; fitted: " << fit_to_device(table, device.facts, kb, vb).describe());
      check_tuning(fit_to_device(table, device.facts, kb, vb), device.facts, kb, vb);
    }
}

}  // namespace

TEST_CASE("tuning rows: every row fits every device and width") {
  for (const Device& device : devices()) {
    CAPTURE(device.label);
    check_device(device);
  }
}

TEST_CASE("tuning rows: each row is reached and documented") {
  const std::vector<TuningRow> rows = tuning_rows();
  std::set<std::size_t> reached;
  for (const Device& device : devices())
    for (unsigned kb : kKeyWidths)
      for (unsigned vb : kValueWidths)
        for (std::size_t i : matching_rows(device.facts, kb, vb)) reached.insert(i);
  std::ifstream file(CLSORT_TEST_SOURCE_DIR "/docs/tuning.md");
  REQUIRE(file);
  const std::string docs((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  std::set<std::string> names;
  const std::regex figure(R"(\d(\.\d+)?\s*(ms|µs|Gkeys|Mkeys|x\b|%)|\d{4}-\d{2}-\d{2})");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    INFO("row " << i << ": " << rows[i].name << " (" << rows[i].params << ")");
    CHECK(reached.count(i) == 1);
    CHECK(names.insert(rows[i].name).second);  // names are unique
    CHECK_FALSE(rows[i].measured.empty());
    // The provenance line names no figures or dates: those are in docs/tuning.md, under the row's name.
    CHECK_FALSE(std::regex_search(rows[i].measured, figure));
    CHECK(docs.find("### " + rows[i].name + "\n") != std::string::npos);
  }
}

TEST_CASE("tuning rows: the most specific row by device and widths") {
  const std::vector<Device> all = base_devices();
  auto row_of = [&](const std::string& label, unsigned kb, unsigned vb) {
    auto d = std::find_if(all.begin(), all.end(), [&](const Device& x) { return x.label == label; });
    REQUIRE(d != all.end());
    return tuning_for(d->facts, kb, vb, "").row;
  };
  CHECK(row_of("NVIDIA GPU", 4, 0) == "nvidia/gpu/default/keys32");
  CHECK(row_of("NVIDIA GPU", 8, 4) == "nvidia/gpu/default/values");
  CHECK(row_of("AMD GPU", 4, 0) == "advanced micro devices/gpu/default");
  CHECK(row_of("Intel GPU", 4, 0) == "intel/gpu/default");
  CHECK(row_of("GPU with 64-lane sub-groups", 4, 0) == "any/gpu/default");
  CHECK(row_of("GPU with 64-lane sub-groups", 8, 4) == "any/gpu/default/keys64/values");
  CHECK(row_of("PoCL CPU", 4, 0) == "any/cpu/default");
  CHECK(row_of("PoCL CPU", 8, 0) == "any/cpu/default/keys64");
  CHECK(row_of("Intel CPU runtime", 4, 0) == "intel(r) corporation/cpu/default");
  CHECK(row_of("accelerator", 4, 4) == "any/any/default");
}

namespace {

// A device probe that answers as told: the fits' view of a device whose sub-group primitives fail their
// self-test, or whose compiler spills the pass kernel at every tile.
struct ToldProbe : DeviceProbe {
  bool subgroups = true;
  std::uint64_t spill = 0;
  bool subgroups_work(const RadixPolicy&) const override { return subgroups; }
  std::optional<std::uint64_t> pass_private_bytes(const RadixPlan&) const override { return spill; }
};

}  // namespace

TEST_CASE("tuning rows: the device probe's answers") {
  for (const Device& device : devices()) {
    for (unsigned kb : kKeyWidths)
      for (unsigned vb : kValueWidths) {
        INFO(device.label << ", keys of " << kb << " bytes, values of " << vb);
        // Primitives that fail the self-test: the fit of the same rows with the local-memory primitives
        // asked for (radix.subgroups=3), which need nothing of the device.
        auto failing = std::make_shared<ToldProbe>();
        failing->subgroups = false;
        DeviceFacts probed = device.facts;
        probed.probe = failing;
        const Tuning got = fit_to_device(tuning_for(probed, kb, vb, ""), probed, kb, vb);
        const Tuning local =
            fit_to_device(tuning_for(device.facts, kb, vb, "radix.subgroups=3"), device.facts, kb, vb);
        CHECK(got.describe() == local.describe());
        CHECK((!got.radix.match || got.radix.subgroups == 3));
        // A compiler that spills at every tile: a derived tile goes down to 8 keys per work-item; a tile
        // from a row stays as the row set it.
        auto spilling = std::make_shared<ToldProbe>();
        spilling->spill = 64;
        probed.probe = spilling;
        const Tuning spilled = fit_to_device(tuning_for(probed, kb, vb, ""), probed, kb, vb);
        const Tuning plain = fit_to_device(tuning_for(device.facts, kb, vb, ""), device.facts, kb, vb);
        const PlanInput in{probed, plain, kb, vb, 1u << 24};
        if (plain.radix.derived && plain.radix.items > 8 && plan_radix(in).shape != RadixPlan::Shape::cpu)
          CHECK(spilled.radix.items == 8);
        else
          CHECK(spilled.radix.items == plain.radix.items);
      }
  }
}
