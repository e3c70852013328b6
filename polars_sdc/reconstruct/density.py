"""The density of Laplace-perturbed Gaussian data (Sakuma & Osame, eq. 8) in log space.

``y = x + e`` with ``x ~ N(mu, s^2)`` and ``e ~ Laplace(0, phi)`` has the density of eq. 8; the
EM drivers (:mod:`.em`) use its Numba twin in :mod:`polars_sdc.kernels.laplace_em`.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import special

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
