#!/usr/bin/env bash
# clsort::mpi on the lent NVIDIA GPU, in one device command (under 8 minutes): builds, runs the MPI tests
# (ctest -L mpi: 1 to 4 ranks sharing the one GPU), then `clsort bench --mpi` with 1, 2 and 4 ranks on the
# GPU for u32 keys, u64 keys and u32 pairs at 2^24, 2^26 and 2^28 keys per rank, device data, and prints
# each table (per phase against the floors measured in the same run: ratio = total / (exchange floor +
# local sort)), then weak scaling: the 1-rank total over the p-rank total at the same keys per rank.
# Open MPI 4.1 is installed there (../shared/gpu/README.md, "MPI there"); needs ../shared/gpu copied to
# .gpu (carried). Logs and CSV go to $OUT (the device tool's folder) or the first argument.
#   tools/lab/gpu_mpi.sh [OUTDIR]   SIZES=2^24,2^26,2^28 RANKS="1 2 4" REPS=5 SKIP_TESTS=1 HOST=1 (also a host-data
#   table: std::vector on each rank, at the smallest size)
set -uo pipefail
cd "$(dirname "$0")/../.."
source tools/lab/gpu_common.sh
# mpirun as root, more ranks than a binding would place, no binding (each rank's driver threads roam).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
mpirun_=(mpirun --bind-to none)
sizes=${SIZES:-2^24,2^26,2^28}
gpu_build clsort_cli clsort_test_mpi clsort_test_mpi_cli
grep -E "clsort_mpi" "$out/build.log" | head -2
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/gpu.txt"
mpirun --version | head -1 | tee -a "$out/gpu.txt"

# Open MPI's shared-memory single copy (CMA) needs ptrace rights a container may lack: probe it, and fall
# back to copies through shared memory when it fails.
if ! "${mpirun_[@]}" -np 2 ./build-gpu/tools/clsort bench --mpi --types u32 --sizes 2^16 --reps 1 \
  >"$out/probe.log" 2>&1; then
  echo "gpu_mpi: mpirun failed with the default shared-memory copy (see probe.log); using btl_vader_single_copy_mechanism=none"
  export OMPI_MCA_btl_vader_single_copy_mechanism=none
fi

if [ "${SKIP_TESTS:-0}" != 1 ]; then
  (cd build-gpu && ctest -L mpi -j 4 --output-on-failure --timeout 600) >"$out/ctest.log" 2>&1
  grep -E "tests passed|tests failed|Failed|\*\*\*|Total Test time" "$out/ctest.log" | tail -12
fi

for ranks in ${RANKS:-1 2 4}; do
  echo
  echo "== $ranks rank(s) on the GPU"
  "${mpirun_[@]}" -np "$ranks" ./build-gpu/tools/clsort bench --mpi --types u32,u64 --values none --sizes "$sizes" \
    --reps "${REPS:-5}" --csv "$out/keys-$ranks.csv" 2>&1 | tee "$out/keys-$ranks.txt"
  "${mpirun_[@]}" -np "$ranks" ./build-gpu/tools/clsort bench --mpi --types u32 --values u32 --sizes "$sizes" \
    --reps "${REPS:-5}" --csv "$out/pairs-$ranks.csv" 2>&1 | tee "$out/pairs-$ranks.txt"
  if [ "${HOST:-0}" = 1 ]; then
    "${mpirun_[@]}" -np "$ranks" ./build-gpu/tools/clsort bench --mpi --data host --types u32,u64 \
      --sizes "${sizes%%,*}" --reps 3 --csv "$out/host-$ranks.csv" 2>&1 | tee "$out/host-$ranks.txt"
  fi
done

# Weak scaling: the same keys per rank on 1 and on p ranks (one GPU shared: a bound, not GPU scaling).
echo
echo "== weak scaling (total of 1 rank / total of p ranks, same keys per rank)"
cat "$out"/keys-*.csv "$out"/pairs-*.csv 2>/dev/null | awk -F, '
  $1 == "type" { next }
  { key = $1 " " $2 " " $3; t[key, $4] = $6; seen[key] = 1; if (!($4 in r)) { r[$4] = 1; ranks[++nr] = $4 } }
  END {
    for (k in seen) for (i = 1; i <= nr; ++i) if (ranks[i] != 1 && (k, 1) in t && (k, ranks[i]) in t)
      printf "%-22s %d ranks: %.2f\n", k, ranks[i], t[k, 1] / t[k, ranks[i]]
  }' | sort
