"""Is a hand-written L-BFGS worth keeping? The multinomial logit of Sano & Hattori on Adult.

    python benchmarks/bench_logit.py [--repeat 5]

Both optimisers minimise the *same* compiled objective, ``kernels.logit.onehot_objective``
(mean negative log-likelihood + l2/2 |slopes|^2 on the distinct (pattern, class) counts),
from the same start (class log odds), to the same gradient tolerance (max |g| <= 1e-7 on the
mean scale), with the same memory (20 pairs):

- ``hand``: the compiled two-loop L-BFGS with a backtracking Armijo search
  (``lbfgs_onehot`` below: the package's optimiser before this benchmark, moved here);
- ``scipy``: ``scipy.optimize.minimize(method="L-BFGS-B")`` calling the same Numba objective,
  with BLAS limited to one thread (``threadpoolctl.threadpool_limits(1)``), and once more
  without that limit (``scipy dflt``, one run, single models only: it is slow).

Workloads: the two 4-input models of ``bench_recode.py`` part 2 (occupation ~ E+M+R+N,
native-country ~ E+O+M+R) and the whole Table 6 workload at p = 0.05 (every target of
E/O/M/R/N with every input subset: 75 original-input and 75 recoded-input fits). Median of
``--repeat`` runs in one process, after a compile run; the machine is 2 shared cores, so the
numbers are noisy -- the ratio is what to read.
"""
from __future__ import annotations

import argparse
import itertools
import statistics

import numpy as np
import polars as pl
from numba import njit
from scipy.optimize import minimize
from threadpoolctl import threadpool_limits

import polars_sdc  # noqa: F401
from polars_sdc import datasets
from polars_sdc.kernels.logit import onehot_objective
from polars_sdc.recode import recode_frame
from polars_sdc.utility import _patterns, _start

import timing  # benchmarks/timing.py: the shared best-of-n wall / CPU timer

ADULT_CATEGORICAL = [
    "workclass", "education", "marital-status", "occupation", "relationship", "race", "sex", "native-country",
]
FIVE = ["education", "occupation", "marital-status", "relationship", "native-country"]
SHORT = {"education": "E", "occupation": "O", "marital-status": "M", "relationship": "R", "native-country": "N"}
L2, TOL, MAXITER, MEMORY = 1e-4, 1e-7, 5000, 20


@njit(cache=False)
def _scaled_objective(theta, idx, C, l2_sum, n):
    f, g = onehot_objective(theta, idx, C, l2_sum)
    return f / n, g / n


@njit(cache=False)
def lbfgs_onehot(theta0, idx, C, l2_sum, n, memory, gtol, maxiter):
    """(The package's optimiser until this benchmark, kept here as the peer.)
    Minimise ``onehot_objective(theta) / n`` by L-BFGS (two-loop recursion, ``memory``
    pairs) with a backtracking Armijo line search; stops when max|gradient| <= gtol.

    Also stops after 10 steps without a decrease above float resolution. Returns (theta,
    mean objective, max|gradient|, iterations). Everything stays in this
    compiled loop: no BLAS calls, whose thread start-up dominated scipy's L-BFGS-B on
    these small problems.
    """
    x = theta0.copy()
    P = x.size
    f, g = _scaled_objective(x, idx, C, l2_sum, n)
    S = np.zeros((memory, P))
    Y = np.zeros((memory, P))
    rho = np.zeros(memory)
    alpha = np.zeros(memory)
    stored = 0
    head = 0
    it = 0
    flat = 0
    gmax = np.max(np.abs(g)) if P else 0.0
    while it < maxiter and gmax > gtol:
        q = g.copy()
        for i in range(stored):
            j = (head - 1 - i) % memory
            alpha[j] = rho[j] * np.dot(S[j], q)
            q -= alpha[j] * Y[j]
        if stored > 0:
            j = (head - 1) % memory
            q *= np.dot(S[j], Y[j]) / np.dot(Y[j], Y[j])
        else:
            q *= 1.0 / max(1.0, np.sqrt(np.dot(g, g)))
        for i in range(stored - 1, -1, -1):
            j = (head - 1 - i) % memory
            b = rho[j] * np.dot(Y[j], q)
            q += S[j] * (alpha[j] - b)
        d = -q
        dg = np.dot(d, g)
        if dg >= 0.0:  # not a descent direction: restart from steepest descent
            stored = 0
            d = -g / max(1.0, np.sqrt(np.dot(g, g)))
            dg = np.dot(d, g)
        step = 1.0
        ok = False
        for _ in range(60):
            xn = x + step * d
            fn, gn = _scaled_objective(xn, idx, C, l2_sum, n)
            if fn <= f + 1e-4 * step * dg:
                ok = True
                break
            step *= 0.5
        if not ok:
            break
        s = xn - x
        y = gn - g
        sy = np.dot(s, y)
        if sy > 1e-12 * np.dot(y, y):
            S[head] = s
            Y[head] = y
            rho[head] = 1.0 / sy
            head = (head + 1) % memory
            stored = min(stored + 1, memory)
        if f - fn <= 1e-15 * max(1.0, abs(f)):
            flat += 1
        else:
            flat = 0
        x, f, g = xn, fn, gn
        gmax = np.max(np.abs(g))
        it += 1
        if flat >= 10:  # no decrease left in floating point
            break
    return x, f, gmax, it


def problem(data: pl.DataFrame, target: str, inputs: list[str]):
    table = data.group_by([target, *inputs]).agg(pl.len().alias("__len__"))
    table = table.with_columns(pl.col(c).cast(pl.String) for c in [target, *inputs])
    classes = sorted(table[target].unique().to_list())
    levels = {c: sorted(table[c].unique().to_list()) for c in inputs}
    idx, C, _, width = _patterns(table, target, inputs, classes, levels, None)
    return idx, np.ascontiguousarray(C), width


def hand(idx, C, width):
    n = float(C.sum())
    theta, f, gmax, it = lbfgs_onehot(_start(C, width), idx, C, L2 * n, n, MEMORY, TOL, MAXITER)
    return f, gmax, it


def scipy_lbfgsb(idx, C, width):
    n = float(C.sum())
    l2_sum = L2 * n

    def fun(theta):
        f, g = onehot_objective(theta, idx, C, l2_sum)
        return f / n, g / n

    res = minimize(
        fun, _start(C, width), jac=True, method="L-BFGS-B",
        options={"maxiter": MAXITER, "maxfun": 2 * MAXITER, "ftol": 1e-15, "gtol": TOL, "maxcor": MEMORY},
    )
    return float(res.fun), float(np.max(np.abs(res.jac))), int(res.nit)


def interleaved(problems, repeat):
    """Each repeat runs the whole workload with ``hand`` then with scipy (one BLAS thread), so
    both see the same machine load; returns the median times, the median of the per-repeat
    ratios and the last outputs."""
    th, ts, ratios = [], [], []
    out_h = out_s = None
    for _ in range(repeat):
        h = timing.timed(lambda: [hand(*p) for p in problems])
        with threadpool_limits(limits=1):
            s = timing.timed(lambda: [scipy_lbfgsb(*p) for p in problems])
        out_h, out_s = h.result, s.result
        th.append(h.wall)
        ts.append(s.wall)
        ratios.append(s.wall / h.wall)
    return statistics.median(th), statistics.median(ts), statistics.median(ratios), min(ratios), max(ratios), out_h, out_s


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    data = datasets.adult().select(ADULT_CATEGORICAL).drop_nulls()
    recoded = recode_frame(data, FIVE, 0.05, enum_as=pl.Categorical)
    workloads = {}
    for target in ("occupation", "native-country"):
        inputs = [c for c in FIVE if c != target]
        workloads[f"{SHORT[target]}~{''.join(SHORT[c] for c in inputs)}"] = [problem(data, target, inputs)]
    table6 = []
    for target in FIVE:
        others = [c for c in FIVE if c != target]
        for k in range(1, 5):
            for inputs in itertools.combinations(others, k):
                table6.append(problem(data, target, list(inputs)))
                table6.append(problem(recoded.with_columns(data[target]), target, list(inputs)))
    workloads[f"Table 6, p=0.05 ({len(table6)} fits)"] = table6
    # compile outside the timings
    p0 = workloads["O~EMRN"][0]
    hand(*p0)
    scipy_lbfgsb(*p0)

    print(f"Multinomial logit, l2 = {L2}, gtol = {TOL}, memory = {MEMORY}; median of {args.repeat} interleaved runs")
    print(f"{'workload':<28} {'hand s':>8} {'scipy 1 thr s':>13} {'scipy/hand (min-max)':>22} {'scipy dflt s':>12} "
          f"{'max |d obj|':>11} {'iters hand/scipy':>16}")
    for name, probs in workloads.items():
        t_h, t_s, ratio, lo, hi, out_h, out_s = interleaved(probs, args.repeat)
        t_d = timed(scipy_lbfgsb, probs) if len(probs) == 1 else float("nan")  # slow: one run
        diff = max(abs(a[0] - b[0]) for a, b in zip(out_h, out_s))
        it_h = sum(a[2] for a in out_h)
        it_s = sum(b[2] for b in out_s)
        span = f"{ratio:.2f}x ({lo:.2f}-{hi:.2f})"
        print(f"{name:<28} {t_h:>8.3f} {t_s:>13.3f} {span:>22} {t_d:>12.3f} {diff:>11.1e} {it_h:>7}/{it_s:<8}")


def timed(fn, problems):
    return timing.timed(lambda: [fn(*p) for p in problems]).wall


if __name__ == "__main__":
    main()
