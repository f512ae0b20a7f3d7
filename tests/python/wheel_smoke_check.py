"""Run by wheel_smoke.sh in the clean venv where the repaired wheel and clsort[cpu] are installed: the
package must come from that venv, the ICD loader from the wheel (auditwheel's copy, not the system's), and
the PyPI CPU runtime must list a device that sorts, argsorts and top_k's like NumPy. Exits non-zero on any
failure. The argument: "hidden" (the system's OpenCL is hidden, so clsort's own registration of the PyPI
runtime is what finds it) or "isolated" (OCL_ICD_VENDORS given, naming only the PyPI runtime)."""

import os
import sys

import numpy as np

import clsort
from clsort import _runtime

mode = sys.argv[1]
venv = os.path.realpath(sys.prefix)
assert os.path.realpath(clsort.__file__).startswith(venv + os.sep), f"clsort from {clsort.__file__}, not {venv}"

libraries = _runtime.pypi_runtime_libraries()
assert libraries, "no PyPI OpenCL runtime found in the venv (clsort[cpu] installed nothing?)"
if mode == "hidden":
    assert _runtime.registered == libraries, f"registered {_runtime.registered}, found {libraries}"

devices = clsort.devices()
print("wheel_smoke: devices:", devices)
assert devices, "clsort.devices() is empty"

# The loader actually mapped: the wheel's (clsort.libs / clsort.libs-named by auditwheel), under the venv.
with open("/proc/self/maps") as f:
    loaders = {line.split()[-1] for line in f if "libOpenCL" in line}
print("wheel_smoke: ICD loader:", *sorted(loaders))
assert loaders and all(p.startswith(venv + os.sep) for p in loaders), f"ICD loader not from the wheel: {loaders}"

rng = np.random.default_rng(52)
n = 50_000
arrays = {
    "uint32": rng.integers(0, 1000, n, dtype=np.uint32),  # many ties: stability shows
    "int32": rng.integers(-1000, 1000, n, dtype=np.int32),
    "int64": rng.integers(-(1 << 40), 1 << 40, n, dtype=np.int64),
    "float32": rng.standard_normal(n).astype(np.float32),  # no zeros, no NaNs: NumPy's order is clsort's
    "float64": rng.standard_normal(n),
}
k = 100
for device in devices:
    for name, a in arrays.items():
        s = clsort.sort(a, device=device)
        assert np.array_equal(s, np.sort(a, kind="stable")), f"sort {name} on {device}"
        p = clsort.argsort(a, device=device)
        assert np.array_equal(p, np.argsort(a, kind="stable")), f"argsort {name} on {device}"
        v, i = clsort.top_k(a, k, device=device)
        ref = np.argsort(a, kind="stable")[:k]
        assert np.array_equal(i, ref) and np.array_equal(v, a[ref]), f"top_k {name} on {device}"
    print(f"wheel_smoke: sort, argsort, top_k of {', '.join(arrays)} match NumPy on {device}")
