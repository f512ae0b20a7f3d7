// Lexicographic (multi-column) sort: least significant column first, one stable sort by key per column.
// The permutation starts as the identity; each pass gathers its column through the permutation so far
// (kernels/lexsort.cl) and sorts (gathered keys, permutation) by the library's own stable sort_by_key, so
// rows equal in this column keep the order the less significant columns gave them. Every column is read,
// never written: the sort runs on the gathered copy, in which every NaN is one NaN (lexsort.cl).
#include <cstring>
#include <limits>

#include "dispatch/execute.hpp"
#include "engine/buffer_checks.hpp"
#include "engine/run.hpp"
#include "engine/sorter_impl.hpp"
#include "host_data/staging.hpp"

namespace clsort {
namespace {

// The column being sorted by, gathered through the permutation so far; of device data, the permutation,
// copied to the caller's buffer at the end.
enum LexsortScratch : unsigned { kLexKeys, kLexIndices };
constexpr const char* scratch_owner(LexsortScratch) {
  return "lexsort";
}

constexpr std::size_t kMaxRows = std::numeric_limits<std::uint32_t>::max();  // indices are 32-bit

std::string column_name(std::size_t i) {
  return "columns[" + std::to_string(i) + "]";
}

void check_type(KeyType type, std::size_t i) {
  detail::key_type_row(type, column_name(i) + ".type");
}

void check_rows(std::size_t n) {
  if (n > kMaxRows) detail::throw_argument_error("n", "lexsort returns 32-bit indices: n must be < 2^32");
}

detail::ProgramSpec lex_program(KeyType type) {
  detail::ProgramSpec p;
  p.files = {"lexsort.cl"};
  p.defines.set("KEY_BITS", key_size(type) * 8).set("VALUE_BYTES", 0);
  return p;
}

// Each column's commands: after `wait` and the Sorter's previous commands.
detail::Run make_run(Sorter::Impl& s, KeyType type, std::size_t n, std::vector<cl::Event> wait) {
  return detail::Run::for_call(s, type, Options{}, {}, nullptr, 0, n, std::move(wait));
}

// One column of a lexsort as the passes see it: its type, its order, and where its keys are on the device.
// `upload` (host data) puts them into `data` first.
struct Pass {
  KeyType type;
  Order order;
  cl::Buffer data;
  const void* upload = nullptr;
};

// Writes a pass's host column into its device buffer after s.last (the previous pass's sort, which
// follows its gather of the same buffer) and leaves in s.last the event after which it is there. It
// returns only once the caller's memory is no longer read: through the pinned staging in chunks where the
// host policy has it (GPUs), as Sorter::sort_host does, else in one blocking write.
void upload_column(Sorter::Impl& s, const Pass& p, std::size_t n) {
  const std::size_t bytes = n * key_size(p.type);
  const auto* column = static_cast<const unsigned char*>(p.upload);
  auto uploaded = [&](const std::vector<cl::Event>& uploads) {
    cl::Event ev;
    CLSORT_CHECK(s.queue.enqueueMarkerWithWaitList(&uploads, &ev));
    return ev;
  };
  if (detail::stage_host_arrays(s, p.type, {{const_cast<unsigned char*>(column), p.data, bytes, column}}, 0,
                                uploaded, detail::Staged::upload))
    return;
  const std::vector<cl::Event> before{s.last};
  cl::Event up;
  CLSORT_CHECK(s.queue.enqueueWriteBuffer(p.data, CL_TRUE, 0, bytes, p.upload, &before, &up));
  if (s.profiling) s.profile.emplace_back("upload", up);
  s.last = up;
}

// The commands of a lexsort of n rows on validated arguments, into `out` (n indices), after `wait`. The
// permutation is built in scratch and copied to `out` by the last command, so that an error on the way
// (a sort's program that fails to build, scratch that cannot be allocated) leaves `out` unchanged; `out`
// that is clsort's own scratch (host data) is written directly.
cl::Event enqueue_lexsort(Sorter::Impl& s, const std::vector<Pass>& passes, std::size_t n,
                          const cl::Buffer& out, bool out_is_scratch, const std::vector<cl::Event>& wait) {
  std::size_t widest = 1;
  for (const Pass& p : passes) widest = std::max(widest, key_size(p.type));
  // Kernels, scratch and every sort's plan first: build, allocation and limit errors before any command.
  detail::Run first = make_run(s, KeyType::u32, n, wait);
  cl::Kernel iota = first.kernel(lex_program(KeyType::u32), "lex_iota");
  cl::Buffer gathered = first.scratch(kLexKeys, n * widest);
  const cl::Buffer perm = out_is_scratch ? out : first.scratch(kLexIndices, n * 4);
  std::vector<cl::Kernel> gathers;
  std::vector<detail::CallPlan> sorts(passes.size());
  for (std::size_t i = 0; i < passes.size(); ++i) {
    gathers.push_back(first.kernel(lex_program(passes[i].type), "lex_gather"));
    Options o;
    o.order = passes[i].order;
    sorts[i] = detail::plan_call(s, {passes[i].type, n, 4, o});
  }
  if (n == 0) return s.last = first.finish();  // an empty NDRange is an error before OpenCL 2.1
  const cl_uint rows = cl_uint(n);
  detail::set_args(iota, perm, rows);
  first.launch(iota, n, 64, "lex_iota");
  s.last = first.finish();
  for (std::size_t i = passes.size(); i-- > 0;) {
    const Pass& p = passes[i];
    if (p.upload) upload_column(s, p, n);
    detail::Run run = make_run(s, p.type, n, {});
    detail::set_args(gathers[i], p.data, perm, gathered, rows, cl_uint(run.kind));
    run.launch(gathers[i], n, 64, "lex_gather");
    s.last = detail::execute(s, sorts[i], gathered, &perm, {run.finish()});
  }
  if (!out_is_scratch) {
    detail::Run last = make_run(s, KeyType::u32, n, {});
    last.copy(perm, out, n * 4, "lex_copy");
    s.last = last.finish();
  }
  return s.last;
}

}  // namespace

cl::Event Sorter::lexsort(const std::vector<BufferColumn>& columns, std::size_t n,
                          const cl::Buffer& indices_out, const std::vector<cl::Event>& wait) {
  Impl& s = *impl_;
  if (columns.empty()) detail::throw_argument_error("columns", "lexsort needs at least one column");
  check_rows(n);
  std::vector<Pass> passes;
  for (std::size_t i = 0; i < columns.size(); ++i) {
    const BufferColumn& c = columns[i];
    check_type(c.type, i);
    detail::check_buffer(s, c.data, column_name(i) + ".data", n, key_size(c.type), "n");
    passes.push_back({c.type, c.order, c.data, nullptr});
  }
  detail::check_buffer(s, indices_out, "indices_out", n, 4, "n");
  const detail::Region out = detail::region_of(indices_out, n * 4);
  for (std::size_t i = 0; i < columns.size(); ++i)
    if (columns[i].data() == indices_out() ||
        detail::overlap(out, detail::region_of(columns[i].data, n * key_size(columns[i].type))))
      detail::throw_argument_error("indices_out", "must not overlap " + column_name(i));
  const auto call_scope = s.begin_call();
  return enqueue_lexsort(s, passes, n, indices_out, false, wait);
}

void Sorter::lexsort_host(const Column* columns, std::size_t count, std::uint32_t* indices) {
  if (!columns || count == 0) detail::throw_argument_error("columns", "lexsort needs at least one column");
  const std::size_t n = columns[0].n;
  for (std::size_t i = 0; i < count; ++i) {
    check_type(columns[i].type, i);
    if (columns[i].n != n)
      detail::throw_argument_error(column_name(i), "has " + std::to_string(columns[i].n) +
                                                       " rows but columns[0] has " + std::to_string(n));
    if (!columns[i].data && n) detail::throw_argument_error(column_name(i) + ".data", "null pointer");
  }
  check_rows(n);
  if (n == 0) return;
  if (!indices) detail::throw_argument_error("indices", "null pointer");
  Impl& s = *impl_;
  std::size_t widest = 1;
  for (std::size_t i = 0; i < count; ++i) widest = std::max(widest, key_size(columns[i].type));
  const auto call_scope = s.begin_call();
  detail::Run staging = make_run(s, KeyType::u32, 0, {});
  cl::Buffer column = staging.scratch(detail::kHostKeys, n * widest);
  cl::Buffer perm = staging.scratch(detail::kHostIndices, n * 4);
  std::vector<Pass> passes;
  // Each column goes into the scratch, also on CPU devices: the gathers read it at random, and from the
  // caller's own memory (CL_MEM_USE_HOST_PTR) they were slower on PoCL (2^22 rows of (u32, f32): 132-142
  // ms against 110-112).
  for (std::size_t i = 0; i < count; ++i)
    passes.push_back({columns[i].type, columns[i].order, column, columns[i].data});
  const cl::Event done = enqueue_lexsort(s, passes, n, perm, true, {});
  // GPUs: the indices come back through the pinned staging in chunks, as Sorter::sort_host's arrays do
  // (after the lexsort, whose column uploads use the same staging).
  auto lexsorted = [&](const std::vector<cl::Event>&) { return done; };
  if (detail::stage_host_arrays(s, KeyType::u32, {{reinterpret_cast<unsigned char*>(indices), perm, n * 4}},
                                0, lexsorted, detail::Staged::download))
    return;
  std::vector<std::uint32_t> result(n);  // the caller's indices are written only once all succeeded
  const std::vector<cl::Event> after{done};
  cl::Event read;
  CLSORT_CHECK(s.queue.enqueueReadBuffer(perm, CL_TRUE, 0, n * 4, result.data(), &after, &read));
  if (s.profiling) s.profile.emplace_back("download", read);
  s.last = read;
  std::memcpy(indices, result.data(), n * 4);
}

std::vector<std::uint32_t> lexsort(const std::vector<Column>& columns) {
  struct A {
    const std::vector<Column>* c;
    std::vector<std::uint32_t> r;
  } a{&columns, {}};
  detail::with_default_sorter(
      [](Sorter& s, void* p) {
        auto* x = static_cast<A*>(p);
        x->r = s.lexsort(*x->c);
      },
      &a);
  return std::move(a.r);
}

}  // namespace clsort
