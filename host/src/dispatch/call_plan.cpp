// The route of one call (call_plan.hpp): the algorithm, the value path, the split of n past 2^32, the host
// path and the kernel plan, each decided here and nowhere else.
#include "dispatch/call_plan.hpp"

#include <algorithm>
#include <limits>

#include "device/tuning.hpp"
#include "dispatch/auto_policy.hpp"
#include "host_data/staging.hpp"

namespace clsort::detail {

namespace {

constexpr std::size_t kMax32 = std::numeric_limits<std::uint32_t>::max();  // 32-bit indices and counts

// The algorithm `options` asks for, or automatic's choice. A bit range is radix sort's (CUB's semantics):
// the comparison sorts order by whole keys.
Algorithm resolve_algorithm(const Sorter::Impl& s, KeyType type, std::size_t n, std::size_t value_bytes,
                            const Options& options) {
  key_type_row(type);  // an invalid type is refused here, naming "type"
  const bool range = options.begin_bit != 0 || options.end_bit != 0;
  if (range) {
    check_bit_range(type, options);
    if (options.algorithm != Algorithm::automatic && options.algorithm != Algorithm::radix)
      throw_argument_error("algorithm",
                           std::string("a bit range (begin_bit, end_bit) needs radix sort, not ") +
                               to_string(options.algorithm));
  }
  const Algorithm algorithm = range ? Algorithm::radix
                              : options.algorithm == Algorithm::automatic
                                  ? automatic_choice(s, type, n, value_bytes)
                                  : options.algorithm;
  if (n > max_n(algorithm))
    throw_argument_error("n", std::to_string(n) + " exceeds the largest n " + to_string(algorithm) +
                                  " sort accepts (" + std::to_string(max_n(algorithm)) + ")");
  return algorithm;
}

// The most keys one sort of the passes takes: they count in 32 bits.
std::uint64_t most_keys(const RadixPolicy& radix) {
  return std::min<std::uint64_t>(radix.split_max, kMax32);
}

// Radix sort from radix.split_min keys on (`carried`: the tuning of the width the passes carry), and of
// more keys than one sort takes, which n >= 2^32 always is.
bool splits(const Tuning& carried, Algorithm algorithm, std::size_t n) {
  if (n <= 1 || algorithm != Algorithm::radix) return false;
  return n > most_keys(carried.radix) || n >= carried.radix.split_min;
}

// Whether 16-byte values ride the passes beside their keys: where the tuning asks for it (radix.values16)
// and the plan is Onesweep with the multisplit ranking; elsewhere they move by index.
std::shared_ptr<const Plan> riding_plan(const Sorter::Impl& s, const Tuning& carried, Algorithm algorithm,
                                        KeyType type, std::size_t n, std::size_t value_bytes,
                                        const Options& options) {
  if (value_bytes != 16 || algorithm != Algorithm::radix || n < 2 || n > kMax32 ||
      !s.tuning(unsigned(key_size(type)), 16).radix.values16 || splits(carried, algorithm, n))
    return nullptr;
  auto plan = kernel_plan(s, algorithm, type, n, 16, options);
  const auto* radix = std::get_if<RadixPlan>(plan.get());
  return radix && radix->shape == RadixPlan::Shape::onesweep && radix->multisplit ? plan : nullptr;
}

}  // namespace

void check_bit_range(KeyType type, const Options& options) {
  const unsigned key_bits = unsigned(key_size(type)) * 8;
  const unsigned end = options.end_bit ? options.end_bit : key_bits;
  if (options.end_bit > key_bits)
    throw_argument_error("end_bit", std::to_string(options.end_bit) + " is past the " +
                                        std::to_string(key_bits) + " bits of " + to_string(type) + " keys");
  if (options.begin_bit > end)
    throw_argument_error("begin_bit",
                         std::to_string(options.begin_bit) + " is past end_bit " + std::to_string(end));
}

bool empty_range(KeyType type, const Options& options) {
  const unsigned end = options.end_bit ? options.end_bit : unsigned(key_size(type)) * 8;
  return (options.begin_bit != 0 || options.end_bit != 0) && options.begin_bit == end;
}

std::uint64_t most_sort_keys(const Sorter::Impl& s, KeyType type, unsigned pass_value_bytes) {
  return most_keys(s.tuning(unsigned(key_size(type)), pass_value_bytes).radix);
}

Algorithm automatic_choice(const Sorter::Impl& s, KeyType type, std::size_t n, std::size_t value_bytes) {
  // The by-key thresholds are those of 8-byte values, the wider (local memory fits fewer).
  const Tuning& t = s.tuning(unsigned(key_size(type)), value_bytes ? 8 : 0);
  // One work-group's local-memory bitonic sort is a single launch: best while the tile holds n.
  return n <= t.automatic.small_n && n <= t.bitonic.tile ? Algorithm::bitonic : Algorithm::radix;
}

std::shared_ptr<const Plan> kernel_plan(const Sorter::Impl& s, Algorithm algorithm, KeyType type,
                                        std::size_t n, unsigned pass_value_bytes, const Options& options) {
  const unsigned kb = unsigned(key_size(type));
  const std::uint32_t n32 = std::uint32_t(std::min(n, kMax32));
  const Sorter::Impl::PlanKey key{int(algorithm), kb, pass_value_bytes, n32, options.begin_bit,
                                  options.end_bit};
  return s.plans.get(key, [&] {
    const PlanInput in{
        s.facts,        s.tuning(kb, pass_value_bytes), kb, pass_value_bytes, n32, options.begin_bit,
        options.end_bit};
    return std::make_shared<const Plan>(make_plan(algorithm, in));
  });
}

CallPlan plan_call(const Sorter::Impl& s, const CallInput& in) {
  CallPlan p;
  p.type = in.type;
  p.n = in.n;
  p.value_bytes = in.value_bytes;
  p.options = in.options;
  p.options.algorithm = resolve_algorithm(s, in.type, in.n, in.value_bytes, in.options);
  const Algorithm algorithm = p.options.algorithm;
  const std::size_t vb = in.value_bytes;
  // The tuning of the width the passes carry where the values do not ride at their own: its split_min and
  // host policy decide for riding values too.
  unsigned carried = unsigned(pass_width(vb));
  // Values that move by index where one sort of the passes cannot take every key (the split path sorts
  // the parts): 64-bit indices.
  if (vb > 8 && in.n > most_sort_keys(s, in.type, carried)) carried = 8;
  const Tuning& carried_tuning = s.tuning(unsigned(key_size(in.type)), carried);
  if (empty_range(in.type, in.options)) {
    // No kernel plan: nothing runs, and a plan of no bits would make passes of none.
    p.orders_nothing = true;
    p.values = vb ? ValuePath::in_passes : ValuePath::none;
    p.pass_value_bytes = unsigned(vb);
    return p;
  }
  if (vb == 0) {
    p.values = ValuePath::none;
  } else if (auto riding = riding_plan(s, carried_tuning, algorithm, in.type, in.n, vb, p.options)) {
    p.values = ValuePath::in_passes;
    p.pass_value_bytes = unsigned(vb);
    p.kernels = std::move(riding);
  } else if (carried_by_passes(vb)) {
    p.values = ValuePath::in_passes;
  } else {
    p.values = vb > 8 ? ValuePath::by_index : ValuePath::widened;
  }
  if (!p.kernels) p.pass_value_bytes = carried;
  p.split = splits(carried_tuning, algorithm, in.n);
  // Fewer than two keys run no kernel: their plan is that of two keys, since the plan functions size tiles
  // and launches by n. A split sort runs its pieces' and buckets' own plans: its plan is that of a piece.
  if (!p.kernels) {
    const std::size_t plan_n = p.split ? std::min<std::size_t>(in.n, carried_tuning.radix.split_piece)
                                       : std::max<std::size_t>(in.n, 2);
    p.kernels = kernel_plan(s, algorithm, in.type, plan_n, p.pass_value_bytes, p.options);
  }
  if (in.data == DataAt::host) {
    // The caller's host arrays as the device's buffers where the sort is the radix CPU shape, which reads
    // its input until its last kernel writes the result, so a sort that fails before that leaves the
    // caller's arrays as they were; PoCL and Intel's CPU runtime use the caller's pointer at any alignment.
    const std::size_t bytes = in.n * (key_size(in.type) + vb);
    if (stages(s, in.type, vb, bytes))
      p.host = HostPath::staged;
    else if (s.facts.type == "cpu" && in.host_aligned && p.cpu_shape())
      p.host = HostPath::zero_copy;
    else
      p.host = HostPath::transfers;
  }
  return p;
}

bool CallPlan::cpu_shape() const {
  if (split || n < 2 || n > kMax32 || !carried_by_passes(value_bytes)) return false;
  const auto* radix = std::get_if<RadixPlan>(kernels.get());
  return radix && radix->shape == RadixPlan::Shape::cpu;
}

CallPlan CallPlan::in_passes() const {
  CallPlan inner = *this;
  inner.values = value_bytes ? ValuePath::in_passes : ValuePath::none;
  inner.value_bytes = pass_value_bytes;
  inner.host = HostPath::none;
  return inner;
}

std::string CallPlan::shape() const {
  if (orders_nothing)
    return "nothing to sort: the bit range is empty, so every key keeps its place (argsort: the identity)";
  std::string text = describe(*kernels);
  if (split)
    text =
        "one stable MSD partition by the top digit of the code that the keys do not all share (64-bit "
        "counts; a bucket too large for one sort partitioned again by its next digit), then per bucket: " +
        text;
  const std::string width = std::to_string(value_bytes);
  switch (values) {
    case ValuePath::none:
      break;
    case ValuePath::in_passes:
      if (!carried_by_passes(value_bytes))
        text += "; values of " + width + " bytes ride the passes beside their keys";
      break;
    case ValuePath::widened:
      text +=
          "; values of " + width + " bytes ride the passes widened to " + std::to_string(pass_value_bytes);
      break;
    case ValuePath::by_index:
      text += "; values of " + width + " bytes: sorted as " + std::to_string(pass_value_bytes * 8) +
              "-bit indices, then moved once through the permutation";
      break;
  }
  return text;
}

std::string CallPlan::host_route() const {
  if (orders_nothing) return "nothing moves: the keys are copied to the output where it is another array";
  // By HostPath, in its order.
  static const char* const routes[] = {
      "device buffers",
      "host arrays through pinned staging in chunks, copies overlapping the transfers",
      "host arrays used in place as the device's buffers",
      "host arrays by one transfer each way",
  };
  return routes[int(host)];
}

}  // namespace clsort::detail

namespace clsort::detail {

CLSORT_PARAMS(auto_params, CLSORT_PARAM("auto.small_n", automatic.small_n, 0, ~0ull, Check::range, ""))

}  // namespace clsort::detail
