"""The key types clsort sorts, as NumPy dtypes: the one table to extend when the library gains one."""

import numpy as np

from . import _clsort

# (dtype.kind, dtype.itemsize) -> clsort key type. Keyed by kind and size rather than by dtype objects so
# that every spelling of a type (np.int64, np.longlong, '<i8', '>i8') finds its row.
_TABLE = {
    ("u", 4): _clsort.KeyType.u32,
    ("i", 4): _clsort.KeyType.i32,
    ("f", 4): _clsort.KeyType.f32,
    ("u", 8): _clsort.KeyType.u64,
    ("i", 8): _clsort.KeyType.i64,
    ("f", 8): _clsort.KeyType.f64,
}

#: The key dtypes clsort sorts, in native byte order.
KEY_DTYPES = tuple(np.dtype(f"{kind}{size}") for kind, size in _TABLE)


def key_type(dtype, what="a"):
    """The clsort key type of `dtype`; TypeError naming the dtype and the supported ones otherwise."""
    kt = _TABLE.get((dtype.kind, dtype.itemsize))
    if kt is None or dtype.fields is not None or dtype.subdtype is not None:
        names = ", ".join(d.name for d in KEY_DTYPES)
        raise TypeError(f"clsort: cannot sort {what} of dtype {dtype}: supported key dtypes are {names}")
    return kt


def is_float(dtype):
    return dtype.kind == "f"
