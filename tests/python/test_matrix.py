"""Every key dtype x order x size x distribution against NumPy, bit for bit: sort, argsort, sort_by_key."""

import numpy as np
import pytest

import clsort
from reference import DISTRIBUTIONS, DTYPES, SIZES, bits, clsort_perm, make, numeric, numpy_stable_perm


def check_all(a, descending, algorithm="automatic"):
    what = f"dtype={a.dtype} n={len(a)} descending={descending} algorithm={algorithm}"
    before = a.copy()
    perm = clsort_perm(a, descending)

    out = clsort.sort(a, descending=descending, algorithm=algorithm)
    assert out.dtype == a.dtype and out.shape == a.shape, what
    np.testing.assert_array_equal(bits(out), bits(a[perm]), err_msg=f"sort {what}")

    idx = clsort.argsort(a, descending=descending, algorithm=algorithm)
    assert idx.dtype == np.int64, what
    np.testing.assert_array_equal(idx, perm, err_msg=f"argsort {what}")

    values = np.arange(len(a), dtype=np.uint32 if a.itemsize == 4 else np.int64)[::-1].copy()
    k, v = clsort.sort_by_key(a, values, descending=descending, algorithm=algorithm)
    np.testing.assert_array_equal(bits(k), bits(a[perm]), err_msg=f"sort_by_key keys {what}")
    np.testing.assert_array_equal(v, values[perm], err_msg=f"sort_by_key values {what}")

    np.testing.assert_array_equal(bits(a), bits(before), err_msg=f"the input changed: {what}")


@pytest.mark.parametrize("dist", DISTRIBUTIONS)
@pytest.mark.parametrize("descending", [False, True], ids=["asc", "desc"])
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_matrix(dtype, descending, dist):
    for i, n in enumerate(SIZES):
        check_all(make(dist, dtype, n, seed=1000 * i + DISTRIBUTIONS.index(dist)), descending)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_large(dtype):
    """Past the sizes of the matrix: keys of every value, and NumPy's own np.sort as the reference."""
    a = make("specials", dtype, (1 << 22) + 5, seed=7)
    for descending in (False, True):
        out = clsort.sort(a, descending=descending)
        np.testing.assert_array_equal(bits(out), bits(a[clsort_perm(a, descending)]))
    # Where no ±0 or NaN ties are broken, plain np.sort is the reference (of bfloat16 as float32: NumPy
    # sorts ml_dtypes' bfloat16 by its own comparisons, which misplace NaNs).
    b = make("random", dtype, (1 << 22) + 5, seed=8)
    np.testing.assert_array_equal(bits(clsort.sort(b)), bits(np.sort(numeric(b)).astype(b.dtype)))


@pytest.mark.parametrize("algorithm", clsort.ALGORITHMS)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_algorithms(dtype, algorithm):
    """Each algorithm forced, both orders, sizes around its tiles, float specials included."""
    for n in (0, 1, 5, 513, 5003):
        for descending in (False, True):
            check_all(make("specials", dtype, n, seed=n), descending, algorithm)


def test_reference_is_numpy_where_numpy_decides():
    """The reference only refines NumPy's order among ±0 and NaNs: elsewhere it is np.argsort's."""
    for dtype in DTYPES:
        a = make("random", dtype, 10007, seed=3)
        for descending in (False, True):
            np.testing.assert_array_equal(clsort_perm(a, descending), numpy_stable_perm(a, descending))
        np.testing.assert_array_equal(clsort_perm(a, False), np.argsort(numeric(a), kind="stable"))
