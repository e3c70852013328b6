"""EM for a Gaussian mixture observed through Laplace noise (Hasegawa et al., eq. 6-15 and 19).

A record is ``y = x + e`` with ``x ~ N(mu, s^2)`` (one mixture component, one dimension)
and ``e ~ Laplace(0, phi)``. With ``t = (y - mu) / s`` and ``a = s / phi`` the convolved
density (eq. 8) splits into the part where ``x <= y`` (piece L) and where ``x >= y`` (R):

    f(y) = 1/(2 phi) [exp(a^2/2 - t a) Phi(t - a) + exp(a^2/2 + t a) Phi(-t - a)]

which equals the paper's erfc form (``erfc(z) = 2 Phi(-sqrt2 z)``). The exponential factor
is split off (``f = exp(E) B / (4 phi)`` with a bounded ``B``, see :func:`dim_stats`), using
``Phi(u) = erfcx(-u/sqrt2) exp(-u^2/2) / 2`` where ``Phi`` would underflow, so neither small
phi nor far tails overflow.

Given y and the component, x is a two-piece truncated normal: N(mu + s a, s^2) cut to
``x <= y`` with weight L and N(mu - s a, s^2) cut to ``x >= y`` with weight R. Its first two
moments (through the Mills ratio) give the exact EM update of mu and s^2, and by Fisher's
identity the same moments give the paper's gradients dL/dmu and dL/dsigma (eq. after 13).

All kernels take float64 arrays and return numpy arrays; no Polars here.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from ._common import helper

_SQRT2 = math.sqrt(2.0)
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_INV_SQRT_PI = 1.0 / math.sqrt(math.pi)


@njit(cache=True)
def erfcx_pos(x):
    """The scaled complementary error function ``exp(x^2) erfc(x)`` for ``x >= 0``.

    ``exp(x^2) * erfc(x)`` below 25 (relative error < 1e-13), the asymptotic series
    ``1/(x sqrt(pi)) (1 - 1/(2x^2) + 3/(4x^4) - ...)`` above (error < 1e-14).

    Parameters
    ----------
    x : float
        The argument, x >= 0.

    Notes
    -----
    Needed by eq. 8 of Hasegawa et al. (the Gaussian * Laplace density) without overflow.
    """
    if x < 25.0:
        return math.exp(x * x) * math.erfc(x)
    r = 1.0 / (x * x)
    series = 1.0 + r * (-0.5 + r * (0.75 + r * (-1.875 + r * (6.5625 + r * (-29.53125 + r * 162.421875)))))
    return _INV_SQRT_PI / x * series


@helper
def _cut_moments(u, lam, t):
    """Mean and variance, in units of ``(x - mu)/s``, of the piece ``N(a, 1)`` cut to ``<= t``
    with ``u = t - a <= 0`` and Mills ratio ``lam = phi(u)/Phi(u)``: ``t - (lam + u)`` and
    ``1 - lam (lam + u)``. Far in the tail (``u < -1000``) ``lam + u`` and the variance come
    from their asymptotic series, avoiding the cancellation of two numbers of size ``|u|``."""
    if u < -1000.0:
        w = -u
        r = 1.0 / (w * w)
        return t - (1.0 + r * (-2.0 + r * 10.0)) / w, r * (1.0 + r * (-6.0 + r * 50.0))
    delta = lam + u
    v = 1.0 - lam * delta
    return t - delta, v if v > 0.0 else 0.0


@helper
def _two_pieces(B, wa, ea, va, wb, eb, vb):
    """First and second moment of the posterior made of two pieces with weights ``wa / B`` and
    ``wb / B`` (``B = wa + wb``), means ``ea``, ``eb`` and variances ``va``, ``vb``."""
    pa = wa / B
    pb = wb / B
    return pa * ea + pb * eb, pa * (va + ea * ea) + pb * (vb + eb * eb)


@njit(cache=True)
def dim_stats(y, mu, s, phi):
    """One coordinate of eq. 8 and the posterior of x given y (two-piece truncated normal).

    With ``t = (y - mu)/s`` and ``a = s/phi``, returns ``(E, B, m1, m2)`` such that
    ``f(y; mu, s^2, phi) = exp(E) B / (4 phi)``, and ``m1 = E[(x - mu)/s | y]``,
    ``m2 = E[((x - mu)/s)^2 | y]``. For ``|t| <= a``: ``E = -t^2/2`` and
    ``B = erfcx((a - t)/sqrt2) + erfcx((a + t)/sqrt2)``; otherwise (mirrored to ``t > a``,
    ``u = t - a``) ``E = a^2/2 - a t`` and ``B = 2 - erfc(u/sqrt2) + exp(-u^2/2) erfcx((a + t)/sqrt2)``.
    Both forms are the paper's erfc expression with the exponentials factored out, so
    nothing overflows; four transcendental calls per coordinate.

    Parameters
    ----------
    y : float
        The noisy value.
    mu, s : float
        The component's mean and standard deviation in this coordinate.
    phi : float
        The Laplace scale.

    Notes
    -----
    Hasegawa et al. eq. 8 and its posterior moments (the E-step of Algorithm 2).
    """
    t = (y - mu) / s
    a = s / phi
    tp = abs(t)
    if tp <= a:
        exL = erfcx_pos((a - t) / _SQRT2)
        exR = erfcx_pos((a + t) / _SQRT2)
        B = exL + exR
        eL, vL = _cut_moments(t - a, _SQRT_2_OVER_PI / exL, t)
        eR, vR = _cut_moments(-t - a, _SQRT_2_OVER_PI / exR, -t)
        eR = -eR
        m1, m2 = _two_pieces(B, exL, eL, vL, exR, eR, vR)
        return -0.5 * t * t, B, m1, m2
    u = tp - a
    eu = math.exp(-0.5 * u * u)
    near = 2.0 - math.erfc(u / _SQRT2)  # 2 Phi(u)
    exf = erfcx_pos((a + tp) / _SQRT2)
    far = eu * exf
    B = near + far
    lam_n = eu * _INV_SQRT_2PI / (0.5 * near)
    e_n = a - lam_n
    v_n = 1.0 - lam_n * (lam_n + u)
    if v_n < 0.0:
        v_n = 0.0
    e_f, v_f = _cut_moments(-tp - a, _SQRT_2_OVER_PI / exf, -tp)
    e_f = -e_f
    m1, m2 = _two_pieces(B, near, e_n, v_n, far, e_f, v_f)
    if t < 0.0:
        m1 = -m1
    return a * (0.5 * a - tp), B, m1, m2


@njit(cache=True)
def log_density(y, mu, s, phi):
    """``log f(y; mu, s^2, phi)`` of eq. 8 (Numba twin of ``reconstruct.convolved_logpdf``).

    Parameters
    ----------
    y : float
        The noisy value.
    mu, s : float
        Mean and standard deviation of the normal.
    phi : float
        The Laplace scale.

    Notes
    -----
    Hasegawa et al. eq. 8.
    """
    E, B, m1, m2 = dim_stats(y, mu, s, phi)
    return E + math.log(B) - math.log(4.0 * phi)


@njit(cache=True)
def log_components(Y, log_rho, mu, sd, phi):
    """``out[i, l] = log rho_l + sum_j log f(y_ij; mu_lj, sd_lj^2, phi_j)`` (eq. 6/19).

    Y (n, d), log_rho (K,), mu and sd (K, d), phi (d,) -> (n, K).

    Parameters
    ----------
    Y : float64 (n, d)
        Noisy records.
    log_rho : float64 (K,)
        Log mixture weights.
    mu, sd : float64 (K, d)
        Component means and standard deviations.
    phi : float64 (d,)
        Laplace scale per coordinate.

    Notes
    -----
    Hasegawa et al. eq. 6 / 19; O(n K d).
    """
    n, d = Y.shape
    K = mu.shape[0]
    out = np.empty((n, K))
    for i in range(n):
        for l in range(K):
            acc = log_rho[l]
            for j in range(d):
                acc += log_density(Y[i, j], mu[l, j], sd[l, j], phi[j])
            out[i, l] = acc
    return out


@njit(cache=True)
def component_moments(Y, gamma, mu, sd, phi):
    """Weighted posterior moment sums of one diagonal component (Algorithm 2, M-step-0).

    Returns ``N = sum_i gamma_i``, ``A1[j] = sum_i gamma_i E[(x_j - mu_j)/sd_j | y_i]`` and
    ``A2[j] = sum_i gamma_i E[((x_j - mu_j)/sd_j)^2 | y_i]``; Y (n, d), gamma (n,), mu/sd/phi (d,).

    Parameters
    ----------
    Y : float64 (n, d)
        Noisy records.
    gamma : float64 (n,)
        The component's responsibilities.
    mu, sd, phi : float64 (d,)
        The component's means and standard deviations, the Laplace scales.

    Notes
    -----
    Hasegawa et al. Algorithm 2 (M-step-0); O(n d).
    """
    n, d = Y.shape
    A1 = np.zeros(d)
    A2 = np.zeros(d)
    N = 0.0
    for i in range(n):
        g = gamma[i]
        if g == 0.0:
            continue
        N += g
        for j in range(d):
            E, B, m1, m2 = dim_stats(Y[i, j], mu[j], sd[j], phi[j])
            A1[j] += g * m1
            A2[j] += g * m2
    return N, A1, A2


@njit(cache=True)
def em_pass(Y, w, log_rho, mu, sd, phi, n_chunks):
    """One E-step of the diagonal model (eq. 10 with eq. 19) and its sufficient statistics.

    Y (n, d) noisy records, w (n,) record weights (counts for the histogram fit), log_rho (K,),
    mu and sd (K, d), phi (d,). Returns the log-likelihood ``L = sum_i w_i log g(y_i)`` (eq. 13)
    at these parameters, ``Nk[l] = sum_i w_i gamma_il`` (eq. 12) and, per component and
    coordinate, ``A1 = sum_i w_i gamma_il E[(x - mu)/sd | y_i, l]`` and
    ``A2 = sum_i w_i gamma_il E[((x - mu)/sd)^2 | y_i, l]``.

    The rows are summed in ``n_chunks`` fixed chunks, then the chunks in order (pairwise-style
    summation keeps rounding small for large n). Serial: on the shared 2-core machine a
    ``parallel=True`` variant was no faster (benchmarks/README.md).

    Parameters
    ----------
    Y, log_rho, mu, sd, phi
        As for :func:`log_components`.
    w : float64 (n,)
        Record weights.
    n_chunks : int
        Number of summation chunks.

    Notes
    -----
    Hasegawa et al. eq. 10, 12, 13 and 19 (the E-step of Algorithm 2); O(n K d).
    """
    n, d = Y.shape
    K = mu.shape[0]
    c0 = 0.0
    for j in range(d):
        c0 += math.log(4.0 * phi[j])
    Lp = np.zeros(n_chunks)
    Np = np.zeros((n_chunks, K))
    A1p = np.zeros((n_chunks, K, d))
    A2p = np.zeros((n_chunks, K, d))
    size = (n + n_chunks - 1) // n_chunks
    lf = np.empty(K)
    bp = np.empty(K)
    m1 = np.empty((K, d))
    m2 = np.empty((K, d))
    for c in range(n_chunks):
        lo = c * size
        hi = min(n, lo + size)
        for i in range(lo, hi):
            top = -np.inf
            for l in range(K):
                acc = log_rho[l]
                prod = 1.0
                for j in range(d):
                    E, B, a1, a2 = dim_stats(Y[i, j], mu[l, j], sd[l, j], phi[j])
                    acc += E
                    prod *= B
                    if prod < 1e-200:  # keep the product representable
                        acc += math.log(prod)
                        prod = 1.0
                    m1[l, j] = a1
                    m2[l, j] = a2
                lf[l] = acc
                bp[l] = prod
                if acc > top:
                    top = acc
            tot = 0.0
            for l in range(K):
                lf[l] = math.exp(lf[l] - top) * bp[l]
                tot += lf[l]
            wi = w[i]
            Lp[c] += wi * (top + math.log(tot) - c0)
            for l in range(K):
                g = wi * lf[l] / tot
                Np[c, l] += g
                for j in range(d):
                    A1p[c, l, j] += g * m1[l, j]
                    A2p[c, l, j] += g * m2[l, j]
    L = 0.0
    Nk = np.zeros(K)
    A1 = np.zeros((K, d))
    A2 = np.zeros((K, d))
    for c in range(n_chunks):
        L += Lp[c]
        for l in range(K):
            Nk[l] += Np[c, l]
            for j in range(d):
                A1[l, j] += A1p[c, l, j]
                A2[l, j] += A2p[c, l, j]
    return L, Nk, A1, A2
