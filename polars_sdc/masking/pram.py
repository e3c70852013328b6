"""PRAM, the post-randomisation method (Gouweleeuw et al. 1998), as sdcMicro 5.8.1's ``pram``.

Each category ``i`` of a column is released as category ``j`` with probability ``M[i, j]``.
By default ``M`` is built per column and stratum from ``pd`` and ``alpha`` (sdcMicro
``R/pram.R``):

1. ``P``: diagonal ``p_ii ~ U(pd, 1)``, off-diagonals ``(1 - p_ii) / (L - 1)`` (L categories);
2. ``Q``, the Bayes inverse of ``P`` under the observed frequencies ``p``:
   ``Q[k, j] = P[j, k] p_j / sum_l p_l P[l, k]``;
3. ``R = P Q`` is *invariant*: ``p R = p``, so the released frequencies equal the original ones
   in expectation;
4. the matrix used is ``alpha R + (1 - alpha) I`` (``alpha`` in [0, 1]: less change as it falls).

Or the user gives ``matrix`` (rows = from, columns = to, in the level order that
:func:`pram_matrix` reports). Nulls stay null. Random numbers come from :mod:`polars_sdc.rng`:
the diagonal of column ``c`` in stratum number ``s`` (0, 1, ... in the sorted order of the
strata, an Enum stratum by its label as on Spark; 0 without ``by``) from stream ``f"pram/{c}/pd/{s}"`` keyed by category index, each
row's draw from stream ``f"pram/{c}"`` keyed by row position or ``key`` (Walker's alias
method: one uniform per row).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from .. import rng
from .._columns import ColumnSpec, resolve_columns
from .._errors import SDCError
from ._common import check_fraction, check_seed, frame_keys, resolve_on, seed_or_fresh, strata, uniform


@dataclass
class PramMatrix:
    """The transition matrix used for one column (and stratum): ``matrix[i, j]`` is the
    probability that category ``levels[i]`` is released as ``levels[j]``.

    >>> import polars as pl, polars_sdc
    >>> df = pl.DataFrame({"c": ["a", "a", "b", "b", "b"]})
    >>> m = df.sdc.pram_matrix("c", matrix=[[0.9, 0.1], [0.2, 0.8]])["c"][0]
    >>> m.column, m.levels, m.matrix.tolist()
    ('c', ['a', 'b'], [[0.9, 0.1], [0.2, 0.8]])
    """

    column: str
    stratum: tuple
    levels: list
    matrix: np.ndarray

    def to_frame(self) -> pl.DataFrame:
        """The matrix as a frame: a ``from`` column and one column per released level.

        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"c": ["a", "a", "b", "b", "b"]})
        >>> df.sdc.pram_matrix("c", matrix=[[0.9, 0.1], [0.2, 0.8]])["c"][0].to_frame().rows()
        [('a', 0.9, 0.1), ('b', 0.2, 0.8)]
        """
        return pl.DataFrame({"from": [str(v) for v in self.levels]}).with_columns(
            pl.Series(str(v), self.matrix[:, j]) for j, v in enumerate(self.levels)
        )


def category_codes(s: pl.Series) -> tuple[pl.Series, np.ndarray]:
    """``(levels, codes)``: the column's categories (an Enum's declared order, else sorted) and
    each row's index into them (int64, -1 for null).

    >>> lv, codes = category_codes(pl.Series("c", ["b", None, "a", "b"]))
    >>> lv.to_list(), codes.tolist()
    (['a', 'b'], [1, -1, 0, 1])
    """
    dtype = s.dtype
    if isinstance(dtype, pl.Enum):
        levels = pl.Series(s.name, dtype.categories, dtype=pl.String)
        codes = s.to_physical()
    elif dtype in (pl.String, pl.Categorical):
        levels = s.cast(pl.String).drop_nulls().unique().sort()
        codes = s.cast(pl.String).cast(pl.Enum(levels.to_list())).to_physical()
    elif dtype.is_integer() or dtype == pl.Boolean:
        levels = s.drop_nulls().unique().sort()
        # Polars' search_sorted: numpy has no 128-bit integers (Int128 failed in to_numpy)
        codes = levels.search_sorted(s.fill_null(levels[0])).set(s.is_null(), None) if levels.len() \
            else pl.Series([None] * s.len(), dtype=pl.Int64)
    else:
        raise SDCError(f"column {s.name!r}: dtype {dtype} is not categorical (String, Categorical, Enum, integer)")
    return levels, codes.cast(pl.Int64).fill_null(-1).to_numpy()


def _from_codes(s: pl.Series, levels: pl.Series, codes: np.ndarray) -> pl.Series:
    nulls = codes < 0
    idx = pl.Series(np.where(nulls, 0, codes).astype(np.uint32))
    if nulls.any():
        idx = idx.set(pl.Series(nulls), None)
    if isinstance(s.dtype, (pl.Enum, pl.Categorical)):   # gather physical codes, not strings
        levels = levels.cast(s.dtype)
    out = levels.gather(idx).alias(s.name)
    return out.cast(s.dtype) if out.dtype != s.dtype else out


def transition_matrix(p: np.ndarray, diag: np.ndarray, alpha: float) -> np.ndarray:
    """sdcMicro's PRAM matrix ``alpha * P Q + (1 - alpha) * I`` from the category frequencies
    ``p`` and the drawn diagonal of ``P`` (see the module docstring).

    >>> M = transition_matrix(np.array([0.5, 0.3, 0.2]), np.array([0.9, 0.8, 0.85]), 1.0)
    >>> bool(np.allclose(np.array([0.5, 0.3, 0.2]) @ M, [0.5, 0.3, 0.2])), bool(np.allclose(M.sum(1), 1))
    (True, True)
    """
    L = diag.size
    if L == 1:
        return np.ones((1, 1))
    P = np.repeat(((1.0 - diag) / (L - 1))[:, None], L, axis=1)
    np.fill_diagonal(P, diag)
    s = p @ P                                    # s_k = sum_l p_l P[l, k]
    with np.errstate(divide="ignore", invalid="ignore"):
        Q = (P * p[:, None]).T / s[:, None]       # Q[k, j] = P[j, k] p_j / s_k
    bad = ~(s > 0)
    Q[bad] = 0.0
    Q[bad, bad.nonzero()[0]] = 1.0                # an unreachable released category: identity row
    R = P @ Q
    return alpha * R + (1.0 - alpha) * np.eye(L)


def _matrix_array(m: Any, column: str) -> np.ndarray:
    """``m`` as a float64 2-D array, or an SDCError naming the column (``matrix="eye"``)."""
    if isinstance(m, PramMatrix):
        m = m.matrix
    try:
        if isinstance(m, (str, bytes)):
            raise TypeError
        a = np.asarray(m, dtype=np.float64)
    except (TypeError, ValueError):
        raise SDCError(f"column {column!r}: the PRAM matrix must be a square array of numbers (rows = from, "
                       f"columns = to), got {m!r}") from None
    if a.ndim != 2:
        raise SDCError(f"column {column!r}: the PRAM matrix must be a square array of numbers (rows = from, "
                       f"columns = to), got {a.ndim} dimension(s)")
    # what needs no data (the size is the column's categories: checked with the data)
    if not np.isfinite(a).all() or (a < 0).any() or not np.allclose(a.sum(axis=1), 1.0, rtol=0, atol=1e-9):
        raise SDCError(f"column {column!r}: the PRAM matrix needs finite entries >= 0 and rows summing to 1")
    return a


def check_pd_and_matrix(cols: list[str], pd: Any, matrix: Any) -> None:
    """``pd`` (a fraction, or ``{column: fraction}`` naming only PRAM columns and every one
    without a ``matrix``) and ``matrix`` (an array, or ``{column: array}``), checked before
    any data are read.

    >>> check_pd_and_matrix(["c"], {"other": 0.5}, None)
    Traceback (most recent call last):
    ...
    polars_sdc._errors.SDCError: pd: column 'other' is not one of the PRAM columns ['c']
    """
    given = set(matrix) if isinstance(matrix, Mapping) else (set(cols) if matrix is not None else set())
    if isinstance(matrix, Mapping):
        unknown = [c for c in matrix if c not in cols]
        if unknown:
            raise SDCError(f"matrix: column {unknown[0]!r} is not one of the PRAM columns {cols}")
        for c, m in matrix.items():
            _matrix_array(m, c)
    elif matrix is not None:
        if len(cols) > 1:
            raise SDCError("matrix: give {column: matrix} when PRAM runs on several columns")
        _matrix_array(matrix, cols[0])
    if isinstance(pd, Mapping):
        unknown = [c for c in pd if c not in cols]
        if unknown:
            raise SDCError(f"pd: column {unknown[0]!r} is not one of the PRAM columns {cols}")
        for c in cols:
            if c not in pd and c not in given:
                raise SDCError(f"pd: no value for column {c!r}; give {{column: pd}} for every PRAM column")
            if c in pd:
                check_fraction(f"column {c!r}: pd", pd[c])
    else:
        for c in cols:
            if c not in given:
                check_fraction(f"column {c!r}: pd", pd)


def _check_matrix(m: Any, column: str, levels: list) -> np.ndarray:
    if isinstance(m, PramMatrix):
        if [str(v) for v in m.levels] != [str(v) for v in levels]:
            raise SDCError(f"column {column!r}: the matrix's levels {m.levels} differ from the column's {levels}")
        m = m.matrix
    a = _matrix_array(m, column)
    L = len(levels)
    if a.shape != (L, L):
        raise SDCError(f"column {column!r}: the PRAM matrix must be {L} x {L} (levels {levels}), got shape {a.shape}")
    return a


def _matrices(df: pl.DataFrame, cols: list[str], by: list[str], pd: Any, alpha: float, seed: int,
              matrix: Any) -> tuple[dict, np.ndarray, list[tuple], dict]:
    sidx, strata_vals = strata(df, by)
    S = len(strata_vals)
    out: dict[str, list[PramMatrix]] = {}
    codes_of: dict[str, tuple[pl.Series, np.ndarray]] = {}
    for c in cols:
        levels, codes = category_codes(df.get_column(c))
        codes_of[c] = (levels, codes)
        L = levels.len()
        lv = levels.to_list()
        user = None
        if matrix is not None:
            if isinstance(matrix, Mapping):
                user = matrix.get(c)
            elif len(cols) == 1:
                user = matrix
            else:
                raise SDCError("matrix: give {column: matrix} when PRAM runs on several columns")
        counts = None
        if user is None and L:
            ok = codes >= 0
            counts = np.bincount(sidx[ok] * L + codes[ok], minlength=S * L).reshape(S, L)
        out[c] = stratum_matrices(c, lv, counts, strata_vals, pd, alpha, seed, user)
    return out, sidx, strata_vals, codes_of


def stratum_matrices(c: str, levels: list, counts: np.ndarray | None, strata_vals: list[tuple], pd: Any,
                     alpha: float, seed: int, user: Any = None) -> list[PramMatrix]:
    """One :class:`PramMatrix` per stratum of column ``c``: the user's ``matrix`` if given, else
    :func:`transition_matrix` of the stratum's category frequencies ``counts[s]`` (S x L) with
    the diagonal ``pd + (1 - pd) U`` drawn per level from the keyed generator (local and Spark
    share this step)."""
    if user is not None:
        a = _check_matrix(user, c, levels)
        return [PramMatrix(c, s, levels, a) for s in strata_vals]
    pdc = check_fraction(f"column {c!r}: pd", pd[c] if isinstance(pd, Mapping) else pd)
    L = len(levels)
    mats = []
    for si, s in enumerate(strata_vals):
        if L == 0:
            mats.append(PramMatrix(c, s, levels, np.zeros((0, 0))))
            continue
        u = rng.uniform(seed, rng.stream("pram_pd", column=c, stratum=si), rng.row_positions(L))
        diag = pdc + (1.0 - pdc) * u
        tot = counts[si].sum()
        p = counts[si] / tot if tot else np.full(L, 1.0 / L)
        mats.append(PramMatrix(c, s, levels, transition_matrix(p, diag, alpha)))
    return mats


def _draw(codes: np.ndarray, sidx: np.ndarray, mats: list[PramMatrix], u: np.ndarray) -> np.ndarray:
    """Each row's released category, drawn from its row of its stratum's matrix with Walker's
    alias method (one uniform per row, O(1) per row): ``x = u L``, ``j = floor(x)``, release
    ``j`` if ``x - j < prob[j]`` else ``alias[j]``."""
    from ..kernels.masking import alias_tables

    L = mats[0].matrix.shape[0]
    if L <= 1 or not (codes >= 0).any():
        return codes.copy()
    M = np.ascontiguousarray(np.stack([m.matrix for m in mats]).reshape(-1, L))
    prob, alias = alias_tables(M / M.sum(axis=1, keepdims=True))
    if codes.shape[0] >= 200_000:
        from ..kernels.masking import alias_draw

        return alias_draw(codes, np.ascontiguousarray(sidx, dtype=np.int64), prob, alias, L, u)
    ok = codes >= 0
    r = np.where(ok, sidx * L + codes, 0)
    x = u * L
    j = np.minimum(x.astype(np.int64), L - 1)
    out = np.where(x - j < prob[r, j], j, alias[r, j])
    out[~ok] = -1
    return out


def _args(df_schema: pl.Schema, on: ColumnSpec, by: ColumnSpec, key: str | None, alpha: Any, seed: Any,
          pd: Any = 0.8, matrix: Any = None, household: str | None = None):
    from ..household import check_household_column

    cols = resolve_on(df_schema, on, key, kind="any", default="error")
    check_household_column(df_schema, household, cols)
    for c in cols:
        t = df_schema[c]
        if not (t in (pl.String, pl.Categorical, pl.Boolean) or isinstance(t, pl.Enum) or t.is_integer()):
            raise SDCError(f"column {c!r}: dtype {t} is not categorical (String, Categorical, Enum, integer)")
    by_cols = [] if by is None else resolve_columns(df_schema, by, what="by")
    for b in by_cols:
        if b in cols:
            raise SDCError(f"column {b!r}: in both `on` and `by`")
    if household is not None and household in by_cols:
        raise SDCError(f"column {household!r}: both the household id and a `by` column")
    a = check_fraction("alpha", alpha)
    check_seed(seed)
    check_pd_and_matrix(cols, pd, matrix)
    return cols, by_cols, a


def pram_matrix(
    df: pl.DataFrame, on: ColumnSpec, *, pd: Any = 0.8, alpha: float = 0.5, by: ColumnSpec = None,
    seed: int | None = None, matrix: Any = None,
) -> dict[str, list[PramMatrix]]:
    """The PRAM matrices :func:`pram_frame` uses with the same arguments: ``{column: [one
    PramMatrix per stratum]}`` (sdcMicro ``pram``'s ``Rs``).

    >>> df = pl.DataFrame({"c": ["a"] * 6 + ["b"] * 4})
    >>> m = pram_matrix(df, "c", pd=0.8, alpha=1.0, seed=1)["c"][0]
    >>> m.levels, np.round(np.array([0.6, 0.4]) @ m.matrix, 12).tolist()   # invariant: p M = p
    (['a', 'b'], [0.6, 0.4])
    """
    cols, by_cols, a = _args(df.schema, on, by, None, alpha, seed, pd, matrix)
    return _matrices(df, cols, by_cols, pd, a, seed_or_fresh(seed), matrix)[0]


def pram_frame(
    df: pl.DataFrame, on: ColumnSpec, *, pd: Any = 0.8, alpha: float = 0.5, by: ColumnSpec = None,
    seed: int | None = None, key: str | None = None, matrix: Any = None, household: str | None = None,
    household_columns: Sequence[str] | None = None, suppressed_as: str | None = None,
) -> pl.DataFrame:
    """PRAM on the categorical ``on`` columns (sdcMicro ``pram``; dtypes, nulls, row order and
    other columns kept). ``pd``: lower bound of the kept-category probabilities (one number or
    ``{column: pd}``); ``alpha``: weight of the invariant matrix; ``by``: strata (one matrix
    per stratum, from its own frequencies); ``matrix``: a user matrix (or ``{column: matrix}``).

    ``household``: the household id column; a household-level ``on`` column (constant within
    every household, :mod:`polars_sdc.household`) is PRAMed once per household (its matrix
    from the household frequencies, one draw per household) and the released category given to
    every member; person-level columns as without it. Without it, an evidently household-level
    column gets a :class:`polars_sdc.household.HouseholdWarning`.
    ``household_columns``: the household-level columns declared instead of detected (the others
    person-level; :func:`polars_sdc.household.check_household_columns`).
    ``suppressed_as``: on a generalised release (``df.sdc.generalize``, ARX), the label of its
    suppressed values (``"*"``): never a source nor a target of PRAM (no level of the matrix),
    so a suppressed record stays suppressed and no released record becomes one
    (:func:`polars_sdc.risk.suppressed.keep_suppressed`). None: every value is a category.

    >>> df = pl.DataFrame({"c": ["a", "b", "a", None]})
    >>> pram_frame(df, "c", matrix=np.eye(2))["c"].to_list()   # the identity gives the input back
    ['a', 'b', 'a', None]
    >>> df = pl.DataFrame({"hh": [1, 1, 1, 2, 3, 3], "region": ["n", "n", "n", "s", "n", "n"]})
    >>> out = pram_frame(df, "region", pd=0.5, seed=4, household="hh")
    >>> out.group_by("hh").agg(pl.col("region").n_unique()).get_column("region").max()
    1
    """
    from ..household import check_household_columns, mask_by_household

    cols, by_cols, a = _args(df.schema, on, by, key, alpha, seed, pd, matrix, household)
    declared = check_household_columns(df.schema, household, household_columns)
    s = seed_or_fresh(seed)
    if matrix is not None and not isinstance(matrix, Mapping):
        if len(cols) > 1:
            raise SDCError("matrix: give {column: matrix} when PRAM runs on several columns")
        matrix = {cols[0]: matrix}

    def run(frame: pl.DataFrame, columns: list[str], k: str | None) -> pl.DataFrame:
        return _pram(frame, columns, by_cols, pd, a, s, k, matrix)

    from ..risk.suppressed import keep_suppressed

    return keep_suppressed(df, cols, suppressed_as, lambda f: mask_by_household(
        f, household, cols, run, method="pram", by=by_cols, key=key, household_columns=declared))


def _pram(df: pl.DataFrame, cols: list[str], by_cols: list[str], pd: Any, a: float, s: int, key: str | None,
          matrix: Any) -> pl.DataFrame:
    mats, sidx, _, codes_of = _matrices(df, cols, by_cols, pd, a, s, matrix)
    keys = frame_keys(df, key)
    new = []
    for c in cols:
        levels, codes = codes_of[c]
        if levels.len() == 0:
            continue
        u = uniform(s, rng.stream("pram", column=c), keys)
        new.append(_from_codes(df.get_column(c), levels, _draw(codes, sidx, mats[c], u)))
    return df.with_columns(new) if new else df.clone()


def pram_output_schema(schema: pl.Schema) -> pl.Schema:
    """PRAM keeps every dtype."""
    return schema


# public names of the helpers the Spark back end shares (polars_sdc.spark.masking)
pram_arguments = _args
draw_categories = _draw
from_codes = _from_codes
