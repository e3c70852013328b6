"""The multinomial logit of Sano & Hattori (section 4.3), fitted by maximum likelihood.

The first class is the baseline (as R's ``nnet::multinom``); a small L2 penalty
``l2 / 2 * |beta|^2`` (added to the *mean* negative log-likelihood, default l2 = 1e-4) on the
slopes, never the intercepts, keeps separated categories finite. The likelihood depends on
the data only through the counts of (input pattern, class), so the optimiser works on
distinct patterns: :func:`fit_multinomial` for a dense design (scipy's L-BFGS-B on
:func:`logit_objective`), :func:`fit_multinomial_onehot` for a one-hot design given by
column positions (compiled likelihood in :mod:`polars_sdc.kernels.logit`).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._errors import SDCError


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


_CONTROLLER: list = []


def _one_blas_thread():
    """Limit BLAS to one thread while L-BFGS-B runs: its small matrix products pay a thread
    start-up per call, which on a busy machine made the default threads 5-20x slower
    (``benchmarks/bench_logit.py``). The controller is built once (a scan of the loaded
    libraries, about 13 ms); entering its limit costs microseconds."""
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:  # pragma: no cover - threadpoolctl is a dependency
        import contextlib

        return contextlib.nullcontext()
    if not _CONTROLLER:
        _CONTROLLER.append(ThreadpoolController())
    return _CONTROLLER[0].limit(limits=1, user_api="blas")


def _lbfgs(objective, d: int, C: np.ndarray, l2: float, tol: float, maxiter: int) -> LogitFit:
    """Minimise ``objective(theta, l2_sum) / n`` (mean scale) from the class log odds with
    scipy's L-BFGS-B (20 correction pairs, BLAS on one thread)."""
    from scipy.optimize import minimize

    K = C.shape[1]
    n = max(float(C.sum()), 1.0)
    theta0 = _start(C, d)
    l2_sum = l2 * n

    def fun(theta: np.ndarray) -> tuple[float, np.ndarray]:
        f, g = objective(theta, l2_sum)
        return f / n, g / n

    with _one_blas_thread():
        res = minimize(
            fun, theta0, jac=True, method="L-BFGS-B",
            options={"maxiter": maxiter, "maxfun": 2 * maxiter, "ftol": 1e-15, "gtol": tol, "maxcor": 20},
        )
    W = res.x.reshape(d + 1, K - 1)
    obj = float(res.fun * n)
    penalty = 0.5 * l2_sum * float(np.sum(W[1:] ** 2))
    # a line search that finds no decrease left in floating point with a gradient this small
    # has reached the optimum to float resolution
    converged = bool(res.success) or float(np.max(np.abs(res.jac), initial=0.0)) <= max(10 * tol, 1e-6)
    return LogitFit(W[0].copy(), W[1:].copy(), obj, -(obj - penalty), int(res.nit), converged)


def fit_multinomial(
    X: np.ndarray,
    counts: np.ndarray,
    *,
    l2: float = 1e-4,
    tol: float = 1e-7,
    maxiter: int = 5000,
) -> LogitFit:
    """Maximum-likelihood multinomial logit (Sano & Hattori, section 4.3) by L-BFGS, analytic gradient.

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
    and its gradient (O(U m K) instead of the dense O(U d K)) are compiled in
    :mod:`polars_sdc.kernels.logit`; the optimiser is the same scipy L-BFGS-B. A hand-written
    compiled L-BFGS on this same objective was 1.0-1.6x faster per fit than scipy's with BLAS
    on one thread, and about 2x on a sweep of 150 small fits (``benchmarks/bench_logit.py``),
    so it was dropped.

    >>> idx = np.array([[-1], [0]])
    >>> fit = fit_multinomial_onehot(idx, 1, np.array([[3.0, 1.0], [1.0, 3.0]]), l2=0.0, tol=1e-10)
    >>> np.round(fit.decision_onehot(idx)[:, 1], 5).tolist()   # log odds log(1/3), log 3
    [-1.09861, 1.09861]
    """
    from ..kernels.logit import onehot_objective

    idx = np.ascontiguousarray(idx, dtype=np.int64)
    if idx.ndim != 2 or (idx.size and (idx.max() >= n_columns or idx.min() < -1)):
        raise SDCError(f"idx must be a 2-d array of columns in -1..{n_columns - 1}")
    C = _check_counts(counts, idx.shape[0], l2)
    return _lbfgs(lambda th, lam: onehot_objective(th, idx, C, lam), n_columns, C, l2, tol, maxiter)
