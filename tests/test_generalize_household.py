"""generalize with household= (audit, session 24: in a household problem it counted records):
every released class holds records of at least k distinct households, the search stays the exact
optimum (a brute force over the whole lattice with the household rule), and a problem with a
household role passes its household id to the step."""
import math

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from naive import reference_generalization_lattice

import polars_sdc  # noqa: F401
from polars_sdc import SDCError
from polars_sdc.generalize import Hierarchy
from polars_sdc.generalize.release import generalize

METRICS = ["loss", "discernibility", "discernibility_star", "entropy", "precision", "precision_monotone"]


def _hierarchy(draw, name, n_values):
    vals = [f"{name}{i}" for i in range(n_values)]
    levels = [vals]
    if draw(st.booleans()) and n_values > 1:
        levels.append([f"{name}L_{i % 2}" for i in range(n_values)])
    levels.append(["*"] * n_values)
    return levels


@st.composite
def problems(draw):
    d = draw(st.integers(1, 2))
    hier = [_hierarchy(draw, f"c{c}", draw(st.integers(1, 4))) for c in range(d)]
    n = draw(st.integers(1, 30))
    rows = [tuple(draw(st.sampled_from(h[0])) for h in hier) for _ in range(n)]
    hh = draw(st.lists(st.integers(0, max(0, n // 2)), min_size=n, max_size=n))
    k = draw(st.integers(1, 4))
    limit = draw(st.sampled_from([0.0, 0.1, 0.3]))
    metric = draw(st.sampled_from(METRICS))
    return hier, rows, hh, k, limit, metric


def _distinct_households_per_class(frame, on, household, outliers):
    kept = frame.filter(~outliers)
    if kept.height == 0:
        return None
    return kept.group_by(on).agg(pl.col(household).n_unique()).get_column(household).min()


@settings(max_examples=120, deadline=None)
@given(problems())
def test_search_with_households_is_exact_and_every_class_holds_k_households(problem):
    hier, rows, hh, k, limit, metric = problem
    d = len(hier)
    on = [f"c{c}" for c in range(d)]
    df = pl.DataFrame({c: [r[i] for r in rows] for i, c in enumerate(on)} | {"hh": hh})
    hs = {c: Hierarchy(hier[i]) for i, c in enumerate(on)}
    max_out = math.floor(limit * len(rows))
    ref = reference_generalization_lattice(rows, hier, k, max_out, metric, households=hh)
    passing = {lv: v for lv, v in ref.items() if v[0]}
    if not passing:
        with pytest.raises(SDCError, match="no transformation"):
            generalize(df, hs, k=k, suppression_limit=limit, metric=metric, household="hh")
        return
    r = generalize(df, hs, k=k, suppression_limit=limit, metric=metric, household="hh")
    best = min(v[2] for v in passing.values())
    assert math.isclose(r.loss, best, rel_tol=1e-9, abs_tol=1e-12)
    tied = {lv for lv, v in passing.items() if math.isclose(v[2], best, rel_tol=1e-12, abs_tol=1e-12)}
    assert tuple(r.transformation) in tied
    assert r.suppressed == ref[tuple(r.transformation)][1] <= max_out
    assert r.frame["hh"].to_list() == hh and r.frame.height == len(rows)
    low = _distinct_households_per_class(r.frame, on, "hh", r.outliers)
    assert low is None or low >= k
    # the lattice: every decided node agrees with the brute force under the household rule
    for row in r.lattice.iter_rows(named=True):
        lv = tuple(row[c] for c in on)
        if row["status"] != "unknown":
            assert (row["status"] == "anonymous") == ref[lv][0], lv


def test_households_not_records_and_the_problem_passes_its_role():
    # 4 households of 3: age alone gives classes of 3 records but of 1 household each
    df = pl.DataFrame({"hh": np.repeat([1, 2, 3, 4], 3), "age": ["a", "a", "a", "b", "b", "b", "c", "c", "c",
                                                                "d", "d", "d"]})
    hier = {"age": {"a": ["ab", "*"], "b": ["ab", "*"], "c": ["cd", "*"], "d": ["cd", "*"]}}
    assert df.sdc.generalize(hier, k=3).levels == {"age": 0}            # k records: nothing to do
    r = df.sdc.generalize(hier, k=2, household="hh")
    assert r.levels == {"age": 1} and r.frame["age"].to_list() == ["ab"] * 6 + ["cd"] * 6
    assert df.sdc.generalize(hier, k=3, household="hh").levels == {"age": 2}
    # the step of a problem with a household role counts households (it counted records)
    p = df.sdc.problem(keys="age", household="hh")
    q = p.generalize(hierarchies=hier, k=2)
    assert q.release()["age"].to_list() == ["ab"] * 6 + ["cd"] * 6
    assert q.steps[-1].arguments["household"] == "hh" and q.generalization().levels == {"age": 1}
    assert q.release().sdc.k_anonymity("age", household="hh") == 2
    # lazily the same release
    assert df.lazy().sdc.generalize_release(hier, k=2, household="hh").collect().equals(r.frame)
    # level 0 would suppress all 12 records (every class one household): above the limit of 6
    s = df.sdc.generalize(hier, k=2, household="hh", suppression_limit=0.5)
    assert s.levels == {"age": 1} and s.suppressed == 0
    assert s.lattice.filter(pl.col("age") == 0)["status"].to_list() == ["not anonymous"]


def test_a_class_of_one_household_is_suppressed_within_the_limit():
    df = pl.DataFrame({"hh": [1, 2, 3, 4, 5, 5, 5], "age": ["a", "a", "b", "b", "c", "c", "c"]})
    hier = {"age": {"a": ["*"], "b": ["*"], "c": ["*"]}}
    r = df.sdc.generalize(hier, k=2, household="hh", suppression_limit=0.5)
    # level 0: class c holds 3 records but one household: suppressed (3 records <= floor(0.5 * 7))
    assert r.levels == {"age": 0} and r.suppressed == 3
    assert r.frame["age"].to_list() == ["a", "a", "b", "b", "*", "*", "*"]
    assert df.sdc.generalize(hier, k=2, suppression_limit=0.5).suppressed == 0   # as records: kept


@pytest.mark.parametrize("kwargs, match", [
    (dict(household="age"), "household column 'age': is also masked"),
    (dict(household="nope"), "household column 'nope': not in the frame"),
    (dict(household="hh", sensitive="hh", l_diversity=2), "household column 'hh'"),
])
def test_bad_household_names_the_column(kwargs, match):
    df = pl.DataFrame({"hh": [1, 1, 2, 2], "age": ["a", "a", "b", "b"]})
    with pytest.raises(SDCError, match=match):
        df.sdc.generalize({"age": {"a": ["*"], "b": ["*"]}}, k=2, **kwargs)


def test_null_household_id_is_an_error():
    df = pl.DataFrame({"hh": [1, None, 2, 2], "age": ["a", "a", "b", "b"]})
    with pytest.raises(SDCError, match="household column 'hh': 1 null id"):
        df.sdc.generalize({"age": {"a": ["*"], "b": ["*"]}}, k=2, household="hh")
