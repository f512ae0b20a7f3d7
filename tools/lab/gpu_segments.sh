#!/usr/bin/env bash
# The segmented sort on the lent NVIDIA GPU against CUB's DeviceSegmentedSort (tools/lab/cub_segmented.cu,
# built from the CCCL headers in .cccl; CUB_BIN names one built beforehand; SKIP_CUB=1 leaves it out), in one
# device command. First the segment tests on the GPU (the CTest label segments), then clsort_probe_segments
# with 2^24 keys in all, keys and pairs (u32), for 2^20 segments of 16, 2^16 of 256, 2^10 of 16384 and
# power-law lengths (each result checked against std::stable_sort per segment; a loop of single clsort
# sorts for scale), then CUB's SortKeys / StableSortKeys / SortPairs / StableSortPairs on the same shapes.
#   tools/lab/gpu_segments.sh [OUTDIR]   REPS=20 LOG=24 SUITE=1 VARIANTS="segments.huge=131072 ..."
#   SHAPES=2^12x4096,2^10x16384,power_law (both probes; default: the four above)
# Needs ../shared/gpu copied to .gpu and the CCCL headers in .cccl/cccl or CUB_BIN (carried).
set -uo pipefail
cd "$(dirname "$0")/../.."
source tools/lab/gpu_common.sh
gpu_start cub_segmented
gpu_suite segments -L segments
total="2^${LOG:-24}"
shapes=${SHAPES:-2^20x16,2^16x256,2^10x16384,power_law}
./build-gpu/tools/clsort_probe_segments --total "$total" --reps "${REPS:-20}" --no-host --shapes "$shapes" 2>&1 |
  tee "$out/segments.txt" || status=1
./build-gpu/tools/clsort_probe_segments --total "$total" --reps "${REPS:-20}" --no-host --pairs --shapes "$shapes" 2>&1 |
  tee -a "$out/segments.txt" || status=1
# Tuning variants in the same command (space-separated CLSORT_TUNING strings), keys and pairs each, e.g.
# VARIANTS="segments.huge=131072 segments.slots=2048".
for v in ${VARIANTS:-}; do
  for p in "" --pairs; do
    echo "== CLSORT_TUNING=$v $p" | tee -a "$out/segments.txt"
    CLSORT_TUNING=$v ./build-gpu/tools/clsort_probe_segments --total "$total" --reps "${REPS:-20}" --no-host --shapes "$shapes" $p \
      2>&1 | tee -a "$out/segments.txt" || status=1
  done
done
if gpu_cub_ready; then
  stdbuf -oL "$cub" "${REPS:-20}" "${LOG:-24}" "$shapes" 2>&1 | tee "$out/cub_segmented.txt"
fi
exit $status
