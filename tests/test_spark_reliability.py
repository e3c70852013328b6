"""Issue 26 on Spark (local mode): "moments" refuses what pins the records (26.2) and keeps a
constant column exact (26.5), equal to local; a Float64 ``key=`` is refused on the driver with
the local message (26.18). Needs pyspark and Java (skips without, as tests/test_spark.py)."""
from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from test_spark import spark  # noqa: F401  (the session fixture)

import polars_sdc  # noqa: F401
from polars_sdc import SDCError


def _sdf(spark, df):  # noqa: F811
    return spark.createDataFrame(df.to_arrow()).repartition(2)


def test_26_2_moments_two_rows_refused_on_spark(spark):  # noqa: F811
    from polars_sdc import spark as sdcs

    df = pl.DataFrame({"id": [1, 2], "x": [10.0, 50.0], "y": [3.0, -1.0]})
    with pytest.raises(SDCError, match="needs at least 4 rows"):
        sdcs.add_noise(_sdf(spark, df), ["x", "y"], method="moments", seed=5, key="id")
    big = pl.DataFrame({"id": range(9), "g": ["a"] * 3 + ["b"] * 6, "x": np.arange(9.0), "y": np.arange(9.0) ** 2})
    with pytest.raises(SDCError, match=r"stratum \{'g': 'a'\} of `by`: 3 row\(s\).*at least 4"):
        sdcs.add_noise(_sdf(spark, big), ["x", "y"], method="moments", by="g", seed=5, key="id")


def test_26_5_moments_constant_column_on_spark_equals_local(spark):  # noqa: F811
    from polars_sdc import spark as sdcs

    df = pl.DataFrame({"id": range(12), "g": ["a", "b"] * 6, "x": [1.0, 2, 3, 5, 3, 3, 7, 1, 2, 2, 9, 4],
                       "c": [0.1] * 12, "y": [3.0, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8]})
    for by in (None, "g"):
        local = df.sdc.add_noise(["x", "c", "y"], method="moments", by=by, seed=2, key="id").sort("id")
        got = pl.from_arrow(sdcs.add_noise(_sdf(spark, df), ["x", "c", "y"], method="moments", by=by, seed=2,
                                           key="id").toArrow()).sort("id")
        assert got["c"].to_list() == [0.1] * 12
        np.testing.assert_allclose(got.select("x", "y").to_numpy(), local.select("x", "y").to_numpy(), rtol=1e-11)


@pytest.mark.parametrize("method", ["laplace", "pram", "add_noise", "rank_swap"])
def test_26_18_float_key_refused_on_the_driver(spark, method):  # noqa: F811
    from polars_sdc import spark as sdcs

    df = pl.DataFrame({"k": [0.5, 1.5, 2.5, 3.5], "x": [1.0, 2.0, 3.0, 4.0], "c": ["a", "b", "a", "b"]})
    sdf = _sdf(spark, df)
    call = {"laplace": lambda: sdcs.laplace(sdf, 1.0, ["x"], key="k", seed=1),
            "pram": lambda: sdcs.pram(sdf, "c", key="k", seed=1),
            "add_noise": lambda: sdcs.add_noise(sdf, ["x"], key="k", seed=1),
            "rank_swap": lambda: sdcs.rank_swap(sdf, ["x"], key="k", seed=1)}[method]
    with pytest.raises(SDCError) as e:
        call()
    msg = str(e.value)
    assert msg == "key column 'k': dtype Float64 cannot be a key; use an integer or string column"
    with pytest.raises(SDCError, match=msg):                    # the local message, word for word
        {"laplace": lambda: df.sdc.laplace(1.0, "x", key="k", seed=1),
         "pram": lambda: df.sdc.pram("c", key="k", seed=1),
         "add_noise": lambda: df.sdc.add_noise("x", key="k", seed=1),
         "rank_swap": lambda: df.sdc.rank_swap("x", key="k", seed=1)}[method]()


def test_26_8_spark_alpha_below_one_equals_local(spark):  # noqa: F811
    from polars_sdc import spark as sdcs

    df = pl.DataFrame({"id": range(5), "a": [1, None, 2, 2, 2], "b": [1, 1, 5, 5, 5], "w": [2.0] * 5})
    sdf = _sdf(spark, df)
    local = df.sdc.individual_risk(["a", "b"], weight="w", alpha=0.5)
    got = pl.from_arrow(sdcs.individual_risk(sdf, ["a", "b"], weight="w", alpha=0.5).toArrow()).sort("id")
    np.testing.assert_allclose(got["risk"].to_numpy(), local["risk"].to_numpy(), rtol=1e-12)
    assert got["risk"][0] == pytest.approx(np.log(2))            # not sdcMicro's 0
    r = sdcs.risk(sdf, ["a", "b"], weight="w", alpha=0.5)
    assert r["global_risk"] == pytest.approx(local["risk"].mean())
    low = pl.DataFrame({"id": [1, 2, 3], "a": [1, 1, 2], "w": [0.3, 0.4, 0.5]})     # weights below 1 (28.6)
    got = pl.from_arrow(sdcs.individual_risk(_sdf(spark, low), ["a"], weight="w").toArrow()).sort("id")
    assert got["risk"].to_list() == [0.5, 0.5, 1.0]


def test_28_4_spark_rank_swap_preset_equals_local(spark):  # noqa: F811
    from polars_sdc import spark as sdcs

    r = np.random.default_rng(1)
    df = pl.DataFrame({"id": np.arange(300), "g": r.choice(["a", "b"], 300), "x": r.normal(size=300)})
    for by in (None, "g"):
        local = df.sdc.rank_swap("x", preset="sdcmicro", by=by, seed=4, key="id").sort("id")
        got = pl.from_arrow(sdcs.rank_swap(_sdf(spark, df), ["x"], preset="sdcmicro", by=by, seed=4,
                                           key="id").toArrow()).sort("id")
        assert got.equals(local)


def test_26_8_spark_sdcmicro_rule_on_request(spark):  # noqa: F811
    from polars_sdc import spark as sdcs

    df = pl.DataFrame({"id": range(5), "a": [1, None, 2, 2, 2], "b": [1, 1, 5, 5, 5], "w": [2.0] * 5})
    got = pl.from_arrow(sdcs.individual_risk(_sdf(spark, df), ["a", "b"], weight="w", alpha=0.5,
                                             alpha_rule="sdcmicro").toArrow()).sort("id")
    local = df.sdc.individual_risk(["a", "b"], weight="w", alpha=0.5, alpha_rule="sdcmicro")
    np.testing.assert_allclose(got["risk"].to_numpy(), local["risk"].to_numpy(), rtol=1e-12)
    assert got["risk"][0] == 0.0
    with pytest.raises(SDCError, match="alpha_rule must be one of"):
        sdcs.risk(_sdf(spark, df), ["a", "b"], alpha_rule="r")
