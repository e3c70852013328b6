"""Session 28 audit (b) of the masking toolkit, recoding and strata: each test failed before its fix.

- recode_intervals of a Boolean column at breaks: Polars' right-closed ``bin_intervals`` put every
  Boolean into the first interval (True, 1, is above 0.5);
- top_bottom_code's ``upper_p`` / ``lower_p`` on Int64 / UInt64 beyond 2^53: the threshold was a
  Float64 quantile, rounded, so the top values above it escaped the coding (released unchanged);
- top_bottom_code of a Float32 column at a threshold beyond its range (-1e40 is -inf as Float32)
  coded every value to -inf;
- PRAM with ``by=`` an Enum column numbered the strata in category order, Spark (which has no Enum)
  by label: the drawn diagonals of the strata differed between the two back ends.
"""
from __future__ import annotations

from decimal import Decimal
import math

import numpy as np
import polars as pl
import pytest

import polars_sdc  # noqa: F401
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from naive import reference_top_bottom
from polars_sdc import SDCError


# ------------------------------------------------------------------ recode_intervals on Boolean
@pytest.mark.parametrize("lazy", [False, True])
def test_recode_intervals_boolean_at_breaks_is_cut_at_the_breaks(lazy):
    df = pl.DataFrame({"b": [True, False, True, None]})
    frame = df.lazy() if lazy else df
    out = frame.sdc.recode_intervals("b", breaks=[0.5])
    out = out.collect(engine="streaming") if lazy else out
    # True is 1 > 0.5, False is 0 <= 0.5 (as the Float64 column [1.0, 0.0] is cut)
    assert out["b"].to_list() == ["(0.5, inf)", "(-inf, 0.5]", "(0.5, inf)", None]
    as_float = df.with_columns(pl.col("b").cast(pl.Float64)).sdc.recode_intervals("b", breaks=[0.5])
    assert out["b"].cast(pl.String).to_list() == as_float["b"].cast(pl.String).to_list()
    assert df.sdc.recode_intervals("b", breaks=[0])["b"].to_list() == ["(0, inf)", "(-inf, 0]", "(0, inf)", None]
    assert df.sdc.recode_intervals("b", breaks=[0.5], right_closed=False)["b"].to_list() == \
        ["[0.5, inf)", "(-inf, 0.5)", "[0.5, inf)", None]


# ------------------------------------------------------------------ top / bottom coding by share
@pytest.mark.parametrize("dtype,values", [
    (pl.Int64, [1, 2, 3, 2**63 - 1, 2**63 - 2, 2**63 - 3, 2**63 - 1000]),
    (pl.Int64, [1, 2, 3, 2**53 + 1, 2**53 + 2, 2**53 + 3, 2**53 + 5]),
    (pl.UInt64, [1, 2, 3, 2**64 - 1, 2**64 - 2]),
])
def test_top_coding_by_share_codes_the_top_values_of_wide_integers(dtype, values):
    df = pl.DataFrame({"x": pl.Series(values, dtype=dtype)})
    out = df.sdc.top_bottom_code("x", upper_p=0.3)
    assert out.schema == df.schema
    assert out["x"].to_list() == reference_top_bottom(values, upper_p=0.3)
    assert out["x"].max() < max(values)            # the largest value is never released as it is
    lazy = df.lazy().sdc.top_bottom_code("x", upper_p=0.3).collect(engine="streaming")
    assert lazy.equals(out)


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(dtype=st.sampled_from([pl.Int8, pl.UInt16, pl.Int64, pl.UInt64, pl.Int128]),
       offset=st.sampled_from([0, 2**53, 2**62, 2**63]), data=st.data(),
       lower_p=st.sampled_from([None, 0.1, 0.3]), upper_p=st.sampled_from([None, 0.05, 0.3, 0.5]))
def test_property_top_bottom_by_share_equals_the_exact_reference(dtype, offset, data, lower_p, upper_p):
    lo, hi = {pl.Int8: (-128, 127), pl.UInt16: (0, 2**16 - 1)}.get(dtype, (0, 2**40))
    shift = offset if dtype in (pl.UInt64, pl.Int128) or (dtype == pl.Int64 and offset < 2**63) else 0
    if shift and dtype == pl.Int64:
        hi = min(hi, 2**63 - 1 - shift)
    vals = data.draw(st.lists(st.one_of(st.none(), st.integers(lo, hi)), min_size=1, max_size=15))
    vals = [None if v is None else v + shift for v in vals]
    if lower_p is None and upper_p is None:
        upper_p = 0.2
    df = pl.DataFrame({"x": pl.Series(vals, dtype=dtype)})
    out = df.sdc.top_bottom_code("x", lower_p=lower_p, upper_p=upper_p)
    assert out.schema == df.schema
    assert out["x"].to_list() == reference_top_bottom(vals, lower_p, upper_p)
    lazy = df.lazy().sdc.top_bottom_code("x", lower_p=lower_p, upper_p=upper_p).collect(engine="streaming")
    assert lazy.equals(out)


def test_bottom_coding_by_share_uses_an_observed_value_exactly():
    vals = [2**53 + 1, 2**53 + 2, 2**53 + 4, 2**53 + 7, 2**53 + 9]
    out = pl.DataFrame({"x": vals}).sdc.top_bottom_code("x", lower_p=0.3)
    # floor(4 * 0.3) = 1: the threshold is 2^53 + 2 (an observed value), the value below it is coded to it
    assert out["x"].to_list() == [2**53 + 2, 2**53 + 2, 2**53 + 4, 2**53 + 7, 2**53 + 9]


def test_top_coding_by_share_on_floats_and_decimals_is_unchanged():
    df = pl.DataFrame({"x": [float("nan"), None, 1.0, 2.0, 3.0, 4.0, 100.0],
                       "d": pl.Series([Decimal("1.25"), None, Decimal("2.50"), Decimal("9.99"), Decimal("3.00"),
                                       Decimal("4.00"), Decimal("5.00")], dtype=pl.Decimal(10, 2))})
    out = df.sdc.top_bottom_code(["x", "d"], upper_p=0.2, lower_p=0.2)
    # 5 numbers (NaN and null not counted): higher quantile 0.8 -> index 4 -> 100, lower 0.2 -> index 0
    assert out["x"].to_list()[1:] == [None, 1.0, 2.0, 3.0, 4.0, 100.0] and np.isnan(out["x"][0])
    # 6 Decimals: lower index floor(5 * 0.2) = 1 -> 2.50, higher ceil(5 * 0.8) = 4 -> 5.00
    assert out["d"].to_list() == [Decimal("2.50"), None, Decimal("2.50"), Decimal("5.00"), Decimal("3.00"),
                                  Decimal("4.00"), Decimal("5.00")]
    out = df.sdc.top_bottom_code(["x", "d"], upper_p=0.3)
    assert out["x"].to_list()[2:] == [1.0, 2.0, 3.0, 4.0, 4.0]
    assert out["d"].to_list() == [Decimal("1.25"), None, Decimal("2.50"), Decimal("5.00"), Decimal("3.00"),
                                  Decimal("4.00"), Decimal("5.00")]


def test_float32_threshold_beyond_its_range_is_refused():
    df = pl.DataFrame({"x": pl.Series([0.1, 0.2, 5.5], dtype=pl.Float32)})
    with pytest.raises(SDCError, match=r"column 'x': `upper` = -1e\+40 is -inf in its dtype Float32"):
        df.sdc.top_bottom_code("x", upper=-1e40)
    with pytest.raises(SDCError, match=r"`lower` = inf is inf"):
        pl.DataFrame({"x": [1.0, 2.0]}).sdc.top_bottom_code("x", lower=float("inf"))
    # the harmless side is kept: nothing lies above +inf
    assert df.sdc.top_bottom_code("x", upper=1e40)["x"].to_list() == df["x"].to_list()
    assert df.sdc.top_bottom_code("x", upper=-1e40, replacement="mean")["x"].n_unique() == 1


# ------------------------------------------------------------------ Decimal thresholds
def test_decimal_threshold_finer_than_the_scale_is_refused_not_rounded():
    df = pl.DataFrame({"x": pl.Series([Decimal("1.00"), Decimal("2.55"), Decimal("2.56"), Decimal("3.00"), None],
                                      dtype=pl.Decimal(10, 2))})
    # written rounded (2.56), the coded values were released above the threshold 2.555
    with pytest.raises(SDCError, match=r"column 'x': `upper` = 2.555 has more decimal places than the column's "
                                       r"scale 2"):
        df.sdc.top_bottom_code("x", upper=2.555)
    with pytest.raises(SDCError, match=r"column 'x': `lower` = inf is outside the range"):
        df.lazy().sdc.top_bottom_code("x", lower=float("inf"))
    with pytest.raises(SDCError, match=r"`upper` = 1000000000.0 is outside the range of its dtype"):
        df.sdc.top_bottom_code("x", upper=1e9)
    out = df.sdc.top_bottom_code("x", upper=2.55)["x"].to_list()
    assert out == [Decimal("1.00"), Decimal("2.55"), Decimal("2.55"), Decimal("2.55"), None]
    # replacement='mean' compares exactly at full precision: 2.56 and 3.00 lie above 2.555 (2.55 does not)
    assert df.sdc.top_bottom_code("x", upper=2.555, replacement="mean")["x"].to_list()[1:4] == [2.55] + [(2.56 + 3.0) / 2] * 2
    assert df.sdc.top_bottom_code("x", lower=2.551, replacement="mean")["x"].to_list()[:3] == [(1.0 + 2.55) / 2] * 2 + [2.56]


@pytest.mark.parametrize("lazy", [False, True])
def test_decimal_threshold_compares_exactly_beyond_float64(lazy):
    # through Float64, 10^20 + 1 > 1e20 was false: a value above the threshold escaped the coding
    vals = [10**20, 10**20 + 1, 10**20 + 100_000, 5]
    df = pl.DataFrame({"x": pl.Series([Decimal(v) for v in vals], dtype=pl.Decimal(25, 0))})
    f = df.lazy() if lazy else df
    out = f.sdc.top_bottom_code("x", upper=1e20)
    out = out.collect() if lazy else out
    assert out["x"].to_list() == [Decimal(10**20)] * 3 + [Decimal(5)]
    out = f.sdc.top_bottom_code("x", upper=1e20, replacement="mean")
    out = out.collect() if lazy else out
    assert out["x"].to_list() == [1e20, float(10**20 + 50_000), float(10**20 + 50_000), 5.0]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(st.none(), st.integers(-9999, 9999)), min_size=2, max_size=12),
       st.integers(-99999, 99999), st.sampled_from(["lower", "upper"]))
def test_property_decimal_mean_coding_codes_exactly_the_values_beyond(cents, milli, side):
    values = [None if c is None else Decimal(c).scaleb(-2) for c in cents]
    t = float(Decimal(milli).scaleb(-3))            # 3 decimals: finer than the column's scale 2
    exact = Decimal(repr(t))
    beyond = [v is not None and (v > exact if side == "upper" else v < exact) for v in values]
    df = pl.DataFrame({"x": pl.Series(values, dtype=pl.Decimal(8, 2))})
    if sum(beyond) == 1:
        with pytest.raises(SDCError, match="only 1 value"):
            df.sdc.top_bottom_code("x", replacement="mean", **{side: t})
        return
    out = df.sdc.top_bottom_code("x", replacement="mean", **{side: t})["x"].to_list()
    mean = math.fsum(float(v) for v, b in zip(values, beyond) if b) / max(sum(beyond), 1)   # as documented
    assert out == [mean if b else (None if v is None else float(v)) for v, b in zip(values, beyond)]


# ------------------------------------------------------------------ PRAM strata of an Enum
def test_pram_with_an_enum_stratum_equals_the_string_stratum():
    n = 600
    base = pl.DataFrame({"id": list(range(n)), "r": ["b", "a", "c"] * (n // 3), "c": ["u", "v", "w", "u", "x"] * (n // 5)})
    enum = base.with_columns(pl.col("r").cast(pl.Enum(["c", "b", "a"])))
    a = enum.sdc.pram("c", by="r", seed=5, key="id", pd=0.3)
    b = base.sdc.pram("c", by="r", seed=5, key="id", pd=0.3)
    assert a["c"].to_list() == b["c"].to_list()
    assert a.schema == enum.schema
    ma = enum.sdc.pram_matrix("c", by="r", seed=5, pd=0.3)["c"]
    mb = base.sdc.pram_matrix("c", by="r", seed=5, pd=0.3)["c"]
    assert [m.stratum for m in ma] == [m.stratum for m in mb] == [("a",), ("b",), ("c",)]
    for x, y in zip(ma, mb):
        np.testing.assert_array_equal(x.matrix, y.matrix)


# ------------------------------------------------------------------ rank swapping: r0 / k0 windows at any scale
@pytest.mark.parametrize("scale", [2.0**-1070, 1.0, 2.0**1010])
def test_rank_swap_window_from_r0_or_k0_does_not_depend_on_the_scale(scale):
    # r0 / k0 set p from sqrt(var) / range and |mean| / range: scale-free, exact by a power of two.
    # Near 1e308 the range and the variance overflowed, for subnormals the variance underflowed:
    # a window of 0 (a refusal: "p * n = 0 < 1 ... lower r0") or of inf
    x = [float(v) for v in range(1, 11)]
    ref = pl.DataFrame({"x": x})
    df = pl.DataFrame({"x": [v * scale for v in x]})
    for kw in ({"r0": 0.8}, {"k0": 0.3}, {"r0": 0.05, "top": 0.2, "bottom": 0.2, "preset": "sdcmicro"}):
        want = ref.sdc.rank_swap("x", seed=1, **kw)["x"].to_list()
        got = df.sdc.rank_swap("x", seed=1, **kw)["x"].to_list()
        assert [v / scale for v in got] == want, kw
    assert ref.sdc.rank_swap("x", r0=0.8, seed=1)["x"].to_list() != x        # it swaps


def test_rank_swap_r0_across_the_whole_float64_range():
    out = pl.DataFrame({"x": [1e308, -1e308, 1.7e308, 5.0]}).sdc.rank_swap("x", r0=0.5, seed=1)["x"]
    assert sorted(out.to_list()) == sorted([1e308, -1e308, 1.7e308, 5.0])


# ------------------------------------------------------------------ reconstruct_gmm far from magnitude 1
def _mixture(scale: float) -> pl.DataFrame:
    r = np.random.default_rng(0)
    x = np.concatenate([r.normal(-3, 0.5, 300), r.normal(3, 0.5, 300)]) + r.laplace(0, 0.5, 600)
    return pl.DataFrame({"x": x * scale})


@pytest.mark.parametrize("scale,phi", [(1e160, 0.5e160), (1e-200, 0.5e-200), (1.0, 1e300)])
def test_reconstruct_gmm_refuses_magnitudes_whose_variances_leave_float64(scale, phi):
    # 1e160: ZeroDivisionError inside the EM; 1e-200: a silent fit with two equal means and variance 0
    with pytest.raises(SDCError, match=r"column 'x': its values and phi reach magnitude .* beyond float64"):
        _mixture(scale).sdc.reconstruct_gmm(2, "x", phi)


@pytest.mark.parametrize("scale", [1e-140, 1e140])
def test_reconstruct_gmm_within_the_range_scales_with_the_data(scale):
    ref = _mixture(1.0).sdc.reconstruct_gmm(2, "x", 0.5)
    fit = _mixture(scale).sdc.reconstruct_gmm(2, "x", 0.5 * scale)
    np.testing.assert_allclose(np.sort(fit.means) / scale, np.sort(ref.means), rtol=1e-2)
    np.testing.assert_allclose(np.sort(fit.variances) / scale**2, np.sort(ref.variances), rtol=5e-2)


def test_interval_labels_print_negative_zero_as_zero():
    df = pl.DataFrame({"x": [-0.0, 0.0, 1.0, 2.0, None, 10.0]})
    assert df.sdc.recode_intervals("x", breaks=[-0.0, 2])["x"].to_list() == \
        df.sdc.recode_intervals("x", breaks=[0, 2])["x"].to_list() == \
        ["(-inf, 0]", "(-inf, 0]", "(0, 2]", "(0, 2]", None, "(2, inf)"]
    q = df.sdc.recode_intervals("x", n=3, method="quantile")["x"]
    assert q.dtype.categories.to_list()[0] == "[0, 0.33333333]"      # the smallest value is -0.0


# ------------------------------------------------------------------ top / bottom coding by a mean of one value
@pytest.mark.parametrize("options,side", [(dict(upper=10), "above the upper"), (dict(lower=1.5), "below the lower"),
                                          (dict(upper_p=0.3), "above the upper")])
def test_mean_top_coding_of_a_single_value_is_refused(options, side):
    # the mean of the one coded value is the value: 100 was "top coded" to 100, the extreme released as it was
    df = pl.DataFrame({"x": [1.0, 2.0, 3.0, 4.0, 100.0]})
    runs = (lambda: df.sdc.top_bottom_code("x", replacement="mean", **options),
            lambda: df.lazy().sdc.top_bottom_code("x", replacement="mean", **options).collect(engine="streaming"),
            lambda: df.select(pl.col("x").sdc.top_bottom_code(replacement="mean", **options)))
    for run in runs:
        with pytest.raises(SDCError, match=f"column 'x': only 1 value lies {side} threshold"):
            run()
    # two coded values: their mean, exactly
    assert df.sdc.top_bottom_code("x", upper=3, replacement="mean")["x"].to_list() == [1.0, 2.0, 3.0, 52.0, 52.0]
    # the threshold replacement is not concerned
    assert df.sdc.top_bottom_code("x", upper=10)["x"].to_list() == [1.0, 2.0, 3.0, 4.0, 10.0]


# ------------------------------------------------------------------ 128-bit integer columns
def test_int128_columns_in_pram_rank_swap_and_intervals():
    # each failed with Polars' "cannot convert i128 to NumPy" (not an SDCError naming the column)
    df = pl.DataFrame({"c": pl.Series([1, 2, 1, 2, 1, None, 3, 3], dtype=pl.Int128),
                       "y": pl.Series([1, 2, 3, 2**60, None, 5, 9, 7], dtype=pl.Int128),
                       "x": pl.Series([1, 2, 3, 2**100, 2**100 + 1, 5, 6, 7], dtype=pl.Int128)})
    as64 = df.with_columns(pl.col("c", "y").cast(pl.Int64))
    # PRAM: the same release as the Int64 column, dtype kept
    out = df.sdc.pram("c", pd=0.2, seed=3)
    assert out.schema == df.schema
    assert out["c"].to_list() == as64.sdc.pram("c", pd=0.2, seed=3)["c"].to_list()
    # rank swapping: as Int64 when the values fit, else an SDCError naming the column
    out = df.sdc.rank_swap("y", p=0.5, seed=1)
    assert out.schema == df.schema
    assert out["y"].to_list() == as64.sdc.rank_swap("y", p=0.5, seed=1)["y"].to_list()
    with pytest.raises(SDCError, match="column 'x': Int128 values beyond Int64"):
        df.sdc.rank_swap("x", p=0.5, seed=1)
    # intervals: exact integer breaks and quantiles beyond 2^53
    assert df.sdc.recode_intervals("x", breaks=[4])["x"].to_list() == ["(-inf, 4]"] * 3 + ["(4, inf)"] * 5
    q = df.sdc.recode_intervals("x", n=2, method="quantile")["x"]
    assert q.dtype.categories.to_list() == ["[1, 5]", f"(5, {2**100 + 1}]"]
    assert q.to_list() == ["[1, 5]"] * 3 + [f"(5, {2**100 + 1}]"] * 2 + ["[1, 5]"] + [f"(5, {2**100 + 1}]"] * 2


@pytest.mark.parametrize("options,what", [(dict(top=0.1), "top = 0.1 codes 1 of its 11 values"),
                                          (dict(bottom=0.1, top=0.2), "bottom = 0.1 codes 1 of its 11 values")])
def test_rank_swap_coding_a_single_extreme_is_refused(options, what):
    # top=0.1 of 11 values coded the largest (1000) to the mean of itself and left it out of the
    # swaps: the extreme the coding should hide was released exactly as it was
    df = pl.DataFrame({"x": [float(v) for v in range(1, 11)] + [1000.0], "g": ["a"] * 11})
    with pytest.raises(SDCError, match=f"column 'x': {what}: the mean of one value is the value"):
        df.sdc.rank_swap("x", p=0.3, seed=1, **options)
    with pytest.raises(SDCError, match=f"column 'x': stratum {{'g': 'a'}} of `by` {what}"):
        df.lazy().sdc.rank_swap("x", p=0.3, by="g", seed=1, **options).collect()
    out = df.sdc.rank_swap("x", p=0.3, top=0.2, seed=1)["x"].to_list()       # 2 coded: their mean
    assert out[-1] == 505.0 and out.count(505.0) == 2


def test_equal_intervals_of_values_typed_in_a_tiny_decimal_unit():
    # 8e-307 scaled exactly to the unit 10^-307 was 7.999999999999999: sdcMicro's rule (exact) and its
    # float points disagreed about 7.5 and the call raised "too close to float64's resolution"
    # (a hypothesis example of tests/test_numerics.py). In the unit the values are typed in, 7 and 8
    # are cut as sdcMicro cuts 7 and 8: seq(6, 9, length = 3) rounded = 6, 8, 9, one interval for both.
    from polars_sdc.masking.intervals import column_equal_breaks

    assert column_equal_breaks("x", 7e-307, 8e-307, 2) == [6e-307, 8e-307, 9e-307]
    assert column_equal_breaks("x", 7.0, 8.0, 2) == [6.0, 8.0, 9.0]
    out = pl.DataFrame({"x": [7e-307, 8e-307], "i": [7.0, 8.0]}).sdc.recode_intervals(["x", "i"], n=2)
    assert out["x"].to_physical().to_list() == out["i"].to_physical().to_list() == [0, 0]
