"""What clsort's results must be, from NumPy: NumPy's stable order, refined only where clsort documents a
finer one (floats: -0.0 before +0.0, NaNs among themselves by bit pattern), and the test data sets."""

import numpy as np

try:
    import ml_dtypes

    BFLOAT16 = np.dtype(ml_dtypes.bfloat16)
except ImportError:  # the package sorts bf16 keys only with ml_dtypes installed (test_keys.py checks)
    ml_dtypes = None
    BFLOAT16 = None

# Every key type of the library: NumPy's dtypes, and ml_dtypes' bfloat16 where it is installed.
DTYPES = [np.uint32, np.int32, np.float32, np.uint64, np.int64, np.float64, np.uint8, np.int8, np.uint16,
          np.int16, np.float16] + ([BFLOAT16] if BFLOAT16 is not None else [])
UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def is_bfloat16(dtype):
    return BFLOAT16 is not None and np.dtype(dtype) == BFLOAT16


def is_float(dtype):
    return np.dtype(dtype).kind == "f" or is_bfloat16(dtype)


def finfo(dtype):
    return ml_dtypes.finfo(dtype) if is_bfloat16(dtype) else np.finfo(dtype)


def numeric(a):
    """`a` where NumPy computes on it: bfloat16 as float32 (exact: the same values, NaNs and zeros)."""
    return a.astype(np.float32) if is_bfloat16(a.dtype) else a


def bits(x):
    """The bit patterns of an array, for bit-for-bit comparisons."""
    x = np.ascontiguousarray(x)
    return x.view(UINT[x.dtype.itemsize])


def numpy_stable_perm(a, descending):
    """NumPy's stable permutation: np.argsort(kind="stable"), or for descending what NumPy 2.5's
    np.argsort(stable=True, descending=True) returns: equal keys in input order, NaNs last."""
    a = numeric(a)
    if not descending:
        return np.argsort(a, kind="stable")
    n = len(a)
    # Descending with ties in input order: the reverse of a stable ascending sort of the reversed array.
    perm = (n - 1 - np.argsort(a[::-1], kind="stable"))[::-1]
    if a.dtype.kind == "f":
        k = int(np.count_nonzero(np.isnan(a)))  # they lead here, in input order
        perm = np.concatenate((perm[k:], perm[:k]))
    return np.ascontiguousarray(perm)


def _stable_within(perm, block, key):
    """Reorders perm[block] stably by key (an array over perm[block])."""
    idx = np.flatnonzero(block)
    if len(idx) > 1:
        perm[idx] = perm[idx][np.argsort(key, kind="stable")]


def clsort_perm(a, descending):
    """The permutation clsort must return: NumPy's, with its ties among zeros and among NaNs broken as
    clsort orders floats totally."""
    perm = numpy_stable_perm(a, descending).copy()
    if not is_float(a.dtype) or len(a) == 0:
        return perm
    b = bits(a)
    u = b.dtype.type
    sign = (b >> u(8 * b.itemsize - 1)).astype(bool)
    s = numeric(a)[perm]
    # The zeros are one run in NumPy's order: -0.0 first ascending, +0.0 first descending.
    zeros = s == 0
    zsign = sign[perm][zeros]
    _stable_within(perm, zeros, zsign if descending else ~zsign)
    # The NaNs are one run at the end: positive NaNs by bit pattern, then negative NaNs by bit pattern
    # from the largest (the key transform inverts negative values); descending reverses that.
    nans = np.isnan(s)
    nb, ns = b[perm][nans], sign[perm][nans]
    primary, secondary = ns, np.where(ns, ~nb, nb)
    if descending:  # the reverse order of distinct patterns; equal ones stay in input order
        primary, secondary = ~primary, ~secondary
    idx = np.flatnonzero(nans)
    perm[idx] = perm[idx][np.lexsort((secondary, primary))]  # lexsort is stable
    return perm


def device_perm(a, descending):
    """The order of pyopencl arrays on the device: descending is the library's exact reverse of ascending, so
    NaNs come first there."""
    perm = clsort_perm(a, descending)
    if descending and is_float(a.dtype):
        k = int(np.count_nonzero(np.isnan(numeric(a))))
        if k:
            perm = np.concatenate((perm[-k:], perm[:-k]))
    return perm


def expected_sort(a, descending):
    return a[clsort_perm(a, descending)]


# ---- Data sets: sizes and distributions, every dtype.

SIZES = [0, 1, 2, 3, 7, 31, 97, 1009, 2048, 2049, 4099, 65537, 300007]


def _random(rng, dtype, n):
    dtype = np.dtype(dtype)
    if is_float(dtype):
        return (rng.standard_normal(n) * 1e3).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, size=n, dtype=dtype, endpoint=True)


def _extremes(dtype):
    dtype = np.dtype(dtype)
    if is_float(dtype):
        f = finfo(dtype)
        return np.array([f.min, f.max, -f.tiny, f.tiny, -f.smallest_subnormal, f.smallest_subnormal, 0.0,
                         -0.0, -np.inf, np.inf, 1.0, -1.0], dtype=dtype)
    info = np.iinfo(dtype)
    return np.array([info.min, info.max, info.min + 1, info.max - 1, 0, 1], dtype=dtype)


def _float_specials(dtype):
    """±0, ±inf, NaNs of both signs with several payloads, subnormals of both signs."""
    dtype = np.dtype(dtype)
    u = UINT[dtype.itemsize]
    w = 8 * dtype.itemsize
    mant = finfo(dtype).nmant
    exp_all = ((1 << (w - 1 - mant)) - 1) << mant
    sign = 1 << (w - 1)
    patterns = [exp_all | (1 << (mant - 1)),  # the quiet NaN np.nan is
                exp_all | 1,  # a signalling NaN, payload 1
                exp_all | ((1 << mant) - 1),  # the largest payload
                exp_all | (1 << (mant - 1)) | 5]
    nans = [p for q in patterns for p in (q, q | sign)]
    subnormals = [1, 3, (1 << mant) - 1]
    subs = [p for q in subnormals for p in (q, q | sign)]
    zeros = [0, sign]
    infs = [exp_all, exp_all | sign]
    return np.array(nans + subs + zeros + infs, dtype=u).view(dtype)


def make(dist, dtype, n, seed):
    """n keys of `dtype` from distribution `dist`."""
    rng = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    if dist == "random":
        return _random(rng, dtype, n)
    if dist == "sorted":
        return np.sort(_random(rng, dtype, n))
    if dist == "reversed":
        return np.sort(_random(rng, dtype, n))[::-1].copy()
    if dist == "all_equal":
        return np.full(n, _random(rng, dtype, 1)[0] if n else 0, dtype=dtype)
    if dist == "few_unique":
        return rng.choice(_random(rng, dtype, 5), size=n)
    if dist == "extremes":
        return rng.choice(_extremes(dtype), size=n)
    if dist == "bits":  # every bit pattern equally likely: NaNs with any payload and subnormals for floats
        return rng.integers(0, np.iinfo(UINT[dtype.itemsize]).max, size=n, dtype=UINT[dtype.itemsize],
                            endpoint=True).view(dtype)
    if dist == "specials":  # random data with the special values of the type mixed in, a third of it
        x = _random(rng, dtype, n)
        sp = _float_specials(dtype) if is_float(dtype) else _extremes(dtype)
        where = rng.random(n) < 1 / 3
        x[where] = rng.choice(sp, size=int(where.sum()))
        return x
    raise ValueError(dist)


DISTRIBUTIONS = ["random", "sorted", "reversed", "all_equal", "few_unique", "extremes", "bits", "specials"]
