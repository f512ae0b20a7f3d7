"""Bad inputs raise TypeError / ValueError naming the problem, failures inside clsort raise clsort.Error
with the OpenCL status name (and the build log for kernel builds); the caller's arrays never change."""

import os
import pathlib
import shutil
import subprocess
import sys

import numpy as np
import pytest
from numpy.testing import assert_array_equal

import clsort

REPO = pathlib.Path(__file__).resolve().parents[2]


# Void and structured dtypes of a key's width too (to NumPy, ml_dtypes' bfloat16 is a 2-byte void dtype).
@pytest.mark.parametrize("dtype", [bool, np.longdouble, np.complex64, np.complex128, "M8[s]", "m8[s]", "U4", "S4",
                                   object, [("a", "<i4"), ("b", "<i4")], [("a", "<u2")], "V8", "V2", "V1"])
def test_unsupported_dtypes(dtype):
    a = np.zeros(5, dtype=dtype)
    for call in (clsort.sort, clsort.argsort, lambda x: clsort.sort_by_key(x, np.arange(5))):
        with pytest.raises(TypeError, match=r"dtype .*supported key dtypes are uint32, int32, float32"):
            call(a)


def test_dimensions():
    for a in (np.float32(1.0), np.zeros((4, 4), np.float32), np.zeros((2, 3, 4), np.uint64)):
        for call in (clsort.sort, clsort.argsort):
            with pytest.raises(ValueError, match=rf"must be 1-D, not {np.ndim(a)}-D"):
                call(a)
    with pytest.raises(ValueError, match="values must be 1-D"):
        clsort.sort_by_key(np.arange(4), np.zeros((4, 1)))
    with pytest.raises(ValueError, match="keys has 4 elements but values has 3"):
        clsort.sort_by_key(np.arange(4), np.arange(3))


def test_bad_arguments():
    a = np.arange(10, dtype=np.int32)
    with pytest.raises(ValueError, match="unknown algorithm 'quick'.*radix"):
        clsort.sort(a, algorithm="quick")
    with pytest.raises(TypeError, match="device must be"):
        clsort.sort(a, device=3.5)
    with pytest.raises(TypeError, match="pyopencl.CommandQueue"):
        clsort.Sorter(queue=object())

    class Device:  # an OpenCL object other than a queue, with an int_ptr as pyopencl's have
        int_ptr = clsort.default_device().int_ptr

    with pytest.raises(TypeError, match="pyopencl.CommandQueue"):
        clsort.Sorter(Device())
    # A clsort.Device as the first argument is the device (it used to be taken for a queue: a crash).
    s = clsort.Sorter(clsort.default_device())
    assert s.device == clsort.default_device()
    assert list(s.argsort(a[::-1])) == list(range(9, -1, -1))
    with pytest.raises(clsort.Error) as e:
        clsort.sort(a, device="no such device anywhere")
    assert e.value.kind == "device_not_found" and e.value.status_name == "CL_DEVICE_NOT_FOUND"


def test_error_leaves_input_unchanged():
    # Selection sort takes n <= 2^20: clsort refuses before anything is enqueued.
    n = clsort._clsort.max_n("selection") + 1
    keys = np.random.default_rng(1).random(n).astype(np.float32)
    values = np.arange(n, dtype=np.uint32)
    keys_before, values_before = keys.copy(), values.copy()
    for call in (lambda: clsort.sort(keys, algorithm="selection"),
                 lambda: clsort.argsort(keys, algorithm="selection"),
                 lambda: clsort.sort_by_key(keys, values, descending=True, algorithm="selection")):
        with pytest.raises(clsort.Error) as e:
            call()
        err = e.value
        assert isinstance(err, RuntimeError)
        assert err.kind == "invalid_argument" and err.where == "n"
        assert err.status == -30 and err.status_name == "CL_INVALID_VALUE"
        assert "selection" in str(err) and err.build_log == ""
        assert_array_equal(keys, keys_before)
        assert_array_equal(values, values_before)
    # The Sorter still works afterwards.
    assert_array_equal(clsort.sort(keys[:1000], algorithm="selection"), np.sort(keys[:1000]))


def run_python(code, **env):
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600,
                          env={**os.environ, **env})


def test_build_failure_carries_the_log(tmp_path):
    # A kernel directory whose bitonic.cl does not compile (CLSORT_KERNEL_DIR overrides the embedded text).
    kernels = tmp_path / "kernels"
    shutil.copytree(REPO / "kernels", kernels)
    with open(kernels / "bitonic.cl", "a") as f:
        f.write("\n#error clsort_test_broken_kernel\n")
    code = """
import numpy as np, clsort
a = np.arange(1000, dtype=np.uint32)[::-1].copy()
try:
    clsort.sort(a, algorithm="bitonic")
except clsort.Error as e:
    assert (a == np.arange(1000)[::-1]).all()
    print("KIND", e.kind, e.status_name, "WHERE", e.where)
    print("LOG", "clsort_test_broken_kernel" in e.build_log)
"""
    r = run_python(code, CLSORT_KERNEL_DIR=str(kernels), CLSORT_CACHE="0")
    assert r.returncode == 0, r.stderr
    assert "KIND build_failure CL_BUILD_PROGRAM_FAILURE" in r.stdout, r.stdout
    assert "LOG True" in r.stdout, r.stdout


def test_clsort_device_selects_the_default():
    r = run_python("import clsort; print(clsort.default_device().type, '|', clsort.default_device_reason())",
                   CLSORT_DEVICE="cpu")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "CPU | CLSORT_DEVICE=cpu"
    r = run_python("""
import numpy as np, clsort
try:
    clsort.sort(np.arange(3))
except clsort.Error as e:
    print(e.kind, e.status_name)
""", CLSORT_DEVICE="no such device anywhere")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "device_not_found CL_DEVICE_NOT_FOUND"


# Every public entry that takes arrays, as (name, call on an array a of 8 float32 keys); a masked array
# in any array argument is refused (its mask would be dropped), a plain ndarray still sorts.
_MASKED_ENTRIES = [
    ("sort", lambda s, a: s.sort(a)),
    ("argsort", lambda s, a: s.argsort(a)),
    ("sort_by_key", lambda s, a: s.sort_by_key(a, np.arange(8))),
    ("sort_by_key", lambda s, a: s.sort_by_key(np.arange(8, dtype=np.float32), a)),
    ("top_k", lambda s, a: s.top_k(a, 3)),
    ("select", lambda s, a: s.select(a, 2)),
    ("partition", lambda s, a: s.partition(a, 2)),
    ("argpartition", lambda s, a: s.argpartition(a, 2)),
    ("lexsort", lambda s, a: s.lexsort([np.arange(8), a])),
    ("lexsort", lambda s, a: s.lexsort(np.ma.stack([a, a]) if np.ma.isMaskedArray(a) else np.stack([a, a]))),
    ("sort_segments", lambda s, a: s.sort_segments(a, [0, 4, 8])),
    ("argsort_segments", lambda s, a: s.argsort_segments(a, [0, 4, 8])),
]


@pytest.mark.parametrize("on", ["module", "sorter"])
@pytest.mark.parametrize("name, call", _MASKED_ENTRIES, ids=[f"{n}{i}" for i, (n, _) in enumerate(_MASKED_ENTRIES)])
def test_masked_arrays_are_refused(name, call, on):
    data = np.array([5, 3, 7, 1, 2, 8, 6, 4], dtype=np.float32)
    masked = np.ma.masked_array(data, mask=[False, True] * 4)
    target = clsort if on == "module" else clsort.Sorter()
    where = f"clsort.{name}" if on == "module" else f"clsort.Sorter.{name}"
    with pytest.raises(TypeError, match=rf"^{where}: masked arrays .*np\.ma\.sort.*a\.filled.*a\.compressed"):
        call(target, masked)
    assert_array_equal(masked.mask, [False, True] * 4)  # the caller's array is untouched
    call(target, data)  # a plain ndarray of the same data still works
    call(target, masked.filled(0))  # and so does the suggested way out
