"""A generalised release in the rest of polars_sdc, end to end on ARX's Adult: the risk measures
(in a generalised release -- suppressed_as="*", passed by the problem, the report and the CLI
-- a record whose every key is "*" is a record with every key missing, sdcMicro's reading of a
locally suppressed record; in any other file "*" is a value), the ``generalize`` step of a problem and of a recipe (hierarchies
as ARX CSV paths or rules), ``polars-sdc generalize`` and ``polars-sdc run``, and the release
report (levels, records suppressed, metric)."""
import json
import math
from pathlib import Path

import polars as pl
import pytest

import polars_sdc
from polars_sdc import SDCError, cli, datasets

ON = ["sex", "age", "race", "marital-status", "education"]
DATA = Path(datasets.__file__).parent


@pytest.fixture(scope="module")
def adult():
    return datasets.arx_adult()


def _hierarchy_paths(tmp_path, hs, cols):
    out = {}
    for c in cols:
        p = tmp_path / f"adult_hierarchy_{c}.csv"
        p.write_text("\n".join(";".join(r) for r in hs[c].to_frame().rows()) + "\n", encoding="utf-8")
        out[c] = str(p)
    return out


def test_risk_reads_suppressed_records_as_missing_keys(adult):
    df, hs = adult
    r = df.sdc.generalize({c: hs[c] for c in ON}, k=5, suppression_limit=0.01)
    assert r.suppressed > 0
    star = r.frame
    null = df.sdc.generalize({c: hs[c] for c in ON}, k=5, suppression_limit=0.01, suppressed_as=None).frame
    assert null.filter(r.outliers).select(pl.all_horizontal(pl.col(ON).is_null())).to_series().all()
    # "*" and null give the same risk: the suppressed records match everybody (fk = n) and do not
    # raise the frequencies of the kept records (sdcMicro's rule with two or more keys)
    assert r.suppressed_as == "*"
    fk_star = star.sdc.frequencies(ON, suppressed_as="*")["fk"]
    assert fk_star.equals(null.sdc.frequencies(ON)["fk"])
    assert (fk_star.filter(r.outliers) == df.height).all()
    kept_fk = star.filter(~r.outliers).sdc.frequencies(ON)["fk"]
    assert fk_star.filter(~r.outliers).equals(kept_fk)
    assert star.sdc.k_anonymity(ON, suppressed_as="*") == null.sdc.k_anonymity(ON) == int(kept_fk.min()) >= 5
    ra, rb = star.sdc.risk(ON, suppressed_as="*"), null.sdc.risk(ON)
    assert ra.per_record.equals(rb.per_record)
    a, b = ra.as_dict(), rb.as_dict()
    sdcmicro = [k for k in b if not k.startswith(("prosecutor", "journalist", "marketer", "population", "dankar"))]
    assert {k: a[k] for k in sdcmicro} == {k: b[k] for k in sdcmicro}
    assert a["sample_uniques"] == 0 and a["records_with_msu"] == 0
    # ARX's models leave the suppressed records out (the null release's nulls are a value there)
    assert a["suppressed_records"] == r.suppressed
    assert a["prosecutor_highest"] == 1 / int(kept_fk.min())
    assert a["prosecutor_average"] == pytest.approx(star.filter(~r.outliers).select(ON).n_unique() / (df.height - r.suppressed))
    # read as written (no suppressed_as), the suppressed records are one class of their own
    assert star.sdc.frequencies(ON)["fk"].filter(r.outliers).to_list() == [float(r.suppressed)] * r.suppressed
    # a "*" in only some keys is a value (the top label shared by every record at that level)
    top = pl.DataFrame({"a": ["*", "*", "*"], "b": ["x", "x", "y"]})
    assert top.sdc.frequencies(["a", "b"], suppressed_as="*")["fk"].to_list() == [2.0, 2.0, 1.0]


def test_generalize_step_of_a_problem_and_its_report(adult):
    df, hs = adult
    p = df.sdc.problem(keys=ON, sensitive="occupation")
    q = p.generalize(hierarchies={c: hs[c] for c in ON}, k=5, suppression_limit=0.01)
    direct = df.sdc.generalize({c: hs[c] for c in ON}, k=5, suppression_limit=0.01)
    assert q.release().equals(direct.frame)
    g = q.generalization()
    assert g.levels == direct.levels and g.suppressed == direct.suppressed and g.loss == direct.loss
    log = q.log
    assert log["k_anonymity"].to_list()[-1] >= 5
    rep = q.sign_off()
    levels = rep.table("generalization")
    assert levels["quasi-identifier"].to_list() == ON
    assert levels["level"].to_list() == list(direct.levels.values())
    search = dict(rep.table("generalization-search").rows())
    assert search["records suppressed"] == str(direct.suppressed) and search["metric"] == "loss"
    assert f"{direct.suppressed} records suppressed" in rep.verdict and "5-anonymous" in rep.verdict
    assert "missing values as wildcards" in rep.verdict
    # the suppressed records' keys count as suppressed values, the others' new labels as changed
    per_var = {v: (s_, c_) for v, _, s_, c_ in rep.table("variables").select("variable", "role", "suppressed", "changed").rows()}
    assert per_var["age"][0] == direct.suppressed
    assert per_var["age"][1] == int((direct.frame["age"] != df["age"].cast(pl.String)).filter(~direct.outliers).sum())
    assert log["suppressed"].to_list()[-1] == direct.suppressed * len(ON)
    # the lazy problem gives the same release and report facts
    lq = df.lazy().sdc.problem(keys=ON).generalize(hierarchies={c: hs[c] for c in ON}, k=5, suppression_limit=0.01)
    assert isinstance(lq.release(), pl.LazyFrame)
    assert lq.release().collect().equals(direct.frame)
    assert lq.generalization().levels == direct.levels


def test_recipe_with_csv_paths_and_rules(adult, tmp_path):
    df, hs = adult
    paths = _hierarchy_paths(tmp_path, hs, ["sex", "race", "marital-status", "education"])
    hier = {**paths, "age": {"rule": "intervals", "widths": [5, 10, 20], "start": 0}}
    q = df.sdc.problem(keys=ON).generalize(hierarchies=hier, k=5, suppression_limit=0.02, metric="precision")
    text = q.to_recipe()
    assert 'operation = "generalize"' in text and 'rule = "intervals"' in text
    again = polars_sdc.run_recipe(text, df.lazy())
    assert again.release().collect().equals(q.release())
    # the rule builds the same age hierarchy as ARX's file (its labels are ARX's "35-39" form)
    ages = df["age"].unique().to_list()
    built = polars_sdc.generalize.Hierarchy.intervals(ages, widths=(5, 10, 20), start=0)
    assert built.labels(3)[:3] == [hs["age"].labels(3)[hs["age"].values.index(str(a))] for a in sorted(ages)[:3]]
    # JSON recipe with a null suppressed_as
    jtext = q.undo().generalize(hierarchies=hier, k=5, suppression_limit=0.02, suppressed_as=None).to_recipe(format="json")
    rel = polars_sdc.run_recipe(jtext, df).release()
    assert rel.select(pl.col(ON).null_count()).row(0)[0] > 0
    with pytest.raises(SDCError, match="hierarchy rule 'buckets' is not one of"):
        df.sdc.problem(keys=ON).generalize(hierarchies={**hier, "age": {"rule": "buckets"}})


def test_cli_generalize_and_run(adult, tmp_path, capsys):
    df, hs = adult
    data = tmp_path / "adult.csv"
    df.write_csv(data)
    paths = _hierarchy_paths(tmp_path, hs, ON)
    out = tmp_path / "out.csv"
    report = tmp_path / "report.json"
    pairs = ",".join(f"{c}={p}" for c, p in paths.items())
    code = cli.main(["generalize", str(data), str(out), "--hierarchies", pairs, "--k", "5",
                     "--suppression-limit", "0.01", "--on", ",".join(ON), "--report", str(report)])
    assert code == 0
    printed = capsys.readouterr().out
    assert "k-anonymity" in printed
    direct = df.sdc.generalize({c: hs[c] for c in ON}, k=5, suppression_limit=0.01)
    released = pl.read_csv(out, infer_schema_length=0)
    assert released.select(ON).equals(direct.frame.select(ON))
    rep = json.loads(report.read_text())
    assert rep["k_anonymity"] >= 5 and rep["parameters"]["k"] == 5 and rep["rows"] == df.height
    assert rep["levels"] == direct.levels and rep["records_suppressed"] == direct.suppressed
    assert rep["metric"] == "loss" and rep["metric_value"] == direct.loss
    assert f"{direct.suppressed} record(s) suppressed" in printed
    # polars-sdc run with a TOML recipe and a sign-off
    recipe = tmp_path / "recipe.toml"
    hier_toml = ", ".join(f'"{c}" = "{p}"' for c, p in paths.items())
    recipe.write_text(f'version = 1\n\n[roles]\nkeys = {json.dumps(ON)}\n\n[[steps]]\noperation = "generalize"\n'
                      f'hierarchies = {{ {hier_toml} }}\nk = 5\nsuppression_limit = 0.01\n', encoding="utf-8")
    out2 = tmp_path / "out2.csv"
    signoff = tmp_path / "signoff.txt"
    assert cli.main(["run", str(recipe), str(data), str(out2), "--sign-off", str(signoff)]) == 0
    assert pl.read_csv(out2, infer_schema_length=0).select(ON).equals(direct.frame.select(ON))
    text = signoff.read_text()
    assert "Full-domain generalisation" in text and f"{direct.suppressed} records suppressed" in text


def test_cli_generalize_bad_hierarchy_text(adult, tmp_path, capsys):
    df, _ = adult
    data = tmp_path / "a.csv"
    df.head(20).write_csv(data)
    code = cli.main(["generalize", str(data), str(tmp_path / "o.csv"), "--hierarchies", "age"])
    assert code != 0
    assert "COLUMN=PATH" in capsys.readouterr().err


@pytest.mark.parametrize("dtype", [pl.String, pl.Categorical, pl.Enum(["x", "y", "*"])])
def test_all_star_records_are_missing_keys_for_every_string_dtype(dtype):
    from hypothesis import given, settings, strategies as st

    @settings(max_examples=40, deadline=None)
    @given(st.lists(st.tuples(st.sampled_from(["x", "y", "*"]), st.sampled_from(["x", "y", "*"])), min_size=1, max_size=25))
    def check(rows):
        d = pl.DataFrame({"a": [r[0] for r in rows], "b": [r[1] for r in rows]}).with_columns(pl.all().cast(dtype))
        star = [r == ("*", "*") for r in rows]
        as_null = d.with_columns(pl.when(pl.Series(star)).then(None).otherwise(pl.col(c)).alias(c) for c in "ab")
        fk = d.sdc.frequencies(["a", "b"], suppressed_as="*")["fk"]
        assert fk.equals(as_null.sdc.frequencies(["a", "b"])["fk"])
        assert d.sdc.k_anonymity(["a", "b"], suppressed_as="*") == as_null.sdc.k_anonymity(["a", "b"])
        assert (fk.filter(pl.Series(star)) == len(rows)).all()
        # read as written (not a generalised release): "*" is a value like "x"
        literal = d.sdc.frequencies(["a", "b"])["fk"]
        want = [float(rows.count(r)) for r in rows]
        assert literal.to_list() == want and d.sdc.k_anonymity(["a", "b"]) == min(want)

    check()
    # a numeric key: no record can be all "*", nothing changes
    mixed = pl.DataFrame({"a": ["*", "*", "x"], "n": [1, 1, 2]})
    assert mixed.sdc.frequencies(["a", "n"], suppressed_as="*")["fk"].to_list() == [2.0, 2.0, 1.0]


def test_cli_generalize_with_hierarchical_t_closeness(adult, tmp_path, capsys):
    """The sensitive column's hierarchy comes with the others; ARX's JUnit optimum."""
    df, hs = adult
    data = tmp_path / "adult.parquet"
    df.write_parquet(data)
    paths = _hierarchy_paths(tmp_path, hs, list(hs))
    out = tmp_path / "out.parquet"
    code = cli.main(["generalize", str(data), str(out), "--hierarchies", ",".join(f"{c}={p}" for c, p in paths.items()),
                     "--k", "5", "--sensitive", "occupation", "--t-closeness", "0.2", "--t-distance", "hierarchical",
                     "--metric", "entropy_monotone"])
    assert code == 0
    printed = capsys.readouterr().out
    assert "levels sex 0, age 4, race 1, marital-status 1, education 3, native-country 2, workclass 2, salary-class 1" in printed
    assert "entropy_monotone 398400.0742" in printed
    released = pl.read_parquet(out)
    assert released["occupation"].equals(df["occupation"])  # the sensitive column is released as it is


# -- audit (session 24): a generalize step never releases a class < k within a declared stratum
def test_generalize_step_in_a_problem_with_strata_keeps_k_within_every_stratum():
    from polars_sdc.generalize import Hierarchy

    df = pl.DataFrame({"age": [21, 22, 23, 24, 25, 26, 37, 38, 39, 31, 32, 33], "sex": ["m"] * 12,
                       "region": ["N", "N", "N", "S", "S", "S", "N", "N", "S", "S", "N", "N"]})
    hs = {"age": {"rule": "intervals", "widths": [10, 20], "start": 0}, "sex": {"m": ["*"]}}
    p = df.sdc.problem(keys=["age", "sex"], strata="region")
    # over the whole file (age 20-29 / 30-39) the classes hold 6, within region S the 30-39 class 2 < k
    with pytest.raises(SDCError, match="generalize: the strata role \\('region'\\).*fewer than k"):
        p.generalize(hierarchies=hs, k=3)
    # the strata among the quasi-identifiers with a one-level hierarchy: k holds within each stratum
    q = p.generalize(hierarchies={**hs, "region": Hierarchy([["N", "S"]])}, k=3, on=["age", "sex", "region"])
    out = q.release()
    assert out.group_by("age", "sex", "region").len()["len"].min() >= 3
    assert out["region"].to_list() == df["region"].to_list()


def test_a_genuine_all_star_record_of_an_ungeneralised_file_is_counted_as_unique():
    # "*" as a genuine code ("not applicable" in occupation and industry): a unique, for every measure
    on = ["occupation", "industry"]
    df = pl.DataFrame({"occupation": ["a", "a", "a", "b", "b", "b", "*"],
                       "industry": ["u", "u", "u", "v", "v", "v", "*"]})
    assert df.sdc.suppress(3, on).row(6) == (None, None)   # suppress: a unique
    assert df.sdc.k_anonymity(on) == 1
    assert df.sdc.frequencies(on)["fk"].to_list() == [3.0] * 6 + [1.0]
    assert df.sdc.individual_risk(on)["risk"].to_list()[6] == 1.0
    r = df.sdc.risk(on)
    assert r["k_anonymity"] == 1 and r["sample_uniques"] == 1 and r["prosecutor_highest"] == 1.0
    assert df.sdc.equivalence_classes(on).rows()[0] == ("*", "*", 1)
    assert df.lazy().sdc.frequencies(on).collect()["fk"].to_list()[6] == 1.0
    # the same file declared a generalised release: the record matches everybody
    assert df.sdc.k_anonymity(on, suppressed_as="*") == 3
    assert df.sdc.frequencies(on, suppressed_as="*")["fk"].to_list() == [3.0] * 6 + [7.0]
    assert df.sdc.suda(on, suppressed_as="*")["suda"].to_list() == df.sdc.suda(on)["suda"].to_list()[:6] + [0.0]
    # a problem reads literally until a generalize step, then with that step's label
    p = df.sdc.problem(keys=on)
    assert p.suppressed_as is None and p.log["k_anonymity"].to_list() == [1.0]
    with pytest.raises(SDCError, match="suppressed_as must be None"):
        df.sdc.k_anonymity(on, suppressed_as="")
    with pytest.raises(SDCError, match="suppressed_as must be None"):
        df.lazy().sdc.frequencies(on, suppressed_as=1)


def test_a_problem_and_its_report_read_the_label_of_its_generalize_step():
    on = ["age", "sex"]
    df = pl.DataFrame({"age": list("aaabbbccce"), "sex": ["f"] * 10})
    hier = {"age": {"a": ["ab", "*"], "b": ["ab", "*"], "c": ["cd", "*"], "e": ["ef", "*"]}, "sex": {"f": ["*"]}}
    # a label other than "*": the problem, the log and the sign-off read it; "*" is then a value
    q = df.sdc.problem(keys=on).generalize(hierarchies=hier, k=3, suppression_limit=0.1, suppressed_as="(s)")
    g = q.generalization()
    assert q.suppressed_as == "(s)" and g.suppressed_as == "(s)" and g.suppressed == 1 and g.levels == {"age": 0, "sex": 0}
    rel = q.release()
    assert rel.row(9) == ("(s)", "(s)")
    assert q.risk()["k_anonymity"] == rel.sdc.k_anonymity(on, suppressed_as="(s)") == 3
    assert rel.sdc.k_anonymity(on) == 1                      # read as written: the suppressed record is unique
    assert q.log["k_anonymity"].to_list() == [1.0, 3.0]
    assert q.log["suppressed"].to_list() == [0, 2]
    rep = q.sign_off()
    assert rep.verdict.startswith("After 1 step (generalize): 3-anonymous"), rep.verdict
    # polars_sdc.report of the same pair: literal without the label, as the problem with it
    from polars_sdc import report

    plain = report(df, rel, on=on, k=3).verdict
    assert plain.startswith("NOT 3-anonymous") and "smallest class 1" in plain and "0 values suppressed" in plain
    for rep in (report(df, rel, on=on, k=3, suppressed_as="(s)"), report(df, rel, on=on, k=3, generalization=g)):
        assert rep.verdict.startswith("3-anonymous on 2 keys") and "2 values suppressed" in rep.verdict, rep.verdict
    # an undo forgets the label; a later step keeps it (the release still holds the suppressed record)
    assert q.undo().suppressed_as is None and q.suppress(k=1).suppressed_as == "(s)"
    # a later suppress reads the problem's label: the suppressed record stays "(s)" (it nulled
    # the labels, uncounted, before)
    s3 = q.suppress(k=3)
    assert s3.release().row(9) == ("(s)", "(s)") and s3.release().equals(rel)
    assert s3.log["suppressed"].to_list() == [0, 2, 0] and s3.log["k_anonymity"].to_list() == [1.0, 3.0, 3.0]


def test_recipe_hierarchy_paths_are_relative_to_the_recipe_file(tmp_path, monkeypatch):
    home = tmp_path / "a recipe dir"
    (home / "h,x").mkdir(parents=True)
    ages = [21, 23, 25, 38, 39, 52, 53, 54]
    (home / "h,x" / "age h.csv").write_text(
        "\n".join(f"{a};{a // 10 * 10}-{a // 10 * 10 + 9};*" for a in ages) + "\n", encoding="utf-8")
    recipe = home / "r e.toml"
    recipe.write_text('version = 1\n\n[roles]\nkeys = ["age"]\n\n[[steps]]\noperation = "generalize"\n'
                      'hierarchies = { age = "h,x/age h.csv" }\nk = 2\n', encoding="utf-8")
    data = tmp_path / "in put.csv"
    pl.DataFrame({"age": ages}).write_csv(data)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    out = tmp_path / "out put.csv"
    assert cli.main(["run", str(recipe), str(data), str(out)]) == 0
    assert pl.read_csv(out)["age"].to_list() == ["20-29"] * 3 + ["30-39"] * 2 + ["50-59"] * 3
    assert polars_sdc.run_recipe(recipe, pl.DataFrame({"age": ages})).release()["age"].to_list()[0] == "20-29"


def test_cli_generalize_names_the_column_of_a_missing_hierarchy_file_and_the_closest_option(tmp_path, capsys):
    data = tmp_path / "in.csv"
    pl.DataFrame({"age": [21, 23, 25, 38]}).write_csv(data)
    assert cli.main(["generalize", str(data), str(tmp_path / "o.csv"), "--hierarchies", "age=no such.csv"]) == 2
    assert "column 'age': hierarchy file 'no such.csv' not found" in capsys.readouterr().err
    assert cli.main(["generalize", str(data), str(tmp_path / "o.csv"), "--hierarchies",
                     '{"age": {"rule": "intervals", "widths": [10]}}', "--suppresion-limit", "0.1"]) == 2
    assert ("generalize: unrecognized arguments: --suppresion-limit 0.1; did you mean '--suppression-limit'?"
            in capsys.readouterr().err)


def test_cli_hierarchy_paths_with_commas_and_repeated_flags(tmp_path, capsys):
    ages = [21, 23, 25, 38, 39, 52, 53, 54]
    (tmp_path / "h,x").mkdir()
    age = tmp_path / "h,x" / "age, v2.csv"
    age.write_text("\n".join(f"{a};{a // 10 * 10}-{a // 10 * 10 + 9};*" for a in ages) + "\n", encoding="utf-8")
    sex = tmp_path / "sex.csv"
    sex.write_text("f;*\nm;*\n", encoding="utf-8")
    data, out = tmp_path / "in.csv", tmp_path / "out.csv"
    pl.DataFrame({"age": ages, "sex": ["f", "m"] * 4}).write_csv(data)
    want = ["20-29"] * 3 + ["30-39"] * 2 + ["50-59"] * 3
    # one flag: a comma starts a new pair only before NAME=, so the path keeps its commas
    assert cli.main(["generalize", str(data), str(out), "--hierarchies", f"age={age},sex={sex}", "--k", "2",
                     "--on", "age"]) == 0
    assert pl.read_csv(out)["age"].to_list() == want
    # repeated flags, and a JSON object among them
    assert cli.main(["generalize", str(data), str(out), "--hierarchies", f"age={age}", "--hierarchies",
                     json.dumps({"sex": str(sex)}), "--k", "2", "--on", "age"]) == 0
    assert pl.read_csv(out)["age"].to_list() == want
    capsys.readouterr()
    assert cli.main(["generalize", str(data), str(out), "--hierarchies", f"age={age}", "--hierarchies",
                     f"age={age}", "--k", "2"]) == 2
    assert "hierarchies: column 'age' is given twice" in capsys.readouterr().err
    # ",sex" without "=": part of the path, named in full
    assert cli.main(["generalize", str(data), str(out), "--hierarchies", f"age={age},sex", "--k", "2"]) == 2
    err = capsys.readouterr().err
    assert f"hierarchy file '{age},sex' not found (a comma in COLUMN=PATH pairs" in err
    assert cli.main(["generalize", str(data), str(out), "--hierarchies", f"sex={sex},age", "--hierarchies",
                     "{}", "--k", "2"]) == 2
    err = capsys.readouterr().err
    assert "expected COLUMN=PATH" not in err and "hierarchy file" in err
    assert cli.main(["generalize", str(data), str(out), "--hierarchies", "age", "--k", "2"]) == 2
    assert "expected COLUMN=PATH (an ARX hierarchy CSV), got 'age'" in capsys.readouterr().err


# -- a later suppress step keeps the generalisation's "*" -----------------------------------------
SMALL = pl.DataFrame({"a": list("xxxxxyyyyyz"), "b": list("uuuuuvvvvvw"), "s": list("pqrstpqrstp")})
SMALL_H = {"a": {"x": ["*"], "y": ["*"], "z": ["*"]}, "b": {"u": ["*"], "v": ["*"], "w": ["*"]}}


def test_a_suppress_step_after_generalize_keeps_the_star_label():
    """The generalisation suppresses the one z record ("*", "*"). A later suppress step nulled
    its "*" labels (silently: the log counted nothing); now it reads the record as every key
    missing (the problem passes its suppressed_as), keeps "*", and the log says what changed."""
    p = SMALL.sdc.problem(keys=["a", "b"]).generalize(hierarchies=SMALL_H, k=3, suppression_limit=0.2)
    assert p.release().row(10) == ("*", "*", "p")
    q = p.suppress(k=3)                         # already 3-anonymous with the wildcard
    assert q.release().equals(p.release())
    assert q.log["suppressed"].to_list() == [0, 2, 0] and q.steps[-1].arguments["suppressed_as"] == "*"
    r = p.suppress(k=7)                         # (x, u) and (y, v) hold 5 records + the wildcard: 6 < 7
    rel = r.release()
    assert rel.row(10) == ("*", "*", "p")
    assert rel.select(pl.col("a", "b").null_count()).row(0) == (6, 5)
    assert r.log["suppressed"].to_list() == [0, 2, 11] and r.log["k_anonymity"].to_list()[-1] == 11.0
    assert rel.sdc.k_anonymity(["a", "b"], suppressed_as="*") == 11
    # the same step by hand, with the label; read as written (no label) "*" is a value and is nulled
    assert p.release().sdc.suppress(7, ["a", "b"], suppressed_as="*").equals(rel)
    assert p.release().sdc.suppress(7, ["a", "b"]).row(10) == ("*", None, "p")
    # lazily the same, and a recipe round trip gives the same release
    lazy = SMALL.lazy().sdc.problem(keys=["a", "b"]).generalize(hierarchies=SMALL_H, k=3, suppression_limit=0.2)
    assert lazy.suppress(k=7).release().collect().equals(rel)
    assert polars_sdc.run_recipe(r.to_recipe(), SMALL).release().equals(rel)


def test_cli_suppress_takes_suppressed_as(tmp_path, capsys):
    src, out = tmp_path / "g.parquet", tmp_path / "o.parquet"
    SMALL.sdc.generalize(SMALL_H, k=3, suppression_limit=0.2).frame.write_parquet(src)
    assert cli.main(["suppress", str(src), str(out), "--k", "7", "--on", "a,b", "--suppressed-as", "*"]) == 0
    assert pl.read_parquet(out).row(10) == ("*", "*", "p")
    assert "k-anonymity 11 on a,b" in capsys.readouterr().out


def test_l_diversity_and_t_closeness_leave_the_suppressed_records_out():
    """ARX checks its privacy models on the classes it releases; the suppressed records are
    outliers, in no class. The problem's log read the one suppressed record as a class of its
    own (l = 1 after a generalisation whose kept classes are 5-diverse); now l is the kept
    classes', and t too (the table's distribution stays every record's, as ARX's)."""
    p = SMALL.sdc.problem(keys=["a", "b"], sensitive="s").generalize(hierarchies=SMALL_H, k=3,
                                                                      suppression_limit=0.2)
    assert p.log["l_diversity"].to_list() == [1.0, 5.0]
    rel = p.release()
    ld = rel.sdc.l_diversity(["a", "b"], "s", suppressed_as="*")["l_diversity"]
    assert ld.to_list() == [5.0] * 10 + [None]
    assert rel.sdc.l_diversity(["a", "b"], "s")["l_diversity"].to_list()[10] == 1.0   # as written
    # t: each kept class holds p, q, r, s, t once; the table 2/11 p and 9/11 for the others
    q = {"p": 3 / 11, "q": 2 / 11, "r": 2 / 11, "s": 2 / 11, "t": 2 / 11}
    want = 0.5 * sum(abs(q[v] - 1 / 5) for v in q)
    t = rel.sdc.t_closeness(["a", "b"], "s", suppressed_as="*")["t_closeness"]
    assert t[:10].to_list() == pytest.approx([want] * 10) and t[10] is None
    assert rel.lazy().sdc.l_diversity(["a", "b"], "s", suppressed_as="*").collect()["l_diversity"].equals(ld)
    # the sign-off's sensitive table reads the same
    sens = p.sign_off().table("sensitive")
    assert sens.filter(pl.col("release") == "after")["l (distinct values per class, smallest)"].item() == 5.0
    # every record suppressed: no released class, no l (None in the log)
    every = pl.DataFrame({"a": ["x", "y"], "b": ["u", "v"], "s": ["p", "q"]})
    g = every.sdc.problem(keys=["a", "b"], sensitive="s").generalize(
        hierarchies={"a": {"x": ["*"], "y": ["*"]}, "b": {"u": ["*"], "v": ["*"]}}, k=3, suppression_limit=1.0)
    assert g.generalization().suppressed == 2 and g.log["l_diversity"].to_list() == [1.0, None]
    risk = g.risk()
    assert risk["suppressed_records"] == 2 and risk["prosecutor_highest"] == 0.0 == risk["marketer_risk"]


@pytest.mark.parametrize("dtype", [pl.String, pl.Categorical, pl.Enum(["x", "y", "z", "u", "v", "w", "*"])])
def test_suppressed_as_readings_for_every_key_dtype_eager_lazy_streaming(dtype):
    """suppress / l_diversity / t_closeness / risk with suppressed_as on String, Categorical and
    Enum keys (an Enum that lists "*"), with a null key next to the "*" record, equal eagerly,
    lazily and streaming (tests/test_contract.py's check), the input frame unchanged."""
    from test_contract import check_contract

    rel = SMALL.sdc.generalize(SMALL_H, k=3, suppression_limit=0.2).frame
    rel = rel.with_columns(pl.when(pl.int_range(11) == 0).then(None).otherwise(pl.col("a")).alias("a")
                           ).with_columns(pl.col("a", "b").cast(dtype))
    calls = [
        lambda ns: ns.suppress(7, ["a", "b"], suppressed_as="*"),
        lambda ns: ns.l_diversity(["a", "b"], "s", suppressed_as="*"),
        lambda ns: ns.t_closeness(["a", "b"], "s", suppressed_as="*"),
        lambda ns: ns.risk(["a", "b"], suppressed_as="*", suda=False),
    ]
    for call in calls:
        check_contract(call, rel)
    out = rel.sdc.suppress(7, ["a", "b"], suppressed_as="*")
    assert out.schema == rel.schema and out.row(10) == ("*", "*", "p")
    assert rel.sdc.l_diversity(["a", "b"], "s", suppressed_as="*")["l_diversity"].to_list()[10] is None
    assert rel.sdc.risk(["a", "b"], suppressed_as="*", suda=False)["suppressed_records"] == 1
    # a label the keys cannot hold (an Enum without "*"): no record is read as suppressed
    no_star = rel.filter(pl.int_range(11) < 10).with_columns(pl.col("a", "b").cast(pl.String).cast(
        pl.Enum(["x", "y", "z", "u", "v", "w"])))
    assert no_star.sdc.risk(["a", "b"], suppressed_as="*", suda=False)["suppressed_records"] == 0
