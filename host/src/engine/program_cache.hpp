// Internal: builds OpenCL programs once per (context, device, source, options), shared process-wide.
#pragma once

#include <string>
#include <vector>

#include "clsort/clsort.hpp"

namespace clsort::detail {

/// The program made of the concatenated kernel files (e.g. {"common.cl", "bitonic.cl"}) built with
/// `options`, from the cache or built now; on NVIDIA, with every kernel's registers capped at
/// `register_cap` (0: the compiler's choice). Thread-safe; concurrent callers of one key wait for one
/// build. A failed build throws Error with CL_BUILD_PROGRAM_FAILURE and the build log. `inline_source`
/// is text placed after the first file (an application's code; part of the cache key like the files).
cl::Program get_program(const cl::Context& context, const cl::Device& device,
                        const std::vector<std::string>& files, const std::string& options,
                        unsigned register_cap = 0, const std::string& inline_source = {});

/// Sorters count themselves as users of their context; when the last one goes, the context's programs
/// are released (they retain the context).
void retain_context_programs(cl_context context);
void release_context_programs(cl_context context);

/// 64-bit FNV-1a, the source hash of the cache key.
std::uint64_t fnv1a(const std::string& text, std::uint64_t seed = 14695981039346656037ull);

}  // namespace clsort::detail
