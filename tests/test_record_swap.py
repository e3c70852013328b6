"""Targeted record swapping (sdcMicro 5.8.1 ``recordSwap``): the kernel against the literal
reference (tests/naive.py), the invariants over random household structures (hypothesis),
sdcMicro's own test properties and the errors."""
import math
import warnings

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import polars_sdc  # noqa: F401
from polars_sdc import SDCError, datasets
from polars_sdc.masking.record_swap import swap_records_frame, swap_records_plan
from naive import reference_record_swap, reference_risk_levels

HIER = ["r1", "r2", "r3"]


def households(sizes, rs, levels=3, n_codes=(2, 3, 3)):
    """Persons in households of the given sizes: ids (not in order), a nested area code per
    level, household-level ``hs`` (size capped at 4) and ``ht``, person-level ``age``/``sex``;
    rows shuffled."""
    H = len(sizes)
    sizes = np.asarray(sizes)
    ids = rs.permutation(3 * H)[:H] + 100
    cols = {"hid": np.repeat(ids, sizes)}
    for lv in range(levels):
        cols[HIER[lv]] = np.repeat(rs.integers(0, n_codes[lv], H), sizes)
    cols["hs"] = np.repeat(np.minimum(sizes, 4), sizes)
    cols["ht"] = np.repeat(rs.integers(0, 2, H), sizes)
    n = int(sizes.sum())
    cols["age"] = rs.integers(0, 4, n)
    cols["sex"] = rs.integers(0, 2, n)
    cols["row"] = np.arange(n)
    df = pl.DataFrame(cols)
    if levels > 1:
        df = df.with_columns(pl.col("r2").cast(pl.String))
    return df.sample(fraction=1.0, shuffle=True, seed=int(rs.integers(1 << 30)))


structures = st.builds(
    lambda sizes, seed, levels: (sizes, seed, levels),
    st.lists(st.integers(1, 12), min_size=2, max_size=40), st.integers(0, 2**31), st.integers(1, 3),
)
PROFILES = [None, ["hs"], [["hs", "ht"], ["hs"]], [["hs"], []]]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(structures, st.sampled_from([0, 0.1, 0.4, 1.0]), st.integers(0, 4), st.sampled_from(range(4)))
def test_kernel_equals_the_literal_reference(structure, rate, k, prof):
    sizes, seed, levels = structure
    df = households(sizes, np.random.default_rng(seed), levels)
    hier = HIER[:levels]
    sim = PROFILES[prof]
    norm = [[]] if sim is None else ([sim] if isinstance(sim[0], str) else sim)
    ref, ref_failed = reference_record_swap(df, "hid", hier, norm, rate, k, ["age", "sex"], seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plan = swap_records_plan(df, household="hid", hierarchy=hier, similar=sim, swaprate=rate, k_anonymity=k,
                                 risk_variables=["age", "sex"], seed=seed)
    pairs = dict(plan.select("hid", "partner").rows())
    assert {h: p for h, p in pairs.items() if p is not None} == ref
    assert {h for h, p in pairs.items() if p is None} == ref_failed


def check_swap(df, out, plan, hier, carry, k, risk_variables):
    """Every invariant of a swap: households intact, values = the partner's original ones,
    pairs symmetric and across areas at their level, households at risk swapped."""
    L = len(hier)
    moved = [*hier, *carry]
    # 1. row order and every other column unchanged
    assert out.columns[: df.width] == df.columns
    assert out.drop([*moved, "with"]).equals(df.drop(moved))
    # 2. households intact: moved columns constant within each household
    assert out.group_by("hid").agg(pl.col(moved).n_unique()).select(pl.col(moved).max()).row(0) == (1,) * len(moved)
    # 3. a household's new values are its partner's original ones
    orig = df.group_by("hid").agg(pl.col(moved).first())
    new = out.group_by("hid").agg(pl.col([*moved, "with"]).first())
    got = new.join(orig.rename({c: f"{c}_o" for c in moved}), left_on="with", right_on="hid")
    for c in moved:
        assert got[c].equals(got[f"{c}_o"])
    # 4. pairs: symmetric, unique, across areas at the swap's level
    swapped = plan.filter(pl.col("partner").is_not_null())
    pd = dict(swapped.select("hid", "partner").rows())
    assert all(pd[p] == h for h, p in pd.items())
    assert new.filter(pl.col("hid") != pl.col("with")).height == len(pd)
    areas = {h: tuple(v) for h, *v in orig.select("hid", *hier).rows()}
    for h, p, lvl in swapped.select("hid", "partner", pl.col("level").cast(pl.String)).rows():
        lv = hier.index(lvl)
        assert areas[h][: lv + 1] != areas[p][: lv + 1], "swapped within the same area"
    # 5. every household at risk (brute-force counts) is swapped across its level, unless no donor
    levels = reference_risk_levels(df, hier, risk_variables, k)
    failed = set(plan.filter(pl.col("partner").is_null())["hid"].to_list())
    info = {h: (hier.index(lvl), role) for h, lvl, role in
            swapped.select("hid", pl.col("level").cast(pl.String), pl.col("role").cast(pl.String)).rows()}
    for h, lv in levels.items():
        if lv < L and h not in failed:
            assert h in info, f"household {h} at risk at level {lv} not swapped"
            slv, role = info[h]
            # a donor may be swapped at a finer level only if it found no donor at its own level
            # (sdcMicro keeps such households in the donor pool; the reference test pins that)
            assert slv <= lv or role == "donor"
            if role == "selected":
                assert slv == lv
    rl = dict(plan.select("hid", pl.col("risk_level").cast(pl.String)).rows())
    for h, lvl in rl.items():
        assert (hier.index(lvl) if lvl is not None else L) == levels[h]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(structures, st.sampled_from([0.0, 0.2, 0.6]), st.integers(0, 4), st.sampled_from(range(4)))
def test_invariants_over_random_households(structure, rate, k, prof):
    sizes, seed, levels = structure
    df = households(sizes, np.random.default_rng(seed), levels)
    hier = HIER[:levels]
    args = dict(household="hid", hierarchy=hier, similar=PROFILES[prof], swaprate=rate, k_anonymity=k,
                risk_variables=["age", "sex"], seed=seed)
    before = df.clone()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = df.sdc.swap_records(carry_along="ht", swapped_column="with", **args)
        plan = df.sdc.swap_records_plan(**args)
        lazy = df.lazy().sdc.swap_records(carry_along="ht", swapped_column="with", **args).collect()
        # the same rows in another order give the same result, row for row
        shuffled = df.sample(fraction=1.0, shuffle=True, seed=seed % 1000)
        out2 = shuffled.sdc.swap_records(carry_along="ht", swapped_column="with", **args)
    assert df.equals(before)
    assert lazy.equals(out)
    assert out2.sort("row").equals(out.sort("row"))
    check_swap(df, out, plan, hier, ["ht"], k, ["age", "sex"])
    if PROFILES[prof] is not None:     # profile [hs] (or [hs, ht] then [hs], or [hs] then any)
        hs = dict(df.group_by("hid").agg(pl.col("hs").first()).rows())
        ok = [hs[h] == hs[p] for h, p in plan.filter(pl.col("partner").is_not_null()).select("hid", "partner").rows()]
        if prof != 3:
            assert all(ok)


def synthetic(H, seed, sizes=None):
    """A createDat-like population (sdcMicro's test data): nuts1 > nuts2 > nuts3, household
    size 1..6, htype, hincome (household level), ageGroup, gender, national (person level)."""
    rs = np.random.default_rng(seed)
    size = rs.integers(1, 7, H) if sizes is None else sizes
    n1 = rs.integers(1, 4, H)
    n2 = n1 * 10 + rs.integers(1, 5, H)
    n3 = n2 * 100 + rs.integers(1, 6, H)
    rep = lambda x: np.repeat(x, size)  # noqa: E731
    n = int(size.sum())
    return pl.DataFrame({
        "hid": rep(np.arange(1, H + 1)), "nuts1": rep(n1), "nuts2": rep(n2), "nuts3": rep(n3), "hsize": rep(size),
        "htype": rep(np.minimum(size, 3) * 10 + rs.integers(0, 3, H)), "hincome": rep(rs.integers(1, 10, H)),
        "ageGroup": rs.integers(1, 7, n), "gender": rs.integers(1, 3, n), "national": rs.integers(1, 6, n),
    })


# sdcMicro's tests/testthat/test_recordSwap_outputs.R, their properties on our own createDat-like data
DAT = synthetic(10_000, 2021)


@pytest.mark.parametrize("rate", [0.05, 0.1, 0.25])
def test_sdcmicro_number_of_swapped_households(rate):
    """sdcMicro: with k_anonymity = 1 (nobody at risk), exactly swaprate * nhid households are
    swapped (H * rate / 2 is an integer here, so the floor/ceil coin does not matter), regions
    constant within households and equal to the partner's original, the rest unchanged."""
    out = DAT.sdc.swap_records(household="hid", hierarchy=["nuts1", "nuts2", "nuts3"], similar=["hsize"],
                               swaprate=rate, k_anonymity=1, risk_variables=["ageGroup", "national"],
                               swapped_column="hid_swapped", seed=2021)
    assert out.filter(pl.col("hid") != pl.col("hid_swapped"))["hid"].n_unique() == round(rate * 10_000)
    hier = ["nuts1", "nuts2", "nuts3"]
    assert out.group_by("hid").agg(pl.col(hier).n_unique()).select(pl.col(hier).max()).row(0) == (1, 1, 1)
    orig = DAT.unique("hid").select("hid", *hier)
    new = out.unique("hid").select("hid_swapped", *hier).rename({"hid_swapped": "hid"})
    assert new.sort("hid").equals(orig.sort("hid"))
    assert out.drop([*hier, "hid_swapped"]).equals(DAT.drop(hier))
    hs = out.unique("hid").join(DAT.unique("hid").select("hid", pl.col("hsize").alias("hs2")),
                                left_on="hid_swapped", right_on="hid")
    assert (hs["hsize"] == hs["hs2"]).all()


def test_sdcmicro_k_anonymity_levels():
    """sdcMicro "test k anonymity levels": every household at risk is swapped, at least
    swaprate * nhid households are swapped, a larger k swaps at least as many, and households
    at risk at the top level move to another nuts1."""
    hier, rv = ["nuts1", "nuts2"], ["ageGroup", "national", "hsize"]
    res = {}
    for k in (2, 3):
        plan = DAT.sdc.swap_records_plan(household="hid", hierarchy=hier, similar=["hsize"], swaprate=0.05,
                                         k_anonymity=k, risk_variables=rv, seed=2021)
        assert plan["partner"].null_count() == 0
        levels = reference_risk_levels(DAT.select("hid", *hier, *rv), hier, rv, k)
        risky = {h for h, lv in levels.items() if lv < 2}
        assert risky and risky <= set(plan["hid"].to_list())
        assert plan.height >= 0.05 * 10_000
        top = plan.filter(pl.col("risk_level") == "nuts1")
        n1 = dict(DAT.unique("hid").select("hid", "nuts1").rows())
        assert all(n1[h] != n1[p] for h, p in top.select("hid", "partner").rows())
        res[k] = plan.height
    assert res[3] >= res[2]


def test_sdcmicro_similarity_profiles_and_fallback():
    """sdcMicro's vignette: a too specific profile leaves some households without a donor (the
    log file; here the plan and a warning); a fallback profile ``hsize`` finds one for all,
    and every pair then has the same hsize."""
    strict = ["nuts1", "hsize", "htype", "hincome"]
    args = dict(household="hid", hierarchy=["nuts1", "nuts2"], risk_variables="gender", k_anonymity=3,
                swaprate=0.05, seed=123456)
    small = synthetic(2_000, 7)
    with pytest.warns(UserWarning, match="no donor found"):
        plan = small.sdc.swap_records_plan(similar=strict, **args)
    failed = plan.filter(pl.col("partner").is_null())
    assert failed.height > 0 and (failed["role"] == "selected").all()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        plan2 = small.sdc.swap_records_plan(similar=[strict, ["hsize"]], **args)
    assert plan2["partner"].null_count() == 0
    assert plan2.height == round(0.05 * 2_000)
    hh = small.unique("hid").select("hid", *strict[1:])
    pairs = plan2.join(hh, on="hid").join(hh, left_on="partner", right_on="hid", suffix="_p")
    assert (pairs["hsize"] == pairs["hsize_p"]).all()
    # the first profile is used whenever it finds a donor: more pairs match on all of it than by chance
    full = (pairs["htype"] == pairs["htype_p"]) & (pairs["hincome"] == pairs["hincome_p"])
    assert full.mean() > 0.5


def test_failed_households_are_released_unchanged():
    df = pl.DataFrame({"hid": [1, 2, 3], "region": ["a", "b", "b"], "t": [1, 2, 3]})
    with pytest.warns(UserWarning, match="no donor found for 1"):
        out = df.sdc.swap_records(household="hid", hierarchy="region", similar="t", k_anonymity=2,
                                  swapped_column="w", seed=1)
    assert out.equals(df.with_columns(w=pl.col("hid")))


def test_sdcmicro_carry_along():
    out = DAT.sdc.swap_records(household="hid", hierarchy=["nuts1", "nuts2"], similar=["hsize"], swaprate=0.05,
                               k_anonymity=1, risk_variables=["ageGroup", "national"], carry_along="nuts3",
                               swapped_column="hid_swapped", seed=2021)
    moved = ["nuts1", "nuts2", "nuts3"]
    assert out.group_by("hid").agg(pl.col(moved).n_unique()).select(pl.col(moved).max()).row(0) == (1, 1, 1)
    new = out.unique("hid").select("hid_swapped", *moved).rename({"hid_swapped": "hid"})
    assert new.sort("hid").equals(DAT.unique("hid").select("hid", *moved).sort("hid"))
    assert out.drop([*moved, "hid_swapped"]).equals(DAT.drop(moved))


def test_sdcmicro_risk_columns_equal_the_counts():
    """sdcMicro "test risk parameter - cpp": risk columns 1 / counts (household maximum) with
    risk_threshold 0.5 give the same release as the counts with k_anonymity = 2 (swaprate 0:
    only the households at risk move)."""
    hier, rv = ["nuts1", "nuts2", "nuts3"], ["ageGroup", "national", "gender", "hsize"]
    risks = [f"risk{i}" for i in range(3)]
    person = DAT.with_columns((1.0 / pl.len().over([*rv, *hier[: i + 1]])).alias(r) for i, r in enumerate(risks))
    house = person.with_columns(pl.col(risks).max().over("hid"))
    args = dict(household="hid", hierarchy=hier, similar=[["hsize"], []], swaprate=0.0, swapped_column="w", seed=2021)
    a = house.sdc.swap_records(risk=risks, risk_threshold=0.5, **args)
    b = house.sdc.swap_records(k_anonymity=2, risk_variables=rv, **args)
    assert a.equals(b)
    n_risky = house.filter(pl.col("risk2") > 0.5)["hid"].n_unique()
    assert a.filter(pl.col("hid") != pl.col("w"))["hid"].n_unique() >= n_risky > 100
    # person-level risks are taken as the household maximum: the same release
    c = person.sdc.swap_records(risk=risks, risk_threshold=0.5, **args)
    assert c.drop(risks).equals(b.drop(risks))


def test_zero_risk_households_are_never_swapped():
    df = synthetic(3_000, 3).with_columns(r=pl.when(pl.col("hid") % 2 == 0).then(0.0).otherwise(0.1))
    plan = df.sdc.swap_records_plan(household="hid", hierarchy=["nuts1", "nuts2"], swaprate=0.3,
                                    risk=["r", "r"], risk_threshold=0.5, seed=5)
    assert 0 < plan.height <= 2 * math.ceil(3_000 * 0.3 / 2)
    assert (plan["hid"] % 2 == 1).all()


def test_swaprate_within_sampling_error_per_region():
    """With nobody at risk (k = 0) the number of households swapped is exactly 2 * floor or
    ceil(H * swaprate / 2) (each lowest area gets its quota; equal-sized areas here). Per
    top-level region the swapped count is its quota (within the number of its lowest areas,
    from the rounding) plus the donors it supplies, a sum of D = H s / 2 draws each from the
    region with probability ~ p = H_r / H: variance <= D p (1 - p) (a Poisson-binomial
    variance is at most the binomial one). Tolerance: 4.5 sigma (two-sided normal tail 7e-6)
    plus the rounding."""
    H, rate = 24_000, 0.1
    n_low = 48                                     # 4 regions x 3 districts x 4 municipalities
    low = np.arange(H) % n_low
    sizes = 1 + (np.arange(H) // n_low) % 6        # every area has the same household sizes
    rep = lambda x: np.repeat(x, sizes)  # noqa: E731
    df = pl.DataFrame({"hid": rep(np.arange(H)), "r1": rep(low // 12), "r2": rep(low // 4), "r3": rep(low)})
    for seed in (1, 2, 3):
        out = df.sdc.swap_records(household="hid", hierarchy=["r1", "r2", "r3"], swaprate=rate, k_anonymity=0,
                                  swapped_column="with", seed=seed)
        hh = out.unique("hid")
        moved = hh.filter(pl.col("hid") != pl.col("with"))
        assert moved.height in (2 * math.floor(H * rate / 2), 2 * math.ceil(H * rate / 2))
        region = dict(df.unique("hid").select("hid", "r1").rows())
        counts = np.bincount([region[h] for h in moved["hid"].to_list()], minlength=4)
        D, p = H * rate / 2, 0.25
        tol = 4.5 * math.sqrt(D * p * (1 - p)) + 12 + 1
        assert np.all(np.abs(counts - rate * H / 4) <= tol), counts


def test_eusilc():
    """EU-SILC by region with household size as profile: households intact, pairs across
    regions with the same size, the at-risk households (age x sex in the region < 3) swapped."""
    df = datasets.eusilc()
    args = dict(household="db030", hierarchy="db040", similar="hsize", swaprate=0.05, k_anonymity=3,
                risk_variables=["age", "rb090"], seed=1)
    out = df.sdc.swap_records(carry_along=["db090"], swapped_column="with", **args)
    plan = df.sdc.swap_records_plan(**args)
    assert plan["partner"].null_count() == 0
    moved = ["db040", "db090"]
    assert out.group_by("db030").agg(pl.col(moved).n_unique()).select(pl.col(moved).max()).row(0) == (1, 1)
    hh = df.unique("db030").select("db030", "db040", "hsize")
    pairs = plan.join(hh, on="db030").join(hh, left_on="partner", right_on="db030", suffix="_p")
    assert (pairs["db040"] != pairs["db040_p"]).all() and (pairs["hsize"] == pairs["hsize_p"]).all()
    risky = df.filter(pl.len().over("db040", "age", "rb090") < 3)["db030"].unique()
    assert set(risky.to_list()) <= set(plan["db030"].to_list())
    assert plan.height >= 0.05 * 6_000
    assert out.drop(["db040", "db090", "with"]).equals(df.drop(moved))
    # pairs of the same size: households and persons per region unchanged
    assert out["db040"].value_counts().sort("db040").equals(df["db040"].value_counts().sort("db040"))


def test_key_column_and_row_order():
    df = synthetic(500, 9).with_columns(k=pl.col("hid") * 7 + 3)
    args = dict(household="hid", hierarchy=["nuts1", "nuts2"], swaprate=0.2, k_anonymity=2,
                risk_variables="gender", swapped_column="w", seed=4)
    a = df.sdc.swap_records(key="k", **args)
    b = df.reverse().sdc.swap_records(key="k", **args).reverse()
    assert a.equals(b)
    assert not a.equals(df.sdc.swap_records(**args))          # another key, other draws
    # string household ids work too, and order-free as well
    s = df.with_columns(pl.col("hid").cast(pl.String))
    assert s.sdc.swap_records(**args).equals(s.reverse().sdc.swap_records(**args).reverse())


def test_empty_frame_and_single_area():
    df = pl.DataFrame({"hid": pl.Series([], dtype=pl.Int64), "r": pl.Series([], dtype=pl.String)})
    assert df.sdc.swap_records(household="hid", hierarchy="r", swapped_column="w", seed=1).width == 3
    one = pl.DataFrame({"hid": [1, 2, 3], "r": ["a", "a", "a"]})
    with pytest.warns(UserWarning):
        out = one.sdc.swap_records(household="hid", hierarchy="r", swaprate=1.0, k_anonymity=0, seed=1)
    assert out.equals(one)          # no other area: nobody can be swapped


BASE = pl.DataFrame({"hid": [1, 1, 2, 3], "r": ["a", "a", "b", "b"], "p": [1, 2, 3, 4], "h": [5, 5, 6, 7],
                     "x": [0.1, 0.2, 0.3, 0.4]})


@pytest.mark.parametrize("kwargs, match", [
    (dict(hierarchy="nope"), "column 'nope': not in the frame"),
    (dict(household="nope"), "household column 'nope': not in the frame"),
    (dict(swaprate=1.2), "swaprate must be a number in"),
    (dict(swaprate=-0.1), "swaprate must be a number in"),
    (dict(k_anonymity=-1), "k_anonymity must be >= 0"),
    (dict(k_anonymity=2.5), "k_anonymity must be an integer"),
    (dict(similar=["h", "nope"]), "column 'nope': not in the frame"),
    (dict(similar=3), "`similar`: expected"),
    (dict(risk_variables="p", risk="x"), "not both"),
    (dict(risk=["x", "x"]), "1 hierarchy level"),
    (dict(risk_threshold=0.5), "risk_threshold is only used with `risk`"),
    (dict(risk="r"), "not numeric"),
    (dict(carry_along="r"), "in both `hierarchy` and `carry_along`"),
    (dict(carry_along="hid"), "household column"),
    (dict(swapped_column="p"), "already in the frame"),
    (dict(seed=-3), "seed must be"),
    (dict(key="nope"), "key column 'nope'"),
])
def test_bad_arguments(kwargs, match):
    args = dict(household="hid", hierarchy="r", seed=1) | kwargs
    with pytest.raises(SDCError, match=match):
        BASE.sdc.swap_records(**args)
    with pytest.raises(SDCError, match=match):          # a lazy plan fails when it is written
        BASE.lazy().sdc.swap_records(**args)


@pytest.mark.parametrize("frame, kwargs, match", [
    (BASE.with_columns(r=pl.Series(["a", "b", "b", "b"])), dict(),
     r"column 'r': not constant within household hid = 1"),
    (BASE, dict(carry_along="p"), r"column 'p': not constant within household hid = 1 .*`carry_along`"),
    (BASE, dict(similar="p"), r"`similar` columns must be household-level"),
    (BASE.with_columns(r=pl.Series(["a", "a", None, "b"])), dict(), r"column 'r': 1 null"),
    (BASE.with_columns(hid=pl.Series([1, 1, None, 3])), dict(), r"column 'hid': 1 null"),
    (BASE.with_columns(x=pl.Series([0.1, 0.1, -1.0, 0.2])), dict(risk="x"), "negative risk"),
    (BASE.with_columns(x=pl.Series([0.1, 0.1, float("nan"), 0.2])), dict(risk="x"), "NaN"),
    (BASE.with_columns(k=pl.Series([1, 1, 2, 2])), dict(key="k"), "shared by two households"),
    (BASE, dict(key="p"), r"column 'p': not constant .*`key`"),
])
def test_bad_data(frame, kwargs, match):
    with pytest.raises(SDCError, match=match):
        frame.sdc.swap_records(household="hid", hierarchy="r", seed=1, **kwargs)


def test_plan_refuses_a_household_column_named_like_its_columns():
    with pytest.raises(SDCError, match="rename it"):
        BASE.rename({"hid": "partner"}).sdc.swap_records_plan(household="partner", hierarchy="r", seed=1)


def test_module_functions_equal_the_namespace():
    args = dict(household="db030", hierarchy="db040", similar="hsize", swaprate=0.1, risk_variables=["age"], seed=3)
    df = datasets.eusilc()
    assert swap_records_frame(df, swapped_column="w", **args).equals(df.sdc.swap_records(swapped_column="w", **args))
    assert swap_records_plan(df, **args).equals(df.sdc.swap_records_plan(**args))


@pytest.mark.parametrize("cast", [
    {},
    {"hid": pl.String, "r2": pl.Categorical},
    {"hid": pl.Float64, "r1": pl.String, "r2": pl.Enum([str(i) for i in range(3)])},
    {"hid": pl.Date, "r1": pl.Boolean, "hs": pl.String},
    {"hid": pl.UInt16, "r1": pl.Int8, "age": pl.Categorical, "sex": pl.Boolean},
])
def test_every_dtype(cast):
    rs = np.random.default_rng(5)
    df = households(rs.integers(1, 13, 150), rs).with_columns(
        pl.col("r1") % 2, pl.col("age").cast(pl.String) if "age" in cast else pl.col("age"))
    df = df.with_columns(pl.col(c).cast(t) for c, t in cast.items())
    args = dict(household="hid", hierarchy=HIER, similar=[["hs"], []], swaprate=0.2, k_anonymity=3,
                risk_variables=["age", "sex"], seed=2)
    out = df.sdc.swap_records(carry_along="ht", swapped_column="with", **args)
    plan = df.sdc.swap_records_plan(**args)
    assert out.schema == pl.Schema({**df.schema, "with": df.schema["hid"]})
    assert plan.height > 0
    check_swap(df, out, plan, HIER, ["ht"], 3, ["age", "sex"])
    assert out.equals(df.reverse().sdc.swap_records(carry_along="ht", swapped_column="with", **args).reverse())


def test_nulls_in_risk_variables_and_profiles_are_a_category():
    df = pl.DataFrame({"hid": [1, 2, 3, 4, 5, 6], "r": ["a", "a", "a", "b", "b", "b"],
                       "inc": [None, 1.0, None, None, 2.0, None], "t": [None, "x", None, None, "x", None]})
    plan = df.sdc.swap_records_plan(household="hid", hierarchy="r", similar="t", swaprate=1.0, k_anonymity=2,
                                    risk_variables="inc", seed=3)
    t = dict(zip(df["hid"], df["t"]))
    pairs = plan.select("hid", "partner").rows()
    assert len(pairs) == 6 and all(t[h] == t[p] for h, p in pairs)
    # 2 and 5 are alone with their income in their region: at risk; the null incomes are 2 per region: not
    assert set(plan.filter(pl.col("risk_level").is_not_null())["hid"]) == {2, 5}


def test_sdcmicro_quota_per_lowest_area():
    """sdcMicro's vignette: in a lowest-level area the households swapped there are those at
    risk plus ``Rest = max(0, N s - n_already)`` sampled ones, where ``N s`` is the area's
    quota (``distributeDraws``: ``floor`` of its share of the ``floor``/``ceil(H s / 2)``
    selections, some areas one more, the extras adding up to the total) and ``n_already`` its
    households selected at a coarser level. Checked per municipality from the plan (areas of
    ~35 households, so candidates never run out)."""
    df = synthetic(6_000, 11).with_row_index("i").with_columns(    # every 97th person unique: at risk at nuts1
        rare=pl.when(pl.col("i") % 97 == 0).then(pl.col("i")).otherwise(0))
    hier = ["nuts1", "nuts3"]
    plan = df.sdc.swap_records_plan(household="hid", hierarchy=hier, swaprate=0.2, k_anonymity=2,
                                    risk_variables=["rare", "ageGroup", "gender", "national"], seed=8)
    counts = dict(((r, lv), n) for r, lv, n in plan.filter(pl.col("role") == "selected")
                  .group_by("risk_level", "level").len().rows())
    assert counts[("nuts1", "nuts1")] > 100 and counts[("nuts3", "nuts3")] > 30 and counts[(None, "nuts3")] > 100
    area = dict(df.unique("hid").select("hid", "nuts3").rows())
    H = 6_000
    size = df.unique("hid")["nuts3"].value_counts()
    sel = plan.filter(pl.col("role") == "selected").with_columns(a=pl.col("hid").replace_strict(area))
    n_extra = 0
    for a, n_a in size.rows():
        rows = sel.filter(pl.col("a") == a)
        already = rows.filter(pl.col("level") == "nuts1").height
        at_risk = rows.filter((pl.col("level") == "nuts3") & (pl.col("risk_level") == "nuts3")).height
        sampled = rows.filter((pl.col("level") == "nuts3") & pl.col("risk_level").is_null()).height
        share_total = [math.floor(H * 0.2 / 2), math.ceil(H * 0.2 / 2)]
        fl = min(math.floor(n_a / H * t) for t in share_total)
        ok = [q for q in (fl, fl + 1) if sampled == max(0, q - already - at_risk)]
        assert ok, (a, n_a, already, at_risk, sampled)
        n_extra += sampled > max(0, fl - already - at_risk)
    assert plan["partner"].null_count() == 0
    assert 0 < n_extra < size.height            # some areas got the extra unit, not all
