"""MDAV: maximum distance to average vector (thesis 2.3.4, Domingo-Ferrer & Mateo-Sanz 2002).

The kernel keeps the unassigned records compacted at the front of a work copy (a removed
record swaps with the last live one), so every pass reads contiguous memory; the centroid
comes from running column sums. Ties go to the lowest original row index, so the result does
not depend on the storage order. O(n p) memory, O(n^2 p / k) time.
"""
from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, inline="always")
def _sqdist(A, i, v):
    s = 0.0
    for j in range(A.shape[1]):
        d = A[i, j] - v[j]
        s += d * d
    return s


@njit(cache=True)
def _farthest_from(A, idx, m, v):
    """Live position farthest from vector v (ties: lowest original index)."""
    best = -1.0
    bp = -1
    for i in range(m):
        d = _sqdist(A, i, v)
        if d > best or (d == best and idx[i] < idx[bp]):
            best = d
            bp = i
    return bp


@njit(cache=True)
def _nearest_group(A, idx, m, r, k, dist, chosen):
    """Positions of row r and its k-1 nearest live rows, written to chosen[:k].

    Also leaves the squared distance of every live row to row r in dist[:m].
    Order of neighbours: (distance, original index).
    """
    p = A.shape[1]
    v = A[r].copy()
    kk = k - 1
    bd = np.empty(kk + 1, dtype=np.float64)
    bi = np.empty(kk + 1, dtype=np.int64)
    cnt = 0
    for i in range(m):
        s = 0.0
        for j in range(p):
            d = A[i, j] - v[j]
            s += d * d
        dist[i] = s
        if i == r or kk == 0:
            continue
        if cnt == kk:
            last = bi[cnt - 1]
            if s > bd[cnt - 1] or (s == bd[cnt - 1] and idx[i] > idx[last]):
                continue
            cnt -= 1
        # insertion into the sorted buffer
        t = cnt
        while t > 0 and (bd[t - 1] > s or (bd[t - 1] == s and idx[bi[t - 1]] > idx[i])):
            bd[t] = bd[t - 1]
            bi[t] = bi[t - 1]
            t -= 1
        bd[t] = s
        bi[t] = i
        cnt += 1
    chosen[0] = r
    for t in range(kk):
        chosen[t + 1] = bi[t]


@njit(cache=True)
def _remove(A, idx, dist, sums, m, chosen, k, labels, label):
    """Label the rows at positions chosen[:k], subtract them from the sums, and swap them
    out of the live prefix; returns the new live count."""
    p = A.shape[1]
    # remove highest positions first so swaps never move a still-to-remove row
    pos = np.sort(chosen[:k])
    for t in range(k - 1, -1, -1):
        q = pos[t]
        labels[idx[q]] = label
        for j in range(p):
            sums[j] -= A[q, j]
        m -= 1
        if q != m:
            for j in range(p):
                A[q, j] = A[m, j]
            idx[q] = idx[m]
            dist[q] = dist[m]
    return m


@njit(cache=True)
def mdav_labels(X, k):
    """Group label per row of X (n, p) by classic MDAV with minimum group size k.

    Groups have exactly k rows except the last, which has k .. 2k-1. Labels are numbered in
    order of creation.
    """
    n, p = X.shape
    A = X.copy()
    idx = np.arange(n)
    labels = np.empty(n, dtype=np.uint32)
    dist = np.empty(n, dtype=np.float64)
    chosen = np.empty(k, dtype=np.int64)
    sums = np.zeros(p, dtype=np.float64)
    for i in range(n):
        for j in range(p):
            sums[j] += A[i, j]
    c = np.empty(p, dtype=np.float64)
    m = n
    label = 0
    while m >= 3 * k:
        for j in range(p):
            c[j] = sums[j] / m
        r = _farthest_from(A, idx, m, c)
        _nearest_group(A, idx, m, r, k, dist, chosen)
        # xs: farthest from xr among the rows outside xr's group (dist is to xr)
        for t in range(k):
            dist[chosen[t]] = -1.0
        s = -1
        best = -1.0
        for i in range(m):
            if dist[i] > best or (dist[i] == best and idx[i] < idx[s]):
                best = dist[i]
                s = i
        xs = idx[s]
        m = _remove(A, idx, dist, sums, m, chosen, k, labels, label)
        label += 1
        # locate xs again after the swaps
        for i in range(m):
            if idx[i] == xs:
                s = i
                break
        _nearest_group(A, idx, m, s, k, dist, chosen)
        m = _remove(A, idx, dist, sums, m, chosen, k, labels, label)
        label += 1
    if m >= 2 * k:
        for j in range(p):
            c[j] = sums[j] / m
        r = _farthest_from(A, idx, m, c)
        _nearest_group(A, idx, m, r, k, dist, chosen)
        m = _remove(A, idx, dist, sums, m, chosen, k, labels, label)
        label += 1
    for i in range(m):
        labels[idx[i]] = label
    return labels
