"""audit28d: MDAV's ski rental (kernels/rental.py) and what warmup() leaves for it."""
import json

import numpy as np
import polars as pl
import pytest

import polars_sdc
from polars_sdc.kernels import mdav as M
from polars_sdc.kernels.rental import Rental


def _never_ready(monkeypatch):
    """The kd-tree kernel reads as neither compiled nor cached: every call beyond the
    brute-force rule rents (whichever readiness test kernels/mdav.py imports)."""
    for name in ("ready_like",):
        if hasattr(M, name):
            monkeypatch.setattr(M, name, lambda *a, **kw: False)


@pytest.mark.parametrize("text", ["[]", "1", "null", '"x"', '{"stamp": null, "spent": [1]}'])
def test_a_rental_file_of_other_json_is_rewritten_not_a_crash(tmp_path, text):
    # valid JSON that is not the rental's object (a corrupt or foreign file beside Numba's
    # cache): pay() raised AttributeError ('list' object has no attribute 'get'), i.e. an
    # mdav call failed because of a stray file in the cache directory
    path = tmp_path / "k.rental.json"
    path.write_text(text)
    r = Rental(None, "numeric", 1.0, path=str(path))
    assert r.spent() == 0.0
    r.pay(0.25)
    assert r.spent() == pytest.approx(0.25)
    assert json.loads(path.read_text())["spent"] == {"numeric": 0.25}
    # no temporary file left (the lock file of the read-add-write stays, empty)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["k.rental.json", "k.rental.json.lock"]


def test_mdav_with_a_foreign_rental_file_runs(tmp_path, monkeypatch):
    # the whole path: a call that rents (kd-tree kernel not ready) with a stray file
    X = np.random.default_rng(4).normal(size=(1300, 2))
    r = Rental(None, "numeric", 1e9, path=str(tmp_path / "t.rental.json"))
    (tmp_path / "t.rental.json").write_text("[]")
    monkeypatch.setitem(M._TREE_RENTALS, False, r)
    _never_ready(monkeypatch)
    got = M.mdav_labels(X, 3)
    assert r.spent() > 0.0
    np.testing.assert_array_equal(got, M.mdav_labels(X, 3, leaf=64))



@pytest.mark.parametrize("nominal", [False, True])
def test_warmup_compiles_the_wide_kd_tree_kernel(nominal):
    # from _WIDE (11) columns the kd-tree kernel takes its fused pass, a specialisation of
    # its own (wide=True); warmup() compiled only the narrow ones, so after it a call on
    # 11 numeric columns of 1,500 rows still rented, then compiled the kd-tree kernel
    name = "mdav-large-wide" if nominal else "mdav-large-wide-numeric"
    from polars_sdc._warmup import WARMUPS

    assert name in WARMUPS
    polars_sdc.warmup([name], progress=False)
    # and a user's call of that shape is ready: it never rents
    r = Rental(None, "x", 1e9, path=None)   # in memory: an endless budget, nothing spent yet
    saved = dict(M._TREE_RENTALS)
    M._TREE_RENTALS[nominal] = r
    try:
        rng = np.random.default_rng(0)
        df = pl.DataFrame({f"v{j}": rng.normal(size=1500) for j in range(10 if nominal else 11)})
        if nominal:
            df = df.with_columns(s=pl.Series(rng.choice(["a", "b", "c"], 1500)))
        df.sdc.mdav(3, on=df.columns)
    finally:
        M._TREE_RENTALS.clear()
        M._TREE_RENTALS.update(saved)
    assert r.spent() == 0.0


@pytest.mark.parametrize("case", ["numeric", "nominal-weights", "strata", "ties-extremes"])
def test_a_rented_call_releases_what_a_bought_call_does(case, monkeypatch):
    # the public method end to end, once forced to rent (the kd-tree kernel 'not ready', an
    # endless budget) and once forced to buy: the same frame, bit for bit
    from polars_sdc.kernels import rental

    rng = np.random.default_rng(7)
    n = 2400
    df = pl.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n) * 1e3,
                       "s": rng.choice(["x", "y", "z"], n), "g": rng.choice(["p", "q"], n)})
    kw = {"k": 3, "on": ["a", "b"]}
    if case == "nominal-weights":
        kw = {"k": 4, "on": ["a", "b", "s"], "weights": {"a": 2.0, "s": 0.5}}
    elif case == "strata":
        kw = {"k": 3, "on": ["a", "b"], "by": "g"}
    elif case == "ties-extremes":
        df = df.with_columns(a=(pl.col("a") * 2).round(0) * 1e300, b=(pl.col("b") / 500).round(0) * 1e-300)
    nominal = "s" in kw["on"]
    assert not M.small_enough(n // 2, 2, 0, 3)   # every stratum is beyond the brute-force rule
    r = Rental(None, "x", 1e9, path=None)
    monkeypatch.setitem(M._TREE_RENTALS, nominal, r)
    _never_ready(monkeypatch)
    rented = df.sdc.mdav(**kw)
    assert r.spent() > 0.0                       # it did rent
    with rental.disabled():
        bought = df.sdc.mdav(**kw)
    assert rented.equals(bought)
