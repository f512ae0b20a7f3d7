#!/usr/bin/env bash
# The radix ranking paths side by side against CUB on the lent NVIDIA GPU (docs/benchmarks.md, "Radix
# ranking paths on one GPU"), in one device command: the NVIDIA row (ballot peers for 4-byte keys, local-atomic
# peers for 8-byte keys), the ballot path that devices with cl_khr_subgroup_ballot run (here through PTX
# vote.ballot: radix.peers=1), the local-atomic peers (radix.peers=2), the path of devices without
# sub-groups (radix.subgroups=3: no PTX at all), and the ballot path with the tile a GPU without a tuning
# row derives (radix.items=0, no register cap), each with Onesweep; u32, f32, u64 keys and u32 pairs. Then
# CUB's DeviceRadixSort on the same kinds of keys (tools/lab/cub_radix.cu, built from the newest CCCL
# headers in .cccl: CUB 3.5, ../shared/gpu/README.md says how to fetch them; CUB_BIN names one built
# beforehand, e.g. where nvcc is at hand), timed alone on the same GPU.
#   tools/lab/gpu_paths.sh [OUTDIR]   SIZES=2^16,... ROUNDS=2 REPS=20 SUITE=1 (the test suite once per path
#   first, without the Oclgrind tests, which run on Oclgrind's own device: about 165 s a path on an H100;
#   SUITE_PATHS=0,3 runs it for those paths alone; BENCH=0 stops after it)
# Needs ../shared/gpu copied to .gpu and the CCCL headers in .cccl/cccl or CUB_BIN (carried).
set -uo pipefail
cd "$(dirname "$0")/../.."
source tools/lab/gpu_common.sh
sizes=${SIZES:-2^16,2^20,2^24,2^26,2^28}
paths=("" "radix.peers=1" "radix.peers=2" "radix.subgroups=3" "radix.peers=1,radix.items=0,radix.regs=0")
names=("the NVIDIA row" "ballot peers (PTX vote.ballot)" "local-atomic peers (PTX warps)"
  "no sub-groups (local memory)" "ballot peers, tile derived from the device (as a GPU without a tuning row)")
gpu_build
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu.txt"
gpu_cub cub_radix
if [ "${SUITE:-0}" = 1 ]; then
  for i in "${!paths[@]}"; do
    [[ ",${SUITE_PATHS:-0,1,2,3,4}," == *",$i,"* ]] || continue
    echo "suite, ${names[$i]}: CLSORT_TUNING='${paths[$i]}'"
    (cd build-gpu && CLSORT_TUNING="${paths[$i]}" ctest -j 14 -LE oclgrind --timeout 900) >"$out/ctest-$i.log" 2>&1
    grep -E "tests passed|tests failed|\*\*\*|Failed " "$out/ctest-$i.log" | tail -8
  done
fi
[ "${BENCH:-1}" = 1 ] || exit 0
variants=()
for p in "${paths[@]}"; do variants+=(--variant "$p"); done
./build-gpu/tools/clsort devices | grep -E "Device|plan" | tee "$out/plans.txt"
for values in "" "--values"; do
  types=u32,f32,u64
  [ -n "$values" ] && types=u32
  ./build-gpu/tools/clsort_probe_tuning $values --types $types --sizes "$sizes" "${variants[@]}" \
    --rounds "${ROUNDS:-2}" --reps "${REPS:-20}" 2>&1 | tee -a "$out/paths.txt"
  ./build-gpu/tools/clsort_probe_tuning $values --types $types --sizes 2^24,2^28 "${variants[@]}" --rounds 1 \
    --reps 5 --profile 2>&1 | tee -a "$out/profile.txt"
done
if [ "${SKIP_CUB:-0}" != 1 ]; then
  wait
  logs=()
  IFS=, read -ra list <<<"$sizes"
  for s in "${list[@]}"; do logs+=("${s#2^}"); done
  stdbuf -oL "$cub" "${REPS:-20}" "${logs[@]}" 2>&1 | tee "$out/cub.txt"
fi
