// doctest's main() for every doctest executable of the tree (filters such as --test-case= come from CTest),
// linked through the clsort_doctest_main library (tests/CMakeLists.txt).
//
// doctest 2.4.9 exits 0 when its filters select no test case, so a misspelt --test-case= in a CTest entry
// would pass while testing nothing. Here a run that executes no test case fails with "no test case matched
// the filters". Runs that only report something (--help, --version, --count, --list-test-cases,
// --list-test-suites, --list-reporters, --no-run) are left as doctest ends them.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>
#include <string>

#include "run_record.hpp"

int main(int argc, char** argv) {
  doctest::Context context(argc, argv);
  const int result = context.run();
  if (result == 0 && !record.query && record.started == 0) {
    std::string args;
    for (int i = 1; i < argc; ++i) args += std::string(i > 1 ? " " : "") + argv[i];
    std::fprintf(stderr, "%s: no test case matched the filters (%s): nothing was tested\n", argv[0],
                 args.empty() ? "none given" : args.c_str());
    return 1;
  }
  return result;
}
