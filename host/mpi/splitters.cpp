// The splitter search of clsort::mpi: for each boundary between two ranks' outputs, the code of the key
// at that global position, by a bisection over the codes that all targets take together (one reduction
// per round), then the split of the block of keys equal to it by rank (one prefix sum).
#include "splitters.hpp"

#include <algorithm>
#include <limits>

#include "clsort/key_transform.hpp"
#include "mpi_check.hpp"

namespace clsort::mpi::detail {
namespace {

template <class K>
class KeyCodes final : public SortedCodes {
 public:
  KeyCodes(const K* keys, std::size_t n, const clsort::Options& options) : SortedCodes(n), keys_(keys) {
    const unsigned bits = unsigned(sizeof(K) * 8);
    const unsigned end = options.end_bit ? options.end_bit : bits;
    shift_ = options.begin_bit;
    const unsigned width = end - options.begin_bit;
    mask_ = width >= 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << width) - 1;
    descending_ = options.order == Order::descending;
  }
  std::uint64_t code(std::size_t i) const override { return of(keys_[i]); }
  std::size_t upper_bound(std::uint64_t c, std::size_t lo, std::size_t hi) const override {
    while (lo < hi) {
      const std::size_t mid = lo + (hi - lo) / 2;
      if (of(keys_[mid]) <= c)
        lo = mid + 1;
      else
        hi = mid;
    }
    return lo;
  }

 private:
  // The bit range is taken from the ascending code; descending reverses its order (clsort.hpp).
  std::uint64_t of(K key) const {
    const std::uint64_t field = (std::uint64_t(encode_key(key)) >> shift_) & mask_;
    return descending_ ? mask_ - field : field;
  }
  const K* keys_;
  unsigned shift_ = 0;
  std::uint64_t mask_ = 0;
  bool descending_ = false;
};

constexpr std::uint64_t kNone = std::numeric_limits<std::uint64_t>::max();

/// One target's contribution to a round: the keys at or below the probed code, and the smallest and
/// largest code on either side of it within the target's window (kNone / 0 where a side is empty), so
/// that the next interval starts at codes that exist: a run of absent codes costs no rounds.
struct Probe {
  std::uint64_t at_or_below;
  std::uint64_t left_min, left_max, right_min, right_max;
};
static_assert(sizeof(Probe) == 5 * sizeof(std::uint64_t));

void combine(void* in, void* inout, int* length, MPI_Datatype*) {
  const auto* a = static_cast<const Probe*>(in);
  auto* b = static_cast<Probe*>(inout);
  for (int i = 0; i < *length; ++i) {
    b[i].at_or_below += a[i].at_or_below;
    b[i].left_min = std::min(b[i].left_min, a[i].left_min);
    b[i].left_max = std::max(b[i].left_max, a[i].left_max);
    b[i].right_min = std::min(b[i].right_min, a[i].right_min);
    b[i].right_max = std::max(b[i].right_max, a[i].right_max);
  }
}

/// The Probe datatype and its reduction, freed at scope exit.
class ProbeReduction {
 public:
  ProbeReduction() {
    check_mpi(MPI_Type_contiguous(5, MPI_UINT64_T, &type_), "MPI_Type_contiguous");
    check_mpi(MPI_Type_commit(&type_), "MPI_Type_commit");
    check_mpi(MPI_Op_create(&combine, 1, &op_), "MPI_Op_create");
  }
  ProbeReduction(const ProbeReduction&) = delete;
  ProbeReduction& operator=(const ProbeReduction&) = delete;
  ~ProbeReduction() {
    MPI_Op_free(&op_);
    MPI_Type_free(&type_);
  }
  void all(MPI_Comm comm, std::vector<Probe>& probes) const {
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, probes.data(), int(probes.size()), type_, op_, comm),
              "MPI_Allreduce");
  }

 private:
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
  MPI_Op op_ = MPI_OP_NULL;
};

/// One boundary's search. The key at global position t has a code in [a, b]; globally, low keys have a
/// code below a and high keys a code at or below b (low <= t < high); locally, [lo, hi) is this rank's
/// window of codes in [a, b].
struct Search {
  std::uint64_t t, a, b, low, high;
  std::size_t lo, hi;
};

}  // namespace

std::unique_ptr<SortedCodes> sorted_codes(KeyType type, const void* keys, std::size_t n,
                                          const clsort::Options& options) {
  auto make = [&](auto tag) -> std::unique_ptr<SortedCodes> {
    using K = decltype(tag);
    return std::make_unique<KeyCodes<K>>(static_cast<const K*>(keys), n, options);
  };
  switch (type) {
    case KeyType::u32:
      return make(std::uint32_t{});
    case KeyType::i32:
      return make(std::int32_t{});
    case KeyType::f32:
      return make(float{});
    case KeyType::u64:
      return make(std::uint64_t{});
    case KeyType::i64:
      return make(std::int64_t{});
    case KeyType::f64:
      return make(double{});
    case KeyType::u8:
      return make(std::uint8_t{});
    case KeyType::i8:
      return make(std::int8_t{});
    case KeyType::u16:
      return make(std::uint16_t{});
    case KeyType::i16:
      return make(std::int16_t{});
    case KeyType::f16:
      return make(half{});
    case KeyType::bf16:
      return make(bfloat16{});
  }
  return nullptr;
}

Cuts find_cuts(MPI_Comm comm, int rank, const SortedCodes& run, const std::vector<std::uint64_t>& counts,
               Balance balance, std::uint64_t tolerance) {
  const std::size_t p = counts.size(), n = run.size();
  std::vector<std::uint64_t> targets(p + 1, 0);
  for (std::size_t j = 0; j < p; ++j) targets[j + 1] = targets[j] + counts[j];
  const std::uint64_t total = targets[p];
  if (balance == Balance::exact) tolerance = 0;

  // Boundaries at 0 or N cut nothing; ranks that end empty repeat a boundary.
  std::vector<std::uint64_t> wanted;
  for (std::size_t j = 1; j < p; ++j)
    if (targets[j] > 0 && targets[j] < total) wanted.push_back(targets[j]);
  wanted.erase(std::unique(wanted.begin(), wanted.end()), wanted.end());
  const std::size_t m = wanted.size();
  std::vector<std::uint64_t> cut(m);
  Cuts result;

  if (m > 0) {
    const ProbeReduction reduction;
    // Round 0: the codes' global range.
    std::vector<Probe> probes(1, Probe{0, n ? run.code(0) : kNone, n ? run.code(n - 1) : 0, kNone, 0});
    reduction.all(comm, probes);
    ++result.rounds;
    std::vector<Search> s(m);
    for (std::size_t k = 0; k < m; ++k)
      s[k] = {wanted[k], probes[0].left_min, probes[0].left_max, 0, total, 0, n};
    // Settled: the key at t is known (a == b), or with Balance::any a boundary between codes (at low or
    // at high) lies within the tolerance.
    auto settled = [&](const Search& x) {
      return x.a == x.b || x.t - x.low <= tolerance || x.high - x.t <= tolerance;
    };
    std::vector<std::size_t> split(m);
    probes.assign(m, Probe{});
    for (;;) {
      bool open = false;
      for (std::size_t k = 0; k < m; ++k) {
        const Search& x = s[k];
        if (settled(x)) {
          probes[k] = Probe{0, kNone, 0, kNone, 0};
          continue;
        }
        open = true;
        const std::uint64_t middle = x.a + (x.b - x.a) / 2;
        const std::size_t at = run.upper_bound(middle, x.lo, x.hi);
        split[k] = at;
        probes[k] = Probe{at, x.lo < at ? run.code(x.lo) : kNone, x.lo < at ? run.code(at - 1) : 0,
                          at < x.hi ? run.code(at) : kNone, at < x.hi ? run.code(x.hi - 1) : 0};
      }
      // Every rank holds the same searches, so every rank leaves the loop at the same round.
      if (!open) break;
      reduction.all(comm, probes);
      ++result.rounds;
      for (std::size_t k = 0; k < m; ++k) {
        Search& x = s[k];
        if (settled(x)) continue;
        const Probe& g = probes[k];
        if (x.t < g.at_or_below) {
          x.a = g.left_min;
          x.b = g.left_max;
          x.high = g.at_or_below;
          x.hi = split[k];
        } else {
          x.a = g.right_min;
          x.b = g.right_max;
          x.low = g.at_or_below;
          x.lo = split[k];
        }
      }
    }

    // Each boundary now lies at low, at high, or inside the block of keys equal to code a == b, which
    // the ranks share in rank order: rank i takes its keys of that block while the ranks before it have
    // given fewer than t - low.
    std::vector<std::uint64_t> equal(m, 0), before(m, 0);
    bool ties = false;
    for (std::size_t k = 0; k < m; ++k) {
      const Search& x = s[k];
      const std::uint64_t need = x.t - x.low;
      if (need <= tolerance && need <= x.high - x.t) {
        cut[k] = x.lo;
      } else if (x.high - x.t <= tolerance) {
        cut[k] = x.hi;
      } else {
        equal[k] = x.hi - x.lo;
        ties = true;
      }
    }
    if (ties) {
      check_mpi(MPI_Exscan(equal.data(), before.data(), int(m), MPI_UINT64_T, MPI_SUM, comm), "MPI_Exscan");
      if (rank == 0) std::fill(before.begin(), before.end(), 0);
      ++result.rounds;
      for (std::size_t k = 0; k < m; ++k) {
        const Search& x = s[k];
        const std::uint64_t need = x.t - x.low;
        if (need <= tolerance && need <= x.high - x.t) continue;
        if (x.high - x.t <= tolerance) continue;
        const std::uint64_t take = need > before[k] ? std::min<std::uint64_t>(need - before[k], equal[k]) : 0;
        cut[k] = x.lo + take;
      }
    }
  }

  // This rank's cut at each rank's first global position. Cuts are prefixes of one total order, so on
  // every rank a later boundary cuts at least as far; with Balance::any two close boundaries may have
  // moved past each other, and the later one then takes the farther cut (on every rank alike).
  auto position = [&](std::uint64_t t) -> std::uint64_t {
    if (t == 0) return 0;
    if (t >= total) return n;
    return cut[std::size_t(std::lower_bound(wanted.begin(), wanted.end(), t) - wanted.begin())];
  };
  result.send_counts.assign(p, 0);
  std::uint64_t from = 0;
  for (std::size_t j = 0; j < p; ++j) {
    const std::uint64_t to = std::max(from, position(targets[j + 1]));
    result.send_counts[j] = to - from;
    from = to;
  }
  return result;
}

}  // namespace clsort::mpi::detail
