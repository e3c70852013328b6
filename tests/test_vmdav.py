"""V-MDAV (thesis 2.3.4): the kernel against a plain O(n^2) reference, the size rule, the API."""
from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import polars_sdc
from polars_sdc.kernels.vmdav import vmdav_labels
from polars_sdc.microagg.vmdav import partition_vmdav
from conftest import size
from naive import reference_vmdav


def _data(seed, n, p, kind):
    rng = np.random.default_rng(seed)
    if kind == "normal":
        return rng.normal(size=(n, p))
    if kind == "clusters":
        return rng.normal(size=(n, p)) * 0.3 + rng.integers(0, 3, size=(n, 1)) * 4.0
    return rng.integers(0, 4, size=(n, p)).astype(float)  # many ties


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(1, size(40, 120)),
    p=st.integers(1, 3),
    kfrac=st.floats(0.0, 1.0),
    gamma=st.sampled_from([0.0, 0.5, 1.0, 2.0]),
    kind=st.sampled_from(["normal", "clusters", "ties"]),
)
def test_kernel_equals_reference(seed, n, p, kfrac, gamma, kind):
    X = _data(seed, n, p, kind)
    k = 1 + int(kfrac * (n - 1))
    ref, _ = reference_vmdav(X, k, gamma)
    got = vmdav_labels(np.ascontiguousarray(X), k, gamma)
    assert got.tolist() == ref.tolist()
    if p == 1 and kind != "ties":  # the O(n log n) one-column path gives the same partition
        assert partition_vmdav(X, k, gamma).tolist() == ref.tolist()


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(1, size(40, 150)),
    kfrac=st.floats(0.0, 1.0),
    gamma=st.sampled_from([0.0, 0.5, 1.0, 2.0]),
)
def test_one_column_path_on_tied_gaps_equals_reference(seed, n, kfrac, gamma):
    # distinct values whose gaps are 1 or 2: d_in == gamma * d_out happens exactly, and the
    # rule is strict (e_min joins only if d_in < gamma * d_out)
    rng = np.random.default_rng(seed)
    x = np.cumsum(rng.integers(1, 3, size=n)).astype(float)
    X = rng.permutation(x).reshape(-1, 1)
    k = 1 + int(kfrac * (n - 1))
    ref, _ = reference_vmdav(X, k, gamma)
    assert partition_vmdav(X, k, gamma).tolist() == ref.tolist()


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(2, size(120, 500)),
    p=st.integers(1, 4),
    k=st.integers(1, 12),
    gamma=st.floats(0.0, 3.0),
    kind=st.sampled_from(["normal", "clusters", "ties"]),
)
def test_groups_at_least_k(seed, n, p, k, gamma, kind):
    k = min(k, n)
    X = _data(seed, n, p, kind)
    sizes = np.bincount(partition_vmdav(X, k, gamma))
    assert sizes.sum() == n and sizes.min() >= k


@pytest.mark.parametrize("gamma", [0.0, 1.0, 3.0])
@pytest.mark.parametrize("p", [1, 3])
def test_size_rule(gamma, p):
    """Groups are formed with k..2k-1 rows (exactly k when gamma = 0); only the < k leftover
    rows make a group bigger, each joining the group with the nearest centroid."""
    rng = np.random.default_rng(7)
    X = np.concatenate([rng.normal(size=(40, p)) * 0.2 + 3 * j for j in range(4)])
    for k in (2, 3, 5, 7):
        labels = partition_vmdav(X, k, gamma)
        ref, left = reference_vmdav(X, k, gamma)
        assert labels.tolist() == ref.tolist()
        formed = np.ones(len(X), dtype=bool)
        formed[left] = False
        sizes = np.bincount(labels[formed], minlength=labels.max() + 1)
        assert len(left) < k
        assert sizes.min() >= k and sizes.max() <= (k if gamma == 0 else 2 * k - 1)
        cents = np.array([X[formed & (labels == g)].mean(axis=0) for g in range(sizes.size)])
        for i in left:
            assert labels[i] == np.argmin(((cents - X[i]) ** 2).sum(axis=1))


def test_variable_sizes_follow_the_data():
    # three tight clusters of 5: with k = 3, V-MDAV keeps each cluster whole (sizes 5 = 2k-1),
    # where MDAV must cut them into threes
    X = np.concatenate([np.arange(5)[:, None] * 0.01 + 10 * j for j in range(3)])
    from polars_sdc.microagg.mdav import partition_mdav
    from polars_sdc.loss.sse import sse

    v = partition_vmdav(X, 3)
    assert sorted(np.bincount(v).tolist()) == [5, 5, 5]
    assert sse(X, v) < sse(X, partition_mdav(X, 3))


def test_frame_api_and_lazy():
    rng = np.random.default_rng(3)
    df = pl.DataFrame({"id": np.arange(60), "a": rng.normal(size=60), "b": rng.integers(0, 100, 60)})
    out = df.sdc.vmdav(4, ["a", "b"], gamma=0.7, group_column="g")
    same = df.sdc.microaggregate(4, ["a", "b"], method="vmdav", gamma=0.7, group_column="g")
    assert out.equals(same)
    assert out["id"].equals(df["id"]) and out.columns == ["id", "a", "b", "g"]
    assert out.group_by("g").len()["len"].min() >= 4
    lazy = df.lazy().sdc.vmdav(4, ["a", "b"], gamma=0.7, group_column="g")
    assert isinstance(lazy, pl.LazyFrame) and lazy.collect().equals(out)
    # the partition the frame method used is the numpy one on z-scores
    Z = (df.select("a", "b").to_numpy() - df.select("a", "b").to_numpy().mean(0)) / df.select("a", "b").to_numpy().std(0)
    assert df.sdc.partition(4, ["a", "b"], method="vmdav", gamma=0.7).to_list() == \
        polars_sdc.partition.canonical_ids(partition_vmdav(Z, 4, 0.7)).tolist()


@pytest.mark.parametrize("gamma", [-1.0, float("nan"), float("inf"), "x", True])
def test_bad_gamma(gamma):
    df = pl.DataFrame({"a": [1.0, 2.0, 3.0, 4.0]})
    with pytest.raises(polars_sdc.SDCError, match="gamma"):
        df.sdc.vmdav(2, "a", gamma=gamma)


def test_bad_input():
    df = pl.DataFrame({"a": [1.0, None, 3.0], "s": ["x", "y", "z"]})
    with pytest.raises(polars_sdc.SDCError, match="'a' null.*1 row"):  # a null pattern of 1 row < k = 2
        df.sdc.vmdav(2, "a")
    with pytest.raises(polars_sdc.SDCError, match="k = 4"):
        df.fill_null(0).sdc.vmdav(4, "a")
    with pytest.raises(polars_sdc.SDCError, match="k must be >= 1"):
        df.fill_null(0).sdc.vmdav(0, "a")
