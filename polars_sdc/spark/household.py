"""``household=`` on Spark: household-level columns masked once per household, then joined back.

The Spark twin of :func:`polars_sdc.household.mask_households`: which ``on`` columns are
household-level (constant within every household, a null counting as a value) comes from one
aggregation; those columns are masked on one row per household (``groupBy(household)``, so a
household is never split across tasks or strata), with the household id as the row key, and
joined back to every member on the id. Person-level columns are masked on the person rows as
without ``household=``. The local household path with ``key=`` keys household rows by the
household id too, so Spark and local agree for the same seed and key.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .._errors import SDCError


def split_columns(sdf: Any, household: str, columns: Sequence[str]) -> tuple[list[str], list[str]]:
    """(household-level, person-level) ``columns`` of a Spark DataFrame, in the given order:
    a column is household-level when no household holds two values (a null counting as one).

    >>> split_columns(sdf, "hh", ["size", "age"])   # doctest: +SKIP
    (['size'], ['age'])
    """
    from pyspark.sql import functions as F

    columns = list(columns)
    if not columns:
        return [], []
    per = sdf.groupBy(household).agg(*[
        (F.countDistinct(c) + F.max(F.when(F.col(c).isNull(), 1).otherwise(0))).alias(f"__u{i}")
        for i, c in enumerate(columns)])
    row = per.agg(*[F.max(f"__u{i}").alias(f"__u{i}") for i in range(len(columns))]).collect()[0]
    hh = [c for i, c in enumerate(columns) if (row[f"__u{i}"] or 0) <= 1]
    return hh, [c for c in columns if c not in hh]


def mask_households(sdf: Any, household: str, columns: Sequence[str], mask: Callable[[Any, list[str], str | None], Any],
                    *, by: Sequence[str] = (), key: str | None = None) -> Any:
    """``mask(frame, cols, key)`` on the person-level ``columns`` of ``sdf`` (with ``key``) and on
    one row per household for the household-level ones (key: the household id), joined back on
    the id; the column order of ``sdf`` is kept.

    >>> out = mask_households(sdf, "hh", ["hinc", "pay"], run, key="pid")   # doctest: +SKIP
    """
    from pyspark.sql import functions as F

    if household not in sdf.columns:
        raise SDCError(f"household column {household!r}: not in the Spark DataFrame")
    if household in columns:
        raise SDCError(f"household column {household!r}: is also masked (`on`); the household id links the members "
                       "and is never masked")
    hh, person = split_columns(sdf, household, columns)
    out = mask(sdf, person, key) if person else sdf
    if not hh:
        return out
    need = [c for c in dict.fromkeys(by) if c not in hh and c != household]
    if need:
        varying, _ = split_columns(sdf, household, need)
        bad = [c for c in need if c not in varying]
        if bad:
            raise SDCError(f"`by` column {bad[0]!r} varies within a household of {household!r}; a household-level "
                           "column is masked once per household, so its strata must not split a household")
    small = sdf.groupBy(household).agg(*[F.first(c).alias(c) for c in hh + need])
    masked = mask(small, hh, household).select(household, *hh)
    return out.drop(*hh).join(masked, on=household, how="inner").select(*sdf.columns)
