"""Audit 28c (a new user's walkthrough): every public callable has a ``>>>`` example.

tests/test_typing.py checked the ``df.sdc`` / ``pl.col().sdc`` methods only. A user also calls
``polars_sdc.<name>`` (``Problem``, ``read_recipe``, ...), ``polars_sdc.dist``,
``polars_sdc.datasets``, ``polars_sdc.spark``, the methods of those classes, and the methods
of the result objects the frame methods return (``RiskResult``, ``ILDReport``, ``GMMFit``, ...).
Each of them needs a docstring with an example (doctests run them: ``--doctest-modules``).
A problem's step methods (``p.suppress``, generated from the operations) have no code of their
own: their docstring must name the ``df.sdc`` method whose example shows the call.
"""
from __future__ import annotations

import inspect
import typing

import polars as pl
import pytest

import polars_sdc
from polars_sdc import SDCFrame, datasets, dist, spark


def _has_example(obj: object) -> bool:
    return ">>>" in (inspect.getdoc(obj) or "")


def _members(cls: type) -> list[tuple[str, object]]:
    """The public methods defined by ``cls`` or its polars_sdc bases (properties are attributes:
    the class's example shows them)."""
    out = []
    for klass in cls.__mro__:
        if not klass.__module__.startswith("polars_sdc"):
            continue
        for name, value in vars(klass).items():
            if name.startswith("_") or name in dict(out):
                continue
            raw = value.__func__ if isinstance(value, (classmethod, staticmethod)) else value
            if inspect.isfunction(raw):
                out.append((name, raw))
    return out


def _result_classes() -> dict[str, type]:
    """The classes the frame methods return, e.g. RiskResult (read from their return
    annotations; a new result class fails here until it is added to the table)."""
    import re

    from polars_sdc.generalize.release import GeneralizationResult
    from polars_sdc.loss.classic import LossReport
    from polars_sdc.loss.ild import ILDReport
    from polars_sdc.masking.pram import PramMatrix
    from polars_sdc.reconstruct.gmm import GMMFit
    from polars_sdc.reconstruct.ibt import IBTFit
    from polars_sdc.risk.measure import RiskResult
    from polars_sdc.utility.recode_utility import UtilityReport

    table = {c.__name__: c for c in (GeneralizationResult, LossReport, ILDReport, PramMatrix, GMMFit, IBTFit,
                                     RiskResult, UtilityReport)}
    table["Problem"] = polars_sdc.Problem
    table["Report"] = type(polars_sdc.report(pl.DataFrame({"a": [1, 1]}), pl.DataFrame({"a": [1, 1]}), on=["a"]))
    named = set()
    for name in dir(SDCFrame):
        fn = getattr(SDCFrame, name)
        if name.startswith("_") or not callable(fn):
            continue
        hint = str(inspect.signature(fn).return_annotation)
        named |= {w for w in re.findall(r"\b[A-Z]\w+", hint) if w not in ("F", "G", "DataFrame", "LazyFrame", "Series")}
    assert named <= set(table), named - set(table)
    return table


def _public() -> list[tuple[str, object]]:
    items: list[tuple[str, object]] = []
    for prefix, module, names in (("polars_sdc", polars_sdc, polars_sdc.__all__),
                                  ("polars_sdc.dist", dist, dist.__all__),
                                  ("polars_sdc.datasets", datasets, datasets.__all__),
                                  ("polars_sdc.spark", spark, spark.__all__)):
        for name in names:
            obj = getattr(module, name)
            if inspect.ismodule(obj) or not callable(obj):
                continue
            items.append((f"{prefix}.{name}", obj))
            if inspect.isclass(obj) and not issubclass(obj, BaseException):
                items += [(f"{prefix}.{name}.{m}", f) for m, f in _members(obj)]
    covered = {id(obj) for _, obj in items}
    for name, cls in sorted(_result_classes().items()):
        if id(cls) in covered:
            continue
        items.append((f"result {name}", cls))
        items += [(f"result {name}.{m}", f) for m, f in _members(cls)]
    return items


def test_the_collection_sees_what_a_user_touches():
    names = {n for n, _ in _public()}
    for expected in ("polars_sdc.Problem.undo", "polars_sdc.read_recipe", "polars_sdc.dist.tree",
                     "polars_sdc.datasets.francdat", "polars_sdc.spark.microaggregate",
                     "result RiskResult.as_dict", "result ILDReport", "result GMMFit", "result PramMatrix.to_frame"):
        assert expected in names, expected
    assert len(names) > 80


#: members whose example needs a Spark session and a plan built on it: the class's (skipped)
#: example shows them; they map a Polars batch's rows to blocks inside mapInArrow
SPARK_PLAN_MEMBERS = {f"polars_sdc.spark.BlockPlan.{m}" for m in ("scores", "roots", "leaves", "blocks")}


def _problem_steps() -> set[str]:
    """The step methods installed on Problem once a problem is built (in this process, by any
    earlier test): generated, checked by test_a_problem_step_names_the_frame_method_with_the_example."""
    from polars_sdc.operations import steps

    return {f"polars_sdc.Problem.{op.name}" for op in steps()}


def test_every_public_callable_has_an_example():
    skip = SPARK_PLAN_MEMBERS | _problem_steps()
    missing = sorted(name for name, obj in _public() if not _has_example(obj) and name not in skip)
    assert not missing, "public callables without a >>> example in their docstring:\n  " + "\n  ".join(missing)


def test_a_problem_step_names_the_frame_method_with_the_example():
    from polars_sdc.operations import OPERATIONS

    p = pl.DataFrame({"a": [1, 1, 2, 2], "x": [1.0, 2.0, 3.0, 4.0]}).sdc.problem(keys=["a"], numeric=["x"])
    checked = 0
    for op in OPERATIONS.values():
        step = getattr(p, op.name, None)
        if step is None:
            continue
        doc = inspect.getdoc(step) or ""
        assert f"df.sdc.{op.method}" in doc, (op.name, doc)
        assert _has_example(getattr(SDCFrame, op.method)), op.method
        checked += 1
    assert checked >= 10


def test_a_callable_without_an_example_is_caught():
    def documented():
        """Does a thing.

        >>> 1
        1
        """

    def bare():
        """Does a thing, with no example."""

    assert _has_example(documented) and not _has_example(bare)

    class Holder:
        __module__ = "polars_sdc.fake"

        def run(self):
            """No example."""

    assert [n for n, f in _members(Holder) if not _has_example(f)] == ["run"]


@pytest.mark.parametrize("name", ["Problem", "RiskResult"])
def test_help_shows_the_example(name):
    import pydoc

    obj = polars_sdc.Problem if name == "Problem" else _result_classes()["RiskResult"]
    assert ">>>" in pydoc.render_doc(obj, renderer=pydoc.plaintext)
