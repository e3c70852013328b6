"""Individual / global / household risk: sdcMicro reference numbers and direct formulas."""

import numpy as np
import polars as pl
import pytest

import polars_sdc  # noqa: F401
from polars_sdc import datasets
from polars_sdc import SDCError
from polars_sdc.risk.individual import individual_risk

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
    assert r[0] == pytest.approx(p[0] / (1 - p[0]) * np.log(1 / p[0]))
    assert r[1] == pytest.approx(p[1] / (1 - p[1]) - (p[1] / (1 - p[1])) ** 2 * np.log(1 / p[1]))
    assert r[2] == pytest.approx(p[2] / (5 - (1 - p[2])))
    assert r[3] == pytest.approx(1 / 3)  # fk == Fk
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
