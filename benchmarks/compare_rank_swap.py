"""Rank swapping of two checkouts, compared bit for bit over many frames.

    cd /tmp && python /path/to/benchmarks/compare_rank_swap.py --base /work/wt/base [--quick]

Every case (floats with ties and nulls, integers, n from 1 to 20,000; p / r0 / k0, top /
bottom coding, strata ``by``, a ``key`` column, the sdcMicro preset) runs under this checkout
and under ``--base``, each in a process of its own; every output column is compared by its
bits. Exit status 1 when any differs. The machinery is :mod:`compare_mhm_partitions`'.
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
rng = np.random.default_rng(20261127)
sizes = [1, 2, 5, 17, 60, 300, 2000, 20000]
if quick:
    sizes = [1, 5, 60, 2000]
OPTS = [{"p": 0.05}, {"p": 0.3}, {"r0": 0.9}, {"k0": 2.0}, {"p": 0.1, "top": 0.05, "bottom": 0.05},
        {"p": 0.2, "by": "s"}, {"p": 0.15, "key": "id"}, {"preset": "sdcmicro"}]
out = {}
case = 0
for n in sizes:
    for rep in range(2 if n <= 300 else 1):
        seed = int(rng.integers(0, 2**31))
        g = np.random.default_rng(seed)
        x = g.normal(size=n) * 100
        ties = g.integers(0, 5, n).astype(float)
        ties_null = [None if g.random() < 0.1 else v for v in ties.tolist()]
        df = pl.DataFrame({"x": x, "t": ties, "tn": pl.Series(ties_null, dtype=pl.Float64),
                           "i": g.integers(-50, 50, n), "s": g.choice(["a", "b", "c"], n),
                           "id": g.permutation(n).astype(np.int64)})
        for opt in OPTS:
            for cols in (["x"], ["t", "tn", "i"]):
                name = f"{case}:n={n}:{opt}:{cols}"
                case += 1
                try:
                    r = df.sdc.rank_swap(cols, seed=int(rng.integers(0, 1000)), **opt)
                    d = [(c, str(r[c].dtype), [v.hex() if isinstance(v, float) else v for v in r[c].to_list()])
                         for c in r.columns]
                    out[name] = hashlib.sha1(repr(d).encode()).hexdigest()
                except Exception as e:
                    out[name] = "ERR " + type(e).__name__ + ": " + str(e)[:200]
print("RESULT " + json.dumps({"src": polars_sdc.__file__, "cases": out}))
"""

if __name__ == "__main__":
    main(CHILD, "rank-swap", __doc__)
