"""Rank swapping as sdcMicro 5.8.1 ``rankSwap`` (``preset="sdcmicro"``): its swap window (partners
strictly below ``floor(n P)`` ranks apart) and its defaults (5 % top and bottom coding, R0 = 0.95)."""
import math

import numpy as np
import polars as pl
import pytest

import polars_sdc  # noqa: F401
from polars_sdc import SDCError, rng
from naive import reference_rank_swap


def test_sdcmicro_window_is_strictly_below_floor_n_p():
    r = np.random.default_rng(4)
    for n, p in ((50, 0.1), (300, 0.05), (7, 1.0), (40, 0.05)):
        x = r.integers(0, 20, n)
        df = pl.DataFrame({"b": x})
        got = df.sdc.rank_swap("b", p=p, seed=3, preset="sdcmicro", top=0.0, bottom=0.0)["b"].to_numpy()
        w = math.floor(p * n + 1e-9) - 1              # partners j < k < j + floor(n P)
        want = reference_rank_swap(x, rng.row_positions(n), 3, "b", w) if w > 0 else x
        np.testing.assert_array_equal(got, want)
    # p * n = 2: sdcMicro's window holds the next rank only; ours the next two
    x = np.arange(1000.0)
    out = pl.DataFrame({"x": x}).sdc.rank_swap("x", p=0.002, seed=1, preset="sdcmicro", top=0.0, bottom=0.0)
    assert np.abs(out["x"].to_numpy() - x).max() == 1.0
    ours = pl.DataFrame({"x": x}).sdc.rank_swap("x", p=0.002, seed=1)
    assert np.abs(ours["x"].to_numpy() - x).max() == 2.0


def test_sdcmicro_defaults_by_name():
    r = np.random.default_rng(5)
    x = r.normal(50, 10, 2000)
    df = pl.DataFrame({"x": x})
    out = df.sdc.rank_swap("x", preset="sdcmicro", seed=2)["x"].to_numpy()
    s = np.sort(x)
    top, bottom = s[-100:], s[:100]                            # 5 % top and bottom coding
    assert np.isclose(out[np.isin(x, top)], top.mean()).all()
    assert np.isclose(out[np.isin(x, bottom)], bottom.mean()).all()
    # R0 = 0.95 on the uncoded values, with sdcMicro's range between the innermost coded values
    mid = s[100:1900]
    p = math.sqrt(2 * mid.var() * (1 - 0.95)) / abs(s[1900] - s[99])
    w = math.floor(p * 1800 + 1e-9) - 1
    ranks = {v: i for i, v in enumerate(mid)}
    moved = np.array([abs(ranks[a] - ranks[b]) for a, b in zip(x, out) if a in ranks])
    assert moved.max() <= w and moved.max() >= w - 2
    same = df.sdc.rank_swap("x", r0=0.95, top=0.05, bottom=0.05, seed=2, preset="sdcmicro")
    assert np.array_equal(same["x"].to_numpy(), out)
    with pytest.raises(SDCError, match="preset must be None or one of 'sdcmicro'"):
        df.sdc.rank_swap("x", preset="sdc")
    with pytest.raises(SDCError, match=r"p \* n = 1.6 < 2, so none would be swapped"):
        pl.DataFrame({"g": [1] * 8 + [2] * 8, "x": np.arange(16.0)}).sdc.rank_swap(
            "x", p=0.2, by="g", preset="sdcmicro", top=0.0, bottom=0.0, seed=1)
