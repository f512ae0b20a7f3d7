"""Fixtures of the clsort Python tests: a pyopencl queue on the device clsort uses by default."""

import pytest


@pytest.fixture(scope="session")
def cl_queue():
    """A pyopencl queue on clsort's default device (CLSORT_DEVICE applies), or a skip without pyopencl."""
    cl = pytest.importorskip("pyopencl")
    import pyopencl.array  # noqa: F401  (clsort recognizes arrays of an imported pyopencl.array)

    import clsort

    device = cl.Device.from_int_ptr(clsort.default_device().int_ptr)
    context = cl.Context([device])
    return cl.CommandQueue(context)
