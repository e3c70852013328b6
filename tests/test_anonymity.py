import polars as pl

import polars_sdc


def test_equivalence_classes_and_k():
    df = pl.DataFrame({"a": [1, 1, 2, 2, 2, 3, 3], "b": ["x", "x", "y", "y", "y", "z", "w"]})
    ec = df.sdc.equivalence_classes(["a", "b"])
    assert ec.rows() == [(3, "z", 1), (3, "w", 1), (1, "x", 2), (2, "y", 3)]
    assert df.sdc.k_anonymity(["a", "b"]) == 1
    assert df.sdc.k_anonymity("a") == 2
    assert df.lazy().sdc.k_anonymity("a") == 2
    assert df.lazy().sdc.equivalence_classes("a").collect().equals(df.sdc.equivalence_classes("a"))
    assert polars_sdc.k_anonymity(df.head(0), "a") == 0


def test_microaggregated_release_is_k_anonymous(rng):
    df = pl.DataFrame({"x": rng.normal(size=101), "y": rng.normal(size=101)})
    out = df.sdc.mdav(4, on=["x", "y"])
    assert out.sdc.k_anonymity(["x", "y"]) >= 4
