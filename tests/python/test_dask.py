"""clsort.dask: a Dask DataFrame sorted on a two-process LocalCluster, each worker's partitions by clsort,
against pandas' stable sort_values of the computed frame (values and index order); and sort_partition on
pandas frames alone, against the same, for the dtypes it sorts and those it leaves to pandas."""

import numpy as np
import pytest

pd = pytest.importorskip("pandas", reason="clsort.dask needs pandas (pip install 'clsort[dask]')")
pytest.importorskip("dask.dataframe", reason="clsort.dask needs dask[dataframe] (pip install 'clsort[dask]')")

import clsort.dask as cd  # noqa: E402


def frame(n=4000, seed=5):
    """Ties in every column; NaNs (and -0.0 beside +0.0) in the float column; a shuffled index."""
    rng = np.random.default_rng(seed)
    f = np.round(rng.standard_normal(n), 1)
    f[rng.random(n) < 0.1] = np.nan
    f[:20] = -0.0
    return pd.DataFrame(
        {
            "i": rng.integers(-50, 50, n, dtype=np.int64),
            "f": f,
            "u": rng.integers(0, 4, n).astype(np.uint32),
            "b": rng.random(n) < 0.5,
            "t": pd.to_datetime(rng.integers(0, 30, n), unit="D"),
            "s": rng.integers(0, 20, n).astype(str),
        },
        index=rng.permutation(n) * 3,
    )


def expect(df, by, ascending, na_position="last"):
    return df.sort_values(by, ascending=ascending, na_position=na_position, kind="stable")


CASES = [
    ("i", True), ("i", False), ("f", True), ("f", False),
    (["i", "f"], True), (["f", "i"], False), (["i", "f"], [False, True]),
]


@pytest.mark.parametrize("na_position", ["last", "first"])
@pytest.mark.parametrize("by,ascending", CASES + [("u", False), ("b", True), (["b", "u", "f"], [True, False, True])])
def test_sort_partition_is_pandas_stable_sort(by, ascending, na_position):
    df = frame()
    df.loc[df.index[:9], "t"] = pd.NaT
    got = cd.sort_partition(df, by, ascending, na_position)
    pd.testing.assert_frame_equal(got, expect(df, by, ascending, na_position))
    assert cd.sort_permutation(df, by, ascending, na_position) is not None  # clsort's, not pandas'


@pytest.mark.parametrize("by,ascending", [("t", False), (["t", "i"], [True, False])])
def test_sort_partition_datetimes_with_nat(by, ascending):
    df = frame()
    df.loc[df.index[:9], "t"] = pd.NaT
    pd.testing.assert_frame_equal(cd.sort_partition(df, by, ascending), expect(df, by, ascending))


@pytest.mark.parametrize("by", ["s", ["s", "i"], ["i", "s"]])
def test_sort_partition_leaves_strings_to_pandas(by):
    df = frame(500)
    assert cd.sort_permutation(df, by) is None
    pd.testing.assert_frame_equal(cd.sort_partition(df, by, False), expect(df, by, False))


def test_sort_partition_takes_pandas_keywords():
    df = frame(300)
    got = cd.sort_partition(df, "i", True, key=lambda s: s.abs())
    pd.testing.assert_frame_equal(got, df.sort_values("i", key=lambda s: s.abs(), kind="stable"))


def test_sort_partition_small_frames():
    for n in (0, 1, 2):
        df = frame(n)
        pd.testing.assert_frame_equal(cd.sort_partition(df, ["i", "f"], False), expect(df, ["i", "f"], False))


@pytest.fixture(scope="module")
def client():
    distributed = pytest.importorskip("distributed", reason="the cluster test needs distributed")
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, memory_limit=0
    ) as cluster, distributed.Client(cluster) as c:
        yield c


def cluster_frame(n=4000, seed=7):
    """Unique int64 keys and float64 keys unique but for their NaNs: Dask's sort is not stable across
    partitions (its shuffle does not keep the input's order of equal keys, with pandas' sort_values as the
    sort_function too), so only rows of equal keys may come in another order than pandas' stable sort."""
    rng = np.random.default_rng(seed)
    f = rng.standard_normal(n)
    f[rng.random(n) < 0.1] = np.nan
    i = rng.permutation(n).astype(np.int64) * 7 - 3 * n
    return pd.DataFrame({"i": i, "f": f, "s": (i % 10).astype(str)}, index=rng.permutation(n) * 3)


def assert_sorted_like_pandas(got, df, by, ascending):
    exp = expect(df, by, ascending)
    cols = [by] if isinstance(by, str) else by
    if not exp.duplicated(cols).any():
        pd.testing.assert_frame_equal(got, exp)  # one order only: values and index order
        return
    # Ties (NaNs): the same keys in the same order, and the same rows (their order among equal keys is Dask's).
    pd.testing.assert_frame_equal(got[cols].reset_index(drop=True), exp[cols].reset_index(drop=True))
    pd.testing.assert_frame_equal(got.sort_index(), df.sort_index())


@pytest.mark.parametrize("by,ascending", CASES)
def test_dask_sort_values_on_a_cluster(client, by, ascending):
    import dask.dataframe as dd

    ddf = dd.from_pandas(cluster_frame(), npartitions=5)
    out = cd.sort_values(ddf, by, ascending=ascending)
    assert out.npartitions == 5
    assert_sorted_like_pandas(out.compute(), ddf.compute(), by, ascending)
    # The partitions were sorted on the workers (not here), which loaded clsort's extension to do so; the
    # scheduler may have given all of them to one of the two.
    loaded = client.run(lambda: __import__("sys").modules.get("clsort._clsort") is not None)
    assert len(loaded) == 2 and any(loaded.values())


def test_dask_sort_values_falls_back_for_strings(client):
    import dask.dataframe as dd

    ddf = dd.from_pandas(cluster_frame(2000), npartitions=4)
    got = cd.sort_values(ddf, ["s", "i"], ascending=[False, True]).compute()
    assert_sorted_like_pandas(got, ddf.compute(), ["s", "i"], [False, True])


def test_import_error_names_the_extra(monkeypatch):
    import builtins
    import importlib
    import sys

    real = builtins.__import__

    def no_dask(name, *args, **kwargs):
        if name == "dask" or name.startswith("dask."):
            raise ImportError(f"No module named {name!r}")
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_dask)
    monkeypatch.delitem(sys.modules, "clsort.dask")
    with pytest.raises(ImportError, match=r"clsort\[dask\]"):
        importlib.import_module("clsort.dask")
