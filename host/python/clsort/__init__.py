"""clsort: sorting on OpenCL devices (NVIDIA, AMD and Intel GPUs, CPU devices such as PoCL) for NumPy and
PyOpenCL arrays.

    import numpy as np, clsort
    a = np.random.default_rng().random(1 << 20, dtype=np.float32)
    s = clsort.sort(a)                        # like np.sort(a)
    p = clsort.argsort(a, descending=True)    # stable, int64 like np.argsort(a, kind="stable")
    k, v = clsort.sort_by_key(a, np.arange(a.size))

    sorter = clsort.Sorter(queue)             # a pyopencl.CommandQueue: programs and scratch kept
    event = sorter.sort(cl_array)             # a pyopencl.array.Array, sorted in place, asynchronously

The device: CLSORT_DEVICE as for the C++ library (see default_device()), or device= per call.
"""

# Before the extension's first OpenCL call: the ICD loader reads OCL_ICD_VENDORS then (see _runtime).
from . import _runtime

_runtime.register()

from ._clsort import Device, Error, __version__
from ._keys import KEY_DTYPES
from ._ops import argpartition, argsort_segments, lexsort, partition, select, sort_segments, top_k
from ._sort import (
    ALGORITHMS,
    Sorter,
    argsort,
    default_device,
    default_device_reason,
    devices,
    sort,
    sort_by_key,
)

__all__ = [
    "ALGORITHMS",
    "Device",
    "Error",
    "KEY_DTYPES",
    "Sorter",
    "__version__",
    "argpartition",
    "argsort",
    "argsort_segments",
    "default_device",
    "default_device_reason",
    "devices",
    "lexsort",
    "partition",
    "select",
    "sort",
    "sort_by_key",
    "sort_segments",
    "top_k",
]
