// The shared doctest main's own test (tests/CMakeLists.txt, doctest/*): one trivial test case, so that a
// filter selecting it passes and one selecting nothing fails.
#include <doctest/doctest.h>

TEST_CASE("doctest main runs a matched case") {
  CHECK(1 + 1 == 2);
}
