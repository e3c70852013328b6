"""The Spark back end's helper columns never meet a user column (session 27 audit, item 2).
Every helper is named ``__sdc_...``; an input column starting with that prefix in any case is
refused (Spark matches names case-insensitively, so ``__N`` met a helper ``__n`` before). Each
case runs a call with a user column named like an old helper (``__N``, ``count``, ``m``,
``e_x``) and the same call with that column renamed: the results agree. Needs pyspark and Java
(skips without, as tests/test_spark.py); tiny frames."""
from __future__ import annotations

import polars as pl
import pytest
from test_spark import spark  # noqa: F401  (the session fixture)

import polars_sdc  # noqa: F401
from polars_sdc import SDCError

DF = pl.DataFrame({
    "id": list(range(12)),
    "s": ["a", "b"] * 6,
    "race": ["w", "b", "w", "w", "a", "b", "w", "a", "w", "b", "w", "w"],
    "sex": ["m", "f"] * 3 + ["f", "m"] * 3,
    "hh": [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5],
    "w": [1.0, 2.0, 1.5, 1.0, 3.0, 1.0, 2.0, 2.0, 1.0, 1.0, 4.0, 1.0],
    "x": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0],
    "g": [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3],
})


def _sdf(spark, df):  # noqa: F811
    return spark.createDataFrame(df.to_arrow()).repartition(2)


def _rows(sdf, rename=None) -> pl.DataFrame:
    out = pl.from_arrow(sdf.toArrow())
    return (out.rename(rename) if rename else out).sort("id")


def test_pram_with_a_stratum_named_like_a_count_helper(spark):  # noqa: F811
    # cube(by, on).agg(count().alias("__n"), grouping(..).alias("__g0")): a `by` column "__N"
    # was the same Spark column as the count; a key column named "count" met groupBy().count()
    from polars_sdc import spark as sdcs

    plain = _rows(sdcs.pram(_sdf(spark, DF), ["race"], by="s", seed=3, key="id"))
    odd = DF.rename({"s": "__N", "id": "count"})
    got = _rows(sdcs.pram(_sdf(spark, odd), ["race"], by="__N", seed=3, key="count"),
                {"__N": "s", "count": "id"})
    assert got.equals(plain)
    assert plain.equals(DF.sdc.pram(["race"], by="s", seed=3, key="id"))          # and equals local


def test_household_risk_with_a_household_named_m(spark):  # noqa: F811
    # groupBy(household).agg(count().alias("m"), ...alias("h")): a household column "m" or "H"
    from polars_sdc import spark as sdcs

    plain = sdcs.risk(_sdf(spark, DF), ["race", "sex"], "w", household="hh")
    for name in ("m", "H"):
        got = sdcs.risk(_sdf(spark, DF.rename({"hh": name})), ["race", "sex"], "w", household=name)
        assert got == plain, name
    assert plain["household_risk"] > 0


def test_ilssdm_groups_named_like_the_per_group_sums(spark):  # noqa: F811
    # groupBy(groups).agg(...alias(f"e_{c}")): groups="e_x" on x was the sum's own name
    from polars_sdc import spark as sdcs

    plain = sdcs.ilssdm(_sdf(spark, DF), ["x"], groups="g")
    got = sdcs.ilssdm(_sdf(spark, DF.rename({"g": "e_x"})), ["x"], groups="e_x")
    assert float(got) == float(plain)
    assert float(plain) == pytest.approx(float(DF.sdc.ilssdm(["x"], groups="g")), rel=1e-12)


@pytest.mark.parametrize("name", ["__sdc_block", "__SDC_Stratum", "__Sdc_x"])
def test_a_column_with_the_reserved_prefix_is_refused(spark, name):  # noqa: F811
    from polars_sdc import spark as sdcs

    sdf = _sdf(spark, DF.with_columns(pl.lit(1).alias(name)))
    msg = rf"column '{name}': names starting with '__sdc_' \(in any case"
    with pytest.raises(SDCError, match=msg):
        sdcs.microaggregate(sdf, 3, ["x"])
    with pytest.raises(SDCError, match=msg):
        sdcs.pram(sdf, ["race"], seed=1, key="id")
    with pytest.raises(SDCError, match=msg):
        sdcs.frequencies(sdf, ["race", "sex"])
