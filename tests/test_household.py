"""polars_sdc.household: index, detection, collapse and broadcast against plain-Python references."""
import warnings

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import polars_sdc
from polars_sdc import SDCError
from polars_sdc.household import (
    HouseholdWarning, broadcast, check_household_level, collapse, household_index, household_level_columns,
    split_columns, warn_household_level,
)
from tests.naive import reference_collapse, reference_household_index, reference_household_level


@st.composite
def households(draw, max_households=12):
    """A shuffled person frame: households of 1..12 members, a household-level Int64 and
    String column (nullable per household), a person-level column, person weights."""
    n_h = draw(st.integers(1, max_households))
    sizes = draw(st.lists(st.integers(1, 12), min_size=n_h, max_size=n_h))
    ids = draw(st.lists(st.integers(-50, 50), min_size=n_h, max_size=n_h, unique=True))
    hval = draw(st.lists(st.one_of(st.none(), st.integers(0, 3)), min_size=n_h, max_size=n_h))
    hstr = draw(st.lists(st.sampled_from(["a", "b", None]), min_size=n_h, max_size=n_h))
    rows = [(ids[h], hval[h], hstr[h]) for h in range(n_h) for _ in range(sizes[h])]
    perm = draw(st.permutations(range(len(rows))))
    rows = [rows[i] for i in perm]
    n = len(rows)
    person = draw(st.lists(st.one_of(st.none(), st.integers(0, 2)), min_size=n, max_size=n))
    w = draw(st.lists(st.integers(1, 9).map(float), min_size=n, max_size=n))
    return pl.DataFrame({"hh": [r[0] for r in rows], "hv": [r[1] for r in rows], "hs": [r[2] for r in rows],
                         "p": person, "w": w}, schema={"hh": pl.Int64, "hv": pl.Int64, "hs": pl.String,
                                                        "p": pl.Int64, "w": pl.Float64})


@settings(max_examples=60, deadline=None)
@given(households(), st.sampled_from(["first", "sum", "mean"]))
def test_against_reference(df, agg):
    ids = df["hh"].to_list()
    idx, n = household_index(df, "hh")
    assert idx.tolist() == reference_household_index(ids) and n == len(set(ids))
    got = household_level_columns(df, "hh")
    assert got == [c for c in ["hv", "hs", "p", "w"] if reference_household_level(ids, df[c].to_list())]
    assert "hv" in got and "hs" in got
    out = collapse(df, "hh", ["hv", "hs"], weight="w", weight_agg=agg)
    ref = reference_collapse(ids, [df["hv"].to_list(), df["hs"].to_list()], df["w"].to_list(), agg)
    assert [r[:3] for r in out.rows()] == [r[:3] for r in ref]
    assert out["w"].to_list() == pytest.approx([r[3] for r in ref])
    # broadcast of an identity collapse gives the frame back; of a transformed one, the per-member map
    assert broadcast(df, "hh", out, ["hv", "hs"]).equals(df)
    masked = out.with_columns(pl.col("hv") + 100, pl.col("hs").str.to_uppercase())
    back = broadcast(df, "hh", masked, ["hv", "hs"])
    m = {r[0]: r[1:3] for r in masked.rows()}
    assert back.select("hv", "hs").rows() == [m[h] for h in ids]
    assert back.select("hh", "p", "w").equals(df.select("hh", "p", "w"))


def test_nulls_count_as_a_value():
    df = pl.DataFrame({"hh": [1, 1, 2, 2], "a": [None, 1, None, None], "b": [None, None, 3, 3]})
    assert household_level_columns(df, "hh") == ["b"]
    with pytest.raises(SDCError, match=r"column 'a' is declared household-level but varies within household 1 of 'hh' \(values None and 1\)"):
        check_household_level(df, "hh", ["a"])
    with pytest.raises(SDCError, match="column 'a' is declared"):
        split_columns(df, "hh", ["a", "b"], declared=["a"])
    assert split_columns(df, "hh", ["a", "b"]) == (["b"], ["a"])


def test_null_id_and_weights():
    with pytest.raises(SDCError, match=r"household column 'hh': 1 null id"):
        household_index(pl.DataFrame({"hh": [1, None]}), "hh")
    df = pl.DataFrame({"hh": [1, 1, 2], "hw": [3.0, 4.0, 1.0], "w": [1.0, 1.0, 1.0]})
    with pytest.raises(SDCError, match="column 'hw' is declared household-level but varies within household 1"):
        collapse(df, "hh", [], household_weight="hw")
    with pytest.raises(SDCError, match="weight_agg"):
        collapse(df, "hh", [], weight="w", weight_agg="median")


def test_eusilc_household_columns():
    df = polars_sdc.datasets.eusilc()
    hh = household_level_columns(df, "db030")
    for c in ["hsize", "db040", "hy040n", "hy050n", "hy070n", "hy080n", "hy090n", "hy110n", "hy130n", "hy145n",
              "db090"]:
        assert c in hh
    for c in ["age", "rb090", "rb030", "py010n"]:
        assert c not in hh
    c = collapse(df, "db030", ["hsize", "db040"], household_weight="db090")
    assert c.height == 6000 and c["hsize"].sum() == df.height   # household sizes add up to the persons


def test_warning_names_what_leaks():
    df = polars_sdc.datasets.eusilc().select("db030", "hsize", "age", "rb090")
    with pytest.warns(HouseholdWarning, match=r"suppress: column\(s\) 'hsize' are constant within every group of "
                                             r"'db030' \(6000 groups of 1\.\.9 rows\)"):
        warn_household_level(df, ["hsize", "age"], method="suppress")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warn_household_level(df, ["age", "rb090"], method="suppress")   # person-level: silent
        warn_household_level(df, ["hsize"], method="suppress", exclude=["db030"])
        # a column constant everywhere is not a household column
        warn_household_level(df.with_columns(c=pl.lit(1)), ["c"], method="suppress")


def test_a_nearly_household_level_column_is_named():
    df = polars_sdc.datasets.eusilc()
    bad = df.with_columns(hsize=pl.when(pl.int_range(pl.len()) == 5).then(99).otherwise(pl.col("hsize")))
    hid = bad["db030"][5]
    with pytest.warns(HouseholdWarning, match=rf"column 'hsize' varies within 1 of 6000 households of 'db030' "
                                              rf"\(e\.g\. household {hid}\)"):
        bad.sdc.pram(["hsize"], seed=1, household="db030")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        df.sdc.pram(["hsize", "rb090"], seed=1, household="db030")   # rb090 varies in many households: silent
