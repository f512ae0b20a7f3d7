#!/usr/bin/env bash
# Narrow keys against CUB on the lent NVIDIA GPU, in one device command: clsort's radix sort of u16, f16,
# u8 and bf16 keys and of u16 keys with u32 values (clsort_probe_tuning: the NVIDIA row, keys already on
# the device, every output checked, the plan's shape printed first, so the passes can be read: 2 for 16-bit
# keys, 1 for 8-bit), then CUB's DeviceRadixSort on u16, f16, u8 keys and u16 pairs (tools/lab/cub_radix.cu
# built from the newest CCCL headers in .cccl: CUB 3.5; CUB_BIN names one built beforehand), timed alone
# on the same GPU. The target: u16 at 2^24 and 2^26 at least 1.0x CUB.
#   tools/lab/gpu_narrow.sh [OUTDIR]   SIZES=2^16,2^20,2^24,2^26,2^28 ROUNDS=2 REPS=20
#                                      VARIANTS="radix.items=32;..."
# Needs ../shared/gpu copied to .gpu and the CCCL headers in .cccl/cccl or CUB_BIN (carried).
set -uo pipefail
cd "$(dirname "$0")/../.."
source tools/lab/gpu_common.sh
sizes=${SIZES:-2^16,2^20,2^24,2^26,2^28}
gpu_build clsort_probe_tuning clsort_cli
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu.txt"
gpu_cub cub_radix
# The row itself, then any candidate tunings (semicolon-separated) beside it.
variants=(--variant "")
IFS=';' read -ra extra <<<"${VARIANTS:-}"
for v in "${extra[@]}"; do variants+=(--variant "$v"); done
./build-gpu/tools/clsort_probe_tuning --types u16,f16,u8,bf16 --sizes "$sizes" "${variants[@]}" \
  --rounds "${ROUNDS:-2}" --reps "${REPS:-20}" 2>&1 | tee "$out/narrow.txt"
./build-gpu/tools/clsort_probe_tuning --values --types u16 --sizes "$sizes" "${variants[@]}" \
  --rounds "${ROUNDS:-2}" --reps "${REPS:-20}" 2>&1 | tee -a "$out/narrow.txt"
./build-gpu/tools/clsort_probe_tuning --types u16,u32 --sizes 2^24,2^26 --rounds 1 --reps 5 --profile 2>&1 |
  tee "$out/narrow-profile.txt"
if [ "${SKIP_CUB:-0}" != 1 ]; then
  wait
  logs=()
  IFS=, read -ra list <<<"$sizes"
  for s in "${list[@]}"; do logs+=("${s#2^}"); done
  CUB_KINDS=u16,f16,u8,u16+u32,u32 stdbuf -oL "$cub" "${REPS:-20}" "${logs[@]}" 2>&1 | tee "$out/cub-narrow.txt"
fi
