"""MDAV labels of this checkout against another one (bit for bit), over many inputs.

    cd /tmp && python /path/to/benchmarks/compare_mdav.py --src /path/to/this --base /path/to/base [--quick]

Each checkout runs in a process of its own (``PYTHONPATH``) on the same generated cases and
writes its labels to an ``.npz``; the script then compares them array by array. Cases: numeric
and mixed (nominal codes, one or two weight groups), normal / ties / duplicates / 1e-300 and
1e300 magnitudes / 1e6 offsets, k = 1..10, n from 2k to 20,000, kd-tree leaf sizes (default,
1, 3, 8, 64, 300), through :func:`mdav_labels_codes` (which picks the kernel) and through both
kernels directly with code arrays (the entry MHM's kd-mdav uses).
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

KINDS = ["normal", "ties", "duplicates", "tiny", "huge", "offset"]


def data(kind, n, p, rng):
    if kind == "ties":
        X = rng.integers(0, 3, size=(n, p)).astype(np.float64)
    elif kind == "duplicates":
        X = np.repeat(rng.normal(size=(max(n // 4, 1), p)), 4, axis=0)[:n]
        X = np.vstack([X, rng.normal(size=(n - len(X), p))])
    elif kind == "tiny":
        X = rng.normal(size=(n, p)) * 1e-300
    elif kind == "huge":
        X = rng.normal(size=(n, p)) * 1e300
    elif kind == "offset":
        X = rng.normal(size=(n, p)) + 1e6
    else:
        X = rng.normal(size=(n, p))
    return np.ascontiguousarray(X)


def cases(quick):
    rng = np.random.default_rng(2026)
    out = []
    sizes = [2, 3, 7, 20, 60, 199, 500, 1000, 2500, 5000] + ([] if quick else [12000, 20000])
    for i in range(40 if quick else 160):
        k = int(rng.integers(1, 11))
        n = int(max(2 * k, rng.choice(sizes)))
        if i % 17 == 0:
            n = 2 * k
        p = int(rng.integers(1, 6))
        mc = int(rng.choice([0, 0, 1, 2, 3]))
        kind = KINDS[i % len(KINDS)]
        leaf = [None, None, 1, 3, 8, 64, 300][i % 7]
        if n > 5000 and leaf is not None and leaf < 8:
            leaf = 8
        out.append((i, kind, n, p, mc, k, leaf, int(rng.integers(0, 2**31)), int(rng.integers(1, 3))))
    return out


def inputs(case):
    i, kind, n, p, mc, k, leaf, seed, groups = case
    rng = np.random.default_rng(seed)
    X = data(kind, n, p, rng)
    levels = rng.integers(1, 5, mc)
    off = np.concatenate([[0], np.cumsum(levels)]).astype(np.int64)
    codes = (np.ascontiguousarray(np.stack([rng.integers(0, u, n) for u in levels], 1).astype(np.int32))
             if mc else np.empty((n, 0), dtype=np.int32))
    if kind == "duplicates" and mc:
        codes = np.ascontiguousarray(codes[np.arange(n) // 4 * 4])
    gid = rng.integers(0, groups, mc).astype(np.int64) if mc else np.empty(0, dtype=np.int64)
    gw = rng.choice([0.5, 1.0, 50.0], groups).astype(np.float64) if mc else np.ones(1)
    return X, codes, off, gid, gw, k, leaf


def run(out, quick):
    from polars_sdc.kernels.mdav import mdav_labels_codes, mdav_labels_small, mdav_labels_tree

    res = {}
    for case in cases(quick):
        X, codes, off, gid, gw, k, leaf = inputs(case)
        i = case[0]
        res[f"codes{i}"] = mdav_labels_codes(X, codes, off, gid, gw, k, leaf)
        if X.shape[0] <= 2500:  # the kernels directly, code arrays (also when empty)
            res[f"small{i}"] = mdav_labels_small(X, codes, off, gid, gw, k, np.zeros(1, dtype=np.int64))
            res[f"tree{i}"] = mdav_labels_tree(X, codes, off, gid, gw, k, leaf or 64, np.zeros(1, dtype=np.int64))
    np.savez(out, **res)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--src", required=True)
    ap.add_argument("--base", required=True)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--_run", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a._run:
        run(a._run, a.quick)
        return
    tmp = tempfile.mkdtemp(prefix="cmp-mdav-")
    files = {}
    for label, src in (("src", a.src), ("base", a.base)):
        files[label] = os.path.join(tmp, label + ".npz")
        env = dict(os.environ, PYTHONPATH=src, NUMBA_CACHE_DIR=os.path.join(tmp, label + "-cache"))
        args = [sys.executable, os.path.abspath(__file__), "--src", a.src, "--base", a.base, "--_run", files[label]]
        if a.quick:
            args.append("--quick")
        subprocess.run(args, env=env, check=True, cwd=tmp)
    s, b = np.load(files["src"]), np.load(files["base"])
    assert sorted(s.files) == sorted(b.files)
    bad = [f for f in s.files if not np.array_equal(s[f], b[f]) or s[f].dtype != b[f].dtype]
    print(f"{len(s.files)} label arrays over {len(cases(a.quick))} cases; differing: {bad or 'none'}")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
