#!/usr/bin/env bash
# Values of any width and n >= 2^32 on the lent NVIDIA GPU, in one device command. First the tests on the
# GPU (the wide_values tests, by_key radix, the C API package test), then the CLSORT_TEST_HUGE=1 test
# (2^32 + 2^20 u32 keys from the host, checked by a histogram); then clsort_probe_wide_pairs (u32 keys with
# values of 4, 8, 12, 16 and 64 bytes at 2^20, 2^24, 2^26, wall clock per sort, each result checked; a
# --profile run at 2^24 times the permutation kernels apart) against CUB's SortPairs with 4- and 16-byte
# values (tools/lab/cub_wide_pairs.cu, built from the CCCL headers in .cccl: CUB 3.5; CUB_BIN names one
# built beforehand; SKIP_CUB=1 leaves it out); last the huge sorts on device buffers: 2^33 u32 keys alone
# (32 GiB: the H200's largest allocation is 34.95 GiB) and argsort64 of 2^32 + 2^26 keys, each timed and
# checked (HUGE=0 leaves them out; HUGE_N=<log2 or n> changes the first).
#   tools/lab/gpu_wide.sh [OUTDIR]   REPS=10 SIZES=20,24,26 WIDTHS=4,8,12,16,64 SUITE=1 HUGE=1
# Needs ../shared/gpu copied to .gpu and the CCCL headers in .cccl/cccl or CUB_BIN (carried).
set -uo pipefail
cd "$(dirname "$0")/../.."
source tools/lab/gpu_common.sh
gpu_build
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/gpu.txt"
./build-gpu/tools/clsort devices 2>&1 | grep -E "Device|largest|global memory" | tee "$out/devices.txt"
gpu_cub cub_wide_pairs
status=0
gpu_suite wide -R "^wide_values/|^by_key/radix/32bit|^package/c_api|^errors$"
if [ "${HUGE:-1}" = 1 ]; then
  # 2^32 + 2^20 host keys through sort_host (upload, the split radix sort, download), checked on the host.
  CLSORT_TEST_HUGE=1 ./build-gpu/tests/clsort_test_wide_values --test-case="huge n" 2>&1 | tail -4 |
    tee "$out/test-huge.txt"
  grep -q "Status: SUCCESS" "$out/test-huge.txt" || status=1
fi
./build-gpu/tools/clsort_probe_wide_pairs --sizes "${SIZES:-20,24,26}" --widths "${WIDTHS:-4,8,12,16,64}" \
  --reps "${REPS:-10}" 2>&1 | tee "$out/wide_pairs.txt" || status=1
./build-gpu/tools/clsort_probe_wide_pairs --sizes 24 --widths 4,16,64 --reps 5 --profile 2>&1 |
  tee -a "$out/wide_pairs.txt" || status=1
if gpu_cub_ready; then
  IFS=, read -ra logs <<<"${SIZES:-20,24,26}"
  stdbuf -oL "$cub" "${REPS:-10}" "${logs[@]}" 2>&1 | tee "$out/cub_wide_pairs.txt"
fi
if [ "${HUGE:-1}" = 1 ]; then
  # 2^33 u32 keys alone on a device buffer: the time of the sort itself (wall clock), then the check.
  ./build-gpu/tools/clsort_probe_wide_pairs --huge "${HUGE_N:-33}" --reps 2 --profile 2>&1 |
    tee "$out/huge.txt" || status=1
  # argsort64 past 2^32: 17 GiB of keys, 34 GiB of indices (the largest allocation).
  ./build-gpu/tools/clsort_probe_wide_pairs --huge 4362076160 --argsort64 --reps 1 2>&1 |
    tee -a "$out/huge.txt" || status=1
fi
exit $status
