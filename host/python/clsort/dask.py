"""clsort.dask: Dask DataFrames sorted with each worker's partitions ordered on its OpenCL device.

    import dask.dataframe as dd, clsort.dask
    out = clsort.dask.sort_values(ddf, "x")                            # like ddf.sort_values("x")
    out = clsort.dask.sort_values(ddf, ["a", "b"], ascending=[True, False])

Dask's own sort_values does the distributed part (divisions from quantiles of the first column, the
shuffle); clsort.dask hands it ``sort_partition`` as its sort_function, which each worker runs on its
pandas partitions with clsort on the worker's default device (CLSORT_DEVICE in the worker's environment).
Needs dask[dataframe] (and distributed for a cluster): ``pip install 'clsort[dask]'``.
"""

try:
    import dask.dataframe  # noqa: F401
    import pandas as pd
except ImportError as e:  # pragma: no cover - depends on the environment
    raise ImportError(
        f"clsort.dask needs dask's DataFrame and pandas ({e}): pip install 'clsort[dask]' "
        "(dask[dataframe] and distributed)"
    ) from e

import numpy as np

from . import _sort
from ._keys import KEY_DTYPES, key_row
from ._ops import lexsort

__all__ = ["sort_partition", "sort_values", "sort_permutation"]

_KEY_KINDS = {(d.kind, d.itemsize) for d in KEY_DTYPES if d.kind in "iuf"}


def _key_column(series):
    """(keys, missing) for a pandas Series clsort can order: keys a 1-D ndarray of a key dtype in which
    ascending order is the column's (-0.0 as +0.0, missing entries zeroed), missing a bool mask (NaN, NaT)
    or None; or None for a column it cannot (object, string, categorical, nullable extension dtypes...)."""
    dtype = series.dtype
    if not isinstance(dtype, np.dtype):
        return None  # extension dtypes: Int64 with pd.NA, string, category, Arrow-backed ...
    values = series.to_numpy()
    if dtype.kind == "b":
        return values.view(np.uint8), None
    if dtype.kind in "mM":  # datetime64 and timedelta64: int64 counts, NaT the smallest, pandas' NA
        missing = np.isnat(values)
        keys = values.view(np.int64)
    elif (dtype.kind, dtype.itemsize) in _KEY_KINDS:
        keys = values
        missing = np.isnan(values) if dtype.kind == "f" else None
    else:
        return None  # float16, complex, object ...
    if missing is not None:
        if missing.any():
            keys = np.where(missing, keys.dtype.type(0), keys)
        else:
            missing = None
    if keys.dtype.kind == "f":
        keys = keys + keys.dtype.type(0)  # -0.0 + 0.0 is +0.0: pandas takes them as equal
    return keys, missing


def _descending_keys(keys):
    """Keys whose ascending order is the descending order of `keys` (ties stay ties)."""
    if keys.dtype.kind == "f":
        return -keys
    return ~keys  # two's complement: ~x = -x - 1, order-reversing without overflow; unsigned: max - x


def sort_permutation(df, by, ascending=True, na_position="last"):
    """The stable permutation (int64 positions) that ``df.sort_values(by, ascending=ascending,
    na_position=na_position, kind="stable")`` applies to the pandas DataFrame `df`, computed with clsort
    (argsort for one column, lexsort for several), or None when a column of `by` is of a dtype clsort does
    not order (object, string, categorical, nullable extension dtypes such as Int64): those are left to
    pandas. Missing values (NaN, NaT) come last or first by na_position in either order, as in pandas."""
    by = [by] if isinstance(by, str) or not isinstance(by, (list, tuple)) else list(by)
    orders = [bool(ascending)] * len(by) if isinstance(ascending, (bool, np.bool_)) else [bool(a) for a in ascending]
    if len(orders) != len(by):
        raise ValueError(f"Length of ascending ({len(orders)}) != length of by ({len(by)})")
    if na_position not in ("first", "last"):
        raise ValueError(f"invalid na_position: {na_position}")
    columns = []
    for name in by:
        col = _key_column(df[name])
        if col is None:
            return None
        columns.append(col)
    n = len(df)
    if n < 2 or not columns:
        return np.arange(n, dtype=np.int64)
    if len(columns) == 1:
        (keys, missing), asc = columns[0], orders[0]
        if missing is None:
            return _sort.argsort(keys, descending=not asc)
        present = np.flatnonzero(~missing)
        order = present[_sort.argsort(keys[present], descending=not asc)]
        absent = np.flatnonzero(missing)
        return np.concatenate((order, absent) if na_position == "last" else (absent, order))
    # np.lexsort's order: the last key is the primary one. Per column, its missing mask above its keys.
    lex = []
    for (keys, missing), asc in zip(reversed(columns), reversed(orders)):
        lex.append(keys if asc else _descending_keys(keys))
        if missing is not None:
            lex.append(missing if na_position == "last" else ~missing)
    return lexsort(lex)


def sort_partition(df, by, ascending=True, na_position="last", **kwargs):
    """One pandas partition sorted by `by` (a column name or a list of them), stably, with clsort: what
    ``df.sort_values(by, ascending=ascending, na_position=na_position, kind="stable")`` returns. Columns of
    dtypes clsort does not order (object and string columns, categoricals, nullable extension dtypes such as
    Int64 or Arrow-backed ones) fall back to pandas' own sort_values, as do other pandas keywords
    (`kwargs`, e.g. key=...). The sort_function that sort_values hands to Dask."""
    perm = None if kwargs else sort_permutation(df, by, ascending, na_position)
    if perm is None:
        return df.sort_values(by, ascending=ascending, na_position=na_position, **{"kind": "stable", **kwargs})
    return df.take(perm)


def sort_values(df, by, ascending=True, npartitions=None, na_position="last", sort_function_kwargs=None, **kwargs):
    """``df.sort_values(by, ...)`` of the dask.dataframe.DataFrame `df` with its partitions sorted by clsort
    on each worker (``sort_function=sort_partition``): Dask picks the divisions and shuffles, clsort orders
    every partition stably (argsort for one numeric, bool or datetime column, lexsort for several).
    Missing values come last (na_position="last", pandas' default) or first, in either order. Columns of
    other dtypes (object, string ...) are sorted by pandas' sort_values instead. `npartitions` and the other
    keywords are Dask's sort_values'; `sort_function_kwargs` go to sort_partition (and so to pandas)."""
    return df.sort_values(
        by,
        npartitions=npartitions,
        ascending=ascending,
        na_position=na_position,
        sort_function=sort_partition,
        sort_function_kwargs=sort_function_kwargs,
        **kwargs,
    )
