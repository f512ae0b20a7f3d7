#include "copy_pool.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <system_error>

namespace clsort::detail {
namespace {

// Parts smaller than this are not worth waking a thread for.
constexpr std::size_t kMinPart = std::size_t(64) << 10;

}  // namespace

// One copy, in parts that threads claim in turn; a worker that wakes late finds none left.
struct CopyPool::Job {
  unsigned char* dst = nullptr;
  const unsigned char* src = nullptr;
  std::size_t bytes = 0, part = 0, parts = 0;
  std::atomic<std::size_t> next{0}, done{0};

  // Copies parts until none is left; true if this call finished the job's last part.
  bool run() {
    bool last = false;
    for (std::size_t i; (i = next.fetch_add(1)) < parts;) {
      const std::size_t begin = i * part;
      std::memcpy(dst + begin, src + begin, std::min(part, bytes - begin));
      if (done.fetch_add(1) + 1 == parts) last = true;
    }
    return last;
  }
};

CopyPool::CopyPool(unsigned threads) {
  for (unsigned i = 1; i < threads; ++i) {
    try {
      workers_.emplace_back([this] { work(); });
    } catch (const std::system_error&) {
      break;  // fewer threads: the copies are slower, not wrong
    }
  }
}

CopyPool::~CopyPool() {
  {
    std::lock_guard<std::mutex> lock(m_);
    stop_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : workers_) t.join();
}

unsigned CopyPool::automatic_threads() {
  const unsigned cores = std::thread::hardware_concurrency();
  return std::clamp(cores / 2, 1u, 8u);
}

void CopyPool::work() {
  unsigned long long seen = 0;
  for (;;) {
    std::shared_ptr<Job> job;
    {
      std::unique_lock<std::mutex> lock(m_);
      wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      job = job_;
    }
    if (job && job->run()) {
      std::lock_guard<std::mutex> lock(m_);
      done_.notify_all();
    }
  }
}

void CopyPool::copy(void* dst, const void* src, std::size_t bytes) {
  const std::size_t parts = std::min<std::size_t>(threads(), (bytes + kMinPart - 1) / kMinPart);
  if (parts <= 1) {
    if (bytes) std::memcpy(dst, src, bytes);
    return;
  }
  auto job = std::make_shared<Job>();
  job->dst = static_cast<unsigned char*>(dst);
  job->src = static_cast<const unsigned char*>(src);
  job->bytes = bytes;
  job->part = (bytes / parts + 63) / 64 * 64;  // cache-line multiples
  job->parts = (bytes + job->part - 1) / job->part;
  {
    std::lock_guard<std::mutex> lock(m_);
    job_ = job;
    ++generation_;
  }
  wake_.notify_all();
  job->run();
  std::unique_lock<std::mutex> lock(m_);
  done_.wait(lock, [&] { return job->done.load() == job->parts; });
  job_.reset();
}

}  // namespace clsort::detail
