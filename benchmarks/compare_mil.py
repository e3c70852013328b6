"""MIL, annealing and univariate results of this checkout against another one (bit for bit).

    cd /tmp && python /path/to/benchmarks/compare_mil.py --src /path/to/this --base /path/to/base [--quick]

The check behind every "same results" claim about the MIL / anneal / univariate kernels (for
example a compile-time rewrite of ``kernels/mil.py`` or ``kernels/anneal.py``). Each checkout runs
in a process of its own (``PYTHONPATH``, its own ``NUMBA_CACHE_DIR``) on the same generated cases
and writes its results to an ``.npz``; the script then compares them array by array (bytes, shape
and dtype) and exits 1 if any differs.

Data kinds: normal, ties (integers 0..3), duplicates (each row one of n/5 distinct rows),
extreme (columns scaled by 1e-12 .. 1e12 and shifted by up to 1e15), offset (1e8 + N(0, 1)); p = 1,
2, 3, 5 columns; n = 5 .. 2,500 (and 10,000 with p = 3 without ``--quick``); k = 1..10 on small n.
The case classes (the key prefix in the ``.npz``):

- ``rm``: :func:`refine_mil` on a random start partition (groups >= k), with its default options
  and, for n <= 600, without exchanges, without cycles, ``neighbours=2`` and ``max_sweeps=2``;
- ``ra``: :func:`refine_anneal` on the same start (``max_iter=2000``, a seed per case; n <= 600);
- ``fm`` / ``fa``: ``df.sdc.mdav(k, cols, refine="mil")`` and ``refine="anneal"`` (max_iter 3,000)
  through the frame, i.e. MDAV then the refinement, the masked values compared;
- ``un``: ``df.sdc.univariate(k, "x0")`` (one column, and on ties / duplicates);
- ``mx`` / ``mxo`` / ``mxa``: mixed frames (two numeric, two nominal columns; nominal only; and
  annealing on one numeric and two nominal columns).

Without ``--quick`` (about 6,000 cases) it takes several minutes per checkout on a loaded machine.
``--quick`` (n <= 600, p = 1 and 3, fewer k; 1,493 cases) took 36 s wall / 20 s CPU for both
checkouts with warm Numba caches (``--cache DIR`` keeps the caches between runs), 2 min 22 s with
cold ones (each checkout compiles MDAV, MIL, anneal and univariate first), at load 8-10.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

KINDS = ["normal", "ties", "dups", "extreme", "offset"]


def data(rng, kind, n, p):
    if kind == "normal":
        return rng.normal(size=(n, p))
    if kind == "ties":
        return rng.integers(0, 4, size=(n, p)).astype(float)
    if kind == "dups":
        base = rng.normal(size=(max(n // 5, 1), p))
        return base[rng.integers(0, base.shape[0], n)]
    if kind == "extreme":
        return rng.normal(size=(n, p)) * np.array([1e-12, 1e12, 1.0, 1e6, 1e-3])[:p] + np.array([1e9, -1e15, 0, 3, 0])[:p]
    if kind == "offset":
        return 1e8 + rng.normal(size=(n, p))
    raise ValueError(kind)


def run(out, quick):
    import polars as pl

    import polars_sdc  # noqa: F401  (registers df.sdc)
    from polars_sdc.microagg.anneal import refine_anneal
    from polars_sdc.microagg.mil import refine_mil

    res = {}
    case = 0
    sizes = [5, 12, 40, 150, 600] + ([] if quick else [2500, 10000])
    for n in sizes:
        for kind in KINDS:
            for p in ([1, 3] if quick else [1, 2, 3, 5]) if n <= 2500 else [3]:
                rng = np.random.default_rng(case)
                X = data(rng, kind, n, p)
                if quick:
                    ks = [1, 2, 3, 5, 7] if n <= 40 else [2, 3]
                else:
                    ks = range(1, 11) if n <= 150 else ([2, 3, 7] if n <= 2500 else [3])
                for k in ks:
                    if k > n:
                        continue
                    # a random starting partition with groups of at least k
                    G = max(n // (k + rng.integers(0, 2)), 1)
                    lab = np.arange(n) % G
                    rng.shuffle(lab)
                    opts = [{}]
                    if n <= 600:
                        opts += [{"exchanges": False}, {"cycles": False}, {"neighbours": 2}, {"max_sweeps": 2}]
                    for oi, o in enumerate(opts):
                        res[f"rm/{case}/{k}/{oi}"] = np.asarray(refine_mil(X, lab, k, **o))
                    if n <= 600 and k in (2, 3, 5):
                        res[f"ra/{case}/{k}"] = np.asarray(refine_anneal(X, lab, k, max_iter=2000, seed=case))
                    df = pl.DataFrame({f"x{j}": X[:, j] for j in range(p)})
                    cols = [f"x{j}" for j in range(p)]
                    if n <= 2500 or k == 3:
                        res[f"fm/{case}/{k}"] = df.sdc.mdav(k, cols, refine="mil").to_numpy()
                    if n <= 600 and k in (2, 3, 5):
                        r = df.sdc.mdav(k, cols, refine="anneal", refine_options={"max_iter": 3000, "seed": k})
                        res[f"fa/{case}/{k}"] = r.to_numpy()
                    if p == 1 or kind in ("ties", "dups"):
                        res[f"un/{case}/{k}"] = df.sdc.univariate(k, "x0").to_numpy()
                case += 1
    for n in [10, 60, 300] + ([] if quick else [1500]):
        for k in [2, 3, 5]:
            rng = np.random.default_rng(1000 + n + k)
            df = pl.DataFrame({"a": rng.normal(size=n), "b": rng.integers(0, 3, n).astype(float),
                               "s": rng.choice(["f", "m"], n), "r": rng.choice(list("nsewxyz"), n)})
            res[f"mx/{n}/{k}"] = df.sdc.mdav(k, ["a", "b", "s", "r"], refine="mil").to_numpy().astype(str)
            res[f"mxo/{n}/{k}"] = df.sdc.mdav(k, ["s", "r"], refine="mil").to_numpy().astype(str)
            if n <= 300:
                r = df.sdc.mdav(k, ["a", "s", "r"], refine="anneal", refine_options={"max_iter": 2000, "seed": 3})
                res[f"mxa/{n}/{k}"] = r.to_numpy().astype(str)
    np.savez_compressed(out, **res)


def same(x, y):
    if x.shape != y.shape or x.dtype != y.dtype:
        return False
    if x.dtype.kind in "US":
        return np.array_equal(x, y)
    return np.ascontiguousarray(x).tobytes() == np.ascontiguousarray(y).tobytes()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--src", required=True)
    ap.add_argument("--base", required=True)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--cache", help="keep the two Numba caches in this directory (default: a fresh one)")
    ap.add_argument("--_run", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a._run:
        import polars_sdc

        assert os.path.dirname(os.path.dirname(polars_sdc.__file__)) == os.path.abspath(
            os.environ["PYTHONPATH"]), polars_sdc.__file__
        run(a._run, a.quick)
        return
    tmp = tempfile.mkdtemp(prefix="cmp-mil-")
    cache = a.cache or tmp
    files = {}
    for label, src in (("src", a.src), ("base", a.base)):
        files[label] = os.path.join(tmp, label + ".npz")
        env = dict(os.environ, PYTHONPATH=os.path.abspath(src),
                   NUMBA_CACHE_DIR=os.path.join(cache, label + "-cache"))
        args = [sys.executable, os.path.abspath(__file__), "--src", a.src, "--base", a.base, "--_run", files[label]]
        if a.quick:
            args.append("--quick")
        subprocess.run(args, env=env, check=True, cwd=tmp)
    s, b = np.load(files["src"]), np.load(files["base"])
    assert sorted(s.files) == sorted(b.files), set(s.files) ^ set(b.files)
    bad = [f for f in s.files if not same(s[f], b[f])]
    classes = sorted({f.split("/")[0] for f in s.files})
    counts = ", ".join(f"{c} {sum(f.split('/')[0] == c for f in s.files)}" for c in classes)
    print(f"{len(s.files)} cases ({counts}); differing: {bad[:20] or 'none'}"
          + (f" and {len(bad) - 20} more" if len(bad) > 20 else ""))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
