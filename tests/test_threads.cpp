// Concurrency: four threads sorting at once with their own Sorters (own contexts, or one shared context
// whose programs they build together; host data also through the staging pipeline), and the serialized
// free functions from four threads.
#include <doctest/doctest.h>

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

#include "support/support.hpp"

namespace clsort_test {
namespace {

constexpr int kThreads = 4;

// Lets the threads start their first sort together, so that first-use work (program builds) overlaps.
class StartLine {
 public:
  void arrive_and_wait() {
    std::unique_lock<std::mutex> lock(m_);
    if (++arrived_ == kThreads) cv_.notify_all();
    cv_.wait(lock, [&] { return arrived_ >= kThreads; });
  }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  int arrived_ = 0;
};

// One thread's work: a mix of key types, algorithms, host and device data. Returns failure descriptions
// (doctest assertions are not thread-safe, so they are made on the main thread).
std::vector<std::string> thread_work(clsort::Sorter& sorter, int thread, StartLine& start) {
  std::vector<std::string> failures;
  auto check = [&](const std::string& what, const std::string& error) {
    if (!error.empty()) failures.push_back("thread " + std::to_string(thread) + " " + what + ": " + error);
  };
  start.arrive_and_wait();
  try {
    for (int round = 0; round < 3; ++round) {
      for (Algorithm algorithm : all_algorithms()) {
        const Order order = (round + thread) % 2 ? Order::descending : Order::ascending;
        const std::size_t n =
            std::min<std::size_t>(2000 + 9000 * std::size_t(thread), matrix_max_n(algorithm));
        const std::uint64_t seed = seed_for(KeyType::f32, 300 + thread, n, std::uint64_t(round));
        const std::string what = describe(algorithm, KeyType::f32, order, n, Dist::float_specials, seed);

        std::vector<float> keys = make_keys<float>(Dist::float_specials, n, seed);
        const std::vector<float> input = keys;
        sorter.sort(keys, {order, algorithm});
        check(what, compare_sorted(reference_sort(input, order), keys));

        std::vector<std::uint64_t> k64 = make_keys<std::uint64_t>(Dist::few_unique, n, seed);
        std::vector<std::uint32_t> values = make_values<std::uint32_t>(n, seed);
        const auto perm = reference_argsort(k64, order);
        std::vector<std::uint64_t> ek(n);
        std::vector<std::uint32_t> ev(n);
        for (std::size_t i = 0; i < n; ++i) ek[i] = k64[perm[i]], ev[i] = values[perm[i]];
        cl::Buffer kb(sorter.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * 8, k64.data());
        cl::Buffer vb(sorter.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * 4, values.data());
        sorter.sort_by_key<std::uint64_t, std::uint32_t>(kb, vb, n, {order, algorithm}).wait();
        sorter.queue().enqueueReadBuffer(kb, CL_TRUE, 0, n * 8, k64.data());
        sorter.queue().enqueueReadBuffer(vb, CL_TRUE, 0, n * 4, values.data());
        check(what + " u64 by key on buffers", compare_sorted(ek, k64, &ev, &values));
      }
    }
  } catch (const std::exception& e) {
    failures.push_back("thread " + std::to_string(thread) + " threw: " + e.what());
  }
  return failures;
}

void run_threads(const std::function<clsort::Sorter&(int)>& sorter_of) {
  StartLine start;
  std::vector<std::vector<std::string>> failures(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] { failures[std::size_t(t)] = thread_work(sorter_of(t), t, start); });
  for (auto& th : threads) th.join();
  int total = 0;
  for (const auto& f : failures)
    for (const auto& message : f) {
      if (++total <= 12) FAIL_CHECK(message);
    }
  CHECK(total == 0);
}

TEST_CASE("four threads with their own sorters and contexts") {
  const cl::Device device = shared_sorter().device();
  std::vector<std::unique_ptr<clsort::Sorter>> sorters;
  for (int t = 0; t < kThreads; ++t) sorters.push_back(std::make_unique<clsort::Sorter>(device));
  run_threads([&](int t) -> clsort::Sorter& { return *sorters[std::size_t(t)]; });
}

TEST_CASE("four threads with their own sorters on one new context") {
  // A fresh context: no program is built yet, so the four threads race to build the same programs.
  const cl::Device device = shared_sorter().device();
  cl::Context context(device);
  std::vector<std::unique_ptr<clsort::Sorter>> sorters;
  for (int t = 0; t < kThreads; ++t)
    sorters.push_back(std::make_unique<clsort::Sorter>(cl::CommandQueue(context, device)));
  run_threads([&](int t) -> clsort::Sorter& { return *sorters[std::size_t(t)]; });
}

TEST_CASE("four threads with their own sorters, host data through staging") {
  // Each Sorter's pinned staging and copy threads are its own: four pipelines at once on one context.
  const clsort::Sorter& base = shared_sorter();
  std::vector<std::unique_ptr<clsort::Sorter>> sorters;
  for (int t = 0; t < kThreads; ++t) {
    sorters.push_back(std::make_unique<clsort::Sorter>(cl::CommandQueue(base.context(), base.device())));
    sorters.back()->tune("host.chunk=4096,host.min=0,host.threads=2");
  }
  run_threads([&](int t) -> clsort::Sorter& { return *sorters[std::size_t(t)]; });
}

TEST_CASE("four threads through the free functions") {
  std::vector<std::string> failures[kThreads];
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      try {
        for (int round = 0; round < 4; ++round) {
          const std::size_t n = 10000 + std::size_t(t) * 77;
          const std::uint64_t seed = seed_for(KeyType::i64, 400 + t, n, std::uint64_t(round));
          std::vector<std::int64_t> keys = make_keys<std::int64_t>(Dist::extremes, n, seed);
          const auto expected = reference_sort(keys, Order::descending);
          clsort::sort(keys, {Order::descending});
          if (keys != expected) failures[t].push_back("seed " + hex(seed) + ": sort differs");
          const auto perm = clsort::argsort(expected);
          if (!compare_argsort(expected, reference_argsort(expected, Order::ascending), perm).empty())
            failures[t].push_back("seed " + hex(seed) + ": argsort differs");
        }
      } catch (const std::exception& e) {
        failures[t].push_back(std::string("threw: ") + e.what());
      }
    });
  for (auto& th : threads) th.join();
  for (const auto& f : failures)
    for (const auto& message : f) FAIL_CHECK(message);
}

}  // namespace
}  // namespace clsort_test
