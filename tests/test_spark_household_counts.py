"""household= on Spark for what counts (issue 24): recoding a household-level column counts
households (th = households * p) and gives every member the household's label; frequencies count
distinct households (missing keys as wildcards); the risk measures add the household risk
``1 - prod(1 - r)``. Each equals the local ``df.sdc`` call on the same frame. Needs pyspark and Java
(else skipped, as tests/test_spark.py)."""
from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal
from test_spark import spark  # noqa: F401  (the session fixture)

import polars_sdc  # noqa: F401
from polars_sdc._errors import SDCError
from polars_sdc.household import HouseholdWarning


@pytest.fixture(scope="module")
def survey() -> pl.DataFrame:
    """80 households of 1..6 persons (rows shuffled): household-level ``tenure`` (skewed: "other"
    is 5% of the households but 8% of the persons; one household with a null) and ``size``; person-level ``job`` (nulls) and ``sex``; a household
    weight ``w`` repeated on every member."""
    g = np.random.default_rng(11)
    H = 80
    sizes = g.integers(1, 7, H)
    sizes[:4] = 6
    hh = np.repeat(np.arange(H) * 7 + 2, sizes)
    tenure = g.choice(["own", "rent", "free"], H, p=[0.55, 0.3, 0.15]).astype(object)
    tenure[:4] = "other"        # 4 of 80 households (5%), but 24 persons (8%): rare only as households
    tenure[5] = None
    n = hh.size
    job = g.choice(["a", "b", "c", "d", "e"], n, p=[0.5, 0.25, 0.15, 0.06, 0.04]).astype(object)
    job[::17] = None
    df = pl.DataFrame({
        "pid": np.arange(n, dtype=np.int64) * 5 + 1, "hh": hh.astype(np.int64),
        "tenure": pl.Series(np.repeat(tenure, sizes).tolist(), dtype=pl.String),
        "size": np.repeat(sizes, sizes).astype(np.int64), "job": pl.Series(job.tolist(), dtype=pl.String),
        "sex": g.choice(["f", "m"], n), "w": np.repeat(g.integers(1, 9, H) * 50.0, sizes),
    })
    return df[g.permutation(n)]


@pytest.fixture(scope="module")
def survey_sdf(spark, survey):  # noqa: F811
    return spark.createDataFrame(survey.to_arrow()).repartition(3).cache()


def _spark(out) -> pl.DataFrame:
    return pl.from_arrow(out.toArrow()).sort("pid")


def _enums(df: pl.DataFrame, cols: list[str]) -> pl.DataFrame:
    """String columns as Enums over their sorted labels: Spark's natural order of categories."""
    return df.with_columns(pl.col(c).cast(pl.Enum(sorted(df[c].drop_nulls().unique().to_list()))) for c in cols)


def test_spark_recode_household_equals_local(survey_sdf, survey):
    from polars_sdc import spark as sdcs

    cols = ["tenure", "job"]
    local_in = _enums(survey, cols)
    tree = {"a": "ab", "b": "ab", "c": "cde", "d": "cde", "e": "cde"}
    for opts in ({}, {"household_columns": []}, {"household_columns": ["tenure"], "other": "Other"},
                 {"hierarchy": {"job": tree}}):
        got = _spark(sdcs.recode(survey_sdf, cols, 0.06, household="hh", **opts))
        want = local_in.sdc.recode(cols, 0.06, household="hh", **opts)   # a hierarchy goes with its column
        want = want.with_columns(pl.col(cols).cast(pl.String)).sort("pid")
        assert_frame_equal(got, want)
        per_household = opts.get("household_columns") != []
        assert (got.group_by("hh").agg(pl.col("tenure").n_unique())["tenure"].max() == 1)
        plain = _spark(sdcs.recode(survey_sdf, cols, 0.06, **{k: v for k, v in opts.items()
                                                                 if k != "household_columns"}))
        # households, not persons, are counted for tenure: th = 80 * 0.06 = 4.8 merges "other" (4 households), rows * 0.06 does not (24 persons)
        assert plain["tenure"].equals(got["tenure"]) != per_household, opts
        assert plain["job"].equals(got["job"])
    # tenure broken in one household: person-level there and so everywhere, with the local warning
    # (what leaks in the other households) -- the same message, as one household is named
    pid = survey.filter((pl.col("size") > 1) & (pl.col("tenure") == "own"))["pid"].min()
    broken = survey.with_columns(pl.when(pl.col("pid") == pid).then(pl.lit("rent")).otherwise("tenure").alias("tenure"))
    with pytest.warns(HouseholdWarning) as want_w:
        want = _enums(broken, cols).sdc.recode(cols, 0.06, household="hh")
    with pytest.warns(HouseholdWarning) as have_w:
        got = _spark(sdcs.recode(survey_sdf.sparkSession.createDataFrame(broken.to_arrow()), cols, 0.06,
                                 household="hh"))
    assert str(have_w[0].message) == str(want_w[0].message) and "varies within 1 of 80 households" in str(
        have_w[0].message)
    assert_frame_equal(got, want.with_columns(pl.col(cols).cast(pl.String)).sort("pid"))
    # errors as locally: a declared household-level column that varies, the id among the columns,
    # a null household id
    with pytest.raises(SDCError, match="column 'job' is declared household-level but varies within household"):
        sdcs.recode(survey_sdf, cols, 0.06, household="hh", household_columns=["job"])
    with pytest.raises(SDCError, match="household column 'sex': is also masked"):
        sdcs.recode(survey_sdf, ["tenure", "sex"], 0.06, household="sex")
    holes = survey.with_columns(pl.when(pl.col("pid") < 30).then(None).otherwise(pl.col("hh")).alias("hh"))
    with pytest.raises(SDCError) as want:
        holes.sdc.recode(cols, 0.06, household="hh")
    with pytest.raises(SDCError) as have:
        sdcs.recode(survey_sdf.sparkSession.createDataFrame(holes.to_arrow()), cols, 0.06, household="hh")
    assert str(have.value) == str(want.value) == ("household column 'hh': 6 null id(s); every person needs a "
                                                  "household id (give a one-person household its own id)")


def _with_suppressed(df: pl.DataFrame) -> pl.DataFrame:
    """Two persons whose keys a generalised release suppressed (every key "*"): their households
    then match every household (wildcards), as locally."""
    star = pl.col("pid").is_in([6, 111])
    return df.with_columns(pl.when(star).then(pl.lit("*")).otherwise(pl.col(c)).alias(c) for c in ("tenure", "job", "sex"))


def test_spark_household_frequencies_equal_local(spark, survey):  # noqa: F811
    from polars_sdc import spark as sdcs

    starred = _with_suppressed(survey)
    cases = [   # (frame, keys, weight, suppressed_as): complete keys; missing keys (a household's tenure,
        (survey, ["size", "sex"], "w", None),                   # persons' jobs); suppressed records read
        (survey, ["tenure", "size", "job"], "w", None),         # as every key missing (a generalised
        (starred, ["tenure", "job", "sex"], None, "*"),         # release) and as written (the default)
        (starred, ["tenure", "job", "sex"], None, None),
    ]
    for df, keys, weight, label in cases:
        sdf = spark.createDataFrame(df.to_arrow()).repartition(3)
        got = _spark(sdcs.frequencies(sdf, keys, weight, household="hh", suppressed_as=label))
        want = df.sdc.frequencies(keys, weight, household="hh", suppressed_as=label).sort("pid")
        assert got["fk"].equals(want["fk"]), keys
        if weight is not None:
            assert got["Fk_pop"].equals(want["Fk"].rename("Fk_pop")), keys
        records = df.sdc.frequencies(keys, weight, suppressed_as=label).sort("pid")
        assert (want["fk"] < records["fk"]).any()          # households, not persons, are counted
        if df is starred:
            stars = got.filter(pl.col("pid").is_in([6, 111]))["fk"].to_list()
            # a suppressed record matches every household; read as written, "*" is a rare value
            assert stars == ([80.0, 80.0] if label else [2.0, 2.0]), label
            plain = _spark(sdcs.frequencies(sdf, keys, suppressed_as=label))      # the record-level path too
            assert plain["fk"].equals(records["fk"]), label
            assert records.filter(pl.col("pid").is_in([6, 111]))["fk"].to_list() == (
                [float(df.height)] * 2 if label else [2.0, 2.0])
    opts = dict(alpha=1.0, household="hh", alpha_rule="safe", suppressed_as="*")    # the risk path, as locally
    g = sdcs.global_risk(sdf, keys, None, **opts)
    assert g == pytest.approx(starred.sdc.global_risk(keys, None, **opts), rel=1e-12)
    assert g != pytest.approx(starred.sdc.global_risk(keys, None, alpha=1.0, household="hh"), rel=1e-6)
    with pytest.raises(SDCError) as want:
        starred.sdc.frequencies(keys, suppressed_as="")
    with pytest.raises(SDCError) as have:
        sdcs.frequencies(sdf, keys, suppressed_as="")
    assert str(have.value) == str(want.value)
    # local errors, and what Spark cannot honour: alpha < 1 with missing keys; a person weight that
    # varies within a household (no first member on Spark)
    sdf = spark.createDataFrame(survey.to_arrow())
    with pytest.raises(SDCError) as want:
        survey.sdc.frequencies(["tenure", "size"], household="hh", alpha=0.5)
    with pytest.raises(SDCError) as have:
        sdcs.frequencies(sdf, ["tenure", "size"], household="hh", alpha=0.5).collect()
    assert str(have.value) == str(want.value)
    with pytest.raises(SDCError, match="column 'pid': varies within household 2 of 'hh'"):
        sdcs.frequencies(sdf, ["size"], "pid", household="hh")
    # a null or a negative weight: refused with one message locally (records or households) and on Spark
    for bad in (None, -50.0):
        broken = survey.with_columns(pl.when(pl.col("pid") == 6).then(bad).otherwise(pl.col("w")).alias("w"))
        with pytest.raises(SDCError) as want:
            broken.sdc.frequencies(["size"], "w", household="hh")
        with pytest.raises(SDCError) as have:
            sdcs.frequencies(spark.createDataFrame(broken.to_arrow()), ["size"], "w", household="hh")
        assert str(have.value) == str(want.value) == (
            "column 'w': 1 null, NaN or infinite value(s)" if bad is None
            else "column 'w': 1 sampling weight(s) <= 0; weights must be > 0")
    with pytest.raises(SDCError, match="household column 'hh': is also masked"):
        sdcs.frequencies(sdf, ["size", "hh"], household="hh")


def test_spark_household_risk_equals_local(spark, survey):  # noqa: F811
    from polars_sdc import spark as sdcs

    keys = ["tenure", "size", "job"]            # with missing keys (wildcards)
    sdf = spark.createDataFrame(survey.to_arrow()).repartition(3)
    got = _spark(sdcs.individual_risk(sdf, keys, "w", household="hh"))
    want = survey.sdc.individual_risk(keys, "w", household="hh").sort("pid")
    assert got["fk"].equals(want["fk"])
    for a, b in (("Fk_pop", "Fk"), ("risk", "risk"), ("household_risk", "household_risk")):
        np.testing.assert_allclose(got[a].to_numpy(), want[b].to_numpy(), rtol=1e-12, atol=1e-15)
    assert (want["household_risk"] > want["risk"]).any()
    summary = sdcs.risk(sdf, keys, "w", alpha=0.5, household="hh", ks=(2, 3))
    local = survey.sdc.risk(keys, "w", alpha=0.5, household="hh", ks=(2, 3), suda=False).as_dict()
    assert set(summary) <= set(local) and "household_risk" in summary
    for name, v in summary.items():
        assert v == pytest.approx(local[name], rel=1e-12), name
    g = sdcs.global_risk(sdf, keys, "w", alpha=1.0, household="hh")
    assert g == pytest.approx(survey.sdc.global_risk(keys, "w", alpha=1.0, household="hh"), rel=1e-12) and len(g) == 4
    with pytest.raises(SDCError) as want_err:
        survey.sdc.global_risk(keys, "w", household="w")
    with pytest.raises(SDCError) as have_err:
        sdcs.global_risk(sdf, keys, "w", household="w")
    assert str(have_err.value) == str(want_err.value)


def test_spark_household_risk_keeps_full_precision_at_small_risks(spark):  # noqa: F811
    # risks ~ 1e-6 .. 1e-5 (large weights): the household risk within a few ulps of the exact value
    # (Fractions), where 1 - prod(1 - r) loses ~1e-11 relative; one record of risk 1 keeps 1 exactly
    import math

    from naive import reference_household_risk

    from polars_sdc import spark as sdcs

    g = np.random.default_rng(8)
    sizes = g.integers(1, 8, 40)
    hh = np.repeat(np.arange(40) * 3 + 1, sizes)
    n = hh.size
    df = pl.DataFrame({"pid": np.arange(n), "hh": hh, "a": g.integers(0, 12, n), "b": g.integers(0, 6, n),
                       "w": np.repeat(g.uniform(1e6, 1e7, 40), sizes)})
    df = df.vstack(pl.DataFrame({"pid": [n], "hh": [999], "a": [99], "b": [99], "w": [1.0]}))   # risk 1
    sdf = spark.createDataFrame(df.to_arrow()).repartition(3)
    got = _spark(sdcs.individual_risk(sdf, ["a", "b"], "w", household="hh"))
    want = np.array(reference_household_risk(got["risk"].to_numpy(), got["hh"].to_numpy()))
    assert got["risk"].head(n).max() < 1e-4 and got["household_risk"][-1] == 1.0
    assert np.max(np.abs(got["household_risk"].to_numpy() - want) / want) < 8e-16
    local = df.sdc.individual_risk(["a", "b"], "w", household="hh").sort("pid")
    np.testing.assert_allclose(got["household_risk"].to_numpy(), local["household_risk"].to_numpy(), rtol=8e-16)
    summary = sdcs.risk(sdf, ["a", "b"], "w", household="hh", ks=())
    assert summary["household_expected_reidentifications"] == pytest.approx(math.fsum(want), rel=1e-14)
