"""Individual / global / household risk: sdcMicro reference numbers and direct formulas."""

import math

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import polars_sdc  # noqa: F401
from polars_sdc import datasets
from polars_sdc import SDCError
from polars_sdc.risk.individual import individual_risk
from naive import reference_individual_risk

KEYS = ["Key1", "Key2", "Key3", "Key4"]
FRANCDAT_RISK = [0.01714426, 0.02204233, 0.02204233, 0.17707583, 0.01165448, 0.29706308, 0.40235948, 0.01714426]
FRANCDAT_NA_RISK = [0.01714426, 0.02204233, 0.02204233, 0.1770758, 0.00358124, 0.00358124, 0.4023595, 0.01714426]


def _read(name):
    """sdcMicro's francdat / francdat_na, embedded in the package."""
    return datasets.francdat(missing=name == "francdat_na")


def test_francdat_reference():
    df = _read("francdat")
    out = df.sdc.individual_risk(KEYS, weight="w")
    np.testing.assert_allclose(out["risk"].to_numpy(), FRANCDAT_RISK, rtol=1e-6)
    g = df.sdc.global_risk(KEYS, weight="w")
    assert g["global_risk"] == pytest.approx(0.1208158, rel=1e-6)
    assert g["expected_reidentifications"] == pytest.approx(0.966526, rel=1e-6)
    assert df.lazy().sdc.global_risk(KEYS, weight="w") == g
    lazy = df.lazy().sdc.individual_risk(KEYS, weight="w")
    assert lazy.collect().equals(out) and lazy.collect(engine="streaming").equals(out)


def test_francdat_na_reference():
    df = _read("francdat_na")
    out = df.sdc.individual_risk(KEYS, weight="w", alpha=1.0)
    np.testing.assert_allclose(out["risk"].to_numpy(), FRANCDAT_NA_RISK, rtol=1e-6)


def test_formula_cases():
    fk = np.array([1.0, 2.0, 5.0, 3.0, 1.5])
    Fk = np.array([10.0, 8.0, 50.0, 3.0, 9.0])
    r = individual_risk(fk, Fk)
    p = fk / Fk
    for i in range(4):                   # fk = 1, 2, > 2 and fk == Fk (1/3): sdcMicro's R code
        assert r[i] == pytest.approx(reference_individual_risk(fk[i], Fk[i]), rel=1e-12)
    assert r[3] == pytest.approx(1 / 3)
    # fractional fk in (1, 2): sdcMicro gives 0 (alpha_rule="sdcmicro"); the safe default takes
    # the fk = 1 formula
    assert r[4] == pytest.approx(p[4] / (1 - p[4]) * np.log(1 / p[4]))
    assert individual_risk(fk, Fk, "sdcmicro")[4] == 0.0
    np.testing.assert_allclose(individual_risk(fk, Fk, "sdcmicro")[:4], r[:4], rtol=1e-14)


def test_no_weights_is_one_over_fk_and_household(rng):
    df = pl.DataFrame({"a": rng.integers(0, 4, 60), "b": rng.integers(0, 3, 60), "h": rng.integers(0, 20, 60)})
    out = df.sdc.individual_risk(["a", "b"], household="h")
    np.testing.assert_allclose(out["risk"].to_numpy(), 1 / out["fk"].to_numpy())
    risk, hh = out["risk"].to_numpy(), df["h"].to_numpy()
    for i in range(60):
        assert out["household_risk"][i] == pytest.approx(1 - np.prod(1 - risk[hh == hh[i]]))
    g = df.sdc.global_risk(["a", "b"], household="h")
    assert g["household_risk"] == pytest.approx(out["household_risk"].mean())
    assert g["expected_reidentifications"] == pytest.approx(risk.sum())


def test_bad_input():
    df = pl.DataFrame({"a": [1, 2], "h": [1, None], "w": [2.0, 3.0]})
    with pytest.raises(SDCError, match="'h'.*null"):
        df.sdc.individual_risk("a", household="h")
    with pytest.raises(SDCError, match="'a'"):
        df.sdc.global_risk("a", household="a")
    assert df.head(0).sdc.global_risk("a")["global_risk"] == 0.0


# -- stable evaluation near Fk = fk ----------------------------------------------------------------
@pytest.mark.parametrize("w2", [1.000000015, 1 + 3e-15, 1 + 1e-9, 1 + 1e-5])
def test_individual_risk_near_fk_equals_Fk(w2):
    out = pl.DataFrame({"a": [7, 7], "w": [1.0, w2]}).sdc.individual_risk(["a"], weight="w")
    r = out["risk"].to_list()
    assert r[0] == r[1]
    # pk -> 1: r = pk - pk^2 (1/2 + q/3 + ...) -> 1/2, and never outside [0, 1]
    q = (1.0 + w2 - 2.0) / (1.0 + w2)
    assert r[0] == pytest.approx((1 - q) - (1 - q) ** 2 * (0.5 + q / 3 + q * q / 4), rel=1e-12)
    assert 0.0 <= r[0] <= 1.0


def test_sdcmicro_testthat_weighted_risks():
    """sdcMicro's testthat (test_indivRisk.R, weighted, method approx) to its 8 digits."""
    df = pl.DataFrame({"A": [2, 3, 2, 2, 3, 3, 1, 2], "B": [3, 3, 3, 3, 3, 3, 4, 3], "C": [1, 3, 1, 2, 1, 1, 1, 1],
                       "w": [18.0, 45.5, 39.0, 17.0, 92.0, 8.0, 123.5, 51.0]})
    r = df.sdc.individual_risk(["A", "B", "C"], weight="w")["risk"].to_numpy()
    np.testing.assert_allclose(r, [0.01369863, 0.08579129, 0.01369863, 0.17707583, 0.01877883, 0.01877883,
                                   0.03931625, 0.01369863], atol=5e-9)


# -- alpha < 1 never lowers a risk below its alpha = 1 value ---------------------------------------
def test_alpha_below_one_never_lowers_the_risk():
    df = pl.DataFrame({"a": [1, None, 2, 2, 2], "b": [1, 1, 5, 5, 5], "w": [2.0] * 5})
    one = df.sdc.individual_risk(["a", "b"], weight="w")["risk"].to_numpy()
    half = df.sdc.individual_risk(["a", "b"], weight="w", alpha=0.5)
    assert half["fk"][0] == 1.5
    assert one[0] == pytest.approx(1 - np.log(2))                 # fk = 2, Fk = 4 at alpha = 1
    assert half["risk"][0] == pytest.approx(np.log(2))             # fk = 1.5 takes the fk = 1 formula
    assert (half["risk"].to_numpy() >= one - 1e-15).all()
    # sdcMicro's number on request: the record falls in none of its cases -> 0
    sdc = df.sdc.individual_risk(["a", "b"], weight="w", alpha=0.5, alpha_rule="sdcmicro")["risk"]
    assert sdc[0] == 0.0
    assert df.sdc.global_risk(["a", "b"], weight="w", alpha=0.5)["global_risk"] == pytest.approx(half["risk"].mean())
    assert df.sdc.risk(["a", "b"], weight="w", alpha=0.5, suda=False)["global_risk"] == pytest.approx(half["risk"].mean())
    assert df.sdc.risk(["a", "b"], weight="w", alpha=0.5, alpha_rule="sdcmicro", suda=False)["global_risk"] == \
        pytest.approx(sdc.mean())
    with pytest.raises(SDCError, match="alpha_rule must be one of 'safe', 'sdcmicro'"):
        df.sdc.individual_risk(["a", "b"], alpha_rule="nope")


# -- sampling weights below 1 -----------------------------------------------------------------------
def test_weights_below_one_accepted_and_follow_sdcmicro_where_Fk_ge_fk():
    w = [1.8, 4.55, 3.9, 1.7, 9.2, 0.8, 12.35, 5.1]                 # sdcMicro's test weights / 10
    df = pl.DataFrame({"A": [2, 3, 2, 2, 3, 3, 1, 2], "B": [3, 3, 3, 3, 3, 3, 4, 3], "C": [1, 3, 1, 2, 1, 1, 1, 1],
                       "w": w})
    out = df.sdc.individual_risk(["A", "B", "C"], weight="w")
    for fk, Fk, r in out.select("fk", "Fk", "risk").rows():
        assert Fk >= fk
        assert r == pytest.approx(reference_individual_risk(fk, Fk), rel=1e-12)
    # Fk < fk (weights 0.3 and 0.4 on a pair): the population holds at least the two sample
    # records, so r = 1/fk, where sdcMicro's formula leaves [0, 1] for a unique
    low = pl.DataFrame({"a": [1, 1, 2], "w": [0.3, 0.4, 0.5]}).sdc.individual_risk("a", weight="w")
    assert low["Fk"].to_list() == pytest.approx([0.7, 0.7, 0.5])     # Fk: the weight sum, as sdcMicro
    assert low["risk"].to_list() == [0.5, 0.5, 1.0]
    assert reference_individual_risk(1.0, 0.5) > 1.0
    with pytest.raises(SDCError, match=r"'w': 1 sampling weight\(s\) <= 0; weights must be > 0"):
        pl.DataFrame({"a": [1, 2], "w": [1.0, 0.0]}).sdc.individual_risk("a", weight="w")


# -- property: missing keys, alpha, weights near and below 1 ---------------------------------------
@st.composite
def weighted_keys(draw):
    """Keys with missing values, weights near 1 (1 + tiny), below 1, calibrated, large."""
    n = draw(st.integers(1, 12))
    r = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    a = r.integers(0, 3, n).astype(float)
    b = r.integers(0, 2, n).astype(float)
    miss = draw(st.sampled_from(["none", "some", "all"]))
    if miss != "none":
        m = r.random(n) < (0.3 if miss == "some" else 1.0)
        a[m] = np.nan
    style = draw(st.sampled_from(["near1", "below1", "calibrated", "big"]))
    if style == "near1":
        w = 1.0 + r.integers(0, 3, n) * draw(st.sampled_from([1e-15, 1.5e-8, 1e-4]))
    elif style == "below1":
        w = r.uniform(0.05, 1.0, n)
    elif style == "calibrated":
        w = r.uniform(0.3, 3.0, n)
    else:
        w = r.uniform(1.0, 1e6, n)
    return pl.DataFrame({"a": a, "b": b, "w": w}).with_columns(pl.col("a").fill_nan(None))


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(df=weighted_keys(), alpha=st.sampled_from([0.0, 0.25, 0.5, 0.99, 1.0]))
def test_individual_risk_is_a_probability_and_alpha_never_lowers_it(df, alpha):
    """Risk in [0, 1] for any weights > 0 (also near Fk = fk and below 1); the risk at
    alpha < 1 is never below the risk at alpha = 1; where sdcMicro's formula is defined
    (integer fk, Fk > fk) the default equals it."""
    out = df.sdc.individual_risk(["a", "b"], weight="w", alpha=alpha)
    r = out["risk"].to_numpy()
    assert ((r >= 0) & (r <= 1)).all()
    one = df.sdc.individual_risk(["a", "b"], weight="w")["risk"].to_numpy()
    assert (r >= one - 1e-12).all()
    if alpha == 1.0:
        sdc = df.sdc.individual_risk(["a", "b"], weight="w", alpha_rule="sdcmicro")["risk"].to_numpy()
        for (fk, Fk), x, y in zip(out.select("fk", "Fk").rows(), r, sdc):
            if Fk > fk and fk == int(fk) and (Fk - fk) / Fk > 1e-6:
                assert x == pytest.approx(y, rel=1e-9, abs=1e-12)
    g = df.sdc.global_risk(["a", "b"], weight="w", alpha=alpha)
    assert g["global_risk"] == pytest.approx(r.mean())


def test_household_risk_keeps_full_precision_at_small_risks():
    # 1 - prod(1 - r) cancels at r ~ 1e-5 (about 1e-12 relative error); -expm1(sum(log1p(-r)))
    # does not: within a few ulps of the exact value (Fractions), households of 1..9 records
    from naive import reference_household_risk

    from polars_sdc.risk.individual import household_risk

    g = np.random.default_rng(3)
    sizes = g.integers(1, 10, 300)
    hh = np.repeat(np.arange(300) * 11 + 4, sizes)
    perm = g.permutation(hh.size)
    hh = hh[perm]
    for scale in (1e-5, 1e-9, 0.3):
        r = g.uniform(0.2, 2.0, hh.size) * scale
        got = household_risk(r, pl.Series(hh))
        want = np.array(reference_household_risk(r, hh))
        assert np.max(np.abs(got - want) / want) < 8e-16, scale
    # risk 1 in a household, 0, and sdcMicro's numbers above 1 (alpha_rule="sdcmicro"): the product as written
    r = np.array([1.0, 0.3, 0.0, 0.0, 1.25, 0.5, 2e-6])
    h = pl.Series([1, 1, 2, 2, 3, 3, 4])
    assert household_risk(r, h).tolist() == [1.0, 1.0, 0.0, 0.0, 1.125, 1.125, 2e-6]
    # end to end: large weights give risks ~ 1e-6 .. 1e-5
    n = hh.size
    df = pl.DataFrame({"h": hh, "a": g.integers(0, 40, n), "b": g.integers(0, 25, n),
                       "w": g.uniform(1e6, 1e7, n)})
    out = df.sdc.individual_risk(["a", "b"], "w", household="h")
    risk = out["risk"].to_numpy()
    assert risk.max() < 1e-4
    want = np.array(reference_household_risk(risk, hh))
    assert np.max(np.abs(out["household_risk"].to_numpy() - want) / want) < 8e-16
    g_risk = df.sdc.global_risk(["a", "b"], "w", household="h")
    assert g_risk["household_expected_reidentifications"] == pytest.approx(math.fsum(want), rel=1e-14)
