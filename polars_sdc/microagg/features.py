"""Quasi-identifier columns -> the float matrix every partition kernel works on.

Mixed data use the product distance of thesis 3.1.3, ``d^2 = sum_c w_c d_c^2``, embedded so
that plain Euclidean distance on the matrix equals it and group centroids stay meaningful:
- numeric column: z-score (unless ``standardize=False``) times sqrt(w);
- nominal String / Categorical / Enum column (discrete distance, d = 0 or 1): one-hot of its
  category codes times sqrt(w / 2), so two different categories are exactly sqrt(w) apart;
- ordinal categorical column (Sano & Hattori eq. 2, d = rank difference / number of categories):
  rank / |D(V)| times sqrt(w), the rank being the Enum order or else the sorted order.

Extreme magnitudes (raw values or weights up to 1.8e308, or down to 1e-300): the whole matrix
is multiplied by one power of two so that its largest |entry| is O(1). That is exact, keeps
every ratio of distances, hence the partition, and keeps squared distances finite and nonzero.
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
    from ..standardize import SAFE_EXP, pow2_exponent, zscore

    weights = dict(weights or {})
    for c, w in weights.items():
        if c not in on:
            raise SDCError(f"column {c!r}: has a weight but is not a quasi-identifier")
        if isinstance(w, bool) or not (isinstance(w, (int, float, np.integer, np.floating)) and np.isfinite(w) and w >= 0):
            raise SDCError(f"column {c!r}: weight must be a finite number >= 0, got {w!r}")
    # each block is (values, e): the true features are values * 2^e, so neither a huge value
    # (|x| ~ 1e308 with standardize=False) nor a huge weight (w ~ 1e308) overflows here
    blocks: list[tuple[np.ndarray, int]] = []
    for c in on:
        s = df.get_column(c)
        w = float(weights.get(c, 1.0))
        if is_numeric(s.dtype):
            check_finite(df, [c])
            x = s.cast(pl.Float64).to_numpy().reshape(-1, 1)
            v = zscore(x) if standardize else x
            blocks.append(_weighted(v, w))
            continue
        check_no_nulls(df, [c])
        codes, size = category_codes(s)
        if c in ordinal:
            blocks.append(_weighted((codes / max(size, 1)).reshape(-1, 1), w))
            continue
        used, dense = np.unique(codes, return_inverse=True)
        if used.size > MAX_NOMINAL_CATEGORIES:
            raise SDCError(
                f"column {c!r}: {used.size} categories; more than {MAX_NOMINAL_CATEGORIES} nominal categories "
                "cannot take part in microaggregation — recode it first (df.sdc.recode), or, if its values "
                "are ordered, make it an Enum (or numeric) column and mark it ordinal"
            )
        block = np.zeros((s.len(), used.size))
        block[np.arange(s.len()), dense.ravel()] = 1.0
        blocks.append(_weighted(block, w / 2.0))
    if not blocks:
        return np.empty((df.height, 0))
    live = [(b, e + pow2_exponent(b)) for b, e in blocks if b.size and np.any(b != 0)]
    top = max((t for _, t in live), default=0)
    if all(e == 0 for _, e in blocks) and -SAFE_EXP <= top <= SAFE_EXP:
        return np.ascontiguousarray(np.hstack([b for b, _ in blocks]))  # the ordinary path, untouched
    # one common power of two for every block: the largest |feature| becomes O(1)
    return np.ascontiguousarray(np.hstack([np.ldexp(b, e - top) for b, e in blocks]))


def _sqrt_pow2(w: float) -> tuple[float, int]:
    """(m, e) with sqrt(w) = m * 2^e exactly up to the rounding of one sqrt; m in [0.5, 2)."""
    if w == 0.0:
        return 0.0, 0
    f, ew = np.frexp(w)
    if ew % 2:
        f, ew = f * 2.0, ew - 1
    return float(np.sqrt(f)), int(ew // 2)


def _weighted(v: np.ndarray, w: float) -> tuple[np.ndarray, int]:
    """The block v * sqrt(w) as (values, e): plainly when that is safe, else with v and
    sqrt(w) split into mantissa and power of two so nothing overflows or underflows."""
    from ..standardize import SAFE_EXP, pow2_exponent

    with np.errstate(over="ignore", under="ignore"):
        out = v * np.sqrt(w)
    if np.all(np.isfinite(out)) and -SAFE_EXP <= pow2_exponent(out) <= SAFE_EXP:
        if w == 0.0 or not np.any(v != 0) or np.any(out != 0):
            return out, 0
    m, ew = _sqrt_pow2(w)
    ev = pow2_exponent(v)
    return np.ldexp(v, -ev) * m, ev + ew
