"""The one rule for missing key values (sdcMicro 5.8.1 freqCalc: the single-key branch, and the
multi-key branch with addAllNAtoKeys = FALSE), shared by frequencies, k_anonymity, risk and
suppress, and the reproducers of issue 26.1 (suppress released data its own k_anonymity calls
1-anonymous)."""
import itertools

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings, strategies as st

import polars_sdc  # noqa: F401
from polars_sdc.masking.suppress import suppressed_count
from polars_sdc.risk.frequencies import all_missing_is_wildcard, frequencies
from conftest import assert_suppressed_release
from naive import reference_freqcalc

W8 = [18.0, 45.5, 39.0, 17.0, 92.0, 8.0, 123.5, 51.0]
NA = None

# sdcMicro 5.8.1 tests/testthat/test_freqCalc.R: (columns, weighted fk/Fk expectations)
FREQCALC_CASES = {
    "no-missing": ({"A": [2, 3, 2, 2, 3, 3, 1, 2], "B": [3, 3, 3, 3, 3, 3, 4, 3], "C": [1, 3, 1, 2, 1, 1, 1, 1]},
                   [3, 1, 3, 1, 2, 2, 1, 3], [108.0, 45.5, 108.0, 17.0, 100.0, 100.0, 123.5, 108.0]),
    "missing": ({"A": [2, 3, 2, 2, 3, 3, 1, 2], "B": [3, 3, 3, 3, 3, 3, 4, 3], "C": [1, 3, NA, 2, 1, 1, NA, 1]},
                [3, 1, 4, 2, 2, 2, 1, 3], [108.0, 45.5, 125.0, 56.0, 100.0, 100.0, 123.5, 108.0]),
    # one key column entirely missing and one record with every key missing
    "all-missing-record": ({"A": [2, 3, NA, 2, 3, 3, 1, 2], "B": [3, 3, NA, 3, 3, 3, 4, 3], "C": [NA] * 8},
                           [4, 4, 8, 4, 4, 4, 2, 4], [125.0, 184.5, 394.0, 125.0, 184.5, 184.5, 162.5, 125.0]),
    # the single-key branch: alpha x the missing records added to every complete record
    "one-key": ({"A": [2, 3, NA, 2, 1, NA, 1, 2]},
                [5, 3, 8, 5, 4, 8, 4, 5], [133.0, 92.5, 394.0, 133.0, 262.5, 394.0, 262.5, 133.0]),
}


@pytest.mark.parametrize("case", list(FREQCALC_CASES))
@pytest.mark.parametrize("dtype", [pl.Float64, pl.String])
def test_sdcmicro_freqcalc_testthat(case, dtype):
    cols, fk_want, Fk_want = FREQCALC_CASES[case]
    df = pl.DataFrame({c: pl.Series(v, dtype=pl.Float64).cast(dtype) for c, v in cols.items()}).with_columns(w=pl.Series(W8))
    keys = list(cols)
    fk, Fk = frequencies(df, keys, "w")
    assert fk.tolist() == fk_want
    np.testing.assert_allclose(Fk, Fk_want, rtol=1e-12)
    assert frequencies(df, keys)[1].tolist() == fk_want          # unweighted: Fk = fk
    # the rule as the record-by-record reference states it
    rows = list(zip(*[df[c].to_list() for c in keys]))
    np.testing.assert_allclose(reference_freqcalc(rows, W8, 1.0)[1], Fk_want, rtol=1e-12)


def test_sdcmicro_more_keys_than_records():
    # test_freqCalc.R: 3 records, 8 keys
    vals = [2, 3, NA, 2, 3, 3, 1, NA, 3, 3, NA, 3, 3, 2, 2, 3, NA, NA, 1, 2, NA, NA, 4, 4]
    df = pl.DataFrame({c: pl.Series(vals[3 * j:3 * j + 3], dtype=pl.Float64) for j, c in enumerate("ABCDEFGH")})
    df = df.with_columns(w=pl.Series([18.0, 45.5, 122.0]))
    fk, Fk = frequencies(df, list("ABCDEFGH"), "w")
    assert fk.tolist() == [1, 2, 2] and Fk.tolist() == [18.0, 167.5, 167.5]


@pytest.mark.parametrize("alpha", [1.0, 0.5, 0.0])
def test_one_key_branch_every_alpha_and_path(alpha):
    import polars_sdc.risk.frequencies as fm

    df = pl.DataFrame({"A": [2, 3, NA, 2, 1, NA, 1, 2], "w": W8})
    fk, Fk = frequencies(df, ["A"], "w", alpha)
    assert fk.tolist() == [3 + 2 * alpha, 1 + 2 * alpha, 8, 3 + 2 * alpha, 2 + 2 * alpha, 8, 2 + 2 * alpha, 3 + 2 * alpha]
    np.testing.assert_allclose(Fk[[0, 1, 4]], np.array([86.0, 45.5, 215.5]) + alpha * 47.0)
    # the join path (key space too large for a counting array) agrees
    dense = fm._wildcard_dense
    try:
        fm._wildcard_dense = lambda *a: None
        fk2, Fk2 = frequencies(df.with_columns(pl.col("A").cast(pl.String)), ["A"], "w", alpha)
    finally:
        fm._wildcard_dense = dense
    assert fk2.tolist() == fk.tolist()
    np.testing.assert_allclose(Fk2, Fk, rtol=1e-12)


def test_the_rule_is_one_predicate():
    assert all_missing_is_wildcard(1) and not all_missing_is_wildcard(2) and not all_missing_is_wildcard(7)
    # multi-key: a record with every key missing does not raise a complete record's fk
    df = pl.DataFrame({"a": [1, NA, 2, 2], "b": [1, NA, 2, 2]})
    assert frequencies(df, ["a", "b"])[0].tolist() == [1, 4, 2, 2]
    assert df.sdc.k_anonymity(["a", "b"]) == 1
    assert df.sdc.risk(["a", "b"], suda=False).as_dict()["sample_uniques"] == 1
    # one key: it does
    assert frequencies(df, ["a"])[0].tolist() == [2, 4, 3, 3]
    assert df.sdc.k_anonymity("a") == 2


# -- suppress verifies its release with the shared function -------------------------

def test_suppress_two_hundred_uniques():
    df = pl.DataFrame({"a": range(200), "b": range(200)})
    out = df.sdc.suppress(2, ["a", "b"])
    assert_suppressed_release(df, out, ["a", "b"], 2)
    assert out.sdc.risk(["a", "b"], suda=False).as_dict()["sample_uniques"] == 0
    assert df.lazy().sdc.suppress(2, ["a", "b"]).collect().equals(out)


def test_suppress_all_missing_record_does_not_cover_complete_ones():
    df = pl.DataFrame({"a": [1, NA, 2, 2], "b": [1, NA, 2, 2]})
    out = df.sdc.suppress(2, ["a", "b"])
    assert_suppressed_release(df, out, ["a", "b"], 2)
    assert out.row(0) in [(NA, 1), (1, NA), (NA, NA)]
    assert out.rows()[2:] == [(2, 2), (2, 2)]


# null-free frames where the combs=[2] release broke an earlier pair (a record whose two keys of
# a pair were both suppressed by later pairs stops counting for the pair's complete records)
@pytest.mark.parametrize("seed", [9, 17, 21])
def test_suppress_combs_two_on_null_free_data(seed):
    r = np.random.default_rng(seed)
    n, m = int(r.integers(5, 60)), int(r.integers(2, 5))
    df = pl.DataFrame({f"k{j}": r.integers(0, int(r.integers(2, 5)), n) for j in range(m)})
    k = int(r.integers(2, 4))
    out = df.sdc.suppress(k, df.columns, combs=[2])
    assert_suppressed_release(df, out, df.columns, k, subsets=list(itertools.combinations(df.columns, 2)))


def test_suppress_refuses_rather_than_release_unsafe(monkeypatch):
    """The final check is real: a broken search is caught before anything is returned."""
    import polars_sdc.masking.suppress as sup
    from polars_sdc import SDCError

    monkeypatch.setattr(sup, "_suppress_keys", lambda C, *args: C)
    with pytest.raises(SDCError, match="internal error, the release has fk = 1 < k = 2"):
        pl.DataFrame({"a": [1, 2, 2], "b": [1, 2, 2]}).sdc.suppress(2, ["a", "b"])


def test_one_key_suppress_uses_the_single_key_branch():
    df = pl.DataFrame({"a": [1, 2, 3, 4, 4, 4]})
    out = df.sdc.suppress(2, "a")
    assert_suppressed_release(df, out, ["a"], 2)
    # every complete record gains the suppressed ones: far fewer than the 3 uniques
    assert suppressed_count(df, out, ["a"]) <= 3


cell = st.sampled_from([0, 1, 2, None])


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.tuples(cell, cell, cell), min_size=1, max_size=24),
    st.integers(1, 3),
    st.integers(1, 4),
    st.sampled_from([1.0, 0.5, 0.0]),
    st.sampled_from([None, [2], [1, 2], [3, 2]]),
    st.booleans(),
)
def test_suppress_release_property(rows, m, k, alpha, combs, strata):
    """Tiny n, ties, records with every key missing, one to three keys, any alpha, subsets and
    strata: the release is k-anonymous by the public k_anonymity (the shared function)."""
    keys = ["a", "b", "c"][:m]
    df = pl.DataFrame([r[:m] for r in rows], schema={c: pl.Int64 for c in keys}, orient="row")
    df = df.with_columns(g=pl.int_range(pl.len()) % 2 if strata else pl.lit(0))
    by = "g" if strata and df["g"].value_counts()["count"].min() >= k and df["g"].n_unique() == 2 else None
    if (by is None and k > df.height) or (combs and max(combs) > m):
        return
    out = df.sdc.suppress(k, keys, alpha=alpha, combs=combs, by=by)
    subsets = [s for size in (combs or [m]) for s in itertools.combinations(keys, size)]
    assert_suppressed_release(df, out, keys, k, alpha=alpha, subsets=subsets, by=by)


# -- suppress_risky with a threshold it cannot reach ------------------------------

def test_suppress_risky_unreachable_threshold_is_an_error_with_the_lowest_reachable_risk():
    from polars_sdc import SDCError

    df = pl.DataFrame({"a": range(10), "b": range(10)})
    with pytest.raises(SDCError, match=r"threshold = 0.05 cannot be reached.*lowest reachable highest individual risk is 0\.1 "):
        df.sdc.suppress_risky(["a", "b"], threshold=0.05)
    with pytest.raises(SDCError, match="cannot be reached"):
        df.lazy().sdc.suppress_risky(["a", "b"], threshold=0.05).collect()
    out = df.sdc.suppress_risky(["a", "b"], threshold=0.1)      # exactly reachable: everything goes
    assert out.null_count().row(0) == (10, 10)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(cell, cell), min_size=1, max_size=20), st.sampled_from([0.05, 0.2, 0.34, 0.5, 0.9]),
       st.booleans())
def test_suppress_risky_returns_only_safe_releases(rows, threshold, weighted):
    from polars_sdc import SDCError
    from polars_sdc.risk.individual import individual_risk

    df = pl.DataFrame(rows, schema={"a": pl.Int64, "b": pl.Int64}, orient="row")
    df = df.with_columns(w=(pl.int_range(pl.len()) % 3 + 1).cast(pl.Float64) if weighted else pl.lit(1.0))
    try:
        out = df.sdc.suppress_risky(["a", "b"], threshold=threshold, weight="w")
    except SDCError as e:
        assert "cannot be reached" in str(e)
        return
    fk, Fk = frequencies(out, ["a", "b"], "w")
    assert individual_risk(fk, Fk).max() <= threshold
    assert_suppressed_release(df, out, ["a", "b"], 1)


# -- importance as sdcMicro's priority, tiebreak as the fewest suppressions ---

def test_suppress_importance_is_a_priority():
    df = pl.DataFrame({"a": ["x", "x", "y", "x", "y", "z", "z"], "b": [1, 1, 2, 2, 1, 3, 3]})
    for imp in ([1, 2], {"a": 1}, {"a": 1, "b": 2}):
        out = df.sdc.suppress(2, ["a", "b"], importance=imp)
        assert out["a"].null_count() == 0 and out["b"].null_count() <= 3     # a kept (sdcMicro's semantics)
        assert_suppressed_release(df, out, ["a", "b"], 2)
    # the fewest suppressions per record, the ranking only breaking ties: a is suppressed once
    out = df.sdc.suppress(2, ["a", "b"], tiebreak=[1, 2])
    assert out.null_count().row(0) == (1, 1)
    assert_suppressed_release(df, out, ["a", "b"], 2)
    from polars_sdc import SDCError

    with pytest.raises(SDCError, match="not both"):
        df.sdc.suppress(2, ["a", "b"], importance=[1, 2], tiebreak=[1, 2])
    with pytest.raises(SDCError, match="importance: 'c' is not one of the keys"):
        df.sdc.suppress(2, ["a", "b"], importance={"c": 1})
    with pytest.raises(SDCError, match="tiebreak must map"):
        df.sdc.suppress(2, ["a", "b"], tiebreak={"a": 0})


def test_priority_costs_more_suppressions_than_fewest():
    # each record is one a away from a partner, or b and c away from another: the fewest
    # suppressions take a twice, the priority keeps a at the price of b and c four times
    df = pl.DataFrame({"a": [1, 2, 1, 2], "b": ["u", "u", "v", "v"], "c": ["p", "p", "q", "q"]})
    prio = df.sdc.suppress(2, ["a", "b", "c"], importance=[1, 2, 3])
    assert_suppressed_release(df, prio, ["a", "b", "c"], 2)
    assert prio.null_count().row(0) == (0, 2, 2)
    fewest = df.sdc.suppress(2, ["a", "b", "c"], tiebreak=[1, 2, 3])
    assert_suppressed_release(df, fewest, ["a", "b", "c"], 2)
    assert fewest.null_count().row(0) == (2, 0, 0)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([0, 1, 2]), cell, cell), min_size=2, max_size=30), st.integers(1, 3),
       st.permutations([1, 2, 3]))
def test_a_rank_one_key_is_kept_when_the_others_can_reach_k(rows, k, ranks):
    """If every class of the rank-1 key alone holds >= k records, suppressing all the other keys
    of every violator reaches k: with importance (priority) the rank-1 key is never touched."""
    df = pl.DataFrame(rows, schema={c: pl.Int64 for c in "abc"}, orient="row")
    keys = list("abc")
    first = keys[ranks.index(1)]
    if k > df.height or df.get_column(first).null_count():
        return
    if df.group_by(first).len()["len"].min() < k:
        return
    out = df.sdc.suppress(k, keys, importance=ranks)
    assert_suppressed_release(df, out, keys, k)
    assert out.get_column(first).null_count() == 0


def test_default_ranking_suppresses_the_key_with_more_categories_first():
    """Issue 28.7's surviving mutant (np.argsort(-ncat) -> np.argsort(ncat)): row 4 can be
    repaired by suppressing a (-> matches rows 0, 1) or b (-> matches rows 2, 3); b has more
    categories, so b goes (sdcMicro's default ranking)."""
    df = pl.DataFrame({"a": ["p", "p", "q", "q", "q", "p", "p"], "b": ["u", "u", "v", "v", "u", "w", "w"]})
    out = df.sdc.suppress(2, ["a", "b"])
    assert out.row(4) == ("q", None)
    assert out.drop_nulls().height == 6
    assert df.sdc.suppress(2, ["a", "b"], importance="categories").row(4) == ("q", None)
    assert df.sdc.suppress(2, ["a", "b"], tiebreak={"b": 1}).row(4) == (None, "u")
