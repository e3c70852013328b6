"""k_anonymity(household=) against k_anonymity(): the household count followed its own rule for
a record with every key missing (a wildcard for every record), the record count sdcMicro's
(addAllNAtoKeys = FALSE: with two or more keys, not for complete records), so a class could
count more households than records: 4 against 3 on three households of (x, u) and one fully
suppressed record. Now both follow all_missing_is_wildcard: households <= records, always."""
import polars as pl
from hypothesis import given, settings, strategies as st

import polars_sdc  # noqa: F401
from polars_sdc.risk.household_frequencies import household_frequencies

from naive import reference_freqcalc, reference_household_fk


def test_the_worked_example():
    df = pl.DataFrame({"a": ["x", "x", "x", None], "b": ["u", "u", "u", None], "hh": [1, 2, 3, 4]})
    assert df.sdc.k_anonymity(["a", "b"]) == 3
    assert df.sdc.k_anonymity(["a", "b"], household="hh") == 3           # was 4
    assert df.sdc.frequencies(["a", "b"], household="hh")["fk"].to_list() == [3.0, 3.0, 3.0, 4.0]
    # one key: sdcMicro's single-key branch counts the missing record for everybody, households too
    one = df.select("a", "hh")
    assert one.sdc.k_anonymity(["a"]) == one.sdc.k_anonymity(["a"], household="hh") == 4
    # a household with a suppressed record and a complete one counts through the complete one
    two = pl.DataFrame({"a": ["x", "x", None, "x"], "b": ["u", "u", None, "u"], "hh": [1, 2, 3, 3]})
    assert household_frequencies(two, ["a", "b"], "hh")[0].tolist() == [3.0, 3.0, 3.0, 3.0]
    # a generalised release's '*' records read as every key missing, the same rule
    star = pl.DataFrame({"hh": [1, 1, 2, 3], "a": ["x", "x", "y", "*"], "b": ["u", "u", "v", "*"]})
    assert household_frequencies(star, ["a", "b"], "hh", suppressed_as="*")[0].tolist() == [1.0, 1.0, 1.0, 3.0]
    assert star.sdc.k_anonymity(["a", "b"], household="hh", suppressed_as="*") == 1


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 3).flatmap(lambda m: st.lists(
    st.tuples(st.tuples(*[st.sampled_from(["p", "q", None])] * m), st.integers(0, 5)), min_size=1, max_size=14)))
def test_households_never_exceed_records(data):
    rows = [r for r, _ in data]
    hh = [h for _, h in data]
    m = len(rows[0])
    on = [f"k{j}" for j in range(m)]
    df = pl.DataFrame({c: pl.Series([r[j] for r in rows], dtype=pl.String) for j, c in enumerate(on)} | {"hh": hh})
    fk_h, _ = household_frequencies(df, on, "hh")
    fk_r, _ = reference_freqcalc(rows, [1.0] * len(rows), 1.0)
    want, _ = reference_household_fk(rows, hh)
    assert fk_h.tolist() == want
    assert (fk_h <= fk_r + 1e-12).all()
    assert df.sdc.k_anonymity(on, household="hh") <= df.sdc.k_anonymity(on)
