/* The consumer's C side: sorts a host array through the C API and checks the result. */
#include <clsort/clsort.h>

#include <stdio.h>
#include <string.h>

int main(void) {
  enum { N = 1000 };
  int64_t keys[N];
  for (int i = 0; i < N; ++i) keys[i] = (int64_t)((i * 7919) % N) - N / 2;
  clsort_status st = clsort_sort_host(NULL, keys, N, CLSORT_KEY_I64, CLSORT_DESCENDING);
  if (st != CLSORT_SUCCESS) {
    fprintf(stderr, "consumer: %s: %s\n", clsort_status_string(st), clsort_last_error_message());
    return 1;
  }
  for (int i = 0; i < N; ++i)
    if (keys[i] != N / 2 - 1 - i) {
      fprintf(stderr, "consumer: wrong order at %d\n", i);
      return 1;
    }
  if (strcmp(clsort_version_string(), CLSORT_VERSION_STRING) != 0) {
    fprintf(stderr, "consumer: header %s but library %s\n", CLSORT_VERSION_STRING, clsort_version_string());
    return 1;
  }
  printf("consumer (C): sorted %d int64 keys descending with clsort %s\n", N, clsort_version_string());
  return 0;
}
