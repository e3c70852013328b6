"""Audit 27b: targeted record swapping (sdcMicro recordSwap) as a hostile tester: the declared
option ranges, households swapped whole on EU-SILC with a two-level hierarchy, reproducibility
under row orders / eager / lazy / streaming with key=, tiny and degenerate inputs."""
from __future__ import annotations

import warnings

import numpy as np
import polars as pl
import pytest

import polars_sdc
from polars_sdc import SDCError
from polars_sdc.operations import OPERATIONS


def test_declared_ranges_admit_what_the_method_takes():
    """The declaration (CLI help, recipe docs) said k_anonymity >= 1 and risk_threshold <= 1,
    while 0 turns the k-anonymity rule off (docs/record-swapping.md) and a user risk column
    (sdcMicro: any value >= 0) can exceed 1."""
    op = OPERATIONS["swap_records"]
    k, thr = op.option("k_anonymity"), op.option("risk_threshold")
    assert (k.low, k.high) == (0, None) and (thr.low, thr.high) == (0, None)
    df = pl.DataFrame({"hid": [1, 2, 3, 4], "r": ["a", "a", "b", "b"], "risk": [5.0, 0.5, 3.0, 0.5]})
    out = df.sdc.swap_records(household="hid", hierarchy="r", k_anonymity=0, swaprate=0.0, seed=1)
    assert out.equals(df)                                   # nobody at risk, nothing sampled
    plan = df.sdc.swap_records_plan(household="hid", hierarchy="r", risk="risk", risk_threshold=2.0, swaprate=0.0,
                                    seed=1)
    at_risk = plan.filter(pl.col("risk_level").is_not_null())
    assert sorted(at_risk["hid"].to_list()) == [1, 3]      # risks 5 and 3 are above 2: both swapped
    assert at_risk["partner"].null_count() == 0
    with pytest.raises(SDCError, match="k_anonymity must be >= 0"):
        df.sdc.swap_records(household="hid", hierarchy="r", k_anonymity=-1, seed=1)


def _silc_two_levels() -> pl.DataFrame:
    """EU-SILC (docs/record-swapping.md) with a second, household-level level: a district
    within the region (household id modulo 4), and a household-level key column."""
    silc = polars_sdc.datasets.eusilc()
    return silc.with_columns(district=pl.col("db040") + "-" + (pl.col("db030") % 4).cast(pl.String),
                             hkey=(pl.col("db030") * 7919 + 13).cast(pl.String))


ARGS = dict(household="db030", hierarchy=["db040", "district"], similar=[["hsize"], []], swaprate=0.05, k_anonymity=3,
            risk_variables=["age", "rb090"], carry_along="db090", swapped_column="with", seed=27)


def test_eusilc_two_levels_households_whole_and_reproducible():
    silc = _silc_two_levels()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = silc.sdc.swap_records(key="hkey", **ARGS)
        lazy = silc.lazy().sdc.swap_records(key="hkey", **ARGS).collect()
        stream = silc.lazy().sdc.swap_records(key="hkey", **ARGS).collect(engine="streaming")
        shuffled = silc.with_row_index("row").sample(fraction=1.0, shuffle=True, seed=5)
        back = shuffled.sdc.swap_records(key="hkey", **ARGS).sort("row").drop("row")
    assert lazy.equals(out) and stream.equals(out) and back.equals(out)
    moved = ["db040", "district", "db090", "with"]
    # households whole: every moved column constant within every household, and a household's
    # new values are its partner's original ones
    assert out.group_by("db030").agg(pl.col(moved).n_unique()).select(pl.col(moved).max()).row(0) == (1, 1, 1, 1)
    orig = silc.group_by("db030").agg(pl.col("db040", "district", "db090").first())
    new = out.group_by("db030").agg(pl.col(moved).first()).join(orig, left_on="with", right_on="db030", suffix="_o")
    for c in ("db040", "district", "db090"):
        assert new[c].equals(new[f"{c}_o"])
    # pairs of the same household size (the first profile) or any (the fallback), never the same district
    sw = new.filter(pl.col("db030") != pl.col("with")).join(orig.select("db030", own="district"), on="db030")
    assert sw.height > 0 and (sw["district"] != sw["own"]).all()      # moved to another district
    # every other column untouched, row order kept
    assert out.drop(moved).equals(silc.drop(["db040", "district", "db090"]))
    # every household at risk (brute force: a member whose age x sex has < 3 persons in its
    # region or district) is swapped or reported without donor
    risky = set(silc.filter((pl.len().over("db040", "age", "rb090") < 3)
                            | (pl.len().over("district", "age", "rb090") < 3))["db030"].to_list())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plan = silc.sdc.swap_records_plan(key="hkey", **{k: v for k, v in ARGS.items()
                                                         if k not in ("carry_along", "swapped_column")})
    assert risky <= set(plan["db030"].to_list())
    assert set(sw["db030"].to_list()) == set(plan.filter(pl.col("partner").is_not_null())["db030"].to_list())
    # the region totals of households and persons are unchanged when every pair has one size
    same_size = plan.filter(pl.col("partner").is_not_null()).join(
        silc.group_by("db030").agg(pl.col("hsize").first()), on="db030").join(
        silc.group_by("db030").agg(pl.col("hsize").first().alias("hs_p")), left_on="partner", right_on="db030")
    if (same_size["hsize"] == same_size["hs_p"]).all():
        assert silc["db040"].value_counts().sort("db040").equals(out["db040"].value_counts().sort("db040"))


def test_swaprate_as_documented_without_households_at_risk():
    """k_anonymity=0: nobody at risk, so floor or ceil of H * swaprate / 2 households are
    selected (docs/record-swapping.md) and, with a donor for each, twice that swapped."""
    silc = polars_sdc.datasets.eusilc()
    H = silc["db030"].n_unique()
    for rate in (0.01, 0.05, 0.2):
        plan = silc.sdc.swap_records_plan(household="db030", hierarchy="db040", swaprate=rate, k_anonymity=0, seed=3)
        selected = plan.filter(pl.col("role") == "selected").height
        assert selected in (int(np.floor(H * rate / 2)), int(np.ceil(H * rate / 2)))
        assert plan.height == 2 * selected and plan["partner"].null_count() == 0


@pytest.mark.parametrize("frame", [
    pl.DataFrame({"hid": [7], "r": ["a"]}),                                    # one person
    pl.DataFrame({"hid": [7, 7, 7], "r": ["a", "a", "a"]}),                    # one household
    pl.DataFrame({"hid": [1, 2, 3, 4], "r": ["a"] * 4}),                       # one area: no donor anywhere
    pl.DataFrame({"hid": [1, 1, 2, 2], "r": ["a", "a", "b", "b"]}),            # two identical households
])
def test_degenerate_inputs(frame):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = frame.sdc.swap_records(household="hid", hierarchy="r", swaprate=1.0, k_anonymity=3, seed=1)
        lazy = frame.lazy().sdc.swap_records(household="hid", hierarchy="r", swaprate=1.0, k_anonymity=3,
                                             seed=1).collect()
    assert out.equals(lazy) and out.height == frame.height
    assert out.group_by("hid").agg(pl.col("r").n_unique())["r"].max() == 1
    if frame["r"].n_unique() == 1:
        assert out.equals(frame)                      # nowhere to move
    else:
        assert sorted(out["r"].to_list()) == sorted(frame["r"].to_list())
