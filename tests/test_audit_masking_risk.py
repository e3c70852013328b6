"""Adversarial audit (session 26) of the masking toolkit and the risk measures: user column names
that collide with internal helper names, dtypes, seeds across engines. Each test pins a defect
found by the audit; references are brute force (tests/naive.py)."""
import numpy as np
import polars as pl
import pytest

import polars_sdc  # noqa: F401
from naive import reference_freqcalc


def _strings_frame(n: int = 300, seed: int = 1) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    return pl.DataFrame({
        "a": rng.integers(0, 40, n).astype(float),
        "b": [f"s{i}" for i in rng.integers(0, 300, n)],
        "w": rng.uniform(1, 5, n),
    })


@pytest.mark.parametrize("name", ["_w", "_p", "_c"])
@pytest.mark.parametrize("col", ["a", "b"])
def test_frequencies_key_named_like_internal_column(name, col):
    # a key called "_w" was overwritten by the weights in the per-record Polars path
    df = _strings_frame()
    rows = list(zip(df["a"].to_list(), df["b"].to_list()))
    fk, Fk = reference_freqcalc(rows, df["w"].to_list(), 1.0)
    d2 = df.rename({col: name})
    on = [name if c == col else c for c in ("a", "b")]
    got = d2.sdc.frequencies(on, weight="w")
    np.testing.assert_array_equal(got["fk"].to_numpy(), fk)
    np.testing.assert_allclose(got["Fk"].to_numpy(), Fk, rtol=1e-12)
    assert got.select(on).equals(d2.select(on))


@pytest.mark.parametrize("name", ["_w", "f", "F"])
def test_arx_class_sizes_key_named_like_internal_column(name):
    from polars_sdc.risk.arx import class_sizes

    df = pl.DataFrame({name: [1, 1, 2, 2, 2], "b": ["x", "x", "y", "y", "y"], "w": [1.0, 2, 3, 4, 5]})
    got = class_sizes(df, [name, "b"], "w").sort("f")
    assert got.rows() == [(2, 3.0), (3, 12.0)]
    r = df.sdc.risk([name, "b"], weight="w", suda=False)
    assert r["k_anonymity"] == 2 and r["prosecutor_highest"] == 0.5


@pytest.mark.parametrize("options", [
    dict(upper=2.5), dict(upper_p=0.2), dict(lower_p=0.2, upper_p=0.2), dict(lower=1.7, upper=2.5),
    dict(upper=2.5, replacement="mean"), dict(upper_p=0.5, lower_p=0.2, replacement="mean"),
])
def test_top_bottom_code_nan_is_not_a_large_value(options):
    # NaN is not null and not above any threshold: it was top coded (Polars orders NaN last), it
    # made the upper_p quantile NaN and the coded mean NaN. The NaN rows stay NaN; the other rows
    # are coded exactly as without them.
    x = [1.5, 2.0, 3.0, 1.5, 2.0, 3.0, 1.5, 2.0, 3.0, 1.5, 2.0, 7.0]
    clean = pl.DataFrame({"x": x})
    with_nan = pl.DataFrame({"x": x + [float("nan")] * 3})
    ref = clean.sdc.top_bottom_code("x", **options)["x"].to_list()
    for got in (with_nan.sdc.top_bottom_code("x", **options),
                with_nan.lazy().sdc.top_bottom_code("x", **options).collect(engine="streaming"),
                with_nan.select(pl.col("x").sdc.top_bottom_code(**options))):
        vals = got["x"].to_list()
        assert vals[:12] == ref
        assert all(np.isnan(v) for v in vals[12:])


def _risk_exact(fk: float, Fk: float) -> float:
    """The individual risk formulas in exact rationals with ln(1/pk) = ln(Fk) - ln(fk)."""
    import math
    from fractions import Fraction

    if fk == Fk:
        return 1.0 / fk
    pk = Fraction(fk) / Fraction(Fk)
    ln = math.log(Fk) - math.log(fk)
    if fk > 2:
        return float(pk / (Fraction(fk) - (1 - pk)))
    if fk == 2:
        return float(pk / (1 - pk)) - float((pk / (1 - pk)) ** 2) * ln
    return float(pk / (1 - pk)) * ln


@pytest.mark.parametrize("fk,Fk", [(1.0, 1e17), (1.0, 1e300), (2.0, 1e17), (2.0, 1e308), (1.0, 2.0**53 + 2),
                                   (3.0, 1e308), (1.0, 3e15), (2.0, 3e15)])
def test_individual_risk_huge_population(fk, Fk):
    # Fk beyond 2^53: q = 1 - pk rounded to 1 and ln(1/pk) = -log1p(-q) read inf: risk 1.0 for a
    # record with 1e17 look-alikes in the population, NaN (0 x inf) with fk = 2
    from polars_sdc.risk.individual import individual_risk

    got = individual_risk(np.array([fk]), np.array([Fk]))[0]
    assert got == pytest.approx(_risk_exact(fk, Fk), rel=1e-12, abs=0.0)


def test_global_risk_huge_weights():
    df = pl.DataFrame({"c": ["a", "a", "b", "b"], "w": [1e308, 1.0, 5e16, 5e16]})
    fk, Fk = [2.0, 2.0, 2.0, 2.0], [1e308 + 1.0, 1e308 + 1.0, 1e17, 1e17]
    r = df.sdc.individual_risk("c", weight="w")["risk"].to_list()
    assert r == pytest.approx([_risk_exact(a, b) for a, b in zip(fk, Fk)], rel=1e-12, abs=0.0)
    g = df.sdc.global_risk("c", weight="w")["global_risk"]
    assert g == pytest.approx(np.mean(r), rel=1e-12)


def test_weights_whose_sum_overflows_are_refused():
    from polars_sdc._errors import SDCError

    df = pl.DataFrame({"c": ["a", "a", "b"], "w": [1e308, 1e308, 1.0]})
    with pytest.raises(SDCError, match="'w'.*sum"):
        df.sdc.individual_risk("c", weight="w")
    with pytest.raises(SDCError, match="'w'.*sum"):
        df.sdc.frequencies("c", weight="w")


@pytest.mark.parametrize("by", ["n0", "__sdc_stratum__", "b0"])
def test_masking_by_column_named_like_a_helper(by):
    # a `by` column called like a helper column (the strata's row index, the resolution check's
    # aggregates) raised a raw DuplicateError
    n = 12
    df = pl.DataFrame({"x": [2**60 + i * 1000 for i in range(n)], "c": ["a", "b", "c"] * 4,
                       by: [1] * 6 + [2] * 6, "y": [float(i) for i in range(n)]})
    ren = df.rename({by: "grp"})
    for call in (lambda d, b: d.sdc.add_noise(["x", "y"], by=b, seed=1),
                 lambda d, b: d.sdc.pram(["c"], by=b, seed=1),
                 lambda d, b: d.sdc.rank_swap(["y"], p=0.2, by=b, seed=1)):
        got = call(df, by)
        assert got.rename({by: "grp"}).equals(call(ren, "grp"))


def test_arx_sample_models_independent_of_class_order():
    # the marketer / journalist averages were float sums in the order group_by returned the
    # classes: a null key and a NaN key (the same classes, another order) read 0.197616...
    # differing in the last bits; now exactly rounded sums
    from polars_sdc.risk.arx import sample_models

    rng = np.random.default_rng(7)
    f = rng.integers(1, 6, 500).astype(float)
    F = f * rng.uniform(1, 40, 500)
    ref = sample_models(f, F)
    assert all(type(v) is float for v in ref.values())
    for _ in range(20):
        p = rng.permutation(500)
        assert sample_models(f[p], F[p]) == ref


@pytest.mark.parametrize("method", ["additive", "correlated", "correlated2", "moments"])
@pytest.mark.parametrize("by", [None, "s"])
def test_add_noise_with_key_independent_of_row_order(method, by):
    # with key= every draw is keyed, but the sds / covariance were float sums in row order: a
    # permuted frame released values differing in the last bits (2.8e-14 on an integer column)
    rng = np.random.default_rng(3)
    n = 60
    df = pl.DataFrame({"id": rng.permutation(n) * 7 + 3, "x": rng.normal(size=n) * 1e3,
                       "y": rng.integers(0, 10**6, n), "s": rng.choice(["N", "S"], n)})
    df = df.with_columns(pl.when(pl.col("id") % 5 == 0).then(None).otherwise(pl.col("x")).alias("x"))
    ref = df.sdc.add_noise(["x", "y"], method=method, by=by, seed=4, key="id")
    for _ in range(3):
        p = rng.permutation(n)
        got = df[p].sdc.add_noise(["x", "y"], method=method, by=by, seed=4, key="id")
        assert got.equals(ref[p])
    assert df.lazy().sdc.add_noise(["x", "y"], method=method, by=by, seed=4, key="id").collect(
        engine="streaming").equals(ref)


def test_suppress_keeps_nan_keys():
    # NaN is a missing key for the frequencies; suppress released it as null (a cell it did not
    # suppress changed) and suppress_risky 'suppressed' it again (NaN -> null, a wasted round)
    nan = float("nan")
    df = pl.DataFrame({"a": [0.0, 0.0, 1.0, nan, nan, 2.0, 5.0], "b": ["x", "x", "y", "y", "y", "z", "x"]})
    out = df.sdc.suppress(2, ["a", "b"])
    a = out["a"].to_list()
    assert np.isnan(a[3]) and np.isnan(a[4]) and out["a"].null_count() + out["b"].null_count() >= 1
    ref = df.with_columns(pl.col("a").fill_nan(None)).sdc.suppress(2, ["a", "b"])
    assert out.with_columns(pl.col("a").fill_nan(None)).equals(ref)
    risky = df.sdc.suppress_risky(["a", "b"], threshold=0.6)
    r = risky["a"].to_list()
    assert np.isnan(r[3]) and np.isnan(r[4])
    ref = df.with_columns(pl.col("a").fill_nan(None)).sdc.suppress_risky(["a", "b"], threshold=0.6)
    assert risky.with_columns(pl.col("a").fill_nan(None)).equals(ref)


def test_t_closeness_ordered_categorical_is_the_string_order():
    # ordered=True on a Categorical ranked the values by their physical codes (first-seen order,
    # c < a < b here): 1/6 where the same column as String reads 1/12 (lexical order)
    from naive import reference_t_closeness

    keys, sens = [1, 1, 1, 2, 2, 2], ["c", "a", "b", "c", "c", "a"]
    df = pl.DataFrame({"k": keys, "s": sens})
    ref = reference_t_closeness(keys, sens, True)
    for d in (df, df.with_columns(pl.col("s").cast(pl.Categorical))):
        np.testing.assert_allclose(d.sdc.t_closeness("k", "s", ordered=True)["t_closeness"].to_numpy(), ref, atol=1e-15)
    # an Enum keeps its declared order
    e = df.with_columns(pl.col("s").cast(pl.Enum(["c", "a", "b"])))
    code = {"c": "0", "a": "1", "b": "2"}
    np.testing.assert_allclose(e.sdc.t_closeness("k", "s")["t_closeness"].to_numpy(),
                               reference_t_closeness(keys, [code[v] for v in sens], True), atol=1e-15)


@pytest.mark.parametrize("measure", ["l_diversity", "t_closeness"])
@pytest.mark.parametrize("role", ["key", "sensitive"])
def test_diversity_refuses_a_key_or_sensitive_named_like_its_result(measure, role):
    # a key (or the sensitive column) called "l_diversity" was replaced by the computed l: the
    # frame came back without the column the measure was computed on (individual_risk and suda
    # refuse the same case)
    from polars_sdc._errors import SDCError

    df = pl.DataFrame({measure: [1, 1, 2, 2], "x": ["a", "b", "a", "a"]})
    on, sens = (measure, "x") if role == "key" else ("x", measure)
    for ns in (df.sdc, df.lazy().sdc):
        with pytest.raises(SDCError, match=f"'{measure}'.*rename"):
            getattr(ns, measure)(on, sens)


@pytest.mark.parametrize("options", [dict(upper=3), dict(lower=1.5), dict(upper_p=0.2)])
def test_top_bottom_code_mean_of_infinite_values_refused(options):
    # replacement="mean" with +-inf among the coded values released inf for every coded value
    # (4.0 and 5.0 came back as inf); "threshold" codes inf as any large value
    from polars_sdc._errors import SDCError

    df = pl.DataFrame({"x": [1.0, 2.0, float("inf"), 4.0, 5.0, -float("inf")]})
    for run in (lambda: df.sdc.top_bottom_code("x", replacement="mean", **options),
                lambda: df.lazy().sdc.top_bottom_code("x", replacement="mean", **options).collect(engine="streaming")):
        with pytest.raises(SDCError, match="'x'.*infinite"):
            run()
    assert np.isfinite(df.sdc.top_bottom_code("x", lower=-1e9, upper=1e9)["x"].to_numpy()).all()


def test_household_risk_refuses_nan_ids():
    # household_index, the household frequencies and the masking methods refuse a NaN household
    # id; the household risk grouped the NaN rows as one household
    from polars_sdc._errors import SDCError

    df = pl.DataFrame({"h": [1.0, 1.0, float("nan"), float("nan"), 2.0], "a": [1, 2, 1, 2, 1], "w": [2.0, 2, 3, 3, 4]})
    for run in (lambda: df.sdc.individual_risk("a", weight="w", household="h"),
                lambda: df.sdc.global_risk("a", weight="w", household="h"),
                lambda: df.sdc.risk("a", weight="w", household="h", suda=False),
                lambda: df.sdc.frequencies("a", weight="w", household="h")):
        with pytest.raises(SDCError, match="household column 'h': NaN id"):
            run()


def test_swap_records_refuses_nan_area():
    # a null area is refused ("every person needs a household and an area"); a NaN area code was
    # taken as one more area holding every NaN row
    from polars_sdc._errors import SDCError

    n = 12
    df = pl.DataFrame({"hid": np.arange(n) // 2, "reg": [1.0, 1.0, 2.0, 2.0, float("nan"), float("nan")] * 2,
                       "sex": ["m", "f"] * 6})
    for d in (df, df.lazy()):
        with pytest.raises(SDCError, match="'reg': 4 NaN value"):
            out = d.sdc.swap_records(household="hid", hierarchy=["reg"], swaprate=0.2, risk_variables=["sex"], seed=1)
            if isinstance(out, pl.LazyFrame):
                out.collect()
        with pytest.raises(SDCError, match="'reg': 4 NaN value"):
            out = d.sdc.swap_records_plan(household="hid", hierarchy=["reg"], swaprate=0.2, risk_variables=["sex"], seed=1)
            if isinstance(out, pl.LazyFrame):
                out.collect()


@pytest.mark.parametrize("ordered", ["no", "false", 0, 1.0])
def test_t_closeness_ordered_must_be_a_bool(ordered):
    # ordered="no" read as True (any truthy value): the ordered distance without being asked
    from polars_sdc._errors import SDCError

    df = pl.DataFrame({"k": [1, 1, 2], "s": ["a", "b", "c"]})
    for ns in (df.sdc, df.lazy().sdc):
        with pytest.raises(SDCError, match="ordered must be True, False or None"):
            ns.t_closeness("k", "s", ordered=ordered)


def test_bool_options_refuse_strings():
    # truthy strings read as True: right_closed="no" raised a raw TypeError, risk(suda="no")
    # computed SUDA, laplace(clamp="no") clipped, linkage_risk(ties="no") counted ties
    from polars_sdc._errors import SDCError

    df = pl.DataFrame({"x": [1.0, 2, 3, 4, 5], "c": ["a", "a", "b", "b", "b"]})
    runs = {
        "right_closed": lambda ns: ns.recode_intervals("x", n=2, right_closed="no"),
        "suda": lambda ns: ns.risk("c", suda="no"),
        "clamp": lambda ns: ns.laplace(1.0, "x", seed=1, clamp="no"),
        "ties": lambda ns: ns.linkage_risk(df, on=["x"], ties="no"),
    }
    for name, run in runs.items():
        for ns in (df.sdc, df.lazy().sdc):
            with pytest.raises(SDCError, match=f"{name} must be True or False"):
                out = run(ns)
                if isinstance(out, pl.LazyFrame):
                    out.collect()


@pytest.mark.parametrize("m", [63, 64, 65, 70])
def test_frequencies_many_keys_with_missing_values(m):
    # a record's missing-value pattern is a 64-bit integer: with 65 or more keys it overflowed and
    # fk came back wrong (70 keys: 1 for every record where sdcMicro's rule gives 5, 5, 4, 4, 2, 2);
    # now refused beyond 64 keys, exact up to 64 and without missing values at any number of keys
    from naive import reference_freqcalc
    from polars_sdc._errors import SDCError

    names = [f"k{j}" for j in range(m)]
    rows = [[1] * m for _ in range(6)]
    rows[0][m - 3] = None
    rows[1][m - 2] = None
    rows[2][0] = None
    rows[3][m - 1] = None
    rows[4][m - 3] = 0
    rows[5][m - 2] = 0
    df = pl.DataFrame([dict(zip(names, r)) for r in rows])
    hh = df.with_columns(pl.Series("h", [0, 1, 2, 3, 4, 5]))
    if m <= 64:
        fk, _ = reference_freqcalc([tuple(r) for r in rows], [1.0] * 6, 1.0)
        np.testing.assert_array_equal(df.sdc.frequencies(names)["fk"].to_numpy(), fk)
        np.testing.assert_array_equal(hh.sdc.frequencies(names, household="h")["fk"].to_numpy(), fk)
    else:
        for run in (lambda: df.sdc.frequencies(names), lambda: hh.sdc.frequencies(names, household="h"),
                    lambda: df.sdc.k_anonymity(names)):
            with pytest.raises(SDCError, match="at most 64"):
                run()
    full = df.fill_null(2)
    fk, _ = reference_freqcalc(full.rows(), [1.0] * 6, 1.0)
    np.testing.assert_array_equal(full.sdc.frequencies(names)["fk"].to_numpy(), fk)
    np.testing.assert_array_equal(full.with_columns(hh["h"]).sdc.frequencies(names, household="h")["fk"].to_numpy(), fk)
