"""Pooled small strata are released under one stratum label: every class on on + by has >= k rows."""
import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import polars_sdc  # noqa: F401
from polars_sdc import SDCError


def test_reliability_reproducer_unique_stratum_record():
    df = pl.DataFrame({"age": [30.0, 31, 32, 33, 34, 35, 36, 80], "region": ["N"] * 7 + ["Z"]})
    out = df.sdc.mdav(3, "age", by="region", merge_small_strata=True)
    assert out.sdc.k_anonymity(["age", "region"]) >= 3
    # Z (1 row) is too small even pooled, so it joins N, the smallest stratum with >= k rows
    assert out["region"].to_list() == ["N+Z"] * 8
    assert df["region"].to_list() == ["N"] * 7 + ["Z"]  # input untouched


def test_pool_of_its_own_keeps_big_strata_labels():
    df = pl.DataFrame({"x": np.arange(12.0), "s": ["a"] * 5 + ["b", "c"] + ["d"] * 4 + ["b"]})
    out = df.sdc.mdav(3, "x", by="s", merge_small_strata=True)
    assert out["s"].to_list() == ["a"] * 5 + ["b+c", "b+c"] + ["d"] * 4 + ["b+c"]
    assert out.sdc.k_anonymity(["x", "s"]) == 3


@pytest.mark.parametrize(
    "values, dtype, label, expect_dtype, expect",
    [
        ([1] * 5 + [2, 3], pl.Int64, None, pl.String, ["1"] * 5 + ["2+3"] * 2),
        ([1] * 5 + [2, 3], pl.Int64, -1, pl.Int64, [1] * 5 + [-1] * 2),
        (["a"] * 5 + ["b", "c"], pl.Categorical, None, pl.Categorical, ["a"] * 5 + ["b+c"] * 2),
        (["a"] * 5 + ["b", "c"], pl.Enum(["a", "b", "c"]), None, pl.String, ["a"] * 5 + ["b+c"] * 2),
        (["a"] * 5 + ["b", "c"], pl.Enum(["a", "b", "c", "other"]), "other", pl.Enum(["a", "b", "c", "other"]),
         ["a"] * 5 + ["other"] * 2),
        ([True] * 5 + [False, None], pl.Boolean, None, pl.String, ["true"] * 5 + ["false+null"] * 2),
    ],
)
def test_pooled_label_dtypes(values, dtype, label, expect_dtype, expect):
    df = pl.DataFrame({"x": np.arange(7.0), "s": pl.Series(values, dtype=dtype)})
    out = df.sdc.mdav(2, "x", by="s", merge_small_strata=True, pooled_label=label)
    assert out.schema["s"] == expect_dtype
    assert out["s"].cast(pl.String).to_list() == [str(v) if not isinstance(v, str) else v for v in expect]
    lazy = df.lazy().sdc.mdav(2, "x", by="s", merge_small_strata=True, pooled_label=label)
    assert lazy.collect_schema() == out.schema
    assert lazy.collect().equals(out)
    assert out.sdc.k_anonymity(["x", "s"]) >= 2


def test_pooled_label_errors():
    df = pl.DataFrame({"x": np.arange(7.0), "s": [1] * 5 + [2, 3]})
    with pytest.raises(SDCError, match="column 's': pooled_label 'zz' does not fit|pooled_label"):
        df.sdc.mdav(2, "x", by="s", merge_small_strata=True, pooled_label=[1])
    with pytest.raises(SDCError, match="pooled_label applies with merge_small_strata=True only"):
        df.sdc.mdav(2, "x", by="s", pooled_label="p")


def test_no_small_stratum_keeps_values_but_declared_dtype():
    df = pl.DataFrame({"x": np.arange(6.0), "s": [1, 1, 1, 2, 2, 2]})
    out = df.sdc.mdav(3, "x", by="s", merge_small_strata=True)
    assert out["s"].to_list() == ["1"] * 3 + ["2"] * 3  # String, as the lazy schema says
    plain = df.sdc.mdav(3, "x", by="s")
    assert plain["s"].to_list() == [1, 1, 1, 2, 2, 2]


def test_two_by_columns_only_differing_column_relabelled():
    df = pl.DataFrame({
        "x": np.arange(9.0),
        "country": ["JP"] * 9,
        "region": ["a"] * 4 + ["b"] * 3 + ["c", "d"],
    })
    out = df.sdc.mdav(3, "x", by=["country", "region"], merge_small_strata=True)
    assert out["country"].to_list() == ["JP"] * 9
    assert out["region"].to_list() == ["a"] * 4 + ["b+c+d"] * 5
    assert out.sdc.k_anonymity(["x", "country", "region"]) >= 3


@settings(max_examples=40, deadline=None)
@given(
    sizes=st.lists(st.integers(1, 6), min_size=1, max_size=6),
    k=st.integers(1, 5),
    method=st.sampled_from(["mdav", "vmdav", "mhm", "univariate"]),
    seed=st.integers(0, 2**16),
)
def test_every_released_class_on_on_and_by_has_k_rows(sizes, k, method, seed):
    n = sum(sizes)
    if n < k:
        return
    rng = np.random.default_rng(seed)
    strata = np.repeat(np.arange(len(sizes)), sizes)
    rng.shuffle(strata)
    df = pl.DataFrame({"x": rng.integers(0, 4, n).astype(float), "s": strata})
    out = df.sdc.microaggregate(k, "x", method=method, by="s", merge_small_strata=True, group_column="g")
    assert out.height == n
    assert out.sdc.k_anonymity(["x", "s"]) >= k
    assert out.group_by("g").len()["len"].min() >= k
