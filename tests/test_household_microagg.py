"""Microaggregation of household surveys (issue 24): ``household=`` (household-level columns once
per household and broadcast, person-level groups spanning >= k households, no vector released
unchanged unless >= k households share it) and structural nulls (rows grouped by null pattern,
nulls kept, small patterns an error or pooled)."""
import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import polars_sdc
from polars_sdc import SDCError
from polars_sdc.microagg.blocks import household_repair, households_per_group

from naive import naive_household_repair

HH_INCOME = ["hy040n", "hy050n", "hy070n", "hy080n", "hy090n", "hy110n", "hy130n", "hy145n"]
P_INCOME = ["py010n", "py050n", "py090n", "py100n", "py110n", "py120n", "py130n", "py140n"]
ANNEAL = {"max_iter": 20_000, "seed": 1}


@pytest.fixture(scope="module")
def silc():
    return polars_sdc.datasets.eusilc()


def households_in_groups(out: pl.DataFrame, group: str = "g", household: str = "db030") -> pl.Series:
    return out.group_by(group).agg(pl.col(household).n_unique()).get_column(household)


def unchanged_unshared(orig: pl.DataFrame, out: pl.DataFrame, cols: list[str], k: int, household: str) -> int:
    """Persons whose vector over ``cols`` comes back unchanged although fewer than k households
    hold that vector in the original."""
    shared = orig.group_by(cols).agg(pl.col(household).n_unique().alias("_nh"))
    same = np.ones(orig.height, dtype=bool)
    for c in cols:
        same &= out.get_column(c).eq_missing(orig.get_column(c)).to_numpy()
    hit = orig.filter(pl.Series(same)).join(shared, on=cols, how="left", nulls_equal=True)
    return hit.filter(pl.col("_nh") < k).height


# -- EU-SILC: the done-when ------------------------------------------------------------
def test_plain_mdav_leaks_household_vectors(silc):
    """The problem (issue 24): per person, MDAV groups a household's members together and releases
    the household's own income vector for 4,358 persons."""
    from polars_sdc.household import HouseholdWarning

    with pytest.warns(HouseholdWarning, match="Pass household='db030'"):
        out = silc.sdc.mdav(3, on=HH_INCOME, group_column="g")
    same = np.ones(silc.height, dtype=bool)
    for c in HH_INCOME:
        same &= (out[c] == silc[c]).to_numpy()
    assert int(same.sum()) == 4358
    assert households_in_groups(out).min() == 1


@pytest.mark.parametrize("method", ["mdav", "mhm", "vmdav"])
@pytest.mark.parametrize("options", [{}, {"refine": "mil"}, {"refine": "anneal", "refine_options": ANNEAL}],
                         ids=["plain", "mil", "anneal"])
def test_household_incomes_k3(silc, method, options):
    out = getattr(silc.sdc, method)(3, on=HH_INCOME, household="db030", group_column="g", **options)
    assert households_in_groups(out).min() >= 3
    assert unchanged_unshared(silc, out, HH_INCOME, 3, "db030") == 0
    # once per household: every member carries the same released vector, the group id too
    assert out.group_by("db030").agg(pl.struct(HH_INCOME + ["g"]).n_unique()).get_column(HH_INCOME[0]).max() == 1
    # the released value is the mean over households (each once), not over persons
    hh = silc.unique("db030", keep="first", maintain_order=True).with_columns(out.unique("db030", maintain_order=True)["g"])
    means = hh.group_by("g").agg(pl.col("hy040n").mean().alias("m"))
    got = out.unique("db030", maintain_order=True).join(means, on="g").select((pl.col("hy040n") - pl.col("m")).abs().max())
    assert got.item() < 1e-6
    assert out.drop(HH_INCOME + ["g"]).equals(silc.drop(HH_INCOME))


def test_person_incomes_with_childrens_nulls(silc):
    for method in ("mdav", "mhm", "vmdav"):
        out = getattr(silc.sdc, method)(3, on=P_INCOME, household="db030", group_column="g")
        for c in P_INCOME:  # nulls stay exactly where they were
            assert (out[c].is_null() == silc[c].is_null()).all()
        groups = out.group_by("g").agg(pl.col("db030").n_unique().alias("h"), pl.col("py010n").is_null().n_unique().alias("p"))
        assert groups["h"].min() >= 3 and groups["p"].max() == 1  # >= 3 households, one null pattern
        assert unchanged_unshared(silc, out, P_INCOME, 3, "db030") == 0


def test_person_incomes_without_household_keep_nulls(silc):
    out = silc.sdc.mdav(3, on=P_INCOME, group_column="g")
    assert out["py010n"].null_count() == 2720
    sizes = out.filter(pl.col("py010n").is_not_null()).group_by("g").len()["len"]
    assert sizes.min() >= 3


def test_mixed_household_and_person_columns_refused(silc):
    with pytest.raises(SDCError, match=r"'hy040n' are household-level .* 'py010n' person-level; microaggregate them in two calls"):
        silc.sdc.mdav(3, on=["hy040n", "py010n"], household="db030")


def test_strata_households(silc):
    out = silc.sdc.mdav(3, on=HH_INCOME, by="db040", household="db030", group_column="g")
    assert households_in_groups(out).min() >= 3
    assert out.group_by("g").agg(pl.col("db040").n_unique())["db040"].max() == 1
    with pytest.raises(SDCError, match="`by` column 'rb090' varies within a household of 'db030'"):
        silc.sdc.mdav(3, on=HH_INCOME, by="rb090", household="db030")
    with pytest.raises(SDCError, match="household column 'db030': also a stratum"):
        silc.sdc.mdav(3, on=HH_INCOME, by="db030", household="db030")


def test_mil_frame_households(silc):
    g = silc.sdc.mdav(3, on=HH_INCOME, household="db030", group_column="g")
    out = g.sdc.mil(3, HH_INCOME, groups="g", household="db030")
    assert households_in_groups(out).min() >= 3
    assert out.group_by("db030").agg(pl.col("g").n_unique())["g"].max() == 1
    adults = silc.filter(pl.col("py010n").is_not_null(), pl.col("db040").is_in(["Tyrol", "Vorarlberg"]))
    g = adults.sdc.mdav(3, on=P_INCOME, household="db030", group_column="g")
    for refine, opts in (("mil", None), ("anneal", ANNEAL)):
        out = g.sdc.mil(3, P_INCOME, groups="g", household="db030", refine=refine, refine_options=opts)
        assert households_in_groups(out).min() >= 3
    bad = adults.with_columns(g=pl.col("db030"))  # one household per group
    with pytest.raises(SDCError, match="household"):
        bad.sdc.mil(3, P_INCOME, groups="g", household="db030")


# -- structural nulls ---------------------------------------------------------------------------
def test_small_null_pattern_error_and_pooling():
    df = pl.DataFrame({
        "x": [1.0, 2.0, 3.0, None, None, None, 7.0, None],
        "y": [1.0, 2.0, 4.0, 8.0, 9.0, 7.0, None, None],
    })
    with pytest.raises(SDCError, match=r"null pattern \('y' null\): 1 row\(s\), fewer than k = 3"):
        df.sdc.mdav(3, on=["x", "y"])
    out = df.sdc.mdav(3, on=["x", "y"], merge_small_patterns=True, group_column="g", standardize=False)
    # 'y' null (1 row) and both null (1 row) are pooled (2 rows < 3) into the big pattern where that
    # suppresses the fewest values: 'x' null (3 y values lost; no nulls would lose 6), released on
    # what all five rows have (nothing): x and y null
    assert out["g"].to_list() == [0, 0, 0, 1, 1, 1, 1, 1]
    assert out["x"].to_list()[:3] == [2.0, 2.0, 2.0]
    assert out["y"].to_list()[:3] == pytest.approx([7 / 3] * 3)
    assert out["x"].to_list()[3:] == [None] * 5 and out["y"].to_list()[3:] == [None] * 5
    assert df["x"].null_count() == 4  # input untouched


def test_null_patterns_partitioned_on_their_columns():
    df = pl.DataFrame({"x": [1.0, 1.1, 50.0, 51.0, None, None], "y": [0.0, 100.0, 0.0, 100.0, 5.0, 6.0]})
    out = df.sdc.mdav(2, on=["x", "y"], group_column="g")
    assert out["x"].to_list()[4:] == [None, None] and out["y"].to_list()[4:] == [5.5, 5.5]
    assert out["g"].to_list()[4] == out["g"].to_list()[5]
    assert len(set(out["g"].to_list()[:4]) & {out["g"][4]}) == 0


def test_nan_still_refused():
    df = pl.DataFrame({"x": [1.0, float("nan"), None, 2.0]})
    with pytest.raises(SDCError, match="column 'x': 1 NaN"):
        df.sdc.mdav(1, on="x")


# -- the repair against a brute-force reference -------------------------------------------------
@settings(max_examples=60, deadline=None)
@given(st.data())
def test_household_repair_matches_naive(data):
    n = data.draw(st.integers(4, 40))
    k = data.draw(st.integers(2, 4))
    units = np.array(data.draw(st.lists(st.integers(0, n // 2), min_size=n, max_size=n)))
    if np.unique(units).size < k:
        return
    X = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1))).normal(size=(n, 2))  # no distance ties
    labels = np.array(data.draw(st.lists(st.integers(0, max(n // k - 1, 0)), min_size=n, max_size=n)))
    got = household_repair(X, labels, units, k)
    assert households_per_group(got, units)[np.bincount(got) > 0].min() >= k
    assert got.tolist() == naive_household_repair(X, labels, units, k).tolist()


# -- property tests over random household structures --------------------------------------------
METHODS = [("mdav", {}), ("vmdav", {}), ("mhm", {"order": "npn"}), ("mhm", {"order": "grid"}),
           ("mhm", {"order": "vgrid"}), ("mhm", {"order": "kd"}), ("mhm", {"order": "kd-mdav"})]
REFINES = [{}, {"refine": "mil"}, {"refine": "anneal", "refine_options": {"max_iter": 2000, "seed": 3}}]


@st.composite
def survey(draw):
    sizes = draw(st.lists(st.integers(1, 12), min_size=6, max_size=25))
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    hh = np.repeat(np.arange(len(sizes)) * 7 + 3, sizes)
    n = hh.size
    region = np.repeat(rng.integers(0, 2, len(sizes)), sizes)
    hinc = np.repeat(np.round(rng.lognormal(8, 1, len(sizes)), 2), sizes)
    hexp = np.repeat(rng.integers(0, 5, len(sizes)).astype(float), sizes)
    child = rng.random(n) < draw(st.sampled_from([0.0, 0.3]))
    pinc = np.where(child, np.nan, np.round(rng.lognormal(7, 1, n), 1))
    pben = np.where(child, np.nan, rng.integers(0, 3, n) * 100.0)
    order = rng.permutation(n)  # households need not be contiguous
    return pl.DataFrame({
        "id": np.arange(n), "hh": hh[order], "region": region[order].astype(str), "hinc": hinc[order],
        "hexp": hexp[order], "pinc": pinc[order], "pben": pben[order],
    }).with_columns(pl.col("pinc").fill_nan(None), pl.col("pben").fill_nan(None))


def _check_release(df, out, on, k):
    assert out["id"].to_list() == df["id"].to_list() and out.columns == df.columns + ["g"]
    assert households_in_groups(out, "g", "hh").min() >= k
    for c in on:
        assert (out[c].is_null() == df[c].is_null()).all()
    assert out.group_by("g").agg(pl.col(on[0]).is_null().n_unique())[on[0]].max() == 1
    assert unchanged_unshared(df, out, on, k, "hh") == 0 or any(out[c].null_count() for c in on)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(survey(), st.sampled_from(METHODS), st.sampled_from(REFINES), st.sampled_from(["household", "person"]),
       st.booleans())
def test_household_property(df, method, refine, level, strata):
    k = 2
    name, opts = method
    on = ["hinc", "hexp"] if level == "household" else ["pinc", "pben"]
    by = "region" if strata else None
    kwargs = dict(on=on, household="hh", group_column="g", by=by, merge_small_strata=True,
                  merge_small_patterns=True, **opts, **refine)
    before = df.clone()
    try:
        out = getattr(df.sdc, name)(k, **kwargs)
    except SDCError as e:  # only for too few households in all
        assert "fewer than k" in str(e)
        return
    assert df.equals(before)
    lazy = getattr(df.lazy().sdc, name)(k, **kwargs)
    assert lazy.collect().equals(out)
    assert lazy.collect(engine="streaming").equals(out)
    if level == "household":
        assert out.group_by("hh").agg(pl.struct(on + ["g"]).n_unique())["hinc"].max() == 1
    if by is not None:
        assert out.group_by("g").agg(pl.col("region").n_unique())["region"].max() == 1
    if not any(df[c].null_count() for c in on) or level == "household":
        _check_release(df, out, on, k)
    else:  # pooled patterns may suppress values: nulls stay null, >= k households per group
        assert households_in_groups(out, "g", "hh").min() >= k
        for c in on:
            assert out.filter(df[c].is_null())[c].null_count() == df[c].null_count()


@settings(max_examples=15, deadline=None)
@given(survey(), st.sampled_from(REFINES))
def test_household_property_univariate(df, refine):
    out = df.sdc.univariate(2, on="pinc", household="hh", group_column="g", merge_small_patterns=True, **refine)
    assert households_in_groups(out, "g", "hh").min() >= 2
    # nulls stay null; a pattern pooled (merge_small_patterns, fewer than k households) may
    # suppress the pooled rows' values too (documented), so non-null may become null, never the reverse
    assert out.filter(df["pinc"].is_null())["pinc"].null_count() == df["pinc"].null_count()
    if df.group_by(pl.col("pinc").is_null()).agg(pl.col("hh").n_unique())["hh"].min() >= 2:
        assert (out["pinc"].is_null() == df["pinc"].is_null()).all()  # no pattern pooled: the pattern kept
    assert df.lazy().sdc.univariate(2, on="pinc", household="hh", group_column="g", merge_small_patterns=True,
                                    **refine).collect(engine="streaming").equals(out)


def test_cli_household(silc, tmp_path, capsys):
    from polars_sdc.cli import main

    src, dst = tmp_path / "silc.parquet", tmp_path / "out.parquet"
    silc.write_parquet(src)
    main(["anonymize", str(src), str(dst), "--k", "3", "--on", ",".join(HH_INCOME), "--household", "db030",
          "--group-column", "g"])
    out = pl.read_parquet(dst)
    assert households_in_groups(out).min() >= 3
    assert out.equals(silc.sdc.mdav(3, on=HH_INCOME, household="db030", group_column="g"))
    main(["anonymize", str(src), str(dst), "--k", "3", "--on", "py010n,py050n", "--household", "db030"])
    assert pl.read_parquet(dst)["py010n"].null_count() == 2720
    # structural nulls: SSE/SST over the non-null values, the children's nulls counted
    assert "null values skipped" in capsys.readouterr().out


def test_partition_matches_release_and_lazy(silc):
    out = silc.sdc.mhm(3, on=HH_INCOME, household="db030", group_column="g", order="kd")
    part = silc.sdc.partition(3, on=HH_INCOME, method="mhm", order="kd", household="db030")
    assert part.to_list() == out["g"].to_list()
    lazy = silc.lazy().sdc.partition(3, on=HH_INCOME, method="mhm", order="kd", household="db030")
    assert lazy.collect(engine="streaming")["group"].to_list() == out["g"].to_list()


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(survey(), st.sampled_from(["mil", "anneal"]))
def test_person_level_refinement_never_worse(df, refine):
    """The refinement is followed by the household repair and kept only if its SSE is not above
    the repaired partition's: with household= it never raises the SSE."""
    from polars_sdc.microagg.blocks import sse
    from polars_sdc.microagg.pipeline import MicroaggSpec

    df = df.filter(pl.col("pinc").is_not_null())
    if df["hh"].n_unique() < 2:
        return
    opts = {"max_iter": 2000, "seed": 5} if refine == "anneal" else None
    base = df.sdc.partition(2, on=["pinc", "pben"], household="hh").to_numpy()
    better = df.sdc.partition(2, on=["pinc", "pben"], household="hh", refine=refine, refine_options=opts).to_numpy()
    X = MicroaggSpec.build(df, 2, ["pinc", "pben"])._features(df).numeric
    assert sse(X, better) <= sse(X, base) + 1e-9
    assert households_per_group(better, df["hh"].to_numpy()).min() >= 2
