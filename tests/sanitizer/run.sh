#!/usr/bin/env bash
# The sanitizer pass of `./tools/quickstart.sh test`: builds build-asan with -DCLSORT_SANITIZE=ON (ASan
# with LeakSanitizer, and UBSan, on the library, tools and tests) and runs a smaller set of tests in it.
set -euo pipefail
cd "$(dirname "$0")/../.."
jobs=${CLSORT_JOBS:-$(nproc)}
root=$PWD

# -O1: a quicker build than -O2 and still fast enough under ASan; the bench's rows of other libraries (Boost,
# Highway, oneTBB) are not needed.
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_CXX_FLAGS_DEBUG=-O1 -g" "-DCMAKE_C_FLAGS_DEBUG=-O1 -g" \
  -DCLSORT_SANITIZE=ON -DCLSORT_BENCH_BOOST=OFF -DCLSORT_BENCH_HWY=OFF -DCLSORT_BENCH_TBB=OFF >/dev/null
# Not the matrix or by_key executables: their many key-type instantiations are minutes of compiling under
# ASan, and the calls they make are the ones api/other and errors make.
targets=(clsort clsort_cli clsort_probe_tuning clsort_probe_top_k clsort_probe_custom clsort_probe_segments clsort_cli_test clsort_test_api clsort_test_errors
  clsort_test_c_api clsort_test_lexsort clsort_reliability_faults clsort_reliability_disk_cache clsort_reliability_concurrency
  clsort_reliability_cache_worker clsort_reliability_property)
cmake --build build-asan -j "$jobs" --target "${targets[@]}"

# Leaks inside PoCL, the ICD loader and LLVM are theirs (lsan.supp names only those libraries); any error
# fails the test that hit it.
export ASAN_OPTIONS="detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=0:check_initialization_order=1"
# use_tls=0: LeakSanitizer's tracer (GCC 12's, on Debian 12's glibc 2.36) reads a dynamic-TLS entry of a
# library loaded at run time as the range 0x10c9-0x8000021cb and dies of signal 11 at exit ("DTLS 8 at
# 0x...10c9" with verbosity=1), every time once a process has built a few programs with PoCL and links Open
# MPI (clsort bench --types u32,i32,f32). Without TLS as roots a pointer held only there would show as a
# leak: stricter, not looser.
export LSAN_OPTIONS="suppressions=$root/tests/sanitizer/lsan.supp:print_suppressions=0:use_tls=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export CLSORT_PROPERTY_CASES=${CLSORT_PROPERTY_CASES:-100}
# threads is left out: reliability/concurrency/threads loads the same shared state harder, and under ASan
# the two together took a third of the pass.
tests='^(errors|api/other|lexsort/api|custom/api|package/c_api|cli/.*|reliability/(faults|disk_cache|concurrency/.*|property))$'
cd build-asan
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
ctest -j "$jobs" --output-on-failure --timeout 900 -R "$tests" 2>&1 | tee "$log" || status=$?
# LeakSanitizer's stop-the-world tracer sometimes crashes at process exit ("Tracer caught signal 11",
# google/sanitizers#1353, open upstream): LSan failing to run, not a finding. Only when every failed
# test shows that crash are they run once more, so a leak or a failing check still fails the pass.
if [ "$status" -ne 0 ]; then
  failed=$(grep -c -E '\*\*\*(Failed|Exception|Timeout)' "$log" || true)
  crashed=$(grep -c 'Tracer caught signal' "$log" || true)
  if [ "$failed" -gt 0 ] && [ "$crashed" -ge "$failed" ]; then
    echo "sanitizer pass: LeakSanitizer's tracer crashed in $crashed test(s) (google/sanitizers#1353);" \
      "running the failed tests once more"
    status=0
    ctest --rerun-failed --output-on-failure --timeout 900 || status=$?
  fi
fi
exit "$status"
