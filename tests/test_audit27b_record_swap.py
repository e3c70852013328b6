"""Audit 27b: targeted record swapping (sdcMicro recordSwap) as a hostile tester: the declared
option ranges, households swapped whole on EU-SILC with a two-level hierarchy, reproducibility
under row orders / eager / lazy / streaming with key=, tiny and degenerate inputs."""
from __future__ import annotations

import warnings

import numpy as np
import polars as pl
import pytest

import polars_sdc
from polars_sdc import SDCError
from polars_sdc.operations import OPERATIONS


def test_declared_ranges_admit_what_the_method_takes():
    """The declaration (CLI help, recipe docs) said k_anonymity >= 1 and risk_threshold <= 1,
    while 0 turns the k-anonymity rule off (docs/record-swapping.md) and a user risk column
    (sdcMicro: any value >= 0) can exceed 1."""
    op = OPERATIONS["swap_records"]
    k, thr = op.option("k_anonymity"), op.option("risk_threshold")
    assert (k.low, k.high) == (0, None) and (thr.low, thr.high) == (0, None)
    df = pl.DataFrame({"hid": [1, 2, 3, 4], "r": ["a", "a", "b", "b"], "risk": [5.0, 0.5, 3.0, 0.5]})
    out = df.sdc.swap_records(household="hid", hierarchy="r", k_anonymity=0, swaprate=0.0, seed=1)
    assert out.equals(df)                                   # nobody at risk, nothing sampled
    plan = df.sdc.swap_records_plan(household="hid", hierarchy="r", risk="risk", risk_threshold=2.0, swaprate=0.0,
                                    seed=1)
    at_risk = plan.filter(pl.col("risk_level").is_not_null())
    assert sorted(at_risk["hid"].to_list()) == [1, 3]      # risks 5 and 3 are above 2: both swapped
    assert at_risk["partner"].null_count() == 0
    with pytest.raises(SDCError, match="k_anonymity must be >= 0"):
        df.sdc.swap_records(household="hid", hierarchy="r", k_anonymity=-1, seed=1)
