"""First-call (Numba compile) time of every method, each in a fresh process with an empty cache.

    python benchmarks/bench_compile.py                    # every method
    python benchmarks/bench_compile.py mdav mil demo      # some of them
    python benchmarks/bench_compile.py --json out.json    # also write the rows as JSON
    python benchmarks/bench_compile.py --warm-vs DIR mdav # warm run time against another checkout

For each method a new Python process starts with ``NUMBA_CACHE_DIR`` set to a new empty
directory (Numba reads the variable when it is imported; with it set, every ``cache=True``
kernel writes its index and object files there, not into ``__pycache__`` next to the kernel
module, so a run never reuses nor pollutes the caches of the source tree). The process runs
the method's set-up (e.g. plain MDAV before ``refine="mil"``, which is then reported as the
time *on top of* MDAV), then the method once on tiny data (the first call: all compile; ``TINY``
sets more rows for some, e.g. ``mdav_5000``), then
again on the same tiny data (the in-memory warm call) and best of three on a larger frame
(the warm run time, the number that must not get slower). A second new process on the now
filled cache times the first call again (what every later program start pays: loading the
cached machine code). Reported per method:

- ``cold cpu`` / ``cold wall``: CPU seconds of the process (all threads; ``time.process_time``)
  and wall seconds of the first call on an empty cache;
- ``cached cpu``: CPU seconds of the first call in a new process on the filled cache;
- ``warm ms``: best of three in-memory calls on ``--rows`` rows (CPU milliseconds) after one
  untimed call, every kernel compiled (MDAV's kd-tree kernel bought, not rented: the renting
  phase of kernels/rental.py is measured by ``bench_rental.py``);
- ``compiled``: number of (kernel, signature) compilations, ``sigs>1``: kernels compiled for
  more than one argument-type combination, ``top``: the kernels with the largest compile
  time (exclusive of the kernels they call; from ``numba.core.event.install_recorder``).

``--warm-vs DIR`` compares warm run times only: for each method, ``--repeats`` rounds that
each start one process on this checkout and one on the polars_sdc under ``DIR`` (in turn, so
both see the same load), each on a cache of its own kept across the rounds (only the first
round compiles), and report the median of the per-round ratios this / other of the warm
CPU times (best of three calls each).

CPU time is the primary number: the machine is shared, and wall time rises with the load
(``uptime`` is printed with the table). ``demo`` runs ``polars-sdc demo`` end to end as a
subprocess and reports its CPU time (``resource.getrusage`` of the child) and wall time.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: The directory holding the polars_sdc package measured (--src; default: this checkout).
SRC = ROOT

#: The data of every method: n rows, numeric a, b, c, integer age, string sex / region.
FRAME = """
import numpy as np, polars as pl, polars_sdc
def frame(n):
    rng = np.random.default_rng(0)
    return pl.DataFrame({
        "a": rng.normal(size=n), "b": rng.normal(size=n) * 10, "c": rng.exponential(size=n),
        "age": rng.integers(16, 90, n), "income": rng.lognormal(10, 1, n),
        "sex": rng.choice(["f", "m"], n), "region": rng.choice(["n", "s", "e", "w"], n),
        "w": rng.uniform(1, 50, n),
    })
"""

NUM = '["a", "b", "c"]'
KEYS = '["sex", "region", "age"]'

#: Adult-like categorical keys derived from :data:`FRAME` (set-up code).
ADULT = ("df = df.with_columns(ageband=pl.col('age') // 10, edu=(pl.col('b').abs() // 5).clip(0, 5).cast(pl.Int64), "
         "hours=(pl.col('c') * 2).floor().clip(0, 4).cast(pl.Int64), "
         "occ=(pl.col('a') * 2).floor().clip(-3, 3).cast(pl.Int64)).drop('age')")
ADULT_KEYS = '["sex", "region", "ageband", "edu", "hours", "occ"]'

#: name -> (set-up code, call code on ``df``, warm rows)
METHODS: dict[str, tuple[str, str, int]] = {
    "mdav": ("", f"df.sdc.mdav(3, {NUM})", 5000),
    # warm at 900 rows: the brute-force kernel near the largest n it takes (kernels/mdav.py
    # small_enough: 908 rows at k = 3, p = 3), not the kd-tree one
    "mdav_900": ("", f"df.sdc.mdav(3, {NUM})", 900),
    "mil": (f"df.sdc.mdav(3, {NUM})", f"df.sdc.mdav(3, {NUM}, refine='mil')", 2000),
    "anneal": (f"df.sdc.mdav(3, {NUM})",
               f"df.sdc.mdav(3, {NUM}, refine='anneal', refine_options={{'max_iter': 20000, 'seed': 1}})", 2000),
    "mdav_mixed": ("", "df.sdc.mdav(3, [\"a\", \"b\", \"sex\", \"region\"])", 5000),
    "vmdav": ("", f"df.sdc.vmdav(3, {NUM})", 5000),
    "mhm_npn": ("", f"df.sdc.mhm(3, {NUM}, order='npn')", 2000),
    "mhm_grid": ("", f"df.sdc.mhm(3, {NUM}, order='grid')", 2000),
    "mhm_vgrid": ("", f"df.sdc.mhm(3, {NUM}, order='vgrid')", 2000),
    "mhm_kd": ("", f"df.sdc.mhm(3, {NUM}, order='kd')", 2000),
    "mhm_kd-mdav": ("", f"df.sdc.mhm(3, {NUM}, order='kd-mdav')", 2000),
    "univariate": ("", "df.sdc.univariate(3, 'income')", 5000),
    "frequencies": ("", f"df.sdc.frequencies({KEYS}, weight='w')", 5000),
    "individual_risk": ("", f"df.sdc.individual_risk({KEYS}, weight='w')", 5000),
    "risk": ("", f"df.sdc.risk({KEYS}, weight='w')", 2000),
    "suda": ("", f"df.sdc.suda({KEYS})", 2000),
    "pram": ("", "df.sdc.pram('region', seed=1)", 5000),
    "rank_swap": ("", f"df.sdc.rank_swap({NUM}, p=0.05, seed=1)", 5000),
    "add_noise": ("", f"df.sdc.add_noise({NUM}, seed=1)", 5000),
    "laplace": ("", f"df.sdc.laplace(1.0, {NUM}, seed=1)", 5000),
    "reconstruct_gmm": ("noisy = df.sdc.laplace(1.0, 'a', seed=1)",
                        "noisy.sdc.reconstruct_gmm(2, 'a', phi=1.0)", 2000),
    "ild": ("masked = df.sdc.mdav(3, ['a', 'b', 'c'])", "df.sdc.ild(masked, on=['a', 'b', 'c'])", 2000),
    "recode_utility": ("", "df.sdc.recode_utility('sex', ['region'], p=0.3)", 2000),
    # the first call on 5,000 rows: MDAV's kd-tree kernel (kernels/mdav.py small_enough), not
    # the brute-force one the 60-row rows compile (first call on TINY[name] rows)
    "mdav_5000": ("", f"df.sdc.mdav(3, {NUM})", 5000),
    "mdav_mixed_5000": ("", "df.sdc.mdav(3, [\"a\", \"b\", \"sex\", \"region\"])", 5000),
    # local suppression, first call on 1,000 rows (TINY): six Adult-like keys (2 x 4 x 8 x 6 x 5 x 7
    # categories, most records unique), and 12 three-category keys on 200 rows (the per-record
    # search, kernels/wildcard.cheapest_masks)
    "suppress_adult": (ADULT, f"df.sdc.suppress(3, {ADULT_KEYS})", 1000),
    "suppress_12keys": ("df = pl.DataFrame({f'k{j}': np.random.default_rng(j).integers(0, 3, df.height) "
                        "for j in range(12)})", "df.sdc.suppress(3, df.columns)", 200),
}

#: Rows of the first call of a method when not ``--tiny``.
TINY: dict[str, int] = {"mdav_5000": 5000, "mdav_mixed_5000": 5000, "suppress_adult": 1000, "suppress_12keys": 200}

#: The child: runs one method and prints one JSON line.
CHILD = FRAME + """
import json, sys, time
from numba.core import event
setup, call, tiny, rows = json.loads(sys.argv[1])
df = frame(tiny)
out = {"src": polars_sdc.__file__}
t = (time.perf_counter(), time.process_time())
if setup:
    exec(setup)
out["setup_cpu"] = time.process_time() - t[1]
out["setup_wall"] = time.perf_counter() - t[0]
with event.install_recorder("numba:compile") as rec:
    t = (time.perf_counter(), time.process_time())
    exec(call)
    out["first_cpu"] = time.process_time() - t[1]
    out["first_wall"] = time.perf_counter() - t[0]
# compile events: nested START/END pairs; exclusive time per (kernel, signature)
stack, comp = [], []
for ts, ev in rec.buffer:
    if ev.is_start:
        stack.append([ts, 0.0])
    else:
        t0, inner = stack.pop()
        d = ev.data["dispatcher"]
        name = d.py_func.__module__.rsplit(".", 1)[-1] + "." + d.py_func.__qualname__
        comp.append((name, str(ev.data["args"]), ts - t0 - inner))
        if stack:
            stack[-1][1] += ts - t0
out["compiles"] = comp
sigs = {}
for name, args, _ in comp:
    sigs.setdefault(name, set()).add(args)
out["multi"] = {k: sorted(v) for k, v in sigs.items() if len(v) > 1}
t = time.process_time()
exec(call)
out["again_cpu"] = time.process_time() - t
if rows:
    df = frame(rows)
    best = float("inf")
    if setup:
        exec(setup)
    try:  # the warm run time: with every kernel compiled (MDAV's kd-tree kernel bought, not rented;
        from polars_sdc.kernels.rental import disabled  # the renting phase: benchmarks/bench_rental.py)
    except ImportError:  # a checkout before session 28
        import contextlib
        disabled = contextlib.nullcontext
    with disabled():
        exec(call)
        for _ in range(3):
            t = time.process_time()
            exec(call)
            best = min(best, time.process_time() - t)
    out["warm_cpu"] = best
print("RESULT " + json.dumps(out))
"""


#: The children's working directory: an empty one, since ``python -c`` puts the working
#: directory first on sys.path, and run from a checkout it would import that checkout's
#: polars_sdc whatever ``--src`` / ``--warm-vs`` say (session 25: the sessions 23-24 warm
#: comparisons had compared the checkout with itself).
NEUTRAL_CWD = tempfile.mkdtemp(prefix="sdc-bench-cwd-")


def _child(args: list[str], env: dict[str, str]) -> tuple[dict, float, float]:
    """Run a child; (its RESULT dict or {}, CPU seconds by getrusage, wall seconds)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    proc = subprocess.run(args, env=env, capture_output=True, text=True, cwd=env.get("_CWD", NEUTRAL_CWD))
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode != 0:
        raise RuntimeError(f"{args[-1][:200]} failed:\n{proc.stderr[-3000:]}")
    res = {}
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            res = json.loads(line[7:])
    res["_stdout"] = proc.stdout
    return res, cpu, wall


def _env(cache: str) -> dict[str, str]:
    env = dict(os.environ)
    env["NUMBA_CACHE_DIR"] = cache
    env["PYTHONPATH"] = str(SRC) + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("CI", None)
    return env


def run_method(name: str, tiny: int) -> dict:
    setup, call, rows = METHODS[name]
    tiny = TINY.get(name, tiny)
    with tempfile.TemporaryDirectory(prefix="sdc-numba-cache-") as cache:
        arg = json.dumps([setup, call, tiny, rows])
        cold, proc_cpu, proc_wall = _child([sys.executable, "-c", CHILD, arg], _env(cache))
        if not Path(cold["src"]).resolve().is_relative_to(SRC.resolve()):
            raise RuntimeError(f"imported {cold['src']}, not the polars_sdc under {SRC}")
        n_files = sum(1 for _ in Path(cache).rglob("*.nbi"))
        cached, _, _ = _child([sys.executable, "-c", CHILD, json.dumps([setup, call, tiny, 0])], _env(cache))
    by_kernel: dict[str, float] = {}
    for kname, _, sec in cold["compiles"]:
        by_kernel[kname] = by_kernel.get(kname, 0.0) + sec
    top = sorted(by_kernel.items(), key=lambda kv: -kv[1])[:4]
    return {
        "method": name, "cold_cpu": cold["first_cpu"], "cold_wall": cold["first_wall"],
        "setup_cpu": cold["setup_cpu"], "cached_cpu": cached["first_cpu"],
        "again_ms": 1000 * cold["again_cpu"], "warm_ms": 1000 * cold["warm_cpu"],
        "compiled": len(cold["compiles"]), "kernels": len(by_kernel),
        "multi": cold["multi"], "index_files": n_files,
        "process_cpu": proc_cpu, "process_wall": proc_wall,
        "top": [(k, round(v, 2)) for k, v in top],
    }


def run_demo() -> dict:
    with tempfile.TemporaryDirectory(prefix="sdc-numba-cache-") as cache, \
            tempfile.TemporaryDirectory(prefix="sdc-demo-") as work:
        env = _env(cache)
        env["_CWD"] = work
        args = [sys.executable, "-m", "polars_sdc", "demo", "--out", str(Path(work) / "out.parquet")]
        _, cold_cpu, cold_wall = _child(args, env)
        _, warm_cpu, warm_wall = _child(args, env)
    return {"method": "demo", "cold_cpu": cold_cpu, "cold_wall": cold_wall, "cached_cpu": warm_cpu,
            "cached_wall": warm_wall}


def warm_vs(names: list[str], other: Path, repeats: int, tiny: int) -> None:
    """Median warm-time ratio (this checkout / ``other``) per method, rounds interleaved."""
    import statistics

    print(f"{'method':<16} {'this ms':>9} {'other ms':>9} {'ratio':>6}  (median of {repeats} interleaved rounds)")
    with tempfile.TemporaryDirectory(prefix="sdc-warm-") as tmp:
        for name in names:
            setup, call, rows = METHODS[name]
            arg = json.dumps([setup, call, TINY.get(name, tiny), rows])
            ratios, this_ms, other_ms = [], [], []
            for _ in range(repeats):
                got = {}
                for label, src in (("this", SRC), ("other", other)):
                    env = _env(str(Path(tmp) / f"{label}-cache"))
                    env["PYTHONPATH"] = str(src) + os.pathsep + os.environ.get("PYTHONPATH", "")
                    res, _, _ = _child([sys.executable, "-c", CHILD, arg], env)
                    if not Path(res["src"]).resolve().is_relative_to(Path(src).resolve()):
                        raise RuntimeError(f"{label}: imported {res['src']}, not the polars_sdc under {src}")
                    got[label] = res["warm_cpu"]
                this_ms.append(1000 * got["this"])
                other_ms.append(1000 * got["other"])
                ratios.append(got["this"] / got["other"])
            print(f"{name:<16} {statistics.median(this_ms):9.2f} {statistics.median(other_ms):9.2f} "
                  f"{statistics.median(ratios):6.2f}  (rounds: {', '.join(f'{r:.2f}' for r in ratios)})", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("methods", nargs="*", help=f"some of: {', '.join(METHODS)}, demo (default: all)")
    ap.add_argument("--tiny", type=int, default=60, help="rows of the first call (default 60)")
    ap.add_argument("--json", help="also write the rows to this JSON file")
    ap.add_argument("--detail", action="store_true", help="print the kernels compiled more than once")
    ap.add_argument("--src", help="directory holding the polars_sdc package to measure (default: this checkout)")
    ap.add_argument("--warm-vs", metavar="DIR", help="compare warm run times with the polars_sdc under DIR")
    ap.add_argument("--repeats", type=int, default=3, help="interleaved rounds of --warm-vs (default 3)")
    a = ap.parse_args()
    if a.src:
        global SRC
        SRC = Path(a.src).resolve()
    names = a.methods or [*METHODS, "demo"]
    for n in names:
        if n not in METHODS and n != "demo":
            ap.error(f"unknown method {n!r}")
    if a.warm_vs:
        print(f"polars_sdc from {SRC} against {a.warm_vs}; load {os.getloadavg()[0]:.2f} (1 min)")
        warm_vs([n for n in names if n != "demo"], Path(a.warm_vs).resolve(), a.repeats, a.tiny)
        print(f"load after: {os.getloadavg()[0]:.2f} (1 min)")
        return
    print(f"polars_sdc from {SRC}")
    print(f"load before: {os.getloadavg()[0]:.2f} (1 min), {os.cpu_count()} cores")
    print(f"{'method':<16} {'cold cpu':>9} {'cold wall':>9} {'cached cpu':>10} {'warm ms':>9} "
          f"{'compiled':>8} {'sigs>1':>6}  top compile (s, exclusive)")
    rows = []
    for n in names:
        if n == "demo":
            r = run_demo()
            print(f"{'demo':<16} {r['cold_cpu']:9.2f} {r['cold_wall']:9.2f} {r['cached_cpu']:10.2f} "
                  f"{'':>9} {'':>8} {'':>6}  (whole process; cached wall {r['cached_wall']:.2f} s)", flush=True)
        else:
            r = run_method(n, a.tiny)
            top = ", ".join(f"{k} {v:.1f}" for k, v in r["top"])
            print(f"{n:<16} {r['cold_cpu']:9.2f} {r['cold_wall']:9.2f} {r['cached_cpu']:10.2f} "
                  f"{r['warm_ms']:9.1f} {r['compiled']:8d} {len(r['multi']):6d}  {top}", flush=True)
            if a.detail:
                for k, v in r["multi"].items():
                    print(f"    {k}: {len(v)} signatures")
                    for s in v:
                        print(f"        {s}")
        rows.append(r)
    print(f"load after: {os.getloadavg()[0]:.2f} (1 min)")
    if a.json:
        Path(a.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
