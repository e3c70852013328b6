"""`polars-sdc risk FILE --on ... [--weight w]`: reference numbers, errors as one line."""
import re

import pytest

from polars_sdc import cli, datasets


@pytest.fixture
def francdat_csv(tmp_path):
    path = tmp_path / "francdat.csv"
    datasets.francdat().write_csv(path)
    return path


def test_risk_command_francdat(capsys, tmp_path, francdat_csv):
    src = francdat_csv
    code = cli.main(["risk", str(src), "--on", "Key1,Key2,Key3,Key4", "--weight", "w", "--no-progress"])
    out, err = capsys.readouterr()
    assert code == 0, err
    value = lambda name: float(re.search(rf"^\s*{name}\s+(\S+)", out, re.M).group(1))  # noqa: E731
    assert value("global_risk") == pytest.approx(0.1208158, rel=1e-6)
    assert value("expected_reidentifications") == pytest.approx(0.966526, rel=1e-6)
    assert value("records_violating_k2") == 4
    assert value("records_with_msu") == 4
    # parquet input and no weights
    pq = tmp_path / "f.parquet"
    import polars as pl

    pl.read_csv(src).write_parquet(pq)
    assert cli.main(["risk", str(pq), "--on", "Key1,Key2", "--no-suda", "--no-progress"]) == 0
    out, _ = capsys.readouterr()
    assert "records_with_msu" not in out and "prosecutor_highest" in out


def test_risk_command_errors(capsys, francdat_csv):
    src = francdat_csv
    assert cli.main(["risk", str(src), "--on", "Key1,nope"]) == 2
    _, err = capsys.readouterr()
    assert err.count("\n") == 1 and "'nope'" in err
    assert cli.main(["risk", str(src), "--on", "Key1", "--weight", "Num1", "--no-suda", "--no-progress"]) == 0
    capsys.readouterr()                         # weights below 1 (calibrated weights) are accepted, as sdcMicro


def test_report_command(capsys, tmp_path):
    import numpy as np
    import polars as pl

    rng = np.random.default_rng(0)
    df = pl.DataFrame({"a": rng.integers(0, 5, 200), "b": rng.integers(0, 4, 200), "x": rng.normal(size=200)})
    df.write_csv(tmp_path / "o.csv")
    df.sdc.mdav(4, on="x").with_columns(pl.col("a") // 2).write_parquet(tmp_path / "m.parquet")
    out = tmp_path / "r.html"
    code = cli.main(["report", str(tmp_path / "o.csv"), str(tmp_path / "m.parquet"), "--on", "a,b",
                     "--numeric", "x", "--out", str(out), "--no-progress"])
    text, err = capsys.readouterr()
    assert code == 0, err
    assert out.exists() and "<img class='plot'" in out.read_text()
    assert re.search(r"k-anonymity \d+ -> \d+, global risk", text)
    assert cli.main(["report", str(tmp_path / "o.csv"), str(tmp_path / "m.parquet"), "--on", "a",
                     "--out", str(tmp_path / "r.txt")]) == 2
    assert "html" in capsys.readouterr().err
