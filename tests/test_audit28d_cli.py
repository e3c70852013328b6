"""audit28d: CSV columns written with a leading zero or sign in the command line.

Polars reads an integer column with a '+' sign ("+5") as String, and since this session the
CLI reads one with a leading zero ("007", "-05") as String too (codes, ZIPs). Named as a
numeric column of a masking command (--on of microaggregate, noise, add-noise, ...; a
recipe's numeric role; loss --on), such a column crashed the numeric-text check with an
IndexError traceback (every value is a number, so there was no 'first bad value' to name).
Now it is read as numbers there; untouched, it keeps its text.
"""
from __future__ import annotations

import json

import polars as pl
import pytest

import polars_sdc  # noqa: F401
from polars_sdc.cli import main

CSV = ("id,delta,x,zip\n"
       + "".join(f"{i:03d},{'+' if i % 3 else '-'}{i % 7},{i * 1.5},0{1000 + i % 4}\n" for i in range(1, 31)))


def _frame(path):
    return pl.read_csv(path, infer_schema=False)


@pytest.mark.parametrize(("command", "extra"), [
    ("microaggregate", ["--k", "3", "--on", "delta,x"]),
    ("anonymize", ["--k", "3", "--on", "delta,x"]),
    ("add-noise", ["--on", "delta", "--seed", "1"]),
    ("laplace", ["--on", "delta", "--phi", "1", "--seed", "1"]),
    ("noise", ["--on", "delta", "--phi", "1", "--seed", "1"]),
    ("rank-swap", ["--on", "delta", "--p", "0.5", "--seed", "1"]),
])
def test_a_signed_numeric_column_named_in_on_is_masked_as_numbers(tmp_path, command, extra):
    src, out = tmp_path / "in.csv", tmp_path / "out.csv"
    src.write_text(CSV)
    assert main([command, str(src), str(out), *extra]) == 0        # was an IndexError traceback
    got = _frame(out)
    # the masked column: numbers (no sign kept), the untouched code columns: their text
    assert got.get_column("delta").cast(pl.Float64).is_not_null().all()
    assert got.get_column("id").to_list() == _frame(src).get_column("id").to_list()
    assert got.get_column("zip").to_list() == _frame(src).get_column("zip").to_list()


def test_signed_numbers_microaggregate_as_the_numbers_they_are(tmp_path):
    src, out = tmp_path / "in.csv", tmp_path / "out.csv"
    src.write_text(CSV)
    assert main(["microaggregate", str(src), str(out), "--k", "3", "--on", "delta"]) == 0
    want = pl.read_csv(src, schema_overrides={"id": pl.String, "zip": pl.String,
                                                                         "delta": pl.String})
    want = want.with_columns(pl.col("delta").cast(pl.Int64)).sdc.microaggregate(3, on="delta")
    assert pl.read_csv(out, schema_overrides={"id": pl.String, "zip": pl.String}).get_column("delta").to_list() \
        == want.get_column("delta").to_list()


def test_a_leading_zero_column_named_in_on_is_read_as_numbers(tmp_path):
    src, out = tmp_path / "in.csv", tmp_path / "out.csv"
    src.write_text(CSV)
    assert main(["add-noise", str(src), str(out), "--on", "zip", "--seed", "3"]) == 0
    zips = pl.read_csv(out).get_column("zip")
    assert zips.dtype == pl.Float64 and (zips - 1002).abs().max() < 50   # noise around 1,001-1,004


def test_a_stray_token_is_still_refused(tmp_path, capsys):
    src, out = tmp_path / "in.csv", tmp_path / "out.csv"
    src.write_text(CSV.replace(",+1,", ",n/a,", 1))
    assert main(["add-noise", str(src), str(out), "--on", "delta", "--seed", "1"]) == 2
    assert "column 'delta': value 'n/a' (row 1) is not a number" in capsys.readouterr().err
    assert not out.exists()


def test_loss_reads_the_original_signed_column_as_numbers(tmp_path, capsys):
    src, out, rep = tmp_path / "in.csv", tmp_path / "out.csv", tmp_path / "r.json"
    src.write_text(CSV)
    assert main(["add-noise", str(src), str(out), "--on", "delta", "--seed", "1"]) == 0
    assert main(["loss", str(src), str(out), "--on", "delta", "--report", str(rep)]) == 0
    assert json.loads(rep.read_text())["rows"] == 30


def test_run_recipe_reads_its_numeric_role_as_the_command_does(tmp_path):
    src, out1, out2 = tmp_path / "in.csv", tmp_path / "o1.csv", tmp_path / "o2.csv"
    src.write_text(CSV)
    recipe = tmp_path / "r.toml"
    recipe.write_text('version = 1\n\n[roles]\nnumeric = ["delta"]\n\n[[steps]]\noperation = "microaggregate"\nk = 3\n')
    assert main(["run", str(recipe), str(src), str(out1)]) == 0
    assert main(["microaggregate", str(src), str(out2), "--k", "3", "--on", "delta"]) == 0
    # the recipe's step masked delta as numbers (was: as a nominal column of text '+5', '-3')
    assert out1.read_bytes() == out2.read_bytes()


def test_report_reads_the_numeric_columns_as_the_masking_command_did(tmp_path):
    # microaggregate read delta ('+5', '-3') as numbers; the report of that release refused
    # the same file: "column 'delta': dtype String is not numeric"
    src, out, page = tmp_path / "in.csv", tmp_path / "out.csv", tmp_path / "r.html"
    src.write_text(CSV)
    assert main(["microaggregate", str(src), str(out), "--k", "3", "--on", "delta,x"]) == 0
    assert main(["report", str(src), str(out), "--on", "zip", "--numeric", "delta,x", "--out", str(page)]) == 0
    assert "delta" in page.read_text()
