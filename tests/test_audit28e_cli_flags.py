"""A deprecated CLI flag given together with its new name is refused (audit 28 review: ``recode
--columns a --on b`` merged the two lists silently; Python refuses both keywords at once)."""
import polars as pl
import pytest

from polars_sdc import cli


@pytest.fixture()
def csv(tmp_path):
    path = tmp_path / "in.csv"
    pl.DataFrame({"a": ["x", "y", "x", "y", "x"], "b": ["u", "u", "v", "v", "u"]}).write_csv(path)
    return str(path), str(tmp_path / "out.csv")


@pytest.mark.parametrize("flags", [["--columns", "a", "--on", "b"], ["--on", "b", "--columns", "a"]])
def test_old_and_new_column_flags_together_are_refused(csv, flags, capsys):
    src, out = csv
    assert cli.main(["recode", src, out, *flags, "--p", "0.5"]) == 2
    assert "--columns and --on are the same option; give --on only" in capsys.readouterr().err


@pytest.mark.parametrize("flags", [["--threshold", "0.5", "--risk-above", "0.5"], ["--risk-above", "0.5", "--threshold", "0.5"]])
def test_old_and_new_threshold_flags_together_are_refused(csv, flags, capsys):
    src, out = csv
    assert cli.main(["suppress-risky", src, out, "--on", "a,b", *flags]) == 2
    assert "--risk-above and --threshold are the same option; give --threshold only" in capsys.readouterr().err


def test_old_flag_alone_and_repeated_still_runs(csv, capsys):
    src, out = csv
    assert cli.main(["recode", src, out, "--columns", "a", "--columns", "b", "--p", "0.5"]) == 0
    first = pl.read_csv(out)
    assert cli.main(["recode", src, out, "--on", "a,b", "--p", "0.5"]) == 0
    assert pl.read_csv(out).equals(first)
    assert cli.main(["suppress-risky", src, out, "--on", "a,b", "--risk-above", "0.5"]) == 0
    assert "--risk-above is deprecated; use --threshold" in capsys.readouterr().err
