import numpy as np
import polars as pl
import polars.selectors as cs
import pytest

from polars_sdc import SDCError
from polars_sdc._columns import check_finite, check_k, numeric_matrix, resolve_columns
from polars_sdc.standardize import zscore
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st


@pytest.fixture
def df():
    return pl.DataFrame(
        {"a": [1.0, 2.0, 3.0], "b": [1, 2, 3], "s": ["x", "y", "z"], "d": [None, 1.0, 2.0]}
    )


def test_names_and_selectors(df):
    assert resolve_columns(df, "a") == ["a"]
    assert resolve_columns(df, ["b", "a"]) == ["b", "a"]
    assert resolve_columns(df, cs.numeric()) == ["a", "b", "d"]
    assert resolve_columns(df.lazy(), cs.string()) == ["s"]
    assert resolve_columns(df, None, default="numeric") == ["a", "b", "d"]


@pytest.mark.parametrize(
    "on, kind, message",
    [
        ("nope", "any", "column 'nope': not in the frame"),
        (["a", "a"], "any", "column 'a': selected twice"),
        ("s", "numeric", "column 's': dtype String is not numeric"),
        ("a", "categorical", "column 'a': dtype Float64 is not String"),
        ([], "any", "matches no column"),
    ],
)
def test_selection_errors_name_the_column(df, on, kind, message):
    with pytest.raises(SDCError, match=message):
        resolve_columns(df, on, kind=kind)


def test_sdcerror_is_valueerror():
    assert issubclass(SDCError, ValueError)


def test_nulls_nan_inf_are_named():
    df = pl.DataFrame({"ok": [1.0, 2.0], "n": [1.0, None], "nan": [1.0, float("nan")], "inf": [float("-inf"), 1.0]})
    with pytest.raises(SDCError, match="column 'n': 1 null"):
        check_finite(df, ["ok", "n"])
    with pytest.raises(SDCError, match="column 'nan': 1 NaN"):
        check_finite(df, ["ok", "nan"])
    with pytest.raises(SDCError, match="column 'inf': 1 infinite"):
        check_finite(df, ["inf"])
    check_finite(df, ["ok"])


def test_numeric_matrix_is_float64_contiguous(df):
    X = numeric_matrix(df, ["a", "b"])
    assert X.dtype == np.float64 and X.flags.c_contiguous
    np.testing.assert_array_equal(X, [[1, 1], [2, 2], [3, 3]])


def test_check_k():
    assert check_k(3, 5) == 3
    assert check_k(np.int64(2), 5) == 2
    with pytest.raises(SDCError, match="k must be >= 1"):
        check_k(0, 5)
    with pytest.raises(SDCError, match="larger than the number of rows"):
        check_k(6, 5)
    with pytest.raises(SDCError, match="integer"):
        check_k(2.5, 5)


def test_zscore_constant_column():
    Z = zscore(np.array([[1.0, 7.0], [2.0, 7.0], [3.0, 7.0]]))
    assert np.isfinite(Z).all()
    np.testing.assert_allclose(Z[:, 1], 0.0)
    np.testing.assert_allclose(Z[:, 0], (np.array([1, 2, 3]) - 2) / np.std([1, 2, 3]))


def test_zscore_expr_matches_numpy():
    df = pl.DataFrame({"x": [1.0, 4.0, 9.0], "c": [5, 5, 5]})
    out = df.select(pl.col("x").sdc.zscore(), pl.col("c").sdc.zscore())
    np.testing.assert_allclose(out["x"].to_numpy(), zscore(df["x"].to_numpy())[:, 0])
    assert out["c"].to_list() == [0.0, 0.0, 0.0]


# -- reproducers and property tests of the first reliability trial (issue 10) -----------------
FAST = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def test_zscore_extremes_reproducer():
    from polars_sdc.standardize import zscore

    x = np.array([1.0, 2.0, 4.0, 7.0])
    want = zscore(x)
    for scale in (1e154, 1e300, 1e-162, 1e-300):
        got = zscore(x * scale)
        np.testing.assert_allclose(got, want, rtol=1e-12)
    df = pl.DataFrame({"x": x * 1e160})
    masked = pl.DataFrame({"x": [1.5e160, 1.5e160, 5.5e160, 5.5e160]})
    ref = pl.DataFrame({"x": x}).sdc.ilssdm("x", masked=masked.select(pl.col("x") / 1e160))
    assert df.sdc.ilssdm("x", masked=masked) == pytest.approx(ref, rel=1e-12) and ref > 0
    assert df.sdc.ilssdm("x", masked=masked, standardize=False) == pytest.approx(ref, rel=1e-12)


@FAST
@given(e=st.integers(-1070 + 60, 1023 - 4), seed=st.integers(0, 2**16), n=st.integers(2, 40))
def test_property_zscore_is_scale_free(e, seed, n):
    from polars_sdc.standardize import zscore

    x = np.random.default_rng(seed).normal(size=(n, 2))
    z = zscore(np.ldexp(x, e))
    assert np.all(np.isfinite(z))
    np.testing.assert_allclose(z, zscore(x), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("scale", [1e154, 1e300, 1e-162, 1e-300])
def test_expression_zscore_extremes(scale):
    x = [1.0, 2.0, 4.0, -7.0]
    want = pl.DataFrame({"x": x}).select(pl.col("x").sdc.zscore())["x"].to_numpy()
    df = pl.DataFrame({"x": [v * scale for v in x]})
    got = df.select(pl.col("x").sdc.zscore())["x"].to_numpy()
    np.testing.assert_allclose(got, want, rtol=1e-12)
    lazy = df.lazy().select(pl.col("x").sdc.zscore()).collect(engine="streaming")["x"].to_numpy()
    np.testing.assert_allclose(lazy, want, rtol=1e-12)


# -- an unknown column suggests the closest name, on every face that resolves columns ----------------
@pytest.mark.parametrize("call", [
    lambda df: df.sdc.k_anonymity(["Age"]),
    lambda df: df.sdc.individual_risk(["Age"]),
    lambda df: df.sdc.mdav(2, ["Age"]),
    lambda df: df.sdc.add_noise("Age", seed=1),
    lambda df: df.sdc.rank_swap("Age", seed=1),
    lambda df: df.sdc.recode_intervals("Age", n=2),
    lambda df: df.lazy().sdc.add_noise("Age", seed=1),
])
def test_unknown_column_suggests_the_closest(call):
    df = pl.DataFrame({"age": [30, 40, 50, 60], "income": [1.0, 2.0, 3.0, 4.0], "id": [1, 2, 3, 4]})
    with pytest.raises(SDCError, match=r"column 'Age': not in the frame; did you mean 'age'\?"):
        call(df)
    with pytest.raises(SDCError, match=r"key column 'ID': not in the frame; did you mean 'id'\?"):
        df.sdc.add_noise("income", key="ID", seed=1)
    with pytest.raises(SDCError, match=r"column 'zzz': not in the frame \(columns"):    # nothing close: no guess
        df.sdc.k_anonymity(["zzz"])


def test_unknown_masked_column_suggests_the_closest():
    df = pl.DataFrame({"age": [1.0, 2.0, 3.0, 4.0]})
    masked = pl.DataFrame({"Age": [1.0, 2.0, 3.0, 4.0]})
    for call in (lambda: df.sdc.loss_report(masked, on=["age"]), lambda: df.sdc.ild(masked.lazy(), on=["age"]),
                 lambda: df.sdc.loss_report(masked.lazy(), on=["age"])):
        with pytest.raises(SDCError, match=r"column 'age': not in the masked frame; did you mean 'Age'\?"):
            call()
