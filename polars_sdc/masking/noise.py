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
"""
from __future__ import annotations

import math
import os
from typing import Any

import numpy as np
import polars as pl

from .._columns import ColumnSpec, check_finite
from .._errors import SDCError
from .._validation import check_real
from ._common import check_fraction, check_seed, frame_keys, normal, on_and_by, seed_or_fresh, strata

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
            normal(seed, f"add_noise/{c}", keys, out=Z[:, j])
        return Z
    from concurrent.futures import ThreadPoolExecutor

    keys = np.ascontiguousarray(keys, dtype=np.uint64)
    with ThreadPoolExecutor(workers) as pool:
        list(pool.map(lambda j: normal(seed, f"add_noise/{cols[j]}", keys, out=Z[:, j]), range(len(cols))))
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
    if n < 1 or n >= p + 2:
        return None
    return SDCError(f"{where}: {n} row(s); add_noise method='moments' on {p} column(s) needs at least {p + 2} "
                    "rows (with n <= columns + 1 the exact means and covariance give the records back up to a "
                    "covariance-keeping linear map: 2 rows come back unchanged up to their order)")


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
    if method == "moments":
        # means and covariance of the release are the originals' (to ~1e-15 relative, a
        # singular covariance included: the noise lies in its range)
        return _recolour(X, Z, a)
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
    return Y


def add_noise_frame(
    df: pl.DataFrame, on: ColumnSpec = None, *, method: str = "additive", noise: float = 150.0,
    delta: float = 0.1, by: ColumnSpec = None, seed: int | None = None, key: str | None = None,
) -> pl.DataFrame:
    """Noise on the numeric ``on`` columns (Float64 out; see the module docstring); with ``by``
    the standard deviations, covariance and (``"moments"``) the reproduced means and
    covariance are those of each stratum.

    >>> df = pl.DataFrame({"a": [1.0, 2.0, 3.0, 4.0], "b": [2.0, 1.0, 4.0, 3.0]})
    >>> out = add_noise_frame(df, method="moments", seed=1)
    >>> [round(v, 9) for v in out.mean().row(0)], round(out.select(pl.cov("a", "b")).item(), 9)
    ([2.5, 2.5], 1.0)
    >>> df = pl.DataFrame({"g": [1, 1, 1, 2, 2, 2], "a": [1.0, 2.0, 6.0, 10.0, 20.0, 30.0]})
    >>> out = add_noise_frame(df, "a", method="moments", by="g", seed=1)
    >>> out.group_by("g", maintain_order=True).agg(m=pl.col("a").mean().round(9), v=pl.col("a").var().round(9)).rows()
    [(1, 3.0, 7.0), (2, 20.0, 100.0)]
    """
    method, noise, delta = check_args(method, noise, delta)
    check_seed(seed)
    cols, by_cols = on_and_by(df.schema, on, by, key)
    check_finite(df, cols)
    if method == "moments" and not by_cols:
        err = moments_rows_error(df.height, len(cols))
        if err is not None:
            raise err
    X = np.empty((df.height, len(cols)), order="F")               # column-major throughout
    for j, c in enumerate(cols):
        X[:, j] = df.get_column(c).cast(pl.Float64).to_numpy()
    Z = _latent(seed_or_fresh(seed), cols, frame_keys(df, key))
    with np.errstate(over="ignore", invalid="ignore"):
        if not by_cols:
            Y = add_noise_values(X, Z, method, noise, delta)
        else:
            Y = _by_strata(df, by_cols, X, Z, method, noise, delta)
    with np.errstate(invalid="ignore"):
        bad = ~(np.isfinite(Y.max(axis=0, initial=-np.inf)) & np.isfinite(Y.min(axis=0, initial=np.inf)))
    if bad.any():
        raise SDCError(f"column {cols[int(np.argmax(bad))]!r}: the noisy values overflow float64")
    return df.with_columns(pl.Series(c, Y[:, j]) for j, c in enumerate(cols))


def min_stratum_rows(method: str, p: int = 1) -> int:
    """Rows a ``by`` stratum needs: 2 for a standard deviation; ``p + 2`` for ``"moments"`` on
    ``p`` columns (with fewer the exact means and covariance pin the records; see
    :func:`moments_rows_error`)."""
    return p + 2 if method == "moments" else 2


def small_stratum_error(stratum: dict, n: int, method: str, p: int) -> SDCError:
    """The error for a ``by`` stratum of ``n`` rows, too small for ``method`` on ``p`` columns."""
    why = (" (with n <= columns + 1 the exact means and covariance pin the records)" if method == "moments"
           else " (a standard deviation)")
    return SDCError(f"stratum {stratum!r} of `by`: {n} row(s); add_noise method={method!r} on {p} column(s) "
                    f"needs at least {min_stratum_rows(method, p)} rows per stratum{why} (use coarser strata)")


def _by_strata(df: pl.DataFrame, by: list[str], X: np.ndarray, Z: np.ndarray, method: str, noise: float,
               delta: float) -> np.ndarray:
    sidx, vals = strata(df, by)
    counts = np.bincount(sidx, minlength=len(vals))
    small = np.flatnonzero(counts < min_stratum_rows(method, X.shape[1]))
    if small.size:
        s = int(small[0])
        raise small_stratum_error(dict(zip(by, vals[s])), int(counts[s]), method, X.shape[1])
    order = np.argsort(sidx, kind="stable")
    bounds = np.r_[0, np.cumsum(counts)]
    Y = np.empty_like(X)
    for s in range(len(vals)):
        rows = order[bounds[s]:bounds[s + 1]]
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
