"""MDAV speed: polars_sdc's Numba kernel against a straightforward numpy MDAV (the peer),
on standard normal data with p = 10, k = 5, in the same process.

    python benchmarks/bench_mdav.py            # n = 10,000 and 100,000 (peer up to 20,000 unless --peer-all)
    python benchmarks/bench_mdav.py --n 1000000 --no-peer

Prints a table: n, seconds (ours), seconds (peer), ratio, SSE/SST, peak resident memory so far.
CPU time of this process is reported (the machine is shared; wall time is noisier).
"""
from __future__ import annotations

import argparse
import time
import resource

import numpy as np


def numpy_mdav(X: np.ndarray, k: int) -> np.ndarray:
    """Textbook MDAV with numpy vector operations per step (the peer; O(n p) memory)."""
    n = len(X)
    labels = np.full(n, -1, dtype=np.int64)
    alive = np.ones(n, dtype=bool)
    label = 0

    def group_around(r: int) -> np.ndarray:
        nonlocal label
        rows = np.flatnonzero(alive)
        d = ((X[rows] - X[r]) ** 2).sum(axis=1)
        d[rows == r] = -1.0
        members = rows[np.argpartition(d, k - 1)[:k]] if len(rows) > k else rows
        labels[members] = label
        alive[members] = False
        label += 1
        return d

    def farthest(v: np.ndarray) -> int:
        rows = np.flatnonzero(alive)
        return int(rows[np.argmax(((X[rows] - v) ** 2).sum(axis=1))])

    while alive.sum() >= 3 * k:
        r = farthest(X[alive].mean(axis=0))
        group_around(r)
        group_around(farthest(X[r]))
    if alive.sum() >= 2 * k:
        group_around(farthest(X[alive].mean(axis=0)))
    labels[alive] = label
    return labels


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, nargs="*", default=[10_000, 100_000])
    ap.add_argument("--p", type=int, default=10)
    ap.add_argument("--k", type=int, default=5)
    ap.add_argument("--peer-max", type=int, default=20_000, help="largest n the numpy peer runs at")
    ap.add_argument("--no-peer", action="store_true")
    args = ap.parse_args()

    from polars_sdc.loss.sse import ilssdm
    from polars_sdc.microagg.mdav import partition_mdav

    partition_mdav(np.random.default_rng(0).normal(size=(50, args.p)), args.k)  # compile
    print(f"MDAV, standard normal, p = {args.p}, k = {args.k} (CPU seconds of this process)")
    print(f"{'n':>10} {'polars_sdc':>11} {'numpy peer':>11} {'ratio':>7} {'SSE/SST %':>10} {'RSS MB':>8}")
    for n in args.n:
        X = np.random.default_rng(1).normal(size=(n, args.p))
        t = time.process_time()
        g = partition_mdav(X, args.k)
        ours = time.process_time() - t
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**10
        peer = float("nan")
        if not args.no_peer and n <= args.peer_max:
            t = time.process_time()
            numpy_mdav(X, args.k)
            peer = time.process_time() - t
        print(
            f"{n:>10,} {ours:>11.2f} {peer:>11.2f} {peer / ours:>7.1f} {100 * ilssdm(X, groups=g):>10.4f} {peak:>8.0f}"
        )


if __name__ == "__main__":
    main()
