import numpy as np
import polars as pl
import polars.selectors as cs
import pytest

from polars_sdc import SDCError
from polars_sdc._columns import check_finite, check_k, numeric_matrix, resolve_columns
from polars_sdc.standardize import zscore


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
