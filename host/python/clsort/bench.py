"""python -m clsort.bench: clsort against np.sort (and PyOpenCL's RadixSort when installed) on the default
device, top_k, partition, lexsort and sort_segments against their NumPy counterparts, and the Python call's
overhead over the C++ call. Medians of --reps timed runs after one warm-up; every clsort result is checked
against NumPy's."""

import argparse
import datetime
import platform
import statistics
import sys
import time

import numpy as np

import clsort

from ._keys import as_keys, key_row


def median_seconds(f, reps):
    f()  # warm-up: programs built or loaded, scratch allocated
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        f()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def keys(dtype, n, seed=1):
    rng = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    if key_row(dtype).is_float:
        return rng.standard_normal(n).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, size=n, dtype=dtype, endpoint=True)


def ms(s):
    return f"{s * 1e3:10.2f}"


def host_rows(dtypes, sizes, argsort_sizes, reps):
    print(f"{'op':8} {'dtype':8} {'n':>10} {'clsort ms':>10} {'numpy ms':>10} {'numpy/clsort':>12}  (NumPy reference)")
    for op, op_sizes in (("sort", sizes), ("argsort", argsort_sizes)):
        for dtype in dtypes:
            for n in op_sizes:
                a = keys(dtype, n)
                if op == "sort":
                    ours = median_seconds(lambda: clsort.sort(a), reps)
                    theirs = median_seconds(lambda: np.sort(a), reps)
                    ok = np.array_equal(clsort.sort(a), np.sort(a))
                    ref = "np.sort"
                else:
                    ours = median_seconds(lambda: clsort.argsort(a), reps)
                    theirs = median_seconds(lambda: np.argsort(a, kind="stable"), reps)
                    ok = np.array_equal(clsort.argsort(a), np.argsort(a, kind="stable"))
                    ref = 'np.argsort(kind="stable")'
                if not ok:
                    sys.exit(f"clsort.{op} of {np.dtype(dtype).name} n={n} differs from NumPy's")
                print(f"{op:8} {np.dtype(dtype).name:8} {n:10d} {ms(ours)} {ms(theirs)} {theirs / ours:12.2f}  ({ref})")


def np_top_k(a, k):
    """NumPy's fastest top_k with indices: argpartition, then a stable sort of the k picked."""
    p = np.argpartition(a, k - 1)[:k]
    return p[np.argsort(a[p], kind="stable")]


def partitioned_at(out, kth, ref):
    """`out` is a partition of the same keys as `ref` (np.partition's) at kth."""
    pivot = out[kth]
    return (pivot == ref[kth] and bool(np.all(out[:kth] <= pivot)) and bool(np.all(out[kth + 1:] >= pivot))
            and np.array_equal(np.sort(out), np.sort(ref)))


def operation_rows(dtypes, sizes, k, segment, reps):
    """The operations beyond sort, each against the fastest NumPy way to the same result."""
    print(f"\n{'op':22} {'dtype':8} {'n':>10} {'clsort ms':>10} {'numpy ms':>10} {'numpy/clsort':>12}  "
          "(NumPy reference)")
    for dtype in dtypes:
        for n in sizes:
            a = keys(dtype, n)
            kk = max(1, min(k, n))
            kth = n // 2
            rng = np.random.default_rng(2)
            major = keys(dtype, 1024, seed=3)[rng.integers(0, 1024, n)]  # ties, broken by the minor key
            minor = keys(dtype, n, seed=4)
            seg = min(segment, n)
            m = n // seg * seg
            offsets = np.arange(0, m + 1, seg)
            rows = (
                (f"top_k k={kk}", lambda: clsort.top_k(a, kk), lambda: np_top_k(a, kk),
                 lambda ours, theirs: np.array_equal(ours[0], a[theirs]) and np.array_equal(a[ours[1]], ours[0]),
                 "np.argpartition + stable sort of k"),
                ("partition kth=n/2", lambda: clsort.partition(a, kth), lambda: np.partition(a, kth),
                 lambda ours, theirs: partitioned_at(ours, kth, theirs), "np.partition"),
                ("lexsort 2 keys", lambda: clsort.lexsort((minor, major)), lambda: np.lexsort((minor, major)),
                 np.array_equal, "np.lexsort"),
                (f"sort_segments {seg}", lambda: clsort.sort_segments(a[:m], offsets),
                 lambda: np.sort(a[:m].reshape(-1, seg), axis=1).ravel(), np.array_equal,
                 f"np.sort(axis=1) of ({m // seg}, {seg})"),
            )
            for op, ours, theirs, same, ref in rows:
                t_ours = median_seconds(ours, reps)
                t_theirs = median_seconds(theirs, reps)
                if not same(ours(), theirs()):
                    sys.exit(f"clsort {op} of {np.dtype(dtype).name} n={n} differs from NumPy's")
                print(f"{op:22} {np.dtype(dtype).name:8} {n:10d} {ms(t_ours)} {ms(t_theirs)} "
                      f"{t_theirs / t_ours:12.2f}  ({ref})")


def overhead_rows(dtypes, n, reps):
    """clsort.sort(a) against the C++ call it wraps, Sorter::sort_copy_host from a into a new array, timed
    inside the extension with no Python in between: what is left is the binding's own cost (argument
    checks, the GIL). Both write into fresh memory, whose first writes fault its pages in (NumPy asks the
    kernel for huge pages for large arrays, plain new[] does not), and the C++ call into memory written
    before has no faults at all: the ratio is against the faster of the two C++ calls. One run of each per
    round, so that drift on a shared machine hits all alike."""
    print(f"\nPython over C++, n = {n}, medians of {reps} alternating rounds: clsort.sort(a) against "
          "Sorter::sort_copy_host timed in C++ (same Sorter) into a new array, and into one written before")
    print(f"{'dtype':8} {'python ms':>10} {'C++ new ms':>10} {'C++ reused':>10} {'python/C++':>10}  (the faster C++)")
    sorter = clsort._sort._sorter(None)
    for dtype in dtypes:
        a = keys(dtype, n)
        row = key_row(a.dtype)
        sorter.sort(a)
        py, cxx, reused = [], [], []
        for _ in range(reps):
            start = time.perf_counter()
            sorter.sort(a)
            py.append(time.perf_counter() - start)
            cxx += sorter._impl.time_sort_copy(row.type, as_keys(row, a), 1, True)
            reused += sorter._impl.time_sort_copy(row.type, as_keys(row, a), 1, False)
        p, c, r = statistics.median(py), statistics.median(cxx), statistics.median(reused)
        print(f"{np.dtype(dtype).name:8} {ms(p)} {ms(c)} {ms(r)} {p / min(c, r):10.3f}")


def pyopencl_rows(sizes, reps):
    try:
        import pyopencl as cl
        import pyopencl.array as cl_array
        from pyopencl.algorithm import RadixSort
    except ImportError as e:  # RadixSort needs Mako besides pyopencl
        print(f"\nno RadixSort rows: {str(e).splitlines()[0]} (pip install pyopencl mako)")
        return
    device = cl.Device.from_int_ptr(clsort.default_device().int_ptr)
    context = cl.Context([device])
    queue = cl.CommandQueue(context)
    sorter = clsort.Sorter(queue)
    radix = RadixSort(context, "unsigned int *keys", key_expr="keys[i]", sort_arg_names=["keys"],
                      key_dtype=np.uint32)
    print("\nKeys on the device (uint32), each sort waited for: clsort.Sorter(queue).sort(array) against "
          "pyopencl.algorithm.RadixSort")
    print(f"{'n':>10} {'clsort ms':>10} {'RadixSort ms':>12} {'RadixSort/clsort':>16}")
    for n in sizes:
        a = keys(np.uint32, n)
        d = cl_array.to_device(queue, a)

        def ours():
            d.set(a)
            sorter.sort(d).wait()

        def theirs():
            d.set(a)
            (out,), event = radix(d, key_bits=32)
            event.wait()
            return out

        upload = median_seconds(lambda: (d.set(a), queue.finish()), reps)
        t_ours = median_seconds(ours, reps) - upload
        ok = np.array_equal(d.get(), np.sort(a))
        t_theirs = median_seconds(theirs, reps) - upload
        ok = ok and np.array_equal(theirs().get(), np.sort(a))
        if not ok:
            sys.exit(f"a device sort of n={n} differs from np.sort")
        print(f"{n:10d} {ms(t_ours)} {ms(t_theirs):>12} {t_theirs / t_ours:16.2f}")


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m clsort.bench", description=__doc__)
    p.add_argument("--sizes", default="16,20,24", help="log2 of n for the host rows (default 16,20,24)")
    p.add_argument("--dtypes", default="uint32,float32,uint64,float64")
    p.add_argument("--argsort-sizes", default="16,20", help="log2 of n for the argsort rows (default 16,20)")
    p.add_argument("--ops-sizes", default="20", help="log2 of n for the top_k, partition, lexsort and "
                   "sort_segments rows (default 20)")
    p.add_argument("--top-k", type=int, default=1024, help="k of the top_k rows (default 1024)")
    p.add_argument("--segment", type=int, default=256, help="keys per segment of the sort_segments rows (default 256)")
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--overhead-n", type=int, default=24, help="log2 of n for the overhead rows")
    p.add_argument("--device-sizes", default="20,22", help="log2 of n for the device rows")
    args = p.parse_args(argv)
    sizes = [1 << int(s) for s in args.sizes.split(",") if s]
    dtypes = [np.dtype(d) for d in args.dtypes.split(",") if d]
    d = clsort.default_device()
    print(f"clsort {clsort.__version__}, NumPy {np.__version__}, Python {platform.python_version()}, "
          f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC")
    print(f"device: {d.name} ({d.platform}, {d.type}, {d.compute_units} compute units); "
          f"{clsort.default_device_reason()}")
    s = clsort._sort._sorter(None)
    print("automatic picks: " + ", ".join(f"n=2^{n.bit_length() - 1}: {s.plan(np.uint32, n)['algorithm']}"
                                          for n in sizes))
    print()
    host_rows(dtypes, sizes, [1 << int(s) for s in args.argsort_sizes.split(",") if s], args.reps)
    operation_rows(dtypes, [1 << int(s) for s in args.ops_sizes.split(",") if s], args.top_k, args.segment, args.reps)
    overhead_rows([np.dtype(np.uint32), np.dtype(np.float32)], 1 << args.overhead_n, 2 * args.reps + 1)
    pyopencl_rows([1 << int(s) for s in args.device_sizes.split(",") if s], args.reps)


if __name__ == "__main__":
    main()
