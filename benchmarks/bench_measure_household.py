"""``measure_risk(..., household=)`` (``df.sdc.risk``) on EU-SILC: this tree against the module
``polars_sdc/risk/measure.py`` of git revision REV (loaded beside it, same process, interleaved),
and against the same call without ``household=`` (the peer: the household risk alone should cost
little more than the frequencies it is built on).

    python benchmarks/bench_measure_household.py --before 2523952 --repeat 7

Keys db040, age, rb090, pb220a, hsize, pl030, weight rb050, household db030, ``suda=False``.
Best-of wall and CPU seconds (benchmarks/timing.py) and the ratios; the load average beside them.
"""
from __future__ import annotations

import argparse
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import polars_sdc  # noqa: E402,F401
from polars_sdc import datasets  # noqa: E402
from polars_sdc.risk import measure  # noqa: E402

import timing  # noqa: E402  (benchmarks/timing.py)
from revision import module_at  # noqa: E402

KEYS = ["db040", "age", "rb090", "pb220a", "hsize", "pl030"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", default=None)
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    df = datasets.eusilc()
    calls = {
        "household= (this tree)": lambda: measure.measure_risk(df, KEYS, "rb050", household="db030", suda=False),
        "no household (peer)": lambda: measure.measure_risk(df, KEYS, "rb050", suda=False),
    }
    if args.before:
        old = module_at(args.before, "polars_sdc/risk/measure.py")
        calls["household= (before)"] = lambda: old.measure_risk(df, KEYS, "rb050", household="db030", suda=False)
    for f in calls.values():
        f()                                   # warm: Numba kernels compiled / loaded
    best = {name: (float("inf"), float("inf")) for name in calls}
    for _ in range(args.repeat):              # interleaved
        for name, f in calls.items():
            t = timing.timed(f, 1)
            best[name] = (min(best[name][0], t.wall), min(best[name][1], t.cpu))
    a = calls["household= (this tree)"]().as_dict()
    if args.before:
        b = calls["household= (before)"]().as_dict()
        for k in a:   # (ARX's population estimates sum over a hash group_by: last-ulp noise between runs)
            same = a[k] == b[k] or (isinstance(a[k], float) and abs(a[k] - b[k]) <= 1e-12 * abs(b[k]))
            assert same or (a[k] != a[k] and b[k] != b[k]), (k, a[k], b[k])
    print(f"EU-SILC {df.height} rows, load {os.getloadavg()[0]:.1f}; best of {args.repeat}")
    print("| call | wall (ms) | cpu (ms) | cpu / peer |")
    print("|---|---|---|---|")
    peer = best["no household (peer)"][1]
    for name, (w, c) in best.items():
        print(f"| {name} | {1000 * w:.1f} | {1000 * c:.1f} | {c / peer:.2f} |")
    if args.before:
        print(f"before / this tree (cpu): {best['household= (before)'][1] / best['household= (this tree)'][1]:.2f}")


if __name__ == "__main__":
    main()
