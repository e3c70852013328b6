"""Additive noise masking (sdcMicro 5.8.1 ``addNoise``, ``R/addNoise.r``) and an exact
moment-preserving variant.

Methods, for numeric columns ``x`` (sample means / standard deviations / covariance ``Sigma``,
denominator n - 1 as in R):

- ``"additive"``: ``x + N(0, (noise/100 * sd(x))^2)`` per column (sdcMicro's default
  ``noise = 150``);
- ``"correlated"`` (Kim 1986): ``x + N(0, noise/100 * Sigma)``: the noise has the covariance
  structure of the data, so correlations are kept in expectation;
- ``"correlated2"``: ``x sqrt(1 - d^2) + d N(mean(x) (1 - sqrt(1 - d^2)) / d, sd(x)^2)``,
  ``d = delta`` (default 0.1): means and variances kept in expectation only;
- ``"moments"`` (ours): correlated noise, then the noisy data are *recoloured* so that the
  released means and covariance matrix equal the originals exactly (to rounding):
  ``Y = mean(x) + (Z - mean(Z)) S_Z^{+1/2} Sigma^{1/2}`` with symmetric square roots on the
  range of ``Sigma``. The correlated noise lies in the range of ``Sigma``, so an exact linear
  relation between columns (census: PTOTVAL = PEARNVAL + POTHVAL, a singular ``Sigma``) is
  kept by the noise and by the recolouring.

Normal draws come from :mod:`polars_sdc.rng`: latent dimension ``j`` (one per column, in ``on``
order) uses stream ``f"add_noise/{column_j}"``, keyed by row position or ``key``.

``by``: every moment above is the stratum's (its sds, covariance, means; ``"moments"``
reproduces each stratum's means and covariance exactly), with the same per-row draws, so a
stratum noised on its own with ``key=`` gives the same values. A stratum needs 2 rows (a
standard deviation), ``p + 2`` for ``"moments"`` on ``p`` columns; a smaller one is an error
naming it. Without ``by`` a one-row frame is returned unchanged by the other methods, and
``"moments"`` refuses any frame of 1 to ``p + 1`` rows.

Why ``"moments"`` needs ``n >= p + 2`` rows: with ``n <= p + 1`` the centred records span (at
most) the whole ``n - 1``-dimensional space of centred columns, so every release with the exact
means and covariance is the original records after a linear map that keeps the covariance
(``y_i - mean = R' (x_i - mean)``, ``R' Sigma R = Sigma``): all pairwise Mahalanobis distances
between the records are kept, 2 rows come back as the originals up to their order
(``{10, 50} -> {10, 50}``), and one known value of one record is enough to undo the map for
every record. The noise then protects nothing; the call refuses instead.

A constant column (``c = 0.1`` in every row of the frame or stratum) is released unchanged and
left out of the recolouring: its rounded mean ``0.09999999999999999`` is not a spread to
standardise by, and the other columns' means and covariance stay exact.

Structural nulls (a child's income) stay null: ``"additive"`` and ``"correlated2"`` act column
by column on the non-null values, ``"correlated"`` and ``"moments"`` on each null pattern (the
set of non-null ``on`` columns of a row) as a stratum, so ``"moments"`` reproduces the mean and
variance of every column over its non-null values and the covariance of two columns over the
rows where both are non-null. ``household=``: household-level columns are noised on one row per
household and broadcast (:mod:`polars_sdc.household`).
"""
from __future__ import annotations

import math
import os
from collections.abc import Sequence
from typing import Any

import numpy as np
import polars as pl

from .. import rng
from .._columns import ColumnSpec, check_finite
from .._errors import SDCError
from .._validation import check_real
from ._common import (check_fraction, check_seed, frame_keys, normal, null_patterns, on_by_household, seed_or_fresh,
                      strata)

METHODS = ("additive", "correlated", "correlated2", "moments")


def _psd_root(S: np.ndarray, inverse: bool = False, rtol: float = 1e-12) -> np.ndarray:
    """Symmetric square root of a PSD matrix (or the pseudo-inverse root), eigenvalues below
    ``rtol * max`` treated as 0."""
    w, V = np.linalg.eigh((S + S.T) / 2)
    keep = w > rtol * max(float(w.max()), 0.0) if w.size else w > 0
    d = np.zeros_like(w)
    d[keep] = (1.0 / np.sqrt(w[keep])) if inverse else np.sqrt(w[keep])
    return (V * d) @ V.T


def _latent(seed: int, cols: list[str], keys: np.ndarray) -> np.ndarray:
    """Standard normal draws, one column per ``on`` column (stream ``add_noise/{column}``); on
    large frames the columns are drawn on threads (the kernel releases the GIL; the values do
    not depend on it)."""
    Z = np.empty((keys.shape[0], len(cols)), order="F")          # column-major throughout
    workers = min(len(cols), os.cpu_count() or 1)
    if keys.shape[0] < 200_000 or workers < 2:
        for j, c in enumerate(cols):
            normal(seed, rng.stream("add_noise", column=c), keys, out=Z[:, j])
        return Z
    from concurrent.futures import ThreadPoolExecutor

    keys = np.ascontiguousarray(keys, dtype=np.uint64)
    with ThreadPoolExecutor(workers) as pool:
        list(pool.map(lambda j: normal(seed, rng.stream("add_noise", column=cols[j]), keys, out=Z[:, j]), range(len(cols))))
    return Z


def _cov(X: np.ndarray, block: int = 1 << 20) -> tuple[np.ndarray, np.ndarray]:
    """Mean and sample covariance (n - 1), centred, in row blocks (no n x p temporary)."""
    n, p = X.shape
    mu = X.mean(axis=0)
    S = np.zeros((p, p))
    for i in range(0, n, block):
        B = X[i:i + block] - mu
        S += B.T @ B
    return mu, S / max(n - 1, 1)


def moments_matrix(G: np.ndarray, p: int, a: float, constant: np.ndarray | None = None) -> np.ndarray:
    """``M'`` of the ``"moments"`` release ``Y = [X - mean, Z - mean] M + mean(X)`` from the
    joint covariance ``G`` (2p x 2p) of ``[X, Z]`` (see :func:`_recolour`; Spark computes ``G``
    by an aggregation and applies the same matrix). ``constant``: the columns whose values are
    all equal; their rows and columns of ``G`` are zero (a rounding residue of a mean is no
    spread), so they neither receive nor give noise (the caller writes their value back)."""
    if constant is not None and constant.any():
        G = G.copy()
        drop = np.flatnonzero(constant)
        G[drop, :] = 0.0
        G[:, drop] = 0.0
    d = np.sqrt(np.diag(G)[:p])
    d[~(d > 0)] = 1.0                            # scale-free: no overflow, Sigma well conditioned
    S = G[:p, :p] / np.outer(d, d)
    root = _psd_root(S)
    A = math.sqrt(a) * root                      # noise N(0, a Sigma), inside the range of Sigma
    Gxz = G[:p, p:] / d[:, None]
    Sz = S + Gxz @ A + A.T @ Gxz.T + A.T @ G[p:, p:] @ A
    T = _psd_root(Sz, inverse=True) @ root
    return np.ascontiguousarray(np.vstack([T * d / d[:, None], (A @ T) * d]).T)


def constant_columns(X: np.ndarray) -> np.ndarray:
    """Which columns of ``X`` hold one value in every row (bool per column).

    >>> constant_columns(np.array([[0.1, 1.0], [0.1, 2.0]]))
    array([ True, False])
    """
    if X.shape[0] == 0:
        return np.zeros(X.shape[1], dtype=bool)
    return X.min(axis=0) == X.max(axis=0)


def moments_rows_error(n: int, p: int, where: str = "the frame") -> SDCError | None:
    """The error for a ``"moments"`` release of ``n`` rows on ``p`` columns when exact moments
    pin the records (``1 <= n <= p + 1``; see the module docstring), else None.

    >>> print(moments_rows_error(2, 2))
    the frame: 2 row(s); add_noise method='moments' on 2 column(s) needs at least 4 rows (with n <= columns + 1 the exact means and covariance give the records back up to a covariance-keeping linear map: 2 rows come back unchanged up to their order)
    """
    from ..household import row_unit

    if n < 1 or n >= p + 2:
        return None
    return SDCError(f"{where}: {n} {row_unit()}(s); add_noise method='moments' on {p} column(s) needs at least "
                    f"{p + 2} {row_unit(True)} (with n <= columns + 1 the exact means and covariance give the records "
                    f"back up to a covariance-keeping linear map: 2 {row_unit(True)} come back unchanged up to their "
                    "order)")


def _recolour(X: np.ndarray, Z: np.ndarray, a: float, block: int = 1 << 16) -> np.ndarray:
    """The ``"moments"`` release ``(X D^-1 + Z A - mean) T D + mean(X)`` folded into one
    product: ``D`` the sds, ``A = sqrt(a) Sigma^{1/2}`` (``Sigma``: covariance of the
    standardised ``X``), ``T = S_Z^{+1/2} Sigma^{1/2}`` with ``S_Z`` the covariance of the noisy
    standardised data, found from the joint covariance ``G`` of ``[X, Z]`` (``S_Z = Sigma +
    Gxz A + A' Gzx + A' Gzz A``) instead of from a materialised noisy copy. Two passes over the
    centred row blocks ``B = [X - mean, Z - mean]``: ``G += B'B``, then ``Y = B M + mean(X)``
    with ``M = [D^-1 T D; A T D]`` (BLAS on blocks: no n x p temporary)."""
    n, p = X.shape
    mu = np.concatenate([X.mean(axis=0), Z.mean(axis=0)])
    B = np.empty((min(block, n), 2 * p), order="F")   # column-major like X, Z: plain column copies
    # the rounding residue of the means, removed in the centred scale (a nearly constant column,
    # 0.1 + k 1e-12: its mean's last bit is 1e-5 of its spread)
    resid = np.zeros(p)
    for i in range(0, n, block):
        resid += (X[i:i + block] - mu[:p]).sum(axis=0)
    resid /= max(n, 1)

    def centred(i: int) -> np.ndarray:
        m = min(block, n - i)
        np.subtract(X[i:i + m], mu[:p], out=B[:m, :p])
        B[:m, :p] -= resid
        np.subtract(Z[i:i + m], mu[p:], out=B[:m, p:])
        return B[:m]

    with _one_blas_thread(n):
        G = np.zeros((2 * p, 2 * p))
        for i in range(0, n, block):
            Bi = centred(i)
            G += Bi.T @ Bi
        G /= max(n - 1, 1)
        const = constant_columns(X)
        Mt = moments_matrix(G, p, a, const)
        Y = np.empty((n, p), order="F")
        for i in range(0, n, block):
            Bi = centred(i)
            Yi = Y[i:i + Bi.shape[0]]
            np.matmul(Mt, Bi.T, out=Yi.T)            # (B M)' written straight into the column-major Y
            Yi += mu[:p]
        for j in np.flatnonzero(const):
            Y[:, j] = X[:, j]                        # the constant itself, not its rounded mean
    return Y


def _one_blas_thread(n: int):
    """BLAS on one thread for the tall-by-small products of a large frame: with the default
    two threads they spin on a busy machine (the output pass of ``"moments"`` on 1e7 x 10:
    6.9 s CPU on two threads, 0.5 s on one; ``benchmarks/README.md``)."""
    import contextlib

    if n < 200_000:
        return contextlib.nullcontext()
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=1, user_api="blas")


def scale_exponents(top: np.ndarray) -> np.ndarray:
    """Per column, the power of two ``e`` (int32) that brings a column whose largest ``|x|``
    is ``top`` to magnitude ~1: ``ldexp(top, e)`` lies in [0.5, 1) (``e = 0`` for 0, NaN or
    infinity). Exact (the same bits, rescaled), so the noise's squares and sums neither
    underflow (1e-300) nor overflow (1e200); :func:`add_noise_values` and the Spark port
    (from a max-abs aggregation) scale by it and scale back at the end.

    >>> scale_exponents(np.array([3e-300, 1e200, 0.0, 1.0])).tolist()
    [994, -665, 0, -1]
    """
    top = np.asarray(top, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        ok = np.isfinite(top) & (top > 0)
    return np.where(ok, -np.frexp(np.where(ok, top, 1.0))[1], 0).astype(np.int32)


def add_noise_values(X: np.ndarray, Z: np.ndarray, method: str, noise: float, delta: float) -> np.ndarray:
    """The masked matrix from data ``X`` (n, p) and standard normal draws ``Z`` (n, p); both
    are overwritten (the result may be one of them).

    >>> X = np.array([[1.0, 2.0], [2.0, 4.0], [3.0, 6.5], [4.0, 8.0]])
    >>> Y = add_noise_values(X.copy(), np.random.default_rng(0).normal(size=(4, 2)), "moments", 150, 0.1)
    >>> bool(np.allclose(Y.mean(0), X.mean(0))), bool(np.allclose(np.cov(Y.T), np.cov(X.T)))
    (True, True)
    """
    n, p = X.shape
    if method == "moments":
        err = moments_rows_error(n, p)
        if err is not None:
            raise err
    if n < 2:
        return X
    a = noise / 100.0
    # each column brought to magnitude ~1 by a power of two (exact: the same bits scaled), so
    # that squares and sums neither underflow (1e-300: sds of 0, the data released unchanged)
    # nor overflow (1e200); scaled back at the end
    with np.errstate(invalid="ignore"):
        e = scale_exponents(np.max(np.abs(X), axis=0, initial=0.0))
    np.ldexp(X, e, out=X)
    if method == "moments":
        # means and covariance of the release are the originals' (to ~1e-15 relative, a
        # singular covariance included: the noise lies in its range)
        return np.ldexp(_recolour(X, Z, a), -e)
    scale = X.std(axis=0, ddof=1)
    scale[~(scale > 0)] = 1.0
    X /= scale                                     # scale-free: no overflow, Sigma well conditioned
    mu, S = _cov(X)
    if method == "additive":
        Z *= a * np.sqrt(np.diag(S))
        Z += X
        Y = Z
    elif method == "correlated2":
        d1 = math.sqrt(1.0 - delta * delta)
        Z *= delta * np.sqrt(np.diag(S))
        Z += (1.0 - d1) * mu
        X *= d1
        X += Z
        Y = X
    else:
        with _one_blas_thread(n):
            Y = Z @ (math.sqrt(a) * _psd_root(S))  # N(0, a Sigma), inside the range of Sigma
        Y += X
    Y *= scale
    return np.ldexp(Y, -e, out=Y)


def add_noise_frame(
    df: pl.DataFrame, on: ColumnSpec = None, *, method: str = "additive", noise: float = 150.0,
    delta: float = 0.1, by: ColumnSpec = None, seed: int | None = None, key: str | None = None,
    household: str | None = None, household_columns: Sequence[str] | None = None,
) -> pl.DataFrame:
    """Noise on the numeric ``on`` columns (Float64 out; see the module docstring); with ``by``
    the standard deviations, covariance and (``"moments"``) the reproduced means and
    covariance are those of each stratum.

    Nulls (structural: a child's income) stay null and are never used: ``"additive"`` and
    ``"correlated2"`` work column by column on the non-null values; ``"correlated"`` and
    ``"moments"`` on the rows of each null pattern (the set of non-null ``on`` columns) apart,
    as if it were a stratum. So ``"moments"`` is exact on the non-null values: the mean and
    variance of every column over its non-null values, and the covariance of two columns over
    the rows where both are non-null, equal the originals (each pattern keeps its means and
    covariance, hence the within- and between-pattern sums of squares). A pattern (within a
    stratum) needs the rows a stratum needs.

    ``household``: the household id column; household-level ``on`` columns (constant within
    every household, :mod:`polars_sdc.household`) are noised once per household (their sds,
    covariance and moments those of the households) and the value broadcast to every member;
    person-level columns as without it. Without it, a column that is evidently household-level
    gets a :class:`polars_sdc.household.HouseholdWarning`.
    ``household_columns``: the household-level columns declared instead of detected (the others
    person-level; :func:`polars_sdc.household.check_household_columns`).

    >>> df = pl.DataFrame({"a": [1.0, 2.0, 3.0, 4.0], "b": [2.0, 1.0, 4.0, 3.0]})
    >>> out = add_noise_frame(df, method="moments", seed=1)
    >>> [round(v, 9) for v in out.mean().row(0)], round(out.select(pl.cov("a", "b")).item(), 9)
    ([2.5, 2.5], 1.0)
    >>> df = pl.DataFrame({"g": [1, 1, 1, 2, 2, 2], "a": [1.0, 2.0, 6.0, 10.0, 20.0, 30.0]})
    >>> out = add_noise_frame(df, "a", method="moments", by="g", seed=1)
    >>> out.group_by("g", maintain_order=True).agg(m=pl.col("a").mean().round(9), v=pl.col("a").var().round(9)).rows()
    [(1, 3.0, 7.0), (2, 20.0, 100.0)]
    >>> df = pl.DataFrame({"hh": [1, 1, 2, 3, 3], "inc": [5.0, 5.0, 7.0, 9.0, 9.0], "pay": [1.0, None, 2.0, 3.0, 4.0]})
    >>> out = add_noise_frame(df, ["inc", "pay"], household="hh", seed=1)
    >>> out["inc"][0] == out["inc"][1], out["inc"][3] == out["inc"][4], out["pay"].is_null().to_list()
    (True, True, [False, True, False, False, False])
    """
    from ..household import check_household_columns, mask_by_household

    method, noise, delta = check_args(method, noise, delta)
    check_seed(seed)
    cols, by_cols = on_by_household(df.schema, on, by, key, household)
    declared = check_household_columns(df.schema, household, household_columns)
    s = seed_or_fresh(seed)

    def run(frame: pl.DataFrame, columns: list[str], k: str | None) -> pl.DataFrame:
        return _add_noise(frame, columns, method, noise, delta, by_cols, s, k)

    return mask_by_household(df, household, cols, run, method="add_noise", by=by_cols, key=key,
                             household_columns=declared)


#: an integer ``x`` is split as ``h * 2^32 + l`` (``0 <= l < 2^32``) for its exact sums: the
#: squares of Int64 / UInt64 values overflow every integer type of Polars and Spark, those of
#: ``h`` and ``l`` do not (Int128 / decimal(38, 0) sums)
SPLIT = 2**32
#: the column a row's null pattern goes in (bit ``j`` set when ``on`` column ``j`` is non-null)
PATTERN = "__sdc_pattern"


def resolution_error(column: str, n: int, lo: int, hi: int, sums: Sequence[int], *, stratum: dict | None = None,
                     pattern: list[str] | None = None) -> SDCError | None:
    """The SDCError for an Int64 / UInt64 column whose non-null values in one noise unit (the
    frame, a ``by`` stratum, a null pattern: whatever one standard deviation scales the noise
    of) reach beyond 2^53 while their exact standard deviation is below float64's spacing at
    their magnitude: the Float64 release could not hold noise of that size, and would hold the
    data rounded (near 2^63: 2^11 apart), unmasked. Else None. ``n``, ``lo``, ``hi``: the
    unit's count, minimum and maximum; ``sums``: its exact integer sums of ``h``, ``l``,
    ``h^2``, ``h l``, ``l^2`` with ``x = h * 2^32 + l`` (:data:`SPLIT`). The local
    :func:`add_noise_frame` and the Spark port (driver aggregates) both call it.

    >>> x = [2**63 - 9, 2**63 - 8, 2**63 - 5]
    >>> sums = [sum(v // SPLIT for v in x), sum(v % SPLIT for v in x), sum((v // SPLIT) ** 2 for v in x),
    ...         sum((v // SPLIT) * (v % SPLIT) for v in x), sum((v % SPLIT) ** 2 for v in x)]
    >>> print(resolution_error("x", 3, min(x), max(x), sums, stratum={"g": 1}))
    column 'x' in stratum {'g': 1} of `by`: its values (up to 9223372036854775803) are 2048 apart in float64, more than their standard deviation (2.08167): the Float64 release could not hold noise of that size and would release the values rounded; subtract an offset from the column first
    """
    if n < 2 or lo is None:
        return None
    top = max(abs(int(lo)), abs(int(hi)))
    if top <= 2**53:
        return None
    sh, sl, shh, shl, sll = (int(v) for v in sums)
    s1 = sh * SPLIT + sl
    s2 = shh * SPLIT * SPLIT + 2 * shl * SPLIT + sll
    sd = math.sqrt((n * s2 - s1 * s1) / (n * (n - 1)))      # exact integers, one rounding
    gap = float(np.spacing(float(top)))
    if not 0 < sd < gap:
        return None
    where = "" if stratum is None else f" in stratum {stratum!r} of `by`"
    if pattern is not None:
        where += f" (rows whose non-null `on` columns are {pattern!r})"
    return SDCError(
        f"column {column!r}{where}: its values (up to {top}) are {gap:g} apart in float64, more than their standard "
        f"deviation ({sd:g}): the Float64 release could not hold noise of that size and would release the values "
        "rounded; subtract an offset from the column first")


def pattern_expr(cols: list[str]) -> pl.Expr:
    """A row's null pattern over ``cols`` (Int64): bit ``j`` set when column ``j`` is non-null."""
    return pl.sum_horizontal([pl.when(pl.col(c).is_not_null()).then(1 << j).otherwise(0).cast(pl.Int64)
                              for j, c in enumerate(cols)]).alias(PATTERN)


def _check_resolution(df: pl.DataFrame, cols: list[str], by_cols: list[str], method: str) -> None:
    """:func:`resolution_error` of every Int64 / UInt64 ``on`` column beyond 2^53 in every noise
    unit: each ``by`` stratum (the whole frame without ``by``), and for ``"correlated"`` /
    ``"moments"`` with nulls each null pattern within it (the units the noise is scaled by).
    Units in the order Spark numbers them (strata sorted by value, nulls last; then patterns)."""
    wide = []
    for c in cols:
        col = df.get_column(c)
        if col.dtype in (pl.Int64, pl.UInt64) and col.null_count() < col.len() \
                and max(abs(int(col.min())), abs(int(col.max()))) > 2**53:
            wide.append(c)
    if not wide:
        return
    patterns = method not in ("additive", "correlated2") and any(df.get_column(c).null_count() for c in cols)
    # a frame of positional names only: a `by` column called "n0" or "__sdc_pattern" meets no helper
    bys = [f"b{i}" for i in range(len(by_cols))]
    ons = [f"c{j}" for j in range(len(cols))]
    df = df.select([pl.col(b).alias(a) for b, a in zip(by_cols, bys)] + [pl.col(c).alias(a) for c, a in zip(cols, ons)])
    keys = [*bys, *([PATTERN] if patterns else [])]
    aggs = []
    for j, c in enumerate(wide):
        x = pl.col(ons[cols.index(c)]).cast(pl.Int128)
        h = x // SPLIT
        lo = x - h * SPLIT
        x0 = pl.col(ons[cols.index(c)])
        aggs += [x0.count().alias(f"n{j}"), x0.min().alias(f"lo{j}"), x0.max().alias(f"hi{j}"),
                 pl.concat_list(h.sum(), lo.sum(), (h * h).sum(), (h * lo).sum(), (lo * lo).sum()).alias(f"s{j}")]
    frame = df.with_columns(pattern_expr(ons)) if patterns else df
    stats = frame.group_by(keys).agg(aggs).sort(keys, nulls_last=True) if keys else frame.select(aggs)
    for r in stats.iter_rows(named=True):
        for j, c in enumerate(wide):
            err = resolution_error(c, r[f"n{j}"], r[f"lo{j}"], r[f"hi{j}"], r[f"s{j}"],
                                   stratum={b: r[a] for b, a in zip(by_cols, bys)} if by_cols else None,
                                   pattern=[cols[i] for i in range(len(cols)) if (r[PATTERN] >> i) & 1]
                                   if patterns else None)
            if err is not None:
                raise err


def _add_noise(df: pl.DataFrame, cols: list[str], method: str, noise: float, delta: float, by_cols: list[str],
               seed: int, key: str | None) -> pl.DataFrame:
    if key is not None and df.height > 1:
        # with a key the release must not depend on the row order: the moments (float sums) are
        # taken in key order (they differed in the last bits when the rows came permuted)
        order = df.get_column(key).arg_sort().to_numpy()
        if (np.diff(order) != 1).any():
            inv = np.empty_like(order)
            inv[order] = np.arange(order.size)
            return _add_noise(df[order], cols, method, noise, delta, by_cols, seed, key)[inv]
    check_finite(df, cols, nulls=True)
    _check_resolution(df, cols, by_cols, method)
    if method == "moments" and not by_cols and not any(df.get_column(c).null_count() for c in cols):
        err = moments_rows_error(df.height, len(cols))
        if err is not None:
            raise err
    X = np.empty((df.height, len(cols)), order="F")               # column-major throughout
    present = None
    for j, c in enumerate(cols):
        col = df.get_column(c)
        if col.null_count():
            if present is None:
                present = np.ones((df.height, len(cols)), dtype=bool, order="F")
            present[:, j] = col.is_not_null().to_numpy()
            col = col.fill_null(0)
        X[:, j] = col.cast(pl.Float64).to_numpy()
    Z = _latent(seed, cols, frame_keys(df, key))
    sidx, names = (strata(df, by_cols) if by_cols else (None, None))
    with np.errstate(over="ignore", invalid="ignore"):
        if present is None:
            Y = _apply(X, Z, sidx, names, by_cols, method, noise, delta, "")
        elif method in ("additive", "correlated2"):            # column by column: on its non-null values
            Y = X.copy(order="F")
            for j, c in enumerate(cols):
                rows = np.flatnonzero(present[:, j])
                if rows.size:
                    Y[rows, j] = _apply(X[rows, j:j + 1], Z[rows, j:j + 1], None if sidx is None else sidx[rows],
                                        names, by_cols, method, noise, delta, f" (non-null values of {c!r})")[:, 0]
        else:                                                   # each null pattern apart
            Y = X.copy(order="F")
            pidx, pats = null_patterns(present)
            for pi, pat in enumerate(pats):
                if not pat:
                    continue
                rows = np.flatnonzero(pidx == pi)
                js = list(pat)
                where = f" (rows whose non-null `on` columns are {[cols[j] for j in js]!r})"
                sub = _apply(np.asfortranarray(X[np.ix_(rows, js)]), np.asfortranarray(Z[np.ix_(rows, js)]),
                             None if sidx is None else sidx[rows], names, by_cols, method, noise, delta, where,
                             pattern=len(pats) > 1)
                Y[np.ix_(rows, js)] = sub
    with np.errstate(invalid="ignore"):
        fin = np.where(present, Y, 0.0) if present is not None else Y
        bad = ~(np.isfinite(fin.max(axis=0, initial=-np.inf)) & np.isfinite(fin.min(axis=0, initial=np.inf)))
    if bad.any() and Y.shape[0]:
        raise SDCError(f"column {cols[int(np.argmax(bad))]!r}: the noisy values overflow float64")
    out = []
    for j, c in enumerate(cols):
        ser = pl.Series(c, Y[:, j])
        if present is not None and not present[:, j].all():
            ser = ser.set(pl.Series(~present[:, j]), None)
        out.append(ser)
    return df.with_columns(out)


def min_stratum_rows(method: str, p: int = 1) -> int:
    """Rows a ``by`` stratum needs: 2 for a standard deviation; ``p + 2`` for ``"moments"`` on
    ``p`` columns (with fewer the exact means and covariance pin the records; see
    :func:`moments_rows_error`)."""
    return p + 2 if method == "moments" else 2


def small_stratum_error(stratum: dict, n: int, method: str, p: int) -> SDCError:
    """The error for a ``by`` stratum of ``n`` rows, too small for ``method`` on ``p`` columns."""
    from ..household import row_unit

    why = (" (with n <= columns + 1 the exact means and covariance pin the records)" if method == "moments"
           else " (a standard deviation)")
    return SDCError(f"stratum {stratum!r} of `by`: {n} {row_unit()}(s); add_noise method={method!r} on {p} column(s) "
                    f"needs at least {min_stratum_rows(method, p)} {row_unit(True)} per stratum{why} (use coarser "
                    "strata)")


def _apply(X: np.ndarray, Z: np.ndarray, sidx: np.ndarray | None, names: list[tuple] | None, by: list[str],
           method: str, noise: float, delta: float, where: str, *, pattern: bool = False) -> np.ndarray:
    """:func:`add_noise_values` on the rows given, within each ``by`` stratum present among
    them (``sidx``: stratum per row; None: one stratum). A stratum (or, with ``pattern``, a
    null pattern without strata) with too few rows is an error naming it and ``where``."""
    from ..household import row_unit

    need = min_stratum_rows(method, X.shape[1])
    if sidx is None:
        if pattern and X.shape[0] < need:
            raise SDCError(f"{X.shape[0]} {row_unit()}(s){where}; add_noise method={method!r} needs at least {need} "
                           f"{row_unit(True)} per null pattern (fill the nulls or mask these columns apart)")
        if X.shape[0] == 1:   # no standard deviation: the row would be released unchanged
            raise SDCError(f"1 {row_unit()}{where or ' in the frame'}; add_noise method={method!r} needs at least "
                           f"{need} (a standard deviation), else the value is released unchanged (with household=, a "
                           "household-level column counts households)")
        return add_noise_values(X, Z, method, noise, delta)
    counts = np.bincount(sidx, minlength=len(names))
    small = np.flatnonzero((counts > 0) & (counts < need))
    if small.size:
        s = int(small[0])
        err = small_stratum_error(dict(zip(by, names[s])), int(counts[s]), method, X.shape[1])
        raise SDCError(str(err).replace(" of `by`:", f" of `by`{where}:", 1)) if where else err
    order = np.argsort(sidx, kind="stable")
    bounds = np.r_[0, np.cumsum(counts)]
    Y = np.empty_like(X)
    for s in range(len(names)):
        rows = order[bounds[s]:bounds[s + 1]]
        if rows.size:
            Y[rows] = add_noise_values(np.asfortranarray(X[rows]), np.asfortranarray(Z[rows]), method, noise, delta)
    return Y


def check_args(method: Any, noise: Any, delta: Any) -> tuple[str, float, float]:
    """Validate ``method``, ``noise`` (percent, >= 0) and ``delta`` (in (0, 1])."""
    if method not in METHODS:
        raise SDCError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    check_real(noise, "noise", minimum=0.0)  # a percentage of each column's sd
    delta = check_fraction("delta", delta, lo_open=True)
    return method, float(noise), delta


def add_noise_output_schema(schema: pl.Schema, cols: list[str]) -> pl.Schema:
    """The noised columns become Float64."""
    return pl.Schema({c: (pl.Float64 if c in cols else t) for c, t in schema.items()})


# public names of the helpers the Spark back end shares (polars_sdc.spark.masking)
latent_normals = _latent
psd_root = _psd_root
