"""Spark twins of tests/test_audit_masking_risk.py (session 26 audit): a few cases, seconds each.
Needs pyspark and Java (skips without, as tests/test_spark.py)."""
import numpy as np
import polars as pl
import pytest

from test_spark import spark  # noqa: F401  (the session fixture)


def _sdf(spark, df):  # noqa: F811
    return spark.createDataFrame(df.to_arrow()).repartition(2)


def test_huge_weights_equal_local(spark):  # noqa: F811
    # Fk beyond 2^53: the risk was 1.0 / NaN locally and on Spark (the same local formula)
    from polars_sdc import spark as sdcs

    df = pl.DataFrame({"id": [0, 1, 2, 3], "c": ["a", "a", "b", "b"], "w": [1e308, 1.0, 5e16, 5e16]})
    local = df.sdc.individual_risk("c", weight="w")["risk"].to_numpy()
    assert np.isfinite(local).all() and (local < 1e-15).all()
    got = pl.from_arrow(sdcs.individual_risk(_sdf(spark, df), ["c"], weight="w").toArrow()).sort("id")
    np.testing.assert_allclose(got["risk"].to_numpy(), local, rtol=1e-12)


def test_weight_sum_overflow_refused_as_locally(spark):  # noqa: F811
    from polars_sdc import spark as sdcs
    from polars_sdc._errors import SDCError

    df = pl.DataFrame({"c": ["a", "a", "b"], "w": [1e308, 1e308, 1.0]})
    with pytest.raises(SDCError) as local:
        df.sdc.frequencies("c", weight="w")
    with pytest.raises(SDCError) as remote:
        sdcs.frequencies(_sdf(spark, df), ["c"], weight="w").collect()
    assert str(remote.value) == str(local.value)


def test_household_risk_nan_ids_refused_as_locally(spark):  # noqa: F811
    from polars_sdc import spark as sdcs
    from polars_sdc._errors import SDCError

    df = pl.DataFrame({"h": [1.0, 1.0, float("nan"), float("nan"), 2.0], "a": [1, 2, 1, 2, 1], "w": [2.0, 2, 3, 3, 4]})
    with pytest.raises(SDCError) as local:
        df.sdc.individual_risk("a", weight="w", household="h")
    with pytest.raises(SDCError) as remote:
        sdcs.individual_risk(_sdf(spark, df), ["a"], weight="w", household="h").collect()
    assert str(remote.value) == str(local.value)
