"""sort, argsort and sort_by_key for NumPy arrays and pyopencl arrays, and the Sorter behind them."""

import operator
import sys
import threading

import numpy as np

from . import _clsort
from ._keys import as_keys, key_row

ALGORITHMS = tuple(_clsort.ALGORITHMS)

_ORDER_NOTE = """
    Order: ascending by value, like ``np.sort`` and ``np.argsort(kind="stable")``; NaNs (either sign,
    any payload) come last in both orders, as NumPy puts them (NumPy 2.5's ``descending=True`` too).
    Equal keys keep their input order in both orders (argsort and sort_by_key are stable). Where clsort
    differs from NumPy: floats are ordered totally, so -0.0 comes before +0.0 when ascending (after it
    when descending), where NumPy treats them as equal and keeps their input order (stable kinds) or
    leaves it unspecified; and NaNs are ordered among themselves by bit pattern (ascending: positive NaNs
    by payload, then negative NaNs by payload from the largest; descending: that order reversed), where
    NumPy's stable kinds keep NaNs in input order. Every bit pattern of the input survives."""

_DEVICE_NOTE = """
    A ``pyopencl.array.Array`` is sorted in place on its queue (a Sorter's: on the Sorter's queue),
    asynchronously after the array's pending events; the returned ``pyopencl.Event`` completes when the
    sort has, and is added to the array's events. There descending is the library's exact reverse of
    ascending, so NaNs come first."""


_BITS_NOTE = """
    begin_bit, end_bit: order by bits [begin_bit, end_bit) of each key's order-preserving code only (the
    library's radix semantics, as CUB's, on clsort/key_transform.hpp's encode_key: unsigned keys as they
    are, signed ones with the sign bit flipped, floats with negative values inverted and the sign bit set
    on others, then less the NaN span (so negative NaNs follow positive ones); end_bit None: the width).
    Keys equal in those bits keep their input order; an empty range (begin_bit == end_bit) keeps the input
    order. Forces radix sort (another algorithm raises clsort.Error). Descending puts NaNs last only when
    the range is the whole key; otherwise the order is the library's, the exact reverse of ascending."""

_STRUCTURED_NOTE = """
    With order= (a field name or a list of them, as np.sort takes), a structured array is sorted ascending by
    those fields, then by the others in dtype order, stably through lexsort; its fields must be key dtypes
    or bool. -0.0 equals +0.0 there, as in NumPy."""


def _check_order(descending, algorithm):
    if algorithm not in ALGORITHMS:
        raise ValueError(f"clsort: unknown algorithm {algorithm!r}: expected one of {', '.join(ALGORITHMS)}")
    return bool(descending)


def _bit_range(row, begin_bit, end_bit):
    """(begin, end, full) for Options: the bits [begin_bit, end_bit) of the keys' order-preserving code
    (end_bit None: the key's width), and whether they are the whole key. An empty range at 0 goes to the
    library as one at the key's width (its end_bit 0 means the width)."""
    width = 8 * row.dtype.itemsize
    begin = operator.index(begin_bit)
    end = width if end_bit is None else operator.index(end_bit)
    if begin < 0 or end < 0:
        raise ValueError(f"clsort: begin_bit ({begin}) and end_bit ({end}) must not be negative")
    if begin > end:
        raise ValueError(f"clsort: begin_bit ({begin}) must not exceed end_bit ({end})")
    full = begin == 0 and end == width
    if full:
        return 0, 0, True  # no range: every algorithm applies (the library takes any end_bit as a range)
    if end == 0:
        begin = end = width
    # Out-of-range values reach the library (which names the argument) without overflowing its unsigned.
    return min(begin, 1 << 16), min(end, 1 << 16), full


def _nan_mask(keys, row):
    with np.errstate(invalid="ignore"):  # ml_dtypes' isnan of a bfloat16 NaN raises the invalid flag
        return np.isnan(keys)


def _refuse_masked(where, *arrays):
    """TypeError for a numpy.ma.MaskedArray among `arrays` (the arguments of the function `where`): clsort
    would sort its data and drop its mask. Every public entry that takes arrays calls it first."""
    for a in arrays:
        if isinstance(a, np.ma.MaskedArray):
            raise TypeError(
                f"{where}: masked arrays (numpy.ma.MaskedArray) are not supported, their mask would be "
                "ignored: use np.ma.sort / np.ma.argsort, or pass a.filled(fill_value) or a.compressed()"
            )


def _keys_of(a, what="a"):
    """`a` as a 1-D ndarray of a key type, and that key type's row (_keys.KeyRow)."""
    arr = np.asarray(a)
    if arr.ndim != 1:
        raise ValueError(f"clsort: {what} must be 1-D, not {arr.ndim}-D with shape {arr.shape}")
    return arr, key_row(arr.dtype, what)



def _values_of(values, karr):
    """values as a 1-D NumPy array of one value per key of karr; ValueError otherwise."""
    varr = np.asarray(values)
    if varr.ndim != 1:
        raise ValueError(f"clsort: values must be 1-D, not {varr.ndim}-D with shape {varr.shape}")
    if len(varr) != len(karr):
        raise ValueError(f"clsort: keys has {len(karr)} elements but values has {len(varr)}")
    return varr

def _native_copy(arr):
    """A C-contiguous copy in native byte order: what the library sorts in place."""
    return np.array(arr, dtype=arr.dtype.newbyteorder("="), order="C", copy=True)


def _leading_nans(keys_at, n):
    """How many NaNs lead a descending result, found by bisection: they are a prefix."""
    lo, hi = 0, n
    with np.errstate(invalid="ignore"):  # ml_dtypes' isnan of a bfloat16 NaN raises the invalid flag
        while lo < hi:
            mid = (lo + hi) // 2
            if np.isnan(keys_at(mid)):
                lo = mid + 1
            else:
                hi = mid
    return lo


def _nans_last(arrays, k):
    # The library's descending order is the exact reverse of ascending, with NaNs first; NumPy puts them
    # last in both orders. Only arrays that hold NaNs pay for the rotation.
    for x in arrays:
        if 0 < k < len(x):
            x[:] = np.concatenate((x[k:], x[:k]))


def _cl_array_type():
    mod = sys.modules.get("pyopencl.array")  # an array of it exists only if the user imported it
    return getattr(mod, "Array", None)


def _is_cl_array(a):
    t = _cl_array_type()
    return t is not None and isinstance(a, t)


class Sorter:
    """Sorts on one OpenCL device, reusing its compiled programs and scratch buffers across calls.

    ``Sorter(queue)`` works on a ``pyopencl.CommandQueue`` (retained for the Sorter's life; clsort never
    calls clFinish on it); ``Sorter(device=...)`` makes its own context and in-order queue on a device
    (``None``: the default device, see ``default_device()``; a ``clsort.Device``; a ``pyopencl.Device``;
    or a string as ``CLSORT_DEVICE`` takes it). A Sorter may be shared by threads: calls are serialized,
    and the GIL is released while a sort runs.
    """

    def __init__(self, queue=None, *, device=None):
        if isinstance(queue, _clsort.Device) and device is None:  # Sorter(clsort.default_device())
            queue, device = None, queue
        if queue is not None:
            if device is not None:
                raise ValueError("clsort: pass a queue or a device, not both")
            ptr = getattr(queue, "int_ptr", None)
            # Only a command queue: the pointer of any other OpenCL object (a pyopencl.Device or Context
            # has int_ptr too) would be taken for a queue's and crash the process.
            if not isinstance(ptr, int) or type(queue).__name__ != "CommandQueue":
                raise TypeError(f"clsort: queue must be a pyopencl.CommandQueue, not {type(queue).__name__}")
            self._impl = _clsort.Sorter.from_queue(ptr)
        else:
            self._impl = _clsort.Sorter(_resolve_device(device))
        self._queue = queue

    @property
    def device(self):
        """The clsort.Device this Sorter sorts on."""
        return self._impl.device

    @property
    def queue(self):
        """The pyopencl.CommandQueue given to the constructor, or None."""
        return self._queue

    def sort(self, a, descending=False, algorithm="automatic", begin_bit=0, end_bit=None, order=None):
        """A sorted copy of the 1-D array `a`, or, for a pyopencl array, its sort in place (an event)."""
        _refuse_masked("clsort.Sorter.sort", a)
        descending = _check_order(descending, algorithm)
        if _is_cl_array(a):
            if order is not None:
                raise ValueError("clsort: order= applies to structured NumPy arrays")
            return self._sort_device(a, None, descending, algorithm, begin_bit, end_bit)
        if order is not None:  # without order=, a structured array is refused as before (TypeError)
            return self._structured(a, order, descending, algorithm, begin_bit, end_bit)
        arr, row = _keys_of(a)
        begin, end, full = _bit_range(row, begin_bit, end_bit)
        if arr.flags.c_contiguous and arr.dtype.isnative:
            # Sorted straight from `a` into the new array: no copy of `a` first.
            out = np.empty(len(arr), dtype=arr.dtype)
            self._impl.sort_copy_host(row.type, as_keys(row, arr), as_keys(row, out), descending, algorithm, begin,
                                      end)
        else:
            out = _native_copy(arr)
            self._impl.sort_host(row.type, as_keys(row, out), None, descending, algorithm, 0, begin, end)
        if descending and row.is_float and full:
            _nans_last([out], _leading_nans(out.__getitem__, len(out)))
        return out if out.dtype == arr.dtype else out.astype(arr.dtype)

    def _structured(self, a, order, descending, algorithm, begin_bit, end_bit):
        arr = np.asarray(a)
        if arr.dtype.names is None:
            raise ValueError("Cannot specify order when the array has no fields.")
        if arr.ndim != 1:
            raise ValueError(f"clsort: a must be 1-D, not {arr.ndim}-D with shape {arr.shape}")
        if descending or algorithm != "automatic" or begin_bit != 0 or end_bit is not None:
            raise ValueError("clsort: a structured array sorts ascending by its fields only (order=)")
        return self._sort_structured(arr, order)

    def argsort(self, a, descending=False, algorithm="automatic", begin_bit=0, end_bit=None):
        """The stable permutation (int64) that sorts the 1-D NumPy array `a`."""
        _refuse_masked("clsort.Sorter.argsort", a)
        descending = _check_order(descending, algorithm)
        if _is_cl_array(a):
            raise TypeError(
                "clsort: argsort takes NumPy arrays; for a pyopencl array, sort_by_key it with "
                "pyopencl.array.arange(queue, n, dtype=np.uint32) as values"
            )
        arr, row = _keys_of(a)
        begin, end, full = _bit_range(row, begin_bit, end_bit)
        keys = np.ascontiguousarray(arr, dtype=arr.dtype.newbyteorder("="))
        out = np.empty(len(keys), dtype=np.int64)
        self._impl.argsort_host(row.type, as_keys(row, keys), out, descending, algorithm, begin, end)
        if descending and row.is_float and full:
            _nans_last([out], _leading_nans(lambda i: keys[out[i]], len(out)))
        return out

    def sort_by_key(self, keys, values, descending=False, algorithm="automatic", begin_bit=0, end_bit=None):
        """Sorted copies (keys, values) of 1-D arrays: each value moves with its key, stably.

        Values may be of any dtype without Python objects (structured dtypes too): they move on the device,
        those of 4 or 8 bytes with their keys, others once through the sorting permutation; object arrays
        take ``values[argsort(keys)]``. pyopencl arrays (both) are sorted in place; the result is an event."""
        _refuse_masked("clsort.Sorter.sort_by_key", keys, values)
        descending = _check_order(descending, algorithm)
        if _is_cl_array(keys) or _is_cl_array(values):
            if not (_is_cl_array(keys) and _is_cl_array(values)):
                raise TypeError("clsort: keys and values must both be pyopencl arrays, or neither")
            return self._sort_device(keys, values, descending, algorithm, begin_bit, end_bit)
        karr, row = _keys_of(keys, "keys")
        begin, end, full = _bit_range(row, begin_bit, end_bit)
        varr = _values_of(values, karr)
        if varr.dtype.itemsize == 0 or varr.dtype.hasobject:
            perm = self.argsort(karr, descending, algorithm, begin_bit, end_bit)
            return karr[perm], varr[perm]
        out_k = _native_copy(karr)
        out_v = np.array(varr, order="C", copy=True)  # values' bits only move: any dtype, any byte order
        width = out_v.dtype.itemsize
        if width in (4, 8):
            values = out_v.view(np.uint32 if width == 4 else np.uint64)
            self._impl.sort_host(row.type, as_keys(row, out_k), values, descending, algorithm, 0, begin, end)
        else:
            self._impl.sort_host(row.type, as_keys(row, out_k), out_v.view(np.uint8), descending, algorithm,
                                 width, begin, end)
        if descending and row.is_float and full:
            _nans_last([out_k, out_v], _leading_nans(out_k.__getitem__, len(out_k)))
        return (out_k if out_k.dtype == karr.dtype else out_k.astype(karr.dtype)), out_v

    def plan(self, dtype, n, values_dtype=None, descending=False, algorithm="automatic"):
        """What a sort of n keys of `dtype` (with values of `values_dtype`) would run on this device: a dict
        with algorithm, shape, build_options, tuning_row and tuning."""
        descending = _check_order(descending, algorithm)
        row = key_row(np.dtype(dtype), "keys")
        value_bytes = 0 if values_dtype is None else np.dtype(values_dtype).itemsize
        return self._impl.plan(row.type, int(n), value_bytes, descending, algorithm)

    @property
    def scratch_bytes(self):
        """Device memory this Sorter holds between calls (scratch buffers that later calls reuse), in bytes."""
        return self._impl.scratch_bytes()

    def keep_scratch(self, nbytes):
        """At most `nbytes` of scratch that the call under way does not use stay held when a call needs a new
        or larger buffer (default: half the device's memory); the oldest go first."""
        self._impl.keep_scratch(operator.index(nbytes))

    def release_scratch(self):
        """Gives every scratch buffer back (after the commands already enqueued that use them)."""
        self._impl.release_scratch()

    def _sort_device(self, keys, values, descending, algorithm, begin_bit=0, end_bit=None):
        import pyopencl as cl

        row = key_row(keys.dtype, "keys")
        begin, end, _ = _bit_range(row, begin_bit, end_bit)
        if not keys.dtype.isnative:
            raise TypeError(f"clsort: keys of dtype {keys.dtype} are not in native byte order")
        for what, x in (("keys", keys), ("values", values)):
            if x is None:
                continue
            if x.ndim != 1:
                raise ValueError(f"clsort: {what} must be 1-D, not {x.ndim}-D with shape {x.shape}")
            if not x.flags.c_contiguous:
                raise ValueError(f"clsort: {what} must be contiguous to be sorted in place on the device")
        value_bytes = 0
        if values is not None:
            if values.size != keys.size:
                raise ValueError(f"clsort: keys has {keys.size} elements but values has {values.size}")
            value_bytes = values.dtype.itemsize
            if value_bytes == 0:
                raise TypeError(f"clsort: device values must be at least 1 byte wide, not {values.dtype}")
        wait = [e.int_ptr for x in (keys, values) if x is not None for e in x.events]
        queue = self._queue if self._queue is not None else keys.queue
        if keys.size == 0:  # pyopencl allocates no buffer for an empty array
            return cl.enqueue_marker(queue, wait_for=[e for x in (keys, values) if x is not None for e in x.events])
        kbuf = _buffer_of(keys)
        vbuf = _buffer_of(values) if values is not None else None
        done = self._impl.sort_buffer(
            row.type, kbuf.int_ptr, vbuf.int_ptr if vbuf is not None else 0, value_bytes, keys.size, descending,
            algorithm, wait, begin, end,
        )
        event = cl.Event.from_int_ptr(done.int_ptr, retain=True)  # pyopencl's own reference; ours goes
        for x in (keys, values):
            if x is not None:
                x.add_event(event)
        return event


def _buffer_of(a):
    """The cl_mem holding a pyopencl array's elements: its buffer, or a sub-buffer at its offset."""
    if a.offset == 0:
        return a.base_data
    import pyopencl as cl

    try:
        return a.base_data.get_sub_region(a.offset, a.nbytes)
    except cl.Error as e:  # typically CL_MISALIGNED_SUB_BUFFER_OFFSET
        align = a.queue.device.mem_base_addr_align // 8 if a.queue is not None else "?"
        raise ValueError(
            f"clsort: the array starts {a.offset} bytes into its buffer, where the device cannot start a "
            f"sub-buffer (alignment {align} bytes): {e}"
        ) from None


# ---- Devices and the Sorters of the module-level functions.

_lock = threading.Lock()
_default = None  # the Sorter of device=None, made at first use like the C++ default_sorter()
_by_device = {}  # cl_device_id -> Sorter, for device=...


def devices():
    """Every OpenCL device of every platform, in platform order, as clsort.Device objects."""
    return _clsort.devices()


def default_device():
    """The device clsort sorts on by default: ``CLSORT_DEVICE`` selects it (``gpu``, ``cpu``, a substring of
    the device, vendor or platform name, or ``<platform>:<device>`` indices); without it the first GPU,
    else the first CPU device. ``default_device_reason()`` says why. Raises clsort.Error when none matches."""
    return _clsort.default_device()


def default_device_reason():
    """Why default_device() picks what it does, e.g. 'CLSORT_DEVICE=cpu' or 'first GPU'."""
    return _clsort.default_device_reason()


def _resolve_device(device):
    if device is None:
        return _clsort.default_device()
    if isinstance(device, _clsort.Device):
        return device
    if isinstance(device, str):
        return _clsort.select_device(device)
    ptr = getattr(device, "int_ptr", None)  # a pyopencl.Device
    if isinstance(ptr, int):
        for d in _clsort.devices():
            if d.int_ptr == ptr:
                return d
        raise ValueError("clsort: no OpenCL platform lists that device (a sub-device?)")
    raise TypeError(
        f"clsort: device must be None, a clsort.Device, a pyopencl.Device or a string, not {type(device).__name__}"
    )


def _sorter(device):
    global _default
    with _lock:
        if device is None:
            if _default is None:
                _default = Sorter()
            return _default
        d = _resolve_device(device)
        s = _by_device.get(d.int_ptr)
        if s is None:
            s = _by_device[d.int_ptr] = Sorter(device=d)
        return s


def _module_sorter(a, device):
    if _is_cl_array(a):
        if device is not None:
            raise ValueError("clsort: a pyopencl array is sorted on its own queue; device= does not apply")
        if a.queue is None:
            raise ValueError("clsort: the pyopencl array has no queue: use clsort.Sorter(queue).sort(a)")
        # A Sorter per call: programs stay cached process-wide while another Sorter lives on the context;
        # clsort.Sorter(queue) keeps them and the scratch buffers across calls.
        return Sorter(a.queue)
    return _sorter(device)


def sort(a, descending=False, algorithm="automatic", device=None, begin_bit=0, end_bit=None, order=None):
    """A sorted copy of the 1-D array `a`, like ``np.sort(a)``.

    `a`: any 1-D array of a dtype of ``clsort.KEY_DTYPES``: (u)int8 to (u)int64, float16 to float64, and
    ml_dtypes' bfloat16 where ml_dtypes is installed (other dtypes raise TypeError, other dimensions
    ValueError); non-contiguous and byte-swapped arrays are copied first, and the result
    has `a`'s dtype. `algorithm`: one of ``clsort.ALGORITHMS`` ("automatic" picks by n, dtype and
    device). `device`: see ``Sorter``; None is the default device. Raises clsort.Error for failures in
    clsort or OpenCL; `a` is never changed unless it is a pyopencl array.
    """
    _refuse_masked("clsort.sort", a)
    descending = _check_order(descending, algorithm)
    return _module_sorter(a, device).sort(a, descending, algorithm, begin_bit, end_bit, order)


def argsort(a, descending=False, algorithm="automatic", device=None, begin_bit=0, end_bit=None):
    """The stable permutation that sorts the 1-D array `a`, like ``np.argsort(a, kind="stable")``: int64
    indices, ``a[result]`` is sorted. From 2^32 keys on (radix sort, where the device holds them) the
    library's 64-bit argsort fills them."""
    _refuse_masked("clsort.argsort", a)
    descending = _check_order(descending, algorithm)
    return _module_sorter(a, device).argsort(a, descending, algorithm, begin_bit, end_bit)


def sort_by_key(keys, values, descending=False, algorithm="automatic", device=None, begin_bit=0, end_bit=None):
    """Sorted copies ``(keys, values)``: `values` (any dtype, same length) reordered with `keys`, stably;
    the same as ``p = argsort(keys); keys[p], values[p]``, faster for 4- and 8-byte values, which move on
    the device. pyopencl arrays (both) are sorted in place and an event is returned."""
    _refuse_masked("clsort.sort_by_key", keys, values)
    descending = _check_order(descending, algorithm)
    return _module_sorter(keys, device).sort_by_key(keys, values, descending, algorithm, begin_bit, end_bit)


for _f in (sort, argsort, sort_by_key, Sorter.sort, Sorter.argsort, Sorter.sort_by_key):
    _f.__doc__ += _ORDER_NOTE
for _f in (sort, sort_by_key, Sorter.sort, Sorter.sort_by_key):
    _f.__doc__ += _DEVICE_NOTE
for _f in (sort, argsort, sort_by_key, Sorter.sort, Sorter.argsort, Sorter.sort_by_key):
    _f.__doc__ += _BITS_NOTE
for _f in (sort, Sorter.sort):
    _f.__doc__ += _STRUCTURED_NOTE
