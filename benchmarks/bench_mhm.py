"""MHM orderings and optimal univariate microaggregation: loss and speed.

    python benchmarks/bench_mhm.py            # everything (about 2 minutes on 2 cores)
    python benchmarks/bench_mhm.py --quick    # small sizes only, a smoke run

Prints three tables:
1. census (1080 x 13, z-scored): SSE/SST in percent for k = 3, 4, 5, 10 for MHM with each
   path ordering, with classic MDAV as the peer, and the time of one MHM run;
2. MHM with the fast "kd" and "kd-mdav" orderings on standard normal data, p = 10, k = 5,
   up to n = 1e6 (ordering and shortest-path time, SSE/SST), MDAV where it is affordable;
3. optimal univariate microaggregation against the PyPI package microagg1d (Numba, optimal
   1-D) at n = 1e6 and 1e7: best of 3 wall times, both after a warm-up call (no JIT time).
Timings are wall clock on a shared machine: noisy, compare within one run only.
"""
from __future__ import annotations

import argparse
import os
import platform
import time

import numpy as np

import timing  # benchmarks/timing.py: the shared best-of-n wall / CPU timer


def _best_of(fn, repeat):
    t = timing.timed(fn, repeat)
    return t.wall, t.result


def census_table(ks=(3, 4, 5, 10)):
    import polars_sdc
    from polars_sdc.kernels.mdav import mdav_labels
    from polars_sdc.loss.sse import sse, sst
    from polars_sdc.microagg.mhm import ORDERS, partition_mhm
    from polars_sdc.standardize import zscore

    X = zscore(polars_sdc.datasets.census().to_numpy().astype(np.float64))
    total = sst(X)
    print("\n1. census 1080 x 13 z-scored: SSE/SST (%)")
    print(f"{'method':<14}" + "".join(f"{'k=' + str(k):>10}" for k in ks) + f"{'time k=5':>12}")
    rows = [("mdav", lambda k: mdav_labels(X, k))]
    rows += [(f"mhm-{o}", (lambda o: lambda k: partition_mhm(X, k, o))(o)) for o in ORDERS]
    for name, fn in rows:
        fn(3)  # compile
        vals = [100 * sse(X, fn(k)) / total for k in ks]
        t, _ = _best_of(lambda: fn(5), 3)
        print(f"{name:<14}" + "".join(f"{v:>10.4f}" for v in vals) + f"{t * 1e3:>10.1f}ms")


def large_table(sizes, mdav_max):
    from polars_sdc.kernels.hansen_mukherjee import hm_shortest_path
    from polars_sdc.kernels.mdav import mdav_labels
    from polars_sdc.loss.sse import sse, sst
    from polars_sdc.microagg.mhm import partition_mhm, path_order

    k, p = 5, 10
    rng = np.random.default_rng(2024)
    partition_mhm(rng.normal(size=(500, p)), k, "kd")  # compile
    partition_mhm(rng.normal(size=(500, p)), k, "kd-mdav")
    mdav_labels(rng.normal(size=(500, p)), k)
    print(f"\n2. standard normal, p = {p}, k = {k}: MHM with the fast orderings (MDAV as the peer)")
    print(f"{'n':>10}{'order':>9}{'order s':>10}{'path s':>10}{'total s':>10}{'SSE/SST':>10}")
    for n in sizes:
        X = rng.normal(size=(n, p))
        total = sst(X)
        for order in ("kd", "kd-mdav"):
            t0 = time.perf_counter()
            perm = path_order(X, k, order)
            t1 = time.perf_counter()
            seq, length = hm_shortest_path(np.ascontiguousarray(X[perm]), k)
            t2 = time.perf_counter()
            print(f"{n:>10,}{order:>9}{t1 - t0:>10.2f}{t2 - t1:>10.2f}{t2 - t0:>10.2f}{length / total:>10.4f}")
        if n <= mdav_max:
            t3 = time.perf_counter()
            g = mdav_labels(X, k)
            t4 = time.perf_counter()
            print(f"{n:>10,}{'MDAV':>9}{'':>10}{'':>10}{t4 - t3:>10.2f}{sse(X, g) / total:>10.4f}")


def univariate_table(sizes, k=5, repeat=3):
    from microagg1d import univariate_microaggregation

    from polars_sdc.loss.sse import sse
    from polars_sdc.microagg.univariate import partition_univariate

    rng = np.random.default_rng(7)
    w = rng.normal(size=1000)
    partition_univariate(w, k)
    univariate_microaggregation(w, k)
    print(f"\n3. optimal univariate microaggregation, standard normal, k = {k}: best of {repeat} (s)")
    print(f"{'n':>12}{'polars_sdc':>12}{'microagg1d':>12}{'ratio':>8}{'SSE ours':>14}{'SSE theirs':>14}")
    for n in sizes:
        x = rng.normal(size=n)
        t_ours, g_ours = _best_of(lambda: partition_univariate(x, k), repeat)
        t_them, g_them = _best_of(lambda: univariate_microaggregation(x, k), repeat)
        s_ours = sse(x[:, None], g_ours)
        s_them = sse(x[:, None], g_them)
        print(f"{n:>12,}{t_ours:>12.3f}{t_them:>12.3f}{t_them / t_ours:>8.2f}{s_ours:>14.6f}{s_them:>14.6f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small sizes only")
    ap.add_argument("--mdav-max", type=int, default=100_000, help="largest n for the MDAV peer in table 2")
    args = ap.parse_args()
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"python {platform.python_version()}")
    census_table()
    if args.quick:
        large_table([10_000, 50_000], min(args.mdav_max, 50_000))
        univariate_table([100_000, 1_000_000])
    else:
        large_table([100_000, 1_000_000], args.mdav_max)
        univariate_table([1_000_000, 10_000_000])


if __name__ == "__main__":
    main()
