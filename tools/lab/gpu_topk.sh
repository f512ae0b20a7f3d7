#!/usr/bin/env bash
# top_k and select (radix selection) on the lent NVIDIA GPU against a full clsort sort of the same keys,
# and against CUB's DeviceTopK (tools/lab/cub_topk.cu, built from the CCCL headers in .cccl: CUB 3.5;
# CUB_BIN names one built beforehand; SKIP_CUB=1 leaves it out), in one device command. First the top_k
# tests on the GPU (the CTest label top_k and the cli top_k cases), then clsort_probe_top_k at n = 2^26
# for k = 1, 16, 1024 (u32, f32, u64; each result checked against std::partial_sort of (key, index),
# which it also times at 2^24), then CUB.
#   tools/lab/gpu_topk.sh [OUTDIR]   REPS=10 SIZES=2^26 KS=1,16,1024 SUITE=1
# Needs ../shared/gpu copied to .gpu and the CCCL headers in .cccl/cccl or CUB_BIN (carried).
set -uo pipefail
cd "$(dirname "$0")/../.."
source tools/lab/gpu_common.sh
gpu_start cub_topk
gpu_suite top_k -R "^top_k/|cli/top_k|cli/probe_top_k"
# n = 2^26 without the host references (std::partial_sort of 2^26 pairs takes seconds a call), then 2^24
# with them.
./build-gpu/tools/clsort_probe_top_k --types u32,f32,u64 --sizes "${SIZES:-2^26}" --ks "${KS:-1,16,1024}" \
  --reps "${REPS:-10}" --no-host 2>&1 | tee "$out/top_k.txt" || status=1
./build-gpu/tools/clsort_probe_top_k --types u32,f32,u64 --sizes 2^24 --ks "${KS:-1,16,1024}" --reps 3 2>&1 |
  tee -a "$out/top_k.txt" || status=1
if gpu_cub_ready; then
  IFS=, read -ra kl <<<"${KS:-1,16,1024}"
  log=${SIZES:-2^26}
  stdbuf -oL "$cub" "${REPS:-10}" "${log#2^}" "${kl[@]}" 2>&1 | tee "$out/cub_topk.txt"
fi
exit $status
