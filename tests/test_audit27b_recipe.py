"""Audit 27b: one recipe with a household role from Python (eager and lazy), the CLI and
Spark gives one release; run twice, the same; undo after every kind of step gives the
parent back; a recipe naming a missing column fails before any data is read."""
from __future__ import annotations

import warnings

import numpy as np
import polars as pl
import pytest
from test_spark import spark  # noqa: F401  (the session fixture)

import polars_sdc
from polars_sdc import SDCError
from polars_sdc.cli import main

RECIPE = """[roles]
numeric = ["hinc", "pinc"]
pram = ["region", "job"]
household = "hid"

[[steps]]
operation = "pram"
pd = 0.6
seed = 2
key = "rid"

[[steps]]
operation = "rank_swap"
p = 0.2
seed = 3
key = "rid"

[[steps]]
operation = "laplace"
phi = {hinc = 5.0, pinc = 1.0}
seed = 4
key = "rid"

[[steps]]
operation = "add_noise"
seed = 5
key = "rid"
"""


def _frame(n_households: int = 30) -> pl.DataFrame:
    rs = np.random.default_rng(27)
    size = rs.integers(1, 4, n_households)
    hid = np.repeat(np.arange(100, 100 + n_households), size)
    n = hid.size
    return pl.DataFrame({
        "rid": np.arange(n, dtype=np.int64) * 3 + 1,
        "hid": hid,
        "region": np.repeat(rs.choice(["n", "s", "e", "w"], n_households), size),
        "hinc": np.repeat(rs.normal(50, 10, n_households).round(1), size),
        "job": rs.choice(["a", "b", "c"], n),
        "pinc": rs.normal(20, 5, n).round(1),
        "child": rs.random(n) < 0.3,
    }).with_columns(pinc=pl.when("child").then(None).otherwise("pinc")).drop("child")   # structural nulls


def _household_level_kept(out: pl.DataFrame) -> None:
    assert out.group_by("hid").agg(pl.col("region", "hinc").n_unique()).select(pl.max("region", "hinc")).row(0) == (1, 1)


def test_python_cli_and_spark_give_one_release(tmp_path, spark):  # noqa: F811
    from polars_sdc import spark as sdcs

    df = _frame()
    eager = polars_sdc.run_recipe(RECIPE, df).release()
    assert polars_sdc.run_recipe(RECIPE, df.lazy()).release().collect().equals(eager)
    assert polars_sdc.run_recipe(RECIPE, df).release().equals(eager)                 # run twice
    _household_level_kept(eager)
    assert eager["pinc"].is_null().equals(df["pinc"].is_null())                         # structural nulls kept
    (tmp_path / "r.toml").write_text(RECIPE)
    df.write_parquet(tmp_path / "in.parquet")
    assert main(["run", str(tmp_path / "r.toml"), str(tmp_path / "in.parquet"), str(tmp_path / "out.parquet")]) == 0
    assert pl.read_parquet(tmp_path / "out.parquet").equals(eager)
    got = pl.from_arrow(sdcs.run_recipe(RECIPE, spark.createDataFrame(df.to_arrow())).toArrow())
    got = got.sort("rid").select(eager.columns)
    for c in eager.columns:
        if eager[c].dtype.is_float():
            a, b = eager[c].to_numpy(), got[c].cast(pl.Float64).to_numpy()
            assert np.allclose(a, b, rtol=1e-12, atol=0, equal_nan=True), c
        else:
            assert got[c].cast(eager[c].dtype).equals(eager[c]), c


def test_undo_after_every_kind_of_step_gives_the_parent_back():
    df = _frame().with_columns(pl.col("region").alias("area"))
    p = df.sdc.problem(keys=["region", "job"], numeric=["hinc", "pinc"], household="hid", pram=["job"])
    steps = [("suppress", dict(k=2)), ("suppress_risky", dict(threshold=0.5)), ("pram", dict(seed=1)),
             ("rank_swap", dict(p=0.1, seed=1)), ("add_noise", dict(seed=1)), ("laplace", dict(phi=1.0, seed=1)),
             ("recode", dict(columns="job", p=0.2)), ("recode_intervals", dict(on="hinc", n=3)),
             ("top_bottom_code", dict(columns="hinc", upper=55.0)),
             ("swap_records", dict(hierarchy="area", swaprate=0.2, seed=1, risk_variables=["job"])),
             ("microaggregate", dict(k=2, on=["hinc"])),
             ("generalize", dict(hierarchies={"region": {"n": ["ns"], "s": ["ns"], "e": ["ew"], "w": ["ew"]},
                                              "job": {"a": ["ab"], "b": ["ab"], "c": ["c"]}}, k=2))]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, options in steps:
            q = p.apply(name, **options)
            assert q.undo() is p and q.undo().release().equals(df), name
            assert q.log.height == 2 and q.log["operation"][1] == name
            _household_level_kept(q.release().select("hid", "region", "hinc").with_columns(
                pl.col("region").cast(pl.String)))
            assert polars_sdc.run_recipe(q.to_recipe(), df).release().equals(q.release()), name


@pytest.mark.parametrize("step, line", [
    ('operation = "swap_records"\nhierarchy = "region"\nsimilar = [["nope"]]\nseed = 1\n', "column 'nope'"),
    ('operation = "pram"\nhousehold_columns = ["nope"]\nseed = 1\n', "column 'nope'"),
    ('operation = "laplace"\nphi = {hinc = 1.0, nope = 1.0}\nseed = 1\n', "phi: column 'nope' is not one of"),
    ('operation = "generalize"\nhierarchies = {region = {n = ["ns"], s = ["ns"], e = ["ew"], w = ["ew"]}}\n',
     "column 'job': no hierarchy"),
])
def test_a_recipe_naming_a_missing_column_fails_before_any_data_is_read(step, line):
    text = '[roles]\nkeys = ["region", "job"]\nnumeric = ["hinc"]\npram = ["job"]\nhousehold = "hid"\n\n[[steps]]\n' + step
    reads = []
    lf = pl.LazyFrame(_frame()).map_batches(lambda d: reads.append(1) or d)   # counts any collect
    with pytest.raises(SDCError, match=line):
        polars_sdc.run_recipe(text, lf)
    assert reads == []


@pytest.mark.parametrize("role", ["numeric", "pram", "strata"])
def test_the_household_id_in_another_role_is_refused_when_the_problem_is_built(role):
    """Before: the problem was built and the first step using that role failed (or a recipe's
    roles passed and its step failed naming the step, not the roles)."""
    df = _frame()
    extra = {"numeric": ["hinc"], "pram": ["job"], "strata": ["region"]}[role]
    with pytest.raises(SDCError, match=f"column 'hid': both the household id and in the {role} role"):
        df.sdc.problem(household="hid", keys=["job"] if role != "pram" else ["region"], **{role: [*extra, "hid"]})
    text = f'[roles]\nhousehold = "hid"\n{role} = ["hid"]\n'
    with pytest.raises(SDCError, match=r"recipe line 1: column 'hid': both the household id"):
        polars_sdc.run_recipe(text, df.lazy())


def test_sign_off_does_not_count_a_carried_column_as_a_key():
    """swap_records' carry_along moves a household weight (no role): before, the verdict said
    '... changed in keys/categorical variables (db090 1,714, db040 1,710)' and '0 values changed
    in numeric variables'; now the keys' count is db040's and db090 is named as another column."""
    silc = polars_sdc.datasets.eusilc()
    p = silc.sdc.problem(keys=["db040", "age", "rb090"], household="db030", numeric=["py010n"])
    q = p.swap_records(hierarchy="db040", similar=[["hsize"]], risk_variables=["age", "rb090"], carry_along="db090",
                       seed=1)
    moved = int((q.release()["db040"] != silc["db040"]).sum())
    carried = int((q.release()["db090"] != silc["db090"]).sum())
    assert moved > 0 and carried > 0
    v = q.sign_off().verdict
    assert f"{moved:,} values changed in keys/categorical variables (db040 {moved:,})" in v
    assert f"{carried:,} values changed in other columns (db090 {carried:,})" in v
    assert "0 values changed in numeric variables" in v
