"""Categorical and mixed quasi-identifiers (product distance, thesis 3.1.3)."""
import numpy as np
import polars as pl
import pytest

from polars_sdc import SDCError
from polars_sdc.microagg.features import category_codes, feature_matrix
from naive import pairwise_sq


def test_embedding_reproduces_product_distance(rng):
    n = 40
    df = pl.DataFrame(
        {
            "x": rng.normal(size=n),
            "nom": rng.choice(["a", "b", "c"], n),
            "ord": pl.Series(rng.choice(["lo", "mid", "hi"], n)).cast(pl.Enum(["lo", "mid", "hi", "top"])),
        }
    )
    w = {"x": 0.5, "nom": 2.0, "ord": 3.0}
    X = feature_matrix(df, ["x", "nom", "ord"], ordinal=["ord"], weights=w)
    z = (df["x"] - df["x"].mean()) / df["x"].std(ddof=0)
    zx = z.to_numpy()
    nom = df["nom"].to_numpy()
    rank = df["ord"].to_physical().to_numpy().astype(np.int64)
    expected = (
        w["x"] * (zx[:, None] - zx[None, :]) ** 2
        + w["nom"] * (nom[:, None] != nom[None, :])
        # Sano & Hattori eq. 2: categories between the two over |D(V)| = 4 (the Enum has 4)
        + w["ord"] * (np.abs(rank[:, None] - rank[None, :]) / 4) ** 2
    )
    np.testing.assert_allclose(pairwise_sq(X), expected, atol=1e-12)


def test_category_codes():
    codes, size = category_codes(pl.Series(["b", "a", "b"]).cast(pl.Categorical))
    assert codes.tolist() == [1, 0, 1] and size == 2
    codes, size = category_codes(pl.Series(["y", "x"]).cast(pl.Enum(["y", "z", "x"])))
    assert codes.tolist() == [0, 2] and size == 3


def test_seed_003_mixed_example():
    # thesis 3.1.3: ((1,a),(2,a),(3,b),(4,c)) -> ((1.5,a),(1.5,a),(3.5,b),(3.5,b))
    df = pl.DataFrame({"x": [1, 2, 3, 4], "c": ["a", "a", "b", "c"]})
    out = df.sdc.mdav(2, on=["x", "c"], integers="float")  # the thesis releases the exact means
    assert out["x"].to_list() == [1.5, 1.5, 3.5, 3.5]
    assert df.sdc.mdav(2, on=["x", "c"])["x"].to_list() == [2, 2, 4, 4]  # default: half to even, Int64
    assert out["c"].to_list() == ["a", "a", "b", "b"]
    assert out.schema["c"] == pl.String


def test_categorical_only_microaggregation_keeps_dtypes(rng):
    n = 60
    df = pl.DataFrame(
        {
            "cat": pl.Series(rng.choice(list("pqrs"), n)).cast(pl.Categorical),
            "edu": pl.Series(rng.choice(["low", "mid", "high"], n)).cast(pl.Enum(["low", "mid", "high"])),
            "keep": np.arange(n),
        }
    )
    out = df.sdc.microaggregate(3, on=["cat", "edu"], ordinal=["edu"], group_column="g")
    assert out.schema["cat"] == df.schema["cat"] and out.schema["edu"] == df.schema["edu"]
    assert out["keep"].equals(df["keep"])
    assert out.sdc.k_anonymity(["cat", "edu"]) >= 3
    lazy = df.lazy().sdc.microaggregate(3, on=["cat", "edu"], ordinal=["edu"], group_column="g")
    assert lazy.collect_schema() == out.schema
    assert lazy.collect().equals(out)


def test_weight_zero_ignores_a_column():
    df = pl.DataFrame({"x": [0.0, 0.1, 10.0, 10.1], "c": ["a", "b", "a", "b"]})
    g = df.sdc.partition(2, on=["x", "c"], weights={"c": 0.0}).to_list()
    assert g[0] == g[1] and g[2] == g[3]
    g = df.sdc.partition(2, on=["x", "c"], weights={"x": 0.0}).to_list()
    assert g[0] == g[2] and g[1] == g[3]


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"on": ["x", "c"], "ordinal": ["y"]}, "column 'y': marked ordinal but not"),
        ({"on": ["x", "c"], "weights": {"y": 1.0}}, "column 'y': has a weight"),
        ({"on": ["x", "c"], "weights": {"x": -1.0}}, "column 'x': weight must be"),
        ({"on": ["x", "d"]}, "column 'd': dtype Date is neither"),
    ],
)
def test_mixed_errors(kwargs, message):
    import datetime

    df = pl.DataFrame({"x": [1.0, 2.0], "c": ["a", None], "y": [1, 2], "d": [datetime.date(2020, 1, 1)] * 2})
    with pytest.raises(SDCError, match=message):
        df.sdc.mdav(1, **kwargs)
    with pytest.raises(SDCError, match="column 'c': 1 null"):
        df.sdc.mdav(1, on=["x", "c"])
