"""Optimal univariate microaggregation (Hansen & Mukherjee 2003, Suzaki et al. ref. [3])."""
import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from microaggregation import calculate_sse_dynamic

import polars_sdc  # noqa: F401
from polars_sdc import SDCError
from polars_sdc.kernels.hansen_mukherjee import hm_shortest_path, hm_shortest_path_1d
from polars_sdc.microagg.univariate import partition_univariate
from naive import brute_dp, brute_force_univariate, direct_sse


@settings(max_examples=40, deadline=None)
@given(
    x=st.lists(st.integers(-20, 20), min_size=1, max_size=8),
    k=st.integers(1, 4),
    scale=st.sampled_from([1.0, 0.1, 1e3]),
)
def test_equals_brute_force_over_all_partitions(x, k, scale):
    x = np.array(x, dtype=float) * scale
    k = min(k, len(x))
    labels = partition_univariate(x, k)
    assert labels.dtype == np.uint32
    assert direct_sse(x, labels) == pytest.approx(brute_force_univariate(x, k), rel=1e-9, abs=1e-9)
    sizes = np.bincount(labels)
    assert sizes.min() >= k and sizes.max() <= max(2 * k - 1, 1)


@pytest.mark.parametrize("n, k", [(1000, 3), (2001, 5), (500, 25), (64, 64)])
def test_equals_the_exact_dynamic_programme(n, k):
    # the peer microagg1d is compared in benchmarks/bench_claims.py --parts univariate (importing it
    # compiles all its kernels: ~55 s of CPU on a cold cache, too much for one comparison in the tests)
    rng = np.random.default_rng(n + k)
    x = np.concatenate([rng.normal(size=n // 2), rng.integers(0, 30, n - n // 2).astype(float)])  # ties too
    ours = direct_sse(x, partition_univariate(x, k))
    assert ours == pytest.approx(calculate_sse_dynamic(np.sort(x)[:, None], k), rel=1e-9)
    assert np.bincount(partition_univariate(x, k)).min() >= k


def test_optimum_on_ties_equals_the_plain_dynamic_programme():
    # the input on which microagg1d's default loses 0.7 % SSE (benchmarks/bench_claims.py)
    rng = np.random.default_rng(1003)
    x = np.concatenate([rng.normal(size=500), rng.integers(0, 30, 500).astype(float)])
    assert direct_sse(x, partition_univariate(x, 3)) == pytest.approx(brute_dp(x, 3), rel=1e-9)


def test_groups_are_intervals_numbered_upwards():
    x = np.random.default_rng(2).permutation(np.linspace(0, 1, 40) ** 3)
    g = partition_univariate(x[:, None], 4)
    order = np.argsort(x)
    assert np.all(np.diff(g[order].astype(int)) >= 0)  # sorted values -> non-decreasing ids


def test_large_offset_is_harmless():
    rng = np.random.default_rng(8)
    e = np.sort(rng.normal(size=300))
    x = 1e9 + e
    xs = x - 1e9  # exact
    _, length = hm_shortest_path_1d(x, 4)
    _, ref = hm_shortest_path_1d(xs, 4)
    assert length == pytest.approx(ref, rel=1e-9)
    # the 1-D kernel is the general kernel specialised
    assert hm_shortest_path(xs[:, None], 4)[1] == pytest.approx(ref, rel=1e-12)
    np.testing.assert_array_equal(partition_univariate(x, 4), partition_univariate(xs, 4))


def test_more_than_one_column_is_an_error():
    with pytest.raises(SDCError, match="exactly one column, got 2"):
        partition_univariate(np.zeros((5, 2)), 2)
    df = pl.DataFrame({"a": [1.0, 2.0, 3.0], "b": [1, 2, 3], "s": ["x", "y", "z"]})
    with pytest.raises(SDCError, match="columns 'a', 'b'"):
        df.sdc.univariate(1)
    with pytest.raises(SDCError, match="column 's'"):
        df.sdc.univariate(1, on="s")
    with pytest.raises(SDCError, match="k must be >= 1"):
        df.sdc.univariate(0, on="a")


def test_frame_lazy_equals_eager_and_strata():
    rng = np.random.default_rng(3)
    df = pl.DataFrame(
        {"s": rng.choice(["a", "b", "c"], 120).tolist(), "income": rng.lognormal(10, 1, 120), "id": range(120)}
    )
    eager = df.sdc.univariate(5, on="income", by="s", group_column="g")
    lazy = df.lazy().sdc.univariate(5, on="income", by="s", group_column="g")
    assert lazy.collect().equals(eager)
    assert eager["id"].to_list() == list(range(120)) and eager["s"].equals(df["s"])
    # within each stratum: the optimal partition, whatever the z-scoring
    for key in ("a", "b", "c"):
        part = df.with_row_index().filter(pl.col("s") == key)
        x = part["income"].to_numpy()
        g = eager["g"].to_numpy()[part["index"].to_numpy()]
        assert direct_sse(x, g) == pytest.approx(direct_sse(x, partition_univariate(x, 5)), rel=1e-9)
    assert eager.group_by("g").len()["len"].min() >= 5


def test_ties_go_to_the_lower_group_by_row_order():
    # equal values split across groups: the lower rows join the lower group (the stable order)
    x = np.array([5.0, 1.0, 5.0, 1.0, 5.0, 1.0, 5.0, 9.0, 9.0])
    g = partition_univariate(x, 3)
    perm = np.argsort(x, kind="stable")
    seq, _ = hm_shortest_path_1d(x[perm], 3)
    expected = np.empty_like(g)
    expected[perm] = seq
    np.testing.assert_array_equal(g, expected)
    fives = g[x == 5.0]
    assert np.all(np.diff(fives.astype(int)) >= 0)
    x = np.random.default_rng(0).integers(0, 20, 5000).astype(float)
    perm = np.argsort(x, kind="stable")
    seq, _ = hm_shortest_path_1d(x[perm], 7)
    expected = np.empty(5000, dtype=np.uint32)
    expected[perm] = seq
    np.testing.assert_array_equal(partition_univariate(x, 7), expected)
