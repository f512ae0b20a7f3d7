"""The operations of _ops.py on pyopencl arrays: the library's cl::Buffer entry points (top_k_buffer,
select_buffer, argsort_buffer, lexsort_buffer, sort_segments_buffer), enqueued on the Sorter's queue after
the arrays' events, results as new pyopencl arrays on that queue.

Order: as Sorter.sort orders pyopencl arrays, the library's order: descending is the exact reverse of
ascending, so NaNs come first there (last ascending), and NaNs are ordered by bit pattern. partition and
argpartition follow NumPy's (NaNs largest, -0.0 equal to +0.0) as on the host."""

import operator

import numpy as np

from . import _ops
from ._keys import key_row
from ._sort import _bit_range, _buffer_of

_UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
_CTYPE = {1: "unsigned char", 2: "unsigned short", 4: "unsigned int", 8: "unsigned long"}
_kernels = {}  # (context int_ptr, kernel, key type name) -> pyopencl kernel: built once per process


def _cl():
    import pyopencl as cl
    import pyopencl.array as cla

    return cl, cla


def _queue(self, what):
    """The Sorter's pyopencl queue: the library's own context cannot use pyopencl's buffers."""
    if self._queue is None:
        raise ValueError(f"clsort: {what} is a pyopencl array: it needs a Sorter on a queue of its context, "
                         "clsort.Sorter(queue) (the module functions make one on the array's queue)")
    return self._queue


def _checked(self, d, what="a"):
    """d's KeyRow and the queue to work on, after checking d: a 1-D contiguous native pyopencl array of a
    key dtype on the Sorter's context."""
    cl, cla = _cl()
    if not isinstance(d, cla.Array):
        raise TypeError(f"clsort: {what} must be a pyopencl array like the others, not {type(d).__name__}")
    row = key_row(d.dtype, what)
    if not d.dtype.isnative:
        raise TypeError(f"clsort: {what} of dtype {d.dtype} is not in native byte order")
    if d.ndim != 1:
        raise ValueError(f"clsort: {what} must be 1-D, not {d.ndim}-D with shape {d.shape}")
    if not d.flags.c_contiguous:
        raise ValueError(f"clsort: {what} must be contiguous")
    queue = _queue(self, what)
    if d.context.int_ptr != queue.context.int_ptr:
        raise ValueError(f"clsort: {what} belongs to another OpenCL context than the Sorter's queue")
    return row, queue


def _wait(*arrays):
    return [e.int_ptr for x in arrays for e in x.events]


def _done(event, *arrays):
    """The library's event as a pyopencl.Event (pyopencl's own reference), added to each array's events."""
    cl, _ = _cl()
    e = cl.Event.from_int_ptr(event.int_ptr, retain=True)
    for x in arrays:
        x.add_event(e)
    return e


def _bits(d):
    """d's keys as unsigned integers of their width: pyopencl's kernels know no bfloat16 or half type."""
    return d.view(_UINT[d.dtype.itemsize])


def _preamble(row):
    """enc(x): the order-preserving code of a key's bits as NumPy compares keys (NaNs largest and equal,
    -0.0 == +0.0), and IS_NAN(x), on the unsigned type T of the keys' width."""
    w = row.dtype.itemsize
    inf = {1: 0, 2: 0x7F80 if row.bits is not None else 0x7C00, 4: 0x7F800000, 8: 0x7FF0000000000000}[w]
    kind = "FLOAT" if row.is_float else ("SIGNED" if row.dtype.kind == "i" else "UNSIGNED")
    return f"""
#define T {_CTYPE[w]}
#define SIGN ((T)((T)1 << {8 * w - 1}))
#define MAG(x) ((T)((x) & (T)~SIGN))
#define IS_NAN(x) (MAG(x) > (T){inf}UL)
#define KIND_{kind} 1
inline T enc(T x) {{
#if defined(KIND_FLOAT)
  if (IS_NAN(x)) return (T)~(T)0;
  if (MAG(x) == 0) return SIGN;
  return (x & SIGN) ? (T)~x : (T)(x | SIGN);
#elif defined(KIND_SIGNED)
  return (T)(x ^ SIGN);
#else
  return x;
#endif
}}
"""


def _kernel(ctx, name, row):
    key = (ctx.int_ptr, name, row.name)
    k = _kernels.get(key)
    if k is not None:
        return k
    from pyopencl.elementwise import ElementwiseKernel

    t = _CTYPE[row.dtype.itemsize]
    pre = _preamble(row)
    if name == "classify":  # 0, 1, 2: less than, equal to, greater than the kth value v[0]
        k = ElementwiseKernel(ctx, f"unsigned char *c, const {t} *x, const {t} *v",
                              "T e = enc(x[i]), ev = enc(v[0]); c[i] = (unsigned char)((e >= ev) + (e > ev))",
                              "clsort_classify", preamble=pre)
    else:  # "unzero": -0.0 to +0.0
        k = ElementwiseKernel(ctx, f"{t} *x", "if (MAG(x[i]) == 0) x[i] = 0", "clsort_unzero", preamble=pre)
    _kernels[key] = k
    return k


def _argsort(self, d, row, queue, descending, begin=0, end=0):
    """The stable permutation (int64 pyopencl array) that Sorter.sort applies to d."""
    _, cla = _cl()
    out = cla.empty(queue, d.size, np.int64)
    if d.size:
        done = self._impl.argsort_buffer(row.type, _buffer_of(d).int_ptr, d.size, out.data.int_ptr, 8, descending,
                                         "automatic", _wait(d), begin, end)
        _done(done, out)
    return out


def _take(d, perm, queue):
    _, cla = _cl()
    if perm.size == 0:
        return cla.empty(queue, 0, d.dtype)
    return cla.take(_bits(d), perm, queue=queue).view(d.dtype)


def top_k(self, d, k, descending):
    row, queue = _checked(self, d)
    _, cla = _cl()
    n = d.size
    k = operator.index(k)
    if not 0 <= k <= n:
        raise ValueError(f"clsort: k={k} is out of range for {n} keys (0 <= k <= n)")
    descending = bool(descending)
    if k == 0:
        return cla.empty(queue, 0, d.dtype), cla.empty(queue, 0, np.int64)
    values = cla.empty(queue, k, d.dtype)
    indices = cla.empty(queue, k, np.uint32)
    done = self._impl.top_k_buffer(row.type, _buffer_of(d).int_ptr, n, k, values.data.int_ptr,
                                   indices.data.int_ptr, descending, _wait(d))
    _done(done, values, indices)
    if row.is_float:
        # The library's top_k takes NaNs as equal (lower index first) where sort orders them by bit
        # pattern. They come first descending, last ascending: one key read back says whether the result
        # holds any, and then a sort gives sort's order.
        edge = values[k - 1:k] if not descending else values[:1]
        with np.errstate(invalid="ignore"):
            if np.isnan(edge.get().astype(np.float64)[0]):
                perm = _argsort(self, d, row, queue, descending)[:k].copy(queue=queue)
                return _take(d, perm, queue), perm
    return values, indices.astype(np.int64)


def select(self, d, kth):
    row, queue = _checked(self, d)
    kth = _ops._normalize_kth(kth, d.size)
    return _select(self, d, row, queue, kth).get()[0]


def _select(self, d, row, queue, kth):
    """The kth key (ascending), as a 1-key pyopencl array."""
    _, cla = _cl()
    out = cla.empty(queue, 1, d.dtype)
    done = self._impl.select_buffer(row.type, _buffer_of(d).int_ptr, d.size, kth, out.data.int_ptr, False,
                                    _wait(d))
    _done(done, out)
    return out


def argpartition(self, d, kth):
    row, queue = _checked(self, d)
    kths = _ops._kth_list(kth, d.size)
    if len(set(kths)) > 1:
        return _argsort(self, d, row, queue, False)  # ascending: NaNs last, a partition at every kth
    # Less, equal, greater than the kth value, each in input order: a stable radix sort of 2-bit classes.
    _, cla = _cl()
    v = _select(self, d, row, queue, kths[0])
    classes = cla.empty(queue, d.size, np.uint8)
    event = _kernel(d.context, "classify", row)(classes, _bits(d), _bits(v), queue=queue,
                                                 wait_for=d.events + v.events)
    classes.add_event(event)
    return _argsort(self, classes, key_row(classes.dtype), queue, False, 0, 2)


def partition(self, d, kth):
    _, queue = _checked(self, d)
    return _take(d, argpartition(self, d, kth), queue)


def lexsort(self, keys):
    cl, cla = _cl()
    keys = list(keys)
    types, columns, held = [], [], []
    n = queue = None
    for i, key in enumerate(reversed(keys)):  # NumPy's last key is primary; the library's first column
        what = f"keys[{len(keys) - 1 - i}]"
        if isinstance(key, cla.Array) and key.dtype == np.bool_:
            key = key.view(np.uint8)
        row, queue = _checked(self, key, what)
        if n is None:
            n = key.size
        elif key.size != n:
            raise ValueError(f"clsort: all keys need the same length: {what} has {key.size}, not {n}")
        if row.is_float and n:
            # NumPy's lexsort takes -0.0 and +0.0 as equal (the library orders them): a copy with +0.0.
            key = key.copy(queue=queue)
            key.add_event(_kernel(key.context, "unzero", row)(_bits(key), queue=queue, wait_for=key.events))
        types.append(row.type)
        held.append(key)
    if not held:
        raise TypeError("need sequence of keys with len > 0 in lexsort")
    if n == 0:
        return cla.empty(queue, 0, np.int64)
    columns = [_buffer_of(k).int_ptr for k in held]
    out = cla.empty(queue, n, np.uint32)
    done = self._impl.lexsort_buffer(types, columns, [False] * len(columns), n, out.data.int_ptr, _wait(*held))
    _done(done, out)
    return out.astype(np.int64)


def _offsets(offsets, queue):
    """offsets as a pyopencl array of uint32 or uint64 on `queue`'s context."""
    _, cla = _cl()
    if isinstance(offsets, cla.Array):
        if offsets.ndim != 1 or offsets.dtype.kind not in "iu" or offsets.dtype.itemsize not in (4, 8):
            raise TypeError(f"clsort: device offsets must be a 1-D array of (u)int32 or (u)int64, not "
                            f"{offsets.dtype} of shape {offsets.shape}")
        if not offsets.flags.c_contiguous:
            raise ValueError("clsort: offsets must be contiguous")
        if offsets.context.int_ptr != queue.context.int_ptr:
            raise ValueError("clsort: offsets belong to another OpenCL context than the Sorter's queue")
        # Negative offsets read as huge unsigned ones, which the library's check refuses (clsort.Error).
        return offsets.view(_UINT[offsets.dtype.itemsize])
    offs = np.asarray(offsets)
    if offs.ndim != 1 or (offs.size and offs.dtype.kind not in "iu"):
        raise TypeError(f"clsort: offsets must be a 1-D integer array, not {offs.dtype} of shape {offs.shape}")
    if offs.size and offs.dtype.kind == "i" and offs.min() < 0:
        raise ValueError("clsort: offsets must not be negative")
    return cla.to_device(queue, np.ascontiguousarray(offs, dtype=np.uint64))


def _segments(self, d, values, offsets, descending, begin_bit, end_bit):
    cl, _ = _cl()
    row, queue = _checked(self, d)
    begin, end, _ = _bit_range(row, begin_bit, end_bit)
    offs = _offsets(offsets, queue)
    arrays = (d, offs) if values is None else (d, values, offs)
    if d.size == 0 or offs.size < 2:  # nothing to sort; pyopencl allocates no buffer for an empty array
        if offs.size and d.size == 0 and np.any(offs.get() != 0):
            raise ValueError("clsort: offsets reach past the keys' end")
        return cl.enqueue_marker(queue, wait_for=[e for x in arrays for e in x.events])
    done = self._impl.sort_segments_buffer(
        row.type, _buffer_of(d).int_ptr, 0 if values is None else values.data.int_ptr,
        0 if values is None else values.dtype.itemsize, _buffer_of(offs).int_ptr, offs.dtype.itemsize,
        offs.size - 1, bool(descending), begin, end, _wait(*arrays))
    return _done(done, *arrays[:-1])


def sort_segments(self, d, offsets, descending, begin_bit, end_bit):
    return _segments(self, d, None, offsets, descending, begin_bit, end_bit)


def argsort_segments(self, d, offsets, descending, begin_bit, end_bit):
    _, cla = _cl()
    _, queue = _checked(self, d)
    keys = d.copy(queue=queue)
    indices = cla.arange(queue, d.size, dtype=np.int64)
    _segments(self, keys, indices, offsets, descending, begin_bit, end_bit)
    return indices
