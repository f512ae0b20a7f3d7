// `clsort bench`'s CPU rows: each algorithm's serial twin (serial_sorts.hpp) and the std::sort or
// std::stable_sort baseline, each sorting a host copy of the keys (and values).
#include <cstring>
#include <type_traits>

#include "bench.hpp"
#include "serial_sorts.hpp"

namespace clsort_cli::bench {
namespace {

/// The serial version of an algorithm: keys alone, and moving values with the keys (empty: none).
struct SerialTwin {
  HostSortFn keys, pairs;
};

#define CLSORT_SERIAL_TWIN(fn)                                                                   \
  SerialTwin {                                                                                   \
    sort_keys([](auto* k, std::size_t n) { serial::fn(k, n, false); }),                          \
        sort_pairs([](auto* k, auto* v, std::size_t n) { serial::fn##_by_key(k, v, n, false); }) \
  }

SerialTwin serial_twin(clsort::Algorithm a) {
  switch (a) {
    case clsort::Algorithm::radix:
      return CLSORT_SERIAL_TWIN(radix_sort);
    case clsort::Algorithm::bitonic:
      return CLSORT_SERIAL_TWIN(bitonic_sort);
    case clsort::Algorithm::selection:
      return CLSORT_SERIAL_TWIN(selection_sort);
    case clsort::Algorithm::odd_even:
      return CLSORT_SERIAL_TWIN(odd_even_sort);
    case clsort::Algorithm::merge:
      return CLSORT_SERIAL_TWIN(merge_sort);
    case clsort::Algorithm::automatic:
      break;
  }
  return {};
}

#undef CLSORT_SERIAL_TWIN

/// The CPU baseline for pairs: std::stable_sort of (key, value) structs, stable like sort_by_key. Zipping
/// the two arrays into structs and back is left out of the timed region: the baseline is the sort alone.
Contender stable_sort_contender() {
  struct State {
    std::function<void()> reset, run;
    std::function<void(void*, void*)> result;
  };
  auto s = std::make_shared<State>();
  Contender c;
  c.label = "std::stable_sort";
  c.kind = "baseline";
  c.prepare = [s](const Workload& in) {
    visit_key_type(in.type, [&](auto k) {
      visit_value_type(in.value_bytes, [&](auto v) {
        using K = typename decltype(k)::type;
        using V = typename decltype(v)::type;
        auto pairs = std::make_shared<std::vector<Pair<K, V>>>();
        s->reset = [pairs, in] {
          *pairs = zip<K, V>(static_cast<const unsigned char*>(in.keys),
                             static_cast<const unsigned char*>(in.values), in.n);
        };
        s->run = [pairs] { stable_sort_pairs(*pairs); };
        s->result = [pairs](void* keys, void* values) { unzip(*pairs, keys, values); };
      });
    });
  };
  c.reset = [s] { s->reset(); };
  c.run = [s] { s->run(); };
  c.result = [s](void* keys, void* values) { s->result(keys, values); };
  return c;
}

}  // namespace

Contender host_contender(std::string label, std::string algorithm, std::string kind, std::size_t cap,
                         HostSortFn sort) {
  struct State {
    Workload in;
    std::vector<unsigned char> keys, values;
  };
  auto s = std::make_shared<State>();
  Contender c;
  c.label = std::move(label);
  c.algorithm = std::move(algorithm);
  c.kind = std::move(kind);
  c.cap = cap;
  c.prepare = [s](const Workload& in) { s->in = in; };
  c.reset = [s] {
    const auto* keys = static_cast<const unsigned char*>(s->in.keys);
    s->keys.assign(keys, keys + s->in.n * clsort::key_size(s->in.type));
    if (s->in.values) {
      const auto* values = static_cast<const unsigned char*>(s->in.values);
      s->values.assign(values, values + s->in.n * s->in.value_bytes);
    }
  };
  c.run = [s, sort] {
    sort(s->in.type, s->keys.data(), s->in.values ? s->values.data() : nullptr, s->in.value_bytes, s->in.n);
  };
  c.result = [s](void* keys, void* values) {
    std::memcpy(keys, s->keys.data(), s->keys.size());
    if (s->in.values) std::memcpy(values, s->values.data(), s->values.size());
  };
  return c;
}

std::optional<Contender> serial_contender(const AlgorithmInfo& a, std::size_t value_bytes, bool caps) {
  SerialTwin twin = serial_twin(a.algorithm);
  HostSortFn& sort = value_bytes ? twin.pairs : twin.keys;
  if (!sort) return std::nullopt;
  return host_contender(std::string(a.name()) + " (serial)", a.name(), "serial", caps ? a.serial_cap : 0,
                        std::move(sort));
}

Contender std_contender(std::size_t value_bytes) {
  if (value_bytes) return stable_sort_contender();
  return host_contender("std::sort", "", "baseline", 0,
                        sort_keys([](auto* k, std::size_t n) { std_sort(k, n); }));
}

bool is_std_row(const std::string& label) {
  return label == "std::sort" || label == "std::stable_sort";
}

}  // namespace clsort_cli::bench
