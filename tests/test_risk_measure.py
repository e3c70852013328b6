"""df.sdc.risk: per-record frame and summary agree with the single measures; lazy == eager; every
risk measure on tiny and all-missing frames."""

import numpy as np
import polars as pl
import pytest

import polars_sdc  # noqa: F401
from polars_sdc import datasets
from polars_sdc import SDCError
from conftest import assert_one_line_sdc_error

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
    assert s.columns == ["measure", "value", "text"] and "prosecutor_highest" in s["measure"].to_list()
    assert s.schema == pl.Schema({"measure": pl.String, "value": pl.Float64, "text": pl.String})
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


def test_summary_keeps_the_model_name():
    """The population model chosen by Dankar's rule is a name: it is kept as text (not NaN in
    the float column); numbers are in ``value`` with a null ``text``, a failed estimate stays NaN."""
    r = datasets.francdat().sdc.risk(KEYS, weight="w")
    s = r.summary
    row = s.filter(pl.col("measure") == "dankar_model")
    assert row.height == 1
    assert row["text"].to_list() == [r["dankar_model"]] == ["zayatz"]  # pi = 8 / 766 <= 0.1, Pitman fails
    assert row["value"].to_list() == [None]
    nums = s.filter(pl.col("measure") != "dankar_model")
    assert nums["text"].null_count() == nums.height and nums["value"].null_count() == 0
    assert s.filter(pl.col("measure") == "global_risk")["value"].item() == pytest.approx(0.1208158, rel=1e-6)
    assert np.isnan(s.filter(pl.col("measure") == "population_pitman")["value"].item())
    assert s.height == len(r.as_dict()) and s["measure"].to_list() == list(r.as_dict())
    # every number of the summary round-trips through the frame
    for name, value, text in s.iter_rows():
        v = r[name]
        if text is not None:
            assert v == text
        else:
            assert value == pytest.approx(float(v), nan_ok=True), name
    # Pitman chosen (pi <= 0.1 and the solver succeeds) and SNB (pi > 0.1): the name follows
    df = pl.DataFrame({"a": np.repeat(np.arange(145), np.repeat([1, 2, 3, 8], [100, 30, 10, 5]))})
    for N, model in ((4600.0, "pitman"), (690.0, "snb")):
        t = df.sdc.risk("a", suda=False, population_size=N).summary
        assert t.filter(pl.col("measure") == "dankar_model")["text"].to_list() == [model]
    # no weights and no population size: no model row, and text is all null
    plain = datasets.francdat().sdc.risk(KEYS).summary
    assert "dankar_model" not in plain["measure"].to_list() and plain["text"].null_count() == plain.height


@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("missing", ["none", "all"])
def test_every_risk_method_on_tiny_and_all_missing_frames(n, missing):
    """Tiny n and keys all missing, on every risk measure: a result of the right length with
    risks in [0, 1], or a one-line SDCError."""
    a = [None] * n if missing == "all" else list(range(n))
    df = pl.DataFrame({"a": pl.Series(a, dtype=pl.Int64), "b": ["x"] * n, "s": ["p", "q", "p"][:n],
                       "w": [0.5, 2.0, 1.0][:n]})
    calls = {
        "frequencies": lambda: df.sdc.frequencies(["a", "b"], weight="w"),
        "individual_risk": lambda: df.sdc.individual_risk(["a", "b"], weight="w", alpha=0.5),
        "global_risk": lambda: df.sdc.global_risk(["a", "b"], weight="w"),
        "k_anonymity": lambda: df.sdc.k_anonymity(["a", "b"]),
        "l_diversity": lambda: df.sdc.l_diversity(["a", "b"], "s"),
        "t_closeness": lambda: df.sdc.t_closeness(["a", "b"], "s"),
        "suda": lambda: df.sdc.suda(["a", "b"]),
        "risk": lambda: df.sdc.risk(["a", "b"], weight="w", population_size=10 * n),
    }
    for name, call in calls.items():
        try:
            out = call()
        except Exception as exc:  # noqa: BLE001
            assert_one_line_sdc_error(exc)
            continue
        if isinstance(out, pl.DataFrame):
            assert out.height == n, name
        if name == "individual_risk":
            r = out["risk"].to_numpy()
            assert ((r >= 0) & (r <= 1)).all()
