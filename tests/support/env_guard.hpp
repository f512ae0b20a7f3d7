// Sets or unsets an environment variable for one scope and restores its previous state; for tests of
// clsort's environment settings (CLSORT_TUNING, CLSORT_KERNEL_DIR, CLSORT_CACHE, ...).
#pragma once

#include <cstdlib>
#include <optional>
#include <string>

namespace clsort_test {

class EnvGuard {
 public:
  /// std::nullopt unsets the variable.
  EnvGuard(const char* name, const std::optional<std::string>& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    set(name_, value);
  }
  ~EnvGuard() { set(name_, old_); }
  EnvGuard(const EnvGuard&) = delete;
  EnvGuard& operator=(const EnvGuard&) = delete;

 private:
  static void set(const char* name, const std::optional<std::string>& value) {
    if (value)
      ::setenv(name, value->c_str(), 1);
    else
      ::unsetenv(name);
  }
  const char* name_;
  std::optional<std::string> old_;
};

}  // namespace clsort_test
