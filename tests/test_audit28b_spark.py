"""Session 28 audit (b): the Spark back end against local, on small frames (one session fixture).

- a column name with a '.' or a backtick (even one the call does not use) made every Spark function
  fail with Spark's AnalysisException; now an SDCError names the column;
- two columns whose names differ only in case ("x" and "X") made every function fail with an
  ambiguous-reference AnalysisException (Spark compares names case-insensitively);
- laplace on an empty table failed with a TypeError (local returns the empty frame);
- PRAM with ``by=`` a local Enum column numbered the strata differently from Spark (strings).
Needs pyspark and Java (skips without, as tests/test_spark.py)."""
from __future__ import annotations

import polars as pl
import pytest
from test_spark import spark  # noqa: F401  (the session fixture)

import polars_sdc  # noqa: F401
from polars_sdc import SDCError

N = 24
DF = pl.DataFrame({"id": list(range(N)), "r": ["b", "a", "c"] * (N // 3),
                   "x": [float(i * i % 17) for i in range(N)], "c": ["u", "v", "w", "u"] * (N // 4)})


def _sdf(spark, df, parts=2):  # noqa: F811
    return spark.createDataFrame(df.to_arrow()).repartition(parts)


def _back(sdf) -> pl.DataFrame:
    return pl.from_arrow(sdf.toArrow()).sort("id")


@pytest.mark.parametrize("name", ["a.b", "q`z"])
def test_a_dot_or_backtick_in_a_column_name_is_refused_naming_it(spark, name):  # noqa: F811
    from polars_sdc import spark as sdcs

    sdf = _sdf(spark, DF.with_columns(pl.lit(1).alias(name)))
    calls = [lambda: sdcs.pram(sdf, "c", seed=1, key="id"),
             lambda: sdcs.add_noise(sdf, ["x"], seed=1, key="id"),
             lambda: sdcs.rank_swap(sdf, ["x"], p=0.3, seed=1, key="id"),
             lambda: sdcs.laplace(sdf, 1.0, ["x"], seed=1, key="id"),
             lambda: sdcs.mdav(sdf, 3, ["x"]),
             lambda: sdcs.recode(sdf, "c", p=0.3),
             lambda: sdcs.frequencies(sdf, ["c", "r"])]
    for call in calls:
        with pytest.raises(SDCError, match=rf"column {name!r}: a '\.' or '`' in a column name"):
            call()


def test_laplace_on_an_empty_table_is_empty_as_locally(spark):  # noqa: F811
    from polars_sdc import spark as sdcs

    out = _back(sdcs.laplace(_sdf(spark, DF).filter("id < 0"), 1.0, ["x"], seed=5, key="id"))
    assert out.height == 0
    assert out.schema == DF.clear().sdc.laplace(1.0, ["x"], seed=5, key="id").schema


def test_pram_by_an_enum_stratum_equals_spark(spark):  # noqa: F811
    from polars_sdc import spark as sdcs

    n = 300
    base = pl.DataFrame({"id": list(range(n)), "r": ["b", "a", "c"] * (n // 3), "c": ["u", "v", "w", "u", "x"] * (n // 5)})
    local = base.with_columns(pl.col("r").cast(pl.Enum(["c", "b", "a"]))).sdc.pram("c", by="r", seed=5, key="id",
                                                                                  pd=0.3)
    for parts in (1, 3):
        got = _back(sdcs.pram(_sdf(spark, base, parts), "c", by="r", seed=5, key="id", pd=0.3))
        assert got["c"].to_list() == local["c"].to_list()


@pytest.mark.parametrize("scale", [2.0**-1070, 2.0**1010])
def test_rank_swap_r0_window_at_extreme_magnitudes_equals_local(spark, scale):  # noqa: F811
    # the driver's check computed the r0 window from var_pop / max - min of the raw values: inf or 0 at
    # these scales, so it refused ("p * n = 0 < 1 ... lower r0") what the local method swaps
    from polars_sdc import spark as sdcs

    df = pl.DataFrame({"id": list(range(20)), "g": ["a", "b"] * 10, "x": [float(v) * scale for v in range(1, 21)]})
    local = df.sdc.rank_swap("x", r0=0.8, by="g", seed=2, key="id")
    got = _back(sdcs.rank_swap(_sdf(spark, df), "x", r0=0.8, by="g", seed=2, key="id"))
    assert got.equals(local)
    assert not local["x"].equals(df["x"])


def test_columns_differing_only_in_case_are_refused_naming_both(spark):  # noqa: F811
    from polars_sdc import spark as sdcs

    sdf = _sdf(spark, DF.with_columns(pl.col("x").alias("X"), pl.col("c").alias("C")))
    for call in (lambda: sdcs.pram(sdf, "c", seed=1, key="id"), lambda: sdcs.add_noise(sdf, ["x"], seed=1, key="id"),
                 lambda: sdcs.mdav(sdf, 3, ["x"]), lambda: sdcs.recode(sdf, "c", p=0.3)):
        with pytest.raises(SDCError, match=r"columns 'x' and 'X': Spark compares column names case-insensitively"):
            call()


def test_rank_swap_coding_a_single_extreme_is_refused_on_the_driver(spark):  # noqa: F811
    from polars_sdc import spark as sdcs

    df = pl.DataFrame({"id": list(range(11)), "g": ["a"] * 11, "x": [float(v) for v in range(1, 11)] + [1000.0]})
    with pytest.raises(SDCError, match=r"column 'x': stratum \{'g': 'a'\} of `by` top = 0.1 codes 1 of its 11 values"):
        sdcs.rank_swap(_sdf(spark, df), "x", p=0.3, top=0.1, by="g", seed=1, key="id")
    local = df.sdc.rank_swap("x", p=0.3, top=0.2, by="g", seed=1, key="id")
    assert _back(sdcs.rank_swap(_sdf(spark, df), "x", p=0.3, top=0.2, by="g", seed=1, key="id")).equals(local)


def _strata_frame() -> pl.DataFrame:
    import numpy as np

    r = np.random.default_rng(5)
    n = 40
    df = pl.DataFrame({"id": np.arange(n), "g": pl.Series(r.choice(["a", "b", None], n, p=[0.4, 0.4, 0.2]).tolist(),
                                                          dtype=pl.String),
                       "x": r.normal(size=n), "i": pl.Series(r.integers(-100, 100, n), dtype=pl.Int16),
                       "y": r.integers(0, 5, n).astype(float)})
    return df.with_columns(pl.when(pl.col("id") % 4 == 0).then(None).otherwise(pl.col("y")).alias("yn"))


@pytest.mark.parametrize("method,on,by", [("mdav", ["x", "i"], "g"), ("mhm", ["x", "i"], "g"),
                                          ("mdav", ["x", "yn"], None), ("vmdav", ["x", "yn"], "g")])
def test_microaggregate_one_block_per_stratum_equals_local(spark, method, on, by):  # noqa: F811
    # the local method z-scores each stratum (and each null pattern) on its own rows; Spark's blocks
    # used the whole table's standard deviations, so with by= or structural nulls a stratum held in
    # one block was partitioned otherwise than locally
    from polars_sdc import spark as sdcs

    df = _strata_frame()
    local = df.sdc.microaggregate(3, on, method=method, by=by)
    for parts in (1, 3):
        got = _back(sdcs.microaggregate(_sdf(spark, df, parts), 3, on, method=method, by=by, block_rows=1000))
        assert got.equals(local), parts


def _household_frame(person_level: bool) -> pl.DataFrame:
    import numpy as np

    r = np.random.default_rng(7)
    hh = np.repeat(np.arange(30), 2)
    g = np.where(hh < 15, "a", "b")
    inc = r.normal(size=hh.size) * np.where(g == "a", 1.0, 50.0)
    size = (r.integers(1, 6, hh.size) if person_level else r.integers(1, 6, 30)[hh]).astype(float) \
        * np.where(g == "a", 20.0, 1.0)
    if not person_level:
        inc = inc[::2].repeat(2)     # one value per household
    df = pl.DataFrame({"id": np.arange(hh.size), "hh": hh, "g": g.tolist(), "inc": inc, "size": size})
    # structural nulls: a null income in some households (all members, household-level; one member, person-level)
    nul = (pl.col("hh") % 5 == 0) & ((pl.col("id") % 2 == 0) if person_level else pl.lit(True))
    return df.with_columns(pl.when(nul).then(None).otherwise(pl.col("inc")).alias("inc"))


@pytest.mark.parametrize("person_level", [False, True])
@pytest.mark.parametrize("by", [None, "g"])
def test_microaggregate_household_one_block_per_stratum_equals_local(spark, person_level, by):  # noqa: F811
    # household=: each block held the whole table's z-scores while local z-scores each stratum and
    # null pattern on its own rows (strata 50 times apart in scale: another partition)
    from polars_sdc import spark as sdcs

    df = _household_frame(person_level)
    local = df.sdc.microaggregate(2, ["inc", "size"], by=by, household="hh", group_column="grp")
    got = _back(sdcs.microaggregate(_sdf(spark, df, 3), 2, ["inc", "size"], by=by, household="hh",
                                    group_column="grp", block_rows=1000))
    assert got.drop("grp").equals(local.drop("grp"))


def test_microaggregate_with_a_plan_equals_local(spark):  # noqa: F811
    from polars_sdc import spark as sdcs

    df = _strata_frame()
    sdf = _sdf(spark, df, 2)
    for on in (["x", "i"], ["x", "yn"]):
        plan = sdcs.plan_blocks(sdf, 3, on, by="g", block_rows=1000, nulls=True)
        local = df.sdc.microaggregate(3, on, by="g")
        assert _back(sdcs.microaggregate(sdf, 3, on, by="g", plan=plan)).equals(local), on
