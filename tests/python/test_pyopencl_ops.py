"""top_k, select, partition, argpartition, lexsort and the segmented sorts on pyopencl arrays, against
NumPy bit for bit: the order Sorter.sort gives pyopencl arrays (descending puts NaNs first), NumPy's
comparisons for partition; inputs left unchanged; errors for arrays the device cannot take."""

import numpy as np
import pytest
from numpy.testing import assert_array_equal

import clsort
from reference import DTYPES, bits, clsort_perm, device_perm, is_float, make, numeric

cl = pytest.importorskip("pyopencl")
cl_array = pytest.importorskip("pyopencl.array")

IDS = [np.dtype(d).name for d in DTYPES]
# (n, distribution): every size once per dtype, the large one with the special values.
CASES = [(0, "random"), (1, "specials"), (2, "few_unique"), (97, "extremes"), (1009, "specials"),
         (100003, "specials")]


def partition_perm(a, kth):
    """argpartition by NumPy's comparisons: less, equal, greater than the kth value, each in input order."""
    x = numeric(a)
    v = np.sort(x)[kth]
    with np.errstate(invalid="ignore"):
        if is_float(a.dtype) and np.isnan(v):
            nan = np.isnan(x)
            return np.concatenate((np.flatnonzero(~nan), np.flatnonzero(nan)))
        less = x < v
        greater = (x > v) | (np.isnan(x) if is_float(a.dtype) else False)
    return np.concatenate((np.flatnonzero(less), np.flatnonzero(~(less | greater)), np.flatnonzero(greater)))


def unchanged(d, a):
    assert_array_equal(bits(d.get()), bits(a), err_msg="the input changed")


@pytest.mark.parametrize("dtype", DTYPES, ids=IDS)
def test_top_k_and_select(cl_queue, dtype):
    sorter = clsort.Sorter(cl_queue)
    for n, dist in CASES:
        a = make(dist, dtype, n, seed=n + 1)
        d = cl_array.to_device(cl_queue, a)
        for descending in (False, True):
            perm = device_perm(a, descending)
            for k in sorted({0, 1, 2, 5, n // 2, n - 1, n} & set(range(n + 1))):
                values, indices = sorter.top_k(d, k, descending=descending)
                assert isinstance(values, cl_array.Array) and isinstance(indices, cl_array.Array)
                assert values.dtype == a.dtype and indices.dtype == np.int64
                msg = f"{dist} n={n} k={k} descending={descending}"
                assert_array_equal(indices.get(), perm[:k], err_msg=msg)
                assert_array_equal(bits(values.get()), bits(a[perm[:k]]), err_msg=msg)
        asc = clsort_perm(a, False)
        for kth in sorted({0, n // 3, n - 1, -1} & set(range(-1, n))) if n else []:
            s = sorter.select(d, kth)
            assert type(s) is np.dtype(dtype).type
            want = a[asc[kth]]
            if is_float(dtype) and np.isnan(numeric(np.array([want]))[0]):
                # The library's select takes NaNs as equal: some NaN, as np.sort(a)[kth] is.
                assert np.isnan(numeric(np.array([s]))[0]), (dist, n, kth)
            else:
                assert bits(np.array([s], dtype=dtype))[0] == bits(np.array([want]))[0], (dist, n, kth)
        unchanged(d, a)


def test_top_k_module_function_and_nans_first_descending(cl_queue):
    a = np.array([np.nan, 1.0, -np.nan, 3.0, 3.0, np.inf, -0.0, 0.0, np.nan], dtype=np.float32)
    d = cl_array.to_device(cl_queue, a)
    for k in range(len(a) + 1):
        for desc in (False, True):
            v, i = clsort.top_k(d, k, descending=desc)
            # What the device sort leaves in the array's first k elements.
            s = d.copy()
            clsort.sort(s, descending=desc).wait()
            assert_array_equal(bits(v.get()), bits(s.get()[:k]))
            assert_array_equal(i.get(), device_perm(a, desc)[:k])
    assert np.isnan(clsort.top_k(d, 1, descending=True)[0].get()[0])


@pytest.mark.parametrize("dtype", DTYPES, ids=IDS)
def test_partition_and_argpartition(cl_queue, dtype):
    sorter = clsort.Sorter(cl_queue)
    for n, dist in CASES[1:]:
        a = make(dist, dtype, n, seed=n + 2)
        d = cl_array.to_device(cl_queue, a)
        for kth in sorted({0, 1, n // 2, n - 1} & set(range(n))):
            p = sorter.argpartition(d, kth)
            assert isinstance(p, cl_array.Array) and p.dtype == np.int64
            expected = partition_perm(a, kth)
            assert_array_equal(p.get(), expected, err_msg=f"{dist} n={n} kth={kth}")
            r = clsort.partition(d, kth)
            assert r.dtype == a.dtype
            assert_array_equal(bits(r.get()), bits(a[expected]), err_msg=f"{dist} n={n} kth={kth}")
        # A sequence of kth: the ascending device sort partitions at each.
        kths = [0, n // 2, n - 1]
        p = sorter.argpartition(d, kths)
        assert_array_equal(p.get(), clsort_perm(a, False))
        assert_array_equal(bits(sorter.partition(d, kths).get()), bits(a[clsort_perm(a, False)]))
        unchanged(d, a)


def test_partition_host_and_device_agree(cl_queue):
    """Both paths split by NumPy's comparisons around the selected value, in input order."""
    for dtype in (np.float32, np.int16, np.uint64):
        a = make("specials", dtype, 4099, seed=7)
        d = cl_array.to_device(cl_queue, a)
        for kth in (0, 17, 2048, -1):
            assert_array_equal(clsort.argpartition(d, kth).get(), clsort.argpartition(a, kth))
            assert_array_equal(clsort.argpartition(a, kth), partition_perm(a, kth))
            assert_array_equal(np.partition(numeric(a), kth)[kth], numeric(clsort.partition(a, kth))[kth])


@pytest.mark.parametrize("dtype", DTYPES, ids=IDS)
def test_lexsort(cl_queue, dtype):
    sorter = clsort.Sorter(cl_queue)
    for n, dist in CASES:
        primary = make("few_unique", dtype, n, seed=n)
        secondary = make(dist, dtype, n, seed=n + 3)
        flags = np.arange(n) % 3 == 0
        keys = [cl_array.to_device(cl_queue, x) for x in (flags, secondary, primary)]
        p = sorter.lexsort(keys)
        assert isinstance(p, cl_array.Array) and p.dtype == np.int64
        expected = np.lexsort((flags, numeric(secondary), numeric(primary)))
        assert_array_equal(p.get(), expected, err_msg=f"{dist} n={n}")
        assert_array_equal(clsort.lexsort(keys[1:]).get(), np.lexsort((numeric(secondary), numeric(primary))))
        unchanged(keys[1], secondary)


@pytest.mark.parametrize("dtype", DTYPES, ids=IDS)
def test_segments(cl_queue, dtype):
    sorter = clsort.Sorter(cl_queue)
    for n, dist in CASES:
        a = make(dist, dtype, n, seed=n + 4)
        rng = np.random.default_rng(n)
        # Segments of many lengths, empty ones too, from 1 to n - 1: the keys outside them stay.
        if n < 3:
            offsets = np.array([0, n], dtype=np.int64)
        else:
            cuts = np.sort(rng.integers(1, n - 1, size=min(n, 40), endpoint=True))
            offsets = np.concatenate(([1], cuts, [n - 1])).astype(np.int64)
        for descending in (False, True):
            expected = np.arange(n)
            for lo, hi in zip(offsets[:-1], offsets[1:]):
                expected[lo:hi] = lo + device_perm(a[lo:hi], descending)
            for offs in (offsets, cl_array.to_device(cl_queue, offsets.astype(np.uint32))):
                d = cl_array.to_device(cl_queue, a)
                event = sorter.sort_segments(d, offs, descending=descending)
                assert isinstance(event, cl.Event)
                event.wait()
                msg = f"{dist} n={n} descending={descending}"
                assert_array_equal(bits(d.get()), bits(a[expected]), err_msg=msg)
            d = cl_array.to_device(cl_queue, a)
            p = clsort.argsort_segments(d, offsets, descending=descending)
            assert isinstance(p, cl_array.Array) and p.dtype == np.int64
            assert_array_equal(p.get(), expected, err_msg=msg)
            unchanged(d, a)


def test_bit_ranges(cl_queue):
    """begin_bit/end_bit order by those bits only, stably, in sort and sort_segments alike."""
    a = make("random", np.uint32, 10007, seed=11)
    for begin, end in ((0, 8), (8, 16), (4, 4), (16, 32)):
        field = (a >> np.uint32(begin)) & np.uint32((1 << (end - begin)) - 1)
        for descending in (False, True):
            order = np.argsort(field, kind="stable")
            if descending:
                order = (len(a) - 1 - np.argsort(field[::-1], kind="stable"))[::-1]
            d = cl_array.to_device(cl_queue, a)
            clsort.sort(d, descending=descending, begin_bit=begin, end_bit=end).wait()
            assert_array_equal(d.get(), a[order], err_msg=f"sort [{begin}, {end}) {descending}")
            d = cl_array.to_device(cl_queue, a)
            clsort.sort_segments(d, [0, len(a)], descending=descending, begin_bit=begin, end_bit=end).wait()
            assert_array_equal(d.get(), a[order], err_msg=f"segments [{begin}, {end}) {descending}")
            p = clsort.argsort_segments(cl_array.to_device(cl_queue, a), [0, 5000, len(a)], begin_bit=begin,
                                        end_bit=end, descending=descending)
            for lo, hi in ((0, 5000), (5000, len(a))):
                f = field[lo:hi]
                o = np.argsort(f, kind="stable")
                if descending:
                    o = (len(f) - 1 - np.argsort(f[::-1], kind="stable"))[::-1]
                assert_array_equal(p.get()[lo:hi], lo + o)


def test_waits_for_pending_events(cl_queue):
    a = make("random", np.float32, 50021, seed=3)
    d = cl_array.to_device(cl_queue, a)
    gate = cl.UserEvent(cl_queue.context)
    d.add_event(gate)
    d2 = cl_array.to_device(cl_queue, np.zeros(1, np.float32))
    gate.set_status(cl.command_execution_status.COMPLETE)
    v, i = clsort.top_k(d, 3)
    assert_array_equal(i.get(), clsort_perm(a, False)[:3])
    del d2


def test_errors(cl_queue):
    sorter = clsort.Sorter(cl_queue)
    a = np.arange(10, dtype=np.int32)
    d = cl_array.to_device(cl_queue, a)
    with pytest.raises(ValueError, match="out of range"):
        sorter.top_k(d, 11)
    with pytest.raises(ValueError, match="out of bounds"):
        sorter.select(d, 10)
    with pytest.raises(TypeError, match="integer"):
        sorter.partition(d, 1.5)
    with pytest.raises(ValueError, match="1-D"):
        sorter.top_k(cl_array.to_device(cl_queue, a.reshape(2, 5)), 1)
    with pytest.raises(ValueError, match="contiguous"):
        sorter.select(d[::2], 1)
    with pytest.raises(TypeError, match="complex64"):
        sorter.top_k(cl_array.to_device(cl_queue, a.astype(np.complex64)), 1)
    with pytest.raises(ValueError, match="same length"):
        sorter.lexsort([d, d[:5]])
    with pytest.raises(TypeError, match="pyopencl array like the others"):
        sorter.lexsort([d, a])
    with pytest.raises(ValueError, match="queue"):
        clsort.Sorter(device=clsort.default_device()).top_k(d, 1)
    with pytest.raises(ValueError, match="device= does not apply"):
        clsort.select(d, 1, device=clsort.default_device())
    other_context = cl.Context([cl_queue.device])  # kept referenced: see conftest.cl_queue
    other = cl.CommandQueue(other_context)
    with pytest.raises(ValueError, match="another OpenCL context"):
        clsort.Sorter(other).argpartition(d, 1)
    with pytest.raises(ValueError, match="another OpenCL context"):
        sorter.sort_segments(d, cl_array.to_device(other, np.array([0, 10], np.uint32)))
    with pytest.raises(TypeError, match="offsets"):
        sorter.sort_segments(d, cl_array.to_device(cl_queue, np.array([0, 10], np.float32)))
    with pytest.raises(ValueError, match="negative"):
        sorter.sort_segments(d, [-1, 10])
    with pytest.raises(clsort.Error):
        sorter.sort_segments(d, [0, 11])  # past the end: the library's offset check
    with pytest.raises(clsort.Error):
        sorter.sort_segments(d, cl_array.to_device(cl_queue, np.array([5, 2], np.uint32)))  # decreasing
    unchanged(d, a)
