"""Audit 27b: a LazyFrame step refuses its bad arguments when the plan is written, as the
eager call does (docs/ARCHITECTURE.md: a lazy step checks what needs no data when planned;
a recipe is checked before any data is read). Before this audit, ``suppress``,
``suppress_risky``, ``laplace`` and ``generalize_release`` accepted these plans and failed
only at ``collect()``; ``laplace`` and ``recode_intervals`` silently ignored a per-column
value naming a column they do not mask."""
from __future__ import annotations

import polars as pl
import pytest

import polars_sdc
from test_spark import spark  # noqa: F401  (the session fixture)
from polars_sdc import SDCError

DF = pl.DataFrame({
    "hid": [1, 1, 2, 3, 3, 4, 5, 6],
    "region": ["a", "a", "a", "b", "b", "b", "a", "b"],
    "sex": ["m", "f", "m", "f", "m", "f", "m", "f"],
    "age": [30, 31, 40, 41, 50, 51, 60, 61],
    "inc": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0],
})
K = ["region", "sex"]


def _plan_fails(call, match):
    """``call(frame)`` raises the same SDCError on a DataFrame and when a LazyFrame plan is
    written (not only at collect)."""
    with pytest.raises(SDCError, match=match):
        call(DF)
    with pytest.raises(SDCError, match=match):
        call(DF.lazy())          # no .collect(): the plan itself is refused


@pytest.mark.parametrize("kwargs, match", [
    (dict(k=0), "k must be >= 1"),
    (dict(k="3"), "k must be an integer"),
    (dict(k=2, alpha=2), r"alpha must be in \[0, 1\]"),
    (dict(k=2, combs=[5]), "combs must be subset sizes between 1 and 2"),
    (dict(k=2, combs=[True]), "combs must be subset sizes"),
    (dict(k=2, by="nope"), "'nope'"),
    (dict(k=2, by="sex"), "in both `on` and `by`"),
    (dict(k=2, importance={"nope": 1}), "importance: 'nope' is not one of the keys"),
    (dict(k=2, importance=[1, 2, 3]), "importance must be a list of 2 integers"),
    (dict(k=2, tiebreak=[1]), "tiebreak must be a list of 2 integers"),
    (dict(k=2, tiebreak={"region": 0}), "tiebreak must map key columns to positive integers"),
    (dict(k=2, importance=[1, 2], tiebreak=[2, 1]), "not both"),
])
def test_suppress_refuses_bad_arguments_when_planned(kwargs, match):
    kw = dict(kwargs)
    k = kw.pop("k")
    _plan_fails(lambda f: f.sdc.suppress(k, K, **kw), match)


@pytest.mark.parametrize("kwargs, match", [
    (dict(threshold=2), "threshold must be <= 1.0"),
    (dict(threshold=-0.1), "threshold must be >= 0.0"),
    (dict(threshold=0.1, key_var="nope"), "key_var 'nope': not one of the keys"),
    (dict(threshold=0.1, key_var="age"), "key_var 'age': not one of the keys"),
    (dict(threshold=0.1, alpha=-1), r"alpha must be in \[0, 1\]"),
])
def test_suppress_risky_refuses_bad_arguments_when_planned(kwargs, match):
    _plan_fails(lambda f: f.sdc.suppress_risky(K, **kwargs), match)


def test_good_suppress_plans_still_equal_the_eager_result():
    for kw in (dict(importance={"sex": 1}), dict(tiebreak=[2, 1]), dict(combs=[1, 2]), dict(by="hid", k=1),
               dict(alpha=0.5)):
        k = kw.pop("k", 2)
        assert DF.lazy().sdc.suppress(k, K, **kw).collect().equals(DF.sdc.suppress(k, K, **kw))
    assert DF.lazy().sdc.suppress_risky(K, threshold=0.4, key_var="sex").collect().equals(
        DF.sdc.suppress_risky(K, threshold=0.4, key_var="sex"))


def test_a_recipe_with_a_bad_suppress_option_fails_naming_its_line_before_any_data():
    text = '[roles]\nkeys = ["region", "sex"]\n\n[[steps]]\noperation = "suppress"\nk = 2\nimportance = {nope = 1}\n'
    with pytest.raises(SDCError, match=r"recipe line 4 \(suppress\): importance: 'nope'"):
        polars_sdc.run_recipe(text, DF.lazy())


@pytest.mark.parametrize("kwargs, match", [
    (dict(on=["inc"], phi={"nope": 1.0}), "column 'inc': no phi given for it"),
    (dict(on=["inc"], phi={"inc": 1.0, "nope": 1.0}), "phi: column 'nope' is not one of the `on` columns"),
    (dict(on=["inc", "age"], phi={"inc": 1.0, "age": 1.0, "sex": 1.0}), "phi: column 'sex' is not one of"),
    (dict(on=["inc", "age"], phi=[1.0]), "phi: 1 value"),
    (dict(on=["inc"], k=1), "k must be >= 2 for Pk-anonymity calibration"),
    (dict(on=["inc"], k=2, m=0), "m must be >= 1"),
    (dict(on=["inc"], k=2.5), "k must be an integer"),
    (dict(on=["inc"], phi=1.0, k=2), "give either phi or k"),
    (dict(on=["inc"]), "give phi"),
])
def test_laplace_refuses_bad_scales_when_planned(kwargs, match):
    _plan_fails(lambda f: f.sdc.laplace(seed=1, **kwargs), match)


def test_laplace_phi_for_a_column_not_masked_is_refused_not_ignored():
    # before: {"inc": 1.0, "inx": 5.0} (a typo for a second column) masked inc and dropped the rest silently
    with pytest.raises(SDCError, match="phi: column 'inx' is not one of the `on` columns"):
        DF.sdc.laplace(on=["inc"], phi={"inc": 1.0, "inx": 5.0}, seed=1)
    # on=None takes the mapping's columns, as before
    out = DF.sdc.laplace(phi={"inc": 1e-9}, seed=1)
    assert out.drop("inc").equals(DF.drop("inc")) and (out["inc"] - DF["inc"]).abs().max() < 1e-6
    assert DF.lazy().sdc.laplace(on=["inc"], phi={"inc": 1.0}, seed=3).collect().equals(
        DF.sdc.laplace(on=["inc"], phi={"inc": 1.0}, seed=3))


def test_spark_laplace_household_with_a_phi_map_equals_local(spark):  # noqa: F811
    """The Spark household path hands each part (household- / person-level columns) only its
    own columns' phi (the check above refuses a phi for a column not masked)."""
    from polars_sdc import spark as sdcs

    df = DF.with_row_index("rid").with_columns(pl.col("rid").cast(pl.Int64),
                                               hinc=pl.col("hid").cast(pl.Float64) * 10)
    phi = {"inc": 0.5, "hinc": 2.0}
    local = df.sdc.laplace(on=["inc", "hinc"], phi=phi, seed=4, key="rid", household="hid")
    sdf = spark.createDataFrame(df.to_arrow())
    got = pl.from_arrow(sdcs.laplace(sdf, phi, on=["inc", "hinc"], seed=4, key="rid", household="hid").toArrow())
    got = got.sort("rid").select(local.columns)
    for c in ("inc", "hinc"):
        assert got[c].to_list() == pytest.approx(local[c].to_list(), rel=1e-12)
    assert local.group_by("hid").agg(pl.col("hinc").n_unique())["hinc"].max() == 1


def test_recode_intervals_breaks_for_a_column_not_recoded_are_refused_not_ignored():
    # before: {"age": [...], "inx": [...]} recoded age and dropped the breaks of the typo silently
    _plan_fails(lambda f: f.sdc.recode_intervals(["age"], breaks={"age": [40, 50], "inx": [1, 2]}),
                "breaks: column 'inx' is not one of the `on` columns")
    out = DF.sdc.recode_intervals(["age", "inc"], breaks={"age": [40, 50], "inc": [4.0]})
    assert out["age"].n_unique() == 3 and out["inc"].n_unique() == 2
    assert DF.lazy().sdc.recode_intervals(["age"], breaks={"age": [40, 50]}).collect().equals(
        DF.sdc.recode_intervals(["age"], breaks={"age": [40, 50]}))


AGE = {"age": {"rule": "intervals", "widths": [10, 20]}}


@pytest.mark.parametrize("kwargs, match", [
    (dict(on=["age", "sex"]), "column 'sex': no hierarchy given for it"),
    (dict(k=0), "k must be >= 1"),
    (dict(suppression_limit=2), "suppression_limit must be <= 1.0"),
    (dict(metric="bad"), "metric must be one of"),
    (dict(sensitive="nope"), "column 'nope': not in the frame"),
    (dict(l_diversity=2), "need a `sensitive` column"),
    (dict(l_diversity=0, sensitive="sex"), "l_diversity must be >= 1"),
    (dict(t_closeness=2, sensitive="sex"), "t_closeness must be <= 1.0"),
    (dict(l_diversity=2, sensitive="sex", l_kind="bad"), "l_kind must be one of"),
    (dict(l_diversity=2, sensitive="sex", l_kind="recursive"), "needs c"),
    (dict(t_closeness=0.2, sensitive="sex", t_distance="bad"), "t_distance must be one of"),
    (dict(household="hid", sensitive="hid", l_diversity=2), "is also the sensitive column"),
    (dict(suppressed_as=3), "suppressed_as must be a string"),
])
def test_generalize_release_refuses_bad_options_when_planned(kwargs, match):
    _plan_fails(lambda f: f.sdc.generalize_release(AGE, **kwargs), match)


def test_generalize_release_good_plans_equal_the_eager_release():
    for kw in (dict(k=2), dict(k=2, sensitive="sex", l_diversity=2), dict(k=2, household="hid")):
        assert DF.lazy().sdc.generalize_release(AGE, **kw).collect().equals(DF.sdc.generalize_release(AGE, **kw))


@pytest.mark.parametrize("call, match", [
    (lambda f: f.sdc.microaggregate(2, on=["inc", "age"], weights={"age": -1.0}), "column 'age': weight must be a finite"),
    (lambda f: f.sdc.microaggregate(2, on=["inc", "age"], weights={"age": float("nan")}), "weight must be a finite"),
    (lambda f: f.sdc.pram(["region"], matrix=[[0.5, 0.6], [0.5, 0.5]], seed=1), "rows summing to 1"),
    (lambda f: f.sdc.pram(["region"], matrix=[[1.5, -0.5], [0.5, 0.5]], seed=1), "finite entries >= 0"),
    (lambda f: f.sdc.recode(["region"], p=0.1, ordinal={"region": "ab"}), "the ordinal order must be a list"),
    (lambda f: f.sdc.recode(["region"], p=0.1, ordinal={"region": 3}), "the ordinal order must be a list"),
])
def test_other_data_free_checks_run_when_planned(call, match):
    _plan_fails(call, match)
