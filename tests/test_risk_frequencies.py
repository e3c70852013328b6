"""fk / Fk: sdcMicro reference numbers (francdat, francdat_na), a plain group_by, a
brute-force pairwise count of the missing-value rule, lazy == eager, bad input."""

import contextlib

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings, strategies as st

import polars_sdc  # noqa: F401
from polars_sdc import datasets
from polars_sdc import SDCError
import polars_sdc.risk.frequencies as freq_module
from polars_sdc.risk.frequencies import frequencies, frequencies_frame
from naive import reference_freqcalc

KEYS = ["Key1", "Key2", "Key3", "Key4"]


def _read(name):
    """sdcMicro's francdat / francdat_na, embedded in the package."""
    return datasets.francdat(missing=name == "francdat_na")


brute_force = reference_freqcalc  # the freqCalc rule, record by record (None = missing)


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
    # the paths for key spaces too large for a counting array agree: pairwise (Numba) and joins
    for pairwise in (True, False):
        with _without_counting_array(pairwise):
            fk2, Fk2 = frequencies(df, ["a", "b", "c"], "w", alpha)
        np.testing.assert_allclose(fk2, bfk, rtol=1e-12)
        np.testing.assert_allclose(Fk2, bFk, rtol=1e-12)


@contextlib.contextmanager
def _without_counting_array(pairwise):
    """Force the wildcard rule off the counting array (as for a huge key space): the
    pairwise Numba comparison of the partial-missing combinations, or one join per pattern."""
    dense, limit = freq_module._wildcard_dense, freq_module.PAIRWISE_LIMIT
    try:
        freq_module._wildcard_dense = lambda *args: None
        freq_module.PAIRWISE_LIMIT = limit if pairwise else 0
        yield
    finally:
        freq_module._wildcard_dense, freq_module.PAIRWISE_LIMIT = dense, limit


KEY_DTYPES = ["int8", "uint64", "int64", "float", "string", "categorical", "enum", "bool", "date"]


def _random_key(rng, kind, n, null_p):
    """A key column of ``kind`` with 1-4 distinct values (at extreme codes for the integer
    types) and about ``null_p`` missing values (NaN as well as null in float keys)."""
    v = rng.integers(0, rng.integers(1, 5), n)
    miss = rng.random(n) < null_p
    if kind == "int8":
        s = pl.Series([127 - 85 * int(x) for x in v], dtype=pl.Int8)  # spans -128..127
    elif kind == "uint64":
        s = pl.Series([2**64 - 1 - int(x) for x in v], dtype=pl.UInt64)
    elif kind == "int64":
        s = pl.Series([int(x) * 10**17 - 2**62 for x in v], dtype=pl.Int64)
    elif kind == "float":
        s = pl.Series(np.where(rng.random(n) < 0.5, np.nan, -0.0 + v * 0.25))  # -0.0 equals 0.0
    elif kind == "bool":
        s = pl.Series(v % 2 == 0)
    elif kind == "date":
        s = pl.Series(v * 3650, dtype=pl.Int32).cast(pl.Date)
    else:
        s = pl.Series([f"v{x}" for x in v])
        if kind == "categorical":
            s = s.cast(pl.Categorical)
        elif kind == "enum":
            s = s.cast(pl.Enum(["v3", "v0", "zz", "v2", "v1"]))
    s = pl.select(pl.when(pl.Series(miss)).then(None).otherwise(s)).to_series()
    if kind == "float":  # NaN is missing too
        return s, [None if (m or np.isnan(x)) else float(x) for m, x in zip(miss, s.fill_null(0.0).to_numpy())]
    return s, [None if m else x for m, x in zip(miss, s.to_list())]


@settings(max_examples=60, deadline=None)
@given(
    st.integers(0, 2**32 - 1),
    st.lists(st.sampled_from(KEY_DTYPES), min_size=1, max_size=5),
    st.integers(1, 30),
    st.sampled_from([0.0, 0.2, 0.5, 0.9]),
    st.one_of(st.sampled_from([0.0, 0.5, 1.0]), st.floats(0, 1)),
    st.booleans(),
)
def test_wildcard_rule_property(seed, kinds, n, null_p, alpha, weighted):
    """Random small frames with many missing values, every key dtype, random alpha, with or
    without weights: fk / Fk = the record-by-record reference, on every code path (counting
    array, pairwise, joins); the risk gathered per combination = the row-by-row formula;
    LazyFrame (also streaming) = eager."""
    from polars_sdc.risk.individual import frequencies_and_risk, individual_risk

    rng = np.random.default_rng(seed)
    cols, rows = {}, []
    for j, kind in enumerate(kinds):
        s, values = _random_key(rng, kind, n, null_p)
        cols[f"k{j}"] = s
        rows.append(values)
    rows = list(zip(*rows))
    w = np.round(rng.uniform(1, 40, n), 2) if weighted else np.ones(n)
    df = pl.DataFrame({**cols, "w": w})
    keys, weight = list(cols), "w" if weighted else None
    bfk, bFk = reference_freqcalc(rows, w.tolist(), alpha)
    fk, Fk, r = frequencies_and_risk(df, keys, weight, alpha)
    np.testing.assert_allclose(fk, bfk, rtol=1e-12)
    np.testing.assert_allclose(Fk, bFk, rtol=1e-12)
    np.testing.assert_array_equal(r, individual_risk(fk, Fk))
    if not weighted:
        np.testing.assert_array_equal(Fk, fk)
    for pairwise in (True, False):
        with _without_counting_array(pairwise):
            fk2, Fk2 = frequencies(df, keys, weight, alpha)
        np.testing.assert_array_equal(fk2, fk)  # counts: bitwise on every path
        np.testing.assert_allclose(Fk2, Fk, rtol=1e-12)
    out = frequencies_frame(df, keys, weight, alpha)
    lazy = df.lazy().sdc.frequencies(keys, weight=weight, alpha=alpha)
    assert lazy.collect(engine="streaming").equals(out)
    assert lazy.collect().equals(out)


def test_wildcard_edge_cases():
    """A key column entirely missing, rows with every key missing, a key space too large
    for the counting array (falls back, same numbers), alpha 0 / 0.5 / 1."""
    df = pl.DataFrame({"a": [1, 1, None, 2, None], "b": pl.Series([None] * 5, dtype=pl.String),
                       "c": [None, 5, 5, None, None], "w": [1.0, 2.0, 3.0, 4.0, 5.0]})
    rows = list(zip(df["a"].to_list(), df["b"].to_list(), df["c"].to_list()))
    for alpha in (0.0, 0.5, 1.0):
        fk, Fk = frequencies(df, ["a", "b", "c"], "w", alpha)
        bfk, bFk = reference_freqcalc(rows, df["w"].to_list(), alpha)
        np.testing.assert_array_equal(fk, bfk)
        np.testing.assert_allclose(Fk, bFk, rtol=1e-12)
        assert fk[4] == 5 and Fk[4] == 15  # every key missing: matches everybody
    # the only key entirely missing: every record matches every other
    assert frequencies(df, ["b"], "w")[1].tolist() == [15.0] * 5
    # huge integer ranges with a missing value: dense ranks instead of the values
    big = pl.DataFrame({"a": [-(2**62), 2**62, None, 2**62], "b": [7, None, 7, 7]})
    assert freq_module._cell_codes(big, ["a", "b"], [])[1:] == ([2, 1], 6)
    rows = list(zip(big["a"].to_list(), big["b"].to_list()))
    for alpha in (0.0, 0.5, 1.0):
        np.testing.assert_array_equal(frequencies(big, ["a", "b"], alpha=alpha)[0], reference_freqcalc(rows, [1] * 4, alpha)[0])
    # 128-bit integer keys (no NumPy dtype): dense ranks, with and without missing values
    i128 = pl.DataFrame({"a": pl.Series([2**100, 2**100 + 1, None, 2**100], dtype=pl.Int128), "b": [1, 1, 1, None]})
    for frame in (i128, i128.drop_nulls()):
        rows = list(frame.iter_rows())
        np.testing.assert_array_equal(frequencies(frame, ["a", "b"], alpha=0.5)[0], reference_freqcalc(rows, [1] * len(rows), 0.5)[0])
    # too many distinct values for a counting array (301^3 cells > 2^22): the pairwise path
    rng = np.random.default_rng(0)
    wide = pl.DataFrame({c: rng.integers(0, 10**6, 300) for c in "xyz"}).with_columns(
        pl.when(pl.int_range(pl.len()) % 7 == i).then(None).otherwise(pl.col(c)).alias(c) for i, c in enumerate("xyz")
    )
    wide = pl.concat([wide, wide.head(40)])  # duplicates: frequencies above 1
    assert freq_module._cell_codes(wide, list("xyz"), []) is None
    rows = list(wide.iter_rows())
    fk, _ = frequencies(wide, list("xyz"), alpha=0.5)
    np.testing.assert_array_equal(fk, reference_freqcalc(rows, [1] * wide.height, 0.5)[0])


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
    df = pl.DataFrame({"a": [1, 2], "w": [1.0, 0.0], "v": [1.0, None], "fk": [0, 0]})
    with pytest.raises(SDCError, match="'w'.*<= 0"):
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
