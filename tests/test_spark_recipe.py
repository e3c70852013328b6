"""A recipe on Spark (polars_sdc.spark.run_recipe) gives the local run_recipe's release for the
steps with a Spark counterpart (same seed and key column); a step or option without one is
refused naming it and its line, before any Spark job.

Needs pyspark >= 4 and Java; without them the Spark test skips, unless SDC_REQUIRE_ALL=1 (CI)."""
from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from test_spark import spark  # noqa: F401  (the session fixture)

import polars_sdc
from polars_sdc._errors import SDCError

RECIPE = """
[roles]
keys = ["c", "s"]
numeric = ["x", "z"]
pram = ["c"]
strata = ["s"]

[[steps]]
operation = "pram"
pd = 0.6
seed = 3
key = "id"

[[steps]]
operation = "rank_swap"
p = 0.2
seed = 1
key = "id"

[[steps]]
operation = "laplace"
phi = 0.5
on = ["y"]
seed = 2
key = "id"
"""


def test_spark_run_recipe_equals_local(spark):  # noqa: F811
    from polars_sdc import spark as sdcs

    g = np.random.default_rng(4)
    n = 300
    data = pl.DataFrame({
        "id": g.permutation(n).astype(np.int64) * 5 + 1,
        "x": g.normal(0, 1, n), "y": g.normal(10, 2, n), "z": g.exponential(100, n),
        "c": g.choice(["u", "v", "w"], n), "s": g.choice(["A", "B"], n),
    })
    local = polars_sdc.run_recipe(RECIPE, data).release().sort("id")
    sdf = spark.createDataFrame(data.to_arrow()).repartition(3)
    got = pl.from_arrow(sdcs.run_recipe(RECIPE, sdf).toArrow()).sort("id")
    assert got.equals(local)
    assert (local["c"] != data.sort("id")["c"]).sum() > 10 and (local["x"] != data.sort("id")["x"]).sum() > 10


@pytest.mark.parametrize("text, message", [
    (RECIPE + '\n[[steps]]\noperation = "suppress"\nk = 2\n',
     r"recipe line 28: step 'suppress' has no Spark counterpart \(on Spark: pram, rank_swap"),
    # generalisation is local only: refused, so no Spark risk measure ever reads a generalised
    # release without its suppressed_as (run it locally; then pass suppressed_as="*" to the Spark risk)
    (RECIPE + '\n[[steps]]\noperation = "generalize"\nk = 2\n',
     r"recipe line 28: step 'generalize' has no Spark counterpart \(on Spark: pram, rank_swap.*run it locally"),
    (RECIPE + '\n[[steps]]\noperation = "microaggregate"\nk = 3\nmerge_small_strata = true\n',
     r"recipe line 30: microaggregate option 'merge_small_strata' has no Spark counterpart: the blocks are planned"),
])
def test_a_step_without_a_spark_counterpart_is_refused_first(text, message):
    from polars_sdc import spark as sdcs

    class NoSpark:  # any use of the frame would fail: the refusal comes first
        def __getattr__(self, name):
            raise AssertionError("Spark was used")

    if "option" in message:
        pytest.importorskip("pyspark")
        import polars_sdc.spark._common as common

        schema = pl.Schema({"id": pl.Int64, "x": pl.Float64, "y": pl.Float64, "z": pl.Float64, "c": pl.String,
                            "s": pl.String})
        original = common.polars_schema
        common.polars_schema = lambda sdf: schema
        try:
            with pytest.raises(SDCError, match=message):
                sdcs.run_recipe(text, NoSpark())
        finally:
            common.polars_schema = original
    else:
        with pytest.raises(SDCError, match=message):
            sdcs.run_recipe(text, NoSpark())
