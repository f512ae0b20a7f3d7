// Plans: the defines as data, the dispatch from an algorithm to its plan function, and descriptions.
#include "algorithms/plan.hpp"

#include <algorithm>

namespace clsort::detail {

Defines& Defines::set(const std::string& name, const std::string& value) {
  auto it = std::find_if(items_.begin(), items_.end(), [&](const auto& d) { return d.first == name; });
  if (it != items_.end())
    it->second = value;
  else
    items_.emplace_back(name, value);
  return *this;
}

std::string Defines::options() const {
  std::string s;
  for (const auto& [name, value] : items_) s += (s.empty() ? "-D" : " -D") + name + "=" + value;
  return s;
}

const std::string& ProgramSpec::key() const {
  if (key_.text.empty()) {
    std::string k = defines.options() + "|" + std::to_string(register_cap);
    for (const std::string& f : files) k += "|" + f;
    if (!inline_source.empty()) k += "|inline:" + inline_source;
    key_.text = std::move(k);
  }
  return key_.text;
}

Defines width_defines(const PlanInput& in) {
  Defines d;
  d.set("KEY_BITS", in.key_bytes * 8).set("VALUE_BYTES", in.value_bytes);
  return d;
}

Plan make_plan(Algorithm algorithm, const PlanInput& in) {
  switch (algorithm) {
    case Algorithm::bitonic:
      return plan_bitonic(in);
    case Algorithm::merge:
      return plan_merge(in);
    case Algorithm::selection:
      return plan_selection(in);
    case Algorithm::odd_even:
      return plan_odd_even(in);
    case Algorithm::radix:
    case Algorithm::automatic:
      break;
  }
  return plan_radix(in);
}

namespace {
std::string radix_line(const RadixPlan& p) {
  using Shape = RadixPlan::Shape;
  std::string s = p.shape == Shape::cpu                ? "CPU shape (MSD pass, then a work-item per bucket)"
                  : p.shape == Shape::reduce_then_scan ? "reduce-then-scan"
                                                       : "onesweep";
  if (p.shape != Shape::cpu) {
    if (p.multisplit) {
      using S = RadixPlan::Subgroups;
      s += std::string(", multisplit ranking (") +
           (p.subgroups == S::ptx   ? "PTX warps"
            : p.subgroups == S::khr ? "cl_khr_subgroup_ballot"
                                    : "local-memory sub-groups") +
           " of " + std::to_string(p.sg_lanes) + ", peers by " +
           (p.peers_ballot ? "ballots" : "local atomics") + ")";
    } else {
      s += ", portable ranking";
    }
    s += ", tiles of " + std::to_string(p.wg) + " x " + std::to_string(p.items);
    if (p.derived) s += " (derived from the device)";
  } else {
    s += ", " + std::to_string(p.chunks) + " chunks";
  }
  s += ", " + std::to_string(p.passes) + " passes of " + std::to_string(p.bits) + " bits";
  if (p.bit_range) s += " over bits [" + std::to_string(p.begin_bit) + ", " + std::to_string(p.end_bit) + ")";
  if (p.prefetch) s += ", prefetching";
  if (p.program.register_cap) s += ", " + std::to_string(p.program.register_cap) + " registers";
  return s;
}
}  // namespace

std::string describe(const Plan& plan) {
  return std::visit(
      [](const auto& p) -> std::string {
        using P = std::decay_t<decltype(p)>;
        if constexpr (std::is_same_v<P, RadixPlan>) {
          std::string s = "radix: " + radix_line(p);
          if (!p.fallback.empty()) s += "; where its self-test fails: " + radix_line(p.fallback[0]);
          return s;
        } else if constexpr (std::is_same_v<P, BitonicPlan>) {
          return std::string("bitonic: ") + (p.policy.cpu ? "CPU shape, " : "") + "tiles of " +
                 std::to_string(p.policy.tile) + ", " + std::to_string(p.max_steps) +
                 " global steps per launch";
        } else if constexpr (std::is_same_v<P, MergePlan>) {
          return std::string("merge: ") + (p.policy.cpu ? "CPU shape, " : "") + "tiles of " +
                 std::to_string(p.tile) + ", " + std::to_string(p.passes) + " merge passes";
        } else if constexpr (std::is_same_v<P, SelectionPlan>) {
          return "selection: " + std::to_string(p.blocks) + " blocks x " + std::to_string(p.parts) + " parts";
        } else {
          return "odd_even: " + std::to_string(p.tiles) + " tiles of " + std::to_string(p.policy.tile);
        }
      },
      plan);
}

std::string build_options(const Plan& plan) {
  return std::visit([](const auto& p) { return p.program.defines.options(); }, plan);
}

}  // namespace clsort::detail
