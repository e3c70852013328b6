"""Reconstructing the distribution of Laplace-perturbed data (seed 004).

The released values are ``y = x + e`` with ``e ~ Laplace(0, phi)`` per column. Assuming
``x`` follows a Gaussian mixture, the noisy values follow the mixture convolved with the
Laplace density (eq. 6/8); its maximum-likelihood parameters (eq. 9) recover the
distribution of ``x`` -- density, cross tables, a synthetic sample, a clustering -- from the
noisy data alone.

- :func:`convolved_logpdf`: eq. 8 in log space (``scipy.special.log_ndtr`` / ``erfcx``).
- :func:`fit_gmm`: two EM fitters on numpy arrays. ``method="gem"`` is the paper's
  generalised EM (Algorithm 1: ``rho = N_l/N``, gradient steps on mu and sigma with learning
  rate ``alpha``; the step is halved whenever it would lower the likelihood). ``"exact"`` is
  an exact EM: given y and a component, x is a two-piece truncated normal whose moments give
  closed-form updates, so the likelihood never decreases and there is no learning rate.
  Several starts, ``K`` a range picked by BIC (or by the likelihood as in the paper), a
  histogram option for large N, the diagonal multi-D model (eq. 19) and Algorithm 2
  (``model="rotated"``: per-component PCA rotation).
- :func:`fit_ibt`: the Iterative Bayesian Technique baseline on a discretised domain.
- :func:`l1_accuracy`: the paper's score, 100 for equal histograms, 0 for disjoint ones.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import polars as pl
from scipy import special

from ._columns import ColumnSpec, numeric_matrix, resolve_columns
from ._errors import SDCError
from .noise import phi_vector

_SQRT2 = math.sqrt(2.0)


# ---------------------------------------------------------------------------------------
# the convolved density (eq. 8)
# ---------------------------------------------------------------------------------------
def _log_half(t: np.ndarray, a: np.ndarray) -> np.ndarray:
    """log[exp(a^2/2 - t a) Phi(t - a)], the part of eq. 8 where x <= y."""
    u = t - a
    far = u < -1.0
    out = np.empty(np.broadcast(t, a).shape)
    tt, aa, uu = np.broadcast_arrays(t, a, u)
    # Phi(u) = erfcx(-u/sqrt2) exp(-u^2/2) / 2: the exp factors cancel exactly
    out[far] = -0.5 * tt[far] ** 2 + np.log(0.5 * special.erfcx(-uu[far] / _SQRT2))
    near = ~far
    out[near] = aa[near] * (0.5 * aa[near] - tt[near]) + special.log_ndtr(uu[near])
    return out


def convolved_logpdf(y: Any, mean: float, var: float, phi: float) -> np.ndarray:
    """Log-density of ``y = x + e`` with ``x ~ N(mean, var)``, ``e ~ Laplace(0, phi)`` (eq. 8).

    ``f = 1/(4 phi) [exp((s2 + 2 phi mu - 2 phi y)/(2 phi^2)) erfc((s2 + phi mu - phi y)/(sqrt2 phi s))
    + exp((s2 - 2 phi mu + 2 phi y)/(2 phi^2)) erfc((s2 - phi mu + phi y)/(sqrt2 phi s))]``,
    evaluated in log space so it stays finite for tiny phi and far tails.

    >>> float(np.round(np.exp(convolved_logpdf(0.0, 0.0, 1.0, 1e-9)), 6))  # ~ N(0, 1) at 0
    0.398942
    >>> bool(np.isfinite(convolved_logpdf(1e3, 0.0, 1e-4, 1.0)))
    True
    """
    y = np.asarray(y, dtype=np.float64)
    s = math.sqrt(var)
    t = (y - mean) / s
    a = np.float64(s / phi)
    return np.logaddexp(_log_half(t, a), _log_half(-t, a)) - math.log(2.0 * phi)


# ---------------------------------------------------------------------------------------
# L1 accuracy
# ---------------------------------------------------------------------------------------
def _probabilities(p: Any, name: str) -> np.ndarray:
    if isinstance(p, (pl.Series, pl.DataFrame)):
        p = p.to_numpy()
    arr = np.asarray(p, dtype=np.float64)
    if arr.size == 0:
        raise SDCError(f"`{name}`: empty histogram")
    if not np.all(np.isfinite(arr)):
        raise SDCError(f"`{name}`: NaN or infinite entries")
    if np.any(arr < 0):
        raise SDCError(f"`{name}`: negative entries; a histogram of probabilities or counts is needed")
    total = arr.sum()
    if total <= 0:
        raise SDCError(f"`{name}`: all entries are zero")
    return arr / total


def l1_accuracy(p: Any, q: Any) -> float:
    """The paper's L1 accuracy of two histograms on the same bins (seed 004, section 5):
    ``100 * (1 - 0.5 * sum_b |p_b - q_b|)``: 100 when equal, 0 when they share no mass.

    ``p`` and ``q`` are probabilities or counts (each is normalised to sum 1), of any equal
    shape (cross tables too).

    >>> l1_accuracy([0.5, 0.5, 0.0], [0.25, 0.5, 0.25])
    75.0
    >>> l1_accuracy([3, 1], [0, 2])
    25.0
    """
    a = _probabilities(p, "p")
    b = _probabilities(q, "q")
    if a.shape != b.shape:
        raise SDCError(f"histograms of different shapes: {a.shape} and {b.shape}")
    return float(100.0 * (1.0 - 0.5 * np.abs(a - b).sum()))


# ---------------------------------------------------------------------------------------
# argument checks
# ---------------------------------------------------------------------------------------
def _k_values(K: Any, n: int) -> list[int]:
    if isinstance(K, (range, Sequence, np.ndarray)) and not isinstance(K, (str, bytes)):
        ks = list(K)
        if not ks:
            raise SDCError("K: an empty range of component counts")
    else:
        ks = [K]
    out = []
    for k in ks:
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
            raise SDCError(f"K must be an integer number of components, got {k!r}")
        if k < 1:
            raise SDCError(f"K must be >= 1, got {k}")
        if k > n:
            raise SDCError(f"K = {k} is larger than the number of records ({n})")
        out.append(int(k))
    return out


# ---------------------------------------------------------------------------------------
# the fitted mixture
# ---------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class GMMFit:
    """A Gaussian mixture reconstructed from Laplace-perturbed data (seed 004).

    ``weights`` (K,), ``means`` and ``variances`` (K,) for one column or (K, d); with
    ``model="rotated"`` (Algorithm 2) ``variances`` are along each component's own axes,
    ``rotations[l]`` (d, d) holds those axes as columns and ``covariances`` the full matrices.
    ``loglik`` is the log-likelihood of the noisy data (eq. 13), ``bic = -2 loglik + p ln N``;
    ``n_iter`` counts the passes over the records of the final fit (``history`` holds the
    log-likelihood after each accepted step), ``n_prefit`` the passes of the other starts and
    of the histogram prefit; ``scores`` has ``(K, loglik, bic)`` for every K tried.
    """

    columns: tuple[str, ...]
    phi: tuple[float, ...]
    weights: np.ndarray
    means: np.ndarray
    variances: np.ndarray
    loglik: float
    bic: float
    n_iter: int
    converged: bool
    method: str = "exact"
    model: str = "diagonal"
    n_obs: int = 0
    rotations: np.ndarray | None = None
    history: tuple[float, ...] = field(default=(), repr=False)
    scores: tuple[tuple[int, float, float], ...] = field(default=(), repr=False)
    n_prefit: int = 0

    # -- shapes ----------------------------------------------------------------------
    @property
    def K(self) -> int:
        return int(self.weights.shape[0])

    @property
    def d(self) -> int:
        return len(self.columns)

    def _mu(self) -> np.ndarray:
        return np.asarray(self.means, dtype=np.float64).reshape(self.K, self.d)

    def _var(self) -> np.ndarray:
        return np.asarray(self.variances, dtype=np.float64).reshape(self.K, self.d)

    def _rot(self) -> np.ndarray:
        if self.rotations is None:
            return np.broadcast_to(np.eye(self.d), (self.K, self.d, self.d))
        return self.rotations

    @property
    def covariances(self) -> np.ndarray:
        """(K, d, d) covariance matrices of the reconstructed components."""
        R = self._rot()
        return np.einsum("kij,kj,klj->kil", R, self._var(), R)

    def __repr__(self) -> str:
        rows = ", ".join(f"{w:.3f}" for w in self.weights)
        # passes of the other starts / the histogram prefit, so "n_iter=1" after a prefit
        # does not read as a one-step fit
        prefit = f", n_prefit={self.n_prefit}" if self.n_prefit else ""
        return (
            f"GMMFit(columns={list(self.columns)}, K={self.K}, method={self.method!r}, "
            f"model={self.model!r}, weights=[{rows}], loglik={self.loglik:.4f}, "
            f"bic={self.bic:.4f}, n_iter={self.n_iter}{prefit}, converged={self.converged})"
        )

    def to_frame(self) -> pl.DataFrame:
        """One row per component: weight, then mean and variance per column.

        >>> fit = GMMFit(("x",), (1.0,), np.array([1.0]), np.array([0.0]), np.array([1.0]), 0.0, 0.0, 0, True)
        >>> fit.to_frame().columns
        ['component', 'weight', 'mean_x', 'var_x']
        """
        mu, cov = self._mu(), self.covariances
        data: dict[str, Any] = {"component": np.arange(self.K, dtype=np.uint32), "weight": self.weights}
        for j, c in enumerate(self.columns):
            data[f"mean_{c}"] = mu[:, j]
            data[f"var_{c}"] = cov[:, j, j]
        return pl.DataFrame(data)

    def marginal(self, column: str) -> "GMMFit":
        """The one-column mixture of ``column`` (exact marginal of the fitted mixture, eq. 17).

        >>> fit = GMMFit(("a", "b"), (1.0, 1.0), np.array([1.0]), np.array([[0.0, 5.0]]),
        ...              np.array([[1.0, 4.0]]), 0.0, 0.0, 0, True)
        >>> m = fit.marginal("b")
        >>> m.columns, m.means.tolist(), m.variances.tolist()
        (('b',), [5.0], [4.0])
        """
        if column not in self.columns:
            raise SDCError(f"column {column!r}: not one of the fitted columns {list(self.columns)}")
        j = self.columns.index(column)
        return GMMFit(
            (column,), (self.phi[j],), self.weights, self._mu()[:, j].copy(),
            self.covariances[:, j, j].copy(), self.loglik, self.bic, self.n_iter, self.converged,
            self.method, "diagonal", self.n_obs,
        )

    # -- the reconstructed distribution of x -----------------------------------------
    def _points(self, x: Any) -> np.ndarray:
        if isinstance(x, (pl.DataFrame, pl.LazyFrame)):
            df = x.select(list(self.columns)).collect() if isinstance(x, pl.LazyFrame) else x
            return numeric_matrix(df, list(self.columns))
        if isinstance(x, pl.Series):
            x = x.to_numpy()
        arr = np.asarray(x, dtype=np.float64)
        if self.d == 1:
            return arr.reshape(-1, 1)
        if arr.ndim != 2 or arr.shape[1] != self.d:
            raise SDCError(f"expected points of shape (n, {self.d}) for columns {list(self.columns)}")
        return arr

    def _shape_out(self, x: Any, values: np.ndarray) -> Any:
        if self.d == 1 and np.ndim(x) == 0:
            return float(values[0])
        if self.d == 1 and not isinstance(x, (pl.DataFrame, pl.LazyFrame)):
            return values.reshape(np.shape(x))
        return values

    def pdf(self, x: Any) -> Any:
        """Density of the reconstructed (noise-free) distribution at ``x`` (eq. 5 / 17).

        >>> fit = GMMFit(("x",), (1.0,), np.array([1.0]), np.array([0.0]), np.array([1.0]), 0.0, 0.0, 0, True)
        >>> round(fit.pdf(0.0), 6)
        0.398942
        """
        X = self._points(x)
        mu, cov = self._mu(), self.covariances
        out = np.zeros(X.shape[0])
        for l in range(self.K):
            diff = X - mu[l]
            prec = np.linalg.inv(cov[l])
            q = np.einsum("ij,jk,ik->i", diff, prec, diff)
            logdet = np.linalg.slogdet(cov[l])[1]
            out += self.weights[l] * np.exp(-0.5 * q - 0.5 * logdet - 0.5 * self.d * math.log(2 * math.pi))
        return self._shape_out(x, out)

    def cdf(self, x: Any) -> Any:
        """Distribution function of a one-column fit (use :meth:`marginal` for one column of many).

        >>> fit = GMMFit(("x",), (1.0,), np.array([0.5, 0.5]), np.array([-1.0, 1.0]), np.array([1.0, 1.0]), 0.0, 0.0, 0, True)
        >>> fit.cdf(0.0)
        0.5
        """
        self._need_1d("cdf")
        X = self._points(x)[:, 0]
        sd = np.sqrt(self._var()[:, 0])
        z = (X[:, None] - self._mu()[None, :, 0]) / sd[None, :]
        return self._shape_out(x, special.ndtr(z) @ self.weights)

    def _need_1d(self, what: str) -> None:
        if self.d != 1:
            raise SDCError(f"{what} is for a one-column fit; use fit.marginal(column).{what}(...) or crosstab")

    def _log_joint(self, Y: np.ndarray) -> np.ndarray:
        """log rho_l + log g_l(y_i) of the noisy records (eq. 6/19; rotated: Algorithm 2's frames)."""
        mu, var, R = self._mu(), self._var(), self._rot()
        phi = np.asarray(self.phi)
        out = np.empty((Y.shape[0], self.K))
        for l in range(self.K):
            Z = Y @ R[l]
            m = mu[l] @ R[l]
            ph = np.sqrt((R[l] ** 2).T @ phi**2)
            acc = np.full(Y.shape[0], math.log(self.weights[l]) if self.weights[l] > 0 else -np.inf)
            for j in range(self.d):
                acc = acc + convolved_logpdf(Z[:, j], m[j], var[l, j], ph[j])
            out[:, l] = acc
        return out

    def noisy_pdf(self, y: Any) -> Any:
        """Density of the *noisy* values under the fit: the mixture convolved with the Laplace
        noise (eq. 6; eq. 19 for several columns).

        >>> fit = GMMFit(("x",), (1.0,), np.array([1.0]), np.array([0.0]), np.array([1e-12]), 0.0, 0.0, 0, True)
        >>> round(fit.noisy_pdf(0.0), 6)  # a point mass plus Laplace(1): 1/(2 phi)
        0.5
        """
        Y = self._points(y)
        return self._shape_out(y, np.exp(special.logsumexp(self._log_joint(Y), axis=1)))

    def predict(self, y: Any) -> pl.Series:
        """The most responsible component of each noisy record (the clustering reading of
        seed 004, 4.3): ``argmax_l gamma(i, l)`` of eq. 10, as a UInt32 Series ``"component"``.

        >>> fit = GMMFit(("x",), (1.0,), np.array([0.5, 0.5]), np.array([-5.0, 5.0]), np.array([1.0, 1.0]), 0.0, 0.0, 0, True)
        >>> fit.predict([-4.0, 6.0]).to_list()
        [0, 1]
        """
        Y = self._points(y)
        return pl.Series("component", np.argmax(self._log_joint(Y), axis=1), dtype=pl.UInt32)

    def sample(self, n: int, seed: int | None = None) -> pl.DataFrame:
        """``n`` synthetic records drawn from the reconstructed mixture, one Float64 column per
        fitted column.

        >>> fit = GMMFit(("x",), (1.0,), np.array([1.0]), np.array([3.0]), np.array([1e-18]), 0.0, 0.0, 0, True)
        >>> fit.sample(2, seed=1)["x"].round(6).to_list()
        [3.0, 3.0]
        """
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
            raise SDCError(f"n must be a non-negative integer, got {n!r}")
        rng = np.random.default_rng(seed)
        comp = rng.choice(self.K, size=int(n), p=self.weights / self.weights.sum())
        z = rng.standard_normal((int(n), self.d)) * np.sqrt(self._var())[comp]
        x = self._mu()[comp] + np.einsum("nij,nj->ni", self._rot()[comp], z)
        return pl.DataFrame({c: x[:, j] for j, c in enumerate(self.columns)})

    def histogram(self, edges: Any, *, open_ends: bool = True) -> np.ndarray:
        """Probability of each bin ``[edges[b], edges[b+1])`` under the reconstructed
        distribution of a one-column fit; with ``open_ends`` the outer bins take the tails
        (the result sums to 1), to compare with :func:`l1_accuracy`.

        >>> fit = GMMFit(("x",), (1.0,), np.array([1.0]), np.array([0.0]), np.array([1.0]), 0.0, 0.0, 0, True)
        >>> fit.histogram([-1.0, 0.0, 1.0]).tolist()
        [0.5, 0.5]
        """
        self._need_1d("histogram")
        e = _edges(edges, self.columns[0])
        c = np.asarray(self.cdf(e), dtype=np.float64)
        if open_ends:
            c[0], c[-1] = 0.0, 1.0
        return np.diff(c)

    def crosstab(self, edges: Any, *, open_ends: bool = True) -> np.ndarray:
        """The reconstructed cross table: probability of every cell of the grid given by one
        edge array per column (a list in column order or a ``{column: edges}`` mapping), as a
        d-dimensional array; outer cells take the tails with ``open_ends``.

        >>> fit = GMMFit(("a", "b"), (1.0, 1.0), np.array([1.0]), np.array([[0.0, 0.0]]),
        ...              np.array([[1.0, 1.0]]), 0.0, 0.0, 0, True)
        >>> fit.crosstab([[-5.0, 0.0, 5.0], [-5.0, 0.0, 5.0]]).round(3).tolist()
        [[0.25, 0.25], [0.25, 0.25]]
        """
        if isinstance(edges, Mapping):
            missing = [c for c in self.columns if c not in edges]
            if missing:
                raise SDCError(f"column {missing[0]!r}: no edges given for it")
            edges = [edges[c] for c in self.columns]
        if len(edges) != self.d:
            raise SDCError(f"crosstab: {len(edges)} edge array(s) for {self.d} column(s)")
        E = [_edges(e, c) for e, c in zip(edges, self.columns)]
        mu, var = self._mu(), self._var()
        shape = tuple(len(e) - 1 for e in E)
        out = np.zeros(shape)
        if self.rotations is None:
            for l in range(self.K):
                cell = np.ones(())
                for j, e in enumerate(E):
                    c = special.ndtr((e - mu[l, j]) / math.sqrt(var[l, j]))
                    if open_ends:
                        c[0], c[-1] = 0.0, 1.0
                    cell = np.multiply.outer(cell, np.diff(c))
                out += self.weights[l] * cell
            return out
        from scipy.stats import multivariate_normal

        cov = self.covariances
        for l in range(self.K):
            sd = np.sqrt(np.diag(cov[l]))
            grids = []
            for j, e in enumerate(E):
                g = e.copy()
                if open_ends:
                    g[0], g[-1] = mu[l, j] - 40 * sd[j], mu[l, j] + 40 * sd[j]
                grids.append(np.clip(g, mu[l, j] - 40 * sd[j], mu[l, j] + 40 * sd[j]))
            mesh = np.stack(np.meshgrid(*grids, indexing="ij"), axis=-1).reshape(-1, self.d)
            mvn = multivariate_normal(mu[l], cov[l], allow_singular=True, abseps=1e-9, releps=1e-9)
            F = np.atleast_1d(mvn.cdf(mesh)).reshape(tuple(len(g) for g in grids))
            for j in range(self.d):
                F = np.diff(F, axis=j)
            out += self.weights[l] * np.clip(F, 0.0, None)
        return out


def _edges(edges: Any, column: str) -> np.ndarray:
    e = np.asarray(edges, dtype=np.float64).ravel()
    if e.size < 2 or not np.all(np.isfinite(e)) or np.any(np.diff(e) <= 0):
        raise SDCError(f"column {column!r}: bin edges must be >= 2 finite, strictly increasing numbers")
    return e


# ---------------------------------------------------------------------------------------
# EM drivers
# ---------------------------------------------------------------------------------------
def _n_chunks(n: int) -> int:
    return int(min(64, max(1, n // 4096)))


def _init_start(Y: np.ndarray, w: np.ndarray, phi: np.ndarray, K: int, rng: np.random.Generator, first: bool):
    """(rho, mu, sd) of one start: quantiles (first start, one column) or k-means++ seeding."""
    n, d = Y.shape
    p = w / w.sum()
    mean = p @ Y
    var_y = p @ (Y - mean) ** 2
    var_x = np.maximum(var_y - 2.0 * phi**2, 0.05 * var_y)
    var_x = np.where(var_x > 0, var_x, 1.0)
    if first and d == 1:
        order = np.argsort(Y[:, 0], kind="stable")
        cum = np.cumsum(p[order])
        idx = order[np.minimum(np.searchsorted(cum, (np.arange(K) + 0.5) / K), n - 1)]
        mu = Y[idx].copy()
    else:
        scale = np.sqrt(var_y)
        scale = np.where(scale > 0, scale, 1.0)
        Z = Y / scale
        centers = [int(rng.choice(n, p=p))]
        d2 = ((Z - Z[centers[0]]) ** 2).sum(axis=1)
        for _ in range(1, K):
            q = p * d2
            tot = q.sum()
            nxt = int(rng.choice(n, p=q / tot)) if tot > 0 else int(rng.choice(n, p=p))
            centers.append(nxt)
            d2 = np.minimum(d2, ((Z - Z[nxt]) ** 2).sum(axis=1))
        mu = Y[centers].copy()
    sd = np.tile(np.sqrt(var_x / K), (K, 1))
    rho = np.full(K, 1.0 / K)
    return rho, mu, sd


class _State:
    __slots__ = ("rho", "mu", "sd", "L", "Nk", "A1", "A2", "history", "n_iter", "converged", "alpha", "n_prefit")

    def __init__(self, rho, mu, sd, alpha):
        self.rho, self.mu, self.sd, self.alpha = rho, mu, sd, alpha
        self.history: list[float] = []
        self.n_iter = 0
        self.n_prefit = 0
        self.converged = False


def _evaluate(state: _State, Y, w, phi, nch) -> None:
    from .kernels.laplace_em import em_pass

    with np.errstate(divide="ignore"):
        log_rho = np.log(state.rho)
    state.L, state.Nk, state.A1, state.A2 = em_pass(Y, w, log_rho, state.mu, state.sd, phi, nch)


def _propose(state: _State, method: str, total: float, sd_floor: np.ndarray):
    """M-step from the statistics of the current parameters: exact EM or the paper's step."""
    Nk, A1, A2 = state.Nk, state.A1, state.A2
    rho = Nk / total
    live = (Nk > 1e-10 * total)[:, None]
    safe = np.where(live, Nk[:, None], 1.0)
    if method == "exact":
        M1 = A1 / safe
        M2 = A2 / safe
        mu = state.mu + state.sd * M1
        var = state.sd**2 * np.maximum(M2 - M1**2, 0.0)
        sd = np.maximum(np.sqrt(var), sd_floor)
    else:  # eq. 11: mu += alpha dL/dmu, sigma += alpha dL/dsigma (Fisher's identity)
        mu = state.mu + state.alpha * A1 / state.sd
        sd = state.sd + state.alpha * (A2 - Nk[:, None]) / state.sd
    mu = np.where(live, mu, state.mu)
    sd = np.where(live, sd, state.sd)
    return rho, np.ascontiguousarray(mu), np.ascontiguousarray(sd)


def _accept(state: _State, trial: _State) -> None:
    state.rho, state.mu, state.sd = trial.rho, trial.mu, trial.sd
    state.L, state.Nk, state.A1, state.A2 = trial.L, trial.Nk, trial.A1, trial.A2
    state.history.append(state.L)


def _iterate(state: _State, Y, w, phi, method, max_iter, tol, sd_floor, accelerate=False) -> _State:
    """Run EM from ``state`` (already evaluated) until ``|L_new - L_old| < tol`` or ``max_iter``
    passes over the data (``state.n_iter`` counts them)."""
    if accelerate and method == "exact":
        return _iterate_squarem(state, Y, w, phi, max_iter, tol, sd_floor)
    nch = _n_chunks(Y.shape[0])
    total = float(w.sum())
    if not state.history:
        state.history.append(state.L)
    halvings = 0
    while state.n_iter < max_iter:
        rho, mu, sd = _propose(state, method, total, sd_floor)
        trial = _State(rho, mu, sd, state.alpha)
        ok = np.all(sd >= sd_floor) and np.all(np.isfinite(mu)) and np.all(np.isfinite(sd))
        if ok:
            _evaluate(trial, Y, w, phi, nch)
        state.n_iter += 1
        if method == "gem" and (not ok or not trial.L >= state.L - 1e-12 * abs(state.L)):
            # the paper's fixed learning rate can overshoot: halve it and retry (GEM stays monotone)
            state.alpha *= 0.5
            halvings += 1
            if halvings > 60:
                break
            continue
        old = state.L
        _accept(state, trial)
        if abs(state.L - old) < tol:
            state.converged = True
            break
    return state


def _pack(rho: np.ndarray, mu: np.ndarray, sd: np.ndarray) -> np.ndarray:
    return np.concatenate([np.log(np.maximum(rho, 1e-300)), mu.ravel(), np.log(sd).ravel()])


def _iterate_squarem(state: _State, Y, w, phi, max_iter, tol, sd_floor) -> _State:
    """Exact EM accelerated by SQUAREM (Varadhan & Roland 2008, scheme S3) in the coordinates
    (log rho, mu, log sd): two EM steps ``t1 = M(t0)``, ``t2 = M(t1)``, the extrapolation
    ``t0 - 2 a r + a^2 v`` (``r = t1 - t0``, ``v = t2 - 2 t1 + t0``, ``a = -|r|/|v|``), kept
    only if its likelihood is at least that of ``t2``: the likelihood never decreases."""
    nch = _n_chunks(Y.shape[0])
    total = float(w.sum())
    K, d = state.mu.shape
    if not state.history:
        state.history.append(state.L)
    step_max = 4.0
    while state.n_iter < max_iter:
        old = state.L
        p0 = _pack(state.rho, state.mu, state.sd)
        s1 = _State(*_propose(state, "exact", total, sd_floor), state.alpha)
        _evaluate(s1, Y, w, phi, nch)
        state.n_iter += 1
        _accept(state, s1)
        if abs(state.L - old) < tol or state.n_iter >= max_iter:
            state.converged = abs(state.L - old) < tol
            break
        s2 = _State(*_propose(state, "exact", total, sd_floor), state.alpha)
        _evaluate(s2, Y, w, phi, nch)
        state.n_iter += 1
        p1 = _pack(s1.rho, s1.mu, s1.sd)
        p2 = _pack(s2.rho, s2.mu, s2.sd)
        r = p1 - p0
        v = p2 - 2.0 * p1 + p0
        nv = float(np.sqrt(v @ v))
        best = s2
        if nv > 0 and state.n_iter < max_iter:
            a = -float(np.sqrt(r @ r)) / nv
            a = max(min(a, -1.0), -step_max)
            if a < -1.0:
                q = p0 - 2.0 * a * r + a * a * v
                lr = q[:K] - q[:K].max()
                rho = np.exp(lr) / np.exp(lr).sum()
                mu = q[K:K + K * d].reshape(K, d)
                sd = np.maximum(np.exp(q[K + K * d:]).reshape(K, d), sd_floor)
                if np.all(np.isfinite(mu)) and np.all(np.isfinite(sd)):
                    s3 = _State(rho, np.ascontiguousarray(mu), np.ascontiguousarray(sd), state.alpha)
                    _evaluate(s3, Y, w, phi, nch)
                    state.n_iter += 1
                    if s3.L >= s2.L:
                        best = s3
                        if a == -step_max:
                            step_max *= 4.0
        _accept(state, best)
        if abs(state.L - old) < tol:
            state.converged = True
            break
    return state


def _run_diagonal(Y, w, phi, K, *, method, n_init, seed, max_iter, tol, alpha, init_iter, accelerate=True, prefit=None):
    """Starts (screened for ``init_iter`` passes), then the best to convergence. With
    ``prefit = (centres, counts)`` the starts run to convergence on that histogram first and
    only the winner is polished on the records, so few passes over a large n are needed."""
    rng = np.random.default_rng(seed)
    p = w / w.sum()
    sd_y = np.sqrt(p @ (Y - p @ Y) ** 2)
    sd_floor = np.maximum(1e-6 * np.where(sd_y > 0, sd_y, 1.0), 1e-300)
    Ys, ws = prefit if prefit is not None else (Y, w)
    nch = _n_chunks(Ys.shape[0])
    starts = []
    for s in range(n_init):
        rho, mu, sd = _init_start(Ys, ws, phi, K, rng, first=(s == 0))
        st = _State(rho, mu, sd, alpha)
        _evaluate(st, Ys, ws, phi, nch)
        if n_init > 1:
            _iterate(st, Ys, ws, phi, method, min(init_iter, max_iter), tol, sd_floor, accelerate)
        starts.append(st)
    best = max(starts, key=lambda s: s.L)
    n_prefit = 0
    if prefit is not None:
        _iterate(best, Ys, ws, phi, method, max_iter, tol, sd_floor, accelerate)
        n_prefit = sum(s.n_iter for s in starts)
        best = _State(best.rho, best.mu, best.sd, best.alpha)
        _evaluate(best, Y, w, phi, _n_chunks(Y.shape[0]))
    elif n_init > 1:
        n_prefit = sum(s.n_iter for s in starts if s is not best)
    if not best.converged:
        _iterate(best, Y, w, phi, method, max_iter, tol, sd_floor, accelerate)
    best.n_prefit = n_prefit
    return best


def _run_rotated(Y, w, phi, K, *, method, n_init, seed, max_iter, tol, alpha, init_iter, accelerate=False):
    """Algorithm 2: responsibilities, hard assignment, per-component PCA rotation, a diagonal
    M-step in each component's frame, rotation back. Returns the state with rotations."""
    rng = np.random.default_rng(seed)
    n, d = Y.shape
    total = float(w.sum())
    p = w / total
    sd_y = np.sqrt(p @ (Y - p @ Y) ** 2)
    sd_floor = np.maximum(1e-6 * np.where(sd_y > 0, sd_y, 1.0), 1e-300)

    def run(rho, mu, sdr, R, steps, alpha_):
        # mu: (K, d) original coordinates; sdr: (K, d) along each component's axes R[l] (columns)
        from .kernels.laplace_em import component_moments, log_components

        history: list[float] = []
        converged = False
        it = 0
        L_old = -np.inf
        while it < steps:
            logp = np.empty((n, K))
            for l in range(K):
                ph = np.sqrt((R[l] ** 2).T @ phi**2)
                Z = np.ascontiguousarray(Y @ R[l])
                with np.errstate(divide="ignore"):
                    lr = np.array([np.log(rho[l])])
                logp[:, l] = log_components(Z, lr, (mu[l] @ R[l])[None, :], sdr[l][None, :], ph)[:, 0]
            top = logp.max(axis=1, keepdims=True)
            lse = top[:, 0] + np.log(np.exp(logp - top).sum(axis=1))
            L = float(w @ lse)
            history.append(L)
            if abs(L - L_old) < tol:
                converged = True
                break
            L_old = L
            it += 1
            gamma = np.exp(logp - lse[:, None]) * w[:, None]
            hard = np.argmax(logp, axis=1)
            new_rho = gamma.sum(axis=0) / total
            for l in range(K):
                members = hard == l
                if members.sum() > d:  # E-step-2: PCA of the records assigned to l
                    C = np.cov(Y[members].T, aweights=w[members]).reshape(d, d)
                    _, vecs = np.linalg.eigh(C)
                    cov_old = (R[l] * sdr[l] ** 2) @ R[l].T
                    R_new = vecs
                    sd_rot = np.sqrt(np.maximum(np.einsum("ji,jk,ki->i", R_new, cov_old, R_new), sd_floor**2))
                    R[l], sdr[l] = R_new, sd_rot
                if new_rho[l] * total <= 1e-10 * total:
                    continue
                ph = np.sqrt((R[l] ** 2).T @ phi**2)
                Z = np.ascontiguousarray(Y @ R[l])
                m = mu[l] @ R[l]
                N, A1, A2 = component_moments(Z, np.ascontiguousarray(gamma[:, l]), m, sdr[l], ph)
                if method == "exact":
                    M1, M2 = A1 / N, A2 / N
                    m_new = m + sdr[l] * M1
                    s_new = np.maximum(sdr[l] * np.sqrt(np.maximum(M2 - M1**2, 0.0)), sd_floor)
                else:
                    m_new = m + alpha_ * A1 / sdr[l]
                    s_new = np.maximum(sdr[l] + alpha_ * (A2 - N) / sdr[l], sd_floor)
                mu[l] = R[l] @ m_new  # M-step-1: rotate back
                sdr[l] = s_new
            rho = new_rho
        return rho, mu, sdr, R, history, converged, it

    best = None
    for s in range(n_init):
        rho, mu, sd = _init_start(Y, w, phi, K, rng, first=(s == 0))
        R = np.tile(np.eye(d), (K, 1, 1))
        steps = min(init_iter, max_iter) if n_init > 1 else max_iter
        res = run(rho, mu.copy(), sd.copy(), R, steps, alpha)
        if best is None or res[4][-1] > best[4][-1]:
            best = res
    rho, mu, sdr, R, history, converged, it = best
    if not converged and n_init > 1:
        more = run(rho, mu, sdr, R, max_iter - it, alpha)
        rho, mu, sdr, R = more[:4]
        history = history + more[4]
        converged, it = more[5], it + more[6]
    return rho, mu, sdr, R, history, converged, it


def _binned(Y: np.ndarray, bins: int) -> tuple[np.ndarray, np.ndarray]:
    """Centres and counts of the non-empty cells of an equal-width histogram of Y."""
    if isinstance(bins, bool) or not isinstance(bins, (int, np.integer)) or bins < 2:
        raise SDCError(f"hist_bins must be an integer >= 2, got {bins!r}")
    d = Y.shape[1]
    counts, edges = np.histogramdd(Y, bins=[int(bins)] * d)
    centres = [0.5 * (e[1:] + e[:-1]) for e in edges]
    idx = np.nonzero(counts)
    C = np.stack([centres[j][idx[j]] for j in range(d)], axis=1)
    return np.ascontiguousarray(C), counts[idx].astype(np.float64)


def fit_gmm(
    Y: Any,
    phi: Any,
    K: Any,
    *,
    method: str = "exact",
    model: str = "diagonal",
    n_init: int = 4,
    seed: int | None = 0,
    max_iter: int = 2000,
    tol: float = 1e-3,
    alpha: float = 1e-3,
    init_iter: int = 20,
    criterion: str = "bic",
    hist_bins: int | None = None,
    prefit_bins: Any = "auto",
    accelerate: bool = True,
    columns: Sequence[str] | None = None,
) -> GMMFit:
    """Maximum-likelihood Gaussian mixture behind Laplace-perturbed data (eq. 9, Algorithm 1/2).

    ``Y``: (n,) or (n, d) noisy values; ``phi``: the Laplace scale (one or per column); ``K``:
    the number of components or a range of them, chosen by ``criterion`` ("bic", or
    "loglik" as in the paper). ``method``: "exact" EM or the paper's "gem" (learning rate
    ``alpha``). ``model``: "diagonal" (eq. 19) or "rotated" (Algorithm 2). ``n_init`` starts
    run ``init_iter`` iterations each, the best continues until the log-likelihood changes
    by less than ``tol`` (the paper's eps) or ``max_iter``. ``hist_bins``: fit on an
    equal-width histogram of Y with that many bins per column (weighted EM; fast for large n).
    ``prefit_bins``: the starts are first fitted to convergence on an equal-width histogram
    with this many bins per column and only the best is then refined on the records
    themselves (the result is the records' fit; "auto": 4096 bins for one column, 256 per
    column for two, when n >= 20,000; None: off).
    ``accelerate``: SQUAREM extrapolation of the exact EM of the diagonal model (the
    likelihood still never decreases); ``n_iter`` counts the passes over the data.

    >>> rng = np.random.default_rng(0)
    >>> x = np.concatenate([rng.normal(-3, 0.5, 500), rng.normal(3, 0.5, 500)])
    >>> fit = fit_gmm(x + rng.laplace(0, 0.5, 1000), 0.5, 2)
    >>> np.round(np.sort(fit.means)).tolist(), fit.converged
    ([-3.0, 3.0], True)
    """
    if method not in ("exact", "gem"):
        raise SDCError(f"method must be 'exact' or 'gem', got {method!r}")
    if model not in ("diagonal", "rotated"):
        raise SDCError(f"model must be 'diagonal' or 'rotated', got {model!r}")
    if criterion not in ("bic", "loglik"):
        raise SDCError(f"criterion must be 'bic' or 'loglik', got {criterion!r}")
    Y = np.asarray(Y, dtype=np.float64)
    if Y.ndim == 1:
        Y = Y[:, None]
    if Y.ndim != 2 or Y.shape[0] == 0:
        raise SDCError("expected a non-empty (n,) or (n, d) array of noisy values")
    n, d = Y.shape
    columns = tuple(columns) if columns is not None else tuple(f"x{j}" if d > 1 else "x" for j in range(d))
    if not np.all(np.isfinite(Y)):
        bad = int(np.argmax(~np.all(np.isfinite(Y), axis=0)))
        raise SDCError(f"column {columns[bad]!r}: NaN or infinite values; a finite number is needed in every row")
    ph = phi_vector(phi, columns)
    ks = _k_values(K, n)
    for name, v, lo in (("n_init", n_init, 1), ("max_iter", max_iter, 1), ("init_iter", init_iter, 1)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < lo:
            raise SDCError(f"{name} must be an integer >= {lo}, got {v!r}")
    if not (isinstance(tol, (int, float)) and tol > 0):
        raise SDCError(f"tol must be > 0, got {tol!r}")
    if not (isinstance(alpha, (int, float)) and alpha > 0):
        raise SDCError(f"alpha must be > 0, got {alpha!r}")
    if hist_bins is not None:
        Yf, w = _binned(Y, hist_bins)
    else:
        Yf, w = np.ascontiguousarray(Y), np.ones(n)
    if prefit_bins == "auto":
        prefit_bins = {1: 4096, 2: 256}.get(d) if (n >= 20_000 and hist_bins is None) else None
    prefit = _binned(Yf, prefit_bins) if prefit_bins is not None else None
    fits: list[GMMFit] = []
    for k in ks:
        opts = dict(
            method=method, n_init=n_init, seed=seed, max_iter=max_iter, tol=tol, alpha=alpha,
            init_iter=init_iter, accelerate=accelerate,
        )
        if model == "diagonal":
            st = _run_diagonal(Yf, w, ph, k, prefit=prefit, **opts)
            rho, mu, var, R = st.rho, st.mu, st.sd**2, None
            history, conv, it, n_pre = st.history, st.converged, st.n_iter, st.n_prefit
            n_par = (k - 1) + 2 * k * d
        else:
            rho, mu, sdr, R, history, conv, it = _run_rotated(Yf, w, ph, k, **opts)
            n_pre = 0
            var = sdr**2
            n_par = (k - 1) + k * d + k * d * (d + 1) // 2
        L = float(history[-1])
        if hist_bins is not None:  # report the likelihood of the records themselves
            tmp = GMMFit(columns, tuple(ph), rho, mu, var, 0.0, 0.0, 0, True, rotations=R)
            L = float(special.logsumexp(tmp._log_joint(Y), axis=1).sum())
        shape = (lambda a: a[:, 0].copy()) if d == 1 else (lambda a: a)
        fits.append(GMMFit(
            columns, tuple(float(v) for v in ph), rho.copy(), shape(mu), shape(var), L,
            -2.0 * L + n_par * math.log(n), int(it), bool(conv), method, model, n,
            None if R is None else R.copy(), tuple(history), (), n_pre,
        ))
    scores = tuple((f.K, f.loglik, f.bic) for f in fits)
    best = min(fits, key=lambda f: f.bic) if criterion == "bic" else max(fits, key=lambda f: f.loglik)
    return GMMFit(**{**best.__dict__, "scores": scores})


# ---------------------------------------------------------------------------------------
# the Iterative Bayesian Technique baseline
# ---------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class IBTFit:
    """A histogram of x reconstructed by the Iterative Bayesian Technique (Agrawal et al.;
    Igarashi et al. for Laplace noise): ``probabilities[b]`` of the bin ``[edges[b], edges[b+1])``."""

    column: str
    phi: float
    edges: np.ndarray
    probabilities: np.ndarray
    loglik: float
    n_iter: int
    converged: bool

    def __repr__(self) -> str:
        return (
            f"IBTFit(column={self.column!r}, bins={self.probabilities.size}, loglik={self.loglik:.4f}, "
            f"n_iter={self.n_iter}, converged={self.converged})"
        )

    def histogram(self, edges: Any = None, *, open_ends: bool = True) -> np.ndarray:
        """Bin probabilities on ``edges`` (default: the fitted bins), mass spread uniformly
        within each fitted bin; with ``open_ends`` the outer bins take everything beyond.

        >>> fit = IBTFit("x", 1.0, np.array([0.0, 1.0, 2.0]), np.array([0.25, 0.75]), 0.0, 1, True)
        >>> fit.histogram([0.0, 0.5, 2.0]).tolist()
        [0.125, 0.875]
        """
        if edges is None:
            return self.probabilities.copy()
        e = _edges(edges, self.column)
        cum = np.concatenate([[0.0], np.cumsum(self.probabilities)])
        c = np.interp(e, self.edges, cum)
        if open_ends:
            c[0], c[-1] = 0.0, 1.0
        return np.diff(c)

    def pdf(self, x: Any) -> np.ndarray:
        """The piecewise-constant density of the reconstructed histogram (0 outside the bins).

        >>> fit = IBTFit("x", 1.0, np.array([0.0, 1.0, 3.0]), np.array([0.5, 0.5]), 0.0, 1, True)
        >>> fit.pdf([0.5, 2.0, 5.0]).tolist()
        [0.5, 0.25, 0.0]
        """
        x = np.asarray(x, dtype=np.float64)
        b = np.searchsorted(self.edges, x, side="right") - 1
        inside = (b >= 0) & (b < self.probabilities.size)
        dens = self.probabilities / np.diff(self.edges)
        return np.where(inside, dens[np.clip(b, 0, self.probabilities.size - 1)], 0.0)

    def to_frame(self) -> pl.DataFrame:
        """One row per bin: lower, upper, probability.

        >>> IBTFit("x", 1.0, np.array([0.0, 1.0, 3.0]), np.array([0.5, 0.5]), 0.0, 1, True).to_frame().rows()
        [(0.0, 1.0, 0.5), (1.0, 3.0, 0.5)]
        """
        return pl.DataFrame({"lower": self.edges[:-1], "upper": self.edges[1:], "probability": self.probabilities})


def _laplace_cdf(z: np.ndarray, phi: float) -> np.ndarray:
    return np.where(z < 0, 0.5 * np.exp(np.minimum(z, 0) / phi), 1.0 - 0.5 * np.exp(-np.maximum(z, 0) / phi))


def fit_ibt(
    y: Any, phi: float, bins: Any, *, max_iter: int = 1000, tol: float = 1e-3, column: str = "x"
) -> IBTFit:
    """Iterative Bayesian Technique on the bins of x (seed 004 section 2.2.2, eq. 3).

    x lives on the bin centres; the noisy values are binned with the narrowest bin width;
    ``A[j, b] = P(y in y-bin j | x = centre b)`` from the Laplace CDF; then
    ``p_b <- p_b sum_j h_j A[j, b] / (A p)_j / N`` until the log-likelihood changes by less
    than ``tol`` or ``max_iter``. ``bins``: edges, or a number of equal-width bins over the
    range of y.

    >>> rng = np.random.default_rng(0)
    >>> fit = fit_ibt(rng.integers(0, 2, 2000) + rng.laplace(0, 0.1, 2000), 0.1, [-0.5, 0.5, 1.5])
    >>> np.round(fit.probabilities, 1).tolist()
    [0.5, 0.5]
    """
    y = np.asarray(y, dtype=np.float64).ravel()
    if y.size == 0:
        raise SDCError(f"column {column!r}: no records")
    if not np.all(np.isfinite(y)):
        raise SDCError(f"column {column!r}: NaN or infinite values; a finite number is needed in every row")
    phi = float(phi_vector(phi, [column])[0])
    if isinstance(bins, (int, np.integer)) and not isinstance(bins, bool):
        if bins < 1:
            raise SDCError(f"column {column!r}: bins must be >= 1, got {bins}")
        lo, hi = float(y.min()), float(y.max())
        edges = np.linspace(lo, hi if hi > lo else lo + 1.0, int(bins) + 1)
    else:
        edges = _edges(bins, column)
    centres = 0.5 * (edges[1:] + edges[:-1])
    h = float(np.diff(edges).min())
    lo = min(float(y.min()), edges[0]) - 8 * phi
    hi = max(float(y.max()), edges[-1]) + 8 * phi
    n_y = int(math.ceil((hi - lo) / h))
    if n_y > 200_000:
        n_y = 200_000
    y_edges = np.linspace(lo, hi, n_y + 1)
    counts = np.histogram(y, bins=y_edges)[0].astype(np.float64)
    keep = counts > 0
    F = _laplace_cdf(y_edges[:, None] - centres[None, :], phi)
    A = np.diff(F, axis=0)
    A /= A.sum(axis=0, keepdims=True)
    A, counts = A[keep], counts[keep]
    N = counts.sum()
    p = np.full(centres.size, 1.0 / centres.size)
    L_old = -np.inf
    converged = False
    it = 0
    L = L_old
    while it < max_iter:
        q = A @ p
        L = float(counts @ np.log(np.maximum(q, 1e-300)))
        if abs(L - L_old) < tol:
            converged = True
            break
        L_old = L
        p = p * (A.T @ (counts / np.maximum(q, 1e-300))) / N
        p /= p.sum()
        it += 1
    if not converged:
        L = float(counts @ np.log(np.maximum(A @ p, 1e-300)))
    return IBTFit(column, phi, edges, p, L, it, converged)


# ---------------------------------------------------------------------------------------
# frame faces
# ---------------------------------------------------------------------------------------
def reconstruct_gmm_frame(df: pl.DataFrame, K: Any, on: ColumnSpec, phi: Any, **options: Any) -> GMMFit:
    """:func:`fit_gmm` on the ``on`` columns of a DataFrame (validated: numeric, no nulls/NaN)."""
    cols = resolve_columns(df, on, kind="numeric", default="numeric")
    ph = phi_vector(phi, cols)
    _k_values(K, df.height)
    Y = numeric_matrix(df, cols)
    return fit_gmm(Y, ph, K, columns=cols, **options)


def reconstruct_ibt_frame(df: pl.DataFrame, on: ColumnSpec, phi: Any, bins: Any, **options: Any) -> IBTFit:
    """:func:`fit_ibt` on one numeric column of a DataFrame."""
    cols = resolve_columns(df, on, kind="numeric", default="error")
    if len(cols) != 1:
        raise SDCError(f"reconstruct_ibt works on one column, got {len(cols)}: {cols}")
    ph = phi_vector(phi, cols)
    y = numeric_matrix(df, cols)[:, 0]
    return fit_ibt(y, float(ph[0]), bins, column=cols[0], **options)
