// Internal: radix selection (top_k, select; kernels/radix_select.cl): its plan, its driver and its scratch.
// Not a sort, so not one of the sorts' Plan alternatives: top_k sorts only what it selected.
#pragma once

#include <cstdint>

#include "engine/run.hpp"

namespace clsort::detail {

struct SelectPlan {
  ProgramSpec program;
  unsigned wg = 256, items = 8;
  std::uint32_t groups = 1;  // work-groups of every level's launch, each looping over tiles
  unsigned levels = 8;       // bytes of the composite (key code, 32-bit index)
  unsigned state_words = 0;  // STATE_WORDS of kernels/radix_select.cl
};
SelectPlan plan_select(const PlanInput& in);

/// Enqueues the radix selection of the `need` first of run.n keys in order (ties: lower index first):
/// top_k writes their input indices, in no particular order, to out[0, need); select_mode writes only the
/// index of the last of them to the state's result word. `state` holds plan.state_words words.
void run_select(Run& run, const SelectPlan& plan, std::uint32_t need, bool select_mode, const cl::Buffer& out,
                const cl::Buffer& state);

// The selection's state words, its two candidate index arrays, and top_k's selected indices and their
// sort keys.
enum SelectScratch : unsigned { kSelectState, kSelectCandidatesA, kSelectCandidatesB, kSelectOut, kSelectCodes };
constexpr const char* scratch_owner(SelectScratch) {
  return "select";
}

}  // namespace clsort::detail
