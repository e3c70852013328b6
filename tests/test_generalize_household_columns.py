"""generalize(household=, household_columns=): the household-level quasi-identifiers declared
(as recode / pram / the microaggregation methods take them, polars_sdc.household's one
validation), and a HouseholdWarning for a key that is household-level in most but not all
households (detected person-level, the whole-household rule would not apply)."""
import warnings

import polars as pl
import pytest

import polars_sdc  # noqa: F401
from polars_sdc import SDCError
from polars_sdc.household import HouseholdWarning

FAM = pl.DataFrame({"hh": [1, 1, 2, 2, 3, 3, 4, 4, 5, 5], "region": list("NNNNSSSSSS"), "age": list("aaaaaaaaaz")})
FAM_H = {"region": {"N": ["*"], "S": ["*"]}, "age": {"a": ["*"], "z": ["*"]}}


def test_declared_household_level_key_equals_the_detected_one():
    detected = FAM.sdc.generalize(FAM_H, k=2, household="hh", suppression_limit=0.2)
    declared = FAM.sdc.generalize(FAM_H, k=2, household="hh", suppression_limit=0.2, household_columns=["region"])
    assert declared.frame.equals(detected.frame) and declared.suppressed == 2
    assert declared.frame.rows()[8:] == [(5, "*", "*"), (5, "*", "*")]     # household 5 whole
    assert FAM.sdc.generalize(FAM_H, k=2, household="hh", suppression_limit=0.2,
                              household_columns="region").frame.equals(detected.frame)


def test_declared_person_level_keys_suppress_the_person_only():
    """household_columns=[]: region is the person's (constant here by accident, the caller says):
    the person aged z alone is suppressed, the housemate's record kept, as for a person-level key."""
    r = FAM.sdc.generalize(FAM_H, k=2, household="hh", suppression_limit=0.2, household_columns=[])
    assert r.suppressed == 1 and r.frame.rows()[8:] == [(5, "S", "a"), (5, "*", "*")]
    kept = r.frame.filter(~r.outliers)
    assert kept.group_by("region", "age").agg(pl.col("hh").n_unique())["hh"].min() >= 2


def test_a_declared_key_that_varies_within_a_household_is_an_error():
    with pytest.raises(SDCError, match="column 'age' is declared household-level but varies within household 5 "
                                       "of 'hh'"):
        FAM.sdc.generalize(FAM_H, k=2, household="hh", suppression_limit=0.2, household_columns=["age"])
    with pytest.raises(SDCError, match="no household= id column"):
        FAM.sdc.generalize(FAM_H, k=2, household_columns=["region"])
    with pytest.raises(SDCError, match="'nope'"):
        FAM.sdc.generalize(FAM_H, k=2, household="hh", household_columns=["nope"])


def test_nearly_household_level_key_warns():
    """region is constant in 29 of 30 households (one data error): detected person-level, the
    whole-household rule does not apply to it. Warned, naming the household; a declaration is
    never second-guessed."""
    hh = [h for h in range(30) for _ in (0, 1)]
    region = [("N" if h % 2 else "S") for h in hh]
    region[-1] = "N" if region[-1] == "S" else "S"
    df = pl.DataFrame({"hh": hh, "region": region, "age": ["a", "b"] * 30})
    hs = {"region": {"N": ["*"], "S": ["*"]}, "age": {"a": ["*"], "b": ["*"]}}
    with pytest.warns(HouseholdWarning, match="column 'region' varies within 1 of 30 households of 'hh'"):
        df.sdc.generalize(hs, k=2, household="hh")
    with warnings.catch_warnings():
        warnings.simplefilter("error", HouseholdWarning)
        df.sdc.generalize(hs, k=2, household="hh", household_columns=[])
        FAM.sdc.generalize(FAM_H, k=2, household="hh", suppression_limit=0.2)     # constant: no warning


def test_the_problem_step_and_lazy_take_household_columns():
    p = FAM.sdc.problem(keys=["region", "age"], household="hh").generalize(
        hierarchies=FAM_H, k=2, suppression_limit=0.2, household_columns=[])
    assert p.release().rows()[8:] == [(5, "S", "a"), (5, "*", "*")]
    lazy = FAM.lazy().sdc.generalize_release(FAM_H, k=2, household="hh", suppression_limit=0.2,
                                             household_columns=[]).collect()
    assert lazy.equals(p.release())
