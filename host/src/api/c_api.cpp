// The C API (clsort/clsort.h) over clsort::Sorter: argument checks, exceptions turned into statuses,
// and the thread's last error.
#include "clsort/clsort.h"

#include <cstddef>
#include <cstring>
#include <exception>
#include <initializer_list>
#include <iterator>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "clsort/clsort.hpp"

struct clsort_sorter_s {
  clsort::Sorter sorter;
};

namespace {

struct LastError {
  std::string message;
  cl_int opencl = CL_SUCCESS;
};
// Thread-local like errno, so that threads with their own sorters never see each other's failures.
thread_local LastError t_last;

clsort_status fail(clsort_status status, cl_int opencl, const std::string& message) noexcept {
  try {
    t_last.message = message;
  } catch (...) {
    t_last.message.clear();  // out of memory: the status still tells what happened
  }
  t_last.opencl = opencl;
  return status;
}

clsort_status succeed() noexcept {
  t_last.message.clear();
  t_last.opencl = CL_SUCCESS;
  return CLSORT_SUCCESS;
}

// Worded like the C++ layer's argument errors, so both read alike.
clsort_status invalid(const std::string& argument, const std::string& why, cl_int opencl = CL_INVALID_VALUE) {
  return fail(CLSORT_ERROR_INVALID_ARGUMENT, opencl, "clsort: invalid argument '" + argument + "': " + why);
}

// clsort::Error carries an OpenCL status and what failed; the C status is the class of failure.
clsort_status classify(const clsort::Error& e) noexcept {
  switch (e.kind()) {
    case clsort::Error::Kind::invalid_argument:
      return CLSORT_ERROR_INVALID_ARGUMENT;
    case clsort::Error::Kind::build_failure:
      return CLSORT_ERROR_BUILD_FAILURE;
    case clsort::Error::Kind::device_not_found:
      return CLSORT_ERROR_DEVICE_NOT_FOUND;
    case clsort::Error::Kind::out_of_memory:
      return CLSORT_ERROR_OUT_OF_MEMORY;
    case clsort::Error::Kind::opencl:
      break;
  }
  const cl_int s = e.status();
  if (s == CL_DEVICE_NOT_FOUND || s == -1001 /* CL_PLATFORM_NOT_FOUND_KHR */)
    return CLSORT_ERROR_DEVICE_NOT_FOUND;
  if (s == CL_MEM_OBJECT_ALLOCATION_FAILURE || s == CL_OUT_OF_HOST_MEMORY) return CLSORT_ERROR_OUT_OF_MEMORY;
  return CLSORT_ERROR_OPENCL;
}

// Runs f, which returns a status, turning every exception into one: nothing may unwind into C callers.
template <class F>
clsort_status guarded(F&& f) noexcept {
  try {
    return f();
  } catch (const clsort::Error& e) {
    return fail(classify(e), e.status(), e.what());
  } catch (const std::bad_alloc&) {
    return fail(CLSORT_ERROR_OUT_OF_MEMORY, CL_OUT_OF_HOST_MEMORY, "clsort: out of host memory");
  } catch (const std::length_error& e) {
    return fail(CLSORT_ERROR_OUT_OF_MEMORY, CL_OUT_OF_HOST_MEMORY, std::string("clsort: ") + e.what());
  } catch (const std::exception& e) {
    return fail(CLSORT_ERROR_INTERNAL, CL_SUCCESS, std::string("clsort: internal error: ") + e.what());
  } catch (...) {
    return fail(CLSORT_ERROR_INTERNAL, CL_SUCCESS, "clsort: internal error: unknown exception");
  }
}

// The C names of the C++ enumerators. A value not listed is unknown: the caller reports it by name.
template <class C, class T>
struct Name {
  C c;
  T cpp;
};

// Both key-type enums come from clsort/key_types.h; the table's C values are the C enumerators.
#define CLSORT_KEY_C_VALUE(name, NAME, value, bytes, kind, cpp_type)                        \
  static_assert(CLSORT_KEY_##NAME == clsort::find_key_type(clsort::KeyType::name)->c_value, \
                "CLSORT_KEY_" #NAME);
CLSORT_KEY_TYPES(CLSORT_KEY_C_VALUE)
#undef CLSORT_KEY_C_VALUE

constexpr Name<clsort_flags, clsort::Algorithm> kAlgorithms[] = {
    {CLSORT_ALGORITHM_AUTOMATIC, clsort::Algorithm::automatic},
    {CLSORT_ALGORITHM_RADIX, clsort::Algorithm::radix},
    {CLSORT_ALGORITHM_BITONIC, clsort::Algorithm::bitonic},
    {CLSORT_ALGORITHM_SELECTION, clsort::Algorithm::selection},
    {CLSORT_ALGORITHM_ODD_EVEN, clsort::Algorithm::odd_even},
    {CLSORT_ALGORITHM_MERGE, clsort::Algorithm::merge},
};

template <class C, class T, std::size_t N>
bool look_up(const Name<C, T> (&table)[N], C c, T* out) {
  for (const Name<C, T>& row : table)
    if (row.c == c) {
      *out = row.cpp;
      return true;
    }
  return false;
}

bool to_key_type(clsort_key_type t, clsort::KeyType* out) {
  for (const clsort::KeyTypeInfo& row : clsort::key_types())
    if (row.c_value == int(t)) {
      *out = row.type;
      return true;
    }
  return false;
}

bool to_options(clsort_flags flags, clsort::Options* out) {
  if (flags & ~(CLSORT_DESCENDING | CLSORT_ALGORITHM_MASK | CLSORT_BIT_RANGE_MASK)) return false;
  out->order = (flags & CLSORT_DESCENDING) ? clsort::Order::descending : clsort::Order::ascending;
  out->begin_bit = (flags >> 16) & 0xffu;  // checked by the C++ layer, which names the bad one
  out->end_bit = (flags >> 24) & 0xffu;
  return look_up(kAlgorithms, flags & CLSORT_ALGORITHM_MASK, &out->algorithm);
}

// The checks every sort shares; CLSORT_SUCCESS or the recorded failure.
clsort_status check_common(clsort_key_type key_type, clsort_flags flags, clsort::KeyType* type,
                           clsort::Options* options) {
  if (!to_key_type(key_type, type))
    return invalid("key_type", "unknown clsort_key_type " + std::to_string(int(key_type)));
  if (!to_options(flags, options)) return invalid("flags", "unknown flags " + std::to_string(flags));
  return CLSORT_SUCCESS;
}

clsort_status check_value_size(size_t value_size) {
  if (value_size == 0) return invalid("value_size", "values must be at least 1 byte wide, got 0");
  return CLSORT_SUCCESS;
}

// An index or offset width (index_size, offset_size): 4 or 8 bytes.
clsort_status check_width(const char* name, size_t size) {
  if (size != 4 && size != 8) return invalid(name, "must be 4 or 8, got " + std::to_string(size));
  return CLSORT_SUCCESS;
}

// Images and released handles are rejected here, before the C++ layer wraps them as cl::Buffer.
clsort_status check_buffer(const char* name, cl_mem mem) {
  if (!mem) return invalid(name, "null cl_mem", CL_INVALID_MEM_OBJECT);
  cl_mem_object_type type = 0;
  const cl_int s = clGetMemObjectInfo(mem, CL_MEM_TYPE, sizeof type, &type, nullptr);
  if (s != CL_SUCCESS)
    return invalid(name, std::string("not a valid cl_mem (") + clsort::status_name(s) + ")", s);
  if (type != CL_MEM_OBJECT_BUFFER) return invalid(name, "not a buffer", CL_INVALID_MEM_OBJECT);
  return CLSORT_SUCCESS;
}

// The values buffer of a sort by key, when there is one, and its width.
clsort_status check_values(cl_mem values, size_t value_size) {
  if (!values) return CLSORT_SUCCESS;
  if (clsort_status s = check_buffer("values", values)) return s;
  return check_value_size(value_size);
}

clsort_status check_wait_list(cl_uint count, const cl_event* list, std::vector<cl::Event>* out) {
  // OpenCL's own rule for wait lists, so that a list passed straight from clEnqueue* code behaves alike.
  if ((count == 0) != (list == nullptr))
    return invalid(
        "event_wait_list",
        count ? "null with num_events_in_wait_list > 0" : "not null with num_events_in_wait_list 0",
        CL_INVALID_EVENT_WAIT_LIST);
  for (cl_uint i = 0; i < count; ++i)
    if (!list[i])
      return invalid("event_wait_list", "event " + std::to_string(i) + " is null",
                     CL_INVALID_EVENT_WAIT_LIST);
  out->reserve(count);
  for (cl_uint i = 0; i < count; ++i) out->emplace_back(list[i], /*retainObject=*/true);
  return CLSORT_SUCCESS;
}

// Host-data calls run on the given sorter, or on the process-wide one (serialized) when it is null.
template <class F>
void on_sorter(clsort_sorter sorter, F& f) {
  if (sorter) {
    f(sorter->sorter);
  } else {
    clsort::detail::with_default_sorter([](clsort::Sorter& s, void* p) { (*static_cast<F*>(p))(s); }, &f);
  }
}

// The host-data calls: the key type and flags checked, then the call's own checks (`check`, returning the
// first failure), then `run(sorter, type, options)` on the given sorter or the process-wide one.
template <class Check, class Call>
clsort_status host_call(clsort_sorter sorter, clsort_key_type key_type, clsort_flags flags, Check&& check,
                        Call&& run) {
  return guarded([&] {
    clsort::KeyType type{};
    clsort::Options options;
    if (clsort_status s = check_common(key_type, flags, &type, &options)) return s;
    if (clsort_status s = check()) return s;
    auto f = [&](clsort::Sorter& s) { run(s, type, options); };
    on_sorter(sorter, f);
    return succeed();
  });
}

// The first of the named pointers that is null while there are n > 0 elements, as a failure naming it.
clsort_status check_pointers(size_t n, std::initializer_list<std::pair<const char*, const void*>> named) {
  if (n)
    for (const auto& [name, p] : named)
      if (!p) return invalid(name, "null pointer");
  return CLSORT_SUCCESS;
}

// Hands the caller its own reference to `done`.
clsort_status give_event(const cl::Event& done, cl_event* event) {
  if (event && done()) {
    const cl_int s = clRetainEvent(done());
    if (s != CL_SUCCESS)
      return fail(CLSORT_ERROR_OPENCL, s,
                  std::string("clsort: clRetainEvent failed with ") + clsort::status_name(s));
    *event = done();
  }
  return succeed();
}

// The device-buffer calls: *event cleared first; the sorter, key type and flags checked, then the buffers
// `named` (the first invalid one fails), the call's own checks (`check`, returning the first failure) and
// the wait list; then `run(sorter, type, options, wait)` enqueues the work, and the caller gets its own
// reference to the cl::Event it returns.
template <class Check, class Call>
clsort_status buffer_call(clsort_sorter sorter, clsort_key_type key_type, clsort_flags flags,
                          std::initializer_list<std::pair<const char*, cl_mem>> named, Check&& check,
                          cl_uint num_events, const cl_event* wait_list, cl_event* event, Call&& run) {
  if (event) *event = nullptr;
  return guarded([&] {
    if (!sorter) return invalid("sorter", "null clsort_sorter");
    clsort::KeyType type{};
    clsort::Options options;
    if (clsort_status s = check_common(key_type, flags, &type, &options)) return s;
    for (const auto& [name, mem] : named)
      if (clsort_status s = check_buffer(name, mem)) return s;
    if (clsort_status s = check()) return s;
    std::vector<cl::Event> wait;
    if (clsort_status s = check_wait_list(num_events, wait_list, &wait)) return s;
    const cl::Event done = run(sorter->sorter, type, options, wait);
    return give_event(done, event);  // the caller's own reference; ours goes with `done`
  });
}

clsort_status sort_device(clsort_sorter sorter, cl_mem keys, cl_mem values, size_t n,
                          clsort_key_type key_type, size_t value_size, clsort_flags flags, cl_uint num_events,
                          const cl_event* wait_list, cl_event* event) noexcept {
  return buffer_call(
      sorter, key_type, flags, {{"keys", keys}}, [&] { return check_values(values, value_size); }, num_events,
      wait_list, event,
      [&](clsort::Sorter& s, clsort::KeyType type, const clsort::Options& options,
          const std::vector<cl::Event>& wait) {
        const cl::Buffer kbuf(keys, /*retainObject=*/true);
        cl::Buffer vbuf;
        if (values) vbuf = cl::Buffer(values, /*retainObject=*/true);
        return s.sort_buffer(type, kbuf, values ? &vbuf : nullptr, value_size, n, options, wait);
      });
}

// The C columns as the C++ API takes them; buffers are checked as buffers, host data only for null by
// the C++ layer (which names the column).
clsort_status to_columns(const clsort_column* columns, size_t count, size_t n, bool device,
                         std::vector<clsort::Column>* host, std::vector<clsort::BufferColumn>* buffers) {
  if (!columns && count) return invalid("columns", "null pointer");
  for (size_t i = 0; i < count; ++i) {
    const std::string name = "columns[" + std::to_string(i) + "]";
    clsort::KeyType type{};
    if (!to_key_type(columns[i].key_type, &type))
      return invalid(name + ".key_type",
                     "unknown clsort_key_type " + std::to_string(int(columns[i].key_type)));
    if (columns[i].flags & ~CLSORT_DESCENDING)
      return invalid(name + ".flags", "a column takes CLSORT_ASCENDING or CLSORT_DESCENDING only");
    const clsort::Order order =
        (columns[i].flags & CLSORT_DESCENDING) ? clsort::Order::descending : clsort::Order::ascending;
    if (device) {
      if (clsort_status s = check_buffer((name + ".buffer").c_str(), columns[i].buffer)) return s;
      buffers->push_back({type, cl::Buffer(columns[i].buffer, /*retainObject=*/true), order});
    } else {
      host->push_back({type, columns[i].data, n, order});
    }
  }
  return CLSORT_SUCCESS;
}

// sort_custom takes order and merge or bitonic; the C++ layer names any other algorithm.
clsort_status custom_options(clsort_flags flags, clsort::Options* options) {
  if ((flags & CLSORT_BIT_RANGE_MASK) || !to_options(flags, options))
    return invalid("flags", "unknown flags " + std::to_string(flags) + " for sort_custom");
  return CLSORT_SUCCESS;
}

}  // namespace

extern "C" {

clsort_status clsort_sorter_create(cl_command_queue queue, clsort_sorter* sorter) {
  return guarded([&] {
    if (!sorter) return invalid("sorter", "null output pointer");
    *sorter = nullptr;
    if (!queue) return invalid("queue", "null cl_command_queue", CL_INVALID_COMMAND_QUEUE);
    cl_context context = nullptr;
    const cl_int s = clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof context, &context, nullptr);
    if (s != CL_SUCCESS)
      return invalid("queue", std::string("not a valid cl_command_queue (") + clsort::status_name(s) + ")",
                     s);
    *sorter = new clsort_sorter_s{clsort::Sorter(cl::CommandQueue(queue, /*retainObject=*/true))};
    return succeed();
  });
}

void clsort_sorter_destroy(clsort_sorter sorter) {
  delete sorter;  // ~Sorter does not throw
}

size_t clsort_sorter_scratch_bytes(clsort_sorter sorter) {
  return sorter ? sorter->sorter.scratch_bytes() : 0;
}

void clsort_sorter_keep_scratch(clsort_sorter sorter, size_t bytes) {
  if (sorter) sorter->sorter.keep_scratch(bytes);
}

void clsort_sorter_release_scratch(clsort_sorter sorter) {
  if (sorter) sorter->sorter.release_scratch();  // releases handles only: nothing throws
}

clsort_status clsort_sort(clsort_sorter sorter, cl_mem keys, size_t n, clsort_key_type key_type,
                          clsort_flags flags, cl_uint num_events_in_wait_list,
                          const cl_event* event_wait_list, cl_event* event) {
  return sort_device(sorter, keys, nullptr, n, key_type, 0, flags, num_events_in_wait_list, event_wait_list,
                     event);
}

clsort_status clsort_sort_by_key(clsort_sorter sorter, cl_mem keys, cl_mem values, size_t n,
                                 clsort_key_type key_type, size_t value_size, clsort_flags flags,
                                 cl_uint num_events_in_wait_list, const cl_event* event_wait_list,
                                 cl_event* event) {
  if (!values) {
    if (event) *event = nullptr;
    return guarded([] { return invalid("values", "null cl_mem", CL_INVALID_MEM_OBJECT); });
  }
  return sort_device(sorter, keys, values, n, key_type, value_size, flags, num_events_in_wait_list,
                     event_wait_list, event);
}

clsort_status clsort_sort_host(clsort_sorter sorter, void* keys, size_t n, clsort_key_type key_type,
                               clsort_flags flags) {
  return host_call(
      sorter, key_type, flags,
      [&] {
        return check_pointers(n, {{"keys", keys}});
      },
      [&](clsort::Sorter& s, clsort::KeyType type, const clsort::Options& options) {
        s.sort_host(type, keys, n, nullptr, 0, options);
      });
}

clsort_status clsort_sort_copy_host(clsort_sorter sorter, const void* keys_in, void* keys_out, size_t n,
                                    clsort_key_type key_type, clsort_flags flags) {
  return host_call(
      sorter, key_type, flags,
      [&] {
        return check_pointers(n, {{"keys_in", keys_in}, {"keys_out", keys_out}});
      },
      [&](clsort::Sorter& s, clsort::KeyType type, const clsort::Options& options) {
        s.sort_copy_host(type, keys_in, keys_out, n, options);
      });
}

clsort_status clsort_sort_by_key_host(clsort_sorter sorter, void* keys, void* values, size_t n,
                                      clsort_key_type key_type, size_t value_size, clsort_flags flags) {
  return host_call(
      sorter, key_type, flags,
      [&] {
        if (clsort_status s = check_value_size(value_size)) return s;
        return check_pointers(n, {{"keys", keys}, {"values", values}});
      },
      [&](clsort::Sorter& s, clsort::KeyType type, const clsort::Options& options) {
        s.sort_host(type, keys, n, values, value_size, options);
      });
}

clsort_status clsort_argsort_host(clsort_sorter sorter, const void* keys, size_t n, clsort_key_type key_type,
                                  uint32_t* indices, clsort_flags flags) {
  return host_call(
      sorter, key_type, flags,
      [&] {
        return check_pointers(n, {{"keys", keys}, {"indices", indices}});
      },
      [&](clsort::Sorter& s, clsort::KeyType type, const clsort::Options& options) {
        s.argsort_host(type, keys, n, indices, options);
      });
}

clsort_status clsort_argsort64_host(clsort_sorter sorter, const void* keys, size_t n,
                                    clsort_key_type key_type, uint64_t* indices, clsort_flags flags) {
  return host_call(
      sorter, key_type, flags,
      [&] {
        return check_pointers(n, {{"keys", keys}, {"indices", indices}});
      },
      [&](clsort::Sorter& s, clsort::KeyType type, const clsort::Options& options) {
        s.argsort64_host(type, keys, n, indices, options);
      });
}

clsort_status clsort_argsort(clsort_sorter sorter, cl_mem keys, size_t n, clsort_key_type key_type,
                             cl_mem indices, size_t index_size, clsort_flags flags,
                             cl_uint num_events_in_wait_list, const cl_event* event_wait_list,
                             cl_event* event) {
  return buffer_call(
      sorter, key_type, flags, {{"keys", keys}, {"indices", indices}},
      [&] { return check_width("index_size", index_size); }, num_events_in_wait_list, event_wait_list, event,
      [&](clsort::Sorter& s, clsort::KeyType type, const clsort::Options& options,
          const std::vector<cl::Event>& wait) {
        const cl::Buffer kbuf(keys, /*retainObject=*/true), ibuf(indices, /*retainObject=*/true);
        return s.argsort_buffer(type, kbuf, n, ibuf, index_size, options, wait);
      });
}

clsort_status clsort_top_k(clsort_sorter sorter, cl_mem keys, size_t n, size_t k, clsort_key_type key_type,
                           clsort_flags flags, cl_mem keys_out, cl_mem indices_out,
                           cl_uint num_events_in_wait_list, const cl_event* event_wait_list,
                           cl_event* event) {
  return buffer_call(
      sorter, key_type, flags, {{"keys", keys}, {"keys_out", keys_out}, {"indices_out", indices_out}},
      [] { return CLSORT_SUCCESS; }, num_events_in_wait_list, event_wait_list, event,
      [&](clsort::Sorter& s, clsort::KeyType type, const clsort::Options& options,
          const std::vector<cl::Event>& wait) {
        const cl::Buffer kbuf(keys, true), kout(keys_out, true), iout(indices_out, true);
        return s.top_k_buffer(type, kbuf, n, k, kout, iout, options, wait);
      });
}

clsort_status clsort_select(clsort_sorter sorter, cl_mem keys, size_t n, size_t k, clsort_key_type key_type,
                            clsort_flags flags, cl_mem key_out, cl_uint num_events_in_wait_list,
                            const cl_event* event_wait_list, cl_event* event) {
  return buffer_call(
      sorter, key_type, flags, {{"keys", keys}, {"key_out", key_out}}, [] { return CLSORT_SUCCESS; },
      num_events_in_wait_list, event_wait_list, event,
      [&](clsort::Sorter& s, clsort::KeyType type, const clsort::Options& options,
          const std::vector<cl::Event>& wait) {
        const cl::Buffer kbuf(keys, true), kout(key_out, true);
        return s.select_buffer(type, kbuf, n, k, kout, options, wait);
      });
}

clsort_status clsort_top_k_host(clsort_sorter sorter, const void* keys, size_t n, size_t k,
                                clsort_key_type key_type, clsort_flags flags, void* keys_out,
                                uint32_t* indices_out) {
  return host_call(
      sorter, key_type, flags, [] { return CLSORT_SUCCESS; },
      [&](clsort::Sorter& s, clsort::KeyType type, const clsort::Options& options) {
        s.top_k_host(type, keys, n, k, keys_out, indices_out, options);
      });
}

clsort_status clsort_select_host(clsort_sorter sorter, const void* keys, size_t n, size_t k,
                                 clsort_key_type key_type, clsort_flags flags, void* key_out) {
  return host_call(
      sorter, key_type, flags, [] { return CLSORT_SUCCESS; },
      [&](clsort::Sorter& s, clsort::KeyType type, const clsort::Options& options) {
        s.select_host(type, keys, n, k, key_out, options);
      });
}

clsort_status clsort_sort_segments(clsort_sorter sorter, cl_mem keys, cl_mem values, cl_mem offsets,
                                   size_t offset_size, size_t num_segments, clsort_key_type key_type,
                                   size_t value_size, clsort_flags flags, cl_uint num_events_in_wait_list,
                                   const cl_event* event_wait_list, cl_event* event) {
  return buffer_call(
      sorter, key_type, flags, {{"keys", keys}},
      [&] {
        if (clsort_status s = check_values(values, value_size)) return s;
        if (num_segments > 0)
          if (clsort_status s = check_buffer("offsets", offsets)) return s;
        return check_width("offset_size", offset_size);
      },
      num_events_in_wait_list, event_wait_list, event,
      [&](clsort::Sorter& s, clsort::KeyType type, clsort::Options options,
          const std::vector<cl::Event>& wait) {
        options.algorithm = clsort::Algorithm::automatic;
        const cl::Buffer kbuf(keys, true);
        cl::Buffer vbuf, obuf;
        if (values) vbuf = cl::Buffer(values, true);
        if (offsets) obuf = cl::Buffer(offsets, true);
        return s.sort_segments_buffer(type, kbuf, values ? &vbuf : nullptr, value_size, obuf, offset_size,
                                      num_segments, options, wait);
      });
}

clsort_status clsort_sort_segments_host(clsort_sorter sorter, void* keys, void* values, size_t n,
                                        const void* offsets, size_t offset_size, size_t num_segments,
                                        clsort_key_type key_type, size_t value_size, clsort_flags flags) {
  return host_call(
      sorter, key_type, flags,
      [&] {
        if (values)
          if (clsort_status s = check_value_size(value_size)) return s;
        return check_width("offset_size", offset_size);
      },
      [&](clsort::Sorter& s, clsort::KeyType type, clsort::Options options) {
        options.algorithm = clsort::Algorithm::automatic;
        s.sort_segments_host(type, keys, n, values, value_size, offsets, offset_size, num_segments, options);
      });
}

clsort_status clsort_lexsort(clsort_sorter sorter, const clsort_column* columns, size_t num_columns, size_t n,
                             cl_mem indices_out, cl_uint num_events_in_wait_list,
                             const cl_event* event_wait_list, cl_event* event) {
  if (event) *event = nullptr;
  return guarded([&] {
    if (!sorter) return invalid("sorter", "null clsort_sorter");
    std::vector<clsort::BufferColumn> buffers;
    if (clsort_status s = to_columns(columns, num_columns, n, true, nullptr, &buffers)) return s;
    if (clsort_status s = check_buffer("indices_out", indices_out)) return s;
    std::vector<cl::Event> wait;
    if (clsort_status s = check_wait_list(num_events_in_wait_list, event_wait_list, &wait)) return s;
    const cl::Buffer out(indices_out, true);
    return give_event(sorter->sorter.lexsort(buffers, n, out, wait), event);
  });
}

clsort_status clsort_lexsort_host(clsort_sorter sorter, const clsort_column* columns, size_t num_columns,
                                  size_t n, uint32_t* indices) {
  return guarded([&] {
    std::vector<clsort::Column> host;
    if (clsort_status s = to_columns(columns, num_columns, n, false, &host, nullptr)) return s;
    auto f = [&](clsort::Sorter& s) { s.lexsort_host(host.data(), host.size(), indices); };
    on_sorter(sorter, f);
    return succeed();
  });
}

clsort_status clsort_sort_custom(clsort_sorter sorter, cl_mem data, size_t n, size_t element_size,
                                 const char* type_source, const char* less, clsort_flags flags,
                                 cl_uint num_events_in_wait_list, const cl_event* event_wait_list,
                                 cl_event* event) {
  if (event) *event = nullptr;
  return guarded([&] {
    if (!sorter) return invalid("sorter", "null clsort_sorter");
    clsort::Options options;
    if (clsort_status s = custom_options(flags, &options)) return s;
    if (!type_source) return invalid("type_source", "null pointer");
    if (!less) return invalid("less", "null pointer");
    if (clsort_status s = check_buffer("data", data)) return s;
    std::vector<cl::Event> wait;
    if (clsort_status s = check_wait_list(num_events_in_wait_list, event_wait_list, &wait)) return s;
    const cl::Buffer buf(data, true);
    return give_event(
        sorter->sorter.sort_custom_buffer(buf, n, element_size, type_source, less, options, wait), event);
  });
}

clsort_status clsort_sort_custom_host(clsort_sorter sorter, void* data, size_t n, size_t element_size,
                                      const char* type_source, const char* less, clsort_flags flags) {
  return guarded([&] {
    clsort::Options options;
    if (clsort_status s = custom_options(flags, &options)) return s;
    if (!type_source) return invalid("type_source", "null pointer");
    if (!less) return invalid("less", "null pointer");
    auto f = [&](clsort::Sorter& s) {
      s.sort_custom_host(data, n, element_size, type_source, less, options);
    };
    on_sorter(sorter, f);
    return succeed();
  });
}

const char* clsort_status_string(clsort_status status) {
  switch (status) {
    case CLSORT_SUCCESS:
      return "CLSORT_SUCCESS";
    case CLSORT_ERROR_INVALID_ARGUMENT:
      return "CLSORT_ERROR_INVALID_ARGUMENT";
    case CLSORT_ERROR_OPENCL:
      return "CLSORT_ERROR_OPENCL";
    case CLSORT_ERROR_BUILD_FAILURE:
      return "CLSORT_ERROR_BUILD_FAILURE";
    case CLSORT_ERROR_OUT_OF_MEMORY:
      return "CLSORT_ERROR_OUT_OF_MEMORY";
    case CLSORT_ERROR_DEVICE_NOT_FOUND:
      return "CLSORT_ERROR_DEVICE_NOT_FOUND";
    case CLSORT_ERROR_INTERNAL:
      return "CLSORT_ERROR_INTERNAL";
  }
  return "unknown clsort_status";
}

const char* clsort_opencl_status_string(cl_int status) {
  return clsort::status_name(status);
}

const char* clsort_last_error_message(void) {
  return t_last.message.c_str();
}

cl_int clsort_last_opencl_status(void) {
  return t_last.opencl;
}

const char* clsort_version_string(void) {
  return CLSORT_VERSION_STRING;
}

}  // extern "C"
