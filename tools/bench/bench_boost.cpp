// Optional `clsort bench` rows from Boost, built only when CMake finds the Boost headers: Boost.Sort's
// pdqsort and block_indirect_sort on the host, and Boost.Compute's sort on the same OpenCL device.
#include "bench.hpp"  // first: CL/opencl.hpp sets the OpenCL version that Boost.Compute's CL/cl.h sees

#include <boost/compute/algorithm/sort.hpp>
#include <boost/compute/command_queue.hpp>
#include <boost/compute/context.hpp>
#include <boost/compute/device.hpp>
#include <boost/compute/iterator/buffer_iterator.hpp>
#include <boost/sort/sort.hpp>

#include <clsort/key_transform.hpp>

#include <cstring>
#include <memory>
#include <thread>

#include "../cli/cli_common.hpp"

namespace clsort_cli::bench {
namespace {

namespace bc = boost::compute;
using clsort::KeyType;

struct ComputeState {
  explicit ComputeState(const cl::Device& d) : device(d()), context(device), queue(context, device) {}
  bc::device device;
  bc::context context;
  bc::command_queue queue;
  bc::buffer src, work;
  std::size_t capacity = 0, bytes = 0, n = 0;
  KeyType type = KeyType::u32;
};

}  // namespace

void add_boost_contenders(std::vector<Contender>& out, const cl::Device& device) {
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  out.push_back(host_contender("boost pdqsort", "", "baseline", 0, sort_keys([](auto* p, std::size_t n) {
                                 using K = std::remove_pointer_t<decltype(p)>;
                                 boost::sort::pdqsort(p, p + n,
                                                      [](K a, K b) { return clsort::key_less(a, b); });
                               })));
  out.push_back(host_contender("boost block_indirect_sort", "", "baseline", 0,
                               sort_keys([threads](auto* p, std::size_t n) {
                                 using K = std::remove_pointer_t<decltype(p)>;
                                 boost::sort::block_indirect_sort(
                                     p, p + n, [](K a, K b) { return clsort::key_less(a, b); }, threads);
                               })));

  auto s = std::make_shared<ComputeState>(device);
  Contender c;
  c.label = "boost.compute (OpenCL)";
  c.kind = "device";
  c.clsort_float_order = false;  // its radix sort puts negative NaNs first and may not order -0 before +0
  c.prepare = [s](const Workload& in) {
    s->type = in.type;
    s->n = in.n;
    s->bytes = in.n * clsort::key_size(in.type);
    if (s->bytes > s->capacity) {
      s->src = bc::buffer(s->context, s->bytes);
      s->work = bc::buffer(s->context, s->bytes);
      s->capacity = s->bytes;
    }
    s->queue.enqueue_write_buffer(s->src, 0, s->bytes, in.keys);
  };
  c.reset = [s] {
    s->queue.enqueue_copy_buffer(s->src, s->work, 0, 0, s->bytes);
    s->queue.finish();
  };
  // Boost.Compute's radix sort knows the 32- and 64-bit types only.
  c.supports = [](KeyType t) { return clsort::key_size(t) >= 4; };
  c.run = [s] {
    visit_key_type(s->type, [&](auto tag) {
      using K = typename decltype(tag)::type;
      if constexpr (sizeof(K) >= 4)
        bc::sort(bc::make_buffer_iterator<K>(s->work, 0), bc::make_buffer_iterator<K>(s->work, s->n),
                 s->queue);
    });
    s->queue.finish();
  };
  c.result = [s](void* out, void*) { s->queue.enqueue_read_buffer(s->work, 0, s->bytes, out); };
  out.push_back(c);
}

}  // namespace clsort_cli::bench
