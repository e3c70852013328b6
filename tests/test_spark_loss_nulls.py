"""Spark ``ilssdm`` with structural nulls equals local ``df.sdc.ilssdm`` (polars_sdc.loss.nulls:
each column over its non-null values, sdcMicro dUtility IL1s with na.rm = TRUE), both for a
masked release joined on a key and for a partition; a changed null pattern is refused naming
the column and the first differing row as locally (the key is the row position here)."""
from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from test_spark import spark  # noqa: F401  (the session fixture)

import polars_sdc  # noqa: F401
from polars_sdc._errors import SDCError

ON = ["x", "y", "z"]


@pytest.fixture(scope="module")
def pair() -> tuple[pl.DataFrame, pl.DataFrame]:
    g = np.random.default_rng(11)
    n = 40
    df = pl.DataFrame({
        "id": np.arange(n, dtype=np.int64),
        "g": g.integers(0, 6, n),
        "x": g.normal(10, 3, n),
        "y": g.normal(0, 100, n).round(0),
        "z": g.exponential(5, n),
    })
    # structural nulls: x in every 4th row, y in rows 3..10 (group means over fewer rows), z none
    df = df.with_columns(
        pl.when(pl.col("id") % 4 == 1).then(None).otherwise(pl.col("x")).alias("x"),
        pl.when(pl.col("id").is_between(3, 10)).then(None).otherwise(pl.col("y")).alias("y"),
    )
    noise = pl.DataFrame({c: g.normal(0, 1, n) for c in ON})
    masked = df.with_columns((pl.col(c) + noise.get_column(c)).alias(c) for c in ON)  # nulls stay null
    return df, masked


def test_spark_ilssdm_skips_structural_nulls_as_locally(spark, pair):  # noqa: F811
    from polars_sdc import spark as sdcs

    df, masked = pair
    one, out = spark.createDataFrame(df.to_arrow()).repartition(3), spark.createDataFrame(masked.to_arrow())
    skipped = df.select(pl.col(ON).null_count()).sum_horizontal().item()
    assert skipped == 10 + 8
    for standardize in (True, False):
        want = df.sdc.ilssdm(ON, masked=masked.select(ON), standardize=standardize)
        got = sdcs.ilssdm(one, ON, masked=out, key="id", standardize=standardize)
        assert got == pytest.approx(want, rel=1e-9) and (got.skipped, want.skipped) == (skipped, skipped)
        want = df.sdc.ilssdm(ON, groups="g", standardize=standardize)
        got = sdcs.ilssdm(one, ON, groups="g", standardize=standardize)
        assert got == pytest.approx(want, rel=1e-9) and (got.skipped, want.skipped) == (skipped, skipped)
    # without the nulls' rule (row count, count(lit(1)) weights) the partition value differs
    assert sdcs.ilssdm(one, ON, groups="g") != pytest.approx(
        df.fill_null(strategy="mean").sdc.ilssdm(ON, groups="g"), rel=1e-3)

    # a release that fills a structural null (row 1 of x) or nulls a value (row 2 of z): the local message
    for c, row, changed in (("x", 1, masked.with_columns(pl.col("x").fill_null(0.0))),
                            ("z", 2, masked.with_columns(pl.when(pl.col("id") >= 2).then(None)
                                                         .otherwise(pl.col("z")).alias("z")))):
        with pytest.raises(SDCError) as local:
            df.sdc.ilssdm(ON, masked=changed.select(ON))
        with pytest.raises(SDCError) as remote:
            sdcs.ilssdm(one, ON, masked=spark.createDataFrame(changed.to_arrow()), key="id")
        assert str(remote.value) == str(local.value).replace(f"row {row}", f"the row with key 'id' = {row}")
        assert f"column {c!r}" in str(remote.value)


def test_spark_ilssdm_refuses_nan_and_infinity_as_locally(spark, pair):  # noqa: F811
    # a NaN or an infinity in the original or in the release: the local message naming the column
    # (Spark returned NaN for SSE/SST without a word)
    from polars_sdc import spark as sdcs

    df, masked = pair
    cases = []
    for bad in (float("nan"), float("inf")):
        hit = pl.when(pl.col("id") == 6).then(bad).otherwise(pl.col("z")).alias("z")
        cases += [(df.with_columns(hit), masked, dict(groups="g")), (df.with_columns(hit), masked, {}),
                  (df, masked.with_columns(hit), {})]
    for orig, rel, kw in cases:
        with pytest.raises(SDCError) as want:
            orig.sdc.ilssdm(ON, **(kw or {"masked": rel}))
        args = kw or {"masked": spark.createDataFrame(rel.to_arrow()), "key": "id"}
        with pytest.raises(SDCError) as have:
            sdcs.ilssdm(spark.createDataFrame(orig.to_arrow()), ON, **args)
        assert str(have.value) == str(want.value)
        assert str(want.value).startswith("column 'z': 1 ") and "finite number is needed" in str(want.value)


def test_spark_ilssdm_refuses_duplicate_and_missing_keys(spark, pair):  # noqa: F811
    # a duplicate key in the release making up for a missing one passed the old row-count check
    # (40 joined rows for 40 original rows); every key must now match exactly one row on each
    # side, with the local messages (rng.row_keys for a null / repeated key, ilssdm_frame for a
    # row count that differs)
    from polars_sdc import spark as sdcs

    df, masked = pair
    orig = spark.createDataFrame(df.to_arrow())
    ids = pl.col("id")
    cases = [
        (df, masked.with_columns(pl.when(ids == 4).then(3).otherwise(ids).alias("id")),
         "key column 'id' (release): value 3 appears more than once; a key must identify one row"),
        (df.with_columns(pl.when(ids == 4).then(3).otherwise(ids).alias("id")), masked,
         "key column 'id' (original): value 3 appears more than once; a key must identify one row"),
        (df, masked.with_columns(pl.when(ids == 7).then(None).otherwise(ids).alias("id")),
         "key column 'id' (release): 1 null value(s); a key must identify every row"),
        (df, masked.with_columns(pl.when(ids == 7).then(99).otherwise(ids).alias("id")),
         "key column 'id' (release): value 7 of the original is not in the release; they must hold the same keys"),
        (df, masked.filter(ids != 5), "masked frame has 39 rows, the original 40; they must be row-aligned"),
    ]
    for o, rel, msg in cases:
        with pytest.raises(SDCError) as e:
            sdcs.ilssdm(orig if o is df else spark.createDataFrame(o.to_arrow()), ON,
                        masked=spark.createDataFrame(rel.to_arrow()).repartition(2), key="id")
        assert str(e.value) == msg
    with pytest.raises(SDCError) as local:      # the row-count message is the local one, word for word
        df.sdc.ilssdm(ON, masked=masked.filter(ids != 5))
    assert str(local.value) == cases[-1][2]
    with pytest.raises(SDCError, match="key column 'id': value 1 appears more than once"):
        pl.DataFrame({"id": [1, 1], "x": [1.0, 2.0]}).sdc.laplace(1.0, "x", seed=1, key="id")
    with pytest.raises(SDCError, match=r"column 'nope' \(key\): not in the Spark DataFrame"):
        sdcs.ilssdm(orig, ON, masked=spark.createDataFrame(masked.to_arrow()), key="nope")
