"""Model-based utility of a recoded release (seed 002): multinomial logistic regression,
macro precision / recall / F and accuracy, the information loss of eq. (6), Cramér's V (7).

eq. (6): ``IL = M(x_i, f(X_sub)) - M(x_i, f_G(X_sub,G))`` where ``f`` is a multinomial
logit predicting the original target ``x_i`` from original inputs and ``f_G`` the same model
on the recoded inputs (the target is never recoded).

The model (section 4.3) is fitted by maximum likelihood with L-BFGS and an analytic
gradient (a compiled loop for categorical designs, :func:`fit_multinomial_onehot`; scipy's
L-BFGS-B for a dense design, :func:`fit_multinomial`), the first class as baseline (as R's ``nnet::multinom``), inputs one-hot coded with
the first level (sorted labels) as reference, and a small L2 penalty ``l2 / 2 * |beta|^2``
(added to the *mean* negative log-likelihood, default l2 = 1e-4) on the slopes, never the
intercepts, that keeps separated categories finite. The likelihood
depends on the data only through the counts of (input pattern, class), so rows are grouped
with Polars first and the optimiser works on distinct patterns: fast for categorical data.

Metrics from the confusion matrix ``G`` (rows: true class, columns: predicted class), as
the paper's prose defines them (its formulas swap the row and column totals):
precision_a = G_aa / (column total, predicted a), recall_a = G_aa / (row total, truly a),
F_a = harmonic mean, accuracy = trace / total; macro = plain mean over classes.
A per-class value that is 0/0 (precision of a class never predicted, recall of a class
absent from the truth, F when either is) is *left out* of its mean (``undefined="skip"``,
the default: this reproduces the paper's negative precision/F losses when recoding makes a
dominant class predicted for everyone) or counted as 0 (``undefined="zero"``).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import numpy as np
import polars as pl

from ._columns import ColumnSpec, resolve_columns
from ._errors import SDCError

METRICS = ("precision", "recall", "f", "accuracy")


# -- multinomial logit ---------------------------------------------------------------------
@dataclass(frozen=True)
class LogitFit:
    """A fitted multinomial logit: ``intercept`` (K-1,), ``coef`` (d, K-1) for classes
    1..K-1 against class 0; ``objective`` is the penalised negative log-likelihood."""

    intercept: np.ndarray
    coef: np.ndarray
    objective: float
    loglik: float
    n_iter: int
    converged: bool

    def decision(self, X: np.ndarray) -> np.ndarray:
        """Linear predictors (n, K) of a dense design X (n, d), class 0 fixed at 0."""
        eta = np.asarray(X, dtype=np.float64) @ self.coef + self.intercept
        return np.hstack([np.zeros((eta.shape[0], 1)), eta])

    def decision_onehot(self, idx: np.ndarray) -> np.ndarray:
        """Linear predictors (n, K) of a one-hot design given by the column of each input's
        level (-1 for a reference level), as used by :func:`fit_multinomial_onehot`."""
        padded = np.vstack([self.coef, np.zeros((1, self.coef.shape[1]))])
        idx = np.asarray(idx, dtype=np.int64)
        eta = np.tile(self.intercept, (idx.shape[0], 1))
        for j in range(idx.shape[1]):
            eta += padded[idx[:, j]]
        return np.hstack([np.zeros((idx.shape[0], 1)), eta])

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        """Class probabilities (softmax of :meth:`decision`)."""
        eta = self.decision(X)
        eta -= eta.max(axis=1, keepdims=True)
        P = np.exp(eta)
        return P / P.sum(axis=1, keepdims=True)

    def predict(self, X: np.ndarray) -> np.ndarray:
        """``argmax_j p(z = j)`` (ties: the lowest class index)."""
        return np.argmax(self.decision(X), axis=1)

    def __repr__(self) -> str:
        d, k = self.coef.shape
        return (
            f"LogitFit(classes={k + 1}, inputs={d}, loglik={self.loglik:.6g}, "
            f"n_iter={self.n_iter}, converged={self.converged})"
        )


def logit_objective(theta: np.ndarray, X: np.ndarray, C: np.ndarray, l2: float) -> tuple[float, np.ndarray]:
    """Penalised negative log-likelihood of the multinomial logit and its gradient (dense X).

    ``theta`` stacks the intercepts (row 0) and slopes of classes 1..K-1, shape (d+1)(K-1);
    ``C`` (U, K) holds the count of each class among the rows with pattern ``X[u]``:
    ``f = -sum_u sum_k C_uk log p_uk + l2/2 |beta|^2``, ``p_u = softmax(0, a + X_u B)``.

    >>> f, g = logit_objective(np.zeros(2), np.array([[0.0], [1.0]]), np.array([[1.0, 1.0], [2.0, 0.0]]), 0.0)
    >>> round(float(f / np.log(2)), 6), g.tolist()
    (4.0, [1.0, 1.0])
    """
    U, d = X.shape
    K = C.shape[1]
    W = theta.reshape(d + 1, K - 1)
    eta = np.empty((U, K))
    eta[:, 0] = 0.0
    eta[:, 1:] = X @ W[1:] + W[0]
    m = eta.max(axis=1, keepdims=True)
    Z = np.exp(eta - m)
    s = Z.sum(axis=1, keepdims=True)
    lse = (m + np.log(s)).ravel()
    N = C.sum(axis=1)
    f = float(N @ lse - np.sum(C * eta)) + 0.5 * l2 * float(np.sum(W[1:] ** 2))
    R = (Z[:, 1:] / s) * N[:, None] - C[:, 1:]  # residual counts, classes 1..K-1
    G = np.empty_like(W)
    G[0] = R.sum(axis=0)
    G[1:] = X.T @ R + l2 * W[1:]
    return f, G.ravel()


def _check_counts(C: np.ndarray, rows: int, l2: float) -> np.ndarray:
    C = np.ascontiguousarray(C, dtype=np.float64)
    if C.ndim != 2 or C.shape[0] != rows:
        raise SDCError(f"counts of shape {C.shape} do not match {rows} design rows")
    if C.shape[1] < 2:
        raise SDCError("the target needs at least two classes for a multinomial logit")
    if l2 < 0:
        raise SDCError(f"l2 must be >= 0, got {l2}")
    return C


def _start(C: np.ndarray, d: int) -> np.ndarray:
    """Zero slopes and intercepts at the log odds of the (smoothed) class shares."""
    K = C.shape[1]
    theta0 = np.zeros((d + 1) * (K - 1))
    share = C.sum(axis=0) + 0.5
    theta0[: K - 1] = np.log(share[1:] / share[0])
    return theta0


def _lbfgs(objective, d: int, C: np.ndarray, l2: float, tol: float, maxiter: int) -> LogitFit:
    """Minimise ``objective(theta, l2_sum) / n`` (mean scale) from the class log odds."""
    from scipy.optimize import minimize

    K = C.shape[1]
    n = max(float(C.sum()), 1.0)
    theta0 = _start(C, d)
    l2_sum = l2 * n

    def fun(theta: np.ndarray) -> tuple[float, np.ndarray]:
        f, g = objective(theta, l2_sum)
        return f / n, g / n

    res = minimize(
        fun, theta0, jac=True, method="L-BFGS-B",
        options={"maxiter": maxiter, "maxfun": 2 * maxiter, "ftol": 1e-15, "gtol": tol, "maxcor": 20},
    )
    W = res.x.reshape(d + 1, K - 1)
    obj = float(res.fun * n)
    penalty = 0.5 * l2_sum * float(np.sum(W[1:] ** 2))
    converged = bool(res.success) or float(np.max(np.abs(res.jac), initial=0.0)) <= 10 * tol
    return LogitFit(W[0].copy(), W[1:].copy(), obj, -(obj - penalty), int(res.nit), converged)


def fit_multinomial(
    X: np.ndarray,
    counts: np.ndarray,
    *,
    l2: float = 1e-4,
    tol: float = 1e-7,
    maxiter: int = 5000,
) -> LogitFit:
    """Maximum-likelihood multinomial logit (seed 002 section 4.3) by L-BFGS, analytic gradient.

    ``X`` (U, d) is the design of each row or pattern (no intercept column), ``counts``
    (U, K) the number of observations of each class with that pattern (a one-hot matrix for
    plain rows). Minimises the mean negative log-likelihood plus ``l2/2 |slopes|^2``;
    ``tol`` bounds the final gradient on that mean scale.

    >>> X = np.array([[0.0], [1.0]])
    >>> fit = fit_multinomial(X, np.array([[3.0, 1.0], [1.0, 3.0]]), l2=0.0, tol=1e-10)
    >>> np.round(fit.predict_proba(X)[:, 1], 6).tolist()
    [0.25, 0.75]
    """
    X = np.ascontiguousarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise SDCError(f"the design must be a 2-d array, got shape {X.shape}")
    C = _check_counts(counts, X.shape[0], l2)
    return _lbfgs(lambda th, lam: logit_objective(th, X, C, lam), X.shape[1], C, l2, tol, maxiter)


def fit_multinomial_onehot(
    idx: np.ndarray,
    n_columns: int,
    counts: np.ndarray,
    *,
    l2: float = 1e-4,
    tol: float = 1e-7,
    maxiter: int = 5000,
) -> LogitFit:
    """:func:`fit_multinomial` for a one-hot design given as ``idx`` (U, m): the design
    column (0..n_columns-1) of each input's level, -1 for a reference level. The likelihood
    (O(U m K)) and the L-BFGS loop are compiled in :mod:`polars_sdc.kernels.logit`; on small
    problems this is several times faster than scipy's L-BFGS-B (whose BLAS calls dominate)
    and reaches the same optimum (tests compare the two).

    >>> idx = np.array([[-1], [0]])
    >>> fit = fit_multinomial_onehot(idx, 1, np.array([[3.0, 1.0], [1.0, 3.0]]), l2=0.0, tol=1e-10)
    >>> np.round(fit.decision_onehot(idx)[:, 1], 5).tolist()   # log odds log(1/3), log 3
    [-1.09861, 1.09861]
    """
    from .kernels.logit import lbfgs_onehot

    idx = np.ascontiguousarray(idx, dtype=np.int64)
    if idx.ndim != 2 or (idx.size and (idx.max() >= n_columns or idx.min() < -1)):
        raise SDCError(f"idx must be a 2-d array of columns in -1..{n_columns - 1}")
    C = _check_counts(counts, idx.shape[0], l2)
    K = C.shape[1]
    n = max(float(C.sum()), 1.0)
    theta, f, gmax, it = lbfgs_onehot(_start(C, n_columns), idx, C, l2 * n, n, 20, tol, maxiter)
    W = theta.reshape(n_columns + 1, K - 1)
    obj = float(f * n)
    penalty = 0.5 * l2 * n * float(np.sum(W[1:] ** 2))
    converged = gmax <= max(tol, 1e-6) if it < maxiter else gmax <= tol  # or stalled at float resolution
    return LogitFit(W[0].copy(), W[1:].copy(), obj, -(obj - penalty), int(it), bool(converged))


# -- metrics -------------------------------------------------------------------------------
def confusion_matrix(y_true: np.ndarray, y_pred: np.ndarray, n_classes: int, weights: np.ndarray | None = None) -> np.ndarray:
    """``G[a, b]`` = (weighted) number of rows of true class a predicted as b (Table 3).

    >>> confusion_matrix(np.array([0, 0, 1]), np.array([0, 1, 1]), 2).tolist()
    [[1.0, 1.0], [0.0, 1.0]]
    """
    G = np.zeros((n_classes, n_classes))
    w = np.ones(len(y_true)) if weights is None else np.asarray(weights, dtype=np.float64)
    np.add.at(G, (np.asarray(y_true), np.asarray(y_pred)), w)
    return G


def classification_metrics(G: np.ndarray, *, undefined: str = "skip") -> dict[str, float]:
    """Macro precision, macro recall, macro F and accuracy of a confusion matrix (section 4.4,
    standard definitions); ``undefined`` says what a 0/0 per-class value does (module doc).

    >>> m = classification_metrics(np.array([[5.0, 0.0], [5.0, 0.0]]))   # class 1 never predicted
    >>> m["precision"], m["recall"], m["accuracy"]
    (0.5, 0.5, 0.5)
    >>> classification_metrics(np.array([[5.0, 0.0], [5.0, 0.0]]), undefined="zero")["precision"]
    0.25
    """
    if undefined not in ("skip", "zero"):
        raise SDCError(f"undefined must be 'skip' or 'zero', got {undefined!r}")
    G = np.asarray(G, dtype=np.float64)
    tp = np.diag(G)
    predicted = G.sum(axis=0)
    actual = G.sum(axis=1)
    total = G.sum()
    with np.errstate(divide="ignore", invalid="ignore"):
        prec = np.where(predicted > 0, tp / predicted, np.nan)
        rec = np.where(actual > 0, tp / actual, np.nan)
        denom = prec + rec
        f = np.where(denom > 0, 2 * prec * rec / denom, np.where(np.isnan(denom), np.nan, 0.0))
    occurring = (predicted > 0) | (actual > 0)

    def mean(v: np.ndarray) -> float:
        if undefined == "zero":
            v = np.where(np.isnan(v), 0.0, v)[occurring]
        else:
            v = v[~np.isnan(v)]
        return float(v.mean()) if v.size else float("nan")

    return {
        "precision": mean(prec),
        "recall": mean(rec),
        "f": mean(f),
        "accuracy": float(tp.sum() / total) if total > 0 else float("nan"),
    }


# -- model-based information loss ----------------------------------------------------------
@dataclass(frozen=True)
class UtilityReport:
    """Metrics of the original-input model, the recoded-input model and IL = original -
    recoded (eq. 6) for one target, input set and p."""

    target: str
    inputs: tuple[str, ...]
    p: float
    n: int
    original: dict = field(repr=False)
    recoded: dict = field(repr=False)
    il: dict = field(repr=False)

    def to_frame(self) -> pl.DataFrame:
        """One row per metric: ``metric``, ``original``, ``recoded``, ``il`` (eq. 6).

        >>> import polars as pl
        >>> df = pl.DataFrame({"x": ["u"] * 12 + ["v"] * 10 + ["w"] * 8,
        ...                    "y": ["a"] * 12 + ["b"] * 10 + ["a"] * 5 + ["b"] * 3})
        >>> recode_utility(df, "y", "x", 0.3, metric=None).to_frame()["metric"].to_list()
        ['precision', 'recall', 'f', 'accuracy']
        """
        return pl.DataFrame(
            {
                "metric": list(METRICS),
                "original": [self.original[m] for m in METRICS],
                "recoded": [self.recoded[m] for m in METRICS],
                "il": [self.il[m] for m in METRICS],
            }
        )

    def __repr__(self) -> str:
        ils = ", ".join(f"{m}={self.il[m]:.4f}" for m in METRICS)
        return f"UtilityReport({self.target} ~ {' + '.join(self.inputs)}, p={self.p}, n={self.n}: IL {ils})"


def _codes(values: pl.Series, levels: list[str]) -> np.ndarray:
    index = {lab: i for i, lab in enumerate(levels)}
    return np.fromiter((index[v] for v in values.to_list()), dtype=np.int64, count=values.len())


def _patterns(table: pl.DataFrame, target: str, inputs: list[str], classes: list[str], levels: dict[str, list[str]], split: str | None):
    """One-hot positions (U, m), class counts (U, K), split flag (U,) and the number of
    design columns for the distinct patterns of a small grouped table (one row per distinct
    (split, inputs, target) with its count ``__len__``)."""
    t = _codes(table.get_column(target), classes)
    cols = [_codes(table.get_column(c), levels[c]) for c in inputs]
    flag = table.get_column(split).to_numpy().astype(np.int64) if split else np.zeros(table.height, np.int64)
    keys = np.column_stack([flag, *cols]) if cols else flag[:, None]
    uniq, inverse = np.unique(keys, axis=0, return_inverse=True)
    inverse = inverse.ravel()
    C = np.zeros((uniq.shape[0], len(classes)))
    np.add.at(C, (inverse, t), table.get_column("__len__").to_numpy().astype(np.float64))
    idx = np.full((uniq.shape[0], len(inputs)), -1, dtype=np.int64)
    off = 0
    for j, c in enumerate(inputs):
        code = uniq[:, j + 1]
        idx[:, j] = np.where(code > 0, off + code - 1, -1)
        off += len(levels[c]) - 1
    return idx, C, uniq[:, 0].astype(bool), off


def model_metrics(
    df: pl.DataFrame,
    target: str,
    inputs: Sequence[str],
    *,
    test: pl.Series | None = None,
    l2: float = 1e-4,
    tol: float = 1e-7,
    undefined: str = "skip",
    classes: list[str] | None = None,
) -> dict[str, float]:
    """Metrics (section 4.4) of a multinomial logit predicting ``target`` from categorical
    ``inputs`` (in-sample, or fitted on rows with ``test`` False and scored on rows with it True).

    >>> import polars as pl
    >>> df = pl.DataFrame({"x": ["u", "u", "v", "v"] * 5, "y": ["a", "a", "b", "a"] * 5})
    >>> model_metrics(df, "y", ["x"])["accuracy"]
    0.75
    """
    inputs = list(inputs)
    split = None
    frame = df.select(target, *inputs)
    if test is not None:
        split = "__test__"
        frame = frame.with_columns(test.alias(split))
    keys = ([split] if split else []) + [target, *inputs]
    table = frame.group_by(keys).agg(pl.len().alias("__len__"))
    table = table.with_columns(pl.col(c).cast(pl.String) for c in [target, *inputs])
    if classes is None:
        classes = sorted(table.get_column(target).unique().to_list())
    levels = {c: sorted(table.get_column(c).unique().to_list()) for c in inputs}
    idx, C, is_test, width = _patterns(table, target, inputs, classes, levels, split)
    train = ~is_test
    fit = fit_multinomial_onehot(idx[train], width, C[train], l2=l2, tol=tol)
    rows = is_test if split else train
    pred = np.argmax(fit.decision_onehot(idx[rows]), axis=1)  # ties: lowest class index
    Cr = C[rows]
    K = len(classes)
    G = np.zeros((K, K))
    np.add.at(G.T, pred, Cr)  # G[a, pred_u] += C[u, a]
    return classification_metrics(G, undefined=undefined)


def recode_utility(
    df: pl.DataFrame,
    target: str,
    inputs: ColumnSpec,
    p: float,
    *,
    metric: str | None = "recall",
    sep: str = "・",
    test_size: float | None = None,
    seed: int = 0,
    l2: float = 1e-4,
    undefined: str = "skip",
) -> float | UtilityReport:
    """Model-based information loss of minimum-frequency recoding (seed 002, eq. 6).

    Rows with a null in ``target`` or ``inputs`` are dropped (complete cases, as R's
    ``multinom``); the inputs are recoded with ``p`` on those rows (th = rows * p); the
    target keeps its original categories. Both models are scored in-sample (as in the paper)
    or, with ``test_size``, fitted on a random split (``seed``) and scored on the rest.
    ``metric`` in precision / recall / f / accuracy gives that IL as a float; ``None`` gives
    a :class:`UtilityReport` with every metric. The paper recommends recall.

    >>> import polars as pl
    >>> df = pl.DataFrame({"x": ["u"] * 12 + ["v"] * 10 + ["w"] * 8,
    ...                    "y": ["a"] * 12 + ["b"] * 10 + ["a"] * 5 + ["b"] * 3})
    >>> recode_utility(df, "y", "x", 0.3, metric=None).to_frame()["recoded"].round(4).to_list()
    [0.8611, 0.8529, 0.8331, 0.8333]
    >>> round(recode_utility(df, "y", "x", 0.3), 6)   # w merges into v: (1 + 10/13)/2 - (12/17 + 1)/2
    0.031674
    """
    from .recode import check_p, recode_frame

    check_p(p)
    if metric is not None and metric not in METRICS:
        raise SDCError(f"metric must be one of {', '.join(METRICS)} or None, got {metric!r}")
    target = resolve_columns(df, target, kind="categorical", what="target", default="error")[0]
    inputs = resolve_columns(df, inputs, kind="categorical", what="inputs", default="error")
    if target in inputs:
        raise SDCError(f"column {target!r}: the target cannot also be an input")
    data = df.select(target, *inputs).drop_nulls()
    if data.height == 0:
        raise SDCError(f"column {target!r}: no complete rows among the target and the inputs")
    classes = sorted(data.get_column(target).cast(pl.String).unique().to_list())
    if len(classes) < 2:
        raise SDCError(f"column {target!r}: the target has a single category; nothing to predict")
    test = None
    if test_size is not None:
        if not (0.0 < float(test_size) < 1.0):
            raise SDCError(f"test_size must be strictly between 0 and 1, got {test_size!r}")
        n_test = int(round(data.height * float(test_size)))
        if n_test < 1 or n_test >= data.height:
            raise SDCError(f"test_size {test_size} leaves an empty train or test set of {data.height} rows")
        mask = np.zeros(data.height, dtype=bool)
        mask[np.random.default_rng(seed).permutation(data.height)[:n_test]] = True
        test = pl.Series("__test__", mask)
    recoded = recode_frame(data, inputs, p, sep=sep, enum_as=pl.Categorical)
    opts = dict(test=test, l2=l2, undefined=undefined, classes=classes)
    m0 = model_metrics(data, target, inputs, **opts)
    m1 = model_metrics(recoded, target, inputs, **opts)
    il = {m: m0[m] - m1[m] for m in METRICS}
    if metric is not None:
        return il[metric]
    return UtilityReport(target, tuple(inputs), float(p), data.height, m0, m1, il)


# -- Cramér's V ----------------------------------------------------------------------------
def cramers_v_pair(df: pl.DataFrame, a: str, b: str) -> float | None:
    """Cramér's V (eq. 7) of two columns over rows where both are non-null:
    ``sqrt(chi2 / (n (min(q, r) - 1)))``; None when a column has a single category.
    Counting is one Polars group_by; chi2 = n (sum n_ij^2 / (n_i. n_.j) - 1).

    >>> import polars as pl
    >>> cramers_v_pair(pl.DataFrame({"a": ["x", "x", "y", "y"], "b": [1, 1, 2, 2]}), "a", "b")
    1.0
    """
    t = df.select(a, b).drop_nulls().group_by(a, b).agg(pl.len().cast(pl.Float64).alias("__n__"))
    if t.height == 0:
        return None
    s = t.select(
        pl.col("__n__").sum().alias("n"),
        pl.col(a).n_unique().alias("q"),
        pl.col(b).n_unique().alias("r"),
        (pl.col("__n__") ** 2 / (pl.col("__n__").sum().over(a) * pl.col("__n__").sum().over(b))).sum().alias("s"),
    ).row(0, named=True)
    k = min(s["q"], s["r"])
    if k < 2:
        return None
    chi2 = max(s["n"] * (s["s"] - 1.0), 0.0)
    return float(min(np.sqrt(chi2 / (s["n"] * (k - 1))), 1.0))


def cramers_v(df: pl.DataFrame, columns: ColumnSpec = None) -> pl.DataFrame:
    """Cramér's V for every pair of ``columns`` (default: every String/Categorical/Enum
    column) as a symmetric matrix frame: a ``column`` name column then one Float64 column per
    variable; the diagonal is 1 (null for a single-category column), like Table 5.

    >>> import polars as pl
    >>> df = pl.DataFrame({"a": ["x", "x", "y", "y"], "b": ["u", "v", "u", "v"]})
    >>> cramers_v(df).rows()
    [('a', 1.0, 0.0), ('b', 0.0, 1.0)]
    """
    if columns is None:
        from ._columns import is_categorical

        columns = [c for c, t in df.schema.items() if is_categorical(t)]
    cols = resolve_columns(df, columns, kind="supported", what="columns", default="error")
    V = {(c, c): (1.0 if df.get_column(c).drop_nulls().n_unique() >= 2 else None) for c in cols}
    for a, b in combinations(cols, 2):
        V[a, b] = V[b, a] = cramers_v_pair(df, a, b)
    data: dict[str, Any] = {"column": cols}
    for b in cols:
        data[b] = [V[a, b] for a in cols]
    return pl.DataFrame(data, schema={"column": pl.String, **{c: pl.Float64 for c in cols}})


__all__ = [
    "LogitFit",
    "METRICS",
    "UtilityReport",
    "classification_metrics",
    "confusion_matrix",
    "cramers_v",
    "cramers_v_pair",
    "fit_multinomial",
    "fit_multinomial_onehot",
    "logit_objective",
    "model_metrics",
    "recode_utility",
]
