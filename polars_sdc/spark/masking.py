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
from collections.abc import Mapping
from typing import Any

import numpy as np
import polars as pl

from .. import rng
from .._columns import ColumnSpec
from .._errors import SDCError
from ._common import arrow_schema, bad_value_counts, key_nulls, need_key, polars_schema, raise_bad, require_pyspark, verify_key

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


def _frame(batch: Any, names: list[str]) -> pl.DataFrame:
    import pyarrow as pa

    return pl.from_arrow(pa.Table.from_batches([batch]).select(names))


# ----------------------------------------------------------------------------------------- PRAM

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
    levels: Mapping[str, list] | None = None,
    check_key: bool = True,
    household: str | None = None,
) -> Any:
    """PRAM (Gouweleeuw et al. 1998; sdcMicro ``pram``) of the categorical ``on`` columns,
    identical to local ``df.sdc.pram(on, pd=, alpha=, by=, seed=, key=, matrix=)``: the
    category counts per column and ``by`` stratum come from one aggregation, the matrices
    ``alpha P Q + (1 - alpha) I`` are built on the driver exactly as locally, each row is
    drawn from stream ``pram/{column}`` keyed by ``key``. Dtypes, nulls and other columns
    kept. ``levels={column: [...]}``: the level order of a local Enum column (Spark has no
    Enum; by default the sorted observed values, as for a local String or integer column).
    ``check_key`` verifies the key has no null and no repeated value. ``household``: the
    household id; household-level columns PRAMed once per household and joined back
    (:mod:`polars_sdc.spark.household`).

    >>> from polars_sdc import spark as sdcs                                   # doctest: +SKIP
    >>> out = sdcs.pram(sdf, "occupation", pd=0.8, by="region", seed=7, key="person_id")  # doctest: +SKIP
    """
    require_pyspark()
    import pyarrow as pa
    from pyspark.sql import functions as F

    from ..masking._common import seed_or_fresh, uniform
    from ..masking.pram import _args, _draw, _from_codes

    need_key(key, "pram")
    schema = polars_schema(sdf)
    cols, by_cols, a = _args(schema, on, by, key, alpha, seed, pd, matrix, household)
    if household is not None:
        from .household import mask_households

        s = seed_or_fresh(seed)
        if matrix is not None and not isinstance(matrix, Mapping) and len(cols) == 1:
            matrix = {cols[0]: matrix}
        return mask_households(sdf, household, cols, lambda f, cs, k: pram(
            f, cs, pd=pd, alpha=alpha, by=by_cols or None, seed=s, key=k, matrix=matrix, levels=levels,
            check_key=check_key), by=by_cols, key=key)
    unknown = [c for c in (levels or {}) if c not in cols]
    if unknown:
        raise SDCError(f"levels: column {unknown[0]!r} is not one of the PRAM columns {cols}")
    if matrix is not None and not isinstance(matrix, Mapping) and len(cols) > 1:
        raise SDCError("matrix: give {column: matrix} when PRAM runs on several columns")
    s = seed_or_fresh(seed)
    sets = [by_cols] + [by_cols + [c] for c in cols]
    counts = pl.from_arrow(sdf.groupingSets(sets, *by_cols, *cols).agg(
        F.count(F.lit(1)).alias("__n"), *[F.grouping(c).alias(f"__g{i}") for i, c in enumerate(cols)],
        *([key_nulls(key)] if check_key else []),
    ).toArrow())
    whole = counts.filter(pl.all_horizontal(pl.col(f"__g{i}") == 1 for i in range(len(cols))))
    if check_key:
        verify_key(sdf, key, int(whole["__key_nulls"].sum()))
    table = strata_table(whole, by_cols) if by_cols else None
    plans = {}
    for i, c in enumerate(cols):
        lv, mats = _pram_plan(c, counts.filter(pl.col(f"__g{i}") == 0).select(*by_cols, c, "__n"), by_cols,
                              table, schema[c], pd, a, s, matrix, None if levels is None else levels.get(c))
        if lv.len():
            plans[c] = (pl.DataFrame({c: lv, "__code": np.arange(lv.len(), dtype=np.int64)}), lv, mats)
    if not plans:
        return sdf
    needed = list(dict.fromkeys([key, *by_cols, *plans]))
    names = list(sdf.columns)

    def run(batches):
        for batch in batches:
            df = _frame(batch, needed)
            keys = rng.row_keys(df.get_column(key))
            sidx = row_strata(df, by_cols, table)
            new = {}
            for c, (code_of, lv, mats) in plans.items():
                col = df.get_column(c)
                codes = df.select(c).join(code_of, on=c, how="left", maintain_order="left") \
                    .get_column("__code").fill_null(-1).to_numpy()
                out = _from_codes(col, lv, _draw(codes, sidx, mats, uniform(s, rng.stream("pram", column=c), keys)))
                new[c] = out.to_arrow().cast(batch.schema.field(c).type)
            yield pa.RecordBatch.from_arrays([new.get(n, batch.column(n)) for n in names], schema=batch.schema)

    return sdf.mapInArrow(run, sdf.schema)


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
            pl.DataFrame({c: lv, "__li": np.arange(L, dtype=np.int64)}), on=c, how="left")
        si = row_strata(ok, by, table) if by else np.zeros(ok.height, dtype=np.int64)
        np.add.at(counts, (si, ok.get_column("__li").to_numpy()), ok.get_column("__n").to_numpy())
    return lv, stratum_matrices(c, lv.to_list(), counts, strata_vals, pd, alpha, seed, user)


# ------------------------------------------------------------------------------------ add_noise

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
    check_key: bool = True,
    household: str | None = None,
) -> Any:
    """Noise on the numeric ``on`` columns (double out; sdcMicro ``addNoise``), equal to local
    ``df.sdc.add_noise(on, method=, noise=, delta=, by=, seed=, key=)`` up to the rounding of
    the sums (~1e-15 relative): the means, standard deviations and covariance of each ``by``
    stratum come from one Spark aggregation (``avg`` / ``covar_samp``); ``"moments"`` adds a
    second aggregation over the data with its drawn noise (the joint covariance of ``[X, Z]``
    that the recolouring needs). Normal draws from stream ``add_noise/{column}`` keyed by
    ``key``. A stratum needs 2 rows (``p + 2`` for ``"moments"`` on ``p`` columns, also without
    ``by``: fewer pin the records), as locally. Structural nulls stay null with ``"additive"`` and
    ``"correlated2"`` (each column's moments over its non-null values, as locally);
    ``"correlated"`` and ``"moments"`` refuse them here. ``household``: the household id;
    household-level columns noised once per household (key: the household id) and joined back
    (:mod:`polars_sdc.spark.household`).

    >>> from polars_sdc import spark as sdcs                                   # doctest: +SKIP
    >>> out = sdcs.add_noise(sdf, ["income"], method="correlated", by="region", seed=7, key="person_id")  # doctest: +SKIP
    """
    require_pyspark()
    import pyarrow as pa
    from pyspark.sql import functions as F
    from pyspark.sql.types import DoubleType, StructField, StructType

    from .._validation import check_seed
    from ..masking._common import on_by_household, seed_or_fresh
    from ..masking.add_noise import _latent, check_args, min_stratum_rows, moments_rows_error, small_stratum_error

    need_key(key, "add_noise")
    method, noise, delta = check_args(method, noise, delta)
    check_seed(seed)
    schema = polars_schema(sdf)
    cols, by_cols = on_by_household(schema, on, by, key, household)
    s = seed_or_fresh(seed)
    if household is not None:            # household-level columns once per household, joined back
        from .household import mask_households

        return mask_households(sdf, household, cols, lambda f, cs, k: add_noise(
            f, cs, method=method, noise=noise, delta=delta, by=by_cols or None, seed=s, key=k, check_key=check_key),
            by=by_cols, key=key)
    p = len(cols)
    xs = [F.col(c).cast("double") for c in cols]
    # column-wise methods keep structural nulls as locally: moments of each column's non-null values
    columnwise = method in ("additive", "correlated2")
    aggs = [F.count(F.lit(1)).alias("__n"), *bad_value_counts(sdf, cols, schema, nulls=columnwise)]
    if columnwise:
        aggs += [F.count(x).alias(f"__nn{j}") for j, x in enumerate(xs)]
    if check_key:
        aggs.append(key_nulls(key))
    if method == "moments":                                  # constant columns stay out of the recolouring
        aggs += [(F.min(x) == F.max(x)).alias(f"__const{j}") for j, x in enumerate(xs)]
    else:
        aggs += [F.avg(x).alias(f"__m{j}") for j, x in enumerate(xs)]
        aggs += [F.covar_samp(xs[i], xs[j]).alias(f"__c{i}_{j}") for i in range(p) for j in range(i, p)
                 if method == "correlated" or i == j]
    stats = pl.from_arrow(sdf.groupBy(*by_cols).agg(*aggs).toArrow())
    raise_bad(cols, [int(stats[f"__bad_{c}"].sum()) for c in cols])
    if check_key:
        verify_key(sdf, key, int(stats["__key_nulls"].sum()))
    table = strata_table(stats, by_cols) if by_cols else None
    nulls = columnwise and any(int(stats[f"__nn{j}"].sum()) < int(stats["__n"].sum()) for j in range(p))
    if by_cols:
        stats = stats.join(table, on=by_cols, how="left", nulls_equal=True).sort(STRATUM)
        need = min_stratum_rows(method, p)
        for j, c in enumerate(cols if nulls else []):
            small = stats.filter((pl.col(f"__nn{j}") > 0) & (pl.col(f"__nn{j}") < need))
            if small.height:
                vals = dict(zip(by_cols, small.select(by_cols).row(0)))
                raise SDCError(f"stratum {vals!r} of `by` (non-null values of {c!r}): {small[f'__nn{j}'][0]} row(s); "
                               f"add_noise method={method!r} needs at least {need} rows per stratum (use coarser "
                               "strata)")
        small = stats.filter(pl.col("__n") < need) if not nulls else stats.clear()
        if small.height:
            vals = dict(zip(by_cols, small.select(by_cols).row(0)))
            raise small_stratum_error(vals, int(small["__n"][0]), method, p)
    elif method == "moments":
        err = moments_rows_error(int(stats["__n"].sum()), p)
        if err is not None:
            raise err
    a = noise / 100.0
    if method == "moments":
        G, mu = _joint_moments(sdf, cols, by_cols, table, key, s)
        const = [np.array([bool(r[f"__const{j}"]) for j in range(p)]) for r in stats.iter_rows(named=True)]
        params = [None if n < 2 else _moments_matrix(G[k], mu[k], p, a, const[k]) for k, n in enumerate(stats["__n"])]
    else:
        params = [_noise_params(stats.row(k, named=True), p, method, a, delta) for k in range(stats.height)]
    out_schema = StructType([StructField(f.name, DoubleType() if f.name in cols else f.dataType, f.nullable)
                             for f in sdf.schema.fields])
    names = list(sdf.columns)
    needed = list(dict.fromkeys([key, *by_cols, *cols]))

    def run(batches):
        for batch in batches:
            df = _frame(batch, needed)
            X = np.empty((df.height, p), order="F")
            for j, c in enumerate(cols):
                X[:, j] = df.get_column(c).cast(pl.Float64).to_numpy()
            Z = _latent(s, cols, rng.row_keys(df.get_column(key)))
            sidx = row_strata(df, by_cols, table)
            Y = np.empty_like(X)
            for k in np.unique(sidx):
                rows = sidx == k
                Y[rows] = _noise_rows(X[rows], Z[rows], method, params[k], delta)
            null = np.column_stack([df.get_column(c).is_null().to_numpy() for c in cols]) if nulls else None
            bad = ~np.isfinite(Y if null is None else np.where(null, 0.0, Y)).all(axis=0)
            if bad.any():
                raise SDCError(f"column {cols[int(np.argmax(bad))]!r}: the noisy values overflow float64")
            new = {c: pa.array(Y[:, j], pa.float64(), mask=None if null is None or not null[:, j].any()
                               else null[:, j]) for j, c in enumerate(cols)}
            yield pa.RecordBatch.from_arrays([new.get(n, batch.column(n)) for n in names], names=names)

    return sdf.mapInArrow(run, out_schema)


def _noise_params(row: dict, p: int, method: str, a: float, delta: float) -> dict | None:
    """The per-stratum constants of the local ``add_noise_values`` from the stratum's means and
    (co)variances: ``scale`` (sds, 1 where 0), ``mu`` (mean / scale), ``S`` (covariance of
    X / scale), and the method's noise matrix or factors. None: fewer than 2 rows (unchanged)."""
    from ..masking.add_noise import _psd_root

    if row["__n"] < 2:
        return None
    var = np.array([np.nan if row[f"__c{j}_{j}"] is None else row[f"__c{j}_{j}"] for j in range(p)],
                   dtype=np.float64)
    scale = np.sqrt(var)
    scale[~(scale > 0)] = 1.0
    mu = np.array([row[f"__m{j}"] for j in range(p)], dtype=np.float64) / scale
    if method == "correlated":
        C = np.empty((p, p))
        for i in range(p):
            for j in range(i, p):
                C[i, j] = C[j, i] = row[f"__c{i}_{j}"]
        S = C / np.outer(scale, scale)
        return {"scale": scale, "W": math.sqrt(a) * _psd_root(S)}
    sd = np.sqrt(var / (scale * scale))
    f = (a if method == "additive" else delta) * sd
    # a column with fewer than 2 non-null values in the stratum is released unchanged, as locally
    keep = np.array([row.get(f"__nn{j}", row["__n"]) < 2 for j in range(p)])
    return {"scale": scale, "f": f, "shift": (1.0 - math.sqrt(1.0 - delta * delta)) * mu, "keep": keep}


def _noise_rows(X: np.ndarray, Z: np.ndarray, method: str, q: Any, delta: float) -> np.ndarray:
    """The local ``add_noise_values`` arithmetic on these rows with the stratum's constants."""
    if q is None:
        return X
    if method == "moments":
        Mt, mu, p, const = q
        B = np.hstack([X - mu[:p], Z - mu[p:]])
        Y = (Mt @ B.T).T + mu[:p]
        Y[:, const] = X[:, const]                    # a constant column keeps its value exactly
        return Y
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
    return Y


def _joint_moments(sdf: Any, cols: list[str], by: list[str], table: pl.DataFrame | None, key: str,
                   seed: int) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Per stratum (in ``table`` order) the sample covariance (n - 1) and the means of
    ``[X, Z]``: X the ``cols``, Z their drawn normals — the second pass of ``"moments"``."""
    import pyarrow as pa
    from pyspark.sql import functions as F
    from pyspark.sql.types import DoubleType, StructField, StructType

    from ..masking.add_noise import _latent

    p = len(cols)
    xz = [f"__x{j}" for j in range(p)] + [f"__z{j}" for j in range(p)]
    fields = [f for f in sdf.schema.fields if f.name in by]
    schema = StructType([*fields, *[StructField(n, DoubleType(), True) for n in xz]])
    needed = list(dict.fromkeys([key, *by, *cols]))

    def draw(batches):
        for batch in batches:
            df = _frame(batch, needed)
            Z = _latent(seed, cols, rng.row_keys(df.get_column(key)))
            arrays = [batch.column(b) for b in by]
            arrays += [pa.array(df.get_column(c).cast(pl.Float64).to_numpy(), pa.float64()) for c in cols]
            arrays += [pa.array(Z[:, j], pa.float64()) for j in range(p)]
            yield pa.RecordBatch.from_arrays(arrays, schema=pa.schema(
                [batch.schema.field(b) for b in by] + [pa.field(n, pa.float64()) for n in xz]))

    q = 2 * p
    g = sdf.select(*needed).mapInArrow(draw, schema).groupBy(*by).agg(
        *[F.avg(n).alias(f"__m{i}") for i, n in enumerate(xz)],
        *[F.covar_samp(xz[i], xz[j]).alias(f"__c{i}_{j}") for i in range(q) for j in range(i, q)])
    t = pl.from_arrow(g.toArrow())
    if by:
        t = t.join(table, on=by, how="left", nulls_equal=True).sort(STRATUM)
    Gs, mus = [], []
    for r in t.iter_rows(named=True):
        G = np.zeros((q, q))
        for i in range(q):
            for j in range(i, q):
                v = r[f"__c{i}_{j}"]
                G[i, j] = G[j, i] = 0.0 if v is None or not math.isfinite(v) else v
        Gs.append(G)
        mus.append(np.array([r[f"__m{i}"] for i in range(q)], dtype=np.float64))
    return Gs, mus


def _moments_matrix(G: np.ndarray, mu: np.ndarray, p: int, a: float,
                    const: np.ndarray) -> tuple[np.ndarray, np.ndarray, int, np.ndarray]:
    """``(Mt, mu, p, const)`` of the local ``"moments"`` release from the joint covariance ``G``
    of ``[X, Z]``: the release is ``Y = [X - mean, Z - mean] Mt' + mean(X)``, the ``const``
    columns (one value in the stratum) kept as they are."""
    from ..masking.add_noise import moments_matrix

    return moments_matrix(G, p, a, const), mu, p, const


# ------------------------------------------------------------------------------------ rank_swap

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
    check_key: bool = True,
    preset: str | None = None,
    household: str | None = None,
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
    ``household``: household-level columns swapped between households (one row each, key:
    the household id) and joined back (:mod:`polars_sdc.spark.household`).

    >>> from polars_sdc import spark as sdcs                                   # doctest: +SKIP
    >>> out = sdcs.rank_swap(sdf, ["income"], p=0.05, by="region", seed=7, key="person_id")  # doctest: +SKIP
    """
    require_pyspark()
    import pyarrow as pa
    from pyspark.sql import functions as F
    from pyspark.sql.types import DoubleType, StructField, StructType

    from ..masking._common import seed_or_fresh
    from ..masking.rank_swap import _check_args, rank_swap_columns, rank_swap_frame, rank_swap_output_schema

    need_key(key, "rank_swap")
    p, r0, k0, top, bottom = _check_args(p, r0, k0, top, bottom, preset)
    from .._validation import check_seed

    check_seed(seed)
    schema = polars_schema(sdf)
    cols, by_cols = rank_swap_columns(schema, on, by, key, household)
    s = seed_or_fresh(seed)
    if household is not None:            # household-level columns swapped between households, joined back
        from .household import mask_households

        return mask_households(sdf, household, cols, lambda f, cs, k: rank_swap(
            f, cs, p=p, r0=r0, k0=k0, top=top, bottom=bottom, by=by_cols or None, seed=s, key=k,
            check_key=check_key, preset=preset), by=by_cols, key=key)
    _rank_swap_checks(sdf, schema, cols, by_cols, key, p, r0, k0, top, bottom, check_key, preset == "sdcmicro")
    out_pl = rank_swap_output_schema(schema, cols, top, bottom)
    out_schema = StructType([StructField(f.name, DoubleType() if f.name in cols and out_pl[f.name] == pl.Float64
                                         and not schema[f.name].is_float() else f.dataType, f.nullable)
                             for f in sdf.schema.fields])
    names = list(sdf.columns)
    needed = list(dict.fromkeys([key, *by_cols, *cols]))
    target = arrow_schema(out_schema)

    def task(table):
        df = pl.from_arrow(table.select(needed))
        out = rank_swap_frame(df, cols, p=p, r0=r0, k0=k0, top=top, bottom=bottom, by=by_cols or None, seed=s,
                              key=key, preset=preset)
        arrays = [out.get_column(n).to_arrow().cast(target.field(n).type) if n in cols else table.column(n)
                  for n in names]
        return pa.Table.from_arrays(arrays, names=names)

    if by_cols:
        return sdf.groupBy(*by_cols).applyInArrow(task, out_schema)
    return sdf.withColumn("__sdc_all", F.lit(0)).groupBy("__sdc_all").applyInArrow(
        lambda t: task(t.drop_columns(["__sdc_all"])), out_schema)


def _rank_swap_checks(sdf: Any, schema: pl.Schema, cols: list[str], by: list[str], key: str, p: float | None,
                      r0: float | None, k0: float | None, top: float, bottom: float, check_key: bool,
                      sdcmicro: bool = False) -> None:
    """The driver-side checks of local ``rank_swap_frame``: NaN / infinity, and per stratum
    the count of values to swap (one value; ``p * n < 1``), from one aggregation."""
    from pyspark.sql import functions as F

    floats = [c for c in cols if schema[c].is_float()]
    aggs = [F.count(F.lit(1)).alias("__n")]
    aggs += [F.sum(F.when(F.isnan(c), 1).otherwise(0)).alias(f"__nan_{c}") for c in floats]
    aggs += [F.sum(F.when(F.col(c).isin(float("inf"), float("-inf")), 1).otherwise(0)).alias(f"__inf_{c}")
             for c in floats]
    for c in cols:
        x = F.col(c).cast("double")
        aggs += [F.count(c).alias(f"__m_{c}"), F.var_pop(x).alias(f"__v_{c}"), F.avg(x).alias(f"__a_{c}"),
                 F.min(x).alias(f"__lo_{c}"), F.max(x).alias(f"__hi_{c}")]
    if check_key:
        aggs.append(key_nulls(key))
    t = pl.from_arrow(sdf.groupBy(*by).agg(*aggs).toArrow())
    for c in floats:
        for what in ("nan", "inf"):
            v = int(t[f"__{what}_{c}"].sum())
            if v:
                raise SDCError(f"column {c!r}: {v} {'NaN' if what == 'nan' else 'infinite'} value(s); "
                               "a finite number is needed in every row")
    if check_key:
        verify_key(sdf, key, int(t["__key_nulls"].sum()))
    if not by:
        return
    t = t.join(strata_table(t, by), on=by, how="left", nulls_equal=True).sort(STRATUM)
    if p is None and (top > 0 or bottom > 0):
        t = t.join(_middle_windows(sdf, cols, by, r0, k0, top, bottom), on=by, how="left", nulls_equal=True)
    for c in cols:
        for r in t.iter_rows(named=True):
            m = r[f"__m_{c}"]
            if not m:
                continue
            name = repr(dict(zip(by, (r[b] for b in by))))
            mid = m - int(math.floor(m * top + 1e-12)) - int(math.floor(m * bottom + 1e-12))
            if mid == 1:
                raise SDCError(f"column {c!r}: stratum {name} of `by` has 1 value to swap; "
                               "it would be released unchanged (use coarser strata)")
            pw = p if p is not None else r.get(f"__pw_{c}")
            if pw is None:
                delta = (r[f"__hi_{c}"] or 0.0) - (r[f"__lo_{c}"] or 0.0)
                if not delta > 0 or not math.isfinite(delta):
                    pw = 0.0
                elif r0 is not None:
                    pw = math.sqrt(2.0 * r[f"__v_{c}"] * (1.0 - r0)) / delta
                else:
                    pw = math.sqrt(8.0 / 3.0) * k0 * abs(r[f"__a_{c}"]) / delta
            need = 2 if sdcmicro else 1                  # sdcMicro's window is < floor(n P) ranks
            if pw is not None and pw > 0 and mid > 1 and int(math.floor(pw * mid + 1e-9)) < need:
                raise SDCError(f"column {c!r}: stratum {name} of `by` has {mid} values and p * n = {pw * mid:.3g} "
                               f"< {need}, so none would be swapped (raise p or use coarser strata)")


def _middle_windows(sdf: Any, cols: list[str], by: list[str], r0: float | None, k0: float | None, top: float,
                    bottom: float) -> pl.DataFrame:
    """Per stratum the window fraction ``p`` that ``r0`` / ``k0`` give on the values left
    between the ``top`` and ``bottom`` codings (local ``rank_swap._window_p`` on the same sorted
    values): one pass by ``groupBy(by).applyInArrow``, one small row per stratum."""
    import pyarrow as pa
    from pyspark.sql.types import DoubleType, StructField, StructType

    from ..masking.rank_swap import _window_p

    fields = [f for f in sdf.schema.fields if f.name in by]
    schema = StructType([*fields, *[StructField(f"__pw_{c}", DoubleType(), True) for c in cols]])

    def task(table):
        df = pl.from_arrow(table)
        row = {b: table.column(b)[:1] for b in by}
        for c in cols:
            x = np.sort(df.get_column(c).drop_nulls().to_numpy())
            m = x.shape[0]
            lo, hi = int(math.floor(m * bottom + 1e-12)), m - int(math.floor(m * top + 1e-12))
            row[f"__pw_{c}"] = pa.array([_window_p(x[lo:hi].astype(np.float64), None, r0, k0)], pa.float64())
        return pa.Table.from_arrays(list(row.values()), names=list(row))

    return pl.from_arrow(sdf.select(*by, *cols).groupBy(*by).applyInArrow(task, schema).toArrow())
