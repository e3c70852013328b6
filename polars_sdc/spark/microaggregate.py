"""Microaggregation on Spark: distributed blocking, then the local method inside each block.

The blocks come from :mod:`polars_sdc.spark.blocking` (a kd-tree from a sample; every block
holds >= k and <= ``block_rows`` records of one stratum). The rows are repartitioned by block,
one Spark partition per block, and ``mapInArrow`` runs one task per block: it turns the
block's Arrow batches into a Polars frame, sorts it by all its columns (a canonical order, so
the result does not depend on the order in which the shuffle delivered the rows) and calls
the public local method,
``df.sdc.microaggregate(k, on, method=..., refine=..., **options)``, with the z-scores of
the whole table (the global standard deviations enter as per-column weights, so every block
measures distance in the same units as a single-process run would). Every group of the
local method has >= k records, so every class of the released quasi-identifiers — strata
included — has >= k records (a group never spans two blocks, nor a block two strata).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import polars as pl

from .._columns import ColumnSpec, is_numeric, resolve_columns
from .._errors import SDCError
from ._common import BLOCK, PART, arrow_schema, nullable, polars_schema, require_pyspark, to_spark_arrow
from .blocking import BlockPlan, assign, partition_labels, plan_blocks


def local_weights(plan: BlockPlan, weights: Mapping[str, float] | None, standardize: bool) -> dict[str, float]:
    """Per-column weights for the local call (made with ``standardize=False``) that give the
    distance of the global z-scores: ``w / sd^2`` for a numeric column (0 for a constant
    one), ``w`` for a categorical one."""
    out = {c: float(v) for c, v in (weights or {}).items()}
    if standardize:
        for c, sd in zip(plan.features, plan.std):
            out[c] = float(out.get(c, 1.0)) / float(sd) ** 2 if sd > 0 else 0.0
    return out


def block_task(
    k: int,
    on: Sequence[str],
    columns: Sequence[str],
    target: Any,
    *,
    method: str,
    refine: str | None,
    ordinal: Sequence[str],
    weights: Mapping[str, float],
    group_column: str | None,
    block_column: str | None,
    options: Mapping[str, Any],
) -> Callable[[Any], Any]:
    """The function a Spark task runs on one block (a pyarrow Table): the local method on the
    block's rows in canonical order, cast to the Spark result schema ``target``. The group id
    written to ``group_column`` is ``block * 2**32 + local group``."""
    on, columns, ordinal, options, weights = list(on), list(columns), list(ordinal), dict(options), dict(weights)

    def run(table: Any) -> Any:
        import polars_sdc  # noqa: F401  (registers df.sdc in the worker)

        df = pl.from_arrow(table)
        block = int(df[BLOCK][0]) if df.height else 0
        df = df.select(columns)  # drops the block and partition labels
        df = df.sort(columns, nulls_last=True)  # canonical row order: by every column, in frame order
        out = df.sdc.microaggregate(
            k, on, method=method, refine=refine, standardize=False, ordinal=ordinal, weights=weights,
            group_column=group_column, **options,
        )
        if group_column is not None:
            out = out.with_columns((pl.col(group_column).cast(pl.Int64) + (block << 32)).alias(group_column))
        if block_column is not None:
            out = out.with_columns(pl.lit(block, pl.Int32).alias(block_column))
        return to_spark_arrow(out, target)

    return run


def microaggregate(
    sdf: Any,
    k: int,
    on: ColumnSpec = None,
    *,
    method: str = "mdav",
    by: ColumnSpec = None,
    block_rows: int = 100_000,
    standardize: bool = True,
    ordinal: Sequence[str] = (),
    weights: Mapping[str, float] | None = None,
    refine: str | None = None,
    group_column: str | None = None,
    block_column: str | None = None,
    seed: int = 0,
    sample_per_block: int = 200,
    plan: BlockPlan | None = None,
    task_wrapper: Callable[[Callable], Callable] | None = None,
    integers: str = "round",
    household: str | None = None,
    _local_household: str | None = None,
    **options: Any,
) -> Any:
    """Microaggregate a Spark DataFrame: ``on`` replaced by group representatives (means for
    numeric columns, the most frequent value for categorical ones) under a k-partition by
    ``method`` (``"mdav"``, ``"vmdav"``, ``"mhm"``, ``"univariate"``; ``refine="mil"`` too)
    run inside blocks of at most ``block_rows`` records (thesis 2.3.4 methods; blocking as in
    Solanas et al.'s 2^d-tree blocking). Returns a Spark DataFrame with the input's columns
    (numeric ``on`` columns as double; integer ones keep their type, the group mean rounded
    half to even, unless ``integers="float"``, as locally), plus ``group_column`` (int64, unique over the table)
    and ``block_column`` (int32) when asked; the rows come back grouped by block.

    ``standardize`` z-scores the numeric columns with the whole table's mean and standard
    deviation; ``by`` strata are blocked and partitioned separately; ``seed`` only chooses
    the sample the kd-tree is built from; ``plan`` reuses a :func:`plan_blocks` result;
    ``task_wrapper`` wraps the per-block task function (a test hook: fault injection).
    ``household=`` (a household id column; household-level ``on`` columns only): one row per
    household, so no block splits a household; each group holds >= k households and the result
    is joined back to every member (docs/households-microaggregation.md).

    >>> from polars_sdc import spark as sdcs                                  # doctest: +SKIP
    >>> out = sdcs.microaggregate(sdf, 5, ["age", "income"], by="country")   # doctest: +SKIP
    """
    if household is not None:
        return _households(sdf, k, on, household, dict(
            method=method, by=by, block_rows=block_rows, standardize=standardize, ordinal=ordinal,
            weights=weights, refine=refine, group_column=group_column, block_column=block_column, seed=seed,
            sample_per_block=sample_per_block, plan=plan, task_wrapper=task_wrapper, integers=integers, **options))
    require_pyspark()
    from .._validation import check_choice
    from ..aggregate import check_integers
    from ..microagg import METHODS, REFINERS

    METHODS[check_choice(method, "method", METHODS)].check_options(options)
    if refine is not None:
        check_choice(refine, "refine", REFINERS)
    integers = check_integers(integers)
    schema = polars_schema(sdf)
    if plan is None:
        plan = plan_blocks(sdf, k, on, by=by, block_rows=block_rows, standardize=standardize,
                           weights=weights, seed=seed, sample_per_block=sample_per_block)
    on_cols = plan.on
    bad_ord = [c for c in ordinal if c not in on_cols]
    if bad_ord:
        raise SDCError(f"column {bad_ord[0]!r}: marked ordinal but is not a quasi-identifier")
    for name in (group_column, block_column):
        if name is not None and name in schema:
            raise SDCError(f"column {name!r}: already in the frame; choose another name")
    from pyspark.sql.types import DoubleType, IntegerType, LongType, StructField, StructType

    fields = [
        StructField(f.name, DoubleType() if f.name in on_cols and f.name not in ordinal
                    and is_numeric(schema[f.name])
                    and not (schema[f.name].is_integer() and integers == "round") else f.dataType, True)
        for f in sdf.schema.fields
    ]
    if group_column is not None:
        fields.append(StructField(group_column, LongType(), True))
    if block_column is not None:
        fields.append(StructField(block_column, IntegerType(), True))
    out_schema = nullable(StructType(fields))
    task = block_task(
        k, on_cols, sdf.columns, arrow_schema(out_schema), method=method, refine=refine, ordinal=ordinal,
        weights=local_weights(plan, weights, standardize), group_column=group_column,
        block_column=block_column,
        options={**options, "integers": integers, **({"household": _local_household} if _local_household else {})},
    )
    if task_wrapper is not None:
        task = task_wrapper(task)
    # one task per block: repartition by a label whose hash partition is the block id, then
    # run the task on each partition's rows (mapInArrow: no sort by block, no grouping
    # operator; the block ids are unique over the strata, so a partition holds one block)
    labels = partition_labels(plan.n_blocks)
    blocked = assign(sdf, plan, column=BLOCK, part_column=PART, part_labels=labels)
    blocked = blocked.repartition(plan.n_blocks, PART)
    return blocked.mapInArrow(partition_task(task), out_schema)


def _households(sdf: Any, k: int, on: ColumnSpec, household: str, arguments: dict[str, Any]) -> Any:
    """``household=`` on Spark, household-level ``on`` columns only: one row per household
    (``groupBy``, so no block ever splits a household), microaggregated with the local
    household path in every block (groups of >= k households, no vector released unchanged
    unless >= k households of its group share it), joined back to every member on the id.
    Person-level columns are refused: their blocks are cut on the persons' values."""
    from ..household import check_household_column
    from ..microagg import quasi_identifiers
    from .household import split_columns

    require_pyspark()
    from pyspark.sql import functions as F

    schema = polars_schema(sdf)
    on_cols = quasi_identifiers(schema, on, arguments.get("by"))
    check_household_column(schema, household, on_cols)
    if arguments.get("plan") is not None:
        raise SDCError("household=: a `plan` is made for the person rows; the household path plans its own blocks")
    by_cols = resolve_columns(schema, arguments["by"], what="by") if arguments.get("by") is not None else []
    hh, person = split_columns(sdf, household, on_cols)
    if person:
        raise SDCError(
            f"household={household!r}: column(s) {', '.join(map(repr, person))} are person-level (they vary within "
            "a household); on Spark only household-level columns are microaggregated with household= "
            "(blocks of household rows); microaggregate person-level columns locally (df.sdc.mdav(..., "
            "household=...))"
        )
    varying = [c for c in by_cols if c in split_columns(sdf, household, [c])[1]]
    if varying:
        raise SDCError(f"`by` column {varying[0]!r} varies within a household of {household!r}; a household must "
                       "lie in one stratum")
    extra = [c for c in (arguments.get("group_column"), arguments.get("block_column")) if c is not None]
    small = sdf.groupBy(household).agg(*[F.first(c).alias(c) for c in dict.fromkeys(on_cols + by_cols)])
    released = microaggregate(small, k, on_cols, household=None, _local_household=household, **arguments)
    keep = [household, *on_cols, *extra]
    return sdf.drop(*on_cols).join(released.select(*keep), on=household, how="inner").select(*sdf.columns, *extra)


def partition_task(task: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """The ``mapInArrow`` function of the block stage: the record batches of one Spark
    partition joined into one table, ``task`` run on each block in it (one, by construction
    of the partition labels; several are split by block id, in increasing order, so the
    result never depends on how the shuffle laid the blocks out), its result yielded as
    record batches."""

    def run(batches: Any) -> Any:
        import pyarrow as pa
        import pyarrow.compute as pc

        batches = [b for b in batches if b.num_rows]
        if not batches:
            return
        table = pa.Table.from_batches(batches)
        ids = pc.unique(table.column(BLOCK)).to_pylist()
        for b in sorted(ids):
            part = table if len(ids) == 1 else table.filter(pc.equal(table.column(BLOCK), b))
            yield from task(part).to_batches()

    return run
