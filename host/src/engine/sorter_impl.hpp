// Internal: the state behind a Sorter: its OpenCL objects, what it knows of the device, the tuning
// overrides, and what calls reuse (plans, kernels, scratch buffers, each module's own state).
#pragma once

#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <typeindex>
#include <utility>
#include <vector>

#include "algorithms/plan.hpp"
#include "clsort/clsort.hpp"
#include "device/tuning.hpp"
#include "engine/check.hpp"

namespace clsort {
namespace detail {

/// A scratch buffer's name: the module that owns it and a slot of that module's. Each module names its
/// slots beside its code, so that no list of every module's buffers grows in one place.
struct ScratchSlot {
  const char* owner;
  unsigned index;
  bool operator<(const ScratchSlot& o) const {
    const int c = std::strcmp(owner, o.owner);
    return c < 0 || (c == 0 && index < o.index);
  }
};

/// What one module (an algorithm's driver, an operation, the host staging) keeps in a Sorter between
/// calls. Each module defines its own and reaches it through Sorter::Impl::state<T>(), so the Sorter's
/// state names none of them.
struct ModuleState {
  virtual ~ModuleState() = default;
  /// Sorter::tune changed the tuning: what was planned from the old one goes.
  virtual void retune() {}
};

/// Which of a state's two copies (Onesweep's histogram words, the segmented sort's classification) the
/// commands enqueued so far leave reset for the next call, for copies of `words` words: usable while the
/// Sorter's scratch_made is still `made` (a scratch buffer made since may have replaced the one holding it).
struct ResetCopy {
  std::uint64_t made = 0;
  std::size_t words = 0;
  unsigned copy = 0;
  bool valid = false;
  bool usable(std::uint64_t scratch_made, std::size_t words_now) const {
    return valid && made == scratch_made && words == words_now;
  }
};

/// What a Sorter keeps between calls by key, made on first use: plans, whose making took several µs of
/// host time that a GPU sort of 2^16 keys waits for. At most `Max` (then all go), so a caller whose n
/// changes every call keeps a small map, not a growing one.
template <class Key, class Value, std::size_t Max = 64>
class PlanCache {
 public:
  /// The value kept for `key`, made by `make()` if there is none. Valid until the next call that makes one.
  template <class Make>
  const Value& get(const Key& key, Make make) {
    auto it = items_.find(key);
    if (it == items_.end()) {
      if (items_.size() >= Max) items_.clear();
      it = items_.emplace(key, make()).first;
    }
    return it->second;
  }
  void clear() { items_.clear(); }

 private:
  std::map<Key, Value> items_;
};
}  // namespace detail

// Sorter is exported (CLSORT_API) and its nested Impl would be exported with it; it stays internal.
#if defined(__GNUC__) && !defined(_WIN32)
#define CLSORT_SORTER_IMPL_HIDDEN __attribute__((visibility("hidden")))
#else
#define CLSORT_SORTER_IMPL_HIDDEN
#endif

struct CLSORT_SORTER_IMPL_HIDDEN Sorter::Impl {
  Impl(cl::Context context, cl::Device device, cl::CommandQueue queue);
  ~Impl();

  cl::Context context;
  cl::Device device;
  cl::CommandQueue queue;
  bool profiling = false;
  bool in_order = true;
  detail::DeviceFacts facts;  // read once
  // CLSORT_TUNING and every Sorter::tune string, in order, applied over the table's rows.
  std::string overrides;
  // The tuning per (key bytes, value bytes): the rows for those widths plus the overrides, fitted to the
  // device. Made once per width (by sorts and by choose(), which is const); cleared by tune().
  mutable std::map<std::pair<unsigned, unsigned>, detail::Tuning> fitted;
  const detail::Tuning& tuning(unsigned key_bytes, unsigned value_bytes) const;
  // Sort plans by (algorithm, key bytes, carried value bytes, n, begin_bit, end_bit), made from `fitted`;
  // cleared by tune(). Shared, so that a plan a caller holds outlives its eviction by a later call.
  using PlanKey = std::tuple<int, unsigned, unsigned, std::uint32_t, unsigned, unsigned>;
  mutable detail::PlanCache<PlanKey, std::shared_ptr<const detail::Plan>> plans;

  // Kernels are created per Sorter (a cl::Kernel's arguments are not thread-safe); programs are shared.
  // By ProgramSpec::key, then kernel name.
  std::map<std::string, std::map<std::string, cl::Kernel>> kernels;
  // Scratch buffers by slot, grown on demand and reused by later sorts; scratch_made counts the buffers
  // made or given back, so that a sort can tell that none was replaced since an earlier sort left words in
  // one. Each remembers the last call that took it: only those of earlier calls can go (Run::scratch), as
  // a call may take a slot again and expect what it wrote there.
  struct ScratchEntry {
    cl::Buffer buffer;
    std::size_t bytes = 0;
    std::uint64_t call = 0;
  };
  std::map<detail::ScratchSlot, ScratchEntry> scratch;
  std::uint64_t scratch_made = 0;
  /// The bytes of every scratch buffer held.
  std::size_t scratch_held() const {
    std::size_t held = 0;
    for (const auto& [slot, e] : scratch) held += e.bytes;
    return held;
  }
  std::size_t scratch_keep = 0;  // Sorter::keep_scratch; set from the device's memory
  std::uint64_t call = 0;        // the public call under way, counted
  unsigned call_depth = 0;       // public calls that others make (top_k_host through its buffer call)
  /// Every public call starts here, and holds what this returns until it ends: the profile of the last
  /// one goes, and scratch taken before an outermost call is idle.
  class CallScope {
   public:
    explicit CallScope(Impl& s) : s_(s) {
      s.profile.clear();
      if (s.call_depth++ == 0) ++s.call;
    }
    ~CallScope() { --s_.call_depth; }
    CallScope(const CallScope&) = delete;
    CallScope& operator=(const CallScope&) = delete;

   private:
    Impl& s_;
  };
  [[nodiscard]] CallScope begin_call() { return CallScope(*this); }
  // Completion of the previous sort: a new sort reuses scratch only after it (out-of-order queues).
  cl::Event last;
  // The last sort's commands for Sorter::last_profile (profiling queues only), in the order enqueued.
  std::vector<std::pair<std::string, cl::Event>> profile;

  /// The state module T keeps between calls, made on its first use.
  template <class T>
  T& state() {
    std::unique_ptr<detail::ModuleState>& slot = modules[std::type_index(typeid(T))];
    if (!slot) slot = std::make_unique<T>();
    return static_cast<T&>(*slot);
  }
  /// Sorter::tune: the fitted tuning and every plan made from it go.
  void retune();

 private:
  std::map<std::type_index, std::unique_ptr<detail::ModuleState>> modules;
};

}  // namespace clsort
