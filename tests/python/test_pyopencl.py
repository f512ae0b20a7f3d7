"""pyopencl arrays: sorted in place on their queue, asynchronously, returning a pyopencl.Event; Sorter(queue)
across calls; references to queues, buffers and events kept right."""

import gc
import threading

import numpy as np
import pytest
from numpy.testing import assert_array_equal

import clsort
from reference import DTYPES, bits, clsort_perm, device_perm, make

cl = pytest.importorskip("pyopencl")
cl_array = pytest.importorskip("pyopencl.array")


def refcount(obj):
    return obj.get_info(type(obj).__name__ == "CommandQueue" and cl.command_queue_info.REFERENCE_COUNT
                        or cl.mem_info.REFERENCE_COUNT)


@pytest.mark.parametrize("descending", [False, True], ids=["asc", "desc"])
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_sort_in_place(cl_queue, dtype, descending):
    sorter = clsort.Sorter(cl_queue)
    for n in (0, 1, 1000, 100003):
        a = make("specials", dtype, n, seed=n)
        d = cl_array.to_device(cl_queue, a)
        event = sorter.sort(d, descending=descending)
        assert isinstance(event, cl.Event)
        event.wait()
        assert_array_equal(bits(d.get()), bits(a[device_perm(a, descending)]), err_msg=f"n={n}")
        # The module function: a Sorter on the array's queue for the call.
        d = cl_array.to_device(cl_queue, a)
        clsort.sort(d, descending=descending).wait()
        assert_array_equal(bits(d.get()), bits(a[device_perm(a, descending)]), err_msg=f"n={n}")


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_sort_by_key_in_place(cl_queue, dtype):
    sorter = clsort.Sorter(cl_queue)
    for descending in (False, True):
        a = make("specials", dtype, 50021, seed=4)
        values = np.arange(a.size, dtype=np.uint32 if a.itemsize == 4 else np.uint64)
        dk, dv = cl_array.to_device(cl_queue, a), cl_array.to_device(cl_queue, values)
        sorter.sort_by_key(dk, dv, descending=descending).wait()
        perm = device_perm(a, descending)
        assert_array_equal(bits(dk.get()), bits(a[perm]))
        assert_array_equal(dv.get(), values[perm])
        # 8-byte values behind 4-byte keys and the other way round.
        other = np.arange(a.size, dtype=np.float64 if a.itemsize == 4 else np.int32)
        dk, dv = cl_array.to_device(cl_queue, a), cl_array.to_device(cl_queue, other)
        clsort.sort_by_key(dk, dv, descending=descending).wait()
        assert_array_equal(dv.get(), other[perm])


@pytest.mark.parametrize("values_dtype", [np.int8, np.int16, "S3", [("a", "<u4"), ("b", "<f4"), ("c", "<i4")],
                                          np.complex128, [("a", "<u4"), ("b", "<f8", (7,)), ("c", "u1", (4,))]],
                         ids=["1", "2", "3", "12", "16", "64"])
def test_sort_by_key_values_of_any_width_in_place(cl_queue, values_dtype):
    """Values the passes do not carry move once, through the permutation, in the caller's buffer."""
    a = make("few_unique", np.float32, 30011, seed=5)
    values = np.arange(a.size).astype(values_dtype)
    for descending in (False, True):
        dk, dv = cl_array.to_device(cl_queue, a), cl_array.to_device(cl_queue, values)
        clsort.sort_by_key(dk, dv, descending=descending).wait()
        perm = device_perm(a, descending)
        assert_array_equal(bits(dk.get()), bits(a[perm]))
        assert_array_equal(dv.get(), values[perm])


def test_waits_for_the_arrays_events_and_is_asynchronous(cl_queue):
    """The sort starts after the array's pending events and the call returns before it runs."""
    a = make("random", np.uint32, 200003, seed=9)
    d = cl_array.to_device(cl_queue, a)
    gate = cl.UserEvent(cl_queue.context)
    d.add_event(gate)
    sorter = clsort.Sorter(cl_queue)
    result = {}
    t = threading.Thread(target=lambda: result.setdefault("event", sorter.sort(d)))
    t.start()
    t.join(60)
    if t.is_alive():  # the call blocked on the gate: open it so that nothing hangs, then fail
        gate.set_status(cl.command_execution_status.COMPLETE)
        t.join()
        pytest.fail("clsort.Sorter.sort blocked on the array's pending event")
    event = result["event"]
    assert event.command_execution_status != cl.command_execution_status.COMPLETE
    gate.set_status(cl.command_execution_status.COMPLETE)
    event.wait()
    assert_array_equal(d.get(), np.sort(a))
    assert event in d.events


def test_sorter_reuse_and_references(cl_queue):
    d = cl_array.to_device(cl_queue, np.arange(100000, dtype=np.int64)[::-1].copy())
    d.finish()
    gc.collect()
    queue_refs, buffer_refs = refcount(cl_queue), refcount(d.base_data)
    sorter = clsort.Sorter(cl_queue)
    assert refcount(cl_queue) == queue_refs + 1  # the Sorter holds the queue
    assert sorter.queue is cl_queue
    assert sorter.device.int_ptr == cl_queue.device.int_ptr
    events = [sorter.sort(d, descending=bool(i % 2)) for i in range(6)]
    events[-1].wait()
    assert_array_equal(d.get(), np.arange(100000)[::-1])
    del sorter
    # Events outlive the Sorter that made them; pyopencl owns its reference.
    for e in events:
        e.wait()
        assert e.command_execution_status == cl.command_execution_status.COMPLETE
    # Events hold their queue: once they are gone too, no reference of clsort's to the queue or the
    # buffer is left.
    del events, e
    d.finish()
    gc.collect()
    assert refcount(cl_queue) == queue_refs
    assert refcount(d.base_data) == buffer_refs


def test_offsets_and_layouts(cl_queue):
    a = make("random", np.float32, 10000, seed=2)
    align = cl_queue.device.mem_base_addr_align // 8
    d = cl_array.to_device(cl_queue, a)
    tail = d[align // 4 * 8:]  # a view at an aligned byte offset
    clsort.sort(tail).wait()
    got = d.get()
    assert_array_equal(bits(got[: align // 4 * 8]), bits(a[: align // 4 * 8]))  # before the view: untouched
    assert_array_equal(got[align // 4 * 8:], np.sort(a[align // 4 * 8:]))
    if align > 4:
        d = cl_array.to_device(cl_queue, a)
        with pytest.raises(ValueError, match="sub-buffer"):
            clsort.sort(d[1:])
        assert_array_equal(bits(d.get()), bits(a))
    d = cl_array.to_device(cl_queue, a)
    with pytest.raises(ValueError, match="contiguous"):
        clsort.sort(d[::2])
    with pytest.raises(ValueError, match="1-D"):
        clsort.sort(d.reshape(100, 100))
    with pytest.raises(TypeError, match="complex64"):
        clsort.sort(cl_array.to_device(cl_queue, a.astype(np.complex64)))
    with pytest.raises(ValueError, match="device= does not apply"):
        clsort.sort(d, device="cpu")
    with pytest.raises(TypeError, match="both"):
        clsort.sort_by_key(d, a)
    with pytest.raises(TypeError, match="argsort"):
        clsort.argsort(d)
    assert_array_equal(bits(d.get()), bits(a))


def test_array_of_another_context(cl_queue):
    other_context = cl.Context([cl_queue.device])  # kept referenced: see conftest.cl_queue
    other = cl.CommandQueue(other_context)
    a = np.arange(1000, dtype=np.uint32)[::-1].copy()
    d = cl_array.to_device(other, a)
    with pytest.raises(clsort.Error) as e:
        clsort.Sorter(cl_queue).sort(d)
    assert e.value.kind == "invalid_argument" and e.value.status_name == "CL_INVALID_VALUE"
    assert "context" in str(e.value)
    assert_array_equal(d.get(), a)


def test_numpy_arrays_on_a_queue_sorter(cl_queue):
    sorter = clsort.Sorter(cl_queue)
    a = make("specials", np.float64, 30011, seed=1)
    assert_array_equal(bits(sorter.sort(a)), bits(a[clsort_perm(a, False)]))
    assert_array_equal(sorter.argsort(a, descending=True), clsort_perm(a, True))


def test_device_from_pyopencl(cl_queue):
    a = np.array([3, 1, 2], dtype=np.uint32)
    assert_array_equal(clsort.sort(a, device=cl_queue.device), [1, 2, 3])
