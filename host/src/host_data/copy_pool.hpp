// Internal: the threads that copy host data into and out of the pinned staging (staging.cpp), and the
// progress counters they wait on. One thread's memcpy out of pageable memory is much slower than a GPU's
// DMA from pinned memory, so several copy at once; they are kept for the Sorter's life and woken once per
// sort, not once per chunk: waking a pool per chunk cost more than the copies on the H100 (docs/design.md,
// "Host data").
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace clsort::detail {

/// Spins with a CPU pause, then yields: for waits that are usually a few microseconds but must not starve
/// other threads (the driver's, or a CPU device's) when they are not.
class Backoff {
 public:
  void pause();
  void reset() { spins_ = 0; }

 private:
  unsigned spins_ = 0;
};

/// A count that only grows, which threads wait to pass: they spin a little, then sleep until publish().
class Progress {
 public:
  /// Sets the count and wakes the threads waiting for it.
  void publish(std::size_t value);
  /// Wakes every waiter for good: wait_past returns false from now on.
  void cancel();
  /// Waits until the count is above i; false if cancelled first.
  bool wait_past(std::size_t i);

 private:
  std::atomic<std::size_t> value_{0};
  std::atomic<bool> cancelled_{false};
  std::atomic<unsigned> sleepers_{0};
  std::mutex m_;
  std::condition_variable cv_;
};

/// memcpy whose stores bypass the caches where the CPU has them (x86 SSE2 streaming stores); plain memcpy
/// elsewhere. A staging copy's destination is not read again by this CPU, and a cached store first reads
/// the line it writes: the copy threads and the DMA share the host's memory bandwidth, and that extra read
/// is a third of a cached copy's traffic. Ends with a store fence, so a release store after it publishes
/// the copied bytes.
void stream_copy(void* dst, const void* src, std::size_t bytes);

using CopyFunction = void (*)(void* dst, const void* src, std::size_t bytes);
/// The staging's host copy under host.stream: stream_copy (1) or memcpy (0).
CopyFunction host_copy(bool stream);

class CopyPool {
 public:
  /// `threads` workers, started now (fewer if starting one fails: copies are slower then, not wrong).
  explicit CopyPool(unsigned threads);
  ~CopyPool();
  CopyPool(const CopyPool&) = delete;
  CopyPool& operator=(const CopyPool&) = delete;

  unsigned threads() const { return unsigned(workers_.size()); }
  /// Every worker runs `task` once; returns at once. The task must not throw. One task at a time: the
  /// caller joins before the next start, like the Sorter that owns the pool.
  void start(std::function<void()> task);
  /// Returns when every worker has returned from the task.
  void join();

  /// The worker count host.threads=0 means: three quarters of the cores, at most 12 (the H100 machine's
  /// 16 cores copied fastest with 12; more starve the driver's own threads).
  static unsigned automatic_threads();

 private:
  void work();

  std::vector<std::thread> workers_;
  std::mutex m_;
  std::condition_variable wake_;  // a new task, or stop
  std::condition_variable done_;  // the last worker finished the task
  std::function<void()> task_;
  unsigned long long generation_ = 0;
  std::atomic<unsigned> running_{0};  // workers still in the task
  bool stop_ = false;
};

}  // namespace clsort::detail
