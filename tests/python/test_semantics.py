"""What clsort does where NumPy leaves a choice or orders differently (±0, NaN signs and payloads), stated
literally; stability by hand; inputs NumPy accepts that need a copy; values of any dtype."""

import numpy as np
import pytest
from numpy.testing import assert_array_equal

import clsort
from reference import bits

F32 = {"+nan": 0x7FC00000, "-nan": 0xFFC00000, "+nan1": 0x7F800001, "-nan1": 0xFF800001,
       "+0": 0x00000000, "-0": 0x80000000, "+inf": 0x7F800000, "-inf": 0xFF800000, "1": 0x3F800000,
       "+sub": 0x00000001, "-sub": 0x80000001}


def f32(*names):
    return np.array([F32[n] for n in names], dtype=np.uint32).view(np.float32)


def test_zeros_and_nans_ascending():
    a = f32("+nan", "+0", "-nan1", "1", "-0", "+nan1", "-inf", "-sub", "-nan", "+inf", "+sub", "+0", "-0")
    # -0.0 before +0.0 (NumPy: either, by input order for stable kinds); NaNs last, positive by payload,
    # then negative from the largest payload (NumPy's stable kinds: input order).
    expected = f32("-inf", "-sub", "-0", "-0", "+0", "+0", "+sub", "1", "+inf", "+nan1", "+nan", "-nan",
                   "-nan1")
    assert_array_equal(bits(clsort.sort(a)), bits(expected))
    assert_array_equal(clsort.argsort(a), [6, 7, 4, 12, 1, 11, 10, 3, 9, 5, 0, 8, 2])
    # NumPy agrees once ±0 and NaN patterns are told apart only by value.
    assert_array_equal(clsort.sort(a), np.sort(a))


def test_zeros_and_nans_descending():
    a = f32("+nan", "+0", "-nan1", "1", "-0", "+nan1", "-inf", "-sub", "-nan", "+inf", "+sub", "+0", "-0")
    # By value reversed: +0.0 before -0.0; NaNs still last (as NumPy 2.5's descending=True), in the
    # reverse of their ascending order.
    expected = f32("+inf", "1", "+sub", "+0", "+0", "-0", "-0", "-sub", "-inf", "-nan1", "-nan", "+nan",
                   "+nan1")
    assert_array_equal(bits(clsort.sort(a, descending=True)), bits(expected))
    assert_array_equal(clsort.argsort(a, descending=True), [9, 3, 10, 1, 11, 4, 12, 7, 6, 2, 8, 0, 5])


def test_float64_nan_signs():
    a = np.array([0x7FF8000000000000, 0xFFF8000000000000, 0x8000000000000000, 0],
                 dtype=np.uint64).view(np.float64)
    assert_array_equal(bits(clsort.sort(a)), [0x8000000000000000, 0, 0x7FF8000000000000, 0xFFF8000000000000])


def test_stability_by_hand():
    keys = np.array([2, 1, 2, 1, 0, 2, 1, 0], dtype=np.int32)
    assert_array_equal(clsort.argsort(keys), [4, 7, 1, 3, 6, 0, 2, 5])
    assert_array_equal(clsort.argsort(keys, descending=True), [0, 2, 5, 1, 3, 6, 4, 7])
    # Large enough for radix sort, with long runs of equal keys.
    keys = np.random.default_rng(5).integers(0, 3, size=100003).astype(np.uint64)
    assert_array_equal(clsort.argsort(keys), np.argsort(keys, kind="stable"))


@pytest.mark.parametrize("values_dtype", [np.int64, np.float32, "M8[s]", [("a", "<i4"), ("b", "<f4")],
                                          ">i8", np.int8, np.uint16, np.complex128, "U3", object, bool,
                                          "S3", [("a", "<i4"), ("b", "<f8", (7,)), ("c", "u1", (4,))]])
def test_sort_by_key_values_of_any_dtype(values_dtype):
    rng = np.random.default_rng(3)
    keys = rng.integers(0, 50, size=5003).astype(np.float64)
    values = rng.integers(0, 100, size=keys.size).astype(values_dtype)
    perm = np.argsort(keys, kind="stable")
    for descending in (False, True):
        if descending:
            perm = (keys.size - 1 - np.argsort(keys[::-1], kind="stable"))[::-1]
        k, v = clsort.sort_by_key(keys, values, descending=descending)
        assert v.dtype == values.dtype
        assert_array_equal(k, keys[perm])
        assert_array_equal(v, values[perm])


def test_noncontiguous_and_array_likes():
    a = np.arange(30, dtype=np.float64)[::-3]
    assert not a.flags.c_contiguous
    assert_array_equal(clsort.sort(a), np.sort(a))
    assert_array_equal(clsort.argsort(a), np.argsort(a, kind="stable"))
    k, v = clsort.sort_by_key(a, np.arange(40)[::4])
    assert_array_equal(k, np.sort(a))
    assert_array_equal(v, np.arange(40)[::4][np.argsort(a, kind="stable")])
    readonly = np.arange(10, dtype=np.uint32)[::-1].copy()
    readonly.flags.writeable = False
    assert_array_equal(clsort.sort(readonly), np.arange(10))
    assert_array_equal(clsort.argsort(readonly), np.arange(10)[::-1])
    assert_array_equal(clsort.sort([3, 1, 2]), [1, 2, 3])  # a list becomes int64, as np.asarray makes it
    assert clsort.sort([3, 1, 2]).dtype == np.int64


def test_result_is_a_copy():
    a = np.array([3, 1, 2], dtype=np.int32)
    out = clsort.sort(a)
    out[0] = 99
    assert_array_equal(a, [3, 1, 2])
