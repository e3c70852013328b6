"""Laplace perturbation (seed 004, 2.2.1) and its Pk-anonymity calibration."""
import math

import numpy as np
import polars as pl
import pytest
from scipy import stats

import polars_sdc
from polars_sdc import SDCError
from polars_sdc.noise import calibrate_phi, pk_phi

N_ADULT = 32561


@pytest.mark.parametrize(
    "a, b, expected",
    [(17, 90, 14.0508), (0, 99999, 19247.53), (1, 16, 2.8872)],  # adult age, capital-gain, education-num
)
def test_pk_phi_reproduces_the_papers_adult_values(a, b, expected):
    assert pk_phi(a, b, N_ADULT, 2) == pytest.approx(expected, abs=5e-3 if b > 1000 else 5e-5)
    # the m-attribute variant scales linearly in m
    assert pk_phi(a, b, N_ADULT, 2, m=3) == pytest.approx(3 * pk_phi(a, b, N_ADULT, 2))
    assert pk_phi(a, b, N_ADULT, 5) == pytest.approx(2 * (b - a) / math.log((N_ADULT - 1) / 4))


def test_calibration_from_a_frame_uses_the_observed_range():
    age = np.resize(np.arange(17, 91), N_ADULT)
    df = pl.DataFrame({"age": age, "edu": np.resize(np.arange(1, 17), N_ADULT)})
    phis = calibrate_phi(df, ["age", "edu"], 2)
    assert phis["age"] == pytest.approx(14.0508, abs=5e-5)
    assert phis["edu"] == pytest.approx(2.8872, abs=5e-5)
    by_k = df.sdc.laplace(on=["age", "edu"], k=2, seed=3)
    by_phi = df.sdc.laplace(phis, seed=3)
    assert by_k.equals(by_phi)
    joint = df.sdc.laplace(on=["age", "edu"], k=2, m=2, seed=3)
    noise_1 = (by_k["age"] - df["age"]).to_numpy()
    noise_2 = (joint["age"] - df["age"]).to_numpy()
    np.testing.assert_allclose(noise_2, 2 * noise_1, rtol=1e-9, atol=1e-9)


def _frame(n=250_000):
    rng = np.random.default_rng(1)
    return pl.DataFrame({"id": np.arange(n), "x": rng.normal(50, 10, n), "n": rng.integers(0, 9, n), "s": ["a"] * n})


def test_same_seed_same_noise_eager_lazy_streaming_and_expression():
    df = _frame()
    eager = df.sdc.laplace(2.0, ["x", "n"], seed=11)
    chunked = pl.concat([df.slice(0, 60_000), df.slice(60_000, 100_000), df.slice(160_000)], rechunk=False)
    lazy = chunked.lazy().sdc.laplace(2.0, ["x", "n"], seed=11)
    assert lazy.collect().equals(eager)
    assert lazy.collect(engine="streaming").equals(eager)
    expr = chunked.lazy().with_columns(
        pl.col("x").sdc.laplace(2.0, seed=11), pl.col("n").sdc.laplace(2.0, seed=11)
    )
    assert expr.collect(engine="streaming").equals(eager)
    assert df.with_columns(pl.col("x").sdc.laplace(2.0, seed=11)).equals(df.sdc.laplace(2.0, "x", seed=11))
    # a column's noise does not depend on the other columns perturbed with it
    assert df.sdc.laplace(2.0, "x", seed=11)["x"].equals(eager["x"])
    assert not df.sdc.laplace(2.0, "x", seed=12)["x"].equals(eager["x"])


def test_output_keeps_rows_columns_and_does_not_mutate():
    df = _frame(1000)
    before = df.clone()
    out = df.sdc.laplace({"x": 1.0, "n": 3.0}, seed=0)
    assert df.equals(before)
    assert out.columns == df.columns
    assert out.schema["x"] == pl.Float64 and out.schema["n"] == pl.Float64
    assert out.select("id", "s").equals(df.select("id", "s"))
    lazy = df.lazy().sdc.laplace({"x": 1.0, "n": 3.0}, seed=0)
    assert lazy.collect_schema() == out.schema


def test_noise_is_laplace_with_scale_phi_and_independent_across_columns():
    n = 200_000
    df = pl.DataFrame({"a": np.zeros(n), "b": np.zeros(n)})
    out = df.sdc.laplace({"a": 2.0, "b": 0.5}, seed=5)
    a, b = out["a"].to_numpy(), out["b"].to_numpy()
    assert stats.kstest(a, stats.laplace(scale=2.0).cdf).pvalue > 1e-3
    assert stats.kstest(b, stats.laplace(scale=0.5).cdf).pvalue > 1e-3
    assert abs(np.corrcoef(a, b)[0, 1]) < 0.01  # same seed, but a different stream per column


def test_clamp_stays_in_the_observed_range():
    df = pl.DataFrame({"x": np.linspace(0, 1, 500)})
    out = df.sdc.laplace(5.0, "x", seed=2, clamp=True)["x"]
    assert out.min() == 0.0 and out.max() == 1.0
    assert out.n_unique() > 2
    expr = df.select(pl.col("x").sdc.laplace(5.0, seed=2, clamp=True))["x"]
    assert expr.equals(out)


def test_without_seed_noise_is_fresh():
    df = pl.DataFrame({"x": np.zeros(100)})
    assert not df.sdc.laplace(1.0, "x")["x"].equals(df.sdc.laplace(1.0, "x")["x"])


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(phi=0.0, on="x"), "phi must be"),
        (dict(phi=-1.0, on="x"), "phi must be"),
        (dict(phi=float("nan"), on="x"), "phi must be"),
        (dict(phi=1.0, on="s"), "column 's'.*not numeric"),
        (dict(phi=1.0, on="nope"), "column 'nope'"),
        (dict(phi=1.0, k=2, on="x"), "either phi or k"),
        (dict(on="x"), "give phi"),
        (dict(k=1, on="x"), "k must be >= 2"),
        (dict(k=10, on="x"), "smaller than the number of records"),
        (dict(k=2, on="c"), "column 'c': constant"),
        (dict(phi=1.0, on="x", seed=-1), "seed"),
        (dict(phi={"z": 1.0}, on="x"), "column 'x': no phi"),
    ],
)
def test_bad_input_raises_sdc_error(kwargs, match):
    df = pl.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "s": ["a", "b", "c", "d"], "c": [5.0] * 4})
    with pytest.raises(SDCError, match=match):
        df.sdc.laplace(**kwargs)


def test_nulls_and_nan_raise_naming_the_column():
    with pytest.raises(SDCError, match="column 'x': 1 null"):
        pl.DataFrame({"x": [1.0, None]}).sdc.laplace(1.0, "x", seed=1)
    with pytest.raises(SDCError, match="column 'x': 1 NaN"):
        pl.DataFrame({"x": [1.0, float("nan")]}).lazy().sdc.laplace(1.0, "x", seed=1).collect()
    with pytest.raises(SDCError, match="column 'x': 1 null"):
        pl.DataFrame({"x": [1.0, None]}).select(pl.col("x").sdc.laplace(1.0, seed=1))
    with pytest.raises(SDCError, match="phi must be"):
        pl.col("x").sdc.laplace(0.0, seed=1)
    assert isinstance(polars_sdc.SDCError("x"), ValueError)
