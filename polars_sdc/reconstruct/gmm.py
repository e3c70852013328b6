"""The Gaussian mixture behind Laplace-perturbed data (Hasegawa et al.): :func:`fit_gmm`, the
entry point (argument checks, K range, histogram options, model selection by BIC or by the
likelihood), and :class:`GMMFit`, the fitted mixture (density, cdf, histogram, cross table,
sample, clustering). The EM iterations are in :mod:`.em`.
"""
from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import KW_ONLY, dataclass, field
from typing import Any

import numpy as np
import polars as pl
from scipy import special

from .._columns import numeric_matrix
from .._errors import SDCError
from .._validation import check_int
from ..laplace import phi_vector
from .accuracy import _edges
from .density import convolved_logpdf
from .em import EMMeter, _run_diagonal, _run_rotated


def _k_values(K: Any, n: int) -> list[int]:
    if isinstance(K, (range, Sequence, np.ndarray)) and not isinstance(K, (str, bytes)):
        ks = list(K)
        if not ks:
            raise SDCError("K: an empty range of component counts")
    else:
        ks = [K]
    out = []
    for k in ks:
        k = check_int(k, "K", minimum=1)
        if k > n:
            raise SDCError(f"K = {k} is larger than the number of records ({n})")
        out.append(int(k))
    return out



@dataclass(frozen=True, eq=False)
class GMMFit:
    """A Gaussian mixture reconstructed from Laplace-perturbed data (Hasegawa et al.).

    ``weights`` (K,), ``means`` and ``variances`` (K,) for one column or (K, d); with
    ``model="rotated"`` (Algorithm 2) ``variances`` are along each component's own axes,
    ``rotations[l]`` (d, d) holds those axes as columns and ``covariances`` the full matrices.
    ``loglik`` is the log-likelihood of the noisy data (eq. 13), ``bic = -2 loglik + p ln N``;
    ``n_iter`` counts the passes over the records of the final fit (``history`` holds the
    log-likelihood after each accepted step), ``n_prefit`` the passes of the other starts and
    of the histogram prefit; ``scores`` has ``(K, loglik, bic)`` for every K tried.

    >>> import numpy as np, polars as pl, polars_sdc
    >>> x = pl.DataFrame({"x": np.random.default_rng(0).normal(50, 5, 300)})
    >>> fit = x.sdc.laplace(phi=2.0, on="x", seed=1).sdc.reconstruct_gmm(K=[1, 2], on="x", phi=2.0)
    >>> fit.K, round(float(fit.means[0]), 1), round(float(np.sqrt(fit.variances[0])), 1)   # N(50, 5) back
    (1, 50.0, 4.8)
    """

    columns: tuple[str, ...]
    phi: tuple[float, ...]
    weights: np.ndarray
    means: np.ndarray
    variances: np.ndarray
    loglik: float = math.nan
    bic: float = math.nan
    n_iter: int = 0
    converged: bool = False
    _: KW_ONLY
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

        >>> fit = GMMFit(columns=("x",), phi=(1.0,), weights=np.array([1.0]), means=np.array([0.0]), variances=np.array([1.0]))
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

        >>> fit = GMMFit(columns=("a", "b"), phi=(1.0, 1.0), weights=np.array([1.0]),
        ...              means=np.array([[0.0, 5.0]]), variances=np.array([[1.0, 4.0]]))
        >>> m = fit.marginal("b")
        >>> m.columns, m.means.tolist(), m.variances.tolist()
        (('b',), [5.0], [4.0])
        """
        if column not in self.columns:
            raise SDCError(f"column {column!r}: not one of the fitted columns {list(self.columns)}")
        j = self.columns.index(column)
        return GMMFit(
            columns=(column,), phi=(self.phi[j],), weights=self.weights, means=self._mu()[:, j].copy(),
            variances=self.covariances[:, j, j].copy(), loglik=self.loglik, bic=self.bic,
            n_iter=self.n_iter, converged=self.converged, method=self.method, model="diagonal",
            n_obs=self.n_obs,
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

        >>> fit = GMMFit(columns=("x",), phi=(1.0,), weights=np.array([1.0]), means=np.array([0.0]), variances=np.array([1.0]))
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

        >>> fit = GMMFit(columns=("x",), phi=(1.0,), weights=np.array([0.5, 0.5]),
        ...              means=np.array([-1.0, 1.0]), variances=np.array([1.0, 1.0]))
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

        >>> fit = GMMFit(columns=("x",), phi=(1.0,), weights=np.array([1.0]), means=np.array([0.0]), variances=np.array([1e-12]))
        >>> round(fit.noisy_pdf(0.0), 6)  # a point mass plus Laplace(1): 1/(2 phi)
        0.5
        """
        Y = self._points(y)
        return self._shape_out(y, np.exp(special.logsumexp(self._log_joint(Y), axis=1)))

    def predict(self, y: Any) -> pl.Series:
        """The most responsible component of each noisy record (the clustering reading of
        Hasegawa et al., 4.3): ``argmax_l gamma(i, l)`` of eq. 10, as a UInt32 Series ``"component"``.

        >>> fit = GMMFit(columns=("x",), phi=(1.0,), weights=np.array([0.5, 0.5]),
        ...              means=np.array([-5.0, 5.0]), variances=np.array([1.0, 1.0]))
        >>> fit.predict([-4.0, 6.0]).to_list()
        [0, 1]
        """
        Y = self._points(y)
        return pl.Series("component", np.argmax(self._log_joint(Y), axis=1), dtype=pl.UInt32)

    def sample(self, n: int, seed: int | None = None) -> pl.DataFrame:
        """``n`` synthetic records drawn from the reconstructed mixture, one Float64 column per
        fitted column.

        >>> fit = GMMFit(columns=("x",), phi=(1.0,), weights=np.array([1.0]), means=np.array([3.0]), variances=np.array([1e-18]))
        >>> fit.sample(2, seed=1)["x"].round(6).to_list()
        [3.0, 3.0]
        """
        n = check_int(n, "n", minimum=0)
        rng = np.random.default_rng(seed)
        comp = rng.choice(self.K, size=int(n), p=self.weights / self.weights.sum())
        z = rng.standard_normal((int(n), self.d)) * np.sqrt(self._var())[comp]
        x = self._mu()[comp] + np.einsum("nij,nj->ni", self._rot()[comp], z)
        return pl.DataFrame({c: x[:, j] for j, c in enumerate(self.columns)})

    def histogram(self, edges: Any, *, open_ends: bool = True) -> np.ndarray:
        """Probability of each bin ``[edges[b], edges[b+1])`` under the reconstructed
        distribution of a one-column fit; with ``open_ends`` the outer bins take the tails
        (the result sums to 1), to compare with :func:`l1_accuracy`.

        >>> fit = GMMFit(columns=("x",), phi=(1.0,), weights=np.array([1.0]), means=np.array([0.0]), variances=np.array([1.0]))
        >>> fit.histogram([-1.0, 0.0, 1.0]).tolist()
        [0.5, 0.5]
        """
        self._need_1d("histogram")
        e = _edges(edges, self.columns[0])
        c = np.asarray(self.cdf(e), dtype=np.float64)
        if open_ends:
            c[0], c[-1] = 0.0, 1.0
        return np.maximum(np.diff(c), 0.0)  # a cdf rounded a hair above 1 must not give -1e-17

    def crosstab(self, edges: Any, *, open_ends: bool = True) -> np.ndarray:
        """The reconstructed cross table: probability of every cell of the grid given by one
        edge array per column (a list in column order or a ``{column: edges}`` mapping), as a
        d-dimensional array; outer cells take the tails with ``open_ends``.

        >>> fit = GMMFit(columns=("a", "b"), phi=(1.0, 1.0), weights=np.array([1.0]),
        ...              means=np.array([[0.0, 0.0]]), variances=np.array([[1.0, 1.0]]))
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




def _sd_min(var_floor: Any, phi: np.ndarray, n: int, k: int, columns: tuple[str, ...]) -> np.ndarray | None:
    """Per-column smallest component standard deviation from ``var_floor`` (see :func:`fit_gmm`)."""
    if var_floor is None:
        return None
    if isinstance(var_floor, str):
        if var_floor != "auto":
            raise SDCError(f"var_floor must be 'auto', None or a variance >= 0, got {var_floor!r}")
        return AUTO_FLOOR * phi * (n / k) ** AUTO_POWER
    v = np.asarray(var_floor, dtype=np.float64)
    if v.ndim > 1 or (v.ndim == 1 and v.size != len(columns)) or not np.all(np.isfinite(v)) or np.any(v < 0):
        raise SDCError(f"var_floor must be 'auto', None or one variance >= 0 (or one per column), got {var_floor!r}")
    return np.broadcast_to(np.sqrt(v), (len(columns),)).copy()


AUTO_FLOOR, AUTO_POWER = 1.0, -0.25

#: the magnitudes (the largest of a column's ``|y|`` and its ``phi``) a fit accepts: the fitted
#: variances are about their squares, so beyond 2^±480 (~1e±144) they leave float64 (1e+-308)
GMM_MAGNITUDE = 2.0**480


def _check_magnitudes(Y: np.ndarray, phi: np.ndarray, columns: tuple[str, ...]) -> None:
    """An SDCError naming the first column whose largest ``|y|`` and ``phi`` lie beyond
    :data:`GMM_MAGNITUDE` or below its inverse: its variances (squares) overflow or underflow, and
    the fit failed (ZeroDivisionError at 1e160) or came back silently wrong (at 1e-200 both means
    equal, variances 0)."""
    top = np.maximum(np.max(np.abs(Y), axis=0), phi)
    for j, t in enumerate(top):
        if not (1.0 / GMM_MAGNITUDE <= t <= GMM_MAGNITUDE):
            raise SDCError(f"column {columns[j]!r}: its values and phi reach magnitude {t:.3g}, whose squares (the "
                           f"fitted variances) are beyond float64; divide the column and phi by the same power of ten "
                           f"first (then multiply the fitted means by it and the variances by its square)")


def _binned(Y: np.ndarray, bins: int) -> tuple[np.ndarray, np.ndarray]:
    """Centres and counts of the non-empty cells of an equal-width histogram of Y."""
    bins = check_int(bins, "hist_bins", minimum=2)
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
    var_floor: Any = "auto",
    columns: Sequence[str] | None = None,
    progress: bool = False,
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
    ``var_floor``: the smallest variance a component may take, per column. "auto" uses
    ``(phi (N/K)^(-1/4))^2``. A component of about N/K records whose standard deviation is
    below ``phi (N/K)^(-1/4)`` changes the log-likelihood of the noisy data by O(1) at most:
    the relative change of the convolved density is about ``sd^2 / phi^2``, and the records
    add up its square. So the data cannot tell such a component from a point mass, and
    unconstrained EM run to a tight ``tol`` drifts there (L1 accuracy 60 -> 34 on the paper's
    mixture at N = 1e3, ``benchmarks/README.md``). A number gives the floor directly (one, or one
    per column); None keeps only a numerical floor of 1e-12 times the variance of y.
    ``progress=True``: a bar on stderr of the EM passes done out of an estimate, with an ETA
    (:class:`polars_sdc.reconstruct.em.EMMeter`).

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
    _check_magnitudes(Y, ph, columns)
    for name, v, lo in (("n_init", n_init, 1), ("max_iter", max_iter, 1), ("init_iter", init_iter, 1)):
        check_int(v, name, minimum=lo)
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
    _sd_min(var_floor, ph, n, 1, columns)  # validate once
    from ..progress import bar

    pb = bar(progress, "EM", unit="pass")
    meter = None
    if pb.enabled:
        final_runs = 1 + (prefit is not None and model == "diagonal")
        meter = EMMeter(pb, ks, n_init=n_init, init_iter=init_iter, max_iter=max_iter, tol=tol, final_runs=final_runs)
    try:
        fits = _fit_each(Y, Yf, w, ph, ks, columns, model, prefit, hist_bins, var_floor, meter, dict(
            method=method, n_init=n_init, seed=seed, max_iter=max_iter, tol=tol, alpha=alpha,
            init_iter=init_iter, accelerate=accelerate))
    finally:
        pb.close()
    scores = tuple((f.K, f.loglik, f.bic) for f in fits)
    best = min(fits, key=lambda f: f.bic) if criterion == "bic" else max(fits, key=lambda f: f.loglik)
    return dataclasses.replace(best, scores=scores)


def _fit_each(Y, Yf, w, ph, ks, columns, model, prefit, hist_bins, var_floor, meter, common) -> list[GMMFit]:
    """One fit per number of components in ``ks`` (the body of :func:`fit_gmm`)."""
    n, d = Y.shape
    method = common["method"]
    fits: list[GMMFit] = []
    for k in ks:
        opts = dict(common, sd_min=_sd_min(var_floor, ph, n, k, columns), meter=meter)
        if meter is not None:
            meter.stage(k)
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
            tmp = GMMFit(columns=columns, phi=tuple(ph), weights=rho, means=mu, variances=var, rotations=R)
            L = float(special.logsumexp(tmp._log_joint(Y), axis=1).sum())
        shape = (lambda a: a[:, 0].copy()) if d == 1 else (lambda a: a)
        fits.append(GMMFit(
            columns=columns, phi=tuple(float(v) for v in ph), weights=rho.copy(), means=shape(mu),
            variances=shape(var), loglik=L, bic=-2.0 * L + n_par * math.log(n), n_iter=int(it),
            converged=bool(conv), method=method, model=model, n_obs=n,
            rotations=None if R is None else R.copy(), history=tuple(history), n_prefit=n_pre,
        ))
        if meter is not None:
            meter.end_stage()
    return fits
