"""Global recoding speed on 10M rows, and the paper's experiment (Sano & Hattori) on Adult.

    python benchmarks/bench_recode.py [--rows 10000000] [--repeat 2] [--skip-speed] [--skip-paper]

1. Speed: ``df.sdc.recode(5 columns, p=0.01)`` on a frame of ``--rows`` rows, with the five
   columns as Enum, Categorical or String. Peer: the obvious Polars version, per column
   ``value_counts`` + Fig. 1 on the table + ``replace_strict`` of the labels (checked to give
   the same values). Best of ``--repeat``; the machine has 2 shared cores, timings are noisy.
2. Fitting the multinomial logit on Adult models with 4 inputs, both with scipy's L-BFGS-B on
   one BLAS thread: the compiled one-hot objective (``fit_multinomial_onehot``) vs the numpy
   objective on the dense one-hot design of the same patterns (``fit_multinomial``). The
   optimiser itself is compared in ``bench_logit.py``.
3. The paper's experiment on Adult (complete cases of the eight categorical columns):
   Table 4 analogue (categories left for p = .01/.03/.05), Table 5 (Cramér's V),
   Table 6 (mean IL per metric by number of inputs and p, for every target and every input
   subset of education, occupation, marital-status, relationship, native-country) and the
   Table 8 analogue (the largest recall ILs at p = .05).
"""
from __future__ import annotations

import argparse
import itertools

import numpy as np
import polars as pl

import polars_sdc  # noqa: F401
from polars_sdc import datasets
from polars_sdc.recode import merge_plan, threshold

import timing  # benchmarks/timing.py: the shared best-of-n wall / CPU timer

ADULT_CATEGORICAL = [
    "workclass", "education", "marital-status", "occupation", "relationship", "race", "sex", "native-country",
]
FIVE = ["education", "occupation", "marital-status", "relationship", "native-country"]
SHORT = {"education": "E", "occupation": "O", "marital-status": "M", "relationship": "R", "native-country": "N"}
PS = (0.01, 0.03, 0.05)


def best(fn, repeat: int) -> tuple[float, object]:
    t = timing.timed(fn, repeat)
    return t.wall, t.result


def synthetic(rows: int, seed: int = 0) -> pl.DataFrame:
    """Five categorical columns with 8..60 categories and skewed (Zipf-like) frequencies."""
    rng = np.random.default_rng(seed)
    cols = {"id": np.arange(rows, dtype=np.int64)}
    for j, k in enumerate((8, 15, 22, 40, 60)):
        w = 1.0 / np.arange(1, k + 1) ** 1.6
        cats = [f"c{j}_{i:02d}" for i in range(k)]
        codes = rng.choice(k, size=rows, p=w / w.sum()).astype(np.uint8)
        cols[f"v{j}"] = pl.Series(codes).cat.to(pl.Enum(cats))
    return pl.DataFrame(cols)


def peer_recode(df: pl.DataFrame, columns: list[str], p: float) -> pl.DataFrame:
    """value_counts + the merge plan + replace_strict on the labels, column by column."""
    th = threshold(df.height, p)
    out = []
    for c in columns:
        s = df.get_column(c)
        labels = s.drop_nulls().unique(maintain_order=True).cast(pl.String).to_list()
        if isinstance(s.dtype, pl.Enum):
            order = {lab: i for i, lab in enumerate(s.dtype.categories)}
            labels.sort(key=order.__getitem__)
        vc = dict(s.cast(pl.String).value_counts().iter_rows())
        new = merge_plan(labels, [vc[lab] for lab in labels], th)
        out.append(s.cast(pl.String).replace_strict(labels, new, return_dtype=pl.String).alias(c))
    return df.with_columns(out)


def speed(rows: int, repeat: int) -> None:
    base = synthetic(rows)
    cols = [f"v{j}" for j in range(5)]
    print(f"\n1. Recoding 5 columns of {rows:,} rows, p = 0.01 (best of {repeat}; shared 2-core machine)")
    print(f"{'dtype':<12} {'categories left':>16} {'ours s':>8} {'peer s':>8} {'peer/ours':>10}")
    for name, dtype in (("Enum", None), ("Categorical", pl.Categorical), ("String", pl.String)):
        df = base if dtype is None else base.with_columns(pl.col(cols).cast(dtype))
        t_ours, ours = best(lambda: df.sdc.recode(cols, p=0.01), repeat)
        t_peer, peer = best(lambda: peer_recode(df, cols, 0.01), repeat)
        assert ours.with_columns(pl.col(cols).cast(pl.String)).equals(peer), name
        left = "/".join(str(ours[c].n_unique()) for c in cols)
        print(f"{name:<12} {left:>16} {t_ours:>8.2f} {t_peer:>8.2f} {t_peer / t_ours:>9.1f}x")


def fit_speed(data: pl.DataFrame) -> None:
    from polars_sdc.utility import _patterns, fit_multinomial, fit_multinomial_onehot

    print("\n2. Multinomial logit fits on Adult (4 inputs, in-sample patterns), l2 = 1e-4, tol = 1e-7")
    print(f"{'model':<10} {'patterns':>8} {'params':>7} {'one-hot s':>9} {'dense s':>8} {'dense/one-hot':>13} {'|d obj|/n':>10}")
    for target in ("occupation", "native-country"):
        inputs = [c for c in FIVE if c != target]
        table = data.group_by([target, *inputs]).agg(pl.len().alias("__len__"))
        table = table.with_columns(pl.col(c).cast(pl.String) for c in [target, *inputs])
        classes = sorted(table[target].unique().to_list())
        levels = {c: sorted(table[c].unique().to_list()) for c in inputs}
        idx, C, _, width = _patterns(table, target, inputs, classes, levels, None)
        X = np.zeros((idx.shape[0], width))
        for j in range(idx.shape[1]):
            r = np.flatnonzero(idx[:, j] >= 0)
            X[r, idx[r, j]] = 1.0
        fit_multinomial_onehot(idx[:5], width, C[:5], maxiter=3)  # compile outside the timing
        t_ours, a = best(lambda: fit_multinomial_onehot(idx, width, C), 1)
        t_sp, b = best(lambda: fit_multinomial(X, C), 1)
        name = f"{SHORT[target]}~{''.join(SHORT[c] for c in inputs)}"
        params = (width + 1) * (len(classes) - 1)
        diff = abs(a.objective - b.objective) / C.sum()
        print(f"{name:<10} {idx.shape[0]:>8} {params:>7} {t_ours:>9.2f} {t_sp:>8.2f} {t_sp / t_ours:>12.1f}x {diff:>10.1e}")


def paper(data: pl.DataFrame) -> None:
    n = data.height
    print(f"\n3. The paper's experiment on Adult: {n:,} complete rows of the 8 categorical columns")
    print("\nTable 4 analogue: categories left after recoding")
    print(f"{'variable':<16} {'original':>8} " + " ".join(f"{'p=' + str(p):>7}" for p in PS))
    maps = {p: data.sdc.recode_map(ADULT_CATEGORICAL, p) for p in PS}
    for c in ADULT_CATEGORICAL:
        left = [maps[p].filter(pl.col("column") == c)["recoded"].n_unique() for p in PS]
        print(f"{c:<16} {data[c].n_unique():>8} " + " ".join(f"{k:>7}" for k in left))

    print("\nTable 5 analogue: Cramér's V of the five model variables")
    V = data.sdc.cramers_v(FIVE)
    print(f"{'':<16}" + "".join(f"{SHORT[c]:>7}" for c in FIVE))
    for i, row in enumerate(V.iter_rows()):
        cells = "".join(f"{'—':>7}" if j <= i else f"{row[j + 1]:>7.3f}" for j in range(len(FIVE)))
        print(f"{FIVE[i]:<16}{cells}")

    print("\nTable 6 analogue: mean IL by number of inputs and p (every target, every input subset)")
    t = timing.timed(lambda: [data.sdc.recode_utility(target, list(inputs), p, metric=None)
                              for p in PS for target in FIVE for k in range(1, 5)
                              for inputs in itertools.combinations([c for c in FIVE if c != target], k)])
    reports, elapsed = t.result, t.wall
    rows = pl.DataFrame(
        [
            {"p": r.p, "inputs": len(r.inputs), "model": f"{SHORT[r.target]}~{''.join(SHORT[c] for c in r.inputs)}",
             **{f"il_{m}": r.il[m] for m in ("precision", "recall", "f", "accuracy")},
             "orig_accuracy": r.original["accuracy"]}
            for r in reports
        ]
    )
    for m in ("precision", "recall", "f", "accuracy"):
        print(f"\n({m})      " + " ".join(f"{'p=' + str(p):>8}" for p in PS))
        for k in range(1, 5):
            vals = [rows.filter((pl.col("p") == p) & (pl.col("inputs") == k))[f"il_{m}"].mean() for p in PS]
            print(f"inputs = {k}  " + " ".join(f"{v:>8.3f}" for v in vals))
    print(f"\n({len(reports)} pairs of models fitted in {elapsed:.1f} s)")

    print("\nTable 8 analogue: the five largest recall ILs at p = 0.05 per number of inputs")
    for k in range(1, 5):
        top = rows.filter((pl.col("p") == 0.05) & (pl.col("inputs") == k)).sort("il_recall", descending=True).head(5)
        print(f"inputs = {k}: " + ", ".join(f"{m} {v:.3f}" for m, v in top.select("model", "il_recall").iter_rows()))
    nat = rows.filter(pl.col("p") == 0.05).with_columns(pl.col("model").str.starts_with("N~").alias("nat"))
    summary = nat.group_by("nat").agg(pl.col("il_precision", "il_recall", "il_f", "il_accuracy").mean()).sort("nat")
    print("\nModels predicting native-country (dominant category) vs the others, mean IL at p = 0.05:")
    for row in summary.iter_rows(named=True):
        who = "N~..." if row["nat"] else "others"
        print(f"  {who:<7} precision {row['il_precision']:+.3f}  recall {row['il_recall']:+.3f}  "
              f"f {row['il_f']:+.3f}  accuracy {row['il_accuracy']:+.3f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--skip-speed", action="store_true")
    ap.add_argument("--skip-paper", action="store_true")
    args = ap.parse_args()
    if not args.skip_speed:
        speed(args.rows, args.repeat)
    data = datasets.adult().select(ADULT_CATEGORICAL).drop_nulls()
    if not args.skip_paper:
        fit_speed(data)
        paper(data)


if __name__ == "__main__":
    main()
