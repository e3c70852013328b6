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
    value = lambda name: float(re.search(rf"^\s*{re.escape(name)}\s+([0-9.,]+)", out, re.M).group(1).replace(",", ""))  # noqa: E731
    assert value("Global risk (mean individual risk)") == pytest.approx(12.1)  # percent, 3 digits
    assert value("Expected re-identifications") == pytest.approx(0.967)
    assert value("Records in classes smaller than 3") == 8 and value("Sample uniques") == 4
    assert value("Records with a minimal sample unique (SUDA2)") == 4
    assert "global_risk" not in out  # plain names, not snake_case
    # parquet input and no weights
    pq = tmp_path / "f.parquet"
    import polars as pl

    pl.read_csv(src).write_parquet(pq)
    assert cli.main(["risk", str(pq), "--on", "Key1,Key2", "--no-suda", "--no-progress"]) == 0
    out, _ = capsys.readouterr()
    assert "minimal sample unique" not in out and "Prosecutor risk: highest" in out


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
    assert re.search(r"-anonymous on 2 keys; expected re-identifications [0-9.]+ -> [0-9.]+ \(global risk", text)
    assert cli.main(["report", str(tmp_path / "o.csv"), str(tmp_path / "m.parquet"), "--on", "a",
                     "--out", str(tmp_path / "r.txt")]) == 2
    assert "html" in capsys.readouterr().err


def test_anonymize_prints_the_global_risk_risk_prints(capsys, tmp_path):
    """One definition of the global risk: the mean individual risk (sdcMicro measure_risk), in
    percent; `anonymize` names the keys it used (the released classes, unweighted) and `risk`
    on those keys prints the same number."""
    import polars as pl

    src = tmp_path / "silc.parquet"
    datasets.eusilc().select("db040", "rb090", "age", "eqIncome").write_parquet(src)
    out = tmp_path / "k3.parquet"
    assert cli.main(["anonymize", str(src), str(out), "--k", "3", "--on", "age,eqIncome", "--by", "db040",
                     "--no-progress"]) == 0
    text = capsys.readouterr().out
    shown = re.search(r"global risk ([0-9.]+) % \(mean individual risk on the released classes of "
                      r"age,eqIncome,db040, unweighted: `polars-sdc risk --on age,eqIncome,db040` prints the same\)", text)
    assert shown, text
    assert cli.main(["risk", str(out), "--on", "age,eqIncome,db040", "--no-suda", "--no-progress"]) == 0
    risk_out = capsys.readouterr().out
    same = re.search(r"Global risk \(mean individual risk\)\s+([0-9.]+) %", risk_out).group(1)
    want = 100 * pl.read_parquet(out).sdc.global_risk(["age", "eqIncome", "db040"])["global_risk"]
    assert float(shown.group(1)) == pytest.approx(want, rel=1e-3) and float(same) == pytest.approx(want, rel=5e-3)


def test_report_command_with_a_step_log(capsys, tmp_path):
    import polars as pl

    df = datasets.eusilc().select("db040", "rb090", "hsize", "rb050")
    df.write_parquet(tmp_path / "o.parquet")
    masked = df.sdc.suppress(5, ["db040", "rb090", "hsize"])
    masked.write_parquet(tmp_path / "m.parquet")
    pl.DataFrame({"step": ["suppress"], "parameters": ["k=5, on=db040,rb090,hsize"]}).write_csv(tmp_path / "log.csv")
    out = tmp_path / "r.html"
    code = cli.main(["report", str(tmp_path / "o.parquet"), str(tmp_path / "m.parquet"), "--on", "db040,rb090,hsize",
                     "--weight", "rb050", "--steps", str(tmp_path / "log.csv"), "--k", "5", "--out", str(out),
                     "--no-progress"])
    text, err = capsys.readouterr()
    assert code == 0, err
    supp = sum(masked[c].null_count() for c in ("db040", "rb090", "hsize"))
    assert f"After 1 step (suppress): {masked.sdc.k_anonymity(['db040', 'rb090', 'hsize'])}-anonymous on 3 keys" in text
    assert f"{supp:,} values suppressed" in text and "k=5, on=db040,rb090,hsize" in out.read_text()


def test_risk_command_alpha_rule(capsys, tmp_path):
    """``--alpha-rule`` reaches ``measure_risk``: with alpha < 1 the record with a missing key
    has fk = 1.5, which the safe rule scores like fk = 1 and sdcMicro scores 0 (issue 26.8)."""
    import json

    import polars as pl

    df = pl.DataFrame({"a": [1, None, 2, 2, 2], "b": [1, 1, 5, 5, 5], "w": [2.0] * 5})
    df.write_csv(tmp_path / "f.csv")
    got = {}
    for rule in ("safe", "sdcmicro"):
        argv = ["risk", str(tmp_path / "f.csv"), "--on", "a,b", "--weight", "w", "--alpha", "0.5", "--no-suda",
                "--no-progress", "--report", str(tmp_path / f"{rule}.json")]
        assert cli.main(argv + ([] if rule == "safe" else ["--alpha-rule", rule])) == 0, capsys.readouterr().err
        capsys.readouterr()
        rep = json.loads((tmp_path / f"{rule}.json").read_text())
        assert rep["parameters"]["alpha_rule"] == rule
        got[rule] = rep["risk"]["global_risk"]
        want = df.sdc.risk(["a", "b"], weight="w", alpha=0.5, alpha_rule=rule, suda=False)["global_risk"]
        assert got[rule] == pytest.approx(want, rel=1e-12)
    assert got["sdcmicro"] < got["safe"]
    assert cli.main(["risk", str(tmp_path / "f.csv"), "--on", "a,b", "--alpha-rule", "nope"]) == 2
    assert "invalid choice: 'nope'" in capsys.readouterr().err


def test_report_command_categorical(capsys, tmp_path):
    """``--categorical`` adds PRAM'd columns to the report: the page equals the library's."""
    import numpy as np
    import polars as pl

    from polars_sdc.risk.report import report

    rng = np.random.default_rng(0)
    df = pl.DataFrame({"a": rng.integers(0, 5, 200), "b": rng.integers(0, 4, 200), "c": rng.choice(["u", "v", "w"], 200)})
    masked = df.sdc.pram("c", pd=0.7, seed=2)
    df.write_csv(tmp_path / "o.csv")
    masked.write_parquet(tmp_path / "m.parquet")
    out = tmp_path / "r.html"
    assert cli.main(["report", str(tmp_path / "o.csv"), str(tmp_path / "m.parquet"), "--on", "a,b",
                     "--categorical", "c", "--out", str(out), "--no-progress"]) == 0
    text = capsys.readouterr().out
    rep = report(df, masked, on=["a", "b"], categorical="c")
    changed = (df["c"] != masked["c"]).sum()
    assert changed > 0 and f"{changed} values changed in keys/categorical variables (c {changed})" in rep.verdict
    no_png = lambda html: re.sub(r"src='data:image/png;base64,[^']*'", "", html)  # noqa: E731  (pixels may differ)
    assert rep.verdict in text and no_png(out.read_text()) == no_png(rep.to_html())
