"""Laplace noise on Spark, drawn per row from ``(seed, "laplace/<column>", key)``.

The released value is ``y = x + e`` with ``e ~ Laplace(0, phi)`` (Hasegawa et al., eq. 1/2), and
``e = polars_sdc.rng.laplace(seed, f"laplace/{column}", rng.row_keys(key), phi)``: the one
per-row generator of :mod:`polars_sdc.rng`. A row's noise depends only on the seed, the
column and the row's key, so it is the same whatever the partitioning, the number of
executors or a task retry, and equals the local result for the same seed and key. Row
positions are not stable in Spark, so a ``key`` column is required.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .. import rng
from .._columns import ColumnSpec, unknown_column
from .._signature import check_keywords
from ..household import check_household_columns
from ._common import (bad_value_counts, key_nulls, need_key, polars_schema, raise_bad, require_pyspark, run_frames,
                      verify_key)
from .household import mask_households


@check_keywords
def laplace(
    sdf: Any,
    phi: Any = None,
    on: ColumnSpec = None,
    *,
    k: int | None = None,
    seed: int | None = None,
    clamp: bool = False,
    m: int = 1,
    key: str | None = None,
    household: str | None = None,
    household_columns: Sequence[str] | None = None,
    check_key: bool = True,
) -> Any:
    """``sdf`` with Laplace noise added to the numeric ``on`` columns (double out), as local
    ``df.sdc.laplace(phi, on, k=, seed=, clamp=, m=, key=, household=)``: ``phi`` a number, a
    sequence or ``{column: phi}``, or ``k`` to calibrate phi for Pk-anonymity
    (``2 m (b - a) / ln((N - 1)/(k - 1))``, Hasegawa et al. section 5, from one aggregation);
    ``clamp`` clips to each column's range over the whole table (the same aggregation).
    Nulls stay null (``k``: range and count of the non-null values, as locally).
    ``key`` names a column that identifies each row (integers or strings; required on Spark);
    ``check_key`` verifies it has no nulls and no repeated value (one aggregation). ``household``:
    the household id; household-level columns (detected, or declared by ``household_columns``)
    get one draw per household (key: the household
    id; ``k`` calibrated over households), joined back (:mod:`polars_sdc.spark.household`).
    Each Arrow batch runs the local :func:`polars_sdc.laplace.laplace_apply`.

    >>> from polars_sdc import spark as sdcs                                # doctest: +SKIP
    >>> noisy = sdcs.laplace(sdf, 2.0, ["age"], key="person_id", seed=7)    # doctest: +SKIP
    """
    require_pyspark(sdf)
    from pyspark.sql import functions as F

    from ..laplace import (check_phi_or_k, check_phis, laplace_apply, laplace_columns, laplace_output_schema,
                           phi_resolution_error, phi_vector, pk_phis)

    need_key(key, "laplace")
    schema = polars_schema(sdf)
    if key not in schema:
        raise unknown_column(key, schema.names(), label="key column", where="the Spark DataFrame", list_them=False)
    rng.check_key_dtype(key, schema[key])          # on the driver, before any job
    check_phi_or_k(phi, k)
    cols = laplace_columns(schema, phi, on, seed=seed, key=key, household=household,
                           household_columns=household_columns, k=k, m=m)
    if seed is None:
        seed = rng.fresh_seed()
    rng.stream_hash(seed, "")  # validates the seed on the driver
    if household is not None:            # household-level columns: one draw per household, joined back
        phis = dict(zip(cols, phi_vector(phi, cols).tolist())) if phi is not None else None
        return mask_households(sdf, household, cols, lambda f, cs, kk: laplace(
            f, None if phis is None else {c: phis[c] for c in cs}, cs, k=k, seed=seed, clamp=clamp, m=m, key=kk, check_key=check_key), key=key,
            declared=check_household_columns(schema, household, household_columns))

    aggs = [F.count(F.lit(1)).alias("n"), *bad_value_counts(sdf, cols, schema, nulls=True)]
    if k is not None or clamp:   # structural nulls stay null: range and N of the non-null values, as locally
        aggs += [F.min(F.col(c).cast("double")).alias(f"lo_{c}") for c in cols]
        aggs += [F.max(F.col(c).cast("double")).alias(f"hi_{c}") for c in cols]
        aggs += [F.count(F.col(c)).alias(f"n_{c}") for c in cols]
    # the whole column's largest |x| on the driver: the local refusal of a phi below float64's
    # spacing, with the local message, before any task (a batch sees only its own values)
    aggs += [F.max(F.abs(F.col(c).cast("double"))).alias(f"top_{c}") for c in cols]
    if check_key:
        aggs.append(key_nulls(key))
    row = sdf.agg(*aggs).collect()[0]
    raise_bad(cols, row)
    if k is not None:
        phis = check_phis(pk_phis({c: (row[f"lo_{c}"], row[f"hi_{c}"], row[f"n_{c}"]) for c in cols}, k, m))
    else:
        phis = dict(zip(cols, phi_vector(phi, cols).tolist()))
    for c in cols:
        err = phi_resolution_error(c, phis[c], row[f"top_{c}"] or 0.0)
        if err is not None:
            raise err
    bounds = {c: (row[f"lo_{c}"], row[f"hi_{c}"]) for c in cols if row[f"n_{c}"]} if clamp else None
    if check_key:
        verify_key(sdf, key, int(row["__sdc_key_nulls"] or 0))   # None: an empty table
    s = int(seed)
    return run_frames(sdf, lambda df: laplace_apply(df, phis, s, key=key, bounds=bounds),
                      laplace_output_schema(schema, cols))
