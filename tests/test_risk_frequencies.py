"""fk / Fk: sdcMicro reference numbers (francdat, francdat_na), a plain group_by, a
brute-force pairwise count of the missing-value rule, lazy == eager, bad input."""

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings, strategies as st

import polars_sdc  # noqa: F401
from polars_sdc import datasets
from polars_sdc import SDCError
import polars_sdc.risk.frequencies as freq_module
from polars_sdc.risk.frequencies import frequencies, frequencies_frame

KEYS = ["Key1", "Key2", "Key3", "Key4"]


def _read(name):
    """sdcMicro's francdat / francdat_na, embedded in the package."""
    return datasets.francdat(missing=name == "francdat_na")


def brute_force(rows, weights, alpha):
    """The freqCalc rule, record by record (None = missing)."""
    n = len(rows)
    fk, Fk = np.zeros(n), np.zeros(n)
    for i, ri in enumerate(rows):
        miss_i = [v is None for v in ri]
        if all(miss_i):
            fk[i], Fk[i] = n, sum(weights)
            continue
        for j, rj in enumerate(rows):
            miss_j = [v is None for v in rj]
            compatible = all(a is None or b is None or a == b for a, b in zip(ri, rj))
            if not compatible:
                continue
            if ri == rj:
                share = 1.0
            elif not any(miss_i):
                share = alpha if any(miss_j) and not all(miss_j) else 0.0
            else:
                share = 1.0 if not any(miss_j) else alpha
            fk[i] += share
            Fk[i] += share * weights[j]
    return fk, Fk


def test_francdat_reference():
    df = _read("francdat")
    out = df.sdc.frequencies(KEYS, weight="w")
    assert out["fk"].to_list() == [2, 2, 2, 1, 1, 1, 1, 2]
    np.testing.assert_allclose(out["Fk"].to_numpy(), [110, 84.5, 84.5, 17, 541, 8, 5, 110], rtol=1e-12)
    assert out.drop("fk", "Fk").equals(df)


@pytest.mark.parametrize(
    "alpha, fk, Fk",
    [
        (1.0, [2, 2, 2, 1, 2, 2, 1, 2], [110, 84.5, 84.5, 17, 549, 549, 5, 110]),
        (0.5, [2, 2, 2, 1, 2, 1.5, 1, 1.5], [110, 84.5, 84.5, 17, 549, 278.5, 5, 101]),
        (0.0, [2, 2, 2, 1, 2, 1, 1, 1], [110, 84.5, 84.5, 17, 549, 8, 5, 92]),
    ],
)
def test_francdat_na_reference(alpha, fk, Fk):
    df = _read("francdat_na")
    out = df.sdc.frequencies(KEYS, weight="w", alpha=alpha)
    np.testing.assert_allclose(out["fk"].to_numpy(), fk, rtol=1e-12)
    np.testing.assert_allclose(out["Fk"].to_numpy(), Fk, rtol=1e-12)
    lazy = df.lazy().sdc.frequencies(KEYS, weight="w", alpha=alpha)
    assert lazy.collect().equals(out)
    assert lazy.collect(engine="streaming").equals(out)


keys_st = st.lists(
    st.tuples(st.sampled_from([0, 1, 2, None]), st.sampled_from(["a", "b", None]), st.sampled_from([0.5, 1.5, None])),
    min_size=1,
    max_size=25,
)


@settings(max_examples=30, deadline=None)
@given(keys_st, st.sampled_from([0.0, 0.3, 1.0]), st.integers(0, 2**31))
def test_missing_rule_against_brute_force(rows, alpha, seed):
    w = (1 + np.random.default_rng(seed).integers(0, 50, len(rows))).astype(float)
    df = pl.DataFrame({"a": [r[0] for r in rows], "b": [r[1] for r in rows], "c": [r[2] for r in rows], "w": w},
                      schema={"a": pl.Int64, "b": pl.String, "c": pl.Float64, "w": pl.Float64})
    fk, Fk = frequencies(df, ["a", "b", "c"], "w", alpha)
    bfk, bFk = brute_force(rows, w.tolist(), alpha)
    np.testing.assert_allclose(fk, bfk, rtol=1e-12)
    np.testing.assert_allclose(Fk, bFk, rtol=1e-12)
    # the join path (used when there are many partial-missing combinations) agrees
    limit = freq_module.PAIRWISE_LIMIT
    try:
        freq_module.PAIRWISE_LIMIT = 0
        fk2, Fk2 = frequencies(df, ["a", "b", "c"], "w", alpha)
    finally:
        freq_module.PAIRWISE_LIMIT = limit
    np.testing.assert_allclose(fk2, bfk, rtol=1e-12)
    np.testing.assert_allclose(Fk2, bFk, rtol=1e-12)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.sampled_from(["x", "y"]), st.booleans()), min_size=1, max_size=40))
def test_no_missing_equals_group_by(rows):
    df = pl.DataFrame(rows, schema={"a": pl.Int32, "b": pl.Categorical, "c": pl.Boolean}, orient="row")
    df = df.with_columns(w=pl.int_range(pl.len()).cast(pl.Float64) + 1)
    out = frequencies_frame(df, ["a", "b", "c"], "w")
    ref = df.join(df.group_by("a", "b", "c").agg(n=pl.len(), s=pl.col("w").sum()), on=["a", "b", "c"],
                  maintain_order="left")
    np.testing.assert_array_equal(out["fk"].to_numpy(), ref["n"].to_numpy())
    np.testing.assert_allclose(out["Fk"].to_numpy(), ref["s"].to_numpy())
    # String keys (no counting-array path) give the same numbers
    as_str = frequencies_frame(df.with_columns(pl.col("a").cast(pl.String)), ["a", "b", "c"], "w")
    np.testing.assert_array_equal(as_str["fk"].to_numpy(), out["fk"].to_numpy())
    np.testing.assert_allclose(as_str["Fk"].to_numpy(), out["Fk"].to_numpy())
    # no weights: Fk = fk
    out2 = frequencies_frame(df, ["a", "b", "c"])
    assert out2["fk"].equals(out2["Fk"].alias("fk"))


def test_nan_is_missing_and_all_missing_matches_everybody():
    df = pl.DataFrame({"a": [1.0, float("nan"), 1.0, None], "b": ["u", "u", "v", None]})
    fk, _ = frequencies(df, ["a", "b"])
    assert fk.tolist() == [2.0, 3.0, 1.0, 4.0]
    assert fk.tolist() == brute_force([(1.0, "u"), (None, "u"), (1.0, "v"), (None, None)], [1] * 4, 1.0)[0].tolist()


def test_bad_input():
    df = pl.DataFrame({"a": [1, 2], "w": [1.0, 0.5], "v": [1.0, None], "fk": [0, 0]})
    with pytest.raises(SDCError, match="'w'.*below 1"):
        df.sdc.frequencies("a", weight="w")
    with pytest.raises(SDCError, match="'v'.*null"):
        df.sdc.frequencies("a", weight="v")
    with pytest.raises(SDCError, match="'zz'"):
        df.sdc.frequencies("zz")
    with pytest.raises(SDCError, match="'a'.*key"):
        df.sdc.frequencies("a", weight="a")
    with pytest.raises(SDCError, match="alpha"):
        df.sdc.frequencies("a", alpha=2)
    with pytest.raises(SDCError, match="'fk'"):
        df.sdc.frequencies("fk")
    with pytest.raises(SDCError, match="no columns"):
        df.sdc.frequencies(None)
    assert df.head(0).sdc.frequencies("a")["fk"].len() == 0
    # an existing non-key column named fk is replaced, nothing else changes
    out = df.sdc.frequencies("a")
    assert out.columns == ["a", "w", "v", "fk", "Fk"] and out["fk"].to_list() == [1.0, 1.0]
    assert df["fk"].to_list() == [0, 0]


def test_k_anonymity_and_classes_follow_the_alpha_rule():
    df = _read("francdat_na")
    for alpha in (1.0, 0.5, 0.0):
        fk = df.sdc.frequencies(KEYS, weight="w", alpha=alpha)["fk"]
        assert df.sdc.k_anonymity(KEYS, alpha=alpha) == fk.min()
        ec = df.sdc.equivalence_classes(KEYS, alpha=alpha)
        assert ec["count"].min() == fk.min() and ec.height == df.unique(KEYS).height
        lazy = df.lazy().sdc.equivalence_classes(KEYS, alpha=alpha).collect()
        assert lazy.equals(ec)
    # without missing values nothing changes
    full = _read("francdat")
    assert full.sdc.k_anonymity(KEYS) == 1
    assert full.sdc.equivalence_classes(KEYS)["count"].dtype == pl.UInt32


def test_k_anonymity_checks_alpha():
    df = pl.DataFrame({"a": [1, 1]})
    with pytest.raises(SDCError, match="alpha"):
        df.sdc.k_anonymity("a", alpha=2)
    with pytest.raises(SDCError, match="alpha"):
        df.sdc.equivalence_classes("a", alpha=-1)


def test_temporal_keys_and_bad_dtype():
    import datetime as dt

    d = [dt.date(1970, 1, 1), dt.date(1970, 1, 1), dt.date(1980, 5, 5), None]
    df = pl.DataFrame({"born": d, "sex": ["f", "f", "m", "m"]})
    assert df.sdc.frequencies(["born", "sex"])["fk"].to_list() == [2.0, 2.0, 2.0, 2.0]
    assert df.sdc.suda(["born", "sex"])["suda"].to_list() == [0.0, 0.0, 1.0, 0.0]  # missing: never in an MSU
    with pytest.raises(SDCError, match="'l'.*cannot be a key"):
        pl.DataFrame({"l": [[1], [2]]}).sdc.frequencies("l")


def test_counting_array_path_extremes():
    # huge integer range: falls back to the hashing path; negative values; Enum codes
    df = pl.DataFrame({"a": [-(2**62), 2**62, 2**62, 0], "b": [1, 1, 1, 1], "w": [1.0, 2.0, 3.0, 4.0]})
    fk, Fk = frequencies(df, ["a", "b"], "w")
    assert fk.tolist() == [1.0, 2.0, 2.0, 1.0] and Fk.tolist() == [1.0, 5.0, 5.0, 4.0]
    e = pl.DataFrame({"e": pl.Series(["x", "y", "x"], dtype=pl.Enum(["y", "x"])), "i": pl.Series([-5, -5, -5], dtype=pl.Int8)})
    assert frequencies(e, ["e", "i"])[0].tolist() == [2.0, 1.0, 2.0]


@pytest.mark.parametrize(
    "dtype", [pl.Int8, pl.Int16, pl.Int32, pl.Int64, pl.UInt8, pl.UInt16, pl.UInt32, pl.UInt64, pl.Boolean]
)
def test_counting_array_path_every_integer_dtype(dtype, rng):
    """The counting-array path (ids from the columns' own buffers) gives the numbers of the
    String-key path for every integer-like dtype, at both ends of its range; the per-row
    individual risk computed once per combination equals the row-by-row formula exactly."""
    from polars_sdc.risk.frequencies import frequency_groups
    from polars_sdc.risk.individual import frequencies_and_risk, individual_risk

    n = 300
    if dtype == pl.Boolean:
        a = pl.Series("a", rng.integers(0, 2, n).astype(bool))
    else:
        info = np.iinfo(str(dtype).lower())
        lo = info.min if dtype.is_signed_integer() else info.max - 6  # both ends of the range
        a = pl.Series("a", [lo + int(v) for v in rng.integers(0, 7, n)], dtype=dtype)
    df = pl.DataFrame({"a": a, "b": pl.Series(rng.choice(["x", "y", "z"], n)).cast(pl.Categorical),
                       "c": rng.integers(-3, 3, n), "w": rng.uniform(1, 50, n)})
    idx, _, _ = frequency_groups(df, ["a", "b", "c"], "w", 1.0)
    assert idx is not None  # the counting path was taken
    fk, Fk, r = frequencies_and_risk(df, ["a", "b", "c"], "w")
    ref = frequencies(df.with_columns(pl.col("a", "b", "c").cast(pl.String)), ["a", "b", "c"], "w")
    np.testing.assert_array_equal(fk, ref[0])
    np.testing.assert_allclose(Fk, ref[1], rtol=1e-12)
    np.testing.assert_array_equal(r, individual_risk(fk, Fk))
    fk0, Fk0, r0 = frequencies_and_risk(df, ["a", "b", "c"])
    np.testing.assert_array_equal(fk0, ref[0])
    np.testing.assert_array_equal(Fk0, fk0)
    np.testing.assert_array_equal(r0, 1.0 / fk0)
