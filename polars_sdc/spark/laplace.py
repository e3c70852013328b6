"""Laplace noise on Spark, drawn per row from ``(seed, "laplace/<column>", key)``.

The released value is ``y = x + e`` with ``e ~ Laplace(0, phi)`` (Hasegawa et al., eq. 1/2), and
``e = polars_sdc.rng.laplace(seed, f"laplace/{column}", rng.row_keys(key), phi)``: the one
per-row generator of :mod:`polars_sdc.rng`. A row's noise depends only on the seed, the
column and the row's key, so it is the same whatever the partitioning, the number of
executors or a task retry, and equals the local result for the same seed and key. Row
positions are not stable in Spark, so a ``key`` column is required.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl

from .. import rng
from .._columns import ColumnSpec, resolve_columns, unknown_column
from .._errors import SDCError
from ._common import bad_value_counts, key_nulls, need_key, polars_schema, raise_bad, require_pyspark, verify_key


def laplace_noise(seed: int, column: str, keys: pl.Series, phi: float) -> np.ndarray:
    """The noise added to ``column`` for the rows with these ``keys``.

    >>> e = laplace_noise(7, "age", pl.Series("id", [1, 2, 3]), 2.0)
    >>> bool(np.array_equal(e, rng.laplace(7, "laplace/age", rng.row_keys(pl.Series([1, 2, 3])), 2.0)))
    True
    """
    return rng.laplace(seed, rng.stream("laplace", column=column), rng.row_keys(keys), phi)


def laplace(
    sdf: Any,
    on: ColumnSpec = None,
    phi: Any = None,
    *,
    key: str | None = None,
    k: int | None = None,
    m: int = 1,
    seed: int | None = None,
    check_key: bool = True,
    household: str | None = None,
) -> Any:
    """``sdf`` with Laplace noise added to the numeric ``on`` columns (double out): ``phi`` a
    number, a sequence or ``{column: phi}``, or ``k`` to calibrate phi for Pk-anonymity
    (``2 m (b - a) / ln((N - 1)/(k - 1))``, Hasegawa et al. section 5, from one aggregation).
    Nulls stay null (``k``: range and count of the non-null values, as locally).
    ``key`` names a column that identifies each row (integers or strings); ``check_key``
    verifies it has no nulls and no repeated value (one aggregation). ``household``: the
    household id; household-level columns get one draw per household (key: the household id;
    ``k`` calibrated over households), joined back (:mod:`polars_sdc.spark.household`).

    >>> from polars_sdc import spark as sdcs                                # doctest: +SKIP
    >>> noisy = sdcs.laplace(sdf, ["age"], 2.0, key="person_id", seed=7)    # doctest: +SKIP
    """
    require_pyspark()
    import pyarrow as pa
    from pyspark.sql import functions as F
    from pyspark.sql.types import DoubleType, StructField, StructType

    from ..laplace import laplace_on, phi_vector, pk_phi

    need_key(key, "laplace")
    schema = polars_schema(sdf)
    if key not in schema:
        raise unknown_column(key, schema.names(), label="key column", where="the Spark DataFrame", list_them=False)
    rng.check_key_dtype(key, schema[key])          # on the driver, before any job
    if phi is not None and k is not None:
        raise SDCError("give either phi or k (Pk-anonymity calibration), not both")
    if phi is None and k is None:
        raise SDCError("give phi (the Laplace scale) or k (to calibrate phi for Pk-anonymity)")
    cols = resolve_columns(schema, laplace_on(on, phi), kind="numeric", default="numeric")
    cols = [c for c in cols if c not in (key, household)] if on is None else cols
    if key in cols:
        raise SDCError(f"column {key!r}: the key column cannot be perturbed")
    if seed is None:
        seed = rng.fresh_seed()
    rng.stream_hash(seed, "")  # validates the seed on the driver
    if household is not None:            # household-level columns: one draw per household, joined back
        from .household import mask_households

        phis = dict(zip(cols, phi_vector(phi, cols).tolist())) if phi is not None else None
        return mask_households(sdf, household, cols, lambda f, cs, kk: laplace(
            f, cs, phis, key=kk, k=k, m=m, seed=seed, check_key=check_key), key=key)

    aggs = [F.count(F.lit(1)).alias("n"), *bad_value_counts(sdf, cols, schema, nulls=True)]
    if k is not None:   # structural nulls stay null: range and N of the non-null values, as locally
        aggs += [F.min(F.col(c).cast("double")).alias(f"lo_{c}") for c in cols]
        aggs += [F.max(F.col(c).cast("double")).alias(f"hi_{c}") for c in cols]
        aggs += [F.count(F.col(c)).alias(f"n_{c}") for c in cols]
    if check_key:
        aggs.append(key_nulls(key))
    row = sdf.agg(*aggs).collect()[0]
    raise_bad(cols, [row[f"__bad_{c}"] for c in cols])
    if k is not None:
        empty = [c for c in cols if not row[f"n_{c}"]]
        if empty:
            raise SDCError(f"column {empty[0]!r}: every value is null; there is no range to calibrate phi from")
        phis = {c: pk_phi(row[f"lo_{c}"], row[f"hi_{c}"], int(row[f"n_{c}"]), k, m) for c in cols}
        for c, v in phis.items():
            if not v > 0:
                raise SDCError(f"column {c!r}: constant column, the calibrated phi is 0; drop it from `on`")
    else:
        phis = dict(zip(cols, phi_vector(phi, cols).tolist()))
    if check_key:
        verify_key(sdf, key, int(row["__key_nulls"]))

    out_schema = StructType([
        StructField(f.name, DoubleType() if f.name in cols else f.dataType, f.nullable) for f in sdf.schema.fields
    ])
    names = list(sdf.columns)

    def run(batches):
        for batch in batches:
            df = pl.from_arrow(pa.Table.from_batches([batch]))
            keys = df.get_column(key)
            arrays = []
            for name in names:
                if name in phis:
                    col = df.get_column(name)
                    x = col.cast(pl.Float64).to_numpy()
                    y = x + laplace_noise(seed, name, keys, phis[name])
                    mask = col.is_null().to_numpy() if col.null_count() else None   # a null stays null
                    arrays.append(pa.array(y, pa.float64(), mask=mask))
                else:
                    arrays.append(batch.column(name))
            yield pa.RecordBatch.from_arrays(arrays, names=names)

    return sdf.mapInArrow(run, out_schema)
