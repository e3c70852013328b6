"""Spark frequencies / individual risk / risk with missing key values (the combination table on the
driver, records joined per Arrow batch) equal local record for record on frames with every kind of
wildcard: null in integer, String, Date and Boolean keys, NaN and -0.0 in a float key, records with
every key missing, weights, ``household=`` (with a household whose keys are all missing), both
alpha rules; the other columns (a decimal, an array) pass through untouched. Needs pyspark and Java
(else skipped, as tests/test_spark.py)."""
from __future__ import annotations

import datetime as dt
from decimal import Decimal

import numpy as np
import polars as pl
import pytest
from test_spark import spark  # noqa: F401  (the session fixture)

import polars_sdc  # noqa: F401

KEYS = ["a", "b", "c", "d", "e"]


@pytest.fixture(scope="module")
def frame() -> pl.DataFrame:
    g = np.random.default_rng(17)
    n = 120
    hh = np.repeat(np.arange(40), 3)

    def holes(values, p=0.12):
        return [None if g.random() < p else v for v in values]

    c = g.choice([0.0, -0.0, 1.5, 2.5], n).tolist()
    c = [float("nan") if i % 23 == 5 else v for i, v in enumerate(c)]
    df = pl.DataFrame({
        "rid": np.arange(n, dtype=np.int64),
        "hh": hh.astype(np.int64),
        "a": pl.Series(holes(g.integers(0, 3, n).tolist()), dtype=pl.Int32),
        "b": pl.Series(holes(g.choice(["x", "y"], n).tolist()), dtype=pl.String),
        "c": pl.Series(holes(c, 0.05), dtype=pl.Float64),
        "d": pl.Series(holes([dt.date(2020, 1, 1 + int(v)) for v in g.integers(0, 2, n)]), dtype=pl.Date),
        "e": pl.Series(holes(g.random(n) < 0.5), dtype=pl.Boolean),
        "w": np.repeat(g.uniform(1.0, 90.0, 40), 3),        # constant within a household
        "amount": pl.Series([Decimal(f"{i}.25") for i in range(n)], dtype=pl.Decimal(10, 2)),
        "tags": [[i, i + 1] for i in range(n)],
    })
    every = pl.col("rid").is_in([7, 8, 50])                  # every key missing (7 and 8: household 2)
    return df.with_columns(pl.when(every).then(None).otherwise(pl.col(k)).alias(k) for k in KEYS)


def _got(out) -> pl.DataFrame:
    return pl.from_arrow(out.toArrow()).sort("rid")


@pytest.mark.parametrize("alpha, rule", [(1.0, "safe"), (0.5, "safe"), (0.5, "sdcmicro")])
def test_records_equal_local(spark, frame, alpha, rule):  # noqa: F811
    from polars_sdc import spark as sdcs

    sdf = spark.createDataFrame(frame.to_arrow()).repartition(3)
    got = _got(sdcs.individual_risk(sdf, KEYS, "w", alpha=alpha, alpha_rule=rule))
    want = frame.sdc.individual_risk(KEYS, "w", alpha=alpha, alpha_rule=rule)
    assert got.columns == [*frame.columns, "fk", "Fk_pop", "risk"]
    assert got.select(frame.columns).equals(frame, null_equal=True)        # untouched, in their types
    assert got["fk"].to_list() == want["fk"].to_list()
    np.testing.assert_allclose(got["Fk_pop"].to_numpy(), want["Fk"].to_numpy(), rtol=1e-13, atol=0)
    np.testing.assert_allclose(got["risk"].to_numpy(), want["risk"].to_numpy(), rtol=1e-12, atol=0)
    assert got.filter(pl.col("rid") == 50)["fk"].item() == frame.height     # every key missing: everybody
    summary = sdcs.risk(sdf, KEYS, "w", alpha=alpha, alpha_rule=rule, ks=(2, 3))
    local = frame.sdc.risk(KEYS, "w", alpha=alpha, alpha_rule=rule, ks=(2, 3), suda=False).as_dict()
    for name, v in summary.items():
        assert v == pytest.approx(local[name], rel=1e-12), name
    if alpha == 1.0:
        plain = _got(sdcs.frequencies(sdf, KEYS))                           # unweighted
        assert plain["fk"].to_list() == frame.sdc.frequencies(KEYS)["fk"].to_list()


def test_households_equal_local(spark, frame):  # noqa: F811
    from polars_sdc import spark as sdcs

    sdf = spark.createDataFrame(frame.to_arrow()).repartition(3)
    got = _got(sdcs.frequencies(sdf, KEYS, "w", household="hh"))
    want = frame.sdc.frequencies(KEYS, "w", household="hh")
    assert got["fk"].equals(want["fk"]) and got["Fk_pop"].equals(want["Fk"].rename("Fk_pop"))   # bitwise
    assert got.filter(pl.col("rid") == 50)["fk"].item() == 40.0
    risk = _got(sdcs.individual_risk(sdf, KEYS, "w", household="hh"))
    local = frame.sdc.individual_risk(KEYS, "w", household="hh")
    for a, b in (("risk", "risk"), ("household_risk", "household_risk")):
        np.testing.assert_allclose(risk[a].to_numpy(), local[b].to_numpy(), rtol=1e-12, atol=0)
    g = sdcs.global_risk(sdf, KEYS, "w", household="hh")
    assert g == pytest.approx(frame.sdc.global_risk(KEYS, "w", household="hh"), rel=1e-12)


def test_household_ids_refused_as_locally(spark, frame):  # noqa: F811
    # a null or NaN household id: the local message (a NaN id was accepted by the risk paths, local and Spark)
    from polars_sdc import SDCError
    from polars_sdc import spark as sdcs

    for bad in (None, float("nan")):
        broken = frame.with_columns(pl.when(pl.col("rid") == 4).then(bad).otherwise(pl.col("hh").cast(pl.Float64))
                                    .alias("hh"))
        sdf = spark.createDataFrame(broken.to_arrow())
        with pytest.raises(SDCError) as want:
            broken.sdc.individual_risk(KEYS, "w", household="hh")
        for call in (lambda: sdcs.individual_risk(sdf, KEYS, "w", household="hh"),
                     lambda: sdcs.risk(sdf, KEYS, "w", household="hh"),
                     lambda: sdcs.frequencies(sdf, KEYS, "w", household="hh")):
            with pytest.raises(SDCError) as have:
                call()
            assert str(have.value) == str(want.value)
        assert str(want.value).startswith("household column 'hh': ")
