"""One name per concept across the public API, the old names still working (docs/naming.md).

- ``on=`` names the columns a method works on (was ``columns=`` in recode, recode_map,
  top_bottom_code, cramers_v and the Spark recode / recode_map);
- ``groups=`` names a partition, the group ids (was ``group=`` in mil and
  ``pl.col().sdc.representative``, as aggregate, ild, ilssdm, loss_report);
- ``threshold=`` an individual-risk threshold (was ``risk_above=`` in suppress_risky, as
  risk(), report() and sdcMicro's localSupp);
- the options of the risk / measure methods are keyword-only, as the masking methods' (a
  positional option still runs), and so is ``seed`` of ``pl.col().sdc.laplace``.

Each old form gives the identical result and one ``SDCDeprecationWarning`` (a
``DeprecationWarning``) naming the new one; the new form warns nothing; eager == lazy; a
Problem step, a recipe and a CLI flag with an old name still run. No code path of the
library, no docs page, notebook, tool or benchmark uses an old name (a static scan of every
call, doctests included).
"""
from __future__ import annotations

import ast
import doctest
import inspect
import json
import re
import warnings
from pathlib import Path

import polars as pl
import pytest

import polars_sdc
from polars_sdc import SDCError
from polars_sdc._signature import SDCDeprecationWarning
from polars_sdc.namespace import SDCExpr, SDCFrame

ROOT = Path(__file__).resolve().parents[1]

DF = pl.DataFrame({
    "a": ["x", "x", "x", "y", "y", "z", "x", "y"],
    "b": ["u", "u", "v", "v", "v", "u", "u", "v"],
    "s": ["p", "q", "p", "p", "q", "q", "p", "p"],
    "n": [1.0, 4.0, 2.0, 9.0, 7.0, 3.0, 12.0, 5.0],
    "w": [2.0, 3.0, 2.0, 5.0, 1.0, 4.0, 2.0, 3.0],
    "g": [0, 0, 0, 0, 1, 1, 1, 1],
})


def _quiet(call):
    """``call()`` with every warning recorded: (result, [warnings])."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = call()
    return out, [w for w in caught if issubclass(w.category, DeprecationWarning)]


def _same(a, b) -> bool:
    if isinstance(a, pl.LazyFrame):
        a, b = a.collect(), b.collect()
    if isinstance(a, pl.DataFrame):
        return a.equals(b)
    return a == b


#: hierarchies of DF's keys for generalize
H = {"a": {"x": ["xy", "*"], "y": ["xy", "*"], "z": ["z", "*"]}, "b": {"u": ["*"], "v": ["*"]}}


def _result(r):
    """What a GeneralizationResult released (it compares by identity)."""
    return r.frame.rows(), r.levels, r.suppressed, r.loss


#: (method, new call, old call): the old form of each renamed keyword and positional option
CASES = [
    ("recode", lambda ns: ns.recode(on="a", p=0.3), lambda ns: ns.recode(columns="a", p=0.3)),
    ("recode_map", lambda ns: ns.recode_map(on=["a", "b"], p=0.3), lambda ns: ns.recode_map(columns=["a", "b"], p=0.3)),
    ("top_bottom_code", lambda ns: ns.top_bottom_code(on="n", upper=6.0),
     lambda ns: ns.top_bottom_code(columns="n", upper=6.0)),
    ("cramers_v", lambda ns: ns.cramers_v(on=["a", "b"]), lambda ns: ns.cramers_v(columns=["a", "b"])),
    ("mil", lambda ns: ns.mil(2, "n", groups="g", standardize=False),
     lambda ns: ns.mil(2, "n", group="g", standardize=False)),
    ("suppress_risky", lambda ns: ns.suppress_risky(["a", "b"], threshold=0.4),
     lambda ns: ns.suppress_risky(["a", "b"], risk_above=0.4)),
    ("frequencies", lambda ns: ns.frequencies(["a", "b"], "w", alpha=0.5, household=None),
     lambda ns: ns.frequencies(["a", "b"], "w", 0.5, None)),
    ("individual_risk", lambda ns: ns.individual_risk(["a", "b"], "w", alpha=0.5, household=None, alpha_rule="sdcmicro"),
     lambda ns: ns.individual_risk(["a", "b"], "w", 0.5, None, "sdcmicro")),
    ("global_risk", lambda ns: ns.global_risk(["a", "b"], "w", alpha=0.5),
     lambda ns: ns.global_risk(["a", "b"], "w", 0.5)),
    ("suda", lambda ns: ns.suda(["a", "b", "s"], max_size=2, dis_fraction=0.1),
     lambda ns: ns.suda(["a", "b", "s"], 2, 0.1)),
    ("l_diversity", lambda ns: ns.l_diversity(["a"], "s", kind="recursive", c=3.0),
     lambda ns: ns.l_diversity(["a"], "s", "recursive", 3.0)),
    ("t_closeness", lambda ns: ns.t_closeness(["a"], "n", ordered=True), lambda ns: ns.t_closeness(["a"], "n", True)),
    ("k_anonymity", lambda ns: ns.k_anonymity(["a", "b"], alpha=0.5), lambda ns: ns.k_anonymity(["a", "b"], 0.5)),
    ("equivalence_classes", lambda ns: ns.equivalence_classes(["a", "b"], alpha=0.5),
     lambda ns: ns.equivalence_classes(["a", "b"], 0.5)),
    ("interval_disclosure", lambda ns: ns.interval_disclosure(DF.with_columns(pl.col("n") + 0.5), "n", k=0.1),
     lambda ns: ns.interval_disclosure(DF.with_columns(pl.col("n") + 0.5), "n", 0.1)),
    ("generalize", lambda ns: _result(ns.generalize(H, 2, suppression_limit=0.25, metric="entropy")),
     lambda ns: _result(ns.generalize(H, 2, 0.25, "entropy"))),
    ("generalize_release", lambda ns: ns.generalize_release(H, 2, suppression_limit=0.25, on=["a", "b"]),
     lambda ns: ns.generalize_release(H, 2, 0.25, "loss", None, None, None, ["a", "b"])),
]


@pytest.mark.parametrize("lazy", [False, True], ids=["eager", "lazy"])
@pytest.mark.parametrize("name, new, old", CASES, ids=[c[0] for c in CASES])
def test_the_old_form_gives_the_same_result_and_warns(name, new, old, lazy):
    frame = DF.lazy() if lazy else DF
    want, quiet = _quiet(lambda: new(frame.sdc))
    assert quiet == [], [str(w.message) for w in quiet]          # the new form warns nothing
    got, loud = _quiet(lambda: old(frame.sdc))
    assert _same(got, want)
    assert len(loud) == 1 and loud[0].category is SDCDeprecationWarning
    assert re.match(rf"{name}\(\): .* is deprecated; (use|give) \w+=", str(loud[0].message)), str(loud[0].message)
    assert loud[0].filename == __file__        # attributed to the caller's line, not to polars_sdc
    if lazy:   # eager == lazy, for the new form
        eager, _ = _quiet(lambda: new(DF.sdc))
        assert _same(want.collect() if isinstance(want, pl.LazyFrame) else want, eager)


def test_expression_forms():
    x = pl.col("n")
    want, quiet = _quiet(lambda: DF.select(x.sdc.representative(groups="g"), x.sdc.laplace(2.0, seed=7).alias("l")))
    got, loud = _quiet(lambda: DF.select(x.sdc.representative(group="g"), x.sdc.laplace(2.0, 7).alias("l")))
    assert quiet == [] and got.equals(want)
    assert [str(w.message) for w in loud] == [
        "representative(): group= is deprecated; use groups= (the same option)",
        "laplace(): seed given by position is deprecated; give seed="]
    assert want["l"].equals(DF.sdc.laplace(2.0, "n", seed=7)["n"].rename("l"))


def test_top_level_forms():
    want, quiet = _quiet(lambda: (polars_sdc.k_anonymity(DF, ["a", "b"], alpha=0.5),
                                  polars_sdc.equivalence_classes(DF, ["a"], alpha=0.5)))
    got, loud = _quiet(lambda: (polars_sdc.k_anonymity(DF, ["a", "b"], 0.5), polars_sdc.equivalence_classes(DF, ["a"], 0.5)))
    assert quiet == [] and got[0] == want[0] and got[1].equals(want[1]) and len(loud) == 2


def test_generalize_function_forms():
    from polars_sdc.generalize import generalize

    want, quiet = _quiet(lambda: _result(generalize(DF, H, 2, suppression_limit=0.25, metric="entropy")))
    got, loud = _quiet(lambda: _result(generalize(DF, H, 2, 0.25, "entropy")))
    assert quiet == [] and got == want and want[2] == 2      # two records suppressed (the z and a v alone)
    assert [str(w.message) for w in loud] == [
        "generalize(): suppression_limit, metric given by position is deprecated; give suppression_limit=, metric="]
    assert loud[0].filename == __file__
    assert str(inspect.signature(generalize)).startswith("(df: 'pl.DataFrame', hierarchies: 'Mapping[str, Any]', "
                                                         "k: 'int' = 2, *, suppression_limit")


def test_the_warnings_are_exported_at_the_top_level():
    from polars_sdc.generalize import SuppressionLabelWarning

    assert polars_sdc.SDCDeprecationWarning is SDCDeprecationWarning
    assert polars_sdc.SuppressionLabelWarning is SuppressionLabelWarning
    assert {"SDCDeprecationWarning", "SuppressionLabelWarning", "HouseholdWarning"} <= set(polars_sdc.__all__)


def test_suppression_label_warning_names_the_callers_line():
    """One key released with its suppressed records as null: the warning names the line that
    called generalize (eager, the function, lf.sdc.generalize) or collected the lazy release
    (in memory and streaming), not a line of polars_sdc."""
    from polars_sdc.generalize import generalize

    one = pl.DataFrame({"age": [21, 23, 25, 31, 33, 35, 47]})
    hs = {"age": {"rule": "intervals", "widths": [10], "start": 0}}
    opts = {"k": 3, "suppression_limit": 0.2, "suppressed_as": None}
    plan = one.lazy().sdc.generalize_release(hs, **opts)
    calls = [
        lambda: one.sdc.generalize(hs, **opts).frame,
        lambda: generalize(one, hs, **opts).frame,
        lambda: one.lazy().sdc.generalize(hs, **opts).frame,
        lambda: plan.collect(),
        lambda: plan.collect(engine="streaming"),
    ]
    for call in calls:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = call()
        assert out["age"].to_list() == ["20-29"] * 3 + ["30-39"] * 3 + [None]
        got = [(w.category, w.filename, w.lineno) for w in caught]
        assert got == [(polars_sdc.SuppressionLabelWarning, __file__, call.__code__.co_firstlineno)], got
        assert "every kept class also counts the 1 null record(s)" in str(caught[0].message)


def test_both_names_or_a_repeated_option_are_refused():
    with pytest.raises(SDCError, match=r"^recode\(\): give on= only \(columns= is its deprecated name\)$"):
        DF.sdc.recode(on="a", columns="a", p=0.3)
    with pytest.raises(TypeError, match="multiple values for argument 'alpha'"):
        DF.sdc.k_anonymity(["a"], 0.5, alpha=0.5)
    with pytest.raises(TypeError):   # more positional arguments than the method ever took
        DF.sdc.k_anonymity(["a"], 0.5, None, None, 1)
    with pytest.raises(SDCError, match=r"did you mean 'on'\?"):   # a misspelling suggests the new name only
        DF.sdc.top_bottom_code(oon="n", upper=3)


def test_signatures_show_the_new_names_only():
    assert "columns" not in inspect.signature(SDCFrame.recode).parameters
    assert list(inspect.signature(SDCFrame.mil).parameters)[3] == "groups"
    assert inspect.signature(SDCFrame.k_anonymity).parameters["alpha"].kind is inspect.Parameter.KEYWORD_ONLY
    assert inspect.signature(SDCExpr.laplace).parameters["seed"].kind is inspect.Parameter.KEYWORD_ONLY


# -- the process, recipes and the CLI --------------------------------------------------------------
def test_a_problem_step_with_an_old_name_runs_and_logs_the_new_name():
    p = DF.sdc.problem(keys=["a", "b"], numeric="n")
    new, quiet = _quiet(lambda: p.suppress_risky(threshold=0.4).top_bottom_code(on="n", upper=6.0))
    old, loud = _quiet(lambda: p.suppress_risky(risk_above=0.4).top_bottom_code(columns="n", upper=6.0))
    assert quiet == [] and len(loud) == 2
    assert old.release().equals(new.release())
    assert [s.options for s in old.steps] == [{"threshold": 0.4}, {"on": "n", "upper": 6.0}]
    assert old.to_recipe() == new.to_recipe()


OLD_RECIPE = """
[roles]
keys = ["a", "b"]

[[steps]]
operation = "recode"
columns = ["a"]
p = 0.3

[[steps]]
operation = "suppress_risky"
risk_above = 0.4
"""


def test_a_recipe_written_with_old_names_still_loads_and_runs():
    new_text = OLD_RECIPE.replace("columns =", "on =").replace("risk_above =", "threshold =")
    new, quiet = _quiet(lambda: polars_sdc.run_recipe(new_text, DF))
    old, loud = _quiet(lambda: polars_sdc.run_recipe(OLD_RECIPE, DF))
    assert quiet == [] and old.release().equals(new.release())
    assert [str(w.message) for w in loud] == [
        "recipe line 7: recode option columns is deprecated; write on (the same option)",
        "recipe line 12: suppress_risky option risk_above is deprecated; write threshold (the same option)"]
    assert polars_sdc.read_recipe(new_text).steps == _quiet(lambda: polars_sdc.read_recipe(OLD_RECIPE))[0].steps
    with pytest.raises(SDCError, match=r"recipe line 7: column 'zz' \(recode on\) is not in the frame"):
        _quiet(lambda: polars_sdc.run_recipe(OLD_RECIPE.replace('["a"]', '["zz"]'), DF))
    with pytest.raises(SDCError, match=r"recode: give on only \(columns is its deprecated name\)"):
        polars_sdc.read_recipe(OLD_RECIPE.replace("p = 0.3", "p = 0.3\non = [\"a\"]"))


def test_the_cli_reads_an_old_flag_with_a_note(tmp_path, capsys):
    from polars_sdc import cli

    src = tmp_path / "in.csv"
    DF.write_csv(src)
    outs = []
    for flag in ("--on", "--columns"):
        out = tmp_path / f"out{flag}.csv"
        assert cli.main(["top-bottom-code", str(src), str(out), flag, "n", "--upper", "6"]) == 0
        outs.append(pl.read_csv(out))
    assert outs[0].equals(outs[1]) and outs[0]["n"].max() == 6.0
    assert "polars-sdc: --columns is deprecated; use --on (the same option)" in capsys.readouterr().err
    assert cli.main(["suppress-risky", str(src), str(tmp_path / "r.csv"), "--on", "a,b", "--risk-above", "0.4"]) == 0
    assert pl.read_csv(tmp_path / "r.csv").equals(DF.sdc.suppress_risky(["a", "b"], threshold=0.4))
    assert cli.main(["suppress-risky", "--help"]) == 0
    shown = capsys.readouterr().out
    assert "--threshold" in shown and "--risk-above" not in shown     # the old flag is read, not shown
    assert cli.main(["suppress-risky", str(src), str(tmp_path / "r.csv"), "--on", "a,b"]) == 2
    assert "the following arguments are required: --threshold" in capsys.readouterr().err


# -- no old name anywhere in the code, the docs, the notebooks, tools and benchmarks ----------------
def _table():
    """{name: (old keyword names, most positional arguments of the df.sdc / pl.col().sdc method
    of that name, most of the polars_sdc / polars_sdc.spark function of that name (the frame
    first))} for the name of every deprecated callable (a name shared by two methods or two
    functions: the larger count, so a valid call is never flagged)."""
    from polars_sdc import spark

    def most(fn, skip):
        params = list(inspect.signature(fn).parameters.values())[skip:]
        return sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params)

    methods = [(n, getattr(c, n), 1) for c in (SDCFrame, SDCExpr) for n in dir(c) if not n.startswith("_")]
    functions = [(n, getattr(m, n), 0) for m, names in ((polars_sdc, polars_sdc.__all__), (spark, spark.__all__))
                 for n in names]
    deprecated = {n for n, fn, _ in methods + functions
                  if getattr(fn, "__sdc_renamed__", None) or getattr(fn, "__sdc_positional__", None)}
    table = {}
    for name in deprecated:
        old = {k for n, fn, _ in methods + functions if n == name for k in getattr(fn, "__sdc_renamed__", {})}
        ns = max((most(fn, s) for n, fn, s in methods if n == name and callable(fn)), default=0)
        fnc = max((most(fn, s) for n, fn, s in functions if n == name and inspect.isfunction(fn)), default=0)
        table[name] = (old, ns, fnc)
    return table


def _snippets():
    """(where, python source) of every library module and docstring example, docs page and
    README block, notebook code cell, tool and benchmark."""
    parser = doctest.DocTestParser()
    for path in sorted((ROOT / "polars_sdc").rglob("*.py")) + sorted((ROOT / "tools").glob("*.py")) \
            + sorted((ROOT / "benchmarks").glob("*.py")):
        if path.name == "_signature.py":   # the deprecation itself: its examples show an old name on purpose
            continue
        text = path.read_text()
        yield str(path.relative_to(ROOT)), text
        for i, ex in enumerate(parser.get_examples(text)):
            yield f"{path.relative_to(ROOT)} example at line {ex.lineno + 1}", ex.source
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        if path.name == "naming.md":   # the page of the deprecation: it shows the old names on purpose
            continue
        for m in re.finditer(r"```python\n(.*?)```", path.read_text(), flags=re.S):
            code = m.group(1)
            if code.lstrip().startswith(">>>"):
                code = "\n".join(ex.source for ex in parser.get_examples(code))
            yield f"{path.relative_to(ROOT)} block at offset {m.start()}", code
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        for i, cell in enumerate(json.loads(path.read_text())["cells"]):
            if cell["cell_type"] == "code":
                src = "".join(cell["source"])
                yield f"{path.relative_to(ROOT)} cell {i}", "\n".join(
                    ln for ln in src.splitlines() if not ln.lstrip().startswith(("%", "!")))


def _old_forms(source: str, table) -> list[str]:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
        if name not in table:
            continue
        old, ns, fnc = table[name]
        on = node.func.value if isinstance(node.func, ast.Attribute) else None
        namespace = (isinstance(on, ast.Attribute) and on.attr == "sdc") or (
            isinstance(on, ast.Call) and getattr(on.func, "id", getattr(on.func, "attr", None)) == "sdc")
        module = isinstance(on, ast.Name) and on.id in ("polars_sdc", "sdcs", "spark")
        found += [f"line {node.lineno}: {name}({k.arg}=...)" for k in node.keywords if k.arg in old]
        most = ns if namespace else fnc if module else None   # another receiver: a function of its own
        if most is not None and len(node.args) > most and not any(isinstance(a, ast.Starred) for a in node.args):
            found.append(f"line {node.lineno}: {name}(...) with {len(node.args)} positional arguments")
    return found


def test_no_code_docs_or_notebook_uses_an_old_name():
    table = _table()
    assert {"recode", "mil", "suppress_risky", "frequencies", "k_anonymity", "laplace"} <= set(table)
    assert _old_forms("df.sdc.recode(columns='a', p=0.1); sdcs.frequencies(sdf, 'a', 'w', 0.5)\n"
                      "sdc(lf).k_anonymity(['a'], 0.5); df.sdc.frequencies('a', 'w'); sdcs.frequencies(sdf, 'a', 'w')",
                      table) == ["line 1: recode(columns=...)", "line 1: frequencies(...) with 4 positional arguments",
                                 "line 2: k_anonymity(...) with 2 positional arguments"]
    problems = [f"{where}: {p}" for where, src in _snippets() for p in _old_forms(src, table)]
    assert not problems, "\n".join(problems)


def test_the_cli_runs_a_recipe_with_an_old_name_and_says_so(tmp_path):
    import subprocess
    import sys

    src, out, recipe = tmp_path / "in.csv", tmp_path / "out.csv", tmp_path / "r.toml"
    DF.write_csv(src)
    recipe.write_text(OLD_RECIPE)
    run = subprocess.run([sys.executable, "-m", "polars_sdc", "run", str(recipe), str(src), str(out)],
                         capture_output=True, text=True, env={**__import__("os").environ, "PYTHONPATH": str(ROOT)})
    assert run.returncode == 0, run.stderr
    assert "polars-sdc: warning: SDCDeprecationWarning: " in run.stderr
    assert "recode option columns is deprecated; write on (the same option)" in run.stderr
    want = _quiet(lambda: polars_sdc.run_recipe(OLD_RECIPE, pl.read_csv(src)))[0].release()
    assert pl.read_csv(out).equals(want)
