"""add_noise: sdcMicro 5.8.1 addNoise methods and the exact moment-preserving variant."""
import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import polars_sdc  # noqa: F401
from polars_sdc import SDCError, datasets, rng
from conftest import assert_one_line_sdc_error
from naive import sample_moments



def test_moments_on_the_census_keep_means_and_the_singular_covariance_exactly():
    df = datasets.census()
    X = df.to_numpy().astype(float)
    assert np.linalg.matrix_rank(np.cov(X.T)) < X.shape[1]           # PTOTVAL = PEARNVAL + POTHVAL
    out = df.sdc.add_noise(method="moments", seed=1)
    Y = out.to_numpy()
    mx, Sx = sample_moments(X)
    my, Sy = sample_moments(Y)
    sd = np.sqrt(np.diag(Sx))
    assert np.all(np.abs(my - mx) <= 1e-9 * sd)
    assert np.all(np.abs(Sy - Sx) <= 1e-9 * np.outer(sd, sd))
    # the exact linear relation survives the noise; the records did change
    rel = (out["PTOTVAL"] - out["PEARNVAL"] - out["POTHVAL"]).abs().max()
    assert rel <= 1e-9 * df["PTOTVAL"].abs().max()
    assert np.all(np.abs(Y - X).mean(axis=0) > 0.1 * sd)
    assert np.corrcoef(X[:, 0], Y[:, 0])[0, 1] < 0.99


@pytest.mark.parametrize("scale", [1e-150, 1.0, 1e150])
def test_moments_at_extreme_magnitudes(scale):
    r = np.random.default_rng(3)
    X = r.normal(size=(500, 3)) @ np.array([[1, 0.5, 0], [0, 1, 0.3], [0, 0, 1]]) * scale
    df = pl.DataFrame(X, schema=["a", "b", "c"])
    Y = df.sdc.add_noise(method="moments", seed=2).to_numpy()
    mx, Sx = sample_moments(X)
    my, Sy = sample_moments(Y)
    sd = np.sqrt(np.diag(Sx))
    assert np.all(np.abs(my - mx) <= 1e-9 * sd)
    assert np.all(np.abs(Sy - Sx) <= 1e-9 * np.outer(sd, sd))


def test_additive_is_sdcmicros_noise_percent_of_sd_on_the_shared_generator():
    n = 250_000                      # above the size where the one-pass Numba generator takes over
    r = np.random.default_rng(0)
    df = pl.DataFrame({"id": np.arange(n), "a": r.normal(10, 3, n), "b": r.integers(0, 100, n)})
    out = df.sdc.add_noise(["a", "b"], method="additive", noise=50, seed=4)
    keys = rng.row_positions(n)
    for c in ("a", "b"):
        x = df[c].cast(pl.Float64).to_numpy()
        want = x + rng.normal(4, f"add_noise/{c}", keys) * 0.5 * x.std(ddof=1)
        np.testing.assert_allclose(out[c].to_numpy(), want, rtol=1e-12, atol=1e-9)
    keyed = df.sdc.add_noise("a", noise=50, seed=4, key="id")
    shuffled = df.sample(fraction=1.0, shuffle=True, seed=1).sdc.add_noise("a", noise=50, seed=4, key="id")
    np.testing.assert_allclose(shuffled.sort("id")["a"].to_numpy(), keyed["a"].to_numpy(), rtol=1e-12)


def test_correlated_noise_has_the_data_covariance_and_correlated2_keeps_moments():
    n = 200_000
    r = np.random.default_rng(1)
    X = r.multivariate_normal([5, -2], [[4, 3], [3, 9]], n)
    df = pl.DataFrame(X, schema=["a", "b"])
    E = df.sdc.add_noise(method="correlated", noise=40, seed=5).to_numpy() - X
    np.testing.assert_allclose(np.cov(E.T), 0.4 * np.cov(X.T), rtol=0.03)
    Y = df.sdc.add_noise(method="correlated2", delta=0.3, seed=5).to_numpy()
    np.testing.assert_allclose(Y.mean(0), X.mean(0), atol=0.05)
    np.testing.assert_allclose(Y.var(0), X.var(0), rtol=0.02)
    assert np.corrcoef(X[:, 0], Y[:, 0])[0, 1] == pytest.approx(np.sqrt(1 - 0.09), abs=0.01)


def test_eager_lazy_streaming_and_frame_untouched():
    n = 150_000
    r = np.random.default_rng(2)
    df = pl.DataFrame({"a": r.normal(size=n), "b": r.normal(size=n), "s": ["x"] * n})
    before = df.clone()
    for method in ("additive", "moments"):
        eager = df.sdc.add_noise(["a", "b"], method=method, seed=8)
        chunked = pl.concat([df.slice(0, 50_000), df.slice(50_000)], rechunk=False)
        assert chunked.lazy().sdc.add_noise(["a", "b"], method=method, seed=8).collect(engine="streaming").equals(eager)
        assert eager["s"].equals(df["s"])
    assert df.equals(before)
    with pytest.raises(SDCError, match="1 row in the frame"):   # was released unchanged (audit, session 24)
        pl.DataFrame({"a": [1.0]}).sdc.add_noise("a", seed=1)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(on="s"), "column 's'.*not numeric"),
        (dict(on="a", method="ROMM"), "method must be one of"),
        (dict(on="a", noise=-1), "noise must be"),
        (dict(on="a", noise=True), "noise must be"),
        (dict(on="a", delta=0), "delta must be"),
        (dict(on="a", key="a"), "key column 'a'"),
    ],
)
def test_bad_input_raises_sdc_error(kwargs, match):
    df = pl.DataFrame({"a": [1.0, 2.0, 4.0], "s": ["x", "y", "z"]})
    with pytest.raises(SDCError, match=match):
        df.sdc.add_noise(**kwargs)


def test_nulls_and_overflow_name_the_column():
    # structural nulls stay null (issue 24): the non-null values are noised
    out = pl.DataFrame({"a": [1.0, None, 3.0]}).sdc.add_noise("a", seed=1)
    assert out["a"].is_null().to_list() == [False, True, False] and out["a"][0] != 1.0
    with pytest.raises(SDCError, match="column 'a': 1 NaN"):
        pl.DataFrame({"a": [1.0, float("nan"), 3.0]}).sdc.add_noise("a", seed=1)
    with pytest.raises(SDCError, match="column 'a'.*overflow"):
        pl.DataFrame({"a": [-1.7e308, 1.7e308, 0.0]}).sdc.add_noise("a", noise=1e6, seed=1)


def test_moments_on_a_large_singular_frame_uses_the_one_pass_kernels_and_stays_exact():
    n = 250_000                      # above the size where the Numba generator and product take over
    r = np.random.default_rng(9)
    a, b = r.normal(3, 2, n), r.lognormal(1, 0.5, n)
    df = pl.DataFrame({"a": a, "b": b, "s": a + b})
    X = df.to_numpy()
    Y = df.sdc.add_noise(method="moments", seed=4).to_numpy()
    mx, Sx = sample_moments(X)
    my, Sy = sample_moments(Y)
    sd = np.sqrt(np.diag(Sx))
    assert np.all(np.abs(my - mx) <= 1e-9 * sd)
    assert np.all(np.abs(Sy - Sx) <= 1e-9 * np.outer(sd, sd))
    assert np.abs(Y[:, 2] - Y[:, 0] - Y[:, 1]).max() <= 1e-9 * np.abs(X[:, 2]).max()


# ---- by= strata ---------------------------------------------------------------------------

def _strata_frame(seed=6):
    r = np.random.default_rng(seed)
    sizes = {"big": 3000, "mid": 200, "tiny": 5, "six": 6}             # 5 rows: the moments minimum on 3 columns
    g = np.concatenate([[k] * v for k, v in sizes.items()])
    n = g.size
    a = r.normal(10, 2, n) * np.where(g == "big", 1e6, 1.0)             # very different scales per stratum
    b = 0.5 * a + r.lognormal(0, 1, n)
    perm = r.permutation(n)
    return pl.DataFrame({"id": np.arange(n), "g": g[perm], "a": a[perm], "b": b[perm], "s": (a + b)[perm]})


def test_by_moments_reproduces_each_strata_means_and_covariance_exactly():
    df = _strata_frame()
    out = df.sdc.add_noise(["a", "b", "s"], method="moments", by="g", seed=3)
    assert out.select("id", "g").equals(df.select("id", "g"))
    for (gv,), part in df.with_row_index("i").group_by("g"):
        rows = part["i"].to_numpy()
        X = df.select("a", "b", "s").to_numpy()[rows]
        Y = out.select("a", "b", "s").to_numpy()[rows]
        mx, Sx = sample_moments(X)
        my, Sy = sample_moments(Y)
        sd = np.sqrt(np.diag(Sx))
        assert np.all(np.abs(my - mx) <= 1e-9 * sd), gv
        assert np.all(np.abs(Sy - Sx) <= 1e-9 * np.outer(sd, sd)), gv          # singular: s = a + b
        assert np.abs(Y[:, 2] - Y[:, 0] - Y[:, 1]).max() <= 1e-9 * np.abs(X[:, 2]).max()
        if rows.size > 10:
            assert np.all(np.abs(Y - X).mean(axis=0) > 0.1 * sd)               # records did change
    # not the pooled moments: the pooled covariance of the release differs from the pooled original's
    # only through the strata, which are kept, so it is equal too; the strata means are not the pooled mean
    assert out.filter(pl.col("g") == "big")["a"].mean() > 1e6


def test_by_additive_and_correlated2_use_each_strata_sd():
    df = _strata_frame()
    keys = rng.row_positions(df.height)
    out = df.sdc.add_noise(["a", "b"], method="additive", noise=40, by="g", seed=5)
    out2 = df.sdc.add_noise(["a", "b"], method="correlated2", delta=0.2, by="g", seed=5)
    g = df["g"].to_numpy()
    for c in ("a", "b"):
        z = rng.normal(5, f"add_noise/{c}", keys)
        x = df[c].to_numpy()
        want = np.empty_like(x)
        want2 = np.empty_like(x)
        for gv in np.unique(g):
            m = g == gv
            sd = x[m].std(ddof=1)
            want[m] = x[m] + 0.4 * sd * z[m]
            d1 = np.sqrt(1 - 0.04)
            want2[m] = d1 * x[m] + 0.2 * (sd * z[m] + x[m].mean() * (1 - d1) / 0.2)
        np.testing.assert_allclose(out[c].to_numpy(), want, rtol=1e-12)
        np.testing.assert_allclose(out2[c].to_numpy(), want2, rtol=1e-12)


@pytest.mark.parametrize("method", ["additive", "correlated", "correlated2", "moments"])
def test_by_equals_each_stratum_noised_on_its_own_with_a_key(method):
    df = _strata_frame(7)
    both = df.sdc.add_noise(["a", "b"], method=method, by="g", seed=2, key="id")
    for (gv,), part in df.with_row_index("i").group_by("g"):
        alone = part.drop("i").sdc.add_noise(["a", "b"], method=method, seed=2, key="id")
        np.testing.assert_allclose(alone.select("a", "b").to_numpy(), both[part["i"]].select("a", "b").to_numpy(),
                                   rtol=1e-12)


def test_by_eager_lazy_streaming_key_and_numeric_strata_column_left_alone():
    n = 40_000
    r = np.random.default_rng(8)
    df = pl.DataFrame({"id": np.arange(n), "year": r.integers(2000, 2005, n), "a": r.normal(size=n),
                       "b": r.normal(size=n)})
    eager = df.sdc.add_noise(["a", "b"], method="moments", by="year", seed=1)
    chunked = pl.concat([df.slice(0, 15_000), df.slice(15_000)], rechunk=False)
    assert chunked.lazy().sdc.add_noise(["a", "b"], method="moments", by="year", seed=1).collect(
        engine="streaming").equals(eager)
    dflt = df.drop("id").sdc.add_noise(by="year", seed=1)                    # default on: a and b only
    assert dflt["year"].equals(df["year"]) and dflt.schema["year"] == pl.Int64
    keyed = df.sdc.add_noise(["a", "b"], by="year", seed=1, key="id")
    shuffled = df.sample(fraction=1.0, shuffle=True, seed=2).sdc.add_noise(["a", "b"], by="year", seed=1, key="id")
    np.testing.assert_allclose(shuffled.sort("id").select("a", "b").to_numpy(), keyed.select("a", "b").to_numpy(),
                               rtol=1e-12, atol=1e-12)                      # sums in another order


@pytest.mark.parametrize(
    "method, frame, match",
    [
        ("additive", {"g": ["x", "x", "y"], "a": [1.0, 2.0, 3.0]}, r"stratum \{'g': 'y'\} of `by`: 1 row.*at least 2"),
        ("correlated", {"g": [None, "x", "x"], "a": [1.0, 2.0, 3.0]}, r"stratum \{'g': None\} of `by`: 1 row"),
        ("moments", {"g": ["x"] * 3 + ["y"] * 2, "a": [1.0, 2, 3, 4, 5]}, r"stratum \{'g': 'y'\}.*2 row.*at least 3"),
    ],
)
def test_by_small_strata_are_errors_naming_them(method, frame, match):
    with pytest.raises(SDCError, match=match):
        pl.DataFrame(frame).sdc.add_noise("a", method=method, by="g", seed=1)
    with pytest.raises(SDCError, match="column 'g': in both"):
        pl.DataFrame({"g": [1.0, 2.0, 3.0], "a": [1.0, 2.0, 3.0]}).sdc.add_noise(["a", "g"], by="g", seed=1)


# -- audit (session 24): every method is scale-equivariant down to 1e-300 and up to 1e300 (the
# sds of values near 1e-300 underflowed to 0 and "additive" / "correlated" released the data
# unchanged; near 1e200 the variances overflowed and every method refused)
@pytest.mark.parametrize("method", ["additive", "correlated", "correlated2", "moments"])
@pytest.mark.parametrize("scale", [1e-300, 1e200, 1e300])
def test_noise_is_scale_equivariant_at_extreme_magnitudes(method, scale):
    r = np.random.default_rng(5)
    X = r.normal(size=(40, 2)) @ np.array([[1.0, 0.4], [0.0, 1.0]]) + 3.0
    base = pl.DataFrame(X, schema=["a", "b"]).sdc.add_noise(method=method, seed=4).to_numpy()
    out = pl.DataFrame(X * scale, schema=["a", "b"]).sdc.add_noise(method=method, seed=4).to_numpy()
    assert np.allclose(out / scale, base, rtol=1e-9, atol=0)
    assert (out != X * scale).all(axis=0).any()


def test_a_lone_row_or_household_is_an_error_not_released_unchanged_and_an_empty_frame_is_empty():
    # one row (or one non-null value, or one household of a household-level column): no sd, and
    # the value came back unchanged; a one-row stratum of `by` was already an error
    with pytest.raises(SDCError, match="1 row in the frame; add_noise method='additive' needs at least 2"):
        pl.DataFrame({"x": [5.0]}).sdc.add_noise(["x"], seed=1)
    with pytest.raises(SDCError, match="1 row \\(non-null values of 'x'\\); add_noise method='correlated2'"):
        pl.DataFrame({"x": [5.0, None, None]}).sdc.add_noise(["x"], method="correlated2", seed=1)
    hh = pl.DataFrame({"hh": [1, 1, 1], "h": [4.0, 4.0, 4.0], "x": [1.0, 2.0, 3.0]})
    with pytest.raises(SDCError, match="household-level column counts households"):
        hh.sdc.add_noise(["h", "x"], seed=1, household="hh", household_columns=["h"])
    empty = pl.DataFrame({"x": [1.0]}).clear()
    assert empty.sdc.add_noise(["x"], seed=1).shape == (0, 1)
    assert empty.lazy().sdc.add_noise(["x"], method="correlated", seed=1).collect(engine="streaming").shape == (0, 1)


# -- moments on few rows: n <= p + 1 rows would give the records back ---------------------------
def test_moments_on_two_rows_is_refused():
    df = pl.DataFrame({"x": [10.0, 50.0], "y": [3.0, -1.0]})
    with pytest.raises(SDCError, match=r"2 row\(s\).*moments.*2 column\(s\) needs at least 4 rows.*pin|give the records"):
        df.sdc.add_noise(method="moments", seed=5)
    with pytest.raises(SDCError, match="needs at least 4 rows"):
        df.lazy().sdc.add_noise(method="moments", seed=5).collect()


@pytest.mark.parametrize("n, p", [(1, 1), (2, 1), (3, 2), (4, 3), (4, 2)])
def test_moments_refuses_exactly_n_le_p_plus_1(n, p):
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


def test_moments_why_three_rows_on_two_columns_are_pinned():
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


def test_moments_by_strata_need_p_plus_2_rows():
    df = pl.DataFrame({"g": ["a"] * 4 + ["b"] * 6, "x": np.arange(10.0), "y": np.arange(10.0) ** 2})
    with pytest.raises(SDCError, match=r"stratum \{'g': 'a'\} of `by`: 3 row\(s\).*2 column\(s\) needs at least 4.*pin"):
        df.slice(1).sdc.add_noise(method="moments", by="g", seed=1)
    out = df.sdc.add_noise(method="moments", by="g", seed=1)         # 4 = p + 2 rows: accepted
    assert out.height == 10


def test_moments_constant_column_at_one_tenth():
    """A constant column with no exact binary mean (0.1) stays exactly constant, and the other
    columns keep their means and covariance exactly."""
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


# -- property: tiny n, nearly constant, constant and extreme columns ------------------------------
@st.composite
def noise_frames(draw):
    """1..9 rows, 1..3 columns: normal, nearly constant, constant at a value with no exact
    binary mean (0.1, 1/3), extreme magnitudes."""
    n = draw(st.integers(1, 9))
    p = draw(st.integers(1, 3))
    r = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    cols = {}
    for j in range(p):
        style = draw(st.sampled_from(["normal", "nearly", "const", "huge", "tiny"]))
        if style == "normal":
            v = r.normal(size=n)
        elif style == "nearly":
            v = 0.1 + r.integers(0, 2, n) * 1e-12
        elif style == "const":
            v = np.full(n, draw(st.sampled_from([0.1, 1 / 3, -7.3, 0.0])))
        elif style == "huge":
            v = r.normal(size=n) * 1e150
        else:
            v = r.normal(size=n) * 1e-150
        cols[f"x{j}"] = v
    return pl.DataFrame(cols)


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(df=noise_frames(), method=st.sampled_from(["additive", "correlated", "correlated2", "moments"]))
def test_add_noise_tiny_and_constant(df, method):
    """"moments" refuses n <= p + 1; otherwise exact means and covariance, a constant column
    stays exactly constant; every method releases finite values — or a one-line SDCError."""
    n, p = df.height, df.width
    try:
        out = df.sdc.add_noise(method=method, seed=3)
    except Exception as exc:  # noqa: BLE001
        assert_one_line_sdc_error(exc)
        # moments refuses n <= p + 1; every method refuses one row (no sd: it was released unchanged)
        assert (method == "moments" and n <= p + 1) or n == 1, str(exc)
        return
    assert not (method == "moments" and n <= p + 1) and n != 1
    Y = out.to_numpy()
    assert np.isfinite(Y).all()
    if method != "moments":
        return
    X = df.to_numpy()
    for j, c in enumerate(df.columns):
        if df[c].n_unique() == 1:
            assert out[c].to_list() == df[c].to_list()
    mx, Sx = sample_moments(X)
    my, Sy = sample_moments(Y)
    # exact up to rounding: relative to the spread, plus the grid of float64 at the values'
    # magnitude (a nearly constant 0.1 + k 1e-12 is released on a grid of 1.4e-17)
    spread = np.sqrt(np.diag(Sx))
    u = np.spacing(np.abs(X).max(axis=0)) * 4
    assert (np.abs(my - mx) <= 1e-9 * spread + u).all()
    tol = 1e-8 * np.outer(spread, spread) + np.outer(u, spread) + np.outer(spread, u) + np.outer(u, u)
    assert (np.abs(Sy - Sx) <= tol).all()
