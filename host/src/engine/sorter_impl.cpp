// The Sorter's state (sorter_impl.hpp): made from a queue, the device's facts read once, the tuning fitted
// per key and value width on first use.
#include "engine/sorter_impl.hpp"

#include <cstdlib>

#include "algorithms/radix/radix.hpp"
#include "engine/program_cache.hpp"

namespace clsort {

Sorter::Impl::Impl(cl::Context c, cl::Device d, cl::CommandQueue q)
    : context(std::move(c)), device(std::move(d)), queue(std::move(q)) {
  cl_command_queue_properties props = 0;
  CLSORT_CHECK(queue.getInfo(CL_QUEUE_PROPERTIES, &props));
  profiling = (props & CL_QUEUE_PROFILING_ENABLE) != 0;
  in_order = (props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) == 0;
  facts = detail::query_device(device);
  facts.probe = detail::make_device_probe(context, device);
  scratch_keep = std::size_t(facts.global_mem / 2);
  if (const char* env = std::getenv("CLSORT_TUNING"); env && *env) {
    detail::Tuning().apply(env, "CLSORT_TUNING");  // refused here, naming the variable
    overrides = detail::merge_overrides("", env);
  }
  detail::retain_context_programs(context());
}

Sorter::Impl::~Impl() {
  // Destructors never throw; a context being torn down with work in flight is the caller's to avoid. The
  // modules' state (pinned staging among it) goes while the queue and context still stand.
  modules.clear();
  detail::release_context_programs(context());
}

const detail::Tuning& Sorter::Impl::tuning(unsigned key_bytes, unsigned value_bytes) const {
  auto it = fitted.find({key_bytes, value_bytes});
  if (it == fitted.end()) {
    const detail::Tuning t = detail::fit_to_device(
        detail::tuning_for(facts, key_bytes, value_bytes, overrides), facts, key_bytes, value_bytes);
    it = fitted.emplace(std::make_pair(key_bytes, value_bytes), t).first;
  }
  return it->second;
}

void Sorter::Impl::retune() {
  fitted.clear();
  plans.clear();
  for (auto& [type, module] : modules) module->retune();
}

}  // namespace clsort
