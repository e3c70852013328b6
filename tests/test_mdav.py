import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import polars_sdc
from polars_sdc import SDCError
from polars_sdc.microagg.mdav import partition_mdav
from polars_sdc.partition import canonical_ids
from conftest import size
from naive import reference_mdav
from naive import check_k_partition
from naive import reference_mdav_exact_mean


@pytest.mark.parametrize("k, expected", [(3, 5.6922), (4, 7.4947), (5, 9.0884), (10, 14.1559)])
def test_census_sse_sst_matches_literature(k, expected):
    df = polars_sdc.datasets.census()
    assert df.shape == (1080, 13)
    g = df.sdc.partition(k)
    assert 100 * df.sdc.ilssdm(groups=g) == pytest.approx(expected, abs=1e-3)
    sizes = np.bincount(g.to_numpy())
    assert (sizes == k).sum() >= len(sizes) - 1 and k <= sizes.max() <= 2 * k - 1


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(1, size(60, 300)),
    p=st.integers(1, 4),
    k=st.integers(1, 7),
    seed=st.integers(0, 2**31),
    ties=st.booleans(),
)
def test_kernel_equals_reference_and_group_sizes(n, p, k, seed, ties):
    k = min(k, n)
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, size=(n, p)).astype(float) if ties else rng.normal(size=(n, p))
    labels = partition_mdav(X, k)
    np.testing.assert_array_equal(canonical_ids(labels), canonical_ids(reference_mdav(X, k)))
    sizes = np.bincount(labels)
    assert sizes.min() >= k
    assert (sizes == k).sum() >= len(sizes) - 1 and sizes.max() <= max(k, 2 * k - 1)


def test_frame_method_keeps_rows_columns_and_input(rng):
    df = pl.DataFrame(
        {"id": np.arange(50), "x": rng.normal(size=50), "y": rng.integers(0, 100, 50), "s": ["a"] * 50}
    )
    before = df.clone()
    out = df.sdc.mdav(5, on=["x", "y"], group_column="g")
    assert df.equals(before)
    assert out.columns == [*df.columns, "g"]
    assert out.schema["y"] == df.schema["y"] and out.schema["g"] == pl.UInt32
    assert out.select("id", "s").equals(df.select("id", "s"))
    assert out.sdc.k_anonymity(["x", "y"]) >= 5
    # group means are the masked values
    means = df.with_columns(g=out["g"]).group_by("g").agg(pl.col("x").mean())
    joined = out.join(means, on="g", suffix="_m")
    np.testing.assert_allclose(joined["x"], joined["x_m"], rtol=1e-12)


def test_lazy_equals_eager(rng):
    df = pl.DataFrame({"x": rng.normal(size=300), "y": rng.normal(size=300), "c": rng.integers(0, 3, 300)})
    eager = df.sdc.mdav(4, on=["x", "y"], by="c", group_column="g")
    lazy = df.lazy().sdc.mdav(4, on=["x", "y"], by="c", group_column="g")
    assert isinstance(lazy, pl.LazyFrame)
    assert lazy.collect_schema() == eager.schema
    assert lazy.collect().equals(eager)
    assert lazy.collect(engine="streaming").equals(eager)
    g = df.lazy().sdc.partition(4, on=["x", "y"]).collect()["group"]
    assert g.equals(df.sdc.partition(4, on=["x", "y"]))


def test_strata_partition_each_stratum():
    rng = np.random.default_rng(3)
    df = pl.DataFrame({"x": rng.normal(size=40), "r": ["a"] * 13 + ["b"] * 27})
    g = df.sdc.partition(3, on="x", by="r").to_numpy()
    a, b = set(g[:13]), set(g[13:])
    assert not a & b
    alone = partition_mdav(polars_sdc.standardize.zscore(df["x"][13:].to_numpy()), 3)
    np.testing.assert_array_equal(canonical_ids(g[13:]), canonical_ids(alone))
    with pytest.raises(SDCError, match="stratum 'c' of `by`: 2 row"):
        pl.concat([df, pl.DataFrame({"x": [0.0, 1.0], "r": ["c", "c"]})]).sdc.mdav(3, on="x", by="r")


def test_standardize_option_changes_distance():
    df = pl.DataFrame({"x": [0.0, 1.0, 2.0, 3.0], "y": [0.0, 1000.0, 0.0, 1000.0]})
    raw = df.sdc.partition(2, standardize=False).to_list()
    assert raw == [0, 1, 0, 1]  # y dominates unscaled


@pytest.mark.parametrize("method", ["mdav", "vmdav", "mhm"])
def test_standardize_switch_reaches_the_distance(method):
    # y's scale is 1000 x's: unscaled, y alone decides the groups; z-scored both count
    rng = np.random.default_rng(11)
    x, y = rng.normal(size=40), rng.normal(size=40) * 1000.0
    df = pl.DataFrame({"x": x, "y": y})
    X = np.column_stack([x, y])
    Z = (X - X.mean(axis=0)) / X.std(axis=0)
    raw = df.sdc.partition(4, method=method, standardize=False).to_numpy()
    std = df.sdc.partition(4, method=method).to_numpy()
    assert not np.array_equal(canonical_ids(raw), canonical_ids(std))
    if method == "mdav":  # the plain reference on the raw and on the z-scored matrix
        np.testing.assert_array_equal(canonical_ids(raw), canonical_ids(reference_mdav(X, 4)))
        np.testing.assert_array_equal(canonical_ids(std), canonical_ids(reference_mdav(Z, 4)))
    # the raw partition is the one of y alone (x's share of the distance is negligible)
    alone = pl.DataFrame({"y": y}).sdc.partition(4, method=method).to_numpy()
    np.testing.assert_array_equal(canonical_ids(raw), canonical_ids(alone))


def test_constant_column_does_not_crash():
    df = pl.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "c": [7.0] * 4})
    out = df.sdc.mdav(2)
    assert out["c"].to_list() == [7.0] * 4


@pytest.mark.parametrize(
    "df, kwargs, message",
    [
        (pl.DataFrame({"x": [1.0, 2.0]}), {"k": 0}, "k must be >= 1"),
        (pl.DataFrame({"x": [1.0, 2.0]}), {"k": 3}, "larger than the number of rows"),
        (pl.DataFrame({"x": [1.0, None, 3.0]}), {"k": 2}, r"null pattern \('x' null\): 1 row\(s\), fewer than k = 2"),
        (pl.DataFrame({"x": [1.0, float("nan")]}), {"k": 1}, "column 'x': 1 NaN"),
        (pl.DataFrame({"x": [[1], [2]]}), {"k": 1, "on": "x"}, "column 'x': dtype List"),
        (pl.DataFrame({"x": [1.0, 2.0]}), {"k": 1, "on": "zz"}, "column 'zz': not in the frame"),
    ],
)
def test_bad_input(df, kwargs, message):
    with pytest.raises(SDCError, match=message):
        df.sdc.mdav(**kwargs)


def test_lazy_bad_columns_fail_before_collect():
    with pytest.raises(SDCError, match="column 'zz'"):
        pl.LazyFrame({"x": [1.0]}).sdc.mdav(1, on="zz")


def test_unknown_method():
    with pytest.raises(SDCError, match="unknown method 'nope'"):
        pl.DataFrame({"x": [1.0]}).sdc.microaggregate(1, method="nope")


def _data(kind, n, p, rng):
    if kind == "ties":
        return rng.integers(0, 3, size=(n, p)).astype(float)
    if kind == "offset":  # large offset and ties: bounds must stay exact far from the origin
        return 1e8 + rng.integers(0, 4, size=(n, p)).astype(float)
    if kind == "skewed":  # the centroid drifts as the tail is peeled off (reference refreshes)
        return rng.exponential(size=(n, p)) ** 3
    if kind == "duplicates":
        return np.repeat(rng.normal(size=(max(n // 4, 1), p)), 4, axis=0)[:n]
    return rng.normal(size=(n, p))


KINDS = ["normal", "ties", "offset", "skewed", "duplicates"]


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(1, size(150, 600)),
    p=st.integers(1, 4),
    k=st.integers(1, 6),
    leaf=st.integers(1, 8),
    kind=st.sampled_from(KINDS),
    seed=st.integers(0, 2**31),
)
def test_kernel_with_small_leaves_equals_reference(n, p, k, leaf, kind, seed):
    # tiny kd-tree leaves make every pruning path of the search run on small inputs
    from polars_sdc.kernels.mdav import mdav_labels

    k = min(k, n)
    X = np.ascontiguousarray(_data(kind, n, p, np.random.default_rng(seed)))
    labels = mdav_labels(X, k, leaf)
    np.testing.assert_array_equal(canonical_ids(labels), canonical_ids(reference_mdav(X, k)))
    np.testing.assert_array_equal(labels, mdav_labels(X, k))  # the leaf size never changes the result


@pytest.mark.parametrize(
    "kind, n, p, k",
    [
        ("normal", 1500, 10, 5),
        ("normal", 600, 24, 3),  # many columns: the bounds prune badly, the fused pass takes over
        ("ties", 1500, 3, 3),
        ("skewed", 800, 5, 4),
        ("offset", 600, 2, 7),
    ],
)
def test_kernel_equals_reference_on_larger_inputs(kind, n, p, k):
    from polars_sdc.kernels.mdav import mdav_labels

    X = _data(kind, n, p, np.random.default_rng(n + p + k))
    labels = partition_mdav(X, k)
    want = canonical_ids(reference_mdav(X, k))
    np.testing.assert_array_equal(canonical_ids(labels), want)
    # both kernels, whichever partition_mdav picked at this size (a leaf size forces the tree)
    X = np.ascontiguousarray(X)
    np.testing.assert_array_equal(canonical_ids(mdav_labels(X, k, 64)), want)
    np.testing.assert_array_equal(canonical_ids(mdav_labels(X, k)), want)


def test_rows_equidistant_from_the_centroid_tie_to_the_lowest_row():
    # two blocks of duplicates around the centroid: every row is equally far from it (in
    # exact arithmetic and in the kernels' once-rounded centroid), so the group forms around
    # row 0; a reference with numpy's pairwise-rounded mean once chose row 4 here
    from polars_sdc.kernels.mdav import mdav_labels

    X = np.ascontiguousarray(_data("duplicates", 8, 3, np.random.default_rng(0)))
    want = [0, 0, 0, 1, 1, 1, 1, 1]
    assert mdav_labels(X, 3).tolist() == want
    for leaf in (1, 2, 64):
        assert mdav_labels(X, 3, leaf).tolist() == want
    assert reference_mdav(X, 3).tolist() == want


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(1, size(80, 400)),
    p=st.integers(0, 3),
    mc=st.integers(0, 3),
    k=st.integers(1, 6),
    kind=st.sampled_from(KINDS),
    groups=st.integers(1, 2),
    seed=st.integers(0, 2**31),
)
def test_small_kernel_equals_tree_kernel_bit_for_bit(n, p, mc, k, kind, groups, seed):
    # mdav_labels_codes picks the brute-force kernel for small n (it compiles fast) and the
    # kd-tree kernel beyond: the same labels, numbered alike, nominal codes included
    from polars_sdc.kernels.mdav import mdav_labels_small, mdav_labels_tree

    if p + mc == 0:
        p = 1
    rng = np.random.default_rng(seed)
    X = np.ascontiguousarray(_data(kind, n, p, rng)) if p else np.empty((n, 0))
    n = X.shape[0]  # (the duplicates of _data can be fewer rows)
    k = min(k, n)
    levels = rng.integers(1, 4, mc)
    off = np.concatenate([[0], np.cumsum(levels)]).astype(np.int64)
    codes = np.ascontiguousarray(np.stack([rng.integers(0, u, n) for u in levels], 1).astype(np.int32)) \
        if mc else np.empty((n, 0), dtype=np.int32)
    if kind == "duplicates" and mc:
        codes = np.ascontiguousarray(codes[np.arange(n) // 4 * 4])  # blocks of 4 equal rows
    gid = rng.integers(0, groups, mc).astype(np.int64)
    gw = rng.choice([0.5, 1.0, 50.0], groups).astype(np.float64)
    small = mdav_labels_small(X, codes, off, gid, gw, k, np.zeros(1, dtype=np.int64))
    for leaf in (1, 64):
        tree = mdav_labels_tree(X, codes, off, gid, gw, k, leaf, np.zeros(1, dtype=np.int64))
        np.testing.assert_array_equal(small, tree)


def test_row_order_does_not_change_groups():
    rng = np.random.default_rng(11)
    X = rng.normal(size=(700, 6))
    perm = rng.permutation(len(X))
    a = partition_mdav(X, 4)
    b = partition_mdav(X[perm], 4)
    np.testing.assert_array_equal(canonical_ids(a[perm]), canonical_ids(b))


# -- reproducers and property tests of the first reliability trial (issue 10) -----------------
def test_univariate_and_mdav_extremes():
    r = np.random.default_rng(1)
    x = r.normal(size=30)
    for scale in (1e155, 1e300, 1e-300):
        df = pl.DataFrame({"x": x * scale})
        g = df.sdc.partition(3, "x", method="univariate", standardize=False).to_numpy()
        assert len(np.unique(g)) >= 5  # not one group (the bug) but 30 / (3..5) groups
        ref = pl.DataFrame({"x": x}).sdc.partition(3, "x", method="univariate", standardize=False).to_numpy()
        assert canonical_ids(g).tolist() == canonical_ids(ref).tolist()
    # MDAV at 1e307: the z-score mean used to overflow -> NaN features -> crash
    df = pl.DataFrame({"x": r.normal(size=40) * 1e307, "y": r.normal(size=40)})
    out = df.sdc.mdav(3, ["x", "y"], group_column="g")
    check_k_partition(out["g"].to_numpy(), 3)
    ref = pl.DataFrame({"x": df["x"] / 1e300, "y": df["y"]}).sdc.partition(3, ["x", "y"]).to_numpy()
    assert canonical_ids(out["g"].to_numpy()).tolist() == canonical_ids(ref).tolist()


@settings(max_examples=60, deadline=None)
@given(n=st.integers(2, 90), p=st.integers(1, 4), k=st.integers(2, 6), levels=st.integers(2, 5),
       seed=st.integers(0, 2**31))
def test_property_mdav_ties_on_zscores_equal_textbook(n, p, k, levels, seed):
    from polars_sdc.microagg.mdav import partition_mdav
    from polars_sdc.standardize import zscore

    k = min(k, n)
    X = zscore(np.random.default_rng(seed).integers(0, levels, (n, p)).astype(float))
    got = partition_mdav(X, k)
    assert canonical_ids(got).tolist() == canonical_ids(reference_mdav_exact_mean(X, k)).tolist()


def test_frame_with_ties_is_textbook():
    r = np.random.default_rng(9)
    df = pl.DataFrame({"a": r.integers(0, 4, 300), "b": r.integers(0, 3, 300)})
    from polars_sdc.standardize import zscore

    want = reference_mdav_exact_mean(zscore(df.to_numpy().astype(float)), 5)
    assert canonical_ids(df.sdc.partition(5, ["a", "b"]).to_numpy()).tolist() == canonical_ids(want).tolist()
