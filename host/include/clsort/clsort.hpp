// clsort: sorting on any OpenCL device (NVIDIA, AMD and Intel GPUs, PoCL's CPU device).
// The public C++ API: a Sorter bound to one command queue, and free functions on a process-wide Sorter.
//
//   #include <clsort/clsort.hpp>
//   std::vector<float> keys = ...;
//   clsort::sort(keys);                                          // default device, ascending
//   clsort::Sorter sorter;                                       // or your own cl::CommandQueue
//   sorter.sort(keys, {clsort::Order::descending});
//   std::vector<std::uint32_t> perm = sorter.argsort(keys);      // stable
//   std::vector<std::uint64_t> perm64 = sorter.argsort64(keys);  // 64-bit indices
//   clsort::TopK<float> best = sorter.top_k(keys, 10);           // the 10 smallest, sorted, with indices
//   float median = sorter.select(keys, keys.size() / 2);         // the key at sorted position n / 2
//
// Semantics: ascending order is by value; for floats -0.0 sorts before +0.0 and every NaN (either sign,
// any payload) sorts after +inf. Descending is the exact reverse. The output is always a permutation of
// the input's bit patterns. sort_by_key and argsort are stable in both orders.
#pragma once

#ifndef CL_HPP_TARGET_OPENCL_VERSION
#define CL_HPP_TARGET_OPENCL_VERSION 120
#endif
#ifndef CL_HPP_MINIMUM_OPENCL_VERSION
#define CL_HPP_MINIMUM_OPENCL_VERSION 120
#endif
#include <CL/opencl.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "clsort/float16.hpp"
#include "clsort/key_types.hpp"
#include "clsort/version.hpp"

/// Marks what the shared library exports: it is built with hidden visibility, so only the C++ API declared
/// here (and the C API, CLSORT_C_API in clsort.h) is visible to applications.
#ifndef CLSORT_API
#if defined(_WIN32)
#define CLSORT_API
#elif defined(__GNUC__)
#define CLSORT_API __attribute__((visibility("default")))
#else
#define CLSORT_API
#endif
#endif

namespace clsort {

/// The order of the result: ascending by value, or its exact reverse.
enum class Order { ascending, descending };

/// Which sorting algorithm runs. `automatic` picks by n, key type and device class; it never picks
/// odd_even (O(n) phases) or selection (O(n^2) work).
enum class Algorithm { automatic, radix, bitonic, selection, odd_even, merge };

/// How one call sorts.
struct Options {
  Order order = Order::ascending;              ///< ascending or descending
  Algorithm algorithm = Algorithm::automatic;  ///< forcing one applies its limit on n (max_n())
  /// Radix sort only (automatic then runs radix; forcing another algorithm throws): order by bits
  /// [begin_bit, end_bit) of each key's order-preserving code (clsort/key_transform.hpp's encode_key, before
  /// descending's inversion) and ignore the others, as CUB's begin_bit / end_bit do. Keys equal in those
  /// bits keep their input order (the sort is stable). Only the passes over those bits run: keys known to
  /// use 20 bits sort in 3 passes of 8 bits instead of 4. end_bit 0 means the key's width; otherwise
  /// begin_bit <= end_bit <= the key's bits, else Error naming the argument. An empty range (begin_bit ==
  /// end_bit, e.g. computed from keys that are all equal) orders by nothing: keys and values stay as they
  /// are and argsort is the identity, with nothing enqueued but the indices (and a marker).
  unsigned begin_bit = 0;
  unsigned end_bit = 0;  ///< see begin_bit; 0: the key's width
};

/// What top_k returns for host data: the k first keys in the requested order, sorted, and their input
/// indices (keys[i] == input[indices[i]]).
template <class K>
struct TopK {
  std::vector<K> keys;
  std::vector<std::uint32_t> indices;
};

/// One key column of a lexicographic sort (Sorter::lexsort) of host data: `n` keys of `type` at `data`,
/// ordered by `order`. clsort::column(vector, order) makes one from a std::vector.
struct Column {
  KeyType type = KeyType::u32;
  const void* data = nullptr;
  std::size_t n = 0;
  Order order = Order::ascending;
};
/// One key column of a lexicographic sort of device data: the first n keys of `type` in `data`.
struct BufferColumn {
  KeyType type = KeyType::u32;
  cl::Buffer data;
  Order order = Order::ascending;
};

/// The error every clsort call throws. `status()` is the OpenCL status (CL_INVALID_VALUE and friends for
/// argument errors found by clsort itself), `where()` names the failing OpenCL call or the offending
/// argument, `build_log()` holds the compiler's log when a kernel build failed.
class CLSORT_API Error : public std::runtime_error {
 public:
  /// What kind of failure, for callers (and the C API) that branch on it.
  enum class Kind {
    opencl,            ///< an OpenCL call failed; status() says how
    invalid_argument,  ///< an argument clsort refused before doing anything; where() names it
    build_failure,     ///< a kernel program failed to build or its source could not be read
    device_not_found,  ///< no OpenCL device matches the selection
    out_of_memory      ///< the sort needs more device memory than one allocation may hold
  };
  /// `message` is what what() returns; it already names the status and `where`.
  Error(cl_int status, std::string where, const std::string& message, std::string build_log = {},
        Kind kind = Kind::opencl);
  /// The OpenCL status of the failure.
  cl_int status() const noexcept { return status_; }
  /// The failing OpenCL call ("clBuildProgram", ...) or the argument at fault ("n", "values", ...).
  const std::string& where() const noexcept { return where_; }
  /// The compiler's log when a kernel failed to build; empty otherwise.
  const std::string& build_log() const noexcept { return build_log_; }
  Kind kind() const noexcept { return kind_; }

 private:
  cl_int status_;
  Kind kind_;
  std::string where_;
  std::string build_log_;
};

/// The symbolic name of an OpenCL status code, e.g. "CL_OUT_OF_RESOURCES".
CLSORT_API const char* status_name(cl_int status) noexcept;

CLSORT_API const char* to_string(Algorithm a) noexcept;
/// The key type's name ("u32", ...); "?" when `t` is not a KeyType.
CLSORT_API const char* to_string(KeyType t) noexcept;
/// "unsigned_int", "signed_int", "ieee_float" or "bfloat".
CLSORT_API const char* to_string(KeyKind k) noexcept;
CLSORT_API const char* to_string(Order o) noexcept;
/// Parses "automatic", "radix", "bitonic", "selection", "odd_even", "merge"; throws Error naming the
/// text otherwise.
CLSORT_API Algorithm parse_algorithm(const std::string& name);
/// Parses a key type's name ("u32", ..., "bf16": to_string's); throws Error (invalid_argument, where()
/// "key_type") naming the text and listing the names otherwise.
CLSORT_API KeyType parse_key_type(const std::string& name);

/// Every device of every platform, in platform order.
CLSORT_API std::vector<cl::Device> all_devices();

/// The device clsort uses by default. CLSORT_DEVICE selects one: `gpu`, `cpu`, a substring of the device
/// or platform name (case-insensitive), or `<platform index>:<device index>`. Without it: the first GPU,
/// else the first CPU device (PoCL). Throws Error when no device matches.
CLSORT_API cl::Device default_device();
/// Why default_device() picked what it did, for tools ("CLSORT_DEVICE=gpu", "first GPU", ...).
CLSORT_API std::string default_device_reason();
/// The device that `spec` (same syntax as CLSORT_DEVICE) selects.
CLSORT_API cl::Device select_device(const std::string& spec);

/// What one kernel launch or copy of the last sort cost, from OpenCL profiling events. Filled only when
/// the Sorter's queue has CL_QUEUE_PROFILING_ENABLE.
struct KernelTime {
  std::string name;     ///< the kernel or copy, e.g. "radix_scatter"
  double ms;            ///< its device time in milliseconds
  double start_ms = 0;  ///< when it started, in milliseconds after the first command of the sort started
};

/// Description of the tuning clsort applies on a device (for `clsort devices` and the bench).
struct DevicePlan {
  std::string tuning_row;  ///< e.g. "nvidia/gpu/default"
  std::string tuning;      ///< the parameters, "radix.bits=8 radix.wg=256 ..."
  std::string measured;    ///< what the row was measured at, if recorded
  std::string automatic;   ///< which algorithm `automatic` picks by n range
};

/// What one sort call would run on a Sorter's device: the algorithm, its shape and the tuning, decided
/// once before anything is enqueued (Sorter::plan(KeyType, ...)).
struct SortPlan {
  Algorithm algorithm = Algorithm::radix;  ///< the forced one, or automatic's choice
  std::string shape;          ///< e.g. "radix: onesweep, multisplit ranking (PTX), tiles of 256 x 24, ..."
  std::string build_options;  ///< the -D defines of its main program
  std::string tuning_row;     ///< the most specific tuning row for these key and value widths
  std::string tuning;         ///< the parameters in force for these widths, fitted to the device
  std::string host;           ///< how host arrays (std::vector, NumPy) of this call reach the device and back
};

/// The width of one key of `t` in bytes; 0 when `t` is not a KeyType.
CLSORT_API std::size_t key_size(KeyType t) noexcept;

/// A lexsort column over host keys: clsort::column(price, clsort::Order::descending).
template <class K>
Column column(const std::vector<K>& keys, Order order = Order::ascending) {
  return Column{key_type_of<K>::value, keys.data(), keys.size(), order};
}
/// A lexsort column over n host keys at `keys`.
template <class K>
Column column(const K* keys, std::size_t n, Order order = Order::ascending) {
  return Column{key_type_of<K>::value, keys, n, order};
}
/// A lexsort column over device keys of K.
template <class K>
BufferColumn column(const cl::Buffer& keys, Order order = Order::ascending) {
  return BufferColumn{key_type_of<K>::value, keys, order};
}

/// The largest n each algorithm accepts (selection sort is O(n^2), odd-even takes one launch per tile).
CLSORT_API std::size_t max_n(Algorithm a) noexcept;

/// Sorts on one OpenCL device. A Sorter may be used from one thread at a time; separate Sorters, also on
/// one context, work concurrently. Programs are compiled once per (context, device, source, options) and
/// shared by every Sorter of the process.
class CLSORT_API Sorter {
 public:
  /// The default device (see default_device()), its own context and in-order queue.
  Sorter();
  /// `device` with its own context and in-order queue; `profiling` enables per-kernel timing.
  explicit Sorter(const cl::Device& device, bool profiling = false);
  /// The application's queue, and through it its context and device. clsort never calls clFinish on it.
  explicit Sorter(const cl::CommandQueue& queue);
  ~Sorter();
  /// A moved-from Sorter may only be destroyed or assigned to.
  Sorter(Sorter&&) noexcept;
  /// Releases this Sorter's state and takes over the other's.
  Sorter& operator=(Sorter&&) noexcept;
  Sorter(const Sorter&) = delete;
  Sorter& operator=(const Sorter&) = delete;

  /// The queue every sort is enqueued on.
  const cl::CommandQueue& queue() const;
  /// The queue's context: device buffers passed in must belong to it.
  const cl::Context& context() const;
  /// The queue's device.
  const cl::Device& device() const;

  // ---- Host data, sorted in place. Blocking. The data is unchanged if an Error is thrown.
  /// Sorts host keys in place; returns when they are sorted.
  template <class K>
  void sort(std::vector<K>& keys, const Options& options = {}) {
    sort(keys.data(), keys.size(), options);
  }
  /// Sorts n host keys in place; returns when they are sorted.
  template <class K>
  void sort(K* keys, std::size_t n, const Options& options = {}) {
    sort_host(key_type_of<K>::value, keys, n, nullptr, 0, options);
  }
  /// Writes the n host keys of `in`, sorted, to `out` (n keys), leaving `in` as it is: a sorted copy without
  /// copying first (`in` is uploaded, the result downloaded into `out`). `out` may be `in` (a sort in place)
  /// but must not overlap it otherwise.
  template <class K>
  void sort_copy(const K* in, K* out, std::size_t n, const Options& options = {}) {
    sort_copy_host(key_type_of<K>::value, in, out, n, options);
  }
  /// Sorts host keys in place and moves each value with its key (stable). Sizes must match. V is any
  /// trivially copyable type: values of up to 8 bytes ride the sort's passes (1, 2, 3, 5, 6, 7 bytes
  /// widened to 4 or 8); wider ones (a 12-byte struct, 16, 64 bytes) are sorted as 32-bit indices (64-bit
  /// from 2^32 keys on) and move once, through the permutation.
  template <class K, class V>
  void sort_by_key(std::vector<K>& keys, std::vector<V>& values, const Options& options = {}) {
    check_value_type<V>();
    if (values.size() != keys.size()) throw_size_mismatch(keys.size(), values.size());
    sort_host(key_type_of<K>::value, keys.data(), keys.size(), values.data(), sizeof(V), options);
  }
  /// The stable permutation that sorts `keys`: keys[result[0]] is the first key in order.
  template <class K>
  std::vector<std::uint32_t> argsort(const std::vector<K>& keys, const Options& options = {}) {
    std::vector<std::uint32_t> indices(keys.size());
    argsort_host(key_type_of<K>::value, keys.data(), keys.size(), indices.data(), options);
    return indices;
  }
  /// argsort with 64-bit indices.
  template <class K>
  std::vector<std::uint64_t> argsort64(const std::vector<K>& keys, const Options& options = {}) {
    std::vector<std::uint64_t> indices(keys.size());
    argsort64_host(key_type_of<K>::value, keys.data(), keys.size(), indices.data(), options);
    return indices;
  }

  // ---- Selection: top_k and select, by radix selection (not a full sort), of every key type. The order
  // is sort's: top_k returns exactly the first k elements of a stable sort (equal keys, and all NaNs, by
  // lower input index first), so for floats its NaN order is defined where sort's is not.
  // Options::algorithm and the bit range (begin_bit, end_bit) do not apply: whole keys order. The keys are
  // never changed; an Error leaves every output unchanged.
  /// The k first keys of `keys` in options.order, sorted, with their input indices; 0 <= k <= size.
  template <class K>
  TopK<K> top_k(const std::vector<K>& keys, std::size_t k, const Options& options = {}) {
    return top_k(keys.data(), keys.size(), k, options);
  }
  /// top_k of n host keys.
  template <class K>
  TopK<K> top_k(const K* keys, std::size_t n, std::size_t k, const Options& options = {}) {
    TopK<K> r;
    r.keys.resize(k <= n ? k : 0);
    r.indices.resize(r.keys.size());
    top_k_host(key_type_of<K>::value, keys, n, k, r.keys.data(), r.indices.data(), options);
    return r;
  }
  /// The key at position k (0 <= k < size) of keys sorted in options.order, as std::nth_element finds it
  /// (its exact bits: of equal keys, the one a stable sort puts there).
  template <class K>
  K select(const std::vector<K>& keys, std::size_t k, const Options& options = {}) {
    K result{};
    select_host(key_type_of<K>::value, keys.data(), keys.size(), k, &result, options);
    return result;
  }
  /// Enqueues top_k of the first n keys of `keys` (of K) after `wait`: the k keys go to the first k
  /// elements of `keys_out` (K), their input indices to those of `indices_out` (std::uint32_t). The
  /// outputs must not overlap each other or the keys; bytes past k are never touched.
  template <class K>
  cl::Event top_k(const cl::Buffer& keys, std::size_t n, std::size_t k, const cl::Buffer& keys_out,
                  const cl::Buffer& indices_out, const Options& options = {},
                  const std::vector<cl::Event>& wait = {}) {
    return top_k_buffer(key_type_of<K>::value, keys, n, k, keys_out, indices_out, options, wait);
  }
  /// Enqueues select of the first n keys of `keys` (of K) after `wait`; the key goes to the first element
  /// of `key_out`, which must not overlap the keys.
  template <class K>
  cl::Event select(const cl::Buffer& keys, std::size_t n, std::size_t k, const cl::Buffer& key_out,
                   const Options& options = {}, const std::vector<cl::Event>& wait = {}) {
    return select_buffer(key_type_of<K>::value, keys, n, k, key_out, options, wait);
  }

  // ---- Lexicographic (multi-column) sort: the stable permutation that orders rows by columns[0], rows
  // equal in it by columns[1], and so on (ORDER BY c0, c1, ...; numpy.lexsort takes its keys the other way
  // round), each column in its own order with sort's rules (floats: -0 before +0, NaNs after +inf;
  // descending the exact reverse), except that a column's NaNs are all equal, whatever their sign and
  // payload, so the next columns order them. Rows equal in every column keep their input order. Runs on the
  // device: one stable sort of (column gathered through the permutation so far, permutation) per column, last
  // column first. Columns may be of any key types; they are never changed.
  /// The permutation of the rows of `columns` (at least one, all of one length < 2^32): row result[0]
  /// comes first. Blocking.
  std::vector<std::uint32_t> lexsort(const std::vector<Column>& columns) {
    std::vector<std::uint32_t> indices(columns.empty() ? 0 : columns[0].n);
    lexsort_host(columns.data(), columns.size(), indices.data());
    return indices;
  }
  /// Writes the permutation of `count` host columns to `indices` (columns[0].n of them).
  void lexsort_host(const Column* columns, std::size_t count, std::uint32_t* indices);
  /// Enqueues the lexsort of the first n rows of device columns after `wait`: the permutation goes to the
  /// first n elements (std::uint32_t) of `indices_out`, which must not overlap any column. They are
  /// written by the call's last command, so an Error leaves them unchanged.
  cl::Event lexsort(const std::vector<BufferColumn>& columns, std::size_t n, const cl::Buffer& indices_out,
                    const std::vector<cl::Event>& wait = {});

  // ---- User-defined element types ordered by a comparison written in OpenCL C, sorted stably by merge
  // sort (Options::algorithm automatic or merge) or by a bitonic network that breaks ties by input index
  // (bitonic; also stable). `type_source` is OpenCL C that declares the element type; the type is the
  // name declared last, before the final ';' (`typedef struct { float x, y, z; uint id; } Particle;`
  // declares Particle, `struct P { uint k; };` struct P), or type_source is a type name alone (`float2`);
  // a source that declares more after the type (helper functions) names it `clsort_t` itself
  // (`typedef Particle clsort_t;`).
  // `less` is an expression in `a` and `b` (const elements) that is true when a goes before b, or a
  // function body with return statements; it must be a strict weak order. Descending sorts by less(b, a),
  // still stable. The device's sizeof of the type must equal sizeof(T) (checked: Error naming T
  // otherwise). Programs are built once per (source, options) and cached; a comparison that does not
  // compile throws Error with the build log. The data is unchanged if an Error is thrown.
  /// Sorts host elements in place by `less`. Blocking.
  template <class T>
  void sort_custom(std::vector<T>& data, const std::string& type_source, const std::string& less,
                   const Options& options = {}) {
    sort_custom(data.data(), data.size(), type_source, less, options);
  }
  /// Sorts n host elements at `data` in place by `less`. Blocking.
  template <class T>
  void sort_custom(T* data, std::size_t n, const std::string& type_source, const std::string& less,
                   const Options& options = {}) {
    static_assert(std::is_trivially_copyable<T>::value, "sort_custom elements must be trivially copyable");
    sort_custom_host(data, n, sizeof(T), type_source, less, options);
  }
  /// Enqueues the sort of the first n elements (of T) of `data` by `less` after `wait`.
  template <class T>
  cl::Event sort_custom(const cl::Buffer& data, std::size_t n, const std::string& type_source,
                        const std::string& less, const Options& options = {},
                        const std::vector<cl::Event>& wait = {}) {
    static_assert(std::is_trivially_copyable<T>::value, "sort_custom elements must be trivially copyable");
    return sort_custom_buffer(data, n, sizeof(T), type_source, less, options, wait);
  }
  /// sort_custom of host data with the element size given at run time (1 to 256 bytes).
  void sort_custom_host(void* data, std::size_t n, std::size_t element_bytes, const std::string& type_source,
                        const std::string& less, const Options& options);
  /// sort_custom of device data with the element size given at run time.
  cl::Event sort_custom_buffer(const cl::Buffer& data, std::size_t n, std::size_t element_bytes,
                               const std::string& type_source, const std::string& less,
                               const Options& options, const std::vector<cl::Event>& wait);
  // ---- Segmented sort: num_segments independent arrays in one buffer, segment i being the keys
  // [offsets[i], offsets[i + 1]). Offsets are std::uint32_t or std::uint64_t, non-decreasing, and at most
  // the number of keys (and below 2^32). Each segment is sorted stably, in place, in options.order; keys
  // (and values) before offsets[0] and from offsets[num_segments] on are never touched. Segments up to a
  // quarter of a work-group's local memory sort there, many per work-group; longer ones by chunks and
  // merges, the longest (Tuning segments.huge) by the whole-device sort. Options::algorithm is ignored;
  // a bit range (begin_bit, end_bit) orders each segment by those bits of the code, as radix sort does
  // (an empty range leaves every key where it is and reads no offset). An Error leaves the caller's data
  // unchanged.
  /// Sorts each segment of host keys; offsets.size() - 1 segments (none for empty offsets).
  template <class K, class O>
  void sort_segments(std::vector<K>& keys, const std::vector<O>& offsets, const Options& options = {}) {
    check_offset_type<O>();
    sort_segments_host(key_type_of<K>::value, keys.data(), keys.size(), nullptr, 0, offsets.data(), sizeof(O),
                       offsets.empty() ? 0 : offsets.size() - 1, options);
  }
  /// Like sort_segments, moving each value with its key (stable). Sizes of keys and values must match. V
  /// is any trivially copyable type: values of 4 and 8 bytes move with their keys in every kernel, others
  /// (1, 2, 3, 12, 16, 64 bytes) are sorted as 32-bit indices and then move once, through the permutation.
  template <class K, class V, class O>
  void sort_segments_by_key(std::vector<K>& keys, std::vector<V>& values, const std::vector<O>& offsets,
                            const Options& options = {}) {
    check_value_type<V>();
    check_offset_type<O>();
    if (values.size() != keys.size()) throw_size_mismatch(keys.size(), values.size());
    sort_segments_host(key_type_of<K>::value, keys.data(), keys.size(), values.data(), sizeof(V),
                       offsets.data(), sizeof(O), offsets.empty() ? 0 : offsets.size() - 1, options);
  }
  /// Enqueues the sort of each segment of device keys (of K) after `wait`; `offsets` holds
  /// num_segments + 1 offsets of O. A kernel checks every offset and lists the segments too long for
  /// local memory; the call reads that back (a few words per long segment), so it returns only once
  /// `wait` has completed and that kernel ran: bad offsets throw Error naming `offsets` (values shorter
  /// than offsets[num_segments]: `values`) before anything is written. Returns the completion event.
  template <class K, class O = std::uint32_t>
  cl::Event sort_segments(const cl::Buffer& keys, const cl::Buffer& offsets, std::size_t num_segments,
                          const Options& options = {}, const std::vector<cl::Event>& wait = {}) {
    check_offset_type<O>();
    return sort_segments_buffer(key_type_of<K>::value, keys, nullptr, 0, offsets, sizeof(O), num_segments,
                                options, wait);
  }
  /// Like sort_segments(const cl::Buffer&, ...), moving the values (of V) with their keys (stable).
  template <class K, class V, class O = std::uint32_t>
  cl::Event sort_segments_by_key(const cl::Buffer& keys, const cl::Buffer& values, const cl::Buffer& offsets,
                                 std::size_t num_segments, const Options& options = {},
                                 const std::vector<cl::Event>& wait = {}) {
    check_value_type<V>();
    check_offset_type<O>();
    return sort_segments_buffer(key_type_of<K>::value, keys, &values, sizeof(V), offsets, sizeof(O),
                                num_segments, options, wait);
  }

  // ---- Device data: the first n elements, sorted in place, enqueued on queue() after `wait`. The
  // returned event completes when the sort has. Bytes past n are never touched.
  /// Enqueues the sort of the first n keys of `keys` (of K) after `wait`; returns its completion event.
  template <class K>
  cl::Event sort(const cl::Buffer& keys, std::size_t n, const Options& options = {},
                 const std::vector<cl::Event>& wait = {}) {
    return sort_buffer(key_type_of<K>::value, keys, nullptr, 0, n, options, wait);
  }
  /// Like sort(const cl::Buffer&, ...), moving the first n values (of V) with their keys (stable).
  /// Keys and values must not overlap.
  template <class K, class V>
  cl::Event sort_by_key(const cl::Buffer& keys, const cl::Buffer& values, std::size_t n,
                        const Options& options = {}, const std::vector<cl::Event>& wait = {}) {
    check_value_type<V>();
    return sort_buffer(key_type_of<K>::value, keys, &values, sizeof(V), n, options, wait);
  }

  /// Enqueues the argsort of the first n keys of `keys` (of K) after `wait`: their stable sorting
  /// permutation goes to the first n elements of `indices` (std::uint32_t; n < 2^32). The keys are not
  /// changed (a copy is sorted: scratch of n keys); keys and indices must not overlap.
  template <class K>
  cl::Event argsort(const cl::Buffer& keys, std::size_t n, const cl::Buffer& indices,
                    const Options& options = {}, const std::vector<cl::Event>& wait = {}) {
    return argsort_buffer(key_type_of<K>::value, keys, n, indices, 4, options, wait);
  }
  /// argsort of device keys with 64-bit indices (std::uint64_t).
  template <class K>
  cl::Event argsort64(const cl::Buffer& keys, std::size_t n, const cl::Buffer& indices,
                      const Options& options = {}, const std::vector<cl::Event>& wait = {}) {
    return argsort_buffer(key_type_of<K>::value, keys, n, indices, 8, options, wait);
  }

  // ---- Type-erased entry points (what the templates and the C API call).
  /// Device sort with the key type given at run time; `values` may be null (then value_bytes is ignored).
  cl::Event sort_buffer(KeyType type, const cl::Buffer& keys, const cl::Buffer* values,
                        std::size_t value_bytes, std::size_t n, const Options& options,
                        const std::vector<cl::Event>& wait);
  /// Host sort with the key type given at run time; `values` may be null (then value_bytes is ignored);
  /// value_bytes is any width from 1.
  void sort_host(KeyType type, void* keys, std::size_t n, void* values, std::size_t value_bytes,
                 const Options& options);
  /// sort_copy with the key type given at run time.
  void sort_copy_host(KeyType type, const void* keys_in, void* keys_out, std::size_t n,
                      const Options& options);
  /// Writes the stable sorting permutation of n host keys to `indices`.
  void argsort_host(KeyType type, const void* keys, std::size_t n, std::uint32_t* indices,
                    const Options& options);
  /// argsort_host with 64-bit indices.
  void argsort64_host(KeyType type, const void* keys, std::size_t n, std::uint64_t* indices,
                      const Options& options);
  /// argsort of device keys with the key type given at run time; index_bytes is 4 (std::uint32_t) or 8.
  cl::Event argsort_buffer(KeyType type, const cl::Buffer& keys, std::size_t n, const cl::Buffer& indices,
                           std::size_t index_bytes, const Options& options,
                           const std::vector<cl::Event>& wait);

  /// top_k of host keys with the key type given at run time; keys_out holds k keys, indices_out k indices.
  void top_k_host(KeyType type, const void* keys, std::size_t n, std::size_t k, void* keys_out,
                  std::uint32_t* indices_out, const Options& options);
  /// top_k of device keys with the key type given at run time.
  cl::Event top_k_buffer(KeyType type, const cl::Buffer& keys, std::size_t n, std::size_t k,
                         const cl::Buffer& keys_out, const cl::Buffer& indices_out, const Options& options,
                         const std::vector<cl::Event>& wait);
  /// select of host keys with the key type given at run time; writes one key to key_out.
  void select_host(KeyType type, const void* keys, std::size_t n, std::size_t k, void* key_out,
                   const Options& options);
  /// select of device keys with the key type given at run time.
  cl::Event select_buffer(KeyType type, const cl::Buffer& keys, std::size_t n, std::size_t k,
                          const cl::Buffer& key_out, const Options& options,
                          const std::vector<cl::Event>& wait);

  /// Segmented sort of host data with the key type given at run time: n keys, `values` (may be null) of
  /// value_bytes, num_segments + 1 offsets of offset_bytes (4 or 8).
  void sort_segments_host(KeyType type, void* keys, std::size_t n, void* values, std::size_t value_bytes,
                          const void* offsets, std::size_t offset_bytes, std::size_t num_segments,
                          const Options& options);
  /// Segmented sort of device data with the key type given at run time; `values` may be null.
  cl::Event sort_segments_buffer(KeyType type, const cl::Buffer& keys, const cl::Buffer* values,
                                 std::size_t value_bytes, const cl::Buffer& offsets, std::size_t offset_bytes,
                                 std::size_t num_segments, const Options& options,
                                 const std::vector<cl::Event>& wait);

  /// The algorithm `automatic` would run for this call.
  Algorithm choose(KeyType type, std::size_t n, bool with_values) const;
  /// The tuning in force on this Sorter's device.
  DevicePlan plan() const;
  /// What a sort of n keys of `type` with values of `value_bytes` bytes (0: keys alone) would run.
  /// Throws Error as that sort would for n over the algorithm's limit or a bad value width.
  SortPlan plan(KeyType type, std::size_t n, std::size_t value_bytes = 0, const Options& options = {}) const;
  /// The largest n a radix sort of device buffers of `type` keys with values of `value_bytes` (0: keys
  /// alone) can take on this device, by its memory alone: each of the caller's buffers and clsort's
  /// scratch copies must fit the largest allocation (CL_DEVICE_MAX_MEM_ALLOC_SIZE), and all together
  /// the device's memory. From 2^32 keys on, radix sort partitions the keys first (64-bit counts, by as
  /// many digits as their distribution needs: keys that share their top bits are sorted too);
  /// values wider than 8 bytes move through indices (64-bit from 2^32 keys on).
  /// Host sorts (std::vector) need the same device memory.
  std::size_t max_n(KeyType type, std::size_t value_bytes = 0) const;
  /// Overrides tuning parameters for experiments: "radix.wg=128,bitonic.tile=1024". Names are those
  /// DevicePlan::tuning lists. Throws Error on an unknown name or invalid value. Also read from
  /// CLSORT_TUNING at construction.
  void tune(const std::string& overrides);
  /// Per-kernel times of the last sort, in the order enqueued (profiling queues only; otherwise empty).
  /// Host sorts (std::vector) include their transfers, named "upload" and "download", one per chunk.
  std::vector<KernelTime> last_profile() const;
  /// Device memory this Sorter holds between calls (scratch buffers that later calls reuse), in bytes.
  std::size_t scratch_bytes() const;
  /// At most how many bytes of scratch that the call under way does not use stay held when a call needs a
  /// new or larger buffer (default: half the device's global memory); the oldest go first. A sort of n
  /// near max_n() after other large sorts needs that memory back: the caller's buffers take the rest.
  void keep_scratch(std::size_t bytes);
  /// Gives every scratch buffer back (after the commands already enqueued that use them).
  void release_scratch();

  struct Impl;

 private:
  template <class V>
  static void check_value_type() {
    static_assert(std::is_trivially_copyable<V>::value, "clsort values must be trivially copyable");
  }
  template <class O>
  static void check_offset_type() {
    static_assert(std::is_same<O, std::uint32_t>::value || std::is_same<O, std::uint64_t>::value,
                  "clsort segment offsets are std::uint32_t or std::uint64_t");
  }
  [[noreturn]] static void throw_size_mismatch(std::size_t keys, std::size_t values);
  void sort_host_from(KeyType type, const void* keys_in, void* keys, std::size_t n, void* values,
                      std::size_t value_bytes, const Options& options);
  std::unique_ptr<Impl> impl_;
};

/// The process-wide Sorter on default_device(), created on first use; calls are serialized.
CLSORT_API Sorter& default_sorter();

template <class K>
void sort(std::vector<K>& keys, const Options& options = {});
template <class K, class V>
void sort_by_key(std::vector<K>& keys, std::vector<V>& values, const Options& options = {});
template <class K>
std::vector<std::uint32_t> argsort(const std::vector<K>& keys, const Options& options = {});
/// Sorter::lexsort on the process-wide Sorter.
CLSORT_API std::vector<std::uint32_t> lexsort(const std::vector<Column>& columns);
/// Sorter::sort_custom of host data on the process-wide Sorter.
template <class T>
void sort_custom(std::vector<T>& data, const std::string& type_source, const std::string& less,
                 const Options& options = {});
template <class K>
std::vector<std::uint64_t> argsort64(const std::vector<K>& keys, const Options& options = {});

namespace detail {
// Runs f(default_sorter()) under the process-wide lock. Exported: the templates above call it from the
// application's code.
CLSORT_API void with_default_sorter(void (*f)(Sorter&, void*), void* arg);
}  // namespace detail

template <class K>
void sort(std::vector<K>& keys, const Options& options) {
  struct A {
    std::vector<K>* k;
    const Options* o;
  } a{&keys, &options};
  detail::with_default_sorter(
      [](Sorter& s, void* p) {
        auto* x = static_cast<A*>(p);
        s.sort(*x->k, *x->o);
      },
      &a);
}
template <class K, class V>
void sort_by_key(std::vector<K>& keys, std::vector<V>& values, const Options& options) {
  struct A {
    std::vector<K>* k;
    std::vector<V>* v;
    const Options* o;
  } a{&keys, &values, &options};
  detail::with_default_sorter(
      [](Sorter& s, void* p) {
        auto* x = static_cast<A*>(p);
        s.sort_by_key(*x->k, *x->v, *x->o);
      },
      &a);
}
template <class K>
std::vector<std::uint32_t> argsort(const std::vector<K>& keys, const Options& options) {
  struct A {
    const std::vector<K>* k;
    const Options* o;
    std::vector<std::uint32_t> r;
  } a{&keys, &options, {}};
  detail::with_default_sorter(
      [](Sorter& s, void* p) {
        auto* x = static_cast<A*>(p);
        x->r = s.argsort(*x->k, *x->o);
      },
      &a);
  return std::move(a.r);
}
template <class K>
std::vector<std::uint64_t> argsort64(const std::vector<K>& keys, const Options& options) {
  struct A {
    const std::vector<K>* k;
    const Options* o;
    std::vector<std::uint64_t> r;
  } a{&keys, &options, {}};
  detail::with_default_sorter(
      [](Sorter& s, void* p) {
        auto* x = static_cast<A*>(p);
        x->r = s.argsort64(*x->k, *x->o);
      },
      &a);
  return std::move(a.r);
}

template <class T>
void sort_custom(std::vector<T>& data, const std::string& type_source, const std::string& less,
                 const Options& options) {
  struct A {
    std::vector<T>* d;
    const std::string *t, *l;
    const Options* o;
  } a{&data, &type_source, &less, &options};
  detail::with_default_sorter(
      [](Sorter& s, void* p) {
        auto* x = static_cast<A*>(p);
        s.sort_custom(*x->d, *x->t, *x->l, *x->o);
      },
      &a);
}

}  // namespace clsort
