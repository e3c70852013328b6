"""Plumbing shared by the Spark back end: the pyspark import guard, Spark <-> Polars schemas
(:func:`spark_schema`: the one Polars -> Spark converter, fed by the local operation's
``output_schema``), the one runner of Polars code inside Spark tasks (:func:`run_frames`: per
Arrow batch, per stratum or per block), and the Arrow cast every task result goes through
(Polars writes large strings, Spark wants its own Arrow types)."""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import polars as pl

from .._columns import did_you_mean, nonfinite_error, null_error
from .._errors import SDCError

BLOCK = "__sdc_block"
PART = "__sdc_part"


#: The prefix of every helper column the Spark back end adds (in Spark and in the Polars
#: frames of its tasks); Spark matches column names case-insensitively, so an input column
#: starting with it in any case is refused (:func:`require_pyspark`) rather than overwritten
RESERVED = "__sdc_"


def require_pyspark(*frames: Any, internal: Sequence[str] = ()) -> None:
    """Raise :class:`SDCError` with the install hint when pyspark (>= 4) is missing, and when
    a column of one of the input ``frames`` starts with :data:`RESERVED` in any case (a helper
    column would meet it: Spark names are case-insensitive by default), except the helper
    columns ``internal`` that the back end itself passes on (exact names), and when a column
    name holds a ``.`` or a backtick (Spark reads ``"a.b"`` as field ``b`` of ``a``: every
    function failed with an AnalysisException, even on a column it did not use), or two names
    differ only in case."""
    try:
        import pyspark  # noqa: F401
        import pyarrow  # noqa: F401
    except ImportError:  # pragma: no cover - exercised only without pyspark
        raise SDCError('the Spark back end needs pyspark >= 4 with Arrow: pip install "polars_sdc[spark]"') from None
    for sdf in frames:
        for c in ([] if sdf is None else sdf.schema.names):  # the schema: no Spark job (nor a session)
            if c.lower().startswith(RESERVED) and c not in internal:
                raise SDCError(f"column {c!r}: names starting with {RESERVED!r} (in any case: Spark compares column "
                               "names case-insensitively) are reserved for the Spark back end's helper columns; "
                               "rename it (df.withColumnRenamed)")
            if "." in c or "`" in c:   # Spark parses a name given as a string: "a.b" is field b of a
                raise SDCError(f"column {c!r}: a '.' or '`' in a column name is read by Spark as a struct field "
                               "or a quote, so the back end cannot name it; rename it (df.withColumnRenamed)")
        _case_twins(sdf)


def _case_twins(sdf: Any) -> None:
    """Two columns whose names differ only in case ("x" and "X") are one ambiguous reference
    to Spark (unless ``spark.sql.caseSensitive``): an SDCError naming both, not an AnalysisException."""
    if sdf is None:
        return
    seen: dict[str, str] = {}
    for c in sdf.schema.names:
        twin = seen.setdefault(c.lower(), c)
        if twin != c:
            try:
                sensitive = str(sdf.sparkSession.conf.get("spark.sql.caseSensitive", "false")).lower() == "true"
            except Exception:  # noqa: BLE001 - no conf to read: Spark's default (insensitive)
                sensitive = False
            if not sensitive:
                raise SDCError(f"columns {twin!r} and {c!r}: Spark compares column names case-insensitively, so "
                               "either is an ambiguous reference; rename one (df.withColumnRenamed)")
            return


def polars_schema(sdf: Any) -> pl.Schema:
    """The Polars schema of a Spark DataFrame (through its Arrow schema; no Spark job)."""
    import pyarrow as pa
    from pyspark.sql.pandas.types import to_arrow_schema

    arrow = to_arrow_schema(sdf.schema)
    return pl.from_arrow(pa.table({f.name: pa.array([], f.type) for f in arrow}, schema=arrow)).schema


#: Spark has no unsigned integers: each unsigned Polars type is released as the signed type
#: that holds all its values
_UNSIGNED = {pl.UInt8: pl.Int16, pl.UInt16: pl.Int32, pl.UInt32: pl.Int64}


def spark_schema(schema: pl.Schema, like: Any = None, overrides: Mapping[str, pl.DataType] | None = None) -> Any:
    """The Spark StructType (every field nullable) of a task result whose Polars schema is
    ``schema`` — the local operation's ``output_schema``, so a port never hand-builds its
    StructType. A column of ``like`` (the input Spark DataFrame) whose Polars dtype is
    unchanged keeps its Spark field (a Spark type Polars reads as another, such as a short
    or a decimal, stays what it was); ``overrides`` replace a column's Polars dtype first
    (Spark's group ids are Int64: block ids in the high bits). Unsigned integers become the
    next wider signed type; UInt64 is refused (Spark has no type for it).

    >>> spark_schema(pl.Schema({"x": pl.Float64, "g": pl.UInt32, "s": pl.String})).simpleString()  # doctest: +SKIP
    'struct<x:double,g:bigint,s:string>'
    """
    import pyarrow as pa
    from pyspark.sql.pandas.types import from_arrow_type
    from pyspark.sql.types import StructField, StructType

    schema = pl.Schema({c: (overrides or {}).get(c, t) for c, t in schema.items()})
    before = polars_schema(like) if like is not None else pl.Schema()
    fields_before = {f.name: f for f in like.schema.fields} if like is not None else {}
    fields = []
    for name, dtype in schema.items():
        if name in before and before[name] == dtype:
            fields.append(StructField(name, fields_before[name].dataType, True, fields_before[name].metadata))
            continue
        if dtype == pl.UInt64:
            raise SDCError(f"column {name!r}: UInt64 has no Spark type; cast it to Int64 or Decimal first")
        dtype = _UNSIGNED.get(dtype, dtype)
        arrow = pl.DataFrame(schema={name: dtype}).to_arrow().schema.field(0).type
        if pa.types.is_dictionary(arrow):            # Enum / Categorical: Spark strings
            arrow = arrow.value_type
        fields.append(StructField(name, from_arrow_type(arrow), True))
    return StructType(fields)


def run_frames(
    sdf: Any,
    task: Callable[[pl.DataFrame], pl.DataFrame],
    schema: pl.Schema | Any,
    *,
    per: str = "batch",
    by: Sequence[str] = (),
    block: str | None = None,
) -> Any:
    """The one runner of the Spark back end: ``task`` (a Polars frame in, a Polars frame out,
    usually the local operation on a spec built once on the driver and shipped inside the
    closure) run inside Spark tasks, its result cast to Spark's types. ``schema``: the
    result's Polars schema (converted by :func:`spark_schema` against ``sdf``) or a ready
    StructType.

    - ``per="batch"``: on every Arrow batch (``mapInArrow``): row-wise operations whose
      whole-table statistics the driver computed (the keyed per-row draws make the result
      independent of the batches);
    - ``per="stratum"``: on every ``by`` stratum in one task (``groupBy(by).applyInArrow``;
      no ``by``: the whole table in one task), for sequential methods (rank swapping);
    - ``per="block"``: on the rows of each value of the int ``block`` column, which the
      caller has repartitioned one block per Spark partition (``mapInArrow``, no grouping
      operator; several blocks in a partition run one after the other in increasing order).
    """
    from pyspark.sql.types import StructType

    out_schema = schema if isinstance(schema, StructType) else spark_schema(schema, sdf)
    target = arrow_schema(out_schema)

    def on_table(table: Any) -> Any:
        import polars_sdc  # noqa: F401  (registers df.sdc in the worker)

        return to_spark_arrow(task(pl.from_arrow(table)), target)

    if per == "batch":
        def batches(it: Any) -> Any:
            import pyarrow as pa

            for b in it:
                if b.num_rows:
                    yield from on_table(pa.Table.from_batches([b])).to_batches()

        return sdf.mapInArrow(batches, out_schema)
    if per == "stratum":
        if by:
            return sdf.groupBy(*by).applyInArrow(on_table, out_schema)
        from pyspark.sql import functions as F

        whole = "__sdc_all"
        return sdf.withColumn(whole, F.lit(0)).groupBy(whole).applyInArrow(
            lambda t: on_table(t.drop_columns([whole])), out_schema)
    if per == "block" and block is not None:
        return sdf.mapInArrow(block_partitions(on_table, block), out_schema)
    raise SDCError(f"run_frames: per must be 'batch', 'stratum' or 'block' (with block=), got {per!r}")


def block_partitions(task: Callable[[Any], Any], block: str) -> Callable[[Any], Any]:
    """The ``mapInArrow`` function of a block stage: the record batches of one Spark partition
    joined into one table, ``task`` run on each block in it (one, when the partition labels
    give each block its own partition; several are split by block id, in increasing order,
    so the result never depends on how the shuffle laid the blocks out), its result yielded
    as record batches."""

    def run(batches: Any) -> Any:
        import pyarrow as pa
        import pyarrow.compute as pc

        batches = [b for b in batches if b.num_rows]
        if not batches:
            return
        table = pa.Table.from_batches(batches)
        ids = pc.unique(table.column(block)).to_pylist()
        for b in sorted(ids):
            part = table if len(ids) == 1 else table.filter(pc.equal(table.column(block), b))
            yield from task(part).to_batches()

    return run


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
    """Spark aggregate expressions counting, for each of ``cols``, its nulls (unless
    ``nulls=True``: the caller keeps them; alias ``__bad_null_<c>``) and, for a float column,
    its NaN (``__bad_nan_<c>``) and infinite values (``__bad_inf_<c>``): the counts
    :func:`raise_bad` reads, as the local ``check_finite`` counts them."""
    from pyspark.sql import functions as F

    def count(cond: Any, alias: str) -> Any:
        return F.sum(F.when(cond, 1).otherwise(0)).alias(alias)

    out = []
    for c in cols:
        col = F.col(c)
        if not nulls:
            out.append(count(col.isNull(), f"__sdc_bad_null_{c}"))
        if schema[c].is_float():
            out += [count(F.isnan(col), f"__sdc_bad_nan_{c}"),
                    count(col.isin(float("inf"), float("-inf")), f"__sdc_bad_inf_{c}")]
    return out


def bad_totals(frame: pl.DataFrame) -> dict[str, int]:
    """The :func:`bad_value_counts` columns of a per-stratum ``frame``, summed over its rows."""
    return {c: int(frame[c].sum() or 0) for c in frame.columns if c.startswith("__sdc_bad_")}


def raise_bad(cols: Sequence[str], counts: Any) -> None:
    """The local ``check_finite`` on the :func:`bad_value_counts` of ``cols`` (``counts``: a
    mapping or a Spark Row from alias to count): the first column with nulls, then the first
    with NaN or infinite values, with the local messages (``_columns.null_error``,
    ``nonfinite_error``)."""
    counts = counts.asDict() if hasattr(counts, "asDict") else dict(counts)

    def n(kind: str, c: str) -> int:
        return int(counts.get(f"__sdc_bad_{kind}_{c}") or 0)

    for c in cols:
        if n("null", c):
            raise null_error(c, n("null", c))
    for c in cols:
        error = nonfinite_error(c, n("nan", c), n("inf", c))
        if error is not None:
            raise error


def need_key(key: str | None, what: str) -> None:
    """A per-row draw on Spark needs a key column (row positions are not stable)."""
    if key is None:
        raise SDCError(f"{what} on Spark needs key=: a column identifying each row (row positions change "
                       "between Spark runs, so they cannot seed the draws)")


def key_nulls(key: str) -> Any:
    """An aggregation counting the key's nulls (alias ``__key_nulls``), for the caller's
    one pass over the data."""
    from pyspark.sql import functions as F

    return F.sum(F.when(F.col(key).isNull(), 1).otherwise(0)).alias("__sdc_key_nulls")


def verify_key(sdf: Any, key: str, nulls: int) -> None:
    """No null (counted by the caller's aggregation) and no repeated value (one more job)."""
    from pyspark.sql import functions as F

    from ..rng import key_duplicate_error, key_null_error

    if nulls:
        raise key_null_error(key, nulls)
    dup = (sdf.groupBy(key).agg(F.count(F.lit(1)).alias("__sdc_count"))
           .where(F.col("__sdc_count") > 1).limit(1).collect())
    if dup:
        raise key_duplicate_error(key, dup[0][key])
