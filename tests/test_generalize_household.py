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
            generalize(df, hs, k=k, suppression_limit=limit, metric=metric, household="hh", suppressed_as=None)
        return
    # the search, not the label (a kept all-"*" record is refused with "*": test_audit28_generalize_label.py)
    r = generalize(df, hs, k=k, suppression_limit=limit, metric=metric, household="hh", suppressed_as=None)
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
    assert df.sdc.generalize(hier, k=3, household="hh", suppressed_as="(s)").levels == {"age": 2}   # top: "*"
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


# -- a household with a suppressed member is suppressed whole (when a key is household-level) -------
def _household_problem(draw, with_sensitive):
    n_h = draw(st.integers(1, 8))
    sizes = [draw(st.integers(1, 3)) for _ in range(n_h)]
    hier = [_hierarchy(draw, "r", draw(st.integers(1, 3))), _hierarchy(draw, "a", draw(st.integers(1, 4)))]
    rows, hh, sens = [], [], []
    for h, size in enumerate(sizes):
        region = draw(st.sampled_from(hier[0][0]))                 # household-level: one per household
        for _ in range(size):
            rows.append((region, draw(st.sampled_from(hier[1][0]))))
            hh.append(h)
            sens.append(draw(st.sampled_from("xyz")))
    k = draw(st.integers(1, 3))
    limit = draw(st.sampled_from([0.1, 0.3, 0.6]))
    metric = draw(st.sampled_from(METRICS))
    l_div = draw(st.sampled_from([None, 2])) if with_sensitive else None
    return hier, rows, hh, sens, k, limit, metric, l_div


@st.composite
def household_problems(draw):
    return _household_problem(draw, draw(st.booleans()))


@settings(max_examples=150, deadline=None)
@given(household_problems())
def test_a_household_level_key_suppresses_the_household_whole_and_the_search_stays_exact(problem):
    """A person suppressed by the search shows "*" in every key; with a household-level key
    (region) the housemates' records would still show the household's region next to the shared
    household id. So a household with a suppressed member is suppressed whole, and the rest of
    every class must pass again (k households, l) until nothing changes; the optimum is a brute
    force's over the whole lattice under that rule (tests/naive.py), and no kept record shares a
    household with a suppressed one."""
    hier, rows, hh, sens, k, limit, metric, l_div = problem
    on = ["r", "a"]
    df = pl.DataFrame({"r": [r[0] for r in rows], "a": [r[1] for r in rows], "hh": hh, "s": sens})
    hs = {c: Hierarchy(hier[i]) for i, c in enumerate(on)}
    max_out = math.floor(limit * len(rows))
    extra = dict(sensitive="s", l_diversity=l_div) if l_div else {}
    ref = reference_generalization_lattice(rows, hier, k, max_out, metric, households=hh,
                                           **(dict(sensitive=sens, l_div=l_div) if l_div else {}))
    passing = {lv: v for lv, v in ref.items() if v[0]}
    if not passing:
        with pytest.raises(SDCError, match="no transformation"):
            generalize(df, hs, k=k, suppression_limit=limit, metric=metric, household="hh", on=on,
                       suppressed_as="(s)", **extra)
        return
    # a label no hierarchy uses: a kept all-"*" record is refused with "*" (test_audit28_generalize_label.py)
    r = generalize(df, hs, k=k, suppression_limit=limit, metric=metric, household="hh", on=on, suppressed_as="(s)",
                   **extra)
    best = min(v[2] for v in passing.values())
    assert math.isclose(r.loss, best, rel_tol=1e-9, abs_tol=1e-12)
    tied = {lv for lv, v in passing.items() if math.isclose(v[2], best, rel_tol=1e-12, abs_tol=1e-12)}
    assert tuple(r.transformation) in tied and set(r.ties) <= tied      # ties: every one an optimum
    assert r.suppressed == ref[tuple(r.transformation)][1] == int(r.outliers.sum()) <= max_out
    out_h = set(df.filter(r.outliers)["hh"].to_list())
    kept = r.frame.filter(~r.outliers)
    assert not out_h & set(kept["hh"].to_list())                     # no household released in part
    assert (r.frame.filter(r.outliers).select(pl.col(on) == "(s)").to_numpy().all())
    low = _distinct_households_per_class(r.frame, on, "hh", r.outliers)
    assert low is None or low >= k
    if l_div and kept.height:
        assert kept.group_by(on).agg(pl.col("s").n_unique())["s"].min() >= l_div
    for row in r.lattice.iter_rows(named=True):
        lv = tuple(row[c] for c in on)
        if row["status"] != "unknown":
            assert (row["status"] == "anonymous") == ref[lv][0], lv


def test_a_suppressed_persons_region_is_not_left_on_a_housemates_record():
    """Five households of two; region is household-level, age person-level. The person aged z
    is alone in its class: suppressed. Released before with region "S" on the housemate's
    record next to household id 5, i.e. the suppressed person's region; now the household goes
    whole (2 records, the limit allows 2), and the other classes keep >= 2 households."""
    df = pl.DataFrame({"hh": [1, 1, 2, 2, 3, 3, 4, 4, 5, 5], "region": list("NNNNSSSSSS"),
                       "age": list("aaaaaaaaaz")})
    hs = {"region": {"N": ["*"], "S": ["*"]}, "age": {"a": ["*"], "z": ["*"]}}
    r = df.sdc.generalize(hs, k=2, household="hh", suppression_limit=0.2)
    assert r.levels == {"region": 0, "age": 0} and r.suppressed == 2
    assert r.frame.rows()[8:] == [(5, "*", "*"), (5, "*", "*")]
    assert r.outliers.to_list() == [False] * 8 + [True] * 2
    kept = r.frame.filter(~r.outliers)
    assert kept.group_by("region", "age").agg(pl.col("hh").n_unique())["hh"].min() == 2
    # read with the suppressed records as records with every key missing (sdcMicro's
    # addAllNAtoKeys = FALSE, d8e1f02): with two keys they do not count for a complete
    # combination, so household 5 joins no class (was 3: it joined every one)
    assert r.frame.sdc.k_anonymity(["region", "age"], household="hh", suppressed_as="*") == 2
    # a limit of one record cannot hold the household: the search generalises age instead
    s = df.sdc.generalize(hs, k=2, household="hh", suppression_limit=0.1)
    assert s.levels == {"region": 0, "age": 1} and s.suppressed == 0
    # no household-level key (age varies within household 5): the person alone, as before
    p = df.with_columns(region=pl.Series(list("NSNSNSNSNS")))
    t = p.sdc.generalize(hs, k=2, household="hh", suppression_limit=0.2)
    assert t.suppressed == 1 and t.frame.rows()[8:] == [(5, "N", "a"), (5, "*", "*")]


def test_whole_households_when_the_class_left_behind_fails():
    """A cascade: household 3's member b is suppressed (class (S, b) holds one household), so its
    housemate in class (S, a) goes too, which leaves that class with one household (2): it is
    suppressed in turn. 4 records out of 8."""
    df = pl.DataFrame({"hh": [1, 1, 2, 2, 3, 3, 4, 4], "region": list("NNNNSSSS"),
                       "age": ["a", "a", "a", "a", "a", "b", "a", "a"]})
    hs = {"region": {"N": ["*"], "S": ["*"]}, "age": {"a": ["*"], "b": ["*"]}}
    r = df.sdc.generalize(hs, k=2, household="hh", suppression_limit=0.5, metric="precision")
    assert r.levels == {"region": 0, "age": 0} and r.suppressed == 4
    assert r.frame["age"].to_list() == ["a"] * 4 + ["*"] * 4


# -- adversarial: one household, k above the households, Enum / Categorical keys, lazy / streaming --
FAM = pl.DataFrame({"hh": [1, 1, 2, 2, 3, 3, 4, 4, 5, 5], "region": list("NNNNSSSSSS"), "age": list("aaaaaaaaaz")})
FAM_H = {"region": {"N": ["*"], "S": ["*"]}, "age": {"a": ["*"], "z": ["*"]}}


def test_one_household_and_k_above_the_households():
    one = FAM.with_columns(hh=pl.lit(7))
    # one household: no class can hold 2 households, so every record goes (allowed at limit 1)
    r = one.sdc.generalize(FAM_H, k=2, household="hh", suppression_limit=1.0)
    assert r.suppressed == 10 and r.frame.select(pl.col("region", "age") == "*").to_numpy().all()
    with pytest.raises(SDCError, match="no transformation satisfies the models with at most 9 records"):
        one.sdc.generalize(FAM_H, k=2, household="hh", suppression_limit=0.9)
    # k = 6 > 5 households: nothing can be released
    with pytest.raises(SDCError, match="no transformation"):
        FAM.sdc.generalize(FAM_H, k=6, household="hh")
    assert FAM.sdc.generalize(FAM_H, k=6, household="hh", suppression_limit=1.0).suppressed == 10
    # k = 5 = the households: only the top node, everybody in one class
    top = FAM.sdc.generalize(FAM_H, k=5, household="hh", suppressed_as="(s)")   # "*": the top's label too
    assert top.levels == {"region": 1, "age": 1} and top.suppressed == 0


@pytest.mark.parametrize("dtype", [pl.String, pl.Categorical, pl.Enum(["N", "S", "a", "z"])])
def test_enum_and_categorical_keys_and_ids_give_the_same_release(dtype):
    want = FAM.sdc.generalize(FAM_H, k=2, household="hh", suppression_limit=0.2)
    df = FAM.with_columns(pl.col("region", "age").cast(dtype), hh=pl.col("hh").cast(pl.String).cast(pl.Categorical))
    got = df.sdc.generalize(FAM_H, k=2, household="hh", suppression_limit=0.2)
    assert got.frame.select("region", "age").equals(want.frame.select("region", "age"))
    assert got.suppressed == want.suppressed == 2 and got.outliers.equals(want.outliers)


def test_null_key_with_households_stays_null():
    r = FAM.with_columns(age=pl.when(pl.int_range(10) == 3).then(None).otherwise(pl.col("age"))).sdc.generalize(
        FAM_H, k=2, household="hh", suppression_limit=0.3, suppressed_as="(s)")
    # the null is a value of its own: alone in its class, so suppressed, with its household
    # (region is household-level); at top level the other records' keys are "*" (so the
    # suppressed records take another label), a null stays null
    assert r.outliers.to_list() == [False, False, True, True] + [False] * 6
    assert r.frame.row(3) == (2, "(s)", "(s)") and r.suppressed == 2
    r = FAM.with_columns(age=pl.when(pl.col("hh") == 2).then(None).otherwise(pl.col("age"))).sdc.generalize(
        FAM_H, k=2, household="hh", suppression_limit=0.3, suppressed_as="(s)")   # one household's nulls: < 2 households
    assert r.outliers.to_list() == [False, False, True, True] + [False] * 6


def test_whole_households_lazy_and_streaming_equal_eager():
    want = FAM.sdc.generalize(FAM_H, k=2, household="hh", suppression_limit=0.2).frame
    lf = FAM.lazy().sdc.generalize_release(FAM_H, k=2, household="hh", suppression_limit=0.2)
    assert lf.collect().equals(want) and lf.collect(engine="streaming").equals(want)
    # the row order is the input's: shuffled households give the shuffled release
    perm = [9, 0, 5, 2, 7, 1, 8, 3, 6, 4]
    got = FAM[perm].sdc.generalize(FAM_H, k=2, household="hh", suppression_limit=0.2).frame
    assert got.equals(want[perm])


def test_the_exposure_left_by_a_release_without_the_rule_is_measured():
    """risk(household=, suppressed_as=) counts the suppressed records whose household-level key
    a released housemate still shows: 1 for a generalisation made without household= (the z
    person's region S on its housemate's record), 0 with it (the household went whole); a plain
    reference counts the same on random releases."""
    on = ["region", "age"]
    plain = FAM.sdc.generalize(FAM_H, k=2, suppression_limit=0.2).frame       # per person
    assert plain.row(9) == (5, "*", "*") and plain.row(8) == (5, "S", "a")
    assert plain.sdc.risk(on, household="hh", suppressed_as="*", suda=False)["suppressed_records_exposed"] == 1
    whole = FAM.sdc.generalize(FAM_H, k=2, household="hh", suppression_limit=0.2).frame
    assert whole.sdc.risk(on, household="hh", suppressed_as="*", suda=False)["suppressed_records_exposed"] == 0
    g = np.random.default_rng(5)
    for _ in range(20):
        hh = np.repeat(np.arange(8), g.integers(1, 4, 8))
        region = np.array(["N", "S", "E"])[g.integers(0, 3, 8)][hh]
        df = pl.DataFrame({"hh": hh, "region": region, "age": g.choice(["a", "b", "c"], hh.size)})
        rel = df.sdc.generalize({"region": {v: ["*"] for v in "NSE"}, "age": {v: ["*"] for v in "abc"}}, k=2,
                                suppression_limit=0.5).frame
        star = [all(v == "*" for v in r) for r in rel.select(on).rows()]
        shown = {h for h, s in zip(hh.tolist(), star) if not s}
        want = sum(1 for h, s in zip(hh.tolist(), star) if s and h in shown)
        got = rel.sdc.risk(on, household="hh", suppressed_as="*", suda=False)["suppressed_records_exposed"]
        assert got == want
