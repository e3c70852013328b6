"""Audit 28c (a new user's walkthrough): the command line.

- A randomised subcommand run without ``--seed`` drew a seed from the operating system and
  recorded it nowhere (neither the printed summary nor ``--report``'s ``parameters.seed``,
  which said ``null``): the release written could never be reproduced or audited. Now the
  drawn seed is printed and reported, and giving it back reproduces the file exactly.
- ``polars-sdc --help`` states the exit status (0, 2, 130) the docs promise.
"""
from __future__ import annotations

import json
import re

import polars as pl
import pytest

import polars_sdc  # noqa: F401
from polars_sdc.cli import main

DF = pl.DataFrame({"id": list(range(60)), "region": ["a", "b", "c"] * 20, "sex": ["m", "f"] * 30,
                   "inc": [float((7 * i) % 61) for i in range(60)]})

# every generated subcommand whose operation takes a seed, with its other required options
RANDOMISED = [
    ("pram", ["--on", "region"]),
    ("rank-swap", ["--on", "inc", "--p", "0.5"]),
    ("add-noise", ["--on", "inc"]),
    ("laplace", ["--on", "inc", "--phi", "2"]),
]


@pytest.mark.parametrize(("command", "extra"), RANDOMISED)
def test_a_drawn_seed_is_printed_and_reported_and_reproduces(tmp_path, capsys, command, extra):
    src = tmp_path / "in.parquet"
    DF.write_parquet(src)
    out1, out2, rep = tmp_path / "o1.parquet", tmp_path / "o2.parquet", tmp_path / "r.json"
    assert main([command, str(src), str(out1), *extra, "--report", str(rep)]) == 0
    printed = capsys.readouterr().out
    seed = json.loads(rep.read_text())["parameters"]["seed"]
    assert isinstance(seed, int) and seed >= 0                  # was None: nothing to reproduce from
    assert re.search(rf"\bseed {seed}\b.*--seed {seed}", printed), printed
    assert main([command, str(src), str(out2), *extra, "--seed", str(seed)]) == 0
    assert pl.read_parquet(out2).equals(pl.read_parquet(out1))
    # a given seed is used as given, and not announced as drawn
    assert not re.search(r"seed \d+ drawn", capsys.readouterr().out)
    assert not pl.read_parquet(out1).equals(DF)                 # something was masked


def test_every_randomised_subcommand_is_covered():
    """The list above is every generated subcommand whose operation has a ``seed`` option
    (swap-records needs a household file and is checked in test_record_swap's CLI tests)."""
    from polars_sdc.operations import OPERATIONS

    seeded = {op.command for op in OPERATIONS.values() if op.command and "seed" in op.names()}
    assert seeded - {"swap-records"} == {c for c, _ in RANDOMISED}


def test_swap_records_reports_its_drawn_seed(tmp_path, capsys):
    hh = pl.DataFrame({"hid": [h for h in range(40) for _ in range(2)],
                       "county": [f"c{h % 4}" for h in range(40) for _ in range(2)],
                       "sex": ["m", "f"] * 40})
    src, out, rep = tmp_path / "hh.parquet", tmp_path / "o.parquet", tmp_path / "r.json"
    hh.write_parquet(src)
    assert main(["swap-records", str(src), str(out), "--household", "hid", "--hierarchy", "county",
                 "--risk-variables", "sex", "--swaprate", "0.2", "--report", str(rep)]) == 0
    seed = json.loads(rep.read_text())["parameters"]["seed"]
    assert isinstance(seed, int)
    assert f"--seed {seed}" in capsys.readouterr().out


@pytest.mark.parametrize("command", [c for c, _ in RANDOMISED])
def test_seed_help_says_what_happens_without_it(capsys, command):
    assert main([command, "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "--seed N seed of the random draws (the same seed gives the same release) (default: drawn from the " \
           "operating system, printed and reported)" in text


def test_help_states_the_exit_status(capsys):
    assert main(["--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "exit status: 0 success; 2 an error (one line on stderr); 130 interrupted" in text
    # and what the tool does now: not only microaggregation, recoding and noise
    for word in ("suppression", "PRAM", "generalisation", "recipe"):
        assert word in text, word
