// Values of any width, and argsort of device keys. The sort passes carry values of 4 and 8 bytes. Narrower
// ones (1, 2, 3, 5, 6, 7 bytes) ride them widened to 4 or 8 bytes: two coalesced copies, where a gather
// of so few bytes would read a whole memory sector for each. Wider ones (a 12-byte struct, 16, 64) are
// sorted as CUB and rocPRIM sort wide pairs: the keys with their 32-bit input indices, then each value
// moves once, through the permutation (kernels/permute.cl), instead of riding every pass.
#include <algorithm>

#include "dispatch/execute.hpp"
#include "engine/run.hpp"

namespace clsort::detail {

namespace {

// The indices sorted with the keys and the values saved for the gather (or their widened copies); argsort
// of device keys: the copy of the keys it sorts.
enum ValuesScratch : unsigned { kScratchPermIndex, kScratchPermValues, kScratchArgsortKeys };
constexpr const char* scratch_owner(ValuesScratch) {
  return "values";
}

// The widest unit of 16, 8, 4, 2 or 1 bytes that divides the value width: what one work-item moves.
unsigned unit_of(std::size_t value_bytes) {
  for (unsigned u : {16u, 8u, 4u, 2u})
    if (value_bytes % u == 0) return u;
  return 1;
}

// CPU devices loop over contiguous runs and gather value by value (kernels/permute.cl, PERM_CPU).
bool cpu_loops(const Sorter::Impl& s) {
  return s.facts.type == "cpu";
}

ProgramSpec permute_program(const Sorter::Impl& s, std::size_t value_bytes, std::size_t index_bytes = 4) {
  ProgramSpec p;
  p.files = {"permute.cl"};
  const unsigned unit = unit_of(value_bytes ? value_bytes : 4);
  p.defines.set("PERM_UNIT", unit).set("PERM_UNITS", value_bytes ? value_bytes / unit : 1);
  p.defines.set("PERM_CPU", cpu_loops(s) ? 1 : 0);
  if (index_bytes == 8) p.defines.set("PERM_INDEX64", 1);
  return p;
}

// Work-items of a launch that loops over `items`: enough to fill the device, no more (the kernels loop).
std::size_t launch_size(const Sorter::Impl& s, std::size_t items) {
  const std::size_t fill = std::size_t(s.facts.compute_units) * 2048;
  return std::max<std::size_t>(1, std::min(items, fill));
}

// The next Run waits for the last: implicit on in-order queues (no marker needed), an event otherwise.
std::vector<cl::Event> after(Run& run) {
  if (run.q.in_order) return {};
  return {run.finish()};
}

// The commands before the keys' sort (after the caller's `wait`) or after it (after s.last, the sort's).
Run value_run(Sorter::Impl& s, const CallPlan& plan, const cl::Buffer& keys, const cl::Buffer& values,
              std::vector<cl::Event> wait) {
  return Run::for_call(s, plan.type, plan.options, keys, &values, unsigned(plan.value_bytes), plan.n,
                       std::move(wait));
}

}  // namespace

cl::Event enqueue_sort_widened(Sorter::Impl& s, const CallPlan& plan, const cl::Buffer& keys,
                               const cl::Buffer& values, const std::vector<cl::Event>& wait) {
  const std::size_t n = plan.n, value_bytes = plan.value_bytes;
  Run stage = value_run(s, plan, keys, values, wait);
  if (n <= 1) return s.last = stage.finish();
  const std::size_t wide_bytes = plan.pass_value_bytes;
  ProgramSpec program = permute_program(s, 4);
  program.defines.set("PERM_WIDE", wide_bytes).set("PERM_BYTES", value_bytes);
  cl::Kernel widen = stage.kernel(program, "permute_widen");
  cl::Kernel narrow = stage.kernel(program, "permute_narrow");
  cl::Buffer wide = stage.scratch(kScratchPermValues, n * wide_bytes);
  set_args(widen, values, wide, cl_ulong(n));
  stage.launch(widen, launch_size(s, n), 256, "permute_widen");
  execute(s, plan.in_passes(), keys, &wide, after(stage));
  Run back = value_run(s, plan, keys, values, {});
  set_args(narrow, wide, values, cl_ulong(n));
  back.launch(narrow, launch_size(s, n), 256, "permute_narrow");
  s.last = back.finish();
  return s.last;
}

ValueMover::ValueMover(Run& run, std::size_t value_bytes, std::size_t index_bytes)
    : value_bytes_(value_bytes), unit_(unit_of(value_bytes)), cpu_(cpu_loops(run.s)) {
  const ProgramSpec program = permute_program(run.s, value_bytes, index_bytes);
  stage_ = run.kernel(program, "permute_stage");
  gather_ = run.kernel(program, "permute_gather");
}

void ValueMover::stage(Run& run, const cl::Buffer& index, const cl::Buffer& values, const cl::Buffer& saved,
                       std::size_t n, std::size_t at) {
  set_args(stage_, index, values, saved, cl_ulong(n), cl_ulong(at));
  run.launch(stage_, launch_size(run.s, std::max(n, n * (value_bytes_ / unit_))), 256, "permute_stage");
}

void ValueMover::gather(Run& run, const cl::Buffer& saved, const cl::Buffer& index, const cl::Buffer& values,
                        std::size_t n, std::size_t at) {
  set_args(gather_, saved, index, values, cl_ulong(n), cl_ulong(at));
  run.launch(gather_, launch_size(run.s, cpu_ ? n : n * (value_bytes_ / unit_)), 256, "permute_gather");
}

RangeCodes::RangeCodes(Run& run) {
  ProgramSpec program = permute_program(run.s, 4);
  program.defines.set("KEY_BITS", run.key_bytes * 8).set("PERM_CODES", 1);
  codes_ = run.kernel(program, "permute_codes");
}

void RangeCodes::write(Run& run, const cl::Buffer& keys, const cl::Buffer& codes, std::size_t n,
                       std::size_t at, unsigned begin, unsigned end) {
  const cl_uint kind = run.kind, descending = run.descending;
  set_args(codes_, keys, codes, cl_ulong(n), cl_ulong(at), kind, descending, cl_uint(begin), cl_uint(end));
  run.launch(codes_, launch_size(run.s, n), 256, "permute_codes");
}

cl::Event enqueue_sort_by_index(Sorter::Impl& s, const CallPlan& plan, const cl::Buffer& keys,
                                const cl::Buffer& values, const std::vector<cl::Event>& wait) {
  const std::size_t n = plan.n, value_bytes = plan.value_bytes;
  Run stage = value_run(s, plan, keys, values, wait);
  if (n <= 1) return s.last = stage.finish();
  // Every kernel and buffer first: a failure then leaves the caller's data as it was. The indices are
  // 64-bit where one sort of the passes cannot take all n keys (plan_call).
  const std::size_t index_bytes = plan.pass_value_bytes;
  ValueMover mover(stage, value_bytes, index_bytes);
  cl::Buffer index = stage.scratch(kScratchPermIndex, n * index_bytes);
  cl::Buffer saved = stage.scratch(kScratchPermValues, n * value_bytes);
  mover.stage(stage, index, values, saved, n);
  execute(s, plan.in_passes(), keys, &index, after(stage));
  Run move = value_run(s, plan, keys, values, {});
  mover.gather(move, saved, index, values, n);
  s.last = move.finish();
  return s.last;
}

cl::Event execute_argsort(Sorter::Impl& s, const CallPlan& plan, const cl::Buffer& keys,
                          const cl::Buffer& indices, const std::vector<cl::Event>& wait) {
  const std::size_t n = plan.n;
  Run first = Run::for_call(s, plan.type, plan.options, keys, nullptr, 0, n, wait);
  if (n == 0) return s.last = first.finish();
  // The caller's keys stay as they are: a copy is sorted, the indices riding the passes as its values.
  cl::Kernel iota =
      first.kernel(permute_program(s, 4), plan.value_bytes == 8 ? "permute_iota64" : "permute_iota32");
  const std::size_t kb = key_size(plan.type);
  // An empty bit range orders nothing: the indices alone, in input order.
  cl::Buffer copy;
  if (!plan.orders_nothing) copy = first.scratch(kScratchArgsortKeys, n * kb);
  set_args(iota, indices, cl_ulong(n));
  first.launch(iota, launch_size(s, n), 256, "argsort_iota");
  if (plan.orders_nothing) return s.last = first.finish();
  first.copy(keys, copy, n * kb, "copy keys");
  return execute(s, plan, copy, &indices, after(first));
}

}  // namespace clsort::detail
