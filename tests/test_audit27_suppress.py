"""Local suppression with many keys (session 27 audit, item 1): the exact search for each
record's cheapest suppression set weighs all 2^m sets; it was a numpy pass per set (12 keys on
200 rows: 16 s, 14 keys > 100 s). Now a compiled per-record search (subset sums) takes over when
it is cheaper, with the same release, and a search estimated above about a minute is refused
with an SDCError naming ``combs`` (sdcMicro's answer to many keys) before the work starts."""
import itertools

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import polars_sdc  # noqa: F401
from polars_sdc import SDCError
from polars_sdc.masking import suppress as S
from conftest import assert_suppressed_release
from naive import reference_cheapest_masks


def _uniques(m: int, n: int, ncat: int = 3, seed: int = 0) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    return pl.DataFrame({f"k{j}": rng.integers(0, ncat, n) for j in range(m)})


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 40), st.integers(1, 5), st.integers(2, 4), st.integers(2, 3), st.booleans(), st.booleans(),
       st.integers(0, 2**31))
def test_kernel_equals_the_mask_by_mask_reference(n, m, ncat, k, exact, strata, seed):
    from polars_sdc.kernels.wildcard import cheapest_masks

    rng = np.random.default_rng(seed)
    C = rng.integers(-1, ncat, (n, m)).astype(np.int64)
    g = rng.integers(0, 2 if strata else 1, n).astype(np.int64)
    bad = np.flatnonzero(rng.random(n) < 0.5).astype(np.int64)
    bad = bad[(C[bad] < 0).sum(axis=1) < m]            # a violator still has a key to lose
    imp = rng.integers(1, m + 1, m)
    order, tiers = S._masks(m, imp, bool(seed & 1))
    rank, tier = S._mask_tables((order, tiers), m)
    viol = np.zeros(n, dtype=np.bool_)
    viol[bad] = True
    already = ((C[bad] < 0) * (1 << np.arange(m))).sum(axis=1).astype(np.int64)
    choice, cover = cheapest_masks(C, g, bad, viol, already, float(k), exact, rank, tier, float(bad.size))
    assert list(zip(choice.tolist(), cover.tolist())) == reference_cheapest_masks(C, g, bad, k, exact, rank, tier)


@pytest.mark.parametrize("seed", range(6))
def test_both_searches_give_the_same_release(seed, monkeypatch):
    rng = np.random.default_rng(seed)
    m, n = int(rng.integers(3, 7)), int(rng.integers(20, 70))
    df = _uniques(m, n, int(rng.integers(2, 4)), seed).with_columns(st=pl.Series(rng.integers(0, 2, n)))
    df = df.with_columns(pl.when(pl.lit(rng.random(n) < 0.1)).then(None).otherwise(pl.col("k0")).alias("k0"))
    keys = [f"k{j}" for j in range(m)]
    for kw in ({}, {"alpha": 0.5}, {"importance": [int(v) for v in rng.integers(1, m + 1, m)]}, {"by": "st"},
               {"combs": [2]}):
        outs = []
        for mode in ("mask", "row"):
            monkeypatch.setattr(S, "SEARCH", mode)
            outs.append(df.sdc.suppress(2, keys, **kw))
        assert outs[0].equals(outs[1]), kw


def test_fourteen_keys_on_two_hundred_unique_records():
    # was > 100 s (the mask-by-mask search on 16,384 sets); now well under a second of search
    df = _uniques(14, 200)
    keys = df.columns
    assert df.sdc.k_anonymity(keys) == 1
    out = df.sdc.suppress(3, keys)
    assert_suppressed_release(df, out, keys, 3)
    assert out.lazy().sdc.suppress(3, keys).collect().equals(out)     # already 3-anonymous: unchanged
    assert df.lazy().sdc.suppress(3, keys).collect(engine="streaming").equals(out)


def test_more_keys_than_the_search_takes_is_refused_when_written():
    df = _uniques(S.MAX_KEYS + 1, 30)
    with pytest.raises(SDCError, match=r"21 keys in one search is more than 20 .*combs="):
        df.lazy().sdc.suppress(2, df.columns)             # a LazyFrame: refused before any collect
    with pytest.raises(SDCError, match="combs="):
        df.sdc.suppress(2, df.columns, combs=[S.MAX_KEYS + 1])
    out = df.sdc.suppress(2, df.columns, combs=[2])       # every pair of the 21 keys: fine
    assert_suppressed_release(df, out, df.columns, 2,
                              subsets=list(itertools.combinations(df.columns, 2)))


def test_a_search_estimated_above_the_limit_is_refused_before_the_work(monkeypatch):
    # 18 keys, 3,000 unique records: ~11 s a round estimated; refused after one
    # frequency count, with a combs size that fits
    df = _uniques(18, 3000, ncat=4)
    calls = []
    real = S._search_by_mask
    monkeypatch.setattr(S, "_search_by_mask", lambda *a: calls.append(1) or real(*a))
    with pytest.raises(SDCError, match=r"estimated at .* s a round .*combs=\[\d+\] fits") as e:
        df.sdc.suppress(3, df.columns)
    assert not calls
    assert "18 keys (262,144 suppression sets per record, 3,000 of 3,000 records short of k)" in str(e.value)


def test_the_estimate_admits_what_runs_in_seconds():
    # the sizes measured in docs/masking.md run (a round of 14 keys x 2,000 rows: ~0.4 s)
    assert min(S._estimates(14, 2000, 2000, 2000)) < S.MAX_ROUND_SECONDS
    assert min(S._estimates(12, 200, 200, 200)) < 0.1
    assert min(S._estimates(6, 32_561, 32_561, 64)) < 0.1      # Adult's six keys
    assert min(S._estimates(20, 3000, 3000, 3000)) > S.MAX_ROUND_SECONDS
