// The process-wide program cache. Entries hold a cl::Program, which retains its context, so a context's
// address cannot be reused while its entry lives; entries of a context are dropped when the last Sorter
// on it goes (see release_context_programs).
#include "engine/program_cache.hpp"

#include <cstdlib>

#include <map>
#include <memory>
#include <mutex>
#include <tuple>

#include "engine/check.hpp"
#include "engine/disk_cache.hpp"
#include "engine/kernel_sources.hpp"

namespace clsort::detail {
namespace {

struct Entry {
  std::once_flag once;
  cl::Program program;
};
using Key = std::tuple<cl_context, cl_device_id, std::uint64_t, std::string, unsigned>;

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

// Everything a binary depends on: the device and its driver, clsort's version, the source and options.
std::string disk_key(const cl::Device& device, const std::string& source, const std::string& options) {
  cl::Platform platform(device.getInfo<CL_DEVICE_PLATFORM>());
  return platform.getInfo<CL_PLATFORM_NAME>() + "|" + platform.getInfo<CL_PLATFORM_VERSION>() + "|" +
         device.getInfo<CL_DEVICE_NAME>() + "|" + device.getInfo<CL_DEVICE_VERSION>() + "|" +
         device.getInfo<CL_DRIVER_VERSION>() + "|" CLSORT_VERSION_STRING "|" + std::to_string(fnv1a(source)) +
         "|" + options;
}

// A program from a cached binary, or a null program when there is none or the driver refuses it.
cl::Program load_binary(const cl::Context& context, const cl::Device& device, const std::string& key,
                        const std::string& options) {
  std::vector<unsigned char> binary = disk_cache_load(key);
  if (binary.empty()) return cl::Program();
  cl_int status = CL_SUCCESS;
  cl::Program program(context, {device}, cl::Program::Binaries{binary}, nullptr, &status);
  if (status != CL_SUCCESS || program.build({device}, options.c_str()) != CL_SUCCESS) return cl::Program();
  return program;
}

// The program's binary for its one device; empty when the driver gives none.
std::vector<unsigned char> program_binary(const cl::Program& program) {
  // CL_PROGRAM_BINARIES fills caller-sized buffers, so ask for the sizes first.
  std::vector<std::size_t> sizes;
  if (program.getInfo(CL_PROGRAM_BINARY_SIZES, &sizes) != CL_SUCCESS || sizes.size() != 1 || sizes[0] == 0)
    return {};
  std::vector<std::vector<unsigned char>> binaries(1, std::vector<unsigned char>(sizes[0]));
  if (program.getInfo(CL_PROGRAM_BINARIES, &binaries) != CL_SUCCESS) return {};
  return binaries[0];
}

void store_binary(const cl::Program& program, const std::string& key) {
  if (const std::vector<unsigned char> binary = program_binary(program); !binary.empty())
    disk_cache_store(key, binary);
}

// NVIDIA's OpenCL ignores -cl-nv-maxrregcount (measured on the H100's 580 driver: the same speed at 32
// and 64 as without it), but its binaries are PTX, which states a register cap per kernel with .maxnreg.
// A PTX binary with every kernel capped at `regs`; empty when the binary is not PTX or caps a kernel already.
std::vector<unsigned char> ptx_with_register_cap(const std::vector<unsigned char>& binary, unsigned regs) {
  std::string ptx(binary.begin(), binary.end());
  while (!ptx.empty() && ptx.back() == '\0') ptx.pop_back();
  if (ptx.find(".version") == std::string::npos || ptx.find(".entry ") == std::string::npos ||
      ptx.find(".maxnreg") != std::string::npos)
    return {};
  // A kernel's performance directives sit between its parameter list and the "{" of its body.
  const std::string directive = ".maxnreg " + std::to_string(regs) + "\n";
  for (std::size_t at = ptx.find(".entry "); at != std::string::npos; at = ptx.find(".entry ", at)) {
    const std::size_t body = ptx.find("\n{", at);
    if (body == std::string::npos) return {};
    ptx.insert(body + 1, directive);
    at = body + 1 + directive.size();
  }
  return std::vector<unsigned char>(ptx.begin(), ptx.end() + 1);  // with the terminating NUL
}

cl::Program build(const cl::Context& context, const cl::Device& device, const std::string& source,
                  const std::string& options, unsigned register_cap) {
  const std::string key = disk_key(device, source, options) + "|maxnreg=" + std::to_string(register_cap);
  if (cl::Program cached = load_binary(context, device, key, options); cached()) return cached;
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
                log, Error::Kind::build_failure);
  }
  if (const unsigned regs = register_cap) {
    // Only a speed-up: a binary that is not PTX, or a patched one the driver refuses, keeps the program.
    const std::vector<unsigned char> capped = ptx_with_register_cap(program_binary(program), regs);
    if (!capped.empty()) {
      cl_int s = CL_SUCCESS;
      cl::Program p(context, {device}, cl::Program::Binaries{capped}, nullptr, &s);
      if (s == CL_SUCCESS && p.build({device}, options.c_str()) == CL_SUCCESS) program = p;
    }
  }
  store_binary(program, key);
  return program;
}

}  // namespace

std::uint64_t fnv1a(const std::string& text, std::uint64_t seed) {
  std::uint64_t h = seed;
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  return h;
}

cl::Program get_program(const cl::Context& context, const cl::Device& device,
                        const std::vector<std::string>& files, const std::string& options,
                        unsigned register_cap, const std::string& inline_source) {
  std::string source;
  for (std::size_t i = 0; i < files.size(); ++i) {
    source += kernel_source(files[i]) + "\n";
    if (i == 0 && !inline_source.empty()) {
      source += inline_source;
      if (inline_source.back() != '\n') source += '\n';
    }
  }
  const Key key{context(), device(), fnv1a(source), options, register_cap};
  std::shared_ptr<Entry> entry;
  {
    std::lock_guard<std::mutex> lock(cache_mutex());
    auto& slot = cache()[key];
    if (!slot) slot = std::make_shared<Entry>();
    entry = slot;
  }
  try {
    std::call_once(entry->once,
                   [&] { entry->program = build(context, device, source, options, register_cap); });
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
