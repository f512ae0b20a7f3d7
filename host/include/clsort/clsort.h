/* clsort's C API: sorting device buffers on an application's cl_command_queue, and host arrays, with
 * status codes instead of exceptions. Usable from C99 and C++; a thin layer over clsort::Sorter. */
#ifndef CLSORT_CLSORT_H
#define CLSORT_CLSORT_H

/** @file clsort.h
 * @brief The C API.
 *
 * @code
 * clsort_sorter sorter;
 * if (clsort_sorter_create(queue, &sorter) != CLSORT_SUCCESS) fail(clsort_last_error_message());
 * cl_event done;
 * clsort_status st = clsort_sort(sorter, keys, n, CLSORT_KEY_F32, CLSORT_DESCENDING, 1, &uploaded, &done);
 * ...
 * clsort_sorter_destroy(sorter);
 * @endcode
 *
 * Order and semantics are those of the C++ API: ascending by value, floats with -0.0 before +0.0 and every
 * NaN after +inf, descending the exact reverse; sort_by_key and argsort are stable. Every function
 * returns a ::clsort_status and never lets a C++ exception escape. A failing call changes neither the
 * caller's buffers nor arrays, and records a message and an OpenCL status for the calling thread
 * (clsort_last_error_message(), clsort_last_opencl_status()).
 */

#include <stddef.h>
#include <stdint.h>

/** The OpenCL version clsort is written against; an application that sets its own keeps it. */
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#ifdef __APPLE__
#include <OpenCL/cl.h>
#else
#include <CL/cl.h>
#endif

#include "clsort/key_types.h" /* CLSORT_KEY_TYPES, the table clsort_key_type derives from */
#include "clsort/version.hpp" /* CLSORT_VERSION_STRING and friends: plain macros, valid C */

/** Marks the C functions as exported from the shared library whatever visibility it is compiled with. */
#if defined(_WIN32)
#define CLSORT_C_API
#elif defined(__GNUC__)
#define CLSORT_C_API __attribute__((visibility("default")))
#else
#define CLSORT_C_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** What a clsort C function reports. clsort_status_string() names each. */
typedef enum clsort_status {
  CLSORT_SUCCESS = 0,
  /** A null handle or pointer, an unknown key type or flag, a value size of 0, n larger than
   * a buffer or than the algorithm accepts, overlapping keys and values, buffers of another context,
   * an inconsistent event wait list. Nothing was enqueued. */
  CLSORT_ERROR_INVALID_ARGUMENT = 1,
  /** An OpenCL call failed; clsort_last_opencl_status() holds its status. */
  CLSORT_ERROR_OPENCL = 2,
  /** A kernel failed to build; clsort_last_error_message() holds the compiler's log. */
  CLSORT_ERROR_BUILD_FAILURE = 3,
  /** Host or device memory ran out, or the sort needs a buffer larger than the device allows. */
  CLSORT_ERROR_OUT_OF_MEMORY = 4,
  /** No OpenCL device, or none that CLSORT_DEVICE selects (host sorts on the default device only). */
  CLSORT_ERROR_DEVICE_NOT_FOUND = 5,
  /** An unexpected failure inside clsort (a bug: please report the message). */
  CLSORT_ERROR_INTERNAL = 6
} clsort_status;

/** Key types: CLSORT_KEY_<NAME> for each row of CLSORT_KEY_TYPES (clsort/key_types.h), with the row's value:
 * CLSORT_KEY_U32, _I32, _F32 (float), _U64, _I64, _F64 (double), _U8, _I8, _U16, _I16, _F16 (IEEE
 * binary16) and _BF16 (bfloat16); 16-bit floats are passed as their bits (uint16_t) and order like float.
 * Values of sort_by_key are of any width from 1 byte (only their width matters). */
/* clang-format off */
typedef enum clsort_key_type {
#define CLSORT_KEY_ENUMERATOR(name, NAME, value, bytes, kind, cpp_type) CLSORT_KEY_##NAME = value,
  CLSORT_KEY_TYPES(CLSORT_KEY_ENUMERATOR)
#undef CLSORT_KEY_ENUMERATOR
  CLSORT_KEY_TYPE_MAX_ENUM = 0x7FFFFFFF /**< not a key type: makes any int a valid value in C++ */
} clsort_key_type;
/* clang-format on */

/** Flags: an order ORed with at most one algorithm. 0 is ascending with the automatic choice. */
typedef unsigned int clsort_flags;
/** Ascending by value (the default). */
#define CLSORT_ASCENDING 0u
/** The exact reverse of ascending; by-key sorts stay stable. */
#define CLSORT_DESCENDING 1u
/** Pick by n, key type and device (the default). */
#define CLSORT_ALGORITHM_AUTOMATIC (0u << 4)
/** LSD radix sort, any n (from 2^32 keys on, partitioned first). */
#define CLSORT_ALGORITHM_RADIX (1u << 4)
/** Bitonic sort, n <= 2^31. */
#define CLSORT_ALGORITHM_BITONIC (2u << 4)
/** Parallel selection (rank) sort, O(n^2), n <= 2^20. */
#define CLSORT_ALGORITHM_SELECTION (3u << 4)
/** Odd-even transposition sort (tiles, then one launch per block phase), n <= 2^20. */
#define CLSORT_ALGORITHM_ODD_EVEN (4u << 4)
/** Stable merge sort (tile sort, then merge-path merge passes). */
#define CLSORT_ALGORITHM_MERGE (5u << 4)
/** The bits of flags that select the algorithm. */
#define CLSORT_ALGORITHM_MASK (0xfu << 4)
/** Radix sort by bits [begin, end) of each key's order-preserving code only (clsort::Options::begin_bit,
    end_bit; CUB's semantics; stable): ORed into the flags, with automatic or radix. end 0 means the key's
    width; otherwise begin <= end <= the key's bits, else CLSORT_ERROR_INVALID_ARGUMENT; begin == end
    orders by nothing (the input order stays). Both below 256. */
#define CLSORT_BIT_RANGE(begin, end) \
  ((((clsort_flags)(begin)&0xffu) << 16) | (((clsort_flags)(end)&0xffu) << 24))
/** The bits of flags that hold a bit range. */
#define CLSORT_BIT_RANGE_MASK (0xffffu << 16)

/** A sorter bound to one command queue (and through it its context and device). Use it from one thread
 * at a time; separate sorters, also on one queue's context, may run concurrently. */
typedef struct clsort_sorter_s* clsort_sorter;

/** Creates a sorter on the application's queue, which it retains until clsort_sorter_destroy(). The
 * queue may be in-order or out-of-order; clsort never calls clFinish on it. On failure *sorter is NULL. */
CLSORT_C_API clsort_status clsort_sorter_create(cl_command_queue queue, clsort_sorter* sorter);

/** Releases the sorter, its scratch buffers and its reference to the queue. Commands already enqueued
 * complete normally. NULL is ignored. */
CLSORT_C_API void clsort_sorter_destroy(clsort_sorter sorter);

/** Device memory the sorter holds between calls (scratch buffers that later calls reuse), in bytes; 0 for
 * NULL. */
CLSORT_C_API size_t clsort_sorter_scratch_bytes(clsort_sorter sorter);

/** At most how many bytes of scratch that the call under way does not use stay held when a call needs a
 * new or larger buffer (default: half the device's global memory); the oldest go first
 * (clsort::Sorter::keep_scratch). NULL is ignored. */
CLSORT_C_API void clsort_sorter_keep_scratch(clsort_sorter sorter, size_t bytes);

/** Gives every scratch buffer of the sorter back (after the commands already enqueued that use them).
 * NULL is ignored. */
CLSORT_C_API void clsort_sorter_release_scratch(clsort_sorter sorter);

/** Sorts the first n keys of `keys` in place on the sorter's queue, after the events of the wait list.
 * Only enqueues: when `event` is not NULL it receives a new event (release it with clReleaseEvent) that
 * completes when the sort has; it is NULL after a failure. Bytes past n are never touched. */
CLSORT_C_API clsort_status clsort_sort(clsort_sorter sorter, cl_mem keys, size_t n, clsort_key_type key_type,
                                       clsort_flags flags, cl_uint num_events_in_wait_list,
                                       const cl_event* event_wait_list, cl_event* event);

/** Like clsort_sort(), and moves the first n values of `values` (each `value_size` bytes, 1 or more) with
 * their keys. Stable. Keys and values must not overlap. Values of up to 8 bytes ride the sort's passes
 * (1, 2, 3, 5, 6, 7 bytes widened to 4 or 8); wider ones are sorted as 32-bit indices (64-bit from 2^32
 * keys) and move once at the end (scratch of n values and 2n indices). */
CLSORT_C_API clsort_status clsort_sort_by_key(clsort_sorter sorter, cl_mem keys, cl_mem values, size_t n,
                                              clsort_key_type key_type, size_t value_size, clsort_flags flags,
                                              cl_uint num_events_in_wait_list,
                                              const cl_event* event_wait_list, cl_event* event);

/** Sorts a host array of n keys in place and returns when it is sorted. `sorter` may be NULL: the
 * process-wide sorter on the default device (CLSORT_DEVICE selects it; calls on it are serialized). */
CLSORT_C_API clsort_status clsort_sort_host(clsort_sorter sorter, void* keys, size_t n,
                                            clsort_key_type key_type, clsort_flags flags);

/** Writes the n keys of the host array `keys_in`, sorted, to `keys_out`, leaving `keys_in` unchanged (no
 * copy first: the input is uploaded and the result downloaded into `keys_out`). `keys_out` may equal
 * `keys_in` (a sort in place) but must not overlap it otherwise. */
CLSORT_C_API clsort_status clsort_sort_copy_host(clsort_sorter sorter, const void* keys_in, void* keys_out,
                                                 size_t n, clsort_key_type key_type, clsort_flags flags);

/** Host arrays, keys and values (`value_size` bytes each, 1 or more), sorted in place by key. Stable. */
CLSORT_C_API clsort_status clsort_sort_by_key_host(clsort_sorter sorter, void* keys, void* values, size_t n,
                                                   clsort_key_type key_type, size_t value_size,
                                                   clsort_flags flags);

/** Writes the stable permutation that sorts `keys` to `indices` (n elements, n < 2^32): keys[indices[0]]
 * comes first. The keys are not changed. */
CLSORT_C_API clsort_status clsort_argsort_host(clsort_sorter sorter, const void* keys, size_t n,
                                               clsort_key_type key_type, uint32_t* indices,
                                               clsort_flags flags);

/** clsort_argsort_host() with 64-bit indices. */
CLSORT_C_API clsort_status clsort_argsort64_host(clsort_sorter sorter, const void* keys, size_t n,
                                                 clsort_key_type key_type, uint64_t* indices,
                                                 clsort_flags flags);
/** Writes the stable permutation that sorts the first n keys of `keys` to the first n elements of
 * `indices`, each `index_size` bytes: 4 (uint32_t, n < 2^32) or 8 (uint64_t). The keys are not changed (a
 * copy is sorted); keys and indices must not overlap. Only enqueues, like clsort_sort(). */
CLSORT_C_API clsort_status clsort_argsort(clsort_sorter sorter, cl_mem keys, size_t n,
                                          clsort_key_type key_type, cl_mem indices, size_t index_size,
                                          clsort_flags flags, cl_uint num_events_in_wait_list,
                                          const cl_event* event_wait_list, cl_event* event);
/** The k first of the first n keys of `keys` (any key type) in the flags' order (n < 2^32, 0 <= k <= n),
 * sorted, by radix selection: the k keys go to the first k elements of `keys_out`, their input indices
 * (uint32_t) to those of `indices_out`. Exactly the first k elements of a stable sort (equal keys and all
 * NaNs by lower index first). The algorithm bits of `flags` are ignored. Outputs must not overlap each other
 * or the keys; bytes past k are never touched. Only enqueues, like clsort_sort(). */
CLSORT_C_API clsort_status clsort_top_k(clsort_sorter sorter, cl_mem keys, size_t n, size_t k,
                                        clsort_key_type key_type, clsort_flags flags, cl_mem keys_out,
                                        cl_mem indices_out, cl_uint num_events_in_wait_list,
                                        const cl_event* event_wait_list, cl_event* event);

/** The key at position k (0 <= k < n) of the first n keys sorted in the flags' order, written to the first
 * element of `key_out` (which must not overlap the keys), like std::nth_element. Only enqueues. */
CLSORT_C_API clsort_status clsort_select(clsort_sorter sorter, cl_mem keys, size_t n, size_t k,
                                         clsort_key_type key_type, clsort_flags flags, cl_mem key_out,
                                         cl_uint num_events_in_wait_list, const cl_event* event_wait_list,
                                         cl_event* event);

/** clsort_top_k() of a host array: k keys to `keys_out` and k indices to `indices_out`; returns when done.
 * The keys are not changed; the outputs are written only on success. `sorter` may be NULL. */
CLSORT_C_API clsort_status clsort_top_k_host(clsort_sorter sorter, const void* keys, size_t n, size_t k,
                                             clsort_key_type key_type, clsort_flags flags, void* keys_out,
                                             uint32_t* indices_out);

/** clsort_select() of a host array: the key at sorted position k goes to *key_out. */
CLSORT_C_API clsort_status clsort_select_host(clsort_sorter sorter, const void* keys, size_t n, size_t k,
                                              clsort_key_type key_type, clsort_flags flags, void* key_out);

/** One key column of clsort_lexsort() (`buffer`, a cl_mem holding at least n keys) or clsort_lexsort_host()
 * (`data`, a host array of n keys); the other member is ignored. `flags`: CLSORT_ASCENDING or
 * CLSORT_DESCENDING only. */
typedef struct clsort_column {
  clsort_key_type key_type;
  const void* data;
  cl_mem buffer;
  clsort_flags flags;
} clsort_column;

/** The stable permutation of the first n rows (n < 2^32) of `num_columns` (>= 1) key columns in
 * lexicographic order: by columns[0], rows equal in it by columns[1], and so on, each column in its own
 * order (as clsort_sort orders keys, except that a column's NaNs are all equal). Written to the first n
 * elements (uint32_t) of `indices_out`, which must not overlap any column. Only enqueues, like
 * clsort_sort(). The columns are not changed. */
CLSORT_C_API clsort_status clsort_lexsort(clsort_sorter sorter, const clsort_column* columns,
                                          size_t num_columns, size_t n, cl_mem indices_out,
                                          cl_uint num_events_in_wait_list, const cl_event* event_wait_list,
                                          cl_event* event);

/** clsort_lexsort() of host columns: the permutation goes to `indices` (n elements); returns when done.
 * `sorter` may be NULL. */
CLSORT_C_API clsort_status clsort_lexsort_host(clsort_sorter sorter, const clsort_column* columns,
                                               size_t num_columns, size_t n, uint32_t* indices);

/** Sorts the first n elements of `data`, each `element_size` bytes (1 to 256) of an application's type, by
 * a comparison written in OpenCL C (clsort::Sorter::sort_custom): `type_source` declares the type (its
 * last declared name, e.g. "typedef struct { float x, y, z; uint id; } Particle;", or a type name such as
 * "float2"; a source with more after the type names it with "typedef ... clsort_t;"), `less` is an
 * expression in `a` and `b` true when a goes first (or a function body with return statements). Stable in
 * both orders (descending sorts by the reversed comparison). Flags: the order, and
 * CLSORT_ALGORITHM_AUTOMATIC, _MERGE or _BITONIC. A comparison that does not compile gives
 * CLSORT_ERROR_BUILD_FAILURE (the log is in clsort_last_error_message()); a device sizeof of the type other
 * than element_size gives CLSORT_ERROR_INVALID_ARGUMENT. Only enqueues, like clsort_sort(), after a
 * one-time build and check of the type on the device. */
CLSORT_C_API clsort_status clsort_sort_custom(clsort_sorter sorter, cl_mem data, size_t n,
                                              size_t element_size, const char* type_source, const char* less,
                                              clsort_flags flags, cl_uint num_events_in_wait_list,
                                              const cl_event* event_wait_list, cl_event* event);

/** clsort_sort_custom() of a host array, sorted in place; returns when done. `sorter` may be NULL. */
CLSORT_C_API clsort_status clsort_sort_custom_host(clsort_sorter sorter, void* data, size_t n,
                                                   size_t element_size, const char* type_source,
                                                   const char* less, clsort_flags flags);

/** Sorts each of num_segments segments of `keys` in place, stably: segment i is the keys [offsets[i],
 * offsets[i + 1]), `offsets` a buffer of num_segments + 1 offsets of `offset_size` bytes (4 or 8),
 * non-decreasing, at most the keys the buffer holds and below 2^32. `values` may be NULL; otherwise its
 * values (`value_size` bytes, any width from 1) move with their keys. Keys and values outside every segment
 * are never touched. A kernel checks the offsets and lists the long segments, which the call reads back: it
 * returns once the wait list has completed, and bad offsets fail before anything is written. The
 * algorithm bits of `flags` are ignored; a bit range (CLSORT_BIT_RANGE) orders each segment by those
 * bits. */
CLSORT_C_API clsort_status clsort_sort_segments(clsort_sorter sorter, cl_mem keys, cl_mem values,
                                                cl_mem offsets, size_t offset_size, size_t num_segments,
                                                clsort_key_type key_type, size_t value_size,
                                                clsort_flags flags, cl_uint num_events_in_wait_list,
                                                const cl_event* event_wait_list, cl_event* event);

/** clsort_sort_segments() of host arrays: n keys, `values` (may be NULL) and num_segments + 1 offsets;
 * returns when sorted. The arrays are written only on success. `sorter` may be NULL. */
CLSORT_C_API clsort_status clsort_sort_segments_host(clsort_sorter sorter, void* keys, void* values, size_t n,
                                                     const void* offsets, size_t offset_size,
                                                     size_t num_segments, clsort_key_type key_type,
                                                     size_t value_size, clsort_flags flags);

/** The name of a status, e.g. "CLSORT_ERROR_INVALID_ARGUMENT"; "unknown clsort_status" for other values. */
CLSORT_C_API const char* clsort_status_string(clsort_status status);

/** The symbolic name of an OpenCL status, e.g. "CL_OUT_OF_RESOURCES". */
CLSORT_C_API const char* clsort_opencl_status_string(cl_int status);

/** What went wrong in this thread's last failing clsort call ("" after a success). Valid until this
 * thread's next clsort call. */
CLSORT_C_API const char* clsort_last_error_message(void);

/** The OpenCL status behind this thread's last clsort call: the failing call's status for
 * CLSORT_ERROR_OPENCL, CL_BUILD_PROGRAM_FAILURE for build failures, CL_INVALID_VALUE (or a more specific
 * CL_INVALID_*) for invalid arguments, CL_SUCCESS after a success. */
CLSORT_C_API cl_int clsort_last_opencl_status(void);

/** The version of the library linked at run time; CLSORT_VERSION_STRING is the one compiled against. */
CLSORT_C_API const char* clsort_version_string(void);

#ifdef __cplusplus
}
#endif

#endif /* CLSORT_CLSORT_H */
