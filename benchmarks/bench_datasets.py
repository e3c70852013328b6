"""Loading the embedded data sets vs parsing the reference CSVs, and their sizes on disk.

    python benchmarks/bench_datasets.py [--repeat 20] [--data ../shared/data]

Peer: ``pl.read_csv`` of ``../shared/data/<name>.csv`` (for adult with the same ``?`` -> null
and Enum conversion the package applies when building its parquet file). Prints the best of
``--repeat`` runs; timings on a shared 2-core machine are noisy.
"""
from __future__ import annotations

import argparse
import time
from importlib import resources
from pathlib import Path

from polars_sdc import datasets
from polars_sdc.datasets import _build

import timing  # benchmarks/timing.py: the shared best-of-n wall / CPU timer


def best(fn, repeat: int) -> float:
    return timing.timed(fn, repeat).wall


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--data", type=Path, default=_build.DEFAULT_SOURCE)
    args = ap.parse_args()
    pkg = resources.files("polars_sdc.datasets")
    rows = [
        ("census", datasets.census, lambda: _build.build_census(args.data / "census.csv")),
        ("adult", datasets.adult, lambda: _build.build_adult(args.data / "adult.csv")),
    ]
    print(f"{'data set':<8} {'parquet KB':>10} {'csv KB':>8} {'load ms':>8} {'csv ms':>8} {'csv/load':>9}")
    for name, load, peer in rows:
        assert load().equals(peer()), name
        pq_kb = (pkg / f"{name}.parquet").stat().st_size / 1024
        csv_kb = (args.data / f"{name}.csv").stat().st_size / 1024
        t_load, t_peer = best(load, args.repeat), best(peer, args.repeat)
        print(
            f"{name:<8} {pq_kb:>10.0f} {csv_kb:>8.0f} {1e3 * t_load:>8.2f} {1e3 * t_peer:>8.2f} "
            f"{t_peer / t_load:>8.1f}x"
        )


if __name__ == "__main__":
    main()
