"""SSE, SST and ILSSDM = SSE / SST (thesis 2.4.1) of a partition or an (original, masked) pair."""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import polars as pl

from .._signature import check_keywords


@check_keywords
def sse(X: np.ndarray, groups: np.ndarray) -> float:
    """Within-group sum of squares of the rows of X (n, p) under the partition ``groups``.

    >>> sse(np.array([[1.0], [2.0], [3.0], [4.0]]), np.array([0, 0, 1, 1]))
    1.0
    """
    from ..kernels.sse import group_sse

    X = np.ascontiguousarray(X, dtype=np.float64).reshape(len(X), -1)
    g = np.asarray(groups, dtype=np.int64)
    n_groups = int(g.max()) + 1 if g.size else 0
    return float(group_sse(X, g, n_groups))


@check_keywords
def sst(X: np.ndarray) -> float:
    """Total sum of squares about the column means.

    >>> sst(np.array([[1.0], [2.0], [3.0], [4.0]]))
    5.0
    """
    from ..kernels.sse import total_ss

    X = np.ascontiguousarray(X, dtype=np.float64).reshape(len(X), -1)
    return float(total_ss(X)) if X.shape[0] else 0.0


def ilssdm(X: np.ndarray, groups: np.ndarray | None = None, masked: np.ndarray | None = None) -> float:
    """SSE / SST: 0 when nothing is lost, 1 when every row becomes the overall mean.

    Either ``groups`` (rows replaced by group means) or ``masked`` (the released values,
    row-aligned; SSE = sum |x - x'|^2) must be given. A constant X (SST = 0) gives 0.

    >>> ilssdm(np.array([[1.0], [2.0], [3.0], [4.0]]), groups=np.array([0, 0, 1, 1]))
    0.2
    """
    from ..standardize import SAFE_EXP, pow2_exponent

    X = np.asarray(X, dtype=np.float64)
    Y = None if masked is None else np.asarray(masked, dtype=np.float64)
    # SSE / SST is scale-free: one common power of two (exact) keeps both sums finite and nonzero
    e = max(pow2_exponent(X), pow2_exponent(Y) if Y is not None else -10**9)
    if not -SAFE_EXP <= e <= SAFE_EXP:
        X = np.ldexp(X, -e)
        Y = None if Y is None else np.ldexp(Y, -e)
    total = sst(X)
    if Y is not None:
        err = float(np.sum((X - Y) ** 2))
    elif groups is not None:
        err = sse(X, groups)
    else:
        raise TypeError("ilssdm needs groups= or masked=")
    return err / total if total > 0 else 0.0


def ilssdm_frame(
    df,
    on=None,
    *,
    groups=None,
    masked=None,
    standardize: bool = True,
) -> float:
    """ILSSDM of the ``on`` columns of a DataFrame for a partition or a masked release
    (z-scored with the original's mean and std unless ``standardize=False``). ``on=None``
    means every numeric column except a ``groups`` column named by a string.

    Structural nulls (:mod:`polars_sdc.loss.nulls`) are skipped value by value, as sdcMicro's
    ``dUtility`` (IL1s, ``na.rm = TRUE``): SSE and SST sum each column's non-null values (its
    mean and std are those of its non-null values; a group's mean is over its non-null
    values); the release must hold its nulls at the same rows. The result is a float whose
    ``.skipped`` counts the null values left out.

    >>> import polars as pl
    >>> df = pl.DataFrame({"g": [0, 0, 1, 1], "x": [1.0, 2.0, 3.0, 4.0]})
    >>> ilssdm_frame(df, groups="g", standardize=False)
    0.2
    >>> r = ilssdm_frame(pl.DataFrame({"x": [1.0, None, 3.0, 5.0]}), masked=pl.DataFrame({"x": [2.0, None, 2.0, 5.0]}))
    >>> r, r.skipped
    (0.25, 1)
    """
    import polars as pl

    from .._columns import check_finite, numeric_matrix, resolve_columns
    from .._errors import SDCError
    from ..partition import group_ids
    from .nulls import Measured, check_null_pattern, null_counts

    if on is None and isinstance(groups, str):  # the group ids are not data
        on = [c for c in resolve_columns(df, None, kind="numeric", default="numeric") if c != groups]
    cols = resolve_columns(df, on, kind="numeric", default="numeric")
    if df.height == 0:
        raise SDCError("the frame has no rows; information loss needs at least one row")
    if (groups is None) == (masked is None):
        raise TypeError("ilssdm needs exactly one of groups= or masked=")
    if masked is not None:
        if isinstance(masked, pl.LazyFrame):
            masked = masked.select(cols).collect()
        if masked.height != df.height:
            raise aligned_rows_error(masked.height, df.height)
        resolve_columns(masked, cols, kind="numeric")
        nulls = check_null_pattern(df, masked, cols)
    else:
        nulls = null_counts(df, cols)
    from .exact import centered, int_offsets

    # SSE and SST read differences: Int64 / UInt64 beyond 2^53 as exact offsets from their minimum
    offsets = int_offsets(df, cols)
    if offsets:
        df = centered(df, offsets)
        masked = None if masked is None else centered(masked, offsets)
    skipped = sum(nulls.values())
    if skipped:
        check_finite(df, cols, nulls=True)
        if masked is not None:
            check_finite(masked, cols, nulls=True)
        g = None if masked is not None else group_ids(df, groups).to_numpy()
        return Measured(_ilssdm_nulls(df, cols, g, masked, standardize), skipped)
    X = numeric_matrix(df, cols)
    if masked is not None:
        Y = numeric_matrix(masked, cols)
    if standardize:  # the original's mean and std, computed without overflow or underflow
        from ..standardize import apply_zscore, zscore_params

        params = zscore_params(X)
        Xz = apply_zscore(X, *params)
        if masked is not None:
            Ym = Y
            Y = apply_zscore(Y, *params)
            # a constant original column keeps scale 1: masked deviations from it still count
            for j in np.flatnonzero(params[1] == 0):
                Y[:, j] = Ym[:, j] - (X[0, j] if X.shape[0] else 0.0)
        X = Xz
    if masked is not None:
        return Measured(ilssdm(X, masked=Y))
    return Measured(ilssdm(X, groups=group_ids(df, groups).to_numpy()))


def aligned_rows_error(released: int, original: int):
    """The one message (:func:`ilssdm_frame`; Spark's ``ilssdm``) for a release of
    ``released`` rows measured against an ``original`` of another number of rows."""
    from .._errors import SDCError

    return SDCError(f"masked frame has {released} rows, the original {original}; they must be row-aligned")


def _ilssdm_nulls(df, cols, groups: np.ndarray | None, masked, standardize: bool) -> float:
    """SSE / SST summed over the columns, each over its non-null rows (the same rows in the
    release); z-scores and group means over those rows; one common power of two keeps the
    unstandardised sums finite, as :func:`ilssdm` does."""
    from ..standardize import SAFE_EXP, apply_zscore, pow2_exponent, zscore_params

    xs, ys, gs = [], [], []
    for c in cols:
        keep = df.get_column(c).is_not_null()
        x = df.get_column(c).filter(keep).cast(float).to_numpy().reshape(-1, 1)
        y = None if masked is None else masked.get_column(c).filter(keep).cast(float).to_numpy().reshape(-1, 1)
        if standardize and x.shape[0]:
            params = zscore_params(x)
            xz = apply_zscore(x, *params)
            if y is not None:
                # a constant original column keeps scale 1, as on data without nulls
                y = y - x[0, 0] if params[1][0] == 0 else apply_zscore(y, *params)
            x = xz
        xs.append(x[:, 0])
        ys.append(None if y is None else y[:, 0])
        gs.append(None if groups is None else groups[keep.to_numpy()])
    if not standardize:
        e = max((pow2_exponent(v) for v in [*xs, *ys] if v is not None and v.size), default=0)
        if not -SAFE_EXP <= e <= SAFE_EXP:
            xs = [np.ldexp(v, -e) for v in xs]
            ys = [None if y is None else np.ldexp(y, -e) for y in ys]
    total = math.fsum(sst(x) for x in xs if x.size)  # an all-null column adds nothing
    err = 0.0
    for x, y, g in zip(xs, ys, gs):
        if y is not None:
            err += float(np.sum((x - y) ** 2))
        elif g is not None and x.size:
            err += sse(x, g)
    return err / total if total > 0 else 0.0


def sse_sst(original: pl.DataFrame, released: pl.DataFrame, columns: Sequence[str]) -> float | None:
    """SSE/SST (thesis 2.4.1) of the numeric ``columns`` of a row-aligned release, z-scored
    with the original's mean and standard deviation over its non-null values; a value
    suppressed in the release counts as the mean (all lost), a null in the original counts
    nothing. Columns no longer numeric in the release (recoded into intervals) are left out;
    None when none is left. Without nulls it is ``df.sdc.ilssdm(columns, masked=...)``.

    >>> o = pl.DataFrame({"x": [1.0, 2.0, 3.0, 4.0]})
    >>> round(sse_sst(o, pl.DataFrame({"x": [1.5, 1.5, 3.5, 3.5]}), ["x"]), 12)
    0.2
    """
    cols = [c for c in columns if original.schema[c].is_numeric() and released.schema[c].is_numeric()]
    if not cols or original.height == 0:
        return None
    X = np.zeros((original.height, len(cols)))
    Y = np.zeros_like(X)
    for j, c in enumerate(cols):
        x = original.get_column(c).cast(pl.Float64).fill_nan(None)   # a NaN as a null: no value
        y = released.get_column(c).cast(pl.Float64).fill_nan(None)
        mean, sd = x.mean(), x.std()
        if mean is None:
            continue
        sd = sd if sd and sd > 0 else 1.0
        X[:, j] = ((x - mean) / sd).fill_null(0.0).to_numpy()
        Y[:, j] = ((y - mean) / sd).fill_null(0.0).to_numpy()
        Y[x.is_null().to_numpy(), j] = 0.0
    return float(ilssdm(X, masked=Y))
