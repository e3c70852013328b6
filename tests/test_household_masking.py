"""household= on the masking methods and structural nulls (issue 24): household-level columns
masked once per household (all members or none), person-level as before, nulls kept; property
tests over random household structures; EU-SILC."""
import warnings

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import polars_sdc
from polars_sdc import SDCError
from polars_sdc.household import HouseholdWarning
from polars_sdc.risk.household_frequencies import household_frequencies
from tests.naive import reference_household_fk

HH_INC = ["hy040n", "hy050n", "hy070n", "hy080n", "hy090n", "hy110n", "hy130n", "hy145n"]
PY_INC = ["py010n", "py050n", "py090n", "py100n", "py110n", "py120n", "py130n", "py140n"]


@pytest.fixture(scope="module")
def eusilc():
    return polars_sdc.datasets.eusilc()


def constant_within(df, household, cols):
    """Every column of ``cols`` takes one value (null included) in every household."""
    if not cols:
        return True
    return df.group_by(household).agg(pl.col(c).n_unique() for c in cols).select(
        pl.max_horizontal(pl.exclude(household).max())).item() == 1


# -- random household structures --------------------------------------------------------------

@st.composite
def survey(draw):
    """Persons in households of 1..12, shuffled: household-level numeric (``hinc``, nullable
    by household), categorical (``region``) and integer (``hsize``) columns, person-level
    numeric with nulls by pattern (``pay`` and ``pen`` null together for children), a
    person-level category, a stratum constant within households (``area``)."""
    n_h = draw(st.integers(4, 14))
    sizes = draw(st.lists(st.integers(1, 12), min_size=n_h, max_size=n_h))
    r = np.random.default_rng(draw(st.integers(0, 2**31)))
    hinc_null = draw(st.booleans())
    rows = []
    for h in range(n_h):
        hinc = None if hinc_null and h % 5 == 0 else float(r.integers(0, 60) * 1000)
        region = str(r.choice(["n", "s", "e", "w"]))
        area = "a" if h % 2 else "b"
        for _ in range(sizes[h]):
            child = r.random() < 0.3
            rows.append((1000 + 7 * h, hinc, region, sizes[h], area,
                         None if child else float(r.normal(30, 10)), None if child else float(r.normal(5, 2)),
                         str(r.choice(["x", "y", "z"]))))
    rows = [rows[i] + (3 * i + 1,) for i in r.permutation(len(rows))]
    cols = ["hh", "hinc", "region", "hsize", "area", "pay", "pen", "job", "pid"]
    df = pl.DataFrame(rows, schema=dict(zip(cols, [pl.Int64, pl.Float64, pl.String, pl.Int64, pl.String,
                                                     pl.Float64, pl.Float64, pl.String, pl.Int64])), orient="row")
    # every categorical dtype: an Enum household-level column, a Categorical person-level one
    return df.with_columns(tenure=pl.col("hsize").mod(3).replace_strict({0: "own", 1: "rent", 2: "free"})
                           .cast(pl.Enum(["own", "rent", "free"])), job=pl.col("job").cast(pl.Categorical))


def _calls():
    return {
        "add_noise/additive": lambda ns: ns.add_noise(["hinc", "pay", "pen"], seed=3, household="hh"),
        "add_noise/correlated": lambda ns: ns.add_noise(["hinc", "pay", "pen"], method="correlated", seed=3,
                                                        household="hh"),
        "add_noise/correlated2": lambda ns: ns.add_noise(["hinc", "pay"], method="correlated2", seed=3,
                                                         household="hh"),
        "add_noise/moments": lambda ns: ns.add_noise(["hinc", "pay", "pen"], method="moments", seed=3,
                                                     household="hh"),
        "laplace": lambda ns: ns.laplace(500.0, ["hinc", "pay"], seed=3, household="hh"),
        "rank_swap": lambda ns: ns.rank_swap(["hinc", "hsize", "pay"], p=0.3, seed=3, household="hh"),
        "rank_swap/by": lambda ns: ns.rank_swap(["hinc", "pay"], p=0.5, by="area", seed=3, household="hh"),
        "add_noise/by": lambda ns: ns.add_noise(["hinc", "pay"], by="area", seed=3, household="hh"),
        "pram": lambda ns: ns.pram(["region", "job", "tenure"], pd=0.5, seed=3, household="hh"),
        "pram/by": lambda ns: ns.pram(["region", "job", "tenure"], pd=0.5, seed=3, household="hh", by="area"),
        "suppress": lambda ns: ns.suppress(2, ["region", "hsize", "job", "tenure"], household="hh"),
        "suppress_risky": lambda ns: ns.suppress_risky(["region", "hsize", "job"], threshold=0.3, household="hh"),
        "recode_intervals": lambda ns: ns.recode_intervals(["hinc", "pay"], n=3, method="quantile", household="hh"),
        "top_bottom_code": lambda ns: ns.top_bottom_code(["hinc", "pay"], upper_p=0.2, household="hh"),
        "recode": lambda ns: ns.recode(["region", "job"], 0.3, household="hh"),   # an Enum comes back Categorical lazily (documented)
    }


CALLS = _calls()
HH_COLS = ["hinc", "region", "hsize", "tenure"]


@pytest.mark.parametrize("name", sorted(CALLS))
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(df=survey())
def test_household_structure_properties(name, df):
    before = df.clone()
    try:
        eager = CALLS[name](df.sdc)
    except SDCError as e:     # a too small stratum / pattern for the method is refused, never masked wrongly
        assert "row(s)" in str(e) or "household(s)" in str(e) or "value" in str(e) or "k = " in str(e), str(e)
        return
    lazy = CALLS[name](df.lazy().sdc)
    assert df.equals(before), "the input frame changed"
    assert lazy.collect().equals(eager)
    assert lazy.collect(engine="streaming").equals(eager)
    assert eager.columns == df.columns and eager.height == df.height
    # row order kept: the id and the untouched columns are as they were
    assert eager["hh"].equals(df["hh"]) and eager["area"].equals(df["area"])
    # all members or none: household-level columns stay constant within every household
    assert constant_within(eager, "hh", [c for c in HH_COLS if c in eager.columns])
    # structural nulls kept: a null stays null (suppression only adds nulls)
    for c in ["hinc", "pay", "pen", "region", "job", "hsize", "tenure"]:
        was = df[c].is_null()
        now = eager[c].is_null()
        assert (now | ~was).all(), f"{name}: a null of {c!r} was filled"
        if not name.startswith("suppress"):
            assert now.equals(was), f"{name}: the null pattern of {c!r} changed"


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 6), st.sampled_from([1, 2, None]), st.sampled_from(["a", "b", None])),
                min_size=1, max_size=25),
       st.lists(st.floats(1, 9), min_size=25, max_size=25))
def test_household_frequencies_against_brute_force(recs, w):
    df = pl.DataFrame({"hh": [r[0] for r in recs], "x": [r[1] for r in recs], "c": [r[2] for r in recs],
                       "w": [w[r[0]] for r in recs]},   # a household weight (constant within the household)
                      schema={"hh": pl.Int64, "x": pl.Int64, "c": pl.String, "w": pl.Float64})
    fk, Fk = household_frequencies(df, ["x", "c"], "hh", "w")
    rfk, rFk = reference_household_fk([(r[1], r[2]) for r in recs], [r[0] for r in recs], df["w"].to_list())
    assert fk.tolist() == rfk
    assert Fk == pytest.approx(rFk)
    out = df.sdc.frequencies(["x", "c"], weight="w", household="hh")
    assert out["fk"].to_list() == rfk
    assert df.sdc.k_anonymity(["x", "c"], household="hh") == min(rfk)
    assert df.lazy().sdc.frequencies(["x", "c"], weight="w", household="hh").collect().equals(out)
    full = df.drop_nulls()                       # no missing key: the distinct-households fast path
    if full.height:
        fk, Fk = household_frequencies(full, ["x", "c"], "hh", "w")
        rfk, rFk = reference_household_fk(full.select("x", "c").rows(), full["hh"].to_list(), full["w"].to_list())
        assert fk.tolist() == rfk and Fk == pytest.approx(rFk)


def test_household_frequencies_refuse_fractional_alpha_with_missing_keys():
    df = pl.DataFrame({"hh": [1, 2], "x": [1, None]})
    with pytest.raises(SDCError, match="alpha = 1"):
        household_frequencies(df, ["x"], "hh", alpha=0.5)


@pytest.mark.parametrize("bad, message", [
    (None, "column 'w': 1 null, NaN or infinite value(s)"),
    (float("nan"), "column 'w': 1 null, NaN or infinite value(s)"),
    (float("-inf"), "column 'w': 1 null, NaN or infinite value(s)"),
    (-2.0, "column 'w': 1 sampling weight(s) <= 0; weights must be > 0"),
    (0.0, "column 'w': 1 sampling weight(s) <= 0; weights must be > 0"),
])
@pytest.mark.parametrize("row", [0, 1])      # the first member's weight, or another member's
def test_household_frequencies_check_the_weights_as_records_do(bad, message, row):
    # a null or negative weight gave Fk = 1.0 silently with household=; now the record path's
    # (and Spark's) refusal, same message, wherever in the household it sits
    w = [3.0, 3.0, 5.0]
    w[row] = bad
    df = pl.DataFrame({"hh": [1, 1, 2], "x": ["a", "a", "b"], "w": w}, schema_overrides={"w": pl.Float64})
    for call in (lambda: df.sdc.frequencies("x", "w", household="hh"),
                 lambda: df.sdc.frequencies("x", "w"),
                 lambda: df.lazy().sdc.frequencies("x", "w", household="hh").collect(),
                 lambda: df.sdc.individual_risk("x", "w", household="hh")):
        with pytest.raises(SDCError) as err:
            call()
        assert str(err.value) == message
    ints = pl.DataFrame({"hh": [1, 1, 2], "x": [1, 1, 2], "w": [4, 0, 4]})
    with pytest.raises(SDCError, match=r"^column 'w': 1 sampling weight\(s\) <= 0; weights must be > 0$"):
        ints.sdc.frequencies("x", "w", household="hh")


# -- EU-SILC (the done-when) -----------------------------------------------------------

def _partly(out, orig, col, household="db030"):
    """Households where ``col`` was suppressed on some members but not on all."""
    g = out.with_columns(s=pl.col(col).is_null() & orig[col].is_not_null()).group_by(household).agg(
        a=pl.col("s").any(), b=pl.col("s").all())
    return g.filter(pl.col("a")).height, g.filter(pl.col("a") & ~pl.col("b")).height


def test_eusilc_suppression_of_hsize_is_all_or_none(eusilc):
    keys = ["age", "rb090", "hsize", "db040", "pl030", "pb220a"]
    imp = [1, 2, 6, 3, 4, 5]                      # hsize suppressed first
    with pytest.warns(HouseholdWarning, match="'hsize', 'db040' are constant within every group of 'db030'"):
        plain = eusilc.sdc.suppress(3, keys, importance=imp)
    affected, partly = _partly(plain, eusilc, "hsize")
    assert partly > 0                             # per person: hsize still visible on a housemate's record
    out = eusilc.sdc.suppress(3, keys, importance=imp, household="db030")
    affected_h, partly_h = _partly(out, eusilc, "hsize")
    assert partly_h == 0 and affected_h >= affected
    assert _partly(out, eusilc, "db040")[1] == 0
    assert out.sdc.k_anonymity(keys) >= 3
    assert constant_within(out, "db030", ["hsize", "db040"])
    out5 = eusilc.sdc.suppress(3, keys, importance=imp, household="db030", alpha=0.5)
    assert _partly(out5, eusilc, "hsize")[1] == 0 and out5.sdc.k_anonymity(keys, alpha=0.5) >= 3


@pytest.mark.parametrize("method", ["additive", "correlated", "correlated2", "moments"])
def test_eusilc_noise_keeps_children_nulls_and_households(eusilc, method):
    out = eusilc.sdc.add_noise(HH_INC + PY_INC, method=method, seed=5, household="db030")
    for c in PY_INC:
        assert out[c].is_null().equals(eusilc[c].is_null())
        assert (out[c].drop_nulls() != eusilc[c].drop_nulls()).mean() > 0.99
    assert constant_within(out, "db030", HH_INC)
    h0 = eusilc.unique("db030", keep="first", maintain_order=True)
    h1 = out.unique("db030", keep="first", maintain_order=True)
    ref = h0.select(HH_INC).sdc.add_noise(HH_INC, method=method, seed=5)
    from polars.testing import assert_frame_equal
    assert_frame_equal(h1.select(HH_INC), ref)
    if method == "moments":
        # exact on the non-null values: mean and variance of every column, covariance of pairs
        for c in PY_INC:
            assert out[c].mean() == pytest.approx(eusilc[c].mean(), rel=1e-9, abs=1e-6)
            assert out[c].var() == pytest.approx(eusilc[c].var(), rel=1e-9)
        cov = lambda f: f.select(pl.cov("py010n", "py050n")).item()  # noqa: E731
        assert cov(out) == pytest.approx(cov(eusilc), rel=1e-9)
        # household-level columns: the moments over households (one row each) are exact
        h0 = eusilc.unique("db030", keep="first", maintain_order=True)
        h1 = out.unique("db030", keep="first", maintain_order=True)
        for c in HH_INC:
            assert h1[c].mean() == pytest.approx(h0[c].mean(), rel=1e-9)
            assert h1[c].var() == pytest.approx(h0[c].var(), rel=1e-9)


def test_eusilc_laplace_rank_swap_pram(eusilc):
    out = eusilc.sdc.laplace(1000.0, HH_INC + PY_INC, seed=2, household="db030")
    assert all(out[c].is_null().equals(eusilc[c].is_null()) for c in PY_INC)
    assert constant_within(out, "db030", HH_INC)
    out = eusilc.sdc.rank_swap(HH_INC + PY_INC + ["hsize"], p=0.05, seed=2, household="db030")
    assert all(out[c].is_null().equals(eusilc[c].is_null()) for c in PY_INC)
    assert constant_within(out, "db030", HH_INC + ["hsize"])
    h0 = eusilc.unique("db030", keep="first", maintain_order=True)
    h1 = out.unique("db030", keep="first", maintain_order=True)
    for c in HH_INC:      # a permutation of the households' values
        assert sorted(h1[c].to_list()) == sorted(h0[c].to_list())
    # the household path is the plain method on one row per household (sdcMicro's
    # selectHouseholdData workflow), broadcast to the members
    assert h1.select(HH_INC).equals(h0.select(HH_INC).sdc.rank_swap(HH_INC, p=0.05, seed=2))
    for c in PY_INC:      # person-level columns as without household=
        assert out[c].equals(eusilc.sdc.rank_swap(PY_INC, p=0.05, seed=2)[c])
    out = eusilc.sdc.pram(["db040", "rb090"], pd=0.6, seed=2, household="db030")
    assert constant_within(out, "db030", ["db040"])
    assert (out["rb090"] != eusilc["rb090"]).any()
    assert not constant_within(out, "db030", ["rb090"])


def test_warning_without_household_and_errors(eusilc):
    with pytest.warns(HouseholdWarning, match=r"add_noise: column\(s\) 'hy040n'.*Pass household='db030'"):
        eusilc.sdc.add_noise(["hy040n", "py010n"], seed=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        eusilc.sdc.add_noise(["py010n"], seed=1)
        eusilc.sdc.add_noise(["hy040n"], seed=1, household="db030")
    with pytest.raises(SDCError, match="household column 'db030': is also masked"):
        eusilc.sdc.add_noise(["db030", "hy040n"], seed=1, household="db030")
    with pytest.raises(SDCError, match="household column 'nope': not in the frame"):
        eusilc.lazy().sdc.rank_swap(["hy040n"], seed=1, household="nope")
    df = pl.DataFrame({"hh": [1, 1, 2, 2, 3, 3], "r": ["a", "b", "a", "a", "b", "b"], "x": [1.0, 1.0, 2.0, 2.0, 3.0, 3.0]})
    with pytest.raises(SDCError, match="`by` column 'r' varies within a household of 'hh'"):
        df.sdc.rank_swap("x", by="r", seed=1, household="hh")
    # the default `on` leaves the household id out
    out = df.sdc.add_noise(seed=1, household="hh")
    assert out["hh"].equals(df["hh"]) and constant_within(out, "hh", ["x"])


def test_moments_with_a_too_small_null_pattern_names_it():
    df = pl.DataFrame({"a": [1.0, 2.0, 3.0, 4.0, 5.0], "b": [1.0, 3.0, 2.0, None, None]})
    with pytest.raises(SDCError, match=r"3 row\(s\) \(rows whose non-null `on` columns are \['a', 'b'\]\); "
                                      r"add_noise method='moments' needs at least 4 rows per null pattern"):
        df.sdc.add_noise(method="moments", seed=1)
    with pytest.raises(SDCError, match=r"2 row\(s\) \(rows whose non-null `on` columns are \['a'\]\)"):
        pl.concat([df, df.head(3)]).sdc.add_noise(method="moments", seed=1)
    out = df.sdc.add_noise(method="additive", seed=1)
    assert out["b"].is_null().to_list() == [False, False, False, True, True]


def test_eusilc_recodings_count_households(eusilc):
    hh = eusilc.unique("db030", keep="first", maintain_order=True)
    out = eusilc.sdc.recode_intervals(["hy090n", "age"], n=4, method="quantile", household="db030")
    # household-level: the breaks of one row per household; person-level: of the persons
    ref_h = hh.sdc.recode_intervals("hy090n", n=4, method="quantile")
    assert out.unique("db030", keep="first", maintain_order=True)["hy090n"].cast(pl.String).equals(
        ref_h["hy090n"].cast(pl.String))
    assert out["age"].equals(eusilc.sdc.recode_intervals("age", n=4, method="quantile")["age"])
    assert out["hy090n"].dtype != eusilc.sdc.recode_intervals("hy090n", n=4, method="quantile")["hy090n"].dtype
    out = eusilc.sdc.top_bottom_code(["hy090n"], upper_p=0.05, replacement="mean", household="db030")
    ref = hh.sdc.top_bottom_code(["hy090n"], upper_p=0.05, replacement="mean")
    assert out.unique("db030", keep="first", maintain_order=True)["hy090n"].equals(ref["hy090n"])
    assert constant_within(out, "db030", ["hy090n"])
    out = eusilc.sdc.recode(["db040", "pb220a"], 0.12, household="db030")
    assert out.unique("db030", keep="first", maintain_order=True)["db040"].equals(
        hh.sdc.recode("db040", 0.12)["db040"])
    assert out["pb220a"].equals(eusilc.sdc.recode("pb220a", 0.12)["pb220a"])


def test_report_accepts_structural_nulls_and_says_what_it_skipped(eusilc):
    from polars_sdc.risk.report import report

    small = eusilc.head(600)
    masked = small.sdc.add_noise(["py010n", "py050n"], method="moments", seed=1)
    rep = report(small, masked, on=["rb090", "db040"], numeric=["py010n", "py050n"], ks=(3,))
    children = small["py010n"].null_count()
    assert children > 0
    numeric = {m: v for m, _, v, *_ in rep.tables["numeric: Numeric variables: disclosure and information loss"].rows()}
    assert any(f"{children} of 600 records hold a missing value" in n and f"{600 - children} complete records" in n
               for n in rep.notes)
    # the record measures are those of the complete records (percent in the report)
    from polars_sdc.risk.linkage import linkage_risk
    ok = small["py010n"].is_not_null()
    want = 100 * linkage_risk(small.filter(ok), masked.filter(ok), ["py010n", "py050n"])
    assert numeric["Record linkage"] == pytest.approx(want, rel=1e-12)


KEYED = {
    "add_noise": lambda f: f.sdc.add_noise(["hinc", "pay"], method="correlated", seed=3, key="pid", household="hh"),
    "laplace": lambda f: f.sdc.laplace(100.0, ["hinc", "pay"], seed=3, key="pid", household="hh"),
    "pram": lambda f: f.sdc.pram(["region", "job"], pd=0.5, seed=3, key="pid", household="hh"),
    "rank_swap": lambda f: f.sdc.rank_swap(["hinc", "pay"], p=0.3, seed=3, key="pid", household="hh"),
}


@pytest.mark.parametrize("name", sorted(KEYED))
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(df=survey(), perm_seed=st.integers(0, 1000))
def test_keyed_household_path_ignores_the_row_order(name, df, perm_seed):
    """With key=, household rows are keyed by the household id and persons by the key: the
    release of a shuffled frame is the same release, shuffled (the moments of "correlated"
    noise are sums, equal up to rounding)."""
    from polars.testing import assert_frame_equal

    def release(f):
        try:
            return KEYED[name](f).sort("pid")
        except SDCError as e:     # refused (rank_swap: a column none of whose values would move)
            return str(e)

    shuffled = df[np.random.default_rng(perm_seed).permutation(df.height)]
    a, b = release(df), release(shuffled)
    if isinstance(a, str):        # then the shuffled frame is refused too, for the same reason
        assert name == "rank_swap" and "would be" in a and a == b, (a, b)
    else:
        assert_frame_equal(a, b, rel_tol=1e-9, abs_tol=1e-6)


def test_eusilc_suppress_risky_hsize_is_all_or_none(eusilc):
    keys = ["age", "rb090", "hsize", "db040", "pb220a"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HouseholdWarning)
        plain = eusilc.sdc.suppress_risky(keys, threshold=0.01, weight="rb050", key_var="hsize")
    affected, partly = _partly(plain, eusilc, "hsize")
    assert partly > affected / 2                  # per person, most affected households leak hsize
    out = eusilc.sdc.suppress_risky(keys, threshold=0.01, weight="rb050", key_var="hsize", household="db030")
    assert _partly(out, eusilc, "hsize") == (affected, 0)
    assert constant_within(out, "db030", ["hsize"])


def test_cli_noise_household(tmp_path, eusilc):
    from polars_sdc.cli import main

    src, out = tmp_path / "silc.parquet", tmp_path / "noisy.parquet"
    eusilc.write_parquet(src)
    code = main(["noise", str(src), str(out), "--on", "hy090n,hy040n", "--phi", "100", "--seed", "3",
                 "--household", "db030"])
    assert code == 0
    got = pl.read_parquet(out)
    assert got.equals(eusilc.sdc.laplace(100.0, ["hy090n", "hy040n"], seed=3, household="db030"))
    assert constant_within(got, "db030", ["hy090n", "hy040n"])


def test_recode_household_with_hierarchy_and_ordinal_per_half():
    # the household-level and person-level halves each get their own columns' hierarchy / order
    # (the whole dict given to both halves was refused: "has a hierarchy but is not among the
    # recoded columns"); equal to recoding one row per household and the persons separately
    g = np.random.default_rng(5)
    sizes = g.integers(1, 6, 60)
    hh = np.repeat(np.arange(60) * 3 + 7, sizes)
    tenure = np.repeat(g.choice(["t1", "t2", "t3", "t4", "t5"], 60, p=[0.05, 0.4, 0.1, 0.4, 0.05]), sizes)
    job = g.choice(["a", "b", "c", "d", "e"], hh.size, p=[0.45, 0.04, 0.45, 0.03, 0.03])
    perm = g.permutation(hh.size)
    df = pl.DataFrame({"hh": hh[perm], "tenure": tenure[perm], "job": job[perm]})
    tree = {"a": "ab", "b": "ab", "c": "cde", "d": "cde", "e": "cde"}
    order = ["t1", "t2", "t3", "t4", "t5"]
    p = 0.08
    one = df.unique("hh", keep="first", maintain_order=True)
    for opts in ({"hierarchy": {"job": tree}}, {"ordinal": {"tenure": order}},
                 {"hierarchy": {"job": tree}, "ordinal": {"tenure": order}}):
        out = df.sdc.recode(["tenure", "job"], p, household="hh", **opts)
        h_opts = {k: v for k, v in opts.items() if "tenure" in v}
        p_opts = {k: v for k, v in opts.items() if "job" in v}
        want_t = one.sdc.recode("tenure", p, **h_opts).select("hh", "tenure")
        assert out["tenure"].equals(df.select("hh").join(want_t, on="hh", how="left", maintain_order="left")["tenure"])
        assert out["job"].equals(df.sdc.recode("job", p, **p_opts)["job"])
        assert constant_within(out, "hh", ["tenure"])
        # the constraint is honoured, not dropped: without it the merges differ
        plain = df.sdc.recode(["tenure", "job"], p, household="hh")
        assert not out.equals(plain), opts
        lazy = df.lazy().sdc.recode(["tenure", "job"], p, household="hh", **opts).collect()
        assert lazy.equals(out)
    with pytest.raises(SDCError, match="column 'sex': has a hierarchy but is not among the recoded columns"):
        df.with_columns(sex=pl.lit("f")).sdc.recode(["tenure", "job"], p, household="hh", hierarchy={"sex": {}})
