"""Regression tests of issue 26 (second adversarial trial: risk, masking and CLI surfaces) and
the rank-swap / l-diversity / weights items of issue 28. Each reproducer of the issue is a test
here, named by its item number; the classes of input behind them are property tests in
``tests/test_fuzz_reliability.py``."""
from __future__ import annotations

import numpy as np
import polars as pl
import pytest

import polars_sdc  # noqa: F401
from polars_sdc import SDCError


def _moments(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return X.mean(axis=0), np.cov(X.T, ddof=1).reshape(X.shape[1], X.shape[1])


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
        mx, Sx = _moments(df.to_numpy())
        my, Sy = _moments(out)
        np.testing.assert_allclose(my, mx, atol=1e-12)
        np.testing.assert_allclose(Sy, Sx, atol=1e-12)
    # the other methods still accept the frame (one row: unchanged)
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
    mx, Sx = _moments(X)
    my, Sy = _moments(Y)
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
        np.testing.assert_allclose(_moments(B)[0], _moments(A)[0], rtol=1e-13)
        np.testing.assert_allclose(_moments(B)[1], _moments(A)[1], rtol=1e-12, atol=1e-13)
