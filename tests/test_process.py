"""The SDC process on EU-SILC: a problem with roles, steps, undo, log; a recipe written from the
session and run by `polars-sdc run` gives the session's release; recipes fail before any data."""
from __future__ import annotations

import json

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_sdc
from polars_sdc import cli, datasets
from polars_sdc.process import Problem, read_recipe, run_recipe, sse_sst, step_effects

KEYS = ["db040", "age", "rb090", "pb220a", "hsize", "pl030"]
NUMERIC = ["py010n", "py050n", "py090n"]
ROLES = dict(keys=KEYS, numeric=NUMERIC, weight="rb050", household="db030")


@pytest.fixture(scope="module")
def eusilc():
    return datasets.eusilc()


def session(frame):
    """The interactive session of docs/process.md: age in bands, 3-anonymity by suppression,
    PRAM of the economic status, rank swapping of three incomes."""
    p = frame.sdc.problem(**ROLES, pram="pl030")
    p = p.recode_intervals(on="age", breaks=[15, 30, 45, 60, 75])
    p = p.suppress(k=3)
    p = p.rank_swap(p=0.05, seed=11)
    return p


@pytest.fixture(scope="module")
def problem(eusilc):
    return session(eusilc)


def as_text(df):
    """Values compared across dtypes that a file may change (Enum -> String in CSV)."""
    return df.with_columns(pl.col(pl.Enum, pl.Categorical).cast(pl.String))


# -- done when: recipe from the session, run by the CLI, gives the same release -------------------
@pytest.mark.parametrize("fmt, out_name", [("toml", "out.parquet"), ("json", "out.csv")])
def test_cli_run_of_the_session_recipe_gives_the_session_release(tmp_path, capsys, eusilc, problem, fmt, out_name):
    src = tmp_path / "eusilc.parquet"
    eusilc.write_parquet(src)
    recipe = tmp_path / f"recipe.{fmt}"
    problem.to_recipe(recipe, format=fmt)
    out, rep = tmp_path / out_name, tmp_path / "run.json"
    code = cli.main(["run", str(recipe), str(src), str(out), "--report", str(rep)])
    stdout, err = capsys.readouterr()
    assert code == 0, err
    want = problem.release()
    if out.suffix == ".parquet":
        got = pl.read_parquet(out)
        assert_frame_equal(got, want)  # bit for bit, dtypes included
    else:
        got = pl.read_csv(out, schema_overrides={c: pl.String for c in ("age",)})
        assert_frame_equal(as_text(got), as_text(want), check_dtypes=False)
    # a household role: k counts households, the records' count beside it
    assert "3 step(s)" in stdout and "k-anonymity 3 households (3 records) on db040,age,rb090,pb220a,hsize,pl030" in stdout
    doc = json.loads(rep.read_text())
    assert doc["command"] == "run" and doc["rows"] == eusilc.height and doc["k_anonymity"] == 3
    assert doc["k_anonymity_records"] == 3 and doc["k_anonymity_unit"] == "households"
    assert [s["operation"] for s in doc["parameters"]["steps"]] == ["recode_intervals", "suppress", "rank_swap"]
    assert doc["suppressed"] == problem.log["suppressed"].sum()  # the same effects as the session's log
    assert doc["log"] == problem.log.to_dicts()                  # and the same log, step by step


def test_lazy_session_and_run_recipe_equal_the_eager_session(eusilc, problem):
    lazy = session(eusilc.lazy())
    assert isinstance(lazy.release(), pl.LazyFrame)
    assert_frame_equal(lazy.release().collect(), problem.release())
    replay = run_recipe(problem.to_recipe(), eusilc.lazy())
    assert_frame_equal(replay.release().collect(), problem.release())
    assert replay.steps == tuple((s.operation, s.options) and s for s in lazy.steps)
    # the lazy log (each step applied once to the collected parent) equals the eager one
    assert_frame_equal(lazy.log, problem.log)


def test_undo_restores_the_previous_release_exactly(eusilc, problem):
    before = problem.undo()
    assert before.release() is problem.undo().release()
    swapped_again = before.rank_swap(p=0.05, seed=11)
    assert_frame_equal(swapped_again.release(), problem.release())
    assert before.undo().undo().release() is eusilc
    assert before.undo().undo().steps == ()
    with pytest.raises(polars_sdc.SDCError, match="no step to undo"):
        before.undo().undo().undo()
    lazy = session(eusilc.lazy())
    assert_frame_equal(lazy.undo().release().collect(), before.release())


# -- the log: values against brute force ---------------------------------------------------------
def test_log_counts_and_measures(eusilc, problem):
    log = problem.log
    assert log["operation"].to_list() == ["original", "recode_intervals", "suppress", "rank_swap"]
    rec, sup, swap = (s.release() for s in (problem.undo().undo(), problem.undo(), problem))
    # suppress: values that became null, per key
    by_var = {d["variable"]: d for d in log["by_variable"][2]}
    for c in KEYS:
        want = int((sup[c].is_null() & rec[c].is_not_null()).sum())
        assert by_var.get(c, {"suppressed": 0})["suppressed"] == want
    assert log["suppressed"][2] == sum(int(sup[c].null_count() - rec[c].null_count()) for c in KEYS) > 0
    assert log["changed"][2] == 0
    reclassified = sum(1 for a, b in zip(rec.select(KEYS).rows(), sup.select(KEYS).rows()) if a != b)
    assert log["records_reclassified"][2] == reclassified
    # recode_intervals changed every age (a number became an interval label)
    assert log["by_variable"][1].to_list() == [{"variable": "age", "suppressed": 0, "changed": eusilc.height}]
    # rank swapping: changed values per income column, no key touched
    by_var = {d["variable"]: d for d in log["by_variable"][3]}
    for c in NUMERIC:
        want = int((swap[c] != sup[c]).fill_null(False).sum())
        assert by_var[c]["changed"] == want > 0
    assert log["records_reclassified"][3] == 0
    # risk after each step = df.sdc.risk on that release with the roles
    for i, frame in enumerate((eusilc, rec, sup, swap)):
        r = frame.sdc.risk(KEYS, weight="rb050", household="db030", suda=False)
        assert log["k_anonymity"][i] == r["k_anonymity"]
        assert log["expected_reidentifications"][i] == pytest.approx(r["expected_reidentifications"], rel=1e-12)
        assert log["household_risk"][i] == pytest.approx(r["household_risk"], rel=1e-12)
    assert log["k_anonymity"].to_list() == [1.0, 1.0, 3.0, 3.0]
    assert log["expected_reidentifications"][0] == pytest.approx(57.488, abs=1e-3)  # as `polars-sdc risk` prints
    assert log["sse_sst"][:3].to_list() == [0.0, 0.0, 0.0] and log["sse_sst"][3] > 0
    assert json.loads(log["parameters"][2]) == {"k": 3}


def test_sse_sst_is_ilssdm_without_nulls_and_ignores_structural_nulls():
    rng = np.random.default_rng(3)
    df = pl.DataFrame({"a": rng.normal(size=50), "b": rng.exponential(size=50) * 1e4})
    masked = df.sdc.mdav(3, ["a", "b"])
    assert sse_sst(df, masked, ["a", "b"]) == pytest.approx(df.sdc.ilssdm(["a", "b"], masked=masked), rel=1e-12)
    # a null in the original counts nothing: the same as dropping those rows
    with_nulls = df.with_columns(pl.when(pl.int_range(50) < 10).then(None).otherwise(pl.col("a")).alias("a"))
    m2 = masked.with_columns(pl.when(pl.int_range(50) < 10).then(None).otherwise(pl.col("a")).alias("a"))
    keep = pl.int_range(50) >= 10
    z = lambda s, ref: (s - ref.mean()) / ref.std()  # noqa: E731
    ref = with_nulls.filter(keep)
    sse = ((z(ref["a"], ref["a"]) - z(m2.filter(keep)["a"], ref["a"])) ** 2).sum() + (
        (z(df["b"], df["b"]) - z(masked["b"], df["b"])) ** 2).sum()
    sst = (z(ref["a"], ref["a"]) ** 2).sum() + (z(df["b"], df["b"]) ** 2).sum()
    assert sse_sst(with_nulls, m2, ["a", "b"]) == pytest.approx(sse / sst, rel=1e-10)


def test_step_effects_brute_force():
    rng = np.random.default_rng(0)
    for _ in range(20):
        n = int(rng.integers(1, 30))
        draw = lambda values, dtype: pl.Series(rng.choice(np.array(values, dtype=object), n).tolist(), dtype=dtype)  # noqa: E731
        b = pl.DataFrame({"k": draw(["x", "y", None], pl.String), "v": draw([1.0, 2.0, None], pl.Float64)})
        a = pl.DataFrame({"k": draw(["x", "y", None], pl.String), "v": draw([1.0, 3.0, None], pl.Float64)})
        e = step_effects(b, a, ["k"])
        for c in ("k", "v"):
            sup = sum(1 for x, y in zip(b[c], a[c]) if x is not None and y is None)
            chg = sum(1 for x, y in zip(b[c], a[c]) if x is not None and y is not None and x != y)
            got = next((d for d in e["variables"] if d["variable"] == c), {"suppressed": 0, "changed": 0})
            assert (got["suppressed"], got["changed"]) == (sup, chg)
        assert e["records_reclassified"] == sum(1 for x, y in zip(b["k"], a["k"]) if x != y)


# -- roles, steps and their errors -------------------------------------------------------------
def test_roles_flow_into_the_steps():
    df = pl.DataFrame({"a": ["x"] * 6 + ["y"] * 6, "s": ["N", "S"] * 6, "n": np.arange(12.0), "w": [2.0] * 12})
    p = df.sdc.problem(keys="a", numeric="n", strata="s", weight="w")
    assert_frame_equal(p.suppress(k=2).release(), df.sdc.suppress(2, ["a"], by=["s"]))
    assert_frame_equal(p.rank_swap(p=0.3, seed=1).release(), df.sdc.rank_swap(["n"], p=0.3, by=["s"], seed=1))
    assert_frame_equal(p.microaggregate(k=3).release(), df.sdc.microaggregate(3, ["n"], by=["s"]))
    # an explicit option wins over the role
    assert_frame_equal(p.rank_swap(on="n", by=None, p=0.3, seed=1).release(), df.sdc.rank_swap("n", p=0.3, seed=1))
    assert p.steps == () and p.suppress(k=2).steps[0].arguments == {"k": 2, "on": ["a"], "by": ["s"]}


@pytest.mark.parametrize("call, message", [
    (lambda p: p.suppress(k=2, alfa=1.0), r"suppress\(\) got an unexpected keyword argument 'alfa'; did you mean 'alpha'"),
    (lambda p: p.pram(), r"pram: give seed="),
    (lambda p: p.rank_swap(p=0.5, seed=1).undo().pram(seed=1), r"pram: no 'pram' role declared; give on="),
    (lambda p: p.apply("risk"), r"risk is not a masking step"),
    (lambda p: p.apply("suppres", k=2), r"unknown operation 'suppres'; did you mean 'suppress'"),
    (lambda p: p.swap_records(seed=1), r"swap_records: household= is required"),
    (lambda p: p.suppress(k=0), r"k must be >= 1"),
])
def test_step_errors(call, message):
    p = pl.DataFrame({"a": ["x", "x", "y", "y"], "n": [1.0, 2.0, 3.0, 4.0]}).sdc.problem(keys="a", numeric="n")
    with pytest.raises(polars_sdc.SDCError, match=message):
        call(p)


def test_sensitive_role_gives_l_diversity_in_the_log():
    df = pl.DataFrame({"a": ["x", "x", "x", "y", "y", "z"], "s": ["p", "q", "p", "p", "p", "q"]})
    log = df.sdc.problem(keys="a", sensitive="s").suppress(k=2).log
    # the smallest number of distinct sensitive values in a class (df.sdc.l_diversity's classes)
    want = [min(len(set(df.filter(pl.col("a") == v)["s"])) for v in ("x", "y", "z"))]
    sup = df.sdc.suppress(2, "a")
    want.append(sup.sdc.l_diversity("a", "s")["l_diversity"].min())
    assert log["l_diversity"].to_list() == want and want[0] == 1.0


def test_problem_is_immutable_and_roles_are_checked():
    df = pl.DataFrame({"a": [1, 2], "n": [1.0, 2.0]})
    p = df.sdc.problem(keys="a")
    with pytest.raises(AttributeError, match="immutable"):
        p.roles = None
    with pytest.raises(polars_sdc.SDCError, match="'zz'"):
        df.sdc.problem(keys=["a", "zz"])
    with pytest.raises(polars_sdc.SDCError, match="both a key and a numeric"):
        Problem(df, keys="a", numeric=["a", "n"])
    with pytest.raises(polars_sdc.SDCError, match="did you mean 'weight'"):
        df.sdc.problem(keys="a", weights="n")


# -- recipes ----------------------------------------------------------------------------------------
def _untouchable(schema):
    """A LazyFrame with ``schema`` whose data may not be read: collecting it fails the test."""
    def boom(_):
        raise AssertionError("data was read")
    return pl.LazyFrame(schema=schema).map_batches(boom, schema=schema)


BAD = [
    ('[roles]\nkeys = ["a"]\n\n[[steps]]\noperation = "suppress"\nk = 2\n\n[[steps]]\noperation = "pramm"\nseed = 1\n',
     r"recipe line 9: unknown operation 'pramm'; did you mean 'pram'"),
    ('[roles]\nkeys = ["a"]\n\n[[steps]]\noperation = "suppress"\nk = 2\nimportanse = [1]\n',
     r"recipe line 7: suppress\(\) got an unexpected keyword argument 'importanse'; did you mean 'importance'"),
    ('[roles]\nkeys = ["a", "zz"]\n', r"recipe line 2: column 'zz' \(role keys\) is not in the frame"),
    ('[roles]\nkeys = ["a"]\n\n[[steps]]\noperation = "rank_swap"\non = ["n", "m"]\nseed = 1\n',
     r"recipe line 6: column 'm' \(rank_swap on\) is not in the frame"),
    ('[roles]\nkeys = ["a"]\n\n[[steps]]\noperation = "suppress"\nk = "3"\n', r"recipe line 6: suppress k must be an integer"),
    ('[roles]\nkeys = ["a"]\n\n[[steps]]\noperation = "add_noise"\nmethod = "gauss"\nseed = 1\n',
     r"recipe line 6: add_noise method must be one of 'additive'"),
    ('[roles]\nkey = ["a"]\n', r"recipe line 2: .*unexpected keyword argument 'key'; did you mean 'keys'"),
    ('{"roles": {"keys": ["a"]},\n "steps": [\n  {"operation": "suppress",\n   "kk": 2}]}',
     r"recipe line 4: suppress\(\) got an unexpected keyword argument 'kk'; did you mean 'k'"),
    ('[roles\nkeys = 1', r"recipe: not valid TOML"),
]


@pytest.mark.parametrize("text, message", BAD)
def test_a_bad_recipe_fails_before_any_data_naming_the_line(text, message):
    frame = _untouchable(pl.Schema({"a": pl.String, "n": pl.Float64}))
    with pytest.raises(polars_sdc.SDCError, match=message):
        run_recipe(text, frame)


def test_cli_run_refuses_a_bad_recipe_before_reading_the_input(tmp_path, capsys):
    recipe = tmp_path / "r.toml"
    recipe.write_text(BAD[0][0])
    src = tmp_path / "in.parquet"
    pl.DataFrame({"a": ["x", "y"]}).write_parquet(src)
    code = cli.main(["run", str(recipe), str(src), str(tmp_path / "o.parquet")])
    _, err = capsys.readouterr()
    assert code == 2 and err.startswith(f"polars-sdc: error: {recipe} line 9: unknown operation 'pramm'")
    assert not (tmp_path / "o.parquet").exists()
    code = cli.main(["run", str(recipe), str(src), str(recipe)])  # never written over
    assert code == 2 and "unknown extension '.toml'" in capsys.readouterr().err and recipe.read_text() == BAD[0][0]


def test_recipe_round_trip_toml_and_json(problem):
    for fmt in ("toml", "json"):
        r = read_recipe(problem.to_recipe(format=fmt))
        assert dict(r.roles) == {**ROLES, "pram": ["pl030"]}
        assert [(n, dict(o)) for n, o in r.steps] == [(s.operation, dict(s.options)) for s in problem.steps]
    text = problem.to_recipe()
    import tomllib

    assert tomllib.loads(text)["steps"][0] == {"operation": "recode_intervals", "on": "age", "breaks": [15, 30, 45, 60, 75]}


def test_recipe_writes_every_value_kind():
    df = pl.DataFrame({"c": ["a", "b", "a", "b"] * 3, "n": np.arange(12.0), "s": ["x"] * 12})
    p = df.sdc.problem(keys="c", numeric="n", pram="c")
    p = p.pram(pd={"c": 0.7}, alpha=1.0, seed=2).recode(on="s", p=0.1, sep="・", max_label=None)
    with pytest.raises(polars_sdc.SDCError, match="None cannot be written in TOML"):
        p.to_recipe()
    p = p.undo().recode(on="s", p=0.1, sep="・").top_bottom_code(on="n", upper=9.5, replacement="mean")
    for fmt in ("toml", "json"):
        assert_frame_equal(run_recipe(p.to_recipe(format=fmt), df).release(), p.release())


def test_a_selector_cannot_be_written_and_a_path_is_read(tmp_path):
    import polars.selectors as cs

    df = pl.DataFrame({"a": ["x", "x", "y", "y"], "n": [1.0, 2.0, 3.0, 4.0]})
    p = df.sdc.problem(keys="a").top_bottom_code(on=cs.numeric(), upper=3.0)
    for fmt in ("toml", "json"):
        with pytest.raises(polars_sdc.SDCError, match="option on is a selector; give column names"):
            p.to_recipe(format=fmt)
    path = tmp_path / "recipe"          # no extension: still a file
    path.write_text('[roles]\nkeys = "a"\n\n[[steps]]\noperation = "suppress"\nk = 2\n')
    assert run_recipe(str(path), df).release().equals(df.sdc.suppress(2, "a"))
    with pytest.raises(FileNotFoundError, match="missing.toml"):
        read_recipe(str(tmp_path / "missing.toml"))


# -- the sign-off: the release report built from the problem ---------------------------------------
def orig_n(problem):
    return problem.original().height


def test_sign_off_verdict_numbers_are_the_log_and_risk(problem):
    import html
    import re

    s = problem.sign_off()
    log = problem.log
    m = re.fullmatch(r"After 3 steps \(recode_intervals, suppress, rank_swap\): (\d+)-anonymous on (\d+) keys with "
                     r"missing values as wildcards; expected re-identifications ([\d.]+) -> ([\d.]+) \(global risk "
                     r"([\d.]+) % -> ([\d.]+) %\); ([\d,]+) values suppressed, ([\d,]+) values changed in "
                     r"keys/categorical variables \(age ([\d,]+)\), ([\d,]+) values changed in numeric variables; "
                     r"numeric SSE/SST ([\d.]+) %\.", s.verdict)
    assert m, s.verdict
    k, nkeys, before, after, g_before, g_after, suppressed, changed_cat, changed_age, changed_num, sse = m.groups()
    n = lambda x: int(x.replace(",", ""))  # noqa: E731
    original = problem.undo().undo().undo()
    assert int(k) == problem.risk()["k_anonymity"] == log["k_anonymity"][-1] == 3 and int(nkeys) == len(KEYS)
    assert s.facts["k"] == 3                                            # the k of the suppress step
    assert float(before) == pytest.approx(original.risk()["expected_reidentifications"], rel=5e-3)
    assert float(before) == pytest.approx(log["expected_reidentifications"][0], rel=5e-3)
    assert float(after) == pytest.approx(problem.risk()["expected_reidentifications"], rel=5e-3)
    assert float(after) == pytest.approx(log["expected_reidentifications"][-1], rel=5e-3)
    assert float(g_before) == pytest.approx(100 * log["global_risk"][0], rel=5e-3)
    assert float(g_after) == pytest.approx(100 * log["global_risk"][-1], rel=5e-3)
    # the counts: the log's, step by step, and the problem's utility per variable
    assert n(suppressed) == log["suppressed"].sum() == s.facts["suppressed"] > 0
    u = problem.utility()
    assert n(changed_cat) == u.filter(pl.col("role") != "numeric")["changed"].sum()
    # every age became a band (the log's step 1); the release keeps the band or suppressed it (step 2)
    age = u.filter(pl.col("variable") == "age").row(0, named=True)
    assert age["changed"] + age["suppressed"] == log["changed"][1] == log["records_reclassified"][1] == orig_n(problem)
    assert n(changed_age) == u.filter(pl.col("variable") == "age")["changed"].item()
    assert n(changed_num) == u.filter(pl.col("variable") == "(all numeric)")["changed"].item()
    assert float(sse) == pytest.approx(100 * log["sse_sst"][-1], rel=5e-3)
    # the steps section is the log, the risk table the measures before / after
    steps = s.table("steps")
    assert steps["step"].to_list() == ["recode_intervals", "suppress", "rank_swap"]
    assert steps["suppressed"].to_list() == log["suppressed"].to_list()[1:]
    risk = {r["measure"]: r for r in s.table("risk").iter_rows(named=True)}
    kk = risk["Smallest class size (k-anonymity)"]
    assert (kk["before"], kk["after"], kk["what matters"]) == (1.0, 3.0, ">= 3 (the target k)")
    hh = risk["Household risk (mean)"]
    assert (hh["before"], hh["after"]) == pytest.approx((100 * log["household_risk"][0], 100 * log["household_risk"][-1]))
    text, page = repr(s), s.to_html()
    assert s.verdict in text and html.escape(s.verdict) in page and "nan" not in text.lower()
    # per variable: every role column, its counts the utility's; roles kept
    v = {r["variable"]: r for r in s.table("variables").iter_rows(named=True)}
    for row in u.filter(pl.col("variable") != "(all numeric)").iter_rows(named=True):
        assert (v[row["variable"]]["suppressed"], v[row["variable"]]["changed"]) == (row["suppressed"], row["changed"])
    assert (v["rb050"]["role"], v["db030"]["role"], v["py010n"]["role"]) == ("weight", "household", "numeric")
    # the frequency tables: the largest change of a share, against a plain count
    orig, rel = problem.original(), problem.release()
    f = s.table("freq-rb090")
    assert dict(zip(f["category"], f["n before"])) == {"male": (orig["rb090"] == "male").sum(),
                                                       "female": (orig["rb090"] == "female").sum()}
    assert f["n after"].sum() == rel["rb090"].is_not_null().sum()
    shares_b = orig["db040"].value_counts(normalize=True, name="s")
    shares_a = rel["db040"].drop_nulls().value_counts(normalize=True, name="s")
    j = shares_b.join(shares_a, on="db040", suffix="_a")
    cat = s.table("categorical").filter(pl.col("variable") == "db040").row(0, named=True)
    assert abs(cat["largest relative change of a share (%)"]) == pytest.approx(
        100 * ((j["s_a"] - j["s"]).abs() / j["s"]).max(), rel=1e-9)


def test_cli_run_writes_the_sign_off(tmp_path, capsys, eusilc, problem):
    src = tmp_path / "eusilc.parquet"
    eusilc.write_parquet(src)
    recipe = problem.to_recipe(tmp_path / "r.toml")
    assert recipe
    for name in ("signoff.html", "signoff.txt"):
        code = cli.main(["run", str(tmp_path / "r.toml"), str(src), str(tmp_path / "o.parquet"), "--sign-off",
                         str(tmp_path / name)])
        out, err = capsys.readouterr()
        assert code == 0, err
        verdict = problem.sign_off().verdict
        import html

        written = (tmp_path / name).read_text()
        assert f"  verdict: {verdict}" in out and (html.escape(verdict) if name.endswith("html") else verdict) in written
        assert ("<img class='plot'" in written) == name.endswith("html")
    code = cli.main(["run", str(tmp_path / "r.toml"), str(src), str(tmp_path / "o.parquet"), "--sign-off",
                     str(tmp_path / "x.pdf")])
    assert code == 2 and "--sign-off" in capsys.readouterr().err


# -- property: any sequence of steps replays, lazily and from its recipe, and undoes exactly ------------
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

STEP_POOL = [
    ("suppress", lambda d: {"k": d.draw(st.integers(1, 3))}),
    ("pram", lambda d: {"pd": d.draw(st.sampled_from([0.5, 0.9])), "seed": d.draw(st.integers(0, 9))}),
    ("rank_swap", lambda d: {"p": d.draw(st.sampled_from([0.2, 0.5])), "seed": d.draw(st.integers(0, 9))}),
    ("top_bottom_code", lambda d: {"on": "n", "upper_p": 0.2}),
    ("recode", lambda d: {"on": "c", "p": d.draw(st.sampled_from([0.1, 0.3]))}),
    ("microaggregate", lambda d: {"k": 2, "on": "m"}),
]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_any_step_sequence_replays_and_undoes(data):
    n = data.draw(st.integers(6, 30))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16)))
    df = pl.DataFrame({
        "c": rng.choice(["a", "b", "c", "d"], n, p=[0.5, 0.3, 0.15, 0.05]),
        "g": rng.choice(["x", "y"], n),
        "n": rng.normal(size=n),
        "m": rng.integers(0, 100, n),
    })
    if data.draw(st.booleans()):
        df = df.with_columns(pl.when(pl.int_range(n) % 5 == 0).then(None).otherwise(pl.col("c")).alias("c"))
    lazy = data.draw(st.booleans())
    p = Problem(df.lazy() if lazy else df, keys=["c", "g"], numeric="n", pram="c")
    chain = [p]
    for _ in range(data.draw(st.integers(1, 4))):
        name, options = data.draw(st.sampled_from(STEP_POOL))
        chain.append(chain[-1].apply(name, **options(data)))
    p = chain[-1]
    release = p.release().collect() if lazy else p.release()
    assert release.height == n and release.columns == df.columns
    assert_frame_equal(as_text(p.data()), as_text(release))            # the log's data is the release
    for fmt in ("toml", "json"):                                        # replayed from its recipe, eagerly
        assert_frame_equal(as_text(run_recipe(p.to_recipe(format=fmt), df).release()), as_text(release))
    for i in range(len(chain) - 1, 0, -1):                              # undo walks back exactly
        assert chain[i].undo() is chain[i - 1]
    log = p.log
    for i, node in enumerate(chain[1:], 1):                             # suppressed = new nulls
        before, after = chain[i - 1].data(), node.data()
        new_nulls = sum(int((after[c].is_null() & before[c].is_not_null()).sum()) for c in df.columns)
        assert log["suppressed"][i] == new_nulls
    assert log["k_anonymity"][-1] == release.sdc.risk(["c", "g"], suda=False)["k_anonymity"]


def test_sign_off_figures_show_something_and_render_in_chromium(problem, tmp_path):
    import base64
    import io
    import re
    import subprocess

    import matplotlib.image as mpimg
    from test_risk_report import _chromium

    s = problem.sign_off()
    assert list(s.plots) == ["distribution", "suda", "steps-map", "losses", "ru-map"]
    assert all(p == [] for p in s.figure_problems.values())            # titled, labelled axes
    for name, png in s.plots.items():
        img = mpimg.imread(io.BytesIO(png))
        assert img[..., :3].std() > 0.05 and (img[..., :3].sum(axis=-1) < 1.5).mean() > 0.005, name
    # the risk histogram holds every record, before and after
    assert s.risk_before.per_record.height == s.risk_after.per_record.height == problem.original().height
    page = s.save(tmp_path / "signoff.html")
    text = page.read_text()
    assert text.count("class='plot'") == 5 and "sse_sst" not in text and "expected_reidentifications" not in text
    browser = _chromium()
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", f"--user-data-dir={tmp_path / 'p'}"]
    dom = subprocess.run([browser, *flags, "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=180)
    assert dom.returncode == 0, dom.stderr[-2000:]
    imgs = re.findall(r'<img class="plot" alt="([^"]+)" src="data:image/png;base64,([^"]+)"', dom.stdout)
    assert [a for a, _ in imgs] == list(s.plots) and all(base64.b64decode(d)[:4] == b"\x89PNG" for _, d in imgs)
    shot = tmp_path / "shot.png"
    res = subprocess.run([browser, *flags, f"--screenshot={shot}", "--window-size=1200,3000", page.as_uri()],
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 0 and shot.exists(), res.stderr[-2000:]
    img = mpimg.imread(shot)
    assert img[..., :3].std() > 0.02 and (img[..., :3].sum(axis=-1) < 1.5).mean() > 0.001


def test_swap_records_step_takes_the_household_role():
    from polars_sdc import datasets

    df = datasets.eusilc().select("db030", "db040", "hsize", "age", "rb090")
    p = df.sdc.problem(keys=["age", "rb090"], household="db030")
    out = p.swap_records(hierarchy=["db040"], similar=[["hsize"]], swaprate=0.05, seed=3)
    want = df.sdc.swap_records(household="db030", hierarchy=["db040"], similar=[["hsize"]], swaprate=0.05,
                               risk_variables=["age", "rb090"], seed=3)
    assert_frame_equal(out.release(), want)
    assert out.undo().release().equals(df)
    assert out.log["operation"].to_list()[-1] == "swap_records"
