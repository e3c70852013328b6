"""Model-based utility (Sano & Hattori): multinomial logit, metrics, IL of eq. (6), Cramér's V."""
import itertools

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import check_grad

import polars_sdc
from polars_sdc import datasets
from polars_sdc.kernels.logit import onehot_objective
from polars_sdc.utility import (
    classification_metrics,
    confusion_matrix,
    cramers_v,
    fit_multinomial,
    fit_multinomial_onehot,
    logit_objective,
    recode_utility,
)
from naive import reference_fit, reference_metrics


# -- the regression against a plain, row-by-row, scipy-optimised likelihood ----------------
def toy_rows(rng, n=240):
    """Two categorical inputs (3 and 4 levels) and a 3-class target that depends on them."""
    a = rng.integers(0, 3, n)
    b = rng.integers(0, 4, n)
    score = np.stack([np.zeros(n), 0.8 * (a == 1) - 0.5 * (b == 2), 1.2 * (a == 2) + 0.7 * (b == 3)], 1)
    prob = np.exp(score) / np.exp(score).sum(1, keepdims=True)
    y = np.array([rng.choice(3, p=pr) for pr in prob])
    X = np.column_stack([(a == 1), (a == 2), (b == 1), (b == 2), (b == 3)]).astype(float)
    idx = np.column_stack([np.where(a > 0, a - 1, -1), np.where(b > 0, 2 + b - 1, -1)])
    return X, idx, y


@pytest.mark.parametrize("l2", [1e-2, 1e-4])
def test_regression_matches_scipy_reference(rng, l2):
    X, idx, y = toy_rows(rng)
    K = 3
    W_ref, f_ref = reference_fit(X, y, K, l2)
    counts = np.eye(K)[y]
    dense = fit_multinomial(X, counts, l2=l2, tol=1e-11)
    onehot = fit_multinomial_onehot(idx, X.shape[1], counts, l2=l2, tol=1e-11)
    for fit in (dense, onehot):
        assert fit.converged
        W = np.vstack([fit.intercept, fit.coef])
        assert np.max(np.abs(W - W_ref)) < 1e-6
        assert abs(fit.objective / len(y) - f_ref) < 1e-9
        assert np.allclose(fit.decision(X), onehot.decision_onehot(idx), atol=1e-6)
    # grouping rows into patterns leaves the likelihood unchanged
    keys, inverse = np.unique(idx, axis=0, return_inverse=True)
    C = np.zeros((len(keys), K))
    np.add.at(C, (inverse.ravel(), y), 1.0)
    grouped = fit_multinomial_onehot(keys, X.shape[1], C, l2=l2, tol=1e-11)
    assert np.max(np.abs(np.vstack([grouped.intercept, grouped.coef]) - W_ref)) < 1e-6
    assert abs(grouped.loglik - onehot.loglik) < 1e-6


def test_gradients_are_analytic_and_kernels_agree(rng):
    X, idx, y = toy_rows(rng, 60)
    C = np.eye(3)[y] * rng.integers(1, 4, (60, 1))
    theta = rng.normal(size=(X.shape[1] + 1) * 2)
    f = lambda t: logit_objective(t, X, C, 0.3)[0]  # noqa: E731
    g = lambda t: logit_objective(t, X, C, 0.3)[1]  # noqa: E731
    assert check_grad(f, g, theta) < 1e-4 * max(1.0, np.linalg.norm(g(theta)))
    fk, gk = onehot_objective(theta, idx, C, 0.3)
    fd, gd = logit_objective(theta, X, C, 0.3)
    assert abs(fk - fd) < 1e-9 and np.max(np.abs(gk - gd)) < 1e-9


def test_fit_errors():
    with pytest.raises(polars_sdc.SDCError, match="two classes"):
        fit_multinomial(np.zeros((2, 1)), np.ones((2, 1)))
    with pytest.raises(polars_sdc.SDCError, match="l2"):
        fit_multinomial(np.zeros((2, 1)), np.ones((2, 2)), l2=-1)
    with pytest.raises(polars_sdc.SDCError, match="idx"):
        fit_multinomial_onehot(np.array([[3]]), 2, np.ones((1, 2)))


# -- metrics ---------------------------------------------------------------------------------
@settings(max_examples=40, deadline=None)
@given(
    pairs=st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=1, max_size=40),
)
def test_metrics_match_plain_definitions(pairs):
    y = np.array([t for t, _ in pairs])
    pred = np.array([q for _, q in pairs])
    got = classification_metrics(confusion_matrix(y, pred, 4))
    want = reference_metrics(y, pred, 4)
    for m in want:
        assert got[m] == pytest.approx(want[m], nan_ok=True)


def test_metrics_follow_the_prose_not_the_swapped_formulas():
    # true a: 8 predicted a, 2 predicted b; true b: 1 predicted a, 9 predicted b
    G = np.array([[8.0, 2.0], [1.0, 9.0]])
    m = classification_metrics(G)
    assert m["precision"] == pytest.approx((8 / 9 + 9 / 11) / 2)  # column totals
    assert m["recall"] == pytest.approx((8 / 10 + 9 / 10) / 2)  # row totals
    assert m["accuracy"] == pytest.approx(17 / 20)
    # a dominant class predicted for everyone: precision of the never-predicted class is left out
    everyone = np.array([[95.0, 0.0], [5.0, 0.0]])
    assert classification_metrics(everyone)["precision"] == pytest.approx(0.95)
    assert classification_metrics(everyone)["recall"] == pytest.approx(0.5)
    assert classification_metrics(everyone, undefined="zero")["precision"] == pytest.approx(0.475)
    assert classification_metrics(everyone)["f"] == pytest.approx(2 * 0.95 / 1.95)
    with pytest.raises(polars_sdc.SDCError, match="undefined"):
        classification_metrics(G, undefined="drop")


# -- IL of eq. (6) ---------------------------------------------------------------------------
def hand_frame():
    return pl.DataFrame(
        {"x": ["u"] * 12 + ["v"] * 10 + ["w"] * 8, "y": ["a"] * 12 + ["b"] * 10 + ["a"] * 5 + ["b"] * 3}
    )


def test_il_by_hand():
    df = hand_frame()
    # original: u->a, v->b, w->a; recoded (th = 9, w merges into v): u->a, v|w->b
    report = df.sdc.recode_utility("y", "x", p=0.3, metric=None)
    assert report.original["recall"] == pytest.approx((1 + 10 / 13) / 2)
    assert report.recoded["recall"] == pytest.approx((12 / 17 + 1) / 2)
    assert report.il["precision"] == pytest.approx((17 / 20 + 1) / 2 - (1 + 13 / 18) / 2)
    assert report.il["accuracy"] == pytest.approx(27 / 30 - 25 / 30)
    assert df.sdc.recode_utility("y", "x", p=0.3) == pytest.approx(report.il["recall"])
    frame = report.to_frame()
    assert frame["metric"].to_list() == ["precision", "recall", "f", "accuracy"]
    assert "y ~ x" in repr(report)
    lazy = df.lazy().sdc.recode_utility("y", "x", p=0.3, metric="accuracy")
    assert lazy == pytest.approx(report.il["accuracy"])


def test_nulls_dropped_and_holdout():
    df = hand_frame().with_columns(pl.when(pl.int_range(pl.len()) == 0).then(None).otherwise(pl.col("x")).alias("x"))
    report = recode_utility(df, "y", "x", 0.3, metric=None)
    assert report.n == 29
    big = pl.concat([hand_frame()] * 10)
    a = recode_utility(big, "y", "x", 0.3, test_size=0.3, seed=1, metric=None)
    b = recode_utility(big, "y", "x", 0.3, test_size=0.3, seed=1, metric=None)
    assert a.il == b.il and a.original["accuracy"] == pytest.approx(0.9, abs=0.08)
    with pytest.raises(polars_sdc.SDCError, match="test_size"):
        recode_utility(big, "y", "x", 0.3, test_size=1.5)


def test_utility_errors():
    df = hand_frame()
    with pytest.raises(polars_sdc.SDCError, match="metric"):
        df.sdc.recode_utility("y", "x", p=0.3, metric="auc")
    with pytest.raises(polars_sdc.SDCError, match="'y'"):
        df.sdc.recode_utility("y", ["x", "y"], p=0.3)
    with pytest.raises(polars_sdc.SDCError, match="single category"):
        df.with_columns(y=pl.lit("a")).sdc.recode_utility("y", "x", p=0.3)
    with pytest.raises(polars_sdc.SDCError, match="p must be"):
        df.sdc.recode_utility("y", "x", p=0)


def test_recall_il_on_adult_subset_has_the_papers_properties():
    """Properties (a)-(c) of section 4.1 on the mean recall-IL per (inputs, p), as Table 6(b):
    every target, every input subset, of four Adult variables on 3,000 complete rows."""
    cols = ["education", "occupation", "relationship", "workclass"]
    df = datasets.adult().select(cols).drop_nulls().head(3000)
    ps = (0.01, 0.03, 0.05)
    mean = np.zeros((3, len(ps)))
    for j, p in enumerate(ps):
        for target in cols:
            others = [c for c in cols if c != target]
            for k in (1, 2, 3):
                vals = [recode_utility(df, target, list(inp), p) for inp in itertools.combinations(others, k)]
                mean[k - 1, j] += np.mean(vals) / len(cols)
    assert np.all(mean > 0)  # (a)
    assert np.all(np.diff(mean, axis=1) > 0)  # (b) grows with p
    assert np.all(np.diff(mean, axis=0) > 0)  # (c) grows with the number of inputs


# -- Cramér's V ------------------------------------------------------------------------------
def test_cramers_v_matches_scipy(rng):
    from scipy.stats.contingency import association, crosstab

    n = 400
    a = rng.choice(list("abcd"), n)
    b = np.where(rng.random(n) < 0.6, np.array(list("abcd"))[np.searchsorted(list("abcd"), a)], rng.choice(list("xyz"), n))
    c = rng.choice(["p", "q"], n)
    df = pl.DataFrame({"a": a, "b": b, "c": c}).with_columns(pl.col("c").cast(pl.Categorical))
    V = cramers_v(df)
    assert V["column"].to_list() == ["a", "b", "c"]
    for x, y in itertools.combinations("abc", 2):
        want = association(crosstab(df[x].cast(pl.String).to_numpy(), df[y].cast(pl.String).to_numpy()).count, method="cramer")
        assert V.filter(pl.col("column") == x)[y].item() == pytest.approx(want, abs=1e-12)
        assert V.filter(pl.col("column") == y)[x].item() == pytest.approx(want, abs=1e-12)
    assert [V[c][i] for i, c in enumerate("abc")] == [1.0, 1.0, 1.0]
    lazy = df.lazy().sdc.cramers_v(["a", "b"])
    assert lazy["b"].to_list()[0] == pytest.approx(V["b"][0])


def test_cramers_v_edge_cases():
    df = pl.DataFrame({"a": ["x", "x", "y", None], "b": ["u", "u", "v", "v"], "k": ["s"] * 4})
    V = df.sdc.cramers_v()
    assert V.filter(pl.col("column") == "a")["b"].item() == pytest.approx(1.0)  # null row left out
    assert V.filter(pl.col("column") == "k")["k"].item() is None  # a single category
    assert V.filter(pl.col("column") == "a")["k"].item() is None
