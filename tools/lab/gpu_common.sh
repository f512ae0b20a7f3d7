# What the GPU scripts (tools/lab/gpu_*.sh) share, sourced by them from the repository root: the output folder
# (first argument, else $OUT, else /tmp/clsort-gpu) in $out, NVIDIA's OpenCL set up (../shared/gpu copied
# to .gpu), the default device the GPU.

out=${1:-${OUT:-/tmp/clsort-gpu}}
mkdir -p "$out"
source .gpu/setup.sh >/dev/null
export CLSORT_DEVICE=gpu

# Configures and builds build-gpu (Release; extra cmake -D options in GPU_CMAKE_ARGS, build targets as
# arguments, all without); on failure prints the log's end and exits.
gpu_build() {
  local targets=()
  (($#)) && targets=(--target "$@")
  cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release ${GPU_CMAKE_ARGS:-} >"$out/build.log" 2>&1 &&
    cmake --build build-gpu -j "$(nproc)" "${targets[@]}" >>"$out/build.log" 2>&1 ||
    { tail -40 "$out/build.log"; exit 1; }
}

# The CUB probe tools/lab/NAME.cu: $cub names CUB_BIN if given (built beforehand), else build-gpu/NAME,
# which nvcc builds in the background from the CCCL headers in .cccl (wait before running it); SKIP_CUB=1
# builds nothing.
gpu_cub() {
  cub=${CUB_BIN:-build-gpu/$1}
  cub_name=$1
  if [ "${SKIP_CUB:-0}" != 1 ] && [ -z "${CUB_BIN:-}" ]; then
    nvcc -O3 -std=c++17 -arch=sm_90 -I.cccl/cccl -o "$cub" "tools/lab/$1.cu" >"$out/nvcc.log" 2>&1 &
  fi
}

# The start that gpu_custom.sh, gpu_segments.sh and gpu_topk.sh share: build-gpu built, the GPU's name and
# driver in $out/gpu.txt, the CUB probe tools/lab/NAME.cu under way (gpu_cub), status=0.
#   gpu_start NAME
gpu_start() {
  gpu_build
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu.txt"
  gpu_cub "$1"
  status=0
}

# After gpu_cub: waits for the background builds and succeeds when $cub is there to run; says so and prints
# nvcc's log when it did not build; fails quietly with SKIP_CUB=1.
gpu_cub_ready() {
  [ "${SKIP_CUB:-0}" != 1 ] || return 1
  wait
  [ -x "$cub" ] && return 0
  echo "$cub_name did not build:"; tail -20 "$out/nvcc.log"
  return 1
}

# With SUITE=1 (the default): the tests of build-gpu that the ctest options ARGS select, 8 at a time, logged
# in $out/ctest-NAME.log, with its summary; sets status=1 when one fails.
#   gpu_suite NAME ARGS...
gpu_suite() {
  local name=$1
  shift
  [ "${SUITE:-1}" = 1 ] || return 0
  (cd build-gpu && ctest -j 8 "$@" --timeout 900) >"$out/ctest-$name.log" 2>&1 || status=1
  grep -E "tests passed|tests failed|\*\*\*|Failed " "$out/ctest-$name.log" | tail -8
}
