#!/usr/bin/env bash
# Intel's OpenCL CPU runtime from PyPI, registered beside the system's OpenCL drivers (PoCL), without root:
#   tools/intel_opencl.sh setup          install it once (a venv, pinned versions), write the ICD directory
#   eval "$(tools/intel_opencl.sh env)"  setup, then the export lines of an environment that selects it
#   tools/intel_opencl.sh run CMD...     setup, then CMD in that environment
# The environment: OCL_ICD_VENDORS, a directory with the system's .icd files plus one naming libintelocl.so,
# and CLSORT_DEVICE='Intel(R) OpenCL' (its platform; plain "intel" can match PoCL's device on Intel CPUs).
# No LD_LIBRARY_PATH: libintelocl.so finds its libraries (TBB, compiler runtime) through its RUNPATH $ORIGIN,
# and processes keep the system's ICD loader and hwloc (the wheels' own copies sit in the same directory);
# TBB then runs without the optional TCM library (tcmlib), as where it is not installed.
# Needs python3 with venv (Debian: python3 python3-venv) and PyPI for the first setup. The venv goes to
# CLSORT_INTEL_OPENCL_DIR, default ${XDG_CACHE_HOME:-~/.cache}/clsort-intel-opencl; messages go to stderr.
set -euo pipefail

version=2026.2.0
packages=("intel-opencl-rt==$version" "intel-cmplr-lib-rt==$version" "intel-cmplr-lic-rt==$version" tbb==2023.2.0
  tcmlib==1.6.0)
dir=${CLSORT_INTEL_OPENCL_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/clsort-intel-opencl}
venv=$dir/venv-$version
vendors=$dir/vendors
lib=$venv/lib/libintelocl.so

say() { echo "intel_opencl: $*" >&2; }
die() {
  say "error: $*"
  exit 1
}

setup() {
  # The stamp names the exact package set, so a changed pin reinstalls.
  if [ "$(cat "$venv/.clsort-installed" 2>/dev/null)" = "${packages[*]}" ] && [ -e "$lib" ]; then
    say "Intel's OpenCL CPU runtime $version already installed in $venv"
  else
    local python=${PYTHON:-python3}
    command -v "$python" >/dev/null || die "$python not found (Debian: apt-get install python3 python3-venv)"
    say "creating a Python venv in $venv"
    rm -rf "$venv"
    "$python" -m venv "$venv" >&2 || die "'$python -m venv' failed (Debian: apt-get install python3-venv)"
    say "pip install ${packages[*]}"
    "$venv/bin/pip" install --disable-pip-version-check --no-input --no-cache-dir -q "${packages[@]}" >&2 ||
      die "pip install failed (PyPI must be reachable)"
    [ -e "$lib" ] || die "the packages installed, but $lib is not there"
    echo "${packages[*]}" >"$venv/.clsort-installed"
  fi
  # Rewritten every time: the system's drivers may have changed since.
  rm -rf "$vendors"
  mkdir -p "$vendors"
  local icd
  for icd in /etc/OpenCL/vendors/*.icd; do
    if [ -e "$icd" ]; then cp "$icd" "$vendors/"; fi
  done
  echo "$lib" >"$vendors/intel-cpu.icd"
  say "OpenCL drivers in $vendors: $(cd "$vendors" && echo *.icd)"
}

case "${1:-}" in
  setup) setup ;;
  env)
    setup
    printf 'export OCL_ICD_VENDORS=%q\nexport CLSORT_DEVICE=%q\n' "$vendors" "Intel(R) OpenCL"
    ;;
  run)
    [ $# -ge 2 ] || die "usage: $0 run CMD [ARGS...]"
    setup
    shift
    export OCL_ICD_VENDORS=$vendors CLSORT_DEVICE="Intel(R) OpenCL"
    exec "$@"
    ;;
  *)
    echo "usage: $0 setup | env | run CMD [ARGS...]" >&2
    exit 2
    ;;
esac
