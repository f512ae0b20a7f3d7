// sort_custom: an application's element type sorted by its comparison written in OpenCL C. The host wraps
// the two pieces of source into `clsort_t` and `clsort_user_less` ahead of kernels/custom.cl, builds the
// program through the program cache (the source is part of its key), checks the device's sizeof of the
// type against the application's, and runs the stable merge sort or the index-tie-broken bitonic network.
#include <cctype>
#include <limits>

#include "device/tuning.hpp"
#include "engine/buffer_checks.hpp"
#include "engine/run.hpp"
#include "engine/sorter_impl.hpp"
#include "host_data/staging.hpp"
#include "operations/custom/custom_policy.hpp"

namespace clsort {
namespace {

// The bitonic network's scratch: each element's input index, its tie-break.
enum CustomScratch : unsigned { kCustomIndices };
constexpr const char* scratch_owner(CustomScratch) {
  return "custom";
}

constexpr std::size_t kMaxElementBytes = 256;
constexpr std::size_t kMaxCustom = std::size_t(1) << 31;  // run pairs and the bitonic size fit in 32 bits

std::string trim(const std::string& s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

bool ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// The trailing identifier of s (after trimming), or empty.
std::string last_identifier(const std::string& s, std::string* rest = nullptr) {
  const std::string t = trim(s);
  std::size_t b = t.size();
  while (b > 0 && ident_char(t[b - 1])) --b;
  if (rest) *rest = t.substr(0, b);
  return t.substr(b);
}

// The name of the type that `type_source` declares: the name declared last before its final ';'
// ("typedef struct {...} Particle;" -> Particle, "struct P {...};" -> struct P), or the source itself where
// it declares nothing (a type name such as float2).
std::string type_name(const std::string& type_source) {
  const std::string t = trim(type_source);
  if (t.empty()) detail::throw_argument_error("type_source", "is empty");
  const std::size_t semi = t.rfind(';');
  if (semi == std::string::npos) return t;
  const std::string decl = trim(t.substr(0, semi));
  if (!decl.empty() && decl.back() == '}') {
    int depth = 0;
    std::size_t i = decl.size();
    while (i-- > 0) {
      if (decl[i] == '}') ++depth;
      if (decl[i] == '{' && --depth == 0) break;
    }
    std::string rest;
    const std::string tag = last_identifier(decl.substr(0, i == std::string::npos ? 0 : i), &rest);
    const std::string keyword = last_identifier(rest);
    if (i != std::string::npos && !tag.empty() && (keyword == "struct" || keyword == "union"))
      return keyword + " " + tag;
  } else if (const std::string name = last_identifier(decl); !name.empty() && !std::isdigit(name[0])) {
    return name;
  }
  detail::throw_argument_error("type_source",
                               "declares no type name clsort can find: end it with `typedef ... Name;` or "
                               "`struct Name { ... };`");
}

bool has_word(const std::string& text, const std::string& word) {
  for (std::size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) {
    const bool before = at == 0 || !ident_char(text[at - 1]);
    const bool after = at + word.size() == text.size() || !ident_char(text[at + word.size()]);
    if (before && after) return true;
  }
  return false;
}

// The application's code as the program sees it. #line directives make the build log name its pieces.
// A source that declares more than the type (helper functions after it) names the type itself as
// clsort_t.
std::string wrap(const std::string& type_source, const std::string& less) {
  const bool named = has_word(type_source, "clsort_t");
  const std::string name = named ? std::string() : type_name(type_source);
  std::string s;
  if (type_source.find(';') != std::string::npos) s += "#line 1 \"type_source\"\n" + type_source + "\n";
  if (!named) s += "typedef " + name + " clsort_t;\n";
  s += "INLINE bool clsort_user_less(const clsort_t a, const clsort_t b) {\n#line 1 \"less\"\n";
  s += has_word(less, "return") ? less : "return (" + less + ");";
  s += "\n}\n#line 1 \"custom.cl\"\n";
  return s;
}

// The shape of one sort_custom call, decided before anything is enqueued.
struct CustomPlan {
  detail::ProgramSpec program;
  bool bitonic = false;
  unsigned wg = 64, items = 4, tile = 256;
};

CustomPlan plan_custom(const Sorter::Impl& s, std::size_t element_bytes, const std::string& type_source,
                       const std::string& less, const Options& options) {
  if (element_bytes == 0 || element_bytes > kMaxElementBytes)
    detail::throw_argument_error("T", "sort_custom elements are 1 to " + std::to_string(kMaxElementBytes) +
                                          " bytes, not " + std::to_string(element_bytes));
  if (trim(less).empty()) detail::throw_argument_error("less", "is empty");
  if (options.begin_bit != 0 || options.end_bit != 0)
    detail::throw_argument_error(options.begin_bit ? "begin_bit" : "end_bit",
                                 "a bit range needs radix sort; sort_custom compares whole elements");
  CustomPlan p;
  switch (options.algorithm) {
    case Algorithm::automatic:
    case Algorithm::merge:
      break;
    case Algorithm::bitonic:
      p.bitonic = true;
      break;
    default:
      detail::throw_argument_error("algorithm", std::string("sort_custom runs merge or bitonic sort, not ") +
                                                    to_string(options.algorithm));
  }
  // A tile of elements plus an index each in local memory, within what every device gives a kernel.
  const detail::CustomPolicy& policy = s.tuning(4, 0).custom;
  const bool cpu = s.facts.type == "cpu";
  // CPU devices: longer runs per work-item (PoCL, 2^20 12-byte elements: 64 x 32 in 0.69x the time of
  // 64 x 8; Intel's runtime alike within 5%), fewer merge passes.
  std::size_t wg = policy.wg ? policy.wg : cpu ? 64 : 256, items = policy.items ? policy.items : cpu ? 32 : 8;
  wg = std::min<std::size_t>(wg, s.facts.max_work_group);
  const std::size_t budget =
      std::min<std::size_t>(s.facts.local_mem ? s.facts.local_mem : 16384, 48 * 1024) * 3 / 4;
  while (wg * items * (element_bytes + 4) > budget && wg * items > 1) {
    if (items > 1)
      items /= 2;
    else
      wg /= 2;
  }
  p.wg = unsigned(wg);
  p.items = unsigned(items);
  p.tile = p.wg * p.items;
  p.program.files = {"custom.cl"};
  p.program.defines.set("CUSTOM_WG", p.wg)
      .set("CUSTOM_ITEMS", p.items)
      .set("CUSTOM_DESCENDING", options.order == Order::descending ? 1 : 0);
  p.program.inline_source = wrap(type_source, less);
  return p;
}

detail::Run make_run(Sorter::Impl& s, std::size_t n, std::vector<cl::Event> wait) {
  return detail::Run::for_call(s, KeyType::u32, Options{}, {}, nullptr, 0, n, std::move(wait));
}

// What sort_custom keeps in a Sorter: the device's sizeof of each application type seen, by the program
// source that declares it, and the word the device writes it to.
struct CustomState : detail::ModuleState {
  std::map<std::string, unsigned> sizes;
  cl::Buffer size_out;
};

// Builds the program (a comparison that does not compile throws here, with the build log) and checks that
// the device lays the type out in element_bytes, once per type source and Sorter.
void check_program(Sorter::Impl& s, const CustomPlan& p, std::size_t element_bytes) {
  detail::Run run = make_run(s, 1, {});
  cl::Kernel size_of = run.kernel(p.program, "custom_sizeof");
  CustomState& state = s.state<CustomState>();
  auto it = state.sizes.find(p.program.inline_source);
  if (it == state.sizes.end()) {
    if (!state.size_out()) {
      cl_int status = CL_SUCCESS;
      state.size_out = cl::Buffer(s.context, CL_MEM_READ_WRITE, 4, nullptr, &status);
      if (status != CL_SUCCESS) detail::throw_cl_error(status, "clCreateBuffer(sizeof)");
    }
    const cl::Buffer& out = state.size_out;
    detail::set_args(size_of, out);
    // On a queue of its own: the caller's queue may hold commands waiting for events the caller sets
    // only after this call returns.
    cl_int status = CL_SUCCESS;
    cl::CommandQueue own(s.context, s.device, 0, &status);
    if (status != CL_SUCCESS) detail::throw_cl_error(status, "clCreateCommandQueue(sizeof)");
    CLSORT_CHECK(own.enqueueNDRangeKernel(size_of, cl::NullRange, cl::NDRange(1), cl::NDRange(1)));
    cl_uint bytes = 0;
    CLSORT_CHECK(own.enqueueReadBuffer(out, CL_TRUE, 0, 4, &bytes));
    it = state.sizes.emplace(p.program.inline_source, bytes).first;
  }
  if (it->second != element_bytes)
    detail::throw_argument_error("T", "the device's sizeof of the type is " + std::to_string(it->second) +
                                          " bytes but the application's is " + std::to_string(element_bytes) +
                                          " (padding or alignment differ: declare both alike)");
}

void check_n(std::size_t n) {
  if (n > kMaxCustom)
    detail::throw_argument_error("n",
                                 std::to_string(n) + " exceeds the largest n sort_custom accepts (2^31)");
}

cl::Event enqueue_custom(Sorter::Impl& s, const CustomPlan& p, const cl::Buffer& data, std::size_t n,
                         std::size_t element_bytes, const std::vector<cl::Event>& wait) {
  detail::Run run = make_run(s, n, wait);
  const cl_uint count = cl_uint(n);
  const std::size_t small_wg = std::min<std::size_t>(64, s.facts.max_work_group);
  if (n > 1 && p.bitonic) {
    cl::Kernel iota = run.kernel(p.program, "custom_iota");
    cl::Kernel step = run.kernel(p.program, "custom_bitonic_step");
    cl::Buffer index = run.scratch(kCustomIndices, n * 4);
    detail::set_args(iota, index, count);
    run.launch(iota, n, small_wg, "custom_iota");
    std::size_t size = 1;
    while (size < n) size <<= 1;
    for (std::size_t k = 2; k <= size; k <<= 1)
      for (std::size_t j = k / 2; j >= 1; j >>= 1) {
        detail::set_args(step, data, index, count, cl_uint(j), cl_uint(j == k / 2));
        run.launch(step, n, small_wg, "custom_bitonic_step");
      }
  } else if (n > 1) {
    cl::Kernel block = run.kernel(p.program, "custom_block_sort");
    cl::Kernel partition = run.kernel(p.program, "custom_partition");
    cl::Kernel pass = run.kernel(p.program, "custom_merge_pass");
    const std::size_t tiles = (n + p.tile - 1) / p.tile;
    unsigned passes = 0;
    while ((std::size_t(p.tile) << passes) < n) ++passes;
    cl::Buffer tmp, splits;
    if (passes) {
      tmp = run.scratch(detail::kScratchKeys, n * element_bytes);
      splits = run.scratch(detail::kScratchIndex, tiles * 4);
    }
    // The block sort writes where an even number of passes leaves the result in the caller's buffer.
    cl::Buffer src = data, dst = passes % 2 ? tmp : data;
    detail::set_args(block, src, dst, count);
    run.launch(block, tiles * p.wg, p.wg, "custom_block_sort");
    for (unsigned i = 0; i < passes; ++i) {
      src = dst;
      dst = i % 2 != passes % 2 ? data : tmp;
      const cl_uint width = cl_uint(std::size_t(p.tile) << i);
      detail::set_args(partition, src, splits, count, width, cl_uint(tiles));
      run.launch(partition, tiles, small_wg, "custom_partition");
      detail::set_args(pass, src, dst, splits, count, width);
      run.launch(pass, tiles * p.wg, p.wg, "custom_merge_pass");
    }
  }
  return s.last = run.finish();
}

}  // namespace

cl::Event Sorter::sort_custom_buffer(const cl::Buffer& data, std::size_t n, std::size_t element_bytes,
                                     const std::string& type_source, const std::string& less,
                                     const Options& options, const std::vector<cl::Event>& wait) {
  Impl& s = *impl_;
  const CustomPlan p = plan_custom(s, element_bytes, type_source, less, options);
  detail::check_buffer(s, data, "data", n, element_bytes, "n");
  check_n(n);
  check_program(s, p, element_bytes);
  const auto call_scope = s.begin_call();
  return enqueue_custom(s, p, data, n, element_bytes, wait);
}

void Sorter::sort_custom_host(void* data, std::size_t n, std::size_t element_bytes,
                              const std::string& type_source, const std::string& less,
                              const Options& options) {
  Impl& s = *impl_;
  const CustomPlan p = plan_custom(s, element_bytes, type_source, less, options);
  if (!data && n) detail::throw_argument_error("data", "null pointer");
  check_n(n);
  check_program(s, p, element_bytes);
  if (n <= 1) return;
  const auto call_scope = s.begin_call();
  detail::Run staging = make_run(s, 0, {});
  cl::Buffer buffer = staging.scratch(detail::kHostKeys, n * element_bytes);
  // GPUs: through the pinned staging in chunks, as Sorter::sort_host does (the host policy of 4-byte
  // keys: the rows do not vary it by width).
  auto sort = [&](const std::vector<cl::Event>& uploads) {
    return enqueue_custom(s, p, buffer, n, element_bytes, uploads);
  };
  if (detail::stage_host_arrays(s, KeyType::u32,
                                {{static_cast<unsigned char*>(data), buffer, n * element_bytes}}, 0, sort))
    return;
  std::vector<cl::Event> before;
  if (s.last()) before.push_back(s.last);
  cl::Event up;
  CLSORT_CHECK(s.queue.enqueueWriteBuffer(buffer, CL_TRUE, 0, n * element_bytes, data, &before, &up));
  if (s.profiling) s.profile.emplace_back("upload", up);
  const cl::Event done = enqueue_custom(s, p, buffer, n, element_bytes, {up});
  const std::vector<cl::Event> after{done};
  cl::Event read;
  CLSORT_CHECK(s.queue.enqueueReadBuffer(buffer, CL_TRUE, 0, n * element_bytes, data, &after, &read));
  if (s.profiling) s.profile.emplace_back("download", read);
  s.last = read;
}

}  // namespace clsort

namespace clsort::detail {

CLSORT_PARAMS(custom_params, CLSORT_PARAM("custom.wg", custom.wg, 1, 1024, Check::pow2_or_zero, ""),
              CLSORT_PARAM("custom.items", custom.items, 1, 32, Check::zero_or_range,
                           "derived from the device"))

}  // namespace clsort::detail
