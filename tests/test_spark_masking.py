"""The masking toolkit on Spark (local mode) equals the local methods for the same data, seed and
key column: PRAM and rank swapping row for row, add_noise to ~1e-12 relative; nulls, a small
stratum, Enum levels, a user matrix, the local errors, and a retried task.

Needs pyspark >= 4 and Java; without them the tests skip, unless SDC_REQUIRE_ALL=1 (CI)."""
from __future__ import annotations

import os

import numpy as np
import polars as pl
import pytest
from test_spark import spark  # noqa: F401  (the session fixture: local[2,2], retries on)

import polars_sdc  # noqa: F401
from polars_sdc._errors import SDCError


@pytest.fixture(scope="module")
def data() -> pl.DataFrame:
    g = np.random.default_rng(8)
    n = 400
    df = pl.DataFrame({
        "id": g.permutation(n).astype(np.int64) * 7 + 3,           # keys are not positions
        "x": g.normal(0, 1, n),
        "y": g.normal(50, 10, n).round(0),                        # ties
        "z": g.exponential(1000, n),
        "s": np.where(g.random(n) < 0.7, "A", "B"),
        "c": g.choice(["u", "v", "w"], n, p=[0.5, 0.3, 0.2]),
        "k": g.integers(0, 4, n).astype(np.int32),
        "b": g.random(n) < 0.3,
    })
    small = pl.col("id") % 50 == 3                                # a small stratum "C" (8 rows)
    return df.with_columns(
        pl.when(small).then(pl.lit("C")).when(pl.col("id") % 97 == 3).then(None).otherwise("s").alias("s"),
        pl.when(pl.col("id") % 13 == 3).then(None).otherwise("c").alias("c"),
    )


@pytest.fixture(scope="module")
def sdf(spark, data):  # noqa: F811
    return spark.createDataFrame(data.to_arrow()).repartition(3).cache()


def _spark(out) -> pl.DataFrame:
    return pl.from_arrow(out.toArrow()).sort("id")


@pytest.mark.parametrize("by", [None, "s"])
def test_pram_equals_local(sdf, data, by):
    from polars_sdc import spark as sdcs

    local = data.sdc.pram(["c", "k", "b"], pd=0.5, alpha=0.9, by=by, seed=3, key="id").sort("id")
    got = _spark(sdcs.pram(sdf, ["c", "k", "b"], pd=0.5, alpha=0.9, by=by, seed=3, key="id"))
    assert got.equals(local)                   # identical, dtypes (Int32, Boolean) and nulls included
    assert (local["c"] != data.sort("id")["c"]).sum() > 20     # and PRAM changed something


def test_pram_enum_levels_and_user_matrix(sdf, data):
    from polars_sdc import spark as sdcs

    lv = ["w", "v", "u", "unseen"]                              # declared order, one level never observed
    local = data.with_columns(pl.col("c").cast(pl.Enum(lv))).sdc.pram("c", by="s", seed=5, key="id")
    got = _spark(sdcs.pram(sdf, "c", by="s", seed=5, key="id", levels={"c": lv}))
    assert got.equals(local.with_columns(pl.col("c").cast(pl.String)).sort("id"))
    m = np.array([[0.5, 0.5, 0.0], [0.0, 1.0, 0.0], [0.2, 0.0, 0.8]])
    local = data.sdc.pram("c", matrix=m, seed=5, key="id").sort("id")
    assert _spark(sdcs.pram(sdf, "c", matrix=m, seed=5, key="id")).equals(local)
    with pytest.raises(SDCError, match="'c': value 'u' is not in the given levels"):
        sdcs.pram(sdf, "c", seed=5, key="id", levels={"c": ["v", "w"]})


@pytest.mark.parametrize("method", ["additive", "correlated", "correlated2", "moments"])
def test_add_noise_equals_local(sdf, data, method):
    from polars_sdc import spark as sdcs

    for by in (None, "s") if method in ("correlated", "moments") else ("s",):
        # "moments" by stratum: the null stratum has 4 rows, p + 2 = 4 on two columns
        on = ["x", "z"] if method == "moments" and by else ["x", "y", "z"]
        local = data.sdc.add_noise(on, method=method, by=by, seed=3, key="id").sort("id")
        got = _spark(sdcs.add_noise(sdf, on, method=method, by=by, seed=3, key="id", check_key=False))
        assert got.schema == local.schema and got.drop(on).equals(local.drop(on))
        for c in on:
            a, b = got[c].to_numpy(), local[c].to_numpy()
            assert np.allclose(a, b, rtol=1e-12, atol=1e-12 * np.abs(b).max()), (method, by, c)
            assert not np.allclose(a, data.sort("id")[c].to_numpy())       # noise was added


def test_add_noise_refuses_as_local(spark, sdf, data):  # noqa: F811
    from polars_sdc import spark as sdcs

    for mask in (sdcs.add_noise, sdcs.pram, sdcs.rank_swap):              # no key: refused before any job
        with pytest.raises(SDCError, match=f"{mask.__name__} on Spark needs key="):
            mask(sdf, ["c"] if mask is sdcs.pram else ["x"], seed=1)
    with pytest.raises(SDCError, match="levels: column 'k' is not one of the PRAM columns"):
        sdcs.pram(sdf, "c", seed=1, key="id", levels={"k": [0, 1]})
    with pytest.raises(SDCError, match="stratum {'s': 'C'} of `by`: 1 row"):
        sdcs.add_noise(sdf.where("s <> 'C' or id < 100"), ["x"], by="s", seed=1, key="id")
    with pytest.raises(SDCError, match="method must be one of"):
        sdcs.add_noise(sdf, ["x"], method="nope", seed=1, key="id")
    with pytest.raises(SDCError, match="key column 'k': value .* more than once"):
        sdcs.add_noise(sdf, ["x"], seed=1, key="k")
    local = pl.DataFrame({"id": [1, 2, 3], "x": [1.0, None, float("nan")]})
    nulls = spark.createDataFrame(local.to_arrow())
    for method in ("additive", "correlated"):   # the null is kept (issue 24), the NaN refused as locally
        msg = "column 'x': 1 NaN value(s); a finite number is needed in every row"
        with pytest.raises(SDCError) as e:
            sdcs.add_noise(nulls, ["x"], method=method, seed=1, key="id")
        assert str(e.value) == msg
        with pytest.raises(SDCError) as e:
            local.sdc.add_noise(["x"], method=method, seed=1, key="id")
        assert str(e.value) == msg


@pytest.mark.parametrize(("on", "by", "options"), [
    (["x", "y", "z", "k"], None, {"p": 0.1}),
    (["x", "y", "z", "k"], "s", {"r0": 0.5}),
    (["y", "z", "k"], "s", {"k0": 0.5, "top": 0.05, "bottom": 0.02}),
])
def test_rank_swap_equals_local(sdf, data, on, by, options):
    from pyspark.sql import functions as F

    from polars_sdc import spark as sdcs

    nulls = data.with_columns(pl.when(pl.col("id") % 11 == 3).then(None).otherwise("z").alias("z"))
    s_nulls = sdf.withColumn("z", F.when(F.col("id") % 11 == 3, None).otherwise(F.col("z")))
    local = nulls.sdc.rank_swap(on, by=by, seed=3, key="id", **options).sort("id")
    got = _spark(sdcs.rank_swap(s_nulls, on, by=by, seed=3, key="id", **options))
    assert got.equals(local)                   # identical; k stays Int32 (Float64 with top/bottom, as locally)
    assert (got["y"] != nulls.sort("id")["y"]).sum() > 300


def test_rank_swap_stratum_errors_equal_local(sdf, data):
    from polars_sdc import spark as sdcs

    for by, options in ((["s", "k"], {"p": 0.1}), ("s", {"k0": 0.05, "top": 0.1})):
        with pytest.raises(SDCError) as local:
            data.sdc.rank_swap(["x", "y"], by=by, seed=1, key="id", **options)
        with pytest.raises(SDCError) as got:
            sdcs.rank_swap(sdf, ["x", "y"], by=by, seed=1, key="id", **options)
        assert str(got.value) == str(local.value)


def test_rank_swap_without_by_refuses_on_the_driver_as_locally(spark):  # noqa: F811
    """Without ``by`` a column none of whose values would move is refused as a stratum is, on the
    driver (before any task runs; sdcs.rank_swap is lazy), with the local message."""
    from polars_sdc import spark as sdcs

    x = np.random.default_rng(4).normal(size=40)
    cases = [(pl.DataFrame({"id": [1, 2, 3], "x": [5.0, 7.0, 9.0]}), {"p": 0.2}),      # p * n < 1
             (pl.DataFrame({"id": [1, 2], "x": [1.0, None]}), {"p": 0.5}),             # one value
             (pl.DataFrame({"id": np.arange(40), "x": np.r_[-np.arange(1.0, 21.0), np.arange(1.0, 21.0)]}),
              {"k0": 0.5}),                                  # mean exactly 0 in any order: a window of 0 from k0
             (pl.DataFrame({"id": np.arange(40), "x": x}), {"p": 0.02, "top": 0.1}),  # 36 left, p * n < 1
             (pl.DataFrame({"id": np.arange(5), "x": x[:5]}), {"preset": "sdcmicro"})]
    for frame, options in cases:
        with pytest.raises(SDCError) as local:
            frame.sdc.rank_swap("x", seed=1, key="id", **options)
        with pytest.raises(SDCError) as got:
            sdcs.rank_swap(spark.createDataFrame(frame.to_arrow()), "x", seed=1, key="id", **options)
        assert str(got.value) == str(local.value), options
    # what may pass unchanged passes: a constant column, r0 = 1
    for frame, options in ((pl.DataFrame({"id": [1, 2, 3], "x": [2.0, 2.0, 2.0]}), {"p": 0.5}),
                           (pl.DataFrame({"id": np.arange(40), "x": x}), {"r0": 1.0})):
        got = _spark(sdcs.rank_swap(spark.createDataFrame(frame.to_arrow()), "x", seed=1, key="id", **options))
        assert got.equals(frame.sdc.rank_swap("x", seed=1, key="id", **options).sort("id"))


def test_retried_tasks_give_identical_masks(sdf, data, tmp_path):
    from pyspark.sql import functions as F
    from pyspark.sql.types import LongType

    from polars_sdc import spark as sdcs

    armed, marks = tmp_path / "armed", tmp_path / "marks"
    marks.mkdir()

    def flaky_id(v):
        import uuid

        from pyspark import TaskContext

        ctx = TaskContext.get()
        if armed.exists() and ctx.attemptNumber() == 0 and ctx.partitionId() == 0:   # the first attempt fails
            (marks / uuid.uuid4().hex).touch()
            raise RuntimeError("injected failure on the first attempt")
        return v

    flaky = sdf.withColumn("id", F.udf(flaky_id, LongType())("id"))
    local = data.sdc.pram(["c", "k"], by="s", seed=2, key="id").sort("id")
    out = sdcs.pram(flaky, ["c", "k"], by="s", seed=2, key="id", check_key=False)   # counts pass: unarmed
    armed.touch()                     # the per-row pass fails once in partition 0, then is retried
    assert _spark(out).equals(local)
    armed.unlink()
    local = data.sdc.add_noise(["x", "z"], method="moments", seed=2, key="id").sort("id")
    out = sdcs.add_noise(flaky, ["x", "z"], method="moments", seed=2, key="id", check_key=False)
    armed.touch()
    got = _spark(out)
    assert np.allclose(got.select("x", "z").to_numpy(), local.select("x", "z").to_numpy(), rtol=1e-12, atol=1e-9)
    assert len(list(marks.iterdir())) >= 2, "no task failed: the retry was not exercised"


# -- audit (session 24); fixed in session 25: a max-abs aggregation gives each unit's power of two first
@pytest.mark.parametrize("method", ["additive", "correlated", "moments"])
@pytest.mark.parametrize("scale", [1e-300, 1e200])
def test_spark_add_noise_at_extreme_magnitudes_noises_and_equals_local(spark, method, scale):  # noqa: F811
    # raw sums of squares underflow at 1e-300 (sds of 0: the values released unchanged) and
    # overflow at 1e200; like the local method, Spark scales each unit (stratum, null pattern)
    # by a power of two before its moments and scales back after the noise
    from polars_sdc import spark as sdcs

    n = 30
    X = np.random.default_rng(1).normal(size=(n, 2)) + 3
    by = "s" if scale > 1 else None
    data = pl.DataFrame({"pid": np.arange(n), "s": np.where(np.arange(n) % 2 == 0, "u", "v"),
                         "a": X[:, 0] * scale, "b": X[:, 1] * scale})
    got = pl.from_arrow(sdcs.add_noise(spark.createDataFrame(data.to_arrow()), ["a", "b"], method=method, by=by,
                                       seed=3, key="pid").toArrow()).sort("pid")
    local = data.sdc.add_noise(["a", "b"], method=method, by=by, seed=3, key="pid")
    assert (local["a"] != data["a"]).all() and np.isfinite(local.select("a", "b").to_numpy()).all()
    assert np.allclose(got.select("a", "b").to_numpy(), local.select("a", "b").to_numpy(), rtol=1e-9, atol=0)
