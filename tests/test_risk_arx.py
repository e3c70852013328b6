"""ARX's prosecutor / journalist / marketer risk against direct definitions; population
uniqueness models on a simulated population with known uniques; Dankar's rule."""
import math

import numpy as np
import polars as pl
import pytest

import polars_sdc  # noqa: F401
from polars_sdc import SDCError
from polars_sdc.risk.arx import arx_risk, pitman_uniques, population_uniqueness, snb_uniques, zayatz_uniques


def test_sample_models_direct(rng):
    n = 500
    df = pl.DataFrame({"a": rng.integers(0, 6, n), "b": rng.integers(0, 8, n), "w": rng.uniform(1, 30, n)})
    r = arx_risk(df, ["a", "b"], "w", threshold=0.2)
    fk = df.select(pl.len().over("a", "b")).to_series().to_numpy()
    Fk = df.select(pl.col("w").sum().over("a", "b")).to_series().to_numpy()
    classes = df.group_by("a", "b").agg(f=pl.len(), F=pl.col("w").sum())
    assert r["prosecutor_highest"] == pytest.approx(1 / fk.min())
    assert r["prosecutor_average"] == pytest.approx(np.mean(1 / fk))  # = u / n
    assert r["prosecutor_records_at_risk"] == pytest.approx(np.mean(1 / fk > 0.2))
    assert r["journalist_highest"] == pytest.approx(1 / Fk.min())
    assert r["journalist_records_at_risk"] == pytest.approx(np.mean(1 / Fk > 0.2))
    marketer = np.mean(1 / Fk)  # (1/n) sum_k f_k / F_k
    assert r["marketer_risk"] == pytest.approx(marketer)
    assert r["journalist_average"] == pytest.approx(max(classes.height / classes["F"].sum(), marketer))
    # without weights the population is the sample: journalist = prosecutor, marketer = u / n
    r0 = arx_risk(df, ["a", "b"])
    assert r0["journalist_highest"] == r0["prosecutor_highest"]
    assert r0["marketer_risk"] == pytest.approx(classes.height / n)
    assert "population_dankar" not in r0


def test_zayatz_full_sample_is_sample_uniques():
    f = np.repeat([1, 2, 3], [7, 4, 2])
    assert zayatz_uniques(f, float(f.sum())) == pytest.approx(7.0)


def test_population_models_on_a_simulated_population():
    rng = np.random.default_rng(7)
    N = 100_000
    pop = pl.DataFrame({"a": rng.zipf(1.6, N) % 400, "b": rng.integers(0, 20, N), "c": rng.integers(0, 3, N)})
    true = int((pop.group_by("a", "b", "c").len()["len"] == 1).sum())
    for frac in (0.05, 0.3):
        s = pop.sample(fraction=frac, seed=3)
        f = s.group_by("a", "b", "c").len()["len"].to_numpy()
        r = population_uniqueness(f, float(N))
        assert r["dankar_model"] == ("pitman" if frac <= 0.1 else r["dankar_model"])
        for name in ("zayatz", "pitman", "snb"):
            v = r[name]
            if not math.isnan(v):
                assert true / 2 < v < true * 2, (frac, name, v, true)
        assert true / 2 < r["dankar"] < 2 * true
        assert r["population_uniqueness"] == pytest.approx(r["dankar"] / N)


def test_dankar_rule_and_no_uniques():
    f = np.repeat([1, 2, 3, 8], [100, 30, 10, 5])
    small = population_uniqueness(f, 4600.0)  # pi < 0.1: Pitman
    assert small["dankar_model"] == "pitman" and small["dankar"] == pitman_uniques(f, 4600.0)
    big = population_uniqueness(f, 690.0)  # pi > 0.1: min(Zayatz, SNB)
    assert big["dankar"] == min(big["zayatz"], snb_uniques(f, 690.0))
    none = population_uniqueness(np.array([2, 3, 4]), 100.0)
    assert none["dankar"] == 0.0
    with pytest.raises(SDCError, match="population size"):
        population_uniqueness(f, 10.0)


def test_frame_inputs():
    df = pl.DataFrame({"a": [1, 1, 2, None], "w": [10.0, 10.0, 40.0, 50.0]})
    r = arx_risk(df, "a", "w")
    assert r["prosecutor_highest"] == 1.0 and r["journalist_highest"] == pytest.approx(1 / 20)
    assert "population_dankar" in r
    with pytest.raises(SDCError, match="threshold"):
        arx_risk(df, "a", threshold=0)
    with pytest.raises(SDCError, match="'w'"):
        arx_risk(df.with_columns(w=pl.lit(0.0)), "a", "w")
