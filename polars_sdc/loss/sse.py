"""SSE, SST and ILSSDM = SSE / SST (thesis 2.4.1) of a partition or an (original, masked) pair."""
from __future__ import annotations

import numpy as np


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

    >>> import polars as pl
    >>> df = pl.DataFrame({"g": [0, 0, 1, 1], "x": [1.0, 2.0, 3.0, 4.0]})
    >>> ilssdm_frame(df, groups="g", standardize=False)
    0.2
    """
    import polars as pl

    from .._columns import numeric_matrix, resolve_columns
    from ..partition import group_ids

    if on is None and isinstance(groups, str):  # the group ids are not data
        on = [c for c in resolve_columns(df, None, kind="numeric", default="numeric") if c != groups]
    cols = resolve_columns(df, on, kind="numeric", default="numeric")
    if df.height == 0:
        from .._errors import SDCError

        raise SDCError("the frame has no rows; information loss needs at least one row")
    X = numeric_matrix(df, cols)
    if (groups is None) == (masked is None):
        raise TypeError("ilssdm needs exactly one of groups= or masked=")
    if masked is not None:
        if isinstance(masked, pl.LazyFrame):
            masked = masked.select(cols).collect()
        from .._errors import SDCError

        if masked.height != df.height:
            raise SDCError(f"masked frame has {masked.height} rows, the original {df.height}; they must be row-aligned")
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
        return ilssdm(X, masked=Y)
    return ilssdm(X, groups=group_ids(df, groups).to_numpy())
