#!/usr/bin/env bash
# Intel's OpenCL CPU runtime from PyPI, registered beside the system's OpenCL drivers (PoCL), without root:
#   tools/intel_opencl.sh setup          install it once (a venv, pinned versions), write the ICD directory
#   eval "$(tools/intel_opencl.sh env)"  setup, then the export lines of an environment that selects it
#   tools/intel_opencl.sh run CMD...     setup, then CMD in that environment
# The environment: OCL_ICD_VENDORS, a directory with the system's .icd files plus one naming libintelocl.so,
# CLSORT_DEVICE='Intel(R) OpenCL' (its platform; plain "intel" can match PoCL's device on Intel CPUs), and
# LD_LIBRARY_PATH to a directory holding only the wheels' TBB and TCM libraries. libintelocl.so finds its
# other libraries through its RUNPATH $ORIGIN, but a process that already loaded Debian's older TBB
# (`clsort` with its tbb::parallel_sort bench row) would hand it that one, and the ICD loader would then
# drop Intel's platform without a word; oneTBB is backward compatible, so the newer one serves both. The
# whole wheel directory is not put on the path: its own ICD loader and hwloc would replace the system's.
# Needs python3 with venv (Debian: python3 python3-venv) and PyPI for the first setup. The venv goes to
# CLSORT_INTEL_OPENCL_DIR, default ${XDG_CACHE_HOME:-~/.cache}/clsort-intel-opencl; messages go to stderr.
set -euo pipefail

version=2026.2.0
packages=("intel-opencl-rt==$version" "intel-cmplr-lib-rt==$version" "intel-cmplr-lic-rt==$version" tbb==2023.2.0
  tcmlib==1.6.0)
dir=${CLSORT_INTEL_OPENCL_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/clsort-intel-opencl}
venv=$dir/venv-$version
vendors=$dir/vendors
tbb=$dir/tbb
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
  rm -rf "$tbb"
  mkdir -p "$tbb"
  ln -s "$venv"/lib/libtbb*.so* "$venv"/lib/libtcm*.so* "$tbb/"
  say "OpenCL drivers in $vendors: $(cd "$vendors" && echo *.icd)"
}

case "${1:-}" in
  setup) setup ;;
  env)
    setup
    printf 'export OCL_ICD_VENDORS=%q\nexport CLSORT_DEVICE=%q\nexport LD_LIBRARY_PATH=%q\n' "$vendors" \
      "Intel(R) OpenCL" "$tbb${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    ;;
  run)
    [ $# -ge 2 ] || die "usage: $0 run CMD [ARGS...]"
    setup
    shift
    export OCL_ICD_VENDORS=$vendors CLSORT_DEVICE="Intel(R) OpenCL" LD_LIBRARY_PATH=$tbb${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    exec "$@"
    ;;
  *)
    echo "usage: $0 setup | env | run CMD [ARGS...]" >&2
    exit 2
    ;;
esac
