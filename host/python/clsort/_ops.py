"""top_k, select, partition, argpartition, lexsort and the segmented sorts for NumPy arrays (pyopencl
arrays go to _device_ops.py): the library's
Sorter::top_k, select, lexsort and sort_segments(_by_key), with NumPy's conventions on top (NaNs last in
both orders, as the package's sort puts them; NumPy's signatures for partition and lexsort)."""

import operator

import numpy as np

from ._keys import as_keys, key_row
from ._sort import Sorter, _bit_range, _is_cl_array, _keys_of, _module_sorter, _nan_mask, _refuse_masked

# ---- The operations on one Sorter (also its methods, attached at the end).


def _host_keys(a, what="a"):
    """`a` as a 1-D C-contiguous native ndarray of a key type, and its row; pyopencl arrays, which
    _device_ops takes, are refused."""
    if _is_cl_array(a):
        raise TypeError(f"clsort: this operation takes NumPy arrays, not a pyopencl array ({what})")
    arr, row = _keys_of(a, what)
    return arr, np.ascontiguousarray(arr, dtype=arr.dtype.newbyteorder("=")), row


def _top_k(self, a, k, descending=False):
    _refuse_masked("clsort.Sorter.top_k", a)
    if _is_cl_array(a):
        return _device_ops.top_k(self, a, k, descending)
    arr, keys, row = _host_keys(a)
    n = len(keys)
    k = operator.index(k)
    if not 0 <= k <= n:
        raise ValueError(f"clsort: k={k} is out of range for {n} keys (0 <= k <= n)")
    descending = bool(descending)
    nans = int(np.count_nonzero(_nan_mask(keys, row))) if row.is_float else 0
    if nans and k + nans > n:
        # The result reaches into the NaNs, which come last in both orders here (sort's order). The
        # library's top_k takes NaNs as equal (by index) where sort orders them by bit pattern: a sort does.
        perm = self.argsort(keys, descending)[:k]
        return keys[perm].astype(arr.dtype, copy=False), perm
    # The library's descending order puts NaNs first: ask for that many more and drop them.
    nans = nans if descending else 0
    m = k + nans
    values = np.empty(m, dtype=row.dtype)
    indices = np.empty(m, dtype=np.uint32)
    self._impl.top_k_host(row.type, as_keys(row, keys), m, as_keys(row, values), indices, descending)
    return values[nans:].astype(arr.dtype, copy=False), indices[nans:].astype(np.int64)


def _select(self, a, kth):
    _refuse_masked("clsort.Sorter.select", a)
    if _is_cl_array(a):
        return _device_ops.select(self, a, kth)
    arr, keys, row = _host_keys(a)
    n = len(keys)
    kth = _normalize_kth(kth, n)
    out = np.empty(1, dtype=row.dtype)
    self._impl.select_host(row.type, as_keys(row, keys), kth, as_keys(row, out), False)
    return out.astype(arr.dtype, copy=False)[0]


def _normalize_kth(kth, n):
    k = operator.index(kth)
    if not -n <= k < n:
        raise ValueError(f"kth(={k}) out of bounds ({n})")
    return k + n if k < 0 else k


# Beyond one distinct kth, one sort: on PoCL (2^20 keys, 2 cores) a select costs about half a sort (9 ms
# against 15 to 20 ms, both mostly the keys' trip to the device), and a split into more than three parts
# costs NumPy as much again, so two selects and their split already lose to the sort.
_MAX_SELECTS = 1


def _kth_list(kth, n):
    """The normalized kth of `kth` (an int or a 1-D sequence of them)."""
    kths = np.asarray(kth)
    if kths.dtype.kind not in "iu" or kths.ndim > 1:
        raise TypeError("Partition index must be integer")
    return [_normalize_kth(k, n) for k in np.atleast_1d(kths).tolist()]


def _split(self, keys, row, kth):
    """Masks of the keys less than, equal to and greater than the kth key, as NumPy compares them (NaNs
    largest and equal to each other, -0.0 == +0.0): in this order, each in input order, they partition."""
    out = np.empty(1, dtype=row.dtype)
    self._impl.select_host(row.type, as_keys(row, keys), kth, as_keys(row, out), False)
    # bfloat16 as float32: the same values, zeros and NaNs, where NumPy compares fast.
    x, v = (keys.astype(np.float32), out.astype(np.float32)[0]) if row.bits is not None else (keys, out[0])
    if row.is_float and np.isnan(v):  # only NaNs from kth on
        eq = _nan_mask(x, row)
        return [~eq, eq]
    with np.errstate(invalid="ignore"):
        less = x < v
        greater = (x > v) | _nan_mask(x, row) if row.is_float else x > v
    return [less, ~(less | greater), greater]


def _partitioned(self, a, kth, what, whole, part):
    """partition/argpartition: `whole` of the keys (a sort) beyond _MAX_SELECTS distinct kth, else the parts of
    one split at the kth value, each taken by `part(mask, arr)`, in order."""
    _refuse_masked(f"clsort.Sorter.{what}", a)
    if _is_cl_array(a):
        return getattr(_device_ops, what)(self, a, kth)
    arr, keys, row = _host_keys(a)
    kths = _kth_list(kth, len(keys))
    if len(set(kths)) > _MAX_SELECTS:
        return whole(arr, keys)  # a sort partitions at every kth
    return np.concatenate([part(m, arr) for m in _split(self, keys, row, kths[0])])


def _argpartition(self, a, kth):
    return _partitioned(self, a, kth, "argpartition", lambda arr, keys: self.argsort(keys),
                        lambda m, arr: np.flatnonzero(m))


def _partition(self, a, kth):
    # np.compress copies by a mask several times faster than arr[mask] does (NumPy 2).
    return _partitioned(self, a, kth, "partition", lambda arr, keys: self.sort(arr), np.compress)


def _lexsort(self, keys):
    _refuse_masked("clsort.Sorter.lexsort", keys)
    if isinstance(keys, np.ndarray):
        if keys.ndim != 2:
            raise ValueError(f"clsort: lexsort takes a sequence of 1-D keys or a 2-D array, not {keys.ndim}-D")
        keys = list(keys)
    keys = list(keys)
    _refuse_masked("clsort.Sorter.lexsort", *keys)
    if any(_is_cl_array(k) for k in keys):
        return _device_ops.lexsort(self, keys)
    if not keys:
        raise TypeError("need sequence of keys with len > 0 in lexsort")
    types, columns = [], []
    n = None
    for i, key in enumerate(reversed(keys)):  # NumPy's last key is primary; the library's first column
        what = f"keys[{len(keys) - 1 - i}]"
        col = np.asarray(key)
        if col.dtype == np.bool_:
            col = col.view(np.uint8)
        if col.ndim != 1:
            raise ValueError(f"clsort: {what} must be 1-D, not {col.ndim}-D with shape {col.shape}")
        if n is None:
            n = len(col)
        elif len(col) != n:
            raise ValueError(f"clsort: all keys need the same length: {what} has {len(col)}, not {n}")
        row = key_row(col.dtype, what)
        col = np.ascontiguousarray(col, dtype=row.dtype)
        if row.is_float:
            # NumPy's lexsort takes -0.0 and +0.0 as equal (the library orders them); + 0 makes them +0.0.
            # NaNs are all equal in both.
            col = col + row.dtype.type(0)
        types.append(row.type)
        columns.append(as_keys(row, col))
    out = np.empty(n, dtype=np.uint32)
    self._impl.lexsort_host(types, columns, [False] * len(columns), out)
    return out.astype(np.int64)


def _sort_structured(self, arr, order):
    """np.sort(arr, order=order) for a 1-D structured array whose fields are key dtypes (or bool)."""
    names = arr.dtype.names
    if order is None:
        order = []
    elif isinstance(order, str):
        order = [order]
    order = list(order)
    for f in order:
        if f not in names:
            raise ValueError(f"unknown field name: {f}")
    fields = order + [f for f in names if f not in order]  # NumPy breaks ties by the other fields in turn
    perm = _lexsort(self, [arr[f] for f in reversed(fields)])
    return arr[perm]


def _segments(self, keys, values, offsets, descending, begin_bit, end_bit):
    """Sorts the segments of `keys` (a native copy) in place, with `values` (None or int64 indices)."""
    offs = np.asarray(offsets)
    if offs.ndim != 1 or (offs.size and offs.dtype.kind not in "iu"):
        raise TypeError(f"clsort: offsets must be a 1-D integer array, not {offs.dtype} of shape {offs.shape}")
    if offs.size and offs.dtype.kind == "i" and offs.min() < 0:
        raise ValueError("clsort: offsets must not be negative")
    offs = np.ascontiguousarray(offs, dtype=np.uint64)
    row = key_row(keys.dtype, "a")
    begin, end, full = _bit_range(row, begin_bit, end_bit)
    self._impl.sort_segments_host(row.type, as_keys(row, keys), None if values is None else values.view(np.uint64),
                                  0, offs, bool(descending), begin, end)
    if descending and full and row.is_float and len(offs) > 1:
        # The library's descending order puts NaNs first in each segment; sort's puts them last.
        lo, hi = int(offs[0]), int(offs[-1])
        nan = _nan_mask(keys[lo:hi], row)
        if nan.any():
            seg = np.repeat(np.arange(len(offs) - 1), np.diff(offs.astype(np.int64)))
            p = np.lexsort((nan, seg))  # stable: within each segment, the others then the NaNs
            keys[lo:hi] = keys[lo:hi][p]
            if values is not None:
                values[lo:hi] = values[lo:hi][p]


def _sort_segments(self, a, offsets, descending=False, begin_bit=0, end_bit=None):
    _refuse_masked("clsort.Sorter.sort_segments", a)
    if _is_cl_array(a):
        return _device_ops.sort_segments(self, a, offsets, descending, begin_bit, end_bit)
    arr, _, row = _host_keys(a)
    out = np.array(arr, dtype=row.dtype, order="C", copy=True)
    _segments(self, out, None, offsets, descending, begin_bit, end_bit)
    return out.astype(arr.dtype, copy=False)


def _argsort_segments(self, a, offsets, descending=False, begin_bit=0, end_bit=None):
    _refuse_masked("clsort.Sorter.argsort_segments", a)
    if _is_cl_array(a):
        return _device_ops.argsort_segments(self, a, offsets, descending, begin_bit, end_bit)
    arr, _, row = _host_keys(a)
    keys = np.array(arr, dtype=row.dtype, order="C", copy=True)
    indices = np.arange(len(keys), dtype=np.int64)
    _segments(self, keys, indices, offsets, descending, begin_bit, end_bit)
    return indices


_top_k.__doc__ = """The k smallest elements of the 1-D array `a` (the k largest with descending=True), sorted, and
    their indices (int64): ``(sort(a, descending)[:k], argsort(a, descending)[:k])``, found by radix
    selection rather than a full sort. Stable like torch.topk's: of equal keys the lower index comes
    first. NaNs are the largest values ascending and come last descending, as in sort. 0 <= k <= len(a)."""
_select.__doc__ = """The element at position `kth` of the sorted 1-D array `a` (``np.sort(a)[kth]``; negative kth
    counts from the end), found by radix selection; a NumPy scalar of `a`'s dtype."""
_partition.__doc__ = """Like ``np.partition(a, kth)`` for a 1-D array: a copy in which the element at kth is the one
    sorted order puts there, those before it are smaller or equal, those after greater or equal (NaNs
    last). `kth`: an int (negative counts from the end) or a sequence of ints."""
_argpartition.__doc__ = """Like ``np.argpartition(a, kth)`` for a 1-D array: the int64 indices that partition
    `a`: the kth value by radix selection, then the elements less than it, equal to it and greater, each in
    input order (NaNs largest, -0.0 equal to +0.0, as NumPy compares). A sequence of more than one
    distinct kth is sorted (stable ascending, NaNs last): cheaper than a selection per kth."""
_lexsort.__doc__ = """Like ``np.lexsort(keys)``: the stable permutation (int64) ordering rows by the last key, rows equal
    in it by the one before, and so on. `keys`: a sequence of 1-D arrays of one length (any key dtypes,
    or bool) or a 2-D array. As in NumPy, -0.0 equals +0.0 and NaNs are equal to each other and last."""
_sort_segments.__doc__ = """A copy of the 1-D array `a` with each segment ``a[offsets[i]:offsets[i + 1]]`` sorted
    (CSR-style offsets, len(offsets) - 1 segments, non-decreasing and at most len(a)); elements outside
    the segments stay where they are. Order as in sort; begin_bit/end_bit as in sort."""
_argsort_segments.__doc__ = """The int64 permutation that sort_segments applies: global indices, stable within each
    segment, the identity outside the segments."""

# The Sorter's methods.
Sorter.top_k = _top_k
Sorter.select = _select
Sorter.partition = _partition
Sorter.argpartition = _argpartition
Sorter.lexsort = _lexsort
Sorter.sort_segments = _sort_segments
Sorter.argsort_segments = _argsort_segments
Sorter._sort_structured = _sort_structured


# ---- Module-level functions, on the default Sorter (or device=...).


def top_k(a, k, descending=False, device=None):
    _refuse_masked("clsort.top_k", a)
    return _module_sorter(a, device).top_k(a, k, descending)


def select(a, kth, device=None):
    _refuse_masked("clsort.select", a)
    return _module_sorter(a, device).select(a, kth)


def partition(a, kth, device=None):
    _refuse_masked("clsort.partition", a)
    return _module_sorter(a, device).partition(a, kth)


def argpartition(a, kth, device=None):
    _refuse_masked("clsort.argpartition", a)
    return _module_sorter(a, device).argpartition(a, kth)


def lexsort(keys, device=None):
    if not isinstance(keys, np.ndarray):
        keys = list(keys)  # a generator is read once, here
        _refuse_masked("clsort.lexsort", *keys)
    _refuse_masked("clsort.lexsort", keys)
    first = keys if isinstance(keys, np.ndarray) or not keys else keys[0]
    return _module_sorter(first if _is_cl_array(first) else None, device).lexsort(keys)


def sort_segments(a, offsets, descending=False, begin_bit=0, end_bit=None, device=None):
    _refuse_masked("clsort.sort_segments", a)
    return _module_sorter(a, device).sort_segments(a, offsets, descending, begin_bit, end_bit)


def argsort_segments(a, offsets, descending=False, begin_bit=0, end_bit=None, device=None):
    _refuse_masked("clsort.argsort_segments", a)
    return _module_sorter(a, device).argsort_segments(a, offsets, descending, begin_bit, end_bit)


_CL_NOTE = """
    pyopencl arrays (1-D, contiguous) work on their queue after their pending events and give pyopencl
    arrays (select: a scalar; sort_segments: an event, sorting in place), in the order Sorter.sort gives
    them: descending puts NaNs first."""
for _m in (_top_k, _select, _partition, _argpartition, _lexsort, _sort_segments, _argsort_segments):
    _m.__doc__ += _CL_NOTE

for _f, _m in ((top_k, _top_k), (select, _select), (partition, _partition), (argpartition, _argpartition),
               (lexsort, _lexsort), (sort_segments, _sort_segments), (argsort_segments, _argsort_segments)):
    _f.__doc__ = _m.__doc__ + "\n    `device`: see ``Sorter``; None is the default device."

from . import _device_ops  # noqa: E402 (it uses this module's helpers)
