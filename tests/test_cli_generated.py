"""The subcommands generated from polars_sdc.operations: every --help lists the options of the
Python function (same names, same defaults), and each command writes the file the library gives."""
from __future__ import annotations

import argparse
import json

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_sdc  # noqa: F401
from polars_sdc import cli
from polars_sdc.commands import options
from polars_sdc.operations import OPERATIONS

GENERATED = sorted(op.name for op in OPERATIONS.values() if op.command)
#: the options every file command adds (not the function's)
SKELETON = {"help", "null_values", "report"}


def subparser(command):
    parser = cli.build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices[command]


def test_the_masking_methods_all_have_a_command():
    assert {OPERATIONS[n].command for n in GENERATED} >= {
        "suppress", "pram", "recode-intervals", "rank-swap", "add-noise", "microaggregate", "recode", "laplace"}


@pytest.mark.parametrize("name", GENERATED)
def test_help_lists_the_python_options(name, capsys):
    op = OPERATIONS[name]
    parser = subparser(op.command)
    dests = {a.dest for a in parser._actions if a.option_strings}
    assert dests - SKELETON == set(op.names()) - {"null_values"}
    assert cli.main([op.command, "--help"]) == 0
    text = capsys.readouterr().out
    for o in op.options:
        flag = "--null-values" if o.name == "null_values" else "--" + o.name.replace("_", "-")
        assert flag in text, (name, flag)
        if o.required and o.name not in op.renamed.values():   # with an old flag: options() checks it
            assert next(a for a in parser._actions if a.dest == o.name).required


@pytest.mark.parametrize("name", GENERATED)
def test_a_flag_left_out_is_the_python_default(name):
    """Only the given flags reach the function, so its own defaults apply; the --report JSON
    lists the defaults the declaration read from the function's signature."""
    op = OPERATIONS[name]
    parser = subparser(op.command)
    required = []
    for o in op.options:
        if o.required:
            required += ["--" + o.name.replace("_", "-"), {"int": "3", "float": "0.5"}.get(o.kind, "a")]
    args = parser.parse_args(["in.csv", "out.csv", *required])
    assert set(options(op, args)) == {o.name for o in op.options if o.required}


@pytest.fixture(scope="module")
def frame():
    rng = np.random.default_rng(5)
    n = 300
    return pl.DataFrame({
        "id": np.arange(n),
        "region": rng.choice(["N", "S", "E", "W"], n),
        "sex": rng.choice(["f", "m"], n),
        "job": rng.choice(["a", "b", "c", "d", "e", "f", "g"], n, p=[0.4, 0.3, 0.2, 0.05, 0.03, 0.01, 0.01]),
        "age": rng.integers(16, 90, n),
        "income": rng.lognormal(10, 1, n),
        "wealth": rng.lognormal(11, 1.5, n),
        "w": rng.uniform(1, 50, n),
    })


CASES = [
    ("suppress", ["--k", "3", "--on", "region,sex,job", "--by", "sex"][:4], lambda d: d.sdc.suppress(3, ["region", "sex", "job"])),
    ("suppress", ["--k", "2", "--on", "region", "--on", "job", "--importance", "2,1"],
     lambda d: d.sdc.suppress(2, ["region", "job"], importance=[2, 1])),
    ("suppress_risky", ["--on", "region,sex,job", "--threshold", "0.1", "--weight", "w"],
     lambda d: d.sdc.suppress_risky(["region", "sex", "job"], threshold=0.1, weight="w")),
    ("pram", ["--on", "job", "--pd", "job=0.7", "--by", "sex", "--seed", "4"],
     lambda d: d.sdc.pram("job", pd={"job": 0.7}, by=["sex"], seed=4)),
    ("pram", ["--on", "sex", "--matrix", "[[0.9, 0.1], [0.2, 0.8]]", "--seed", "1", "--key", "id"],
     lambda d: d.sdc.pram("sex", matrix=[[0.9, 0.1], [0.2, 0.8]], seed=1, key="id")),
    ("rank_swap", ["--on", "income,wealth", "--p", "0.1", "--seed", "2"],
     lambda d: d.sdc.rank_swap(["income", "wealth"], p=0.1, seed=2)),
    ("add_noise", ["--on", "income,wealth", "--method", "moments", "--noise", "20", "--seed", "3"],
     lambda d: d.sdc.add_noise(["income", "wealth"], method="moments", noise=20.0, seed=3)),
    ("laplace", ["--phi", "income=100,wealth=1000", "--on", "income,wealth", "--seed", "9", "--clamp"],
     lambda d: d.sdc.laplace({"income": 100.0, "wealth": 1000.0}, ["income", "wealth"], seed=9, clamp=True)),
    ("laplace", ["--on", "age", "--k", "3", "--seed", "9"], lambda d: d.sdc.laplace(on=["age"], k=3, seed=9)),
    ("recode", ["--on", "job", "--p", "0.05", "--other", "Other"], lambda d: d.sdc.recode(["job"], 0.05, other="Other")),
    ("recode_intervals", ["--on", "age", "--breaks", "30,50,70"], lambda d: d.sdc.recode_intervals(["age"], breaks=[30.0, 50.0, 70.0])),
    ("recode_intervals", ["--on", "age,income", "--n", "4", "--method", "quantile", "--no-right-closed"],
     lambda d: d.sdc.recode_intervals(["age", "income"], n=4, method="quantile", right_closed=False)),
    ("top_bottom_code", ["--on", "income", "--upper-p", "0.05", "--replacement", "mean"],
     lambda d: d.sdc.top_bottom_code(["income"], upper_p=0.05, replacement="mean")),
    ("microaggregate", ["--k", "3", "--on", "income,wealth", "--method", "mhm", "--order", "kd", "--refine", "mil",
                        "--by", "sex", "--weights", "income=2,wealth=1"],
     lambda d: d.sdc.microaggregate(3, ["income", "wealth"], method="mhm", order="kd", refine="mil", by=["sex"],
                                    weights={"income": 2.0, "wealth": 1.0})),
    ("microaggregate", ["--k", "4", "--on", "age,job", "--no-standardize", "--integers", "float", "--group-column", "g"],
     lambda d: d.sdc.microaggregate(4, ["age", "job"], standardize=False, integers="float", group_column="g")),
    ("generalize", ["--hierarchies", '{"age": {"rule": "intervals", "widths": [10, 20], "start": 0}, '
                    '"sex": {"f": ["*"], "m": ["*"]}}', "--k", "5", "--suppression-limit", "0.02", "--on", "age,sex"],
     lambda d: d.sdc.generalize_release({"age": {"rule": "intervals", "widths": [10, 20], "start": 0},
                                         "sex": {"f": ["*"], "m": ["*"]}}, k=5, suppression_limit=0.02, on=["age", "sex"])),
]


@pytest.mark.parametrize("name, argv, want", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_command_writes_what_the_library_gives(tmp_path, capsys, frame, name, argv, want):
    src, out, rep = tmp_path / "in.parquet", tmp_path / "out.parquet", tmp_path / "r.json"
    frame.write_parquet(src)
    code = cli.main([OPERATIONS[name].command, str(src), str(out), *argv, "--report", str(rep)])
    stdout, err = capsys.readouterr()
    assert code == 0 and err == "", err
    expected = want(frame)
    got = pl.read_parquet(out)
    assert_frame_equal(got, expected)
    assert stdout.startswith(f"wrote {out}: 300 rows")
    doc = json.loads(rep.read_text())
    assert doc["command"] == OPERATIONS[name].command and doc["rows"] == 300
    changed = {d["variable"]: d["changed"] + d["suppressed"] for d in doc.get("variables", [])}
    for c in frame.columns:  # the report's per-variable counts are the file's
        a, b = frame[c], expected[c]
        if a.dtype != b.dtype:
            a, b = a.cast(pl.String), b.cast(pl.String)
        assert changed.get(c, 0) == int(a.ne_missing(b).sum()), c
    if name != "recode":
        assert set(OPERATIONS[name].defaults()) <= set(doc["parameters"])


def test_csv_in_and_out_and_null_values(tmp_path, capsys):
    src, out = tmp_path / "in.csv", tmp_path / "out.csv"
    src.write_text("k,x\na,1\na,2\nb,n/a\nb,4\nc,5\n")
    code = cli.main(["suppress", str(src), str(out), "--k", "2", "--on", "k", "--null-values", "n/a"])
    assert code == 0, capsys.readouterr().err
    assert pl.read_csv(out)["k"].to_list() == ["a", "a", "b", "b", None]
    # a numeric column holding a stray token is refused, nothing written
    code = cli.main(["rank-swap", str(src), str(tmp_path / "o2.csv"), "--on", "x", "--p", "0.5", "--seed", "1"])
    err = capsys.readouterr().err
    assert code == 2 and "'n/a'" in err and "--null-values" in err and not (tmp_path / "o2.csv").exists()


@pytest.mark.parametrize("argv, message", [
    (["suppress", "{src}", "{out}", "--k", "2", "--on", "nope"], "nope"),
    (["suppress", "{src}", "{out}", "--on", "k"], "the following arguments are required: --k"),
    (["pram", "{src}", "{out}", "--on", "k", "--pd", "x=y"], "--pd: pd of 'x' must be a number"),
    (["add-noise", "{src}", "{out}", "--on", "x", "--method", "gauss"], "invalid choice: 'gauss'"),
    (["recode-intervals", "{src}", "{out}", "--on", "x", "--breaks", "1,b"], "--breaks: expected numbers"),
    (["pram", "{src}", "{out}", "--on", "k", "--matrix", "[[1, 0]", "--seed", "1"], "--matrix: not valid JSON"),
    (["suppress", "{src}", "{src}", "--k", "2", "--on", "k"], "must differ from the input"),
])
def test_errors_are_one_line_and_write_nothing(tmp_path, capsys, argv, message):
    src = tmp_path / "in.parquet"
    pl.DataFrame({"k": ["a", "a", "b"], "x": [1.0, 2.0, 3.0]}).write_parquet(src)
    out = tmp_path / "o.parquet"
    code = cli.main([a.format(src=src, out=out) for a in argv])
    stdout, err = capsys.readouterr()
    assert code == 2 and stdout == "" and err.count("\n") == 1 and message in err, err
    assert not out.exists() and [p for p in tmp_path.iterdir() if p.name.endswith(".part")] == []


def test_risk_takes_household(tmp_path, capsys):
    src = tmp_path / "in.parquet"
    df = pl.DataFrame({"h": [1, 1, 2, 2, 3], "a": ["x", "y", "x", "x", "y"], "w": [5.0] * 5})
    df.write_parquet(src)
    assert cli.main(["risk", str(src), "--on", "a", "--weight", "w", "--household", "h", "--no-suda"]) == 0
    out = capsys.readouterr().out
    want = df.sdc.risk("a", weight="w", household="h", suda=False)["household_risk"]
    assert "Household risk (mean)" in out and f"{100 * want:.1f} %" in out


@pytest.mark.parametrize("argv", [
    ["suppress", "--k", "2", "--on", "region,sex"],
    ["rank-swap", "--on", "income", "--p", "0.1", "--seed", "1"],
    ["run", "RECIPE"],
])
def test_the_release_is_sunk_from_a_lazy_scan(tmp_path, capsys, sunk_frames, frame, argv):
    src, out = tmp_path / "in.parquet", tmp_path / "out.parquet"
    frame.write_parquet(src)
    if argv[0] == "run":
        recipe = tmp_path / "r.toml"
        recipe.write_text('[roles]\nkeys = ["region", "sex"]\n\n[[steps]]\noperation = "suppress"\nk = 2\n')
        argv = ["run", str(recipe), str(src), str(out)]
    else:
        argv = [argv[0], str(src), str(out), *argv[1:]]
    assert cli.main(argv) == 0, capsys.readouterr().err
    assert sunk_frames == [pl.LazyFrame]


def test_a_step_with_household_reports_k_in_households(tmp_path, capsys):
    """With --household a generic step's k-anonymity counts households (the unit a household
    release protects, as `anonymize --household` reports; it counted records), the records'
    count kept beside it. suppress --household keeps every combination in >= 2 households
    (not only 2 records); generalize --household holds >= 2 households per class."""
    df = pl.DataFrame({"hh": [1, 1, 1, 2, 2, 3, 3, 3], "a": ["x", "x", "x", "y", "y", "y", "z", "z"],
                       "b": [1, 1, 1, 2, 2, 2, 3, 3]})
    src, out, rep = tmp_path / "in.parquet", tmp_path / "out.parquet", tmp_path / "r.json"
    df.write_parquet(src)
    assert cli.main(["suppress", str(src), str(out), "--k", "2", "--on", "a,b", "--household", "hh",
                     "--report", str(rep)]) == 0
    got = json.loads(rep.read_text())
    rel = pl.read_parquet(out)
    # suppress --household now guarantees >= 2 households per class (it stopped at 2 records:
    # (x, 1) and (z, 3) were each one household's, reported "1 household (2 records)")
    srel, hk, rk = rel, rel.sdc.k_anonymity(["a", "b"], household="hh"), rel.sdc.k_anonymity(["a", "b"])
    assert got["k_anonymity"] == hk >= 2 and got["k_anonymity_records"] == rk >= hk
    assert got["k_anonymity_unit"] == "households"
    assert f"k-anonymity {hk} households ({rk} records) on a,b" in capsys.readouterr().out
    # without --household: records, as before
    assert cli.main(["suppress", str(src), str(out), "--k", "2", "--on", "a,b", "--report", str(rep)]) == 0
    got = json.loads(rep.read_text())
    assert got["k_anonymity"] == 2 and "k_anonymity_records" not in got
    assert "k-anonymity 2 on a,b" in capsys.readouterr().out
    # generalize --household: the release's classes hold >= 2 households; reported so
    ha, hb = tmp_path / "a.csv", tmp_path / "b.csv"
    ha.write_text("x;xy;*\ny;xy;*\nz;z;*\n", encoding="utf-8")
    hb.write_text("1;*\n2;*\n3;*\n", encoding="utf-8")
    # (the tops are '*': a label apart from them for suppressed records, tests/test_audit28_generalize_label.py)
    assert cli.main(["generalize", str(src), str(out), "--hierarchies", f"a={ha},b={hb}", "--k", "2",
                     "--on", "a,b", "--household", "hh", "--suppressed-as", "(s)", "--report", str(rep)]) == 0
    got = json.loads(rep.read_text())
    rel = pl.read_parquet(out)
    want = rel.sdc.k_anonymity(["a", "b"], household="hh", suppressed_as="(s)")
    assert got["k_anonymity"] == want >= 2 and got["k_anonymity_records"] > want
    assert f"k-anonymity {want} households ({got['k_anonymity_records']} records)" in capsys.readouterr().out
    # without --on: the hierarchies' columns are the keys (it reported no k-anonymity)
    assert cli.main(["generalize", str(src), str(out), "--hierarchies", f"a={ha},b={hb}", "--k", "2",
                     "--household", "hh", "--suppressed-as", "(s)", "--report", str(rep)]) == 0
    assert json.loads(rep.read_text())["k_anonymity"] == want
    capsys.readouterr()
    # polars-sdc run with a household role: the same unit
    recipe = tmp_path / "r.toml"
    recipe.write_text('[roles]\nkeys = ["a", "b"]\nhousehold = "hh"\n\n[[steps]]\noperation = "suppress"\nk = 2\n',
                      encoding="utf-8")
    assert cli.main(["run", str(recipe), str(src), str(out), "--report", str(rep)]) == 0
    got = json.loads(rep.read_text())
    assert (got["k_anonymity"], got["k_anonymity_records"], got["k_anonymity_unit"]) == (hk, rk, "households")
    assert pl.read_parquet(out).equals(srel)
    assert f"k-anonymity {hk} households ({rk} records) on a,b" in capsys.readouterr().out
