"""Laplace perturbation (Hasegawa et al., 2.2.1) and its Pk-anonymity calibration."""
import math

import numpy as np
import polars as pl
import pytest
from scipy import stats

import polars_sdc
from polars_sdc import SDCError
from polars_sdc.laplace import calibrate_phi, pk_phi

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


def test_structural_nulls_stay_and_nan_raises_naming_the_column():
    # issue 24: a null stays null, the other rows get exactly the noise of their positions
    from polars_sdc import rng

    df = pl.DataFrame({"x": [1.0, None, 3.0]})
    noise = rng.laplace(1, "laplace/x", rng.row_positions(3), 1.0)
    for out in (df.sdc.laplace(1.0, "x", seed=1)["x"], df.select(pl.col("x").sdc.laplace(1.0, seed=1))["x"]):
        assert out[1] is None
        assert [out[0], out[2]] == pytest.approx([1.0 + noise[0], 3.0 + noise[2]], rel=1e-15)
    with pytest.raises(SDCError, match="column 'x': 1 NaN"):
        pl.DataFrame({"x": [1.0, float("nan")]}).lazy().sdc.laplace(1.0, "x", seed=1).collect()
    with pytest.raises(SDCError, match="phi must be"):
        pl.col("x").sdc.laplace(0.0, seed=1)
    assert isinstance(polars_sdc.SDCError("x"), ValueError)


# -- the shared per-row generator (polars_sdc.rng), key=, grouped contexts -------------------
from polars_sdc import rng  # noqa: E402


def test_noise_is_the_shared_generator_convention():
    """noise = rng.laplace(seed, f"laplace/{col}", keys, phi): the convention other engines rely on."""
    df = _frame(5000)
    out = df.sdc.laplace({"x": 2.0, "n": 0.5}, seed=11)
    keys = rng.row_positions(df.height)
    for c, phi in (("x", 2.0), ("n", 0.5)):
        noise = out[c].to_numpy() - df[c].cast(pl.Float64).to_numpy()
        np.testing.assert_allclose(noise, rng.laplace(11, f"laplace/{c}", keys, phi), rtol=0, atol=1e-9)
    keyed = df.sdc.laplace(2.0, "x", seed=11, key="id")
    np.testing.assert_allclose(
        keyed["x"].to_numpy() - df["x"].to_numpy(),
        rng.laplace(11, "laplace/x", rng.row_keys(df["id"]), 2.0), rtol=0, atol=1e-9,
    )
    # string keys hash the same way
    sdf = df.with_columns(pl.format("r{}", "id").alias("rid"))
    np.testing.assert_allclose(
        sdf.sdc.laplace(2.0, "x", seed=11, key="rid")["x"].to_numpy() - df["x"].to_numpy(),
        rng.laplace(11, "laplace/x", rng.row_keys(sdf["rid"]), 2.0), rtol=0, atol=1e-9,
    )


def test_a_keyed_row_keeps_its_noise_under_reordering_and_filtering():
    df = _frame(3000)
    base = df.sdc.laplace(1.0, "x", seed=4, key="id")
    shuffled = df.sample(fraction=1.0, shuffle=True, seed=1).sdc.laplace(1.0, "x", seed=4, key="id")
    assert shuffled.sort("id").equals(base)
    sub = df.filter(pl.col("n") == 3).sdc.laplace(1.0, "x", seed=4, key="id")
    assert sub.equals(base.filter(pl.col("n") == 3))
    # the key is never perturbed, nor part of the default `on`
    assert base["id"].equals(df["id"])
    assert df.sdc.laplace(1.0, seed=4, key="id")["id"].equals(df["id"])


def test_over_and_group_by_agg_never_repeat_noise_across_groups():
    n = 6000
    df = pl.DataFrame({"id": np.arange(n), "g": np.arange(n) % 3, "x": np.zeros(n)})
    # issue reproducer: a seeded laplace inside .over() used to give every group one noise vector
    with pytest.raises(Exception, match="would repeat the same noise in every group"):
        df.select(pl.col("x").sdc.laplace(1.0, seed=1).over("g"))
    with pytest.raises(Exception, match="would repeat the same noise in every group"):
        df.group_by("g").agg(pl.col("x").sdc.laplace(1.0, seed=1))
    frame = df.sdc.laplace(1.0, "x", seed=1, key="id")
    over = df.select(pl.col("x").sdc.laplace(1.0, seed=1, key="id").over("g"))
    assert over["x"].equals(frame["x"])
    agg = (df.group_by("g", maintain_order=True)
           .agg("id", pl.col("x").sdc.laplace(1.0, seed=1, key="id")).explode("id", "x").sort("id"))
    assert agg["x"].equals(frame["x"])
    # per group noise vectors are distinct (no exact difference leaks between groups)
    per_group = [over.filter(df["g"] == g)["x"].to_numpy() for g in range(3)]
    assert not np.allclose(per_group[0], per_group[1]) and not np.allclose(per_group[1], per_group[2])
    # unseeded: a fresh seed per group call, groups differ too
    fresh = df.select(pl.col("x").sdc.laplace(1.0).over("g"))["x"].to_numpy()
    assert not np.allclose(fresh[df["g"].to_numpy() == 0], fresh[df["g"].to_numpy() == 1])
    # k-calibration per stratum inside .over(): phi from the group's range
    y = pl.DataFrame({"id": np.arange(8), "g": [0] * 4 + [1] * 4, "x": [0.0, 1, 2, 3, 0, 10, 20, 30]})
    per = y.select(pl.col("x").sdc.laplace(k=2, seed=3, key="id").over("g"))["x"].to_numpy()
    keys = rng.row_keys(y["id"])
    phi0, phi1 = pk_phi(0, 3, 4, 2), pk_phi(0, 30, 4, 2)
    np.testing.assert_allclose(per[:4] - y["x"].to_numpy()[:4], rng.laplace(3, "laplace/x", keys[:4], phi0), atol=1e-9)
    np.testing.assert_allclose(per[4:] - y["x"].to_numpy()[4:], rng.laplace(3, "laplace/x", keys[4:], phi1), atol=1e-9)


def test_select_after_filter_and_streaming_match_the_frame_method():
    df = _frame(200_000)
    lf = df.lazy().filter(pl.col("n") > 2)
    want = df.filter(pl.col("n") > 2).sdc.laplace(1.5, "x", seed=9)
    for engine in ("in-memory", "streaming"):
        got = lf.select(pl.col("x").sdc.laplace(1.5, seed=9)).collect(engine=engine)
        assert got["x"].equals(want["x"])
        keyed = lf.select(pl.col("x").sdc.laplace(1.5, seed=9, key="id")).collect(engine=engine)
        assert keyed["x"].equals(df.sdc.laplace(1.5, "x", seed=9, key="id").filter(pl.col("n") > 2)["x"])
        lazy = df.lazy().sdc.laplace(1.5, "x", seed=9, key="id").collect(engine=engine)
        assert lazy.equals(df.sdc.laplace(1.5, "x", seed=9, key="id"))


@pytest.mark.parametrize("phi", [1e308, 1.7e308, [1e308]])
def test_phi_that_overflows_float64_is_refused_never_inf(phi):
    df = pl.DataFrame({"x": np.linspace(-1, 1, 1000)})
    with pytest.raises(SDCError, match="column 'x'.*overflows float64"):
        df.sdc.laplace(phi, "x", seed=1)
    with pytest.raises(Exception, match="overflows float64"):
        df.select(pl.col("x").sdc.laplace(1e308, seed=1))
    # a big but safe phi still works and stays finite
    assert df.sdc.laplace(1e300, "x", seed=1)["x"].is_finite().all()


def test_calibrated_phi_that_overflows_is_refused():
    df = pl.DataFrame({"x": [-1.7e308, 0.0, 1.7e308]})
    with pytest.raises(SDCError, match="column 'x'"):
        df.sdc.laplace(on="x", k=2, seed=1)


@pytest.mark.parametrize("phi", [True, False, np.bool_(True), {"x": True}, [True]])
def test_bool_phi_is_refused_like_k_and_p(phi):
    df = pl.DataFrame({"x": [1.0, 2.0, 3.0]})
    with pytest.raises(SDCError, match="phi must be a number"):
        df.sdc.laplace(phi, "x", seed=1)
    with pytest.raises(SDCError, match="phi must be a number"):
        pl.col("x").sdc.laplace(True, seed=1)


def test_bad_keys_raise_naming_the_key():
    df = pl.DataFrame({"id": [1, 1, 2], "x": [1.0, 2.0, 3.0], "f": [0.1, 0.2, 0.3]})
    with pytest.raises(SDCError, match="key column 'id'.*more than once"):
        df.sdc.laplace(1.0, "x", seed=1, key="id")
    with pytest.raises(SDCError, match="key column 'nope'"):
        df.sdc.laplace(1.0, "x", seed=1, key="nope")
    with pytest.raises(SDCError, match="key column 'x'.*also in `on`"):
        df.sdc.laplace(1.0, "x", seed=1, key="x")
    with pytest.raises(SDCError, match="key column 'f'.*cannot be a key"):
        df.sdc.laplace(1.0, "x", seed=1, key="f")
    with pytest.raises(SDCError, match="key column 'id'.*null"):
        pl.DataFrame({"id": [1, None], "x": [1.0, 2.0]}).sdc.laplace(1.0, "x", seed=1, key="id")


def test_laplace_scale_is_the_phi_laplace_k_uses():
    from polars_sdc import datasets
    from polars_sdc.laplace import pk_phi

    adult = datasets.adult()
    phis = adult.sdc.laplace_scale(["age", "capital-gain", "education-num"], k=2)
    assert round(phis["age"], 4) == 14.0508 and round(phis["capital-gain"], 2) == 19247.53
    assert round(phis["education-num"], 4) == 2.8872  # the paper's Adult values
    lo, hi = adult["age"].min(), adult["age"].max()
    assert phis["age"] == pk_phi(lo, hi, adult.height, 2)
    # laplace(k=2) adds noise of exactly that scale: same seed, same numbers as phi=phis
    a = adult.sdc.laplace(on="age", k=2, seed=5)["age"]
    b = adult.sdc.laplace({"age": phis["age"]}, seed=5)["age"]
    assert a.equals(b)
    assert adult.lazy().sdc.laplace_scale("age", k=3) == adult.sdc.laplace_scale("age", k=3)
