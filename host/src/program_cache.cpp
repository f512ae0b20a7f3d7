// The process-wide program cache. Entries hold a cl::Program, which retains its context, so a context's
// address cannot be reused while its entry lives; entries of a context are dropped when the last Sorter
// on it goes (see release_context_programs).
#include "program_cache.hpp"

#include <map>
#include <memory>
#include <mutex>
#include <tuple>

#include "check.hpp"
#include "kernel_sources.hpp"

namespace clsort::detail {
namespace {

struct Entry {
  std::once_flag once;
  cl::Program program;
};
using Key = std::tuple<cl_context, cl_device_id, std::uint64_t, std::string>;

std::mutex& cache_mutex() {
  static std::mutex m;
  return m;
}
std::map<Key, std::shared_ptr<Entry>>& cache() {
  static auto* c = new std::map<Key, std::shared_ptr<Entry>>();  // never destroyed: no exit-order issues
  return *c;
}

// How many Sorters use each context: its programs are dropped when the count falls to zero.
std::map<cl_context, int>& users() {
  static auto* u = new std::map<cl_context, int>();
  return *u;
}

cl::Program build(const cl::Context& context, const cl::Device& device, const std::string& source,
                  const std::string& options) {
  cl_int status = CL_SUCCESS;
  cl::Program program(context, source, false, &status);
  CLSORT_CHECK(status);
  status = program.build({device}, options.c_str());
  if (status != CL_SUCCESS) {
    std::string log;
    program.getBuildInfo(device, CL_PROGRAM_BUILD_LOG, &log);
    throw Error(status, "clBuildProgram",
                std::string("clsort: kernel build failed with ") + status_name(status) +
                    " (options: " + options + ")\n" + log,
                log);
  }
  return program;
}

}  // namespace

std::uint64_t fnv1a(const std::string& text, std::uint64_t seed) {
  std::uint64_t h = seed;
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  return h;
}

cl::Program get_program(const cl::Context& context, const cl::Device& device,
                        const std::vector<std::string>& files, const std::string& options) {
  std::string source;
  for (const auto& f : files) source += kernel_source(f) + "\n";
  const Key key{context(), device(), fnv1a(source), options};
  std::shared_ptr<Entry> entry;
  {
    std::lock_guard<std::mutex> lock(cache_mutex());
    auto& slot = cache()[key];
    if (!slot) slot = std::make_shared<Entry>();
    entry = slot;
  }
  try {
    std::call_once(entry->once, [&] { entry->program = build(context, device, source, options); });
  } catch (...) {
    // A failed build leaves no entry behind, so a later call (e.g. after fixing CLSORT_KERNEL_DIR) retries.
    std::lock_guard<std::mutex> lock(cache_mutex());
    auto it = cache().find(key);
    if (it != cache().end() && it->second == entry) cache().erase(it);
    throw;
  }
  return entry->program;
}

void retain_context_programs(cl_context context) {
  std::lock_guard<std::mutex> lock(cache_mutex());
  ++users()[context];
}

void release_context_programs(cl_context context) {
  std::lock_guard<std::mutex> lock(cache_mutex());
  auto user = users().find(context);
  if (user == users().end() || --user->second > 0) return;
  users().erase(user);
  for (auto it = cache().begin(); it != cache().end();)
    it = std::get<0>(it->first) == context ? cache().erase(it) : std::next(it);
}

}  // namespace clsort::detail
