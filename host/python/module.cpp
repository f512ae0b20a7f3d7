// clsort._clsort: the nanobind module behind the Python package clsort (host/python/clsort). It stays
// thin: the package checks arguments and picks dtypes and devices in Python; this holds the Sorters, wraps
// pyopencl's raw handles, releases the GIL while a sort runs and turns clsort::Error into clsort.Error.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <clsort/clsort.hpp>

#include "error_translation.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace {

// clsort.Error, made here so that the translator can fill in its attributes; the package re-exports it.
PyObject* error_type = nullptr;

// Device info strings; a failing query reads as empty rather than throwing from a property.
template <cl_device_info Info>
std::string device_string(const cl::Device& d) {
  std::string s = d.getInfo<Info>();
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

struct Device {
  cl::Device device;

  std::uintptr_t int_ptr() const { return reinterpret_cast<std::uintptr_t>(device()); }
  std::string platform() const {
    cl::Platform p(device.getInfo<CL_DEVICE_PLATFORM>(), true);
    std::string s = p.getInfo<CL_PLATFORM_NAME>();
    while (!s.empty() && s.back() == '\0') s.pop_back();
    return s;
  }
  std::string type() const {
    const cl_device_type t = device.getInfo<CL_DEVICE_TYPE>();
    if (t & CL_DEVICE_TYPE_GPU) return "GPU";
    if (t & CL_DEVICE_TYPE_CPU) return "CPU";
    if (t & CL_DEVICE_TYPE_ACCELERATOR) return "ACCELERATOR";
    return "OTHER";
  }
};

struct Event {
  cl::Event event;
  std::uintptr_t int_ptr() const { return reinterpret_cast<std::uintptr_t>(event()); }
};

// A Sorter serves one thread at a time, and the GIL no longer serializes callers while it sorts.
struct PySorter {
  explicit PySorter(clsort::Sorter&& s) : sorter(std::move(s)) {}
  clsort::Sorter sorter;
  std::mutex mutex;
};

// begin_bit and end_bit as Options takes them (end_bit 0: the key's width); the package maps Python's
// ranges onto them, an empty range at bit 0 to one at the key's width.
clsort::Options options_of(bool descending, const std::string& algorithm, unsigned begin_bit = 0,
                           unsigned end_bit = 0) {
  clsort::Options o;
  o.order = descending ? clsort::Order::descending : clsort::Order::ascending;
  o.algorithm = clsort::parse_algorithm(algorithm);
  o.begin_bit = begin_bit;
  o.end_bit = end_bit;
  return o;
}

// Whether an array (as DLPack sees it) holds keys of `type`: the package's dtype map decides, this only
// keeps a wrong pairing from reaching the device. NumPy has no bfloat16: the package passes ml_dtypes'
// bfloat16 keys as their bits, a uint16 view, as the C API takes them.
bool holds(clsort::KeyType type, nb::dlpack::dtype dt) {
  using C = nb::dlpack::dtype_code;
  const clsort::KeyTypeInfo* row = clsort::find_key_type(type);
  if (!row || dt.bits != 8 * row->bytes || dt.lanes != 1) return false;
  switch (row->kind) {
    case clsort::KeyKind::unsigned_int:
      return dt.code == std::uint8_t(C::UInt);
    case clsort::KeyKind::signed_int:
      return dt.code == std::uint8_t(C::Int);
    case clsort::KeyKind::ieee_float:
      return dt.code == std::uint8_t(C::Float);
    case clsort::KeyKind::bfloat:
      return dt.code == std::uint8_t(C::Bfloat) || dt.code == std::uint8_t(C::UInt);
  }
  return false;
}

using KeysIn = nb::ndarray<nb::ndim<1>, nb::c_contig, nb::device::cpu>;
using KeysRead = nb::ndarray<nb::ro, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

void check_keys(clsort::KeyType type, nb::dlpack::dtype dt) {
  if (!holds(type, dt))
    throw nb::type_error(("clsort: keys do not hold " + std::string(clsort::to_string(type))).c_str());
}

// value_bytes 0: values of the array's own itemsize; otherwise the array holds n values of value_bytes
// bytes each as n * value_bytes bytes (any width, as a uint8 view).
void sort_host(PySorter& s, clsort::KeyType type, KeysIn keys, nb::object values_obj, bool descending,
               const std::string& algorithm, std::size_t value_bytes, unsigned begin_bit, unsigned end_bit) {
  check_keys(type, keys.dtype());
  const std::size_t n = keys.shape(0);
  void* values = nullptr;
  KeysIn values_array;
  if (!values_obj.is_none()) {
    if (!nb::try_cast(values_obj, values_array, false))
      throw nb::type_error("clsort: values must be a writable C-contiguous 1-D array");
    const std::size_t elements = value_bytes ? n * value_bytes : n;
    if (value_bytes && values_array.itemsize() != 1)
      throw nb::type_error("clsort: values of value_bytes must be given as bytes (uint8)");
    if (!value_bytes) value_bytes = values_array.itemsize();
    if (values_array.shape(0) != elements) throw nb::value_error("clsort: values and keys differ in length");
    values = values_array.data();
  }
  const clsort::Options options = options_of(descending, algorithm, begin_bit, end_bit);
  nb::gil_scoped_release release;
  std::lock_guard<std::mutex> lock(s.mutex);
  s.sorter.sort_host(type, keys.data(), n, values, value_bytes, options);
}

// clsort.sort of a C-contiguous native array: sorted from `keys` into `out`, with no copy first.
void sort_copy_host(PySorter& s, clsort::KeyType type, KeysRead keys, KeysIn out, bool descending,
                    const std::string& algorithm, unsigned begin_bit, unsigned end_bit) {
  check_keys(type, keys.dtype());
  check_keys(type, out.dtype());
  const std::size_t n = keys.shape(0);
  if (out.shape(0) != n) throw nb::value_error("clsort: out and keys differ in length");
  const clsort::Options options = options_of(descending, algorithm, begin_bit, end_bit);
  nb::gil_scoped_release release;
  std::lock_guard<std::mutex> lock(s.mutex);
  s.sorter.sort_copy_host(type, keys.data(), out.data(), n, options);
}

void argsort_host(PySorter& s, clsort::KeyType type, KeysRead keys, KeysIn out, bool descending,
                  const std::string& algorithm, unsigned begin_bit, unsigned end_bit) {
  check_keys(type, keys.dtype());
  const std::size_t n = keys.shape(0);
  if (out.shape(0) != n || out.dtype() != nb::dtype<std::int64_t>())
    throw nb::type_error("clsort: argsort's output must be int64 of the keys' length");
  const clsort::Options options = options_of(descending, algorithm, begin_bit, end_bit);
  nb::gil_scoped_release release;
  if (n > 0xFFFFFFFFu) {
    // 64-bit indices straight into NumPy's int64 (the same bits below 2^63).
    std::lock_guard<std::mutex> lock(s.mutex);
    s.sorter.argsort64_host(type, keys.data(), n, static_cast<std::uint64_t*>(out.data()), options);
    return;
  }
  // Below 2^32, 32-bit indices: half the bytes through every pass.
  std::vector<std::uint32_t> indices(n);
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    s.sorter.argsort_host(type, keys.data(), n, indices.data(), options);
  }
  auto* o = static_cast<std::int64_t*>(out.data());
  for (std::size_t i = 0; i < n; ++i) o[i] = indices[i];
}

// top_k of host keys: k keys into keys_out (the keys' type) and their indices into indices_out (uint32).
void top_k_host(PySorter& s, clsort::KeyType type, KeysRead keys, std::size_t k, KeysIn keys_out,
                KeysIn indices_out, bool descending) {
  check_keys(type, keys.dtype());
  check_keys(type, keys_out.dtype());
  if (keys_out.shape(0) != k || indices_out.shape(0) != k ||
      indices_out.dtype() != nb::dtype<std::uint32_t>())
    throw nb::type_error("clsort: top_k's outputs must hold k keys and k uint32 indices");
  const clsort::Options options = options_of(descending, "automatic");
  nb::gil_scoped_release release;
  std::lock_guard<std::mutex> lock(s.mutex);
  s.sorter.top_k_host(type, keys.data(), keys.shape(0), k, keys_out.data(),
                      static_cast<std::uint32_t*>(indices_out.data()), options);
}

// select of host keys: the key at sorted position k into key_out (one key of the keys' type).
void select_host(PySorter& s, clsort::KeyType type, KeysRead keys, std::size_t k, KeysIn key_out,
                 bool descending) {
  check_keys(type, keys.dtype());
  check_keys(type, key_out.dtype());
  if (key_out.shape(0) != 1) throw nb::type_error("clsort: select's output must hold one key");
  const clsort::Options options = options_of(descending, "automatic");
  nb::gil_scoped_release release;
  std::lock_guard<std::mutex> lock(s.mutex);
  s.sorter.select_host(type, keys.data(), keys.shape(0), k, key_out.data(), options);
}

// lexsort of host columns (columns[0] primary, as the library takes them) into `out` (uint32, n).
void lexsort_host(PySorter& s, const std::vector<clsort::KeyType>& types, const std::vector<KeysRead>& keys,
                  const std::vector<bool>& descending, KeysIn out) {
  if (types.size() != keys.size() || descending.size() != keys.size())
    throw nb::value_error("clsort: lexsort takes one type and one order per column");
  std::vector<clsort::Column> columns;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    check_keys(types[i], keys[i].dtype());
    columns.push_back({types[i], keys[i].data(), keys[i].shape(0),
                       descending[i] ? clsort::Order::descending : clsort::Order::ascending});
  }
  const std::size_t n = columns.empty() ? 0 : columns[0].n;
  if (out.shape(0) != n || out.dtype() != nb::dtype<std::uint32_t>())
    throw nb::type_error("clsort: lexsort's output must be uint32 of the columns' length");
  nb::gil_scoped_release release;
  std::lock_guard<std::mutex> lock(s.mutex);
  s.sorter.lexsort_host(columns.data(), columns.size(), static_cast<std::uint32_t*>(out.data()));
}

// sort_segments of host keys in place, with values (None, or an array of 4- or 8-byte values, or bytes of
// value_bytes each) and offsets (uint32 or uint64, num_segments + 1 of them).
void sort_segments_host(PySorter& s, clsort::KeyType type, KeysIn keys, nb::object values_obj,
                        std::size_t value_bytes, KeysRead offsets, bool descending, unsigned begin_bit,
                        unsigned end_bit) {
  check_keys(type, keys.dtype());
  const std::size_t n = keys.shape(0);
  const std::size_t offset_bytes = offsets.itemsize();
  if (offsets.dtype().code != std::uint8_t(nb::dlpack::dtype_code::UInt) ||
      (offset_bytes != 4 && offset_bytes != 8))
    throw nb::type_error("clsort: offsets must be uint32 or uint64");
  void* values = nullptr;
  KeysIn values_array;
  if (!values_obj.is_none()) {
    if (!nb::try_cast(values_obj, values_array, false))
      throw nb::type_error("clsort: values must be a writable C-contiguous 1-D array");
    if (value_bytes && values_array.itemsize() != 1)
      throw nb::type_error("clsort: values of value_bytes must be given as bytes (uint8)");
    const std::size_t elements = value_bytes ? n * value_bytes : n;
    if (!value_bytes) value_bytes = values_array.itemsize();
    if (values_array.shape(0) != elements) throw nb::value_error("clsort: values and keys differ in length");
    values = values_array.data();
  }
  const std::size_t num_segments = offsets.shape(0) ? offsets.shape(0) - 1 : 0;
  const clsort::Options options = options_of(descending, "automatic", begin_bit, end_bit);
  nb::gil_scoped_release release;
  std::lock_guard<std::mutex> lock(s.mutex);
  s.sorter.sort_segments_host(type, keys.data(), n, values, value_bytes, offsets.data(), offset_bytes,
                              num_segments, options);
}

Event sort_buffer(PySorter& s, clsort::KeyType type, std::uintptr_t keys, std::uintptr_t values,
                  std::size_t value_bytes, std::size_t n, bool descending, const std::string& algorithm,
                  const std::vector<std::uintptr_t>& wait, unsigned begin_bit, unsigned end_bit) {
  // pyopencl keeps its references; these wrappers take their own (retain) and drop them on return.
  const cl::Buffer kbuf(reinterpret_cast<cl_mem>(keys), true);
  cl::Buffer vbuf;
  if (values) vbuf = cl::Buffer(reinterpret_cast<cl_mem>(values), true);
  std::vector<cl::Event> events;
  for (std::uintptr_t e : wait) events.emplace_back(reinterpret_cast<cl_event>(e), true);
  const clsort::Options options = options_of(descending, algorithm, begin_bit, end_bit);
  nb::gil_scoped_release release;
  std::lock_guard<std::mutex> lock(s.mutex);
  return Event{s.sorter.sort_buffer(type, kbuf, values ? &vbuf : nullptr, value_bytes, n, options, events)};
}

std::vector<cl::Event> events_of(const std::vector<std::uintptr_t>& wait) {
  std::vector<cl::Event> events;
  for (std::uintptr_t e : wait) events.emplace_back(reinterpret_cast<cl_event>(e), true);
  return events;
}

// The buffer entries below take pyopencl's handles as sort_buffer does: wrappers that retain them for
// the call only (the enqueued commands keep what they use), and an event pyopencl takes its own reference
// to. An unused output may be 0 only where n or k makes the library touch nothing.
cl::Buffer buffer_of(std::uintptr_t handle) {
  return handle ? cl::Buffer(reinterpret_cast<cl_mem>(handle), true) : cl::Buffer();
}

Event top_k_buffer(PySorter& s, clsort::KeyType type, std::uintptr_t keys, std::size_t n, std::size_t k,
                   std::uintptr_t keys_out, std::uintptr_t indices_out, bool descending,
                   const std::vector<std::uintptr_t>& wait) {
  const cl::Buffer kbuf = buffer_of(keys), obuf = buffer_of(keys_out), ibuf = buffer_of(indices_out);
  const std::vector<cl::Event> events = events_of(wait);
  const clsort::Options options = options_of(descending, "automatic");
  nb::gil_scoped_release release;
  std::lock_guard<std::mutex> lock(s.mutex);
  return Event{s.sorter.top_k_buffer(type, kbuf, n, k, obuf, ibuf, options, events)};
}

Event select_buffer(PySorter& s, clsort::KeyType type, std::uintptr_t keys, std::size_t n, std::size_t k,
                    std::uintptr_t key_out, bool descending, const std::vector<std::uintptr_t>& wait) {
  const cl::Buffer kbuf = buffer_of(keys), obuf = buffer_of(key_out);
  const std::vector<cl::Event> events = events_of(wait);
  const clsort::Options options = options_of(descending, "automatic");
  nb::gil_scoped_release release;
  std::lock_guard<std::mutex> lock(s.mutex);
  return Event{s.sorter.select_buffer(type, kbuf, n, k, obuf, options, events)};
}

Event argsort_buffer(PySorter& s, clsort::KeyType type, std::uintptr_t keys, std::size_t n,
                     std::uintptr_t indices, std::size_t index_bytes, bool descending,
                     const std::string& algorithm, const std::vector<std::uintptr_t>& wait,
                     unsigned begin_bit, unsigned end_bit) {
  const cl::Buffer kbuf = buffer_of(keys), ibuf = buffer_of(indices);
  const std::vector<cl::Event> events = events_of(wait);
  const clsort::Options options = options_of(descending, algorithm, begin_bit, end_bit);
  nb::gil_scoped_release release;
  std::lock_guard<std::mutex> lock(s.mutex);
  return Event{s.sorter.argsort_buffer(type, kbuf, n, ibuf, index_bytes, options, events)};
}

// lexsort of device columns (columns[0] primary, as the library takes them) into `indices_out` (uint32).
Event lexsort_buffer(PySorter& s, const std::vector<clsort::KeyType>& types,
                     const std::vector<std::uintptr_t>& columns, const std::vector<bool>& descending,
                     std::size_t n, std::uintptr_t indices_out, const std::vector<std::uintptr_t>& wait) {
  if (types.size() != columns.size() || descending.size() != columns.size())
    throw nb::value_error("clsort: lexsort takes one type and one order per column");
  std::vector<clsort::BufferColumn> cols;
  for (std::size_t i = 0; i < columns.size(); ++i)
    cols.push_back({types[i], buffer_of(columns[i]),
                    descending[i] ? clsort::Order::descending : clsort::Order::ascending});
  const cl::Buffer ibuf = buffer_of(indices_out);
  const std::vector<cl::Event> events = events_of(wait);
  nb::gil_scoped_release release;
  std::lock_guard<std::mutex> lock(s.mutex);
  return Event{s.sorter.lexsort(cols, n, ibuf, events)};
}

// Blocks until `wait` completes (the library reads its offset check back), with the GIL released.
Event sort_segments_buffer(PySorter& s, clsort::KeyType type, std::uintptr_t keys, std::uintptr_t values,
                           std::size_t value_bytes, std::uintptr_t offsets, std::size_t offset_bytes,
                           std::size_t num_segments, bool descending, unsigned begin_bit, unsigned end_bit,
                           const std::vector<std::uintptr_t>& wait) {
  const cl::Buffer kbuf = buffer_of(keys), obuf = buffer_of(offsets);
  cl::Buffer vbuf = buffer_of(values);
  const std::vector<cl::Event> events = events_of(wait);
  const clsort::Options options = options_of(descending, "automatic", begin_bit, end_bit);
  nb::gil_scoped_release release;
  std::lock_guard<std::mutex> lock(s.mutex);
  return Event{s.sorter.sort_segments_buffer(type, kbuf, values ? &vbuf : nullptr, value_bytes, obuf,
                                             offset_bytes, num_segments, options, events)};
}

// For clsort.bench: the C++ call that clsort.sort(a) wraps, Sorter::sort_copy_host from the keys into a new
// array, timed here without Python in between (seconds per repetition). With `fresh`, each repetition
// sorts into memory allocated for it (untouched, as np.empty's is: its pages are first written by the
// download), as a call returning a new array does; else into one array allocated and written beforehand.
std::vector<double> time_sort_copy(PySorter& s, clsort::KeyType type, KeysRead keys, int reps, bool fresh) {
  check_keys(type, keys.dtype());
  const std::size_t n = keys.shape(0), bytes = n * clsort::key_size(type);
  std::vector<double> seconds;
  nb::gil_scoped_release release;
  std::lock_guard<std::mutex> lock(s.mutex);
  std::vector<unsigned char> reused(fresh ? 0 : bytes);
  for (int r = 0; r < reps; ++r) {
    const auto start = std::chrono::steady_clock::now();
    const std::unique_ptr<unsigned char[]> out(fresh ? new unsigned char[bytes] : nullptr);
    s.sorter.sort_copy_host(type, keys.data(), fresh ? out.get() : reused.data(), n, {});
    seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return seconds;
}

nb::dict plan(const PySorter& s, clsort::KeyType type, std::size_t n, std::size_t value_bytes,
              bool descending, const std::string& algorithm) {
  const clsort::SortPlan p = s.sorter.plan(type, n, value_bytes, options_of(descending, algorithm));
  nb::dict d;
  d["algorithm"] = clsort::to_string(p.algorithm);
  d["shape"] = p.shape;
  d["build_options"] = p.build_options;
  d["tuning_row"] = p.tuning_row;
  d["tuning"] = p.tuning;
  return d;
}

}  // namespace

NB_MODULE(_clsort, m) {
  m.doc() = "clsort's extension module; use the package clsort instead.";
  m.attr("__version__") = CLSORT_VERSION_STRING;

  error_type = PyErr_NewExceptionWithDoc(
      "clsort.Error",
      "A failure inside clsort or OpenCL. Attributes: status (the OpenCL status, int), status_name\n"
      "(e.g. 'CL_BUILD_PROGRAM_FAILURE'), where (the failing OpenCL call or argument), build_log (the\n"
      "compiler's log when a kernel failed to build, else ''), kind ('opencl', 'invalid_argument',\n"
      "'build_failure', 'device_not_found' or 'out_of_memory').",
      PyExc_RuntimeError, nullptr);
  m.attr("Error") = nb::handle(error_type);
  clsort_python::translate_errors(error_type);

  // The library's key-type table (clsort/key_types.h), from which the package builds its dtype map.
  nb::enum_<clsort::KeyType> key_type(m, "KeyType");
  for (const clsort::KeyTypeInfo& row : clsort::key_types()) key_type.value(row.name, row.type);
  m.def(
      "key_types",
      [] {
        nb::list rows;
        for (const clsort::KeyTypeInfo& row : clsort::key_types()) {
          nb::dict d;
          d["name"] = row.name;
          d["type"] = row.type;
          d["value"] = row.c_value;
          d["bytes"] = row.bytes;
          d["kind"] = clsort::to_string(row.kind);
          d["is_float"] = row.is_float();
          rows.append(d);
        }
        return rows;
      },
      "The key types the library sorts, in the order of their values: dicts of name, type (KeyType), value "
      "(clsort_key_type's in C), bytes, kind ('unsigned_int', 'signed_int', 'ieee_float', 'bfloat') and "
      "is_float.");

  nb::list algorithms;
  for (clsort::Algorithm a :
       {clsort::Algorithm::automatic, clsort::Algorithm::radix, clsort::Algorithm::bitonic,
        clsort::Algorithm::selection, clsort::Algorithm::odd_even, clsort::Algorithm::merge})
    algorithms.append(clsort::to_string(a));
  m.attr("ALGORITHMS") = nb::tuple(algorithms);
  m.def(
      "max_n", [](const std::string& a) { return clsort::max_n(clsort::parse_algorithm(a)); }, "algorithm"_a);
  m.def("status_name", [](cl_int status) { return std::string(clsort::status_name(status)); });

  nb::class_<Device>(m, "Device", "An OpenCL device as clsort sees it (clsort.devices()).")
      .def_prop_ro("name", [](const Device& d) { return device_string<CL_DEVICE_NAME>(d.device); })
      .def_prop_ro("vendor", [](const Device& d) { return device_string<CL_DEVICE_VENDOR>(d.device); })
      .def_prop_ro("version", [](const Device& d) { return device_string<CL_DEVICE_VERSION>(d.device); })
      .def_prop_ro("driver_version",
                   [](const Device& d) { return device_string<CL_DRIVER_VERSION>(d.device); })
      .def_prop_ro("platform", &Device::platform)
      .def_prop_ro("type", &Device::type, "'GPU', 'CPU', 'ACCELERATOR' or 'OTHER'")
      .def_prop_ro("compute_units",
                   [](const Device& d) { return d.device.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>(); })
      .def_prop_ro(
          "global_mem_size",
          [](const Device& d) { return std::uint64_t(d.device.getInfo<CL_DEVICE_GLOBAL_MEM_SIZE>()); })
      .def_prop_ro("int_ptr", &Device::int_ptr,
                   "The cl_device_id, as pyopencl.Device.from_int_ptr() takes it.")
      .def("__eq__", [](const Device& a, const Device& b) { return a.device() == b.device(); })
      .def(
          "__eq__", [](const Device&, nb::handle) { return false; }, nb::arg("other").none())
      .def("__hash__", [](const Device& d) { return std::hash<std::uintptr_t>()(d.int_ptr()); })
      .def("__repr__", [](const Device& d) {
        return "<clsort.Device '" + device_string<CL_DEVICE_NAME>(d.device) + "' on '" + d.platform() +
               "', " + d.type() + ">";
      });

  m.def("devices", [] {
    std::vector<Device> r;
    for (const cl::Device& d : clsort::all_devices()) r.push_back({d});
    return r;
  });
  m.def("default_device", [] { return Device{clsort::default_device()}; });
  m.def("default_device_reason", &clsort::default_device_reason);
  m.def(
      "select_device", [](const std::string& spec) { return Device{clsort::select_device(spec)}; }, "spec"_a);

  nb::class_<Event>(m, "Event").def_prop_ro("int_ptr", &Event::int_ptr).def("wait", [](Event& e) {
    cl_int status;
    {
      nb::gil_scoped_release release;
      status = e.event.wait();
    }
    if (status != CL_SUCCESS)
      throw clsort::Error(status, "clWaitForEvents", "clsort: waiting for a sort failed");
  });

  nb::class_<PySorter>(m, "Sorter")
      .def(
          "__init__",
          [](PySorter* self, const Device& d, bool profiling) {
            new (self) PySorter(clsort::Sorter(d.device, profiling));
          },
          "device"_a, "profiling"_a = false)
      .def_static(
          "from_queue",
          [](std::uintptr_t queue) { return new PySorter(clsort_python::sorter_on_queue(queue, "clsort")); },
          "queue_int_ptr"_a, nb::rv_policy::take_ownership)
      .def_prop_ro("device", [](const PySorter& s) { return Device{s.sorter.device()}; })
      .def_prop_ro("queue_int_ptr",
                   [](const PySorter& s) { return reinterpret_cast<std::uintptr_t>(s.sorter.queue()()); })
      .def("sort_host", &sort_host, "type"_a, "keys"_a.noconvert(), "values"_a.none(), "descending"_a,
           "algorithm"_a, "value_bytes"_a = 0, "begin_bit"_a = 0, "end_bit"_a = 0)
      .def("sort_copy_host", &sort_copy_host, "type"_a, "keys"_a.noconvert(), "out"_a.noconvert(),
           "descending"_a, "algorithm"_a, "begin_bit"_a = 0, "end_bit"_a = 0)
      .def("argsort_host", &argsort_host, "type"_a, "keys"_a.noconvert(), "out"_a.noconvert(), "descending"_a,
           "algorithm"_a, "begin_bit"_a = 0, "end_bit"_a = 0)
      .def("sort_buffer", &sort_buffer, "type"_a, "keys"_a, "values"_a, "value_bytes"_a, "n"_a,
           "descending"_a, "algorithm"_a, "wait"_a, "begin_bit"_a = 0, "end_bit"_a = 0)
      .def("top_k_buffer", &top_k_buffer, "type"_a, "keys"_a, "n"_a, "k"_a, "keys_out"_a, "indices_out"_a,
           "descending"_a, "wait"_a)
      .def("select_buffer", &select_buffer, "type"_a, "keys"_a, "n"_a, "k"_a, "key_out"_a, "descending"_a,
           "wait"_a)
      .def("argsort_buffer", &argsort_buffer, "type"_a, "keys"_a, "n"_a, "indices"_a, "index_bytes"_a,
           "descending"_a, "algorithm"_a, "wait"_a, "begin_bit"_a = 0, "end_bit"_a = 0)
      .def("lexsort_buffer", &lexsort_buffer, "types"_a, "columns"_a, "descending"_a, "n"_a, "indices_out"_a,
           "wait"_a)
      .def("sort_segments_buffer", &sort_segments_buffer, "type"_a, "keys"_a, "values"_a, "value_bytes"_a,
           "offsets"_a, "offset_bytes"_a, "num_segments"_a, "descending"_a, "begin_bit"_a, "end_bit"_a,
           "wait"_a)
      .def("top_k_host", &top_k_host, "type"_a, "keys"_a.noconvert(), "k"_a, "keys_out"_a.noconvert(),
           "indices_out"_a.noconvert(), "descending"_a)
      .def("select_host", &select_host, "type"_a, "keys"_a.noconvert(), "k"_a, "key_out"_a.noconvert(),
           "descending"_a)
      .def("lexsort_host", &lexsort_host, "types"_a, "keys"_a, "descending"_a, "out"_a.noconvert())
      .def("sort_segments_host", &sort_segments_host, "type"_a, "keys"_a.noconvert(), "values"_a.none(),
           "value_bytes"_a, "offsets"_a.noconvert(), "descending"_a, "begin_bit"_a, "end_bit"_a)
      .def("time_sort_copy", &time_sort_copy, "type"_a, "keys"_a.noconvert(), "reps"_a, "fresh"_a)
      .def("plan", &plan, "type"_a, "n"_a, "value_bytes"_a, "descending"_a, "algorithm"_a)
      .def("scratch_bytes",
           [](PySorter& p) {
             std::lock_guard<std::mutex> lock(p.mutex);
             return p.sorter.scratch_bytes();
           })
      .def(
          "keep_scratch",
          [](PySorter& p, std::size_t bytes) {
            std::lock_guard<std::mutex> lock(p.mutex);
            p.sorter.keep_scratch(bytes);
          },
          "bytes"_a)
      .def("release_scratch", [](PySorter& p) {
        std::lock_guard<std::mutex> lock(p.mutex);
        p.sorter.release_scratch();
      });
}
