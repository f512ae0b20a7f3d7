"""python -m clsort.bench at a tiny size: every row runs, its result checked against NumPy's (the bench
exits with a message on a difference), including the operation rows (top_k, partition, lexsort,
sort_segments)."""

import re

import clsort.bench


def test_bench_rows_at_a_tiny_size(capsys):
    clsort.bench.main(["--sizes", "10", "--argsort-sizes", "10", "--ops-sizes", "9,12", "--dtypes",
                       "uint32,float64", "--reps", "1", "--overhead-n", "10", "--device-sizes", "",
                       "--top-k", "16", "--segment", "64"])
    out = capsys.readouterr().out
    for op in ("sort", "argsort", "top_k k=16", "partition kth=n/2", "lexsort 2 keys", "sort_segments 64"):
        for dtype in ("uint32", "float64"):
            assert re.search(rf"^{re.escape(op)} +{dtype} ", out, re.M), (op, dtype, out)
    assert re.search(r"^sort_segments 64 +uint32 +4096 .*\(np\.sort\(axis=1\) of \(64, 64\)\)$", out, re.M), out
    assert "Python over C++" in out


def test_bench_operation_rows_clamp_k_and_segment(capsys):
    clsort.bench.operation_rows([clsort.bench.np.dtype("int64")], [8], k=100, segment=256, reps=1)
    out = capsys.readouterr().out
    assert "top_k k=8 " in out and "sort_segments 8 " in out
