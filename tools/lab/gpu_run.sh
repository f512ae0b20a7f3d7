#!/usr/bin/env bash
# One device command on the lent NVIDIA GPU (see ../shared/gpu/README.md): build, run the whole test suite
# on the GPU, bench clsort there and time CUB on the same GPU as the anchor. Needs ../shared/gpu copied to
# .gpu (carried). Logs go to $OUT (the device tool's folder) or the first argument.
#   tools/lab/gpu_run.sh [OUTDIR]   FULL=1 runs every distribution at every size; SKIP_TESTS=1, SKIP_CUB=1
# A device command may run 10 minutes: with the suite, BENCH_SIZES=2^16,2^20,2^24 BENCH_ALGORITHMS=radix
# fits (the Onesweep table of docs/benchmarks.md was measured so; std::sort, the bench's reference, takes
# most of the time at 2^26 and beyond).
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${1:-${OUT:-/tmp/clsort-gpu}}
mkdir -p "$out"
source .gpu/setup.sh >/dev/null
full=OFF
[ "${FULL:-0}" = 1 ] && full=ON
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCLSORT_TEST_FULL=$full >"$out/build.log" 2>&1 &&
  cmake --build build-gpu -j "$(nproc)" >>"$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
export CLSORT_DEVICE=gpu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader | tee "$out/gpu.txt"
# CUB compiles (CPU only) while the tests run; it is timed after them, alone on the GPU.
[ "${SKIP_CUB:-0}" != 1 ] && { nvcc -O3 -std=c++17 -arch=sm_90 -o build-gpu/cub_bench .gpu/anchors/cub_bench.cu \
  >"$out/nvcc.log" 2>&1 & }
if [ "${SKIP_TESTS:-0}" != 1 ]; then
  (cd build-gpu && ctest -j 14 --output-on-failure --timeout 900) >"$out/ctest.log" 2>&1
  grep -E "tests passed|tests failed|Failed|\*\*\*" "$out/ctest.log" | tail -20
fi
./build-gpu/tools/clsort bench --sizes ${BENCH_SIZES:-2^16,2^20,2^24,2^26} --types ${BENCH_TYPES:-u32,f32,u64} \
  --algorithms ${BENCH_ALGORITHMS:-radix,bitonic} --no-serial --no-cpu-libraries --no-first-call --reps 9 \
  --csv "$out/bench.csv" ${BENCH_ARGS:-} 2>&1 | tee "$out/bench.txt"
./build-gpu/tools/clsort bench --sizes ${PAIRS_SIZES:-2^16,2^20,2^24} --values u32 --algorithms radix --no-serial \
  --no-cpu-libraries --no-first-call --reps 9 --csv "$out/pairs.csv" 2>&1 | tee "$out/pairs.txt"
if [ "${SKIP_CUB:-0}" != 1 ]; then
  wait
  stdbuf -oL ./build-gpu/cub_bench | tee "$out/cub.txt"
fi
