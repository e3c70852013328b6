"""sdcMicro's approximate individual risk on Spark (local mode) with missing keys and
``alpha < 1``: the default ``alpha_rule="safe"`` and ``alpha_rule="sdcmicro"`` equal local, and
weights below one (docs/reliability.md). Needs pyspark and Java (skips without, as
tests/test_spark.py)."""
from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from test_spark import spark  # noqa: F401  (the session fixture)

import polars_sdc  # noqa: F401
from polars_sdc import SDCError


def _sdf(spark, df):  # noqa: F811
    return spark.createDataFrame(df.to_arrow()).repartition(2)


def test_safe_rule_below_alpha_one_equals_local(spark):  # noqa: F811
    from polars_sdc import spark as sdcs

    df = pl.DataFrame({"id": range(5), "a": [1, None, 2, 2, 2], "b": [1, 1, 5, 5, 5], "w": [2.0] * 5})
    sdf = _sdf(spark, df)
    local = df.sdc.individual_risk(["a", "b"], weight="w", alpha=0.5)
    got = pl.from_arrow(sdcs.individual_risk(sdf, ["a", "b"], weight="w", alpha=0.5).toArrow()).sort("id")
    np.testing.assert_allclose(got["risk"].to_numpy(), local["risk"].to_numpy(), rtol=1e-12)
    assert got["risk"][0] == pytest.approx(np.log(2))            # not sdcMicro's 0
    r = sdcs.risk(sdf, ["a", "b"], weight="w", alpha=0.5)
    assert r["global_risk"] == pytest.approx(local["risk"].mean())
    low = pl.DataFrame({"id": [1, 2, 3], "a": [1, 1, 2], "w": [0.3, 0.4, 0.5]})     # weights below 1
    got = pl.from_arrow(sdcs.individual_risk(_sdf(spark, low), ["a"], weight="w").toArrow()).sort("id")
    assert got["risk"].to_list() == [0.5, 0.5, 1.0]


def test_sdcmicro_rule_on_request_equals_local(spark):  # noqa: F811
    from polars_sdc import spark as sdcs

    df = pl.DataFrame({"id": range(5), "a": [1, None, 2, 2, 2], "b": [1, 1, 5, 5, 5], "w": [2.0] * 5})
    got = pl.from_arrow(sdcs.individual_risk(_sdf(spark, df), ["a", "b"], weight="w", alpha=0.5,
                                             alpha_rule="sdcmicro").toArrow()).sort("id")
    local = df.sdc.individual_risk(["a", "b"], weight="w", alpha=0.5, alpha_rule="sdcmicro")
    np.testing.assert_allclose(got["risk"].to_numpy(), local["risk"].to_numpy(), rtol=1e-12)
    assert got["risk"][0] == 0.0
    with pytest.raises(SDCError, match="alpha_rule must be one of"):
        sdcs.risk(_sdf(spark, df), ["a", "b"], alpha_rule="r")
