"""Group ids -> released values: every chosen column replaced by its group representative.

Representatives (thesis 2.3): the mean for numeric columns (Float64), the most frequent
value for String / Categorical / Enum columns (ties: the smallest value; dtype kept), and
the lower median for columns marked ordinal (an actual value of the group; dtype kept).
"""
from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from ._columns import is_categorical, is_numeric
from ._errors import SDCError


def representative_expr(column: str, dtype: pl.DataType, group: str, *, ordinal: bool = False) -> pl.Expr:
    """The Polars expression replacing ``column`` by its representative within ``group``."""
    col = pl.col(column)
    if ordinal:
        if not (is_numeric(dtype) or isinstance(dtype, pl.Enum)):
            raise SDCError(
                f"column {column!r}: an ordinal column must be numeric or an Enum (its order), got {dtype}"
            )
        return col.sort().get((pl.len() - 1) // 2).over(group).alias(column)
    if is_numeric(dtype):
        return col.cast(pl.Float64).mean().over(group).alias(column)
    if is_categorical(dtype):
        # the smallest of the most frequent values (a windowed sort_by is ~20x slower)
        return col.mode().min().over(group).alias(column)
    raise SDCError(f"column {column!r}: cannot aggregate dtype {dtype}")


def aggregate_output_schema(schema: pl.Schema, on: Sequence[str], ordinal: Sequence[str] = ()) -> pl.Schema:
    """Schema after :func:`aggregate`: numeric non-ordinal columns become Float64. Checks
    the dtypes as :func:`representative_expr` would, so a lazy plan fails when it is built.

    >>> schema = pl.Schema({"x": pl.Int64, "o": pl.Int8, "s": pl.String})
    >>> aggregate_output_schema(schema, ["x", "o", "s"], ordinal=["o"])
    Schema([('x', Float64), ('o', Int8), ('s', String)])
    """
    out = dict(schema)
    for c in on:
        representative_expr(c, schema[c], "_", ordinal=c in ordinal)  # raises for a bad dtype
        if c not in ordinal and is_numeric(schema[c]):
            out[c] = pl.Float64
    return pl.Schema(out)


def aggregate(
    df: pl.DataFrame,
    groups: pl.Series | str,
    on: Sequence[str],
    *,
    ordinal: Sequence[str] = (),
) -> pl.DataFrame:
    """Replace the columns ``on`` of ``df`` by their group representatives.

    ``groups`` is a column name or a Series of group ids aligned with ``df``. Row order
    and all other columns are kept; ``df`` is not modified. Nulls, NaN or infinity in a
    column to aggregate raise :class:`SDCError` (one bad value would spread to its group).

    >>> import polars as pl
    >>> df = pl.DataFrame({"x": [1, 3, 10, 20], "c": ["a", "b", "b", "b"]})
    >>> aggregate(df, pl.Series([0, 0, 1, 1]), ["x", "c"])["x"].to_list()
    [2.0, 2.0, 15.0, 15.0]
    """
    from ._columns import check_finite, resolve_columns
    from .partition import group_ids

    on = resolve_columns(df, list(on), kind="supported")
    unknown = [c for c in ordinal if c not in on]
    if unknown:
        raise SDCError(f"column {unknown[0]!r}: marked ordinal but not among the aggregated columns")
    check_finite(df, on)
    g = group_ids(df, groups)
    tmp = "__sdc_group__"
    while tmp in df.columns:
        tmp += "_"
    exprs = [representative_expr(c, df.schema[c], tmp, ordinal=c in ordinal) for c in on]
    return df.with_columns(g.alias(tmp)).with_columns(exprs).drop(tmp)
