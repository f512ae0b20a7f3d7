// What the tests of the clsort executable share: a fresh directory per test case, and running the
// executable there through the shell, with its exit code, stdout and stderr.
#pragma once

#include <doctest/doctest.h>

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <string>

namespace clsort_cli_test {

namespace fs = std::filesystem;

inline std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

inline std::string read_file(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

inline void write_file(const fs::path& p, const std::string& bytes) {
  std::ofstream f(p, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), std::streamsize(bytes.size()));
  REQUIRE(f.good());
}

struct Result {
  int code;
  std::string out, err;
};

/// A fresh directory per test case, so that CTest can run the cases in parallel.
class Dir {
 public:
  explicit Dir(const std::string& name) : path_(fs::path(CLSORT_CLI_WORK_DIR) / name) {
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  fs::path operator/(const std::string& f) const { return path_ / f; }
  const fs::path& path() const { return path_; }
  /// The names of the files in the directory (temporary outputs would show up here).
  std::set<std::string> files() const {
    std::set<std::string> s;
    for (const auto& e : fs::directory_iterator(path_)) s.insert(e.path().filename().string());
    return s;
  }

  /// Runs `clsort ARGS` in this directory; stdin from the file `in` (through a pipe for "|file") if given,
  /// stdout captured unless `out` names a file it should go to.
  Result run(const std::string& args, const std::string& in = "", const std::string& out = "") const {
    const fs::path out_file = out.empty() ? path_ / "stdout.capture" : path_ / out;
    const fs::path err_file = path_ / "stderr.capture";
    std::string cmd = "cd " + quote(path_.string()) + " && ";
    if (!in.empty() && in[0] == '|') {  // "|file": through a pipe, where the size is not known up front
      cmd += "cat " + quote((path_ / in.substr(1)).string()) + " | " + quote(CLSORT_CLI_EXE) + " " + args;
    } else {
      cmd += quote(CLSORT_CLI_EXE) + " " + args;
      cmd += in.empty() ? " < /dev/null" : " < " + quote((path_ / in).string());
    }
    cmd += " > " + quote(out_file.string()) + " 2> " + quote(err_file.string());
    const int status = std::system(cmd.c_str());
    Result r{WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), {}, read_file(err_file)};
    if (out.empty()) r.out = read_file(out_file);
    fs::remove(err_file);
    if (out.empty()) fs::remove(out_file);
    // A failing run's stderr goes to the test's output, where a later REQUIRE's report would not carry
    // it: the sanitizer pass reads it there to tell LeakSanitizer's own crash at exit from a real failure.
    if (r.code != 0) std::cerr << "clsort " << args << " exited with " << r.code << "; stderr:\n" << r.err;
    return r;
  }

 private:
  fs::path path_;
};

}  // namespace clsort_cli_test
