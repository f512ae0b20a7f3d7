#!/usr/bin/env bash
# sort_custom (a 12-byte struct by an OpenCL C comparison) and lexsort on the lent NVIDIA GPU, against CUB's
# DeviceMergeSort::StableSortKeys with the same comparison as a C++ functor (tools/lab/cub_merge_custom.cu,
# built from the CCCL headers in .cccl: CUB 3.5; CUB_BIN names one built beforehand; SKIP_CUB=1 leaves it
# out), in one device command. First the lexsort and custom tests on the GPU (CTest labels lexsort and
# custom, the cli probe included), then clsort_probe_custom: sort_custom of the struct at 2^20 and 2^24 (the
# same input as the CUB probe; merge sort, and the bitonic network with BITONIC=1), lexsort of 2 and 3
# columns at 2^24 rows and one sort_by_key pass alone, each checked against std::stable_sort; then
# sort_custom's merge sort again under each tuning of TUNINGS (other tiles than the default 256 x 8;
# TUNINGS= none); then CUB.
#   tools/lab/gpu_custom.sh [OUTDIR]   REPS=10 SIZES=2^20,2^24 ROWS=2^24 BITONIC=1 SUITE=1 TUNINGS="..." 
# Needs ../shared/gpu copied to .gpu and the CCCL headers in .cccl/cccl or CUB_BIN (carried).
set -uo pipefail
cd "$(dirname "$0")/../.."
source tools/lab/gpu_common.sh
gpu_start cub_merge_custom
gpu_suite custom -L "lexsort|custom"
bitonic=()
[ "${BITONIC:-1}" = 1 ] && bitonic=(--bitonic)
./build-gpu/tools/clsort_probe_custom --sizes "${SIZES:-2^20,2^24}" --lex-rows "${ROWS:-2^24}" \
  --reps "${REPS:-10}" "${bitonic[@]}" 2>&1 | tee "$out/custom.txt" || status=1
for t in ${TUNINGS-custom.wg=128,custom.items=8 custom.wg=128,custom.items=16 custom.wg=512,custom.items=4}; do
  echo "CLSORT_TUNING=$t" | tee -a "$out/custom.txt"
  CLSORT_TUNING=$t ./build-gpu/tools/clsort_probe_custom --sizes "${SIZES:-2^20,2^24}" --lex-rows 0 \
    --reps "${REPS:-10}" 2>&1 | tail -n +3 | tee -a "$out/custom.txt" || status=1
done
if gpu_cub_ready; then
  IFS=, read -ra sl <<<"${SIZES:-2^20,2^24}"
  logs=()
  for s in "${sl[@]}"; do logs+=("${s#2^}"); done
  stdbuf -oL "$cub" "${REPS:-10}" "${logs[@]}" 2>&1 | tee "$out/cub_merge_custom.txt"
fi
exit $status
