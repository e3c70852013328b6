"""Information loss on Spark by aggregations: ILSSDM = SSE / SST (thesis 2.4.1), on z-scores
with the original's mean and standard deviation, as local ``df.sdc.ilssdm``."""
from __future__ import annotations

from typing import Any

from .._columns import ColumnSpec, nonfinite_error, resolve_columns
from .._errors import SDCError
from .._signature import check_keywords
from ..loss.nulls import Measured, null_pattern_error
from ..loss.sse import aligned_rows_error
from ..rng import key_duplicate_error, key_null_error
from ._common import check_present, polars_schema, require_pyspark


@check_keywords
def ilssdm(
    original: Any,
    on: ColumnSpec = None,
    *,
    groups: str | None = None,
    masked: Any = None,
    standardize: bool = True,
    key: str | None = None,
) -> Measured:
    """SSE / SST of the ``on`` columns, as local ``df.sdc.ilssdm(on, groups=, masked=,
    standardize=)``: for a ``masked`` release joined to the ``original`` row by row on ``key``
    (SSE = sum |x - x'|^2; Spark rows have no positions), or for a partition given by the
    ``groups`` column of ``original`` (SSE = within-group sums of squares). Only sums reach
    the driver.

    Structural nulls are skipped value by value, as locally (:mod:`polars_sdc.loss.nulls`;
    sdcMicro ``dUtility`` IL1s with ``na.rm = TRUE``): each column's SSE and SST sum its
    non-null values (its mean, std and group means are over them); a release must hold its
    nulls at the same rows (else :class:`SDCError` naming the column and the first differing
    row in ``key`` order). The result is a float whose ``.skipped`` counts the null values
    left out.

    >>> from polars_sdc import spark as sdcs                                       # doctest: +SKIP
    >>> sdcs.ilssdm(sdf, ["age", "income"], masked=out, key="person_id")           # doctest: +SKIP
    """
    require_pyspark(original, masked)
    from pyspark.sql import functions as F

    schema = polars_schema(original)
    if (masked is None) == (groups is None):
        raise SDCError("ilssdm needs exactly one of masked= (with key=) or groups=")
    cols = resolve_columns(schema, on, kind="numeric", default="numeric")
    cols = [c for c in cols if c not in (key, groups)] if on is None else cols
    def nonfinite(col: Any, tag: str) -> list[Any]:   # NaN and +-inf counts, refused as locally (check_finite)
        return [F.sum(F.when(F.isnan(col), 1).otherwise(0)).alias(f"nan{tag}"),
                F.sum(F.when(col.isin(float("inf"), float("-inf")), 1).otherwise(0)).alias(f"inf{tag}")]

    stats = original.agg(
        F.count(F.lit(1)).alias("n"),
        *[F.count(F.col(c)).alias(f"n_{c}") for c in cols],            # the non-null values
        *[F.stddev_pop(F.col(c).cast("double")).alias(f"s_{c}") for c in cols],
        *[e for c in cols for e in nonfinite(F.col(c).cast("double"), f"_{c}")],
    ).collect()[0]

    def refuse_nonfinite(row: Any, tag: str) -> None:
        for c in cols:
            error = nonfinite_error(c, int(row[f"nan{tag}_{c}"] or 0), int(row[f"inf{tag}_{c}"] or 0))
            if error is not None:
                raise error

    n = int(stats["n"])
    if n == 0:
        raise SDCError("the frame has no rows; information loss needs at least one row")
    counts = {c: int(stats[f"n_{c}"]) for c in cols}
    if masked is not None:
        if key is None:
            raise SDCError("ilssdm of a masked Spark release needs key=: Spark rows are matched by key, not position")
        from ..rng import check_key_dtype

        check_present(schema, [key], "key")
        check_present(polars_schema(masked), [key], "key")
        # a row key, as every key= (a float is refused: two keys could round to one, and the
        # release's keys are matched by equality)
        check_key_dtype(key, schema[key])
        check_key_dtype(key, polars_schema(masked)[key])
        _check_keys(original, masked, key)
        m = masked.select(key, *[F.col(c).cast("double").alias(f"__sdc_m_{c}") for c in cols])
        joined = original.select(key, *cols).join(m, on=key, how="inner")
        # per column, the first row (in key order) whose null differs, and whether the original's is the null
        changed = {c: F.col(c).isNull() != F.col(f"__sdc_m_{c}").isNull() for c in cols}
        row = joined.agg(
            *[F.sum((F.col(c).cast("double") - F.col(f"__sdc_m_{c}")) ** 2).alias(f"e_{c}") for c in cols],
            *[F.min(F.when(changed[c], F.struct(F.col(key).alias("k"), F.col(c).isNull().alias("o"))))
              .alias(f"d_{c}") for c in cols],
            *[e for c in cols for e in nonfinite(F.col(f"__sdc_m_{c}"), f"m_{c}")],
        ).collect()[0]
        for c in cols:
            first = row[f"d_{c}"]
            if first is not None:
                raise null_pattern_error(c, f"the row with key {key!r} = {first['k']!r}", bool(first["o"]))
        refuse_nonfinite(stats, "")        # in the local order: the null pattern, the original, the release
        refuse_nonfinite(row, "m")
        sse = {c: float(row[f"e_{c}"] or 0.0) for c in cols}
    else:
        refuse_nonfinite(stats, "")
        per = original.groupBy(groups).agg(
            *[(F.var_pop(F.col(c).cast("double")) * F.count(F.col(c))).alias(f"__sdc_e_{c}") for c in cols]
        )
        row = per.agg(*[F.sum(f"__sdc_e_{c}").alias(f"e_{c}") for c in cols]).collect()[0]
        sse = {c: float(row[f"e_{c}"] or 0.0) for c in cols}
    num = den = 0.0
    for c in cols:
        sd = float(stats[f"s_{c}"] or 0.0)
        scale = sd * sd if (standardize and sd > 0) else 1.0
        num += sse[c] / scale
        den += counts[c] * sd * sd / scale
    return Measured(num / den if den > 0 else 0.0, sum(n - counts[c] for c in cols))


def _check_keys(original: Any, masked: Any, key: str) -> None:
    """Every ``key`` value identifies one row of ``original`` and one of ``masked``, and the two
    hold the same keys (one job: the key counts of both, fully joined) -- the local rules of
    a key (``rng.row_keys``: no null, no repeat) and of a release (``ilssdm_frame``: as many
    rows as the original), then the first key of the original missing from the release. A
    count check on the joined rows alone let a repeated key make up for a missing one."""
    from pyspark.sql import functions as F

    k = F.col(key)
    no, nm = F.col("__sdc_no"), F.col("__sdc_nm")
    counts = original.groupBy(key).agg(F.count(F.lit(1)).alias("__sdc_no")).join(
        masked.groupBy(key).agg(F.count(F.lit(1)).alias("__sdc_nm")), on=key, how="full")
    row = counts.agg(
        F.sum(F.when(k.isNull(), no)).alias("null_o"), F.sum(F.when(k.isNull(), nm)).alias("null_m"),
        F.min(F.when(no > 1, k)).alias("dup_o"), F.min(F.when(nm > 1, k)).alias("dup_m"),
        F.sum(no).alias("rows_o"), F.sum(nm).alias("rows_m"),
        F.min(F.when(nm.isNull(), k)).alias("missing"),
    ).collect()[0]
    for side, where in (("o", " (original)"), ("m", " (release)")):
        if row[f"null_{side}"]:
            raise key_null_error(key, int(row[f"null_{side}"]), where)
        if row[f"dup_{side}"] is not None:
            raise key_duplicate_error(key, row[f"dup_{side}"], where)
    if int(row["rows_m"] or 0) != int(row["rows_o"] or 0):
        raise aligned_rows_error(int(row["rows_m"] or 0), int(row["rows_o"] or 0))
    if row["missing"] is not None:
        raise SDCError(f"key column {key!r} (release): value {row['missing']!r} of the original is not in the "
                       "release; they must hold the same keys")
