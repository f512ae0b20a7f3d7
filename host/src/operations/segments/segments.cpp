// Segmented sort (Sorter::sort_segments): argument validation, the host data path, and the commands of
// one call (kernels/segments.cl). The device checks the offsets, lists the segments too long for one
// work-group's local memory and, in the same breath, sorts the short ones (one work-item each), which
// write nothing unless the check passed. The host then reads the check and the list back once (a few
// words per long segment) and enqueues the rest: many segments to a work-group in local memory, a radix
// sort per long segment up to segments.radix keys (one work-group each, kernels/radix_segments.cl), the
// chunks and merge passes of the longer ones, and one whole-device sort per huge segment.
//
// The read-back is the price of not scanning the offsets on the host: the host has to know how many
// work-groups and merge passes to launch and which segments need a sort of their own, and must throw on
// bad offsets before anything is written. Reading every offset back instead would cost a transfer of 4 or
// 8 bytes per segment and a host pass over them; the list holds only segments longer than a quarter of the
// local slots, at most n / (that + 1) of them.
#include <algorithm>
#include <cstring>
#include <limits>
#include <optional>
#include <tuple>

#include "device/tuning.hpp"
#include "dispatch/execute.hpp"
#include "engine/run.hpp"
#include "host_data/staging.hpp"
#include "operations/segments/segments.hpp"
#include "operations/segments/segments_policy.hpp"

namespace clsort {
namespace {

constexpr std::uint64_t kMaxPosition = std::numeric_limits<std::uint32_t>::max();

struct SegmentsPlan {
  detail::ProgramSpec program;
  unsigned wg = 256, slots = 4096, span = 2048, bin = 1024;
  std::uint32_t huge = 1u << 20;
  unsigned seq = 0;        // segments of 2 to seq keys: one work-item each (seg_sequential)
  unsigned seq_radix = 0;  // of those, from this length: by radix instead of merges (0: never)
  // seg_sequential's segments per work-item (at most; the call gives each compute unit 8 work-items or
  // more) and work-items per group. CPU devices: up to 64 segments each, one work-item per group, a core's
  // loop (PoCL, 2^20 keys in segments of 16: no faster with 8 or 64 work-items per group or 1 to 256
  // segments each). Elsewhere a segment per work-item, 64 to a group.
  unsigned seq_each = 1, seq_local = 64;
  // Of seg_sequential's segments, those up to vec keys by groups in vector lanes (seg_vector; 0: none), 16
  // segments to a work-item (keys alone up to 32 bits), else 8.
  unsigned vec = 0, vec_lanes = 16;
  // Segments longer than `bin` and up to `radix` keys: one work-group's radix sort each (0: none).
  std::uint32_t radix = 0;
  detail::SegmentsRadixPlan radix_plan;
  // With the multisplit ranking, segments of up to one tile take radix_segment_tiles; 0: none do.
  std::uint32_t radix_tile = 0;
};

SegmentsPlan plan_segments(const Sorter::Impl& s, KeyType type, unsigned value_bytes, unsigned offset_bytes,
                           std::uint64_t limit) {
  const unsigned kb = unsigned(key_size(type));
  const detail::Tuning& t = s.tuning(kb, value_bytes);
  const detail::PlanInput in{s.facts, t, kb, value_bytes, 0};
  SegmentsPlan p;
  p.wg = t.segments.wg;
  p.slots = t.segments.slots;
  p.span = p.slots / 2;
  p.bin = p.slots / 4;
  p.huge = t.segments.huge;
  p.seq = t.segments.seq;
  p.seq_radix = t.segments.seq_radix;
  p.seq_local = t.segments.seq_wg ? t.segments.seq_wg : s.facts.type == "cpu" ? 1 : 64;
  // A staging group holds 17 keys and values per work-item in local memory (kernels/segments_short.cl): at
  // most half the device's.
  const std::size_t stage_bytes = 17u * (kb + value_bytes);
  while (p.seq_local > 1 && p.seq <= 16 && p.seq_local * stage_bytes > s.facts.local_mem / 2)
    p.seq_local /= 2;
  p.seq_each = p.seq_local == 1 ? 64 : 1;
  if (t.segments.radix > p.bin) {
    p.radix = t.segments.radix;
    const detail::PlanInput keys{s.facts, t, kb, value_bytes,
                                 std::uint32_t(std::min<std::uint64_t>(limit, kMaxPosition))};
    p.radix_plan = detail::plan_radix_segments(keys);
    if (p.radix_plan.radix.multisplit) p.radix_tile = p.radix_plan.radix.tile;
  }
  p.program.files = {"segments.cl", "segments_short.cl", "segments_local.cl"};
  p.program.defines = detail::width_defines(in);
  p.program.defines.set("SEG_WG", p.wg).set("SEG_SLOTS", p.slots).set("SEG_OFFSET_64", offset_bytes == 8);
  // Only where some segment can reach it: its count table is 1 KiB of private memory per byte of key,
  // which a GPU would reserve for every resident work-item of seg_sequential.
  p.program.defines.set("SEG_SEQ_RADIX", p.seq >= p.seq_radix ? p.seq_radix : 0);
  // Groups of one segment per work-item stage their spans where every segment they take fits one run.
  const bool staged = p.seq_local > 1 && p.seq >= 2 && p.seq <= 16;
  p.program.defines.set("SEG_SEQ_STAGE", staged ? p.seq_local : 0);
  // Within seg_sequential's lengths (seg_classify then lists none of them), not where it stages whole spans,
  // and not for 64-bit keys with values, whose (code, position) pairs would not fit a lane
  // (fit_to_device turns it off on devices other than CPUs).
  if (t.segments.vec && p.seq >= 2 && !staged && !(kb == 8 && value_bytes)) {
    p.vec = t.segments.vec;
    while (p.vec > 16 && p.vec > p.seq) p.vec /= 2;
    if (p.vec > p.seq) p.vec = 0;  // seq < 16: segments of seq + 1 to 16 keys are the bins'
    p.vec_lanes = kb <= 4 && value_bytes == 0 ? 16 : 8;
  }
  p.program.defines.set("SEG_VEC", p.vec);
  return p;
}

}  // namespace
}  // namespace clsort

namespace clsort::detail {
// Plans by (key type, value bytes, offset bytes, keys the buffer holds), kept as the sort plans are
// (Sorter::Impl::plans): making one, with the radix path's programs, cost a call of many short segments
// as much host time as a sort's plan.
struct SegmentsState : ModuleState {
  PlanCache<std::tuple<int, unsigned, unsigned, std::uint64_t>, SegmentsPlan> plans;
  ResetCopy reset;  // the classification state's copies (seg_classify resets the other)
  // The chunk tables, written to the device without blocking: kept until the next call.
  std::vector<std::uint32_t> chunks, radix;
  void retune() override {
    plans.clear();
    reset = {};
  }
};
}  // namespace clsort::detail

namespace clsort {
namespace {

const SegmentsPlan& segments_plan(Sorter::Impl& s, KeyType type, unsigned value_bytes, unsigned offset_bytes,
                                  std::uint64_t limit) {
  return s.state<detail::SegmentsState>().plans.get(
      std::make_tuple(int(type), value_bytes, offset_bytes, limit),
      [&] { return plan_segments(s, type, value_bytes, offset_bytes, limit); });
}

// A segment longer than one work-group's bins: its start and length, as the classification lists it.
struct Large {
  std::uint32_t start, len;
};

}  // namespace

namespace detail {

cl::Event enqueue_segments(Sorter::Impl& s, KeyType type, const cl::Buffer& keys, const cl::Buffer* values,
                           unsigned value_bytes, std::uint64_t value_limit, const cl::Buffer& offsets,
                           unsigned offset_bytes, std::size_t num, std::uint64_t limit,
                           const Options& options, const std::vector<cl::Event>& wait) {
  detail::Run run = detail::Run::for_call(s, type, options, keys, values, value_bytes, 0, wait);
  const detail::Queue& queue = run.q;
  if (num == 0) return s.last = run.finish();
  const SegmentsPlan& plan = segments_plan(s, type, value_bytes, offset_bytes, limit);
  detail::SegmentsState& kept = s.state<detail::SegmentsState>();
  // Every kernel the call may launch (built here if new), before anything is enqueued: short segments are
  // sorted before the host has read the classification back, and a build that failed after them would
  // leave them sorted behind an error. The buffers sized from the read-back are no larger than the
  // caller's, so only the device running out of memory can fail a call after that.
  cl::Kernel clear = run.kernel(plan.program, "seg_clear");
  cl::Kernel classify = run.kernel(plan.program, "seg_classify");
  cl::Kernel local = run.kernel(plan.program, "seg_local");
  cl::Kernel merge = run.kernel(plan.program, "seg_merge");
  cl::Kernel bins = run.kernel(plan.program, "seg_bins");
  cl::Kernel sequential, radix_sort, radix_tiles;
  if (plan.seq >= 2) sequential = run.kernel(plan.program, "seg_sequential");
  cl::Kernel vector;
  if (plan.vec) vector = run.kernel(plan.program, "seg_vector");
  if (plan.radix) radix_sort = run.kernel(plan.radix_plan.radix.program, "radix_segments");
  if (plan.radix_tile) radix_tiles = run.kernel(plan.radix_plan.tile_program, "radix_segment_tiles");
  const std::uint64_t cap = limit / (plan.bin + 1) + 1;
  // ST_WORDS (kernels/segments.cl) state words in each of two copies, then the large segments
  constexpr std::size_t kStateWords = 6;
  cl::Buffer state = run.scratch(detail::kSegState, 2 * kStateWords * 4 + cap * 8);
  // seg_sequential's merges and radix passes: the positions of the keys (and values) the buffers hold
  cl::Buffer stmp, svtmp;
  const std::size_t kb = key_size(type);
  const std::uint64_t value_room = values ? std::min(limit, value_limit) : 0;
  if (plan.seq > 16 || (plan.seq_radix >= 2 && plan.seq >= plan.seq_radix)) {
    stmp = run.scratch(detail::kSegSeqKeys, std::size_t(limit) * kb);
    if (values)
      svtmp = run.scratch(detail::kSegSeqValues, std::max<std::size_t>(value_room * value_bytes, 64));
  } else if (plan.seq >= 2) {
    stmp = run.scratch(detail::kSegSeqKeys, 64);
    if (values) svtmp = run.scratch(detail::kSegSeqValues, 64);
  }

  // The copy of the state an earlier call's seg_classify reset, unless a scratch buffer was made since.
  const bool reset = kept.reset.usable(s.scratch_made, kStateWords);
  const cl_uint copy = reset ? kept.reset.copy : 0;
  kept.reset.valid = false;
  if (!reset) {
    detail::set_args(clear, state);
    run.launch(clear, 2 * kStateWords, 2 * kStateWords, "seg_clear");
  }
  const cl_uint seq = plan.seq >= 2 ? plan.seq : 1;
  detail::set_args(classify, offsets, cl_uint(num), cl_ulong(limit), seq, state, copy, cl_uint(cap));
  constexpr std::size_t kClassifyEach = 4, kClassifyGroup = 64;  // SEG_CLASSIFY_EACH (kernels/segments.cl)
  run.launch(classify, (num + kClassifyEach - 1) / kClassifyEach, kClassifyGroup, "seg_classify");
  kept.reset = {s.scratch_made, kStateWords, 1 - copy, true};
  const cl_uint kind = run.kind, desc = run.descending;
  if (plan.seq >= 2) {
    // Short segments before the read-back, which then waits for them rather than they for it (H200, 2^20
    // segments of 16 keys: 32 us between the classification and their sort). They write nothing unless
    // the offsets are good and the values reach offsets[num].
    const cl_uint room = cl_uint(values ? value_room : kMaxPosition);
    // Few long segments (2^24 keys in segments of 16384: 1024) would leave cores idle at 64 a work-item.
    const std::size_t spread = std::size_t(s.facts.compute_units) * 8;
    const cl_uint each = cl_uint(std::clamp<std::size_t>(num / spread, 1, plan.seq_each));
    if (values)
      detail::set_args(sequential, keys, *values, svtmp, stmp, offsets, cl_uint(num), seq, each, kind, desc,
                       state, copy, room);
    else
      detail::set_args(sequential, keys, stmp, offsets, cl_uint(num), seq, each, kind, desc, state, copy,
                       room);
    run.launch(sequential, (num + each - 1) / each, plan.seq_local, "seg_sequential");
    if (plan.vec) {
      if (values)
        detail::set_args(vector, keys, *values, offsets, cl_uint(num), kind, desc, state, copy, room);
      else
        detail::set_args(vector, keys, offsets, cl_uint(num), kind, desc, state, copy, room);
      run.launch(vector, (num + plan.vec_lanes - 1) / plan.vec_lanes, 1, "seg_vector");
    }
  }
  const cl::Event classified = run.finish();
  s.last = classified;

  // One read for the state and the first large segments; more only where there are many. (H100: the
  // second read of 768 entries cost 13 us.)
  constexpr std::size_t kFirstRead = 2048;
  std::vector<std::uint32_t> words(2 * kStateWords + 2 * std::min<std::uint64_t>(cap, kFirstRead));
  const std::vector<cl::Event> after{classified};
  CLSORT_CHECK(s.queue.enqueueReadBuffer(state, CL_TRUE, 0, words.size() * 4, words.data(), &after));
  const std::uint32_t* st = words.data() + copy * kStateWords;
  if (st[0] != 0xFFFFFFFFu)
    detail::throw_argument_error("offsets", "segment " + std::to_string(st[0]) +
                                                ": its end offset is below its start or past the " +
                                                std::to_string(limit) + " keys");
  const std::uint32_t first = st[2], last = st[3];
  if (values && last > value_limit)
    detail::throw_argument_error("values",
                                 "holds " + std::to_string(value_limit) +
                                     " values, fewer than offsets[num_segments] = " + std::to_string(last));
  std::vector<Large> list(st[1]);
  const std::size_t have = std::min<std::size_t>(list.size(), kFirstRead);
  if (have) std::memcpy(list.data(), words.data() + 2 * kStateWords, have * 8);
  if (list.size() > have)
    CLSORT_CHECK(s.queue.enqueueReadBuffer(state, CL_TRUE, 2 * kStateWords * 4 + have * 8,
                                           (list.size() - have) * 8, list.data() + have));
  // The device lists the large segments in any order. Sorting them costs the host 20-25 us per 1024 (H100
  // host, 2^12 segments of 4096 keys: 0.1 ms a sort), so only the few that take chunks or a whole-device
  // sort are put in start order, for neighbouring segments' chunks to lie side by side.
  std::vector<Large> rest, radix_list;
  for (const Large& l : list) (l.len <= plan.radix && l.len <= plan.huge ? radix_list : rest).push_back(l);
  std::sort(rest.begin(), rest.end(), [](const Large& a, const Large& b) { return a.start < b.start; });

  // Chunks of the large segments up to `huge` keys (start, length, chunk offset, place in the scratch),
  // and those the radix kernel takes (start, length, place in the scratch, -) after them in the scratch.
  std::vector<std::uint32_t> chunks, radix;
  std::vector<Large> huge;
  std::uint32_t compact = 0, longest = 0;
  for (const Large& l : rest) {
    if (l.len > plan.huge) {
      huge.push_back(l);
      continue;
    }
    for (std::uint32_t at = 0; at < l.len; at += plan.span)
      chunks.insert(chunks.end(), {l.start, l.len, at, compact});
    compact += l.len;
    longest = std::max(longest, l.len);
  }
  const std::uint64_t nchunks = chunks.size() / 4;
  // Bins only where some segment is for them (ST_LOCAL): segments of 16 all go to seg_sequential on GPUs.
  const std::uint64_t nbins = st[4] ? (std::uint64_t(last - first) + plan.bin - 1) / plan.bin : 0;
  unsigned passes = 0;
  while ((std::uint64_t(plan.span) << passes) < longest) ++passes;
  // The passes alternate between the scratch and the keys and must end in the keys: for an odd count the
  // chunks' sorts write to the scratch.
  const cl_uint chunks_compact = passes & 1;
  // Longest first: work-groups start in order, and a long segment started last would end last alone.
  // Segments of one length need no sort.
  const auto [shortest, longest_radix] = std::minmax_element(
      radix_list.begin(), radix_list.end(), [](const Large& a, const Large& b) { return a.len < b.len; });
  if (!radix_list.empty() && shortest->len != longest_radix->len)
    std::sort(radix_list.begin(), radix_list.end(),
              [](const Large& a, const Large& b) { return a.len > b.len; });
  for (const Large& l : radix_list) {
    radix.insert(radix.end(), {l.start, l.len, compact, 0});
    compact += l.len;
  }
  const std::uint64_t nradix = radix_list.size();
  std::uint64_t ntiles = 0;  // the last entries: segments of one tile
  while (ntiles < nradix && radix_list[nradix - 1 - ntiles].len <= plan.radix_tile) ++ntiles;
  // Each huge segment's sort, a whole-device sort of its own; the radix CPU shape sorts the segment
  // where it lies (below).
  std::vector<detail::CallPlan> huge_plans(huge.size());
  std::uint32_t huge_len = 0;  // of those copied out and back
  for (std::size_t h = 0; h < huge.size(); ++h) {
    Options o;
    o.order = options.order;
    huge_plans[h] = detail::plan_call(s, {type, huge[h].len, values ? value_bytes : 0u, o});
    if (!huge_plans[h].cpu_shape()) huge_len = std::max(huge_len, huge[h].len);
  }

  // The other buffers the call needs, before the commands that use them (see above).
  cl::Buffer table = run.scratch(detail::kSegChunks, std::max<std::size_t>(chunks.size() * 4, 16));
  cl::Buffer bin_first = run.scratch(detail::kSegBins, std::size_t(nbins + 1) * 4);
  cl::Buffer ckeys, cvalues, hkeys, hvalues;
  cl::Buffer rtable = run.scratch(detail::kSegRadix, std::max<std::size_t>(radix.size() * 4, 16));
  if (compact) {
    ckeys = run.scratch(detail::kSegKeys, std::size_t(compact) * kb);
    if (values) cvalues = run.scratch(detail::kSegValues, std::size_t(compact) * value_bytes);
  }
  if (huge_len) {
    hkeys = run.scratch(detail::kSegHugeKeys, std::size_t(huge_len) * kb);
    if (values) hvalues = run.scratch(detail::kSegHugeValues, std::size_t(huge_len) * value_bytes);
  }
  detail::Run sorts(s, queue, type, run.descending, keys, values, value_bytes, 0, {classified});
  if (!chunks.empty()) {
    // The host copy lives in the Sorter until the next call, which first waits for this one's commands.
    kept.chunks.swap(chunks);
    sorts.write(table, kept.chunks.data(), kept.chunks.size() * 4, "seg_chunks");
  }
  if (nradix) {
    kept.radix.swap(radix);
    sorts.write(rtable, kept.radix.data(), kept.radix.size() * 4, "seg_radix_list");
    const std::size_t wg = plan.radix_plan.radix.wg;
    if (nradix > ntiles) {
      if (values)
        detail::set_args(radix_sort, keys, ckeys, *values, cvalues, rtable, kind, desc);
      else
        detail::set_args(radix_sort, keys, ckeys, rtable, kind, desc);
      sorts.launch(radix_sort, (nradix - ntiles) * wg, wg, "radix_segments");
    }
    if (ntiles) {
      const cl_uint first_entry = cl_uint(nradix - ntiles);
      if (values)
        detail::set_args(radix_tiles, keys, *values, rtable, first_entry, kind, desc);
      else
        detail::set_args(radix_tiles, keys, rtable, first_entry, kind, desc);
      sorts.launch(radix_tiles, ntiles * wg, wg, "radix_segment_tiles");
    }
  }
  if (nbins) {
    detail::set_args(bins, offsets, cl_uint(num), first, bin_first, cl_uint(nbins));
    sorts.launch(bins, std::size_t(nbins + 1), 64, "seg_bins");
  }
  if (nbins + nchunks) {
    const cl::Buffer& ck = passes ? ckeys : keys;  // a valid buffer for the argument where none is needed
    if (values)
      detail::set_args(local, keys, *values, offsets, cl_uint(num), first, table, bin_first, ck,
                       passes ? cvalues : *values, chunks_compact, cl_uint(nbins), seq, kind, desc);
    else
      detail::set_args(local, keys, offsets, cl_uint(num), first, table, bin_first, ck, chunks_compact,
                       cl_uint(nbins), seq, kind, desc);
    sorts.launch(local, std::size_t(nbins + nchunks) * plan.wg, plan.wg, "seg_local");
  }
  for (unsigned p = 0; p < passes; ++p) {
    const cl_uint width = cl_uint(plan.span) << p, from_compact = (p + chunks_compact) % 2,
                  to_compact = 1 - from_compact;
    const cl::Buffer& src = from_compact ? ckeys : keys;
    const cl::Buffer& dst = from_compact ? keys : ckeys;
    if (values) {
      const cl::Buffer& vsrc = from_compact ? cvalues : *values;
      const cl::Buffer& vdst = from_compact ? *values : cvalues;
      detail::set_args(merge, src, dst, vsrc, vdst, table, width, from_compact, to_compact, kind, desc);
    } else {
      detail::set_args(merge, src, dst, table, width, from_compact, to_compact, kind, desc);
    }
    sorts.launch(merge, std::size_t(nchunks) * plan.wg, plan.wg, "seg_merge");
  }
  s.last = sorts.finish();

  // A huge segment whose keys (and values) start at the device's sub-buffer alignment is sorted in place
  // through sub-buffers, and so is any huge segment on the radix CPU shape, whose kernels take the offset
  // (PoCL, 2^24 u32 pairs in power-law segments: the copies were 22 of 156 ms); others are copied out and
  // back.
  for (std::size_t h = 0; h < huge.size(); ++h) {
    const Large& l = huge[h];
    const detail::CallPlan& plan = huge_plans[h];
    const std::size_t at = std::size_t(l.start);
    if (plan.cpu_shape()) {
      detail::Run run = detail::Run::for_call(s, type, options, keys, values, value_bytes, l.len, {});
      run.offset = at;
      detail::execute(run, *plan.kernels);
      s.last = run.finish();
      continue;
    }
    const std::size_t align = s.facts.base_align;
    const cl::Buffer ksub = detail::sub_buffer_of(keys, at * kb, l.len * kb, align);
    const cl::Buffer vsub =
        values ? detail::sub_buffer_of(*values, at * value_bytes, l.len * std::size_t(value_bytes), align)
               : cl::Buffer();
    if (ksub() && (!values || vsub())) {
      s.last = detail::execute(s, plan, ksub, values ? &vsub : nullptr, {s.last});
      continue;
    }
    detail::Run in = detail::Run::for_call(s, type, options, keys, values, value_bytes, 0, {});
    in.copy(keys, hkeys, l.len * kb, "seg_copy", at * kb, 0);
    if (values) in.copy(*values, hvalues, l.len * std::size_t(value_bytes), "seg_copy", at * value_bytes, 0);
    s.last = detail::execute(s, plan, hkeys, values ? &hvalues : nullptr, {in.finish()});
    detail::Run out = detail::Run::for_call(s, type, options, keys, values, value_bytes, 0, {});
    out.copy(hkeys, keys, l.len * kb, "seg_copy", 0, at * kb);
    if (values) out.copy(hvalues, *values, l.len * std::size_t(value_bytes), "seg_copy", 0, at * value_bytes);
    s.last = out.finish();
  }
  // The scratch buffers made since the classification are not the state's.
  if (kept.reset.valid) kept.reset.made = s.scratch_made;
  return s.last;
}

}  // namespace detail
}  // namespace clsort

namespace clsort::detail {

CLSORT_PARAMS(segments_params, CLSORT_PARAM("segments.wg", segments.wg, 1, 4096, Check::pow2, ""),
              CLSORT_PARAM("segments.slots", segments.slots, 16, 32768, Check::pow2, ""),
              CLSORT_PARAM("segments.huge", segments.huge, 1024, 1u << 24, Check::range, ""),
              CLSORT_PARAM("segments.seq", segments.seq, 0, 65536, Check::range, "off"),
              CLSORT_PARAM("segments.seq_radix", segments.seq_radix, 0, 65536, Check::range, "off"),
              CLSORT_PARAM("segments.seq_wg", segments.seq_wg, 0, 256, Check::pow2_or_zero, "by device"),
              CLSORT_PARAM("segments.vec", segments.vec, 16, 1024, Check::pow2_or_zero, "off"),
              CLSORT_PARAM("segments.radix", segments.radix, 0, 1u << 24, Check::range, "off"),
              CLSORT_PARAM("segments.radix_regs", segments.radix_regs, 16, 255, Check::zero_or_range,
                           "the compiler's choice"))

namespace {

// Per slot a key code and three 16-bit words, values for half the slots, and the table of a bin's
// segments (kernels/segments_local.cl).
std::size_t segment_bytes(const SegmentsPolicy& g, const FitInput& f) {
  return std::size_t(g.slots) * (f.key_bytes + 6) + std::size_t(g.slots / 2) * f.value_bytes +
         std::size_t(g.slots / 8 + 1) * 6 + 256;
}

}  // namespace

void fit_segments(SegmentsPolicy& g, const FitInput& f) {
  if (g.seq_wg) f.clamp_wg(g.seq_wg);
  // CPU devices only: the vector lanes (one core's vector registers). A GPU would hold them in private
  // memory and reserve that for every resident work-item, gigabytes in all, where test processes running
  // side by side then failed to launch them (CL_OUT_OF_HOST_MEMORY).
  if (f.device.type != "cpu") g.vec = 0;
  f.clamp_wg(g.wg);
  while (segment_bytes(g, f) > f.budget && g.slots > 16) g.slots /= 2;
  g.huge = std::max(g.huge, g.slots / 2);
  // seq may exceed the bins' longest segment (slots / 4): seg_classify then lists only longer segments as
  // large, and seg_local's bins skip them, so each is sorted once, by seg_sequential.
}

}  // namespace clsort::detail
