"""Adding a microaggregation method is its kernel, its module and ONE declaration (an entry of
``polars_sdc.microagg.METHODS``); the method then appears in Python (``df.sdc``), in the
generated CLI (``polars-sdc microaggregate --method``, its options as flags), in recipes and
in the Spark adapter (issue 29, "Done when").

The dummy method below: a Numba kernel that cuts a row order into runs of k rows (the last
run keeps the remainder) and a module function that orders the rows by the first column.
"""
from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from numba import njit

import polars_sdc
from polars_sdc import cli
from polars_sdc._errors import SDCError
from polars_sdc.microagg import METHODS, Method
from polars_sdc.operations import OPERATIONS


# -- the kernel, the module and the declaration -----------------------------------------------
@njit(cache=False)
def _runs_of_k(order: np.ndarray, k: int) -> np.ndarray:
    """Group id of every row: position in ``order`` // k, the last group taking the rest."""
    n = order.size
    last = max(n // k, 1) - 1
    labels = np.empty(n, dtype=np.uint32)
    for i in range(n):
        labels[order[i]] = min(i // k, last)
    return labels


def partition_runs(X, k, descending=False):
    """The rows sorted by the first feature (descending if asked), cut into runs of k."""
    x = (X.numeric if hasattr(X, "numeric") else np.asarray(X))[:, 0]
    order = np.argsort(-x if descending else x, kind="stable").astype(np.int64)
    return _runs_of_k(order, int(k))


def _check_descending(value):
    if not isinstance(value, bool):
        raise SDCError(f"descending must be True or False, got {value!r}")
    return value


RUNS = Method("runs", partition_runs, {"descending": _check_descending}, option_specs={
    "descending": {"kind": "bool", "help": "cut the runs from the largest value down"}})


@pytest.fixture
def runs(monkeypatch):
    monkeypatch.setitem(METHODS, "runs", RUNS)  # the one declaration
    yield RUNS
    monkeypatch.undo()
    assert "runs" not in OPERATIONS["microaggregate"].option("method").choices  # the table follows


FRAME = pl.DataFrame({"x": [5.0, 1.0, 4.0, 2.0, 3.0, 6.0, 7.0], "y": ["a", "b", "c", "d", "e", "f", "g"]})
#: runs of 3 in increasing order: {1, 2, 3} and {4, 5, 6, 7}; in decreasing: {7, 6, 5} and {4, 3, 2, 1}
ASCENDING = [5.5, 2.0, 5.5, 2.0, 2.0, 5.5, 5.5]
DESCENDING = [6.0, 2.5, 2.5, 2.5, 2.5, 6.0, 6.0]


def test_the_kernel_is_a_k_partition():
    labels = partition_runs(np.array([[5.0], [1.0], [4.0], [2.0], [3.0], [6.0], [7.0]]), 3)
    assert labels.dtype == np.uint32 and labels.tolist() == [1, 0, 1, 0, 0, 1, 1]
    assert np.bincount(labels).min() >= 3


def test_python(runs):
    out = FRAME.sdc.microaggregate(3, "x", method="runs")
    assert out["x"].to_list() == ASCENDING and out["y"].equals(FRAME["y"])
    assert FRAME.sdc.microaggregate(3, "x", method="runs", descending=True)["x"].to_list() == DESCENDING
    assert FRAME.lazy().sdc.microaggregate(3, "x", method="runs").collect().equals(out)
    assert FRAME.sdc.partition(3, "x", method="runs").to_list() == [0, 1, 0, 1, 1, 0, 0]
    # the checks and the keyword guard of the declaration
    with pytest.raises(SDCError, match=r"unknown option 'descendng' for method 'runs'; did you mean 'descending'"):
        FRAME.sdc.microaggregate(3, "x", method="runs", descendng=True)
    with pytest.raises(SDCError, match="descending must be True or False"):
        FRAME.sdc.microaggregate(3, "x", method="runs", descending="yes")
    # with strata and a refiner, as every method
    strata = pl.concat([FRAME, FRAME.with_columns(x=pl.col("x") * 10)]).with_columns(
        s=pl.Series(["p"] * 7 + ["q"] * 7))
    out = strata.sdc.microaggregate(3, "x", method="runs", by="s", refine="mil")
    assert out.sdc.k_anonymity(["x", "s"]) >= 3


def test_operations_and_cli(runs, tmp_path, capsys):
    op = OPERATIONS["microaggregate"]
    assert "runs" in op.option("method").choices
    assert op.option("descending").kind == "bool" and op.option("descending").default is False
    assert [o.name for o in OPERATIONS["runs"].options][-1] == "descending"
    assert cli.main(["microaggregate", "--help"]) == 0
    help_text = capsys.readouterr().out
    assert "runs" in help_text and "--descending" in help_text
    src, out = tmp_path / "in.parquet", tmp_path / "out.parquet"
    FRAME.write_parquet(src)
    code = cli.main(["microaggregate", str(src), str(out), "--k", "3", "--on", "x", "--method", "runs", "--descending"])
    assert code == 0
    assert pl.read_parquet(out).equals(FRAME.sdc.microaggregate(3, "x", method="runs", descending=True))
    capsys.readouterr()


def test_recipe(runs):
    recipe = '[roles]\nnumeric = ["x"]\n\n[[steps]]\noperation = "microaggregate"\nk = 3\nmethod = "runs"\n'
    assert polars_sdc.run_recipe(recipe, FRAME).release()["x"].to_list() == ASCENDING


def test_spark_checks_the_declaration_on_the_driver(runs):
    """The Spark function validates method and options against the declaration on the driver,
    from the frame's schema alone, before any Spark job (no session needed: a stand-in with a
    Spark schema and no data)."""
    pytest.importorskip("pyspark")
    from types import SimpleNamespace

    from pyspark.sql.types import DoubleType, StringType, StructField, StructType

    from polars_sdc import spark as sdcs

    schema_only = SimpleNamespace(schema=StructType([StructField("x", DoubleType()), StructField("y", StringType())]))
    with pytest.raises(SDCError, match=r"unknown option 'descendng' for method 'runs'"):
        sdcs.microaggregate(schema_only, 3, "x", method="runs", descendng=True)
    with pytest.raises(SDCError, match="descending must be True or False"):
        sdcs.microaggregate(schema_only, 3, "x", method="runs", descending=1)


def test_spark_runs_the_registered_method(runs, spark):
    import sys

    from pyspark import cloudpickle

    from polars_sdc import spark as sdcs

    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the workers cannot import this test file
    try:
        sdf = spark.createDataFrame(FRAME.rows(), schema="x double, y string")
        rows = sdcs.microaggregate(sdf, 3, "x", method="runs", block_rows=100).collect()
        out = pl.DataFrame([r.asDict() for r in rows])
    finally:
        cloudpickle.unregister_pickle_by_value(sys.modules[__name__])
    assert out.sort("y")["x"].to_list() == ASCENDING


from test_spark import spark  # noqa: E402, F401  (the session fixture: local[2,2])
