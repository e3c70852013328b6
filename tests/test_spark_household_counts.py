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
        if "hierarchy" in opts:   # local household= refuses a hierarchy of a person-level column (see the report)
            want = local_in.sdc.recode("job", 0.06, hierarchy=opts["hierarchy"]).sdc.recode("tenure", 0.06,
                                                                                              household="hh")
        else:
            want = local_in.sdc.recode(cols, 0.06, household="hh", **opts)
        want = want.with_columns(pl.col(cols).cast(pl.String)).sort("pid")
        assert_frame_equal(got, want)
        per_household = opts.get("household_columns") != []
        assert (got.group_by("hh").agg(pl.col("tenure").n_unique())["tenure"].max() == 1)
        plain = _spark(sdcs.recode(survey_sdf, cols, 0.06, **{k: v for k, v in opts.items()
                                                                 if k != "household_columns"}))
        # households, not persons, are counted for tenure: th = 80 * 0.06 = 4.8 merges "other" (4 households), rows * 0.06 does not (24 persons)
        assert plain["tenure"].equals(got["tenure"]) != per_household, opts
        assert plain["job"].equals(got["job"])
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
