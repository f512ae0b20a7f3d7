"""Fixtures of the clsort Python tests: a pyopencl queue on the device clsort uses by default."""

import pytest


@pytest.fixture(scope="session")
def cl_context():
    """A pyopencl context on clsort's default device (CLSORT_DEVICE applies), or a skip without pyopencl."""
    cl = pytest.importorskip("pyopencl")
    import pyopencl.array  # noqa: F401  (clsort recognizes arrays of an imported pyopencl.array)

    import clsort

    return cl.Context([cl.Device.from_int_ptr(clsort.default_device().int_ptr)])


@pytest.fixture(scope="session")
def cl_queue(cl_context):
    # The context stays referenced for the session: Intel's CPU runtime (2026.2) deletes a context whose
    # last user reference goes although a queue on it lives on, where the OpenCL spec and PoCL keep it.
    import pyopencl as cl

    return cl.CommandQueue(cl_context)
