"""Multinomial logit likelihood on one-hot categorical designs (Sano & Hattori, section 4.3);
the optimiser is scipy's L-BFGS-B (:func:`polars_sdc.utility.logit.fit_multinomial_onehot`)."""
from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def onehot_objective(theta, idx, C, l2):
    """Penalised negative log-likelihood of the multinomial logit and its gradient, for a
    design given by the positions of its ones.

    ``theta`` (flat, (d+1)(K-1)): row 0 the intercepts, rows 1..d the slopes of classes
    1..K-1 (class 0 is the baseline, eta_0 = 0). ``idx`` (U, m): for each distinct pattern
    u and input j the design column of its level, or -1 for the reference level. ``C`` (U, K):
    count of each class with pattern u. Returns
    ``f = sum_u [N_u logsumexp(eta_u) - sum_k C_uk eta_uk] + l2/2 |slopes|^2`` and df/dtheta;
    O(U m K) instead of the O(U d K) of a dense product.

    Parameters
    ----------
    theta : float64 ((d + 1) (K - 1),)
        The parameters, flat.
    idx : int array (U, m)
        Design column per pattern and input (-1: reference level).
    C : float64 (U, K)
        Class counts per pattern.
    l2 : float
        Ridge penalty of the slopes.

    Notes
    -----
    The model of Sano & Hattori's utility measure (multinomial logit on the recoded inputs).
    """
    U, m = idx.shape
    K = C.shape[1]
    Km = K - 1
    d = theta.size // Km - 1
    W = theta.reshape((d + 1, Km))
    G = np.zeros((d + 1, Km))
    eta = np.empty(K)
    z = np.empty(K)
    f = 0.0
    for u in range(U):
        eta[0] = 0.0
        for k in range(Km):
            eta[k + 1] = W[0, k]
        for j in range(m):
            c = idx[u, j]
            if c >= 0:
                for k in range(Km):
                    eta[k + 1] += W[c + 1, k]
        mx = eta[0]
        for k in range(1, K):
            if eta[k] > mx:
                mx = eta[k]
        s = 0.0
        for k in range(K):
            z[k] = np.exp(eta[k] - mx)
            s += z[k]
        lse = mx + np.log(s)
        N = 0.0
        dot = 0.0
        for k in range(K):
            N += C[u, k]
            dot += C[u, k] * eta[k]
        f += N * lse - dot
        scale = N / s
        for k in range(Km):
            r = z[k + 1] * scale - C[u, k + 1]
            G[0, k] += r
            for j in range(m):
                c = idx[u, j]
                if c >= 0:
                    G[c + 1, k] += r
    for i in range(1, d + 1):
        for k in range(Km):
            f += 0.5 * l2 * W[i, k] * W[i, k]
            G[i, k] += l2 * W[i, k]
    return f, G.ravel()
