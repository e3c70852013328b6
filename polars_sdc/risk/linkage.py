"""Disclosure risk of masked numeric columns: distance-based record linkage and interval
disclosure, for an original frame and its masked release (same rows, same order).

- **Record linkage** (distance-based, Domingo-Ferrer & Torra's DBRL): every column is
  standardised with the original column's mean and standard deviation (population sd; a
  constant column is only centred), the same transform is applied to the masked column, and
  each masked record is linked to its nearest original record (Euclidean distance, a k-d tree:
  ``scipy.spatial.cKDTree``). The risk is the share of masked records whose nearest original is
  their own; when m originals tie for nearest (distances equal within a relative 1e-9) and the
  own record is among them, the record counts 1/m. The search for a record is bounded by its
  distance to its own original (no nearer-than-own record lies farther), with k = 2 so that a
  possible tie shows; only then are the tied originals counted (radius search). When at most
  80 % of the original rows are distinct (discrete columns), the tree holds the distinct rows
  and copies count by their multiplicity.
- **Interval disclosure** (sdcMicro 5.8.1 ``dRisk``, ``dRiskWORK(x, xm, k = 0.05)``): the share
  of records whose every original value lies inside ``[masked - k sd, masked + k sd]``, with sd
  the sample standard deviation (n - 1) of the masked column. A missing value on either side
  never counts as outside (sdcMicro's ``na.rm = TRUE``).
- **Structural nulls** (null at the same rows of the original and the release, else an
  :class:`SDCError` naming the column and row): record linkage follows sdcMicro's
  ``recordLinkage`` (``na_action = "ignore"``, by ``cluster::daisy``): the distance of two
  records is taken over the columns both hold, times sqrt(p / n_g) for n_g shared of p
  columns; two records without a shared column are an error, as in sdcMicro.
"""
from __future__ import annotations

import numpy as np
import polars as pl

from .._columns import ColumnSpec, check_finite, resolve_columns
from .._errors import SDCError
from .._validation import check_real

BUCKETS = 64  # groups of records by own distance, one bounded k-d tree query each
DEDUP_SHARE = 0.8  # build the tree on distinct original rows when there are at most this share


def _pair(orig: pl.DataFrame, masked: pl.DataFrame, on: ColumnSpec) -> list[str]:
    cols = resolve_columns(orig, on, kind="numeric", default="numeric")
    resolve_columns(masked, cols, kind="numeric", what="on (masked)")
    if orig.height != masked.height:
        raise SDCError(
            f"masked frame: {masked.height} rows but the original has {orig.height}; they must be the same records in the same order"
        )
    if orig.height == 0:
        raise SDCError("the frames are empty; record linkage needs at least one row")
    return cols


def _matrix(df: pl.DataFrame, cols: list[str]) -> np.ndarray:
    return np.column_stack([df.get_column(c).cast(pl.Float64).to_numpy() for c in cols])


def linkage_per_record(
    orig: pl.DataFrame, masked: pl.DataFrame, on: ColumnSpec = None, *, ties: bool = True, workers: int = -1
) -> np.ndarray:
    """Per masked record: 1 when its nearest original record is its own, 1/m when it ties with
    m - 1 others, else 0 (module docstring). ``ties=False`` skips looking for tied originals
    (a k = 1 instead of a k = 2 bounded query, a little faster): a record then counts 1 when
    the k-d tree returns its own record among the tied ones, else 0. Structural nulls: module
    docstring (ties are then always counted).

    >>> import polars as pl
    >>> o = pl.DataFrame({"x": [0.0, 1.0, 2.0, 3.0]})
    >>> m = pl.DataFrame({"x": [0.1, 2.1, 1.9, 3.0]})
    >>> linkage_per_record(o, m, "x").tolist()
    [1.0, 0.0, 1.0, 1.0]
    """
    from scipy.spatial import cKDTree

    cols = _pair(orig, masked, on)
    if any(orig.get_column(c).null_count() or masked.get_column(c).null_count() for c in cols):
        from ..loss.nulls import check_null_pattern

        check_null_pattern(orig, masked, cols)
        check_finite(orig, cols, nulls=True)
        check_finite(masked, cols, nulls=True)
        return _linkage_nulls(_matrix(orig, cols), _matrix(masked, cols), cols, workers)
    check_finite(orig, cols)
    check_finite(masked, cols)
    X = _matrix(orig, cols)
    Y = _matrix(masked, cols)
    mu = X.mean(axis=0)
    sd = X.std(axis=0)
    sd[~(sd > 0)] = 1.0
    X = (X - mu) / sd
    Y = (Y - mu) / sd
    own = np.sqrt(((X - Y) ** 2).sum(axis=1))
    if not ties:
        _, i = _bounded_query(cKDTree(X), Y, own, 1, workers)
        return (i[:, 0] == np.arange(len(Y))).astype(np.float64)
    # many equal originals (discrete columns): one tree point per distinct row, with its
    # multiplicity, so that ties between copies are counted, not searched
    rows = mult = None
    U = X
    if orig.select(pl.struct(cols).n_unique()).item() <= DEDUP_SHARE * len(X):
        U, rows, mult = np.unique(X, axis=0, return_inverse=True, return_counts=True)
        rows = rows.reshape(-1)
    tree = cKDTree(U)
    d, _ = _bounded_query(tree, Y, own, 2, workers, rows)
    d1, d2 = d[:, 0], d[:, 1]
    tol = 1e-9 * np.maximum(d1, 1.0)
    hit = own <= d1 + tol  # the own record is (one of) the nearest
    out = np.zeros(len(Y))
    out[hit] = 1.0 if mult is None else 1.0 / mult[rows[hit]]
    # a second (distinct) original as near as the own one: count how many tie (a radius
    # search as small as the nearest distance, only for these records)
    idx = np.flatnonzero(hit & (d2 <= own + tol))
    if idx.size:
        if mult is None:
            m = tree.query_ball_point(Y[idx], own[idx] + tol[idx], return_length=True, workers=workers)
        else:
            near = tree.query_ball_point(Y[idx], own[idx] + tol[idx], workers=workers)
            m = [mult[j].sum() for j in near]
        out[idx] = 1.0 / np.maximum(np.asarray(m, dtype=np.float64), 1.0)
    return out


def _linkage_nulls(X: np.ndarray, Y: np.ndarray, cols: list[str], workers: int) -> np.ndarray:
    """:func:`linkage_per_record` with structural nulls (NaN here; the release holds them where
    the original does): sdcMicro's ``recordLinkage`` with ``na_action = "ignore"``, which takes
    ``cluster::daisy``'s rule: the Euclidean distance of two records over the n_g columns both
    hold, times sqrt(p / n_g); no shared column is an error (sdcMicro stops on a non-finite
    distance). Columns are z-scored over their non-null values. One k-d tree per (pattern of
    the masked record, pattern of the original) pair on their shared columns; ties counted as
    without nulls (within a relative 1e-9), over all the trees."""
    from scipy.spatial import cKDTree

    n, p = X.shape
    mu, sd = np.zeros(p), np.ones(p)
    for j in range(p):                           # over the non-null values; an all-null column: unused
        v = X[~np.isnan(X[:, j]), j]
        if v.size:
            mu[j] = v.mean()
            sd[j] = v.std() if v.std() > 0 else 1.0
    X = (X - mu) / sd
    Y = (Y - mu) / sd
    present = ~np.isnan(X)                       # the same pattern in Y (checked by the caller)
    codes = present @ (1 << np.arange(p, dtype=np.int64))
    patterns = {int(c): np.flatnonzero(codes == c) for c in np.unique(codes)}
    if 0 in patterns:
        raise SDCError(f"row {int(patterns[0][0])}: every linkage column is null; record linkage needs a value "
                       f"(sdcMicro's distance is undefined)")
    masks = {c: np.array([bool(c >> j & 1) for j in range(p)]) for c in patterns}
    own = np.empty(n)
    for c, rows in patterns.items():
        m = masks[c]
        own[rows] = np.sqrt(((X[np.ix_(rows, m)] - Y[np.ix_(rows, m)]) ** 2).sum(axis=1) * (p / m.sum()))
    tol = 1e-9 * np.maximum(own, 1.0)
    nearer = np.zeros(n, dtype=bool)             # an original strictly nearer than the own one
    ties = np.zeros(n)                           # originals within the own distance (the own included)
    for q, orows in patterns.items():
        for c, rows in patterns.items():
            shared = masks[q] & masks[c]
            if not shared.any():
                raise SDCError(
                    f"rows {int(rows[0])} and {int(orows[0])} share no non-null linkage column "
                    f"({', '.join(cl for cl, keep in zip(cols, masks[c]) if keep)} vs "
                    f"{', '.join(cl for cl, keep in zip(cols, masks[q]) if keep)}); record linkage needs a "
                    "distance between every pair (sdcMicro's recordLinkage stops on it)")
            scale = np.sqrt(p / shared.sum())
            tree = cKDTree(X[np.ix_(orows, shared)])
            pts = Y[np.ix_(rows, shared)]
            d, _ = tree.query(pts, k=1, workers=workers)
            nearer[rows] |= d * scale < own[rows] - tol[rows]
            ties[rows] += tree.query_ball_point(pts, (own[rows] + tol[rows]) / scale, return_length=True,
                                                workers=workers)
    out = np.zeros(n)
    hit = ~nearer
    out[hit] = 1.0 / np.maximum(ties[hit], 1.0)
    return out


def _bounded_query(tree, Y: np.ndarray, own: np.ndarray, k: int, workers: int, rows: np.ndarray | None = None,
                   buckets: int = BUCKETS):
    """The k nearest originals of every masked record, searched only within its distance to
    its own original (plus the tie tolerance): no nearer-than-own neighbour is ever farther,
    so the bound prunes the k-d tree search without changing the nearest one, and the second
    one (k = 2) is returned only when it could tie. cKDTree takes one bound per call: the
    records go in ``buckets`` groups of similar own distance, each queried with the group's
    largest bound, in the tree's leaf order of their own original (cache locality; ``rows``:
    the tree point of each record's original when the tree holds distinct rows only)."""
    n = len(Y)
    d = np.empty((n, k))
    i = np.empty((n, k), dtype=np.intp)
    pos = np.empty(tree.n, dtype=np.intp)
    pos[tree.indices] = np.arange(tree.n)
    for part in np.array_split(np.argsort(own, kind="stable"), min(buckets, n)):
        if part.size == 0:
            continue
        bound = float(own[part[-1]])
        bound += 4e-9 * max(bound, 1.0)  # >= own + tol (tol = 1e-9 max(d1, 1), d1 <= own) for the whole part
        part = part[np.argsort(pos[part] if rows is None else pos[rows[part]], kind="stable")]
        dd, ii = tree.query(Y[part], k=k, distance_upper_bound=bound, workers=workers)
        d[part] = dd.reshape(-1, k)
        i[part] = ii.reshape(-1, k)
    return d, i


def linkage_risk(
    orig: pl.DataFrame, masked: pl.DataFrame, on: ColumnSpec = None, *, ties: bool = True, workers: int = -1
) -> float:
    """Share of masked records re-linked to their own original record (module docstring).

    >>> import polars as pl
    >>> o = pl.DataFrame({"x": [0.0, 1.0, 2.0, 3.0]})
    >>> linkage_risk(o, o.reverse(), "x")
    0.0
    """
    from .._validation import check_bool

    check_bool(ties, "ties")
    return float(linkage_per_record(orig, masked, on, ties=ties, workers=workers).mean())


def interval_disclosure(orig: pl.DataFrame, masked: pl.DataFrame, on: ColumnSpec = None, k: float = 0.05) -> float:
    """Share of records whose every original value is within ``k`` masked standard
    deviations of its masked value (sdcMicro ``dRisk``; module docstring).

    >>> import polars as pl
    >>> o = pl.DataFrame({"x": [1.0, 2.0, 3.0, 4.0]})
    >>> interval_disclosure(o, pl.DataFrame({"x": [1.0, 2.0, 3.5, 4.0]}), "x", k=0.1)
    0.75
    """
    check_real(k, "k", minimum=0.0)
    cols = _pair(orig, masked, on)
    inside = np.ones(orig.height, dtype=bool)
    for c in cols:
        x = orig.get_column(c).cast(pl.Float64).fill_nan(None)
        xm = masked.get_column(c).cast(pl.Float64).fill_nan(None)
        sd = xm.std(ddof=1)
        sd = 0.0 if sd is None or not np.isfinite(sd) else float(sd)
        lo = (xm - k * sd).to_numpy()
        hi = (xm + k * sd).to_numpy()
        xv = x.to_numpy()
        with np.errstate(invalid="ignore"):
            outside = (xv < lo) | (xv > hi)
        inside &= ~np.nan_to_num(outside, nan=0).astype(bool)
    return float(inside.mean())
