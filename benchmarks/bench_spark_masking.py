"""The masking toolkit on Spark local[2] against the same call locally, in one process.

    PYTHONPATH=$PWD python benchmarks/bench_spark_masking.py [n] [repeats]

For each method: Spark wall time (driver passes + the per-row pass, written to Spark's "noop"
sink, i.e. fully computed, nothing collected), the local ``df.sdc.*`` call on the same rows, and
their ratio; runs interleaved (local, Spark, local, ...) so both see the same machine load. The
first Spark call of each method (Python workers starting, Numba loading) is a warm-up and not
timed. The Spark results equal the local ones (tests/test_spark_masking.py); here only time.
"""
from __future__ import annotations

import os
import statistics
import sys
import time

import numpy as np
import polars as pl

os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
os.environ["PYTHONPATH"] = os.pathsep.join([os.getcwd(), *filter(None, [os.environ.get("PYTHONPATH")])])

import polars_sdc  # noqa: E402,F401
from polars_sdc import spark as sdcs  # noqa: E402


def data(n: int) -> pl.DataFrame:
    g = np.random.default_rng(1)
    return pl.DataFrame({
        "id": g.permutation(n).astype(np.int64),
        "x": g.normal(size=n), "y": g.normal(size=n), "z": g.exponential(100.0, n),
        "region": g.choice(["n", "s", "e", "w"], n),
        "occ": g.choice([f"o{i}" for i in range(20)], n),
    })


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    from pyspark.sql import SparkSession

    spark = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
             .config("spark.ui.showConsoleProgress", "false").config("spark.sql.shuffle.partitions", "4")
             .config("spark.sql.execution.arrow.maxRecordsPerBatch", "100000").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    df = data(n)
    sdf = spark.createDataFrame(df.to_arrow()).repartition(4).cache()
    sdf.count()
    cases = {
        "pram occ by region": (
            lambda: df.sdc.pram("occ", by="region", seed=1, key="id"),
            lambda: sdcs.pram(sdf, "occ", by="region", seed=1, key="id")),
        "add_noise correlated x,y,z": (
            lambda: df.sdc.add_noise(["x", "y", "z"], method="correlated", seed=1, key="id"),
            lambda: sdcs.add_noise(sdf, ["x", "y", "z"], method="correlated", seed=1, key="id")),
        "add_noise moments x,y,z by region": (
            lambda: df.sdc.add_noise(["x", "y", "z"], method="moments", by="region", seed=1, key="id"),
            lambda: sdcs.add_noise(sdf, ["x", "y", "z"], method="moments", by="region", seed=1, key="id")),
        "rank_swap x,z by region": (
            lambda: df.sdc.rank_swap(["x", "z"], by="region", seed=1, key="id"),
            lambda: sdcs.rank_swap(sdf, ["x", "z"], by="region", seed=1, key="id")),
    }
    print(f"n = {n:,}, Spark local[2], {reps} runs each (mean +- sd, seconds)")
    print(f"| {'method':36s} | local | Spark | Spark / local |")
    print("|---|---|---|---|")
    for name, (local, spark_call) in cases.items():
        spark_call().write.format("noop").mode("overwrite").save()      # warm-up
        tl, ts = [], []
        for _ in range(reps):
            t = time.perf_counter()
            local()
            tl.append(time.perf_counter() - t)
            t = time.perf_counter()
            spark_call().write.format("noop").mode("overwrite").save()
            ts.append(time.perf_counter() - t)
        r = [b / a for a, b in zip(tl, ts)]
        sd = (lambda v: statistics.stdev(v) if len(v) > 1 else 0.0)
        print(f"| {name:36s} | {statistics.mean(tl):.2f} +- {sd(tl):.2f} | {statistics.mean(ts):.2f} +- {sd(ts):.2f} "
              f"| {statistics.mean(r):.1f} +- {sd(r):.1f} |")
    spark.stop()


if __name__ == "__main__":
    main()
