"""Two rules for a null sensitive value, each pinned (audit 28).

sdcMicro 5.8.1's ``ldiversity`` (``src/Measure_Risk.h`` ``compute_group_ldiversity``,
``src/Framework.h`` ``add_var_cat_value``) never leaves a missing sensitive value out: a value
equal to its missing code (``missing = -999``) adds **one** value to a class that has another
value (and one entropy category); R's ``NA`` (NaN in the C++, equal to nothing) opens one
category per record. So sdcMicro does not agree with the report's rule, and the two rules stay:

- ``df.sdc.l_diversity`` / ``t_closeness`` (sdcMicro's measures): a null is one value of its
  own (sdcMicro's missing-code rule; a class whose values are all null has distinct l 0);
- the report, a problem's sign-off and log, ``generalize(l_diversity=, t_closeness=)`` (the
  release's guarantee): a null is no sensitive value; l and t on the records with a value.
"""
import math

import polars as pl

import polars_sdc  # noqa: F401
from polars_sdc.generalize import Hierarchy, generalize
from polars_sdc.risk.report import report

# class 1: {p, null, null}; class 2: {p, q, q}; class 3: {null, null}
DF = pl.DataFrame({"k": [1, 1, 1, 2, 2, 2, 3, 3], "s": ["p", None, None, "p", "q", "q", None, None]})


def test_l_diversity_counts_a_null_as_one_value_of_its_own():
    got = DF.sdc.l_diversity("k", "s")["l_diversity"].to_list()
    assert got == [2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 0.0, 0.0]    # m + 1 (not m + j: 2 nulls are one value)
    ent = DF.sdc.l_diversity("k", "s", kind="entropy")["l_diversity"].to_list()
    h = -(1 / 3 * math.log(1 / 3) + 2 / 3 * math.log(2 / 3))   # {p: 1/3, null: 2/3}
    assert math.isclose(ent[0], math.exp(h), rel_tol=1e-12) and ent[6] == 1.0
    rec = DF.sdc.l_diversity("k", "s", kind="recursive")["l_diversity"].to_list()
    assert rec[0] == 1.0 and rec[6] == 0.0                     # recursive: nulls not counted (sdcMicro too)
    t = DF.sdc.t_closeness("k", "s", ordered=False)["t_closeness"].to_list()
    # table: p 2/8, q 2/8, null 4/8; class 1: p 1/3, null 2/3 -> EMD 1/2 (|1/4-1/3| + 1/4 + |1/2-2/3|)
    assert math.isclose(t[0], 0.5 * (1 / 12 + 1 / 4 + 1 / 6), rel_tol=1e-12)


def test_report_and_generalize_measure_on_the_records_with_a_value():
    facts = report(DF, DF, on="k", sensitive="s", ks=(2,), k=2).facts
    assert facts["l_before"] == 1.0 and facts["l_after"] == 1.0   # class 1 has one value, p; class 3 none
    assert facts["sensitive_nulls_before"] == 4
    # generalize: class {p, null, null} fails distinct 2-diversity (it passed as {p, null} before s27)
    hs = {"k": Hierarchy([["1", "2", "3"]])}                      # one level: suppression decides
    frame = DF.with_columns(pl.col("k").cast(pl.String))
    r = generalize(frame, hs, k=2, sensitive="s", l_diversity=2, suppression_limit=5 / 8)
    assert r.levels == {"k": 0} and r.suppressed == 5             # classes 1 and 3 suppressed, 2 kept
    assert r.outliers.to_list() == [True, True, True, False, False, False, True, True]
    # the same release under sdcMicro's rule: class 1 would read l = 2
    assert DF.sdc.l_diversity("k", "s")["l_diversity"][0] == 2.0
