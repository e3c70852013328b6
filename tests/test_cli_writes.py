"""The CLI's files: every file it writes (outputs, --report JSON, the HTML report,
the demo's output) goes through one checked, atomic writer: an output that is an input (same
path, a symlink or a hard link to it) is refused before any work and the input is left as it
was; an output in a missing directory names the directory. Every subcommand reads its inputs
through one reader that refuses ragged CSVs and repeated column names."""
from __future__ import annotations

import os

import pytest

from polars_sdc import cli
import polars as pl

DATA = "a,b,x\n1,2,1.5\n1,2,2.5\n3,4,3.5\n3,4,4.5\n1,2,5.5\n3,4,6.5\n"


def _commands(src: str, target: str) -> dict[str, list[str]]:
    """Each subcommand with ``target`` as the file it writes (output, --report or --out)."""
    return {
        "anonymize": ["anonymize", src, target, "--k", "2", "--on", "x"],
        "anonymize-report": ["anonymize", src, "out.csv", "--k", "2", "--on", "x", "--report", target],
        "recode": ["recode", src, target, "--column", "a", "--p", "0.5"],
        "recode-report": ["recode", src, "out.csv", "--column", "a", "--p", "0.5", "--report", target],
        "noise": ["noise", src, target, "--on", "x", "--phi", "1", "--seed", "1"],
        "noise-report": ["noise", src, "out.csv", "--on", "x", "--phi", "1", "--seed", "1", "--report", target],
        "loss-report": ["loss", src, src, "--on", "x", "--report", target],
        "risk-report": ["risk", src, "--on", "a,b", "--no-suda", "--no-progress", "--report", target],
        "report": ["report", src, src, "--on", "a,b", "--out", target, "--no-progress"],
    }


def _target_name(name: str) -> str:
    return "t.json" if name.endswith("-report") else ("t.html" if name == "report" else "t.csv")


@pytest.mark.parametrize("kind", ["same", "symlink", "hardlink"])
@pytest.mark.parametrize("name", list(_commands("", "")))
def test_every_subcommand_refuses_to_write_over_its_input(tmp_path, monkeypatch, capsys, name, kind):
    monkeypatch.chdir(tmp_path)
    ext = _target_name(name).rsplit(".", 1)[1]
    src = tmp_path / "in.csv"
    src.write_text(DATA)
    if kind == "same":
        # the input itself, named with the extension the target needs
        src = tmp_path / f"in.{ext}" if ext != "csv" else src
        if ext != "csv":
            src.write_text(DATA)
        target = str(src)
        argv = _commands(str(tmp_path / "in.csv"), target)[name]
        if ext != "csv":                                  # the input must be the target itself
            pytest.skip("a .json / .html file cannot be a CSV input; covered by the link cases")
    else:
        target = str(tmp_path / _target_name(name))
        (os.symlink if kind == "symlink" else os.link)(src, target)
        argv = _commands(str(src), target)[name]
    before = src.read_bytes()
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert "must differ from the input file" in err and err.count("\n") == 1
    assert src.read_bytes() == before                     # the input untouched
    assert not [p for p in os.listdir(tmp_path) if p.endswith(".part")]


@pytest.mark.parametrize("name", list(_commands("", "")) + ["demo"])
def test_output_in_a_missing_directory_names_the_directory(tmp_path, monkeypatch, capsys, name):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "in.csv").write_text(DATA)
    target = str(tmp_path / "nope" / _target_name(name))
    argv = ["demo", "--out", target] if name == "demo" else _commands(str(tmp_path / "in.csv"), target)[name]
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert f"the directory {str(tmp_path / 'nope')!r} does not exist" in err
    assert ".part" not in err


def test_report_through_a_symlink_reproducer(tmp_path, monkeypatch, capsys):
    """26.3: `ln -s orig.csv rep.html; polars-sdc report orig.csv masked.csv --out rep.html`."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "orig.csv").write_text(DATA)
    (tmp_path / "masked.csv").write_text(DATA)
    os.symlink("orig.csv", tmp_path / "rep.html")
    assert cli.main(["report", "orig.csv", "masked.csv", "--on", "a,b", "--out", "rep.html", "--no-progress"]) == 2
    assert (tmp_path / "orig.csv").read_text() == DATA
    # a plain target is written atomically (no .part left) and is the HTML page
    assert cli.main(["report", "orig.csv", "masked.csv", "--on", "a,b", "--out", "ok.html", "--no-progress"]) == 0
    assert (tmp_path / "ok.html").read_text().lstrip().lower().startswith("<!doctype html")
    assert not [p for p in os.listdir(tmp_path) if p.endswith(".part")]


@pytest.mark.parametrize("text, message", [
    ("a,b\n1,2\n3,4,5\n6,7\n", "line 3 has 3 field(s), the header 2"),
    ("a,b\n1\n3,4\n", "line 2 has 1 field(s), the header 2"),
    ("a,a,b\n1,2,3\n4,5,6\n", "column 'a' appears twice in the header"),
])
@pytest.mark.parametrize("name", ["anonymize", "recode", "noise", "loss-report", "risk-report", "report"])
def test_one_reader_refuses_ragged_and_repeated_names(tmp_path, monkeypatch, capsys, text, message, name):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "in.csv").write_text(text)
    argv = _commands(str(tmp_path / "in.csv"), str(tmp_path / _target_name(name)))[name]
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_quoted_commas_are_not_ragged(tmp_path, capsys):
    src = tmp_path / "q.csv"
    src.write_text('a,b\n"x,y",1\n"x,y",1\nz,2\nz,2\n')
    assert cli.main(["risk", str(src), "--on", "a,b", "--no-suda", "--no-progress"]) == 0


# -- reproducers and property tests of the first reliability trial (issue 10) -----------------
@pytest.fixture
def csv_in(tmp_path):
    path = tmp_path / "in.csv"
    pl.DataFrame({"a": [float(i) for i in range(12)], "b": list(range(12))}).write_csv(path)
    return path


@pytest.mark.parametrize("kind", ["same", "dot", "symlink", "hardlink", "symlink_dir"])
def test_cli_never_overwrites_its_input(tmp_path, csv_in, capsys, kind):
    before = csv_in.read_bytes()
    if kind == "same":
        out = csv_in
    elif kind == "dot":
        out = tmp_path / "." / "in.csv"
    elif kind == "symlink":
        out = tmp_path / "link.csv"
        os.symlink(csv_in, out)
    elif kind == "hardlink":
        out = tmp_path / "hard.csv"
        os.link(csv_in, out)
    else:
        (tmp_path / "alias").symlink_to(tmp_path, target_is_directory=True)
        out = tmp_path / "alias" / "in.csv"
    code = cli.main(["anonymize", str(csv_in), str(out), "--k", "3", "--on", "a"])
    err = capsys.readouterr().err
    assert code == 2 and "must differ from the input" in err and err.count("\n") == 1
    assert csv_in.read_bytes() == before


def test_cli_writes_through_temp_file(tmp_path, csv_in, capsys):
    out = tmp_path / "out.csv"
    out.write_text("old\n")
    # a failing run (k too large) leaves the old output untouched and no temporary file
    assert cli.main(["anonymize", str(csv_in), str(out), "--k", "99", "--on", "a"]) == 2
    assert out.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.csv", "out.csv"]
    assert cli.main(["anonymize", str(csv_in), str(out), "--k", "3", "--on", "a"]) == 0
    assert pl.read_csv(out).height == 12
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.csv", "out.csv"]
    capsys.readouterr()
