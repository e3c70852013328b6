"""MHM ordering "npn": Nearest Point Next (Suzaki et al. section 3.2, procedure A).

Start at the record farthest from the centroid, then repeatedly the nearest unvisited
record (ties: lowest row). O(n^2 p) time, O(n p) memory. See :mod:`.path_order_common`.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ._common import nominal_row_dist
from .path_order_common import farthest_from_centroid_codes


@njit(cache=True, nogil=True)
def npn_order(X):
    """Nearest Point Next path (Suzaki et al. section 3.2): start at the record farthest from the
    centroid, then repeatedly the nearest unvisited record. O(n^2 p) time, O(n p) memory.
    """
    n = X.shape[0]
    return npn_order_codes(X, np.empty((n, 0), dtype=np.int32), np.zeros(1, dtype=np.int64),
                           np.empty(0, dtype=np.int64), np.ones(1), np.zeros(1, dtype=np.int64))


@njit(cache=True, nogil=True)
def npn_order_codes(X, C, off, gid, gw, done):
    """:func:`npn_order` on numeric features X (n, p) plus nominal columns as row-major codes
    C (n, mc) (see :func:`~.path_order_common.farthest_from_centroid_codes`): the path on their one-hot
    embedding, in O(n (p + mc) + sum U) memory. ``done[0]``: rows visited so far (the GIL is
    released, so another thread can show progress)."""
    n, p = X.shape
    mc = C.shape[1]
    order = np.empty(n, dtype=np.int64)
    if n == 0:
        return order
    A = X.copy()
    AC = C.copy()
    idx = np.arange(n)
    cur = np.empty(p)
    curc = np.empty((1, mc), dtype=C.dtype)
    pos = farthest_from_centroid_codes(X, C, off, gid, gw)
    m = n
    for t in range(n):
        done[0] = t
        r = idx[pos]
        order[t] = r
        for d in range(p):
            cur[d] = A[pos, d]
        for j in range(mc):
            curc[0, j] = AC[pos, j]
        m -= 1  # swap-remove pos
        if pos != m:
            for d in range(p):
                A[pos, d] = A[m, d]
            for j in range(mc):
                AC[pos, j] = AC[m, j]
            idx[pos] = idx[m]
        if m == 0:
            break
        best = np.inf
        pos = -1
        for i in range(m):
            s = 0.0
            for d in range(p):
                v = A[i, d] - cur[d]
                s += v * v
            if mc > 0:
                s += nominal_row_dist(AC, i, curc, 0, gid, gw)
            if pos < 0 or s < best or (s == best and idx[i] < idx[pos]):
                best = s
                pos = i
    return order
