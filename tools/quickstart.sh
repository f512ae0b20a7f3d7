#!/usr/bin/env bash
# README's quick start on Debian 12: installs what is missing, builds, then runs the main job
# (`quickstart.sh run`: the clsort bench on the default device) or the whole test suite (`quickstart.sh test`).
set -euo pipefail
cd "$(dirname "$0")/.."

mode=${1:-run}
case "$mode" in run | test) ;; *) echo "usage: $0 [run|test]" >&2; exit 2 ;; esac

packages=(cmake g++ make pkg-config ocl-icd-opencl-dev opencl-clhpp-headers pocl-opencl-icd doctest-dev libcli11-dev
  gnuplot-nox libboost-dev libhwy-dev libtbb-dev)
[ "$mode" = test ] && packages+=(oclgrind)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "quickstart: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

jobs=$(nproc)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j "$jobs"

if [ "$mode" = run ]; then
  exec ./build/tools/clsort bench
else
  # The sanitizer build and its tests first (docs/reliability.md), so that the main CTest summary, which
  # includes the Oclgrind tests, is the last thing printed; a sanitizer failure still fails the run.
  sanitizer=0
  ./tests/sanitizer/run.sh || sanitizer=$?
  cd build
  ctest -j "$jobs" --output-on-failure --timeout 1500
  exit "$sanitizer"
fi
