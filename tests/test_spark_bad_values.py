"""A NaN or an infinite value in a masked column is refused on Spark with the local message,
word for word (microaggregate, laplace, add_noise, rank_swap; one message function, ``_columns``): the NaN
count first, then the infinite count, the first offending column in ``on`` order. Needs pyspark
and Java (skips without, as tests/test_spark.py)."""
from __future__ import annotations

import pytest
import polars as pl
from test_spark import spark  # noqa: F401  (the session fixture)

import polars_sdc  # noqa: F401
from polars_sdc import SDCError

INF = float("inf")


def _calls(sdcs, spark, df):  # noqa: F811
    sdf = spark.createDataFrame(df.to_arrow()).repartition(2)
    return {
        "microaggregate": (lambda: df.sdc.microaggregate(2, ["x", "y"], method="mdav"),
                           lambda: sdcs.microaggregate(sdf, 2, ["x", "y"], method="mdav")),
        "microaggregate household=": (
            lambda: df.sdc.microaggregate(2, ["x", "y"], household="hh"),
            lambda: sdcs.microaggregate(sdf, 2, ["x", "y"], household="hh")),
        "laplace": (lambda: df.sdc.laplace(1.0, ["x", "y"], seed=1, key="id"),
                    lambda: sdcs.laplace(sdf, 1.0, ["x", "y"], seed=1, key="id")),
        "add_noise": (lambda: df.sdc.add_noise(["x", "y"], seed=1, key="id"),
                      lambda: sdcs.add_noise(sdf, ["x", "y"], seed=1, key="id")),
        "moments": (lambda: df.sdc.add_noise(["x", "y"], method="moments", seed=1, key="id"),
                    lambda: sdcs.add_noise(sdf, ["x", "y"], method="moments", seed=1, key="id")),
        "rank_swap": (lambda: df.sdc.rank_swap(["x", "y"], p=0.5, seed=1, key="id"),
                      lambda: sdcs.rank_swap(sdf, ["x", "y"], p=0.5, seed=1, key="id")),
    }


@pytest.mark.parametrize("x, y, expected", [
    ([1.0, float("nan"), 3, 4, 5, 6], [1.0, 2, 3, 4, 5, 6], "column 'x': 1 NaN value(s); a finite number is needed in every row"),
    ([1.0, 2, 3, 4, 5, 6], [INF, 2, -INF, 4, 5, 6], "column 'y': 2 infinite value(s); a finite number is needed in every row"),
    # NaN named before infinity, whatever the row order; the first column in `on` first
    ([INF, float("nan"), float("nan"), 4, 5, 6], [float("nan"), 2, 3, 4, 5, 6],
     "column 'x': 2 NaN value(s); a finite number is needed in every row"),
])
def test_spark_refuses_nan_and_infinity_with_the_local_message(spark, x, y, expected):  # noqa: F811
    from polars_sdc import spark as sdcs

    df = pl.DataFrame({"id": range(6), "hh": [0, 0, 1, 1, 2, 2], "x": x, "y": y})
    for name, (local, remote) in _calls(sdcs, spark, df).items():
        with pytest.raises(SDCError) as loc:
            local()
        with pytest.raises(SDCError) as rem:
            remote()
        assert str(loc.value) == expected, name
        assert str(rem.value) == expected, name
