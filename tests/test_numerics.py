"""Extreme magnitudes in the loss measures and masking methods (session 26 numerics audit).

Every case asserts real values against a plain reference: exact integers / Fractions where the
quantity is rational, else the same measure at scale 1 (ILD, ILSSDM and NCP are scale-free:
ILD(2^E x) == ILD(x) exactly in real arithmetic, and the data here are scaled by powers of two,
so the reference and the scaled data describe the same real numbers up to one rounding).
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import polars_sdc  # noqa: F401  (registers df.sdc)
from polars_sdc import SDCError
from polars_sdc.loss.classic import ncp
from polars_sdc.loss.ild import ild, information_amount
from tests.naive import naive_amount

FAST = settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])

X = [1.0, 2.0, 3.0, 4.0, 7.0, 9.0]
XR = [1.5, 1.5, 3.5, 3.5, 8.0, 8.0]
Y = [5.0, 1.0, 4.0, 2.0, 3.0, 9.0]
YR = [3.0, 3.0, 3.0, 3.0, 6.0, 6.0]


def _product_ild_ref(cols, rels, weights, e):
    """ILD of the product distance sqrt(sum_b w_b d_b^2) by the plain pairwise sum (naive_amount)."""
    def d(a, b):
        return math.sqrt(sum(w * (u - v) ** 2 for w, u, v in zip(weights, a, b)))
    rows, rrows = list(zip(*cols)), list(zip(*rels))
    before, after = naive_amount(rows, d, e), naive_amount(rrows, d, e)
    return max(0.0, (before - after) / before)


# -- 1. ILD: the pairwise product distance (exponent != 2 over several columns) -------------------
@pytest.mark.parametrize("ex, ey", [(-1000, -1000), (1000, 1000), (-1070, -1070), (-1000, 1000), (0, 0)])
@pytest.mark.parametrize("exponent", [1, 1.5, 3])
def test_ild_pairwise_product_distance_at_extreme_magnitudes(ex, ey, exponent):
    """Before: values near 1e-300 read ILD 0.0 (d^2 underflowed), near 1e300 NaN (inf / inf)."""
    df = pl.DataFrame({"x": np.ldexp(X, ex), "y": np.ldexp(Y, ey)})
    rel = pl.DataFrame({"x": np.ldexp(XR, ex), "y": np.ldexp(YR, ey)})
    got = ild(df, rel, exponent=exponent)
    if ex == ey:  # the same power of two on both: the scale-1 value
        want = _product_ild_ref([X, Y], [XR, YR], [1.0, 1.0], exponent)
    else:  # 2^-1000 against 2^1000: only y counts
        want = _product_ild_ref([Y], [YR], [1.0], exponent)
    assert got == pytest.approx(want, rel=1e-9)
    assert 0.0 < got < 1.0


@pytest.mark.parametrize("ex, ey", [(-1000, -1000), (1000, 1000), (-1000, 1000), (-1060, 900)])
def test_ild_pairwise_amount_weights_are_scale_free(ex, ey):
    """weights="amount" (w_b = 1 / I_b) makes every block count alike at any magnitude: the value at
    scale 1. Before: 0.0 at 1e-300 and 1e-300 / 1e300 mixed, 1.0 at 1e300."""
    df = pl.DataFrame({"x": np.ldexp(X, ex), "y": np.ldexp(Y, ey), "c": list("aabbcc")})
    rel = pl.DataFrame({"x": np.ldexp(XR, ex), "y": np.ldexp(YR, ey), "c": list("aabbca")})
    base = pl.DataFrame({"x": X, "y": Y, "c": list("aabbcc")})
    base_rel = pl.DataFrame({"x": XR, "y": YR, "c": list("aabbca")})
    want = ild(base, base_rel, exponent=1, weights="amount")
    w = [1 / naive_amount(X, lambda a, b: abs(a - b), 2), 1 / naive_amount(Y, lambda a, b: abs(a - b), 2)]
    # the reference of the scale-1 value itself, the discrete column as 0/1 coded a, b, c
    codes = {"a": 0, "b": 1, "c": 2}
    wc = 1 / naive_amount(list("aabbcc"), lambda a, b: float(a != b), 2)
    def d(a, b):
        return math.sqrt(w[0] * (a[0] - b[0]) ** 2 + w[1] * (a[1] - b[1]) ** 2 + wc * float(a[2] != b[2]))
    rows = list(zip(X, Y, [codes[v] for v in "aabbcc"]))
    rrows = list(zip(XR, YR, [codes[v] for v in "aabbca"]))
    ref = (naive_amount(rows, d, 1) - naive_amount(rrows, d, 1)) / naive_amount(rows, d, 1)
    assert want == pytest.approx(ref, rel=1e-12)
    assert ild(df, rel, exponent=1, weights="amount") == pytest.approx(ref, rel=1e-9)


@FAST
@given(e=st.integers(-1070, 1000), seed=st.integers(0, 2**16), exponent=st.sampled_from([1, 1.5, 3]),
       weights=st.sampled_from([None, "amount"]), dist=st.sampled_from([None, "manhattan", "chebyshev"]))
def test_property_ild_several_columns_is_scale_free(e, seed, exponent, weights, dist):
    r = np.random.default_rng(seed)
    x, y = r.normal(size=12), r.normal(size=12)
    base = pl.DataFrame({"x": x, "y": y})
    rel = base.sdc.mdav(3, ["x", "y"])
    want = base.sdc.ild(rel, exponent=exponent, weights=weights, dist=dist)
    # at 2^-1070 the values are subnormal: fewer bits, so compare at the precision they keep
    tol = 1e-9 if e > -1020 else 1e-2
    big = pl.DataFrame({"x": np.ldexp(x, e), "y": np.ldexp(y, e)})
    big_rel = pl.DataFrame({"x": np.ldexp(rel["x"].to_numpy(), e), "y": np.ldexp(rel["y"].to_numpy(), e)})
    got = big.sdc.ild(big_rel, exponent=exponent, weights=weights, dist=dist)
    assert math.isfinite(got)
    assert got == pytest.approx(want, rel=tol, abs=1e-12)


# -- Int64 / UInt64 beyond 2^53: the translation-invariant measures --------------------------------
TOP = 2**63 - 10
INTS = [1, 2, 3, 4, 7, 9]
GROUPS = [0, 0, 1, 1, 2, 2]


def _frac_ild_grouped(vals, groups):
    """Exact ILD (= SSE / SST) with group means, in Fractions."""
    n = len(vals)
    mean = Fraction(sum(vals), n)
    sst = sum((Fraction(v) - mean) ** 2 for v in vals)
    sse = Fraction(0)
    for g in set(groups):
        part = [v for v, h in zip(vals, groups) if h == g]
        m = Fraction(sum(part), len(part))
        sse += sum((Fraction(v) - m) ** 2 for v in part)
    return sse / sst


@pytest.mark.parametrize("dtype, offset", [(pl.Int64, TOP), (pl.Int64, -2**63), (pl.UInt64, 2**64 - 10),
                                           (pl.Int64, 2**53 + 1)])
def test_loss_of_integer_columns_beyond_2_53(dtype, offset):
    """Before: ILD, ILSSDM, NCP and the information amount read 0.0 for Int64 / UInt64 values near
    2^63 (float64 rounds them to one value); now exact differences from the column's minimum."""
    vals = [offset + v for v in INTS]
    df = pl.DataFrame({"x": pl.Series(vals, dtype=dtype), "g": GROUPS})
    want = float(_frac_ild_grouped(vals, GROUPS))   # 0.0704..., exact
    assert df.sdc.ild(groups="g", on="x") == pytest.approx(want, rel=1e-12)
    assert df.sdc.ilssdm("x", groups="g", standardize=False) == pytest.approx(want, rel=1e-12)
    assert df.sdc.ilssdm("x", groups="g") == pytest.approx(want, rel=1e-12)
    assert information_amount(df, on="x") == naive_amount(INTS, lambda a, b: abs(a - b), 2) == 568
    assert information_amount(df, on="x", exponent=1) == naive_amount(INTS, lambda a, b: abs(a - b), 1)
    # a release with the same dtype: the exact loss of (1,2,3,4,7,9) -> (2,2,3,3,7,7)
    rel = pl.DataFrame({"x": pl.Series([offset + v for v in [2, 2, 3, 3, 7, 7]], dtype=dtype)})
    a = naive_amount(INTS, lambda p, q: abs(p - q), 2)
    b = naive_amount([2, 2, 3, 3, 7, 7], lambda p, q: abs(p - q), 2)
    assert df.sdc.ild(rel, on="x") == pytest.approx((a - b) / a, rel=1e-12)
    # NCP: spans (1, 1, 2) of the groups over the range 8: 2 * (1 + 1 + 2) / 8
    assert ncp(df, "g", on="x") == pytest.approx(1.0, rel=1e-12)
    # a released Float64 column near 2^63 (its own rounding only)
    relf = rel.with_columns(pl.col("x").cast(pl.Float64))
    assert 0.0 <= df.sdc.ild(relf, on="x") <= 1.0


def test_ncp_of_a_range_beyond_float64():
    """Before: a column spanning -1.7e308 .. 1.7e308 had range inf and NCP 0."""
    df = pl.DataFrame({"x": [-1.7e308, -1.6e308, 1.6e308, 1.7e308], "g": [0, 0, 1, 1]})
    small = pl.DataFrame({"x": [-1.7, -1.6, 1.6, 1.7], "g": [0, 0, 1, 1]})
    assert ncp(df, "g", on="x") == pytest.approx(ncp(small, "g", on="x"), rel=1e-12)
    assert ncp(small, "g", on="x") == pytest.approx(4 * 0.1 / 3.4, rel=1e-12)
