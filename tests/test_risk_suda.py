"""SUDA2 / DIS-SUDA: sdcMicro reference numbers, brute force over all key subsets."""

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings, strategies as st

import polars_sdc  # noqa: F401
from polars_sdc import datasets
from polars_sdc import SDCError
from polars_sdc.risk.suda import suda
from naive import brute_suda

KEYS = ["Key1", "Key2", "Key3", "Key4"]


def _read(name):
    """sdcMicro's francdat / francdat_na, embedded in the package."""
    return datasets.francdat(missing=name == "francdat_na")


def test_francdat_reference():
    df = _read("francdat")
    out = df.sdc.suda(KEYS)
    assert out["suda"].to_list() == [0, 0, 0, 8, 6, 4, 8, 0]
    ref = [0, 0, 0, 0.01421349, 0.01010602, 0.00623684, 0.01421349, 0]
    np.testing.assert_allclose(out["dis_suda"].to_numpy(), ref, rtol=1e-6)
    lazy = df.lazy().sdc.suda(KEYS)
    assert lazy.collect().equals(out) and lazy.collect(engine="streaming").equals(out)


def test_francdat_na_reference():
    df = _read("francdat_na")
    out = df.sdc.suda(KEYS)
    assert out["suda"].to_list() == [0, 0, 0, 8, 0, 4, 2, 2]
    ref = [0, 0, 0, 0.06539171, 0, 0.0295548, 0.01308283, 0.01308283]
    np.testing.assert_allclose(out["dis_suda"].to_numpy(), ref, rtol=1e-6)


@settings(max_examples=30, deadline=None)
@given(
    st.integers(1, 5).flatmap(
        lambda m: st.tuples(
            st.lists(st.lists(st.one_of(st.integers(0, 2), st.none()), min_size=m, max_size=m), min_size=1, max_size=18),
            st.integers(1, m),
        )
    )
)
def test_against_brute_force(data):
    rows, max_size = data
    M = len(rows[0])
    df = pl.DataFrame([list(r) for r in rows], schema=[f"k{j}" for j in range(M)], orient="row")
    df = df.cast(pl.Int64)
    res = suda(df, df.columns, max_size=max_size)
    scores, contrib = brute_suda(rows, max_size)
    np.testing.assert_allclose(res.score, scores)
    share = np.where(scores[:, None] > 0, contrib / np.where(scores > 0, scores, 1)[:, None], 0)
    np.testing.assert_allclose(res.contribution, share)
    # DIS: zero exactly where the score is zero, in (0, 1], increasing in the score
    assert ((res.dis > 0) == (res.score > 0)).all() and (res.dis <= 1).all()
    order = np.argsort(res.score)
    assert (np.diff(res.dis[order]) >= -1e-15).all()


def test_larger_random_against_brute_force(rng):
    X = rng.integers(0, 3, size=(40, 6)).astype(object)
    X[rng.random(X.shape) < 0.05] = None
    rows = [tuple(r) for r in X]
    df = pl.DataFrame([list(r) for r in rows], schema=[f"k{j}" for j in range(6)], orient="row")
    np.testing.assert_allclose(suda(df, df.columns).score, brute_suda(rows)[0])


def test_dtypes_and_bad_input():
    df = pl.DataFrame({"a": ["x", "x", "y", "y"], "b": [1.0, 2.0, 1.0, 1.0], "c": [False, False, False, True]})
    df = df.with_columns(pl.col("a").cast(pl.Categorical))
    assert df.sdc.suda(["a", "b", "c"])["suda"].to_list() == [1.0, 2.0, 1.0, 2.0]
    with pytest.raises(SDCError, match="max_size"):
        df.sdc.suda(["a", "b"], max_size=3)
    with pytest.raises(SDCError, match="dis_fraction"):
        df.sdc.suda(["a", "b"], dis_fraction=1.5)
    with pytest.raises(SDCError, match="'q'"):
        df.sdc.suda(["q"])
    assert df.head(0).sdc.suda(["a", "b"]).height == 0
    one = df.head(1).sdc.suda(["a", "b", "c"])
    assert one["suda"].to_list() == [6.0]  # every single key is an MSU: 3 x 2!


def test_two_keys_weights_are_m_minus_size_factorial_with_m_2():
    df = pl.DataFrame({"a": [1, 1, 2, 3], "b": [1, 2, 1, 1]})
    s = df.sdc.suda(["a", "b"])["suda"].to_list()
    # MSUs: row 0 {a,b} (size 2: 0! = 1); row 1 {b} (1! = 1); row 2 {a}, row 3 {a} (1! = 1 each)
    # sdcMicro pads to M = 3: {b} -> 2! = 2, {a,b} -> 1! = 1
    assert s == [1.0, 1.0, 1.0, 1.0]
