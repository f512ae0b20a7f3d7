"""The key types clsort sorts, as NumPy dtypes, built from the library's key-type table
(``_clsort.key_types()``, from clsort/key_types.h): a row the library gains reaches Python by itself when
NumPy has its dtype, and otherwise needs an entry in EXTERNAL_DTYPES."""

import importlib
from typing import NamedTuple, Optional

import numpy as np

from . import _clsort

# The dtype kind letter of each key kind that NumPy's own dtypes cover: such a row's dtype is
# np.dtype(f"{letter}{bytes}").
_NUMPY_KINDS = {"unsigned_int": "u", "signed_int": "i", "ieee_float": "f"}

#: Rows whose dtype another package provides, by name: (module, attribute). bf16 is ml_dtypes.bfloat16,
#: the bfloat16 of JAX and TensorFlow. Without that package the row is left out (MISSING says why).
EXTERNAL_DTYPES = {"bf16": ("ml_dtypes", "bfloat16")}


class KeyRow(NamedTuple):
    """One row of the library's table with its dtype."""

    name: str  # "u32", ...
    type: object  # _clsort.KeyType
    dtype: np.dtype  # in native byte order
    is_float: bool
    bits: Optional[np.dtype]  # None, or the unsigned dtype the extension takes such keys as (their bits)


def _build():
    rows, missing = [], {}
    for r in _clsort.key_types():
        name, bits = r["name"], None
        if name in EXTERNAL_DTYPES:
            module, attribute = EXTERNAL_DTYPES[name]
            try:
                dtype = np.dtype(getattr(importlib.import_module(module), attribute))
            except ImportError:
                missing[name] = f"needs {module} (pip install {module.replace('_', '-')})"
                continue
            # Neither DLPack nor the buffer protocol carries such a dtype into the extension.
            bits = np.dtype(f"u{r['bytes']}")
        elif r["kind"] in _NUMPY_KINDS:
            dtype = np.dtype(f"{_NUMPY_KINDS[r['kind']]}{r['bytes']}")
        else:
            missing[name] = f"no NumPy dtype for {r['bytes']}-byte {r['kind']} keys: add it to EXTERNAL_DTYPES"
            continue
        if dtype.itemsize != r["bytes"]:
            raise ImportError(f"clsort: {dtype} has {dtype.itemsize} bytes, the library's {name} has {r['bytes']}")
        rows.append(KeyRow(name, r["type"], dtype, r["is_float"], bits))
    return tuple(rows), missing


# ROWS: the library's key types that Python sorts, in the table's order. MISSING: those left out, by name,
# and why (rows of EXTERNAL_DTYPES whose package is not installed; tests/python checks there are no others).
ROWS, MISSING = _build()

#: The key dtypes clsort sorts, in native byte order.
KEY_DTYPES = tuple(r.dtype for r in ROWS)

# NumPy's own dtypes by (kind, itemsize), so that every spelling of a type (np.int64, np.longlong, '<i8',
# '>i8') finds its row; other packages' dtypes by their scalar type.
_BY_KIND_SIZE = {(r.dtype.kind, r.dtype.itemsize): r for r in ROWS if r.bits is None}
_BY_TYPE = {r.dtype.type: r for r in ROWS if r.bits is not None}


def key_row(dtype, what="a"):
    """The KeyRow of `dtype`; TypeError naming the dtype and the supported ones otherwise."""
    row = _BY_TYPE.get(dtype.type) or _BY_KIND_SIZE.get((dtype.kind, dtype.itemsize))
    if row is None or dtype.fields is not None or dtype.subdtype is not None:
        names = ", ".join(d.name for d in KEY_DTYPES)
        also = "".join(f"; {name}: {why}" for name, why in MISSING.items())
        raise TypeError(f"clsort: cannot sort {what} of dtype {dtype}: supported key dtypes are {names}" + also)
    return row


def key_type(dtype, what="a"):
    """The library's KeyType of `dtype` (see key_row)."""
    return key_row(dtype, what).type


def as_keys(row, arr):
    """`arr` (of row's dtype, native byte order) as the extension takes it: itself, or a view of its bits."""
    return arr if row.bits is None else arr.view(row.bits)
