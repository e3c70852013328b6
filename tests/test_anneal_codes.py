"""refine_anneal on nominal quasi-identifiers as codes (issue 10): the same labels, with the same
seed, as on their one-hot matrix (ties, duplicates, many categories, weights), and the annealing
itself never builds the one-hot matrix."""
from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from polars_sdc.loss.sse import sse
from polars_sdc.microagg import anneal as anneal_mod
from polars_sdc.microagg.anneal import refine_anneal
from polars_sdc.microagg.features import Features, features
from polars_sdc.microagg.mdav import partition_mdav


def _frame(case: str, seed: int) -> tuple[pl.DataFrame, list[str], dict[str, float]]:
    r = np.random.default_rng(seed)
    n = 150
    if case == "ties":  # integer numerics and few levels: tied distances and duplicate rows
        df = pl.DataFrame({"x": r.integers(0, 3, n).astype(float), "c": r.choice(list("abc"), n),
                           "d": r.choice(["u", "v"], n)})
        df = pl.concat([df, df.head(30)])
        return df, ["x", "c", "d"], {}
    if case == "many":  # most levels occur once or twice
        df = pl.DataFrame({"y": r.normal(size=n).round(1), "c": pl.Series(r.integers(0, 120, n)).cast(pl.String)})
        return df, ["c", "y"], {}
    if case == "nominal_only":  # no numeric column; two weight groups
        df = pl.DataFrame({"c": r.choice(list("abcdefg"), n), "d": r.choice(list("pq"), n),
                           "e": r.choice(list("xyzw"), n)})
        return df, ["c", "d", "e"], {"e": 3.0}
    df = pl.DataFrame({"x": r.normal(size=n), "c": r.choice(list("abcdefghij"), n), "y": r.exponential(size=n),
                       "d": pl.Series(r.choice(["lo", "mid", "hi"], n)).cast(pl.Enum(["lo", "mid", "hi", "never"]))})
    return df, ["x", "c", "y", "d"], {"d": 2.0, "x": 0.5}


@pytest.mark.parametrize("case", ["ties", "many", "nominal_only", "mixed"])
@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("k", [2, 3, 5])
def test_codes_equal_onehot(case, seed, k, monkeypatch):
    # the annealing kernel on codes == on the one-hot matrix; its MIL steps are pinned to the
    # one-hot matrix here, since MIL on codes may break an exact tie the other way
    # (tests/test_mil_nominal.py checks MIL on codes against its own one-hot path)
    from polars_sdc.microagg.mil import refine_mil

    def mil_on_onehot(X, labels, k):
        if isinstance(X, Features):
            D = X.dense()
            X = D - D.mean(axis=0)
        return refine_mil(X, labels, k)

    monkeypatch.setattr(anneal_mod, "refine_mil", mil_on_onehot)
    df, on, weights = _frame(case, seed)
    F = features(df, on, weights=weights)
    assert F.has_codes
    D = F.dense()
    lab = partition_mdav(F, k)
    a = refine_anneal(D, lab, k, max_iter=150_000, seed=seed, stages=20)
    b = refine_anneal(F, lab, k, max_iter=150_000, seed=seed, stages=20)
    assert a.tolist() == b.tolist()
    assert sse(D, b) == pytest.approx(sse(D, a), rel=1e-12)
    assert sse(D, b) <= sse(D, lab) * (1 + 1e-12)
    assert np.bincount(b).min() >= k


def test_annealing_never_builds_the_onehot(monkeypatch):
    # Features.dense raises: the annealing and its MIL steps run on the codes
    # (O(n (p + m) + sum U) memory), whatever the one-hot size
    df, on, weights = _frame("many", 5)
    F = features(df, on)
    D = F.dense()
    lab = partition_mdav(F, 3)

    def refuse(self, *a, **kw):
        raise AssertionError("one-hot matrix built")

    monkeypatch.setattr(Features, "dense", refuse)
    out = refine_anneal(F, lab, 3, max_iter=200_000, seed=2, stages=20)
    assert np.bincount(out).min() >= 3
    assert sse(D, out) < sse(D, lab)


def test_frame_anneal_with_nominal_columns_is_the_onehot_result():
    df, on, _ = _frame("mixed", 3)
    opts = {"max_iter": 100_000, "stages": 10, "seed": 4}
    out = df.sdc.partition(3, on, refine="anneal", refine_options=opts)
    F = features(df, on)
    ref = refine_anneal(F.dense(), partition_mdav(F, 3), 3, **opts)
    assert out.to_numpy().tolist() == ref.tolist()


def test_anneal_runs_beyond_the_onehot_cap(monkeypatch):
    import polars_sdc.microagg.features as feat

    df, on, _ = _frame("many", 6)
    monkeypatch.setattr(feat, "ONEHOT_CAP_BYTES", 1000)
    out = df.sdc.mdav(3, on, refine="anneal", refine_options={"max_iter": 50_000, "stages": 5})
    assert out.sdc.k_anonymity(on) >= 3


@pytest.mark.parametrize("case", ["ties", "many", "mixed"])
def test_many_groups_use_mils_approximate_lists_and_keep_the_guarantees(case, monkeypatch):
    """Beyond EXACT_MAX_GROUPS groups (lowered to 8 here) the annealing takes MIL's
    approximate neighbour lists over the codes' centroid embedding instead of the exact
    O(G^2) search: still >= k rows per group and never above the input's SSE."""
    import polars_sdc.kernels.anneal as kernel

    calls = []
    monkeypatch.setattr(anneal_mod, "EXACT_MAX_GROUPS", 8)
    monkeypatch.setattr(kernel, "slot_neighbours", lambda *a: calls.append(1))  # never reached
    real = anneal_mod._neighbour_lists
    monkeypatch.setattr(anneal_mod, "_neighbour_lists", lambda C, L: calls.append(C.shape) or real(C, L))
    df, on, weights = _frame(case, 3)
    F = features(df, on, weights=weights)
    D = F.dense()
    k = 3
    lab = partition_mdav(F, k)
    out = refine_anneal(F, lab, k, max_iter=100_000, stages=10, chains=2)
    assert len(calls) >= 10 and all(isinstance(c, tuple) and c[1] >= F.numeric.shape[1] + 1 for c in calls)
    assert np.bincount(out).min() >= k
    assert sse(D, out) <= sse(D, lab) * (1 + 1e-12)
