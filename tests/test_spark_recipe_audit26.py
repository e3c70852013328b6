"""Audit (session 26): a Spark recipe refuses a random step without a key column, naming its
line, before any step runs (each Spark step would otherwise start its jobs first)."""
from __future__ import annotations

import polars as pl
import pytest
from test_spark import spark  # noqa: F401  (the session fixture)

from polars_sdc._errors import SDCError


def test_a_random_step_without_a_key_is_refused_naming_its_line_before_any_step(spark):  # noqa: F811
    from polars_sdc import spark as sdcs

    recipe = ('[roles]\nnumeric = ["x"]\npram = ["c"]\n\n[[steps]]\noperation = "laplace"\nphi = 0.5\nseed = 2\n'
              'key = "id"\n\n[[steps]]\noperation = "pram"\npd = 0.6\nseed = 3\n')
    sdf = spark.createDataFrame(pl.DataFrame({"id": [1, 2, 3, 4], "x": [1.0, 2.0, 3.0, 4.0],
                                              "c": ["u", "v", "u", "v"]}).to_arrow())
    calls = []
    real = sdcs.laplace
    try:
        sdcs.laplace = lambda *a, **k: calls.append(1) or real(*a, **k)
        with pytest.raises(SDCError, match=r"recipe line 11 \(pram\): pram on Spark needs key="):
            sdcs.run_recipe(recipe, sdf)
    finally:
        sdcs.laplace = real
    assert calls == []          # the laplace step before it never ran
