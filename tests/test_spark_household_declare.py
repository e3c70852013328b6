"""household_columns= on Spark: the declared household-level columns masked once per household,
every other column person-level even when constant within every household by accident; equal to
the local household path for the same seed and key; a declared column that varies within a
household is refused with the local message (Spark names the household with the smallest id)."""
from __future__ import annotations

import polars as pl
import pytest
from polars.testing import assert_frame_equal
from test_spark import spark  # noqa: F401  (the session fixture)
from test_spark_household import data  # noqa: F401  (households of 1..6 persons, rows shuffled)

import polars_sdc  # noqa: F401
from polars_sdc._errors import SDCError


def test_spark_declared_household_columns_equal_local(spark, data):  # noqa: F811
    from polars_sdc import spark as sdcs

    # "tenure": constant within every household, but declared person-level below
    df = data.with_columns(pl.col("area").alias("tenure"))
    sdf = spark.createDataFrame(df.to_arrow()).repartition(3)
    on = ["region", "tenure"]
    # declared region: region once per household, tenure per person; []: both per person;
    # None: detected, both household-level (tenure is constant within every household)
    for declared, one_per_household in ((["region"], (True, False)), ([], (False, False)), (None, (True, True))):
        got = pl.from_arrow(sdcs.pram(sdf, on, pd=0.5, seed=3, key="pid", household="hh",
                                      household_columns=declared).toArrow()).sort("pid")
        local = df.sdc.pram(on, pd=0.5, seed=3, key="pid", household="hh", household_columns=declared).sort("pid")
        assert_frame_equal(got, local)
        spread = got.group_by("hh").agg(pl.col(on).n_unique()).select(pl.col(on).max()).row(0)
        assert tuple(v == 1 for v in spread) == one_per_household
    # a declared column that varies within a household
    bad = pl.DataFrame({"pid": [1, 2, 3, 4, 5], "hh": [7, 7, 9, 9, 9], "c": ["x", "x", "y", "z", "y"]})
    with pytest.raises(SDCError) as want:
        bad.sdc.pram("c", seed=1, key="pid", household="hh", household_columns="c")
    with pytest.raises(SDCError) as have:
        sdcs.pram(spark.createDataFrame(bad.to_arrow()), "c", seed=1, key="pid", household="hh", household_columns="c")
    assert str(have.value) == str(want.value) == ("column 'c' is declared household-level but varies within "
                                                  "household 9 of 'hh' (values 'y' and 'z')")
    # microaggregation: the declaration splits the columns as locally (a mix is refused, naming both kinds)
    with pytest.raises(SDCError) as want:
        df.sdc.microaggregate(3, ["hinc", "pay"], household="hh", household_columns=["hinc"])
    with pytest.raises(SDCError) as have:
        sdcs.microaggregate(sdf, 3, ["hinc", "pay"], household="hh", household_columns=["hinc"])
    assert str(have.value) == str(want.value) and "'hinc' are household-level (declared)" in str(have.value)
