"""MIL with a nominal quasi-identifier of 1000 levels, as codes (no one-hot matrix): peak
resident memory above the process's peak before the call, CPU time and the SSE gain (the
one-hot SSE computed from level counts).

    python benchmarks/bench_mil_nominal.py [N]      # default N = 200,000
"""
import resource
import sys
import time

import numpy as np
import polars as pl

from polars_sdc.microagg.features import features
from polars_sdc.microagg.mdav import partition_mdav
from polars_sdc.microagg.mil import refine_mil
n = int(sys.argv[1]) if len(sys.argv) > 1 else 200_000
rng = np.random.default_rng(0)
df = pl.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n), "c": rng.normal(size=n),
                   "s": [f"v{v}" for v in rng.integers(0, 1000, n)]})
F = features(df, df.columns)
lab = partition_mdav(F, 5)
Fs = features(df.head(600), df.columns); refine_mil(Fs, partition_mdav(Fs, 5), 5)  # compile first
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
c0 = time.process_time()
new = refine_mil(F, lab, 5)
cpu = time.process_time() - c0
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
D_gb = 8 * n * (3 + 1000) / 1e9
def sse(lab):
    # one-hot SSE without the one-hot matrix: numeric part + nominal part per group
    Xn = F.numeric; G = lab.max() + 1
    cnt = np.bincount(lab, minlength=G).astype(float)
    s = sum(((Xn[:, j] - (np.bincount(lab, Xn[:, j], G) / cnt)[lab]) ** 2).sum() for j in range(Xn.shape[1]))
    key = lab.astype(np.int64) * 1000 + F.codes[:, 0]
    c = np.bincount(key, minlength=G * 1000).reshape(G, 1000).astype(float)
    s += F.scale[0] ** 2 * (cnt - (c ** 2).sum(1) / cnt).sum()
    return s
print(f"n={n}: MIL CPU {cpu:.1f} s, peak RSS {before:.0f} -> {after:.0f} MB (+{after - before:.0f}); one-hot would be {D_gb:.2f} GB; SSE {sse(lab):.1f} -> {sse(new):.1f}")
