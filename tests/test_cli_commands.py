"""`polars-sdc recode | noise | loss` and `--report FILE.json` on every command that takes it:
the files and the JSON equal what the library computes, errors are one line with exit code 2."""
from __future__ import annotations

import json
import os
import re

import polars as pl
import pytest

import polars_sdc  # noqa: F401
from polars_sdc import cli, datasets

CATS = ["occupation", "native-country"]


def run(capsys, *argv):
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def leftovers(folder):
    """Temporary files of an atomic write that were not cleaned up."""
    return [p.name for p in folder.iterdir() if p.name.endswith(".part")]


@pytest.fixture(scope="module")
def adult():
    return datasets.adult(missing="?").head(3000)


@pytest.fixture
def adult_csv(tmp_path, adult):
    path = tmp_path / "adult.csv"
    adult.write_csv(path)
    return path


@pytest.fixture
def adult_pq(tmp_path, adult):
    path = tmp_path / "adult.parquet"
    adult.write_parquet(path)
    return path


# -- recode ------------------------------------------------------------------------------------
@pytest.mark.parametrize("src_fixture, out_name", [("adult_csv", "rec.parquet"), ("adult_pq", "rec.csv")])
def test_recode_file_and_report_equal_the_library(request, tmp_path, capsys, adult, src_fixture, out_name):
    src = request.getfixturevalue(src_fixture)
    out, rep = tmp_path / out_name, tmp_path / "rec.json"
    code, stdout, err = run(capsys, "recode", src, out, "--column", CATS[0], "--column", CATS[1],
                            "--p", 0.02, "--sep", "|", "--report", rep)
    assert code == 0 and err == "", err
    want = adult.sdc.recode(CATS, 0.02, sep="|")
    got = pl.read_parquet(out) if out.suffix == ".parquet" else pl.read_csv(out)
    assert got.select(CATS).cast(pl.String).equals(want.select(CATS).cast(pl.String))
    others = [c for c in adult.columns if c not in CATS]
    assert got.select(others).equals(adult.select(others))  # other columns and row order kept
    doc = json.loads(rep.read_text())
    plan = adult.sdc.recode_map(CATS, 0.02, sep="|")
    for c in CATS:
        part = plan.filter(pl.col("column") == c)
        d = doc["columns"][c]
        assert d["categories_before"] == adult[c].n_unique() == part.height
        assert d["categories_after"] == want[c].n_unique()
        merged = part.filter(pl.col("original") != pl.col("recoded"))
        assert d["categories_merged"] == merged.height > 0
        assert d["merge_groups"] == merged["recoded"].n_unique() > 0
        assert d["smallest_category"] == want[c].value_counts()["count"].min()
        assert f"{c}: {d['categories_before']} -> {d['categories_after']} categories" in stdout
    assert doc["rows"] == 3000 and doc["parameters"]["p"] == 0.02 and doc["parameters"]["sep"] == "|"
    assert doc["smallest_class"] == want.sdc.k_anonymity(CATS)
    assert doc["classes"] == want.sdc.equivalence_classes(CATS).height
    assert doc["global_risk"] == pytest.approx(want.sdc.global_risk(CATS)["global_risk"], rel=1e-12)
    assert set(doc["versions"]) == {"polars_sdc", "polars", "numpy", "python"}
    assert all(v >= 0 for v in doc["seconds"].values()) and doc["command"] == "recode"
    assert leftovers(tmp_path) == []


def test_recode_null_values_keeps_missing_out_of_the_merge(tmp_path, capsys, adult_csv):
    out = tmp_path / "r.parquet"
    code, _, err = run(capsys, "recode", adult_csv, out, "--column", "native-country", "--p", 0.02,
                       "--null-values", "?")
    assert code == 0, err
    got = pl.read_parquet(out)["native-country"]
    src = pl.read_csv(adult_csv, null_values=["?"])
    assert got.null_count() == src["native-country"].null_count() > 0  # "?" is missing, stays null
    assert "?" not in "".join(got.drop_nulls().unique().to_list())


def test_recode_other_and_max_label_are_the_library_options(tmp_path, capsys, adult_csv):
    """--other / --max-label give the file df.sdc.recode(other=..., max_label=...) gives."""
    src = pl.read_csv(adult_csv)
    for flags, options in ((("--other", "Other"), {"other": "Other"}), (("--max-label", 30), {"max_label": 30})):
        out = tmp_path / "r.parquet"
        code, _, err = run(capsys, "recode", adult_csv, out, "--column", "native-country", "--p", 0.02, *flags)
        assert code == 0, err
        want = src.sdc.recode("native-country", 0.02, **options)["native-country"].cast(pl.String)
        got = pl.read_parquet(out)["native-country"].cast(pl.String)
        assert got.equals(want)
        if "max_label" in options:
            assert got.str.len_chars().max() <= 30 < src.sdc.recode("native-country", 0.02)["native-country"].cast(pl.String).str.len_chars().max()
    code, _, err = run(capsys, "recode", adult_csv, tmp_path / "x.parquet", "--column", "native-country",
                       "--p", 0.02, "--max-label", 3)
    assert code == 2 and "max_label" in err and not (tmp_path / "x.parquet").exists()


# -- noise -------------------------------------------------------------------------------------
def test_noise_k_prints_and_reports_the_phi_it_used(tmp_path, capsys, adult, adult_pq):
    out, rep = tmp_path / "noisy.parquet", tmp_path / "noise.json"
    code, stdout, err = run(capsys, "noise", adult_pq, out, "--on", "age,hours-per-week", "--k", 2,
                            "--seed", 7, "--report", rep)
    assert code == 0 and err == "", err
    phi = adult.sdc.laplace_scale(["age", "hours-per-week"], k=2)
    got = pl.read_parquet(out)
    # the library's own Pk path gives the same noisy file: the printed phi is the phi used
    assert got.equals(adult.sdc.laplace(k=2, on=["age", "hours-per-week"], seed=7))
    assert got.equals(adult.sdc.laplace(phi, ["age", "hours-per-week"], seed=7))
    for c in phi:
        shown = float(re.search(rf"phi {c} = (\S+)", stdout).group(1))
        assert shown == pytest.approx(phi[c], rel=1e-5)
    doc = json.loads(rep.read_text())
    assert doc["phi"] == phi and doc["phi_from"] == "laplace_scale"
    assert doc["parameters"] | {} == {"on": ["age", "hours-per-week"], "k": 2, "m": 1, "seed": 7, "key": None,
                                      "clamp": False, "null_values": None}
    assert doc["sse_sst"] == pytest.approx(adult.sdc.ilssdm(["age", "hours-per-week"], masked=got), rel=1e-12)
    assert doc["rows"] == adult.height


def test_noise_phi_per_column_key_and_csv(tmp_path, capsys, adult):
    src = tmp_path / "a.csv"
    adult.with_row_index("id").write_csv(src)
    out = tmp_path / "n.csv"
    code, stdout, err = run(capsys, "noise", src, out, "--on", "age,fnlwgt", "--phi", "age=3,fnlwgt=1000",
                            "--seed", 1, "--key", "id", "--clamp")
    assert code == 0, err
    base = pl.read_csv(src)
    want = base.sdc.laplace({"age": 3.0, "fnlwgt": 1000.0}, ["age", "fnlwgt"], seed=1, key="id", clamp=True)
    got = pl.read_csv(out)
    assert got["age"].to_list() == pytest.approx(want["age"].to_list(), rel=1e-15)
    assert "phi age = 3 (given)" in stdout and "phi fnlwgt = 1000 (given)" in stdout
    # one number for every column
    code, stdout, _ = run(capsys, "noise", src, tmp_path / "m.parquet", "--on", "age,fnlwgt", "--phi", 2, "--seed", 1)
    assert code == 0 and stdout.count("= 2 (given)") == 2


@pytest.mark.parametrize("argv, message", [
    (["--on", "age", "--seed", "1"], "exactly one of --phi"),
    (["--on", "age", "--seed", "1", "--phi", "2", "--k", "2"], "exactly one of --phi"),
    (["--on", "age", "--seed", "1", "--phi", "2", "--m", "2"], "--m goes with --k"),
    (["--on", "age,fnlwgt", "--seed", "1", "--phi", "age=2"], "no scale for column 'fnlwgt'"),
    (["--on", "age", "--seed", "1", "--phi", "big"], "--phi: expected a number"),
    (["--on", "age", "--seed", "1", "--k", "1"], "k must be >= 2"),
    (["--on", "workclass", "--seed", "1", "--k", "2"], "'workclass'"),
    (["--on", "age", "--k", "2"], "--seed"),
])
def test_noise_errors(tmp_path, capsys, adult_csv, argv, message):
    out = tmp_path / "n.parquet"
    code, stdout, err = run(capsys, "noise", adult_csv, out, *argv)
    assert code == 2 and message in err and err.count("\n") == 1 and err.startswith("polars-sdc: error: ")
    assert not out.exists() and leftovers(tmp_path) == []


# -- loss --------------------------------------------------------------------------------------
@pytest.fixture
def released(tmp_path, adult):
    masked = adult.sdc.mdav(5, ["age", "education-num"]).sdc.recode("occupation", 0.05)
    path = tmp_path / "masked.parquet"
    masked.write_parquet(path)
    return masked, path


def test_loss_figures_equal_the_library(tmp_path, capsys, adult, adult_csv, released):
    masked, path = released
    on = ["age", "education-num", "occupation"]
    rep = tmp_path / "loss.json"
    code, stdout, err = run(capsys, "loss", adult_csv, path, "--on", ",".join(on), "--k", 5, "--report", rep)
    assert code == 0 and err == "", err
    orig = pl.read_csv(adult_csv)
    ild = orig.sdc.ild_report(masked, on=on)
    classic = orig.sdc.loss_report(masked, on=on, k=5).to_frame()
    sse = orig.sdc.ilssdm(["age", "education-num"], masked=masked)
    doc = json.loads(rep.read_text())
    assert doc["ild"]["overall"] == pytest.approx(ild.ild, rel=1e-12)
    assert doc["ild"]["by_column"] == pytest.approx(ild.by_column, rel=1e-12)
    assert doc["sse_sst"] == pytest.approx(sse, rel=1e-12) and doc["sse_columns"] == ["age", "education-num"]
    for m, v, z, _ in classic.iter_rows():
        assert doc["classic"][m]["value"] == (None if v is None else pytest.approx(v, rel=1e-12))
        assert doc["classic"][m]["normalized"] == (None if z is None else pytest.approx(z, rel=1e-12))
    assert doc["rows"] == 3000 and doc["files"] == {"original": str(adult_csv), "masked": str(path)}
    # the printed figures
    assert re.search(rf"^\s+occupation\s+{ild.by_column['occupation']:.6g}$", stdout, re.M), stdout
    assert f"SSE/SST (numeric columns, z-scored)  {100 * sse:.4f} %" in stdout
    dm = classic.filter(pl.col("measure") == "dm")["value"][0]
    assert re.search(rf"^\s+dm\s+{re.escape(format(dm, '.6g'))}\s", stdout, re.M)


def test_loss_one_measure_and_row_checks(tmp_path, capsys, adult_csv, released):
    _, path = released
    code, stdout, _ = run(capsys, "loss", adult_csv, path, "--on", "age", "--measure", "sse")
    assert code == 0 and "SSE/SST" in stdout and "ILD" not in stdout and "classic" not in stdout
    short = tmp_path / "short.parquet"
    pl.read_parquet(path).head(2999).write_parquet(short)
    code, _, err = run(capsys, "loss", adult_csv, short, "--on", "age")
    assert code == 2 and "ORIG has 3000 rows and MASKED 2999" in err and err.count("\n") == 1
    code, _, err = run(capsys, "loss", adult_csv, path, "--on", "age,nope")
    assert code == 2 and "column 'nope': not in ORIG" in err
    code, _, err = run(capsys, "loss", adult_csv, path, "--on", "age", "--measure", "dm")
    assert code == 2 and "invalid choice: 'dm'" in err
    code, _, err = run(capsys, "loss", adult_csv, path, "--on", "age", "--report", adult_csv)
    assert code == 2 and "--report" in err and "json" in err


# -- --report on anonymize and risk ----------------------------------------------------------------
def test_anonymize_report_equals_the_library(tmp_path, capsys, adult, adult_pq):
    out, rep = tmp_path / "a.parquet", tmp_path / "a.json"
    on = ["age", "education-num", "hours-per-week"]
    code, stdout, err = run(capsys, "anonymize", adult_pq, out, "--k", 4, "--on", ",".join(on), "--by", "sex",
                            "--group-column", "g", "--report", rep)
    assert code == 0 and err == "", err
    got = pl.read_parquet(out)
    assert got.equals(adult.sdc.microaggregate(4, on, by="sex", group_column="g"))
    doc = json.loads(rep.read_text())
    keys = on + ["sex"]
    assert doc["class_columns"] == keys and doc["rows"] == 3000
    assert doc["smallest_class"] == got.sdc.k_anonymity(keys) >= 4
    assert doc["classes"] == got.sdc.equivalence_classes(keys).height
    assert doc["groups"] == got["g"].n_unique() and doc["smallest_group"] == got["g"].value_counts()["count"].min()
    assert doc["sse_sst"] == pytest.approx(adult.sdc.ilssdm(on, masked=got), rel=1e-12)
    assert doc["global_risk"] == pytest.approx(got.sdc.global_risk(keys)["global_risk"], rel=1e-12)
    p = doc["parameters"]
    assert (p["k"], p["on"], p["by"], p["method"]) == (4, on, ["sex"], "mdav")
    assert (p["refine"], p["integers"], p["group_column"]) == ("none", "round", "g")
    assert {"microaggregate_and_write", "measure", "total"} <= set(doc["seconds"])
    assert leftovers(tmp_path) == []


def test_risk_report(tmp_path, capsys):
    src = tmp_path / "f.csv"
    datasets.francdat().write_csv(src)
    rep = tmp_path / "risk.json"
    code, _, err = run(capsys, "risk", src, "--on", "Key1,Key2,Key3,Key4", "--weight", "w", "--report", rep)
    assert code == 0, err
    doc = json.loads(rep.read_text())
    want = pl.read_csv(src).sdc.risk(["Key1", "Key2", "Key3", "Key4"], weight="w").as_dict()
    assert doc["risk"]["global_risk"] == pytest.approx(0.1208158, rel=1e-6)
    # an undefined estimate (NaN) is null in strict JSON
    assert set(doc["risk"]) == set(want)
    for name, v in want.items():
        got = doc["risk"][name]
        if isinstance(v, float) and v != v:
            assert got is None, name
        elif isinstance(v, (int, float)) and not isinstance(v, bool):
            assert got == pytest.approx(v, rel=1e-12), name
        else:
            assert got == v, name
    assert doc["risk"]["population_pitman"] is None
    assert doc["rows"] == 8 and doc["parameters"]["weight"] == "w"


def test_report_is_atomic_and_refused_where_it_would_clobber(tmp_path, capsys, adult_csv):
    rep = tmp_path / "r.json"
    rep.write_text("old")
    out = tmp_path / "o.parquet"
    # a failing run leaves the old report and no temporary file
    code, _, err = run(capsys, "anonymize", adult_csv, out, "--k", 4, "--on", "age,nope", "--report", rep)
    assert code == 2 and rep.read_text() == "old" and leftovers(tmp_path) == [] and not out.exists()
    # a report that is the input, the output or a directory is refused before any work
    out.write_bytes(b"keep")
    (tmp_path / "out_link.json").symlink_to(out)
    for bad, message in ((adult_csv, ".json file"), (tmp_path, ".json file"),
                         (tmp_path / "out_link.json", "--report must differ from the output file")):
        code, _, err = run(capsys, "noise", adult_csv, out, "--on", "age", "--k", 2, "--seed", 1, "--report", bad)
        assert code == 2 and message in err and err.count("\n") == 1, err
    assert out.read_bytes() == b"keep"
    out.unlink()
    link = tmp_path / "link.json"
    os.symlink(adult_csv, link)
    code, _, err = run(capsys, "risk", adult_csv, "--on", "age", "--report", link)
    assert code == 2 and "must differ from the input" in err
    assert pl.read_csv(adult_csv).height == 3000  # the input is untouched
    # a successful run replaces the old report
    code, _, _ = run(capsys, "noise", adult_csv, out, "--on", "age", "--k", 2, "--seed", 1, "--report", rep)
    assert code == 0 and json.loads(rep.read_text())["command"] == "noise" and leftovers(tmp_path) == []


def test_reports_are_strict_json(tmp_path, capsys):
    """NaN / infinity (e.g. an undefined measure) are written as null, never as bare NaN."""
    assert cli._plain({"a": float("nan"), "b": [float("inf"), 1.5]}) == {"a": None, "b": [None, 1.5]}
    src = tmp_path / "c.csv"
    pl.DataFrame({"x": [1.0, 1.0, 1.0, 1.0], "c": ["a", "a", "a", "a"]}).write_csv(src)
    rep = tmp_path / "l.json"
    code, _, err = run(capsys, "loss", src, src, "--on", "x,c", "--report", rep)
    assert code == 0, err
    json.loads(rep.read_text(), parse_constant=lambda name: pytest.fail(f"non-standard JSON constant {name}"))


# -- the pipeline stays lazy: scan -> method -> sink -----------------------------------------------------
@pytest.mark.parametrize("command, argv", [
    ("recode", ["--column", "occupation", "--p", "0.05"]),
    ("noise", ["--on", "age", "--k", "2", "--seed", "3"]),
    ("anonymize", ["--k", "3", "--on", "age"]),
])
def test_release_is_sunk_from_a_lazy_scan(tmp_path, capsys, sunk_frames, adult_pq, command, argv):
    code, _, err = run(capsys, command, adult_pq, tmp_path / "o.parquet", *argv)
    assert code == 0, err
    assert sunk_frames == [pl.LazyFrame]


@pytest.mark.parametrize("argv", [
    ["recode", "{src}", "{src}", "--column", "occupation", "--p", "0.05"],
    ["recode", "{src}", "{out}", "--column", "occupation", "--p", "0"],
    ["recode", "{src}", "{out}", "--column", "age", "--p", "0.05"],
    ["recode", "{src}", "{tmp}/o.txt", "--column", "occupation", "--p", "0.05"],
    ["recode", "{tmp}/missing.csv", "{out}", "--column", "occupation", "--p", "0.05"],
    ["noise", "{src}", "{out}", "--on", "age", "--phi", "-1", "--seed", "1"],
    ["loss", "{src}", "{tmp}/missing.parquet", "--on", "age"],
    ["loss", "{src}", "{src}", "--on", "age", "--k", "x"],
])
def test_bad_input_exits_2_with_one_line(tmp_path, capsys, adult_csv, argv):
    fill = {"src": str(adult_csv), "out": str(tmp_path / "o.parquet"), "tmp": str(tmp_path)}
    code, stdout, err = run(capsys, *[a.format(**fill) for a in argv])
    assert code == 2 and stdout == "" and err.count("\n") == 1 and err.startswith("polars-sdc: error: ")
    assert "Traceback" not in err and not (tmp_path / "o.parquet").exists() and leftovers(tmp_path) == []
    assert pl.read_csv(adult_csv).height == 3000


# -- the README's transcript ------------------------------------------------------------------------
def _readme_transcript() -> list[tuple[str, list[str]]]:
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "docs" / "cli.md").read_text()
    section = text
    block = section[section.index("```console\n") + len("```console\n"):]
    block = block[:block.index("```")]
    runs: list[tuple[str, list[str]]] = []
    for line in block.splitlines():
        if line.startswith("$ polars-sdc "):
            runs.append((line[2:], []))
        else:
            runs[-1][1].append(line)
    return runs


def test_readme_transcript_is_real_output(tmp_path, capsys, monkeypatch):
    import shlex

    monkeypatch.chdir(tmp_path)
    datasets.adult(missing="?").write_csv("adult.csv")
    runs = _readme_transcript()
    assert [r[0].split()[1] for r in runs] == ["anonymize", "recode", "noise", "loss"]
    mask = lambda s: re.sub(r"\d+\.\d\d s$", "<t> s", s)  # noqa: E731  (timings)
    for command, want in runs:
        code = cli.main(shlex.split(command)[1:])
        out, err = capsys.readouterr()
        assert code == 0, (command, err)
        assert [mask(x) for x in out.rstrip("\n").splitlines()] == [mask(x) for x in want], command
    # the JSON excerpt of the noise report quoted in docs/cli.md
    doc = json.loads((tmp_path / "noise.json").read_text())
    readme = (__import__("pathlib").Path(__file__).resolve().parents[1] / "docs" / "cli.md").read_text()
    excerpt = json.dumps({k: doc[k] for k in ("command", "rows", "phi", "sse_sst")})[:-1] + ", ...}"
    assert f"`{excerpt}`" in readme
