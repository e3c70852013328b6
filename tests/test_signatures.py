"""Namespace methods that pass their arguments on show the method module's parameters (the
same names, kinds and defaults; tests/test_typing.py checks every method), and
`polars-sdc loss` computes ILD once."""
import inspect

import polars as pl
import pytest

import polars_sdc  # noqa: F401  (registers .sdc)
from polars_sdc import cli, datasets
from polars_sdc._errors import SDCError
from polars_sdc.loss import ild as ild_module
from polars_sdc.loss.classic import loss_report
from polars_sdc.loss.ild import ild, ild_report
from polars_sdc.namespace.expr import SDCExpr
from polars_sdc.namespace.loss import LossMethods
from polars_sdc.namespace.noise import NoiseMethods
from polars_sdc.namespace.recode import RecodeMethods
from polars_sdc.namespace.risk import RiskMethods
from polars_sdc.laplace import laplace_frame
from polars_sdc.recode.frame import recode_map_frame
from polars_sdc.recode.top_bottom import top_bottom_expr
from polars_sdc.risk.measure import measure_risk
from polars_sdc.utility.recode_utility import recode_utility

PAIRS = [
    (RiskMethods.risk, measure_risk),
    (LossMethods.ild, ild),
    (LossMethods.ild_report, ild_report),
    (LossMethods.loss_report, loss_report),
    (RecodeMethods.recode_utility, recode_utility),
    (RecodeMethods.recode_map, recode_map_frame),
    (NoiseMethods.laplace, laplace_frame),
    (SDCExpr.top_bottom_code, top_bottom_expr),
]


@pytest.mark.parametrize("method, target", PAIRS, ids=lambda x: getattr(x, "__qualname__", ""))
def test_namespace_method_shows_the_module_parameters(method, target):
    def described(fn):  # an annotation may be narrower in the namespace (a Literal of the choices)
        return [(p.name, p.kind, p.default) for p in list(inspect.signature(fn).parameters.values())[1:]
                if p.kind != p.VAR_KEYWORD]

    assert next(iter(inspect.signature(method).parameters)) == "self"
    want = described(target)
    assert described(method)[:len(want)] == want
    assert method.__doc__ and method.__doc__ != target.__doc__  # its own docstring (df.sdc example)


def test_ild_takes_the_parameters_of_ild_report():
    assert list(inspect.signature(ild).parameters) == list(inspect.signature(ild_report).parameters)
    assert inspect.signature(ild).return_annotation in (float, "float")


def test_a_wrong_keyword_fails_at_the_call_also_when_lazy():
    lf = pl.LazyFrame({"x": [1.0, 2.0, 3.0]})
    with pytest.raises(TypeError, match="seeed"):
        lf.sdc.laplace(1.0, "x", seeed=1)
    with pytest.raises(TypeError, match="alpa"):
        pl.DataFrame({"a": [1, 1, 2]}).sdc.risk("a", alpa=0.5)
    with pytest.raises(TypeError):
        pl.col("x").sdc.top_bottom_code(5)  # keyword-only, as in top_bottom_expr
    # the module's checks run when the lazy step is planned
    with pytest.raises(SDCError, match="seed"):
        lf.sdc.laplace(1.0, "x", seed=-1)


def test_loss_report_reuses_a_given_ild_report():
    df = pl.DataFrame({"x": [1.0, 2.0, 3.0, 4.0, 8.0, 9.0], "c": ["a", "a", "b", "b", "c", "c"]})
    masked = pl.DataFrame({"x": [1.5, 1.5, 3.5, 3.5, 8.5, 8.5], "c": ["a", "a", "b", "b", "b", "b"]})
    rep = ild_report(df, masked)
    assert loss_report(df, masked, k=2, ild_report=rep) == loss_report(df, masked, k=2)
    with pytest.raises(SDCError, match="ild_report: measured on"):
        loss_report(df, masked, on="x", ild_report=rep)
    with pytest.raises(SDCError, match="exponent"):
        loss_report(df, masked, exponent=1, ild_report=rep)


def test_cli_loss_computes_ild_once(tmp_path, capsys, monkeypatch):
    df = datasets.adult().head(400).select("age", "education-num", "sex")
    df.write_csv(tmp_path / "a.csv")
    df.sdc.microaggregate(5, on=["age", "education-num"]).write_csv(tmp_path / "m.csv")
    calls = []
    amounts = ild_module._amounts
    monkeypatch.setattr(ild_module, "_amounts", lambda *a, **k: calls.append(1) or amounts(*a, **k))
    code = cli.main(["loss", str(tmp_path / "a.csv"), str(tmp_path / "m.csv"), "--on", "age,education-num,sex"])
    out = capsys.readouterr().out
    assert code == 0 and "ILD (Akiyama & Wada" in out and "classic measures" in out
    assert len(calls) == 1
