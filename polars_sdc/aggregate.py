"""Group ids -> released values: every chosen column replaced by its group representative.

Representatives (thesis 2.3): the mean for numeric columns, the most frequent value for
String / Categorical / Enum columns (ties: the smallest value; dtype kept), and the lower
median for columns marked ordinal (an actual value of the group; dtype kept).

The mean of an integer column keeps the column's dtype by default (``integers="round"``):
the exact mean (integer sum and count, no float rounding even near 2**63) rounded half to
even, so an age stays a whole number and a downstream schema does not change;
``integers="float"`` releases the Float64 mean instead. Float and Boolean columns give the
Float64 mean.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import polars as pl

from ._columns import is_categorical, is_numeric
from ._errors import SDCError
from ._signature import check_keywords


INTEGER_MODES = ("round", "float")


def check_integers(integers: object) -> str:
    """``integers`` if it is ``"round"`` or ``"float"``."""
    if integers not in INTEGER_MODES:
        raise SDCError(f"integers must be 'round' (keep the integer dtype) or 'float', got {integers!r}")
    return integers  # type: ignore[return-value]


def rounded_mean_expr(column: str, dtype: pl.DataType, group: str) -> pl.Expr:
    """The group mean of an integer column, exactly, rounded half to even, in its own dtype:
    ``q = floor(sum / n)``, ``r = sum - q n``; up when ``2 r > n`` or (``2 r == n`` and q odd).

    >>> df = pl.DataFrame({"g": [0, 0, 1, 1, 1, 2, 2], "x": [1, 2, 3, 4, 4, -3, -2]})
    >>> df.select(rounded_mean_expr("x", pl.Int64, "g"))["x"].to_list()
    [2, 2, 4, 4, 4, -2, -2]
    """
    x = pl.col(column).cast(pl.Int128)
    total = x.sum().over(group)
    n = x.count().over(group).cast(pl.Int128)  # the non-null values (== the rows without nulls)
    q = total // n
    r = total - q * n
    up = (2 * r > n) | ((2 * r == n) & (q % 2 != 0))
    return (q + up.cast(pl.Int128)).cast(dtype).alias(column)


def representative_expr(
    column: str, dtype: pl.DataType, group: str, *, ordinal: bool = False, integers: Literal["round", "float"] = "round"
) -> pl.Expr:
    """The Polars expression replacing ``column`` by its representative within ``group``."""
    col = pl.col(column)
    if ordinal:
        if not (is_numeric(dtype) or isinstance(dtype, pl.Enum)):
            raise SDCError(
                f"column {column!r}: an ordinal column must be numeric or an Enum (its order), got {dtype}"
            )
        return col.sort().get((pl.len() - 1) // 2).over(group).alias(column)
    if dtype.is_integer() and check_integers(integers) == "round":
        return rounded_mean_expr(column, dtype, group)
    if is_numeric(dtype):
        x = col.cast(pl.Float64)
        mean = x.mean()
        # a sum past 1.8e308 overflows although the mean is finite: average scaled by 2**-64 then
        return pl.when(mean.is_infinite()).then((x * 2.0**-64).mean() * 2.0**64).otherwise(mean).over(group).alias(column)
    if is_categorical(dtype):
        # the smallest of the most frequent values (a windowed sort_by is ~20x slower)
        return col.mode().min().over(group).alias(column)
    raise SDCError(f"column {column!r}: cannot aggregate dtype {dtype}")


def aggregate_output_schema(
    schema: pl.Schema, on: Sequence[str], ordinal: Sequence[str] = (), integers: Literal["round", "float"] = "round"
) -> pl.Schema:
    """Schema after :func:`aggregate`: float and Boolean non-ordinal columns become Float64,
    integer ones too with ``integers="float"``. Checks the dtypes as
    :func:`representative_expr` would, so a lazy plan fails when it is built.

    >>> schema = pl.Schema({"x": pl.Int64, "f": pl.Float32, "o": pl.Int8, "s": pl.String})
    >>> aggregate_output_schema(schema, ["x", "f", "o", "s"], ordinal=["o"])
    Schema([('x', Int64), ('f', Float64), ('o', Int8), ('s', String)])
    >>> aggregate_output_schema(schema, ["x"], integers="float")["x"]
    Float64
    """
    out = dict(schema)
    for c in on:
        representative_expr(c, schema[c], "_", ordinal=c in ordinal, integers=integers)  # raises for a bad dtype
        if c not in ordinal and is_numeric(schema[c]) and not (schema[c].is_integer() and integers == "round"):
            out[c] = pl.Float64
    return pl.Schema(out)


@check_keywords
def aggregate(
    df: pl.DataFrame,
    groups: pl.Series | str,
    on: Sequence[str],
    *,
    ordinal: Sequence[str] = (),
    integers: Literal["round", "float"] = "round",
    keep_nulls: bool = False,
) -> pl.DataFrame:
    """Replace the columns ``on`` of ``df`` by their group representatives (integer means
    rounded half to even in the column's dtype unless ``integers="float"``).

    ``groups`` is a column name or a Series of group ids aligned with ``df``. Row order
    and all other columns are kept; ``df`` is not modified. Nulls, NaN or infinity in a
    column to aggregate raise :class:`SDCError` (one bad value would spread to its group);
    with ``keep_nulls=True`` a null stays null and the representative is taken over the
    group's non-null values (structural nulls: the microaggregation pipeline groups rows by
    null pattern, so a group is then all null or all non-null in each column).

    >>> import polars as pl
    >>> df = pl.DataFrame({"x": [1, 3, 10, 20], "c": ["a", "b", "b", "b"]})
    >>> aggregate(df, pl.Series([0, 0, 1, 1]), ["x", "c"])["x"].to_list()
    [2, 2, 15, 15]
    >>> aggregate(df, pl.Series([0, 1, 1, 1]), ["x"], integers="float")["x"].to_list()
    [1.0, 11.0, 11.0, 11.0]
    """
    from ._columns import check_finite, resolve_columns
    from .partition import group_ids

    on = resolve_columns(df, list(on), kind="supported")
    unknown = [c for c in ordinal if c not in on]
    if unknown:
        raise SDCError(f"column {unknown[0]!r}: marked ordinal but not among the aggregated columns")
    check_finite(df, on, nulls=keep_nulls)
    g = group_ids(df, groups)
    tmp = "__sdc_group__"
    while tmp in df.columns:
        tmp += "_"
    exprs = [representative_expr(c, df.schema[c], tmp, ordinal=c in ordinal, integers=integers) for c in on]
    if keep_nulls:
        exprs = [pl.when(pl.col(c).is_null()).then(None).otherwise(e).alias(c) for c, e in zip(on, exprs)]
    return df.with_columns(g.alias(tmp)).with_columns(exprs).drop(tmp)
