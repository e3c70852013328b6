"""Plumbing shared by the Spark back end: the pyspark import guard, Spark <-> Polars schemas,
and the Arrow cast every task result goes through (Polars writes large strings, Spark wants
its own Arrow types)."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl

from .._columns import did_you_mean
from .._errors import SDCError

BLOCK = "__sdc_block"
PART = "__sdc_part"


def require_pyspark() -> None:
    """Raise :class:`SDCError` with the install hint when pyspark (>= 4) is missing."""
    try:
        import pyspark  # noqa: F401
        import pyarrow  # noqa: F401
    except ImportError:  # pragma: no cover - exercised only without pyspark
        raise SDCError('the Spark back end needs pyspark >= 4 with Arrow: pip install "polars_sdc[spark]"') from None


def polars_schema(sdf: Any) -> pl.Schema:
    """The Polars schema of a Spark DataFrame (through its Arrow schema; no Spark job)."""
    import pyarrow as pa
    from pyspark.sql.pandas.types import to_arrow_schema

    arrow = to_arrow_schema(sdf.schema)
    return pl.from_arrow(pa.table({f.name: pa.array([], f.type) for f in arrow}, schema=arrow)).schema


def nullable(schema: Any) -> Any:
    """A Spark StructType with every field nullable (task results come from Polars, whose
    Arrow fields are all nullable)."""
    from pyspark.sql.types import StructField, StructType

    return StructType([StructField(f.name, f.dataType, True, f.metadata) for f in schema.fields])


def arrow_schema(schema: Any) -> Any:
    """The Arrow schema Spark expects back from a task for the StructType ``schema``."""
    from pyspark.sql.pandas.types import to_arrow_schema

    return to_arrow_schema(schema)


def to_spark_arrow(df: pl.DataFrame, target: Any) -> Any:
    """``df`` as a pyarrow Table cast to ``target`` (column order and types of Spark's schema)."""
    return df.select(target.names).to_arrow().cast(target)


def column_list(x: Any) -> list[str]:
    """``None`` -> [], a name -> [name], a sequence of names -> list."""
    if x is None:
        return []
    if isinstance(x, str):
        return [x]
    if isinstance(x, Sequence):
        return [str(c) for c in x]
    raise SDCError(f"expected a column name or a list of names, got {x!r}")


def check_present(schema: pl.Schema, cols: Sequence[str], what: str) -> None:
    for c in cols:
        if c not in schema:
            raise SDCError(f"column {c!r} ({what}): not in the Spark DataFrame{did_you_mean(c, schema.names())}")


def bad_value_counts(sdf: Any, cols: Sequence[str], schema: pl.Schema, *, nulls: bool = False) -> list[Any]:
    """Spark aggregate expressions counting nulls (unless ``nulls=True``: the caller keeps
    them) and NaN / infinity for float columns of each of ``cols``: one int per column, in order."""
    from pyspark.sql import functions as F

    out = []
    for c in cols:
        col = F.col(c)
        bad = F.lit(False) if nulls else col.isNull()
        if schema[c].is_float():
            bad = bad | F.isnan(col) | col.isin(float("inf"), float("-inf"))
        out.append(F.sum(F.when(bad, 1).otherwise(0)).alias(f"__bad_{c}"))
    return out


def raise_bad(cols: Sequence[str], counts: Sequence[Any]) -> None:
    for c, n in zip(cols, counts):
        if n:
            raise SDCError(f"column {c!r}: {n} null, NaN or infinite value(s); they cannot be masked")


def need_key(key: str | None, what: str) -> None:
    """A per-row draw on Spark needs a key column (row positions are not stable)."""
    if key is None:
        raise SDCError(f"{what} on Spark needs key=: a column identifying each row (row positions change "
                       "between Spark runs, so they cannot seed the draws)")


def key_nulls(key: str) -> Any:
    """An aggregation counting the key's nulls (alias ``__key_nulls``), for the caller's
    one pass over the data."""
    from pyspark.sql import functions as F

    return F.sum(F.when(F.col(key).isNull(), 1).otherwise(0)).alias("__key_nulls")


def verify_key(sdf: Any, key: str, nulls: int) -> None:
    """No null (counted by the caller's aggregation) and no repeated value (one more job)."""
    from pyspark.sql import functions as F

    if nulls:
        raise SDCError(f"key column {key!r}: {nulls} null value(s); a key must identify every row")
    dup = sdf.groupBy(key).count().where(F.col("count") > 1).limit(1).collect()
    if dup:
        raise SDCError(f"key column {key!r}: value {dup[0][key]!r} appears more than once; a key must identify one row")
