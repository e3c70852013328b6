"""Distances of polars_sdc.dist and the Numba string kernels against plain references."""
import math

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from polars_sdc import SDCError, dist
from polars_sdc.loss.dist import encode_strings
from polars_sdc.kernels.strings import DAMERAU, HAMMING, LEVENSHTEIN, LEVENSHTEIN_NORM, string_amount, string_matrix
from naive import damerau_ref, lev_ref


def matrix_of(kind, strings):
    chars, off, n = encode_strings(strings)
    return string_matrix(chars, off, kind, n)


alphabet = st.sampled_from("abcdé東")
short = st.text(alphabet, max_size=8)
long_ = st.text(alphabet, min_size=60, max_size=90)


@settings(max_examples=40, deadline=None)
@given(ws=st.lists(st.one_of(short, long_), min_size=1, max_size=6))
def test_levenshtein_and_damerau_kernels_match_references(ws):
    L = matrix_of(LEVENSHTEIN, ws)
    N = matrix_of(LEVENSHTEIN_NORM, ws)
    DL = matrix_of(DAMERAU, ws)
    for i, a in enumerate(ws):
        for j, b in enumerate(ws):
            assert L[i, j] == lev_ref(a, b)
            assert N[i, j] == pytest.approx(lev_ref(a, b) / max(len(a), len(b), 1), abs=1e-15)
            assert DL[i, j] == damerau_ref(a, b)
    counts = np.arange(1, len(ws) + 1, dtype=float)
    chars, off, n = encode_strings(ws)
    for kind, M in [(LEVENSHTEIN, L), (LEVENSHTEIN_NORM, N), (DAMERAU, DL)]:
        for e in (1.0, 2.0, 0.5):
            got = string_amount(chars, off, counts, kind, e, n)
            assert got == pytest.approx(counts @ (M**e) @ counts, rel=1e-12)


def test_known_string_distances():
    assert matrix_of(LEVENSHTEIN, ["kitten", "sitting"])[0, 1] == 3
    assert matrix_of(DAMERAU, ["ca", "abc"])[0, 1] == 2  # OSA would say 3
    assert matrix_of(DAMERAU, ["abcdef", "badcfe"])[0, 1] == 3
    assert matrix_of(HAMMING, ["karolin", "kerstin"])[0, 1] == 3
    assert matrix_of(LEVENSHTEIN_NORM, ["", "abcd"])[0, 1] == 1.0
    assert matrix_of(LEVENSHTEIN_NORM, ["Never-married", "Married-civ-spouse"])[0, 1] == pytest.approx(
        lev_ref("Never-married", "Married-civ-spouse") / 18)
    # 64 and 65 characters: the bit-parallel and the DP paths
    a, b = "x" * 64, "y" + "x" * 63
    assert matrix_of(LEVENSHTEIN, [a, b, a + "z"])[0].tolist() == [0, 1, 1]


def test_categorical_columns_use_their_strings():
    s = pl.DataFrame({"c": ["ab", "b", "ab"]}, schema={"c": pl.Categorical})
    e = pl.DataFrame({"c": ["ab", "b", "ab"]}, schema={"c": pl.Enum(["b", "ab"])})
    want = 2 * 2 * 1 * 1.0  # two rows 'ab' vs one 'b', distance 1, both orders
    assert dist.levenshtein().amount(s.unique(maintain_order=True), np.array([2, 1]), 2) == want
    assert dist.levenshtein().amount(e.unique(maintain_order=True), np.array([2, 1]), 2) == want


def test_pnorms_and_discrete_matrices():
    v = pl.DataFrame({"x": [0.0, 3.0, 1.0], "y": [0.0, 4.0, -1.0]})
    assert dist.euclidean().pairwise(v)[0, 1] == 5.0
    assert dist.pnorm(1).pairwise(v)[1, 2] == 7.0
    assert dist.pnorm(math.inf).pairwise(v)[1, 2] == 5.0
    assert dist.discrete().pairwise(v).tolist() == [[0, 1, 1], [1, 0, 1], [1, 1, 0]]
    with pytest.raises(SDCError, match="p must be >= 1"):
        dist.pnorm(0.5)


def test_tree_from_levels_and_mapping_agree_and_leaves():
    levels = pl.DataFrame({"top": ["A", "A", "B"], "mid": ["a1", "a1", "b1"], "leaf": ["x", "y", "z"]})
    t1 = dist.tree(levels)
    t2 = dist.tree({"x": "a1", "y": "a1", "z": "b1", "a1": "A", "b1": "B"})
    vals = pl.DataFrame({"v": ["x", "y", "z", "a1", "A", "B"]})
    D1 = t1.bind(["v"], []).pairwise(vals)
    assert np.array_equal(D1, t2.bind(["v"], []).pairwise(vals))
    assert D1[0].tolist() == [0, 2, 6, 1, 2, 4]  # A and B meet at the virtual root
    size = t2.leaves_under()
    assert size[t2.index["a1"]] == 2 and size[t2.index["z"]] == 1 and size.max() == 3
    assert t2.lowest_common_ancestor(t2.nodes_of(["x", "y"])) == t2.index["a1"]
    assert t2.lowest_common_ancestor(t2.nodes_of(["x"])) == t2.index["x"]


def test_function_and_matrix_distances():
    f = dist.function(lambda a, b: abs(len(a) - len(b)) + (a != b))
    D = f.bind(["s"], []).pairwise(pl.DataFrame({"s": ["a", "bb", "ccc"]}))
    assert D.tolist() == [[0, 2, 3], [2, 0, 2], [3, 2, 0]]
    g = dist.function(lambda r, q: abs(r[0] - q[0]) + abs(r[1] - q[1]))
    D2 = g.pairwise(pl.DataFrame({"a": [0, 1], "b": [0, 5]}))
    assert D2[0, 1] == 6
    with pytest.raises(SDCError, match="finite and >= 0"):
        dist.function(lambda a, b: -1.0).bind(["s"], []).pairwise(pl.DataFrame({"s": ["a", "b"]}))
    with pytest.raises(SDCError, match="not a label"):
        dist.matrix(["a"], [[0]]).bind(["s"], []).pairwise(pl.DataFrame({"s": ["b"]}))
    with pytest.raises(SDCError, match="positive distance"):
        dist.matrix(["a", "b"], [[0, 0], [0, 0]])


def test_graph_direct_weights_need_every_pair():
    g = dist.graph(pl.DataFrame({"u": ["a", "b"], "v": ["b", "c"], "w": [1.0, 2.0]}), shortest_paths=False)
    with pytest.raises(SDCError, match="no edge joins 'a' and 'c'"):
        g.bind(["s"], []).pairwise(pl.DataFrame({"s": ["a", "c"]}))
    with pytest.raises(SDCError, match="positive"):
        dist.graph([("a", "b", 0)])


def test_names_and_product_spec():
    assert repr(dist.get("levenshtein_norm")) == "dist.levenshtein(normalized=True)"
    assert dist.get(lambda a, b: 1.0).multi
    p = dist.product({("x", "y"): "manhattan", "c": "discrete"}, weights={("x", "y"): 2.0})
    assert list(p.parts) == [("x", "y"), ("c",)]
    assert p.weights == {("x", "y"): 2.0}
    with pytest.raises(SDCError, match="not a key"):
        dist.product({"x": "euclidean"}, weights={"z": 1.0})
