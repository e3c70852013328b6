"""Spark as a thin adapter (issue 29): every function of ``polars_sdc.spark`` that has a local
``df.sdc`` method takes the same parameters in the same order (names, positional or keyword-only,
defaults), the Spark DataFrame first and Spark's own keyword-only options last. The local
parameters come from the method's signature (or, for a method taking ``**options``, from its
declaration in :data:`polars_sdc.operations.OPERATIONS`); the only local parameters a Spark
function may lack are those :data:`polars_sdc.spark.LOCAL_ONLY` names with a reason (and, for a
function that forwards ``**options`` to the partition methods, the methods' own options). No
pyspark needed: the signatures are read, nothing runs."""
from __future__ import annotations

import inspect

import polars as pl
import pytest

import polars_sdc  # noqa: F401  (registers df.sdc)
from polars_sdc import spark as sdcs
from polars_sdc.microagg import METHODS
from polars_sdc.operations import OPERATIONS, REQUIRED

#: the Spark functions without a df.sdc method of the same name (Spark-only tools)
SPARK_ONLY = {"BlockPlan", "LOCAL_ONLY", "assign_blocks", "plan_blocks", "run_recipe"}


def _signature(name: str) -> list[inspect.Parameter]:
    return list(inspect.signature(getattr(pl.DataFrame({"a": [1]}).sdc, name)).parameters.values())


def _local(name: str) -> list[tuple[str, bool, object]]:
    """(name, positional?, default) of each parameter of ``df.sdc.<name>`` after the frame."""
    params = _signature(name)
    if any(p.kind == p.VAR_KEYWORD for p in params) and name in OPERATIONS:
        return [(o.name, o.positional, o.default) for o in OPERATIONS[name].options]
    return [(p.name, p.kind == p.POSITIONAL_OR_KEYWORD, REQUIRED if p.default is p.empty else p.default)
            for p in params if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)]


def _forwarded(name: str) -> set[str]:
    """The local options a Spark function passes on through its ``**options``: the keys of its
    ``Unpack[TypedDict]`` annotation (recode's label options), or for the microaggregation
    functions the partition methods' own options (typed explicitly on the local method)."""
    import typing

    fn = getattr(sdcs, name)
    var = [p for p in inspect.signature(fn).parameters.values() if p.kind == p.VAR_KEYWORD]
    if not var:
        return set()
    hint = typing.get_type_hints(fn, include_extras=True).get(var[0].name)
    if typing.get_origin(hint) is typing.Unpack:
        return set(typing.get_type_hints(typing.get_args(hint)[0]))
    if name == "microaggregate" or name in METHODS:
        return {o for m in METHODS.values() for o in (m.option_specs or {})}
    return set()


def _names() -> list[str]:
    names = [n for n in sdcs.__all__ if n not in SPARK_ONLY] + list(METHODS)
    return sorted(set(names))


def test_the_ports_are_compared():
    # the test cannot pass vacuously: the ports of issue 29 are among the compared functions
    assert {"laplace", "pram", "add_noise", "rank_swap", "microaggregate", "mdav", "recode", "recode_map",
            "frequencies", "individual_risk", "global_risk", "risk", "ilssdm"} <= set(_names())


@pytest.mark.parametrize("name", _names())
def test_spark_function_has_the_local_parameters_in_the_local_order(name):
    params = list(inspect.signature(getattr(sdcs, name)).parameters.values())[1:]   # after the Spark DataFrame
    forwards = any(p.kind == p.VAR_KEYWORD for p in params)
    spark = [p for p in params if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)]
    names = {p.name for p in spark}
    local = _local(name)
    local_explicit = {p.name for p in _signature(name)}
    local_only = sdcs.LOCAL_ONLY.get(name, {})
    assert set(local_only) <= {n for n, _, _ in local}, f"{name}: LOCAL_ONLY names options local does not have"
    assert all(isinstance(why, str) and why for why in local_only.values())
    assert not set(local_only) & names, f"{name}: an option both LOCAL_ONLY and taken"
    # every local option is taken, listed as local-only, or passed on through **options as locally
    missing = [n for n, _, _ in local if n not in names and n not in local_only
               and not (forwards and (n not in local_explicit or n in _forwarded(name)))]
    assert not missing, f"{name}: local options {missing} missing on Spark"
    expected = [(n, pos, d) for n, pos, d in local if n in names]
    got = [(p.name, p.kind == p.POSITIONAL_OR_KEYWORD, REQUIRED if p.default is p.empty else p.default)
           for p in spark[:len(expected)]]
    assert [g[0] for g in got] == [e[0] for e in expected], f"{name}: parameter names / order differ from local"
    assert got == expected, f"{name}: positional-or-keyword kind or default differs from local"
    extra = spark[len(expected):]
    assert all(p.kind == p.KEYWORD_ONLY for p in extra), f"{name}: Spark's own options must be keyword-only"


def test_one_schema_converter_from_the_local_output_schema():
    pytest.importorskip("pyspark")
    from pyspark.sql.types import ByteType, DoubleType, LongType, StringType

    from polars_sdc._errors import SDCError
    from polars_sdc.masking.add_noise import add_noise_output_schema
    from polars_sdc.spark._common import spark_schema

    local = pl.Schema({"id": pl.Int8, "x": pl.Int32, "g": pl.UInt32, "c": pl.Enum(["a", "b"])})
    out = spark_schema(add_noise_output_schema(local, ["x"]))
    assert [(f.name, f.dataType, f.nullable) for f in out.fields] == [
        ("id", ByteType(), True), ("x", DoubleType(), True), ("g", LongType(), True), ("c", StringType(), True)]
    with pytest.raises(SDCError, match="column 'u': UInt64 has no Spark type"):
        spark_schema(pl.Schema({"u": pl.UInt64}))


@pytest.mark.parametrize("call", ["microaggregate", "mdav", "mhm"])
def test_a_misspelt_spark_blocking_parameter_is_suggested(call):
    """``block_row=`` is no option of the method; the error names the Spark parameter it is close
    to (the method's own check would only list the method's options). Raised before any Spark
    work, so no session is needed."""
    from polars_sdc import SDCError
    from polars_sdc import spark as sdcs

    fn = getattr(sdcs, call)
    args = (None, 3, ["a"])
    with pytest.raises(SDCError, match="unexpected keyword argument 'block_row'; did you mean 'block_rows'"):
        fn(*args, block_row=10)
    with pytest.raises(SDCError, match="did you mean 'sample_per_block'"):
        fn(*args, samples_per_block=10)
    # a real option of the method is never taken for a misspelling; the rest is left to the method's check
    from polars_sdc.spark.microaggregate import _refuse_misspelt_spark_parameters

    assert _refuse_misspelt_spark_parameters({"gamma": 1.0, "gama": 1.0}, "vmdav") is None
    assert _refuse_misspelt_spark_parameters({"leaf_size": 8}, "mhm") is None
