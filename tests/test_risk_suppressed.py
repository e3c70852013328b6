"""The reading of a generalised release's suppressed records (``suppressed_as``) at the shell, and
risk() on a release with suppressed records: sdcMicro's measures read them as wildcards (fk = n),
ARX's risk models leave them out (ARX 3.9.2 skips the rows whose quasi-identifiers are all
suppressed), and ``suppressed_records`` counts them: the attack on a suppressed record itself (the
target known to be in the file, no kept class showing its keys) picks it with 1 / that count."""
import json

import polars as pl
import pytest

import polars_sdc  # noqa: F401
from polars_sdc import cli
from naive import reference_arx_sample_summary, reference_prosecutor_attack

ON = ["age", "sex"]
HIER = {"age": {"a": ["ab", "*"], "b": ["ab", "*"], "c": ["cd", "*"], "e": ["ef", "*"]}, "sex": {"f": ["*"]}}


@pytest.fixture()
def df():
    return pl.DataFrame({"age": list("aaabbbccce"), "sex": ["f"] * 10})


def test_one_suppressed_record_sdcmicro_and_arx_readings(df):
    """k is sdcMicro's smallest fk, where the suppressed record's missing keys are wildcards that
    match all 10 records: 3. ARX's prosecutor / journalist / marketer risks leave the suppressed
    record out (it was reported as a class of its own, prosecutor_highest 100 %): 3 classes of 3
    among 9 records. The attack on the suppressed record itself stays measurable: a prosecutor
    who knows the target is in the file finds no kept class with its keys and picks it among the
    suppressed_records = 1 (certainty)."""
    g = df.sdc.generalize(HIER, k=3, suppression_limit=0.1)
    assert g.suppressed == 1 and g.frame.row(9) == ("*", "*")
    r = g.frame.sdc.risk(ON, suppressed_as=g.suppressed_as, suda=False)
    assert r.per_record["fk"].to_list() == [3.0] * 9 + [10.0]
    assert r["k_anonymity"] == 3 and r["sample_uniques"] == 0
    ref = reference_arx_sample_summary(g.frame.select(ON).rows(), suppressed="*")
    assert ref["records"] == 9
    for key in ("prosecutor_highest", "prosecutor_average", "prosecutor_records_at_risk", "marketer_risk"):
        assert r[key] == pytest.approx(ref[key]), key
    assert r["prosecutor_highest"] == pytest.approx(1 / 3) and r["prosecutor_average"] == pytest.approx(3 / 9)
    assert r["suppressed_records"] == 1
    # the attack: the targets' own keys at the chosen levels (0, 0) against the release
    released = [tuple(None if v == "*" else v for v in row) for row in g.frame.select(ON).rows()]
    attack = reference_prosecutor_attack(df.select(ON).rows(), released)
    assert attack == [1 / 4] * 9 + [1.0] and attack[9] == 1 / r["suppressed_records"]
    # the null release (sdcMicro's local suppression, no label): the same sdcMicro measures; ARX
    # reads its nulls as a value (not ARX's suppressed "*"): the all-null record is a class there
    null = df.sdc.generalize(HIER, k=3, suppression_limit=0.1, suppressed_as=None).frame
    nr = null.sdc.risk(ON, suda=False)
    assert nr.per_record.equals(r.per_record) and nr["k_anonymity"] == 3
    assert nr["prosecutor_highest"] == 1.0 and "suppressed_records" not in nr.as_dict()
    lit = g.frame.sdc.risk(ON, suda=False)
    assert lit["k_anonymity"] == 1 and lit["prosecutor_highest"] == 1.0 and lit["sample_uniques"] == 1


def test_two_suppressed_records_prosecutor_one_half():
    df = pl.DataFrame({"age": list("aaabbbccceg"), "sex": ["f"] * 11})
    hier = {"age": {v: ["*"] for v in "abceg"}, "sex": {"f": ["*"]}}
    g = df.sdc.generalize(hier, k=3, suppression_limit=0.2)
    assert g.suppressed == 2 and g.levels == {"age": 0, "sex": 0}
    r = g.frame.sdc.risk(ON, suppressed_as="*", suda=False)
    assert r["k_anonymity"] == 3 and r["prosecutor_highest"] == pytest.approx(1 / 3)   # ARX: 3 classes of 3
    assert r["suppressed_records"] == 2
    released = [tuple(None if v == "*" else v for v in row) for row in g.frame.select(ON).rows()]
    assert max(reference_prosecutor_attack(df.select(ON).rows(), released)) == 0.5 == 1 / r["suppressed_records"]


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
    assert got["risk"]["prosecutor_highest"] == pytest.approx(1 / 3)     # ARX leaves the suppressed record out
    assert got["risk"]["suppressed_records"] == 1
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


def test_population_uniqueness_of_a_generalised_release_with_weights():
    """ARX's population models on a generalised release: the histogram of the kept records'
    classes, the sample n = kept records (sampling fraction n / N), N = every record's weight
    (the suppressed records belong to the population too); weights below 1 are no error."""
    import numpy as np
    from polars_sdc.risk.arx import population_uniqueness

    g = np.random.default_rng(3)
    n = 400
    df = pl.DataFrame({"age": g.choice(list("abcdefgh"), n, p=[.3, .2, .15, .1, .1, .08, .05, .02]),
                       "sex": g.choice(["f", "m"], n), "w": g.uniform(5, 15, n)})
    hier = {"age": {v: ["*"] for v in "abcdefgh"}, "sex": {"f": ["*"], "m": ["*"]}}
    r = df.sdc.generalize(hier, k=3, suppression_limit=0.05)
    assert r.suppressed > 0
    got = r.frame.sdc.risk(ON, weight="w", suppressed_as="*", suda=False)
    kept = r.frame.filter(~r.outliers)
    f = kept.group_by(ON).len()["len"].to_numpy()
    want = population_uniqueness(f, float(df["w"].sum()))
    assert got["suppressed_records"] == r.suppressed
    assert got["population_uniqueness"] == pytest.approx(want["population_uniqueness"], rel=1e-12, nan_ok=True)
    assert got["dankar_model"] == want["dankar_model"]
    F = kept.group_by(ON).agg(pl.col("w").sum())["w"]
    assert got["journalist_highest"] == pytest.approx(1 / F.min())
    # weights summing below the sample: no population model, and no error about a population size
    small = r.frame.with_columns(w=pl.lit(0.5))
    assert "population_uniqueness" not in small.sdc.risk(ON, weight="w", suppressed_as="*", suda=False).as_dict()
