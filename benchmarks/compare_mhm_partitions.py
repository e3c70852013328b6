"""MHM paths and partitions of two checkouts, compared bit for bit over many inputs.

    cd /tmp && python /path/to/benchmarks/compare_mhm_partitions.py --base /work/wt/base [--quick]

Runs every case (numeric, nominal columns as codes, ties, duplicate rows, extreme
magnitudes 1e-300 / 1e300, n up to 20,000, k 1..10; every ordering, kd-mdav on one leaf,
on leaves inside the walk and on large leaves taken from Python, with the brute-force and
the kd-tree leaf MDAV) once under this checkout and once under ``--base``, each in a
process of its own (``PYTHONPATH``), and reports every case whose path (``path_order``) or
labels (``partition_mhm``) differ. Exit status 1 when any differs. The base's digests are
kept in ``$TMPDIR/sdc-compare-mhm`` (keyed by the cases and the base's path) and reused;
Numba caches there too, never next to either checkout's kernels. Cases are drawn from a
fixed seed, so both sides see the same inputs.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = r"""
import hashlib, json, sys
import numpy as np, polars as pl
import polars_sdc
from polars_sdc.microagg.features import features
from polars_sdc.microagg.mhm import partition_mhm, path_order

quick = sys.argv[1] == "1"

def data(kind, n, p, rng):
    if kind == "normal":
        return rng.normal(size=(n, p))
    if kind == "ties":
        return rng.integers(0, 3, size=(n, p)).astype(float)
    if kind == "dups":
        base = rng.normal(size=(max(1, n // 7), p))
        return base[rng.integers(0, base.shape[0], n)]
    if kind == "tiny":
        return rng.normal(size=(n, p)) * 1e-300
    if kind == "huge":
        return rng.normal(size=(n, p)) * 1e300
    if kind == "spread":  # columns of very different magnitudes, and a constant one
        X = rng.normal(size=(n, p))
        X[:, 0] *= 1e-300
        if p > 1:
            X[:, 1] *= 1e300
        if p > 2:
            X[:, 2] = 7.0
        return X
    if kind == "chain":  # near-duplicate chains: deep vgrid / kd trees
        X = rng.normal(size=(n, p))
        m = n // 4
        X[:m] = X[0] + np.cumsum(np.full((m, p), 1e-13), axis=0)
        return X
    raise ValueError(kind)

def mixed(kind, n, p, rng):
    X = data(kind, n, p, rng)
    cols = {f"x{j}": X[:, j] for j in range(p)}
    cols["c"] = rng.choice(["a", "b", "c", "d"], n)
    cols["e"] = rng.choice([f"l{i}" for i in range(max(2, min(n // 3, 300)))], n)  # many levels
    df = pl.DataFrame(cols)
    on = ["c"] + [f"x{j}" for j in range(p)] + ["e"]
    return features(df, on, standardize=False)

ORDERS = [("npn", {}), ("grid", {}), ("vgrid", {}), ("vgrid", {"leaf_size": 2}), ("kd", {}), ("kd", {"leaf_size": 9}),
          ("kd-mdav", {}), ("kd-mdav", {"leaf_size": 60}), ("kd-mdav", {"leaf_size": 1500})]
rng = np.random.default_rng(20261127)
sizes = [1, 2, 3, 5, 17, 60, 300, 1100, 2000, 5000, 20000]
if quick:
    sizes = [1, 2, 5, 60, 300, 2000, 5000]
out = {}
case = 0
for n in sizes:
    reps = 3 if n <= 300 else 1
    for rep in range(reps):
        for kind in ("normal", "ties", "dups", "tiny", "huge", "spread", "chain"):
            if n >= 5000 and kind not in ("normal", "ties", "chain") and rep == 0 and quick:
                continue
            p = int(rng.integers(1, 6))
            k = int(rng.integers(1, 11))
            nominal = bool(rng.integers(0, 2)) and n >= 2
            seed = int(rng.integers(0, 2**31))
            X = data(kind, n, p, np.random.default_rng(seed))
            F = mixed(kind, n, p, np.random.default_rng(seed)) if nominal else X
            for order, opt in ORDERS:
                if order == "npn" and n > 5000:
                    continue
                if order == "vgrid" and nominal and n > 2000:  # the one-hot matrix of many levels
                    continue
                if opt.get("leaf_size") == 1500 and n < 1500:
                    continue
                name = f"{case}:{kind}:n={n}:p={p}:k={k}:nom={nominal}:{order}:{opt}"
                case += 1
                try:
                    perm = path_order(F, k, order, **opt)
                    lab = partition_mhm(F, k, order, **opt)
                    out[name] = hashlib.sha1(perm.tobytes() + b"|" + lab.tobytes()).hexdigest()
                except Exception as e:  # an error is compared as its message
                    out[name] = "ERR " + type(e).__name__ + ": " + str(e)[:200]
print("RESULT " + json.dumps({"src": polars_sdc.__file__, "cases": out}))
"""


def run(src: Path, quick: bool, cache: Path, child: str = CHILD) -> dict:
    """The cases' digests (``child``'s) under the polars_sdc of ``src``; Numba's cache in
    ``cache`` (never next to the kernels of ``src``: the other checkout is only read)."""
    with tempfile.TemporaryDirectory(prefix="sdc-cmp-") as cwd:
        env = dict(os.environ, PYTHONPATH=str(src), NUMBA_CACHE_DIR=str(cache), PYTHONDONTWRITEBYTECODE="1")
        proc = subprocess.run([sys.executable, "-c", child, "1" if quick else "0"], env=env, cwd=cwd,
                              capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr[-3000:])
    res = json.loads(proc.stdout.split("RESULT ", 1)[1])
    if not Path(res["src"]).resolve().is_relative_to(src.resolve()):
        raise RuntimeError(f"imported {res['src']}, not the polars_sdc under {src}")
    return res["cases"]


def main(child: str = CHILD, name: str = "mhm", doc: str | None = None) -> None:
    """Compare ``child``'s digests under ``--src`` and ``--base`` (``name``: of the kept digests)."""
    ap = argparse.ArgumentParser(description=(doc or __doc__).split("\n\n")[0])
    ap.add_argument("--base", required=True, help="the other checkout (its polars_sdc is compared)")
    ap.add_argument("--src", default=str(ROOT), help="this checkout (default: the one holding this script)")
    ap.add_argument("--quick", action="store_true", help="fewer and smaller cases")
    ap.add_argument("--base-only", action="store_true", help="only compute and keep the base's digests")
    a = ap.parse_args()
    work = Path(tempfile.gettempdir()) / f"sdc-compare-{name}"
    work.mkdir(exist_ok=True)
    key = hashlib.sha1((child + str(Path(a.base).resolve()) + str(a.quick)).encode()).hexdigest()[:12]
    saved = work / f"base-{key}.json"  # the base's digests, kept: the base does not change
    this = None if a.base_only else run(Path(a.src), a.quick, work / "cache-this", child)
    if saved.exists():
        other = json.loads(saved.read_text())
    else:
        other = run(Path(a.base), a.quick, work / "cache-base", child)
        saved.write_text(json.dumps(other))
    if this is None:
        print(f"{len(other)} base cases kept in {saved}")
        return
    assert this.keys() == other.keys()
    bad = [c for c in this if this[c] != other[c]]
    errors = sum(v.startswith("ERR") for v in this.values())
    digest = hashlib.sha1(json.dumps(sorted(this.items())).encode()).hexdigest()[:12]
    print(f"{len(this)} cases ({errors} raise an error here, compared by message), {len(bad)} differ; digest {digest}")
    for c in bad[:20]:
        print(f"  DIFF {c}: {this[c][:60]} vs {other[c][:60]}")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
