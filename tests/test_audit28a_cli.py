"""Audit 28a (CLI): a CSV column of codes with leading zeros (ZIPs, ids: "01234", "007") was
read as integers, so ``polars-sdc generalize`` found the ZIP "01234" "not in its hierarchy"
(the data held 1234) and every subcommand wrote an untouched id "007" back as 7."""
import polars as pl

from polars_sdc.cli import main


def test_zip_codes_with_leading_zeros_match_their_hierarchy_and_ids_are_kept(tmp_path):
    src = tmp_path / "z.csv"
    src.write_text("zip,id,n\n01234,007,1\n01234,008,2\n01299,009,3\n01299,010,4\n1299,011,5\n1299,012,6\n")
    (tmp_path / "zh.csv").write_text("01234;012**;*\n01299;012**;*\n1299;129*;*\n")
    out = tmp_path / "o.csv"
    assert main(["generalize", str(src), str(out), "--hierarchies", f"zip={tmp_path / 'zh.csv'}", "--k", "2"]) == 0
    text = out.read_text().splitlines()
    assert text[0] == "zip,id,n"
    # level 0: "01299" and "1299" are two codes (as integers both were 1299: one class of 4)
    assert [line.split(",")[0] for line in text[1:]] == ["01234", "01234", "01299", "01299", "1299", "1299"]
    assert [line.split(",")[1] for line in text[1:]] == ["007", "008", "009", "010", "011", "012"]
    assert pl.read_csv(out, schema_overrides={"zip": pl.String, "id": pl.String})["n"].to_list() == list(range(1, 7))


def test_plain_integer_columns_stay_integers(tmp_path):
    from polars_sdc.cli import _scan

    src = tmp_path / "a.csv"
    src.write_text("a,b,c\n0,10,-3\n5,0,0.5\n")
    assert _scan(str(src)).collect_schema() == pl.Schema({"a": pl.Int64, "b": pl.Int64, "c": pl.Float64})
    src.write_text("a,b\n-0,1\n+5,2\n")
    assert _scan(str(src)).collect_schema() == pl.Schema({"a": pl.String, "b": pl.Int64})
