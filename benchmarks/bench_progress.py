"""Overhead of ``progress=True`` (polars_sdc.progress): the same call with the bar on and off,
in one process, alternating which runs first, on the embedded UCI Adult data.

Workloads: MDAV k = 5 on three numeric columns by 10 strata (sex x race); the EM
reconstruction of noisy age for K = 1..3 (all 32,561 rows); ILD with exponent 1 over a
product distance (pairwise sums over distinct records). The bar draws into /dev/null (tqdm
when installed), so drawing is included. Prints CPU and wall seconds per mode and the
on/off ratio (mean +- sd over the repeats). Since a loaded machine blurs a 1 % difference,
it also prints a bound: the number of reports, bars and waits each workload makes (counted)
times their unit cost (measured in a tight loop), over the workload's CPU time.

    python benchmarks/bench_progress.py [--repeats 5]
"""
from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import time

import polars as pl

import polars_sdc  # noqa: F401
from polars_sdc import datasets

import timing  # benchmarks/timing.py: the shared best-of-n wall / CPU timer


def workloads():
    adult = datasets.adult()
    on = ["age", "education-num", "hours-per-week"]
    noisy = adult.select("age").sdc.laplace(k=2, seed=7)
    phi = adult.sdc.laplace_scale("age", k=2)
    small = adult.head(6000).select("age", "hours-per-week", "education", "sex")
    masked = small.sdc.mdav(5, ["age", "hours-per-week"])
    return {
        "MDAV k=5, 10 strata, 32,561 rows": lambda p: adult.sdc.mdav(5, on, by=["sex", "race"],
                                                                     merge_small_strata=True, progress=p),
        "EM, age, K = 1..3, 32,561 rows": lambda p: noisy.sdc.reconstruct_gmm(range(1, 4), "age", phi=phi,
                                                                              seed=0, progress=p),
        "ILD e=1, product of 4 columns, 6,000 rows": lambda p: small.sdc.ild(masked, exponent=1, progress=p),
    }


def measure(fn, on: bool) -> tuple[float, float]:
    with open(os.devnull, "w") as null, contextlib.redirect_stderr(null):
        t = timing.timed(lambda: fn(on))
        return t.cpu, t.wall


def unit_costs(n: int = 20000) -> dict[str, float]:
    """Seconds per report (set_total + advance), per bar (create + close), per waiting() block."""
    from polars_sdc.progress import Progress

    out = {}
    with open(os.devnull, "w") as null, contextlib.redirect_stderr(null):
        b = Progress("x", total=1e12)
        t0 = time.perf_counter()
        for i in range(n):
            b.set_total(1e12 + i)
            b.advance(1)
        out["report"] = (time.perf_counter() - t0) / n
        t0 = time.perf_counter()
        for _ in range(200):
            with b.waiting("y"):
                pass
        out["wait"] = (time.perf_counter() - t0) / 200
        b.close()
        t0 = time.perf_counter()
        for _ in range(200):
            Progress("z", total=10).close()
        out["bar"] = (time.perf_counter() - t0) / 200
    return out


def counts(fn) -> dict[str, int]:
    """Reports, bars and waiting blocks of one run of ``fn(True)``."""
    from polars_sdc import progress

    seen = {"report": 0, "bar": 0, "wait": 0}

    class Counting(progress.Progress):
        def __init__(self, *a, **k):
            seen["bar"] += 1
            super().__init__(*a, **k)

        def advance(self, n=1.0):
            seen["report"] += 1
            super().advance(n)

        def waiting(self, label=None):
            seen["wait"] += 1
            return super().waiting(label)

    real = progress.Progress
    progress.Progress = Counting
    try:
        with open(os.devnull, "w") as null, contextlib.redirect_stderr(null):
            fn(True)
    finally:
        progress.Progress = real
    return seen


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    print(f"tqdm installed: {_has_tqdm()}; {args.repeats} repeats, on/off alternated")
    print(f"| workload | off CPU s | on CPU s | CPU on/off | off wall s | on wall s | wall on/off |")
    print("|---|---|---|---|---|---|---|")
    bounds = []
    for name, fn in workloads().items():
        fn(False)  # compile / warm up
        off, on, roff, ron = [], [], [], []
        for r in range(args.repeats):
            order = (False, True) if r % 2 == 0 else (True, False)
            got = {mode: measure(fn, mode) for mode in order}
            off.append(got[False][0]); on.append(got[True][0])
            roff.append(got[False][1]); ron.append(got[True][1])
        cpu = [a / b for a, b in zip(on, off)]
        wall = [a / b for a, b in zip(ron, roff)]
        print(f"| {name} | {statistics.mean(off):.3f} | {statistics.mean(on):.3f} | "
              f"{statistics.mean(cpu):.3f} ± {statistics.stdev(cpu):.3f} | {statistics.mean(roff):.3f} | "
              f"{statistics.mean(ron):.3f} | {statistics.mean(wall):.3f} ± {statistics.stdev(wall):.3f} |")
        bounds.append((name, counts(fn), min(off)))
    unit = unit_costs()
    print(f"\nunit costs: report {1e6 * unit['report']:.2f} us, waiting block {1e6 * unit['wait']:.0f} us, "
          f"bar {1e6 * unit['bar']:.0f} us")
    print("| workload | reports | waits | bars | bound on the overhead (% of the fastest off CPU time) |")
    print("|---|---|---|---|---|")
    for name, c, base in bounds:
        cost = sum(c[k] * unit[k] for k in c)
        print(f"| {name} | {c['report']} | {c['wait']} | {c['bar']} | {100 * cost / base:.3f} % |")


def _has_tqdm() -> bool:
    try:
        import tqdm  # noqa: F401
    except ImportError:
        return False
    return True


if __name__ == "__main__":
    main()
