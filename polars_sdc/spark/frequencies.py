"""Sample and population frequencies of key combinations on Spark: ``fk`` (how many records
share a record's values of the key variables) and ``Fk`` (the sum of their sampling weights,
the estimated population frequency), by one window aggregation over the keys."""
from __future__ import annotations

from typing import Any

from .._columns import ColumnSpec, resolve_columns
from .._errors import SDCError
from ._common import polars_schema, require_pyspark


def frequencies(sdf: Any, keys: ColumnSpec, *, weights: str | None = None, fk: str = "fk", Fk: str = "Fk_pop") -> Any:
    """``sdf`` with ``fk`` (int64: records sharing the row's key values; a null is a value of
    its own) and, with ``weights``, ``Fk`` (double: their summed weights; named ``Fk_pop``
    by default, since Spark column names are case-insensitive). A record with fk = 1 is
    unique on the keys: the first thing a disclosure-risk review looks at.

    >>> from polars_sdc import spark as sdcs                              # doctest: +SKIP
    >>> sdcs.frequencies(sdf, ["age", "sex", "region"], weights="w")      # doctest: +SKIP
    """
    require_pyspark()
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    schema = polars_schema(sdf)
    cols = resolve_columns(schema, keys, what="keys", default="error")
    if weights is not None and fk.lower() == Fk.lower():
        raise SDCError(f"fk and Fk column names {fk!r}, {Fk!r} are the same name to Spark (case-insensitive)")
    taken = {c.lower() for c in schema}
    for name in (fk, Fk if weights is not None else None):
        if name is not None and name.lower() in taken:
            raise SDCError(f"column {name!r}: already in the frame; choose another name")
    win = Window.partitionBy(*cols)
    out = sdf.withColumn(fk, F.count(F.lit(1)).over(win))
    if weights is not None:
        if weights not in schema or not schema[weights].is_numeric():
            raise SDCError(f"weights column {weights!r}: not a numeric column of the frame")
        out = out.withColumn(Fk, F.sum(F.col(weights).cast("double")).over(win))
    return out
