"""generalize's ``suppressed_as`` label against the hierarchies' own labels (audit 28).

ARX's hierarchies usually end in ``"*"``, the label ARX also shows for a suppressed record; ARX
tells the two apart by its outlier flag (``DataHandle.isOutlier``), a Polars frame cannot. A
release generalised to the top in every quasi-identifier used to be read as wholly suppressed
by every reader of the label: the report said "12 values suppressed" next to "0 records
suppressed" and gave l-diversity None ("every record suppressed"). ``generalize`` now refuses
a release in which a **kept** record shows the label in every quasi-identifier, naming the
columns and the label; a distinct label (or None) gives the right numbers.
"""
import polars as pl
import pytest
from hypothesis import given, settings, strategies as st

import polars_sdc  # noqa: F401
from polars_sdc import SDCError
from polars_sdc.generalize import Hierarchy, generalize
from polars_sdc.risk.report import report
from polars_sdc.risk.suppressed import suppressed_rows

DF = pl.DataFrame({"h": [160, 170, 180, 175, 165, 190], "age": [28, 29, 21, 50, 55, 47],
                   "s": ["a", "b", "a", "c", "b", "a"]})
HS = {"h": Hierarchy.intervals(DF["h"], (10,), start=0), "age": Hierarchy.intervals(DF["age"], (10, 20), start=0)}


def test_top_label_equal_to_suppressed_as_is_refused_naming_columns_and_label():
    with pytest.raises(SDCError, match=r"suppressed_as='\*': columns 'h', 'age' all use the label '\*' "
                                       r"at the chosen levels \(h 2, age 3\), so 6 released record"):
        generalize(DF, HS, k=6)
    with pytest.raises(SDCError, match="'h', 'age' all use the label"):          # the problem's step too
        DF.sdc.problem(keys=["h", "age"], sensitive="s").generalize(hierarchies=HS, k=6)
    with pytest.raises(SDCError, match="'h', 'age' all use the label"):          # and a lazy release
        DF.lazy().sdc.generalize_release(HS, k=6).collect()


@pytest.mark.parametrize("label", ["(suppressed)", None])
def test_a_distinct_label_reports_the_top_class_as_released(label):
    r = generalize(DF, HS, k=6, suppressed_as=label)
    assert r.levels == {"h": 2, "age": 3} and r.suppressed == 0
    assert r.frame["h"].to_list() == ["*"] * 6
    facts = report(DF, r.frame, on=["h", "age"], sensitive="s", generalization=r, ks=(2,), k=2).facts
    assert facts["suppressed"] == 0 and facts["changed_by_variable"] == {"h": 6, "age": 6}
    assert facts["k_after"] == 6 and facts["l_after"] == 3.0 and facts["l_after_why"] is None
    p = DF.sdc.problem(keys=["h", "age"], sensitive="s").generalize(hierarchies=HS, k=6, suppressed_as=label)
    assert p.sign_off().facts["l_after"] == 3.0


def test_a_suppressed_record_next_to_partial_top_labels_is_not_refused():
    # one outlier suppressed, the kept records "*" only in 'h' (a top label in some keys is a value)
    df = pl.DataFrame({"h": [160, 161, 162, 163, 164, 199], "age": [20, 21, 22, 23, 24, 90]})
    hs = {"h": Hierarchy([[str(v) for v in df["h"]], ["*"] * 6]),
          "age": Hierarchy.intervals(df["age"], (10, 100), start=0)}
    r = generalize(df.with_columns(pl.col("h").cast(pl.String)), hs, k=5, suppression_limit=0.2)
    assert r.suppressed == 1 and r.frame.row(5) == ("*", "*")
    assert r.frame["age"].to_list()[:5] == ["20-29"] * 5


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=1, max_size=12),
       st.integers(1, 4), st.sampled_from([0.0, 0.3]))
def test_the_label_marks_exactly_the_suppressed_records(rows, k, limit):
    """Whenever generalize releases, a record shows the label in every key iff it is suppressed."""
    df = pl.DataFrame({"a": [str(r[0]) for r in rows], "b": [str(r[1]) for r in rows]})
    hs = {"a": Hierarchy([["0", "1", "2", "3"], ["01", "01", "23", "23"], ["*"] * 4]),
          "b": Hierarchy([["0", "1", "2", "3"], ["*"] * 4])}
    try:
        r = generalize(df, hs, k=k, suppression_limit=limit)
    except SDCError as e:
        assert "no transformation satisfies" in str(e) or "all use the label '*'" in str(e)
        if "all use the label" in str(e):   # then a distinct label releases, and some kept record is all top
            r2 = generalize(df, hs, k=k, suppression_limit=limit, suppressed_as="(s)")
            kept = r2.frame.filter(~r2.outliers)
            assert kept.filter((pl.col("a") == "*") & (pl.col("b") == "*")).height > 0
        return
    m = suppressed_rows(r.frame, ["a", "b"], "*")
    mask = m.to_list() if m is not None else [False] * df.height
    assert mask == r.outliers.to_list()


def test_the_report_refuses_a_label_that_marks_kept_records():
    # the result's suppression mask decides: "*" given for a release made with "(suppressed)"
    r = generalize(DF, HS, k=6, suppressed_as="(suppressed)")
    with pytest.raises(SDCError, match=r"suppressed_as='\*': 6 record\(s\) the generalization kept show it in every "
                                       r"key \('h', 'age'\) and would read as suppressed; give the generalization's "
                                       r"own label \('\(suppressed\)'\)"):
        report(DF, r.frame, on=["h", "age"], sensitive="s", generalization=r, ks=(2,), k=2, suppressed_as="*")
