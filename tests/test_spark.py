"""The Spark back end (local mode): Spark results equal the local methods on the same blocks,
every released class has >= k rows, seeded noise equals the per-row generator, recoding and
loss equal the local ones, and a retried task gives identical output.

Needs pyspark >= 4 and Java; without them the tests skip, unless SDC_REQUIRE_ALL=1 (CI)."""
from __future__ import annotations

import os
import shutil
import sys
import warnings

import numpy as np
import polars as pl
import pytest

import polars_sdc  # noqa: F401
from polars_sdc import rng
from polars_sdc._errors import SDCError

REQUIRE = os.environ.get("SDC_REQUIRE_ALL") == "1"


def _missing() -> str | None:
    try:
        import pyspark  # noqa: F401
        import pyarrow  # noqa: F401
    except ImportError:
        return 'pyspark is not installed (pip install "polars_sdc[spark]")'
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        return "java is not installed (Spark needs a JVM, e.g. openjdk-17-jre-headless)"
    return None


@pytest.fixture(scope="session")
def spark():
    reason = _missing()
    if reason:
        if REQUIRE:
            pytest.fail(f"SDC_REQUIRE_ALL=1 but {reason}")
        pytest.skip(reason)
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    os.environ["PYTHONPATH"] = os.pathsep.join([root, *filter(None, [os.environ.get("PYTHONPATH")])])
    from pyspark.sql import SparkSession

    # local[2, 2]: two cores, and a failed task is tried a second time (the retry test needs it)
    # tiny data: two shuffle partitions, no whole-stage code generation nor adaptive
    # re-planning, and the JVM's quick (C1) compiler: each query compiles less than it runs
    active = SparkSession.getActiveSession()
    if active is not None and active.sparkContext.master != "local[2,2]":
        active.stop()             # a session made elsewhere in this process (no task retries)
    session = (SparkSession.builder.master("local[2,2]").appName("polars_sdc-tests")
               .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "2")
               .config("spark.default.parallelism", "2").config("spark.sql.codegen.wholeStage", "false")
               .config("spark.sql.adaptive.enabled", "false")
               .config("spark.driver.extraJavaOptions", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")
               .config("spark.ui.showConsoleProgress", "false").getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.fixture(scope="module")
def data() -> pl.DataFrame:
    g = np.random.default_rng(5)
    n = 900
    s = np.where(g.random(n) < 0.7, "A", "B")
    df = pl.DataFrame({
        "id": np.arange(n, dtype=np.int64),
        "x": g.normal(0, 1, n),
        "y": g.normal(50, 10, n).round(0),          # ties
        "z": g.exponential(1000, n),
        "s": s,
        "c": g.choice(["u", "v", "w"], n, p=[0.5, 0.3, 0.2]),
    })
    return df.with_columns(pl.when(pl.col("id") % 97 == 0).then(None).otherwise(pl.col("s")).alias("s"))


ON = ["x", "y", "z"]
K = 5


@pytest.fixture(scope="module")
def sdf(spark, data):
    return spark.createDataFrame(data.to_arrow()).repartition(3).cache()


@pytest.fixture(scope="module")
def plan(sdf):
    from polars_sdc import spark as sdcs

    return sdcs.plan_blocks(sdf, K, ON, by="s", block_rows=70, seed=3)


@pytest.fixture(scope="module")
def blocked(sdf, plan) -> pl.DataFrame:
    """The input with the block id of each row (column "b"), collected."""
    from polars_sdc.spark.blocking import assign

    return pl.from_arrow(assign(sdf, plan, column="b").toArrow())


def _canon(df: pl.DataFrame) -> pl.DataFrame:
    return df.sort(df.columns, nulls_last=True)


def test_blocks_hold_k_to_block_rows_records_of_one_stratum(plan, blocked, data):
    assert plan.n_blocks >= 900 // 70
    assert plan.block_sizes.min() >= K and plan.block_sizes.max() <= 70
    assert plan.block_sizes.sum() == data.height
    sizes = blocked.group_by("b").agg(pl.len(), pl.col("s").n_unique().alias("strata"),
                                      pl.col("s").null_count().alias("nulls"))
    assert (sizes["strata"] == 1).all()                      # a block never spans two strata
    assert sizes.sort("b")["len"].to_list() == plan.block_sizes.tolist()
    # the assignment is a function of the row: the same on a local frame, in any order
    local = plan.blocks(data.reverse())[::-1]
    assert np.array_equal(blocked.sort("id")["b"].to_numpy(), local)


def test_partition_labels_put_each_block_in_its_own_spark_partition(spark):
    from pyspark.sql import functions as F

    from polars_sdc.spark.blocking import partition_labels, spark_hash_long

    ids = np.r_[np.arange(-300, 300), [2**40 + 7, -(2**62), 2**63 - 1]].astype(np.int64)
    got = spark.createDataFrame([(int(i),) for i in ids], "id long").select(F.hash("id").alias("h")).toArrow()
    assert np.array_equal(got.column("h").to_numpy(), spark_hash_long(ids))
    n = 7
    labels = partition_labels(n)
    parts = (spark.createDataFrame([(int(x),) for x in labels], "id long").repartition(n, "id")
             .rdd.glom().map(lambda rows: [r[0] for r in rows]).collect())
    assert parts == [[int(x)] for x in labels]


def test_block_stage_runs_each_block_of_a_partition_once_in_block_order():
    # the mapInArrow function: batches joined, one call per block (a partition normally holds
    # one block; several are split by block id, increasing), empty partitions yield nothing
    pa = pytest.importorskip("pyarrow")
    from polars_sdc.spark._common import BLOCK
    from polars_sdc.spark._common import block_partitions

    seen = []

    def task(table):
        seen.append((sorted(set(table.column(BLOCK).to_pylist())), table.num_rows))
        return table.append_column("n", pa.array([table.num_rows] * table.num_rows))

    run = block_partitions(task, BLOCK)
    batches = [pa.record_batch({BLOCK: pa.array(b, pa.int32()), "x": pa.array([1.0] * len(b))})
               for b in ([7, 3, 7], [], [3, 3])]
    out = pa.Table.from_batches(list(run(iter(batches))))
    assert seen == [([3], 3), ([7], 2)]
    assert out.column(BLOCK).to_pylist() == [3, 3, 3, 7, 7] and out.column("n").to_pylist() == [3, 3, 3, 2, 2]
    assert list(run(iter(batches[1:2]))) == [] and seen == [([3], 3), ([7], 2)]
    one = pa.Table.from_batches(list(run(iter(batches[2:]))))
    assert one.num_rows == 2 and seen[-1] == ([3], 2)


@pytest.mark.parametrize("method, refine, options", [
    ("mdav", None, {}), ("mdav", "mil", {"refine_options": {"max_sweeps": 2}}), ("vmdav", None, {"gamma": 0.5}),
    ("mhm", None, {"order": "kd-mdav"}),
])
def test_microaggregate_equals_local_on_the_same_blocks(sdf, plan, blocked, data, method, refine, options):
    from polars_sdc import spark as sdcs

    out = sdcs.microaggregate(sdf, K, ON, by="s", method=method, refine=refine, plan=plan,
                              group_column="g", block_column="blk", **options)
    got = pl.from_arrow(out.toArrow())
    assert got.height == data.height and got.columns == [*data.columns, "g", "blk"]
    # the privacy guarantee: every class of the released quasi-identifiers (strata too) has >= k rows
    assert got.group_by([*ON, "s"]).len()["len"].min() >= K
    assert got.group_by("g").agg(pl.col("blk").n_unique())["blk"].max() == 1
    # reference: the local method on each block, z-scores of the block's stratum (as a local run
    # with by="s"; the standard deviations as Spark computes them)
    from polars_sdc.spark.blocking import NULLS
    from polars_sdc.spark.microaggregate import null_pattern_column, unit_deviations

    sd = data.select(pl.col(ON).std(ddof=0)).row(0)
    assert np.allclose(plan.std, sd, rtol=1e-12)
    sds = unit_deviations(sdf.withColumn(NULLS, null_pattern_column(ON)), ["s", NULLS], ON)
    assert sds.height == data["s"].n_unique()     # one null pattern
    parts = []
    for (b,), block in blocked.partition_by("b", as_dict=True, maintain_order=True).items():
        block = block.drop("b").sort(data.columns, nulls_last=True)
        row = sds.filter(pl.col("s").eq_missing(block["s"][0])).row(0, named=True)   # (a null stratum too)
        w = {c: 1.0 / row[f"__sdc_sd{j}"] ** 2 for j, c in enumerate(ON)}
        assert np.allclose(list(w.values()), 1 / data.filter(pl.col("s").eq_missing(block["s"][0]))
                           .select(pl.col(ON).std(ddof=0)).to_numpy()[0] ** 2, rtol=1e-10)
        parts.append(block.sdc.microaggregate(K, ON, method=method, refine=refine, standardize=False, weights=w,
                                              **options))
    ref = pl.concat(parts)
    assert _canon(got.drop("g", "blk")).equals(_canon(ref))
    # masked values are group means of the original rows
    joined = data.join(got.select("id", "g"), on="id")
    means = joined.group_by("g").agg(pl.col(ON).mean()).sort("g")
    back = got.group_by("g").agg(pl.col(ON).first()).sort("g")
    assert np.allclose(means.select(ON).to_numpy(), back.select(ON).to_numpy())


def test_microaggregate_quality_close_to_global_mdav(spark, data):
    from polars_sdc import spark as sdcs

    df = data.select("id", *ON)
    one = spark.createDataFrame(df.to_arrow())
    out = sdcs.microaggregate(one, K, ON, block_rows=300, group_column="g").cache()
    spark_loss = sdcs.ilssdm(one, ON, masked=out, key="id")
    local_out = df.sdc.mdav(K, ON)
    local_loss = df.sdc.ilssdm(ON, masked=local_out)
    assert 0 < spark_loss <= 1.25 * local_loss
    # the Spark loss measure equals the local one on the same release
    got = pl.from_arrow(out.toArrow()).sort("id")
    assert spark_loss == pytest.approx(df.sdc.ilssdm(ON, masked=got.select(df.columns)), rel=1e-9)
    by_groups = sdcs.ilssdm(one.join(out.select("id", "g"), "id"), on=ON, groups="g")
    assert by_groups == pytest.approx(spark_loss, rel=1e-9)


def test_retried_tasks_give_identical_output(sdf, plan, tmp_path):
    from polars_sdc import spark as sdcs

    marks = str(tmp_path)

    def flaky(task):
        def run(table):
            import os as _os
            import uuid

            from pyspark import TaskContext

            ctx = TaskContext.get()
            if ctx.attemptNumber() == 0 and ctx.partitionId() in (0, 1):   # two tasks fail once
                open(_os.path.join(marks, uuid.uuid4().hex), "w").close()
                raise RuntimeError("injected failure on the first attempt")
            return task(table)
        return run

    plain = sdcs.microaggregate(sdf, K, ON, by="s", plan=plan)
    retried = sdcs.microaggregate(sdf, K, ON, by="s", plan=plan, task_wrapper=flaky)
    a, b = pl.from_arrow(plain.toArrow()), pl.from_arrow(retried.toArrow())
    assert os.listdir(marks), "no task failed: the retry was not exercised"
    assert _canon(a).equals(_canon(b))


def test_blocking_errors(sdf, spark):
    from polars_sdc import spark as sdcs

    with pytest.raises(SDCError, match="block_rows"):
        sdcs.plan_blocks(sdf, 5, ON, block_rows=9)
    with pytest.raises(SDCError, match="'nope'"):
        sdcs.plan_blocks(sdf, 5, ["nope"])
    tiny = spark.createDataFrame(pl.DataFrame({"x": [1.0, 2.0, 3.0, None]}).to_arrow())
    with pytest.raises(SDCError, match="'x'.*null"):
        sdcs.plan_blocks(tiny, 2, "x", block_rows=10)
    strata = spark.createDataFrame(pl.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "s": ["a", "a", "a", "b"]}).to_arrow())
    with pytest.raises(SDCError, match="stratum s='b': 1 rows < k = 2"):
        sdcs.plan_blocks(strata, 2, "x", by="s", block_rows=10)


def test_laplace_equals_the_per_row_generator(spark, data):
    from polars_sdc import spark as sdcs

    one = spark.createDataFrame(data.to_arrow())
    phi = {"x": 0.5, "z": 40.0}
    out = sdcs.laplace(one, phi=phi, key="id", seed=7)
    got = pl.from_arrow(out.toArrow()).sort("id")
    keys = rng.row_keys(data["id"])
    for c, p in phi.items():
        want = data[c].to_numpy() + rng.laplace(7, f"laplace/{c}", keys, p)
        assert np.array_equal(got[c].to_numpy(), want)
    assert got.select("id", "y", "s", "c").equals(data.select("id", "y", "s", "c"))
    # another partitioning gives the same noise; a string key works too
    again = pl.from_arrow(sdcs.laplace(one.repartition(5), phi=phi, key="id", seed=7).toArrow()).sort("id")
    assert again.equals(got)
    skey = data.with_columns(pl.format("p{}", "id").alias("pid"))
    s_out = pl.from_arrow(sdcs.laplace(spark.createDataFrame(skey.to_arrow()), 1.0, ["x"], key="pid", seed=3)
                          .toArrow()).sort("id")
    assert np.array_equal(s_out["x"].to_numpy(),
                          skey["x"].to_numpy() + rng.laplace(3, "laplace/x", rng.row_keys(skey["pid"]), 1.0))


def test_laplace_needs_a_unique_key(spark, data):
    from polars_sdc import spark as sdcs

    one = spark.createDataFrame(data.to_arrow())
    with pytest.raises(SDCError, match="key="):
        sdcs.laplace(one, 1.0, ["x"], seed=1)
    with pytest.raises(SDCError, match="key column 'y': dtype Float64 cannot be a key"):   # on the driver
        sdcs.laplace(one, 1.0, ["x"], key="y", seed=1)
    from pyspark.sql import functions as F

    with pytest.raises(SDCError, match="key column 'dup': value 1 appears more than once"):
        sdcs.laplace(one.withColumn("dup", F.lit(1)), 1.0, ["x"], key="dup", seed=1)
    with pytest.raises(SDCError, match="phi"):
        sdcs.laplace(one, -1.0, ["x"], key="id", seed=1)


def test_laplace_pk_calibration(spark, data):
    from polars_sdc import spark as sdcs
    from polars_sdc.laplace import calibrate_phi

    one = spark.createDataFrame(data.select("id", "x").to_arrow())
    phi = calibrate_phi(data, "x", 2)["x"]
    got = pl.from_arrow(sdcs.laplace(one, on=["x"], k=2, key="id", seed=9).toArrow()).sort("id")
    want = data["x"].to_numpy() + rng.laplace(9, "laplace/x", rng.row_keys(data["id"]), phi)
    assert np.allclose(got["x"].to_numpy(), want, rtol=0, atol=1e-12)


def test_recode_equals_local(spark):
    from polars_sdc import spark as sdcs

    industry = ["農業"] * 5 + ["林業"] * 2 + ["サービス業"] * 30 + ["不動産業"] * 13 + ["製造業"] * 50
    g = np.random.default_rng(1)
    other = list(g.choice(["a", "b", "c", "d", "e"], 100, p=[0.6, 0.3, 0.04, 0.03, 0.03]))
    other[3] = None
    df = pl.DataFrame({"id": range(100), "industry": industry, "o": other})
    one = spark.createDataFrame(df.to_arrow()).repartition(3)
    got = pl.from_arrow(sdcs.recode(one, ["industry", "o"], p=0.05).toArrow()).sort("id")
    # local reference: Enums over the sorted labels give the same natural positions
    enum = df.with_columns(pl.col(c).cast(pl.Enum(sorted(df[c].drop_nulls().unique().to_list())))
                           for c in ["industry", "o"])
    ref = enum.sdc.recode(["industry", "o"], p=0.05).with_columns(pl.col("industry", "o").cast(pl.String))
    assert got.equals(ref)
    assert "林業|農業" in got["industry"].to_list() and got["o"].null_count() == 1
    plan = sdcs.recode_map(one, ["industry", "o"], p=0.05)
    assert plan.equals(enum.sdc.recode_map(["industry", "o"], p=0.05))
    order = ["a", "b", "c", "d", "e"]
    ordered = pl.from_arrow(sdcs.recode(one, "o", p=0.05, ordinal={"o": order}).toArrow()).sort("id")
    ref_o = df.with_columns(pl.col("o").cast(pl.Enum(order))).sdc.recode("o", p=0.05, ordinal=["o"])
    assert ordered["o"].to_list() == ref_o["o"].cast(pl.String).to_list()


def test_recode_labels_and_null_values_equal_local(spark):
    """sep=, other=, max_label= and null_values= give the local result (issue 16)."""
    from polars_sdc import spark as sdcs

    g = np.random.default_rng(5)
    values = list(g.choice(["US", "?", "Cuba", "India", "Jamaica|Haiti", "", "農業"], 400,
                           p=[0.8, 0.06, 0.04, 0.03, 0.03, 0.02, 0.02]))
    values[7] = None
    df = pl.DataFrame({"id": range(400), "c": values})
    one = spark.createDataFrame(df.to_arrow()).repartition(3)
    enum = df.with_columns(pl.col("c").cast(pl.Enum(sorted(df["c"].drop_nulls().unique().to_list()))))
    for opts in ({"null_values": ["?"]}, {"null_values": "?", "other": "Other"}, {"sep": "・", "max_label": 24},
                 {"other": "Other"}):
        got = pl.from_arrow(sdcs.recode(one, "c", p=0.05, **opts).toArrow()).sort("id")
        want = enum.sdc.recode("c", p=0.05, **opts).with_columns(pl.col("c").cast(pl.String))
        assert got.equals(want), opts
        assert sdcs.recode_map(one, "c", p=0.05, **opts).equals(enum.sdc.recode_map("c", p=0.05, **opts)), opts
    got = pl.from_arrow(sdcs.recode(one, "c", p=0.05, null_values=["?"], other="Other").toArrow()).sort("id")
    assert got["c"].null_count() == 1 + values.count("?") and "Other" in got["c"].to_list()
    with pytest.raises(SDCError, match="^column 'c': other= pools"):
        sdcs.recode_map(one, "c", p=0.05, other="Other", ordinal={"c": sorted(set(values) - {None})})


FRANC_KEYS = ["Key1", "Key2", "Key3", "Key4"]
SUMMARY = ["records", "k_anonymity", "records_violating_k2", "records_violating_k3", "records_violating_k5",
           "sample_uniques"]


def _adversarial() -> pl.DataFrame:
    """Wildcards of every kind: NaN and null in a float key, null strings, a record with every
    key missing, duplicated combinations, fractional weights."""
    return pl.DataFrame({
        "id": list(range(12)),
        "a": [1.0, 1.0, float("nan"), None, 2.0, 2.0, 2.0, None, 3.0, 1.0, 2.0, None],
        "b": ["p", "p", "p", "q", None, "q", "q", None, "p", None, "q", "q"],
        "c": [0, 0, 0, 1, 1, 1, 1, None, 0, 0, 1, 1],
        "w": [1.5, 2.0, 10.0, 3.0, 1.0, 7.25, 4.0, 2.0, 1.0, 30.0, 1.0, 5.5],
    })


@pytest.mark.parametrize("case", ["francdat", "francdat-missing", "adversarial-alpha-0.5", "one-key-alpha-0.5"])
def test_frequencies_and_risk_equal_local(spark, case):
    from polars_sdc import spark as sdcs

    if case.startswith("francdat"):
        df, keys, alpha = polars_sdc.datasets.francdat(missing=case.endswith("missing")), FRANC_KEYS, 1.0
    elif case.startswith("one-key"):   # sdcMicro's single-key branch (test_freqCalc.R's data)
        df = pl.DataFrame({"A": [2.0, 3.0, None, 2.0, 1.0, float("nan"), 1.0, 2.0],
                           "w": [18.0, 45.5, 39.0, 17.0, 92.0, 8.0, 123.5, 51.0]})
        keys, alpha = ["A"], 0.5
        assert df.sdc.frequencies("A", alpha=1.0)["fk"].to_list() == [5, 3, 8, 5, 4, 8, 4, 5]
    else:
        df, keys, alpha = _adversarial(), ["a", "b", "c"], 0.5
    df = df.with_row_index("rid").with_columns(pl.col("rid").cast(pl.Int64))
    sdf = spark.createDataFrame(df.to_arrow()).repartition(2)
    local = df.sdc.individual_risk(keys, weight="w", alpha=alpha)
    got = pl.from_arrow(sdcs.individual_risk(sdf, keys, weight="w", alpha=alpha).toArrow()).sort("rid")
    assert got.columns == [*df.columns, "fk", "Fk_pop", "risk"]
    assert got.select(df.columns).equals(df, null_equal=True)
    assert got["fk"].to_list() == local["fk"].to_list()
    assert np.allclose(got["Fk_pop"].to_numpy(), local["Fk"].to_numpy(), rtol=1e-13, atol=0)
    assert np.allclose(got["risk"].to_numpy(), local["risk"].to_numpy(), rtol=1e-12, atol=0)
    want = df.sdc.risk(keys, weight="w", alpha=alpha, suda=False).as_dict()
    summary = sdcs.risk(sdf, keys, weight="w", alpha=alpha)
    assert {k: summary[k] for k in SUMMARY} == {k: want[k] for k in SUMMARY}
    for name in ("global_risk", "expected_reidentifications"):
        assert summary[name] == pytest.approx(want[name], rel=1e-12)
    if case == "francdat":   # one case for the thin faces: unweighted frequencies, global risk
        freq = pl.from_arrow(sdcs.frequencies(sdf, keys).toArrow()).sort("rid")
        assert freq.columns == [*df.columns, "fk"]
        assert freq["fk"].to_list() == df.sdc.frequencies(keys)["fk"].to_list()
        g = sdcs.global_risk(sdf, keys, weight="w", alpha=alpha)
        assert g == pytest.approx(df.sdc.global_risk(keys, weight="w", alpha=alpha), rel=1e-12)


def test_frequencies_errors(spark):
    from polars_sdc import spark as sdcs

    df = polars_sdc.datasets.francdat()
    sdf = spark.createDataFrame(df.with_columns(pl.when(pl.col("Key1") == 3).then(0.0).otherwise("w").alias("w"))
                                .to_arrow())
    with pytest.raises(SDCError, match="'w'.*<= 0"):
        sdcs.risk(sdf, FRANC_KEYS, weight="w")
    with pytest.raises(SDCError, match="'key1'.*already in the frame"):
        sdcs.frequencies(sdf, ["Key2"], fk="key1")
    with pytest.raises(SDCError, match="alpha"):
        sdcs.frequencies(sdf, ["Key2"], alpha=2)


def test_blocks_with_heavy_ties_and_small_leaves(spark):
    from polars_sdc import spark as sdcs

    g = np.random.default_rng(4)
    df = pl.DataFrame({"x": g.integers(0, 3, 500).astype(np.float64), "y": g.exponential(1.0, 500).round(1)})
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # every block is within block_rows: no warning may say otherwise
        plan = sdcs.plan_blocks(spark.createDataFrame(df.to_arrow()), 7, ["x", "y"], block_rows=30,
                                sample_per_block=5)
    sizes = plan.block_sizes
    assert sizes.sum() == 500 and sizes.min() >= 7 and sizes.max() <= 30
    blocks = plan.blocks(df)
    assert np.array_equal(np.bincount(blocks, minlength=plan.n_blocks), sizes)


def test_blocks_of_identical_records_warn_with_the_true_size(spark):
    from polars_sdc import spark as sdcs

    df = pl.DataFrame({"x": [1.0] * 90 + [2.0] * 10, "y": [0.0] * 100})
    with pytest.warns(UserWarning, match=r"more than block_rows = 30 records \(largest: 90\)"):
        plan = sdcs.plan_blocks(spark.createDataFrame(df.to_arrow()), 5, ["x", "y"], block_rows=30)
    assert plan.block_sizes.max() == 90 and plan.block_sizes.sum() == 100 and plan.block_sizes.min() >= 5


def test_integer_columns_keep_their_type_as_locally(spark):
    from polars_sdc import spark as sdcs

    g = np.random.default_rng(3)
    df = pl.DataFrame({"id": np.arange(60, dtype=np.int64), "age": g.integers(18, 90, 60), "x": g.normal(size=60)})
    sdf = spark.createDataFrame(df.to_arrow())
    out = pl.from_arrow(sdcs.microaggregate(sdf, 3, ["age", "x"], block_rows=1000, group_column="g").toArrow())
    assert out.schema["age"] == pl.Int64 and out.schema["x"] == pl.Float64
    # one block holds every row: the local release on the same z-scores, row for row
    sd = df.select(pl.col("age", "x").std(ddof=0)).row(0)
    w = {c: 1.0 / v**2 for c, v in zip(["age", "x"], sd)}
    ref = df.sort(df.columns).sdc.microaggregate(3, ["age", "x"], standardize=False, weights=w)
    assert out.drop("g").sort("id").equals(ref.sort("id"))
    floats = pl.from_arrow(sdcs.microaggregate(sdf, 3, ["age", "x"], block_rows=1000, integers="float").toArrow())
    assert floats.schema["age"] == pl.Float64


def test_spark_laplace_equals_local_laplace_with_the_same_key(spark):
    from polars_sdc import spark as sdcs

    g = np.random.default_rng(4)
    df = pl.DataFrame({"pid": g.permutation(200).astype(np.int64) * 7 + 3, "x": g.normal(size=200)})
    sdf = spark.createDataFrame(df.to_arrow()).repartition(3)
    for clamp in (False, True):       # clamp: the whole table's range, from the driver's aggregation
        local = df.sdc.laplace(0.8, "x", seed=11, clamp=clamp, key="pid")
        got = pl.from_arrow(sdcs.laplace(sdf, 0.8, ["x"], seed=11, clamp=clamp, key="pid").toArrow())
        assert got.sort("pid").equals(local.sort("pid"))
    assert got["x"].min() == df["x"].min() and got["x"].max() == df["x"].max()
