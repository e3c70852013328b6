"""The reading of a generalised release's suppressed records (``suppressed_as``) at the shell, and
the ARX sample models of ``risk()`` on releases with missing keys (audit, session 24): a record
whose keys were suppressed matches every record (sdcMicro's wildcard), so its prosecutor risk is
1 / fk, not 1 (a class of its own) -- prosecutor_highest agrees with k_anonymity."""
import json

import numpy as np
import polars as pl
import pytest

import polars_sdc  # noqa: F401
from polars_sdc import cli
from polars_sdc.risk.arx import class_sizes, sample_models

ON = ["age", "sex"]
HIER = {"age": {"a": ["ab", "*"], "b": ["ab", "*"], "c": ["cd", "*"], "e": ["ef", "*"]}, "sex": {"f": ["*"]}}


@pytest.fixture()
def df():
    return pl.DataFrame({"age": list("aaabbbccce"), "sex": ["f"] * 10})


def test_risk_of_a_release_with_one_suppressed_record_states_the_values(df):
    g = df.sdc.generalize(HIER, k=3, suppression_limit=0.1)
    assert g.suppressed == 1 and g.frame.row(9) == ("*", "*")
    r = g.frame.sdc.risk(ON, suppressed_as=g.suppressed_as, suda=False)
    # fk: three classes of 3, the suppressed record matches all 10 (sdcMicro's wildcard)
    assert r.per_record["fk"].to_list() == [3.0] * 9 + [10.0]
    assert r["k_anonymity"] == 3 and r["sample_uniques"] == 0
    # the ARX sample models on the same reading: a record's prosecutor risk is 1 / fk
    assert r["prosecutor_highest"] == pytest.approx(1 / 3)
    assert r["prosecutor_average"] == pytest.approx((9 / 3 + 1 / 10) / 10)       # 0.31
    assert r["prosecutor_records_at_risk"] == pytest.approx(0.9)                  # 1/3 > 0.1; 1/10 is not
    assert r["marketer_risk"] == pytest.approx(0.31) and r["journalist_highest"] == pytest.approx(1 / 3)
    # the same numbers as for the null release (sdcMicro's local suppression)
    null = df.sdc.generalize(HIER, k=3, suppression_limit=0.1, suppressed_as=None).frame
    assert null.sdc.risk(ON, suda=False).as_dict() == r.as_dict()
    # read as written, the suppressed record is a class of its own: k 1 and prosecutor 100 %, consistently
    lit = g.frame.sdc.risk(ON, suda=False)
    assert lit["k_anonymity"] == 1 and lit["prosecutor_highest"] == 1.0 and lit["sample_uniques"] == 1


def test_prosecutor_highest_is_one_over_k_anonymity_with_missing_keys():
    # local suppression: (None, "v") matches ("x", "v") and ("y", "v") records
    d = pl.DataFrame({"a": ["x", "x", "y", "y", None, "x", "y"], "b": ["v", "v", "v", "v", "v", "u", "u"]})
    r = d.sdc.risk(["a", "b"], suda=False)
    fk = r.per_record["fk"].to_numpy()
    assert fk.tolist() == [3.0, 3.0, 3.0, 3.0, 5.0, 1.0, 1.0]
    assert r["prosecutor_highest"] == 1.0 == 1 / r["k_anonymity"]
    assert r["prosecutor_average"] == pytest.approx(np.mean(1 / fk))
    d2 = d.head(5)
    r2 = d2.sdc.risk(["a", "b"], suda=False)
    assert r2["k_anonymity"] == 3 and r2["prosecutor_highest"] == pytest.approx(1 / 3)
    # a release without missing keys: ARX's class-based values exactly
    full = d.drop_nulls()
    rf = full.sdc.risk(["a", "b"], suda=False)
    sizes = class_sizes(full, ["a", "b"])
    want = sample_models(sizes["f"].to_numpy(), sizes["F"].to_numpy(), 0.1)
    assert {m: rf[m] for m in want} == want


def test_cli_risk_and_report_take_suppressed_as(df, tmp_path, capsys):
    rel = tmp_path / "rel.csv"
    orig = tmp_path / "orig.csv"
    df.write_csv(orig)
    df.sdc.generalize(HIER, k=3, suppression_limit=0.1).frame.write_csv(rel)
    rep = tmp_path / "r.json"
    assert cli.main(["risk", str(rel), "--on", "age,sex", "--no-suda", "--report", str(rep)]) == 0
    assert json.loads(rep.read_text())["risk"]["k_anonymity"] == 1          # read as written
    assert cli.main(["risk", str(rel), "--on", "age,sex", "--no-suda", "--suppressed-as", "*",
                     "--report", str(rep)]) == 0
    got = json.loads(rep.read_text())
    assert got["risk"]["k_anonymity"] == 3 and got["parameters"]["suppressed_as"] == "*"
    assert got["risk"]["prosecutor_highest"] == pytest.approx(1 / 3)
    capsys.readouterr()
    page = tmp_path / "r.html"
    assert cli.main(["report", str(orig), str(rel), "--on", "age,sex", "--out", str(page), "--suppressed-as", "*"]) == 0
    assert "3-anonymous on 2 keys" in capsys.readouterr().out
    assert cli.main(["report", str(orig), str(rel), "--on", "age,sex", "--out", str(page)]) == 0
    assert "NOT 3-anonymous" in capsys.readouterr().out


def test_cli_generalize_reads_its_own_label(df, tmp_path, capsys):
    data, out, rep = tmp_path / "in.csv", tmp_path / "out.csv", tmp_path / "r.json"
    df.write_csv(data)
    hier = tmp_path / "age.csv"
    hier.write_text("a;ab;*\nb;ab;*\nc;cd;*\ne;ef;*\n", encoding="utf-8")
    sex = tmp_path / "sex.csv"
    sex.write_text("f;*\n", encoding="utf-8")
    for label in ("*", "(s)"):
        assert cli.main(["generalize", str(data), str(out), "--hierarchies", f"age={hier},sex={sex}", "--k", "3",
                         "--suppression-limit", "0.1", "--on", "age,sex", "--suppressed-as", label,
                         "--report", str(rep)]) == 0
        printed = capsys.readouterr().out
        assert "k-anonymity 3 (a suppressed record's keys match any value)" in printed, printed
        got = json.loads(rep.read_text())
        assert got["k_anonymity"] == 3 and got["suppressed"] == 2
    assert pl.read_csv(out).row(9) == ("(s)", "(s)")
