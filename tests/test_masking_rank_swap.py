"""Rank swapping (Moore 1996; sdcMicro 5.8.1 rankSwap options)."""
import math

import numpy as np
import polars as pl
import pytest

import polars_sdc  # noqa: F401
from polars_sdc import SDCError, rng
from naive import reference_rank_swap


def _frame(n=2000, seed=0):
    r = np.random.default_rng(seed)
    return pl.DataFrame({
        "id": np.arange(n),
        "a": r.normal(50, 10, n),
        "b": r.integers(0, 20, n),              # heavy ties
        "c": r.lognormal(3, 1, n).astype(np.float32),
        "s": ["z"] * n,
    })


@pytest.mark.parametrize("p", [0.01, 0.05, 0.3, 1.0])
def test_every_column_is_a_permutation_and_moves_at_most_p_n_ranks(p):
    df = _frame()
    out = df.sdc.rank_swap(["a", "b", "c"], p=p, seed=7)
    n = df.height
    for c in ("a", "b", "c"):
        assert sorted(out[c].to_list()) == sorted(df[c].to_list())
        assert out.schema[c] == df.schema[c]
    x, y = df["a"].to_numpy(), out["a"].to_numpy()        # distinct values: ranks are exact
    rank = {v: i for i, v in enumerate(np.sort(x))}
    disp = np.abs(np.array([rank[v] for v in y]) - np.array([rank[v] for v in x]))
    assert disp.max() <= p * n
    # swapped at most once: the move is an involution (i takes j's value and j takes i's)
    src = np.array([np.flatnonzero(x == v)[0] for v in y])
    assert (src[src] == np.arange(n)).all()
    assert (src != np.arange(n)).mean() > 0.9          # nearly every value is swapped
    assert out.select("id", "s").equals(df.select("id", "s"))


@pytest.mark.parametrize("n, p", [(50, 0.1), (300, 0.05), (300, 0.5), (7, 1.0)])
def test_matches_a_plain_python_reference(n, p):
    df = _frame(n, seed=n)
    got = df.sdc.rank_swap("b", p=p, seed=3)["b"].to_numpy()
    want = reference_rank_swap(df["b"].to_numpy(), rng.row_positions(n), 3, "b", math.floor(p * n + 1e-9))
    np.testing.assert_array_equal(got, want)


def test_r0_and_k0_set_p_as_sdcmicro():
    df = _frame(5000)
    x = df["a"].to_numpy()
    delta = x.max() - x.min()
    p_r0 = math.sqrt(2 * x.var() * (1 - 0.95)) / delta
    assert df.sdc.rank_swap("a", r0=0.95, seed=1).equals(df.sdc.rank_swap("a", p=p_r0, seed=1))
    p_k0 = math.sqrt(8 / 3) * 0.01 * abs(x.mean()) / delta
    assert df.sdc.rank_swap("a", k0=0.01, seed=1).equals(df.sdc.rank_swap("a", p=p_k0, seed=1))
    assert df.sdc.rank_swap("a", r0=1.0, seed=1).equals(df)          # R0 = 1: nothing may change
    r = np.corrcoef(x, df.sdc.rank_swap("a", r0=0.95, seed=1)["a"].to_numpy())[0, 1]
    assert r > 0.95


def test_top_and_bottom_are_coded_to_their_mean_and_not_swapped():
    df = pl.DataFrame({"x": np.arange(100)})
    out = df.sdc.rank_swap("x", p=0.1, top=0.05, bottom=0.1, seed=2)["x"].to_numpy()
    assert out.dtype == np.float64
    np.testing.assert_array_equal(out[95:], np.full(5, np.mean(np.arange(95, 100))))
    np.testing.assert_array_equal(out[:10], np.full(10, np.mean(np.arange(10))))
    assert sorted(out[10:95]) == list(range(10, 95))
    assert df.lazy().sdc.rank_swap("x", top=0.05, seed=2).collect_schema()["x"] == pl.Float64


def test_nulls_stay_in_place_and_are_not_swapped():
    x = [None, 3.0, 1.0, None, 2.0, 5.0, 4.0]
    out = pl.DataFrame({"x": x}).sdc.rank_swap("x", p=1.0, seed=4)["x"].to_list()
    assert [v is None for v in out] == [v is None for v in x]
    assert sorted(v for v in out if v is not None) == [1.0, 2.0, 3.0, 4.0, 5.0]


def test_eager_lazy_streaming_key_and_input_untouched():
    df = _frame(200_000)
    before = df.clone()
    eager = df.sdc.rank_swap(["a", "b"], p=0.02, seed=9)
    assert df.equals(before)
    chunked = pl.concat([df.slice(0, 70_000), df.slice(70_000)], rechunk=False)
    assert chunked.lazy().sdc.rank_swap(["a", "b"], p=0.02, seed=9).collect(engine="streaming").equals(eager)
    keyed = df.sdc.rank_swap(["a", "b"], p=0.02, seed=9, key="id")
    shuffled = df.sample(fraction=1.0, shuffle=True, seed=3).sdc.rank_swap(["a", "b"], p=0.02, seed=9, key="id")
    assert shuffled.sort("id").equals(keyed)
    assert not df.sdc.rank_swap(["a", "b"], p=0.02, seed=10).equals(eager)


def test_tiny_and_constant():
    # one value could only come back unchanged: refused, as for a one-value stratum of `by`
    with pytest.raises(SDCError, match="column 'x': has 1 value to swap; it would be released unchanged"):
        pl.DataFrame({"x": [1.0]}).sdc.rank_swap("x", seed=1)
    assert pl.DataFrame({"x": [2, 2, 2]}).sdc.rank_swap("x", p=1.0, seed=1)["x"].to_list() == [2, 2, 2]
    # a constant column under r0: its range is 0, so the window is empty, but every swap gives it back
    assert pl.DataFrame({"x": [2, 2, 2]}).sdc.rank_swap("x", r0=0.5, seed=1)["x"].to_list() == [2, 2, 2]
    # no value at all (empty, or all null): nothing is released, nothing to refuse
    assert pl.DataFrame({"x": []}, schema={"x": pl.Float64}).sdc.rank_swap("x", seed=1).height == 0
    assert pl.DataFrame({"x": [None, None]}, schema={"x": pl.Float64}).sdc.rank_swap("x", seed=1)["x"].null_count() == 2
    big = pl.DataFrame({"x": [1e308, -1e308, 5e307, 0.0]})
    assert sorted(big.sdc.rank_swap("x", p=1.0, seed=1)["x"].to_list()) == sorted(big["x"].to_list())


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(on="s"), "column 's'.*not numeric"),
        (dict(on="a", p=1.5), "p must be"),
        (dict(on="a", p=True), "p must be"),
        (dict(on="a", p=0.1, r0=0.9), "one of p, r0 and k0"),
        (dict(on="a", top=0.6, bottom=0.5), "top \\+ bottom"),
        (dict(on="a", k0=-1), "k0 must be"),
        (dict(on="a", key="a"), "key column 'a'"),
    ],
)
def test_bad_input_raises_sdc_error(kwargs, match):
    with pytest.raises(SDCError, match=match):
        _frame(10).sdc.rank_swap(**kwargs)


def test_nan_is_refused_naming_the_column():
    with pytest.raises(SDCError, match="column 'x': 1 NaN"):
        pl.DataFrame({"x": [1.0, float("nan")]}).sdc.rank_swap("x", seed=1)


# ---- by= strata ---------------------------------------------------------------------------

def _strata_frame(n=3000, seed=5):
    r = np.random.default_rng(seed)
    g = r.choice(["a", "b", "c", None], n, p=[0.5, 0.3, 0.15, 0.05])     # uneven sizes, a null stratum
    a = r.normal(50, 10, n) + np.where(g == "a", 100.0, 0.0)
    b = r.integers(0, 15, n).astype(float)
    b[r.random(n) < 0.05] = np.nan                                       # becomes null below
    return pl.DataFrame({"id": r.permutation(n), "g": g, "a": a, "b": b}).with_columns(pl.col("b").fill_nan(None))


@pytest.mark.parametrize("p", [0.02, 0.1, 1.0])
def test_by_is_a_permutation_within_each_stratum_moving_at_most_p_n_stratum_ranks(p):
    df = _strata_frame()
    out = df.sdc.rank_swap(["a", "b"], p=p, by="g", seed=11)
    assert out.select("id", "g").equals(df.select("id", "g"))
    for (gv,), part in df.with_row_index("i").group_by("g"):
        rows = part["i"].to_numpy()
        for c in ("a", "b"):
            x, y = df[c].to_numpy()[rows], out[c].to_numpy()[rows]
            assert np.array_equal(np.isnan(x), np.isnan(y))                 # nulls stay put
            x, y = x[~np.isnan(x)], y[~np.isnan(y)]
            assert sorted(x) == sorted(y)                                   # a permutation of the stratum
            if c == "a":                                                    # distinct values: exact ranks
                n_s = x.size
                rank = {v: i for i, v in enumerate(np.sort(x))}
                disp = np.abs(np.array([rank[v] for v in y]) - np.array([rank[v] for v in x]))
                assert disp.max() <= p * n_s
                assert (disp > 0).mean() > 0.9


def test_by_equals_each_stratum_swapped_on_its_own_with_a_key():
    # with key= the draws depend on the row's key only, so a stratum swapped alone must give
    # the same values as the stratified call
    df = _strata_frame(2000, seed=8)
    both = df.sdc.rank_swap(["a", "b"], p=0.05, by="g", seed=4, key="id")
    for (gv,), part in df.with_row_index("i").group_by("g"):
        alone = part.drop("i").sdc.rank_swap(["a", "b"], p=0.05, seed=4, key="id")
        assert alone.equals(both[part["i"]])


def test_by_matches_the_plain_python_reference_per_stratum():
    df = pl.DataFrame({"g": np.arange(400) % 3, "x": np.random.default_rng(2).integers(0, 30, 400)})
    got = df.sdc.rank_swap("x", p=0.1, by="g", seed=6)["x"].to_numpy()
    keys = rng.row_positions(400)
    for s in range(3):
        rows = np.flatnonzero(df["g"].to_numpy() == s)
        want = reference_rank_swap(df["x"].to_numpy()[rows], keys[rows], 6, "x", math.floor(0.1 * rows.size + 1e-9))
        np.testing.assert_array_equal(got[rows], want)


def test_by_r0_top_bottom_use_each_strata_values():
    r = np.random.default_rng(3)
    df = pl.DataFrame({"id": np.arange(1000), "g": np.repeat(["lo", "hi"], 500),
                       "x": np.r_[r.normal(0, 1, 500), r.normal(1000, 50, 500)]})
    both = df.sdc.rank_swap("x", r0=0.9, top=0.02, bottom=0.04, by="g", seed=2, key="id")
    for gv in ("lo", "hi"):
        part = df.filter(pl.col("g") == gv)
        x = part["x"].to_numpy()
        y = both.filter(pl.col("g") == gv)["x"].to_numpy()
        order = np.argsort(x)
        np.testing.assert_allclose(y[order[-10:]], x[order[-10:]].mean(), rtol=1e-15)   # top 2 % of 500
        np.testing.assert_allclose(y[order[:20]], x[order[:20]].mean(), rtol=1e-15)     # bottom 4 %
        assert sorted(y[order[20:-10]]) == sorted(x[order[20:-10]])
        mid = np.sort(x)[20:-10]
        p_s = math.sqrt(2 * mid.var() * 0.1) / (mid.max() - mid.min())
        assert part.sdc.rank_swap("x", p=p_s, top=0.02, bottom=0.04, seed=2, key="id")["x"].equals(
            both.filter(pl.col("g") == gv)["x"])


def test_by_eager_lazy_streaming_and_default_on_leaves_numeric_strata_alone():
    n = 60_000
    r = np.random.default_rng(4)
    df = pl.DataFrame({"year": r.integers(2000, 2004, n), "a": r.normal(size=n), "b": r.integers(0, 99, n)})
    eager = df.sdc.rank_swap(p=0.01, by="year", seed=3)
    assert eager["year"].equals(df["year"])
    assert not eager["a"].equals(df["a"]) and not eager["b"].equals(df["b"])
    chunked = pl.concat([df.slice(0, 25_000), df.slice(25_000)], rechunk=False)
    assert chunked.lazy().sdc.rank_swap(p=0.01, by="year", seed=3).collect(engine="streaming").equals(eager)
    assert df.lazy().sdc.rank_swap(p=0.01, by="year", seed=3).collect().equals(eager)


@pytest.mark.parametrize(
    "frame, kwargs, match",
    [
        # a 1-value stratum could only be released unchanged
        ({"g": ["a"] * 5 + ["b"], "x": [1.0, 2, 3, 4, 5, 6]}, dict(p=1.0),
         r"column 'x': stratum \{'g': 'b'\}.*1 value"),
        # nulls do not count: 'b' has one value left
        ({"g": ["a"] * 4 + ["b"] * 2, "x": [1.0, 2, 3, 4, None, 6]}, dict(p=1.0), r"stratum \{'g': 'b'\}.*1 value"),
        # p * n < 1: nothing in stratum 'b' would move
        ({"g": ["a"] * 40 + ["b"] * 10, "x": list(range(50))}, dict(p=0.05),
         r"stratum \{'g': 'b'\}.*10 values.*p \* n = 0.5"),
        ({"g": ["a"] * 4, "x": [1.0, 2, 3, 4]}, dict(on=["x", "g"]), "column 'g'"),
        ({"g": [1, 1, 2, 2], "x": [1.0, 2, 3, 4]}, dict(on=["x", "g"], by="g"), "column 'g': in both"),
        ({"g": [1, 1, 2, 2], "x": [1.0, 2, 3, 4]}, dict(by="g", key="g"), "column 'g': both the key"),
        ({"g": [1, 1, 2, 2], "x": [1.0, 2, 3, 4]}, dict(by="nope"), "nope"),
    ],
)
def test_by_errors_name_the_column_and_stratum(frame, kwargs, match):
    kwargs = {"on": "x", "by": "g", **kwargs}
    with pytest.raises(SDCError, match=match):
        pl.DataFrame(frame).sdc.rank_swap(seed=1, **kwargs)
    with pytest.raises(SDCError, match=match):
        pl.DataFrame(frame).lazy().sdc.rank_swap(seed=1, **kwargs).collect()


@pytest.mark.parametrize("dtype", [pl.Int8, pl.UInt8, pl.Int32, pl.UInt64, pl.Int64, pl.Float32, pl.Float64])
def test_every_numeric_dtype_matches_the_reference_order(dtype):
    r = np.random.default_rng(12)
    if dtype == pl.UInt64:
        x = pl.Series("x", r.integers(0, 2**62, 300).astype(np.uint64) * 3, dtype=dtype)   # above 2**63
    elif dtype.is_float():
        big = 1e300 if dtype == pl.Float64 else 1e30
        x = pl.Series("x", np.r_[r.normal(size=296) * big, 0.0, -0.0, -5e-324, 5e-324]).cast(dtype)
    else:
        x = pl.Series("x", r.integers(-100 if dtype.is_signed_integer() else 0, 100, 300)).cast(dtype)
    df = pl.DataFrame({"x": x})
    got = df.sdc.rank_swap("x", p=0.1, seed=5)["x"]
    assert got.dtype == dtype
    xv = x.to_numpy()
    want = reference_rank_swap(xv, rng.row_positions(300), 5, "x", 30)
    assert got.to_list() == want.tolist()


def test_radix_sorts_give_numpys_lexsort_order():
    from polars_sdc.kernels.masking import radix_sort_by
    from polars_sdc.masking.rank_swap import sort_keys

    r = np.random.default_rng(13)
    n = 5000
    x = np.r_[r.normal(size=n - 6) * 1e200, 0.0, -0.0, 5e-324, -5e-324, 1e308, -1e308]
    xi = r.integers(-(2**63), 2**63 - 1, n, dtype=np.int64)
    xs = r.integers(-3, 3, n)                              # heavy ties
    keys = r.integers(0, 2**64 - 1, n, dtype=np.uint64)
    g = r.integers(0, 7, n)
    for v in (x, xi, xs):
        o = radix_sort_by(sort_keys(v), np.arange(n))
        np.testing.assert_array_equal(o, np.argsort(v, kind="stable"))
        o = radix_sort_by(g.view(np.uint64), radix_sort_by(sort_keys(v), radix_sort_by(keys, np.arange(n))))
        np.testing.assert_array_equal(o, np.lexsort((keys, v, g)))
    assert radix_sort_by(np.zeros(0, dtype=np.uint64), np.arange(0)).size == 0


# -- audit (session 24)
def test_a_frame_where_none_would_be_swapped_is_an_error_as_a_stratum_is():
    # without `by` the whole column is the one stratum: the same refusals, naming the column
    df = pl.DataFrame({"x": [5.0, 7.0, 9.0]})
    with pytest.raises(SDCError, match=r"column 'x': has 3 values and p \* n = 0.6 < 1, so none would be swapped"):
        df.sdc.rank_swap("x", p=0.2, seed=1)
    with pytest.raises(SDCError, match=r"column 'x': has 3 values and p \* n = 0.6 < 1, so none"):
        df.lazy().sdc.rank_swap("x", p=0.2, seed=1).collect()
    with pytest.raises(SDCError, match="column 'x': has 1 value to swap; it would be released unchanged"):
        pl.DataFrame({"x": [1.0, None, None]}).sdc.rank_swap("x", p=1.0, seed=1)
    # sdcMicro's window (k - j < floor(n p)): 8 values at p = 0.2 give 1.6 < 2
    with pytest.raises(SDCError, match=r"p \* n = 1.6 < 2, so none would be swapped"):
        pl.DataFrame({"x": np.arange(8.0)}).sdc.rank_swap("x", p=0.2, preset="sdcmicro", top=0.0, bottom=0.0,
                                                           seed=1)
    # a window from k0 = 0 (or a mean of 0) on values that differ: nothing would move either
    with pytest.raises(SDCError, match=r"p \* n = 0 < 1 \(p from k0\), so none would be swapped \(raise k0\)"):
        pl.DataFrame({"x": [-1.0, 0.0, 1.0]}).sdc.rank_swap("x", k0=0.5, seed=1)
    # top / bottom coding leaving one value in the middle: that value is released as it is
    with pytest.raises(SDCError, match="column 'x': has 1 value to swap"):
        pl.DataFrame({"x": [1.0, 2.0, 3.0]}).sdc.rank_swap("x", p=0.5, top=0.34, bottom=0.34, seed=1)
    # the smallest frames that do swap: two values, p * n = 1 (a neighbour swap)
    assert pl.DataFrame({"x": [1.0, 2.0]}).sdc.rank_swap("x", p=0.5, seed=1)["x"].to_list() == [2.0, 1.0]
