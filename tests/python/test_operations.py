"""top_k, select, partition, argpartition, lexsort, sort(order=), the segmented sorts and bit ranges,
against NumPy (reference.py's exact permutations where clsort's total order refines NumPy's)."""

import numpy as np
import pytest

import clsort
from reference import BFLOAT16, UINT, bits, clsort_perm, is_float, make, numeric

DTYPES = [np.uint8, np.int16, np.float16, np.float32, np.float64, np.int64] + (
    [BFLOAT16] if BFLOAT16 is not None else [])
IDS = [np.dtype(d).name for d in DTYPES]
SIZES = [0, 1, 2, 7, 31, 97, 1009]
DISTS = ["random", "sorted", "reversed", "all_equal", "few_unique", "specials"]


def cases(dtype, sizes=SIZES, dists=DISTS):
    for i, n in enumerate(sizes):
        for j, dist in enumerate(dists):
            yield dist, n, make(dist, dtype, n, seed=100 * i + j)


def same_value(x, y):
    """x == y for scalars, NaN equal to NaN."""
    x, y = float(x), float(y)
    return x == y or (np.isnan(x) and np.isnan(y))


# ---- top_k


@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("dtype", DTYPES, ids=IDS)
def test_top_k(dtype, descending):
    for dist, n, a in cases(dtype):
        perm = clsort_perm(a, descending)
        for k in sorted({0, 1, 2, n // 2, n - 1, n} & set(range(n + 1))):
            values, indices = clsort.top_k(a, k, descending=descending)
            assert indices.dtype == np.int64 and values.dtype == a.dtype, (dist, n, k)
            np.testing.assert_array_equal(indices, perm[:k], err_msg=f"{dist} n={n} k={k}")
            np.testing.assert_array_equal(bits(values), bits(a[perm[:k]]), err_msg=f"{dist} n={n} k={k}")


def test_top_k_matches_sort_with_nans():
    a = np.array([np.nan, 1.0, -np.nan, 3.0, 3.0, np.inf, -0.0, 0.0, np.nan], dtype=np.float32)
    for k in range(len(a) + 1):
        for d in (False, True):
            v, i = clsort.top_k(a, k, descending=d)
            np.testing.assert_array_equal(i, clsort.argsort(a, descending=d)[:k])
            np.testing.assert_array_equal(bits(v), bits(clsort.sort(a, descending=d)[:k]))


def test_top_k_errors():
    a = np.arange(5, dtype=np.int32)
    for k in (-1, 6):
        with pytest.raises(ValueError, match="out of range"):
            clsort.top_k(a, k)
    with pytest.raises(TypeError):
        clsort.top_k(a.astype(np.complex64), 1)
    with pytest.raises(ValueError, match="1-D"):
        clsort.top_k(a.reshape(1, 5), 1)


# ---- select, partition, argpartition


def check_partition(a, result, kth):
    """result (a's values) is a partition of a at kth: as np.partition's kth element, <= before, >= after."""
    x, s = numeric(a), np.sort(numeric(a))
    r = numeric(result)
    assert same_value(r[kth], s[kth])
    np.testing.assert_array_equal(np.sort(r), s)  # a permutation of a (NaNs sort last in both)
    v = s[kth]
    before, after = r[:kth], r[kth + 1:]
    with np.errstate(invalid="ignore"):
        if x.dtype.kind == "f" and np.isnan(v):
            assert np.isnan(after).all()
        else:
            nan_b = np.isnan(before) if x.dtype.kind == "f" else np.zeros(len(before), bool)
            assert not nan_b.any() and (before <= v).all()
            assert (after >= v).all() or x.dtype.kind == "f" and (np.isnan(after) | (after >= v)).all()


@pytest.mark.parametrize("dtype", DTYPES, ids=IDS)
def test_select_partition(dtype):
    for dist, n, a in cases(dtype, sizes=[1, 2, 7, 97, 1009]):
        expected = np.sort(numeric(a))
        for kth in sorted({0, 1, n // 3, n // 2, n - 2, n - 1} & set(range(n))) + [-1]:
            k = kth % n
            msg = f"{dist} n={n} kth={kth}"
            got = clsort.select(a, kth)
            assert same_value(numeric(np.array([got], dtype=a.dtype))[0], expected[k]), msg
            p = clsort.argpartition(a, kth)
            assert p.dtype == np.int64, msg
            check_partition(a, a[p], k)
            part = clsort.partition(a, kth)
            assert part.dtype == a.dtype
            check_partition(a, part, k)
            if a.dtype != BFLOAT16:
                assert same_value(numeric(part)[k], np.partition(numeric(a), kth)[kth]), msg
        kths = [0, n // 2, n - 1]
        part = clsort.partition(a, kths)
        for k in kths:
            check_partition(a, part, k)


def test_partition_errors():
    a = np.arange(5, dtype=np.float32)
    for kth in (5, -6):
        with pytest.raises(ValueError, match="out of bounds"):
            clsort.partition(a, kth)
        with pytest.raises(ValueError, match="out of bounds"):
            clsort.select(a, kth)
    with pytest.raises(ValueError, match="out of bounds"):
        clsort.argpartition(a, [1, 9])
    with pytest.raises(TypeError, match="integer"):
        clsort.argpartition(a, 1.5)
    with pytest.raises(ValueError, match="out of bounds"):
        clsort.select(np.array([], dtype=np.int8), 0)


# ---- lexsort and structured sort


def _column(rng, dtype, n):
    dtype = np.dtype(dtype)
    if is_float(dtype):
        pool = np.array([-0.0, 0.0, 1.5, -2.0, np.inf, -np.inf, np.nan, -np.nan], dtype=np.float32)
        return rng.choice(pool, size=n).astype(dtype)
    return rng.integers(0, 3, size=n).astype(dtype)


@pytest.mark.parametrize("n", [0, 1, 2, 7, 31, 1009])
def test_lexsort(n):
    rng = np.random.default_rng(n)
    for combo in ([np.int64], [np.uint8, np.float32], [np.float64, np.int16, np.float16],
                  [np.float32, np.float32, np.uint8, np.int64], [bool, np.int16]):
        keys = [_column(rng, d, n) for d in combo]
        expected = np.lexsort([numeric(k) for k in keys])
        got = clsort.lexsort(keys)
        assert got.dtype == np.int64
        np.testing.assert_array_equal(got, expected, err_msg=str(combo))
    if BFLOAT16 is not None:
        keys = [_column(rng, BFLOAT16, n), _column(rng, np.int16, n)]
        np.testing.assert_array_equal(clsort.lexsort(keys), np.lexsort([numeric(k) for k in keys]))
    two_d = rng.integers(0, 4, size=(3, n)).astype(np.int32)
    np.testing.assert_array_equal(clsort.lexsort(two_d), np.lexsort(two_d))


def test_lexsort_errors():
    with pytest.raises(TypeError, match="len > 0"):
        clsort.lexsort([])
    with pytest.raises(ValueError, match="same length"):
        clsort.lexsort([np.arange(3), np.arange(4)])
    with pytest.raises(TypeError, match="keys\\[0\\]"):
        clsort.lexsort([np.zeros(3, dtype=np.complex64), np.arange(3)])


def test_sort_structured():
    rng = np.random.default_rng(3)
    dt = np.dtype([("a", np.int16), ("b", np.float32), ("c", np.uint8)])
    for n in (0, 1, 2, 31, 1009):
        x = np.zeros(n, dtype=dt)
        x["a"] = rng.integers(-2, 2, size=n)
        x["b"] = rng.choice(np.array([-0.0, 0.0, 1.0, -1.0, np.inf], np.float32), size=n)
        x["c"] = rng.integers(0, 3, size=n)
        for order in ([], "b", ["c", "a"], ["b", "c", "a"]):
            expected = np.sort(x, order=order, kind="stable")
            assert clsort.sort(x, order=order).tobytes() == expected.tobytes(), order
    with pytest.raises(ValueError, match="unknown field"):
        clsort.sort(x, order="z")
    with pytest.raises(ValueError, match="no fields"):
        clsort.sort(np.arange(3), order="a")


# ---- segmented sort


def _offsets(rng, n, segments):
    lo = int(rng.integers(0, 3)) if n > 4 else 0
    hi = n - (int(rng.integers(0, 3)) if n > 4 else 0)
    cuts = np.sort(rng.integers(lo, hi + 1, size=max(segments - 1, 0)))
    return np.concatenate(([lo], cuts, [hi])).astype(np.int64)


def expected_segments(a, offsets, descending):
    perm = np.arange(len(a))
    for s, e in zip(offsets[:-1], offsets[1:]):
        perm[s:e] = s + clsort_perm(a[s:e], descending)
    return perm


@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("dtype", DTYPES, ids=IDS)
def test_segments(dtype, descending):
    rng = np.random.default_rng(7)
    for dist, n, a in cases(dtype, sizes=[0, 1, 2, 31, 1009], dists=["random", "few_unique", "specials"]):
        for segments in (1, 2, 13):
            offsets = _offsets(rng, n, segments)
            perm = expected_segments(a, offsets, descending)
            msg = f"{dist} n={n} offsets={offsets[:8]}"
            got = clsort.argsort_segments(a, offsets, descending=descending)
            np.testing.assert_array_equal(got, perm, err_msg=msg)
            s = clsort.sort_segments(a, offsets.astype(np.uint32), descending=descending)
            np.testing.assert_array_equal(bits(s), bits(a[perm]), err_msg=msg)
    a = np.arange(5, dtype=dtype)
    np.testing.assert_array_equal(bits(clsort.sort_segments(a, [])), bits(a))
    np.testing.assert_array_equal(clsort.argsort_segments(a, [3]), np.arange(5))


def test_segments_errors():
    a = np.arange(10, dtype=np.int32)
    with pytest.raises(clsort.Error, match="offsets"):
        clsort.sort_segments(a, [0, 5, 3])
    with pytest.raises(clsort.Error, match="offsets"):
        clsort.sort_segments(a, [0, 11])
    with pytest.raises(ValueError, match="negative"):
        clsort.sort_segments(a, [-1, 5])
    with pytest.raises(TypeError, match="integer"):
        clsort.sort_segments(a, [0.0, 5.0])


# ---- bit ranges


def code(a):
    """clsort/key_transform.hpp's encode_key, in NumPy (uint of the key's width)."""
    b = bits(a).copy()
    u = b.dtype.type
    w = 8 * b.itemsize
    sign = u(1 << (w - 1))
    if is_float(a.dtype):
        nmant = {2: 10, 4: 23, 8: 52}[b.itemsize] if a.dtype != BFLOAT16 else 7
        b = np.where(b & sign, ~b, b | sign).astype(b.dtype)
        with np.errstate(over="ignore"):
            b = (b - u((1 << nmant) - 1)).astype(b.dtype)
    elif np.dtype(a.dtype).kind == "i":
        b = b ^ sign
    return b


def expected_bits_perm(a, begin, end, descending):
    c = code(a)
    u, w = c.dtype.type, 8 * c.itemsize
    field = c >> u(begin) if begin < w else np.zeros_like(c)
    if end - begin < w:
        field = field & u((1 << (end - begin)) - 1)
    if descending:
        field = ~field
    return np.argsort(field, kind="stable")


@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("dtype", DTYPES, ids=IDS)
def test_bit_ranges(dtype, descending):
    w = 8 * np.dtype(dtype).itemsize
    ranges = [(0, w // 2), (w // 4, w - 1), (1, w), (w // 2, w // 2), (0, 0), (w, w), (3, 3)]
    for dist, n, a in cases(dtype, sizes=[0, 1, 2, 97, 1009], dists=["random", "few_unique", "specials"]):
        for begin, end in ranges:
            perm = expected_bits_perm(a, begin, end, descending)
            msg = f"{dist} n={n} bits=[{begin}, {end})"
            got = clsort.argsort(a, descending=descending, begin_bit=begin, end_bit=end)
            np.testing.assert_array_equal(got, perm, err_msg=msg)
            s = clsort.sort(a, descending=descending, begin_bit=begin, end_bit=end)
            np.testing.assert_array_equal(bits(s), bits(a[perm]), err_msg=msg)
            if n == 97:  # sort_by_key shares the path; once per range keeps the cold kernel builds few
                k, v = clsort.sort_by_key(a, np.arange(n, dtype=np.uint32), descending=descending,
                                          begin_bit=begin, end_bit=end)
                np.testing.assert_array_equal(v, perm, err_msg=msg)
            if begin == end:
                np.testing.assert_array_equal(got, np.arange(n), err_msg=msg)
        # The whole key as a range: the same as no range (NaNs last descending).
        np.testing.assert_array_equal(clsort.argsort(a, descending, begin_bit=0, end_bit=w),
                                      clsort_perm(a, descending))
        offsets = np.array([0, n // 3, n], dtype=np.int64)
        expected = np.arange(n)
        for s, e in zip(offsets[:-1], offsets[1:]):
            expected[s:e] = s + expected_bits_perm(a[s:e], 1, w - 1, descending)
        np.testing.assert_array_equal(
            clsort.argsort_segments(a, offsets, descending, begin_bit=1, end_bit=w - 1), expected)


def test_bit_range_errors():
    a = np.arange(10, dtype=np.uint16)
    with pytest.raises(clsort.Error, match="end_bit"):
        clsort.sort(a, end_bit=17)
    with pytest.raises(ValueError, match="exceed"):
        clsort.sort(a, begin_bit=5, end_bit=3)
    with pytest.raises(ValueError, match="negative"):
        clsort.argsort(a, begin_bit=-1)
    with pytest.raises(clsort.Error):
        clsort.sort(a, algorithm="bitonic", begin_bit=0, end_bit=8)


@pytest.mark.parametrize("dtype", [np.uint8, np.float32, np.int64], ids=["uint8", "float32", "int64"])
def test_bit_ranges_pyopencl(cl_queue, dtype):
    cl_array = pytest.importorskip("pyopencl.array")
    w = 8 * np.dtype(dtype).itemsize
    a = make("specials", dtype, 1009, seed=11)
    for begin, end, descending in ((0, w // 2, False), (1, w - 1, True), (4, 4, False)):
        keys = cl_array.to_device(cl_queue, a)
        values = cl_array.to_device(cl_queue, np.arange(len(a), dtype=np.uint32))
        clsort.sort_by_key(keys, values, descending=descending, begin_bit=begin, end_bit=end).wait()
        perm = expected_bits_perm(a, begin, end, descending)
        np.testing.assert_array_equal(values.get(), perm)
        np.testing.assert_array_equal(bits(keys.get()), bits(a[perm]))


def test_operations_take_pyopencl_arrays(cl_queue):
    """The operations take pyopencl arrays (test_pyopencl_ops.py checks them all); lexsort refuses a mix."""
    cl_array = pytest.importorskip("pyopencl.array")
    a = cl_array.to_device(cl_queue, np.array([4, 1, 3, 0, 2], dtype=np.int32))
    values, indices = clsort.top_k(a, 2)
    np.testing.assert_array_equal(values.get(), [0, 1])
    np.testing.assert_array_equal(indices.get(), [3, 1])
    with pytest.raises(TypeError, match="pyopencl array like the others"):
        clsort.lexsort([a, np.arange(5)])