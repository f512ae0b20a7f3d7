"""clsort.mpi: one sort across the ranks of an mpi4py communicator, each rank sorting on its own device.

    from mpi4py import MPI
    import numpy as np, clsort.mpi

    a = np.random.default_rng(MPI.COMM_WORLD.rank).random(1 << 20)    # any length on each rank
    s = clsort.mpi.sort(MPI.COMM_WORLD, a)                            # collective
    k, v = clsort.mpi.sort_by_key(MPI.COMM_WORLD, a, np.arange(a.size))

Semantics (the C++ library's clsort::mpi, clsort/mpi.hpp): read the ranks' arrays in rank order, rank 0
first, as one array. The results, read the same way, are its stable sort in clsort.sort's order (see
clsort.sort: floats ordered totally, -0.0 before +0.0, NaNs last in both orders), and each rank's result
has as many elements as its input. Like clsort.sort, the calls return new arrays and leave theirs as
they were. Every call is collective over `comm`: all its ranks call it with the same key dtype, value
itemsize and order, and return together. An error on any rank (a bad argument, an OpenCL failure, keys
of different dtypes on two ranks) raises on every rank: that rank's own exception there, clsort.Error
naming the failing rank on the others; no rank hangs.

The device: `sorter=None` sorts on clsort::mpi::local_device(comm), the node's GPUs spread over the
node's ranks (CLSORT_DEVICE wins where set), with a Sorter per device kept for the process;
`sorter=clsort.Sorter(...)` sorts on that Sorter's device and queue.

Needs mpi4py (``pip install clsort[mpi]``) using the MPI library clsort was built with, and clsort built
where CMake found MPI (the extension clsort._clsort_mpi).
"""

import threading

import numpy as np

try:
    from mpi4py import MPI
except ImportError as _e:
    raise ImportError(
        f"clsort.mpi needs mpi4py: pip install 'clsort[mpi]' (or pip install mpi4py) ({_e})"
    ) from _e

try:
    from . import _clsort_mpi
except ImportError as _e:
    raise ImportError(
        "clsort.mpi: this clsort has no MPI extension (clsort._clsort_mpi): it is built only where CMake "
        "finds MPI (Debian: libopenmpi-dev openmpi-bin), then reinstall clsort "
        f"({_e})"
    ) from _e

from ._clsort import Error
from ._keys import as_keys
from ._sort import Sorter, _keys_of, _leading_nans, _native_copy, _refuse_masked, _values_of

__all__ = ["local_device", "release_buffers", "sort", "sort_by_key"]

_lock = threading.Lock()
_by_device = {}  # cl_device_id -> _clsort_mpi.Sorter, for sorter=None


def _handle(comm):
    """What the extension takes for `comm`: the address of its MPI_Comm (mpi4py's MPI._addressof, which
    _clsort_mpi dereferences; see mpi_module.cpp), with mpi4py's size and rank of it for a check."""
    if not isinstance(comm, MPI.Comm):
        raise TypeError(f"clsort.mpi: comm must be an mpi4py communicator (MPI.Comm), not {type(comm).__name__}")
    if comm == MPI.COMM_NULL:
        raise ValueError("clsort.mpi: the communicator is MPI.COMM_NULL")
    return MPI._addressof(comm), comm.Get_size(), comm.Get_rank()


def local_device(comm):
    """The clsort.Device this rank sorts on by default: the node's GPUs by node-local rank (see the module
    docstring). Collective over `comm`."""
    from ._clsort import devices

    ptr = _clsort_mpi.local_device(*_handle(comm))
    for d in devices():
        if d.int_ptr == ptr:
            return d
    raise Error(f"clsort.mpi: local_device() returned a device no platform lists ({ptr:#x})")


def release_buffers():
    """Frees the host and device buffers that clsort.mpi's sorts keep between calls. Not collective."""
    _clsort_mpi.release_buffers()


def _mpi_sorter(device, sorter):
    """The _clsort_mpi.Sorter for `sorter` (None: the one of `device`, this rank's local_device)."""
    if sorter is None:
        ptr = device
        with _lock:
            s = _by_device.get(ptr)
            if s is None:
                s = _by_device[ptr] = _clsort_mpi.Sorter.from_device(ptr)
            return s
    if not isinstance(sorter, Sorter):
        raise TypeError(f"clsort.mpi: sorter must be None or a clsort.Sorter, not {type(sorter).__name__}")
    with _lock:
        s = sorter.__dict__.get("_mpi_impl")
        if s is None:
            # A Sorter of the MPI module on the clsort.Sorter's queue, kept with it (programs and scratch).
            s = sorter._mpi_impl = _clsort_mpi.Sorter.from_queue(sorter._impl.queue_int_ptr)
        return s


def _agree(comm, error):
    """Raises on every rank when `error` (this rank's exception or None) is set on any: the rank's own
    exception there, clsort.Error naming the first failing rank elsewhere, as the library's errors do."""
    if not comm.allreduce(0 if error is None else 1, op=MPI.SUM):
        return
    failures = comm.allgather(None if error is None else f"{type(error).__name__}: {error}")
    if error is not None:
        raise error
    rank = next(r for r, f in enumerate(failures) if f is not None)
    err = Error(f"clsort.mpi: rank {rank} of {comm.Get_size()} failed: {failures[rank]}")
    err.status, err.status_name, err.where, err.build_log, err.kind = 0, "CL_SUCCESS", "", "", "invalid_argument"
    raise err


def _prepare(where, comm, keys, values, descending, sorter):
    """Checks and copies on this rank, agreed on by all ranks before the collective sort."""
    handle = _handle(comm)  # a wrong comm cannot agree: it raises here, on the ranks that passed it
    error = prepared = None
    try:
        # First, on every rank alike: local_device is collective (a split of comm by node), so it runs on
        # every call, whatever `sorter` is, before any check that could fail on one rank only.
        device = _clsort_mpi.local_device(*handle)
        _refuse_masked(where, keys, values)
        karr, row = _keys_of(keys, "keys")
        out_k = _native_copy(karr)
        out_v = None
        if values is not None:
            varr = _values_of(values, karr)
            if varr.dtype.itemsize == 0 or varr.dtype.hasobject:
                raise TypeError(f"clsort.mpi: values of dtype {varr.dtype} cannot move between ranks: "
                                "values need a fixed itemsize and no Python objects")
            out_v = np.array(varr, order="C", copy=True)  # values' bits only move: any dtype, any byte order
        prepared = (handle, _mpi_sorter(device, sorter), karr, row, out_k, out_v, bool(descending))
    except Exception as e:  # noqa: BLE001  (raised on every rank by _agree)
        error = e
    _agree(comm, error)
    return prepared


def _sort(where, comm, keys, values, descending, sorter):
    handle, impl, karr, row, out_k, out_v, descending = _prepare(where, comm, keys, values, descending, sorter)
    vbytes = 0 if out_v is None else out_v.dtype.itemsize
    impl.sort_host(*handle, row.type, as_keys(row, out_k), None if out_v is None else out_v.view(np.uint8),
                   vbytes, descending)
    if descending and row.is_float:
        _nans_last(comm, handle, [x for x in (out_k, out_v) if x is not None],
                   _leading_nans(out_k.__getitem__, len(out_k)))
    if out_k.dtype != karr.dtype:
        out_k = out_k.astype(karr.dtype)
    return out_k if out_v is None else (out_k, out_v)


def _nans_last(comm, handle, arrays, nans):
    """The library's descending order puts NaNs first (the exact reverse of ascending), NumPy's last: the
    ranks' arrays read as one are rotated left by the NaNs' count, through one all-to-all per array. The
    NaNs lead the global order, so `nans`, this rank's leading NaNs, are all of its NaNs."""
    counts = comm.allgather((len(arrays[0]), nans))
    n = [c for c, _ in counts]
    k = sum(z for _, z in counts)
    total = sum(n)
    if k == 0 or k == total:
        return
    p, me = len(n), handle[2]
    offsets = np.concatenate(([0], np.cumsum(n))).tolist()

    def pieces(r):
        """(destination rank, destination position, source offset in rank r, count) of rank r's
        elements, in destination order: those past the NaNs move k down, the NaNs to the end."""
        lo, hi = offsets[r], offsets[r + 1]
        out = []
        for a, b in ((max(lo, k), hi), (lo, min(hi, k))):
            if a >= b:
                continue
            d0 = (a - k) % total
            for s in range(p):
                x, y = max(d0, offsets[s]), min(d0 + b - a, offsets[s + 1])
                if x < y:
                    out.append((s, x, a - lo + (x - d0), y - x))
        return out

    mine = pieces(me)
    send_counts = [0] * p
    for s, _, _, c in mine:
        send_counts[s] += c
    incoming = [(d, c) for r in range(p) for s, d, _, c in pieces(r) if s == me]  # in source rank order
    recv_counts = [0] * p
    for r in range(p):
        recv_counts[r] = sum(c for s, _, _, c in pieces(r) if s == me)
    for x in arrays:
        w = x.dtype.itemsize
        send = np.concatenate([x[o:o + c] for _, _, o, c in mine]) if mine else x[:0]
        recv = np.empty_like(x)
        _clsort_mpi.alltoallv(*handle, np.ascontiguousarray(send).view(np.uint8), send_counts,
                              recv.view(np.uint8), recv_counts, w)
        at = 0
        for d, c in incoming:
            x[d - offsets[me]:d - offsets[me] + c] = recv[at:at + c]
            at += c


def sort(comm, a, descending=False, sorter=None):
    """This rank's part of the sort of all ranks' 1-D arrays `a` read in rank order (see the module
    docstring): a new array of `a`'s length and dtype. Key dtypes: those of clsort.KEY_DTYPES.
    Collective over `comm`."""
    return _sort("clsort.mpi.sort", comm, a, None, descending, sorter)


def sort_by_key(comm, keys, values, descending=False, sorter=None):
    """This rank's part ``(keys, values)`` of the sort of all ranks' keys, each value moving with its key
    (stable: equal keys keep their (rank, position) order). Values: any dtype of a fixed itemsize without
    Python objects (structured dtypes too), the same itemsize on every rank. Collective over `comm`."""
    return _sort("clsort.mpi.sort_by_key", comm, keys, values, descending, sorter)
