#!/usr/bin/env bash
# An A/B of the library on the lent NVIDIA GPU (../shared/gpu/README.md): the source tree BASE (a copy of
# an earlier commit, e.g. `git worktree add` or `git archive`, under an ignored folder that the device
# call carries) against this checkout, both built alike, timed alternately in one command so that clock
# and thermal drift fall on both. Prints each row's median time new / base for the device sort and the
# host-vector sort. Needs ../shared/gpu copied to .gpu (carried).
#   tools/lab/gpu_ab.sh BASE [OUTDIR]      ROUNDS=2, AB_SIZES, AB_TYPES, AB_ALGORITHMS; SKIP_PROBES=1
set -uo pipefail
cd "$(dirname "$0")/../.."
base=${1:?usage: tools/lab/gpu_ab.sh BASE [OUTDIR]}
out=${2:-${OUT:-/tmp/clsort-ab}}
mkdir -p "$out"
source .gpu/setup.sh >/dev/null
export CLSORT_DEVICE=gpu
targets=(clsort_cli)
[ "${SKIP_PROBES:-0}" = 1 ] || targets+=(clsort_probe_segments clsort_probe_top_k)
build() {  # source dir, label
  cmake -S "$1" -B "$1/build-gpu" -DCMAKE_BUILD_TYPE=Release -DCLSORT_BUILD_TESTS=OFF >"$out/build-$2.log" 2>&1 &&
    cmake --build "$1/build-gpu" -j "$(nproc)" --target "${targets[@]}" >>"$out/build-$2.log" 2>&1 ||
    { echo "build of $2 failed:"; tail -30 "$out/build-$2.log"; return 1; }
}
build "$base" base & b=$!
build . new || exit 1
wait $b || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu.txt"
dir_of() { [ "$1" = base ] && echo "$base" || echo .; }
exe() { find "$(dir_of "$1")/build-gpu/tools" -name "$2" -type f -perm -u+x | head -1; }  # wherever tools/ puts it
bench=(bench --sizes "${AB_SIZES:-2^16,2^20,2^24,2^26}" --types "${AB_TYPES:-u32,f32,u64}"
  --algorithms "${AB_ALGORITHMS:-radix,merge}" --no-serial --no-cpu-libraries --no-first-call --reps 9)
for round in $(seq "${ROUNDS:-2}"); do
  for v in base new; do
    "$(exe $v clsort)" "${bench[@]}" --csv "$out/$v-keys-$round.csv" >"$out/$v-keys-$round.txt" 2>&1
    "$(exe $v clsort)" "${bench[@]}" --values u32 --csv "$out/$v-pairs-$round.csv" \
      >"$out/$v-pairs-$round.txt" 2>&1
    # PoCL's CPU device on the same machine, in the same rounds.
    "$(exe $v clsort)" bench --device cpu --sizes "${AB_CPU_SIZES:-2^16,2^20,2^22}" --types u32,u64 \
      --algorithms radix --no-serial --no-cpu-libraries --no-first-call --reps 5 --csv "$out/$v-cpu-$round.csv" \
      >"$out/$v-cpu-$round.txt" 2>&1
    if [ "${SKIP_PROBES:-0}" != 1 ]; then
      "$(exe $v clsort_probe_segments)" --total 2^24 --reps 10 --pairs --no-host --no-loop \
        >"$out/$v-segments-$round.txt" 2>&1
      "$(exe $v clsort_probe_top_k)" --types u32,u64 --sizes 2^20,2^24 --ks 16,1024 --reps 5 \
        --no-host >"$out/$v-topk-$round.txt" 2>&1
    fi
  done
done
# Each row's best median over the rounds, new against base (below 1: the new tree is faster).
python3 - "$out" <<'PY' | tee "$out/ab.txt"
import csv, glob, sys
out = sys.argv[1]
def rows(v):
    best = {}
    for f in glob.glob(f"{out}/{v}-*-*.csv"):
        device = "cpu" if "-cpu-" in f else "gpu"
        for r in csv.DictReader(open(f)):
            r["row"] = device + " " + r["row"]
            if r["kind"] != "device" or not r["algorithm"]:
                continue
            key = (r["n"], r["type"], r["values"], r["row"])
            for col in ("median_ms", "host_to_host_ms"):
                if r[col]:
                    k = key + (col,)
                    best[k] = min(best.get(k, 1e30), float(r[col]))
    return best
b, n = rows("base"), rows("new")
print(f"{'n':>10} {'type':5} {'values':6} {'row':28} {'what':16} {'base ms':>9} {'new ms':>9} {'new/base':>8}")
for k in sorted(b, key=lambda k: (k[3], k[1], k[2], int(k[0]), k[4])):
    if k in n:
        what = "device" if k[4] == "median_ms" else "host vector"
        print(f"{k[0]:>10} {k[1]:5} {k[2]:6} {k[3]:28} {what:16} {b[k]:9.4f} {n[k]:9.4f} {n[k] / b[k]:8.3f}")
PY
if [ "${SKIP_PROBES:-0}" != 1 ]; then
  for p in segments topk; do
    echo "== $p probe, last round: base, then new"
    tail -25 "$out/base-$p-${ROUNDS:-2}.txt"
    tail -25 "$out/new-$p-${ROUNDS:-2}.txt"
  done
fi
