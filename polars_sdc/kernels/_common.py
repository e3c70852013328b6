"""Small Numba helpers shared by several kernels."""
from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def sq_dist_rows(X, a, b):
    """Squared Euclidean distance between rows a and b of X (n, p)."""
    s = 0.0
    for d in range(X.shape[1]):
        v = X[a, d] - X[b, d]
        s += v * v
    return s


@njit(cache=True)
def widest_dim(X, rows, a, b):
    """The column with the widest range over the rows rows[a:b] of X (ties: lowest column)."""
    best = -1.0
    dim = 0
    for j in range(X.shape[1]):
        lo = np.inf
        hi = -np.inf
        for t in range(a, b):
            x = X[rows[t], j]
            lo = min(lo, x)
            hi = max(hi, x)
        if hi - lo > best:
            best = hi - lo
            dim = j
    return dim


@njit(cache=True)
def topk_insert(bd, bi, found, kk, d, o):
    """Insert (d, o) into the kk smallest distances bd / their ids bi, kept sorted by
    (distance, id) with ``found`` entries so far; returns the new count. When full, (d, o)
    enters only if it beats the last entry (a tie goes to the lower id)."""
    if found == kk:
        if d > bd[kk - 1] or (d == bd[kk - 1] and o > bi[kk - 1]):
            return found
        found -= 1
    u = found
    while u > 0 and (bd[u - 1] > d or (bd[u - 1] == d and bi[u - 1] > o)):
        bd[u] = bd[u - 1]
        bi[u] = bi[u - 1]
        u -= 1
    bd[u] = d
    bi[u] = o
    return found + 1


@njit(cache=True)
def group_sums(X, labels, n_groups):
    """(counts (G,), sums (G, p)) of the rows of X (n, p) per label in [0, n_groups)."""
    n, p = X.shape
    counts = np.zeros(n_groups, dtype=np.int64)
    sums = np.zeros((n_groups, p), dtype=np.float64)
    for i in range(n):
        g = labels[i]
        counts[g] += 1
        for j in range(p):
            sums[g, j] += X[i, j]
    return counts, sums
