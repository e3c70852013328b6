"""Quasi-identifier columns -> the float matrix every partition kernel works on.

Mixed data use the product distance of thesis 3.1.3, ``d^2 = sum_c w_c d_c^2``, embedded so
that plain Euclidean distance on the matrix equals it and group centroids stay meaningful:
- numeric column: z-score (unless ``standardize=False``) times sqrt(w);
- nominal String / Categorical / Enum column (discrete distance, d = 0 or 1): one-hot of its
  category codes times sqrt(w / 2), so two different categories are exactly sqrt(w) apart;
- ordinal categorical column (seed 002 eq. 2, d = rank difference / number of categories):
  rank / |D(V)| times sqrt(w), the rank being the Enum order or else the sorted order.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import polars as pl

from .._columns import check_finite, check_no_nulls, is_numeric
from .._errors import SDCError

MAX_NOMINAL_CATEGORIES = 1024


def category_codes(s: pl.Series) -> tuple[np.ndarray, int]:
    """Dense codes 0..U-1 of a String/Categorical/Enum Series and U, the size of its domain
    (all Enum categories; the distinct values otherwise). Enum codes follow the Enum order,
    other codes the sorted order of the values."""
    if isinstance(s.dtype, pl.Enum):
        return s.to_physical().to_numpy().astype(np.int64), len(s.dtype.categories)
    codes = s.cast(pl.String).rank("dense").cast(pl.Int64).to_numpy() - 1
    return codes, int(codes.max()) + 1 if codes.size else 0


def feature_matrix(
    df: pl.DataFrame,
    on: Sequence[str],
    *,
    standardize: bool = True,
    ordinal: Sequence[str] = (),
    weights: Mapping[str, float] | None = None,
) -> np.ndarray:
    """The C-contiguous float64 matrix whose Euclidean distance is the product distance of
    the ``on`` columns (see the module docstring).

    >>> import polars as pl
    >>> feature_matrix(pl.DataFrame({"c": ["a", "b", "a"]}), ["c"]).round(4).tolist()
    [[0.7071, 0.0], [0.0, 0.7071], [0.7071, 0.0]]
    """
    from ..standardize import zscore

    weights = dict(weights or {})
    for c, w in weights.items():
        if c not in on:
            raise SDCError(f"column {c!r}: has a weight but is not a quasi-identifier")
        if not (isinstance(w, (int, float)) and np.isfinite(w) and w >= 0):
            raise SDCError(f"column {c!r}: weight must be a finite number >= 0, got {w!r}")
    blocks = []
    for c in on:
        s = df.get_column(c)
        w = float(weights.get(c, 1.0))
        if is_numeric(s.dtype):
            check_finite(df, [c])
            x = s.cast(pl.Float64).to_numpy().reshape(-1, 1)
            blocks.append((zscore(x) if standardize else x) * np.sqrt(w))
            continue
        check_no_nulls(df, [c])
        codes, size = category_codes(s)
        if c in ordinal:
            blocks.append((codes / max(size, 1) * np.sqrt(w)).reshape(-1, 1))
            continue
        used, dense = np.unique(codes, return_inverse=True)
        if used.size > MAX_NOMINAL_CATEGORIES:
            raise SDCError(
                f"column {c!r}: {used.size} categories; more than {MAX_NOMINAL_CATEGORIES} nominal categories "
                "cannot take part in microaggregation — recode it first (df.sdc.recode) or mark it ordinal"
            )
        block = np.zeros((s.len(), used.size))
        block[np.arange(s.len()), dense.ravel()] = np.sqrt(w / 2.0)
        blocks.append(block)
    return np.ascontiguousarray(np.hstack(blocks)) if blocks else np.empty((df.height, 0))
