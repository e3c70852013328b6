"""The MIL exchange pass (thesis 4.2) as a kernel: which group pairs it examines, and that the
swap it makes is the best one by brute force (``naive.best_exchange``)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from naive import best_exchange, direct_sse


def _state(X, labels):
    from polars_sdc.kernels.mil import group_stats

    X = np.ascontiguousarray(X, dtype=np.float64)
    codes = np.asarray(labels, dtype=np.int64).copy()
    G = int(codes.max()) + 1
    counts, sums = group_stats(X, codes, G)
    return X, codes, counts, sums


def _run(X, labels, pairs, stamp, sweep, max_rounds=1000):
    """The exchange pass alone, through the sweep kernel: k = n rows (no group may give a
    row away, so the move pass makes no move), no 3-cycles."""
    from polars_sdc.kernels.mil import change_threshold, mil_sweep, no_nominal

    X, codes, counts, sums = _state(X, labels)
    n, G = X.shape[0], counts.size
    nom = no_nominal(n, G)
    members = np.empty(n, dtype=np.int64)
    mstart = np.empty(G + 1, dtype=np.int64)
    before = codes.copy()
    n_ex = mil_sweep(X, codes, counts, sums, np.full((G, 1), -1, dtype=np.int64), n, np.asarray(stamp, dtype=np.int64),
                     sweep, nom, change_threshold(X, nom), members, mstart,
                     np.asarray(pairs, dtype=np.int64).reshape(-1, 2), max_rounds, False, 0, np.zeros(1), 0.0, 0.0)
    # the member lists the kernel built after its (empty) move pass: a stable argsort
    assert n_ex > 0 or members.tolist() == np.argsort(before, kind="stable").tolist()
    assert mstart.tolist() == [0, *np.cumsum(counts).tolist()]
    return int(n_ex), codes, counts, sums, members, mstart


# two groups of 4 in the plane; row 3 sits with group 1's rows and row 4 with group 0's
X2 = np.array([[0.0, 0.0], [0.2, 0.1], [0.1, 0.3], [5.0, 5.1],
               [0.3, 0.2], [5.2, 4.9], [4.8, 5.0], [5.1, 5.3]])
L2 = np.array([0, 0, 0, 0, 1, 1, 1, 1])


@pytest.mark.parametrize("stamp_a, stamp_b", [(5, 5), (5, -1), (-1, 5), (4, -1), (-1, 4)])
def test_pair_is_examined_when_either_group_changed_recently(stamp_a, stamp_b):
    # sweep 5: a pair is skipped only when NEITHER group changed in sweep 4 or 5
    n_ex, codes, counts, sums, members, mstart = _run(X2, L2, [[0, 1]], [stamp_a, stamp_b], 5)
    assert n_ex == 1
    assert codes.tolist() == [0, 0, 0, 1, 0, 1, 1, 1]
    assert best_exchange(X2, codes, 0, 1)[0] == 0.0  # no swap lowers the SSE any more
    assert counts.tolist() == [4, 4]
    np.testing.assert_allclose(sums, [X2[codes == g].sum(axis=0) for g in (0, 1)], atol=1e-12)
    for g in (0, 1):  # the member lists follow the labels
        assert sorted(members[mstart[g]:mstart[g + 1]].tolist()) == np.flatnonzero(codes == g).tolist()


def test_pair_unchanged_for_two_sweeps_is_skipped():
    n_ex, codes, *_ = _run(X2, L2, [[0, 1]], [3, 2], 5)
    assert n_ex == 0 and codes.tolist() == L2.tolist()


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), na=st.integers(1, 5), nb=st.integers(1, 5), p=st.integers(1, 3),
       changed=st.sampled_from(["a", "b", "both"]))
def test_first_swap_is_the_brute_force_best_and_pass_ends_at_a_pair_optimum(seed, na, nb, p, changed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(na + nb, p)) * rng.uniform(0.5, 2.0, size=p)
    labels = rng.permutation(np.repeat([0, 1], [na, nb]))
    gain, i, j = best_exchange(X, labels, 0, 1)
    stamp = {"a": [7, 0], "b": [0, 7], "both": [7, 7]}[changed]
    n1, one, *_ = _run(X, labels, [[0, 1]], stamp, 7, max_rounds=1)
    sse0 = direct_sse(X, labels)
    if gain <= 1e-9 * (1 + sse0):
        assert n1 == 0 and one.tolist() == labels.tolist()
        return
    assert n1 == 1
    want = labels.copy()
    want[i], want[j] = 1, 0
    assert direct_sse(X, one) == pytest.approx(direct_sse(X, want), rel=1e-9, abs=1e-12)
    assert direct_sse(X, one) == pytest.approx(sse0 - gain, rel=1e-9, abs=1e-12)
    n_all, final, *_ = _run(X, labels, [[0, 1]], stamp, 7)
    assert n_all >= 1 and np.bincount(final).tolist() == [na, nb]
    assert best_exchange(X, final, 0, 1)[0] <= 1e-9 * (1 + sse0)
