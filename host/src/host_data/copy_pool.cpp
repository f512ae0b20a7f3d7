#include "host_data/copy_pool.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <system_error>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace clsort::detail {
namespace {

// Progress waiters spin this long before they sleep: a chunk's DMA or copy takes 20-200 us on the H100,
// and a sleeping thread wakes tens of microseconds late.
constexpr auto kSpinBeforeSleep = std::chrono::microseconds(200);

void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#else
  std::this_thread::yield();
#endif
}

// Spins until ready() or for kSpinBeforeSleep, whichever comes first; returns ready(). The callers sleep
// on their condition variable when it returns false.
template <class Ready>
bool spin_until(Ready ready) {
  const auto until = std::chrono::steady_clock::now() + kSpinBeforeSleep;
  for (unsigned spins = 1; !ready(); ++spins) {
    cpu_relax();
    if (spins % 64 == 0 && std::chrono::steady_clock::now() > until) return ready();
  }
  return true;
}

}  // namespace

void stream_copy(void* dst, const void* src, std::size_t bytes) {
#if defined(__SSE2__)
  auto* d = static_cast<unsigned char*>(dst);
  auto* s = static_cast<const unsigned char*>(src);
  // Streaming stores need 16-byte aligned destinations; the source may be anywhere.
  const std::size_t head = std::min(bytes, (16 - (reinterpret_cast<std::uintptr_t>(d) & 15)) & 15);
  std::memcpy(d, s, head);
  d += head, s += head, bytes -= head;
  for (; bytes >= 64; d += 64, s += 64, bytes -= 64) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 16));
    const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 32));
    const __m128i e = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 48));
    _mm_stream_si128(reinterpret_cast<__m128i*>(d), a);
    _mm_stream_si128(reinterpret_cast<__m128i*>(d + 16), b);
    _mm_stream_si128(reinterpret_cast<__m128i*>(d + 32), c);
    _mm_stream_si128(reinterpret_cast<__m128i*>(d + 48), e);
  }
  std::memcpy(d, s, bytes);
  _mm_sfence();  // streaming stores are weakly ordered: make them visible before the caller publishes
#else
  std::memcpy(dst, src, bytes);
#endif
}

namespace {
void copy_cached(void* dst, const void* src, std::size_t bytes) {
  std::memcpy(dst, src, bytes);
}
}  // namespace

CopyFunction host_copy(bool stream) {
  return stream ? stream_copy : copy_cached;
}

void Backoff::pause() {
  if (++spins_ < 64)
    cpu_relax();
  else
    std::this_thread::yield();
}

void Progress::publish(std::size_t value) {
  value_.store(value, std::memory_order_seq_cst);
  // A waiter counts itself as sleeping before it checks the value (both seq_cst), so either it sees this
  // value or this sees it and wakes it.
  if (sleepers_.load(std::memory_order_seq_cst)) {
    std::lock_guard<std::mutex> lock(m_);
    cv_.notify_all();
  }
}

void Progress::cancel() {
  cancelled_.store(true, std::memory_order_seq_cst);
  std::lock_guard<std::mutex> lock(m_);
  cv_.notify_all();
}

bool Progress::wait_past(std::size_t i) {
  auto passed = [&] { return value_.load(std::memory_order_acquire) > i; };
  auto done = [&] { return passed() || cancelled_.load(std::memory_order_acquire); };
  if (!spin_until(done)) {
    std::unique_lock<std::mutex> lock(m_);
    sleepers_.fetch_add(1, std::memory_order_seq_cst);
    cv_.wait(lock, done);
    sleepers_.fetch_sub(1, std::memory_order_seq_cst);
  }
  return passed();
}

CopyPool::CopyPool(unsigned threads) {
  for (unsigned i = 0; i < threads; ++i) {
    try {
      workers_.emplace_back([this] { work(); });
    } catch (const std::system_error&) {
      break;
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
  return std::clamp(cores * 3 / 4, 1u, 12u);
}

void CopyPool::work() {
  unsigned long long seen = 0;
  for (;;) {
    std::function<void()>* task = nullptr;
    {
      std::unique_lock<std::mutex> lock(m_);
      wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      task = &task_;
    }
    (*task)();
    if (running_.fetch_sub(1) == 1) {
      std::lock_guard<std::mutex> lock(m_);
      done_.notify_all();
    }
  }
}

void CopyPool::start(std::function<void()> task) {
  {
    std::lock_guard<std::mutex> lock(m_);
    task_ = std::move(task);
    running_.store(threads());
    ++generation_;
  }
  wake_.notify_all();
}

void CopyPool::join() {
  // The workers usually finish within microseconds of the caller's last wait: spin before sleeping.
  auto finished = [&] { return running_.load() == 0; };
  if (spin_until(finished)) return;
  std::unique_lock<std::mutex> lock(m_);
  done_.wait(lock, finished);
}

}  // namespace clsort::detail
