// Test helpers for bad-input checks: the clsort::Error a call throws, and device buffers of random bytes
// that tell whether a failed call left them alone.
#pragma once

#include <doctest/doctest.h>

#include <clsort/clsort.hpp>

#include <cstdint>
#include <optional>
#include <random>
#include <vector>

namespace clsort_test {

// The Error that f throws, or nothing. Exceptions of other types escape and fail the test case.
template <class F>
std::optional<clsort::Error> thrown(F&& f) {
  try {
    f();
  } catch (const clsort::Error& e) {
    return e;
  }
  return std::nullopt;
}

// A device buffer filled with random bytes, and whether it still holds them.
struct Filled {
  std::vector<unsigned char> bytes;
  cl::Buffer buffer;
  Filled(const cl::Context& context, std::size_t size, std::uint64_t seed) : bytes(size) {
    std::mt19937_64 rng(seed);
    for (auto& b : bytes) b = static_cast<unsigned char>(rng());
    buffer = cl::Buffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, size, bytes.data());
  }
  bool unchanged(const cl::CommandQueue& q) const {
    std::vector<unsigned char> now(bytes.size());
    REQUIRE(q.enqueueReadBuffer(buffer, CL_TRUE, 0, now.size(), now.data()) == CL_SUCCESS);
    return now == bytes;
  }
};

}  // namespace clsort_test
