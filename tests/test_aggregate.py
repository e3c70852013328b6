import numpy as np
import polars as pl
import pytest

import polars_sdc
from polars_sdc import SDCError
from polars_sdc.partition import canonical_ids, check_k_partition, group_ids


def frame():
    return pl.DataFrame(
        {
            "id": [10, 11, 12, 13, 14, 15, 16],
            "x": [1, 2, 6, 10, 20, 30, 40],
            "f": [0.5, 1.5, 1.0, 2.0, 2.0, 2.0, 8.0],
            "s": ["b", "a", "a", "z", "y", "y", "z"],
            "o": [3, 1, 2, 9, 7, 8, 5],
        }
    ).with_columns(
        cat=pl.col("s").cast(pl.Categorical),
        e=pl.col("s").cast(pl.Enum(["z", "y", "b", "a"])),
    )


G = pl.Series("g", [0, 0, 0, 1, 1, 1, 1], dtype=pl.UInt32)


def test_mean_for_numeric():
    out = polars_sdc.aggregate(frame(), G, ["x", "f"], integers="float")
    assert out["x"].dtype == pl.Float64
    assert out["x"].to_list() == [3.0] * 3 + [25.0] * 4
    assert out["f"].to_list() == [1.0] * 3 + [3.5] * 4


def test_integer_mean_rounded_half_to_even_in_its_dtype():
    df = pl.DataFrame({
        "g": [0, 0, 1, 1, 2, 2, 3, 3, 3, 4, 4],
        "i8": pl.Series([1, 2, 2, 3, -1, -2, 1, 1, 2, 127, 126], dtype=pl.Int8),
        "u64": pl.Series([2**64 - 1, 2**64 - 2, 0, 1, 5, 6, 7, 7, 8, 1, 2], dtype=pl.UInt64),
    })
    out = polars_sdc.aggregate(df, "g", ["i8", "u64"])
    assert out.schema["i8"] == pl.Int8 and out.schema["u64"] == pl.UInt64
    # means 1.5 -> 2, 2.5 -> 2, -1.5 -> -2, 4/3 -> 1, 126.5 -> 126 (half to even)
    assert out["i8"].to_list() == [2, 2, 2, 2, -2, -2, 1, 1, 1, 126, 126]
    # exact near 2**64 (a float mean would round 2**64 - 1.5 to 2**64 and overflow)
    assert out["u64"].to_list() == [2**64 - 2] * 2 + [0, 0, 6, 6, 7, 7, 7, 2, 2]
    # a plain reference: Python's round() is half to even on exact fractions
    from fractions import Fraction
    for g, part in df.group_by("g"):
        for c in ("i8", "u64"):
            vals = part[c].to_list()
            want = round(Fraction(sum(vals), len(vals)))
            assert set(out.filter(pl.col("g") == g[0])[c].to_list()) == {want}


def test_mode_keeps_dtype_and_breaks_ties_by_smallest_value():
    df = frame()
    out = polars_sdc.aggregate(df, G, ["s", "cat", "e"])
    # group 0: a twice -> a; group 1: y, z tie -> smallest: "y" (String, Categorical: lexical),
    # Enum order z < y -> "z"
    assert out["s"].to_list() == ["a"] * 3 + ["y"] * 4
    assert out["cat"].to_list() == ["a"] * 3 + ["y"] * 4
    assert out["e"].to_list() == ["a"] * 3 + ["z"] * 4
    assert out.schema["cat"] == df.schema["cat"] and out.schema["e"] == df.schema["e"]


def test_ordinal_is_lower_median_and_an_actual_value():
    out = polars_sdc.aggregate(frame(), G, ["o", "e"], ordinal=["o", "e"])
    assert out["o"].dtype == pl.Int64
    assert out["o"].to_list() == [2] * 3 + [7] * 4  # sorted (5,7,8,9): lower median 7
    assert out["e"].to_list() == ["a"] * 3 + ["z"] * 4  # enum order: (b,a,a) and (z,z,y,y)


def test_aggregate_keeps_rows_untouched_columns_and_input():
    df = frame()
    before = df.clone()
    out = df.sdc.aggregate(G, ["x"])
    assert df.equals(before)
    assert out.columns == df.columns
    assert out.drop("x").equals(df.drop("x"))


def test_aggregate_by_column_name_and_lazy():
    df = frame().with_columns(g=G)
    eager = df.sdc.aggregate("g", ["x", "s"])
    lazy = df.lazy().sdc.aggregate("g", ["x", "s"]).collect()
    assert eager.equals(lazy)


def test_aggregate_matches_numpy_group_means(rng):
    x = rng.normal(size=200)
    g = rng.integers(0, 17, size=200)
    out = polars_sdc.aggregate(pl.DataFrame({"x": x}), pl.Series(g), ["x"])["x"].to_numpy()
    expected = np.array([x[g == gi].mean() for gi in g])
    np.testing.assert_allclose(out, expected, rtol=1e-12)


def test_aggregate_errors():
    df = frame()
    with pytest.raises(SDCError, match="column 'o'"):
        polars_sdc.aggregate(df.with_columns(o=pl.lit(None, pl.Int64)), G, ["o"])
    with pytest.raises(SDCError, match="column 'x': marked ordinal but not"):
        polars_sdc.aggregate(df, G, ["f"], ordinal=["x"])
    with pytest.raises(SDCError, match="6 group ids for 7 rows"):
        polars_sdc.aggregate(df, G[:6], ["x"])
    with pytest.raises(SDCError, match="column 's': an ordinal column must be numeric or an Enum"):
        polars_sdc.aggregate(df, G, ["s"], ordinal=["s"])


def test_partition_helpers():
    assert canonical_ids(np.array([5, 5, 2, 9, 2])).tolist() == [0, 0, 1, 2, 1]
    s = group_ids(pl.DataFrame({"g": ["u", "t", "u"]}), "g")
    assert s.dtype == pl.UInt32 and s.to_list() == [0, 1, 0]
    check_k_partition(np.array([0, 0, 1, 1]), 2)
    with pytest.raises(SDCError, match="group 1 has 1 row"):
        check_k_partition(np.array([0, 0, 1]), 2)


def test_float_mean_near_the_largest_double_stays_finite():
    df = pl.DataFrame({"x": [1.5e308, 1.6e308, 1.7e308, -1.0, 1.0, 2.0], "g": [0, 0, 0, 1, 1, 1]})
    out = polars_sdc.aggregate(df, "g", ["x"])["x"].to_list()
    assert out[:3] == pytest.approx([1.6e308] * 3, rel=1e-15)
    assert out[3:] == [2 / 3] * 3  # ordinary groups: the plain mean, bit for bit
