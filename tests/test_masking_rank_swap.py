"""Rank swapping (Moore 1996; sdcMicro 5.8.1 rankSwap options)."""
import math

import numpy as np
import polars as pl
import pytest

import polars_sdc  # noqa: F401
from polars_sdc import SDCError, rng


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


def _reference(x, keys, seed, column, w):
    """Plain-Python rank swapping with the same random stream (rng.bits, then SplitMix steps)."""
    M = (1 << 64) - 1

    def mix(z):
        z ^= z >> 30; z = (z * 0xBF58476D1CE4E5B9) & M
        z ^= z >> 27; z = (z * 0x94D049BB133111EB) & M
        return z ^ (z >> 31)

    order = np.lexsort((keys, x))
    n = len(x)
    taken = [False] * n
    partner = list(range(n))
    for j in range(n):
        if taken[j]:
            continue
        hi = min(n - 1, j + w)
        span = hi - j
        if span <= 0:
            continue
        z = int(rng.bits(seed, f"rank_swap/{column}", keys[order][j:j + 1])[0])
        found = None
        for _ in range(64):
            k = j + 1 + min(int(((z >> 11) + 0.5) / 2**53 * span), span - 1)
            if not taken[k]:
                found = k
                break
            z = mix((z + 0x9E3779B97F4A7C15) & M)
        if found is None:
            free = [k for k in range(j + 1, hi + 1) if not taken[k]]
            if not free:
                continue
            found = free[min(int(((z >> 11) + 0.5) / 2**53 * len(free)), len(free) - 1)]
        taken[j] = taken[found] = True
        partner[j], partner[found] = found, j
    out = np.empty_like(x)
    out[order] = x[order][partner]
    return out


@pytest.mark.parametrize("n, p", [(50, 0.1), (300, 0.05), (300, 0.5), (7, 1.0)])
def test_matches_a_plain_python_reference(n, p):
    df = _frame(n, seed=n)
    got = df.sdc.rank_swap("b", p=p, seed=3)["b"].to_numpy()
    want = _reference(df["b"].to_numpy(), rng.row_positions(n), 3, "b", math.floor(p * n + 1e-9))
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
    assert pl.DataFrame({"x": [1.0]}).sdc.rank_swap("x", seed=1)["x"].to_list() == [1.0]
    assert pl.DataFrame({"x": [2, 2, 2]}).sdc.rank_swap("x", p=1.0, seed=1)["x"].to_list() == [2, 2, 2]
    assert pl.DataFrame({"x": []}, schema={"x": pl.Float64}).sdc.rank_swap("x", seed=1).height == 0
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
