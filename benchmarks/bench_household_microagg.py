"""Cost of microaggregation with ``household=`` against the plain per-person path, same data.

    python benchmarks/bench_household_microagg.py                 # EU-SILC (14,827 persons, 6,000 households)
    python benchmarks/bench_household_microagg.py --scale 4       # EU-SILC repeated 4 times (new household ids)

For each method (MDAV, MHM, V-MDAV; MDAV + MIL) on EU-SILC's household incomes (household-level:
one row per household, then broadcast) and person incomes (person-level with children's nulls:
partition per null pattern, groups repaired to >= k households, no vector released unchanged
unless >= k households share it), prints the CPU seconds of this process (best of --repeat;
the machine is shared, so CPU time rather than wall time), the ratio household / plain, the
number of groups and the smallest number of households in a group. The plain path on the person
incomes runs on the same nulls (rows grouped by null pattern). Numba compile time is excluded
(one warm-up call per method first).
"""
from __future__ import annotations

import argparse
import time

import polars as pl

import polars_sdc

import timing  # benchmarks/timing.py: the shared best-of-n wall / CPU timer

HH = ["hy040n", "hy050n", "hy070n", "hy080n", "hy090n", "hy110n", "hy130n", "hy145n"]
PERSON = ["py010n", "py050n", "py090n", "py100n", "py110n", "py120n", "py130n", "py140n"]


def data(scale: int) -> pl.DataFrame:
    df = polars_sdc.datasets.eusilc()
    if scale == 1:
        return df
    top = int(df["db030"].max()) + 1
    return pl.concat([df.with_columns(pl.col("db030") + i * top) for i in range(scale)])


def cpu(fn, repeat: int) -> tuple[float, pl.DataFrame]:
    t = timing.timed(fn, repeat)
    return t.cpu, t.result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--k", type=int, default=3)
    args = ap.parse_args()
    df = data(args.scale)
    import warnings

    warnings.simplefilter("ignore")  # the plain path on household-level columns warns (HouseholdWarning)
    cases = [("mdav", {}), ("mhm", {}), ("vmdav", {}), ("mdav", {"refine": "mil"})]
    print(f"{df.height} persons, {df['db030'].n_unique()} households, k = {args.k}")
    print(f"{'columns':<8} {'method':<10} {'plain s':>8} {'household s':>12} {'ratio':>6} "
          f"{'groups plain':>13} {'groups hh':>10} {'min hh/group plain':>19} {'min hh/group hh':>16}")
    for label, cols in (("hh inc", HH), ("p inc", PERSON)):
        for method, opts in cases:
            run = lambda hh: getattr(df.sdc, method)(args.k, on=cols, household=hh, group_column="g", **opts)  # noqa: E731
            run(None), run("db030")  # warm-up: Numba compiles
            t_plain, plain = cpu(lambda: run(None), args.repeat)
            t_hh, hh = cpu(lambda: run("db030"), args.repeat)
            name = method + ("+" + opts["refine"] if opts else "")
            mins = [o.group_by("g").agg(pl.col("db030").n_unique())["db030"].min() for o in (plain, hh)]
            print(f"{label:<8} {name:<10} {t_plain:>8.2f} {t_hh:>12.2f} {t_hh / t_plain:>6.2f} "
                  f"{plain['g'].n_unique():>13} {hh['g'].n_unique():>10} {mins[0]:>19} {mins[1]:>16}")


if __name__ == "__main__":
    main()
