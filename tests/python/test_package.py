"""The package: its version is the library's, devices, the GIL released while a sort runs, threads."""

import importlib.metadata
import pathlib
import re
import threading
import time

import numpy as np
import pytest
from numpy.testing import assert_array_equal

import clsort

REPO = pathlib.Path(__file__).resolve().parents[2]


def test_version_is_the_library_version():
    project = re.search(r"project\(clsort\s+VERSION\s+([0-9.]+)", (REPO / "CMakeLists.txt").read_text())
    assert clsort.__version__ == project.group(1)
    assert importlib.metadata.version("clsort") == clsort.__version__


def test_devices():
    devices = clsort.devices()
    assert devices and all(isinstance(d, clsort.Device) for d in devices)
    default = clsort.default_device()
    assert default in devices
    assert default != None and default != default.name  # noqa: E711  (other types compare unequal)
    assert default.type in ("GPU", "CPU", "ACCELERATOR", "OTHER") and default.name and default.platform
    assert default.name in repr(default)
    # device= takes a Device and resolves to the same Sorter as the spec naming it.
    a = np.array([2.0, 1.0])
    assert_array_equal(clsort.sort(a, device=default), [1.0, 2.0])
    assert_array_equal(clsort.Sorter(device=default).sort(a), [1.0, 2.0])
    plan = clsort.Sorter(device=default).plan(np.uint32, 1 << 20)
    assert plan["algorithm"] in clsort.ALGORITHMS and plan["shape"]


def test_gil_is_released_while_sorting():
    """While one thread sorts, another keeps running: its longest pause is far below the sort's time."""
    a = np.random.default_rng(0).integers(0, 2**63, size=1 << 23, dtype=np.uint64)
    sorter = clsort.Sorter()
    start = time.perf_counter()
    sorter.sort(a)  # warm: programs built and scratch allocated
    took = time.perf_counter() - start
    done = threading.Event()
    t = threading.Thread(target=lambda: (sorter.sort(a), done.set()))
    gaps, last = [], time.perf_counter()
    t.start()
    while not done.is_set():
        now = time.perf_counter()
        gaps.append(now - last)
        last = now
        time.sleep(0.001)
    t.join()
    # Holding the GIL through the sort would stall this loop for about `took` (the copy of the keys
    # before the sort holds it, a small part of the whole).
    assert len(gaps) > 5 and max(gaps) < took / 2, (max(gaps), took)


def test_threads_share_and_own_sorters():
    rng = np.random.default_rng(1)
    data = [rng.random(200003 + i).astype(np.float32) for i in range(6)]
    results = [None] * len(data)
    own = [None] * len(data)

    def work(i):
        results[i] = clsort.sort(data[i])  # the shared default Sorter: calls are serialized
        own[i] = clsort.Sorter().argsort(data[i], descending=True)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(data))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i, a in enumerate(data):
        assert_array_equal(results[i], np.sort(a))
        assert_array_equal(a[own[i]], np.sort(a)[::-1])


def test_scratch_kept_and_released():
    """A Sorter keeps scratch between calls, gives back that of earlier calls past keep_scratch, and all of it
    on request; sorts stay right with nothing kept."""
    rng = np.random.default_rng(3)
    a = rng.integers(0, 2**32, 1 << 16, dtype=np.uint32)
    keeping, trimming = clsort.Sorter(), clsort.Sorter()
    trimming.keep_scratch(0)
    for s in (keeping, trimming):
        s.top_k(a, 100)
        assert s.scratch_bytes > 0
        assert_array_equal(s.argsort(a), np.argsort(a, kind="stable"))
    assert trimming.scratch_bytes < keeping.scratch_bytes  # top_k's buffers went
    trimming.release_scratch()
    assert trimming.scratch_bytes == 0
    assert_array_equal(trimming.sort(a), np.sort(a))
    with pytest.raises(TypeError):
        trimming.keep_scratch(1.5)
