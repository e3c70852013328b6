"""The Iterative Bayesian Technique baseline (Agrawal, Srikant & Thomas 2005; for Laplace noise as
in Hasegawa et al., section 2.2.2, eq. 3): the histogram of x on fixed bins by EM on the
binned noisy values."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from .._errors import SDCError
from .._validation import check_int, check_real
from ..laplace import phi_vector
from .accuracy import _edges


@dataclass(frozen=True, eq=False)
class IBTFit:
    """A histogram of x reconstructed by the Iterative Bayesian Technique (Agrawal et al.;
    Igarashi et al. for Laplace noise): ``probabilities[b]`` of the bin ``[edges[b], edges[b+1])``.
    ``loglik`` is Hasegawa et al.'s eq. 3 at these probabilities, ``sum_j h_j log (A p)_j`` over the
    binned noisy values: a log-likelihood of y-bin probabilities (the discretised Laplace transition
    matrix), not of densities, so it is the same when y, phi and the bins are scaled together and is
    not comparable with ``GMMFit.loglik`` (a density log-likelihood, which moves by ``-N log c``).

    >>> import numpy as np, polars as pl, polars_sdc
    >>> x = pl.DataFrame({"x": np.random.default_rng(0).normal(50, 5, 300)})
    >>> fit = x.sdc.laplace(phi=2.0, on="x", seed=1).sdc.reconstruct_ibt("x", phi=2.0, bins=np.arange(30, 72, 4.0))
    >>> fit.probabilities.round(2).tolist(), fit.converged
    ([0.0, 0.0, 0.03, 0.17, 0.31, 0.28, 0.15, 0.05, 0.0, 0.0], True)
    """

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
    y: Any, phi: float, bins: Any, *, max_iter: int | None = 1000, tol: float = 1e-3, column: str = "x"
) -> IBTFit:
    """Iterative Bayesian Technique on the bins of x (Hasegawa et al., section 2.2.2, eq. 3).

    x lives on the bin centres; the noisy values are binned with the narrowest bin width;
    ``A[j, b] = P(y in y-bin j | x = centre b)`` from the Laplace CDF; then
    ``p_b <- p_b sum_j h_j A[j, b] / (A p)_j / N`` until the log-likelihood changes by less
    than ``tol`` or after ``max_iter`` iterations. ``bins``: edges, or a number of equal-width
    bins over the range of y. The reported ``loglik`` is eq. 3 at the returned probabilities (the
    multinomial log-likelihood of the y-bin counts ``h``; scale-free, see :class:`IBTFit`).

    The cap matters. By default IBT stops after 1000 iterations (``converged=False``), or
    earlier when ``|dL| < 1e-3``. That early stop acts as smoothing. Run to convergence
    (``max_iter=None``, no cap, until ``|dL| < tol``), IBT approaches the nonparametric maximum
    likelihood estimate. That estimate is spiky on bins much narrower than phi, and its L1
    accuracy can be far lower (``benchmarks/README.md``: Adult age on unit bins).

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
    if max_iter is not None:
        check_int(max_iter, "max_iter (or None: no cap)", minimum=1)
    check_real(tol, "tol", minimum=0.0, low_open=True)
    cap = math.inf if max_iter is None else int(max_iter)
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
    while it < cap:
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
