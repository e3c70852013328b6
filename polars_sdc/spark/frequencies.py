"""Sample and population frequencies of key combinations on Spark, and the re-identification
risk built on them, by Spark aggregations and joins, and, with missing key values, the local
functions run on the combination table on the driver.

Definitions: those of the local :mod:`polars_sdc.risk.frequencies` (sdcMicro 5.8.1
``freqCalc``) and :mod:`polars_sdc.risk.individual` (``indivRisk``, method "approx";
``measure_risk``). ``fk`` counts the records sharing a record's key values, ``Fk`` sums their
sampling weights; a missing key value (null, or NaN in a float key) is a wildcard: a record
with missing keys matches every record that agrees on its other keys, weighted by ``alpha``;
a record with every key missing counts for complete records only when there is one key
(:func:`polars_sdc.risk.frequencies.all_missing_is_wildcard`, sdcMicro's two branches; module
docstring of :mod:`polars_sdc.risk.frequencies`). A generalised release's suppressed records
(``suppressed_as``) are read by the local :func:`polars_sdc.risk.suppressed.frequency_keys` on
the driver's combination table: every key missing, and with one key too they raise no kept
class, as locally.

Steps: one aggregation gives the *combination table* (one row per distinct key combination
and missing-value pattern, with its record count and weight). Without missing keys that is
``fk`` and ``Fk``, and the individual risk of each combination is computed by the local
:func:`polars_sdc.risk.individual.individual_risk` in Python tasks over the table's batches.
With missing keys every combination must be compared with every other: the combination table
comes to the driver, which runs the local rule on it (:func:`polars_sdc.risk.frequencies.frequency_groups`
with the combinations' record counts as ``count=``, and the risk by
:func:`polars_sdc.risk.individual.frequencies_and_risk`): one function for both back ends, so
Spark equals local by construction, and two Spark jobs (the metadata, the table) instead of one
join per pattern (or per pair of patterns with ``household=``; benchmarks/README.md, "Spark
frequencies with missing keys"). The table holds one row per distinct combination (with
``household=``, per distinct combination and household), not per record, but it must fit in the
driver's memory. Records get their values by a join (without missing keys a Spark join; with them
a Polars join in each Arrow batch against the driver's table, no shuffle); global risk / expected
re-identifications are sums over the combination table.
"""
from __future__ import annotations

import operator
from collections.abc import Sequence
from functools import reduce
from typing import Any

import polars as pl

from .._columns import ColumnSpec
from .._errors import SDCError
from .._signature import check_keywords, deprecated
from .._validation import check_int
from ..household import check_household_column, missing_ids_error
from ..risk.individual import check_household_for_risk
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
    """``sdf`` with the keys copied as ``__sdc_key<i>`` (NaN turned into null), the
    missing-value pattern (bit j set: key j missing) and the weight (1 without weights). With
    ``suppressed_as``, a generalised release's label, a record whose keys are all that label
    has every bit of its pattern set (every key missing) and keeps the label in its keys: the
    combination table then goes to the driver (a missing key), where the local
    :func:`polars_sdc.risk.suppressed.frequency_keys` reads it (:func:`_wildcard_table`), so a
    one-key release's suppressed records raise no kept class as locally; without it every value
    as written."""
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
        out.append(e.alias(_key(i)))
    pattern = F.lit(0).cast("long")
    for j, c in enumerate(cols):
        missing = F.col(_key(j)).isNull() if suppressed is None else (F.col(_key(j)).isNull() | suppressed)
        pattern = pattern + F.when(missing, F.lit(1 << j)).otherwise(F.lit(0)).cast("long")
    w = F.col(weights).cast("double") if weights is not None else F.lit(1.0)
    return sdf.select("*", *out, w.alias(WSUM)).withColumn(PATTERN, pattern)


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
    sdf: Any, on: ColumnSpec, weight: str | None = None, alpha: float = 1.0, suppressed_as: str | None = None,
    alpha_rule: str | None = None, household: str | None = None,
) -> tuple[Any, list[str]]:
    """The combination table (a Spark DataFrame: ``__sdc_key<i>``, ``__sdc_pattern``, the
    combination's record count and weight, and its ``fk`` / ``Fk`` under the missing-value
    rule; with ``alpha_rule``, also the individual risk ``__sdc_risk``; ``suppressed_as`` as in
    :func:`frequencies`) and the key columns. Without missing keys ``fk`` / ``Fk`` are the
    combination's own count and weight (distributed; the risk per Arrow batch). With them, the
    local rule (:func:`polars_sdc.risk.frequencies.frequency_groups` with the combination counts
    as ``count=``; the risk by :func:`polars_sdc.risk.individual.frequencies_and_risk`, both
    alphas at once) runs on the whole combination table on the driver, and the table returned is
    a Polars DataFrame (module docstring).
    Internal: the public faces are :func:`frequencies`, :func:`individual_risk`,
    :func:`global_risk` and :func:`risk`. ``household``: its null ids are counted in the same
    pass and refused (the household risk's check)."""
    require_pyspark(sdf)
    from pyspark.sql import functions as F

    weights = weight
    cols, schema, a = _check(sdf, on, weights, alpha, suppressed_as)
    ks = [_key(i) for i in range(len(cols))]
    keyed = _keyed(sdf, cols, schema, weights, suppressed_as)
    # one pass over the records for the small metadata: whether a key is missing anywhere and
    # the weight checks
    w = F.col(WSUM)
    aggs = [F.max(F.col(PATTERN)).alias("missing")]
    if household is not None:
        nan_id = F.isnan(household) if schema[household].is_float() else F.lit(False)
        aggs += [F.sum(F.when(F.col(household).isNull(), 1).otherwise(0)).alias("null_ids"),
                 F.max(F.when(nan_id, 1).otherwise(0)).alias("nan_ids")]
    if weights is not None:
        bad = F.col(weights).isNull() | F.isnan(w) | w.isin(float("inf"), float("-inf"))
        aggs += [F.sum(F.when(bad, 1).otherwise(0)).alias("bad"), F.sum(F.when(~bad & (w <= 0), 1).otherwise(0)).alias("low"),
                 F.sum(w).alias("w")]
    meta = keyed.agg(*aggs).collect()[0]
    if household is not None and (meta["null_ids"] or meta["nan_ids"]):
        raise missing_ids_error(household, meta["null_ids"] or None)
    _check_weight_counts(weights, meta, meta["w"] if weights is not None else None)
    combos = (keyed.groupBy(*ks, PATTERN)
              .agg(F.count(F.lit(1)).cast("double").alias(COUNT), F.sum(WSUM).alias(WSUM)))
    if not meta["missing"]:   # no missing key anywhere: fk and Fk are the combination's own
        table = combos.select(*ks, PATTERN, COUNT, WSUM, F.col(COUNT).alias(FK), F.col(WSUM).alias(FKP))
        return (table if alpha_rule is None else _with_risk(table, alpha_rule)), cols
    return _wildcard_table(combos, ks, a, alpha_rule, suppressed_as), cols


def _wildcard_table(combos: Any, ks: list[str], alpha: float, alpha_rule: str | None,
                    suppressed_as: str | None = None) -> pl.DataFrame:
    """``combos`` (one row per key combination and missing-value pattern, with its record count
    and weight), brought to the driver, with ``fk``, ``Fk`` (and, with ``alpha_rule``, the risk)
    by the local functions: the missing-value rule compares every combination with every other,
    and the table holds one row per distinct combination, not per record (EU-SILC: 14,827
    records, 7,269 combinations). The one local rule, so Spark equals local by construction
    (:func:`polars_sdc.risk.frequencies.frequency_groups`, ``count=``), on the keys the local
    :func:`polars_sdc.risk.suppressed.frequency_keys` gives for ``suppressed_as`` (the
    combination table keeps a generalised release's label: :func:`_keyed`)."""
    from ..risk.frequencies import frequency_groups
    from ..risk.individual import frequencies_and_risk
    from ..risk.suppressed import frequency_keys

    df = pl.from_arrow(combos.select(*ks, PATTERN, COUNT, WSUM).toArrow())
    df = df.sort([*ks, PATTERN], nulls_last=True)          # one order: the same sums every run
    counted, on = frequency_keys(df, ks, suppressed_as)   # the suppressed records: keys missing, as locally
    if alpha_rule is not None:
        fk, Fk, r = frequencies_and_risk(counted, on, WSUM, alpha, alpha_rule, count=COUNT)
        return df.with_columns(pl.Series(FK, fk), pl.Series(FKP, Fk), pl.Series(RISK, r))
    index, fk, Fk = frequency_groups(counted, on, WSUM, alpha, COUNT)
    if index is not None:
        fk, Fk = fk[index], Fk[index]
    return df.with_columns(pl.Series(FK, fk), pl.Series(FKP, Fk))


HH = "__sdc_hh"
HW = "__sdc_hw"


def _check_household(schema: pl.Schema, household: str, cols: Sequence[str]) -> None:
    """The local checks of a household id for counting (``df.sdc.frequencies(household=)``)."""
    check_household_column(schema, household, cols)


def household_table(sdf: Any, on: ColumnSpec, household: str, weight: str | None = None,
                    alpha: float = 1.0, suppressed_as: str | None = None) -> tuple[Any, list[str]]:
    """The combination table counting households (the local
    :func:`polars_sdc.risk.household_frequencies.household_frequencies`): per distinct key
    combination and missing-value pattern, ``fk`` = the distinct households with a record
    compatible with it (a missing key matches any value) and ``Fk`` = their household weights'
    sum. A household's weight is its members' common ``weight`` (refused, as locally, if it varies
    within a household; EU-SILC's ``rb050`` is constant within every household). One aggregation
    gives the metadata; without missing keys the distinct (combination, household) pairs are
    counted by one more; with them (``alpha`` must be 1, as locally), the local function runs on
    the distinct (combination, household) pairs on the driver (households with a record whose
    keys are all missing count for everybody) and the table is a Polars DataFrame.
    Internal: the faces are :func:`frequencies` and the risk functions' ``household=``."""
    require_pyspark(sdf)
    from pyspark.sql import functions as F

    cols, schema, a = _check(sdf, on, weight, alpha, suppressed_as)
    _check_household(schema, household, cols)
    ks = [_key(i) for i in range(len(cols))]
    keyed = _keyed(sdf, cols, schema, weight, suppressed_as).withColumn(HH, F.col(household))
    w = F.col(WSUM)
    per_h = [F.count(F.lit(1)).alias("__sdc_rows"), F.max(PATTERN).alias("__sdc_pmax"), F.min(w).alias(HW),
             F.max(w).alias("__sdc_hi")]
    if weight is not None:
        bad = F.col(weight).isNull() | F.isnan(w) | w.isin(float("inf"), float("-inf"))
        per_h += [F.sum(F.when(bad, 1).otherwise(0)).alias("__sdc_bad"),
                  F.sum(F.when(~bad & (w <= 0), 1).otherwise(0)).alias("__sdc_low")]
    households = keyed.groupBy(HH).agg(*per_h)
    nan_id = F.isnan(HH) if schema[household].is_float() else F.lit(False)
    aggs = [F.max("__sdc_pmax").alias("missing"),
            F.sum(F.when(F.col(HH).isNull(), F.col("__sdc_rows"))).alias("null_ids"),
            F.max(F.when(nan_id, 1).otherwise(0)).alias("nan_ids")]
    if weight is not None:
        aggs += [F.sum("__sdc_bad").alias("bad"), F.sum("__sdc_low").alias("low"),
                 F.min(F.when(F.col(HW) != F.col("__sdc_hi"), F.col(HH))).alias("varies")]
    meta = households.agg(*aggs).collect()[0]
    if meta["null_ids"]:
        raise missing_ids_error(household, meta["null_ids"])
    if meta["nan_ids"]:
        raise missing_ids_error(household, None)
    _check_weight_counts(weight, meta)
    if weight is not None and meta["varies"] is not None:
        from ..risk.household_frequencies import weight_varies_error

        raise weight_varies_error(weight, meta["varies"], household)
    if not meta["missing"]:   # no missing key: distinct households per combination
        pairs = keyed.select(*ks, HH).distinct().join(households.select(HH, HW), on=HH)
        table = pairs.groupBy(*ks).agg(F.count(F.lit(1)).cast("double").alias(FK), F.sum(HW).alias(FKP))
        return table.withColumn(PATTERN, F.lit(0).cast("long")), cols
    if a != 1.0:
        raise SDCError("counting households with missing key values needs alpha = 1 (a household is in a "
                       "combination or not)")
    # missing keys: the local rule (household_frequencies) on the distinct (combination,
    # household) pairs, on the driver; each pair carries its household's weight (checked constant)
    from ..risk.household_frequencies import household_frequencies

    pairs = pl.from_arrow(keyed.select(*ks, PATTERN, HH, F.col(WSUM).alias(HW)).distinct().toArrow())
    fk, Fk = household_frequencies(pairs, ks, HH, HW, 1.0, suppressed_as)   # the label read as locally
    table = (pairs.select(*ks, PATTERN).with_columns(pl.Series(FK, fk), pl.Series(FKP, Fk))
             .unique([*ks, PATTERN], keep="first"))
    return table, cols


def _join_back(sdf: Any, cols: list[str], schema: pl.Schema, table: Any, new: dict[str, str],
               suppressed_as: str | None = None) -> Any:
    """Each record of ``sdf`` with the ``new`` columns (``{output name: table column}``) of its
    combination, by a null-safe join on the keys (read with the table's ``suppressed_as``) and
    the missing-value pattern: a Spark join, or, for a table on the driver (a Polars frame:
    missing keys), a Polars join in each Arrow batch of the records (no shuffle; Spark ships
    the table to the workers once, as a broadcast, when it is large)."""
    from pyspark.sql import functions as F

    ks = [_key(i) for i in range(len(cols))]
    if isinstance(table, pl.DataFrame):
        return _join_driver_table(sdf, _keyed(sdf, cols, schema, None, suppressed_as).drop(WSUM), ks, table, new)
    right = table.select(*[F.col(k).alias(f"{k}_r") for k in ks], F.col(PATTERN).alias(f"{PATTERN}_r"),
                         *[F.col(src).alias(dst) for dst, src in new.items()])
    left = _keyed(sdf, cols, schema, None, suppressed_as).drop(WSUM)
    cond = [F.col(k).eqNullSafe(F.col(f"{k}_r")) for k in ks] + [F.col(PATTERN) == F.col(f"{PATTERN}_r")]
    joined = left.join(right, on=cond, how="left")
    return joined.select(*[F.col(c) for c in sdf.columns], *[F.col(dst) for dst in new])


def _join_driver_table(sdf: Any, keyed: Any, ks: list[str], table: pl.DataFrame, new: dict[str, str]) -> Any:
    """``sdf`` with the ``new`` columns of ``table`` (a Polars frame, unique on the keys and the
    pattern), by a left join on ``ks`` + pattern in every Arrow batch of ``keyed`` (``sdf``'s
    columns, then the keys and the pattern). The other columns pass through as Arrow arrays,
    untouched."""
    from pyspark.sql.pandas.types import to_arrow_schema
    from pyspark.sql.types import DoubleType, StructField, StructType

    right = table.select(*ks, PATTERN, *[pl.col(src).cast(pl.Float64).alias(dst) for dst, src in new.items()])
    out_schema = StructType([*sdf.schema.fields, *[StructField(dst, DoubleType(), True) for dst in new]])
    target = to_arrow_schema(out_schema)
    n_in = len(sdf.columns)
    on = [*ks, PATTERN]

    def batches(it: Any) -> Any:
        import pyarrow as pa

        for b in it:
            if not b.num_rows:
                continue
            t = pa.Table.from_batches([b])
            keys = pl.from_arrow(t.select(on))
            j = keys.join(right, on=on, how="left", nulls_equal=True, maintain_order="left")
            arrays = [t.column(i) for i in range(n_in)] + [j.get_column(dst).to_arrow() for dst in new]
            yield from pa.Table.from_arrays(arrays, names=target.names).cast(target).to_batches()

    return keyed.mapInArrow(batches, out_schema)


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
@deprecated(positional=("alpha", "household", "suppressed_as"))
def frequencies(
    sdf: Any, on: ColumnSpec, weight: str | None = None, *, alpha: float = 1.0, household: str | None = None,
    suppressed_as: str | None = None, fk: str = "fk", Fk: str = "Fk_pop",
) -> Any:
    """``sdf`` with ``fk`` (double: the records sharing the row's key values, missing keys
    matching as wildcards weighted by ``alpha``, as local ``df.sdc.frequencies(on, weight,
    alpha, household)``) and, with ``weight``, ``Fk`` (double: their summed sampling weights; named
    ``Fk_pop`` by default, since Spark column names are case-insensitive). A record with fk = 1
    is unique on the keys. ``household``: the household id; ``fk`` counts the distinct households
    with a compatible record and ``Fk`` sums their household weights (:func:`household_table`; the
    weight must be constant within every household). ``suppressed_as``: the label a
    generalisation gave its suppressed records' keys (``"*"``): a record whose every key is
    that label is read as every key missing, and with one key raises no kept record's
    frequency; default None: every value as written (:mod:`polars_sdc.risk.suppressed`, as
    locally).

    >>> from polars_sdc import spark as sdcs                              # doctest: +SKIP
    >>> sdcs.frequencies(sdf, ["age", "sex", "region"], weight="w")       # doctest: +SKIP
    >>> sdcs.frequencies(sdf, ["hsize", "db040"], weight="rb050", household="db030")   # doctest: +SKIP
    """
    require_pyspark(sdf)
    cols, schema, _ = _check(sdf, on, weight, alpha, suppressed_as)
    _check_names(schema, [fk, Fk] if weight is not None else [fk])
    if household is not None:
        table, cols = household_table(sdf, cols, household, weight, alpha, suppressed_as)
    else:
        table, cols = combination_table(sdf, cols, weight, alpha, suppressed_as)
    new = {fk: FK, **({Fk: FKP} if weight is not None else {})}
    return _join_back(sdf, cols, schema, table, new, suppressed_as)


def _with_risk(table: Any, alpha_rule: str = "safe") -> Any:
    """The combination table without missing keys with the individual risk of each
    combination, computed by the local :func:`polars_sdc.risk.individual.individual_risk` in
    Python tasks (per Arrow batch; without missing keys ``alpha`` changes nothing)."""
    from ..risk.individual import individual_risk

    names = list(table.columns)
    out = pl.Schema({**polars_schema(table), RISK: pl.Float64})

    def task(df: pl.DataFrame) -> pl.DataFrame:
        r = individual_risk(df[FK].to_numpy(), df[FKP].to_numpy(), alpha_rule)
        return df.select(names).with_columns(pl.Series(RISK, r, dtype=pl.Float64))

    return run_frames(table, task, out)


def _risk_table(sdf: Any, cols: Any, weight: str | None, alpha: float, alpha_rule: str = "safe",
                suppressed_as: str | None = None, household: str | None = None) -> tuple[Any, list[str]]:
    """The combination table with ``risk`` (at ``alpha < 1`` never below the risk at ``alpha =
    1`` by default, as locally)."""
    from ..risk.individual import check_alpha_rule

    return combination_table(sdf, cols, weight, alpha, suppressed_as, alpha_rule=check_alpha_rule(alpha_rule),
                             household=household)


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
@deprecated(positional=("alpha", "household", "alpha_rule", "suppressed_as"))
def individual_risk(
    sdf: Any, on: ColumnSpec, weight: str | None = None, *, alpha: float = 1.0, household: str | None = None,
    alpha_rule: str = "safe", suppressed_as: str | None = None, fk: str = "fk", Fk: str = "Fk_pop",
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
    require_pyspark(sdf)
    cols, schema, _ = _check(sdf, on, weight, alpha, suppressed_as)
    _check_names(schema, [fk, Fk, risk] + ([household_risk] if household is not None else []))
    if household is not None:
        check_household_for_risk(schema, household, cols, weight)
    table, cols = _risk_table(sdf, cols, weight, alpha, alpha_rule, suppressed_as, household)
    out = _join_back(sdf, cols, schema, table, {fk: FK, Fk: FKP, risk: RISK}, suppressed_as)
    if household is None:
        return out
    return out.withColumn(household_risk, _household_risk(household, risk))


@check_keywords
@deprecated(positional=("alpha", "household", "alpha_rule", "suppressed_as"))
def global_risk(sdf: Any, on: ColumnSpec, weight: str | None = None, *, alpha: float = 1.0,
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
    those rows reach the driver (with missing keys, the combination table itself: module
    docstring). ``household``: also ``household_risk`` and
    ``household_expected_reidentifications`` (the mean and sum over records of ``1 - prod(1 -
    risk)`` over the record's household), from one aggregation per household. (SUDA and ARX's
    population models need the whole table on one machine: :data:`LOCAL_ONLY`; run them locally
    on a sample or on the released key columns.) ``suppressed_as`` as in :func:`frequencies`
    (pass ``"*"`` for a release of local ``df.sdc.generalize``).

    >>> from polars_sdc import spark as sdcs                               # doctest: +SKIP
    >>> sdcs.risk(sdf, ["age", "sex", "region"], weight="w")["global_risk"]   # doctest: +SKIP
    """
    require_pyspark(sdf)
    from pyspark.sql import functions as F

    from ..risk.measure import frequency_summary

    ks = [check_int(k, "ks: every k", minimum=1) for k in ks]
    cols, schema, _ = _check(sdf, on, weight, alpha, suppressed_as)
    if household is not None:
        check_household_for_risk(schema, household, cols, weight)
    table, _ = _risk_table(sdf, cols, weight, alpha, alpha_rule, suppressed_as, household)
    if isinstance(table, pl.DataFrame):    # missing keys: the table is on the driver
        per_fk = table.group_by(FK).agg(pl.col(COUNT).sum().alias("n"),
                                        (pl.col(COUNT) * pl.col(RISK)).sum().alias("e")).sort(FK)
    else:
        per_fk = pl.from_arrow(table.groupBy(FK).agg(F.sum(COUNT).alias("n"),
                                                     F.sum(F.col(COUNT) * F.col(RISK)).alias("e")).toArrow()).sort(FK)
    n = per_fk["n"].to_numpy()
    summary = frequency_summary(per_fk[FK].to_numpy(), per_fk["e"].to_numpy() / n, ks, counts=n)
    if household is not None:
        records = _join_back(sdf.select(household, *cols), cols, schema, table, {"__sdc_r": RISK}, suppressed_as)
        per_h = records.groupBy(household).agg(F.count(F.lit(1)).alias("__sdc_m"),
                                               _household_risk_of(F.col("__sdc_r")).alias("__sdc_h"))
        row = per_h.agg(F.sum(F.col("__sdc_m") * F.col("__sdc_h")).alias("e"), F.sum("__sdc_m").alias("n")).collect()[0]
        summary["household_risk"] = float(row["e"]) / int(row["n"])
        summary["household_expected_reidentifications"] = float(row["e"])
    return summary


__all__ = ["combination_table", "frequencies", "global_risk", "household_table", "individual_risk", "risk"]
