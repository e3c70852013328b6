"""household_columns= (issue 24): the household-level columns declared instead of detected, on
every masking method that takes household=. A declared column is checked constant within
every household (an error naming it and a household where it varies); every other masked
column is person-level, even one that is constant within every household by accident."""
import warnings

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings

import polars_sdc
from polars_sdc import SDCError
from polars_sdc.household import HouseholdWarning, split_columns
from tests.test_household_masking import constant_within, survey


def _with_accident(df):
    """``acc``: a person-level column that is constant within every household by accident
    (a function of the household size), numeric; ``acat`` the same, categorical."""
    return df.with_columns(acc=pl.col("hsize").cast(pl.Float64) * 7.5 + 1.0,
                           acat=pl.when(pl.col("hsize") > 3).then(pl.lit("big")).otherwise(pl.lit("small")))


# name -> (call taking the namespace and the household keywords, the on columns, the true
# household-level ones among them)
CALLS = {
    "add_noise": (lambda ns, **h: ns.add_noise(["hinc", "acc", "pay"], seed=3, **h), ["hinc", "acc", "pay"], ["hinc"]),
    "add_noise/moments": (lambda ns, **h: ns.add_noise(["hinc", "acc", "pay"], method="moments", seed=3, **h),
                          ["hinc", "acc", "pay"], ["hinc"]),
    "laplace": (lambda ns, **h: ns.laplace(500.0, ["hinc", "acc", "pay"], seed=3, **h), ["hinc", "acc", "pay"], ["hinc"]),
    "rank_swap": (lambda ns, **h: ns.rank_swap(["hinc", "acc", "pay"], p=0.3, seed=3, **h),
                  ["hinc", "acc", "pay"], ["hinc"]),
    "pram": (lambda ns, **h: ns.pram(["region", "acat", "job"], pd=0.5, seed=3, **h), ["region", "acat", "job"],
             ["region"]),
    "suppress": (lambda ns, **h: ns.suppress(2, ["region", "acat", "job"], **h), ["region", "acat", "job"], ["region"]),
    "suppress_risky": (lambda ns, **h: ns.suppress_risky(["region", "acat", "job"], threshold=0.3, **h),
                       ["region", "acat", "job"], ["region"]),
    "recode_intervals": (lambda ns, **h: ns.recode_intervals(["hinc", "acc", "pay"], n=3, method="quantile", **h),
                         ["hinc", "acc", "pay"], ["hinc"]),
    "top_bottom_code": (lambda ns, **h: ns.top_bottom_code(["hinc", "acc", "pay"], upper_p=0.2, **h),
                        ["hinc", "acc", "pay"], ["hinc"]),
    "recode": (lambda ns, **h: ns.recode(["region", "acat", "job"], 0.3, **h), ["region", "acat", "job"], ["region"]),
}


def _outcome(fn):
    """The result, or the message of the SDCError raised."""
    try:
        return fn()
    except SDCError as e:
        return str(e)


def _same(a, b):
    return a == b if isinstance(a, str) or isinstance(b, str) else a.equals(b)


def _run(call, df, **h):
    with warnings.catch_warnings():
        warnings.simplefilter("error", HouseholdWarning)   # a declaration is never second-guessed
        return call(df.sdc, **h)


@pytest.mark.parametrize("name", sorted(CALLS))
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(df=survey())
def test_declared_columns_properties(name, df):
    call, on, truth = CALLS[name]
    df = _with_accident(df)
    before = df.clone()
    try:
        declared = _run(call, df, household="hh", household_columns=truth)
    except SDCError as e:   # a too small stratum / null pattern is refused, never masked wrongly
        assert "row(s)" in str(e) or "household(s)" in str(e) or "value" in str(e) or "k = " in str(e), str(e)
        return
    assert df.equals(before), "the input frame changed"
    # eager == lazy == streaming, row order and the other columns kept
    lazy = call(df.lazy().sdc, household="hh", household_columns=truth)
    assert lazy.collect().equals(declared)
    assert lazy.collect(engine="streaming").equals(declared)
    assert declared.columns == df.columns
    assert declared.select("hh", "pid", "area").equals(df.select("hh", "pid", "area"))
    # the declared household-level columns: all members or none
    assert constant_within(declared, "hh", truth)
    # every other column is person-level: masked exactly as by the plain call on the persons
    # (columns masked independently; the plain call warns for the accidental constant column)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HouseholdWarning)
        plain = _outcome(lambda: call(df.sdc))
        alone = _outcome(lambda: call(df.sdc, household="hh", household_columns=[]))
    if name == "suppress" and isinstance(alone, pl.DataFrame):
        # household= counts households whatever the declaration (docs/households.md): the plain
        # call's suppressions, and more where a class held k records of fewer households
        assert isinstance(plain, pl.DataFrame)
        for c in on:
            assert (alone[c].is_null() | plain[c].is_not_null()).all(), c
            assert ((alone[c] == df[c]) | alone[c].is_null()).all(), c
        assert alone.sdc.k_anonymity(on, household="hh") >= 2
    elif name == "suppress" and isinstance(plain, pl.DataFrame):
        assert "households" in alone, alone      # k = 2 above the households of the frame
    else:
        assert _same(alone, plain), "household_columns=[]: every column person-level, as without household="
    if name in ("add_noise", "laplace", "rank_swap", "pram") and isinstance(plain, pl.DataFrame):
        person = [c for c in on if c not in truth]
        assert declared.select(person).equals(plain.select(person))
    # detection is the declaration of the columns it finds (here the accidental ones too)
    found = split_columns(df, "hh", on)[0]
    assert "acc" in found or "acat" in found
    assert _same(_outcome(lambda: call(df.sdc, household="hh")),
                 _outcome(lambda: _run(call, df, household="hh", household_columns=found)))


@pytest.mark.parametrize("name", sorted(CALLS))
def test_a_declared_column_that_varies_names_it_and_a_household(name):
    call, on, truth = CALLS[name]
    df = _with_accident(pl.DataFrame({
        "hh": [5, 5, 9, 9, 9, 2, 2, 4, 4, 8, 8, 8],
        "pid": list(range(12)), "area": ["a"] * 12,
        "hinc": [10.0, 10.0, 20.0, 20.0, 20.0, 30.0, 30.0, 40.0, 40.0, 50.0, 50.0, 50.0],
        "region": ["n", "n", "s", "s", "s", "n", "n", "e", "e", "s", "s", "s"],
        "hsize": [2, 2, 3, 3, 3, 2, 2, 2, 2, 3, 3, 3],
        "pay": [1.0, 2.0, 3.0, None, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 1.5, 2.5],
        "job": ["x", "y", "x", "y", "z", "x", "x", "y", "y", "z", "z", "x"],
    }))
    varying = on[-1]  # pay / job: person-level
    with pytest.raises(SDCError, match=rf"column '{varying}' is declared household-level but varies within "
                                       rf"household 5 of 'hh'"):
        call(df.sdc, household="hh", household_columns=[truth[0], varying])
    with pytest.raises(SDCError, match=rf"column '{varying}' is declared household-level but varies within household 5"):
        call(df.lazy().sdc, household="hh", household_columns=[varying]).collect()
    # the declaration's own mistakes, named before any data is read (a LazyFrame too)
    for h, msg in [(dict(household_columns=["hinc"]), "no household= id column is given"),
                   (dict(household="hh", household_columns=["nope"]), "column 'nope' is not in the frame"),
                   (dict(household="hh", household_columns=["hh"]), "'hh' is the household id itself"),
                   (dict(household="hh", household_columns=[1]), "a column name or a list of names")]:
        with pytest.raises(SDCError, match=msg):
            call(df.lazy().sdc, **h)
    # a declared column that is not masked is ignored (a frame-wide declaration, as in a recipe)
    a = _outcome(lambda: call(df.sdc, household="hh", household_columns=[truth[0], "hsize"]))
    assert _same(a, _outcome(lambda: call(df.sdc, household="hh", household_columns=truth[0])))


def test_an_accidentally_constant_column_is_person_level_when_declared():
    """Mostly one-person households: ``sex`` is constant within every household by accident.
    Detected, it is noised once per household; declared person-level, each person gets their own
    draw, exactly the plain per-person noise."""
    df = pl.DataFrame({"hh": [1, 2, 3, 3, 4, 5, 6, 6, 7, 8], "inc": [5.0, 6, 7, 7, 8, 9, 10, 10, 11, 12],
                       "sex": [1.0, 2, 1, 1, 2, 2, 1, 1, 2, 1]})
    assert split_columns(df, "hh", ["inc", "sex"]) == (["inc", "sex"], [])
    detected = df.sdc.add_noise(["inc", "sex"], seed=1, household="hh")
    declared = df.sdc.add_noise(["inc", "sex"], seed=1, household="hh", household_columns=["inc"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HouseholdWarning)
        plain = df.sdc.add_noise(["sex"], seed=1)
    assert detected["sex"][2] == detected["sex"][3]
    assert declared["sex"].equals(plain["sex"]) and declared["sex"][2] != declared["sex"][3]
    assert declared["inc"].equals(detected["inc"])


def test_microaggregation_declared():
    df = pl.DataFrame({
        "hh": [1, 1, 1, 2, 3, 3, 4, 5, 5, 6, 7, 7],
        "inc": [900.0, 900, 900, 1500, 2000, 2000, 2100, 3000, 3000, 3300, 4000, 4000],
        "wage": [500.0, 300, 200, 1500, 1200, 1000, 2100, 1000, 1900, 2000, 800, 700],
    })
    hh_path = df.sdc.mdav(3, on="inc", household="hh", group_column="g")
    assert hh_path.equals(df.sdc.mdav(3, on="inc", household="hh", household_columns=["inc"], group_column="g"))
    # declared person-level: the person path, still >= k households in every group
    person = df.sdc.mdav(3, on="inc", household="hh", household_columns=[], group_column="g")
    assert person.group_by("g").agg(pl.col("hh").n_unique())["hh"].min() >= 3
    assert not person.equals(hh_path)   # each household weighs by its members now
    with pytest.raises(SDCError, match="column 'wage' is declared household-level but varies within household 1"):
        df.sdc.mdav(3, on="wage", household="hh", household_columns=["wage"])
    with pytest.raises(SDCError, match="column 'wage' is declared household-level"):
        df.lazy().sdc.microaggregate(3, on="wage", household="hh", household_columns="wage").collect()
    with pytest.raises(SDCError, match="no household= id column is given"):
        df.lazy().sdc.mhm(3, on="inc", household_columns=["inc"])
    # mil: the same declaration
    g = person.select("hh", "inc", "g")
    r = g.sdc.mil(3, "inc", household="hh", household_columns=[], standardize=False)
    assert r.select("hh", "inc").equals(g.select("hh", "inc"))
    assert r.group_by("g").agg(pl.col("hh").n_unique())["hh"].min() >= 3
    sse = lambda f: f.select(((pl.col("inc") - pl.col("inc").mean().over("g")) ** 2).sum()).item()
    assert sse(r) <= sse(g) + 1e-9
    with pytest.raises(SDCError, match="column 'inc' is declared household-level but varies within household"):
        g.with_columns(pl.col("inc") + pl.int_range(pl.len())).sdc.mil(3, "inc", household="hh",
                                                                        household_columns=["inc"])


def test_cli_and_recipe_take_the_declaration(tmp_path):
    from polars_sdc.cli import main

    df = pl.DataFrame({"hh": [1, 2, 3, 3, 4, 5, 6, 6, 7, 8], "inc": [5.0, 6, 7, 7, 8, 9, 10, 10, 11, 12],
                       "sex": [1.0, 2, 1, 1, 2, 2, 1, 1, 2, 1]})
    src, out = tmp_path / "in.parquet", tmp_path / "out.parquet"
    df.write_parquet(src)
    assert main(["add-noise", str(src), str(out), "--on", "inc,sex", "--seed", "1", "--household", "hh",
                 "--household-columns", "inc"]) == 0
    want = df.sdc.add_noise(["inc", "sex"], seed=1, household="hh", household_columns=["inc"])
    assert pl.read_parquet(out).equals(want)
    assert main(["noise", str(src), str(out), "--on", "inc,sex", "--phi", "1", "--seed", "1", "--household", "hh",
                 "--household-columns", "inc"]) == 0
    assert pl.read_parquet(out).equals(df.sdc.laplace(1.0, ["inc", "sex"], seed=1, household="hh",
                                                      household_columns=["inc"]))
    p = polars_sdc.Problem(df, numeric=["inc", "sex"], household="hh")
    assert p.add_noise(seed=1, household_columns=["inc"]).data().equals(want)


def test_household_warning_is_exported():
    assert polars_sdc.HouseholdWarning is HouseholdWarning and issubclass(HouseholdWarning, UserWarning)


def test_eusilc_household_incomes_declared_person_level_keep_the_guarantee():
    """household_columns=[] on EU-SILC's household incomes: the person-level path, which still
    gives every group >= 3 households and releases no household's income vector unchanged
    unless >= 3 households share it (issue 24's done-when, on the declared path)."""
    from tests.test_household_microagg import HH_INCOME, households_in_groups, unchanged_unshared

    df = polars_sdc.datasets.eusilc()
    out = df.sdc.mdav(3, on=HH_INCOME, household="db030", household_columns=[], group_column="g")
    assert households_in_groups(out).min() >= 3
    assert unchanged_unshared(df, out, HH_INCOME, 3, "db030") == 0
    hh = df.sdc.mdav(3, on=HH_INCOME, household="db030", household_columns=HH_INCOME, group_column="g")
    assert hh.equals(df.sdc.mdav(3, on=HH_INCOME, household="db030", group_column="g"))


# -- audit (session 24): the CLI's --household-columns "" declares every masked column person-level
@pytest.mark.parametrize("command", [["noise", "--phi", "1"], ["add-noise"]])
def test_cli_empty_household_columns_declares_every_column_person_level(tmp_path, command):
    from polars_sdc import cli

    df = pl.DataFrame({"hh": [1, 1, 2, 2, 3, 3, 4, 4], "sex": [1, 1, 2, 2, 1, 1, 2, 2],
                       "inc": [1.0, 2, 3, 4, 5, 6, 7, 8]})   # sex constant within every household by accident
    data = tmp_path / "in.csv"
    df.write_csv(data)
    out, detected = tmp_path / "out.csv", tmp_path / "detected.csv"
    base = [command[0], str(data)]
    rest = [*command[1:], "--on", "inc,sex", "--seed", "3", "--household", "hh"]
    assert cli.main([*base, str(out), *rest, "--household-columns", ""]) == 0
    assert cli.main([*base, str(detected), *rest]) == 0
    per_person = pl.read_csv(out).group_by("hh").agg(pl.col("sex").n_unique())["sex"]
    per_household = pl.read_csv(detected).group_by("hh").agg(pl.col("sex").n_unique())["sex"]
    assert per_household.max() == 1 and per_person.min() == 2   # declared: one draw per person
