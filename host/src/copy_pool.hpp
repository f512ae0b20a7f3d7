// Internal: memcpy split over a few threads, for the host-data staging of sorter.cpp. One thread's memcpy
// from pageable memory runs slower than a GPU's DMA from pinned memory, so each chunk is copied in parts
// by threads kept for the Sorter's life (starting threads per chunk would cost more than the copy).
#pragma once

#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace clsort::detail {

class CopyPool {
 public:
  /// `threads` copying in all, the calling thread included (so threads - 1 are started).
  explicit CopyPool(unsigned threads);
  ~CopyPool();
  CopyPool(const CopyPool&) = delete;
  CopyPool& operator=(const CopyPool&) = delete;

  /// How many threads copy, the caller included (fewer than asked if starting one failed).
  unsigned threads() const { return unsigned(workers_.size()) + 1; }
  /// Copies `bytes` from src to dst (not overlapping) and returns when all of it is copied. Not
  /// reentrant: one caller at a time, like the Sorter that owns the pool.
  void copy(void* dst, const void* src, std::size_t bytes);

  /// The thread count host.threads=0 means: about half the cores, at most 8.
  static unsigned automatic_threads();

 private:
  struct Job;
  void work();

  std::vector<std::thread> workers_;
  std::mutex m_;
  std::condition_variable wake_;  // a new job, or stop
  std::condition_variable done_;  // the job's last part was copied
  std::shared_ptr<Job> job_;      // the current job; workers hold their own reference
  unsigned long long generation_ = 0;
  bool stop_ = false;
};

}  // namespace clsort::detail
