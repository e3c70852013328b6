"""What MDAV's ski rental (kernels/rental.py) costs and saves: repeated MDAV calls from an empty
Numba cache, renting (the default: the brute-force kernel runs while the kd-tree kernel is not
compiled, up to its compile time) against buying at once (``rental.disabled()``: the kd-tree
kernel compiles on the first call, as before session 28).

    cd /tmp && python /path/to/benchmarks/bench_rental.py                 # default cases
    cd /tmp && python benchmarks/bench_rental.py --calls 400 --rows 5000  # one case

Each case runs in fresh processes, each on an empty ``NUMBA_CACHE_DIR`` of its own: ``--procs``
processes one after the other on the same cache (the seconds rented are kept beside the cache,
so they add up across processes, as for a user who starts a script again and again), each
making ``--calls`` / ``--procs`` calls of ``df.sdc.mdav(3, ["a", "b", "c"])`` on ``--rows``
rows (or nominal ``--mixed``). Reported: CPU seconds of the first call, and the cumulative CPU
seconds of the calls after 1, 10, 100, ... calls, for both policies, and the call after which
renting has cost more in all than buying (if it does within the calls run).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = """
import json, sys, time, contextlib
import numpy as np, polars as pl, polars_sdc
from polars_sdc.kernels import rental
rows, calls, mixed, buy = json.loads(sys.argv[1])
rng = np.random.default_rng(0)
df = pl.DataFrame({"a": rng.normal(size=rows), "b": rng.normal(size=rows) * 10, "c": rng.exponential(size=rows),
                   "sex": rng.choice(["f", "m"], rows), "region": rng.choice(["n", "s", "e", "w"], rows)})
on = ["a", "b", "sex", "region"] if mixed else ["a", "b", "c"]
times = []
with (rental.disabled() if buy else contextlib.nullcontext()):
    for _ in range(calls):
        t = time.process_time()
        df.sdc.mdav(3, on)
        times.append(time.process_time() - t)
print("RESULT " + json.dumps({"times": times, "src": polars_sdc.__file__}))
"""


def run(rows: int, calls: int, procs: int, mixed: bool, buy: bool, src: Path) -> list[float]:
    times: list[float] = []
    with tempfile.TemporaryDirectory(prefix="sdc-rental-cache-") as cache, \
            tempfile.TemporaryDirectory(prefix="sdc-rental-cwd-") as cwd:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache, PYTHONPATH=str(src) + os.pathsep + os.environ.get("PYTHONPATH", ""),
                   POLARS_SDC_COMPILE_NOTICE="0")
        per = [calls // procs + (1 if i < calls % procs else 0) for i in range(procs)]
        for c in per:
            proc = subprocess.run([sys.executable, "-c", CHILD, json.dumps([rows, c, mixed, buy])], env=env,
                                  capture_output=True, text=True, cwd=cwd)
            if proc.returncode != 0:
                raise RuntimeError(proc.stderr[-3000:])
            out = json.loads(proc.stdout.split("RESULT ", 1)[1])
            if not Path(out["src"]).resolve().is_relative_to(src.resolve()):
                raise RuntimeError(f"imported {out['src']}, not the polars_sdc under {src}")
            times += out["times"]
    return times


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, nargs="*", help="rows of a case (default: 2000 5000 20000 50000)")
    ap.add_argument("--calls", type=int, default=300, help="calls in all (default 300)")
    ap.add_argument("--procs", type=int, default=3, help="processes the calls are spread over (default 3)")
    ap.add_argument("--mixed", action="store_true", help="two numeric and two nominal columns")
    ap.add_argument("--src", default=str(ROOT), help="directory holding the polars_sdc package measured")
    a = ap.parse_args()
    src = Path(a.src)
    marks = [m for m in (1, 2, 10, 30, 100, 200, 300, 1000) if m <= a.calls]
    print(f"{'rows':>6} {'policy':<6} {'first':>6} " + " ".join(f"{'sum' + str(m):>8}" for m in marks) + "  rent > buy after")
    for rows in a.rows or [2000, 5000, 20000, 50000]:
        got = {p: run(rows, a.calls, a.procs, a.mixed, p == "buy", src) for p in ("rent", "buy")}
        cum = {p: [sum(t[:i + 1]) for i in range(len(t))] for p, t in got.items()}
        worse = next((i + 1 for i in range(a.calls) if cum["rent"][i] > cum["buy"][i]), None)
        for p in ("rent", "buy"):
            print(f"{rows:>6} {p:<6} {got[p][0]:6.2f} " + " ".join(f"{cum[p][m - 1]:8.2f}" for m in marks)
                  + (f"  {worse if worse else 'never'}" if p == "rent" else ""), flush=True)
    print("load after:", os.getloadavg()[0])


if __name__ == "__main__":
    main()
