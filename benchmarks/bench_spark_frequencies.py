"""Spark frequencies / individual risk / risk with missing key values against local polars_sdc,
on EU-SILC (14,827 persons, 6,000 households; keys db040, age, rb090, pb220a, hsize, pl030 with
2,720 missing pl030 values; weight rb050; household db030).

    python benchmarks/bench_spark_frequencies.py                    # the current code
    python benchmarks/bench_spark_frequencies.py --before 2523952   # and that revision's Spark module

For each case: the local call (``df.sdc``), the Spark call of this tree and, with ``--before REV``,
the Spark module ``polars_sdc/spark/frequencies.py`` of git revision REV loaded beside it in the
same process (same session, same cached input; interleaved: new, before, new, ...). Prints wall
seconds (best of ``--repeat``), Spark CPU seconds (driver + JVM tree, from /proc), the Spark /
local wall ratio, and the parity of each Spark result with the local one (fk equal records, the
largest relative difference of Fk / risk / the summary values). Needs pyspark >= 4 and Java.
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys
import time

import numpy as np
import polars as pl

os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
os.environ["PYTHONPATH"] = os.pathsep.join([ROOT, *filter(None, [os.environ.get("PYTHONPATH")])])
sys.path.insert(0, ROOT)

import polars_sdc  # noqa: E402,F401
from polars_sdc import datasets  # noqa: E402

from bench_spark import spark_cpu  # noqa: E402  (benchmarks/ is on sys.path: run as a script)
from revision import module_at  # noqa: E402

KEYS = ["db040", "age", "rb090", "pb220a", "hsize", "pl030"]
W, HH = "rb050", "db030"


def cases(df: pl.DataFrame):
    """(name, local call, spark call(module, sdf), parity(local result, spark result))."""
    def rows(sdf_out) -> pl.DataFrame:
        return pl.from_arrow(sdf_out.toArrow()).sort("rb030")

    def per_record(local: pl.DataFrame, got: pl.DataFrame, pairs) -> str:
        local = local.sort("rb030")
        eq = int((local["fk"] == got["fk"]).sum())
        out = [f"fk {eq}/{local.height}"]
        for a, b in pairs:
            x, y = got[a].to_numpy(), local[b].to_numpy()
            out.append(f"{b} {np.max(np.abs(x - y) / np.maximum(np.abs(y), 1e-300)):.1e}")
        return ", ".join(out)

    def summary(local: dict, got: dict) -> str:
        diffs = {k: abs(got[k] - local[k]) / max(abs(local[k]), 1e-300) for k in got if k in local}
        exact = [k for k in ("records", "k_anonymity", "records_violating_k2", "records_violating_k3",
                             "records_violating_k5", "sample_uniques") if k in got]
        ok = all(got[k] == local[k] for k in exact)
        return f"counts {'equal' if ok else 'DIFFER'}, max rel {max(diffs.values()):.1e}"

    return [
        ("frequencies", lambda: df.sdc.frequencies(KEYS, W),
         lambda m, s: rows(m.frequencies(s, KEYS, W)), lambda l, g: per_record(l, g, [("Fk_pop", "Fk")])),
        ("frequencies household=", lambda: df.sdc.frequencies(KEYS, W, household=HH),
         lambda m, s: rows(m.frequencies(s, KEYS, W, household=HH)), lambda l, g: per_record(l, g, [("Fk_pop", "Fk")])),
        ("individual_risk household=", lambda: df.sdc.individual_risk(KEYS, W, household=HH),
         lambda m, s: rows(m.individual_risk(s, KEYS, W, household=HH)),
         lambda l, g: per_record(l, g, [("Fk_pop", "Fk"), ("risk", "risk"), ("household_risk", "household_risk")])),
        ("risk household=", lambda: df.sdc.risk(KEYS, W, household=HH, suda=False).as_dict(),
         lambda m, s: m.risk(s, KEYS, W, household=HH), summary),
        ("individual_risk alpha=0.5", lambda: df.sdc.individual_risk(KEYS, W, alpha=0.5),
         lambda m, s: rows(m.individual_risk(s, KEYS, W, alpha=0.5)),
         lambda l, g: per_record(l, g, [("Fk_pop", "Fk"), ("risk", "risk")])),
    ]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", help="git revision whose polars_sdc/spark/frequencies.py is timed beside this one")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--only", nargs="*", help="case names (prefix) to run")
    args = ap.parse_args()
    from pyspark.sql import SparkSession

    spark = (SparkSession.builder.master(args.master).appName("bench_spark_frequencies")
             .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "4")
             .config("spark.ui.showConsoleProgress", "false").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    df = datasets.eusilc()
    assert df["pl030"].null_count() == 2720
    sdf = spark.createDataFrame(df.to_arrow()).repartition(2).cache()
    sdf.count()
    modules = [("new", importlib.import_module("polars_sdc.spark.frequencies"))]
    if args.before:
        modules.append(("before", module_at(args.before, "polars_sdc/spark/frequencies.py")))
    print(f"EU-SILC {df.height} rows, keys {KEYS}, master {args.master}, load {os.getloadavg()[0]:.1f}")
    print("| case | local wall (s) | Spark " + " | Spark ".join(
        f"{n} wall (s) | Spark {n} cpu (s) | {n} / local" for n, _ in modules) + " | parity (" +
        ", ".join(n for n, _ in modules) + ") |")
    for name, local_call, spark_call, parity in cases(df):
        if args.only and not any(name.startswith(o) for o in args.only):
            continue
        best_local, local = float("inf"), None
        for _ in range(args.repeat):
            t = time.perf_counter()
            local = local_call()
            best_local = min(best_local, time.perf_counter() - t)
        times = {n: (float("inf"), float("inf")) for n, _ in modules}
        results = {}
        for _ in range(args.repeat):
            for n, mod in modules:     # interleaved
                t, c = time.perf_counter(), spark_cpu(spark)
                results[n] = spark_call(mod, sdf)
                w, cpu = time.perf_counter() - t, spark_cpu(spark) - c
                times[n] = (min(times[n][0], w), min(times[n][1], cpu))
        cells = " | ".join(f"{times[n][0]:.2f} | {times[n][1]:.2f} | {times[n][0] / best_local:.0f}x" for n, _ in modules)
        checks = "; ".join(parity(local, results[n]) for n, _ in modules)
        print(f"| {name} | {best_local:.3f} | {cells} | {checks} |", flush=True)
    print(f"load after: {os.getloadavg()[0]:.1f}")
    spark.stop()


if __name__ == "__main__":
    main()
