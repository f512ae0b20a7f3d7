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
  if [ "${SKIP_CUB:-0}" != 1 ] && [ -z "${CUB_BIN:-}" ]; then
    nvcc -O3 -std=c++17 -arch=sm_90 -I.cccl/cccl -o "$cub" "tools/lab/$1.cu" >"$out/nvcc.log" 2>&1 &
  fi
}
