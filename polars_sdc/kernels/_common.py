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
