"""Speed of the optimal full-domain generalisation (``df.sdc.generalize``) on ARX's Adult set
(30,162 records, ARX's nine hierarchies, 12,960 transformations), warm: one untimed call first
(Numba compiles or loads its cache), then the median of ``--reps`` calls, wall and CPU
(``time.process_time``, all threads). ARX 3.9.2's figures for the same configurations come from
a warm JVM on the same machine (see benchmarks/README.md for how they were taken); pass them
with ``--arx file`` (lines ``kK METRIC LIMIT | ... ms=WALL cpums=CPU``) to print the ratio.

    python benchmarks/bench_generalize.py                    # k = 2, 5, 10; 0 % and 1 %; loss
    python benchmarks/bench_generalize.py --metrics loss,entropy_monotone,discernibility
    python benchmarks/bench_generalize.py --rows 10000000     # Adult resampled to 1e7 rows
"""
from __future__ import annotations

import argparse
import statistics

import numpy as np
import polars as pl

import polars_sdc  # noqa: F401
from polars_sdc import datasets

import timing  # benchmarks/timing.py: the shared best-of-n wall / CPU timer

ARX_NAME = {"loss": "loss", "entropy_monotone": "nuem", "discernibility": "dm", "entropy": "nue",
            "precision": "prec", "precision_monotone": "precm", "discernibility_star": "dmstar"}


def read_arx(path: str | None) -> dict[tuple[str, str, float], tuple[float, float]]:
    out: dict[tuple[str, str, float], tuple[float, float]] = {}
    if not path:
        return out
    for line in open(path):
        if " ms=" not in line:
            continue
        cfg, rest = line.split(" | ")
        model, metric, limit = cfg.split()[:3]
        wall = float(rest.split(" ms=")[1].split()[0])
        cpu = float(rest.split("cpums=")[1].split()[0]) if "cpums=" in rest else float("nan")
        out[(model, metric, float(limit))] = (wall, cpu)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--ks", default="2,5,10")
    ap.add_argument("--limits", default="0,0.01")
    ap.add_argument("--metrics", default="loss")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--rows", type=int, default=0, help="resample Adult to this many rows (0: as is)")
    ap.add_argument("--arx", default=None)
    a = ap.parse_args()
    df, hs = datasets.arx_adult()
    if a.rows:
        idx = np.random.default_rng(0).integers(0, df.height, a.rows)
        df = df[idx]
    arx = read_arx(a.arx)
    print(f"rows {df.height:,}; quasi-identifiers {len(hs)}; reps {a.reps} (median, warm)")
    print(f"{'k':>3} {'limit':>6} {'metric':>18} {'levels':>28} {'suppr':>6} {'checked':>7} "
          f"{'wall ms':>9} {'cpu ms':>9} {'ARX wall':>9} {'ARX cpu':>8}")
    for metric in a.metrics.split(","):
        for k in (int(x) for x in a.ks.split(",")):
            for limit in (float(x) for x in a.limits.split(",")):
                df.sdc.generalize(hs, k=k, suppression_limit=limit, metric=metric)  # warm-up
                walls, cpus = [], []
                for _ in range(a.reps):                 # the median of single runs (timing.timed once each)
                    t = timing.timed(lambda: df.sdc.generalize(hs, k=k, suppression_limit=limit, metric=metric))
                    r = t.result
                    walls.append(t.wall)
                    cpus.append(t.cpu)
                ref = arx.get((f"k{k}", ARX_NAME[metric], limit), (float("nan"), float("nan")))
                print(f"{k:>3} {limit:>6.2f} {metric:>18} {str(r.transformation):>28} {r.suppressed:>6} "
                      f"{r.checked:>7} {statistics.median(walls) * 1e3:>9.1f} {statistics.median(cpus) * 1e3:>9.1f} "
                      f"{ref[0]:>9.1f} {ref[1]:>8.1f}")


if __name__ == "__main__":
    pl.Config.set_tbl_rows(50)
    main()
