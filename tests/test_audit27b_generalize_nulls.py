"""generalize with structural nulls in a quasi-identifier (EU-SILC's pl030, economic status,
is empty for children): the null is kept null in the release (never generalised, never "*"
unless its record is suppressed), and the search treats it as its own value: a class's records
share their nulls. Under sdcMicro's rule for the risk measures (a missing key matches every
value, :mod:`polars_sdc.risk.frequencies`) a record's fk is at least the size of its exact
class (identical records always count), so k-anonymity of the release holds under that rule.
"""
import math

import polars as pl
import pytest
from hypothesis import given, settings, strategies as st

import polars_sdc  # noqa: F401
from polars_sdc.generalize import Hierarchy, generalize

from conftest import small_hierarchy
from naive import reference_freqcalc, reference_generalization_lattice

EUSILC = "/work/shared/data/eusilc.csv"


def _fk_sdcmicro(frame, on, suppressed_as="*"):
    """fk of every record of a release by sdcMicro's rule, pair by pair (tests/naive.py); a
    suppressed record ('*' in every key) is a record with every key missing."""
    rows = [tuple(None if v is None or v == suppressed_as else v for v in r) for r in frame.select(on).rows()]
    fk, _ = reference_freqcalc(rows, [1.0] * len(rows), 1.0)
    return fk


def test_null_key_stays_null_and_release_is_k_anonymous():
    df = pl.DataFrame({
        "age": [34, 36, 5, 7, 9, 41, 44, 3, 38, 47],
        "status": ["1", "2", None, None, None, "1", "2", None, "1", "2"],
        "x": list(range(10)),
    })
    hs = {"age": Hierarchy.intervals(df["age"], (10, 50), start=0),
          "status": Hierarchy([["1", "2"], ["*", "*"]])}
    r = generalize(df, hs, k=3)
    st_ = r.frame["status"]
    # the children's null stays null: not generalised, not "*"
    assert st_.is_null().to_list() == df["status"].is_null().to_list()
    assert r.suppressed == 0
    assert r.frame["x"].equals(df["x"])
    fk = _fk_sdcmicro(r.frame, ["age", "status"])
    assert fk.min() >= 3
    # the package's own measures read it the same way
    assert r.frame.sdc.frequencies(["age", "status"])["fk"].min() >= 3


def test_eusilc_pl030_children_kept_null():
    df = pl.read_csv(EUSILC, infer_schema_length=None).select("db030", "age", "rb090", "pl030", "db040")
    assert df["pl030"].null_count() > 2000
    ages = Hierarchy.intervals(df["age"], (5, 10, 20, 40), start=0)
    status = Hierarchy([[str(i) for i in range(1, 8)], ["work", "work", "out", "out", "out", "out", "out"],
                        ["*"] * 7])
    sex = Hierarchy([["female", "male"], ["*", "*"]])
    hs = {"age": ages, "pl030": status, "rb090": sex}
    r = generalize(df, hs, k=5, suppression_limit=0.02)
    was_null = df["pl030"].is_null()
    out = r.outliers
    rel = r.frame["pl030"]
    # kept records: null exactly where the input was null; suppressed ones are "*"
    assert rel.filter(~out).is_null().to_list() == was_null.filter(~out).to_list()
    assert (rel.filter(out) == "*").all()
    assert r.suppressed <= r.max_suppressed
    fk = r.frame.sdc.frequencies(["age", "pl030", "rb090"], suppressed_as="*")["fk"]
    assert fk.min() >= 5
    # the exact classes (null as its own value) are already of size >= 5
    kept = r.frame.filter(~out)
    sizes = kept.group_by(["age", "pl030", "rb090"]).len()["len"]
    assert sizes.min() >= 5


def test_households_with_null_keys():
    df = pl.DataFrame({
        "hh": [1, 1, 1, 2, 2, 3, 3, 3, 4, 4],
        "age": [40, 42, 8, 39, 6, 45, 41, 4, 38, 9],
        "status": ["1", "2", None, "1", None, "2", "1", None, "2", None],
    })
    hs = {"age": Hierarchy.intervals(df["age"], (10, 50), start=0),
          "status": Hierarchy([["1", "2"], ["*", "*"]])}
    r = generalize(df, hs, k=2, household="hh", suppression_limit=0.3)
    kept = ~r.outliers
    assert r.frame["status"].filter(kept).is_null().to_list() == df["status"].filter(kept).is_null().to_list()
    cls = r.frame.filter(kept).group_by(["age", "status"]).agg(pl.col("hh").n_unique())
    assert cls["hh"].min() >= 2


def test_lazy_equals_eager_with_nulls():
    df = pl.DataFrame({"age": [34, 36, 5, 7, 41, 3], "status": ["1", "2", None, None, "1", None]})
    hs = {"age": {"rule": "intervals", "widths": [10, 50], "start": 0},
          "status": Hierarchy([["1", "2"], ["*", "*"]])}
    want = df.sdc.generalize(hs, k=2).frame
    lf = df.lazy().sdc.generalize_release(hs, k=2)
    assert lf.collect().equals(want) and lf.collect(engine="streaming").equals(want)
    assert want["status"].null_count() == 3


@st.composite
def null_problems(draw):
    d = draw(st.integers(1, 3))
    hier = [small_hierarchy(draw, f"c{c}", draw(st.integers(1, 4))) for c in range(d)]
    n = draw(st.integers(1, 30))
    rows = [tuple(draw(st.sampled_from(h[0] + [None])) for h in hier) for _ in range(n)]
    k = draw(st.integers(1, 4))
    limit = draw(st.sampled_from([0.0, 0.1, 0.3]))
    metric = draw(st.sampled_from(["loss", "discernibility", "discernibility_star", "entropy",
                                   "entropy_monotone", "precision"]))
    return hier, rows, k, limit, metric


@settings(max_examples=120, deadline=None)
@given(null_problems())
def test_search_with_nulls_is_exact_and_k_anonymous(problem):
    hier, rows, k, limit, metric = problem
    d = len(hier)
    df = pl.DataFrame({f"c{c}": pl.Series([r[c] for r in rows], dtype=pl.String) for c in range(d)})
    hs = {f"c{c}": Hierarchy(hier[c]) for c in range(d)}
    max_out = math.floor(limit * len(rows))
    ref = reference_generalization_lattice(rows, hier, k, max_out, metric)
    passing = {lv: v for lv, v in ref.items() if v[0]}
    if not passing:
        with pytest.raises(polars_sdc.SDCError, match="no transformation"):
            generalize(df, hs, k=k, suppression_limit=limit, metric=metric, suppressed_as="(s)")
        return
    # the hierarchies' tops are '*': suppressed records get a label apart (audit 28's refusal)
    r = generalize(df, hs, k=k, suppression_limit=limit, metric=metric, suppressed_as="(s)")
    best = min(v[2] for v in passing.values())
    assert math.isclose(r.loss, best, rel_tol=1e-9, abs_tol=1e-12)
    assert r.suppressed == ref[tuple(r.transformation)][1]
    on = list(hs)
    kept = ~r.outliers
    for c in on:    # nulls kept null on every kept record
        assert r.frame[c].filter(kept).is_null().to_list() == df[c].filter(kept).is_null().to_list()
    if kept.any():
        assert _fk_sdcmicro(r.frame, on, suppressed_as="(s)").min() >= k
