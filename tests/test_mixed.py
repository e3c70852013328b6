"""Categorical and mixed quasi-identifiers (product distance, thesis 3.1.3)."""
import numpy as np
import polars as pl
import pytest

from polars_sdc import SDCError
from polars_sdc.microagg.features import category_codes, feature_matrix
from naive import pairwise_sq


def test_embedding_reproduces_product_distance(rng):
    n = 40
    df = pl.DataFrame(
        {
            "x": rng.normal(size=n),
            "nom": rng.choice(["a", "b", "c"], n),
            "ord": pl.Series(rng.choice(["lo", "mid", "hi"], n)).cast(pl.Enum(["lo", "mid", "hi", "top"])),
        }
    )
    w = {"x": 0.5, "nom": 2.0, "ord": 3.0}
    X = feature_matrix(df, ["x", "nom", "ord"], ordinal=["ord"], weights=w)
    z = (df["x"] - df["x"].mean()) / df["x"].std(ddof=0)
    zx = z.to_numpy()
    nom = df["nom"].to_numpy()
    rank = df["ord"].to_physical().to_numpy().astype(np.int64)
    expected = (
        w["x"] * (zx[:, None] - zx[None, :]) ** 2
        + w["nom"] * (nom[:, None] != nom[None, :])
        # Sano & Hattori eq. 2: categories between the two over |D(V)| = 4 (the Enum has 4)
        + w["ord"] * (np.abs(rank[:, None] - rank[None, :]) / 4) ** 2
    )
    np.testing.assert_allclose(pairwise_sq(X), expected, atol=1e-12)


def test_category_codes():
    codes, size = category_codes(pl.Series(["b", "a", "b"]).cast(pl.Categorical))
    assert codes.tolist() == [1, 0, 1] and size == 2
    codes, size = category_codes(pl.Series(["y", "x"]).cast(pl.Enum(["y", "z", "x"])))
    assert codes.tolist() == [0, 2] and size == 3


def test_seed_003_mixed_example():
    # thesis 3.1.3: ((1,a),(2,a),(3,b),(4,c)) -> ((1.5,a),(1.5,a),(3.5,b),(3.5,b))
    df = pl.DataFrame({"x": [1, 2, 3, 4], "c": ["a", "a", "b", "c"]})
    out = df.sdc.mdav(2, on=["x", "c"], integers="float")  # the thesis releases the exact means
    assert out["x"].to_list() == [1.5, 1.5, 3.5, 3.5]
    assert df.sdc.mdav(2, on=["x", "c"])["x"].to_list() == [2, 2, 4, 4]  # default: half to even, Int64
    assert out["c"].to_list() == ["a", "a", "b", "b"]
    assert out.schema["c"] == pl.String


def test_categorical_only_microaggregation_keeps_dtypes(rng):
    n = 60
    df = pl.DataFrame(
        {
            "cat": pl.Series(rng.choice(list("pqrs"), n)).cast(pl.Categorical),
            "edu": pl.Series(rng.choice(["low", "mid", "high"], n)).cast(pl.Enum(["low", "mid", "high"])),
            "keep": np.arange(n),
        }
    )
    out = df.sdc.microaggregate(3, on=["cat", "edu"], ordinal=["edu"], group_column="g")
    assert out.schema["cat"] == df.schema["cat"] and out.schema["edu"] == df.schema["edu"]
    assert out["keep"].equals(df["keep"])
    assert out.sdc.k_anonymity(["cat", "edu"]) >= 3
    lazy = df.lazy().sdc.microaggregate(3, on=["cat", "edu"], ordinal=["edu"], group_column="g")
    assert lazy.collect_schema() == out.schema
    assert lazy.collect().equals(out)


def test_weight_zero_ignores_a_column():
    df = pl.DataFrame({"x": [0.0, 0.1, 10.0, 10.1], "c": ["a", "b", "a", "b"]})
    g = df.sdc.partition(2, on=["x", "c"], weights={"c": 0.0}).to_list()
    assert g[0] == g[1] and g[2] == g[3]
    g = df.sdc.partition(2, on=["x", "c"], weights={"x": 0.0}).to_list()
    assert g[0] == g[2] and g[1] == g[3]


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"on": ["x", "c"], "ordinal": ["y"]}, "column 'y': marked ordinal but not"),
        ({"on": ["x", "c"], "weights": {"y": 1.0}}, "column 'y': has a weight"),
        ({"on": ["x", "c"], "weights": {"x": -1.0}}, "column 'x': weight must be"),
        ({"on": ["x", "d"]}, "column 'd': dtype Date is neither"),
    ],
)
def test_mixed_errors(kwargs, message):
    import datetime

    df = pl.DataFrame({"x": [1.0, 2.0], "c": ["a", None], "y": [1, 2], "d": [datetime.date(2020, 1, 1)] * 2})
    with pytest.raises(SDCError, match=message):
        df.sdc.mdav(1, **kwargs)
    # structural nulls: each null pattern ('c' null, no nulls) has 1 row, fewer than k = 2
    with pytest.raises(SDCError, match=r"no nulls: 1 row\(s\), fewer than k = 2; each null pattern"):
        df.sdc.mdav(2, on=["x", "c"])


# -- nominal columns as codes: the same partitions as the one-hot matrix, O(n) memory -----------
from hypothesis import given, settings
from hypothesis import strategies as st

from naive import direct_sse, onehot_features, reference_mdav_exact
from polars_sdc.microagg.features import ONEHOT_CAP_BYTES, features
from polars_sdc.microagg.mdav import partition_mdav
from polars_sdc.microagg.vmdav import partition_vmdav
from polars_sdc.partition import canonical_ids


def _mixed_frame(seed, n, n_num, n_nom, levels, dup, dtype):
    r = np.random.default_rng(seed)
    cols = {f"x{j}": r.normal(size=n) * 10.0 ** r.integers(-3, 4) for j in range(n_num)}
    for j in range(n_nom):
        s = pl.Series(r.choice([f"v{i}" for i in range(levels)], n))
        cols[f"c{j}"] = s.cast(dtype) if dtype != pl.Enum else s.cast(pl.Enum([f"v{i}" for i in range(levels + 2)]))
    df = pl.DataFrame(cols)
    return pl.concat([df, df.head(dup)]) if dup else df  # duplicated records: exact ties


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**31), n=st.integers(2, 70), n_num=st.integers(1, 2), n_nom=st.integers(1, 2),
       levels=st.integers(1, 6), dup=st.integers(0, 20), k=st.integers(1, 5), weighted=st.booleans(),
       standardize=st.booleans(), gamma=st.sampled_from([0.0, 0.5, 1.0, 2.0]),
       dtype=st.sampled_from([pl.String, pl.Categorical, pl.Enum]))
def test_codes_equal_onehot_partitions(seed, n, n_num, n_nom, levels, dup, k, weighted, standardize, gamma, dtype):
    df = _mixed_frame(seed, n, n_num, n_nom, levels, dup, dtype)
    on = df.columns
    r = np.random.default_rng(seed + 1)
    w = {c: float(r.choice([0.25, 0.5, 1.0, 3.0, 1e-3, 1e3])) for c in on} if weighted else None
    F = features(df, on, standardize=standardize, weights=w)
    X = onehot_features(df, on, standardize=standardize, weights=w)  # the previous path
    np.testing.assert_array_equal(F.dense(), X)
    k = min(k, df.height)
    assert canonical_ids(partition_mdav(F, k)).tolist() == canonical_ids(partition_mdav(X, k)).tolist()
    assert canonical_ids(partition_vmdav(F, k, gamma)).tolist() == canonical_ids(partition_vmdav(X, k, gamma)).tolist()


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31), n=st.integers(2, 40), n_nom=st.integers(1, 3), levels=st.integers(1, 5),
       dup=st.integers(0, 10), k=st.integers(1, 5))
def test_codes_break_ties_exactly(seed, n, n_nom, levels, dup, k):
    # nominal-only data tie everywhere; the codes path computes each nominal distance from
    # integer counts, so exact ties stay ties and go to the lowest row: it is MDAV in exact
    # arithmetic (the one-hot matrix summed in column order may break such ties by rounding)
    df = _mixed_frame(seed, n, 0, n_nom, levels, dup, pl.String)
    F = features(df, df.columns)
    k = min(k, df.height)
    want = reference_mdav_exact(onehot_features(df, df.columns), k)
    assert canonical_ids(partition_mdav(F, k)).tolist() == canonical_ids(want).tolist()


def test_codes_tie_where_onehot_rounding_breaks_one():
    # found by a search: rows at exactly the same distance from the centroid; the one-hot
    # sums (in column order) differ in the last bit there, the integer numerators do not
    df = pl.DataFrame({"c0": list("ccacaa"), "c1": list("abbaca"), "c2": list("cdcdda")})
    F = features(df, df.columns)
    want = canonical_ids(reference_mdav_exact(onehot_features(df, df.columns), 2)).tolist()
    assert canonical_ids(partition_mdav(F, 2)).tolist() == want
    assert canonical_ids(partition_mdav(F.dense(), 2)).tolist() != want  # the old path's rounding


def test_constant_nominal_column_with_huge_weight_adds_exactly_nothing():
    # one level, weight 1e200: the column adds 0 to every distance. The codes path gets exactly
    # 0 (integer numerators); the one-hot path's centroid of the constant column is off by one
    # ulp, and that rounding noise (~1e-16 a^2) outweighs the numeric distances (~1e-200 a^2),
    # so there the partition was decided by rounding (found by the property test above)
    df = _mixed_frame(0, 33, 2, 2, 1, 0, pl.String)
    w = {"x0": 1.0, "x1": 1.0, "c0": 3.0, "c1": 1e200}
    F = features(df, df.columns, standardize=False, weights=w)
    want = canonical_ids(partition_mdav(F.numeric, 2)).tolist()
    assert canonical_ids(partition_mdav(F, 2)).tolist() == want
    assert canonical_ids(partition_mdav(onehot_features(df, df.columns, standardize=False, weights=w), 2)).tolist() != want


def test_5000_categories_no_limit_groups_ge_k():
    r = np.random.default_rng(5)
    n = 12_000
    df = pl.DataFrame({
        "c": pl.Series(r.permutation(np.arange(n) % 5000)).cast(pl.String),
        "x": r.normal(size=n),
        "region": r.choice(["N", "S"], n),
    })
    assert df["c"].n_unique() == 5000
    for method, extra in (("mdav", {}), ("vmdav", {"gamma": 1.0})):
        out = df.sdc.microaggregate(4, on=["c", "x"], by="region", method=method, group_column="g", **extra)
        assert out.height == n and out["region"].equals(df["region"])
        assert out.sdc.k_anonymity(["c", "x", "region"]) >= 4
        assert out.group_by("g").len()["len"].min() >= 4


def test_only_vgrid_uses_the_capped_onehot(monkeypatch):
    # refine="mil" / "anneal" and every MHM order but vgrid take the codes: no cap applies
    import polars_sdc.microagg.features as feat

    r = np.random.default_rng(3)
    df = pl.DataFrame({"c": r.choice(list("abcdef"), 60), "x": r.normal(size=60)})
    monkeypatch.setattr(feat, "ONEHOT_CAP_BYTES", 1000)
    for refine in ("mil", "anneal"):
        out = df.sdc.mdav(3, ["c", "x"], refine=refine, refine_options={"max_iter": 20_000} if refine == "anneal" else None)
        assert out.sdc.k_anonymity(["c", "x"]) >= 3
        g = df.sdc.mdav(3, ["c", "x"], group_column="g").sdc.mil(
            3, ["c", "x"], refine=refine, refine_options={"max_iter": 20_000} if refine == "anneal" else None)
        assert g.sdc.k_anonymity(["c", "x"]) >= 3
    with pytest.raises(SDCError, match=r"column 'c': 6 categories; .*vgrid.* needs the one-hot"):
        df.sdc.mhm(3, ["c", "x"], order="vgrid")
    assert ONEHOT_CAP_BYTES == 1 << 30


def _memory_above_input(module: str, call: str) -> tuple[float, int]:
    """(MB of peak resident memory a partition call adds, its smallest group) on 100,000 rows x
    one numeric and one 2,000-level column (whose one-hot matrix would be 1.6 GB), in a fresh
    interpreter after a small warm-up call of the same kind."""
    import subprocess
    import sys

    code = (
        "import resource, numpy as np, polars as pl\n"
        "from polars_sdc.microagg.features import features\n"
        f"from polars_sdc.microagg.{module} import *\n"
        "r = np.random.default_rng(0); n = 100_000\n"
        "df = pl.DataFrame({'x': r.normal(size=n), 'c': pl.Series(r.integers(0, 2000, n)).cast(pl.String)})\n"
        f"{call.format(frame='df.head(500)')}\n"
        "before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        f"g = {call.format(frame='df')}\n"
        "print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024, np.bincount(g).min())\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    return float(out[0]), int(out[1])


def test_codes_memory_is_linear():
    mb, smallest = _memory_above_input("mdav", "partition_mdav(features({frame}, ['x', 'c']), 5)")
    assert mb < 150.0  # MB above the input: O(n) work arrays, not 1.6 GB
    assert smallest >= 5


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**31), n=st.integers(2, 70), n_num=st.integers(1, 2), n_nom=st.integers(1, 3),
       levels=st.integers(1, 12), dup=st.integers(0, 20), k=st.integers(1, 5), weighted=st.booleans(),
       standardize=st.booleans(), cells=st.sampled_from([None, 1, 2, 3, 5]),
       dtype=st.sampled_from([pl.String, pl.Categorical, pl.Enum]))
def test_mhm_codes_equal_onehot(seed, n, n_num, n_nom, levels, dup, k, weighted, standardize, cells, dtype):
    # every order: the path and the partition from the codes are those of the one-hot matrix
    from polars_sdc.microagg.mhm import ORDERS, partition_mhm, path_order

    df = _mixed_frame(seed, n, n_num, n_nom, levels, dup, dtype)
    on = df.columns
    r = np.random.default_rng(seed + 2)
    w = {c: float(r.choice([0.25, 0.5, 1.0, 3.0, 1e-3, 1e3])) for c in on} if weighted else None
    F = features(df, on, standardize=standardize, weights=w)
    X = onehot_features(df, on, standardize=standardize, weights=w)
    k = min(k, df.height)
    for order in ORDERS:
        opts = {"cells_per_dim": cells} if order == "grid" else {}
        assert path_order(F, k, order, **opts).tolist() == path_order(X, k, order, **opts).tolist(), order
        assert partition_mhm(F, k, order, **opts).tolist() == partition_mhm(X, k, order, **opts).tolist(), order


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31), n=st.integers(2, 30), n_nom=st.integers(1, 3), levels=st.integers(1, 5),
       dup=st.integers(0, 8), k=st.integers(1, 4), cells=st.integers(1, 3))
def test_mhm_codes_on_nominal_only_data_are_exact(seed, n, n_nom, levels, dup, k, cells):
    # nominal-only data tie everywhere: the codes paths are NPN / procedure A' in exact
    # arithmetic (ties to the lowest row; the one-hot sums may break such ties by rounding)
    # and the shortest path has the least exact SSE
    from naive import reference_grid, reference_hm_exact, reference_npn
    from polars_sdc.kernels.hansen_mukherjee import hm_shortest_path_codes
    from polars_sdc.microagg.mhm import partition_mhm, path_order

    df = _mixed_frame(seed, n, 0, n_nom, levels, dup, pl.String)
    F = features(df, df.columns)
    X = onehot_features(df, df.columns)
    k = min(k, df.height)
    perm = path_order(F, k, "npn")
    assert perm.tolist() == reference_npn(X, exact=True).tolist()
    assert path_order(F, k, "grid", cells_per_dim=cells).tolist() == reference_grid(X, cells, exact=True).tolist()
    C, off, gid, gw = F.kernel_codes()
    labels, sse = hm_shortest_path_codes(np.ascontiguousarray(F.numeric[perm]), np.ascontiguousarray(C[perm]),
                                         off, gid, gw, k)
    _, best = reference_hm_exact(X[perm], k)
    assert sse == pytest.approx(float(best), rel=1e-12, abs=1e-12)
    assert direct_sse(X[perm], labels) == pytest.approx(float(best), rel=1e-9, abs=1e-12)
    assert np.bincount(partition_mhm(F, k, "npn")).min() >= k
    for order in ("kd", "kd-mdav"):  # every path starts at the exactly farthest row
        path = path_order(F, k, order)
        assert sorted(path.tolist()) == list(range(df.height)) and path[0] == perm[0]
        assert np.bincount(partition_mhm(F, k, order)).min() >= k


def test_mhm_edge_costs_from_codes_equal_onehot():
    from polars_sdc.kernels.hansen_mukherjee import edge_costs

    df = _mixed_frame(7, 40, 1, 2, 5, 6, pl.String)
    F = features(df, df.columns, weights={"c0": 3.0})
    L = edge_costs(F.numeric, 3, F.kernel_codes())
    np.testing.assert_allclose(L, edge_costs(F.dense(), 3), rtol=1e-12, atol=1e-14)
    g = np.arange(5, 10)
    assert L[5, 2] == pytest.approx(direct_sse(F.dense()[g], np.zeros(5, dtype=int)), rel=1e-12)


def test_mhm_codes_orders_lift_the_cap(monkeypatch):
    # npn, grid, kd, kd-mdav and the shortest path need no one-hot matrix: they run under a
    # tiny cap; vgrid (boxes over every one-hot coordinate) still refuses beyond it, naming
    # the column
    import polars_sdc.microagg.features as feat
    from polars_sdc.microagg.mhm import CODE_ORDERS, partition_mhm

    r = np.random.default_rng(4)
    df = pl.DataFrame({"c": r.choice(list("abcd"), 40), "x": r.normal(size=40)})
    F = features(df, ["c", "x"])
    want = {o: partition_mhm(onehot_features(df, ["c", "x"]), 3, o).tolist() for o in CODE_ORDERS}
    monkeypatch.setattr(feat, "ONEHOT_CAP_BYTES", 100)
    assert CODE_ORDERS == ("npn", "grid", "kd", "kd-mdav")
    for order in CODE_ORDERS:
        assert partition_mhm(F, 3, order).tolist() == want[order]
        out = df.sdc.mhm(3, ["c", "x"], order=order, group_column="g")
        assert out.sdc.k_anonymity(["c", "x"]) >= 3
        assert canonical_ids(out["g"].to_numpy()).tolist() == canonical_ids(np.array(want[order])).tolist()
    with pytest.raises(SDCError, match=r"column 'c': 4 categories; MHM order='vgrid' needs the one-hot"):
        df.sdc.mhm(3, ["c", "x"], order="vgrid")


def test_mhm_5000_categories_no_limit_groups_ge_k():
    r = np.random.default_rng(6)
    n = 6_000
    df = pl.DataFrame({"c": pl.Series(r.permutation(np.arange(n) % 3000)).cast(pl.String), "x": r.normal(size=n),
                       "region": r.choice(["N", "S"], n)})
    for order in ("npn", "grid", "kd", "kd-mdav"):
        out = df.sdc.mhm(4, on=["c", "x"], by="region", order=order, group_column="g")
        assert out.height == n and out["region"].equals(df["region"])
        assert out.sdc.k_anonymity(["c", "x", "region"]) >= 4


def test_mhm_codes_memory_is_linear():
    mb, smallest = _memory_above_input("mhm", "partition_mhm(features({frame}, ['x', 'c']), 5, 'kd-mdav')")
    assert mb < 150.0  # MB above the input: O(n) work arrays, not 1.6 GB
    assert smallest >= 5
