"""Spark microaggregation with ``household=``: household-level columns on one row per household
(no block splits a household), groups of >= k households, joined back to every member; person-level
columns refused. Skips without pyspark / Java (see tests/test_spark.py)."""
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


def test_spark_person_level_refused(spark, silc_small):  # noqa: F811
    from polars_sdc.spark.microaggregate import microaggregate

    sdf = spark.createDataFrame(silc_small.to_arrow())
    with pytest.raises(SDCError, match="'py010n'.* are person-level"):
        microaggregate(sdf, 3, P_INCOME, household="db030")
    with pytest.raises(SDCError, match="`by` column 'rb090' varies within a household"):
        microaggregate(sdf, 3, HH_INCOME, household="db030", by="rb090")
