"""l-diversity and t-closeness against their direct definitions, class by class."""

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings, strategies as st

import polars_sdc  # noqa: F401
from polars_sdc import SDCError
from polars_sdc.risk.diversity import l_diversity_values, t_closeness_values
from naive import reference_l_diversity, reference_t_closeness


rows_st = st.lists(st.tuples(st.integers(0, 3), st.one_of(st.none(), st.integers(0, 4))), min_size=1, max_size=40)


@settings(max_examples=30, deadline=None)
@given(rows_st, st.sampled_from(["distinct", "entropy", "recursive"]), st.sampled_from([1.0, 2.0, 3.5]))
def test_l_diversity_direct(rows, kind, c):
    keys, sens = [r[0] for r in rows], [r[1] for r in rows]
    df = pl.DataFrame({"k": keys, "s": sens}, schema={"k": pl.Int64, "s": pl.Int64})
    np.testing.assert_allclose(l_diversity_values(df, "k", "s", kind, c), reference_l_diversity(keys, sens, kind, c), rtol=1e-12)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 5)), min_size=1, max_size=40), st.booleans())
def test_t_closeness_direct(rows, ordered):
    keys, sens = [r[0] for r in rows], [r[1] for r in rows]
    df = pl.DataFrame({"k": keys, "s": sens})
    np.testing.assert_allclose(t_closeness_values(df, "k", "s", ordered), reference_t_closeness(keys, sens, ordered), atol=1e-12)


def test_t_closeness_paper_example():
    # Li, Li & Venkatasubramanian 2007, salary example: P1 = {3k,4k,5k}, Q = {3k..11k}:
    # ordered EMD 0.375, equal EMD 2/3 (P1 = {3k,4k,5k}).
    salary = [3, 4, 5, 6, 7, 8, 9, 10, 11]
    df = pl.DataFrame({"k": [1, 1, 1, 2, 2, 2, 2, 2, 2], "s": salary})
    assert t_closeness_values(df, "k", "s")[0] == pytest.approx(0.375)
    assert t_closeness_values(df, "k", "s", ordered=False)[0] == pytest.approx(2 / 3)


def test_frames_lazy_and_errors():
    df = pl.DataFrame({"k": ["a", "a", None, None, "b"], "s": pl.Series(["x", "y", "x", None, "z"], dtype=pl.Categorical)})
    out = df.sdc.l_diversity("k", "s")
    assert out["l_diversity"].to_list() == [2.0, 2.0, 2.0, 2.0, 1.0]  # missing key: own class
    assert df.lazy().sdc.l_diversity("k", "s").collect().equals(out)
    t = df.sdc.t_closeness("k", "s")
    assert df.lazy().sdc.t_closeness("k", "s").collect(engine="streaming").equals(t)
    with pytest.raises(SDCError, match="'k'.*sensitive"):
        df.sdc.l_diversity("k", "k")
    with pytest.raises(SDCError, match="one column"):
        df.sdc.t_closeness("k", ["s", "k"])
    with pytest.raises(SDCError, match="kind"):
        df.sdc.l_diversity("k", "s", kind="xx")
    with pytest.raises(SDCError, match="'nope'"):
        df.sdc.t_closeness("k", "nope")
    assert df.head(0).sdc.l_diversity("k", "s").height == 0


def test_l_diversity_counts_missing_once_not_once_per_record():
    df = pl.DataFrame({"k": [1] * 5 + [2] * 3, "s": ["a", "b", None, None, None, "c", "c", None]})
    l = df.sdc.l_diversity("k", "s")["l_diversity"].to_list()
    # class 1: a, b and missing (3 records): 3; sdcMicro's NaN-per-record categories would give 5
    assert l == [3.0] * 5 + [2.0] * 3
    ent = df.sdc.l_diversity("k", "s", kind="entropy")["l_diversity"][0]
    p = np.array([1, 1, 3]) / 5
    assert ent == pytest.approx(np.exp(-(p * np.log(p)).sum()))
