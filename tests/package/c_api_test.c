/* The C API exercised from C: device and host sorts on the application's own queue, event wait lists
 * and output events, and the status of every kind of bad argument. Compiled as C99. */
#if !defined(_WIN32)
#define _POSIX_C_SOURCE 200809L /* setenv, mkdtemp */
#endif

#include <clsort/clsort.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if !defined(_WIN32)
#include <unistd.h>
#endif

static int g_failures = 0;

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      ++g_failures;                                                            \
    }                                                                          \
  } while (0)

/* Expects `call` to return `expected`; prints the last error either way when they differ. */
#define CHECK_STATUS(call, expected)                                                                   \
  do {                                                                                                 \
    clsort_status st_ = (call);                                                                        \
    if (st_ != (expected)) {                                                                           \
      fprintf(stderr, "%s:%d: %s returned %s, expected %s: %s\n", __FILE__, __LINE__, #call,           \
              clsort_status_string(st_), clsort_status_string(expected), clsort_last_error_message()); \
      ++g_failures;                                                                                    \
    }                                                                                                  \
  } while (0)

#define CHECK_CL(call)                                                                                \
  do {                                                                                                \
    cl_int e_ = (call);                                                                               \
    if (e_ != CL_SUCCESS) {                                                                           \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, clsort_opencl_status_string(e_)); \
      exit(1);                                                                                        \
    }                                                                                                 \
  } while (0)

static uint32_t g_rng = 12345u;
static uint32_t next_random(void) {
  g_rng ^= g_rng << 13;
  g_rng ^= g_rng >> 17;
  g_rng ^= g_rng << 5;
  return g_rng;
}

/* The device the library would pick by default: the first GPU, else the first device of any kind. */
static cl_device_id pick_device(void) {
  cl_platform_id platforms[16];
  cl_uint np = 0;
  cl_device_id any = NULL;
  if (clGetPlatformIDs(16, platforms, &np) != CL_SUCCESS) return NULL;
  for (cl_uint p = 0; p < np && p < 16; ++p) {
    cl_device_id d;
    cl_uint nd = 0;
    if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_GPU, 1, &d, &nd) == CL_SUCCESS && nd) return d;
    if (!any && clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 1, &d, &nd) == CL_SUCCESS && nd) any = d;
  }
  return any;
}

static int u32_sorted(const uint32_t* a, size_t n, int descending) {
  for (size_t i = 1; i < n; ++i)
    if (descending ? a[i - 1] < a[i] : a[i - 1] > a[i]) return 0;
  return 1;
}

static int cmp_u32(const void* a, const void* b) {
  uint32_t x = *(const uint32_t*)a, y = *(const uint32_t*)b;
  return (x > y) - (x < y);
}

/* Device keys, descending, gated by a user event; then chained: the application's read waits on ours. */
static void test_device_sort(cl_context ctx, cl_command_queue q, clsort_sorter s) {
  enum { N = 5000 };
  uint32_t* keys = malloc(N * sizeof *keys);
  uint32_t* expect = malloc(N * sizeof *expect);
  uint32_t* back = malloc(N * sizeof *back);
  for (size_t i = 0; i < N; ++i) keys[i] = expect[i] = next_random();
  qsort(expect, N, sizeof *expect, cmp_u32);
  cl_int err;
  cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, N * sizeof *keys, keys, &err);
  CHECK_CL(err);
  cl_event gate = clCreateUserEvent(ctx, &err);
  CHECK_CL(err);
  cl_event done = NULL;
  CHECK_STATUS(
      clsort_sort(s, buf, N, CLSORT_KEY_U32, CLSORT_DESCENDING | CLSORT_ALGORITHM_RADIX, 1, &gate, &done),
      CLSORT_SUCCESS);
  CHECK(done != NULL);
  CHECK(clsort_last_opencl_status() == CL_SUCCESS);
  CHECK(strcmp(clsort_last_error_message(), "") == 0);
  cl_int exec = CL_COMPLETE;
  CHECK_CL(clGetEventInfo(done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof exec, &exec, NULL));
  CHECK(exec != CL_COMPLETE); /* cannot have run: the gate is still closed */
  CHECK_CL(clSetUserEventStatus(gate, CL_COMPLETE));
  cl_event read;
  CHECK_CL(clEnqueueReadBuffer(q, buf, CL_FALSE, 0, N * sizeof *back, back, 1, &done, &read));
  CHECK_CL(clWaitForEvents(1, &read));
  for (size_t i = 0; i < N; ++i) CHECK(back[i] == expect[N - 1 - i]);
  clReleaseEvent(read);
  clReleaseEvent(done);
  clReleaseEvent(gate);
  clReleaseMemObject(buf);
  free(keys);
  free(expect);
  free(back);
}

/* Float keys with int64 values by key, on device: values follow keys, NaN last, -0.0 before +0.0. */
static void test_device_by_key(cl_context ctx, cl_command_queue q, clsort_sorter s) {
  enum { N = 777 };
  float keys[N];
  int64_t values[N];
  for (size_t i = 0; i < N; ++i) {
    keys[i] = (float)(int)(next_random() % 2001) - 1000.0f;
    values[i] = (int64_t)i;
  }
  keys[3] = NAN;
  keys[10] = -0.0f;
  keys[11] = 0.0f;
  cl_int err;
  cl_mem kb = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof keys, keys, &err);
  CHECK_CL(err);
  cl_mem vb = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof values, values, &err);
  CHECK_CL(err);
  CHECK_STATUS(clsort_sort_by_key(s, kb, vb, N, CLSORT_KEY_F32, sizeof(int64_t), 0, 0, NULL, NULL),
               CLSORT_SUCCESS);
  float ks[N];
  int64_t vs[N];
  CHECK_CL(clEnqueueReadBuffer(q, kb, CL_TRUE, 0, sizeof ks, ks, 0, NULL, NULL));
  CHECK_CL(clEnqueueReadBuffer(q, vb, CL_TRUE, 0, sizeof vs, vs, 0, NULL, NULL));
  CHECK(isnan(ks[N - 1]));
  for (size_t i = 0; i + 1 < N - 1; ++i) CHECK(ks[i] <= ks[i + 1]);
  for (size_t i = 0; i < N; ++i) {
    const int64_t from = vs[i];
    CHECK(from >= 0 && from < N);
    if (from >= 0 && from < N) CHECK(memcmp(&keys[from], &ks[i], sizeof(float)) == 0);
    /* Stable: equal keys keep their input order. */
    if (i > 0 && ks[i - 1] == ks[i] && !signbit(ks[i - 1]) == !signbit(ks[i])) CHECK(vs[i - 1] < vs[i]);
  }
  /* The one -0.0 comes before every +0.0. */
  for (size_t i = 0; i < N; ++i)
    if (ks[i] == 0.0f) {
      CHECK(signbit(ks[i]));
      break;
    }
  clReleaseMemObject(kb);
  clReleaseMemObject(vb);
}

static void test_host(clsort_sorter s) {
  enum { N = 3000 };
  double d[N];
  for (size_t i = 0; i < N; ++i) d[i] = (double)(int32_t)next_random() / 7.0;
  CHECK_STATUS(clsort_sort_host(s, d, N, CLSORT_KEY_F64, CLSORT_ASCENDING), CLSORT_SUCCESS);
  for (size_t i = 1; i < N; ++i) CHECK(d[i - 1] <= d[i]);

  /* The process-wide sorter on the default device. */
  uint32_t u[N], idx[N], copy[N];
  for (size_t i = 0; i < N; ++i) u[i] = copy[i] = next_random() % 100;
  CHECK_STATUS(clsort_argsort_host(NULL, u, N, CLSORT_KEY_U32, idx, CLSORT_DESCENDING), CLSORT_SUCCESS);
  CHECK(memcmp(u, copy, sizeof u) == 0);
  for (size_t i = 1; i < N; ++i) {
    CHECK(u[idx[i - 1]] >= u[idx[i]]);
    if (u[idx[i - 1]] == u[idx[i]]) CHECK(idx[i - 1] < idx[i]);
  }
  /* A sorted copy: the input as it was. */
  uint32_t sorted_copy[N];
  CHECK_STATUS(clsort_sort_copy_host(s, u, sorted_copy, N, CLSORT_KEY_U32, CLSORT_ASCENDING), CLSORT_SUCCESS);
  CHECK(memcmp(u, copy, sizeof u) == 0);
  CHECK(u32_sorted(sorted_copy, N, 0));
  CHECK_STATUS(clsort_sort_host(NULL, u, N, CLSORT_KEY_U32, CLSORT_ALGORITHM_BITONIC), CLSORT_SUCCESS);
  CHECK(u32_sorted(u, N, 0));
  CHECK(memcmp(u, sorted_copy, sizeof u) == 0);

  int32_t k[N];
  uint32_t v[N];
  for (size_t i = 0; i < N; ++i) {
    k[i] = (int32_t)(next_random() % 50) - 25;
    v[i] = (uint32_t)k[i] * 3u;
  }
  CHECK_STATUS(clsort_sort_by_key_host(s, k, v, N, CLSORT_KEY_I32, 4, CLSORT_ALGORITHM_SELECTION),
               CLSORT_SUCCESS);
  for (size_t i = 0; i < N; ++i) {
    CHECK(v[i] == (uint32_t)k[i] * 3u);
    if (i) CHECK(k[i - 1] <= k[i]);
  }
  CHECK_STATUS(clsort_sort_host(s, NULL, 0, CLSORT_KEY_U32, 0), CLSORT_SUCCESS); /* n = 0: nothing to do */

  /* Narrow keys: u16 descending with 8-byte values, i8 by radix, f16 as its bits (non-negative finite
     halves order as their bits do). */
  uint16_t h[N];
  uint64_t hv[N];
  for (size_t i = 0; i < N; ++i) {
    h[i] = (uint16_t)next_random();
    hv[i] = (uint64_t)h[i] * 5u;
  }
  CHECK_STATUS(clsort_sort_by_key_host(s, h, hv, N, CLSORT_KEY_U16, 8, CLSORT_DESCENDING), CLSORT_SUCCESS);
  for (size_t i = 0; i < N; ++i) {
    CHECK(hv[i] == (uint64_t)h[i] * 5u);
    if (i) CHECK(h[i - 1] >= h[i]);
  }
  int8_t c[N];
  for (size_t i = 0; i < N; ++i) c[i] = (int8_t)next_random();
  CHECK_STATUS(clsort_sort_host(s, c, N, CLSORT_KEY_I8, CLSORT_ALGORITHM_RADIX), CLSORT_SUCCESS);
  for (size_t i = 1; i < N; ++i) CHECK(c[i - 1] <= c[i]);
  for (size_t i = 0; i < N; ++i) h[i] = (uint16_t)(next_random() % 0x7C00u);
  CHECK_STATUS(clsort_sort_host(s, h, N, CLSORT_KEY_F16, 0), CLSORT_SUCCESS);
  for (size_t i = 1; i < N; ++i) CHECK(h[i - 1] <= h[i]);

  /* A bit range: by bits 4..11 only, stable (the values, each key's input index, rise within a run). */
  for (size_t i = 0; i < N; ++i) {
    u[i] = next_random();
    v[i] = (uint32_t)i;
  }
  CHECK_STATUS(clsort_sort_by_key_host(s, u, v, N, CLSORT_KEY_U32, 4, CLSORT_BIT_RANGE(4, 12)),
               CLSORT_SUCCESS);
  for (size_t i = 1; i < N; ++i) {
    const uint32_t a = (u[i - 1] >> 4) & 0xffu, b = (u[i] >> 4) & 0xffu;
    CHECK(a <= b);
    if (a == b) CHECK(v[i - 1] < v[i]);
  }
  memcpy(copy, u, sizeof copy);
  CHECK_STATUS(clsort_sort_host(s, u, N, CLSORT_KEY_U32, CLSORT_BIT_RANGE(12, 4)),
               CLSORT_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(clsort_last_error_message(), "begin_bit") != NULL);
  CHECK_STATUS(clsort_sort_host(s, u, N, CLSORT_KEY_U32, CLSORT_BIT_RANGE(0, 8) | CLSORT_ALGORITHM_MERGE),
               CLSORT_ERROR_INVALID_ARGUMENT);
  CHECK(memcmp(u, copy, sizeof copy) == 0);
}

/* lexsort of two host columns, and sort_custom of a C struct by a comparison in OpenCL C, from C. */
struct particle {
  float z;
  uint32_t id;
  uint32_t tag;
};

static void test_lexsort_custom(clsort_sorter s) {
  enum { N = 2000 };
  uint8_t a[N];
  int64_t b[N];
  uint32_t rows[N];
  for (size_t i = 0; i < N; ++i) {
    a[i] = (uint8_t)(next_random() % 3);
    b[i] = (int64_t)(next_random() % 40) - 20;
  }
  clsort_column columns[2] = {{CLSORT_KEY_U8, a, NULL, CLSORT_DESCENDING},
                              {CLSORT_KEY_I64, b, NULL, CLSORT_ASCENDING}};
  CHECK_STATUS(clsort_lexsort_host(s, columns, 2, N, rows), CLSORT_SUCCESS);
  for (size_t i = 1; i < N; ++i) {
    const uint32_t x = rows[i - 1], y = rows[i];
    CHECK(a[x] >= a[y]);
    if (a[x] == a[y]) CHECK(b[x] <= b[y]);
    if (a[x] == a[y] && b[x] == b[y]) CHECK(x < y);
  }
  columns[1].flags = CLSORT_ALGORITHM_MERGE;
  CHECK_STATUS(clsort_lexsort_host(s, columns, 2, N, rows), CLSORT_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(clsort_last_error_message(), "columns[1].flags") != NULL);

  struct particle p[N];
  for (size_t i = 0; i < N; ++i) {
    p[i].z = (float)(next_random() % 10);
    p[i].id = next_random() % 2;
    p[i].tag = (uint32_t)i;
  }
  const char* type = "typedef struct { float z; uint id; uint tag; } particle;";
  CHECK_STATUS(clsort_sort_custom_host(s, p, N, sizeof p[0], type, "a.z < b.z || (a.z == b.z && a.id < b.id)",
                                       CLSORT_DESCENDING),
               CLSORT_SUCCESS);
  for (size_t i = 1; i < N; ++i) {
    const struct particle x = p[i - 1], y = p[i];
    CHECK(x.z > y.z || (x.z == y.z && x.id >= y.id));
    if (x.z == y.z && x.id == y.id) CHECK(x.tag < y.tag);
  }
  CHECK_STATUS(clsort_sort_custom_host(s, p, N, sizeof p[0], type, "a.q < b.q", 0),
               CLSORT_ERROR_BUILD_FAILURE);
  CHECK(strstr(clsort_last_error_message(), "q") != NULL);
  CHECK_STATUS(clsort_sort_custom_host(s, p, N, 16, type, "a.z < b.z", 0), CLSORT_ERROR_INVALID_ARGUMENT);
}

/* Every bad argument is reported as such, names itself, and leaves the data alone. */
static void test_errors(cl_context ctx, cl_command_queue q, clsort_sorter s) {
  uint32_t keys[64];
  for (size_t i = 0; i < 64; ++i) keys[i] = (uint32_t)(64 - i);
  cl_int err;
  cl_mem kb = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof keys, keys, &err);
  CHECK_CL(err);
  cl_mem vb = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof keys, NULL, &err);
  CHECK_CL(err);
  cl_event ev = (cl_event)1; /* must come back NULL */

  clsort_sorter none = (clsort_sorter)1;
  CHECK_STATUS(clsort_sorter_create(NULL, &none), CLSORT_ERROR_INVALID_ARGUMENT);
  CHECK(none == NULL);
  CHECK(clsort_last_opencl_status() == CL_INVALID_COMMAND_QUEUE);
  CHECK(strstr(clsort_last_error_message(), "queue") != NULL);
  CHECK_STATUS(clsort_sorter_create(q, NULL), CLSORT_ERROR_INVALID_ARGUMENT);

  CHECK_STATUS(clsort_sort(NULL, kb, 64, CLSORT_KEY_U32, 0, 0, NULL, &ev), CLSORT_ERROR_INVALID_ARGUMENT);
  CHECK(ev == NULL);
  CHECK(strstr(clsort_last_error_message(), "sorter") != NULL);
  CHECK_STATUS(clsort_sort(s, NULL, 64, CLSORT_KEY_U32, 0, 0, NULL, NULL), CLSORT_ERROR_INVALID_ARGUMENT);
  CHECK(clsort_last_opencl_status() == CL_INVALID_MEM_OBJECT);
  CHECK_STATUS(clsort_sort(s, kb, 64, (clsort_key_type)42, 0, 0, NULL, NULL), CLSORT_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(clsort_last_error_message(), "key_type") != NULL);
  CHECK_STATUS(clsort_sort(s, kb, 64, CLSORT_KEY_U32, 1u << 12, 0, NULL, NULL),
               CLSORT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(clsort_sort(s, kb, 64, CLSORT_KEY_U32, 7u << 4, 0, NULL, NULL), CLSORT_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(clsort_last_error_message(), "flags") != NULL);
  /* n beyond the buffer: found by the C++ layer, reported with CL_INVALID_VALUE. */
  CHECK_STATUS(clsort_sort(s, kb, 65, CLSORT_KEY_U32, 0, 0, NULL, &ev), CLSORT_ERROR_INVALID_ARGUMENT);
  CHECK(ev == NULL);
  CHECK(clsort_last_opencl_status() == CL_INVALID_VALUE);
  CHECK(strstr(clsort_last_error_message(), "'n'") != NULL);
  CHECK_STATUS(clsort_sort(s, kb, 33, CLSORT_KEY_U64, 0, 0, NULL, NULL), CLSORT_ERROR_INVALID_ARGUMENT);
  /* Wait lists follow OpenCL's rule. */
  cl_event gate = clCreateUserEvent(ctx, &err);
  CHECK_CL(err);
  CHECK_STATUS(clsort_sort(s, kb, 64, CLSORT_KEY_U32, 0, 1, NULL, NULL), CLSORT_ERROR_INVALID_ARGUMENT);
  CHECK(clsort_last_opencl_status() == CL_INVALID_EVENT_WAIT_LIST);
  CHECK_STATUS(clsort_sort(s, kb, 64, CLSORT_KEY_U32, 0, 0, &gate, NULL), CLSORT_ERROR_INVALID_ARGUMENT);
  cl_event null_event = NULL;
  CHECK_STATUS(clsort_sort(s, kb, 64, CLSORT_KEY_U32, 0, 1, &null_event, NULL),
               CLSORT_ERROR_INVALID_ARGUMENT);
  CHECK_CL(clSetUserEventStatus(gate, CL_COMPLETE));
  clReleaseEvent(gate);
  /* Sort by key: values missing, of a bad width, or the keys' own buffer. */
  CHECK_STATUS(clsort_sort_by_key(s, kb, NULL, 64, CLSORT_KEY_U32, 4, 0, 0, NULL, &ev),
               CLSORT_ERROR_INVALID_ARGUMENT);
  CHECK(ev == NULL);
  CHECK_STATUS(clsort_sort_by_key(s, kb, vb, 64, CLSORT_KEY_U32, 0, 0, 0, NULL, NULL),
               CLSORT_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(clsort_last_error_message(), "value_size") != NULL);
  CHECK_STATUS(clsort_sort_by_key(s, kb, kb, 64, CLSORT_KEY_U32, 4, 0, 0, NULL, NULL),
               CLSORT_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(clsort_last_error_message(), "overlap") != NULL);
  /* Host calls. */
  CHECK_STATUS(clsort_sort_host(s, NULL, 5, CLSORT_KEY_U32, 0), CLSORT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(clsort_sort_by_key_host(s, keys, NULL, 5, CLSORT_KEY_U32, 4, 0),
               CLSORT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(clsort_sort_by_key_host(s, keys, keys, 5, CLSORT_KEY_U32, 2, 0),
               CLSORT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(clsort_argsort_host(s, keys, 5, CLSORT_KEY_U32, NULL, 0), CLSORT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(clsort_sort_copy_host(s, keys, NULL, 5, CLSORT_KEY_U32, 0), CLSORT_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(clsort_last_error_message(), "keys_out") != NULL);
  CHECK_STATUS(clsort_sort_copy_host(s, keys, keys + 1, 4, CLSORT_KEY_U32, 0), CLSORT_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(clsort_last_error_message(), "overlaps") != NULL);
  /* Selection sort accepts at most 2^20 keys: rejected before any allocation. */
  CHECK_STATUS(clsort_sort_host(s, keys, ((size_t)1 << 20) + 1, CLSORT_KEY_U32, CLSORT_ALGORITHM_SELECTION),
               CLSORT_ERROR_INVALID_ARGUMENT);

  /* Nothing above touched the keys. */
  uint32_t back[64];
  CHECK_CL(clEnqueueReadBuffer(q, kb, CL_TRUE, 0, sizeof back, back, 0, NULL, NULL));
  CHECK(memcmp(back, keys, sizeof keys) == 0);
  for (size_t i = 0; i < 64; ++i) CHECK(keys[i] == (uint32_t)(64 - i));

  /* A success clears the last error. */
  CHECK_STATUS(clsort_sort(s, kb, 64, CLSORT_KEY_U32, 0, 0, NULL, NULL), CLSORT_SUCCESS);
  CHECK(clsort_last_opencl_status() == CL_SUCCESS);
  CHECK(clsort_last_error_message()[0] == '\0');
  clReleaseMemObject(kb);
  clReleaseMemObject(vb);
}

/* A kernel that does not compile comes back as CLSORT_ERROR_BUILD_FAILURE with the compiler's log. */
static void test_build_failure(cl_command_queue q) {
#if !defined(_WIN32)
  /* A fresh sorter: a sorter keeps the kernels it has created, so it would not build again. */
  clsort_sorter s = NULL;
  CHECK_STATUS(clsort_sorter_create(q, &s), CLSORT_SUCCESS);
  if (!s) return;
  char dir[] = "/tmp/clsort_c_api_XXXXXX";
  if (!mkdtemp(dir)) {
    printf("skipped the build failure check: mkdtemp failed\n");
    return;
  }
  char path[sizeof dir + 32];
  const char* files[] = {"common.cl",
                         "radix_common.cl",
                         "radix_cpu.cl",
                         "radix_rank_portable.cl",
                         "radix_rank_multisplit.cl",
                         "radix_sg_ptx.cl",
                         "radix_sg_khr.cl",
                         "radix_sg_local.cl",
                         "radix_rts.cl",
                         "radix_onesweep.cl",
                         "bitonic.cl",
                         "selection.cl"};
  for (size_t i = 0; i < sizeof files / sizeof *files; ++i) {
    snprintf(path, sizeof path, "%s/%s", dir, files[i]);
    FILE* f = fopen(path, "w");
    if (f) {
      fputs("this is not OpenCL C;\n", f);
      fclose(f);
    }
  }
  printf("A deliberately broken kernel follows: the device compiler may print errors.\n");
  fflush(stdout);
  setenv("CLSORT_KERNEL_DIR", dir, 1);
  uint32_t keys[100];
  for (size_t i = 0; i < 100; ++i) keys[i] = (uint32_t)(100 - i);
  CHECK_STATUS(clsort_sort_host(s, keys, 100, CLSORT_KEY_U32, CLSORT_ALGORITHM_RADIX),
               CLSORT_ERROR_BUILD_FAILURE);
  CHECK(clsort_last_opencl_status() == CL_BUILD_PROGRAM_FAILURE);
  CHECK(strstr(clsort_last_error_message(), "build") != NULL);
  CHECK(keys[0] == 100); /* untouched */
  unsetenv("CLSORT_KERNEL_DIR");
  CHECK_STATUS(clsort_sort_host(s, keys, 100, CLSORT_KEY_U32, CLSORT_ALGORITHM_RADIX), CLSORT_SUCCESS);
  CHECK(keys[0] == 1 && keys[99] == 100);
  for (size_t i = 0; i < sizeof files / sizeof *files; ++i) {
    snprintf(path, sizeof path, "%s/%s", dir, files[i]);
    remove(path);
  }
  rmdir(dir);
  clsort_sorter_destroy(s);
#else
  (void)q;
#endif
}

static void test_names(void) {
  const clsort_status all[] = {CLSORT_SUCCESS,
                               CLSORT_ERROR_INVALID_ARGUMENT,
                               CLSORT_ERROR_OPENCL,
                               CLSORT_ERROR_BUILD_FAILURE,
                               CLSORT_ERROR_OUT_OF_MEMORY,
                               CLSORT_ERROR_DEVICE_NOT_FOUND,
                               CLSORT_ERROR_INTERNAL};
  for (size_t i = 0; i < sizeof all / sizeof *all; ++i) {
    CHECK(strncmp(clsort_status_string(all[i]), "CLSORT_", 7) == 0);
    for (size_t j = 0; j < i; ++j)
      CHECK(strcmp(clsort_status_string(all[i]), clsort_status_string(all[j])) != 0);
  }
  CHECK(strcmp(clsort_status_string(CLSORT_ERROR_INVALID_ARGUMENT), "CLSORT_ERROR_INVALID_ARGUMENT") == 0);
  CHECK(strcmp(clsort_status_string((clsort_status)99), "unknown clsort_status") == 0);
  CHECK(strcmp(clsort_opencl_status_string(CL_OUT_OF_RESOURCES), "CL_OUT_OF_RESOURCES") == 0);
  CHECK(strcmp(clsort_version_string(), CLSORT_VERSION_STRING) == 0);
}

int main(void) {
  cl_device_id device = pick_device();
  if (!device) {
    fprintf(stderr, "no OpenCL device\n");
    return 1;
  }
  cl_int err;
  cl_context ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
  CHECK_CL(err);
  cl_command_queue q = clCreateCommandQueue(ctx, device, 0, &err);
  CHECK_CL(err);
  clsort_sorter s = NULL;
  CHECK_STATUS(clsort_sorter_create(q, &s), CLSORT_SUCCESS);
  if (!s) return 1;

  test_names();
  test_device_sort(ctx, q, s);
  test_device_by_key(ctx, q, s);
  test_host(s);
  test_lexsort_custom(s);
  test_errors(ctx, q, s);
  test_build_failure(q);

  /* The sorts above left scratch behind; it goes back on request, and sorts go on. */
  CHECK(clsort_sorter_scratch_bytes(s) > 0);
  clsort_sorter_keep_scratch(s, 0);
  clsort_sorter_release_scratch(s);
  CHECK(clsort_sorter_scratch_bytes(s) == 0);
  CHECK(clsort_sorter_scratch_bytes(NULL) == 0);
  clsort_sorter_keep_scratch(NULL, 0);
  clsort_sorter_release_scratch(NULL);
  {
    uint32_t keys[3] = {3, 1, 2};
    CHECK_STATUS(clsort_sort_host(s, keys, 3, CLSORT_KEY_U32, 0), CLSORT_SUCCESS);
    CHECK(keys[0] == 1 && keys[1] == 2 && keys[2] == 3);
  }

  clsort_sorter_destroy(s);
  clsort_sorter_destroy(NULL);
  clReleaseCommandQueue(q);
  clReleaseContext(ctx);
  if (g_failures) {
    fprintf(stderr, "%d check(s) failed\n", g_failures);
    return 1;
  }
  printf("clsort %s C API: all checks passed\n", clsort_version_string());
  return 0;
}
