"""Nominal quasi-identifiers as codes: speed against the one-hot matrix (the previous path) in
the same process, and the memory of a 1e6-row release with a 1000-level column.

    python benchmarks/bench_mixed.py                       # speed table (n = 20,000 / 50,000)
    python benchmarks/bench_mixed.py --memory 1000000      # peak RSS of df.sdc.mdav at that n

Data: 3 standard normal columns and one String column of U levels (uniform), k = 5. The
speed table times ``partition_mdav`` / ``partition_vmdav`` on :class:`Features` (codes) and on
``Features.dense()`` (the one-hot matrix the kernels took before), CPU seconds of this process,
best of --repeat, after a warm-up call; "same" says whether both found the same groups.
``--memory`` runs the whole frame call (features + MDAV + aggregation) once and prints the
process's peak resident memory above what it held before the call (ru_maxrss delta), next to
the size the one-hot matrix alone would have had.
"""
from __future__ import annotations

import argparse
import resource

import numpy as np
import polars as pl

import timing  # benchmarks/timing.py: the shared best-of-n wall / CPU timer


def frame(n: int, levels: int, seed: int = 0) -> pl.DataFrame:
    r = np.random.default_rng(seed)
    return pl.DataFrame({
        "x": r.normal(size=n), "y": r.normal(size=n), "z": r.normal(size=n),
        "c": pl.Series(r.integers(0, levels, n)).cast(pl.String),
    })


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**10


def speed(ns: list[int], levels: list[int], repeat: int, vmdav_onehot_max: int = 2_000_000) -> None:
    from polars_sdc.microagg.features import features
    from polars_sdc.microagg.mdav import partition_mdav
    from polars_sdc.microagg.vmdav import partition_vmdav
    from polars_sdc.partition import canonical_ids

    warm = features(frame(300, 5), ["x", "y", "z", "c"])
    for fn in (partition_mdav, partition_vmdav):
        fn(warm, 5), fn(warm.dense(), 5)
    print("k = 5, 3 numeric + 1 nominal column; CPU seconds, codes vs one-hot (same process)")
    print(f"{'method':>7} {'n':>8} {'U':>6} {'codes':>8} {'one-hot':>8} {'ratio':>6} {'same':>5}")
    for n in ns:
        for U in levels:
            F = features(frame(n, U), ["x", "y", "z", "c"])
            D = F.dense(cap=float("inf"))
            for name, fn in (("mdav", partition_mdav), ("vmdav", partition_vmdav)):
                # V-MDAV is O(n^2 (p + U)) on the one-hot matrix: only where it ends in minutes
                hot = name == "mdav" or n * U <= vmdav_onehot_max
                tc, th = [], []
                for _ in range(repeat):  # interleaved
                    t = timing.timed(lambda: fn(F, 5))
                    a = t.result
                    tc.append(t.cpu)
                    if hot:
                        t = timing.timed(lambda: fn(D, 5))
                        b = t.result
                        th.append(t.cpu)
                if not hot:
                    print(f"{name:>7} {n:>8,} {U:>6} {min(tc):>8.2f} {'-':>8} {'-':>6} {'-':>5}", flush=True)
                    continue
                same = np.array_equal(canonical_ids(a), canonical_ids(b))
                print(f"{name:>7} {n:>8,} {U:>6} {min(tc):>8.2f} {min(th):>8.2f} {min(th) / min(tc):>6.1f} "
                      f"{'yes' if same else 'NO':>5}", flush=True)


def memory(n: int, levels: int) -> None:
    import polars_sdc  # noqa: F401  (registers df.sdc)

    small = frame(2000, 50)
    small.sdc.mdav(5, ["x", "y", "z", "c"])  # compile outside the measurement
    df = frame(n, levels)
    before = _peak_mb()
    t = timing.timed(lambda: df.sdc.mdav(5, ["x", "y", "z", "c"]))
    out, cpu = t.result, t.cpu
    peak = _peak_mb()
    dense = 8 * n * (3 + levels) / 2**20
    print(f"df.sdc.mdav(5), n = {n:,}, 3 numeric + one {levels}-level String column: CPU {cpu:.1f} s, "
          f"peak RSS {peak:.0f} MB, {peak - before:.0f} MB above the input "
          f"(the one-hot matrix alone: {dense:,.0f} MB); k-anonymity {out.sdc.k_anonymity(['x', 'y', 'z', 'c'])}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, nargs="*", default=[20_000, 50_000])
    ap.add_argument("--levels", type=int, nargs="*", default=[10, 100, 1000])
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--memory", type=int, default=0, help="run the memory measurement at this n instead")
    args = ap.parse_args()
    if args.memory:
        memory(args.memory, max(args.levels))
    else:
        speed(args.n, args.levels, args.repeat)


if __name__ == "__main__":
    main()
