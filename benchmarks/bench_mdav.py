"""MDAV speed: polars_sdc's Numba kernel against a straightforward numpy MDAV (the peer),
on standard normal data with p = 10, k = 5, in the same process.

    python benchmarks/bench_mdav.py                         # n = 10,000 and 100,000 (peer up to 20,000)
    python benchmarks/bench_mdav.py --n 10000 100000 1000000 --peer-max 100000 --repeat 2

Prints a table: n, CPU seconds (ours, best of --repeat), CPU seconds (peer), peer/ours, whether
both found the same groups, SSE/SST in percent, the process's peak resident memory and how far
the kernel call raised it above the resident memory before the call (its own working memory:
two copies of the data plus O(n) bookkeeping). CPU time of this process is reported because the
machine is shared (wall time is noisier); compile time is excluded (warm-up call first).
"""
from __future__ import annotations

import argparse
import resource

import numpy as np

import timing  # benchmarks/timing.py: the shared best-of-n wall / CPU timer


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


def _rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize() / 2**20


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**10


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, nargs="*", default=[10_000, 100_000])
    ap.add_argument("--p", type=int, default=10)
    ap.add_argument("--k", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=1, help="runs of ours per n; the best CPU time is shown")
    ap.add_argument("--peer-max", type=int, default=20_000, help="largest n the numpy peer runs at")
    ap.add_argument("--no-peer", action="store_true")
    args = ap.parse_args()

    from polars_sdc.loss.sse import ilssdm
    from polars_sdc.microagg.mdav import partition_mdav
    from polars_sdc.partition import canonical_ids

    partition_mdav(np.random.default_rng(0).normal(size=(500, args.p)), args.k)  # compile
    print(f"MDAV, standard normal, p = {args.p}, k = {args.k} (CPU seconds of this process)")
    print(
        f"{'n':>10} {'polars_sdc':>11} {'numpy peer':>11} {'peer/ours':>10} {'same':>5}"
        f" {'SSE/SST %':>10} {'peak MB':>8} {'call MB':>8}"
    )
    for n in sorted(args.n):
        X = np.random.default_rng(1).normal(size=(n, args.p))
        before = _rss_mb()
        t = timing.timed(lambda: partition_mdav(X, args.k), max(args.repeat, 1))
        g, ours = t.result, t.cpu
        peak = _peak_mb()
        peer, same = float("nan"), "-"
        if not args.no_peer and n <= args.peer_max:
            t = timing.timed(lambda: numpy_mdav(X, args.k))
            h, peer = t.result, t.cpu
            same = "yes" if np.array_equal(canonical_ids(g), canonical_ids(h)) else "NO"
        peer_s, ratio = (f"{peer:.2f}", f"{peer / ours:.1f}") if peer == peer else ("-", "-")
        print(
            f"{n:>10,} {ours:>11.2f} {peer_s:>11} {ratio:>10} {same:>5}"
            f" {100 * ilssdm(X, groups=g):>10.4f} {peak:>8.0f} {peak - before:>8.0f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
