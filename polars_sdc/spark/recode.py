"""Minimum-frequency global recoding on Spark (Sano & Hattori, Fig. 1).

The category counts of every recoded column come from one Spark aggregation; the merge plan
is computed on the driver by the local planner (:func:`polars_sdc.recode.merge_plan`, a
table of one row per category); the mapping is applied to the rows as a Spark map lookup.
Spark rows have no order, so a category's *natural position* (which decides ties and the
order of the parts of a merged label) is the sorted order of the labels; ``ordinal=`` gives
an explicit order. The result equals local ``df.sdc.recode`` on a frame whose columns are
Enums over the sorted labels, with the same label options (``sep``, ``other``, ``max_label``)
and ``null_values`` (their rows become null).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Unpack

import polars as pl

from .._columns import ColumnSpec, resolve_columns
from .._errors import SDCError
from .._signature import check_keywords, deprecated
from .._typing import LabelOptions
from ..recode import (
    check_label_options,
    check_other_constraints,
    check_p,
    merge_plan,
    threshold,
    with_recoded_count,
)
from ._common import polars_schema, require_pyspark


def _counts(sdf: Any, cols: list[str]) -> tuple[int, dict[str, tuple[list[str], list[int]]]]:
    """(rows, {column: (labels sorted, counts)}) from one aggregation over all columns."""
    from pyspark.sql import functions as F

    pairs = F.explode(F.array(*[
        F.struct(F.lit(i).alias("c"), F.col(c).cast("string").alias("v")) for i, c in enumerate(cols)
    ])).alias("p")
    rows = (sdf.select(pairs).select("p.c", "p.v").groupBy("c", "v").agg(F.count(F.lit(1)).alias("n"))
            .toArrow())
    table = pl.from_arrow(rows)
    n = int(table.filter(pl.col("c") == 0)["n"].sum()) if table.height else 0
    out = {}
    for i, c in enumerate(cols):
        t = table.filter((pl.col("c") == i) & pl.col("v").is_not_null()).sort("v")
        out[c] = (t["v"].to_list(), [int(x) for x in t["n"].to_list()])
    return n, out


def _arguments(schema: pl.Schema, columns: ColumnSpec, p: float, hierarchy: Any, ordinal: Any,
               label_options: Mapping[str, Any]) -> tuple[list[str], float, dict, dict]:
    """(columns, p, {column: hierarchy}, {column: order}) checked as locally, before any data is read."""
    cols = resolve_columns(schema, columns, kind="categorical", what="columns", default="error")
    p = check_p(p)
    names, _ = check_label_options(label_options)
    hierarchy = dict(hierarchy or {})
    ordinal = dict(ordinal or {})
    for c in [*hierarchy, *ordinal]:
        if c not in cols:
            raise SDCError(f"column {c!r}: has a hierarchy or order but is not among the recoded columns")
    for c in cols:
        check_other_constraints(names.other, c, hierarchy=c in hierarchy, ordinal=c in ordinal)
    return cols, p, hierarchy, ordinal


@check_keywords
@deprecated(renamed={"columns": "on"})
def recode_map(
    sdf: Any,
    on: ColumnSpec,
    p: float,
    *,
    hierarchy: Mapping[str, Mapping[str, str]] | None = None,
    ordinal: Mapping[str, list[str]] | None = None,
    **label_options: Unpack[LabelOptions],
) -> pl.DataFrame:
    """The recoding plan as a (small, driver-side) Polars frame: ``column``, ``original``,
    ``recoded``, ``count``, ``recoded_count``, one row per observed category (``recoded``
    null for the ``null_values``).

    >>> from polars_sdc import spark as sdcs                     # doctest: +SKIP
    >>> sdcs.recode_map(sdf, "occupation", p=0.01)               # doctest: +SKIP
    """
    require_pyspark(sdf)
    cols, p, hierarchy, ordinal = _arguments(polars_schema(sdf), on, p, hierarchy, ordinal, label_options)
    names, missing = check_label_options(label_options)
    opts = dict(sep=names.sep, other=names.other, max_label=names.max_label)
    n, counts = _counts(sdf, cols)
    th = threshold(n, p)
    rows: dict[str, list] = {"column": [], "original": [], "recoded": [], "count": []}
    for c in cols:
        all_labels, all_cnt = counts[c]
        keep = [i for i, lab in enumerate(all_labels) if lab not in missing]
        labels, cnt = [all_labels[i] for i in keep], [all_cnt[i] for i in keep]
        if c in ordinal:
            order = ordinal[c]
            if isinstance(order, str) or not isinstance(order, (list, tuple)):
                raise SDCError(f"column {c!r}: the ordinal order must be a list of categories")
            rank = {str(x): i for i, x in enumerate(order)}
            missing = [lab for lab in labels if lab not in rank]
            if missing:
                raise SDCError(f"column {c!r}: category {missing[0]!r} is not in the ordinal order")
            perm = sorted(range(len(labels)), key=lambda i: rank[labels[i]])
            new_sorted = merge_plan([labels[i] for i in perm], [cnt[i] for i in perm], th,
                                    ordinal=True, column=c, **opts)
            new = [""] * len(labels)
            for j, i in enumerate(perm):
                new[i] = new_sorted[j]
        else:
            new = merge_plan(labels, cnt, th, hierarchy=hierarchy.get(c), column=c, **opts)
        full: list[str | None] = [None] * len(all_labels)
        for i, lab in zip(keep, new):
            full[i] = lab
        rows["column"] += [c] * len(all_labels)
        rows["original"] += all_labels
        rows["recoded"] += full
        rows["count"] += all_cnt
    table = pl.DataFrame(
        rows, schema={"column": pl.String, "original": pl.String, "recoded": pl.String, "count": pl.UInt32}
    )
    return with_recoded_count(table)


@check_keywords
@deprecated(renamed={"columns": "on"})
def recode(
    sdf: Any,
    on: ColumnSpec,
    p: float,
    *,
    hierarchy: Mapping[str, Mapping[str, str]] | None = None,
    ordinal: Mapping[str, list[str]] | None = None,
    household: str | None = None,
    household_columns: Sequence[str] | None = None,
    **label_options: Unpack[LabelOptions],
) -> Any:
    """``sdf`` with each of the (string) columns ``on`` recoded by minimum frequency (Sano & Hattori,
    Fig. 1, th = rows * p), as local ``df.sdc.recode(on, p, hierarchy=, ordinal=,
    household=, household_columns=, **label_options)``: the plan of :func:`recode_map` applied
    as a map lookup; nulls stay null, the ``null_values`` become null, other columns are
    untouched. ``household``: the household id; a household-level column (constant within
    every household, or declared by ``household_columns``) is recoded on one row per household
    (th = households * p) and every member gets its household's label; person-level columns as
    without it (:mod:`polars_sdc.spark.household`, sdcMicro's selectHouseholdData workflow).

    >>> from polars_sdc import spark as sdcs                     # doctest: +SKIP
    >>> out = sdcs.recode(sdf, "occupation", p=0.01)             # doctest: +SKIP
    >>> out = sdcs.recode(sdf, ["region", "job"], p=0.05, household="hh")   # doctest: +SKIP
    """
    from itertools import chain

    from pyspark.sql import functions as F

    if household is not None:
        from ..household import check_household_column, check_household_columns
        from .household import mask_households

        require_pyspark(sdf)
        schema = polars_schema(sdf)
        cols, p, trees, orders = _arguments(schema, on, p, hierarchy, ordinal, label_options)
        declared = check_household_columns(schema, household, household_columns)
        check_household_column(schema, household, cols)

        def part(frame: Any, cs: list[str], _key: Any) -> Any:   # a column's hierarchy / order goes with it
            return recode(frame, cs, p, hierarchy={c: t for c, t in trees.items() if c in cs} or None,
                          ordinal={c: o for c, o in orders.items() if c in cs} or None, **label_options)

        return mask_households(sdf, household, cols, part, declared=declared)

    plan = recode_map(sdf, on, p, hierarchy=hierarchy, ordinal=ordinal, **label_options)
    changed = plan.filter(pl.col("original") != pl.col("recoded"))
    nulled = plan.filter(pl.col("recoded").is_null())
    exprs = {}
    for c in plan["column"].unique(maintain_order=True).to_list():
        sub = changed.filter(pl.col("column") == c)
        gone = nulled.filter(pl.col("column") == c)["original"].to_list()
        value = F.col(c).cast("string")
        if sub.height:
            lookup = F.create_map(*[F.lit(x) for x in chain.from_iterable(sub.select("original", "recoded").rows())])
            value = F.coalesce(lookup[value], value)
        if gone:
            value = F.when(F.col(c).cast("string").isin(gone), F.lit(None).cast("string")).otherwise(value)
        if sub.height or gone:
            exprs[c] = value
    if not exprs:
        return sdf
    return sdf.withColumns(exprs)
