"""Risk measures and SUDA2 of two checkouts, compared bit for bit over many frames.

    cd /tmp && python /path/to/benchmarks/compare_risk_suda.py --base /work/wt/base [--quick]

Runs every case (1 to 6 keys of integers with few levels (ties), strings, floats with NaN,
nulls, a Categorical; no weights, uniform and tied weights; n from 1 to 5,000; max_size from
1 to all keys; with and without ``suppressed_as``) under this checkout and under ``--base``,
each in a process of its own, and reports every case where one number differs: every column
of ``risk().per_record`` and ``risk().summary``, SUDA's scores, DIS scores, contributions and
MSU counts by size, ``suda()``, ``individual_risk()`` and ``frequencies()`` -- floats by their
bits. Exit status 1 when any differs. The machinery (processes, kept base digests, Numba
cache) is :mod:`compare_mhm_partitions`'.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from compare_mhm_partitions import main  # noqa: E402

CHILD = r"""
import hashlib, json, sys
import numpy as np, polars as pl
import polars_sdc

quick = sys.argv[1] == "1"

def digest_frame(df):
    parts = []
    for c in df.columns:
        s = df.get_column(c)
        vals = [v.hex() if isinstance(v, float) else v for v in s.to_list()]
        parts.append((c, str(s.dtype), vals))
    return repr(parts)

def digest_array(a):
    a = np.ascontiguousarray(a)
    return f"{a.dtype}{a.shape}" + hashlib.sha1(a.tobytes()).hexdigest()

def frame(n, m, kind, weights, rng):
    cols = {}
    for j in range(m):
        t = (j + kind) % 5
        if t == 0:
            cols[f"k{j}"] = rng.integers(0, 2 + j, n)  # few levels: ties
        elif t == 1:
            cols[f"k{j}"] = rng.choice(["a", "b", "c", "d", "e"][: 2 + j % 4], n)
        elif t == 2:  # floats with NaN
            v = rng.integers(0, 4, n).astype(float)
            v[rng.random(n) < 0.1] = np.nan
            cols[f"k{j}"] = v
        elif t == 3:  # nulls
            v = rng.integers(0, 3, n).tolist()
            cols[f"k{j}"] = [None if rng.random() < 0.15 else x for x in v]
        else:
            cols[f"k{j}"] = pl.Series(rng.choice(["x", "y", "z"], n)).cast(pl.Categorical)
    df = pl.DataFrame(cols)
    if weights == "uniform":
        df = df.with_columns(w=pl.Series(rng.uniform(1, 50, n)))
    elif weights == "tied":
        df = df.with_columns(w=pl.Series(rng.choice([2.0, 5.0, 10.0], n)))
    return df

def star(df, rng):
    # a generalised release: some key values suppressed as "*" (string keys)
    return df.with_columns([pl.when(pl.Series(rng.random(df.height) < 0.1)).then(pl.lit("*"))
                            .otherwise(pl.col(c).cast(pl.String)).alias(c) for c in df.columns if c.startswith("k")])

rng = np.random.default_rng(20261127)
sizes = [1, 2, 3, 5, 17, 60, 300, 2000, 5000]
if quick:
    sizes = [1, 3, 17, 300, 2000]
out = {}
case = 0
for n in sizes:
    for rep in range(3 if n <= 300 else 1):
        for m in (1, 2, 3, 4, 6):
            kind = int(rng.integers(0, 5))
            weights = ("none", "uniform", "tied")[int(rng.integers(0, 3))]
            seed = int(rng.integers(0, 2**31))
            df = frame(n, m, kind, weights, np.random.default_rng(seed))
            sup = None
            if rng.random() < 0.25:
                df, sup = star(df, np.random.default_rng(seed + 1)), "*"
            on = [f"k{j}" for j in range(m)]
            w = None if weights == "none" else "w"
            for max_size in sorted({None, 1, max(1, m - 1)}, key=str):
                name = f"{case}:n={n}:m={m}:kind={kind}:w={weights}:sup={sup}:max_size={max_size}"
                case += 1
                try:
                    r = df.sdc.risk(on, w, max_size=max_size, suppressed_as=sup)
                    d = [digest_frame(r.per_record), digest_frame(r.summary)]
                    if r.suda is not None:
                        s = r.suda
                        d += [digest_array(a) for a in (s.score, s.dis, s.contribution, s.msu_counts)]
                        d += [s.uniques, s.pairs, digest_frame(s.attribute_contributions())]
                    d.append(digest_frame(df.sdc.suda(on, max_size=max_size, suppressed_as=sup)))
                    if max_size is None:
                        d.append(digest_frame(df.sdc.individual_risk(on, w, suppressed_as=sup)))
                        d.append(digest_frame(df.sdc.frequencies(on, w, suppressed_as=sup)))
                    out[name] = hashlib.sha1(repr(d).encode()).hexdigest()
                except Exception as e:  # an error is compared as its message
                    out[name] = "ERR " + type(e).__name__ + ": " + str(e)[:200]
print("RESULT " + json.dumps({"src": polars_sdc.__file__, "cases": out}))
"""

if __name__ == "__main__":
    main(CHILD, "risk-suda", __doc__)
