"""Warm time of the MHM path orderings alone (``path_order``), this checkout against another.

    cd /tmp && python /path/to/benchmarks/warm_mhm_orders.py --other /work/wt/base [--rounds 5]

Each round starts one process on this checkout and one on ``--other`` (in turn, so both see
the same load), each on a Numba cache of its own kept across the rounds (only the first
round compiles); a process times every case best of ``--best`` calls (CPU time). Reported
per case: the median over the rounds of the ratio this / other, the rounds' range, and the
median times. Cases: vgrid on 2,000 and 20,000 rows (leaf 12, and with near-duplicate
chains), kd-mdav on one leaf (2,000 and 4,000 rows) and on several (20,000 rows: large
leaves from Python, leaf 300: inside the walk), grid and kd on 20,000 rows, npn on 2,000.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = r"""
import json, sys, time
import numpy as np
import polars_sdc
from polars_sdc.microagg.mhm import path_order
best_of = int(sys.argv[1])
rng = np.random.default_rng(3)
def chain(n):
    X = rng.normal(size=(n, 3))
    X[: n // 4] = X[0] + np.cumsum(np.full((n // 4, 3), 1e-12), axis=0)
    return X
CASES = {
    "vgrid 2k": (rng.normal(size=(2000, 3)), 3, "vgrid", {}),
    "vgrid 20k": (rng.normal(size=(20000, 3)), 3, "vgrid", {}),
    "vgrid 20k chains": (chain(20000), 3, "vgrid", {}),
    "kd-mdav 2k": (rng.normal(size=(2000, 3)), 3, "kd-mdav", {}),
    "kd-mdav 4k": (rng.normal(size=(4000, 3)), 3, "kd-mdav", {}),
    "kd-mdav 20k": (rng.normal(size=(20000, 3)), 3, "kd-mdav", {}),
    "kd-mdav 20k leaf 300": (rng.normal(size=(20000, 3)), 3, "kd-mdav", {"leaf_size": 300}),
    "grid 20k": (rng.normal(size=(20000, 3)), 3, "grid", {}),
    "kd 20k": (rng.normal(size=(20000, 3)), 3, "kd", {}),
    "npn 2k": (rng.normal(size=(2000, 3)), 3, "npn", {}),
}
out = {"src": polars_sdc.__file__}
for name, (X, k, order, opt) in CASES.items():
    path_order(X, k, order, **opt)  # compile / load
    best = float("inf")
    for _ in range(best_of):
        t = time.process_time()
        path_order(X, k, order, **opt)
        best = min(best, time.process_time() - t)
    out[name] = best
print("RESULT " + json.dumps(out))
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--other", required=True, help="the other checkout")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--best", type=int, default=7, help="calls per case and process (the best counts)")
    a = ap.parse_args()
    sides = {"this": ROOT, "other": Path(a.other).resolve()}
    times = {"this": [], "other": []}
    print(f"this {ROOT} against {sides['other']}; load {os.getloadavg()[0]:.2f} (1 min)", flush=True)
    with tempfile.TemporaryDirectory(prefix="sdc-warm-mhm-") as tmp:
        for _ in range(a.rounds):
            for label, src in sides.items():
                env = dict(os.environ, PYTHONPATH=str(src), NUMBA_CACHE_DIR=str(Path(tmp) / label),
                           PYTHONDONTWRITEBYTECODE="1")
                proc = subprocess.run([sys.executable, "-c", CHILD, str(a.best)], env=env, capture_output=True,
                                      text=True, cwd=tmp)
                if proc.returncode != 0:
                    raise RuntimeError(proc.stderr[-3000:])
                res = json.loads(proc.stdout.split("RESULT ", 1)[1])
                if not Path(res.pop("src")).resolve().is_relative_to(src):
                    raise RuntimeError(f"{label}: imported another polars_sdc than the one under {src}")
                times[label].append(res)
    print(f"{'case':<22} {'this ms':>8} {'other ms':>8} {'ratio':>6}  rounds (min-max)")
    for case in times["this"][0]:
        t = [r[case] for r in times["this"]]
        o = [r[case] for r in times["other"]]
        ratios = [x / y for x, y in zip(t, o)]
        print(f"{case:<22} {1000 * statistics.median(t):8.2f} {1000 * statistics.median(o):8.2f} "
              f"{statistics.median(ratios):6.2f}  {min(ratios):.2f}-{max(ratios):.2f}")
    print(f"load after: {os.getloadavg()[0]:.2f} (1 min)")


if __name__ == "__main__":
    main()
