// doctest's main() for every test executable (filters such as --test-case= come from CTest).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
