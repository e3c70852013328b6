"""The Spark back end against single-process polars_sdc, on standard normal data (p = 10, k = 5).

    python benchmarks/bench_spark.py                                 # n = 1e6, block_rows 10k / 30k / 100k
    python benchmarks/bench_spark.py --n 1000000 --block-rows 100000 --no-global --global-loss 7.9916 --repeat 3
    python benchmarks/bench_spark.py --n 1000000 10000000 --block-rows 100000 --no-global --global-loss 7.9916   # 1e7: no reference, nan

For each n: global MDAV in one process (the quality reference; skipped with --no-global),
then for each block_rows: the kd-tree blocks planned on Spark, the same blocks microaggregated
one after the other in this process (the single-process peer: same work, no Spark), and the
Spark run (local[2]: plan + one mapInArrow task per block, written to Parquet).
Prints SSE/SST (percent), its ratio to global MDAV, wall seconds, seconds per million rows
and Spark / single-process, in wall time and in CPU time (Spark: the driver plus the JVM and
its Python workers, read from /proc; single process: this process), then a ``RATIO`` line per
(n, block_rows) with the mean over the runs. ``--repeat R`` runs Spark and the peer R times
each, interleaved (S, L, S, L, ...), and prints each pair. Wall time on a shared 2-core machine:
noisy; compare ratios within one run. ``--identity`` also times an identity ``mapInArrow``
over the same blocks (the cost of the shuffle and the Arrow round trip alone); ``--cache``
caches the input; ``--conf KEY=VALUE`` adds a Spark setting to the benchmark's session.
Needs pyspark >= 4 and Java (PYSPARK_PYTHON and SPARK_LOCAL_IP are set here).
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

import numpy as np
import polars as pl

os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
os.environ["PYTHONPATH"] = os.pathsep.join([ROOT, *filter(None, [os.environ.get("PYTHONPATH")])])
sys.path.insert(0, ROOT)

import polars_sdc  # noqa: E402,F401
from polars_sdc import spark as sdcs  # noqa: E402

P, K = 10, 5
ON = [f"x{j}" for j in range(P)]


def data(n: int, seed: int = 0) -> pl.DataFrame:
    g = np.random.default_rng(seed)
    return pl.DataFrame({"id": np.arange(n, dtype=np.int64), **{c: g.standard_normal(n) for c in ON}})


def tree_cpu(pid: int) -> float:
    """CPU seconds (user + system, with reaped children) of process ``pid`` and its live
    descendants, from /proc (Linux): the JVM and the Python workers it forked."""
    tick = os.sysconf("SC_CLK_TCK")
    children: dict[int, list[int]] = {}
    stats: dict[int, list[str]] = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        stats[int(d)] = fields
        children.setdefault(int(fields[1]), []).append(int(d))
    total, stack = 0, [pid]
    while stack:
        p = stack.pop()
        if p in stats:
            total += sum(int(x) for x in stats[p][11:15])   # utime stime cutime cstime
        stack += children.get(p, [])
    return total / tick


def spark_cpu(spark) -> float:
    """CPU seconds so far of this driver process and of the Spark JVM tree."""
    return time.process_time() + tree_cpu(spark.sparkContext._gateway.proc.pid)


def loss(df: pl.DataFrame, masked: pl.DataFrame) -> float:
    return 100.0 * df.sdc.ilssdm(ON, masked=masked.sort("id").select(df.columns))


def identity(spark, sdf, plan, dst) -> None:
    """The microaggregation job with an identity task: assignment, shuffle, Arrow both ways."""
    from polars_sdc.spark._common import BLOCK, PART
    from polars_sdc.spark.blocking import assign, partition_labels

    labels = partition_labels(plan.n_blocks)
    blocked = assign(sdf, plan, column=BLOCK, part_column=PART, part_labels=labels).repartition(plan.n_blocks, PART)
    schema = blocked.schema
    c0 = spark_cpu(spark)
    t = time.perf_counter()
    blocked.mapInArrow(lambda batches: batches, schema).write.mode("overwrite").parquet(dst)
    print(f"{'':>10} identity mapInArrow over the same blocks: {time.perf_counter() - t:.1f} s wall, "
          f"{spark_cpu(spark) - c0:.1f} s CPU", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, nargs="+", default=[1_000_000])
    ap.add_argument("--block-rows", type=int, nargs="+", default=[10_000, 30_000, 100_000])
    ap.add_argument("--refine", default=None)
    ap.add_argument("--no-global", action="store_true")
    ap.add_argument("--global-loss", type=float, nargs="+", default=[],
                    help="global MDAV SSE/SST (percent) from an earlier run, one per --n in order, used with "
                         "--no-global (an n without one prints nan in the '/ global' column)")
    ap.add_argument("--no-local", action="store_true")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--batch", type=int, default=100_000, help="spark.sql.execution.arrow.maxRecordsPerBatch")
    ap.add_argument("--identity", action="store_true")
    ap.add_argument("--cache", action="store_true",
                    help="cache the Parquet input (the planning passes and the block stage read it from memory)")
    ap.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE",
                    help="an extra Spark session setting, e.g. spark.shuffle.compress=false (repeatable)")
    args = ap.parse_args()

    from pyspark.sql import SparkSession

    spark = (SparkSession.builder.master("local[2]").appName("bench_spark").config("spark.ui.enabled", "false")
             .config("spark.driver.memory", "6g").config("spark.ui.showConsoleProgress", "false")
             .config("spark.sql.shuffle.partitions", "8")
             .config("spark.sql.execution.arrow.maxRecordsPerBatch", str(args.batch)))
    for kv in args.conf:
        key, _, value = kv.partition("=")
        spark = spark.config(key, value)
    spark = spark.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    tmp = tempfile.mkdtemp(prefix="bench_spark_")
    # warm-up: compile the kernels in this process and in the Spark workers
    warm = data(2000)
    warm.sdc.mdav(K, ON)
    sdcs.microaggregate(spark.createDataFrame(warm.to_arrow()), K, ON, block_rows=1000).count()

    print(f"p = {P}, k = {K}, refine = {args.refine}, arrow batch = {args.batch}, cache = {args.cache}, "
          f"extra settings = {args.conf or 'none'}; load average {os.getloadavg()[0]:.1f}")
    print(f"{'n':>10} {'block_rows':>10} {'blocks':>7} {'SSE/SST %':>10} {'/ global':>9} "
          f"{'plan s':>7} {'spark s':>8} {'s/1e6':>7} {'local s':>8} {'spark/local':>11} "
          f"{'plan cpu':>8} {'spark cpu':>9} {'local cpu':>9} {'cpu ratio':>9}")
    if len(args.global_loss) > len(args.n):
        ap.error(f"--global-loss: {len(args.global_loss)} values for {len(args.n)} values of --n")
    for i, n in enumerate(args.n):
        df = data(n)
        src = os.path.join(tmp, f"in_{n}.parquet")
        df.write_parquet(src)
        if not args.no_global:
            t = time.perf_counter()
            ref = df.sdc.mdav(K, ON, refine=args.refine)
            tg = time.perf_counter() - t
            g_loss = loss(df, ref)
            print(f"{n:>10} {'global':>10} {1:>7} {g_loss:>10.4f} {1.0:>9.3f} {'':>7} {'':>8} {'':>7} {tg:>8.1f}", flush=True)
        else:
            g_loss = args.global_loss[i] if i < len(args.global_loss) else float("nan")
        sdf = spark.read.parquet(src)
        for b in args.block_rows:
            ratios = []
            for rep in range(args.repeat):
                if args.cache:
                    sdf.unpersist(blocking=True)
                    sdf = sdf.cache()   # filled by the first planning pass, inside the timed run
                dst = os.path.join(tmp, f"out_{n}_{b}.parquet")
                c0 = spark_cpu(spark)
                t = time.perf_counter()
                plan = sdcs.plan_blocks(sdf, K, ON, block_rows=b)
                tp = time.perf_counter() - t
                cp = spark_cpu(spark) - c0
                sdcs.microaggregate(sdf, K, ON, plan=plan, refine=args.refine).write.mode("overwrite").parquet(dst)
                ts = time.perf_counter() - t
                cs = spark_cpu(spark) - c0
                out = pl.read_parquet(os.path.join(dst, "*.parquet"))
                s_loss = loss(df, out)
                tl = cl = float("nan")
                if not args.no_local:   # the same blocks, one after the other, in this process
                    c0 = time.process_time()
                    t = time.perf_counter()
                    blocks = plan.blocks(df)
                    parts = [part.drop("__b").sort(df.columns).sdc.microaggregate(
                        K, ON, refine=args.refine, standardize=False,
                        weights={c: 1.0 / s**2 for c, s in zip(plan.features, plan.std)})
                        for part in df.with_columns(pl.Series("__b", blocks)).partition_by("__b")]
                    local = pl.concat(parts)
                    tl = time.perf_counter() - t
                    cl = time.process_time() - c0
                    assert abs(loss(df, local) - s_loss) < 1e-9, "Spark and local blocks disagree"
                print(f"{n:>10} {b:>10} {plan.n_blocks:>7} {s_loss:>10.4f} {s_loss / g_loss:>9.3f} {tp:>7.1f} {ts:>8.1f} "
                      f"{ts / n * 1e6:>7.1f} {tl:>8.1f} {ts / tl:>11.2f} {cp:>8.1f} {cs:>9.1f} {cl:>9.1f} {cs / cl:>9.2f}",
                      flush=True)
                ratios.append((ts / tl, cs / cl))
                if args.identity:
                    identity(spark, sdf, plan, os.path.join(tmp, "identity.parquet"))

            if not args.no_local:
                w, c = np.array(ratios).T
                print(f"RATIO n = {n}, block_rows = {b}: Spark / single process = {c.mean():.2f} in CPU time "
                      f"(runs: {', '.join(f'{x:.2f}' for x in c)}), {w.mean():.2f} in wall time "
                      f"(runs: {', '.join(f'{x:.2f}' for x in w)}); load average now {os.getloadavg()[0]:.1f}",
                      flush=True)
        if args.cache:
            sdf.unpersist()

    spark.stop()
    import shutil

    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
