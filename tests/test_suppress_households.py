"""suppress(household=) guarantees k households per class (docs/households.md: "a released
group holds >= k households, not k members of one"), as generalize(household=) and the
microaggregation methods with household= do; it guaranteed only k records."""
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from naive import reference_household_fk
from polars_sdc import SDCError


def _household_fk(df, keys, household):
    return reference_household_fk(df.select(keys).rows(), df[household].to_list())[0]


def test_two_members_of_one_household_are_not_a_class_of_two():
    """(x, u) is held by the two members of household 1 only: 2 records, 1 household. It was
    released as it is (k = 2 records); now both records lose keys until the class holds 2."""
    df = pl.DataFrame({"hh": [1, 1, 2, 3, 4, 5], "a": list("xxyyyy"), "b": list("uuvvvv")})
    assert df.sdc.suppress(2, ["a", "b"]).equals(df)              # records: already 2-anonymous
    out = df.sdc.suppress(2, ["a", "b"], household="hh")
    assert min(_household_fk(out, ["a", "b"], "hh")) >= 2
    assert out.sdc.k_anonymity(["a", "b"], household="hh") >= 2
    assert out.slice(2).equals(df.slice(2))                       # the (y, v) households untouched
    assert out.slice(0, 2).select(pl.col("a", "b").null_count()).row(0) != (0, 0)


def test_more_households_than_records_needed_with_strata():
    df = pl.DataFrame({"hh": [1, 1, 1, 2, 3, 4, 5, 5, 6, 7], "r": list("nnnnnnssss"),
                       "a": list("xxxyyyxxyy"), "b": list("uuuvvvuuvv")})
    out = df.sdc.suppress(2, ["a", "b"], by="r", household="hh")
    for part in out.partition_by("r", maintain_order=True):
        assert min(_household_fk(part, ["a", "b"], "hh")) >= 2
    with pytest.raises(SDCError, match="household"):
        df.sdc.suppress(4, ["a", "b"], by="r", household="hh")    # stratum s holds 3 households < 4


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 6), st.sampled_from("xyz"), st.sampled_from("uv"), st.sampled_from("pq")),
                min_size=4, max_size=24), st.integers(1, 3))
def test_every_class_holds_k_households_brute_force(rows, k):
    df = pl.DataFrame(rows, schema=["hh", "a", "b", "c"], orient="row")
    if df["hh"].n_unique() < k:
        with pytest.raises(SDCError):
            df.sdc.suppress(k, ["a", "b", "c"], household="hh")
        return
    out = df.sdc.suppress(k, ["a", "b", "c"], household="hh")
    assert min(_household_fk(out, ["a", "b", "c"], "hh")) >= k
    # only suppressions: every released value is the original or null
    for c in "abc":
        assert ((out[c] == df[c]) | out[c].is_null()).all()
    assert out.select("hh").equals(df.select("hh"))


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.sampled_from("xyz"), st.sampled_from("uv"), st.sampled_from("pq")),
                min_size=6, max_size=20))
def test_every_subset_of_combs_holds_k_households(rows):
    import itertools

    df = pl.DataFrame(rows, schema=["hh", "a", "b", "c"], orient="row")
    k = 2
    if df["hh"].n_unique() < k:
        return
    out = df.sdc.suppress(k, ["a", "b", "c"], combs=[1, 2], household="hh")
    for size in (1, 2):
        for sub in itertools.combinations(["a", "b", "c"], size):
            assert min(_household_fk(out, list(sub), "hh")) >= k, sub
