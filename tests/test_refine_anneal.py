"""refine_anneal (simulated annealing after MIL): groups >= k, SSE never above the input's, reproducible for a seed, a MIL fixed
point, optimal on inputs small enough to enumerate, and a real gain on census."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from polars_sdc.loss.sse import sse
from polars_sdc.microagg.anneal import refine_anneal
from polars_sdc.microagg.mdav import partition_mdav
from polars_sdc.microagg.mil import refine_mil
from naive import set_partitions


def _random_partition(rng, n, k):
    sizes, rem = [], n
    while rem >= 2 * k:
        s = int(rng.integers(k, min(3 * k, rem - k) + 1))
        sizes.append(s)
        rem -= s
    sizes.append(rem)
    return rng.permutation(np.repeat(np.arange(len(sizes)), sizes))


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 100_000),
    n=st.integers(1, 50),
    p=st.integers(1, 3),
    k=st.integers(1, 5),
    data=st.sampled_from(["normal", "ties", "scaled"]),
)
def test_properties(seed, n, p, k, data):
    rng = np.random.default_rng(seed)
    k = min(k, n)
    if data == "ties":
        X = rng.integers(0, 3, size=(n, p)).astype(float)  # duplicate rows, tied distances
    elif data == "scaled":
        X = rng.normal(size=(n, p)) * 10.0 ** rng.integers(-6, 7, size=p)
    else:
        X = rng.normal(size=(n, p))
    labels = _random_partition(rng, n, k) + 5
    new = refine_anneal(X, labels, k, max_iter=5_000, seed=seed % 7)
    assert new.dtype == np.uint32 and new.shape == (n,)
    sizes = np.bincount(new)
    assert sizes.min() >= k
    assert np.array_equal(np.unique(new), np.arange(sizes.size))  # ids 0..G'-1
    before = sse(X, labels)
    assert sse(X, new) <= before + 1e-9 * (1 + before)
    # the result is a MIL local optimum: MIL changes no row
    again = refine_mil(X, new, k)
    assert np.array_equal(again, new)


def test_reproducible_for_a_seed_and_seed_matters():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(150, 3))
    lab = partition_mdav(X, 3)
    a = refine_anneal(X, lab, 3, max_iter=200_000, seed=1)
    b = refine_anneal(X, lab, 3, max_iter=200_000, seed=1)
    assert np.array_equal(a, b)
    others = [refine_anneal(X, lab, 3, max_iter=200_000, seed=s) for s in (2, 3, 4)]
    assert any(not np.array_equal(a, o) for o in others)
    # the result does not depend on the id values of the input, only on the partition
    assert np.array_equal(refine_anneal(X, 77 - lab.astype(np.int64), 3, max_iter=200_000, seed=1), a)


@pytest.mark.parametrize("case", range(6))
def test_reaches_the_optimum_of_tiny_inputs(case):
    """n = 9..10: the annealing result has the optimal SSE over all k-partitions (enumerated),
    from MDAV's partition, which for these inputs is often not optimal."""
    rng = np.random.default_rng(40 + case)
    n, k = (9, 3) if case % 2 else (10, 2)
    X = rng.normal(size=(n, 2)) + rng.choice([0.0, 3.0], size=(n, 1))
    best = min(sum(((X[b] - X[b].mean(axis=0)) ** 2).sum() for b in part) for part in set_partitions(list(range(n)), k))
    lab = partition_mdav(X, k)
    new = refine_anneal(X, lab, k, max_iter=100_000)
    assert sse(X, new) == pytest.approx(best, rel=1e-9, abs=1e-12)


def test_groups_larger_than_2k_minus_1_may_only_shrink():
    rng = np.random.default_rng(9)
    X = rng.normal(size=(40, 2))
    lab = np.zeros(40, dtype=np.int64)
    lab[:8] = 1  # a group of 32 rows and one of 8, k = 4
    new = refine_anneal(X, lab, 4, max_iter=100_000)
    assert np.bincount(new).min() >= 4 and np.bincount(new).max() <= 32
    assert sse(X, new) < 0.5 * sse(X, lab)  # new groups were created from the big one


def test_edge_cases():
    X = np.arange(5.0)[:, None]
    assert refine_anneal(X, [0] * 5, 5).tolist() == [0] * 5  # one group: nothing to do
    assert refine_anneal(X, [0] * 5, 3, max_iter=0).tolist() == [0] * 5
    one = refine_anneal(np.ones((6, 2)), [0, 1, 0, 1, 2, 2], 2, max_iter=1000)  # all rows equal
    assert np.bincount(one).min() >= 2
    with pytest.raises(ValueError, match="fewer than k"):
        refine_anneal(X, [0, 0, 1, 1, 1], 3)


def test_census_gain_over_mil():
    """Census (13 columns z-scored), k = 3, a small budget: clearly below MDAV + MIL (4.9703 %)."""
    from polars_sdc.datasets import census
    from polars_sdc.loss.sse import sst
    from polars_sdc.standardize import zscore

    Z = zscore(census().to_numpy().astype(np.float64))
    lab = partition_mdav(Z, 3)
    new = refine_anneal(Z, lab, 3, max_iter=5_000_000)
    pct = 100 * sse(Z, new) / sst(Z)
    assert np.bincount(new).min() >= 3
    assert pct < 4.95, pct


def test_time_limit_stops_early_and_keeps_the_guarantees():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(300, 3))
    lab = partition_mdav(X, 3)
    import time

    t0 = time.perf_counter()
    # 10^9 steps would take minutes; time_limit=0 stops after the first of 100 stages
    new = refine_anneal(X, lab, 3, max_iter=10**9, time_limit=0.0)
    assert time.perf_counter() - t0 < 60
    assert np.bincount(new).min() >= 3 and sse(X, new) <= sse(X, lab)


def test_chains_are_deterministic_whatever_the_thread_count(monkeypatch):
    """chains=3 in one thread (cpu_count 1) and in three threads: the same labels."""
    import polars_sdc.microagg.anneal as anneal

    rng = np.random.default_rng(11)
    X = rng.normal(size=(240, 3))
    lab = partition_mdav(X, 4)
    monkeypatch.setattr(anneal.os, "cpu_count", lambda: 3)
    threads = refine_anneal(X, lab, 4, max_iter=200_000, chains=3)
    monkeypatch.setattr(anneal.os, "cpu_count", lambda: 1)
    serial = refine_anneal(X, lab, 4, max_iter=200_000, chains=3)
    assert np.array_equal(threads, serial)
    # below LARGE_ROWS the default is two chains
    assert np.array_equal(refine_anneal(X, lab, 4, max_iter=200_000), refine_anneal(X, lab, 4, max_iter=200_000, chains=2))
    assert np.bincount(threads).min() >= 4 and sse(X, threads) <= sse(X, refine_mil(X, lab, 4)) + 1e-9


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("max_iter", 1.5, "max_iter must be an integer"),
        ("max_iter", -1, "max_iter must be >= 0"),
        ("seed", -1, "seed must be >= 0"),
        ("stages", 0, "stages must be >= 1"),
        ("neighbours", 0, "neighbours must be >= 1"),
        ("t_start", -1.0, "t_start must be > 0"),
        ("t_end", 0.0, "t_end must be > 0"),
        ("t_end", float("nan"), "t_end must be a finite number"),
        ("p_swap", 1.5, "p_swap must be <= 1"),
        ("p_split", -0.1, "p_split must be >= 0"),
        ("chains", 0, "chains must be >= 1"),
        ("chains", True, "chains must be an integer"),
        ("time_limit", -1.0, "time_limit must be >= 0"),
    ],
)
def test_bad_options_are_refused_by_name(option, value, message):
    from polars_sdc._errors import SDCError

    X = np.random.default_rng(0).normal(size=(30, 2))
    with pytest.raises(SDCError, match=message):
        refine_anneal(X, np.arange(30) // 3, 3, **{option: value})
    with pytest.raises(SDCError, match=r"p_swap \+ p_split must be <= 1"):
        refine_anneal(X, np.arange(30) // 3, 3, p_swap=0.9, p_split=0.2)


@pytest.mark.parametrize(
    ("refine", "options", "message"),
    [
        ("anneal", {"chains": 0}, "chains must be >= 1"),
        ("anneal", {"p_swap": 0.99}, r"p_swap \+ p_split must be <= 1, got 0.99 \+ 0.02"),
        ("anneal", {"t_start": float("inf")}, "t_start must be a finite number"),
        ("mil", {"max_sweeps": -1}, "max_sweeps must be >= 0"),
        ("mil", {"cycles": 1}, "cycles must be True or False"),
        ("mil", {"max_rounds": 0}, "max_rounds must be >= 1"),
    ],
)
def test_refine_option_values_fail_when_the_plan_is_built(refine, options, message):
    """A LazyFrame plan with a bad refine option value fails at once, naming the option
    (before any collect); df.sdc.mil checks its refine options the same way."""
    import polars as pl

    import polars_sdc  # noqa: F401
    from polars_sdc._errors import SDCError

    lf = pl.DataFrame({"x": np.arange(12.0), "g": np.arange(12) // 3}).lazy()
    with pytest.raises(SDCError, match=message):
        lf.sdc.mdav(3, "x", refine=refine, refine_options=options)
    with pytest.raises(SDCError, match=message):
        lf.sdc.mil(3, "x", groups="g", refine=refine, refine_options=options)
