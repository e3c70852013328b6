"""MHM ordering "npn": Nearest Point Next (Suzaki et al. section 3.2, procedure A).

Start at the record farthest from the centroid, then repeatedly the nearest unvisited
record (ties: lowest row). O(n^2 p) time, O(n p) memory. See :mod:`.path_order_common`.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ._common import nominal_row_dist
from .path_order_common import farthest_from_centroid_codes


def npn_order(X):
    """Nearest Point Next path (Suzaki et al. section 3.2): start at the record farthest from the
    centroid, then repeatedly the nearest unvisited record. O(n^2 p) time, O(n p) memory.

    >>> npn_order(np.array([[0.0], [10.0], [1.0], [9.0]])).tolist()
    [0, 2, 3, 1]
    """
    return npn_order_codes(np.ascontiguousarray(X, dtype=np.float64), None, None, None, None,
                           np.zeros(1, dtype=np.int64))


def npn_order_codes(X, C, off, gid, gw, done):
    """:func:`npn_order` on numeric features X (n, p) plus nominal columns as row-major codes
    C (n, mc) (see :func:`~.path_order_common.farthest_from_centroid_codes`; C None or with no
    column: numeric only): the path on their one-hot embedding, in O(n (p + mc) + sum U)
    memory. ``done[0]``: rows visited so far (the GIL is released, so another thread can
    show progress). The start row and the walk are two kernels called from here: a kernel
    calling another re-optimises the callee's machine code inside its own."""
    if C is not None and C.shape[1] == 0:
        C = off = gid = gw = None  # numeric only: the nominal code is not compiled
    first = farthest_from_centroid_codes(X, C, off, gid, gw) if X.shape[0] else 0
    return _npn_path(X, C, gid, gw, np.int64(first), done)


@njit(cache=True, nogil=True)
def _npn_path(X, C, gid, gw, first, done):
    """The walk of :func:`npn_order_codes` from row ``first``."""
    n, p = X.shape
    order = np.empty(n, dtype=np.int64)
    if n == 0:
        return order
    A = X.copy()
    if C is not None:
        mc = C.shape[1]
        AC = C.copy()
        curc = np.empty((1, mc), dtype=C.dtype)
    idx = np.arange(n)
    cur = np.empty(p)
    pos = first
    m = n
    for t in range(n):
        done[0] = t
        r = idx[pos]
        order[t] = r
        for d in range(p):
            cur[d] = A[pos, d]
        if C is not None:
            for j in range(mc):
                curc[0, j] = AC[pos, j]
        m -= 1  # swap-remove pos
        if pos != m:
            for d in range(p):
                A[pos, d] = A[m, d]
            if C is not None:
                for j in range(mc):
                    AC[pos, j] = AC[m, j]
            idx[pos] = idx[m]
        if m == 0:
            break
        best = np.inf
        pos = np.int64(-1)
        for i in range(m):
            s = 0.0
            for d in range(p):
                v = A[i, d] - cur[d]
                s += v * v
            if C is not None:
                s += nominal_row_dist(AC, i, curc, 0, gid, gw)
            if pos < 0 or s < best or (s == best and idx[i] < idx[pos]):
                best = s
                pos = i
    return order
