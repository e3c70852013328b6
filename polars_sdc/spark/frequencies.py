"""Sample and population frequencies of key combinations on Spark, and the re-identification
risk built on them, by Spark aggregations and joins (only the list of missing-value patterns
and a few totals reach the driver).

Definitions: those of the local :mod:`polars_sdc.risk.frequencies` (sdcMicro 5.8.1
``freqCalc``) and :mod:`polars_sdc.risk.individual` (``indivRisk``, method "approx";
``measure_risk``). ``fk`` counts the records sharing a record's key values, ``Fk`` sums their
sampling weights; a missing key value (null, or NaN in a float key) is a wildcard: a record
with missing keys matches every record that agrees on its other keys, weighted by ``alpha``;
a record with every key missing counts for complete records only when there is one key
(:func:`polars_sdc.risk.frequencies.all_missing_is_wildcard`, sdcMicro's two branches; module
docstring of :mod:`polars_sdc.risk.frequencies`).

Steps: one aggregation gives the *combination table* (one row per distinct key combination
and missing-value pattern, with its record count and weight). Without missing keys that is
``fk`` and ``Fk``. With them, each missing-value pattern ``p`` adds its matches by one join
per pattern on the keys it has (complete combinations gain ``alpha`` x the compatible
records with missing keys; a combination with missing keys gains the compatible complete
records and ``alpha`` x the compatible records of the other patterns, pooled by the key
columns they share), exactly the local algorithm. The individual risk of a combination is
computed by the local function :func:`polars_sdc.risk.individual.individual_risk` in a
Python task over the combination table (not over the records); records get their values by
a join, and global risk / expected re-identifications are sums over the combination table.
"""
from __future__ import annotations

import operator
from collections.abc import Sequence
from functools import reduce
from typing import Any

import polars as pl

from .._columns import ColumnSpec
from .._errors import SDCError
from .._signature import check_keywords
from .._validation import check_int
from ._common import polars_schema, require_pyspark, run_frames

PATTERN = "__sdc_pattern"
COUNT = "__sdc_count"     # records of the combination itself
WSUM = "__sdc_wsum"       # their weight
FK = "__sdc_fk"
FKP = "__sdc_fpop"  # Spark names are case-insensitive: not "__sdc_Fk"
RISK = "__sdc_risk"


def _key(i: int) -> str:
    return f"__sdc_key{i}"


def _check(sdf: Any, on: ColumnSpec, weight: str | None, alpha: float,
           suppressed_as: str | None = None) -> tuple[list[str], pl.Schema, float]:
    from ..risk.frequencies import check_alpha, key_columns
    from ..risk.suppressed import check_suppressed_as

    check_suppressed_as(suppressed_as)
    schema = polars_schema(sdf)
    cols = key_columns(schema, on, weight)
    if not cols:
        raise SDCError("`on`: no key columns")
    if len(cols) > 62:
        raise SDCError(f"`on`: {len(cols)} key columns; at most 62")
    return cols, schema, check_alpha(alpha)


def _keyed(sdf: Any, cols: Sequence[str], schema: pl.Schema, weights: str | None,
           suppressed_as: str | None = None) -> Any:
    """``sdf`` with the keys copied as ``__sdc_key<i>`` (NaN turned into null; with
    ``suppressed_as``, a generalised release's label, a record whose keys are all that label
    with every key null, as the local :func:`polars_sdc.risk.suppressed.suppressed_as_missing`;
    without it every value as written), the missing-value pattern (bit j set: key j missing)
    and the weight (1 without weights)."""
    from pyspark.sql import functions as F

    suppressed = None
    # Spark strings: local String / Categorical / Enum (an Enum without the label has no such
    # record either); any other key type never holds the label, as locally
    if suppressed_as is not None and cols and all(schema[c] == pl.String for c in cols):
        tests = [F.coalesce(F.col(c) == F.lit(suppressed_as), F.lit(False)) for c in cols]
        suppressed = reduce(operator.and_, tests)
    out = []
    for i, c in enumerate(cols):
        e = F.col(c)
        if schema[c].is_float():
            e = F.when(F.isnan(e), F.lit(None)).otherwise(e)
        if suppressed is not None:
            e = F.when(suppressed, F.lit(None)).otherwise(e)
        out.append(e.alias(_key(i)))
    pattern = F.lit(0).cast("long")
    for j, c in enumerate(cols):
        pattern = pattern + F.when(F.col(_key(j)).isNull(), F.lit(1 << j)).otherwise(F.lit(0)).cast("long")
    w = F.col(weights).cast("double") if weights is not None else F.lit(1.0)
    return sdf.select("*", *out, w.alias(WSUM)).withColumn(PATTERN, pattern)


def _matched(target: Any, source: Any, by: list[str], tag: str) -> Any:
    """``target`` with ``__sdc_mc<tag>`` / ``__sdc_mw<tag>``: the total count and weight of the
    ``source`` combinations equal to each target row on ``by`` (0 when none)."""
    from pyspark.sql import functions as F

    mc, mw = f"__sdc_mc{tag}", f"__sdc_mw{tag}"
    if not by:
        agg = source.agg(F.sum(COUNT).alias(mc), F.sum(WSUM).alias(mw))
        out = target.crossJoin(agg)
    else:
        agg = source.groupBy(*by).agg(F.sum(COUNT).alias(mc), F.sum(WSUM).alias(mw))
        out = target.join(agg, on=by, how="left")
    return out.fillna(0.0, subset=[mc, mw])


def _check_weight_counts(weight: str | None, meta: Any, total: Any = None) -> None:
    """The local weight check (:func:`polars_sdc.risk.frequencies.check_weights`, one message)
    on the counts ``bad`` (null, NaN, infinite) and ``low`` (<= 0) of a metadata row, and
    ``total`` (the weights' sum, when given) beyond float64."""
    from ..risk.weights import weight_error

    if weight is not None:
        error = weight_error(weight, int(meta["bad"] or 0), int(meta["low"] or 0))
        if error is not None:
            raise error
        if total is not None and float(total) == float("inf"):   # finite weights, an Fk of inf
            from ..risk.weights import weight_sum_error

            raise weight_sum_error(weight)


def combination_table(
    sdf: Any, on: ColumnSpec, weight: str | None = None, alpha: float = 1.0, suppressed_as: str | None = None
) -> tuple[Any, list[str]]:
    """The combination table (a Spark DataFrame: ``__sdc_key<i>``, ``__sdc_pattern``, the
    combination's record count and weight, and its ``fk`` / ``Fk`` under the missing-value
    rule; ``suppressed_as`` as in :func:`frequencies`) and the key columns. Internal: the public faces are :func:`frequencies`,
    :func:`individual_risk`, :func:`global_risk` and :func:`risk`."""
    require_pyspark()
    from pyspark.sql import functions as F

    from ..risk.frequencies import all_missing_is_wildcard

    weights = weight
    cols, schema, a = _check(sdf, on, weights, alpha, suppressed_as)
    ks = [_key(i) for i in range(len(cols))]
    m = len(cols)
    full = (1 << m) - 1
    keyed = _keyed(sdf, cols, schema, weights, suppressed_as)
    # one pass over the records for the small metadata: the missing-value patterns present,
    # the totals, the all-missing records and the weight checks
    is_full, w = F.col(PATTERN) == full, F.col(WSUM)
    aggs = [F.collect_set(PATTERN).alias("patterns"), F.count(F.lit(1)).alias("n"), F.sum(w).alias("w"),
            F.sum(F.when(is_full, 1.0).otherwise(0.0)).alias("na_c"), F.sum(F.when(is_full, w).otherwise(0.0)).alias("na_w")]
    if weights is not None:
        bad = F.col(weights).isNull() | F.isnan(w) | w.isin(float("inf"), float("-inf"))
        aggs += [F.sum(F.when(bad, 1).otherwise(0)).alias("bad"), F.sum(F.when(~bad & (w <= 0), 1).otherwise(0)).alias("low")]
    meta = keyed.agg(*aggs).collect()[0]
    _check_weight_counts(weights, meta, meta["w"] if weights is not None else None)
    combos = (keyed.groupBy(*ks, PATTERN)
              .agg(F.count(F.lit(1)).cast("double").alias(COUNT), F.sum(WSUM).alias(WSUM)))
    found = sorted(int(p) for p in meta["patterns"])
    if found in ([], [0]):   # no missing key anywhere: fk and Fk are the combination's own
        return combos.select(*ks, PATTERN, COUNT, WSUM, F.col(COUNT).alias(FK), F.col(WSUM).alias(FKP)), cols
    patterns = [p for p in found if p not in (0, full)]
    present = {p: [ks[j] for j in range(m) if not (p >> j) & 1] for p in patterns}
    by_pattern = {p: combos.where(F.col(PATTERN) == p) for p in patterns}
    n, total_w, na_c, na_w = (float(meta[x] or 0.0) for x in ("n", "w", "na_c", "na_w"))
    cols_out = [*ks, PATTERN, COUNT, WSUM, FK, FKP]

    # complete combinations: + alpha x the compatible records with some (not all) keys missing,
    # and with one key the all-missing records (the shared rule: all_missing_is_wildcard)
    wild = all_missing_is_wildcard(m)
    complete_raw = combos.where(F.col(PATTERN) == 0)
    complete = complete_raw.withColumn("__sdc_ac", F.lit(na_c if wild else 0.0)) \
                           .withColumn("__sdc_aw", F.lit(na_w if wild else 0.0))
    for i, p in enumerate(patterns):
        complete = _matched(complete, by_pattern[p], present[p], f"c{i}")
        complete = complete.withColumn("__sdc_ac", F.col("__sdc_ac") + F.col(f"__sdc_mcc{i}")) \
                           .withColumn("__sdc_aw", F.col("__sdc_aw") + F.col(f"__sdc_mwc{i}"))
    parts = [complete.withColumn(FK, F.col(COUNT) + a * F.col("__sdc_ac"))
             .withColumn(FKP, F.col(WSUM) + a * F.col("__sdc_aw")).select(cols_out)]

    # a pattern's combinations: + the compatible complete records + alpha x the compatible
    # records of the other patterns (pooled by the key columns they share) and the all-missing ones
    for i, p in enumerate(patterns):
        target = _matched(by_pattern[p], complete_raw, present[p], "0")
        oc, ow = F.lit(na_c), F.lit(na_w)
        pools: dict[tuple[str, ...], list[Any]] = {}
        for q in patterns:
            if q != p:
                shared = tuple(c for c in present[p] if c in present[q])
                pools.setdefault(shared, []).append(by_pattern[q].select(*shared, COUNT, WSUM))
        for t, (shared, frames) in enumerate(pools.items()):
            pool = frames[0]
            for f in frames[1:]:
                pool = pool.unionByName(f)
            target = _matched(target, pool, list(shared), f"q{t}")
            oc, ow = oc + F.col(f"__sdc_mcq{t}"), ow + F.col(f"__sdc_mwq{t}")
        parts.append(target.withColumn(FK, F.col(COUNT) + F.col("__sdc_mc0") + a * oc)
                     .withColumn(FKP, F.col(WSUM) + F.col("__sdc_mw0") + a * ow).select(cols_out))
    if full in found:   # every key missing: the record matches everybody
        parts.append(combos.where(F.col(PATTERN) == full)
                     .withColumn(FK, F.lit(n)).withColumn(FKP, F.lit(total_w)).select(cols_out))
    out = parts[0]
    for part in parts[1:]:
        out = out.unionByName(part)
    return out, cols


HH = "__sdc_hh"
HW = "__sdc_hw"


def _check_household(schema: pl.Schema, household: str, cols: Sequence[str]) -> None:
    """The local checks of a household id for counting (``df.sdc.frequencies(household=)``)."""
    from ..household import check_household_column

    check_household_column(schema, household, cols)


def household_table(sdf: Any, on: ColumnSpec, household: str, weight: str | None = None,
                    alpha: float = 1.0, suppressed_as: str | None = None) -> tuple[Any, list[str]]:
    """The combination table counting households (the local
    :func:`polars_sdc.risk.household_frequencies.household_frequencies`): per distinct key
    combination and missing-value pattern, ``fk`` = the distinct households with a record
    compatible with it (a missing key matches any value) and ``Fk`` = their household weights'
    sum. A household's weight is its members' common ``weight`` (refused, as locally, if it varies
    within a household; EU-SILC's ``rb050`` is constant within every household). One aggregation gives the metadata; without
    missing keys the distinct (combination, household) pairs are counted by one more; with them,
    one join per pair of missing-value patterns on the keys both have (``alpha`` must be 1, as
    locally), and households with a record whose keys are all missing count for everybody.
    Internal: the faces are :func:`frequencies` and the risk functions' ``household=``."""
    require_pyspark()
    from pyspark.sql import functions as F

    cols, schema, a = _check(sdf, on, weight, alpha, suppressed_as)
    _check_household(schema, household, cols)
    ks = [_key(i) for i in range(len(cols))]
    m = len(cols)
    full = (1 << m) - 1
    keyed = _keyed(sdf, cols, schema, weight, suppressed_as).withColumn(HH, F.col(household))
    w = F.col(WSUM)
    per_h = [F.count(F.lit(1)).alias("__rows"), F.collect_set(PATTERN).alias("__pats"), F.min(w).alias(HW),
             F.max(w).alias("__hi"), F.max(F.when(F.col(PATTERN) == full, 1).otherwise(0)).alias("__wild")]
    if weight is not None:
        bad = F.col(weight).isNull() | F.isnan(w) | w.isin(float("inf"), float("-inf"))
        per_h += [F.sum(F.when(bad, 1).otherwise(0)).alias("__bad"),
                  F.sum(F.when(~bad & (w <= 0), 1).otherwise(0)).alias("__low")]
    households = keyed.groupBy(HH).agg(*per_h)
    nan_id = F.isnan(HH) if schema[household].is_float() else F.lit(False)
    aggs = [F.array_distinct(F.flatten(F.collect_list("__pats"))).alias("patterns"),
            F.sum(F.when(F.col(HH).isNull(), F.col("__rows"))).alias("null_ids"),
            F.max(F.when(nan_id, 1).otherwise(0)).alias("nan_ids"),
            F.sum("__wild").alias("wild_c"), F.sum(F.when(F.col("__wild") == 1, F.col(HW))).alias("wild_w")]
    if weight is not None:
        aggs += [F.sum("__bad").alias("bad"), F.sum("__low").alias("low"),
                 F.min(F.when(F.col(HW) != F.col("__hi"), F.col(HH))).alias("varies")]
    meta = households.agg(*aggs).collect()[0]
    if meta["null_ids"]:
        raise SDCError(f"household column {household!r}: {meta['null_ids']} null id(s); every person needs a "
                       "household id (give a one-person household its own id)")
    if meta["nan_ids"]:
        raise SDCError(f"household column {household!r}: NaN id(s); every person needs a household id")
    _check_weight_counts(weight, meta)
    if weight is not None and meta["varies"] is not None:
        from ..risk.household_frequencies import weight_varies_error

        raise weight_varies_error(weight, meta["varies"], household)
    hw = households.select(HH, HW)
    found = sorted(int(p) for p in meta["patterns"])
    if found in ([], [0]):   # no missing key: distinct households per combination
        pairs = keyed.select(*ks, HH).distinct().join(hw, on=HH)
        table = pairs.groupBy(*ks).agg(F.count(F.lit(1)).cast("double").alias(FK), F.sum(HW).alias(FKP))
        return table.withColumn(PATTERN, F.lit(0).cast("long")), cols
    if a != 1.0:
        raise SDCError("counting households with missing key values needs alpha = 1 (a household is in a "
                       "combination or not)")
    pairs = keyed.select(*ks, PATTERN, HH).distinct()
    targets = pairs.select(*ks, PATTERN).distinct()
    wild_c, wild_w = float(meta["wild_c"] or 0), float(meta["wild_w"] or 0.0)
    src = pairs.join(households.where(F.col("__wild") == 0).select(HH, HW), on=HH) if wild_c \
        else pairs.join(hw, on=HH)              # the households with a record whose keys are all missing: apart
    # every target once with no household (so a target no household matches keeps its row), then
    # each (target, compatible household) pair: one join per pair of patterns on their shared keys
    parts = [targets.select(*ks, PATTERN, F.lit(None).cast(sdf.schema[household].dataType).alias(HH),
                            F.lit(None).cast("double").alias(HW))]
    for p in found:
        tp = targets.where(F.col(PATTERN) == p)
        for q in found:
            if q == full:                       # only in wild households: counted once for everybody
                continue
            sq = src.where(F.col(PATTERN) == q)
            shared = [ks[j] for j in range(m) if not (p >> j) & 1 and not (q >> j) & 1]
            part = tp.join(sq.select(*shared, HH, HW), on=shared) if shared \
                else tp.crossJoin(sq.select(HH, HW).distinct())
            parts.append(part.select(*ks, PATTERN, HH, HW))
    found_pairs = reduce(lambda x, y: x.unionByName(y), parts).distinct()
    table = found_pairs.groupBy(*ks, PATTERN).agg(
        (F.count(HH).cast("double") + F.lit(wild_c)).alias(FK),
        (F.coalesce(F.sum(HW), F.lit(0.0)) + F.lit(wild_w)).alias(FKP))
    return table, cols


def _join_back(sdf: Any, cols: list[str], schema: pl.Schema, table: Any, new: dict[str, str],
               suppressed_as: str | None = None) -> Any:
    """Each record of ``sdf`` with the ``new`` columns (``{output name: table column}``) of its
    combination, by a null-safe join on the keys (read with the table's ``suppressed_as``) and
    the missing-value pattern."""
    from pyspark.sql import functions as F

    ks = [_key(i) for i in range(len(cols))]
    right = table.select(*[F.col(k).alias(f"{k}_r") for k in ks], F.col(PATTERN).alias(f"{PATTERN}_r"),
                         *[F.col(src).alias(dst) for dst, src in new.items()])
    left = _keyed(sdf, cols, schema, None, suppressed_as).drop(WSUM)
    cond = [F.col(k).eqNullSafe(F.col(f"{k}_r")) for k in ks] + [F.col(PATTERN) == F.col(f"{PATTERN}_r")]
    joined = left.join(right, on=cond, how="left")
    return joined.select(*[F.col(c) for c in sdf.columns], *[F.col(dst) for dst in new])


def _check_names(schema: pl.Schema, names: Sequence[str]) -> None:
    lower = [x.lower() for x in names]
    if len(set(lower)) < len(lower):
        raise SDCError(f"output column names {list(names)!r}: two are the same name to Spark (case-insensitive)")
    taken = {c.lower() for c in schema}
    for name in names:
        if name.lower() in taken:
            raise SDCError(f"column {name!r}: already in the frame; choose another name")


#: options of the local methods that have no Spark counterpart here, and why
LOCAL_ONLY = {
    "suda": "SUDA needs the whole table on one machine: run it locally on the key columns",
    "max_size": "a SUDA option",
    "dis_fraction": "a SUDA option",
    "threshold": "ARX's models run locally (df.sdc.risk)",
    "population_size": "ARX's population models run locally (df.sdc.risk)",
}


@check_keywords
def frequencies(
    sdf: Any, on: ColumnSpec, weight: str | None = None, alpha: float = 1.0, household: str | None = None,
    suppressed_as: str | None = None, *, fk: str = "fk", Fk: str = "Fk_pop",
) -> Any:
    """``sdf`` with ``fk`` (double: the records sharing the row's key values, missing keys
    matching as wildcards weighted by ``alpha``, as local ``df.sdc.frequencies(on, weight,
    alpha, household)``) and, with ``weight``, ``Fk`` (double: their summed sampling weights; named
    ``Fk_pop`` by default, since Spark column names are case-insensitive). A record with fk = 1
    is unique on the keys. ``household``: the household id; ``fk`` counts the distinct households
    with a compatible record and ``Fk`` sums their household weights (:func:`household_table`; the
    weight must be constant within every household). ``suppressed_as``: the label a
    generalisation gave its suppressed records' keys (``"*"``): a record whose every key is
    that label is read as every key missing; default None: every value as written
    (:mod:`polars_sdc.risk.suppressed`, as locally).

    >>> from polars_sdc import spark as sdcs                              # doctest: +SKIP
    >>> sdcs.frequencies(sdf, ["age", "sex", "region"], weight="w")       # doctest: +SKIP
    >>> sdcs.frequencies(sdf, ["hsize", "db040"], weight="rb050", household="db030")   # doctest: +SKIP
    """
    require_pyspark()
    cols, schema, _ = _check(sdf, on, weight, alpha, suppressed_as)
    _check_names(schema, [fk, Fk] if weight is not None else [fk])
    if household is not None:
        table, cols = household_table(sdf, cols, household, weight, alpha, suppressed_as)
    else:
        table, cols = combination_table(sdf, cols, weight, alpha, suppressed_as)
    new = {fk: FK, **({Fk: FKP} if weight is not None else {})}
    return _join_back(sdf, cols, schema, table, new, suppressed_as)


def _with_risk(table: Any, at_one: Any = None, alpha_rule: str = "safe") -> Any:
    """The combination table with the individual risk of each combination, computed by the
    local :func:`polars_sdc.risk.individual.individual_risk` in a Python task; with ``at_one``
    (the same table at ``alpha = 1``, for ``alpha < 1``) the larger of the two risks, as the
    local default ``alpha_rule="safe"``."""
    import numpy as np
    from pyspark.sql import functions as F

    from ..risk.individual import individual_risk

    fields = list(table.schema.fields)
    if at_one is not None:
        ks = [c for c in table.columns if c.startswith("__sdc_key")]
        # both tables come from one plan: aliases keep the self-join's columns apart
        left = table.alias("__sdc_l")
        right = at_one.select(*[F.col(k).alias(f"{k}_1") for k in ks], F.col(PATTERN).alias(f"{PATTERN}_1"),
                              F.col(FK).alias("__sdc_fk1"), F.col(FKP).alias("__sdc_fpop1")).alias("__sdc_r")
        cond = [F.col(f"__sdc_l.{k}").eqNullSafe(F.col(f"__sdc_r.{k}_1")) for k in ks]
        cond.append(F.col(f"__sdc_l.{PATTERN}") == F.col(f"__sdc_r.{PATTERN}_1"))
        table = left.join(right, on=cond, how="left").select(
            *[F.col(f"__sdc_l.{c}") for c in table.columns], F.col("__sdc_r.__sdc_fk1"), F.col("__sdc_r.__sdc_fpop1"))
    names = [f.name for f in fields]
    floor_at_one = at_one is not None            # (the task must not capture a DataFrame)
    out = pl.Schema({**polars_schema(table.select(*names)), RISK: pl.Float64})

    def task(df: pl.DataFrame) -> pl.DataFrame:
        r = individual_risk(df[FK].to_numpy(), df[FKP].to_numpy(), alpha_rule)
        if floor_at_one:
            r = np.maximum(r, individual_risk(df["__sdc_fk1"].to_numpy(), df["__sdc_fpop1"].to_numpy()))
        return df.select(names).with_columns(pl.Series(RISK, r, dtype=pl.Float64))

    return run_frames(table, task, out)


def _risk_table(sdf: Any, cols: Any, weight: str | None, alpha: float,
                alpha_rule: str = "safe", suppressed_as: str | None = None) -> tuple[Any, list[str]]:
    """The combination table with ``risk`` (:func:`_with_risk`; at ``alpha < 1`` never below
    the risk at ``alpha = 1``)."""
    from ..risk.individual import check_alpha_rule

    safe = check_alpha_rule(alpha_rule) == "safe"
    table, cols = combination_table(sdf, cols, weight, alpha, suppressed_as)
    at_one = combination_table(sdf, cols, weight, 1.0, suppressed_as)[0] if float(alpha) < 1 and safe else None
    return _with_risk(table, at_one, alpha_rule), cols


def _check_household_risk(sdf: Any, schema: pl.Schema, household: str, cols: Sequence[str],
                          weight: str | None) -> None:
    """The local checks of the household id of a household risk (``_risk_arrays``): a supported
    column, not a key nor the weight, no null id (one count)."""
    from pyspark.sql import functions as F

    from .._columns import resolve_columns

    resolve_columns(schema, [household], kind="supported", what="household")
    if household in cols or household == weight:
        raise SDCError(f"column {household!r}: is a key or the weight; the household id must be another column")
    nulls = sdf.where(F.col(household).isNull()).count()
    if nulls:
        raise SDCError(f"column {household!r}: {nulls} null household id(s)")
    if schema[household].is_float() and sdf.where(F.isnan(household)).limit(1).count():
        raise SDCError(f"household column {household!r}: NaN id(s); every person needs a household id")


def _household_risk_of(r: Any, over: Any = None) -> Any:
    """``1 - prod(1 - r)`` over a household's records evaluated as the local
    :func:`polars_sdc.risk.individual.household_risk` does: ``-expm1(sum(log1p(-r)))`` (no
    cancellation at small ``r``), the product as written for a household with a risk >= 1 or
    < 0 (Spark's ``log1p`` is null at -1). ``over``: applied to each aggregate (a window),
    else the expression is an aggregation (``groupBy(household).agg``)."""
    from pyspark.sql import functions as F

    def agg(e: Any) -> Any:
        return e if over is None else e.over(over)

    plain = agg(F.max(((r >= F.lit(1.0)) | (r < F.lit(0.0))).cast("int"))) == 1
    return F.when(plain, F.lit(1.0) - agg(F.product(F.lit(1.0) - r))) \
            .otherwise(-F.expm1(agg(F.sum(F.log1p(-r)))))


def _household_risk(household: str, risk: str) -> Any:
    """The household risk (:func:`_household_risk_of`) of every record, by a window."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    return _household_risk_of(F.col(risk), Window.partitionBy(household))


@check_keywords
def individual_risk(
    sdf: Any, on: ColumnSpec, weight: str | None = None, alpha: float = 1.0, household: str | None = None,
    alpha_rule: str = "safe", suppressed_as: str | None = None, *, fk: str = "fk", Fk: str = "Fk_pop",
    risk: str = "risk",
    household_risk: str = "household_risk",
) -> Any:
    """``sdf`` with ``fk``, ``Fk`` (named ``Fk_pop``; ``fk`` without weights) and ``risk``: the
    approximate individual re-identification risk (sdcMicro ``indivRisk``, method "approx";
    the local :func:`polars_sdc.risk.individual.individual_risk`, ``alpha_rule`` as locally:
    at ``alpha < 1`` the default never lowers a risk below its ``alpha = 1`` value), all double.
    ``household``: also ``household_risk`` = ``1 - prod(1 - risk)`` over the record's household
    (sdcMicro ``measure_risk``'s hierarchical risk, evaluated without cancellation as locally;
    ``fk`` and ``risk`` stay per record, as locally).
    ``suppressed_as`` as in :func:`frequencies`.

    >>> from polars_sdc import spark as sdcs                               # doctest: +SKIP
    >>> sdcs.individual_risk(sdf, ["age", "sex", "region"], weight="w")    # doctest: +SKIP
    """
    require_pyspark()
    cols, schema, _ = _check(sdf, on, weight, alpha, suppressed_as)
    _check_names(schema, [fk, Fk, risk] + ([household_risk] if household is not None else []))
    if household is not None:
        _check_household_risk(sdf, schema, household, cols, weight)
    table, cols = _risk_table(sdf, cols, weight, alpha, alpha_rule, suppressed_as)
    out = _join_back(sdf, cols, schema, table, {fk: FK, Fk: FKP, risk: RISK}, suppressed_as)
    if household is None:
        return out
    return out.withColumn(household_risk, _household_risk(household, risk))


@check_keywords
def global_risk(sdf: Any, on: ColumnSpec, weight: str | None = None, alpha: float = 1.0,
                household: str | None = None, alpha_rule: str = "safe",
                suppressed_as: str | None = None) -> dict[str, float]:
    """Global risk (the mean individual risk over records) and expected re-identifications
    (their sum), as local ``df.sdc.global_risk`` (sdcMicro ``measure_risk``), from :func:`risk`;
    with ``household`` the same two of the household risk (``household_risk``,
    ``household_expected_reidentifications``); ``suppressed_as`` as in :func:`frequencies`.

    >>> from polars_sdc import spark as sdcs                               # doctest: +SKIP
    >>> sdcs.global_risk(sdf, ["age", "sex", "region"], weight="w")        # doctest: +SKIP
    {'global_risk': ..., 'expected_reidentifications': ...}
    """
    out = risk(sdf, on, weight, alpha=alpha, household=household, ks=(), alpha_rule=alpha_rule,
               suppressed_as=suppressed_as)
    names = ["global_risk", "expected_reidentifications"]
    if household is not None:
        names += ["household_risk", "household_expected_reidentifications"]
    return {name: float(out[name]) for name in names}  # type: ignore[arg-type]


@check_keywords
def risk(
    sdf: Any, on: ColumnSpec, weight: str | None = None, *, alpha: float = 1.0, household: str | None = None,
    ks: Sequence[int] = (2, 3, 5), alpha_rule: str = "safe", suppressed_as: str | None = None,
) -> dict[str, object]:
    """The frequency-based part of local ``df.sdc.risk(on, weight, alpha=, ks=, alpha_rule=).summary``:
    the local :func:`polars_sdc.risk.measure.frequency_summary` (``records``, ``k_anonymity``,
    ``records_violating_k<k>``, ``sample_uniques``, ``global_risk``,
    ``expected_reidentifications``, and whatever measure of fk and risk it gains) on one row
    per distinct fk of the combination table (its record count and summed risk), so only
    those rows reach the driver. ``household``: also ``household_risk`` and
    ``household_expected_reidentifications`` (the mean and sum over records of ``1 - prod(1 -
    risk)`` over the record's household), from one aggregation per household. (SUDA and ARX's
    population models need the whole table on one machine: :data:`LOCAL_ONLY`; run them locally
    on a sample or on the released key columns.) ``suppressed_as`` as in :func:`frequencies`
    (pass ``"*"`` for a release of local ``df.sdc.generalize``).

    >>> from polars_sdc import spark as sdcs                               # doctest: +SKIP
    >>> sdcs.risk(sdf, ["age", "sex", "region"], weight="w")["global_risk"]   # doctest: +SKIP
    """
    require_pyspark()
    from pyspark.sql import functions as F

    from ..risk.measure import frequency_summary

    ks = [check_int(k, "ks: every k", minimum=1) for k in ks]
    cols, schema, _ = _check(sdf, on, weight, alpha, suppressed_as)
    if household is not None:
        _check_household_risk(sdf, schema, household, cols, weight)
    table, _ = _risk_table(sdf, cols, weight, alpha, alpha_rule, suppressed_as)
    per_fk = pl.from_arrow(table.groupBy(FK).agg(F.sum(COUNT).alias("n"), F.sum(F.col(COUNT) * F.col(RISK)).alias("e"))
                           .toArrow()).sort(FK)
    n = per_fk["n"].to_numpy()
    summary = frequency_summary(per_fk[FK].to_numpy(), per_fk["e"].to_numpy() / n, ks, counts=n)
    if household is not None:
        records = _join_back(sdf.select(household, *cols), cols, schema, table, {"__sdc_r": RISK}, suppressed_as)
        per_h = records.groupBy(household).agg(F.count(F.lit(1)).alias("m"),
                                               _household_risk_of(F.col("__sdc_r")).alias("h"))
        row = per_h.agg(F.sum(F.col("m") * F.col("h")).alias("e"), F.sum("m").alias("n")).collect()[0]
        summary["household_risk"] = float(row["e"]) / int(row["n"])
        summary["household_expected_reidentifications"] = float(row["e"])
    return summary


__all__ = ["combination_table", "frequencies", "global_risk", "household_table", "individual_risk", "risk"]
