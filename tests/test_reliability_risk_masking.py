"""Regression tests of issue 26 (second adversarial trial: risk, masking and CLI surfaces) and
the rank-swap / l-diversity / weights items of issue 28. Each reproducer of the issue is a test
here, named by its item number; the classes of input behind them are property tests in
``tests/test_fuzz_reliability.py``."""
from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest

import polars_sdc  # noqa: F401
from polars_sdc import SDCError
from naive import sample_moments


# -- 26.2: exact moments on n <= p + 1 rows give the records back ------------------------------
def test_26_2_moments_on_two_rows_is_refused():
    df = pl.DataFrame({"x": [10.0, 50.0], "y": [3.0, -1.0]})
    with pytest.raises(SDCError, match=r"2 row\(s\).*moments.*2 column\(s\) needs at least 4 rows.*pin|give the records"):
        df.sdc.add_noise(method="moments", seed=5)
    with pytest.raises(SDCError, match="needs at least 4 rows"):
        df.lazy().sdc.add_noise(method="moments", seed=5).collect()


@pytest.mark.parametrize("n, p", [(1, 1), (2, 1), (3, 2), (4, 3), (4, 2)])
def test_26_2_moments_refuses_exactly_n_le_p_plus_1(n, p):
    r = np.random.default_rng(n * 10 + p)
    df = pl.DataFrame({f"c{j}": r.normal(size=n) for j in range(p)})
    if n <= p + 1:
        with pytest.raises(SDCError, match=f"needs at least {p + 2} rows"):
            df.sdc.add_noise(method="moments", seed=1)
    else:
        out = df.sdc.add_noise(method="moments", seed=1).to_numpy()
        mx, Sx = sample_moments(df.to_numpy())
        my, Sy = sample_moments(out)
        np.testing.assert_allclose(my, mx, atol=1e-12)
        np.testing.assert_allclose(Sy, Sx, atol=1e-12)
    # the other methods still accept the frame from two rows (one row has no sd: an error, it was
    # released unchanged before the session-24 audit)
    if n == 1:
        with pytest.raises(SDCError, match="1 row in the frame"):
            df.sdc.add_noise(method="additive", seed=1)
    else:
        df.sdc.add_noise(method="additive", seed=1)


def test_26_2_why_three_rows_on_two_columns_are_pinned():
    """The reason in the error message, checked: with n = p + 1 every exact-moment release keeps
    the records' pairwise Mahalanobis distances (the release is a covariance-keeping linear map
    of the originals), so we refuse it; with n = p + 2 it does not."""
    r = np.random.default_rng(3)
    X = r.normal(size=(3, 2))
    Sinv = np.linalg.inv(np.cov(X.T))
    for seed in range(5):                       # any other exact-moment configuration of 3 rows in 2-D
        Q, _ = np.linalg.qr(np.random.default_rng(seed).normal(size=(2, 2)))
        Xc = X - X.mean(0)
        L = np.linalg.cholesky(np.cov(X.T))
        Y = Xc @ np.linalg.inv(L.T) @ Q @ L.T + X.mean(0)     # the same mean and covariance
        np.testing.assert_allclose(np.cov(Y.T), np.cov(X.T), atol=1e-12)
        d = lambda A, i, j: (A[i] - A[j]) @ Sinv @ (A[i] - A[j])  # noqa: E731
        for i, j in ((0, 1), (0, 2), (1, 2)):
            assert d(Y, i, j) == pytest.approx(d(X, i, j))
    with pytest.raises(SDCError):
        pl.DataFrame({"x": X[:, 0], "y": X[:, 1]}).sdc.add_noise(method="moments", seed=1)


def test_26_2_moments_by_strata_need_p_plus_2_rows():
    df = pl.DataFrame({"g": ["a"] * 4 + ["b"] * 6, "x": np.arange(10.0), "y": np.arange(10.0) ** 2})
    with pytest.raises(SDCError, match=r"stratum \{'g': 'a'\} of `by`: 3 row\(s\).*2 column\(s\) needs at least 4.*pin"):
        df.slice(1).sdc.add_noise(method="moments", by="g", seed=1)
    out = df.sdc.add_noise(method="moments", by="g", seed=1)         # 4 = p + 2 rows: accepted
    assert out.height == 10


# -- 26.5: a constant column with no exact binary mean -----------------------------------------
def test_26_5_moments_constant_column_at_one_tenth():
    df = pl.DataFrame({"x": [1.0, 2.0, 3.0, 5.0, 3.0, 3.0], "c": [0.1] * 6, "y": [3.0, 1.0, 4.0, 1.0, 5.0, 9.0]})
    out = df.sdc.add_noise(method="moments", seed=1)
    assert out["c"].to_list() == [0.1] * 6                          # still constant, at the value itself
    X, Y = df.select("x", "y").to_numpy(), out.select("x", "y").to_numpy()
    mx, Sx = sample_moments(X)
    my, Sy = sample_moments(Y)
    np.testing.assert_allclose(my, mx, rtol=1e-13)                   # x: 2.8333.., not 2.8169
    np.testing.assert_allclose(Sy, Sx, rtol=1e-12, atol=1e-13)
    assert not np.allclose(Y, X)                                     # and noise was added
    # with by=: a column constant within one stratum only
    df2 = pl.concat([df.with_columns(g=pl.lit("a")), df.with_columns(g=pl.lit("b"), c=pl.Series([0.3, 0.7] * 3))])
    out2 = df2.sdc.add_noise(["x", "c", "y"], method="moments", by="g", seed=2)
    assert out2.filter(pl.col("g") == "a")["c"].to_list() == [0.1] * 6
    for g in ("a", "b"):
        A = df2.filter(pl.col("g") == g).select("x", "c", "y").to_numpy()
        B = out2.filter(pl.col("g") == g).select("x", "c", "y").to_numpy()
        np.testing.assert_allclose(sample_moments(B)[0], sample_moments(A)[0], rtol=1e-13)
        np.testing.assert_allclose(sample_moments(B)[1], sample_moments(A)[1], rtol=1e-12, atol=1e-13)


# -- 26.4: individual risk near Fk = fk ----------------------------------------------------------
def _sdcmicro_approx(fk: float, Fk: float) -> float:
    """sdcMicro 5.8.1 indivRisk(method="approx") for one record, as its R code reads."""
    import math

    pk = fk / Fk
    r = 0.0
    if fk > 2:
        r = pk / (fk - (1 - pk))
    if fk == 2:
        r = pk / (1 - pk) - (pk / (1 - pk)) ** 2 * math.log(1 / pk)
    if fk == 1:
        r = pk / (1 - pk) * math.log(1 / pk)
    return 1 / fk if fk == Fk else r


@pytest.mark.parametrize("w2", [1.000000015, 1 + 3e-15, 1 + 1e-9, 1 + 1e-5])
def test_26_4_individual_risk_near_fk_equals_Fk(w2):
    out = pl.DataFrame({"a": [7, 7], "w": [1.0, w2]}).sdc.individual_risk(["a"], weight="w")
    r = out["risk"].to_list()
    assert r[0] == r[1]
    # pk -> 1: r = pk - pk^2 (1/2 + q/3 + ...) -> 1/2, and never outside [0, 1]
    q = (1.0 + w2 - 2.0) / (1.0 + w2)
    assert r[0] == pytest.approx((1 - q) - (1 - q) ** 2 * (0.5 + q / 3 + q * q / 4), rel=1e-12)
    assert 0.0 <= r[0] <= 1.0


def test_26_4_sdcmicro_published_risks_still_hold():
    """sdcMicro's testthat (test_indivRisk.R, weighted, method approx) to its 8 digits."""
    df = pl.DataFrame({"A": [2, 3, 2, 2, 3, 3, 1, 2], "B": [3, 3, 3, 3, 3, 3, 4, 3], "C": [1, 3, 1, 2, 1, 1, 1, 1],
                       "w": [18.0, 45.5, 39.0, 17.0, 92.0, 8.0, 123.5, 51.0]})
    r = df.sdc.individual_risk(["A", "B", "C"], weight="w")["risk"].to_numpy()
    np.testing.assert_allclose(r, [0.01369863, 0.08579129, 0.01369863, 0.17707583, 0.01877883, 0.01877883,
                                   0.03931625, 0.01369863], atol=5e-9)


# -- 26.8: alpha < 1 never lowers a risk below its alpha = 1 value -------------------------------
def test_26_8_alpha_below_one_never_lowers_the_risk():
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


# -- 28.6: sampling weights below 1 -------------------------------------------------------------
def test_28_6_weights_below_one_accepted_and_follow_sdcmicro_where_Fk_ge_fk():
    w = [1.8, 4.55, 3.9, 1.7, 9.2, 0.8, 12.35, 5.1]                 # sdcMicro's test weights / 10
    df = pl.DataFrame({"A": [2, 3, 2, 2, 3, 3, 1, 2], "B": [3, 3, 3, 3, 3, 3, 4, 3], "C": [1, 3, 1, 2, 1, 1, 1, 1],
                       "w": w})
    out = df.sdc.individual_risk(["A", "B", "C"], weight="w")
    for fk, Fk, r in out.select("fk", "Fk", "risk").rows():
        assert Fk >= fk
        assert r == pytest.approx(_sdcmicro_approx(fk, Fk), rel=1e-12)
    # Fk < fk (weights 0.3 and 0.4 on a pair): the population holds at least the two sample
    # records, so r = 1/fk, where sdcMicro's formula leaves [0, 1] for a unique
    low = pl.DataFrame({"a": [1, 1, 2], "w": [0.3, 0.4, 0.5]}).sdc.individual_risk("a", weight="w")
    assert low["Fk"].to_list() == pytest.approx([0.7, 0.7, 0.5])     # Fk: the weight sum, as sdcMicro
    assert low["risk"].to_list() == [0.5, 0.5, 1.0]
    assert _sdcmicro_approx(1.0, 0.5) > 1.0
    with pytest.raises(SDCError, match=r"'w': 1 sampling weight\(s\) <= 0; weights must be > 0"):
        pl.DataFrame({"a": [1, 2], "w": [1.0, 0.0]}).sdc.individual_risk("a", weight="w")


# -- 26.6, 26.7, 26.13: recode_intervals on NaN / inf, huge integers, near-equal breaks -------------
@pytest.mark.parametrize("lazy", [False, True])
@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf")])
@pytest.mark.parametrize("kwargs", [{"n": 3}, {"n": 3, "method": "quantile"}, {"breaks": [2.0]}])
def test_26_6_nan_and_inf_are_errors(lazy, bad, kwargs):
    df = pl.DataFrame({"x": [1.0, bad, 3.0, 4.0]})
    frame = df.lazy() if lazy else df
    with pytest.raises(SDCError, match=r"column 'x'.*(NaN|infinite).*an interval cannot hold them"):
        out = frame.sdc.recode_intervals("x", **kwargs)
        if lazy:
            out.collect()


def test_26_6_huge_finite_values_get_finite_intervals():
    df = pl.DataFrame({"x": [-1.7e308, 0.0, 1.7e308]})
    for method in ("equal", "quantile"):
        out = df.sdc.recode_intervals("x", n=2, method=method)["x"].to_list()
        assert out == ["[-1.7e+308, 0]", "[-1.7e+308, 0]", "(0, 1.7e+308]"], method


@pytest.mark.parametrize("lazy", [False, True])
def test_26_7_integers_beyond_2_53_compared_as_integers(lazy):
    df = pl.DataFrame({"x": [2**53, 2**53 + 1, None, -(2**62)]})
    frame = df.lazy() if lazy else df
    out = frame.sdc.recode_intervals("x", breaks=[2**53])
    out = out.collect() if lazy else out
    assert out["x"].to_list() == ["(-inf, 9007199254740992]", "(9007199254740992, inf)", None,
                                  "(-inf, 9007199254740992]"]
    left = df.sdc.recode_intervals("x", breaks=[2**53 + 1], right_closed=False)["x"].to_list()
    assert left == ["(-inf, 9007199254740993)", "[9007199254740993, inf)", None, "(-inf, 9007199254740993)"]
    # a fractional break on an integer column: x > 2.5 is x > 2
    assert pl.DataFrame({"x": [2, 3]}).sdc.recode_intervals("x", breaks=[2.5])["x"].to_list() == \
        ["(-inf, 2.5]", "(2.5, inf)"]


def test_26_7_equal_intervals_of_huge_integers_and_constant_columns():
    big = pl.DataFrame({"x": [2**60, 2**60 + 5, 2**60 + 9]}).sdc.recode_intervals("x", n=3)["x"].to_list()
    assert big == ["[1152921504606846975, 1152921504606846979]", "(1152921504606846979, 1152921504606846982]",
                   "(1152921504606846982, 1152921504606846986]"]
    for v in ([1e300, 1e300], [2**60, 2**60], [5.0, 5.0]):      # one value: one interval, no error
        out = pl.DataFrame({"x": v}).sdc.recode_intervals("x", n=3)["x"]
        assert out.n_unique() == 1 and out.null_count() == 0


def test_26_13_labels_unique_at_any_precision():
    x = [1.0, 1.00000000015, 1.00000000025, 1.0000000004]
    out = pl.DataFrame({"x": x}).sdc.recode_intervals("x", breaks=[1.0000000001, 1.0000000002, 1.0000000003])
    assert out["x"].to_list() == ["(-inf, 1.0000000001]", "(1.0000000001, 1.0000000002]",
                                  "(1.0000000002, 1.0000000003]", "(1.0000000003, inf)"]
    q = pl.DataFrame({"x": x}).sdc.recode_intervals("x", n=3, method="quantile")["x"]
    assert q.dtype.categories.n_unique() == q.dtype.categories.len() == 3
    # 8 digits where they suffice, as R's dig.lab = 8
    assert pl.DataFrame({"x": [1.0]}).sdc.recode_intervals("x", breaks=[0.1, 123456.78])["x"].to_list() == ["(0.1, 123456.78]"]


# -- 26.12, 26.16: population_size -----------------------------------------------------------------
def test_26_12_zayatz_closed_form_at_any_population_size():
    import time

    from scipy.stats import hypergeom

    from polars_sdc.risk.arx import _log_hypergeom_one, zayatz_uniques

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
def test_26_16_bad_population_size_is_a_clear_error(N, message):
    with pytest.raises(SDCError, match=message):
        pl.DataFrame({"a": [1, 1, 2, 3]}).sdc.risk(["a"], population_size=N, suda=False)


def test_26_16_population_equal_to_the_sample_is_accepted():
    r = pl.DataFrame({"a": [1, 1, 2, 3]}).sdc.risk(["a"], population_size=4, suda=False)
    assert r["prosecutor_highest"] == 1.0


# -- 26.14: rank_swap on Decimal -------------------------------------------------------------------
@pytest.mark.parametrize("lazy", [False, True])
def test_26_14_rank_swap_decimal_swaps_the_exact_values(lazy):
    vals = ["1.25", "-3.50", "2.00", None, "7.10", "0.01", "2.00", "123456789012.34"]
    df = pl.DataFrame({"x": vals}).with_columns(pl.col("x").str.to_decimal(scale=2))
    frame = df.lazy() if lazy else df
    out = frame.sdc.rank_swap("x", p=0.5, seed=1)
    out = out.collect() if lazy else out
    assert out.schema == df.schema
    assert out["x"][3] is None
    assert sorted(out["x"].drop_nulls().to_list()) == sorted(df["x"].drop_nulls().to_list())   # exact Decimals
    assert out["x"].to_list() != df["x"].to_list()
    # the same permutation as on the equivalent integers (value x 100)
    ints = df.select((pl.col("x") * 100).cast(pl.Int64))
    swapped = ints.sdc.rank_swap("x", p=0.5, seed=1)["x"].to_list()
    assert [None if v is None else int(v * 100) for v in out["x"].to_list()] == swapped
    coded = df.sdc.rank_swap("x", p=0.5, seed=1, top=0.2)
    assert coded.schema["x"] == pl.Float64


# -- 28.4: rank swapping as sdcMicro ---------------------------------------------------------------
def test_28_4_sdcmicro_window_is_strictly_below_floor_n_p():
    from naive import reference_rank_swap

    from polars_sdc import rng

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


def test_28_4_sdcmicro_defaults_by_name():
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


# -- 26.15: `$` in a column name is a label, not mathtext ------------------------------------------
def test_26_15_report_with_dollar_key_names():
    from polars_sdc.risk.report import report

    r = np.random.default_rng(0)
    df = pl.DataFrame({"$x^$": r.integers(0, 12, 60), "b": r.integers(0, 12, 60), "v": r.normal(size=60)})
    html = report(df, df, on=["$x^$", "b"]).to_html()
    assert "SUDA" in html and html.count("data:image/png") >= 2  # the SUDA plot names the keys


def test_26_15_plots_with_dollar_column_names():
    import matplotlib

    matplotlib.use("Agg")
    from polars_sdc.plot import groups_2d

    df = pl.DataFrame({"$a$": [1.0, 2.0, 3.0, 4.0], "b$": [1.0, 3.0, 2.0, 4.0]})
    ax = groups_2d(df, "$a$", "b$", pl.Series([0, 0, 1, 1]))
    ax.figure.canvas.draw()                                # mathtext would raise here
    assert ax.get_xlabel() == r"\$a\$"


# -- 26.17: PRAM pd / matrix bad input -------------------------------------------------------------
@pytest.mark.parametrize("kwargs, message", [
    ({"pd": {"other": 0.5}}, r"pd: column 'other' is not one of the PRAM columns \['c'\]"),
    ({"pd": {}}, r"pd: no value for column 'c'"),
    ({"pd": {"c": 2.0}}, r"column 'c': pd must be a number in"),
    ({"pd": "high"}, r"column 'c': pd must be a number in"),
    ({"matrix": "eye"}, r"column 'c': the PRAM matrix must be a square array of numbers.*got 'eye'"),
    ({"matrix": [[1.0, "x"], [0.0, 1.0]]}, r"column 'c': the PRAM matrix must be a square array of numbers"),
    ({"matrix": [1.0, 0.0]}, r"column 'c': the PRAM matrix must be a square array.*1 dimension"),
    ({"matrix": {"d": [[1.0]]}}, r"matrix: column 'd' is not one of the PRAM columns"),
    ({"matrix": [[1.0, 0.0, 0.0]] * 3}, r"column 'c': the PRAM matrix must be 2 x 2"),
])
@pytest.mark.parametrize("lazy", [False, True])
def test_26_17_pram_bad_pd_and_matrix(kwargs, message, lazy):
    df = pl.DataFrame({"c": ["x", "y", "x"], "d": [1, 2, 3]})
    frame = df.lazy() if lazy else df
    with pytest.raises(SDCError, match=message):
        out = frame.sdc.pram("c", seed=1, **kwargs)
        if lazy:
            out.collect()
    # a per-column pd mapping covering the columns still works
    assert df.sdc.pram("c", pd={"c": 0.9}, seed=1).height == 3


# -- "Also": an unknown column suggests the closest name --------------------------------------------
@pytest.mark.parametrize("call", [
    lambda df: df.sdc.k_anonymity(["Age"]),
    lambda df: df.sdc.individual_risk(["Age"]),
    lambda df: df.sdc.mdav(2, ["Age"]),
    lambda df: df.sdc.add_noise("Age", seed=1),
    lambda df: df.sdc.rank_swap("Age", seed=1),
    lambda df: df.sdc.recode_intervals("Age", n=2),
    lambda df: df.lazy().sdc.add_noise("Age", seed=1),
])
def test_also_unknown_column_suggests_the_closest(call):
    df = pl.DataFrame({"age": [30, 40, 50, 60], "income": [1.0, 2.0, 3.0, 4.0], "id": [1, 2, 3, 4]})
    with pytest.raises(SDCError, match=r"column 'Age': not in the frame; did you mean 'age'\?"):
        call(df)
    with pytest.raises(SDCError, match=r"key column 'ID': not in the frame; did you mean 'id'\?"):
        df.sdc.add_noise("income", key="ID", seed=1)
    with pytest.raises(SDCError, match=r"column 'zzz': not in the frame \(columns"):    # nothing close: no guess
        df.sdc.k_anonymity(["zzz"])


# -- 28.5: l-diversity with missing sensitive values; SUDA2 with <= 2 keys -------------------------
def test_28_5_l_diversity_counts_missing_once_not_once_per_record():
    df = pl.DataFrame({"k": [1] * 5 + [2] * 3, "s": ["a", "b", None, None, None, "c", "c", None]})
    l = df.sdc.l_diversity("k", "s")["l_diversity"].to_list()
    # class 1: a, b and missing (3 records): 3; sdcMicro's NaN-per-record categories would give 5
    assert l == [3.0] * 5 + [2.0] * 3
    ent = df.sdc.l_diversity("k", "s", kind="entropy")["l_diversity"][0]
    p = np.array([1, 1, 3]) / 5
    assert ent == pytest.approx(np.exp(-(p * np.log(p)).sum()))


def test_28_5_suda2_two_keys_weights_are_m_minus_size_factorial_with_m_2():
    df = pl.DataFrame({"a": [1, 1, 2, 3], "b": [1, 2, 1, 1]})
    s = df.sdc.suda(["a", "b"])["suda"].to_list()
    # MSUs: row 0 {a,b} (size 2: 0! = 1); row 1 {b} (1! = 1); row 2 {a}, row 3 {a} (1! = 1 each)
    # sdcMicro pads to M = 3: {b} -> 2! = 2, {a,b} -> 1! = 1
    assert s == [1.0, 1.0, 1.0, 1.0]


def test_also_unknown_masked_column_suggests_the_closest():
    df = pl.DataFrame({"age": [1.0, 2.0, 3.0, 4.0]})
    masked = pl.DataFrame({"Age": [1.0, 2.0, 3.0, 4.0]})
    for call in (lambda: df.sdc.loss_report(masked, on=["age"]), lambda: df.sdc.ild(masked.lazy(), on=["age"]),
                 lambda: df.sdc.loss_report(masked.lazy(), on=["age"])):
        with pytest.raises(SDCError, match=r"column 'age': not in the masked frame; did you mean 'Age'\?"):
            call()
