"""Household frequencies of a generalised release (suppressed_as="*"): a record whose keys are all
"*" (suppressed by full-domain generalisation) counts as a record with every key missing, as in the
record-level frequencies (risk.suppressed.suppressed_as_missing), checked against the pairwise
reference; read as written (no suppressed_as) "*" is a value."""
import numpy as np
import polars as pl
import pytest
from naive import reference_household_fk

import polars_sdc  # noqa: F401
from polars_sdc.risk.household_frequencies import household_frequencies

AGE = {"a": ["ab", "*"], "b": ["ab", "*"], "c": ["cd", "*"], "d": ["cd", "*"], "e": ["ef", "*"], "f": ["ef", "*"]}
HIER = {"age": AGE, "sex": {"f": ["*"], "m": ["*"]}}
ON = ["age", "sex"]


@pytest.fixture(scope="module")
def release():
    g = np.random.default_rng(0)
    n = 30
    sizes = [3, 3, 2, 2, 3, 2, 3, 2, 3, 2, 3, 2]
    df = pl.DataFrame({"hh": np.repeat(np.arange(12), sizes),
                       "age": g.choice(list("abcdef"), n, p=[.3, .3, .15, .15, .05, .05]),
                       "sex": g.choice(["f", "m"], n), "w": np.repeat(g.uniform(1, 9, 12), sizes)})  # household weights
    r = df.sdc.generalize(HIER, k=3, suppression_limit=0.2)
    null = df.sdc.generalize(HIER, k=3, suppression_limit=0.2, suppressed_as=None).frame
    return r, null


def test_suppressed_records_match_every_household(release):
    r, null = release
    star = r.frame
    assert r.suppressed > 0 and star.filter(r.outliers).select(pl.all_horizontal(pl.col(ON) == "*")).to_series().all()
    rows = [(None, None) if out else row for row, out in zip(star.select(ON).rows(), r.outliers)]
    want_fk, want_Fk = reference_household_fk(rows, star["hh"].to_list(), star["w"].to_list())
    fk, Fk = household_frequencies(star, ON, "hh", "w", suppressed_as=r.suppressed_as)
    assert fk.tolist() == want_fk and Fk == pytest.approx(want_Fk)
    assert (fk[r.outliers.to_numpy()] == star["hh"].n_unique()).all()   # a suppressed record: every household
    got = star.sdc.frequencies(ON, weight="w", household="hh", suppressed_as="*")
    assert got.select("fk", "Fk").equals(null.sdc.frequencies(ON, weight="w", household="hh").select("fk", "Fk"))
    assert got["fk"].to_list() == want_fk
    assert (star.sdc.k_anonymity(ON, household="hh", suppressed_as="*") == null.sdc.k_anonymity(ON, household="hh")
            == min(want_fk))
    # read as values (not declared a generalised release), "*" forms its own small class
    as_values = reference_household_fk(star.select(ON).rows(), star["hh"].to_list())[0]
    assert as_values != want_fk
    assert household_frequencies(star, ON, "hh")[0].tolist() == as_values
    assert star.sdc.frequencies(ON, household="hh")["fk"].to_list() == as_values
    # a "*" in only some keys stays a value (a hierarchy's top label)
    top = pl.DataFrame({"hh": [1, 2, 3], "age": ["*", "*", "*"], "sex": ["f", "f", "m"]})
    assert household_frequencies(top, ON, "hh", suppressed_as="*")[0].tolist() == [2.0, 2.0, 1.0]
