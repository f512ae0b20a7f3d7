// A Sorter inside an application's OpenCL pipeline: it honours wait lists (a user event gates it), its
// events chain into the application's commands and other queues, and it is correct on out-of-order queues.
#include <doctest/doctest.h>

#include <clsort/clsort.h>
#include <clsort/clsort.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <random>
#include <thread>
#include <vector>

namespace {

std::vector<std::uint32_t> random_u32(std::size_t n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<std::uint32_t> v(n);
  for (auto& x : v) x = rng();
  return v;
}

cl_int status_of(const cl::Event& e) {
  cl_int s = CL_COMPLETE;
  REQUIRE(e.getInfo(CL_EVENT_COMMAND_EXECUTION_STATUS, &s) == CL_SUCCESS);
  return s;
}

struct App {
  cl::Device device = clsort::default_device();
  cl::Context context{device};
};

}  // namespace

TEST_CASE("a user event in the wait list gates the sort, and its event chains into the application") {
  App app;
  cl::CommandQueue queue(app.context, app.device);
  cl::CommandQueue other(app.context, app.device);  // reads behind the gated queue's back
  const std::size_t n = 20000;
  std::vector<std::uint32_t> keys = random_u32(n, 1);
  cl::Buffer buf(app.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * 4, keys.data());
  cl::Buffer copy(app.context, CL_MEM_READ_WRITE, n * 4);

  clsort::Sorter sorter(queue);
  cl::UserEvent gate(app.context);
  cl::Event sorted =
      sorter.sort<std::uint32_t>(buf, n, {clsort::Order::ascending, clsort::Algorithm::radix}, {gate});
  // The application's own command after ours: a copy that must see sorted keys.
  std::vector<cl::Event> after{sorted};
  cl::Event copied;
  REQUIRE(queue.enqueueCopyBuffer(buf, copy, 0, 0, n * 4, &after, &copied) == CL_SUCCESS);
  REQUIRE(queue.flush() == CL_SUCCESS);

  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  CHECK(status_of(sorted) != CL_COMPLETE);
  CHECK(status_of(copied) != CL_COMPLETE);
  std::vector<std::uint32_t> seen(n);
  REQUIRE(other.enqueueReadBuffer(buf, CL_TRUE, 0, n * 4, seen.data()) == CL_SUCCESS);
  CHECK(seen == keys);  // nothing ran before the gate opened

  REQUIRE(gate.setStatus(CL_COMPLETE) == CL_SUCCESS);
  REQUIRE(copied.wait() == CL_SUCCESS);
  CHECK(status_of(sorted) == CL_COMPLETE);
  REQUIRE(other.enqueueReadBuffer(copy, CL_TRUE, 0, n * 4, seen.data()) == CL_SUCCESS);
  std::sort(keys.begin(), keys.end());
  CHECK(seen == keys);
}

TEST_CASE("events chain across queues and Sorters of one context") {
  App app;
  cl::CommandQueue q1(app.context, app.device), q2(app.context, app.device);
  clsort::Sorter first(q1), second(q2);
  const std::size_t n = 5000;
  std::vector<std::uint32_t> keys = random_u32(n, 2);
  std::vector<std::uint32_t> values(n);
  for (std::size_t i = 0; i < n; ++i) values[i] = std::uint32_t(i);
  cl::Buffer kb(app.context, CL_MEM_READ_WRITE, n * 4), vb(app.context, CL_MEM_READ_WRITE, n * 4);
  cl::Event up_k, up_v;
  REQUIRE(q1.enqueueWriteBuffer(kb, CL_FALSE, 0, n * 4, keys.data(), nullptr, &up_k) == CL_SUCCESS);
  REQUIRE(q1.enqueueWriteBuffer(vb, CL_FALSE, 0, n * 4, values.data(), nullptr, &up_v) == CL_SUCCESS);
  // Descending on q1, then ascending by key on q2, which must start from the first sort's result.
  cl::Event a = first.sort<std::uint32_t>(kb, n, {clsort::Order::descending}, {up_k, up_v});
  cl::Event b = second.sort_by_key<std::uint32_t, std::uint32_t>(kb, vb, n, {}, {a});
  std::vector<std::uint32_t> k(n), v(n);
  std::vector<cl::Event> after{b};
  REQUIRE(q2.enqueueReadBuffer(kb, CL_TRUE, 0, n * 4, k.data(), &after) == CL_SUCCESS);
  REQUIRE(q2.enqueueReadBuffer(vb, CL_TRUE, 0, n * 4, v.data(), &after) == CL_SUCCESS);
  // The by-key sort found the keys descending beside values 0..n-1 and reversed them: with distinct keys,
  // v[i] is where k[i] sat after the first sort, n - 1 - i. Any other order means it ran too early.
  CHECK(std::is_sorted(k.begin(), k.end()));
  std::vector<std::uint32_t> sorted = keys;
  std::sort(sorted.begin(), sorted.end());
  CHECK(k == sorted);
  bool distinct = std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end();
  if (distinct)
    for (std::size_t i = 0; i < n; ++i) CHECK(v[i] == n - 1 - i);
}

TEST_CASE("out-of-order queue: uploads, sorts and reads ordered only by events") {
  App app;
  cl_int err = CL_SUCCESS;
  cl::CommandQueue queue(app.context, app.device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &err);
  if (err != CL_SUCCESS) {
    MESSAGE("skipped: the device refuses out-of-order queues (" << clsort::status_name(err) << ")");
    return;
  }
  cl_command_queue_properties props = 0;
  REQUIRE(queue.getInfo(CL_QUEUE_PROPERTIES, &props) == CL_SUCCESS);
  REQUIRE((props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) != 0);
  clsort::Sorter sorter(queue);

  // Several independent sorts back to back share the Sorter's scratch buffers: the Sorter itself must
  // order them, as the application gives no dependencies between them.
  const std::size_t n = 50000;
  const int count = 4;
  std::vector<std::vector<std::uint32_t>> keys, values;
  std::vector<cl::Buffer> kbufs, vbufs;
  std::vector<cl::Event> done;
  for (int i = 0; i < count; ++i) {
    keys.push_back(random_u32(n, 10 + i));
    values.emplace_back(n);
    for (std::size_t j = 0; j < n; ++j) values.back()[j] = keys.back()[j] ^ 0x5a5a5a5au;
    kbufs.emplace_back(app.context, CL_MEM_READ_WRITE, n * 4);
    vbufs.emplace_back(app.context, CL_MEM_READ_WRITE, n * 4);
    std::vector<cl::Event> up(2);
    REQUIRE(queue.enqueueWriteBuffer(kbufs[i], CL_FALSE, 0, n * 4, keys[i].data(), nullptr, &up[0]) ==
            CL_SUCCESS);
    REQUIRE(queue.enqueueWriteBuffer(vbufs[i], CL_FALSE, 0, n * 4, values[i].data(), nullptr, &up[1]) ==
            CL_SUCCESS);
    const clsort::Algorithm algorithm = i % 2 ? clsort::Algorithm::bitonic : clsort::Algorithm::radix;
    done.push_back(sorter.sort_by_key<std::uint32_t, std::uint32_t>(
        kbufs[i], vbufs[i], n, {i % 2 ? clsort::Order::descending : clsort::Order::ascending, algorithm},
        up));
  }
  std::vector<std::vector<std::uint32_t>> k(count, std::vector<std::uint32_t>(n)),
      v(count, std::vector<std::uint32_t>(n));
  std::vector<cl::Event> reads;
  for (int i = 0; i < count; ++i) {
    std::vector<cl::Event> after{done[i]};
    reads.emplace_back();
    REQUIRE(queue.enqueueReadBuffer(kbufs[i], CL_FALSE, 0, n * 4, k[i].data(), &after, &reads.back()) ==
            CL_SUCCESS);
    reads.emplace_back();
    REQUIRE(queue.enqueueReadBuffer(vbufs[i], CL_FALSE, 0, n * 4, v[i].data(), &after, &reads.back()) ==
            CL_SUCCESS);
  }
  REQUIRE(cl::Event::waitForEvents(reads) == CL_SUCCESS);
  for (int i = 0; i < count; ++i) {
    std::vector<std::uint32_t> expect = keys[i];
    if (i % 2)
      std::sort(expect.begin(), expect.end(), std::greater<>());
    else
      std::sort(expect.begin(), expect.end());
    CHECK(k[i] == expect);
    bool follow = true;
    for (std::size_t j = 0; j < n; ++j) follow = follow && v[i][j] == (k[i][j] ^ 0x5a5a5a5au);
    CHECK(follow);
  }

  // Host data through the same Sorter, after the device sorts.
  std::vector<float> host(3000);
  std::mt19937 rng(7);
  for (auto& x : host) x = std::uniform_real_distribution<float>(-1, 1)(rng);
  sorter.sort(host);
  CHECK(std::is_sorted(host.begin(), host.end()));

  // The C API on the same out-of-order queue.
  clsort_sorter c = nullptr;
  REQUIRE(clsort_sorter_create(queue(), &c) == CLSORT_SUCCESS);
  cl_event gate = clCreateUserEvent(app.context(), &err);
  REQUIRE(err == CL_SUCCESS);
  cl_event sorted = nullptr;
  REQUIRE(clsort_sort(c, kbufs[0](), n, CLSORT_KEY_U32, CLSORT_DESCENDING, 1, &gate, &sorted) ==
          CLSORT_SUCCESS);
  REQUIRE(sorted != nullptr);
  REQUIRE(clSetUserEventStatus(gate, CL_COMPLETE) == CL_SUCCESS);
  REQUIRE(clEnqueueReadBuffer(queue(), kbufs[0](), CL_TRUE, 0, n * 4, k[0].data(), 1, &sorted, nullptr) ==
          CL_SUCCESS);
  CHECK(std::is_sorted(k[0].begin(), k[0].end(), std::greater<>()));
  clReleaseEvent(sorted);
  clReleaseEvent(gate);
  clsort_sorter_destroy(c);
}
