"""audit28d: the suppressed_as label refusals of this session (generalize, report)."""
import polars as pl
import pytest

import polars_sdc
from polars_sdc import SDCError
from polars_sdc.generalize import Hierarchy

TINY = pl.DataFrame({"h": [160, 170, 180, 165, 175, 185], "age": [28, 35, 41, 30, 33, 44],
                     "s": ["a", "a", "a", "b", "b", "b"]})


def _top():
    hs = {c: Hierarchy.intervals(TINY[c], (10,), start=0) for c in ("h", "age")}
    hs["s"] = Hierarchy.from_mapping({"a": ["*"], "b": ["*"]})
    return hs


def test_report_on_a_subset_of_the_quasi_identifiers_says_what_to_do():
    # k = 3 keeps s and takes h, age to their '*' top: unambiguous over the three
    # quasi-identifiers (the release passes), but a report on h, age alone reads every kept
    # record as suppressed. The refusal said "give the generalization's own label ('*')",
    # the label given: nothing to act on
    r = TINY.sdc.generalize(_top(), k=3)
    assert r.levels == {"h": 2, "age": 2, "s": 0} and r.suppressed == 0
    polars_sdc.report(TINY, r.frame, on=["h", "age", "s"], generalization=r)   # the QIs: fine
    with pytest.raises(SDCError) as e:
        polars_sdc.report(TINY, r.frame, on=["h", "age"], generalization=r)
    msg = str(e.value)
    assert "6 record(s) the generalization kept" in msg
    assert "quasi-identifiers ('h', 'age', 's')" in msg and "own label ('*')" not in msg


def test_report_with_another_label_than_the_generalization_names_its_own():
    r = TINY.sdc.generalize(_top(), k=6, suppressed_as="(s)")
    with pytest.raises(SDCError, match=r"give the generalization's own label \('\(s\)'\)"):
        polars_sdc.report(TINY, r.frame, on=["h", "age", "s"], generalization=r, suppressed_as="*")
