"""MIL with nominal quasi-identifiers as codes (issue 10): the kernels compute the one-hot
distances from per-group level counts, never the one-hot matrix. Where the one-hot matrix
fits, the result is the one-hot path's (same labels, same SSE); beyond the cap MIL still runs."""
from __future__ import annotations

import numpy as np
import polars as pl
import pytest

import polars_sdc
from naive import direct_sse
from polars_sdc.microagg import features as features_module
from polars_sdc.microagg.features import features
from polars_sdc.microagg.mdav import partition_mdav
from polars_sdc.microagg.mil import refine_mil
from naive import best_local_step
from test_mil import _random_partition


def _mixed(seed, n, *, levels=(3, 40), p=2, dup=0.2, single=True):
    """Random mixed frame: p normal columns (a share ``dup`` of rows duplicated), nominal
    columns with the given numbers of levels, one of them with a level of a single row."""
    rng = np.random.default_rng(seed)
    cols = {f"x{j}": rng.normal(size=n) for j in range(p)}
    for j, u in enumerate(levels):
        cols[f"c{j}"] = [f"v{v:04d}" for v in rng.integers(0, u, size=n)]
    if single:
        cols["c0"][0] = "lonely"  # a level with one row
    df = pl.DataFrame(cols)
    src = rng.integers(0, n, size=int(dup * n))
    dst = rng.integers(0, n, size=src.size)
    idx = np.arange(n)
    idx[dst] = src  # duplicated rows
    return df[idx]


def _same_as_onehot(F, labels, k, **opt):
    D = F.dense()
    via_codes = refine_mil(F, labels, k, **opt)
    via_dense = refine_mil(D, labels, k, **opt)
    assert np.array_equal(via_codes, via_dense)
    assert direct_sse(D, via_codes) == pytest.approx(direct_sse(D, via_dense), rel=1e-12)
    return D, via_codes


@pytest.mark.parametrize("seed", range(8))
def test_codes_equal_the_onehot_path(seed):
    """Same labels and SSE as MIL on the one-hot matrix: numeric + nominal columns, duplicated
    rows, few and many categories, a one-row level, weights; random and MDAV partitions, exact
    (few groups) and approximate (monkeypatched) neighbour lists. Not compared: exact ties
    between two different steps, which rounding breaks one way on the one-hot matrix and the
    exact code path may break the other way — e.g. for two 2-row groups {a, a'}, {b, b'} the
    swaps a <-> b and a' <-> b' give the same partition with the group names exchanged (so
    k >= 3 here), and nominal-only data (every distance a multiple of a^2; tested below)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(60, 400))
    k = int(rng.integers(3, 6))
    levels = [(3,), (2, 50), (7, 7, 120)][seed % 3]
    df = _mixed(seed, n, levels=levels, p=1 + seed % 2)  # nominal-only data: see below
    on = df.columns
    weights = {"c0": 2.0} if seed % 2 else None  # two weight groups of nominal columns
    F = features(df, on, weights=weights)
    for labels in (_random_partition(rng, n, k), partition_mdav(F, k)):
        D, new = _same_as_onehot(F, labels, k)
        assert direct_sse(D, new) <= direct_sse(D, labels) + 1e-9
        assert np.bincount(new).min() >= k


def test_codes_equal_the_onehot_path_with_kd_tree_lists(monkeypatch):
    from polars_sdc.microagg import mil as mil_module

    monkeypatch.setattr(mil_module, "EXACT_MAX_GROUPS", 20)
    df = _mixed(3, 600, levels=(5, 30))
    F = features(df, df.columns)
    _same_as_onehot(F, partition_mdav(F, 3), 3)


def test_nominal_only_data_ties_everywhere():
    """Only nominal columns: every distance is an exact multiple of a^2, ties everywhere; the
    code path's SSE changes are exact, so it reaches a local optimum (brute-force oracle)."""
    rng = np.random.default_rng(5)
    df = pl.DataFrame({"a": rng.choice(list("abc"), 18), "b": rng.choice(list("xyzw"), 18)})
    F = features(df, ["a", "b"])
    labels = _random_partition(rng, 18, 3)
    new = refine_mil(F, labels, 3, neighbours=18)
    D = F.dense()
    assert best_local_step(D, new, 3, 9) >= -1e-9
    assert direct_sse(D, new) < direct_sse(D, labels)
    assert np.array_equal(refine_mil(F, new, 3, neighbours=18), new)  # a fixed point


@pytest.mark.parametrize("case", range(6))
def test_mixed_local_optimum_brute_force(case):
    """Mixed data: no single move, exchange or 3-cycle lowers the SSE of the result (the
    brute-force oracle of test_mil on the one-hot matrix)."""
    rng = np.random.default_rng(300 + case)
    n = int(rng.integers(9, 20))
    k = int(rng.integers(2, 4))
    df = _mixed(case, n, levels=(3, 5)[: 1 + case % 2], p=1 + case % 2, dup=0.3, single=case % 3 == 0)
    F = features(df, df.columns)
    labels = _random_partition(rng, n, k)
    new = refine_mil(F, labels, k, neighbours=n)
    D = F.dense()
    cap = min(3 * k, 64)
    assert np.bincount(new)[np.unique(new)].min() >= k
    assert best_local_step(D, new, k, cap) >= -1e-9 * (1 + direct_sse(D, new))


def test_beyond_the_onehot_cap(monkeypatch):
    """A nominal column whose one-hot matrix exceeds ONEHOT_CAP_BYTES: MDAV + MIL and
    df.sdc.mil run (the cap only bounds the centroid embedding of the neighbour search, which
    becomes a random projection), groups >= k, SSE below MDAV's."""
    df = _mixed(11, 3000, levels=(400,), p=2)
    F = features(df, df.columns)
    monkeypatch.setattr(features_module, "ONEHOT_CAP_BYTES", 1 << 14)
    with pytest.raises(polars_sdc.SDCError, match="categories"):
        F.dense()
    base = partition_mdav(F, 4)
    new = refine_mil(F, base, 4)
    monkeypatch.undo()
    D = F.dense()
    assert direct_sse(D, new) < direct_sse(D, base)
    assert np.bincount(new).min() >= 4
    monkeypatch.setattr(features_module, "ONEHOT_CAP_BYTES", 1 << 14)
    out = df.sdc.mdav(4, df.columns, refine="mil", group_column="g")
    assert out["g"].value_counts()["count"].min() >= 4
    again = df.with_columns(g=pl.Series(base)).sdc.mil(4, df.columns, groups="g")
    assert np.array_equal(again["g"].to_numpy(), new)


def test_frame_mil_equals_the_onehot_path():
    df = _mixed(21, 500, levels=(4, 60), p=2)
    F = features(df, df.columns)
    lab = partition_mdav(F, 3)
    framed = df.with_columns(g=pl.Series(lab))
    got = framed.sdc.mil(3, df.columns, groups="g")["g"].to_numpy()
    assert np.array_equal(got, refine_mil(F.dense(), lab, 3))
    lazy = framed.lazy().sdc.mil(3, df.columns, groups="g").collect()["g"].to_numpy()
    assert np.array_equal(lazy, got)
    via_mdav = df.sdc.mdav(3, df.columns, refine="mil", group_column="g")
    assert direct_sse(F.dense(), via_mdav["g"].to_numpy()) == pytest.approx(direct_sse(F.dense(), got), rel=1e-12)
