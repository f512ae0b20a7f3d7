"""The key types: the package's dtype map is the library's key-type table (_clsort.key_types(), from
clsort/key_types.h), less only rows of EXTERNAL_DTYPES whose package is not installed; the tests here cover
every dtype of it."""

import importlib.util
import os
import subprocess
import sys

import numpy as np
import pytest
from numpy.testing import assert_array_equal

import clsort
from clsort import _clsort, _keys
from reference import BFLOAT16, DTYPES, bits, clsort_perm, make

# The rows as released (name, value, bytes): the values are clsort_key_type's in the C ABI.
RELEASED = [("u32", 0, 4), ("i32", 1, 4), ("f32", 2, 4), ("u64", 3, 8), ("i64", 4, 8), ("f64", 5, 8),
            ("u8", 6, 1), ("i8", 7, 1), ("u16", 8, 2), ("i16", 9, 2), ("f16", 10, 2), ("bf16", 11, 2)]
KINDS = {"unsigned_int", "signed_int", "ieee_float", "bfloat"}


def test_the_library_table():
    rows = _clsort.key_types()
    assert [(r["name"], r["value"], r["bytes"]) for r in rows[: len(RELEASED)]] == RELEASED
    values = [r["value"] for r in rows]
    assert values == sorted(set(values))
    for r in rows:
        assert r["type"] is getattr(_clsort.KeyType, r["name"])
        assert r["type"].value == r["value"]
        assert r["kind"] in KINDS
        assert r["is_float"] == (r["kind"] in ("ieee_float", "bfloat"))
    assert [t.name for t in _clsort.KeyType] == [r["name"] for r in rows]


def test_every_row_has_a_dtype_or_a_listed_reason():
    table = {r["name"]: r for r in _clsort.key_types()}
    assert [r.name for r in _keys.ROWS] == [name for name in table if name not in _keys.MISSING]
    assert set(_keys.MISSING) <= set(table)
    for name in _keys.MISSING:  # only a package that is not installed leaves a row out
        assert name in _keys.EXTERNAL_DTYPES, _keys.MISSING[name]
        assert importlib.util.find_spec(_keys.EXTERNAL_DTYPES[name][0]) is None
    for row in _keys.ROWS:
        r = table[row.name]
        assert row.type is r["type"] and row.is_float == r["is_float"]
        assert row.dtype.itemsize == r["bytes"] and row.dtype.isnative
        assert _keys.key_row(row.dtype) is row
    assert clsort.KEY_DTYPES == tuple(row.dtype for row in _keys.ROWS)


def test_the_tests_cover_every_key_dtype():
    assert sorted(np.dtype(d).name for d in DTYPES) == sorted(d.name for d in clsort.KEY_DTYPES)


@pytest.mark.parametrize("spelling", ["<i2", ">i2", np.short, "=u1", np.ubyte, ">f2", np.half, "<f2", np.byte])
def test_every_spelling_finds_its_row(spelling):
    dtype = np.dtype(spelling)
    assert _keys.key_row(dtype).dtype == dtype.newbyteorder("=")
    a = np.array([3, 1, 2, 0, 7, 5], dtype=dtype)
    assert_array_equal(clsort.sort(a), np.sort(a))
    assert clsort.sort(a).dtype == dtype
    assert_array_equal(clsort.argsort(a, descending=True), np.argsort(-a.astype(np.float64), kind="stable"))


def test_bfloat16_through_ml_dtypes():
    ml_dtypes = pytest.importorskip("ml_dtypes", reason="bf16 keys need ml_dtypes (pip install ml-dtypes)")
    assert np.dtype(ml_dtypes.bfloat16) in clsort.KEY_DTYPES and "bf16" not in _keys.MISSING
    a = make("specials", BFLOAT16, 10007, seed=5)
    for descending in (False, True):
        perm = clsort_perm(a, descending)
        out = clsort.sort(a, descending=descending)
        assert out.dtype == BFLOAT16
        assert_array_equal(bits(out), bits(a[perm]))
        assert_array_equal(clsort.argsort(a, descending=descending), perm)
        k, v = clsort.sort_by_key(a, np.arange(a.size), descending=descending)
        assert_array_equal(bits(k), bits(a[perm]))
        assert_array_equal(v, perm)
    # Other ml_dtypes types are not key types.
    with pytest.raises(TypeError, match="dtype float8_e4m3fn"):
        clsort.sort(np.zeros(3, dtype=ml_dtypes.float8_e4m3fn))


def test_without_ml_dtypes_bf16_is_left_out_and_named():
    code = """
import sys
sys.modules["ml_dtypes"] = None  # as if not installed: importing it raises ImportError
import numpy as np, clsort
from clsort import _keys
print("MISSING", sorted(_keys.MISSING))
print("DTYPES", ",".join(d.name for d in clsort.KEY_DTYPES))
try:
    clsort.sort(np.zeros(3, dtype="V2"))
except TypeError as e:
    print("ERROR", e)
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600,
                       env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    assert r.returncode == 0, r.stderr
    assert "MISSING ['bf16']" in r.stdout
    dtypes = r.stdout.split("DTYPES ")[1].split("\n")[0].split(",")
    assert dtypes == [row.dtype.name for row in _keys.ROWS if row.name != "bf16"]
    assert "bf16: needs ml_dtypes (pip install ml-dtypes)" in r.stdout


def test_the_module_refuses_keys_of_another_type():
    """The module's own check behind the dtype map: an array must hold its row's kind and width (bfloat16
    arrives as its bits, uint16)."""
    impl = clsort.Sorter()._impl
    for name, dtype in (("i16", np.float16), ("f16", np.uint16), ("u32", np.uint64), ("bf16", np.int16),
                        ("u8", np.int8), ("f64", np.int64)):
        a = np.arange(3, dtype=dtype)
        with pytest.raises(TypeError, match=f"keys do not hold {name}"):
            impl.sort_host(getattr(_clsort.KeyType, name), a, None, False, "automatic")
        assert_array_equal(a, np.arange(3))
    bits16 = np.array([0x4040, 0x3F80, 0x4000], dtype=np.uint16)  # bfloat16 3, 1, 2
    impl.sort_host(_clsort.KeyType.bf16, bits16, None, False, "automatic")
    assert_array_equal(bits16, [0x3F80, 0x4000, 0x4040])
