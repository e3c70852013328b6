"""Disclosure-risk speed: frequencies + individual risk, SUDA2, record linkage, the report.

    python benchmarks/bench_risk.py [--n 10000000] [--suda-n 1000000] [--link-n 1000000] [--old REV] [--parts freq ...]

Peers, in the same process and threads:
- frequencies: a plain Polars ``group_by(keys).agg(len, sum(w))`` joined back in row order
  (no missing-value rule, the same numbers when there is no missing value); with 1 % missing
  values per key: the same call on the frame without missing values, and with ``--old REV``
  the module ``risk/frequencies.py`` of that git revision (interleaved);
- SUDA2 on Adult: a Polars subset enumeration (``pl.len().over(subset)`` for each of the 255
  key subsets, then the minimal-unique test in numpy) giving the same scores;
- record linkage: ``scipy.spatial.cKDTree`` build + plain k=1 query alone (our method bounds
  each query by the record's distance to its own original, so it can beat this);
- the report: timed alone (Adult, 8 keys, 3 numeric columns, MDAV k = 3 release).
Timings on a shared 2-core machine are noisy; best of ``--repeat``, wall and CPU time
(``time.process_time``: all threads of this process) with the load average (``os.getloadavg``)
printed beside them: CPU time is the figure that compares across loads.
"""
from __future__ import annotations

import argparse
import os
from itertools import combinations
from math import factorial

import numpy as np
import polars as pl

import polars_sdc as sdc
from polars_sdc import datasets
from polars_sdc.risk.frequencies import frequencies
from polars_sdc.risk.individual import frequencies_and_risk, individual_risk
from polars_sdc.risk.linkage import linkage_risk
from polars_sdc.risk.suda import suda

import timing  # benchmarks/timing.py: the shared best-of-n wall / CPU timer

ADULT_KEYS = ["age", "workclass", "education", "marital-status", "occupation", "race", "sex", "native-country"]


def best(fn, repeat: int) -> tuple[float, object]:
    """Best wall time of ``repeat`` runs and the last result; the best CPU time is kept in
    ``best.cpu``."""
    t = timing.timed(fn, repeat)
    best.cpu = t.cpu
    return t.wall, t.result


def load() -> str:
    return "load %.1f" % os.getloadavg()[0]


def uniform_keys(n: int, levels: list[int], seed: int = 1) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    return pl.DataFrame({f"k{j}": rng.integers(0, L, n).astype(np.int32) for j, L in enumerate(levels)})


def suda_peer(df: pl.DataFrame, keys: list[str]) -> np.ndarray:
    M, n = len(keys), df.height
    uniq = {}
    for size in range(1, M + 1):
        for S in combinations(range(M), size):
            cols = [keys[j] for j in S]
            c = df.select(pl.len().over(cols)).to_series().to_numpy()
            nulls = df.select(pl.any_horizontal([pl.col(x).is_null() for x in cols])).to_series().to_numpy()
            uniq[S] = (c == 1) & ~nulls
    score = np.zeros(n)
    for S, u in uniq.items():
        minimal = u.copy()
        if len(S) > 1:
            for T in combinations(S, len(S) - 1):
                minimal &= ~uniq[T]
        score += minimal * factorial(M - len(S))
    return score


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1_000_000, help="rows for frequencies + individual risk")
    ap.add_argument("--suda-n", type=int, default=100_000, help="rows of the uniform 8-key SUDA run")
    ap.add_argument("--link-n", type=int, default=100_000, help="rows of the record-linkage run")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--noise", type=float, nargs="+", default=[0.01, 0.1, 0.5], help="noise sd levels for linkage")
    ap.add_argument("--old", metavar="REV", help="also time the missing-value case with "
                    "polars_sdc/risk/frequencies.py of git revision REV (interleaved, same process)")
    ap.add_argument("--parts", nargs="+", default=["freq", "suda", "link", "report"],
                    help="which parts to run: freq suda link report")
    args = ap.parse_args()

    if "freq" in args.parts:
        bench_frequencies(args)
    adult = datasets.adult()
    if "suda" in args.parts:
        bench_suda(args, adult)
    if "link" in args.parts:
        bench_linkage(args)
    if "report" in args.parts:
        bench_report(adult)


def bench_frequencies(args) -> None:
    print("== frequencies + individual risk (5 keys: 20, 10, 50, 5, 30 levels, weights) ==")
    df = uniform_keys(args.n, [20, 10, 50, 5, 30]).with_columns(
        w=pl.Series(np.random.default_rng(2).uniform(1, 100, args.n))
    )
    keys = [f"k{j}" for j in range(5)]

    def ours():
        return frequencies_and_risk(df, keys, "w")[2]

    def peer():
        g = df.group_by(keys).agg(fk=pl.len(), Fk=pl.col("w").sum())
        j = df.select(keys).join(g, on=keys, how="left", maintain_order="left")
        return individual_risk(j["fk"].to_numpy().astype(float), j["Fk"].to_numpy())

    t_ours, r1 = best(ours, args.repeat)
    c_ours = best.cpu
    t_peer, r2 = best(peer, args.repeat)
    c_peer = best.cpu
    assert np.allclose(r1, r2)
    print(f"n = {args.n:,}: polars_sdc {t_ours:.2f} s (CPU {c_ours:.2f} s), group_by+join peer {t_peer:.2f} s "
          f"(CPU {c_peer:.2f} s), ratio {t_peer / t_ours:.2f}x wall, {c_peer / c_ours:.2f}x CPU ({load()})")
    rng = np.random.default_rng(3)
    miss = df.with_columns(
        [pl.when(pl.Series(rng.random(args.n) < 0.01)).then(None).otherwise(pl.col(k)).alias(k) for k in keys]
    )
    # peer for the missing-value case: the same call without missing values (no wildcards)
    for name, fn in (("frequencies", frequencies), ("frequencies + individual risk", frequencies_and_risk)):
        t_full, _ = best(lambda: fn(df, keys, "w", 1.0), args.repeat)
        c_full = best.cpu
        t_miss, _ = best(lambda: fn(miss, keys, "w", 1.0), args.repeat)
        print(f"{name} with 1 % missing values per key (alpha = 1): {t_miss:.2f} s (CPU {best.cpu:.2f} s); "
              f"without missing values {t_full:.2f} s (CPU {c_full:.2f} s): {t_miss / t_full:.2f}x wall, "
              f"{best.cpu / c_full:.2f}x CPU ({load()})")
    if args.old:
        compare_old(args, miss, keys)
    lf = df.lazy().sdc.frequencies(keys, weight="w")
    t_lazy, _ = best(lambda: lf.collect(engine="streaming"), 1)
    print(f"LazyFrame, streaming collect: {t_lazy:.2f} s (CPU {best.cpu:.2f} s, {load()})")
    del df, miss


def compare_old(args, miss: pl.DataFrame, keys: list[str]) -> None:
    """The missing-value case against ``polars_sdc/risk/frequencies.py`` of git revision
    ``--old``, loaded beside the current module, interleaved (old, new, new, old, ...)."""
    import importlib.util
    import subprocess
    import tempfile
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    src = subprocess.run(["git", "show", f"{args.old}:polars_sdc/risk/frequencies.py"], cwd=root,
                         check=True, capture_output=True, text=True).stdout
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as fh:
        fh.write(src)
    spec = importlib.util.spec_from_file_location("polars_sdc.risk._old_frequencies", fh.name)
    old = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(old)
    os.unlink(fh.name)
    for alpha in (1.0, 0.5, 0.0):
        times = {"old": [], "new": []}
        out = {}
        for name in ("old", "new", "new", "old")[: 2 * max(args.repeat // 2, 1)]:
            fn = old.frequencies if name == "old" else frequencies
            t = timing.timed(lambda: fn(miss, keys, "w", alpha))
            out[name] = t.result
            times[name].append((t.wall, t.cpu))
        (fk0, Fk0), (fk1, Fk1) = out["old"], out["new"]
        rel = float(np.max(np.abs(Fk1 - Fk0) / Fk0))
        (wo, co), (wn, cn) = (min(times["old"]), min(t[1] for t in times["old"])), (min(times["new"]), min(t[1] for t in times["new"]))
        print(f"  alpha = {alpha}: old ({args.old}) {wo[0]:.2f} s (CPU {co:.2f} s), new {wn[0]:.2f} s (CPU {cn:.2f} s): "
              f"{wo[0] / wn[0]:.1f}x wall, {co / cn:.1f}x CPU; fk identical: {np.array_equal(fk0, fk1)}, "
              f"Fk max relative difference {rel:.1e} ({load()})")


def bench_suda(args, adult) -> None:
    print("\n== SUDA2 ==")
    suda(adult.head(100), ADULT_KEYS)  # compile (or load the Numba cache)
    t_s, res = best(lambda: suda(adult, ADULT_KEYS), max(args.repeat, 5))
    c_s = best.cpu
    t_p, peer_scores = best(lambda: suda_peer(adult, ADULT_KEYS), 1)
    assert np.array_equal(res.score, peer_scores)
    print(f"Adult, 8 keys ({adult.height:,} rows): polars_sdc {t_s:.3f} s (CPU {c_s:.3f} s), polars subset-enumeration "
          f"peer {t_p:.2f} s (CPU {best.cpu:.2f} s), ratio {t_p / t_s:.1f}x wall, {best.cpu / c_s:.1f}x CPU "
          f"(same scores, {load()})")
    big = uniform_keys(args.suda_n, [20, 10, 50, 5, 30, 8, 3, 12], seed=4)
    t_b, _ = best(lambda: suda(big, big.columns), 1)
    print(f"uniform 8 keys (20, 10, 50, 5, 30, 8, 3, 12 levels), n = {args.suda_n:,}: {t_b:.2f} s "
          f"(CPU {best.cpu:.2f} s, {load()})")
    del big


def bench_linkage(args) -> None:
    print("\n== record linkage (10 standard normal columns, Gaussian noise) ==")
    rng = np.random.default_rng(5)
    X = rng.normal(size=(args.link_n, 10))
    o = pl.DataFrame(X, schema=[f"x{j}" for j in range(10)])
    from scipy.spatial import cKDTree

    for noise in args.noise:
        m = pl.DataFrame(X + rng.normal(scale=noise, size=X.shape), schema=o.columns)
        t_l, share = best(lambda: linkage_risk(o, m), 1)
        c_l = best.cpu
        t_nt, share_nt = best(lambda: linkage_risk(o, m, ties=False), 1)
        c_nt = best.cpu
        Y = m.to_numpy()
        t_q, _ = best(lambda: cKDTree(X).query(Y, k=1, workers=-1), 1)
        print(f"n = {args.link_n:,}, noise {noise} sd: linkage {share:.4f} in {t_l:.2f} s (CPU {c_l:.2f} s), "
              f"ties=False {share_nt:.4f} in {t_nt:.2f} s (CPU {c_nt:.2f} s); peer cKDTree build + unbounded "
              f"k=1 query alone {t_q:.2f} s (CPU {best.cpu:.2f} s), ratio {best.cpu / c_l:.2f}x CPU ({load()})")


def bench_report(adult) -> None:
    if True:
        print("\n== report (Adult, 8 keys, 3 numeric columns, MDAV k = 3 release) ==")
        num = ["capital-gain", "capital-loss", "hours-per-week"]
        masked = adult.sdc.mdav(3, on=num)
        t_r, _ = best(lambda: sdc.report(adult, masked, on=ADULT_KEYS, numeric=num, sensitive="income"), 1)
        print(f"report incl. R-U map (MDAV k = 3, 5, 10) and 3 plots: {t_r:.2f} s (CPU {best.cpu:.2f} s, {load()})")


if __name__ == "__main__":
    main()
