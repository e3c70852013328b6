"""Speed of targeted record swapping (``df.sdc.swap_records``, sdcMicro 5.8.1 ``recordSwap``).

    python benchmarks/bench_record_swap.py [--households 400000] [--swaprate 0.05] [--k 3] [--repeat 2]

Target (issue 24): 1e6 persons in 400k households in a few seconds. Synthetic population: a
three-level hierarchy (10 regions > 10 districts each > 20 municipalities each: 2,000 lowest
areas), household sizes 1..4 (mean 2.5), person keys age group (18) x sex as
``risk_variables``, household size as the ``similar`` profile, a household-level income
carried along. Reported per phase: the whole call (checks, household view, areas and risk
counts, draws and orderings, kernel, the gather of the swapped columns), the preparation
alone and the kernel alone, wall and CPU seconds (CPU of the process: all threads), with the
number of swapped households and the 1-minute load average. Peers in the same process: a
Polars ``group_by(household).agg(n_unique)`` over the moved columns (the cheapest check that
they are household-level, which every call must make), and the literal Python reference of
``tests/naive.py`` on a 2,000-household subset against ours on the same subset. A stress case: a quarter of the households at risk at the top level
with a first similarity profile that can never match there (the fallback ``hsize`` does).
"""
from __future__ import annotations

import argparse
import os
import sys
import time
import warnings

import numpy as np
import polars as pl

import polars_sdc  # noqa: F401
from polars_sdc.masking import record_swap as rs

import timing  # benchmarks/timing.py: the shared best-of-n wall / CPU timer


def population(H: int, seed: int = 1) -> pl.DataFrame:
    g = np.random.default_rng(seed)
    size = g.integers(1, 5, H)
    low = g.integers(0, 2000, H)
    rep = lambda x: np.repeat(x, size)  # noqa: E731
    n = int(size.sum())
    return pl.DataFrame({
        "hid": rep(g.permutation(H)), "region": rep(low // 200), "district": rep(low // 20),
        "municipality": rep(low), "hsize": rep(size), "income": rep(g.gamma(2.0, 15_000.0, H)),
        "age": g.integers(0, 18, n), "sex": g.integers(0, 2, n),
    }).sample(fraction=1.0, shuffle=True, seed=seed)


def timed(fn):
    t = timing.timed(fn)
    return t.wall, t.cpu, t.result


def best(fn, repeat):
    runs = [timed(fn) for _ in range(repeat)]
    w, c, out = min(runs, key=lambda r: r[0])
    return w, c, out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--households", type=int, default=400_000)
    ap.add_argument("--swaprate", type=float, default=0.05)
    ap.add_argument("--k", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=2)
    a = ap.parse_args()
    warnings.simplefilter("ignore")       # "no donor found" in the small warm-up population
    df = population(a.households)
    args = dict(household="hid", hierarchy=["region", "district", "municipality"], similar=["hsize"],
                swaprate=a.swaprate, k_anonymity=a.k, risk_variables=["age", "sex"], seed=7)
    small = population(2_000, 2)
    w, c, _ = timed(lambda: small.sdc.swap_records(carry_along="income", **args))      # compiles the kernel
    print(f"first call (Numba compile or cache load): {w:.2f} s wall, {c:.2f} s CPU")
    print(f"{df.height:,} persons in {a.households:,} households, 3 levels (2,000 lowest areas), "
          f"swaprate {a.swaprate}, k {a.k}; load {os.getloadavg()[0]:.2f}")
    w, c, out = best(lambda: df.sdc.swap_records(carry_along="income", swapped_column="with", **args), a.repeat)
    n_sw = out.filter(pl.col("hid") != pl.col("with"))["hid"].n_unique()
    print(f"swap_records (whole call)   {w:7.2f} s wall {c:7.2f} s CPU   {n_sw:,} households swapped "
          f"({n_sw / a.households:.2%}); load {os.getloadavg()[0]:.2f}")
    spec = rs.record_swap_spec(df.schema, carry_along="income", **args)

    def prep():
        hh = rs._households(df, "hid")
        rs._check_household_level(df, spec, hh)
        return rs.prepare(df, spec, hh, 7)

    w, c, inputs = best(prep, a.repeat)
    print(f"  preparation               {w:7.2f} s wall {c:7.2f} s CPU")
    from polars_sdc.kernels.record_swap import record_swap_partners

    w, c, _ = best(lambda: record_swap_partners(**inputs), a.repeat)
    print(f"  kernel                    {w:7.2f} s wall {c:7.2f} s CPU")
    stress = dict(args, similar=[["region", "hsize"], ["hsize"]], k_anonymity=2, risk_variables=["income"],
                  swaprate=0.3)
    w, c, out = best(lambda: df.sdc.swap_records(swapped_column="with", **stress), a.repeat)
    n_sw = out.filter(pl.col("hid") != pl.col("with"))["hid"].n_unique()
    print(f"stress: every 1-person household at risk at the top level, first profile (region, hsize) never "
          f"matches, swaprate 0.3:\n  swap_records {w:7.2f} s wall {c:7.2f} s CPU   {n_sw:,} households swapped; "
          f"load {os.getloadavg()[0]:.2f}")
    moved = ["region", "district", "municipality", "income"]
    w, c, _ = best(lambda: df.group_by("hid").agg(pl.col(moved).n_unique()), a.repeat)
    print(f"peer: group_by(hid).n_unique {w:7.2f} s wall {c:7.2f} s CPU; load {os.getloadavg()[0]:.2f}")
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))
    from naive import reference_record_swap

    sm_args = dict(args, seed=7)
    w1, c1, _ = best(lambda: small.sdc.swap_records_plan(**sm_args), a.repeat)
    w2, c2, _ = timed(lambda: reference_record_swap(small, "hid", args["hierarchy"], [["hsize"]], a.swaprate, a.k,
                                                    ["age", "sex"], 7))
    print(f"2,000 households: ours {w1:.3f} s wall ({c1:.3f} CPU), literal Python reference {w2:.2f} s wall "
          f"({c2:.2f} CPU): x{w2 / w1:.0f}")


if __name__ == "__main__":
    main()
