"""Audit of issue 24 (households, structural nulls, record swapping): one short test per defect
found by the session-25 audit, each failing before its fix (or marked xfail with the defect)."""
import warnings

import numpy as np
import polars as pl
import pytest

import polars_sdc  # noqa: F401
from polars_sdc import SDCError
from polars_sdc.household import HouseholdWarning


# 1. a group alone in its block whose mean is one household's exact vector was released silently
def test_the_only_group_of_a_block_never_releases_a_households_exact_vector():
    df = pl.DataFrame({"hh": [1, 1, 2, 3, 3], "x": [1.0, 1.0, 2.0, 3.0, 3.0]})
    with pytest.raises(SDCError, match=r"the only group of these 3 household\(s\) releases.*exact vector of 1 of "
                                       r"them over \['x'\] \(fewer than k = 3 hold it\)"):
        df.sdc.mdav(3, on="x", household="hh")
    # the same in a null-pattern block: rows with 'y' null form their own block of 3 households
    df = pl.DataFrame({"hh": [1, 2, 3, 4, 5, 6, 7, 8, 9], "x": [1.0, 2.0, 3.0, 5.0, 6.0, 9.0, 9.5, 11.0, 12.0],
                       "y": [None, None, None, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0]})
    with pytest.raises(SDCError, match=r"null pattern \('y' null\): the only group"):
        df.sdc.mdav(3, on=["x", "y"], household="hh", household_columns=[])
    # a partition releases nothing: it still returns the one group
    assert df.sdc.partition(3, on=["x", "y"], household="hh", household_columns=[]).n_unique() == 3


# 5. microaggregation's default `on` (every numeric column) took the household id and refused it
def test_default_on_leaves_the_household_id_out_of_microaggregation():
    df = pl.DataFrame({"hh": [1, 1, 2, 2, 3, 3, 4, 5, 6], "y": [1.0, 2.5, 3.1, 4.7, 5.3, 6.9, 7.2, 8.8, 9.4]})
    out = df.sdc.mdav(2, household="hh", group_column="g")
    assert out["hh"].equals(df["hh"]) and out.group_by("g").agg(pl.col("hh").n_unique())["hh"].min() >= 2
    assert df.lazy().sdc.mhm(2, household="hh").collect()["hh"].equals(df["hh"])
    refined = out.sdc.mil(2, group="g", household="hh")
    assert refined["hh"].equals(df["hh"])
    with pytest.raises(SDCError, match="no numeric column besides the household id 'hh'"):
        df.select("hh").sdc.mdav(2, household="hh")
