// Segmented sort's public face (Sorter::sort_segments and friends): argument validation, the host data
// path, and the route of what the segment kernels do not carry (values of other widths than 4 and 8 bytes,
// a bit range), which moves through a permutation around the sort. The commands of one sort on validated
// buffers are segments.cpp's.
#include <algorithm>
#include <cstring>
#include <limits>
#include <optional>
#include <tuple>

#include "dispatch/execute.hpp"
#include "engine/buffer_checks.hpp"
#include "engine/run.hpp"
#include "host_data/staging.hpp"
#include "operations/segments/segments.hpp"

namespace clsort {
namespace {

constexpr std::uint64_t kMaxPosition = std::numeric_limits<std::uint32_t>::max();

// Options::begin_bit and end_bit, as radix sort takes them (Options::algorithm does not apply here): the bits
// [begin, end) a segment is ordered by, end 0 where they are the whole key (no range to apply), and
// whether the range is empty (every key stays where it is).
struct BitRange {
  unsigned begin = 0, end = 0;
  bool empty = false;
};
BitRange check_range(KeyType type, const Options& options) {
  detail::check_bit_range(type, options);
  const unsigned bits = unsigned(key_size(type)) * 8, end = options.end_bit ? options.end_bit : bits;
  BitRange r;
  r.empty = detail::empty_range(type, options);
  if (!r.empty && (options.begin_bit != 0 || end != bits)) r = {options.begin_bit, end, false};
  return r;
}

void check_offset_bytes(std::size_t offset_bytes) {
  if (offset_bytes != 4 && offset_bytes != 8)
    detail::throw_argument_error("offsets", "offsets are 4 or 8 bytes wide");
}

void check_num_segments(std::size_t num_segments) {
  if (num_segments >= kMaxPosition)
    detail::throw_argument_error("num_segments", std::to_string(num_segments) + " is not below 2^32 - 1");
}

// Whether two buffers share bytes (the engine's regions, over their whole sizes).
bool overlap(const cl::Buffer& x, const cl::Buffer& y) {
  std::size_t x_bytes = 0, y_bytes = 0;
  CLSORT_CHECK(x.getInfo(CL_MEM_SIZE, &x_bytes));
  CLSORT_CHECK(y.getInfo(CL_MEM_SIZE, &y_bytes));
  return x() == y() || detail::overlap(detail::region_of(x, x_bytes), detail::region_of(y, y_bytes));
}

// A buffer argument: not null, of the Sorter's context; returns its size in bytes.
std::size_t buffer_bytes(const Sorter::Impl& s, const cl::Buffer& b, const char* name) {
  if (!b()) detail::throw_argument_error(name, "null cl::Buffer");
  cl::Context context;
  CLSORT_CHECK(b.getInfo(CL_MEM_CONTEXT, &context));
  if (context() != s.context())
    detail::throw_argument_error(name, "buffer belongs to another OpenCL context");
  std::size_t bytes = 0;
  CLSORT_CHECK(b.getInfo(CL_MEM_SIZE, &bytes));
  return bytes;
}

// Whether the segment kernels carry values of this width beside their keys (none: 0).
bool carried(std::size_t value_bytes) {
  return value_bytes == 0 || value_bytes == 4 || value_bytes == 8;
}

// The unsigned key type of a key's width: the type of a bit range's codes.
KeyType unsigned_of(std::size_t key_bytes) {
  return key_bytes == 1   ? KeyType::u8
         : key_bytes == 2 ? KeyType::u16
         : key_bytes == 4 ? KeyType::u32
                          : KeyType::u64;
}

// What the segment kernels do not carry goes through a permutation: values of other widths than 4 and 8
// bytes (1, 2, 3, 12, 16, 64), and, for a bit range, the keys themselves, since the kernels compare whole
// codes: they then sort the range's bits (RangeCodes, in the keys' places of a scratch, already in the
// requested order) as keys of their own. The segments are sorted with 32-bit indices as their values, and
// each key and value then moves once through that permutation, as flat sorts move wide values
// (dispatch/values.cpp). Only the span [first, last) of the segments (offsets[0] and offsets[num]) is
// staged and gathered, so keys and values outside it are never touched.
cl::Event enqueue_segments_moved(Sorter::Impl& s, KeyType type, const cl::Buffer& keys,
                                 const cl::Buffer* values, unsigned value_bytes, const cl::Buffer& offsets,
                                 unsigned offset_bytes, std::size_t num, std::uint64_t limit,
                                 std::uint64_t first, std::uint64_t last, const Options& options,
                                 BitRange range, const std::vector<cl::Event>& wait) {
  detail::Run stage = detail::Run::for_call(s, type, options, keys, values, value_bytes, 0, wait);
  const bool codes = range.end != 0;
  const std::size_t kb = key_size(type), count = std::size_t(last - first);
  // Kernels and buffers first, so that build and allocation failures come before any command.
  std::optional<detail::ValueMover> value_mover, key_mover;
  std::optional<detail::RangeCodes> range_codes;
  if (values) value_mover.emplace(stage, value_bytes);
  if (codes) {
    key_mover.emplace(stage, kb);
    range_codes.emplace(stage);
  }
  // The indices at the keys' positions (the kernels pair keys[i] with values[i]); what moves saved from 0.
  cl::Buffer index = stage.scratch(detail::kSegPermIndex, std::size_t(last) * 4);
  cl::Buffer saved_values, saved_keys, sort_keys = keys;
  if (values)
    saved_values = stage.scratch(detail::kSegPermValues, std::max<std::size_t>(count, 1) * value_bytes);
  if (codes) {
    saved_keys = stage.scratch(detail::kSegRangeKeys, std::max<std::size_t>(count, 1) * kb);
    sort_keys = stage.scratch(detail::kSegRangeCodes, std::size_t(last) * kb);
  }
  if (count) {
    if (codes) {
      range_codes->write(stage, keys, sort_keys, count, std::size_t(first), range.begin, range.end);
      key_mover->stage(stage, index, keys, saved_keys, count, std::size_t(first));
    }
    if (values) value_mover->stage(stage, index, *values, saved_values, count, std::size_t(first));
  }
  s.last = stage.finish();
  // The codes are in the requested order already: they sort ascending.
  Options inner = options;
  if (codes) inner.order = Order::ascending;
  inner.begin_bit = inner.end_bit = 0;
  detail::enqueue_segments(s, codes ? unsigned_of(kb) : type, sort_keys, &index, 4, last, offsets,
                           offset_bytes, num, limit, inner, {s.last});
  detail::Run move = detail::Run::for_call(s, type, options, keys, values, value_bytes, 0, {s.last});
  if (count) {
    if (codes) key_mover->gather(move, saved_keys, index, keys, count, std::size_t(first));
    if (values) value_mover->gather(move, saved_values, index, *values, count, std::size_t(first));
  }
  return s.last = move.finish();
}

// offsets[0] and offsets[num] of device offsets, read once `wait` completed.
std::pair<std::uint64_t, std::uint64_t> span_of(Sorter::Impl& s, const cl::Buffer& offsets,
                                                unsigned offset_bytes, std::size_t num,
                                                const std::vector<cl::Event>& wait) {
  std::vector<cl::Event> deps = wait;
  if (s.last()) deps.push_back(s.last);
  auto read = [&](std::size_t i) -> std::uint64_t {
    std::uint32_t o32 = 0;
    std::uint64_t o64 = 0;
    void* to = offset_bytes == 4 ? static_cast<void*>(&o32) : static_cast<void*>(&o64);
    CLSORT_CHECK(s.queue.enqueueReadBuffer(offsets, CL_TRUE, i * offset_bytes, offset_bytes, to, &deps));
    return offset_bytes == 4 ? o32 : o64;
  };
  return {read(0), read(num)};
}

}  // namespace

cl::Event Sorter::sort_segments_buffer(KeyType type, const cl::Buffer& keys, const cl::Buffer* values,
                                       std::size_t value_bytes, const cl::Buffer& offsets,
                                       std::size_t offset_bytes, std::size_t num_segments,
                                       const Options& options, const std::vector<cl::Event>& wait) {
  Impl& s = *impl_;
  const BitRange range = check_range(type, options);
  check_offset_bytes(offset_bytes);
  const std::size_t kb = detail::key_type_row(type).bytes;
  const std::uint64_t limit = std::min<std::uint64_t>(buffer_bytes(s, keys, "keys") / kb, kMaxPosition);
  std::uint64_t value_limit = 0;
  if (values) {
    if (value_bytes == 0) detail::throw_argument_error("value_bytes", "values must be at least 1 byte wide");
    value_limit = buffer_bytes(s, *values, "values") / value_bytes;
    if (overlap(keys, *values))
      detail::throw_argument_error("values", "keys and values must not be the same or overlapping buffers");
  } else {
    value_bytes = 0;
  }
  check_num_segments(num_segments);
  if (num_segments > 0) {
    const std::size_t have = buffer_bytes(s, offsets, "offsets") / offset_bytes;
    if (have < num_segments + 1)
      detail::throw_argument_error(
          "offsets", "holds " + std::to_string(have) +
                         " offsets, fewer than num_segments + 1 = " + std::to_string(num_segments + 1));
    if (overlap(offsets, keys)) detail::throw_argument_error("offsets", "must not overlap keys");
    if (values && overlap(offsets, *values))
      detail::throw_argument_error("offsets", "must not overlap values");
  }
  const auto call_scope = s.begin_call();
  // An empty range orders nothing: every key stays where it is, and the offsets are not even read.
  if (range.empty) return detail::enqueue_nothing(s, wait);
  if ((range.end || (values && !carried(value_bytes))) && num_segments > 0) {
    // The span of the segments sizes what is staged: checked here, the rest by the kernels as usual.
    const auto [first, last] = span_of(s, offsets, unsigned(offset_bytes), num_segments, wait);
    if (last > limit || first > last)
      detail::throw_argument_error("offsets",
                                   "offsets[0] = " + std::to_string(first) + " and offsets[" +
                                       std::to_string(num_segments) + "] = " + std::to_string(last) +
                                       " do not bound a span of the " + std::to_string(limit) + " keys");
    if (values && last > value_limit)
      detail::throw_argument_error("values",
                                   "holds " + std::to_string(value_limit) +
                                       " values, fewer than offsets[num_segments] = " + std::to_string(last));
    return enqueue_segments_moved(s, type, keys, values, unsigned(value_bytes), offsets,
                                  unsigned(offset_bytes), num_segments, limit, first, last, options, range,
                                  wait);
  }
  return detail::enqueue_segments(s, type, keys, values, unsigned(value_bytes), value_limit, offsets,
                                  unsigned(offset_bytes), num_segments, limit, options, wait);
}

void Sorter::sort_segments_host(KeyType type, void* keys, std::size_t n, void* values,
                                std::size_t value_bytes, const void* offsets, std::size_t offset_bytes,
                                std::size_t num_segments, const Options& options) {
  const BitRange range = check_range(type, options);
  check_offset_bytes(offset_bytes);
  if (values == nullptr) value_bytes = 0;
  if (values && value_bytes == 0)
    detail::throw_argument_error("value_bytes", "values must be at least 1 byte wide");
  check_num_segments(num_segments);
  if (num_segments == 0) return;
  if (!offsets) detail::throw_argument_error("offsets", "null pointer");
  // Every offset checked here: the device then sees only good ones.
  auto offset = [&](std::size_t i) -> std::uint64_t {
    if (offset_bytes == 4) return static_cast<const std::uint32_t*>(offsets)[i];
    return static_cast<const std::uint64_t*>(offsets)[i];
  };
  const std::uint64_t limit = std::min<std::uint64_t>(n, kMaxPosition);
  std::uint64_t previous = 0;
  for (std::size_t i = 0; i <= num_segments; ++i) {
    const std::uint64_t o = offset(i);
    if (o > limit)
      detail::throw_argument_error("offsets", "offsets[" + std::to_string(i) + "] = " + std::to_string(o) +
                                                  " is past the " + std::to_string(limit) + " keys");
    if (i > 0 && o < previous)
      detail::throw_argument_error("offsets", "offsets[" + std::to_string(i) + "] = " + std::to_string(o) +
                                                  " is below offsets[" + std::to_string(i - 1) +
                                                  "] = " + std::to_string(previous));
    previous = o;
  }
  const std::size_t first = offset(0), last = offset(num_segments);
  if (last - first < 2 || range.empty) return;
  if (!keys) detail::throw_argument_error("keys", "null pointer");
  Impl& s = *impl_;
  const std::size_t kb = key_size(type), vb = value_bytes;
  const detail::Queue queue{s.queue, s.profiling, s.in_order};
  const auto call_scope = s.begin_call();
  detail::Run staging(s, queue, type, false, {}, nullptr, 0, 0, {});
  cl::Buffer kbuf = staging.scratch(detail::kHostKeys, last * kb);
  cl::Buffer vbuf;
  if (values) vbuf = staging.scratch(detail::kHostValues, last * vb);
  cl::Buffer obuf = staging.scratch(detail::kSegOffsets, (num_segments + 1) * offset_bytes);
  // Blocking transfers: the caller's memory is written only once everything succeeded.
  std::vector<cl::Event> before;
  if (s.last()) before.push_back(s.last);
  auto* kbytes = static_cast<unsigned char*>(keys);
  auto* vbytes = static_cast<unsigned char*>(values);
  const std::size_t count = last - first;
  CLSORT_CHECK(
      s.queue.enqueueWriteBuffer(obuf, CL_TRUE, 0, (num_segments + 1) * offset_bytes, offsets, &before));
  auto sort = [&](const std::vector<cl::Event>& uploads) {
    if (range.end || (values && !carried(vb)))
      return enqueue_segments_moved(s, type, kbuf, values ? &vbuf : nullptr, unsigned(vb), obuf,
                                    unsigned(offset_bytes), num_segments, last, first, last, options, range,
                                    uploads);
    return detail::enqueue_segments(s, type, kbuf, values ? &vbuf : nullptr, unsigned(vb), last, obuf,
                                    unsigned(offset_bytes), num_segments, last, options, uploads);
  };
  // GPUs: through the pinned staging in chunks, as Sorter::sort_host does (the same host policy).
  std::vector<detail::HostArray> arrays{{kbytes + first * kb, kbuf, count * kb, nullptr, first * kb}};
  if (values) arrays.push_back({vbytes + first * vb, vbuf, count * vb, nullptr, first * vb});
  if (detail::stage_host_arrays(s, type, arrays, vb, sort)) return;
  CLSORT_CHECK(
      s.queue.enqueueWriteBuffer(kbuf, CL_TRUE, first * kb, count * kb, kbytes + first * kb, &before));
  if (values)
    CLSORT_CHECK(
        s.queue.enqueueWriteBuffer(vbuf, CL_TRUE, first * vb, count * vb, vbytes + first * vb, &before));
  const cl::Event done = sort({});
  if (s.facts.type == "cpu") {
    // A CPU device's buffers are host memory: the result is copied from them, mapped, into the caller's
    // arrays once both maps succeeded. Reading it into fresh host vectors first cost their page faults and
    // zeroing beside a second copy (PoCL, 2^24 u32 pairs in segments of 16384: 194-217 ms a call that
    // way, 99-130 mapped, 71 for the same sort of device buffers).
    CLSORT_CHECK(done.wait());
    cl_int status = CL_SUCCESS;
    cl::Event unmapped;
    void* mk = s.queue.enqueueMapBuffer(kbuf, CL_TRUE, CL_MAP_READ, first * kb, count * kb, nullptr, nullptr,
                                        &status);
    if (status != CL_SUCCESS) detail::throw_cl_error(status, "clEnqueueMapBuffer");
    void* mv = nullptr;
    if (values) {
      mv = s.queue.enqueueMapBuffer(vbuf, CL_TRUE, CL_MAP_READ, first * vb, count * vb, nullptr, nullptr,
                                    &status);
      if (status != CL_SUCCESS) {
        cl::Event unmap;  // errors here only drain: the map's status is the one thrown
        if (s.queue.enqueueUnmapMemObject(kbuf, mk, nullptr, &unmap) == CL_SUCCESS) unmap.wait();
        detail::throw_cl_error(status, "clEnqueueMapBuffer");
      }
    }
    std::memcpy(kbytes + first * kb, mk, count * kb);
    if (values) std::memcpy(vbytes + first * vb, mv, count * vb);
    CLSORT_CHECK(s.queue.enqueueUnmapMemObject(kbuf, mk, nullptr, &unmapped));
    CLSORT_CHECK(unmapped.wait());
    if (values) {
      CLSORT_CHECK(s.queue.enqueueUnmapMemObject(vbuf, mv, nullptr, &unmapped));
      CLSORT_CHECK(unmapped.wait());
    }
    s.last = unmapped;
    return;
  }
  std::vector<unsigned char> got_keys(count * kb), got_values(values ? count * vb : 0);
  const std::vector<cl::Event> after{done};
  cl::Event read;
  CLSORT_CHECK(
      s.queue.enqueueReadBuffer(kbuf, CL_TRUE, first * kb, count * kb, got_keys.data(), &after, &read));
  if (values)
    CLSORT_CHECK(
        s.queue.enqueueReadBuffer(vbuf, CL_TRUE, first * vb, count * vb, got_values.data(), &after, &read));
  s.last = read;
  std::memcpy(kbytes + first * kb, got_keys.data(), count * kb);
  if (values) std::memcpy(vbytes + first * vb, got_values.data(), count * vb);
}

}  // namespace clsort
