"""ARX's prosecutor / journalist / marketer risk against direct definitions; population
uniqueness models on a simulated population with known uniques; Dankar's rule; the
``population_size`` they read (any size, closed forms; a bad one is a clear error)."""
import math

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import polars_sdc  # noqa: F401
from polars_sdc import SDCError
from polars_sdc.risk.arx import arx_risk, pitman_uniques, population_uniqueness, snb_uniques, zayatz_uniques
from conftest import assert_one_line_sdc_error


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


# -- population_size: any size, and a clear error for a bad one -----------------------------------
def test_zayatz_closed_form_at_any_population_size():
    import time

    from scipy.stats import hypergeom

    from polars_sdc.risk.arx import _log_hypergeom_one

    sizes = np.array([1.0, 2.0, 3.0, 7.0, 40.0])
    for N, n in ((90.0, 9.0), (5000.0, 400.0), (1e6, 2e4)):
        np.testing.assert_allclose(np.exp(_log_hypergeom_one(N, sizes, n)),
                                   hypergeom.pmf(1, int(N), sizes.astype(int), int(n)), rtol=1e-9)
    assert round(zayatz_uniques(np.array([1, 1, 2, 5]), 90.0), 4) == 5.5346          # unchanged
    f = np.random.default_rng(0).integers(0, 3000, 20000)
    df = pl.DataFrame({"a": f})
    t0 = time.process_time()
    r = df.sdc.risk(["a"], population_size=1e13, suda=False)
    assert time.process_time() - t0 < 10.0                         # minutes before
    # pi = n/N -> 0: h_j -> j pi, so P -> c1 / n and Zayatz's estimate -> c1^2 N / n^2
    c1 = int((np.bincount(f) == 1).sum())
    assert r["population_zayatz"] == pytest.approx(c1**2 * 1e13 / 20000**2, rel=1e-6)


@pytest.mark.parametrize("N, message", [
    (float("inf"), "population_size must be finite"),
    (float("nan"), "population_size must be finite"),
    ("1000", "population_size must be a number"),
    (True, "population_size must be a number"),
    (3, "population_size 3 is below the sample size 4"),
])
def test_bad_population_size_is_a_clear_error(N, message):
    with pytest.raises(SDCError, match=message):
        pl.DataFrame({"a": [1, 1, 2, 3]}).sdc.risk(["a"], population_size=N, suda=False)


def test_population_equal_to_the_sample_is_accepted():
    r = pl.DataFrame({"a": [1, 1, 2, 3]}).sdc.risk(["a"], population_size=4, suda=False)
    assert r["prosecutor_highest"] == 1.0


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(n=st.integers(1, 6), N=st.one_of(st.floats(0, 1e15), st.sampled_from([float("inf"), float("nan"), -1.0])),
       seed=st.integers(0, 1000))
def test_risk_population_size_any_value(n, N, seed):
    """A population size below n, infinite or NaN is a clear error; any other gives finite
    population estimates in [0, N], fast."""
    r = np.random.default_rng(seed)
    df = pl.DataFrame({"a": r.integers(0, 3, n)})
    try:
        res = df.sdc.risk(["a"], population_size=N, suda=False)
    except Exception as exc:  # noqa: BLE001
        assert_one_line_sdc_error(exc)
        assert not (math.isfinite(N) and N >= n)
        return
    assert math.isfinite(N) and N >= n
    z = res.as_dict().get("population_zayatz")
    if z is not None:
        assert 0.0 <= z <= N * (1 + 1e-9)
