// Host data through pinned staging, in chunks (docs/design.md, "Host data"). Pageable transfers are staged
// by the driver at a fraction of the bus's speed; here the bus runs at pinned speed and the host's copies
// into and out of the staging hide behind it.
//
// Who does what: the copy threads (CopyPool) run the whole sort's copies in chunk order, claiming each
// chunk's parts in turn, and wait only on two Progress counters; the calling thread enqueues a chunk's
// transfer once its copy is done, polls the transfer events and publishes the progress. Nobody blocks on
// an event while the other side could proceed, and the threads are woken once per sort: on the H100 a
// pool woken per chunk, with the caller waiting on events, reached 0.46 of the pinned-copy bound at 2^24
// u32 keys where this reaches about 0.7 (docs/benchmarks.md).
#include "host_data/staging.hpp"

#include <algorithm>
#include <atomic>
#include <memory>

#include "device/tuning.hpp"
#include "host_data/copy_pool.hpp"
#include "host_data/host_policy.hpp"

namespace clsort::detail {
namespace {

// The staging holds 4 chunks of host.chunk bytes: arrays that fit get a slot per chunk, so that no copy or
// read waits for a slot (each such wait costs a transfer's latency, which small arrays feel); larger ones
// cycle through at least 4 slots.
constexpr std::size_t kMinSlots = 4;
// Chunks are made smaller than host.chunk for arrays of few chunks, down to this: smaller ones cost more
// per command than their overlap saves.
constexpr std::size_t kMinChunk = std::size_t(256) << 10;
// A chunk is split into about two parts per copy thread, within these bounds: parts are claimed one at
// a time, so a thread that is late to wake costs little.
constexpr std::size_t kMinPart = std::size_t(64) << 10;
constexpr std::size_t kMaxPart = std::size_t(1) << 20;

// What the staging keeps in a Sorter: pinned host memory (CL_MEM_ALLOC_HOST_PTR), mapped once and grown
// on demand, and the threads that copy the caller's data into and out of it.
struct StagingState : ModuleState {
  cl::CommandQueue queue;  // where the pinned buffer was mapped, to unmap it
  cl::Buffer pinned;
  unsigned char* pinned_ptr = nullptr;
  std::size_t pinned_bytes = 0;
  std::unique_ptr<CopyPool> copy_pool;
  unsigned copy_threads = 0;  // what copy_pool was made for (it may have started fewer)

  ~StagingState() override {
    copy_pool.reset();
    release();
  }
  // Errors are ignored: this also runs as the Sorter goes.
  void release() noexcept {
    if (pinned_ptr) {
      cl::Event ev;
      if (queue.enqueueUnmapMemObject(pinned, pinned_ptr, nullptr, &ev) == CL_SUCCESS) ev.wait();
    }
    pinned = cl::Buffer();
    pinned_ptr = nullptr;
    pinned_bytes = 0;
  }
};

// The mapped pinned staging, at least `bytes` long; null when the device gives no pinned memory of that
// size (staging is only an optimization).
unsigned char* pinned_staging(Sorter::Impl& s, std::size_t bytes) {
  StagingState& st = s.state<StagingState>();
  if (st.pinned_bytes >= bytes) return st.pinned_ptr;
  st.release();
  st.queue = s.queue;
  cl_int status = CL_SUCCESS;
  cl::Buffer b(s.context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes, nullptr, &status);
  if (status != CL_SUCCESS) return nullptr;
  void* p =
      s.queue.enqueueMapBuffer(b, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, nullptr, nullptr, &status);
  if (status != CL_SUCCESS || !p) return nullptr;
  st.pinned = b;
  st.pinned_ptr = static_cast<unsigned char*>(p);
  st.pinned_bytes = bytes;
  return st.pinned_ptr;
}

struct Chunk {
  const HostArray* array;
  std::size_t offset, bytes;
};

// Chunks of `chunk` bytes, one partial per array. The first array starts with chunks of chunk / 8, / 4
// and / 2 and the last one ends with them in reverse (when they span 4 chunks or more): the first write
// waits for the first host copy and the last host copy for the last read, so small ends shorten the
// parts that overlap with nothing.
std::vector<Chunk> plan_chunks(const std::vector<HostArray>& arrays, std::size_t chunk) {
  std::vector<Chunk> chunks;
  for (std::size_t a = 0; a < arrays.size(); ++a) {
    const std::size_t bytes = arrays[a].bytes;
    const bool ramp = bytes >= 4 * chunk;
    std::size_t offset = 0;
    auto add = [&](std::size_t size) {
      chunks.push_back({&arrays[a], offset, size});
      offset += size;
    };
    if (ramp && a == 0)
      for (std::size_t c = chunk / 8; c < chunk; c *= 2) add(c);
    std::vector<std::size_t> ramp_down;
    if (ramp && a + 1 == arrays.size())
      for (std::size_t c = chunk / 2; c >= chunk / 8; c /= 2) ramp_down.push_back(c);
    std::size_t tail = 0;
    for (std::size_t c : ramp_down) tail += c;
    while (offset + tail < bytes) add(std::min(chunk, bytes - tail - offset));
    for (std::size_t c : ramp_down) add(c);
  }
  return chunks;
}

// One direction of one chunk's host copy: parts that the copy threads claim in turn.
struct ChunkCopy {
  std::atomic<std::size_t> next{0}, done{0};
};

// What the copy threads and the calling thread share during one staged sort.
class Pipeline {
 public:
  Pipeline(std::vector<Chunk> chunks, unsigned char* staging, std::size_t chunk, std::size_t slots,
           unsigned threads, bool stream, bool upload)
      : upload_(upload),
        copy_(host_copy(stream)),
        chunks_(std::move(chunks)),
        staging_(staging),
        chunk_(chunk),
        slots_(slots),
        part_(std::clamp(round_up(chunk / (2 * std::size_t(threads)), 4096), kMinPart, kMaxPart)),
        up_(new ChunkCopy[chunks_.size()]),
        down_(new ChunkCopy[chunks_.size()]) {}

  std::size_t size() const { return chunks_.size(); }
  const Chunk& chunk(std::size_t i) const { return chunks_[i]; }
  unsigned char* slot(std::size_t i) const { return staging_ + (i % slots_) * chunk_; }
  /// Whether chunk i's upload copy (into its slot) or download copy (out of it) is complete.
  bool copied(std::size_t i, bool upload) const {
    return (upload ? up_ : down_)[i].done.load(std::memory_order_acquire) == parts(i);
  }

  Progress fillable;  // upload: chunks [0, fillable) may be copied into their slots
  Progress landed;    // download: chunks [0, landed) have been read into their slots

  /// A copy thread's whole share: the upload copies in chunk order, then the download copies.
  void work() {
    for (std::size_t i = 0; upload_ && i < size(); ++i) {
      if (!fillable.wait_past(i)) return;
      copy(i, true);
    }
    for (std::size_t i = 0; i < size(); ++i) {
      if (!landed.wait_past(i)) return;
      copy(i, false);
    }
  }
  void cancel() {
    fillable.cancel();
    landed.cancel();
  }

 private:
  std::size_t parts(std::size_t i) const { return (chunks_[i].bytes + part_ - 1) / part_; }
  // Copies the parts of chunk i that no other thread has claimed.
  void copy(std::size_t i, bool upload) {
    ChunkCopy& c = (upload ? up_ : down_)[i];
    const Chunk& k = chunks_[i];
    for (std::size_t p; (p = c.next.fetch_add(1, std::memory_order_relaxed)) < parts(i);) {
      const std::size_t begin = p * part_, bytes = std::min(part_, k.bytes - begin);
      unsigned char* host = k.array->host + k.offset + begin;
      if (upload)
        copy_(slot(i) + begin, k.array->source ? k.array->source + k.offset + begin : host, bytes);
      else
        copy_(host, slot(i) + begin, bytes);
      c.done.fetch_add(1, std::memory_order_release);
    }
  }

  bool upload_;
  CopyFunction copy_;
  std::vector<Chunk> chunks_;
  unsigned char* staging_;
  std::size_t chunk_, slots_, part_;
  std::unique_ptr<ChunkCopy[]> up_, down_;
};

// Whether a transfer has completed; throws with `call` if it failed (a failed sort fails the reads that
// wait for it).
bool transfer_done(const cl::Event& e, const char* call) {
  cl_int status = CL_SUCCESS;
  CLSORT_CHECK(e.getInfo(CL_EVENT_COMMAND_EXECUTION_STATUS, &status));
  if (status < 0) throw_cl_error(status, call);
  return status == CL_COMPLETE;
}

}  // namespace

cl::Buffer wrap_host(const Sorter::Impl& s, const void* host, std::size_t bytes, cl_int* status) {
  return cl::Buffer(s.context, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, bytes, const_cast<void*>(host),
                    status);
}

bool stages(const Sorter::Impl& s, KeyType type, std::size_t value_bytes, std::size_t bytes) {
  const HostPolicy& host = s.tuning(unsigned(key_size(type)), unsigned(pass_width(value_bytes))).host;
  return host.chunk && bytes >= host.min;
}

bool stage_host_arrays(Sorter::Impl& s, KeyType type, const std::vector<HostArray>& arrays,
                       std::size_t value_bytes, const EnqueueStaged& sort, Staged ways) {
  std::size_t total = 0;
  for (const HostArray& a : arrays) total += a.bytes;
  if (!stages(s, type, value_bytes, total)) return false;
  const bool upload = ways != Staged::download, download = ways != Staged::upload;
  // At most host.chunk bytes a chunk, and at most an eighth of the largest array (not below kMinChunk),
  // so that copies and transfers overlap for arrays of a few chunks too.
  std::size_t largest = 0;
  for (const HostArray& a : arrays) largest = std::max(largest, a.bytes);
  const HostPolicy& host = s.tuning(unsigned(key_size(type)), unsigned(pass_width(value_bytes))).host;
  const std::size_t max_chunk = host.chunk;
  const std::size_t chunk =
      std::clamp(round_up(largest / 8, 4096), std::min(max_chunk, kMinChunk), max_chunk);
  std::vector<Chunk> plan = plan_chunks(arrays, chunk);
  const std::size_t slots = std::min(plan.size(), std::max(kMinSlots, kMinSlots * max_chunk / chunk));
  unsigned char* const staging = pinned_staging(s, slots * chunk);
  if (!staging) return false;
  const unsigned threads = host.threads ? host.threads : CopyPool::automatic_threads();
  StagingState& st = s.state<StagingState>();
  if (!st.copy_pool || st.copy_threads != threads) {
    st.copy_pool.reset();
    st.copy_pool = std::make_unique<CopyPool>(threads);
    st.copy_threads = threads;
  }
  CopyPool& pool = *st.copy_pool;
  if (pool.threads() == 0) return false;
  Pipeline p(std::move(plan), staging, chunk, slots, pool.threads(), host.stream != 0, upload);
  const std::size_t chunks = p.size();

  // The same guarantees as the single transfers (Sorter::sort_host): the caller's arrays are written only
  // by the download copies, which start only once a read completed, and a read completes only after the
  // sort succeeded; every enqueued transfer is waited for and every copy thread has stopped before
  // anything (an exception too) leaves, so that nothing reads or writes the caller's memory or the
  // staging after we return.
  std::vector<cl::Event> write(chunks), read(chunks);  // empty until enqueued
  // Out-of-order queues: every transfer carries the dependency; in-order ones need it on the first only.
  auto deps_of = [&](std::size_t i, const std::vector<cl::Event>& deps) {
    return s.in_order && i > 0 ? nullptr : &deps;
  };
  p.fillable.publish(slots);
  pool.start([&p] { p.work(); });
  try {
    // Upload: a chunk's write is enqueued as soon as its copy is done, and its slot is handed to the
    // chunk that next uses it once the write completed. The device buffers are scratch: the first
    // writes wait for the previous sort.
    std::vector<cl::Event> before;
    if (s.last()) before.push_back(s.last);
    std::vector<cl::Event> uploads;  // what the sort waits for
    Backoff backoff;
    for (std::size_t enqueued = 0, freed = 0; upload && enqueued < chunks;) {
      if (p.copied(enqueued, true)) {
        const Chunk& c = p.chunk(enqueued);
        cl::Event& ev = write[enqueued];
        CLSORT_CHECK(s.queue.enqueueWriteBuffer(c.array->device, CL_FALSE, c.array->device_offset + c.offset,
                                                c.bytes, p.slot(enqueued), deps_of(enqueued, before), &ev));
        if (s.profiling) s.profile.emplace_back("upload", ev);
        if (s.in_order)
          uploads.assign(1, ev);
        else
          uploads.push_back(ev);
        CLSORT_CHECK(s.queue.flush());  // start the DMA now, not when we next wait
        ++enqueued;
        backoff.reset();
      } else if (freed < enqueued && freed + slots < chunks && transfer_done(write[freed], "staged upload")) {
        ++freed;
        p.fillable.publish(freed + slots);
        backoff.reset();
      } else {
        backoff.pause();
      }
    }

    const std::vector<cl::Event> sorted{sort(uploads)};
    if (!download) {
      // The copy threads are done (every chunk was copied before its write); the staging may be filled
      // again only once every write from it completed.
      p.cancel();
      pool.join();
      for (std::size_t i = 0; i < chunks; ++i) CLSORT_CHECK(write[i].wait());
      s.last = sorted[0];
      return true;
    }

    // Download: reads run ahead into the free slots; a read into a slot whose upload may still run is
    // ordered after it through the sort, which waits for every upload.
    std::size_t requested = 0;
    auto request = [&] {
      const Chunk& c = p.chunk(requested);
      cl::Event& ev = read[requested];
      CLSORT_CHECK(s.queue.enqueueReadBuffer(c.array->device, CL_FALSE, c.array->device_offset + c.offset,
                                             c.bytes, p.slot(requested), deps_of(requested, sorted), &ev));
      if (s.profiling) s.profile.emplace_back("download", ev);
      CLSORT_CHECK(s.queue.flush());
      ++requested;
    };
    while (requested < slots) request();
    for (std::size_t landed = 0, out = 0; out < chunks;) {
      // The first read also reports a failed sort.
      if (landed < requested && transfer_done(read[landed], "staged download")) {
        p.landed.publish(++landed);
        backoff.reset();
      } else if (out < landed && p.copied(out, false)) {
        ++out;
        if (requested < chunks) request();
        backoff.reset();
      } else {
        backoff.pause();
      }
    }
    pool.join();
    s.last = read.back();
  } catch (...) {
    p.cancel();
    pool.join();
    for (const std::vector<cl::Event>* events : {&write, &read})
      for (const cl::Event& e : *events)
        if (e()) e.wait();  // statuses were checked above; errors here only drain
    throw;
  }
  return true;
}

}  // namespace clsort::detail

namespace clsort::detail {

CLSORT_PARAMS(host_params, CLSORT_PARAM("host.chunk", host.chunk, 256, 1u << 30, Check::zero_or_range, "off"),
              CLSORT_PARAM("host.min", host.min, 0, ~0ull, Check::range, ""),
              CLSORT_PARAM("host.threads", host.threads, 0, 64, Check::range, ""),
              CLSORT_PARAM("host.stream", host.stream, 0, 1, Check::range, ""))

}  // namespace clsort::detail
