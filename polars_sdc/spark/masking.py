"""The masking toolkit on Spark: PRAM, noise addition and rank swapping, equal to the local
methods of :mod:`polars_sdc.masking` for the same data, seed and ``key`` column.

Every draw comes from the one per-row generator (:mod:`polars_sdc.rng`) keyed by the ``key``
column, so it is the same whatever the partitioning, the number of executors or a task retry;
row positions are not stable in Spark, so ``key`` is required. What each method needs of the
whole table is computed by Spark aggregations and only that small metadata reaches the driver:

- :func:`pram`: the category counts per column and stratum (one ``groupingSets`` aggregation);
  the driver builds each transition matrix exactly as local ``df.sdc.pram`` (sdcMicro's
  ``alpha P Q + (1 - alpha) I``, Gouweleeuw et al. 1998), and each row's release is drawn in
  its task with Walker's alias method: the result is *identical* to local.
- :func:`add_noise`: per stratum the means and covariance (``avg`` / ``covar_samp``) for
  ``"additive"``, ``"correlated"`` (Kim 1986) and ``"correlated2"``; ``"moments"`` takes a
  second pass over the data with its drawn noise (the joint covariance of ``[X, Z]``) before
  recolouring. Equal to local up to the rounding of the sums (~1e-15 relative).
- :func:`rank_swap` (Moore 1996): the walk up the ranks is sequential (the partner chosen at
  rank ``j`` depends on every earlier choice within ``p * n`` ranks), so a stratum is not split:
  each ``by`` stratum is swapped in one task (``groupBy(by).applyInArrow``); strata run in
  parallel, and a stratum must fit one task's memory. Identical to local.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import polars as pl

from .. import rng
from .._columns import ColumnSpec
from .._errors import SDCError
from .._signature import check_keywords
from ..household import check_household_columns
from ._common import (bad_totals, bad_value_counts, key_nulls, need_key, polars_schema, raise_bad, require_pyspark, run_frames,
                      verify_key)
from .household import mask_households

STRATUM = "__sdc_stratum"


def strata_table(values: pl.DataFrame, by: list[str]) -> pl.DataFrame:
    """The distinct ``by`` values numbered as local :func:`polars_sdc.masking._common.strata`
    numbers them (sorted by value, nulls last), index column ``__sdc_stratum``.

    >>> strata_table(pl.DataFrame({"r": ["b", None, "a", "b"]}), ["r"]).rows()
    [(0, 'a'), (1, 'b'), (2, None)]
    """
    return values.select(by).unique().sort(by, nulls_last=True).with_row_index(STRATUM)


def row_strata(df: pl.DataFrame, by: list[str], table: pl.DataFrame | None) -> np.ndarray:
    """Each row's stratum index in ``table`` (:func:`strata_table`); zeros without ``by``.

    >>> t = strata_table(pl.DataFrame({"r": ["b", "a"]}), ["r"])
    >>> row_strata(pl.DataFrame({"r": ["a", "b", "b"]}), ["r"], t).tolist()
    [0, 1, 1]
    """
    if not by:
        return np.zeros(df.height, dtype=np.int64)
    idx = df.select(by).join(table, on=by, how="left", nulls_equal=True, maintain_order="left")
    return idx.get_column(STRATUM).to_numpy().astype(np.int64)


# ----------------------------------------------------------------------------------------- PRAM

@check_keywords
def pram(
    sdf: Any,
    on: ColumnSpec,
    *,
    pd: Any = 0.8,
    alpha: float = 0.5,
    by: ColumnSpec = None,
    seed: int | None = None,
    key: str | None = None,
    matrix: Any = None,
    household: str | None = None,
    household_columns: Sequence[str] | None = None,
    levels: Mapping[str, list] | None = None,
    check_key: bool = True,
) -> Any:
    """PRAM (Gouweleeuw et al. 1998; sdcMicro ``pram``) of the categorical ``on`` columns,
    identical to local ``df.sdc.pram(on, pd=, alpha=, by=, seed=, key=, matrix=)``: the
    category counts per column and ``by`` stratum come from one aggregation, the matrices
    ``alpha P Q + (1 - alpha) I`` are built on the driver exactly as locally, each row is
    drawn from stream ``pram/{column}`` keyed by ``key``. Dtypes, nulls and other columns
    kept. ``levels={column: [...]}``: the level order of a local Enum column (Spark has no
    Enum; by default the sorted observed values, as for a local String or integer column).
    ``check_key`` verifies the key has no null and no repeated value. ``household``: the
    household id; household-level columns (detected, or declared by ``household_columns``)
    PRAMed once per household and joined back (:mod:`polars_sdc.spark.household`).

    >>> from polars_sdc import spark as sdcs                                   # doctest: +SKIP
    >>> out = sdcs.pram(sdf, "occupation", pd=0.8, by="region", seed=7, key="person_id")  # doctest: +SKIP
    """
    require_pyspark(sdf)
    from pyspark.sql import functions as F

    from ..masking._common import seed_or_fresh, uniform
    from ..masking.pram import draw_categories, from_codes, pram_arguments, pram_output_schema

    need_key(key, "pram")
    schema = polars_schema(sdf)
    cols, by_cols, a = pram_arguments(schema, on, by, key, alpha, seed, pd, matrix, household)
    declared = check_household_columns(schema, household, household_columns)
    if household is not None:
        s = seed_or_fresh(seed)
        if matrix is not None and not isinstance(matrix, Mapping) and len(cols) == 1:
            matrix = {cols[0]: matrix}
        return mask_households(sdf, household, cols, lambda f, cs, k: pram(
            f, cs, pd=pd, alpha=alpha, by=by_cols or None, seed=s, key=k, matrix=matrix, levels=levels,
            check_key=check_key), by=by_cols, key=key, declared=declared)
    unknown = [c for c in (levels or {}) if c not in cols]
    if unknown:
        raise SDCError(f"levels: column {unknown[0]!r} is not one of the PRAM columns {cols}")
    if matrix is not None and not isinstance(matrix, Mapping) and len(cols) > 1:
        raise SDCError("matrix: give {column: matrix} when PRAM runs on several columns")
    s = seed_or_fresh(seed)
    sets = [by_cols] + [by_cols + [c] for c in cols]
    counts = pl.from_arrow(sdf.groupingSets(sets, *by_cols, *cols).agg(
        F.count(F.lit(1)).alias("__sdc_n"), *[F.grouping(c).alias(f"__sdc_g{i}") for i, c in enumerate(cols)],
        *([key_nulls(key)] if check_key else []),
    ).toArrow())
    whole = counts.filter(pl.all_horizontal(pl.col(f"__sdc_g{i}") == 1 for i in range(len(cols))))
    if check_key:
        verify_key(sdf, key, int(whole["__sdc_key_nulls"].sum()))
    table = strata_table(whole, by_cols) if by_cols else None
    plans = {}
    for i, c in enumerate(cols):
        lv, mats = _pram_plan(c, counts.filter(pl.col(f"__sdc_g{i}") == 0).select(*by_cols, c, "__sdc_n"), by_cols,
                              table, schema[c], pd, a, s, matrix, None if levels is None else levels.get(c))
        if lv.len():
            plans[c] = (pl.DataFrame({c: lv, "__sdc_code": np.arange(lv.len(), dtype=np.int64)}), lv, mats)
    if not plans:
        return sdf

    def task(df: pl.DataFrame) -> pl.DataFrame:
        keys = rng.row_keys(df.get_column(key))
        sidx = row_strata(df, by_cols, table)
        new = []
        for c, (code_of, lv, mats) in plans.items():
            codes = df.select(c).join(code_of, on=c, how="left", maintain_order="left") \
                .get_column("__sdc_code").fill_null(-1).to_numpy()
            new.append(from_codes(df.get_column(c), lv, draw_categories(codes, sidx, mats,
                                                                        uniform(s, rng.stream("pram", column=c), keys))))
        return df.with_columns(new)

    return run_frames(sdf, task, pram_output_schema(schema))


def _pram_plan(c: str, t: pl.DataFrame, by: list[str], table: pl.DataFrame | None, dtype: pl.DataType, pd: Any,
               alpha: float, seed: int, matrix: Any, given: list | None) -> tuple[pl.Series, list]:
    """(levels, one PramMatrix per stratum) of column ``c`` from its counts ``t`` (by..., c,
    __n): the arithmetic of local ``masking.pram._matrices``."""
    from ..masking.pram import stratum_matrices

    seen = t.get_column(c).drop_nulls().unique().sort()
    if given is not None:
        try:
            lv = pl.Series(c, list(given), dtype=dtype, strict=True)
        except Exception as e:  # noqa: BLE001 - polars raises several types for a bad cast
            raise SDCError(f"column {c!r}: levels {given!r} are not values of its dtype {dtype}") from e
        if lv.is_duplicated().any() or lv.null_count():
            raise SDCError(f"column {c!r}: levels must be distinct non-null values")
        missing = seen.filter(~seen.is_in(lv.implode()))
        if missing.len():
            raise SDCError(f"column {c!r}: value {missing[0]!r} is not in the given levels")
    else:
        lv = seen.alias(c)
    L = lv.len()
    strata_vals = table.drop(STRATUM).rows() if table is not None else [()]
    user = None
    if matrix is not None:
        user = matrix.get(c) if isinstance(matrix, Mapping) else matrix
    counts = None
    if user is None and L:
        counts = np.zeros((len(strata_vals), L), dtype=np.int64)
        ok = t.filter(pl.col(c).is_not_null()).join(
            pl.DataFrame({c: lv, "__sdc_li": np.arange(L, dtype=np.int64)}), on=c, how="left")
        si = row_strata(ok, by, table) if by else np.zeros(ok.height, dtype=np.int64)
        np.add.at(counts, (si, ok.get_column("__sdc_li").to_numpy()), ok.get_column("__sdc_n").to_numpy())
    return lv, stratum_matrices(c, lv.to_list(), counts, strata_vals, pd, alpha, seed, user)


# ------------------------------------------------------------------------------------ add_noise

def _driver_start(sdf: Any, columns_of: Any, on: ColumnSpec, by: ColumnSpec, key: str | None, seed: int | None,
                  household: str | None, household_columns: Sequence[str] | None) -> tuple[Any, ...]:
    """The driver-side start of :func:`add_noise` and :func:`rank_swap`: (local schema, ``on``
    columns, ``by`` columns, declared household-level columns, seed). ``columns_of`` is the local
    method's resolver of ``on`` / ``by`` (``household`` id checked); the seed is checked, and one is
    drawn when None, so every task and the household rows share it."""
    from .._validation import check_seed
    from ..masking._common import seed_or_fresh

    check_seed(seed)
    schema = polars_schema(sdf)
    cols, by_cols = columns_of(schema, on, by, key, household)
    return schema, cols, by_cols, check_household_columns(schema, household, household_columns), seed_or_fresh(seed)


@check_keywords
def add_noise(
    sdf: Any,
    on: ColumnSpec = None,
    *,
    method: str = "additive",
    noise: float = 150.0,
    delta: float = 0.1,
    by: ColumnSpec = None,
    seed: int | None = None,
    key: str | None = None,
    household: str | None = None,
    household_columns: Sequence[str] | None = None,
    check_key: bool = True,
) -> Any:
    """Noise on the numeric ``on`` columns (double out; sdcMicro ``addNoise``), equal to local
    ``df.sdc.add_noise(on, method=, noise=, delta=, by=, seed=, key=, household=)`` up to the
    rounding of the sums (~1e-15 relative): the means, standard deviations and covariance of
    each ``by`` stratum come from one Spark aggregation (``avg`` / ``covar_samp``); ``"moments"``
    adds a second aggregation over the data with its drawn noise (the joint covariance of
    ``[X, Z]`` that the recolouring needs). Normal draws from stream ``add_noise/{column}`` keyed
    by ``key``. A stratum needs 2 rows (``p + 2`` for ``"moments"`` on ``p`` columns, also without
    ``by``: fewer pin the records), as locally. Structural nulls stay null, as locally:
    ``"additive"`` and ``"correlated2"`` use each column's moments over its non-null values;
    ``"correlated"`` and ``"moments"`` treat each null pattern (the set of non-null ``on``
    columns of a row) within a stratum as a stratum of its own (the pattern is one more
    grouping key of the aggregations). ``household``: the household id; household-level columns
    (detected, or declared by ``household_columns``) noised once per household (key: the household id) and joined back
    (:mod:`polars_sdc.spark.household`).

    >>> from polars_sdc import spark as sdcs                                   # doctest: +SKIP
    >>> out = sdcs.add_noise(sdf, ["income"], method="correlated", by="region", seed=7, key="person_id")  # doctest: +SKIP
    """
    require_pyspark(sdf)
    from pyspark.sql import functions as F

    from ..masking._common import on_by_household
    from ..masking.add_noise import add_noise_output_schema, check_args, latent_normals, scale_exponents

    need_key(key, "add_noise")
    method, noise, delta = check_args(method, noise, delta)
    schema, cols, by_cols, declared, s = _driver_start(sdf, on_by_household, on, by, key, seed, household,
                                                       household_columns)
    if household is not None:            # household-level columns once per household, joined back
        return mask_households(sdf, household, cols, lambda f, cs, k: add_noise(
            f, cs, method=method, noise=noise, delta=delta, by=by_cols or None, seed=s, key=k, check_key=check_key),
            by=by_cols, key=key, declared=declared)
    p = len(cols)
    xs = [F.col(c).cast("double") for c in cols]
    # column-wise methods: moments of each column's non-null values; the others: per null pattern
    columnwise = method in ("additive", "correlated2")
    group = [*by_cols] if columnwise else [*by_cols, PATTERN]
    frame = sdf if columnwise else sdf.withColumn(PATTERN, _pattern_expr(cols))
    aggs = [F.count(F.lit(1)).alias("__sdc_n"), *bad_value_counts(sdf, cols, schema, nulls=True)]
    aggs += [F.count(x).alias(f"__sdc_nn{j}") for j, x in enumerate(xs)]
    if check_key:
        aggs.append(key_nulls(key))
    if method == "moments":                                  # constant columns stay out of the recolouring
        aggs += [(F.min(x) == F.max(x)).alias(f"__sdc_const{j}") for j, x in enumerate(xs)]
        # the means, to centre the second pass on: its averages are then the rounding residues
        # of these means (the local release's `resid`), exact where a sum of n values is not
        aggs += [F.avg(x).alias(f"__sdc_mean{j}") for j, x in enumerate(xs)]
    # each unit's columns brought to magnitude ~1 by a power of two before any square is summed,
    # as the local add_noise_values (no underflow at 1e-300, no overflow at 1e200)
    aggs += [F.max(F.abs(x)).alias(f"__sdc_a{j}") for j, x in enumerate(xs)]
    wide = [j for j, c in enumerate(cols) if schema[c] in (pl.Int64, pl.UInt64)]
    aggs += [a for j in wide for a in _split_sums(cols[j], j)]
    stats = pl.from_arrow(frame.groupBy(*group).agg(*aggs).toArrow())
    raise_bad(cols, bad_totals(stats))
    stats = stats.with_columns(pl.Series(f"__sdc_e{j}", scale_exponents(stats[f"__sdc_a{j}"].fill_null(0.0).to_numpy()))
                               for j in range(p))
    if check_key:
        verify_key(sdf, key, int(stats["__sdc_key_nulls"].sum()))
    table = strata_table(stats, by_cols) if by_cols else None
    stats = stats.join(table, on=by_cols, how="left", nulls_equal=True) if by_cols \
        else stats.with_columns(pl.lit(0, pl.UInt32).alias(STRATUM))
    stats = stats.sort(STRATUM, *([] if columnwise else [PATTERN]))
    nulls = any(int(stats[f"__sdc_nn{j}"].sum()) < int(stats["__sdc_n"].sum()) for j in range(p))
    _check_resolution(stats, cols, wide, by_cols, nulls and not columnwise)
    units = _noise_units(stats, cols, by_cols, method, columnwise, nulls)
    a = noise / 100.0
    if method == "moments":
        G, mu = _joint_moments(frame, cols, group, stats, key, s)
        params = {u: _moments_params(G[i], mu[i], js, p, a, stats.row(i, named=True))
                  for i, (u, js) in enumerate(units.items()) if js is not None}
    else:
        pairs = [(i, j) for i in range(p) for j in range(i, p) if method == "correlated" or i == j]
        moments = _scaled_moments(frame, cols, group, stats, key, s, draws=False, pairs=pairs)
        stats = pl.concat([stats, moments.drop(group)], how="horizontal")
        params = {u: _noise_params(stats.row(i, named=True), js, method, a, delta)
                  for i, (u, js) in enumerate(units.items()) if js is not None}

    def task(df: pl.DataFrame) -> pl.DataFrame:
        X = np.empty((df.height, p), order="F")
        for j, c in enumerate(cols):
            X[:, j] = df.get_column(c).cast(pl.Float64).fill_null(0.0).to_numpy()
        null = np.column_stack([df.get_column(c).is_null().to_numpy() for c in cols]) if nulls else None
        Z = latent_normals(s, cols, rng.row_keys(df.get_column(key)))
        sidx = row_strata(df, by_cols, table)
        Y = X.copy(order="F")
        if columnwise:
            for k in np.unique(sidx):
                rows = np.flatnonzero(sidx == k)
                Y[rows] = _noise_rows(X[rows], Z[rows], method, params.get((int(k),)), delta)
        else:
            pat = _row_patterns(null, df.height, p)
            for k, q in np.unique(np.column_stack([sidx, pat]), axis=0):
                js = _bits(int(q), p)
                if not js:
                    continue
                rows = np.flatnonzero((sidx == k) & (pat == q))
                Y[np.ix_(rows, js)] = _noise_rows(X[np.ix_(rows, js)], Z[np.ix_(rows, js)], method,
                                                  params.get((int(k), int(q))), delta)
        bad = ~np.isfinite(Y if null is None else np.where(null, 0.0, Y)).all(axis=0)
        if bad.any():
            raise SDCError(f"column {cols[int(np.argmax(bad))]!r}: the noisy values overflow float64")
        out = []
        for j, c in enumerate(cols):
            ser = pl.Series(c, Y[:, j], dtype=pl.Float64)
            if null is not None and null[:, j].any():
                ser = ser.set(pl.Series(null[:, j]), None)
            out.append(ser)
        return df.with_columns(out)

    return run_frames(sdf, task, add_noise_output_schema(schema, cols))


PATTERN = "__sdc_pattern"


def _split_sums(c: str, j: int) -> list[Any]:
    """The aggregates :func:`polars_sdc.masking.add_noise.resolution_error` reads of a long
    column ``c`` (position ``j``): min, max and the exact decimal sums of ``h``, ``l``, ``h^2``,
    ``h l``, ``l^2`` with ``x = h 2^32 + l`` (a long's square overflows; these do not)."""
    from pyspark.sql import functions as F

    x = F.col(c)
    h = F.shiftright(x, 32).cast("decimal(20,0)")
    lo = x.bitwiseAND(F.lit(0xFFFFFFFF)).cast("decimal(20,0)")
    return [F.min(x).alias(f"__sdc_lo{j}"), F.max(x).alias(f"__sdc_hi{j}"),
            *(F.sum(e).alias(f"__sdc_s{j}_{i}") for i, e in enumerate([h, lo, h * h, h * lo, lo * lo]))]


def _check_resolution(stats: pl.DataFrame, cols: list[str], wide: list[int], by: list[str], patterns: bool) -> None:
    """The local check (:func:`polars_sdc.masking.add_noise.resolution_error`) of the long
    ``on`` columns at positions ``wide`` on each unit's driver aggregates (``stats``: one row
    per stratum, or stratum and null pattern, in the local order), with the local message."""
    from ..masking.add_noise import resolution_error

    for r in stats.iter_rows(named=True):
        for j in wide:
            err = resolution_error(cols[j], r[f"__sdc_nn{j}"], r[f"__sdc_lo{j}"], r[f"__sdc_hi{j}"],
                                   [r[f"__sdc_s{j}_{i}"] for i in range(5)],
                                   stratum={b: r[b] for b in by} if by else None,
                                   pattern=[cols[i] for i in _bits(int(r[PATTERN]), len(cols))] if patterns else None)
            if err is not None:
                raise err


def _pattern_expr(cols: list[str]) -> Any:
    """A row's null pattern over ``cols`` as a Spark long: bit j set when column j is non-null."""
    from pyspark.sql import functions as F

    out = F.lit(0).cast("long")
    for j, c in enumerate(cols):
        out = out + F.when(F.col(c).isNotNull(), F.lit(1 << j)).otherwise(F.lit(0)).cast("long")
    return out


def _row_patterns(null: np.ndarray | None, n: int, p: int) -> np.ndarray:
    """:func:`_pattern_expr` of each row of a task (``null``: the (n, p) null mask or None)."""
    if null is None:
        return np.full(n, (1 << p) - 1, dtype=np.int64)
    return ((~null).astype(np.int64) << np.arange(p, dtype=np.int64)).sum(axis=1)


def _bits(q: int, p: int) -> list[int]:
    """The column positions of the null pattern ``q`` (its set bits)."""
    return [j for j in range(p) if (q >> j) & 1]


def _noise_units(stats: pl.DataFrame, cols: list[str], by: list[str], method: str, columnwise: bool,
                 nulls: bool) -> dict[tuple, list[int] | None]:
    """``{unit: column positions}`` in the order of ``stats`` (one row per unit: a stratum, or a
    stratum and null pattern; None for an all-null pattern, left null), after the local checks of
    :func:`polars_sdc.masking.add_noise.add_noise_frame` on the units' row counts: a stratum (null
    pattern) smaller than the method needs is an error naming it, as locally."""
    from ..masking.add_noise import min_stratum_rows, moments_rows_error, small_stratum_error

    p = len(cols)
    units: dict[tuple, list[int] | None] = {}
    multi = not columnwise and stats.get_column(PATTERN).n_unique() > 1
    for r in stats.iter_rows(named=True):
        vals = dict(zip(by, (r[b] for b in by)))
        if columnwise:
            units[(int(r[STRATUM]),)] = list(range(p))
            need = min_stratum_rows(method, 1)
            for j, c in enumerate(cols):
                n = int(r[f"__sdc_nn{j}"]) if nulls else int(r["__sdc_n"])
                if by and 0 < n < need:
                    where = f" (non-null values of {c!r})" if nulls else ""
                    err = small_stratum_error(vals, n, method, 1 if nulls else p)
                    raise SDCError(str(err).replace(" of `by`:", f" of `by`{where}:", 1)) if where else err
            continue
        q = int(r[PATTERN])
        js = _bits(q, p)
        units[(int(r[STRATUM]), q)] = js or None
        if not js:
            continue
        n, need = int(r["__sdc_n"]), min_stratum_rows(method, len(js))
        where = f" (rows whose non-null `on` columns are {[cols[j] for j in js]!r})" if nulls else ""
        if by:
            if n < need:
                err = small_stratum_error(vals, n, method, len(js))
                raise SDCError(str(err).replace(" of `by`:", f" of `by`{where}:", 1)) if where else err
        elif multi and n < need:
            raise SDCError(f"{n} row(s){where}; add_noise method={method!r} needs at least {need} rows per null "
                           "pattern (fill the nulls or mask these columns apart)")
        elif method == "moments":
            err = moments_rows_error(n, len(js))
            if err is not None:
                raise err
    return units


def _noise_params(row: dict, js: list[int], method: str, a: float, delta: float) -> dict | None:
    """The per-unit constants of the local ``add_noise_values`` from the unit's means and
    (co)variances over the columns ``js``: ``scale`` (sds, 1 where 0), ``mu`` (mean / scale),
    ``S`` (covariance of X / scale), and the method's noise matrix or factors. None: fewer than
    2 rows (unchanged)."""
    from ..masking.add_noise import psd_root

    if row["__sdc_n"] < 2:
        return None
    e = np.array([row[f"__sdc_e{j}"] for j in js], dtype=np.int32)
    var = np.array([np.nan if row[f"__sdc_c{j}_{j}"] is None else row[f"__sdc_c{j}_{j}"] for j in js], dtype=np.float64)
    scale = np.sqrt(var)
    scale[~(scale > 0)] = 1.0
    if method == "correlated":
        q = len(js)
        C = np.empty((q, q))
        for u in range(q):
            for v in range(u, q):
                C[u, v] = C[v, u] = row[f"__sdc_c{js[u]}_{js[v]}"]
        S = C / np.outer(scale, scale)
        return {"scale": scale, "W": math.sqrt(a) * psd_root(S), "e": e}
    mu = np.array([np.nan if row[f"__sdc_m{j}"] is None else row[f"__sdc_m{j}"] for j in js], dtype=np.float64) / scale
    sd = np.sqrt(var / (scale * scale))
    f = (a if method == "additive" else delta) * sd
    # a column with fewer than 2 non-null values in the stratum is released unchanged, as locally
    keep = np.array([row[f"__sdc_nn{j}"] < 2 for j in js])
    return {"scale": scale, "f": f, "shift": (1.0 - math.sqrt(1.0 - delta * delta)) * mu, "keep": keep, "e": e}


def _noise_rows(X: np.ndarray, Z: np.ndarray, method: str, q: Any, delta: float) -> np.ndarray:
    """The local ``add_noise_values`` arithmetic on these rows with the unit's constants, in
    the unit's power-of-two scale (``e``: exact, undone at the end)."""
    if q is None:
        return X
    if method == "moments":
        Mt, mu, p, const, e, resid = q
        X = np.ldexp(X, e)
        B = np.hstack([X - mu[:p] - resid, Z - mu[p:]])
        Y = (Mt @ B.T).T + resid + mu[:p]
        Y[:, const] = X[:, const]                    # a constant column keeps its value exactly
        return np.ldexp(Y, -e)
    X = np.ldexp(X, q["e"])
    Xs = X / q["scale"]
    if method == "additive":
        Y = Z * q["f"] + Xs
    elif method == "correlated2":
        Y = Xs * math.sqrt(1.0 - delta * delta) + (Z * q["f"] + q["shift"])
    else:
        Y = Z @ q["W"] + Xs
    Y = Y * q["scale"]
    if q.get("keep") is not None and q["keep"].any():
        Y[:, q["keep"]] = X[:, q["keep"]]
    return np.ldexp(Y, -q["e"])


def _row_exponents(df: pl.DataFrame, group: list[str], stats: pl.DataFrame, p: int,
                   prefix: str = "__sdc_e") -> np.ndarray:
    """The (rows, p) power-of-two exponents ``__e<j>`` of each row's unit (``stats``: one row per
    unit, ``group`` its columns); another ``prefix``: that per-unit value (the means)."""
    names = [f"{prefix}{j}" for j in range(p)]
    if not group:
        return np.broadcast_to(stats.select(names).to_numpy()[:1], (df.height, p))
    j = df.select(group).join(stats.select(*group, *names), on=group, how="left", nulls_equal=True,
                              maintain_order="left")
    return j.select(names).to_numpy()


def _scaled_moments(frame: Any, cols: list[str], group: list[str], stats: pl.DataFrame, key: str, seed: int, *,
                    draws: bool, pairs: list[tuple[int, int]]) -> pl.DataFrame:
    """One pass over the data: per unit (the rows of ``stats``, in its order; ``group`` their
    Spark columns) the means ``__m<i>`` and sample covariances (n - 1) ``__c<i>_<j>`` (the
    ``pairs``) of the ``cols`` scaled by their unit's power of two (``__e<j>`` of ``stats``;
    nulls stay null and are skipped), and with ``draws`` of their drawn normals too (column
    ``p + j``: the joint moments of ``[X, Z]`` that ``"moments"`` needs)."""
    from pyspark.sql import functions as F

    from ..masking.add_noise import latent_normals

    p = len(cols)
    names = [f"__sdc_x{j}" for j in range(p)] + ([f"__sdc_z{j}" for j in range(p)] if draws else [])
    in_schema = polars_schema(frame)
    out = pl.Schema({**{g: in_schema[g] for g in group}, **{n: pl.Float64 for n in names}})
    centre = draws and "__sdc_mean0" in stats.columns       # "moments": centred on the first pass's means
    etable = stats.select(*group, *[f"__sdc_e{j}" for j in range(p)],
                          *([pl.col(f"__sdc_mean{j}").fill_null(0.0) for j in range(p)] if centre else []))

    def scale(df: pl.DataFrame) -> pl.DataFrame:
        e = _row_exponents(df, group, etable, p)
        X = np.ldexp(df.select(pl.col(c).cast(pl.Float64).fill_null(0.0) for c in cols).to_numpy(), e)
        if centre:
            X -= np.ldexp(_row_exponents(df, group, etable, p, "__sdc_mean"), e)
        new = [pl.when(pl.col(c).is_null()).then(None).otherwise(pl.Series(f"__sdc_v{j}", X[:, j])).alias(f"__sdc_x{j}")
               for j, c in enumerate(cols)]
        res = df.select(*group, *new)
        if draws:
            Z = latent_normals(seed, cols, rng.row_keys(df.get_column(key)))
            res = res.with_columns(pl.Series(f"__sdc_z{j}", Z[:, j]) for j in range(p))
        return res

    g = run_frames(frame.select(*dict.fromkeys([key, *group, *cols])), scale, out).groupBy(*group).agg(
        *[F.avg(n).alias(f"__sdc_m{i}") for i, n in enumerate(names)],
        *[F.covar_samp(names[i], names[j]).alias(f"__sdc_c{i}_{j}") for i, j in pairs])
    t = pl.from_arrow(g.toArrow())
    if not group:
        return t
    return stats.select(*group).join(t, on=group, how="left", nulls_equal=True, maintain_order="left")


def _joint_moments(frame: Any, cols: list[str], group: list[str], stats: pl.DataFrame, key: str,
                   seed: int) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Per unit (in ``stats`` order, ``group`` its Spark columns) the sample covariance (n - 1)
    and the means of ``[X, Z]``: X the ``cols`` in their unit's power-of-two scale, Z their drawn
    normals — the second pass of ``"moments"``. A column absent from a unit (null there) has a
    null covariance, read as 0."""
    q = 2 * len(cols)
    t = _scaled_moments(frame, cols, group, stats, key, seed, draws=True,
                        pairs=[(i, j) for i in range(q) for j in range(i, q)])
    Gs, mus = [], []
    for r in t.iter_rows(named=True):
        G = np.zeros((q, q))
        for i in range(q):
            for j in range(i, q):
                v = r[f"__sdc_c{i}_{j}"]
                G[i, j] = G[j, i] = 0.0 if v is None or not math.isfinite(v) else v
        Gs.append(G)
        mus.append(np.array([np.nan if r[f"__sdc_m{i}"] is None else r[f"__sdc_m{i}"] for i in range(q)],
                            dtype=np.float64))
    return Gs, mus


def _moments_params(G: np.ndarray, mu: np.ndarray, js: list[int], p: int, a: float,
                    row: dict) -> tuple[np.ndarray, np.ndarray, int, np.ndarray, np.ndarray] | None:
    """``(Mt, mu, p, const, e, resid)`` of the local ``"moments"`` release of a unit on its
    columns ``js`` from the joint covariance ``G`` of ``[X, Z]`` and the means ``mu`` of the
    second pass (for X: centred on the first pass's means ``m``, so the residues ``resid`` of
    those means): the release is ``Y = [X - m - resid, Z - mean] Mt' + m + resid`` (the local
    release removes its mean's residue the same way), the ``const`` columns (one value in the
    unit) kept as they are. None: one row."""
    from ..masking.add_noise import moments_matrix

    if row["__sdc_n"] < 2:
        return None
    idx = np.array(js + [p + j for j in js])
    const = np.array([bool(row[f"__sdc_const{j}"]) for j in js])
    e = np.array([row[f"__sdc_e{j}"] for j in js], dtype=np.int32)
    m = np.ldexp(np.array([row[f"__sdc_mean{j}"] or 0.0 for j in js], dtype=np.float64), e)
    mu = mu[idx].copy()
    resid = np.nan_to_num(mu[:len(js)])
    mu[:len(js)] = m
    return moments_matrix(G[np.ix_(idx, idx)], len(js), a, const), mu, len(js), const, e, resid


# ------------------------------------------------------------------------------------ rank_swap

@check_keywords
def rank_swap(
    sdf: Any,
    on: ColumnSpec = None,
    *,
    p: float | None = None,
    r0: float | None = None,
    k0: float | None = None,
    top: float | None = None,
    bottom: float | None = None,
    by: ColumnSpec = None,
    seed: int | None = None,
    key: str | None = None,
    preset: str | None = None,
    household: str | None = None,
    household_columns: Sequence[str] | None = None,
    check_key: bool = True,
) -> Any:
    """Rank swapping (Moore 1996; sdcMicro ``rankSwap``) of the numeric ``on`` columns,
    identical to local ``df.sdc.rank_swap(on, p=, r0=, k0=, top=, bottom=, by=, seed=, key=,
    preset=)`` (``preset="sdcmicro"``: sdcMicro's defaults and window; see the local docstring).
    The swap walks up the ranks and the partner chosen at rank ``j`` depends on every earlier
    choice within ``p * n`` ranks, so a stratum cannot be split across tasks without changing
    the result: each ``by`` stratum (without ``by``: the whole table) is swapped in one task
    by ``groupBy(by).applyInArrow`` and must fit that task's memory; strata run in parallel.
    Draws from stream ``rank_swap/{column}`` keyed by ``key``. The errors local raises for a
    stratum (one value, ``p * n < 1``, NaN / infinity) come from one aggregation on the driver.
    ``household``: household-level columns (detected, or declared by ``household_columns``)
    swapped between households (one row each, key:
    the household id) and joined back (:mod:`polars_sdc.spark.household`).

    >>> from polars_sdc import spark as sdcs                                   # doctest: +SKIP
    >>> out = sdcs.rank_swap(sdf, ["income"], p=0.05, by="region", seed=7, key="person_id")  # doctest: +SKIP
    """
    require_pyspark(sdf)
    from ..masking.rank_swap import check_rank_swap_args, rank_swap_columns, rank_swap_frame, rank_swap_output_schema

    need_key(key, "rank_swap")
    p, r0, k0, top, bottom = check_rank_swap_args(p, r0, k0, top, bottom, preset)
    schema, cols, by_cols, declared, s = _driver_start(sdf, rank_swap_columns, on, by, key, seed, household,
                                                       household_columns)
    if household is not None:            # household-level columns swapped between households, joined back
        return mask_households(sdf, household, cols, lambda f, cs, k: rank_swap(
            f, cs, p=p, r0=r0, k0=k0, top=top, bottom=bottom, by=by_cols or None, seed=s, key=k,
            check_key=check_key, preset=preset), by=by_cols, key=key, declared=declared)
    _rank_swap_checks(sdf, schema, cols, by_cols, key, p, r0, k0, top, bottom, check_key, preset == "sdcmicro")

    def task(df: pl.DataFrame) -> pl.DataFrame:
        return rank_swap_frame(df, cols, p=p, r0=r0, k0=k0, top=top, bottom=bottom, by=by_cols or None, seed=s,
                               key=key, preset=preset)

    return run_frames(sdf, task, rank_swap_output_schema(schema, cols, top, bottom), per="stratum", by=by_cols)


def _rank_swap_checks(sdf: Any, schema: pl.Schema, cols: list[str], by: list[str], key: str, p: float | None,
                      r0: float | None, k0: float | None, top: float, bottom: float, check_key: bool,
                      sdcmicro: bool = False) -> None:
    """The driver-side checks of local ``rank_swap_frame``: NaN / infinity, and per stratum
    the count of values to swap (one value; ``p * n < 1``; local ``check_some_swapped``), from one
    aggregation (and with top / bottom coding one pass over the values between the codings)."""
    from pyspark.sql import functions as F

    from ..masking.rank_swap import check_coded, check_some_swapped, window_from_moments

    floats = [c for c in cols if schema[c].is_float()]
    aggs = [F.count(F.lit(1)).alias("__sdc_n"), *bad_value_counts(sdf, floats, schema, nulls=True)]
    for c in cols:
        x = F.col(c).cast("double")
        aggs += [F.count(c).alias(f"__sdc_m_{c}"), F.min(x).alias(f"__sdc_lo_{c}"), F.max(x).alias(f"__sdc_hi_{c}")]
        # the variance and mean of the values scaled by 2^e (e = 0, -600, 600): the local window is
        # computed on the values brought to magnitude ~1, so near 1e308 (squares overflow) and at
        # 1e-320 (squares underflow) the scaled moments give its window
        for e in _WINDOW_SCALES:
            xs = x * F.lit(2.0 ** e)
            aggs += [F.var_pop(xs).alias(f"__sdc_v{e}_{c}"), F.avg(xs).alias(f"__sdc_a{e}_{c}")]
    if check_key:
        aggs.append(key_nulls(key))
    t = pl.from_arrow(sdf.groupBy(*by).agg(*aggs).toArrow())
    raise_bad(floats, bad_totals(t))
    if check_key:
        verify_key(sdf, key, int(t["__sdc_key_nulls"].sum()))
    coded = top > 0 or bottom > 0
    if by:
        t = t.join(strata_table(t, by), on=by, how="left", nulls_equal=True).sort(STRATUM)
    if coded:         # the window and the spread of the values left between the codings, per stratum
        middle = _middle_windows(sdf, cols, by, p, r0, k0, top, bottom, sdcmicro)
        t = t.join(middle, on=by, how="left", nulls_equal=True) if by else pl.concat([t, middle], how="horizontal")
    for c in cols:
        for r in t.iter_rows(named=True):
            m = r[f"__sdc_m_{c}"]
            if not m:
                continue
            name = repr(dict(zip(by, (r[b] for b in by)))) if by else None
            if coded:
                mid, pw, varies = r[f"__sdc_mid_{c}"], r[f"__sdc_pw_{c}"], r[f"__sdc_mv_{c}"]
                check_coded(c, name, m, r[f"__sdc_nb_{c}"], r[f"__sdc_nt_{c}"], bottom, top)
            else:
                mid, lo, hi = m, r[f"__sdc_lo_{c}"], r[f"__sdc_hi_{c}"]
                varies = lo != hi
                mag = max(abs(lo), abs(hi))
                e = -600 if mag > 2.0**500 else (600 if mag < 2.0**-500 else 0)
                pw = p if p is not None else window_from_moments(
                    math.ldexp(hi, e) - math.ldexp(lo, e), r[f"__sdc_v{e}_{c}"], r[f"__sdc_a{e}_{c}"], r0, k0)
            check_some_swapped(c, name, mid, pw, varies, sdcmicro, p, r0, k0)


#: the powers of two the driver's rank-swap check scales a column's moments by (see above)
_WINDOW_SCALES = (0, -600, 600)


def _middle_windows(sdf: Any, cols: list[str], by: list[str], p: float | None, r0: float | None,
                    k0: float | None, top: float, bottom: float, sdcmicro: bool) -> pl.DataFrame:
    """Per stratum (no ``by``: the whole column) the number of values left between the ``top``
    and ``bottom`` codings, their window fraction and whether they vary: local
    ``rank_swap.middle_window`` on the stratum's sorted values, one pass by
    ``groupBy(by).applyInArrow``, one small row per stratum."""
    from ..masking.rank_swap import middle_window

    schema = polars_schema(sdf)
    out = pl.Schema({**{b: schema[b] for b in by}, **{f"__sdc_mid_{c}": pl.Int64 for c in cols},
                     **{f"__sdc_nb_{c}": pl.Int64 for c in cols}, **{f"__sdc_nt_{c}": pl.Int64 for c in cols},
                     **{f"__sdc_pw_{c}": pl.Float64 for c in cols}, **{f"__sdc_mv_{c}": pl.Boolean for c in cols}})

    def task(df: pl.DataFrame) -> pl.DataFrame:
        row: dict[str, Any] = {b: df.get_column(b)[:1] for b in by}
        for c in cols:
            x = np.sort(df.get_column(c).drop_nulls().to_numpy())
            n_bot, n_top, pw, varies = middle_window(x, c, p=p, r0=r0, k0=k0, top=top, bottom=bottom,
                                                     sdcmicro=sdcmicro)
            row[f"__sdc_mid_{c}"] = pl.Series([x.shape[0] - n_bot - n_top], dtype=pl.Int64)
            row[f"__sdc_nb_{c}"] = pl.Series([n_bot], dtype=pl.Int64)
            row[f"__sdc_nt_{c}"] = pl.Series([n_top], dtype=pl.Int64)
            row[f"__sdc_pw_{c}"] = pl.Series([pw], dtype=pl.Float64)
            row[f"__sdc_mv_{c}"] = pl.Series([varies], dtype=pl.Boolean)
        return pl.DataFrame(row)

    return pl.from_arrow(run_frames(sdf.select(*by, *cols), task, out, per="stratum", by=by).toArrow())
