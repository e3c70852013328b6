"""generalize(l_diversity=, t_closeness=, sensitive=) with null sensitive values (EU-SILC's
pl030, economic status, is empty for the children): a null is no sensitive value, the rule of the
release report / sign-off (tests/test_audit27b_sensitive_nulls.py). l (distinct, entropy,
recursive) and t are measured on a class's records with a value (t's table distribution over the
table's records with a value); a class whose values are all null fails them. Before: the search
counted null as one more value, so a class {p, null} passed distinct 2-diversity and the sign-off
of that release read 'l-diversity ... -> 1' below the requested 2."""
import math

import polars as pl
import pytest
from hypothesis import given, settings, strategies as st

import polars_sdc  # noqa: F401
from polars_sdc import SDCError
from polars_sdc.generalize import Hierarchy, generalize

from conftest import small_hierarchy
from naive import reference_generalization_lattice

MODELS = {
    "distinct": {"l_diversity": 2},
    "entropy": {"l_diversity": 1.7, "l_kind": "entropy"},
    "grassberger": {"l_diversity": 1.3, "l_kind": "entropy_grassberger"},
    "recursive": {"l_diversity": 2, "l_kind": "recursive", "c": 1.5},
    "t_equal": {"t_closeness": 0.3},
    "l_and_t": {"l_diversity": 2, "t_closeness": 0.4},
}


def _smallest_l(frame, keys, s):
    """Brute force: the smallest number of distinct non-null sensitive values over the classes
    (exact key values) that have one; None when none has."""
    sets = {}
    for *key, v in frame.select(*keys, s).rows():
        if v is not None:
            sets.setdefault(tuple(key), set()).add(v)
    return min((len(v) for v in sets.values()), default=None)


@st.composite
def problems(draw):
    d = draw(st.integers(1, 3))
    hier = [small_hierarchy(draw, f"c{c}", draw(st.integers(1, 5))) for c in range(d)]
    n_s = draw(st.integers(2, 4))
    n = draw(st.integers(1, 30))
    rows = [tuple(draw(st.sampled_from(h[0])) for h in hier) for _ in range(n)]
    null_share = draw(st.sampled_from([0.2, 0.5, 0.9]))
    sens = [None if draw(st.floats(0, 1)) < null_share else f"s{draw(st.integers(0, n_s - 1))}" for _ in range(n)]
    k = draw(st.integers(1, 3))
    limit = draw(st.sampled_from([0.0, 0.1, 0.3]))
    metric = draw(st.sampled_from(["loss", "discernibility", "entropy", "precision_monotone"]))
    model = draw(st.sampled_from(sorted(MODELS)))
    return hier, rows, sens, k, limit, metric, model


@settings(max_examples=120, deadline=None)
@given(problems())
def test_search_equals_brute_force_with_null_sensitive_values(problem):
    hier, rows, sens, k, limit, metric, model = problem
    d = len(hier)
    on = [f"c{c}" for c in range(d)]
    df = pl.DataFrame({f"c{c}": [r[c] for r in rows] for c in range(d)} | {"s": pl.Series(sens, dtype=pl.String)})
    hs = {f"c{c}": Hierarchy(hier[c]) for c in range(d)}
    kw = MODELS[model]
    max_out = math.floor(limit * len(rows))
    ref = reference_generalization_lattice(rows, hier, k, max_out, metric, sens, kw.get("l_diversity"),
                                           kw.get("t_closeness"), kw.get("l_kind", "distinct"), kw.get("c"))
    passing = {lv: v for lv, v in ref.items() if v[0]}
    if not passing:
        with pytest.raises(SDCError, match="no transformation"):
            generalize(df, hs, k=k, suppression_limit=limit, metric=metric, sensitive="s", suppressed_as=None, **kw)
        return
    # the search, not the label (a kept all-"*" record is refused with "*": test_audit28_generalize_label.py)
    r = generalize(df, hs, k=k, suppression_limit=limit, metric=metric, sensitive="s", suppressed_as=None, **kw)
    best = min(v[2] for v in passing.values())
    tol = 2e-10
    assert math.isclose(r.loss, best, rel_tol=1e-9, abs_tol=tol)
    tied = {lv for lv, v in passing.items() if math.isclose(v[2], best, rel_tol=1e-9, abs_tol=tol)}
    assert tuple(r.transformation) in tied
    assert r.suppressed == ref[tuple(r.transformation)][1]
    for row in r.lattice.iter_rows(named=True):  # every node the search decided agrees
        lv = tuple(row[f"c{c}"] for c in range(d))
        if row["status"] != "unknown":
            assert (row["status"] == "anonymous") == ref[lv][0], lv
    assert r.frame["s"].to_list() == sens                      # the sensitive column is not touched
    kept = r.frame.filter(~r.outliers)
    if kept.height and "l_diversity" in kw and kw.get("l_kind", "distinct") == "distinct":
        # every released class has a sensitive value and reads l >= the requested l
        low = _smallest_l(kept, on, "s")
        assert low is not None and low >= kw["l_diversity"]
        assert kept.group_by(on).agg(pl.col("s").is_not_null().any())["s"].all()
        # ... and so does the report of the released records (without suppressed_as: a key
        # generalised to the top level '*' would read as suppressed)
        rep = polars_sdc.report(df.filter(~r.outliers), kept, on=on, sensitive="s")
        assert rep.facts["l_after"] >= kw["l_diversity"]


def test_a_class_with_one_value_and_nulls_is_not_2_diverse():
    """Class a: {p, null, null}: one sensitive value (before: null was a second one, l 2 passed);
    class b: {null, null}: no sensitive value; class c: {p, q}. With a 40% suppression limit the
    records of a and b (5 of 7 > 2) cannot all go: the search generalises the key to '*', where
    the one class {p, q, p, null...} has 2 values."""
    df = pl.DataFrame({"g": ["a", "a", "a", "b", "b", "c", "c"],
                       "s": ["p", None, None, None, None, "p", "q"]})
    hs = {"g": Hierarchy([["a", "b", "c"], ["*", "*", "*"]])}
    with pytest.raises(SDCError, match=r"column 'g' uses the label '\*'"):   # every kept record '*'
        generalize(df, hs, k=2, l_diversity=2, sensitive="s", suppression_limit=0.4)
    r = generalize(df, hs, k=2, l_diversity=2, sensitive="s", suppression_limit=0.4, suppressed_as="(suppressed)")
    assert r.transformation == [1] and r.suppressed == 0
    # at level 0 the classes a and b fail (5 records > 2 allowed): the lattice says so
    status = dict(zip(r.lattice["g"].to_list(), r.lattice["status"].to_list()))
    assert status[0] == "not anonymous"
    # with room to suppress them, a and b are suppressed, c released: its l is 2 in the sign-off
    r = generalize(df, hs, k=2, l_diversity=2, sensitive="s", suppression_limit=5 / 7)
    assert r.transformation == [0] and r.outliers.to_list() == [True] * 5 + [False] * 2
    assert polars_sdc.report(df, r.frame, on=["g"], sensitive="s", suppressed_as="*").facts["l_after"] == 2.0


def test_t_closeness_measures_the_records_with_a_value():
    """The table's distribution over its records with a value: q_p = 2/5, q_q = 3/5 (before:
    over all nine records, the four nulls a third value). Class a {p, q, null} is at distance
    1/10, b {p, null, null, null} at 3/5, c {q, q} at 2/5."""
    df = pl.DataFrame({"g": ["a", "a", "a", "b", "b", "b", "b", "c", "c"],
                       "s": ["p", "q", None, "p", None, None, None, "q", "q"]})
    hs = {"g": Hierarchy([["a", "b", "c"], ["*", "*", "*"]])}
    r = generalize(df, hs, k=2, t_closeness=0.15, sensitive="s", suppression_limit=6 / 9)
    assert r.transformation == [0] and r.outliers.to_list() == [False] * 3 + [True] * 6
    r = generalize(df, hs, k=2, t_closeness=0.45, sensitive="s", suppression_limit=4 / 9)
    assert r.transformation == [0] and r.outliers.to_list() == [False] * 3 + [True] * 4 + [False] * 2


def test_every_sensitive_value_null_has_no_l_diverse_class():
    df = pl.DataFrame({"g": ["a", "a", "b", "b"], "s": pl.Series([None] * 4, dtype=pl.String)})
    hs = {"g": Hierarchy([["a", "b"], ["*", "*"]])}
    with pytest.raises(SDCError, match="no transformation"):
        generalize(df, hs, k=2, l_diversity=1, sensitive="s")
    # k alone does not look at the sensitive column
    assert generalize(df, hs, k=2, sensitive="s").transformation == [0]
