// Internal: program binaries kept on disk between processes, so a new process skips the OpenCL compiler.
#pragma once

#include <string>
#include <vector>

namespace clsort::detail {

/// The cache directory: CLSORT_CACHE_DIR, else $XDG_CACHE_HOME/clsort, else ~/.cache/clsort; empty when
/// caching is off (CLSORT_CACHE=0 or CLSORT_CACHE_DIR set to an empty string) or no home is known.
std::string disk_cache_dir();

/// The binary stored under `key`, or empty when missing, truncated, corrupt or for another key.
std::vector<unsigned char> disk_cache_load(const std::string& key);

/// Stores `binary` under `key` atomically (write a private temporary, then rename). Failures (read-only
/// or full disk) are ignored: the cache is an optimisation, never a reason for a sort to fail.
void disk_cache_store(const std::string& key, const std::vector<unsigned char>& binary);

}  // namespace clsort::detail
