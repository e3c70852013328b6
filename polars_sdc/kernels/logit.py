"""Multinomial logit likelihood on one-hot categorical designs (seed 002, section 4.3)."""
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


@njit(cache=True)
def _scaled_objective(theta, idx, C, l2_sum, n):
    f, g = onehot_objective(theta, idx, C, l2_sum)
    return f / n, g / n


@njit(cache=True)
def lbfgs_onehot(theta0, idx, C, l2_sum, n, memory, gtol, maxiter):
    """Minimise ``onehot_objective(theta) / n`` by L-BFGS (two-loop recursion, ``memory``
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
