"""MHM (Suzaki et al.): the Hansen–Mukherjee shortest path and the path orderings."""
import itertools

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from microaggregation import calculate_sse_dynamic

import polars_sdc  # noqa: F401
from polars_sdc import SDCError
from polars_sdc.kernels.path_order_common import farthest_from_centroid
from polars_sdc.kernels.path_order_grid import grid_order
from polars_sdc.kernels.path_order_kd import kd_order
from polars_sdc.kernels.path_order_npn import npn_order
from polars_sdc.kernels.path_order_vgrid import _build_vgrid, _vgrid_adjacency, vgrid_order
from polars_sdc.kernels.hansen_mukherjee import edge_costs, hm_shortest_path
from polars_sdc.kernels.mdav import mdav_labels
from polars_sdc.microagg.mhm import ORDERS, partition_mhm, path_order
from conftest import size
from naive import brute_force_ordered, direct_sse, reference_grid, reference_npn
from polars_sdc.partition import canonical_ids


# --- the shortest path ---------------------------------------------------------------
@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 14), p=st.integers(1, 3), k=st.integers(1, 5), seed=st.integers(0, 2**32 - 1))
def test_dp_equals_brute_force_over_order_consistent_partitions(n, p, k, seed):
    k = min(k, n)
    X = np.random.default_rng(seed).normal(size=(n, p)).round(2)  # rounding makes ties
    labels, length = hm_shortest_path(X, k)
    best = brute_force_ordered(X, k)
    assert length == pytest.approx(best, rel=1e-9, abs=1e-9)
    assert direct_sse(X, labels) == pytest.approx(best, rel=1e-9, abs=1e-9)
    # contiguous groups numbered along the order, sizes k .. 2k-1 (Theorem 1's graph)
    assert labels[0] == 0 and np.all(np.diff(labels.astype(int)) >= 0)
    assert np.all(np.diff(labels.astype(int)) <= 1)
    sizes = np.bincount(labels)
    assert sizes.min() >= k and sizes.max() <= 2 * k - 1


@pytest.mark.parametrize("n, p, k", [(400, 3, 3), (500, 2, 5), (300, 6, 10), (257, 1, 7)])
def test_dp_sse_equals_microaggregation_package(n, p, k):
    X = np.random.default_rng(n + k).normal(size=(n, p))
    labels, length = hm_shortest_path(X, k)
    expected = calculate_sse_dynamic(X, k)
    assert length == pytest.approx(expected, rel=1e-9)
    assert direct_sse(X, labels) == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize("offset", [0.0, 1e6, 1e9])
def test_edge_costs_equal_direct_sse_with_large_offsets(offset):
    rng = np.random.default_rng(7)
    E = rng.normal(size=(60, 3))
    X = offset + E  # X - offset recovers E' exactly (Sterbenz), the reference input
    Xs = X - offset
    k = 4
    L = edge_costs(X, k)
    assert L.shape == (61, k)
    for i in range(61):
        for t in range(k):
            j = i + k + t
            if j <= 60:
                G = Xs[i:j]
                assert L[i, t] == pytest.approx(((G - G.mean(axis=0)) ** 2).sum(), rel=1e-9)
            else:
                assert np.isnan(L[i, t])
    # the whole path is offset-invariant too
    assert hm_shortest_path(X, k)[1] == pytest.approx(calculate_sse_dynamic(Xs, k), rel=1e-9)


def test_prefix_sums_would_fail_where_edge_costs_do_not():
    # what the shifted sums avoid: SSE from global sums of x and x^2 loses every digit here
    X = 1e9 + np.random.default_rng(3).normal(size=(40, 2))
    G = X[10:15]
    naive = float((G ** 2).sum() - (G.sum(axis=0) ** 2 / 5).sum())
    exact = float((((G - 1e9) - (G - 1e9).mean(axis=0)) ** 2).sum())
    assert abs(naive - exact) > 0.5 * exact
    assert edge_costs(X, 5)[10, 0] == pytest.approx(exact, rel=1e-9)


def test_mhm_on_mdav_order_never_worse_than_mdav():
    # Theorem 1: the MDAV partition (groups of k..2k-1) is consistent with a path that walks
    # its groups one by one, so the shortest path can only improve on it ("kd-mdav" with
    # one leaf is exactly that path)
    rng = np.random.default_rng(11)
    for k in (2, 3, 5):
        X = rng.normal(size=(203, 4))
        g = mdav_labels(X, k)
        perm = path_order(X, k, "kd-mdav", leaf_size=203)
        runs = g[perm]
        assert (runs[1:] != runs[:-1]).sum() == g.max()  # every MDAV group is one run
        labels = partition_mhm(X, k, "kd-mdav", leaf_size=203)
        assert direct_sse(X, labels) <= direct_sse(X, g) + 1e-9
        assert direct_sse(X, labels) == pytest.approx(
            calculate_sse_dynamic(np.ascontiguousarray(X[perm]), k), rel=1e-9
        )


def test_census_mdav_then_mhm_beats_mdav():
    # census 13 columns z-scored: MDAV gives 5.6922 / 9.0884 % (datasets README); cutting
    # the MDAV path optimally lowers both
    from polars_sdc.standardize import zscore

    X = zscore(polars_sdc.datasets.census().to_numpy().astype(float))
    tot = ((X - X.mean(axis=0)) ** 2).sum()
    for k, mdav in ((3, 5.6922), (5, 9.0884)):
        assert 100 * direct_sse(X, mdav_labels(X, k)) / tot == pytest.approx(mdav, abs=1e-3)
        assert 100 * direct_sse(X, partition_mhm(X, k, "kd-mdav")) / tot < mdav - 0.01


# --- orderings ---------------------------------------------------------------------------
@pytest.mark.parametrize("n, p", [(1, 2), (2, 1), (37, 2), (60, 5)])
def test_npn_equals_plain_reference(n, p):
    X = np.random.default_rng(n * p).normal(size=(n, p)).round(1)  # ties by lowest row
    np.testing.assert_array_equal(npn_order(X), reference_npn(X))


@pytest.mark.parametrize("g, n, p", [(2, 50, 2), (3, 80, 2), (4, 120, 3), (2, 40, 6)])
def test_grid_equals_plain_reference(g, n, p):
    X = np.random.default_rng(g + n).normal(size=(n, p)).round(1)
    np.testing.assert_array_equal(grid_order(X, g), reference_grid(X, g))


def test_one_block_orders_are_npn():
    X = np.random.default_rng(5).normal(size=(70, 3))
    npn = npn_order(X)
    np.testing.assert_array_equal(grid_order(X, 1), npn)
    np.testing.assert_array_equal(vgrid_order(X, 70), npn)
    np.testing.assert_array_equal(kd_order(X, 70, 2), npn)


def test_vgrid_blocks_are_walked_one_at_a_time():
    rng = np.random.default_rng(9)
    X = np.concatenate([rng.normal(size=(150, 4)), 6 + 0.3 * rng.normal(size=(50, 4))])
    leaf = 8
    order = vgrid_order(X, leaf)
    assert sorted(order) == list(range(len(X)))
    # rebuild the blocks the way vgrid_order does and check the path's structure
    lo, span = X.min(axis=0), np.ptp(X, axis=0)
    U = np.ascontiguousarray((X - lo) / span * 0.999999)
    sdim, sval, left, right, leaf_id, leaf_lo, leaf_hi, block_of, B = _build_vgrid(U, leaf)
    sizes = np.bincount(block_of, minlength=B)
    assert sizes.max() <= leaf and B >= len(X) // leaf
    assert np.all((U >= leaf_lo[block_of]) & (U < leaf_hi[block_of]))
    runs = block_of[order]
    starts = runs[np.r_[True, runs[1:] != runs[:-1]]]
    assert len(starts) == B  # every block entered once and left only when exhausted
    # face adjacency: symmetric, at most 2p links out of each block before symmetrising
    deg, nbr = _vgrid_adjacency(sdim, sval, left, right, leaf_id, leaf_lo, leaf_hi)
    edges = {(b, int(c)) for b in range(B) for c in nbr[deg[b]:deg[b + 1]]}
    assert all((c, b) in edges for b, c in edges)
    for b, c in edges:  # linked blocks touch: boxes meet on a face
        gap = np.maximum(leaf_lo[b] - leaf_hi[c], leaf_lo[c] - leaf_hi[b])
        assert np.all(gap <= 0) and np.any(gap == 0)


def test_kd_order_visits_leaves_as_runs():
    X = np.random.default_rng(4).normal(size=(500, 3))
    order = kd_order(X, 6, 2)
    assert sorted(order) == list(range(500))
    assert order[0] == farthest_from_centroid(X)
    # a kd path is local: consecutive steps are far shorter than random pairs
    step = np.sqrt(((X[order[1:]] - X[order[:-1]]) ** 2).sum(axis=1)).mean()
    rand = np.sqrt(((X[1:] - X[:-1]) ** 2).sum(axis=1)).mean()
    assert step < 0.5 * rand


@settings(max_examples=30, deadline=None)
@given(
    n=st.integers(1, size(80, 400)),
    p=st.integers(1, 5),
    k=st.integers(1, 9),
    order=st.sampled_from(ORDERS),
    dup=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
)
def test_every_order_gives_a_k_partition(n, p, k, order, dup, seed):
    k = min(k, n)
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    if dup:  # many identical records and a constant column
        X = X.round(0)
        X[:, 0] = 3.0
    perm = path_order(X, k, order)
    assert sorted(perm) == list(range(n))
    labels = partition_mhm(X, k, order)
    assert labels.dtype == np.uint32 and labels.shape == (n,)
    sizes = np.bincount(labels)
    assert sizes.min() >= k and sizes.max() <= max(2 * k - 1, 1)
    # and it is the best cut of its own path
    assert direct_sse(X, labels) == pytest.approx(
        calculate_sse_dynamic(np.ascontiguousarray(X[perm]), k), rel=1e-9, abs=1e-9
    )
    np.testing.assert_array_equal(partition_mhm(X, k, order), labels)  # deterministic


def test_path_order_options_checked():
    X = np.zeros((5, 2))
    with pytest.raises(SDCError, match="unknown MHM order 'hilbert'"):
        path_order(X, 2, "hilbert")
    with pytest.raises(SDCError, match="cells_per_dim"):
        path_order(X, 2, "npn", cells_per_dim=3)
    with pytest.raises(SDCError, match="leaf_size"):
        path_order(X, 2, "kd", leaf_size=0)


# --- the frame face ------------------------------------------------------------------------
@pytest.fixture
def frame():
    rng = np.random.default_rng(21)
    return pl.DataFrame(
        {
            "id": np.arange(90),
            "region": rng.choice(["n", "s"], 90).tolist(),
            "a": rng.normal(size=90),
            "b": rng.integers(0, 100, 90),
            "c": 1e9 + rng.normal(size=90),
        }
    )


@pytest.mark.parametrize("order", ORDERS)
def test_frame_lazy_equals_eager(frame, order):
    eager = frame.sdc.mhm(3, on=["a", "b", "c"], order=order, group_column="g")
    lazy = frame.lazy().sdc.mhm(3, on=["a", "b", "c"], order=order, group_column="g")
    assert isinstance(lazy, pl.LazyFrame)
    assert lazy.collect_schema() == eager.schema
    assert lazy.collect().equals(eager)
    assert eager["id"].to_list() == list(range(90)) and eager.columns == frame.columns + ["g"]
    assert eager.schema["b"] == pl.Int64 and frame.schema["b"] == pl.Int64  # dtype kept, input untouched
    assert eager.group_by("g").len()["len"].min() >= 3
    # the frame method is the numpy partition of the z-scored columns
    from polars_sdc.standardize import zscore

    X = zscore(frame.select("a", "b", "c").to_numpy().astype(float))
    expected = partition_mhm(X, 3, order)
    same = eager["g"].to_numpy()[:, None] == eager["g"].to_numpy()[None, :]
    np.testing.assert_array_equal(same, expected[:, None] == expected[None, :])


def test_frame_strata_and_partition(frame):
    out = frame.sdc.mhm(4, on=["a", "b"], by="region", order="kd", group_column="g")
    per = out.group_by("g").agg(pl.col("region").n_unique().alias("r"), pl.len())
    assert per["r"].max() == 1 and per["len"].min() >= 4
    g = frame.sdc.partition(4, on=["a", "b"], method="mhm", order="grid")
    assert g.dtype == pl.UInt32 and np.bincount(g.to_numpy()).min() >= 4


def test_frame_errors(frame):
    with pytest.raises(SDCError, match="unknown MHM order"):
        frame.lazy().sdc.mhm(3, on="a", order="nope")
    with pytest.raises(SDCError, match="column 'nope'"):
        frame.sdc.mhm(3, on=["a", "nope"])
    with pytest.raises(SDCError, match="larger than the number of rows"):
        frame.sdc.mhm(91, on="a")
    with pytest.raises(SDCError, match="null"):
        frame.with_columns(pl.when(pl.col("id") == 3).then(None).otherwise(pl.col("a")).alias("a")).sdc.mhm(
            3, on="a"
        )


def test_census_mhm_orders_are_consistent():
    # MHM cuts each path optimally, so on census any order beats a plain cut of its path
    # into consecutive groups of k (the last one taking the remainder)
    df = polars_sdc.datasets.census()
    from polars_sdc.standardize import zscore

    X = zscore(df.to_numpy().astype(float))
    for order in ORDERS:
        perm = path_order(X, 5, order)
        naive = np.minimum(np.arange(1080) // 5, 1080 // 5 - 1)
        g = partition_mhm(X, 5, order)
        assert direct_sse(X, g) <= direct_sse(X[perm], naive) + 1e-9
        assert 100 * df.sdc.ilssdm(groups=pl.Series(g)) < 20


def test_vgrid_leaf_size_one_on_values_closer_than_any_halving():
    """Regression: splits that leave one side empty add tree nodes without leaves; with
    leaf_size=1 and values 1e-300 apart the node arrays (2n + 2) overflowed (segfault)."""
    from polars_sdc.microagg.mhm import path_order

    X = np.array([[0.0], [1e-300], [2e-300], [1.0], [1.0 - 1e-16]])
    order = path_order(X, 1, "vgrid", leaf_size=1)
    assert sorted(order.tolist()) == list(range(5))
    rng = np.random.default_rng(3)
    Y = np.round(rng.random((400, 2)), 3)  # many ties and near-ties
    for leaf in (1, 2, 3):
        got = path_order(Y, 2, "vgrid", leaf_size=leaf)
        assert sorted(got.tolist()) == list(range(400))


# -- reproducers and property tests of the first reliability trial (issue 10) -----------------
@pytest.mark.parametrize("order", ["kd", "kd-mdav", "npn", "grid", "vgrid"])
def test_mhm_overflow_reproducer(order):
    r = np.random.default_rng(0)
    df = pl.DataFrame({"x": r.normal(size=20) * 1e155, "y": r.integers(0, 5, 20) * 1e155})
    out = df.sdc.mhm(3, ["x", "y"], order=order, standardize=False, group_column="g")
    assert out.sdc.k_anonymity(["x", "y"]) >= 3
    again = df.sdc.mhm(3, ["x", "y"], order=order, standardize=False, group_column="g")
    assert out.equals(again)  # no run-to-run variation
    # the partition is the one of the same data at scale 1 (power-of-two rescaling is exact)
    small = df.select(pl.all() * 2.0**-515).sdc.partition(3, ["x", "y"], method="mhm", order=order, standardize=False)
    assert canonical_ids(out["g"].to_numpy()).tolist() == canonical_ids(small.to_numpy()).tolist()


def test_path_kernels_never_index_minus_one():
    X = np.array([[np.inf, 0.0], [1.0, np.inf], [-np.inf, 2.0], [3.0, 3.0], [np.nan, 1.0]])
    for order in (npn_order(X), kd_order(X, 2, 2, 0)):
        assert sorted(order.tolist()) == list(range(5))


COMPILED = """
import numpy as np, polars as pl, polars_sdc
from numba.core import event
rng = np.random.default_rng(0)
df = pl.DataFrame({"a": rng.normal(size=60), "b": rng.normal(size=60), "c": rng.exponential(size=60)})
with event.install_recorder("numba:compile") as rec:
    df.sdc.mhm(3, ["a", "b", "c"], order="grid")
    df.sdc.mhm(3, ["a", "b", "c"], order="kd-mdav")
print("COMPILED", " ".join(sorted({ev.data["dispatcher"].py_func.__name__ for _, ev in rec.buffer if ev.is_start})))
from polars_sdc.kernels.hansen_mukherjee import _hm_path
print("HM_NOM", " ".join(str(sig[1]) for sig in _hm_path.signatures))
"""


def test_numeric_orderings_compile_only_the_code_they_run(tmp_path):
    # a fresh process on an empty cache (sessions 25-26, benchmarks/README.md): numeric columns
    # compile no nominal-code helper (nor the shortest path its nominal part, nor the start
    # row's kernel: numpy), the grid no BFS of the variable grid, and kd-mdav on one leaf (60
    # rows) only the brute-force MDAV kernel (each pruned by a None argument) and the group
    # walk: not the walk of order "kd", not the split (one leaf needs none), not the group
    # means (numpy)
    import os
    import subprocess
    import sys

    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    proc = subprocess.run([sys.executable, "-c", COMPILED], env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr
    names = set(proc.stdout.split("COMPILED")[1].split("HM_NOM")[0].split())
    assert proc.stdout.split("HM_NOM")[1].split() == ["none"], proc.stdout  # the shortest path: no nominal part
    assert {"_block_walk", "_ring_next", "_leaf_groups", "mdav_labels_small"} <= names, names
    for never in ("_bfs_next", "mdav_labels_tree", "_kd_walk", "nominal_part", "nominal_row_dist", "level_counts", "_d2",
                  "_chebyshev_codes", "_split_direction_codes", "_live_dims", "_key_codes", "_kd_next_leaf",
                  "_split_direction", "_farthest_nominal", "group_means", "group_sums"):
        assert never not in names, never


@pytest.mark.parametrize("nominal", [False, True])
def test_kd_mdav_leaves_from_python_equal_leaves_inside_the_walk(monkeypatch, nominal):
    # kd-mdav takes leaves of >= _PY_LEAF rows one at a time from Python, smaller ones inside
    # the kernel: the same splits, MDAV calls and group walks, so the same path bit for bit
    from polars_sdc.kernels import path_order_kd
    from polars_sdc.microagg.features import features

    rng = np.random.default_rng(12)
    df = pl.DataFrame({"x": rng.normal(size=700), "y": rng.normal(size=700).round(1),
                       "c": pl.Series(rng.integers(0, 4, 700)).cast(pl.String)})
    F = features(df, ["x", "c", "y"] if nominal else ["x", "y"])
    inside = path_order(F, 3, "kd-mdav", leaf_size=60)
    monkeypatch.setattr(path_order_kd, "_PY_LEAF", 1)
    from_python = path_order(F, 3, "kd-mdav", leaf_size=60)
    assert sorted(inside.tolist()) == list(range(700))
    np.testing.assert_array_equal(inside, from_python)


@pytest.mark.parametrize("leaf", [1, 2, 5])
def test_vgrid_tables_grown_by_python_equal_a_large_first_capacity(leaf):
    # the vgrid builder stops when a run of single-child splits (near-identical records)
    # fills its tables; Python doubles them and the kernel resumes: the same tree, leaves,
    # rows grouped by leaf as with tables large enough from the start (session 26)
    from polars_sdc.kernels.path_order_vgrid import _vgrid_tree

    rng = np.random.default_rng(leaf)
    X = rng.normal(size=(80, 3))
    X[:30] = X[0] + np.cumsum(np.full((30, 3), 1e-13), axis=0)  # ~40 halvings deep
    X[40:50, 1] = X[40, 1] + np.arange(10) * 1e-300  # differ in one column only, by subnormals
    grown = _vgrid_tree(X, leaf, cap=2)
    once = _vgrid_tree(X, leaf, cap=100_000)
    assert len(grown[0]) > 2 * 80 + 2  # more nodes than the default first capacity: grown several times
    for a, b in zip(grown, once):
        np.testing.assert_array_equal(a, b)
    B, perm, start = grown[8], grown[9], grown[10]
    # the leaves' rows are runs of perm in increasing row order, the leaf of each row its run
    assert sorted(perm.tolist()) == list(range(80))
    for L in range(B):
        rows = perm[start[L]:start[L + 1]]
        assert np.all(np.diff(rows) > 0) and np.all(grown[7][rows] == L)
