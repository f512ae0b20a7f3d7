// Bad inputs: each must throw clsort::Error naming the problem and leave keys and values unchanged.
// Also kernel build failures (with the compiler's log) and device selection that matches nothing.
#include <doctest/doctest.h>

#include <unistd.h>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>

#include "support/env_guard.hpp"
#include "support/guarded.hpp"
#include "support/support.hpp"

#ifndef CLSORT_TEST_KERNEL_SOURCE_DIR
#error "CLSORT_TEST_KERNEL_SOURCE_DIR must name the kernels/ directory"
#endif

namespace clsort_test {
namespace {

using clsort_test::EnvGuard;

cl::Buffer sub_buffer(cl::Buffer parent, std::size_t offset, std::size_t size) {
  cl_buffer_region region{offset, size};
  cl_int status = CL_SUCCESS;
  cl::Buffer b = parent.createSubBuffer(CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, &status);
  REQUIRE(status == CL_SUCCESS);
  return b;
}

std::size_t base_align(const cl::Device& device) {
  return std::max<std::size_t>(device.getInfo<CL_DEVICE_MEM_BASE_ADDR_ALIGN>() / 8, 64);
}

TEST_CASE("n larger than the buffer") {
  clsort::Sorter& s = shared_sorter();
  for (Algorithm algorithm : all_algorithms()) {
    CAPTURE(std::string(clsort::to_string(algorithm)));
    Filled keys(s.context(), 100 * 4, 1), values(s.context(), 200 * 4, 2);
    auto e = thrown([&] { s.sort<float>(keys.buffer, 101, {Order::ascending, algorithm}); });
    REQUIRE(e);
    CHECK(e->kind() == clsort::Error::Kind::invalid_argument);
    CHECK(e->where() == "n");
    CHECK(e->status() == CL_INVALID_VALUE);
    e = thrown([&] {
      s.sort_by_key<float, std::uint32_t>(keys.buffer, values.buffer, 101, {Order::ascending, algorithm});
    });
    REQUIRE(e);
    CHECK(e->kind() == clsort::Error::Kind::invalid_argument);
    CHECK(keys.unchanged(s.queue()));
    CHECK(values.unchanged(s.queue()));
    // 100 bytes hold 12 eight-byte keys, not 13.
    Filled wide(s.context(), 100, 3);
    CHECK(thrown([&] { s.sort<double>(wide.buffer, 13, {Order::descending, algorithm}); }));
    CHECK(wide.unchanged(s.queue()));
    CHECK_FALSE(thrown([&] { s.sort<double>(wide.buffer, 12, {Order::descending, algorithm}).wait(); }));
  }
}

TEST_CASE("buffer from another context") {
  clsort::Sorter& s = shared_sorter();
  cl::Context other(s.device());
  cl::CommandQueue other_queue(other, s.device());
  for (Algorithm algorithm : all_algorithms()) {
    CAPTURE(std::string(clsort::to_string(algorithm)));
    Filled mine(s.context(), 64 * 4, 4), foreign(other, 64 * 4, 5), foreign_values(other, 64 * 4, 6);
    auto e = thrown([&] { s.sort<std::uint32_t>(foreign.buffer, 64, {Order::ascending, algorithm}); });
    REQUIRE(e);
    CHECK(e->kind() == clsort::Error::Kind::invalid_argument);
    CHECK(e->where() == "keys");
    e = thrown([&] {
      s.sort_by_key<std::uint32_t, std::uint32_t>(mine.buffer, foreign_values.buffer, 64,
                                                  {Order::ascending, algorithm});
    });
    REQUIRE(e);
    CHECK(e->kind() == clsort::Error::Kind::invalid_argument);
    CHECK(e->where() == "values");
    CHECK(mine.unchanged(s.queue()));
    CHECK(foreign.unchanged(other_queue));
    CHECK(foreign_values.unchanged(other_queue));
  }
}

TEST_CASE("keys and values overlap") {
  clsort::Sorter& s = shared_sorter();
  const std::size_t a = base_align(s.device());
  for (Algorithm algorithm : all_algorithms()) {
    CAPTURE(std::string(clsort::to_string(algorithm)));
    const clsort::Options options{Order::ascending, algorithm};
    Filled parent(s.context(), 4 * a, 7);
    const std::size_t n = 2 * a / 4;  // u32 keys spanning 2a bytes
    cl::Buffer first = sub_buffer(parent.buffer, 0, 2 * a), second = sub_buffer(parent.buffer, a, 2 * a);
    SUBCASE("the same buffer") {
      auto e = thrown(
          [&] { s.sort_by_key<std::uint32_t, std::uint32_t>(parent.buffer, parent.buffer, n, options); });
      REQUIRE(e);
      CHECK(e->kind() == clsort::Error::Kind::invalid_argument);
      CHECK(e->where() == "values");
    }
    SUBCASE("overlapping sub-buffers") {
      CHECK(thrown([&] { s.sort_by_key<std::uint32_t, std::uint32_t>(first, second, n, options); }));
      CHECK(thrown([&] { s.sort_by_key<std::uint32_t, std::uint32_t>(second, first, n, options); }));
    }
    SUBCASE("a buffer and a sub-buffer of it") {
      CHECK(thrown([&] { s.sort_by_key<std::uint32_t, std::uint32_t>(parent.buffer, second, n, options); }));
      CHECK(thrown([&] { s.sort_by_key<std::uint32_t, std::uint32_t>(second, parent.buffer, n, options); }));
      CHECK(thrown(
          [&] { s.sort_by_key<std::uint32_t, std::uint64_t>(second, parent.buffer, n / 2, options); }));
    }
    SUBCASE("same buffer, 8-byte values") {
      CHECK(thrown([&] { s.sort_by_key<std::uint64_t, double>(parent.buffer, parent.buffer, 1, options); }));
    }
    CHECK(parent.unchanged(s.queue()));
  }
}

TEST_CASE("values shorter than keys") {
  clsort::Sorter& s = shared_sorter();
  for (Algorithm algorithm : all_algorithms()) {
    CAPTURE(std::string(clsort::to_string(algorithm)));
    const clsort::Options options{Order::descending, algorithm};
    Filled keys(s.context(), 300 * 8, 8), values(s.context(), 299 * 8, 9), odd(s.context(), 300 * 8 - 1, 10);
    auto e = thrown([&] { s.sort_by_key<double, std::uint64_t>(keys.buffer, values.buffer, 300, options); });
    REQUIRE(e);
    CHECK(e->kind() == clsort::Error::Kind::invalid_argument);
    CHECK(e->where() == "values");
    CHECK(thrown([&] { s.sort_by_key<double, std::uint64_t>(keys.buffer, odd.buffer, 300, options); }));
    // 4-byte keys with 8-byte values: the values buffer needs twice the keys' bytes.
    CHECK(thrown([&] { s.sort_by_key<float, double>(keys.buffer, values.buffer, 600, options); }));
    // The type-erased entry point refuses a value width of 0.
    CHECK(thrown([&] { s.sort_buffer(KeyType::f64, keys.buffer, &odd.buffer, 0, 10, options, {}); }));
    CHECK(keys.unchanged(s.queue()));
    CHECK(values.unchanged(s.queue()));
    CHECK(odd.unchanged(s.queue()));

    // Host vectors of different sizes, either way round.
    std::vector<float> hk = make_keys<float>(Dist::random, 50, 11);
    std::vector<std::uint32_t> shorter(49, 7), longer(51, 7);
    const auto hk0 = hk;
    e = thrown([&] { s.sort_by_key(hk, shorter, options); });
    REQUIRE(e);
    CHECK(e->kind() == clsort::Error::Kind::invalid_argument);
    CHECK(e->where() == "values");
    CHECK(thrown([&] { s.sort_by_key(hk, longer, options); }));
    CHECK(std::memcmp(hk.data(), hk0.data(), hk.size() * 4) == 0);
    CHECK(shorter == std::vector<std::uint32_t>(49, 7));
    CHECK(longer == std::vector<std::uint32_t>(51, 7));
  }
}

TEST_CASE("n too large for the algorithm") {
  clsort::Sorter& s = shared_sorter();
  const std::size_t n = clsort::max_n(Algorithm::selection) + 1;
  const clsort::Options options{Order::ascending, Algorithm::selection};
  Filled keys(s.context(), n * 4, 12), values(s.context(), n * 4, 13);
  auto e = thrown([&] { s.sort<std::uint32_t>(keys.buffer, n, options); });
  REQUIRE(e);
  CHECK(e->kind() == clsort::Error::Kind::invalid_argument);
  CHECK(e->where() == "n");
  CHECK(thrown([&] { s.sort_by_key<std::uint32_t, std::uint32_t>(keys.buffer, values.buffer, n, options); }));
  CHECK(keys.unchanged(s.queue()));
  CHECK(values.unchanged(s.queue()));

  std::vector<std::int32_t> host = make_keys<std::int32_t>(Dist::random, n, 14);
  std::vector<std::uint64_t> host_values(n, 3);
  const auto host0 = host;
  CHECK(thrown([&] { s.sort(host, options); }));
  CHECK(thrown([&] { s.sort_by_key(host, host_values, options); }));
  CHECK(thrown([&] { (void)s.argsort(host, options); }));
  CHECK(host == host0);
  CHECK(host_values == std::vector<std::uint64_t>(n, 3));
}

TEST_CASE("null arguments") {
  clsort::Sorter& s = shared_sorter();
  CHECK(thrown([&] { clsort::Sorter bad{cl::Device()}; }));
  CHECK(thrown([&] { clsort::Sorter bad{cl::CommandQueue()}; }));
  CHECK(thrown([&] { s.sort<std::uint32_t>(cl::Buffer(), 0); }));
  Filled keys(s.context(), 16, 15);
  const cl::Buffer null_values;
  CHECK(thrown([&] { s.sort_by_key<std::uint32_t, std::uint32_t>(keys.buffer, null_values, 4); }));
  CHECK(keys.unchanged(s.queue()));
  CHECK(thrown([&] { s.sort(static_cast<float*>(nullptr), 5); }));
  CHECK(thrown([] { clsort::parse_algorithm("quicksort"); }));
}

TEST_CASE("bad tuning strings") {
  clsort::Sorter s(shared_sorter().device());
  const std::string before = s.plan().tuning;
  for (const char* bad : {"radix.wg=100",
                          "radix.wg=4",
                          "radix.wg=0",
                          "radix.wg=8192",
                          "radix.wg=-64",
                          "nope=1",
                          "radix.bits=0",
                          "radix.bits=13",
                          "radix.wg",
                          "radix.wg=",
                          "=64",
                          "radix.wg=abc",
                          "radix.wg=64x",
                          "radix.wg=0x40",
                          "bitonic.tile=1",
                          "bitonic.tile=131072",
                          "bitonic.wg=3",
                          "radix.items=65",
                          "radix.groups=0",
                          "radix.groups=65537",
                          "radix.match=2",
                          "radix.regs=15",
                          "radix.regs=256",
                          "radix.regs64=15",
                          "radix.regs_pairs=256",
                          "radix.items_small=33",
                          "radix.spins=4294967295",
                          "selection.wg=3",
                          "auto.small_n=many",
                          "host.chunk=255",
                          "host.chunk=2000000000",
                          "host.threads=65",
                          "host.stream=2",
                          "host.min=-1",
                          "radix.wg=64,bogus=1",
                          "radix.wg=128 radix.bits=99"}) {
    CAPTURE(std::string(bad));
    const auto e = thrown([&] { s.tune(bad); });
    REQUIRE(e);
    CHECK(e->kind() == clsort::Error::Kind::invalid_argument);
    CHECK(e->status() == CL_INVALID_VALUE);
    CHECK(s.plan().tuning == before);  // a rejected string changes nothing, even its valid parts
  }
  s.tune("radix.wg=384, bitonic.tile=1024");
  CHECK(s.plan().tuning.find("radix.wg=384 ") != std::string::npos);
  CHECK(s.plan().tuning.find("bitonic.tile=1024 ") != std::string::npos);
  // An override sets every key and value width, also where the device's table has rows for some only.
  s.tune("radix.items=5,radix.items_small=4");
  const std::pair<clsort::KeyType, std::size_t> widths[] = {{clsort::KeyType::u32, 0},
                                                            {clsort::KeyType::u64, 0},
                                                            {clsort::KeyType::u32, 4},
                                                            {clsort::KeyType::f64, 8}};
  for (const auto& [type, value_bytes] : widths) {
    CAPTURE(clsort::to_string(type));
    CAPTURE(value_bytes);
    const clsort::SortPlan p =
        s.plan(type, 1 << 20, value_bytes, {clsort::Order::ascending, Algorithm::radix});
    CHECK(p.algorithm == Algorithm::radix);
    CHECK(p.tuning.find("radix.items=5 ") != std::string::npos);
    CHECK(p.tuning.find("radix.items_small=4 ") != std::string::npos);
    CHECK(p.shape.rfind("radix: ", 0) == 0);
    CHECK(p.build_options.find("-DKEY_BITS=" + std::to_string(clsort::key_size(type) * 8)) !=
          std::string::npos);
    CHECK(p.build_options.find("-DVALUE_BYTES=" + std::to_string(value_bytes)) != std::string::npos);
  }
  // Old per-width names are refused rather than ignored.
  CHECK(thrown([&] { s.tune("radix.items64=9"); }));

  // CLSORT_TUNING is read when a Sorter is made.
  {
    EnvGuard env("CLSORT_TUNING", "radix.bits=77");
    CHECK(thrown([] { clsort::Sorter bad(shared_sorter().device()); }));
  }
  EnvGuard env("CLSORT_TUNING", "radix.bits=6");
  clsort::Sorter tuned(shared_sorter().device());
  CHECK(tuned.plan().tuning.find("radix.bits=6 ") != std::string::npos);
}

std::filesystem::path broken_kernel_dir() {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("clsort-test-kernels-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  for (const auto& f : fs::directory_iterator(CLSORT_TEST_KERNEL_SOURCE_DIR))
    if (f.path().extension() == ".cl") fs::copy_file(f.path(), dir / f.path().filename());
  std::ofstream(dir / "radix_common.cl", std::ios::app)
      << "\nkernel void clsort_test_broken(global uint* p) { p[0] = clsort_test_undeclared_name; }\n";
  return dir;
}

TEST_CASE("kernel build failure reports the build log") {
  const std::filesystem::path dir = broken_kernel_dir();
  const cl::Device device = shared_sorter().device();
  // Programs are cached per context: a new context guarantees the broken source is really compiled.
  cl::Context context(device);
  clsort::Sorter s(cl::CommandQueue(context, device));
  const std::uint64_t seed = seed_for(KeyType::u32, 200, 5000);
  std::vector<std::uint32_t> keys = make_keys<std::uint32_t>(Dist::random, 5000, seed);
  std::vector<std::uint32_t> values = make_values<std::uint32_t>(5000, seed);
  const auto keys0 = keys, values0 = values;
  {
    EnvGuard env("CLSORT_KERNEL_DIR", dir.string());
    const clsort::Options radix{Order::ascending, Algorithm::radix};
    auto e = thrown([&] { s.sort(keys, radix); });
    REQUIRE(e);
    CHECK(e->kind() == clsort::Error::Kind::build_failure);
    CHECK(e->status() == CL_BUILD_PROGRAM_FAILURE);
    CHECK(e->where() == "clBuildProgram");
    CHECK(e->build_log().find("clsort_test_undeclared_name") != std::string::npos);
    CHECK(std::string(e->what()).find("clsort_test_undeclared_name") != std::string::npos);
    CHECK(keys == keys0);
    CHECK(thrown([&] { s.sort_by_key(keys, values, radix); }));
    CHECK(keys == keys0);
    CHECK(values == values0);
    Filled buffer(context, 5000 * 4, 16);
    CHECK(thrown([&] { s.sort<std::uint32_t>(buffer.buffer, 5000, radix); }));
    CHECK(buffer.unchanged(s.queue()));
    // The other programs come from intact copies in the same directory and still work.
    std::vector<std::uint32_t> other = keys;
    s.sort(other, {Order::ascending, Algorithm::bitonic});
    CHECK(other == reference_sort(keys, Order::ascending));
  }
  // Without the override the same Sorter builds the embedded source: failures are not cached.
  s.sort(keys, {Order::ascending, Algorithm::radix});
  CHECK(keys == reference_sort(keys0, Order::ascending));

  std::filesystem::remove_all(dir);
  EnvGuard env("CLSORT_KERNEL_DIR", dir.string());  // now missing: the source cannot be read
  cl::Context context2(device);
  clsort::Sorter s2(cl::CommandQueue(context2, device));
  std::vector<std::uint32_t> again = keys0;
  const auto e = thrown([&] { s2.sort(again, {Order::ascending, Algorithm::selection}); });
  REQUIRE(e);
  CHECK(e->kind() == clsort::Error::Kind::build_failure);
  CHECK(e->where() == "CLSORT_KERNEL_DIR");
  CHECK(again == keys0);
}

// Sub-group primitives are chosen from the device's extensions and confirmed by a self-test
// (kernels/radix_sg_probe.cl) before the ranking uses them. A copy of the kernels whose probe misreports
// the lanes stands for a compiler that gets them wrong: the ranking must move to the local-memory
// sub-groups and still sort. On a device without sub-group primitives (PoCL) only that last part runs.
TEST_CASE("sub-group primitives that fail their self-test leave the ranking to local memory") {
  namespace fs = std::filesystem;
  const cl::Device device = shared_sorter().device();
  const std::string tuning = "radix.cpu=0,radix.match=1,radix.onesweep=1,radix.wg=256,radix.items=8";
  const clsort::Options radix{Order::ascending, Algorithm::radix};
  cl::Context context(device);
  clsort::Sorter intact(cl::CommandQueue(context, device));
  intact.tune(tuning);
  const std::string chosen = intact.plan(KeyType::u32, 1 << 20, 0, radix).shape;
  CAPTURE(chosen);
  const bool primitives = chosen.find("local-memory sub-groups") == std::string::npos;
  if (!primitives) MESSAGE("no sub-group primitives on this device: only the local-memory ranking is tested");

  const fs::path dir = fs::temp_directory_path() / ("clsort-test-probe-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  for (const auto& f : fs::directory_iterator(CLSORT_TEST_KERNEL_SOURCE_DIR))
    if (f.path().extension() == ".cl") fs::copy_file(f.path(), dir / f.path().filename());
  std::string probe;
  {
    std::ifstream in(dir / "radix_sg_probe.cl");
    probe.assign(std::istreambuf_iterator<char>(in), {});
  }
  const std::string lane_line = "  o[0] = lane;";
  REQUIRE(probe.find(lane_line) != std::string::npos);
  probe.replace(probe.find(lane_line), lane_line.size(), "  o[0] = lane ^ 1u;");
  std::ofstream(dir / "radix_sg_probe.cl", std::ios::trunc) << probe;
  {
    EnvGuard env("CLSORT_KERNEL_DIR", dir.string());
    clsort::Sorter s(cl::CommandQueue(context, device));
    s.tune(tuning);
    const std::string shape = s.plan(KeyType::u32, 1 << 20, 0, radix).shape;
    CAPTURE(shape);
    CHECK(shape.find("local-memory sub-groups") != std::string::npos);
    for (Dist d : {Dist::random, Dist::sorted, Dist::few_unique}) {
      const std::uint64_t seed = seed_for(KeyType::u32, int(d), 100003);
      std::vector<std::uint32_t> keys = make_keys<std::uint32_t>(d, 100003, seed), values(keys.size());
      for (std::size_t i = 0; i < values.size(); ++i) values[i] = std::uint32_t(i);
      const auto keys0 = keys;
      s.sort_by_key(keys, values, radix);
      CAPTURE(to_string(d));
      CHECK(compare_sorted(reference_sort(keys0, Order::ascending), keys) == "");
      CHECK(compare_argsort(keys0, reference_argsort(keys0, Order::ascending), values) == "");
    }
  }
  fs::remove_all(dir);
}

TEST_CASE("device selection that matches nothing") {
  const auto e = thrown([] { clsort::select_device("no-such-opencl-device-xyzzy"); });
  REQUIRE(e);
  CHECK(e->kind() == clsort::Error::Kind::device_not_found);
  CHECK(e->status() == CL_DEVICE_NOT_FOUND);
  CHECK(std::string(e->what()).find("no-such-opencl-device-xyzzy") != std::string::npos);
  CHECK(thrown([] { clsort::select_device("99:0"); }));
  CHECK(thrown([] { clsort::select_device("0:99"); }));
  {
    EnvGuard env("CLSORT_DEVICE", "no-such-opencl-device-xyzzy");
    CHECK(thrown([] { clsort::default_device(); }));
    CHECK(thrown([] { clsort::Sorter s; }));
    CHECK(clsort::default_device_reason().find("no-such-opencl-device-xyzzy") != std::string::npos);
  }
  // What does exist is found by name, by index and by class.
  const cl::Device d = shared_sorter().device();
  const std::string name = d.getInfo<CL_DEVICE_NAME>();
  CHECK(clsort::select_device(name)() != nullptr);
  CHECK(clsort::select_device("0:0")() != nullptr);
  const bool gpu = (d.getInfo<CL_DEVICE_TYPE>() & CL_DEVICE_TYPE_GPU) != 0;
  const cl_device_type type = gpu ? CL_DEVICE_TYPE_GPU : CL_DEVICE_TYPE_CPU;
  CHECK((clsort::select_device(gpu ? "gpu" : "cpu").getInfo<CL_DEVICE_TYPE>() & type) != 0);
  CHECK_FALSE(clsort::all_devices().empty());
}

}  // namespace
}  // namespace clsort_test
