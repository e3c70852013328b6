"""Audit 27b: the CLI on odd paths and inputs (spaces, unicode, symlinks, directories,
output == input, header-only files), exit code 2 and one line naming the problem."""
from __future__ import annotations

import os

import polars as pl
import pytest

import polars_sdc  # noqa: F401
from polars_sdc import SDCError
from polars_sdc.cli import main

DF = pl.DataFrame({"hid": [1, 1, 2, 3, 3, 4], "region": ["a", "a", "a", "b", "b", "b"],
                   "sex": ["m", "f", "m", "f", "m", "f"], "inc": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]})
RECIPE = '[roles]\nkeys = ["region", "sex"]\nhousehold = "hid"\n\n[[steps]]\noperation = "suppress"\nk = 2\n'


def _err(capsys) -> str:
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return err


def test_run_with_a_directory_as_recipe_says_so(tmp_path, capsys):
    # before: "recipe '...' not found" for a directory that exists
    src = tmp_path / "in.parquet"
    DF.write_parquet(src)
    d = tmp_path / "recipe.toml"
    d.mkdir()
    assert main(["run", str(d), str(src), str(tmp_path / "out.parquet")]) == 2
    assert "is a directory; give a .toml or .json file" in _err(capsys)
    with pytest.raises(SDCError, match="is a directory"):
        polars_sdc.run_recipe(d, DF)
    assert not (tmp_path / "out.parquet").exists()


def test_run_on_odd_paths_equals_python(tmp_path, capsys):
    home = tmp_path / "dir with space" / "ünïcode"
    home.mkdir(parents=True)
    src, rec, out = home / "in put.csv", home / "ré cipe.toml", home / "out put.parquet"
    DF.write_csv(src)
    rec.write_text(RECIPE, encoding="utf-8")
    link = home / "link.csv"
    os.symlink(src, link)
    assert main(["run", str(rec), str(link), str(out)]) == 0
    assert pl.read_parquet(out).equals(polars_sdc.run_recipe(RECIPE, DF).release())
    assert main(["run", str(rec), str(link), str(src)]) == 2        # the output is the input, through a symlink
    assert "must differ from the input" in _err(capsys)
    assert pl.read_csv(src).equals(DF)                               # untouched


def test_run_on_a_header_only_file(tmp_path, capsys):
    src = tmp_path / "h.csv"
    src.write_text("hid,region,sex,inc\n")
    assert main(["run", str(tmp_path / "r.toml"), str(src), str(tmp_path / "o.csv")]) == 2   # recipe missing
    assert "not found" in _err(capsys)
    (tmp_path / "r.toml").write_text(RECIPE)
    code = main(["run", str(tmp_path / "r.toml"), str(src), str(tmp_path / "o.csv")])
    # a header alone is named as such (before: a dtype refusal or an empty release, by command)
    assert code == 2 and "the file has a header but no rows" in _err(capsys)
    assert not (tmp_path / "o.csv").exists()


@pytest.mark.parametrize("extra", [["--sign-off", "s.html"], ["--report", "r.json"], ["--sign-off", "s.txt", "--report", "r.json"]])
def test_run_whose_sign_off_or_log_fails_writes_no_output(tmp_path, capsys, extra):
    """Before: the release was renamed into place, then the sign-off (or the --report log) of
    an empty release failed: exit code 2 with the output written. Now the measures run before
    the rename: nothing is written."""
    src = tmp_path / "h.parquet"        # no rows, typed columns (a header-only CSV is refused first)
    DF.head(0).write_parquet(src)
    (tmp_path / "r.toml").write_text(RECIPE)
    out = tmp_path / "o.csv"
    extra = [str(tmp_path / e) if "." in e else e for e in extra]
    assert main(["run", str(tmp_path / "r.toml"), str(src), str(out), *extra]) == 2
    assert "the frame is empty" in _err(capsys)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["h.parquet", "r.toml"]


def test_run_with_sign_off_and_report_still_writes_everything(tmp_path, capsys):
    import json

    src = tmp_path / "in.parquet"
    DF.write_parquet(src)
    (tmp_path / "r.toml").write_text(RECIPE)
    args = ["run", str(tmp_path / "r.toml"), str(src), str(tmp_path / "o.parquet"), "--sign-off",
            str(tmp_path / "s.txt"), "--report", str(tmp_path / "r.json")]
    assert main(args) == 0
    printed = capsys.readouterr().out
    p = polars_sdc.run_recipe(RECIPE, DF)
    assert pl.read_parquet(tmp_path / "o.parquet").equals(p.release())
    assert f"verdict: {p.sign_off().verdict}" in printed
    assert (tmp_path / "s.txt").read_text().startswith(repr(p.sign_off())[:40])
    rep = json.loads((tmp_path / "r.json").read_text())
    assert [s["operation"] for s in rep["log"]] == ["original", "suppress"]
    assert rep["seconds"]["log"] >= 0 and "sign_off" not in rep and "log_seconds" not in json.dumps(rep)


def test_a_library_warning_is_one_line_without_python_internals(tmp_path):
    """Before: Python's default warning format, e.g. '/.../polars_sdc/namespace/masking.py:631:
    UserWarning: ...' and the library's source line '  return self._frame_op(...'. A real CLI
    run (a subprocess: pytest records warnings instead of printing them)."""
    import subprocess
    import sys

    src = tmp_path / "one.csv"
    pl.DataFrame({"hid": [1, 2], "region": ["a", "a"]}).write_csv(src)     # no other area: no donor
    run = subprocess.run([sys.executable, "-m", "polars_sdc", "swap-records", str(src), str(tmp_path / "o.csv"),
                          "--household", "hid", "--hierarchy", "region", "--seed", "1", "--swaprate", "1",
                          "--k-anonymity", "0"], capture_output=True, text=True, env=os.environ.copy())
    assert run.returncode == 0, run.stderr
    err = [line for line in run.stderr.splitlines() if line.strip()]
    assert err == ["polars-sdc: warning: UserWarning: swap_records: no donor found for 1 household(s) selected for "
                   "swapping; they are released unswapped (swap_records_plan lists them with a null partner)"]


def test_a_caller_recording_warnings_still_gets_them(tmp_path):
    """A caller that records warnings (pytest.warns, catch_warnings(record=True)) gets the
    CLI's warnings (before b4830f1's fix: main's printer bypassed the record: 'DID NOT WARN');
    Python's own formatwarning / showwarning are back after main()."""
    import warnings

    src = tmp_path / "one.csv"
    pl.DataFrame({"hid": [1, 2], "region": ["a", "a"]}).write_csv(src)
    before = (warnings.formatwarning, warnings.showwarning)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        assert main(["swap-records", str(src), str(tmp_path / "o.csv"), "--household", "hid", "--hierarchy",
                     "region", "--seed", "1", "--swaprate", "1", "--k-anonymity", "0"]) == 0
    assert [(w.category, "no donor found for 1 household" in str(w.message)) for w in rec] == [(UserWarning, True)]
    assert (warnings.formatwarning, warnings.showwarning) == before
    assert warnings.formatwarning.__module__ == "warnings"
    with pytest.warns(UserWarning, match="no donor found for 1 household"):
        assert main(["swap-records", str(src), str(tmp_path / "o.csv"), "--household", "hid", "--hierarchy",
                     "region", "--seed", "1", "--swaprate", "1", "--k-anonymity", "0"]) == 0


@pytest.mark.parametrize("command", ["run", "pram", "anonymize"])
def test_an_output_ending_with_a_separator_is_refused_up_front(tmp_path, capsys, command):
    """Before: 'out.parquet/' passed the checks (its suffix is .parquet), the whole run went
    ahead and the final rename failed with "NotADirectoryError: ... '..xyz.part' ->
    'out.parquet/'"."""
    src = tmp_path / "in.parquet"
    DF.write_parquet(src)
    (tmp_path / "r.toml").write_text(RECIPE)
    out = str(tmp_path / "out.parquet") + "/"
    args = {"run": ["run", str(tmp_path / "r.toml"), str(src), out],
            "pram": ["pram", str(src), out, "--on", "region", "--seed", "1"],
            "anonymize": ["anonymize", str(src), out, "--on", "inc", "--k", "2"]}[command]
    assert main(args) == 2
    assert "ends with a path separator; give a file name" in _err(capsys)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.parquet", "r.toml"]


def test_a_csv_header_with_spaces_can_be_named(tmp_path, capsys):
    """'region, sex' (a space after the comma) makes the column ' sex'; the CLI strips what is
    typed, so before no spelling reached it: --on ' sex' became 'sex' and the error said "did
    you mean ' sex'?"."""
    src = tmp_path / "s.csv"
    src.write_text("hid, region, sex\n1,a,m\n1,a,f\n2,a,m\n3,b,f\n3,b,m\n4,b,f\n")
    frame = pl.read_csv(src)
    assert frame.columns == ["hid", " region", " sex"]
    for spelled in (["region,sex"], [" region, sex"]):
        assert main(["suppress", str(src), str(tmp_path / "o.csv"), "--k", "2", "--on", *spelled]) == 0
        want = frame.sdc.suppress(2, [" region", " sex"])
        assert pl.read_csv(tmp_path / "o.csv").equals(want)
    assert main(["swap-records", str(src), str(tmp_path / "o.csv"), "--household", "hid", "--hierarchy", "region",
                 "--seed", "1", "--k-anonymity", "0", "--swaprate", "1"]) == 0
    assert main(["risk", str(src), "--on", "region,sex", "--no-suda"]) == 0
    assert main(["anonymize", str(src), str(tmp_path / "o.csv"), "--on", "hid", "--k", "2"]) == 0
    capsys.readouterr()
    # an exact name still wins, and an unknown one is still an error
    assert main(["suppress", str(src), str(tmp_path / "o.csv"), "--k", "2", "--on", "nope"]) == 2
    assert "column 'nope'" in _err(capsys)


def test_a_csv_header_with_spaces_can_be_named_in_noise_loss_report(tmp_path, capsys):
    """The spaced header's columns (' inc', ' sex') reached by their typed names in `noise`,
    `loss`, `report` and `risk --weight/--household` too (before: "column 'inc': not in ...")."""
    src = tmp_path / "s.csv"
    src.write_text("hid, region, sex, inc, w\n1,a,m,10.5,2\n1,a,f,11.0,2\n2,a,m,9.0,3\n"
                   "3,b,f,12.5,1\n3,b,m,8.0,1\n4,b,f,7.5,4\n")
    frame = pl.read_csv(src)
    assert frame.columns == ["hid", " region", " sex", " inc", " w"]
    out = tmp_path / "n.csv"
    assert main(["noise", str(src), str(out), "--on", "inc", "--phi", "inc=1.5", "--seed", "3",
                 "--household", "hid"]) == 0
    want = frame.sdc.laplace({" inc": 1.5}, [" inc"], seed=3, household="hid")
    assert pl.read_csv(out).equals(want)
    assert main(["noise", str(src), str(out), "--on", "inc", "--phi", "1.5", "--seed", "3"]) == 0
    assert pl.read_csv(out).equals(frame.sdc.laplace({" inc": 1.5}, [" inc"], seed=3))
    assert main(["loss", str(src), str(out), "--on", "inc", "--measure", "sse"]) == 0
    assert "SSE/SST" in capsys.readouterr().out
    page = tmp_path / "r.html"
    assert main(["report", str(src), str(out), "--on", "region,sex", "--numeric", "inc", "--sensitive", "w",
                 "--household", "hid", "--out", str(page)]) == 0
    assert page.exists()
    assert main(["risk", str(src), "--on", "region,sex", "--weight", "w", "--household", "hid", "--no-suda"]) == 0
    capsys.readouterr()
    assert main(["loss", str(src), str(out), "--on", "nope", "--measure", "sse"]) == 2
    assert "column 'nope'" in _err(capsys)


@pytest.mark.parametrize("argv,want", [
    (["noise", "-", "o.csv", "--on", "inc", "--phi", "1", "--seed", "1"], "input '-': reading from stdin"),
    (["noise", "in.csv", "-", "--on", "inc", "--phi", "1", "--seed", "1"], "output '-': writing to stdout"),
    (["risk", "-", "--on", "region"], "input '-': reading from stdin"),
    (["loss", "in.csv", "-", "--on", "inc"], "input '-': reading from stdin"),
    (["suppress", "in.csv", "o.csv", "--on", "region", "--k", "2", "--report", "-"], "--report '-': writing to stdout"),
    (["report", "in.csv", "in.csv", "--on", "region", "--out", "-"], "--out '-': writing to stdout"),
    (["run", "-", "in.csv", "o.csv"], "recipe '-': reading from stdin"),
    (["run", "r.toml", "in.csv", "o.csv", "--sign-off", "-"], "sign-off '-': writing to stdout"),
])
def test_dash_is_named_as_stdin_or_stdout(tmp_path, capsys, monkeypatch, argv, want):
    """'-' (a pipe) is refused by name (before: "unknown extension '(none)'"): the commands read
    lazily by extension and write through a temporary file read back before the rename."""
    monkeypatch.chdir(tmp_path)
    DF.write_csv("in.csv")
    (tmp_path / "r.toml").write_text(RECIPE)
    assert main(argv) == 2
    err = _err(capsys)
    assert want in err and "is not supported; give a file path" in err and "(none)" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.csv", "r.toml"]


@pytest.mark.parametrize("argv", [
    ["noise", "h.csv", "o.csv", "--on", "inc", "--phi", "1", "--seed", "1"],
    ["suppress", "h.csv", "o.csv", "--on", "region", "--k", "2"],
    ["risk", "h.csv", "--on", "region"],
    ["anonymize", "h.csv", "o.csv", "--on", "inc", "--k", "2"],
])
def test_a_header_only_csv_says_it_has_no_rows(tmp_path, capsys, monkeypatch, argv):
    """Before: noise said "column 'inc': dtype String is not numeric", suppress wrote an empty
    file and printed 'k-anonymity 0', anonymize "k = 2 is larger than the number of rows (0)"."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "h.csv").write_text("hid,region,sex,inc\n\n")
    assert main(argv) == 2
    err = _err(capsys)
    assert "input 'h.csv': the file has a header but no rows" in err and "dtype" not in err
    assert not (tmp_path / "o.csv").exists()


def test_report_steps_error_names_the_flag(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    DF.write_csv("in.csv")
    (tmp_path / "x.json").write_text("{}")
    base = ["report", "in.csv", "in.csv", "--on", "region", "--out", "r.html"]
    assert main([*base, "--steps", "x.json"]) == 2
    assert "--steps file 'x.json': unknown extension '.json'; use .csv or .parquet" in _err(capsys)
    assert main([*base, "--steps", "nope.csv"]) == 2
    assert "--steps file 'nope.csv' not found" in _err(capsys)
    assert not (tmp_path / "r.html").exists()
