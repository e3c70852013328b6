"""household= on Spark (issue 24): household-level columns masked once per household (one row
per household, keyed by the household id) and joined back; equal to the local household path
with the same seed and key column. Needs pyspark and Java (else skipped, as tests/test_spark.py)."""
from __future__ import annotations

import re

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal
from test_spark import spark  # noqa: F401  (the session fixture)

import polars_sdc  # noqa: F401
from polars_sdc._errors import SDCError


@pytest.fixture(scope="module")
def data() -> pl.DataFrame:
    g = np.random.default_rng(4)
    sizes = g.integers(1, 7, 60)
    hh = np.repeat(np.arange(60) * 11 + 5, sizes)
    n = hh.size
    hinc = np.repeat(g.exponential(3000, 60).round(0), sizes)
    region = np.repeat(g.choice(["n", "s", "e"], 60), sizes)
    area = np.repeat(np.where(np.arange(60) % 2 == 0, "a", "b"), sizes)
    perm = g.permutation(n)
    return pl.DataFrame({
        "pid": (np.arange(n) * 3 + 1).astype(np.int64), "hh": hh.astype(np.int64), "hinc": hinc, "region": region,
        "area": area, "pay": g.normal(30, 8, n), "job": g.choice(["x", "y", "z"], n),
    })[perm]


@pytest.fixture(scope="module")
def sdf(spark, data):  # noqa: F811
    return spark.createDataFrame(data.to_arrow()).repartition(3).cache()


def _spark(out) -> pl.DataFrame:
    return pl.from_arrow(out.toArrow()).sort("pid")


def _households_intact(df, cols):
    return df.group_by("hh").agg(pl.col(c).n_unique() for c in cols).select(pl.exclude("hh").max()).row(0) == \
        (1,) * len(cols)


def test_spark_household_equals_local(sdf, data):
    from polars_sdc import spark as sdcs

    cases = [
        (lambda f: sdcs.pram(f, ["region", "job"], pd=0.5, seed=3, key="pid", household="hh"),
         lambda d: d.sdc.pram(["region", "job"], pd=0.5, seed=3, key="pid", household="hh"), ["region"]),
        (lambda f: sdcs.rank_swap(f, ["hinc", "pay"], p=0.2, by="area", seed=3, key="pid", household="hh"),
         lambda d: d.sdc.rank_swap(["hinc", "pay"], p=0.2, by="area", seed=3, key="pid", household="hh"), ["hinc"]),
        (lambda f: sdcs.laplace(f, 50.0, ["hinc", "pay"], seed=3, key="pid", household="hh"),
         lambda d: d.sdc.laplace(50.0, ["hinc", "pay"], seed=3, key="pid", household="hh"), ["hinc"]),
        (lambda f: sdcs.add_noise(f, ["hinc", "pay"], method="correlated", seed=3, key="pid", household="hh"),
         lambda d: d.sdc.add_noise(["hinc", "pay"], method="correlated", seed=3, key="pid", household="hh"),
         ["hinc"]),
    ]
    for spark_call, local_call, hh_cols in cases:
        got = _spark(spark_call(sdf))
        local = local_call(data).sort("pid")
        assert_frame_equal(got, local, check_dtypes=True, rel_tol=1e-12, abs_tol=1e-9)
        assert _households_intact(got, hh_cols)
        assert (got[hh_cols[0]] != data.sort("pid")[hh_cols[0]]).any()


def test_spark_household_errors(sdf):
    from polars_sdc import spark as sdcs

    with pytest.raises(SDCError, match="household column 'hh': is also masked"):
        sdcs.rank_swap(sdf, ["hh", "pay"], seed=1, key="pid", household="hh")
    with pytest.raises(SDCError, match="`by` column 'job' varies within a household"):
        sdcs.rank_swap(sdf, ["hinc"], by="job", seed=1, key="pid", household="hh")


def test_spark_laplace_keeps_structural_nulls(spark):  # noqa: F811
    from polars_sdc import spark as sdcs

    df = pl.DataFrame({"pid": np.arange(40, dtype=np.int64) * 5 + 2,
                       "pay": [None if i % 4 == 0 else float(i * 10) for i in range(40)]})
    sdf = spark.createDataFrame(df.to_arrow()).repartition(2)
    for kw in ({"phi": 5.0}, {"k": 3}):
        phi = kw.get("phi")
        got = pl.from_arrow(sdcs.laplace(sdf, phi, ["pay"], key="pid", seed=4, k=kw.get("k")).toArrow()).sort("pid")
        local = df.sdc.laplace(phi, ["pay"], k=kw.get("k"), seed=4, key="pid").sort("pid")
        assert got["pay"].is_null().equals(df["pay"].is_null())
        assert_frame_equal(got, local, rel_tol=1e-12)


@pytest.mark.parametrize("method", ["additive", "correlated2", "correlated", "moments"])
def test_spark_noise_keeps_structural_nulls(spark, method):  # noqa: F811
    # every method as locally: column-wise ones on each column's non-null values, "correlated"
    # and "moments" per null pattern (within each stratum)
    from polars_sdc import spark as sdcs

    g = np.random.default_rng(2)
    n = 60
    df = pl.DataFrame({"pid": np.arange(n, dtype=np.int64) * 3 + 1, "s": np.where(np.arange(n) % 2 == 0, "a", "b"),
                       "pay": [None if i % 5 == 0 else float(v) for i, v in enumerate(g.normal(30, 5, n))],
                       "pen": [None if i % 7 == 1 else float(v) for i, v in enumerate(g.normal(9, 2, n))]})
    sdf = spark.createDataFrame(df.to_arrow()).repartition(2)
    for by in (None, "s"):
        got = pl.from_arrow(sdcs.add_noise(sdf, ["pay", "pen"], method=method, by=by, seed=6, key="pid")
                            .toArrow()).sort("pid")
        local = df.sdc.add_noise(["pay", "pen"], method=method, by=by, seed=6, key="pid").sort("pid")
        assert (got["pay"] != df.sort("pid")["pay"]).sum() > 20
        assert got["pay"].is_null().equals(df["pay"].is_null()) and got["pen"].is_null().equals(df["pen"].is_null())
        assert_frame_equal(got, local, rel_tol=1e-9)
    # a null pattern too small for the method: the local error, on the driver
    tiny = df.head(12)
    try:
        tiny.sdc.add_noise(["pay", "pen"], method=method, by="s", seed=6, key="pid")
    except SDCError as exc:
        with pytest.raises(SDCError) as got_exc:
            sdcs.add_noise(spark.createDataFrame(tiny.to_arrow()), ["pay", "pen"], method=method, by="s", seed=6,
                           key="pid")

        def shape(msg: str) -> str:   # the first small unit found may differ (Spark has no row order)
            return re.sub(r"\d+ row\(s\)", "n row(s)", re.sub(r"\[[^]]*\]", "[..]", re.sub(r"\{[^}]*\}", "{..}", msg)))

        assert shape(str(got_exc.value)) == shape(str(exc))
    else:
        got = pl.from_arrow(sdcs.add_noise(spark.createDataFrame(tiny.to_arrow()), ["pay", "pen"], method=method,
                                           by="s", seed=6, key="pid").toArrow()).sort("pid")
        assert_frame_equal(got, tiny.sdc.add_noise(["pay", "pen"], method=method, by="s", seed=6, key="pid")
                           .sort("pid"), rel_tol=1e-9)
