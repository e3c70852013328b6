"""Spark microaggregation of Decimal(38, s) columns near 10^38 equals the local release
(audit 28). Locally the group mean of a Decimal column is exact on its scaled integers
(rounded half to even to its scale; 3 x 9e37 used to wrap to -2.3e37 in Int128); the Spark
back end runs the same per-block expression, and its planning reads the column as doubles.
Needs pyspark and Java (skips without); one session, tiny frames."""
from __future__ import annotations

from decimal import Decimal, localcontext

import polars as pl
import pytest
from test_spark import spark  # noqa: F401  (the session fixture)

import polars_sdc  # noqa: F401


def _frame(scale: int) -> pl.DataFrame:
    with localcontext() as ctx:
        ctx.prec = 100
        top = Decimal(10) ** (38 - scale) - Decimal(1).scaleb(-scale)        # the largest Decimal(38, s)
        vals = [Decimal(9) * Decimal(10) ** (37 - scale)] * 3 + [top, top - Decimal(1).scaleb(-scale), top]
        vals += [-v for v in vals]
    return pl.DataFrame({"id": range(12), "s": ["a"] * 6 + ["b"] * 6, "d": vals},
                        schema={"id": pl.Int64, "s": pl.String, "d": pl.Decimal(38, scale)})


@pytest.mark.parametrize("scale", [0, 2])
def test_decimal_38_means_near_1e38_as_local(spark, scale):  # noqa: F811
    from polars_sdc import spark as sdcs

    df = _frame(scale)
    local = df.sdc.mdav(3, ["d"], by="s")
    with localcontext() as ctx:
        ctx.prec = 100
        nine = Decimal(9) * Decimal(10) ** (37 - scale)
        assert local["d"].to_list()[:3] == [nine] * 3                  # exact, no wrap
        assert local["d"].to_list()[6:9] == [-nine] * 3
    sdf = spark.createDataFrame(df.to_arrow()).repartition(2)
    got = pl.from_arrow(sdcs.microaggregate(sdf, 3, ["d"], by="s").toArrow()).sort("id")
    assert got.schema == local.schema
    assert got.equals(local)


def test_household_level_decimal_38_as_local(spark):  # noqa: F811
    # one row per household is aggregated (the household path): the same exact mean
    from polars_sdc import spark as sdcs

    base = _frame(0).filter(pl.col("s") == "a")                           # 6 values near 10^38
    df = pl.concat([base, base]).with_columns(hh=pl.Series([*range(6)] * 2), id=pl.Series(range(12)))
    local = df.sdc.microaggregate(3, ["d"], household="hh", group_column="g")
    assert local["g"].n_unique() == 1                     # one group of the 6 households
    # the exact mean of the 12 values (sum 5.7e38, past Int128), rounded half to even
    from fractions import Fraction

    exact = sum(Fraction(int(v)) for v in df["d"].to_list()) / 12
    want = round(exact)                                    # Python's round of a Fraction: half to even
    assert local["d"].to_list() == [Decimal(want)] * 12 and want == 10 ** 37 * 95 // 10 - 1
    local = local.drop("g")
    sdf = spark.createDataFrame(df.to_arrow()).repartition(2)
    got = pl.from_arrow(sdcs.microaggregate(sdf, 3, ["d"], household="hh").toArrow()).sort("id")
    assert got.schema == local.schema
    assert got.equals(local.sort("id"))
