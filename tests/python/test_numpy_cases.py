"""The sort-semantics cases of NumPy's own suite (numpy/_core/tests/test_multiarray.py: TestMethods
test_sort*, test_argsort*, the descending tests of NumPy 2.5, and the module-level test_sort_float,
test_sort_int, test_sort_uint, test_argsort_float, test_argsort_int, *_largearrays) that apply to clsort's
key types, rewritten against clsort. NumPy loops over its sort kinds; these loop over clsort's algorithms."""

import numpy as np
import pytest
from numpy.testing import assert_array_equal

import clsort

INTS = [np.int8, np.int16, np.int32, np.int64]
UINTS = [np.uint8, np.uint16, np.uint32, np.uint64]
FLOATS = [np.float16, np.float32, np.float64]
# Selection sort is O(n^2) and odd-even one launch per phase: the NumPy cases are small enough for both.
ALGORITHMS = clsort.ALGORITHMS


def assert_sorted_by(a, idx, descending=False):
    """a[idx] is in order with its NaNs last, and idx is a permutation."""
    assert_array_equal(np.sort(idx), np.arange(len(a)))
    s = a[idx]
    if s.dtype.kind == "f":
        k = int(np.count_nonzero(np.isnan(s)))
        assert not np.isnan(s[: len(s) - k]).any(), "NaNs must come last"
        s = s[: len(s) - k]
    d = np.diff(s.astype(np.float64) if s.dtype.kind == "f" else s.astype(object))
    assert (d <= 0).all() if descending else (d >= 0).all()


@pytest.mark.parametrize("dtype", FLOATS)
def test_sort_nans_last(dtype):
    a = np.array([np.nan, 1, 0], dtype=dtype)
    for algorithm in ALGORITHMS:
        assert_array_equal(clsort.sort(a, algorithm=algorithm), a[::-1])


@pytest.mark.parametrize("dtype", UINTS + FLOATS)
def test_sort_unsigned(dtype):
    a = np.arange(101, dtype=dtype)
    for algorithm in ALGORITHMS:
        assert_array_equal(clsort.sort(a, algorithm=algorithm), a)
        assert_array_equal(clsort.sort(a[::-1].copy(), algorithm=algorithm), a)


@pytest.mark.parametrize("dtype", INTS + FLOATS)
def test_sort_signed(dtype):
    a = np.arange(-50, 51, dtype=dtype)
    for algorithm in ALGORITHMS:
        assert_array_equal(clsort.sort(a, algorithm=algorithm), a)
        assert_array_equal(clsort.sort(a[::-1].copy(), algorithm=algorithm), a)


def test_sort_size_0():
    for dtype in clsort.KEY_DTYPES:
        a = np.array([], dtype=dtype)
        assert clsort.sort(a).dtype == dtype and clsort.sort(a).shape == (0,)
        assert clsort.argsort(a).dtype == np.int64 and clsort.argsort(a).shape == (0,)
    # NumPy sorts empty arrays of any shape along an axis; clsort sorts 1-D arrays only.
    with pytest.raises(ValueError, match="1-D"):
        clsort.sort(np.array([]).reshape((3, 2, 1, 0)))


def test_sort_degraded():
    # NumPy's median-of-3 killer for quicksort: nothing special to radix sort, and that is the point.
    d = np.arange(1000000)
    expected = d.copy()
    x = d
    while x.size > 3:
        mid = x.size // 2
        x[mid], x[-2] = x[-2], x[mid]
        x = x[:-2]
    assert_array_equal(clsort.sort(d), expected)
    assert_array_equal(d[clsort.argsort(d)], expected)


@pytest.mark.parametrize("dtype", [np.int32, np.uint32, np.float32, np.int8, np.uint16, np.float16])
def test_argsort(dtype):
    a = np.arange(101, dtype=dtype)
    b = a[::-1].copy()
    for algorithm in ALGORITHMS:
        assert_array_equal(clsort.argsort(a, algorithm=algorithm), a)
        assert_array_equal(clsort.argsort(b, algorithm=algorithm), b)


@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("dtype", INTS + UINTS + FLOATS)
def test_sort_descending_no_nan(dtype, descending):
    a = np.arange(-51, 50, dtype=dtype) if np.dtype(dtype).kind != "u" else np.arange(101, dtype=dtype)
    if np.dtype(dtype).kind == "f":
        a = np.linspace(-50, 50, 101, dtype=dtype)
    expected = a[::-1] if descending else a
    shuffled = a.copy()
    np.random.default_rng(0).shuffle(shuffled)
    for x in (a, a[::-1].copy(), shuffled):
        assert_array_equal(clsort.sort(x, descending=descending), expected)
        assert_array_equal(x[clsort.argsort(x, descending=descending)], expected)


@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("dtype", FLOATS)
def test_sort_descending_nans_last(dtype, descending):
    # NumPy 2.5 puts NaNs last in both orders; so does clsort for NumPy arrays.
    a = np.linspace(-50, 50, 101, dtype=dtype)
    if not descending:
        a = a[::-1].copy()
    nan = np.arange(a.size) % 10 == 0
    a[nan] = np.nan
    expected = np.concatenate((a[~nan][::-1], a[nan]))
    shuffled = a.copy()
    np.random.default_rng(0).shuffle(shuffled)
    for x in (a, shuffled):
        for algorithm in ALGORITHMS:
            assert_array_equal(clsort.sort(x, descending=descending, algorithm=algorithm), expected)
            idx = clsort.argsort(x, descending=descending, algorithm=algorithm)
            assert_sorted_by(x, idx, descending)
            assert np.isnan(x[idx][-11:]).all()


@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("dtype", INTS + UINTS)
def test_argsort_stable_int_duplicates(dtype, descending):
    info = np.iinfo(dtype)
    a = np.array([info.min, 1, info.max] * 2, dtype=dtype)
    expected = np.array(sorted(range(a.size), key=lambda i: a[i], reverse=descending))
    for algorithm in ALGORITHMS:
        assert_array_equal(clsort.argsort(a, descending=descending, algorithm=algorithm), expected)
        assert_array_equal(clsort.sort(a, descending=descending, algorithm=algorithm), a[expected])


SIZES = list(range(1, 512, 17)) + [511]  # NumPy runs every N below 512 (its SIMD sorts' code paths)


@pytest.mark.parametrize("dtype", FLOATS)
def test_sort_float(dtype):
    for n in SIZES:
        rng = np.random.RandomState(42)
        arr = -0.5 + rng.random_sample(n).astype(dtype)
        arr[rng.choice(n, 3)] = np.nan
        assert_array_equal(clsort.sort(arr), np.sort(arr, kind="heapsort"))
        inf = np.full(n, np.inf, dtype=dtype)
        inf[rng.choice(n, 5)] = -1.0
        assert_array_equal(clsort.sort(inf), np.sort(inf, kind="heapsort"))
        neginf = np.full(n, -np.inf, dtype=dtype)
        neginf[rng.choice(n, 5)] = 1.0
        assert_array_equal(clsort.sort(neginf), np.sort(neginf, kind="heapsort"))
        both = np.full(n, np.inf, dtype=dtype)
        both[rng.choice(n, n // 2)] = -np.inf
        assert_array_equal(clsort.sort(both), np.sort(both, kind="heapsort"))


@pytest.mark.parametrize("dtype", INTS + UINTS)
def test_sort_int(dtype):
    info = np.iinfo(dtype)
    for n in SIZES:
        rng = np.random.RandomState(n)
        arr = rng.randint(info.min, info.max - 1, size=n, dtype=dtype)
        arr[rng.choice(n, 10)] = info.min
        arr[rng.choice(n, 10)] = info.max
        assert_array_equal(clsort.sort(arr), np.sort(arr, kind="heapsort"))


def test_sort_uint():
    rng = np.random.default_rng(42)
    maxv = np.iinfo(np.uint32).max
    arr = rng.integers(0, maxv, size=2047).astype(np.uint32)
    arr[rng.choice(arr.size, 10)] = maxv
    assert_array_equal(clsort.sort(arr), np.sort(arr, kind="heapsort"))


@pytest.mark.parametrize("dtype", FLOATS)
def test_argsort_float(dtype):
    for n in SIZES:
        rng = np.random.RandomState(116112)
        arr = -0.5 + rng.random_sample(n).astype(dtype)
        arr[rng.choice(n, 3)] = np.nan
        assert_sorted_by(arr, clsort.argsort(arr))
        arr = -0.5 + rng.random_sample(n).astype(dtype)
        arr[n - 1] = np.inf
        assert_sorted_by(arr, clsort.argsort(arr))


@pytest.mark.parametrize("dtype", INTS + UINTS)
def test_argsort_int(dtype):
    info = np.iinfo(dtype)
    for n in SIZES[1:]:
        rng = np.random.RandomState(1100710816)
        arr = rng.randint(info.min, info.max, size=n, dtype=dtype)
        i, j = rng.choice(n, 2, replace=False)
        arr[i], arr[j] = info.min, info.max
        assert_array_equal(clsort.argsort(arr), np.argsort(arr, kind="stable"))
        arr = rng.randint(info.min, info.max, size=n, dtype=dtype)
        arr[n - 1] = info.max
        assert_array_equal(clsort.argsort(arr), np.argsort(arr, kind="stable"))


@pytest.mark.parametrize("dtype", FLOATS)
def test_large_arrays(dtype):
    arr = -0.5 + np.random.RandomState(1100710816).random_sample(1000000).astype(dtype)
    assert_array_equal(clsort.sort(arr), np.sort(arr))
    assert_array_equal(clsort.argsort(arr), np.argsort(arr, kind="stable"))


@pytest.mark.parametrize("dtype", ["<f8", ">f8", ">i4", ">u8", ">f2", ">i2"])
def test_byte_swapped(dtype):
    # NumPy checks argsort of byte-swapped complex arrays (gh-5441); clsort's keys in either byte order.
    a = np.array([3, 1, 2, 0, 7, 5], dtype=dtype)
    out = clsort.sort(a)
    assert out.dtype == a.dtype
    assert_array_equal(out, np.sort(a))
    assert_array_equal(clsort.argsort(a), np.argsort(a, kind="stable"))
