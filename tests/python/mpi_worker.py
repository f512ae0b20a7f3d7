"""The checks of clsort.mpi, run on every rank under mpirun by test_mpi.py (not collected by pytest).

Every check runs on all ranks; rank 0 gathers inputs and results and compares them with reference.py's
clsort order, and the verdict is shared, so that a failure stops every rank at once (never a hang). Prints
"clsort.mpi worker: P ranks ok" on rank 0 when all checks passed; exits 1 otherwise."""

import os
import sys
import traceback

import numpy as np
from mpi4py import MPI

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference  # noqa: E402

import clsort  # noqa: E402
import clsort.mpi  # noqa: E402

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()


def shared(ok, what):
    """Raises on every rank unless `ok` holds on every rank."""
    if not comm.allreduce(bool(ok), op=MPI.LAND):
        raise AssertionError(what)


def counts(n_total, layout):
    """Each rank's count of n_total keys: 'even', 'uneven' (some ranks empty), 'one' (all on the last)."""
    if layout == "even":
        return [n_total // size + (r < n_total % size) for r in range(size)]
    if layout == "one":
        return [0] * (size - 1) + [n_total]
    w = [(r * 7 + 3) % 5 for r in range(size)]  # 3, 0, 2, ...: rank 1 empty
    if sum(w) == 0:
        w = [1] * size
    c = [n_total * x // sum(w) for x in w]
    c[0] += n_total - sum(c)
    return c


def share(global_array, layout):
    c = counts(len(global_array), layout)
    o = sum(c[:rank])
    return global_array[o:o + c[rank]].copy()


def check_sort(dtype, dist, n_total, layout, descending, seed):
    g = reference.make(dist, dtype, n_total, seed)  # the same on every rank: the global input
    mine = share(g, layout)
    before = mine.copy()
    out = clsort.mpi.sort(comm, mine, descending=descending)
    what = f"sort {np.dtype(dtype).name} {dist} n={n_total} {layout} descending={descending}"
    shared(len(out) == len(mine) and out.dtype == mine.dtype, what + ": count or dtype changed")
    shared(np.array_equal(reference.bits(mine), reference.bits(before)), what + ": the input changed")
    got = comm.gather(out, root=0)
    ok = True
    if rank == 0:
        ok = np.array_equal(reference.bits(np.concatenate(got)), reference.bits(reference.expected_sort(g, descending)))
    shared(comm.bcast(ok, root=0), what + ": not the stable sort of the input")


def check_sort_by_key(dtype, dist, n_total, layout, descending, values_dtype, seed):
    g = reference.make(dist, dtype, n_total, seed)
    gv = np.arange(n_total, dtype=np.int64)  # the global positions: stability shows in them
    if values_dtype is not None:  # a value of another width carrying the position in its first bytes
        raw = np.zeros(n_total, dtype=values_dtype)
        w = min(raw.dtype.itemsize, 4)  # 3 bytes hold the positions of up to 2^24 keys
        raw.view(np.uint8).reshape(n_total, -1)[:, :w] = gv.astype("<u4").view(np.uint8).reshape(n_total, 4)[:, :w]
        gv = raw
    keys, values = share(g, layout), share(gv, layout)
    k, v = clsort.mpi.sort_by_key(comm, keys, values, descending=descending)
    what = f"sort_by_key {np.dtype(dtype).name} {dist} n={n_total} {layout} values={gv.dtype} descending={descending}"
    shared(len(k) == len(keys) and len(v) == len(values) and v.dtype == gv.dtype, what + ": counts changed")
    got_k, got_v = comm.gather(k, root=0), comm.gather(v, root=0)
    ok = True
    if rank == 0:
        perm = reference.clsort_perm(g, descending)
        ok = np.array_equal(reference.bits(np.concatenate(got_k)), reference.bits(g[perm])) and np.array_equal(
            np.concatenate(got_v).view(np.uint8), gv[perm].view(np.uint8))
    shared(comm.bcast(ok, root=0), what + ": not the stable sort (values out of input order)")


def check_errors():
    # Keys of another dtype on one rank: the library's collective check, clsort.Error on every rank.
    if size > 1:
        keys = np.arange(10, dtype=np.uint32 if rank == 0 else np.float32)
        try:
            clsort.mpi.sort(comm, keys)
            raised = None
        except Exception as e:  # noqa: BLE001
            raised = e
        shared(isinstance(raised, clsort.Error), f"mixed key dtypes: {raised!r}, not clsort.Error")
    # A Python-side refusal on the last rank (2-D keys): ValueError there, clsort.Error naming it elsewhere.
    keys = np.zeros((2, 3) if rank == size - 1 else 6, dtype=np.int32)
    try:
        clsort.mpi.sort(comm, keys)
        raised = None
    except Exception as e:  # noqa: BLE001
        raised = e
    if rank == size - 1:
        shared(isinstance(raised, ValueError), f"2-D keys: {raised!r}, not ValueError")
    else:
        shared(isinstance(raised, clsort.Error) and f"rank {size - 1} of {size}" in str(raised),
               f"2-D keys elsewhere: {raised!r}")
    # Values of another length on rank 0.
    keys = np.arange(5, dtype=np.int64)
    values = np.arange(4 if rank == 0 else 5, dtype=np.int64)
    try:
        clsort.mpi.sort_by_key(comm, keys, values)
        raised = None
    except Exception as e:  # noqa: BLE001
        raised = e
    shared(isinstance(raised, (ValueError, clsort.Error)), f"values of another length: {raised!r}")
    # Unsupported key dtype, object values, masked keys or values, a non-communicator.
    masked = np.ma.masked_array(np.arange(3), mask=[False, True, False])
    for bad, exc in ((lambda: clsort.mpi.sort(comm, np.array(["a"])), TypeError),
                     (lambda: clsort.mpi.sort(comm, masked), TypeError),
                     (lambda: clsort.mpi.sort_by_key(comm, masked, np.arange(3)), TypeError),
                     (lambda: clsort.mpi.sort_by_key(comm, np.arange(3), masked), TypeError),
                     (lambda: clsort.mpi.sort_by_key(comm, np.arange(3), np.array([1, "x", None], dtype=object)),
                      TypeError),
                     (lambda: clsort.mpi.sort(object(), np.arange(3)), TypeError)):
        try:
            bad()
            raised = None
        except Exception as e:  # noqa: BLE001
            raised = e
        shared(isinstance(raised, exc), f"refusal: {raised!r}, not {exc.__name__}")


def main():
    seed = 49
    checks = []
    for dtype in (np.uint8, np.float16, np.float32, np.int64):
        for dist, layout in (("random", "uneven"), ("specials", "even"), ("few_unique", "one")):
            for descending in (False, True):
                checks.append((check_sort, (dtype, dist, 3001, layout, descending, seed)))
                seed += 1
    if reference.BFLOAT16 is not None:
        checks.append((check_sort, (reference.BFLOAT16, "specials", 999, "uneven", True, seed)))
    checks.append((check_sort, (np.float64, "bits", 2000, "uneven", True, 7)))
    checks.append((check_sort, (np.uint32, "random", 0, "even", False, 1)))  # empty everywhere
    checks.append((check_sort, (np.int32, "random", 1, "one", False, 2)))
    for dtype in (np.uint32, np.float32, np.uint8):
        for descending in (False, True):
            checks.append((check_sort_by_key, (dtype, "few_unique", 4000, "uneven", descending, None, seed)))
            seed += 1
    checks.append((check_sort_by_key, (np.float16, "specials", 2500, "one", True, "V3", 3)))
    checks.append((check_sort_by_key, (np.int64, "all_equal", 3000, "even", False, np.dtype("u2,u4,u1"), 4)))
    checks.append((check_sort_by_key, (np.int16, "all_equal", 3000, "even", True, "V12", 5)))
    checks.append((check_errors, ()))
    checks.append((check_with_sorter, ()))
    for f, args in checks:
        f(*args)
    if rank == 0:
        print(f"clsort.mpi worker: {size} ranks ok ({len(checks)} checks)", flush=True)


def check_with_sorter():
    sorter = clsort.Sorter(device=clsort.mpi.local_device(comm))
    g = reference.make("random", np.float32, 5000, 11)
    out = clsort.mpi.sort(comm, share(g, "uneven"), sorter=sorter)
    got = comm.gather(out, root=0)
    expected = reference.expected_sort(g, False)
    ok = rank != 0 or np.array_equal(reference.bits(np.concatenate(got)), reference.bits(expected))
    shared(comm.bcast(ok, root=0), "sort with a clsort.Sorter")


if __name__ == "__main__":
    try:
        main()
    except Exception:  # noqa: BLE001
        traceback.print_exc()
        sys.stdout.flush()
        sys.stderr.flush()
        if size > 1:
            comm.Abort(1)  # a failure on one rank alone must not leave the others waiting
        sys.exit(1)
