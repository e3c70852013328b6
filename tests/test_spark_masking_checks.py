"""The Spark masking functions (local mode) check what the local methods check, with the local
messages, and agree with local at the edges: ``add_noise(method="moments")`` refuses a stratum
too small to hide its records and keeps a constant column exact; ``rank_swap(preset="sdcmicro")``
equals local; a Float64 ``key=`` is refused on the driver; the household id is checked by the
local check. Needs pyspark and Java (skips without, as tests/test_spark.py)."""
from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from test_spark import spark  # noqa: F401  (the session fixture)

import polars_sdc  # noqa: F401
from polars_sdc import SDCError


def _sdf(spark, df):  # noqa: F811
    return spark.createDataFrame(df.to_arrow()).repartition(2)


def test_moments_refuses_fewer_than_four_rows_per_stratum(spark):  # noqa: F811
    from polars_sdc import spark as sdcs

    df = pl.DataFrame({"id": [1, 2], "x": [10.0, 50.0], "y": [3.0, -1.0]})
    with pytest.raises(SDCError, match="needs at least 4 rows"):
        sdcs.add_noise(_sdf(spark, df), ["x", "y"], method="moments", seed=5, key="id")
    big = pl.DataFrame({"id": range(9), "g": ["a"] * 3 + ["b"] * 6, "x": np.arange(9.0), "y": np.arange(9.0) ** 2})
    with pytest.raises(SDCError, match=r"stratum \{'g': 'a'\} of `by`: 3 row\(s\).*at least 4"):
        sdcs.add_noise(_sdf(spark, big), ["x", "y"], method="moments", by="g", seed=5, key="id")


def test_moments_keeps_a_constant_column_and_equals_local(spark):  # noqa: F811
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
def test_float_key_refused_on_the_driver_with_the_local_message(spark, method):  # noqa: F811
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


def test_rank_swap_sdcmicro_preset_equals_local(spark):  # noqa: F811
    from polars_sdc import spark as sdcs

    r = np.random.default_rng(1)
    df = pl.DataFrame({"id": np.arange(300), "g": r.choice(["a", "b"], 300), "x": r.normal(size=300)})
    for by in (None, "g"):
        local = df.sdc.rank_swap("x", preset="sdcmicro", by=by, seed=4, key="id").sort("id")
        got = pl.from_arrow(sdcs.rank_swap(_sdf(spark, df), ["x"], preset="sdcmicro", by=by, seed=4,
                                           key="id").toArrow()).sort("id")
        assert got.equals(local)


def test_household_id_checked_as_locally(spark):  # noqa: F811
    from polars_sdc import spark as sdcs
    from polars_sdc.spark.household import mask_households

    df = pl.DataFrame({"id": range(4), "hh": [1, 1, 2, 2], "x": [1.0, 2.0, 3.0, 4.0]})
    sdf = _sdf(spark, df)
    with pytest.raises(SDCError, match=r"^household column 'hx': not in the frame \(columns: id, hh, x\)$"):
        mask_households(sdf, "hx", ["x"], lambda f, cs, k: f, key="id")
    with pytest.raises(SDCError, match="household column 'hh': is also masked"):
        mask_households(sdf, "hh", ["hh", "x"], lambda f, cs, k: f, key="id")
    for call in (lambda d: d.sdc.add_noise(["hh", "x"], seed=1, key="id", household="hh"),
                 lambda d: sdcs.add_noise(sdf, ["hh", "x"], seed=1, key="id", household="hh")):
        with pytest.raises(SDCError, match="household column 'hh': is also masked"):
            call(df)


def _local_error(call):
    with pytest.raises(SDCError) as e:
        call()
    return str(e.value)


def test_add_noise_refuses_values_below_float64_spacing_as_locally(spark):  # noqa: F811
    """Int64 values near 2^63 whose unit's sd is below float64's spacing (2048 there): Spark
    refused nothing (the release held the data rounded); now the local check on the driver's
    aggregates, word for word: the whole frame, a `by` stratum, a null pattern within one."""
    from polars_sdc import spark as sdcs

    t = 2**63
    whole = pl.DataFrame({"id": range(4), "x": pl.Series([t - 9, t - 8, t - 5, t - 7], dtype=pl.Int64)})
    strat = pl.DataFrame({"id": range(8), "g": [2, 1, 2, 1, 2, 1, 2, 1],
                          "x": pl.Series([t - 9, 0, t - 8, 2**62, t - 5, 5, t - 7, 2**61], dtype=pl.Int64),
                          "y": [1.0, 4.0, None, 5.0, 2.0, None, 3.0, 7.0]})
    cases = [(whole, dict(on=["x"])), (strat, dict(on=["x"], by="g")),
             (strat, dict(on=["x"], by="g", method="moments")),
             (strat, dict(on=["x", "y"], by="g", method="correlated"))]
    for df, kw in cases:
        on = kw.pop("on")
        want = _local_error(lambda: df.sdc.add_noise(on, seed=3, key="id", **kw))
        assert want.startswith("column 'x'") and "apart in float64" in want
        got = _local_error(lambda: sdcs.add_noise(_sdf(spark, df), on, seed=3, key="id", **kw))
        assert got == want
    assert "in stratum {'g': 2} of `by` (rows whose non-null `on` columns are ['x', 'y'])" in got
    # the whole column's sd (~4e18) is above the spacing: noised, Spark equal to local
    local = strat.sdc.add_noise("x", seed=3, key="id").sort("id")
    got = pl.from_arrow(sdcs.add_noise(_sdf(spark, strat), ["x"], seed=3, key="id").toArrow()).sort("id")
    np.testing.assert_allclose(got["x"].to_numpy(), local["x"].to_numpy(), rtol=1e-12)


def test_laplace_refuses_phi_below_float64_spacing_on_the_driver(spark):  # noqa: F811
    """phi = 1 on values near 2^63 (2048 apart): Spark refused only inside a task, when the job
    ran, naming the batch's own largest |x|; now on the driver at the call, with the local message
    (one phi per column: the whole column's largest |x|)."""
    from polars_sdc import spark as sdcs

    df = pl.DataFrame({"id": range(6), "x": pl.Series([1, 2, 3, 2**62, 2**63 - 1, 4], dtype=pl.Int64)})
    want = _local_error(lambda: df.sdc.laplace(1.0, "x", seed=3, key="id"))
    assert "(|x| up to 9.22337e+18)" in want
    assert _local_error(lambda: sdcs.laplace(_sdf(spark, df), 1.0, ["x"], seed=3, key="id")) == want
    ok = df.sdc.laplace(1e5, "x", seed=3, key="id").sort("id")
    got = pl.from_arrow(sdcs.laplace(_sdf(spark, df), 1e5, ["x"], seed=3, key="id").toArrow()).sort("id")
    assert got.equals(ok)
