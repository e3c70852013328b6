"""Cramér's V between categorical columns (Sano & Hattori, eq. 7)."""
from __future__ import annotations

from itertools import combinations
from typing import Any

import numpy as np
import polars as pl

from .._columns import ColumnSpec, resolve_columns


def cramers_v_pair(df: pl.DataFrame, a: str, b: str) -> float | None:
    """Cramér's V (eq. 7) of two columns over rows where both are non-null:
    ``sqrt(chi2 / (n (min(q, r) - 1)))``; None when a column has a single category.
    Counting is one Polars group_by; chi2 = n (sum n_ij^2 / (n_i. n_.j) - 1).

    >>> import polars as pl
    >>> cramers_v_pair(pl.DataFrame({"a": ["x", "x", "y", "y"], "b": [1, 1, 2, 2]}), "a", "b")
    1.0
    """
    t = df.select(a, b).drop_nulls().group_by(a, b).agg(pl.len().cast(pl.Float64).alias("__n__"))
    if t.height == 0:
        return None
    s = t.select(
        pl.col("__n__").sum().alias("n"),
        pl.col(a).n_unique().alias("q"),
        pl.col(b).n_unique().alias("r"),
        (pl.col("__n__") ** 2 / (pl.col("__n__").sum().over(a) * pl.col("__n__").sum().over(b))).sum().alias("s"),
    ).row(0, named=True)
    k = min(s["q"], s["r"])
    if k < 2:
        return None
    chi2 = max(s["n"] * (s["s"] - 1.0), 0.0)
    return float(min(np.sqrt(chi2 / (s["n"] * (k - 1))), 1.0))


def cramers_v(df: pl.DataFrame, columns: ColumnSpec = None) -> pl.DataFrame:
    """Cramér's V for every pair of ``columns`` (default: every String/Categorical/Enum
    column) as a symmetric matrix frame: a ``column`` name column then one Float64 column per
    variable; the diagonal is 1 (null for a single-category column), like Table 5.

    >>> import polars as pl
    >>> df = pl.DataFrame({"a": ["x", "x", "y", "y"], "b": ["u", "v", "u", "v"]})
    >>> cramers_v(df).rows()
    [('a', 1.0, 0.0), ('b', 0.0, 1.0)]
    """
    if columns is None:
        from .._columns import is_categorical

        columns = [c for c, t in df.schema.items() if is_categorical(t)]
    cols = resolve_columns(df, columns, kind="supported", what="columns", default="error")
    V = {(c, c): (1.0 if df.get_column(c).drop_nulls().n_unique() >= 2 else None) for c in cols}
    for a, b in combinations(cols, 2):
        V[a, b] = V[b, a] = cramers_v_pair(df, a, b)
    data: dict[str, Any] = {"column": cols}
    for b in cols:
        data[b] = [V[a, b] for a in cols]
    return pl.DataFrame(data, schema={"column": pl.String, **{c: pl.Float64 for c in cols}})
