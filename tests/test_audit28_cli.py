"""The CLI when a caller makes warnings errors, and a header-only --steps file (audit 28).

``python -W error -m polars_sdc ...`` (or PYTHONWARNINGS=error) turned a library warning into
a Python traceback; now it is one line, ``polars-sdc: error: UserWarning: ...``, exit code 2,
no output written. A ``--steps`` CSV with a header and no rows was called "input" (the
message every input file gets); now the message names the flag."""
from __future__ import annotations

import os
import subprocess
import sys
import warnings

import polars as pl

import polars_sdc  # noqa: F401
from polars_sdc.cli import main

NO_DONOR = ("swap_records: no donor found for 1 household(s) selected for swapping; they are released unswapped "
            "(swap_records_plan lists them with a null partner)")


def _swap_args(tmp_path):
    src = tmp_path / "one.csv"
    pl.DataFrame({"hid": [1, 2], "region": ["a", "a"]}).write_csv(src)     # no other area: no donor
    return [str(src), str(tmp_path / "o.csv"), "--household", "hid", "--hierarchy", "region", "--seed", "1",
            "--swaprate", "1", "--k-anonymity", "0"]


def test_w_error_makes_a_library_warning_a_one_line_error(tmp_path):
    run = subprocess.run([sys.executable, "-W", "error", "-m", "polars_sdc", "swap-records", *_swap_args(tmp_path)],
                         capture_output=True, text=True, env=os.environ.copy())
    assert run.returncode == 2, run.stderr
    err = [line for line in run.stderr.splitlines() if line.strip()]
    assert err == [f"polars-sdc: error: UserWarning: {NO_DONOR}"]
    assert not (tmp_path / "o.csv").exists()


def test_an_error_filter_in_process_gives_exit_code_2(tmp_path, capsys):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert main(["swap-records", *_swap_args(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.strip() == f"polars-sdc: error: UserWarning: {NO_DONOR}"
    # without the filter the same run warns and succeeds (the warning printed by Python)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        assert main(["swap-records", *_swap_args(tmp_path)]) == 0
    assert [str(w.message) for w in seen] == [NO_DONOR]


def test_a_header_only_steps_csv_is_named_as_the_steps_file(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    pl.DataFrame({"region": ["a", "a", "b", "b"]}).write_csv("in.csv")
    (tmp_path / "log.csv").write_text("step,parameters\n")
    assert main(["report", "in.csv", "in.csv", "--on", "region", "--out", "r.html", "--steps", "log.csv"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == ("polars-sdc: error: --steps file 'log.csv': the file has a header but no rows; "
                           "there is nothing to read")
    assert not (tmp_path / "r.html").exists()
    (tmp_path / "dup.csv").write_text("step,step\nx,y\n")          # every shape check names it too
    assert main(["report", "in.csv", "in.csv", "--on", "region", "--out", "r.html", "--steps", "dup.csv"]) == 2
    assert "--steps file 'dup.csv': column 'step' appears twice" in capsys.readouterr().err
