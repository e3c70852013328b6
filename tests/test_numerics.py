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
@given(e=st.integers(-1040, 1000), seed=st.integers(0, 2**16), exponent=st.sampled_from([1, 1.5, 3]),
       weights=st.sampled_from([None, "amount"]), dist=st.sampled_from([None, "manhattan", "chebyshev"]))
def test_property_ild_several_columns_is_scale_free(e, seed, exponent, weights, dist):
    r = np.random.default_rng(seed)
    x, y = r.normal(size=12), r.normal(size=12)
    base = pl.DataFrame({"x": x, "y": y})
    rel = base.sdc.mdav(3, ["x", "y"])
    want = base.sdc.ild(rel, exponent=exponent, weights=weights, dist=dist)
    # below 2^-1020 the values are subnormal: >= 30 bits left at 2^-1040, compare at that precision
    tol = 1e-9 if e > -1020 else 1e-5
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


# -- 2. recode_intervals: sdcMicro's equidistant rule at tiny magnitudes; exact integer quantiles ----
from polars_sdc.masking.intervals import column_equal_breaks  # noqa: E402
from tests.naive import equidistant_ref, quantile7_exact  # noqa: E402


@FAST
@given(vals=st.lists(st.integers(0, 9), min_size=2, max_size=12).filter(lambda v: len(set(v)) > 1),
       n=st.integers(2, 5), k=st.sampled_from([-1, -10, -150, -300, -307]))
def test_equal_intervals_of_tiny_values_are_sdcmicros_in_their_decimal_unit(vals, n, k):
    """Before: values ~1e-10 (or 1e-300) all fell into one interval around 0 (sdcMicro's pad of 1
    swamps them). Now: the points of the same values at scale 1 (sdcMicro's, which assume a unit of
    about 1: ranges 1..9 here), times the decimal unit 10^k; each value in the same interval."""
    lo, hi = min(vals), max(vals)
    ref = [float(b) for b in equidistant_ref(lo, hi, n)]
    assert column_equal_breaks("x", lo, hi, n) == pytest.approx(ref, rel=1e-15)  # integers: sdcMicro's points
    tiny = [float(f"{v}e{k}") for v in vals]
    got = column_equal_breaks("x", min(tiny), max(tiny), n)
    assert got == pytest.approx([float(f"{b!r}e{k}") for b in ref], rel=1e-12)
    df = pl.DataFrame({"x": tiny, "i": vals}).with_columns(pl.col("i").cast(pl.Float64))
    out = df.sdc.recode_intervals(["x", "i"], n=n)
    codes_tiny = out["x"].to_physical().to_list()
    codes_one = out["i"].to_physical().to_list()
    assert codes_tiny == codes_one   # one interval for both only where sdcMicro's rule itself gives it


@pytest.mark.parametrize("vals", [[1e-10, 2e-10, 3.5e-10, 6e-10], [0.1, 0.25, 0.5, 0.9], [-3e-300, 1e-300, 2e-300]])
def test_equal_intervals_hold_every_value_and_use_more_than_one(vals):
    out = pl.DataFrame({"x": vals}).sdc.recode_intervals("x", n=3)["x"]
    pts = column_equal_breaks("x", min(vals), max(vals), 3)
    assert pts[0] <= min(vals) and pts[-1] >= max(vals) and pts == sorted(set(pts))
    idx = np.searchsorted(pts[1:-1], vals, side="left")
    assert out.to_physical().to_list() == idx.tolist() and out.n_unique() > 1


def test_equal_intervals_keep_sdcmicro_for_ranges_of_one_or_more_and_integers():
    assert column_equal_breaks("x", 0.0, 1.0, 2) == [-1.0, 0.0, 2.0]   # R: round(seq(-1, 2, length.out = 3))
    assert column_equal_breaks("x", 17, 90, 4) == [16.0, 35.0, 54.0, 72.0, 91.0]
    # sdcMicro's own rule puts 3 and 4 into one of two intervals (round(seq(2, 5, length.out = 3)));
    # kept, and alike in the decimal unit: not float64's doing, so no error
    assert column_equal_breaks("x", 3, 4, 2) == [2.0, 4.0, 5.0]
    assert column_equal_breaks("x", 3e-10, 4e-10, 2) == [2e-10, 4e-10, 5e-10]
    # a constant column: sdcMicro's points (seq(1, 3, length.out = 4), not rounded: duplicates)
    assert column_equal_breaks("x", 2.0, 2.0, 3) == pytest.approx([float(v) for v in equidistant_ref(2, 2, 3)])
    assert column_equal_breaks("x", 1e-300, 1e-300, 3) == pytest.approx([float(v) for v in equidistant_ref(0, 0, 3)])


def test_equal_intervals_at_float64_resolution_fail_naming_the_column_or_hold_the_values():
    cases = ([5e-324, 1e-323], [5e-324, 1e-323, 1.5e-323, 2e-323, 2.5e-323], [1e15 + 0.125, 1e15 + 0.25],
             [1e15, 1e15 + 0.125, 1e15 + 0.25, 1e15 + 0.5], [1e17, 1e17 + 16])
    for vals, right_closed in ((v, r) for v in cases for r in (True, False)):
        df = pl.DataFrame({"sub": vals})
        try:
            out = df.sdc.recode_intervals("sub", n=3, right_closed=right_closed)["sub"]
        except SDCError as e:
            assert "'sub'" in str(e) and "resolution" in str(e)
        else:
            assert out.n_unique() > 1 and out.null_count() == 0


@pytest.mark.parametrize("dtype, base", [(pl.Int64, 2**63 - 40), (pl.Int64, -2**63), (pl.UInt64, 2**64 - 40),
                                         (pl.Int64, 2**60 + 1)])
@pytest.mark.parametrize("right_closed", [True, False])
@pytest.mark.parametrize("n", [3, 4, 7])
def test_quantile_intervals_of_integers_beyond_2_53_are_exact(dtype, base, right_closed, n):
    """Before: the quantiles were taken in float64, so values near 2^63 (spaced 1 apart, float64
    spacing 2^11) all became one interval '[9.2233720e+18, 9.2233720e+18]'. Now: R's type-7
    quantiles in fractions; each value's interval is the number of inner quantiles below it."""
    offs = [0, 1, 2, 3, 5, 8, 13, 21, 22, 30, 31]
    vals = [base + o for o in offs]
    df = pl.DataFrame({"x": pl.Series(vals, dtype=dtype)})
    out = df.sdc.recode_intervals("x", n=n, method="quantile", right_closed=right_closed)["x"]
    qs = sorted(set(quantile7_exact(vals, Fraction(i, n)) for i in range(n + 1)))
    inner = qs[1:-1]
    want = [sum((v > q) if right_closed else (v >= q) for q in inner) for v in vals]
    # tied (merged) intervals aside, the intervals are the quantiles' (equal integer cuts merge)
    got = out.to_physical().to_list()
    assert got == want or _merged(want) == got
    assert out.n_unique() == len(set(want))
    labels = out.dtype.categories.to_list()
    assert str(min(vals)) in labels[0] and str(max(vals)) in labels[-1]


def _merged(codes):
    order = {c: i for i, c in enumerate(sorted(set(codes)))}
    return [order[c] for c in codes]


def test_lazy_quantile_intervals_of_wide_integers_match_eager():
    df = pl.DataFrame({"x": pl.Series([2**63 - 1 - i for i in range(9)] + [None], dtype=pl.Int64)})
    eager = df.sdc.recode_intervals("x", n=4, method="quantile")
    lazy = df.lazy().sdc.recode_intervals("x", n=4, method="quantile").collect()
    assert eager.equals(lazy) and eager["x"].null_count() == 1 and eager["x"].n_unique() == 5


# -- 3. Laplace noise with phi near 1e308 --------------------------------------------------------
from polars_sdc import rng as _rng  # noqa: E402
from polars_sdc.laplace import laplace_values  # noqa: E402

MAXF = Fraction(np.finfo(np.float64).max)


def _exact_laplace(x, phi, seed, name, keys):
    """x + e exactly (Fractions), e = 2^6 * rng.laplace(.., phi / 2^6): the same noise, scaled by a
    power of two (exact), so that it is finite even where e itself is beyond 1.8e308."""
    e = _rng.laplace(seed, _rng.stream("laplace", column=name), keys, np.ldexp(phi, -6))
    return [Fraction(float(a)) + 64 * Fraction(float(b)) for a, b in zip(x, e)]


def test_laplace_noise_beyond_float64_with_a_finite_sum_is_released_exactly():
    """Before: a noise beyond 1.8e308 was inf although x + noise (x near -1.7e308) is finite: an
    SDCError for a release that exists. Now the value, correctly rounded; a sum really beyond
    float64 still an SDCError naming the column."""
    keys = _rng.row_positions(4000)
    x = np.full(4000, -1.7e308)
    exact = _exact_laplace(x, 1e308, 9, "x", keys)
    noise = [v - Fraction(-1.7e308) for v in exact]
    fine = np.array([abs(v) <= MAXF and n > MAXF for v, n in zip(exact, noise)])
    assert fine.sum() > 0                         # rows whose noise alone overflows, the sum not
    got = laplace_values(x[fine], 1e308, 9, "x", keys=keys[fine])
    assert got.tolist() == [float(v) for v, f in zip(exact, fine) if f]
    over = np.array([abs(v) > MAXF for v in exact])
    with pytest.raises(SDCError, match="column 'x'.*overflows"):
        laplace_values(x[over][:3], 1e308, 9, "x", keys=keys[over][:3])


def test_laplace_clamp_with_phi_near_float64_max_clips_instead_of_failing():
    """Before: clamp=True with phi=1e308 raised (the unclipped sum was inf); the clipped release
    is well defined: min(max(x + e, min x), max x)."""
    df = pl.DataFrame({"x": [1.0, 2.0, 3.0] * 20})
    out = df.sdc.laplace(1e308, seed=3, clamp=True)["x"]
    exact = _exact_laplace(df["x"].to_numpy(), 1e308, 3, "x", _rng.row_positions(60))
    assert out.to_list() == [float(min(max(v, Fraction(1)), Fraction(3))) for v in exact]
    with pytest.raises(SDCError, match="column 'x'"):
        df.sdc.laplace(1e308, seed=3)


# -- 4. entropy loss of a noise release ------------------------------------------------------------
from polars_sdc.loss.classic import entropy_loss  # noqa: E402


def _h(counts):
    n = sum(counts)
    return -sum(c / n * math.log(c / n) for c in counts)


def test_entropy_loss_of_a_noise_release_is_zero_not_negative():
    """Before: -0.6309 = (log 3 - log 6) / log 3 for three tied pairs released as six distinct
    noised values (H grew); the thesis's share of entropy lost is defined for replacements
    (H can only fall), and a spread-out release gains no information: 0."""
    df = pl.DataFrame({"x": [1.0, 1.0, 2.0, 2.0, 3.0, 3.0]})
    rel = df.sdc.add_noise("x", seed=1)
    assert rel["x"].n_unique() == 6
    assert (_h([2, 2, 2]) - _h([1] * 6)) / _h([2, 2, 2]) == pytest.approx(-0.6309297535714574)
    assert entropy_loss(df, rel) == 0.0
    assert df.sdc.loss_report(rel).normalized()["entropy_loss"] == 0.0


@FAST
@given(vals=st.lists(st.integers(0, 5), min_size=2, max_size=20), seed=st.integers(0, 2**16))
def test_entropy_loss_is_the_thesis_share_for_replacements_and_never_negative(vals, seed):
    r = np.random.default_rng(seed)
    g = r.integers(0, max(1, len(vals) // 2), len(vals))
    df = pl.DataFrame({"x": vals, "g": g})
    # a replacement: each group by its first value (a function of the record's group)
    first = {}
    rel_vals = [first.setdefault(int(k), v) for k, v in zip(g, vals)]
    from collections import Counter
    h0, h1 = _h(list(Counter(vals).values())), _h(list(Counter(zip(rel_vals)).values()))
    want = 0.0 if h0 == 0 else (h0 - h1) / h0
    got = entropy_loss(df, pl.DataFrame({"x": rel_vals}), on="x")
    assert got == pytest.approx(max(want, 0.0), abs=1e-12)
    base = df.select(pl.col("x").cast(pl.Float64))
    noisy = base.sdc.add_noise("x", seed=seed)
    assert entropy_loss(base, noisy) >= 0.0


# -- 5. the sweep: every loss measure and masking method at extreme magnitudes and dtypes -----------
from conftest import assert_one_line_sdc_error  # noqa: E402

_B = np.array([1.0, 2, 3, 4, 7, 9, 2, 5] * 3) + np.repeat(np.arange(3), 8) * 10   # 24 values, ties
SWEEP = {
    "1e-300": lambda: pl.Series(np.ldexp(_B, -997)),
    "1e300": lambda: pl.Series(np.ldexp(_B, 990)),
    "mixed": lambda: pl.Series([1e-300, 2e-300, 1e300, 3e300, 5e-300, 2e300, 4e300, 1e-300] * 3),
    "subnormal": lambda: pl.Series(_B * 5e-324),
    "negzero": lambda: pl.Series([-0.0, 0.0, 1.0, -0.0, 2.0, 1.0, 0.0, 3.0] * 3),
    "int64top": lambda: pl.Series([2**63 - 1 - int(v) for v in _B], dtype=pl.Int64),
    "int64bot": lambda: pl.Series([-2**63 + int(v) for v in _B], dtype=pl.Int64),
    "uint64top": lambda: pl.Series([2**64 - 1 - int(v) for v in _B], dtype=pl.UInt64),
    "float32": lambda: pl.Series(_B * 1e35, dtype=pl.Float32),
}
# the cases that are the scale-1 data times a power of two or plus an integer offset: the
# scale- and translation-free measures must read the scale-1 value there
SAME_AS_BASE = {"1e-300", "1e300", "int64top", "int64bot", "uint64top"}


def _sweep_frame(name):
    s = SWEEP[name]()
    return pl.DataFrame({"x": s, "y": s.reverse(), "c": list("aabbccdd") * 3, "g": [i // 3 for i in range(24)]})


def _base_frame(name):
    s = pl.Series(_B if "int" not in name else [-int(v) for v in _B], dtype=pl.Float64)
    return pl.DataFrame({"x": s, "y": s.reverse(), "c": list("aabbccdd") * 3, "g": [i // 3 for i in range(24)]})


LOSS = {
    "ild_groups": lambda df: df.sdc.ild(groups="g", on=["x", "y"]),
    "ild_groups_e1": lambda df: df.sdc.ild(groups="g", on=["x", "y"], exponent=1),
    "ild_groups_e1_amount": lambda df: df.sdc.ild(groups="g", on=["x", "y", "c"], exponent=1, weights="amount"),
    "ild_groups_manhattan": lambda df: df.sdc.ild(groups="g", on=["x", "y"], dist="manhattan"),
    "ild_groups_amount": lambda df: df.sdc.ild(groups="g", on=["x", "y", "c"], weights="amount"),
    "ilssdm_groups": lambda df: df.sdc.ilssdm(["x", "y"], groups="g"),
    "ilssdm_groups_raw": lambda df: df.sdc.ilssdm(["x", "y"], groups="g", standardize=False),
    "ncp_groups": lambda df: ncp(df, "g", on=["x", "y"]),
    "loss_report_groups": lambda df: df.sdc.loss_report(groups="g", on=["x", "y"], k=3).normalized(),
}


@pytest.mark.parametrize("measure", list(LOSS))
@pytest.mark.parametrize("case", list(SWEEP))
def test_sweep_loss_measures(case, measure):
    """Every measure is a finite number at every magnitude and dtype (or a one-line SDCError);
    on data that are the scale-1 data scaled by 2^E or shifted by an integer it reads the
    scale-1 value (before this session: 0.0 for 1e-300 / the Int64 cases, NaN for 1e300)."""
    df = _sweep_frame(case)
    try:
        got = LOSS[measure](df)
    except Exception as exc:  # noqa: BLE001
        assert_one_line_sdc_error(exc)
        return
    # an integer column's released group means are integers (rounded), the base's are not: the
    # measures of released frequencies (entropy, EBIL, CTBIL) differ there; the others must not
    keep = ("ild", "ilssdm", "dm", "ncp") if "int" in case else ("ild", "ilssdm", "dm", "ncp", "entropy_loss",
                                                                 "ebil", "ctbil")
    vals = [got[k] for k in keep] if isinstance(got, dict) else [got]
    assert all(math.isfinite(v) and v >= 0 for v in vals), got
    if case in SAME_AS_BASE:
        want = LOSS[measure](_base_frame(case))
        wvals = [want[k] for k in keep] if isinstance(want, dict) else [want]
        assert vals == pytest.approx(wvals, rel=1e-9, abs=1e-12)


MASKING = {
    "add_noise": lambda df: df.sdc.add_noise(["x", "y"], seed=1),
    "add_noise_correlated": lambda df: df.sdc.add_noise(["x", "y"], method="correlated", seed=1),
    "add_noise_correlated2": lambda df: df.sdc.add_noise(["x", "y"], method="correlated2", seed=1),
    "add_noise_moments": lambda df: df.sdc.add_noise(["x", "y"], method="moments", seed=1),
    "rank_swap": lambda df: df.sdc.rank_swap(["x", "y"], p=0.2, seed=1),
    "mdav": lambda df: df.sdc.mdav(3, ["x", "y"]),
    "mhm": lambda df: df.sdc.mhm(3, ["x", "y"]),
    "univariate": lambda df: df.sdc.univariate(3, "x"),
    "aggregate": lambda df: df.sdc.aggregate("g", ["x", "y"]),
    "recode_equal": lambda df: df.sdc.recode_intervals(["x"], n=3),
    "recode_quantile": lambda df: df.sdc.recode_intervals(["x"], n=3, method="quantile"),
    "top_bottom": lambda df: df.sdc.top_bottom_code("x", upper_p=0.2),
    "laplace_k": lambda df: df.sdc.laplace(k=2, on=["x"], seed=1),
}
NOISE = {"add_noise", "add_noise_correlated", "add_noise_correlated2", "add_noise_moments", "laplace_k"}


@pytest.mark.parametrize("method", list(MASKING))
@pytest.mark.parametrize("case", list(SWEEP))
def test_sweep_masking_methods(case, method):
    """No inf / NaN released, no interval recoding into one interval, no noise that rounds away
    (the values released unmasked) -- or a one-line SDCError naming the column."""
    df = _sweep_frame(case)
    before = df.clone()
    try:
        out = MASKING[method](df)
    except Exception as exc:  # noqa: BLE001
        assert_one_line_sdc_error(exc)
        assert "'x'" in str(exc) or "'y'" in str(exc)
        return
    finally:
        assert df.equals(before)
    assert out.height == df.height
    x = out["x"]
    if x.dtype.is_float():
        assert x.is_finite().all()
    if method.startswith("recode"):
        assert x.n_unique() > 1
    if method in NOISE:
        changed = (x.cast(pl.Float64) != df["x"].cast(pl.Float64)).sum()
        assert changed > df.height // 2


# -- ILSSDM at tiny magnitudes with structural nulls (hypothesis found these in test_loss_nulls) --
from tests.naive import reference_ilssdm_nulls  # noqa: E402


def _nframe(cols):
    return pl.DataFrame({f"x{j}": c for j, c in enumerate(cols)}, schema={f"x{j}": pl.Float64 for j in range(len(cols))})


def test_ilssdm_near_1e_263_matches_the_exact_reference():
    """One group of (0, 6.1e-263): everything is lost, ILSSDM 1 (the float reference read 0: its
    squares underflowed). A release 1.0 where the original's non-null values are 0 and 6.1e-263
    is ~2e262 of their standard deviations away: SSE / SST ~ 5e524, beyond float64: inf."""
    tiny = 6.098739861489754e-263
    assert _nframe([[0.0, tiny]]).sdc.ilssdm(groups=pl.Series("g", [0, 0]), standardize=False) == 1.0
    assert reference_ilssdm_nulls([[0.0, tiny]], groups=[0, 0], standardize=False) == 1.0
    cols = [[1.0, None, None], [1.0, None, None], [None, 0.0, tiny]]
    masked = [[1.0, None, None], [1.0, None, None], [None, 0.0, 1.0]]
    got = _nframe(cols).sdc.ilssdm(masked=_nframe(masked), standardize=True)
    assert got == math.inf == reference_ilssdm_nulls(cols, masked, standardize=True)
    assert got.skipped == 5


# -- 6. add_noise: the float64-resolution refusal per noise unit (stratum, null pattern) ------------
from tests.naive import noise_unit_unresolved  # noqa: E402

T63 = 2**63


def _by_frame(dtype=pl.Int64, top=T63):
    """Stratum 1: four values just below ``top`` (sd 1.7, 2^11 apart in float64); stratum 2 spread
    over 2^62: the whole column's sd is ~4e18, far above the spacing."""
    return pl.DataFrame({"g": [1, 1, 1, 1, 2, 2, 2, 2],
                         "x": pl.Series([top - 9, top - 8, top - 5, top - 7, 0, 2**62, 5, 2**61], dtype=dtype)})


@pytest.mark.parametrize("method", ["additive", "correlated", "correlated2", "moments"])
@pytest.mark.parametrize("dtype, top", [(pl.Int64, T63), (pl.UInt64, 2**64)])
def test_add_noise_by_refuses_a_stratum_below_float64_spacing(method, dtype, top):
    """Before: the check used the whole column's sd (~4e18), so stratum 1, whose noise is scaled
    by its own sd (1.7: noise ~2.6 where float64 holds multiples of 2048 or 4096), was released as
    its values rounded to float64, unmasked. Now an SDCError naming the column and the stratum."""
    df = _by_frame(dtype, top)
    vals = df.filter(pl.col("g") == 1)["x"].to_list()
    assert noise_unit_unresolved(vals)
    sd = float(np.std(np.array(vals, dtype=object) - min(vals), ddof=1))
    gap = np.spacing(float(max(vals)))
    want = (f"column 'x' in stratum {{'g': 1}} of `by`: its values (up to {max(vals)}) are {gap:g} apart in float64, "
            f"more than their standard deviation ({sd:g}): the Float64 release could not hold noise of that size "
            "and would release the values rounded; subtract an offset from the column first")
    with pytest.raises(SDCError) as e:
        df.sdc.add_noise("x", method=method, by="g", seed=1)
    assert str(e.value) == want
    out = df.sdc.add_noise("x", method=method, seed=1)      # one unit, sd ~4e18: noised
    assert (out["x"] != df["x"].cast(pl.Float64)).all()


def test_add_noise_by_null_pattern_is_its_own_unit():
    """"correlated" scales each null pattern within a stratum by its own covariance: the rows
    of stratum 1 where y is non-null hold x = 2^63 - (9, 5, 7), sd 2, below the spacing (the
    stratum's x alone has sd 1.7 too; the pattern rows are named). "additive" acts on x's non-null
    values per stratum (no pattern)."""
    df = _by_frame().with_columns(y=pl.Series([1.0, None, 2.0, 3.0, 4.0, 5.0, None, 7.0]))
    with pytest.raises(SDCError, match=r"^column 'x' in stratum \{'g': 1\} of `by` \(rows whose non-null `on` "
                                       r"columns are \['x', 'y'\]\): .*standard deviation \(2\)"):
        df.sdc.add_noise(["x", "y"], method="correlated", by="g", seed=1)
    with pytest.raises(SDCError, match=r"^column 'x' in stratum \{'g': 1\} of `by`: .*deviation \(1\.70783\)"):
        df.sdc.add_noise(["x", "y"], by="g", seed=1)


def test_add_noise_by_passes_strata_above_the_spacing():
    """A stratum near 2^63 whose sd (~4400) is above the spacing (2048) is noised, not refused."""
    df = pl.DataFrame({"g": [1] * 4 + [2] * 4,
                       "x": pl.Series([T63 - 1, T63 - 9001, T63 - 3001, T63 - 6001, 1, 2, 3, 4], dtype=pl.Int64)})
    assert not noise_unit_unresolved(df["x"][:4].to_list())
    out = df.sdc.add_noise("x", by="g", seed=1)
    assert (out["x"] != df["x"].cast(pl.Float64)).sum() >= 6


@FAST
@given(spread=st.lists(st.integers(0, 6000), min_size=2, max_size=8), base=st.sampled_from([T63 - 6001, -T63, 2**53]),
       method=st.sampled_from(["additive", "correlated"]))
def test_add_noise_refusal_matches_the_exact_reference(spread, base, method):
    """The refusal per stratum is the brute-force Fractions decision on each stratum's values."""
    vals = [base + v for v in spread]
    df = pl.DataFrame({"g": [0] * len(vals) + [1, 1], "x": pl.Series(vals + [0, 2**40], dtype=pl.Int64)})
    refused = noise_unit_unresolved(vals)
    try:
        df.sdc.add_noise("x", method=method, by="g", seed=1)
    except SDCError as e:
        assert refused and "in stratum {'g': 0} of `by`" in str(e)
    else:
        assert not refused
