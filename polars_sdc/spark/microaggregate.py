"""Microaggregation on Spark: distributed blocking, then the local method inside each block.

The arguments are checked once on the driver by the local spec
(:meth:`polars_sdc.microagg.pipeline.MicroaggSpec.build`, every check of
``df.sdc.microaggregate``). The blocks come from :mod:`polars_sdc.spark.blocking` (a kd-tree
from a sample; every block holds >= k and <= ``block_rows`` records of one stratum). The rows
are repartitioned by block, one Spark partition per block, and each task
(:func:`polars_sdc.spark._common.run_frames`, ``per="block"``) sorts its block by all its
columns (a canonical order, so the result does not depend on the order in which the shuffle
delivered the rows) and applies the spec built on the driver for the blocks: the same
arguments with the z-scores of the block's stratum and null pattern (their standard deviations,
from one aggregation, enter as per-column weights, so every block measures distance in the
units a single-process run uses for that stratum and pattern: a stratum held in one block is
released as locally). Every group of the local method has >= k records, so every class of the released
quasi-identifiers — strata included — has >= k records (a group never spans two blocks, nor a
block two strata). The result's Spark schema is the spec's ``output_schema``.

``household=``: every block holds whole households, and the local household path runs in each
(every released group spans >= k distinct households; no vector released unchanged unless
>= k households of its group share it). Household-level ``on`` columns are microaggregated on
one row per household (``groupBy``) and joined back to every member; person-level ones on the
person rows, blocked by their household's mean position (the kd-tree is planned on one row
per household), so no block splits a household.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

import polars as pl

from .._columns import ColumnSpec, is_numeric
from .._errors import SDCError
from ._common import BLOCK, PART, bad_value_counts, polars_schema, raise_bad, require_pyspark, run_frames
from .blocking import NULLS, SEP, BlockPlan, assign, partition_labels, plan_blocks


#: options of the local ``df.sdc.microaggregate`` that have no Spark counterpart, and why
LOCAL_ONLY = {
    "merge_small_strata": "the blocks are planned per stratum; a stratum with fewer than k rows is refused",
    "pooled_label": "goes with merge_small_strata",
    "progress": "a Spark job shows its progress in the Spark UI",
}


def local_weights(std: Sequence[float], features: Sequence[str], weights: Mapping[str, float] | None,
                  standardize: bool) -> dict[str, float]:
    """Per-column weights for the block runs (made with ``standardize=False``) that give the
    distance of the global z-scores: ``w / sd^2`` for a numeric column (0 for a constant
    one), ``w`` for a categorical one.

    >>> local_weights([2.0, 0.0], ["x", "y"], {"x": 3.0, "c": 0.5}, True)
    {'x': 0.75, 'c': 0.5, 'y': 0.0}
    """
    out = {c: float(v) for c, v in (weights or {}).items()}
    if standardize:
        for c, sd in zip(features, std):
            out[c] = float(out.get(c, 1.0)) / float(sd) ** 2 if sd > 0 else 0.0
    return out


def microaggregate(
    sdf: Any,
    k: int,
    on: ColumnSpec = None,
    *,
    method: str = "mdav",
    by: ColumnSpec = None,
    standardize: bool = True,
    ordinal: Sequence[str] = (),
    weights: Mapping[str, float] | None = None,
    group_column: str | None = None,
    refine: str | None = None,
    refine_options: Mapping[str, Any] | None = None,
    integers: str = "round",
    household: str | None = None,
    household_columns: Sequence[str] | None = None,
    merge_small_patterns: bool = False,
    block_rows: int = 100_000,
    block_column: str | None = None,
    seed: int = 0,
    sample_per_block: int = 200,
    plan: BlockPlan | None = None,
    task_wrapper: Callable[[Callable], Callable] | None = None,
    **options: Any,
) -> Any:
    """Microaggregate a Spark DataFrame as local ``df.sdc.microaggregate(k, on, method=, by=,
    standardize=, ordinal=, weights=, group_column=, refine=, refine_options=, integers=,
    household=, household_columns=, **method_options)`` does, inside blocks of at most ``block_rows`` records
    (thesis 2.3.4 methods; blocking as in Solanas et al.'s 2^d-tree blocking): ``on`` replaced
    by group representatives (means for numeric columns, the most frequent value for
    categorical ones). Returns a Spark DataFrame with the input's columns and types as the
    local ``output_schema`` says (numeric ``on`` columns as double; integer ones keep their
    type, the group mean rounded half to even, unless ``integers="float"``), plus
    ``group_column`` (int64: the block id in the high 32 bits, unique over the table) and
    ``block_column`` (int32) when asked; the rows come back grouped by block.

    ``standardize`` z-scores the numeric columns with the standard deviations of each stratum
    and null pattern, as locally (with ``plan=`` or ``household=`` a block may hold several
    patterns of its stratum: each gets its own; a ``plan`` whose strata do not include ``by``:
    the whole table's); ``by`` strata are blocked and partitioned separately; ``seed`` only chooses
    the sample the kd-tree is built from; ``plan`` reuses a :func:`plan_blocks` result;
    ``task_wrapper`` wraps the per-block task function (a test hook: fault injection).
    ``household=``: every group spans >= k distinct households, for household-level and
    person-level ``on`` columns (module docstring; docs/households-microaggregation.md);
    ``household_columns``: the household-level ``on`` columns declared instead of detected
    (checked constant within every household; the others person-level), as locally.
    Structural nulls in ``on`` stay null: each null pattern is blocked apart (a stratum of the
    blocking), so every block holds one pattern, as the local method groups them
    (``merge_small_patterns``: the patterns of fewer than k rows of a stratum share one block,
    where the local method pools them; with person-level ``household=`` the blocks are cut by
    household, and the small patterns of each block are pooled).
    Local options without a Spark counterpart: :data:`LOCAL_ONLY`.

    >>> from polars_sdc import spark as sdcs                                  # doctest: +SKIP
    >>> out = sdcs.microaggregate(sdf, 5, ["age", "income"], by="country")   # doctest: +SKIP
    """
    require_pyspark(sdf)
    from ..microagg.pipeline import MicroaggSpec

    for name in LOCAL_ONLY:
        if name in options:
            raise SDCError(f"microaggregate option {name!r} has no Spark counterpart: {LOCAL_ONLY[name]}")
    _refuse_misspelt_spark_parameters(options, method)
    schema = polars_schema(sdf)
    arguments = dict(method=method, by=by, ordinal=ordinal, group_column=group_column, refine=refine,
                     refine_options=refine_options, integers=integers, merge_small_patterns=merge_small_patterns,
                     household_columns=household_columns, **options)
    # every check of the local method, once, on the driver
    spec = MicroaggSpec.build(schema, k, on, standardize=standardize, weights=weights, household=household,
                              **arguments)
    on_cols, by_cols = list(spec.on), list(spec.by)
    if block_column is not None and (block_column in schema or block_column == group_column):
        raise SDCError(f"column {block_column!r}: already in the frame; choose another `block_column` name")
    if sdf.isEmpty():   # as locally: an empty frame is released empty, with the output schema
        from ._common import spark_schema

        empty = dict(spec.output_schema())
        if group_column is not None:
            empty[group_column] = pl.Int64
        if block_column is not None:
            empty[block_column] = pl.Int32
        return sdf.sparkSession.createDataFrame([], spark_schema(pl.Schema(empty), like=sdf))
    unit_std = None
    if household is None:
        frame, units = sdf, sdf
        if plan is None:    # structural nulls: each null pattern over `on` blocked apart, as a stratum
            units = frame = sdf.withColumn(NULLS, null_pattern_column(on_cols))
            if merge_small_patterns:
                units = frame = pool_small_patterns(frame, by_cols, k, on_cols)
            by = [*by_cols, NULLS]
    else:
        if plan is not None:
            raise SDCError("household=: a `plan` is made for the person rows; the household path plans its own blocks")
        frame, units = _household_frames(sdf, household, on_cols, by_cols, schema, spec.household_columns)
    features = [c for c in on_cols if is_numeric(schema[c])]
    if household is None and plan is None and standardize and features:
        # the local method z-scores each stratum's null pattern on its own rows: the blocks of a
        # (stratum, pattern) measure distance with its standard deviations, as a local run does
        unit_std = unit_deviations(frame, by, features)
    pattern_std = None
    if (household is not None or plan is not None) and standardize and features \
            and (plan is None or set(by_cols) <= set(plan.by)):
        # these blocks lie in one stratum but may hold several null patterns: each pattern of a
        # block gets its stratum's standard deviations (the spec's pattern_weights), as locally
        pattern_std = unit_deviations(frame.withColumn(NULLS, null_pattern_column(on_cols)), [*by_cols, NULLS],
                                      features)
    if units is frame:
        if plan is None:
            plan = plan_blocks(frame, k, on_cols, by=by, block_rows=block_rows, standardize=standardize,
                               weights=weights, seed=seed, sample_per_block=sample_per_block, nulls=True)
        std = list(plan.std)
    else:   # person rows blocked by household: plan on one row per household, z-scores of the persons
        std, rows, homes = person_stats(frame, on_cols, features, schema, household)
        plan = plan_blocks(units, k, on_cols, by=by, block_rows=max(2 * k, int(block_rows * homes / max(rows, 1))),
                           standardize=standardize, weights=weights, seed=seed, sample_per_block=sample_per_block,
                           nulls=True)
    # the spec every block runs: the same arguments, z-scores as weights (the whole table's here; spec_of
    # puts those of the block's stratum and null pattern)
    run_spec = MicroaggSpec.build(polars_schema(frame.drop(NULLS)), k, on_cols, standardize=False, household=household,
                                  weights=local_weights(std, features, weights, standardize), **arguments)
    if units is not frame:          # person-level over the whole table, whatever one block shows
        run_spec = replace(run_spec, person_level=True)
    columns = [c for c in frame.columns if c != NULLS]
    out_schema = run_spec.output_schema()
    if group_column is not None:
        out_schema = pl.Schema({**out_schema, group_column: pl.Int64})
    if block_column is not None:
        out_schema = pl.Schema({**out_schema, block_column: pl.Int32})

    specs: dict[tuple, Any] = {}

    def spec_of(df: pl.DataFrame) -> Any:
        """The block's spec: with the standard deviations of its (stratum, null pattern)."""
        if pattern_std is not None and df.height:
            return pattern_spec(df)
        if unit_std is None or not df.height:
            return run_spec
        row = df.head(1).select(by).join(unit_std, on=by, how="left", nulls_equal=True).row(0, named=True)
        sds = tuple(float(row[f"__sdc_sd{j}"] or 0.0) for j in range(len(features)))
        if sds not in specs:
            specs[sds] = replace(run_spec, weights=local_weights(sds, features, weights, standardize))
        return specs[sds]

    def pattern_spec(df: pl.DataFrame) -> Any:
        """The block's spec with the weights of each null pattern of its stratum."""
        key = ("stratum", df.head(1).select(by_cols).rows()[0] if by_cols else ())
        if key not in specs:
            rows = pattern_std.join(df.head(1).select(by_cols), on=by_cols, how="semi", nulls_equal=True) \
                if by_cols else pattern_std
            pw = {}
            for r in rows.iter_rows(named=True):
                present = set(r[NULLS].split(SEP)) if r[NULLS] else set()
                sds = [float(r[f"__sdc_sd{j}"] or 0.0) for j in range(len(features))]
                pw[tuple(c for c in on_cols if c in present)] = local_weights(sds, features, weights, standardize)
            specs[key] = replace(run_spec, pattern_weights=pw)
        return specs[key]

    def task(df: pl.DataFrame) -> pl.DataFrame:
        block = int(df[BLOCK][0]) if df.height else 0
        spec_b = spec_of(df)
        df = df.select(columns).sort(columns, nulls_last=True)  # canonical row order: by every column
        out = spec_b.apply(df)
        if group_column is not None:
            out = out.with_columns((pl.col(group_column).cast(pl.Int64) + (block << 32)).alias(group_column))
        if block_column is not None:
            out = out.with_columns(pl.lit(block, pl.Int32).alias(block_column))
        return out

    if task_wrapper is not None:
        task = task_wrapper(task)
    # one task per block: repartition by a label whose hash partition is the block id (no sort
    # by block, no grouping operator; the block ids are unique over the strata)
    labels = partition_labels(plan.n_blocks)
    if units is frame:
        blocked = assign(frame, plan, column=BLOCK, part_column=PART, part_labels=labels)
    else:
        homes_blocked = assign(units.select(household, *features, *by_cols), plan, column=BLOCK, part_column=PART,
                               part_labels=labels).select(household, BLOCK, PART)
        blocked = frame.join(homes_blocked, on=household, how="inner")
    released = run_frames(blocked.repartition(plan.n_blocks, PART), task, out_schema, per="block", block=BLOCK)
    if household is None or units is not frame:      # person rows: the release as it is
        return released
    extra = [c for c in (group_column, block_column) if c is not None]   # household rows: join back
    return sdf.drop(*on_cols).join(released.select(household, *on_cols, *extra), on=household, how="inner") \
        .select(*sdf.columns, *extra)


def _household_frames(sdf: Any, household: str, on: list[str], by: list[str], schema: pl.Schema,
                      declared: Sequence[str] | None = None) -> tuple[Any, Any]:
    """(the frame the blocks run on, the frame the blocks are planned on) for ``household=``:
    household-level ``on`` columns (detected, or ``declared`` by ``household_columns=`` and
    checked): one row per household for both; person-level ones: the person rows, planned on
    one row per household (the mean of each numeric column, the least categorical value). A
    mix, or strata that split a household, are errors, as locally."""
    from pyspark.sql import functions as F

    from .household import split_columns

    hh, person = split_columns(sdf, household, on, declared)
    if hh and person:
        raise SDCError(
            f"household={household!r}: column(s) {', '.join(map(repr, hh))} are household-level "
            f"({'declared' if declared is not None else 'constant within every household'}) "
            f"and {', '.join(map(repr, person))} person-level; microaggregate them in two calls "
            "(household-level columns are aggregated once per household, person-level ones per person with >= k "
            "households in every group)"
            + ("" if declared is not None else
               "; a column constant within every household only by accident is person-level if you declare "
               "the household-level ones (household_columns=[...], or [] for none)"))
    varying = split_columns(sdf, household, by)[1] if by else []
    if varying:
        raise SDCError(f"`by` column {varying[0]!r} varies within a household of {household!r}; a household must "
                       "lie in one stratum")
    if not person:
        small = sdf.groupBy(household).agg(*[F.first(c).alias(c) for c in dict.fromkeys(on + by)])
        return small, small
    rep = sdf.groupBy(household).agg(
        *[(F.avg(F.col(c).cast("double")) if is_numeric(schema[c]) else F.min(c)).alias(c) for c in on],
        *[F.first(c).alias(c) for c in by])
    return sdf, rep


def person_stats(sdf: Any, on: list[str], features: list[str], schema: pl.Schema,
                  household: str) -> tuple[list[float], int, int]:
    """(standard deviations (ddof 0) of the numeric ``on`` columns over the persons, persons,
    households), after the null / NaN / infinity check of the person values, in one job."""
    from pyspark.sql import functions as F

    row = sdf.agg(F.count(F.lit(1)).alias("__sdc_rows"), F.countDistinct(household).alias("__sdc_homes"),
                  *[F.stddev_pop(F.col(c).cast("double")).alias(f"__sdc_sd_{c}") for c in features],
                  *bad_value_counts(sdf, on, schema, nulls=True)).collect()[0]
    raise_bad(on, row)
    return [float(row[f"__sdc_sd_{c}"] or 0.0) for c in features], int(row["__sdc_rows"]), int(row["__sdc_homes"])


def unit_deviations(frame: Any, by: list[str], features: list[str]) -> pl.DataFrame:
    """Per (stratum, null pattern) -- the ``by`` columns with the pattern column -- the standard
    deviations (ddof 0, non-null values) of the numeric ``on`` columns, ``__sdc_sd<j>``: one small
    aggregation brought to the driver (one row per stratum and pattern)."""
    from pyspark.sql import functions as F

    return pl.from_arrow(frame.groupBy(*by).agg(
        *[F.stddev_pop(F.col(c).cast("double")).alias(f"__sdc_sd{j}") for j, c in enumerate(features)]).toArrow())


def null_pattern_column(on: Sequence[str]) -> Any:
    """A row's null pattern over ``on`` as a string (its non-null columns), for the blocking."""
    from pyspark.sql import functions as F

    return F.concat_ws(SEP, *[F.when(F.col(c).isNotNull(), F.lit(c)) for c in on])


def pool_small_patterns(frame: Any, by: list[str], k: int, on: Sequence[str]) -> Any:
    """``frame`` with the null patterns of fewer than ``k`` rows of a stratum relabelled so they
    share a block, where the local method pools them (``merge_small_patterns``;
    :func:`polars_sdc.microagg.blocks.pattern_blocks`): as ``"pooled"``, or, when the pool itself
    has fewer than k rows, as the pattern it joins locally (the fewest suppressed values; ties:
    fewer rows, then the pattern's label, where local takes the first to appear). One
    aggregation; the relabelling is a literal expression."""
    from pyspark.sql import functions as F

    keys = [*by, NULLS]
    counts = pl.from_arrow(frame.groupBy(*keys).agg(F.count(F.lit(1)).alias("__sdc_count")).toArrow())
    rules = []
    for _, t in (counts.group_by(by, maintain_order=True) if by else [((), counts)]):
        small, big = t.filter(pl.col("__sdc_count") < k), t.filter(pl.col("__sdc_count") >= k)
        if not small.height:
            continue
        new = "pooled"
        if small["__sdc_count"].sum() < k and big.height:
            lacks = set(on) - set.intersection(*[set(_present(p)) for p in small[NULLS]])
            new = min(big.iter_rows(named=True), key=lambda r: (
                r["__sdc_count"] * len(lacks & set(_present(r[NULLS]))), r["__sdc_count"], r[NULLS]))[NULLS]
        for r in small.iter_rows(named=True):
            rules.append(([r[c] for c in by], r[NULLS], new))
    if not rules:
        return frame
    label = F.col(NULLS)
    for values, old, new in rules:
        cond = F.col(NULLS) == F.lit(old)
        for c, v in zip(by, values):
            cond = cond & F.col(c).eqNullSafe(F.lit(v))
        label = F.when(cond, F.lit(new)).otherwise(label)
    return frame.withColumn(NULLS, label)


def _present(pattern: str) -> list[str]:
    """The non-null columns of a :func:`null_pattern_column` label."""
    return pattern.split(SEP) if pattern else []


#: The parameters only Spark's :func:`microaggregate` takes (the blocking and the task wrapper)
SPARK_PARAMETERS = ("block_rows", "block_column", "seed", "sample_per_block", "plan", "task_wrapper")


def _refuse_misspelt_spark_parameters(options: Mapping[str, Any], method: str) -> None:
    """An option that is no option of the method but close to one of :data:`SPARK_PARAMETERS`
    (``block_row=``) is an error suggesting it; the method's own check (local, with its own
    suggestions) sees the rest."""
    import difflib

    from ..microagg import METHODS

    takes = METHODS[method].options() if method in METHODS else []
    for name in options:
        if name in takes:
            continue
        close = difflib.get_close_matches(name, SPARK_PARAMETERS, n=1, cutoff=0.75)
        if close:
            raise SDCError(f"microaggregate() got an unexpected keyword argument {name!r}; did you mean {close[0]!r}? "
                           f"(the Spark blocking parameters: {', '.join(SPARK_PARAMETERS)})")
