"""df.sdc.risk: per-record frame and summary agree with the single measures; lazy == eager."""

import numpy as np
import polars as pl
import pytest

import polars_sdc  # noqa: F401
from polars_sdc import datasets
from polars_sdc import SDCError

KEYS = ["Key1", "Key2", "Key3", "Key4"]


def test_francdat_summary_and_per_record():
    df = datasets.francdat()
    r = df.sdc.risk(KEYS, weight="w")
    assert r["global_risk"] == pytest.approx(0.1208158, rel=1e-6)
    assert r["expected_reidentifications"] == pytest.approx(0.966526, rel=1e-6)
    assert r.per_record["suda"].to_list() == [0, 0, 0, 8, 6, 4, 8, 0]
    assert r["records_violating_k2"] == 4 and r["records_violating_k3"] == 8 and r["k_anonymity"] == 1
    assert r["sample_uniques"] == 4
    assert r.per_record.height == df.height
    lazy = df.lazy().sdc.risk(KEYS, weight="w")
    assert lazy.per_record.equals(r.per_record)
    a, b = lazy.as_dict(), r.as_dict()
    assert a.keys() == b.keys()
    for k in a:
        if isinstance(b[k], str):  # a model's name (dankar_model)
            assert a[k] == b[k], k
            continue
        same_nan = isinstance(a[k], float) and a[k] != a[k] and b[k] != b[k]
        assert same_nan or a[k] == pytest.approx(b[k], rel=1e-12), k  # group order may change sums by 1 ulp
    s = r.summary
    assert s.columns == ["measure", "value"] and "prosecutor_highest" in s["measure"].to_list()
    assert "population_dankar" in r.as_dict()
    assert "global_risk" in repr(r)


def test_agrees_with_single_measures(rng):
    n = 400
    df = pl.DataFrame({"a": rng.integers(0, 5, n), "b": rng.integers(0, 6, n), "c": rng.integers(0, 3, n),
                       "h": rng.integers(0, 150, n)})
    r = df.sdc.risk(["a", "b", "c"], household="h", ks=(2, 4))
    ind = df.sdc.individual_risk(["a", "b", "c"], household="h")
    np.testing.assert_allclose(r.per_record["risk"].to_numpy(), ind["risk"].to_numpy())
    np.testing.assert_allclose(r.per_record["household_risk"].to_numpy(), ind["household_risk"].to_numpy())
    np.testing.assert_allclose(r.per_record["dis_suda"].to_numpy(), df.sdc.suda(["a", "b", "c"])["dis_suda"].to_numpy())
    assert r["records_violating_k4"] == int((ind["fk"] < 4).sum())
    assert r["k_anonymity"] == df.sdc.k_anonymity(["a", "b", "c"])


def test_bad_input():
    df = pl.DataFrame({"a": [1, 2], "w": [1.0, 0.0]})
    with pytest.raises(SDCError, match="'w'"):
        df.sdc.risk("a", weight="w")
    with pytest.raises(SDCError, match="empty"):
        df.head(0).sdc.risk("a")
    with pytest.raises(SDCError, match="'zz'"):
        df.lazy().sdc.risk("zz")
    with pytest.raises(SDCError, match="ks"):
        df.sdc.risk("a", ks=(0,))
