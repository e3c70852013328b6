"""``household=`` on Spark: household-level columns masked once per household, then joined back.

The Spark twin of :func:`polars_sdc.household.mask_households`: which ``on`` columns are
household-level (constant within every household, a null counting as a value; or declared by
``household_columns=`` and checked constant) comes from one aggregation; those columns are masked on one row per household (``groupBy(household)``, so a
household is never split across tasks or strata), with the household id as the row key, and
joined back to every member on the id. Person-level columns are masked on the person rows as
without ``household=``. The local household path with ``key=`` keys household rows by the
household id too, so Spark and local agree for the same seed and key.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .._errors import SDCError
from ..household import check_household_column, missing_ids_error
from ._common import polars_schema


def split_columns(sdf: Any, household: str, columns: Sequence[str],
                  declared: Sequence[str] | None = None, *, share: float | None = None) -> tuple[list[str], list[str]]:
    """(household-level, person-level) ``columns`` of a Spark DataFrame, in the given order,
    as local :func:`polars_sdc.household.split_columns`: ``declared=None``: a column is
    household-level when no household holds two values (a null counting as one);
    ``declared`` (``household_columns=``): the ``columns`` it names, checked constant within
    every household (else :class:`SDCError` naming the column, the household where it varies
    with the smallest id -- Spark rows have no order -- and two of its values), every other
    column person-level. One aggregation either way, which also refuses a null (or NaN) household
    id as locally (:func:`polars_sdc.household.household_index`). ``share`` (detected columns):
    warn, as local :func:`polars_sdc.household.warn_nearly_household_level`, for a column that
    varies within some but at most this share of the households (naming the smallest such id).

    >>> split_columns(sdf, "hh", ["size", "age"])   # doctest: +SKIP
    (['size'], ['age'])
    >>> split_columns(sdf, "hh", ["size", "age"], declared=[])   # doctest: +SKIP
    ([], ['size', 'age'])
    """
    from pyspark.sql import functions as F

    columns = list(columns)
    check = columns if declared is None else [c for c in columns if c in set(declared)]
    floats = dict(sdf.dtypes).get(household) in ("float", "double")
    # the same pass counts the rows without a household id (null, or NaN), refused as locally
    per = sdf.groupBy(household).agg(F.count(F.lit(1)).alias("__sdc_rows"), *[
        (F.countDistinct(c) + F.max(F.when(F.col(c).isNull(), 1).otherwise(0))).alias(f"__sdc_u{i}")
        for i, c in enumerate(check)])
    no_id = F.col(household).isNull() | (F.isnan(household) if floats else F.lit(False))
    few = declared is None and share is not None
    row = per.agg(*[F.max(f"__sdc_u{i}").alias(f"__sdc_u{i}") for i in range(len(check))]
                  + [F.sum(F.when(F.col(household).isNull(), F.col("__sdc_rows"))).alias("__sdc_null_ids"),
                     F.max(F.when(no_id, 1).otherwise(0)).alias("__sdc_bad_ids"),
                     F.count(F.lit(1)).alias("__sdc_households")]
                  + ([] if declared is None and not few else
                     [F.min(F.when(F.col(f"__sdc_u{i}") > 1, F.col(household))).alias(f"__sdc_h{i}")
                      for i in range(len(check))])
                  + ([] if not few else
                     [F.sum(F.when(F.col(f"__sdc_u{i}") > 1, 1).otherwise(0)).alias(f"__sdc_v{i}")
                      for i in range(len(check))])
                  ).collect()[0]
    if row["__sdc_null_ids"]:
        raise missing_ids_error(household, row["__sdc_null_ids"])
    if row["__sdc_bad_ids"]:
        raise missing_ids_error(household, None)
    if not check:
        return [], columns
    hh = [c for i, c in enumerate(check) if (row[f"__sdc_u{i}"] or 0) <= 1]
    if few:
        from ..household import warn_varies_within_few

        n = int(row["__sdc_households"])
        for i, c in enumerate(check):
            if 0 < row[f"__sdc_v{i}"] <= share * n:
                warn_varies_within_few(c, int(row[f"__sdc_v{i}"]), n, household, row[f"__sdc_h{i}"], stacklevel=5)
    if declared is not None and len(hh) < len(check):
        i = next(i for i, c in enumerate(check) if c not in hh)
        c, hid = check[i], row[f"__sdc_h{i}"]
        values = [r[0] for r in sdf.filter(F.col(household) == F.lit(hid)).select(c).distinct()
                  .orderBy(F.col(c).asc_nulls_first()).limit(2).collect()]
        raise SDCError(f"column {c!r} is declared household-level but varies within household {hid!r} of "
                       f"{household!r} (values {values[0]!r} and {values[1]!r})")
    return hh, [c for c in columns if c not in hh]


def mask_households(sdf: Any, household: str, columns: Sequence[str], mask: Callable[[Any, list[str], str | None], Any],
                    *, by: Sequence[str] = (), key: str | None = None, declared: Sequence[str] | None = None) -> Any:
    """``mask(frame, cols, key)`` on the person-level ``columns`` of ``sdf`` (with ``key``) and on
    one row per household for the household-level ones (detected, or ``declared``:
    ``household_columns=``, see :func:`split_columns`; key: the household id), joined back on
    the id; the column order of ``sdf`` is kept. A detected person-level column that varies within
    only a few households gets the local :class:`polars_sdc.household.HouseholdWarning`.

    >>> out = mask_households(sdf, "hh", ["hinc", "pay"], run, key="pid")   # doctest: +SKIP
    """
    from pyspark.sql import functions as F

    check_household_column(polars_schema(sdf), household, columns)    # the local check, on the driver
    from ..household import NEARLY_SHARE

    hh, person = split_columns(sdf, household, columns, declared, share=NEARLY_SHARE)
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
