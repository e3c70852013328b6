"""Spark microaggregation with ``household=``: household-level columns on one row per household,
person-level ones on the person rows blocked by household (no block splits a household); every
released group spans >= k households, and with one block the result is the local household path's.
Skips without pyspark / Java (see tests/test_spark.py)."""
from __future__ import annotations

import polars as pl
import pytest
from test_household_microagg import HH_INCOME, P_INCOME, households_in_groups, unchanged_unshared
from test_spark import spark  # noqa: F401  (the session fixture)

import polars_sdc
from polars_sdc._errors import SDCError


@pytest.fixture(scope="module")
def silc_small():
    df = polars_sdc.datasets.eusilc()
    return df.filter(pl.col("db040").is_in(["Tyrol", "Vorarlberg", "Salzburg"]))


def _canon(df: pl.DataFrame) -> pl.DataFrame:
    return df.sort(df.columns, nulls_last=True)


def test_spark_household_level(spark, silc_small):  # noqa: F811
    from polars_sdc.spark.microaggregate import microaggregate

    sdf = spark.createDataFrame(silc_small.to_arrow())
    out = microaggregate(sdf, 3, HH_INCOME, household="db030", group_column="g", block_rows=600, by="db040")
    res = pl.from_arrow(out.toArrow()).sort("rb030")
    orig = silc_small.sort("rb030")
    assert res.height == orig.height and res.columns == orig.columns + ["g"]
    assert households_in_groups(res).min() >= 3
    assert res.group_by("db030").agg(pl.struct(HH_INCOME + ["g"]).n_unique())["hy040n"].max() == 1
    assert res.group_by("g").agg(pl.col("db040").n_unique())["db040"].max() == 1
    assert unchanged_unshared(orig, res, HH_INCOME, 3, "db030") == 0
    assert res.drop(HH_INCOME + ["g"]).equals(orig.drop(HH_INCOME))


def test_spark_person_level_equals_local(spark, silc_small):  # noqa: F811
    from polars_sdc import spark as sdcs
    from polars_sdc.spark.microaggregate import person_stats

    cols = ["age", *P_INCOME[:2]]                 # person-level; Spark's blocks take no nulls: filled here
    silc_small = silc_small.with_columns(pl.col(P_INCOME[:2]).fill_null(0.0))
    sdf = spark.createDataFrame(silc_small.to_arrow()).repartition(2)
    orig = silc_small.sort("rb030")
    # one block: the local household path on the block's canonical row order, with the z-scores of
    # the (single) stratum and null pattern as weights (the standard deviations as Spark computes them)
    out = pl.from_arrow(sdcs.mdav(sdf, 3, cols, household="db030", group_column="g").toArrow()).sort("rb030")
    sd, persons, homes = person_stats(sdf, cols, cols, silc_small.schema, "db030")
    assert (persons, homes) == (silc_small.height, silc_small["db030"].n_unique())
    assert sd == pytest.approx(list(silc_small.select(pl.col(cols).std(ddof=0)).row(0)), rel=1e-12)
    from polars_sdc.spark.blocking import NULLS
    from polars_sdc.spark.microaggregate import null_pattern_column, unit_deviations

    sd = unit_deviations(sdf.withColumn(NULLS, null_pattern_column(cols)), [NULLS], cols).row(0)[1:]
    w = {c: 1.0 / v ** 2 for c, v in zip(cols, sd)}
    ref = silc_small.sort(silc_small.columns).sdc.mdav(3, cols, household="db030", standardize=False, weights=w,
                                                       group_column="g")
    assert _canon(out.drop("g")).equals(_canon(ref.drop("g")))
    assert households_in_groups(out).min() >= 3 and unchanged_unshared(orig, out, cols, 3, "db030") == 0
    assert out.drop(cols + ["g"]).equals(orig.drop(cols))
    # several blocks (strata and a small block size): no block splits a household, every
    # group spans >= 3 households, and the released classes hold >= 3 households
    out = pl.from_arrow(sdcs.microaggregate(sdf, 3, cols, household="db030", by="db040", block_rows=300,
                                            group_column="g", block_column="b").toArrow())
    assert out["b"].n_unique() > 3
    assert out.group_by("db030").agg(pl.col("b").n_unique())["b"].max() == 1
    assert households_in_groups(out).min() >= 3
    assert out.group_by([*cols, "db040"]).agg(pl.col("db030").n_unique())["db030"].min() >= 3
    assert unchanged_unshared(orig, out.sort("rb030"), cols, 3, "db030") == 0


def test_spark_structural_nulls_equal_local(spark, silc_small):  # noqa: F811
    # children's incomes are null: each null pattern over `on` is blocked apart (a stratum), the
    # nulls stay null, and with one block per pattern the release is the local one
    from polars_sdc import spark as sdcs
    from polars_sdc.spark.blocking import NULLS
    from polars_sdc.spark.microaggregate import null_pattern_column, person_stats, pool_small_patterns

    cols = P_INCOME[:2]
    assert silc_small[cols[0]].null_count() > 100
    sdf = spark.createDataFrame(silc_small.to_arrow()).repartition(2)
    out = pl.from_arrow(sdcs.mdav(sdf, 3, cols, group_column="g").toArrow()).sort("rb030")
    orig = silc_small.sort("rb030")
    for c in cols:
        assert out[c].is_null().equals(orig[c].is_null())
    assert out.group_by(cols).len()["len"].min() >= 3
    plan = sdcs.plan_blocks(sdf.withColumn(NULLS, null_pattern_column(cols)), 3, cols, by=NULLS, nulls=True)
    assert plan.std == pytest.approx(list(silc_small.select(pl.col(cols).std(ddof=0)).row(0)), rel=1e-12)
    w = {c: 1.0 / v ** 2 for c, v in zip(cols, plan.std)}
    ref = silc_small.sort(silc_small.columns).sdc.mdav(3, cols, standardize=False, weights=w)
    assert _canon(out.drop("g")).equals(_canon(ref))
    # a pattern of fewer than k rows: refused naming it, or pooled as locally (merge_small_patterns)
    odd = silc_small.with_columns(pl.when(pl.col("rb030") == orig["rb030"][0]).then(None).otherwise(pl.col(cols[1]))
                                  .alias(cols[1])).sort(silc_small.columns)
    odd_sdf = spark.createDataFrame(odd.to_arrow())
    with pytest.raises(SDCError, match=r"stratum non-null `on` columns \[py010n\]: 1 rows < k = 3"):
        sdcs.mdav(odd_sdf, 3, cols)
    got = pl.from_arrow(sdcs.mdav(odd_sdf, 3, cols, merge_small_patterns=True).toArrow())
    pooled = pool_small_patterns(odd_sdf.withColumn(NULLS, null_pattern_column(cols)), [], 3, cols)
    plan = sdcs.plan_blocks(pooled, 3, cols, by=NULLS, nulls=True)
    ref = odd.sdc.mdav(3, cols, standardize=False, weights={c: 1.0 / v ** 2 for c, v in zip(cols, plan.std)},
                       merge_small_patterns=True)
    assert _canon(got).equals(_canon(ref))
    # person-level with household=: one block, the local household path (patterns of >= 3 households)
    out = pl.from_arrow(sdcs.mdav(sdf, 3, cols, household="db030", group_column="g").toArrow()).sort("rb030")
    sd, _, _ = person_stats(sdf, cols, cols, silc_small.schema, "db030")
    ref = silc_small.sort(silc_small.columns).sdc.mdav(3, cols, household="db030", standardize=False,
                                                       weights={c: 1.0 / v ** 2 for c, v in zip(cols, sd)})
    assert _canon(out.drop("g")).equals(_canon(ref))
    assert households_in_groups(out).min() >= 3 and unchanged_unshared(orig, out, cols, 3, "db030") == 0


def test_spark_household_errors(spark, silc_small):  # noqa: F811
    from polars_sdc.spark.microaggregate import microaggregate

    sdf = spark.createDataFrame(silc_small.to_arrow())
    with pytest.raises(SDCError, match="'hy040n' are household-level .* 'py010n' person-level"):
        microaggregate(sdf, 3, ["hy040n", "py010n"], household="db030")
    with pytest.raises(SDCError, match="`by` column 'rb090' varies within a household"):
        microaggregate(sdf, 3, HH_INCOME, household="db030", by="rb090")
    with pytest.raises(SDCError, match="'merge_small_strata' has no Spark counterpart"):
        microaggregate(sdf, 3, HH_INCOME, household="db030", merge_small_strata=True)
