"""MDAV: maximum distance to average vector (thesis 2.3.4, Domingo-Ferrer & Mateo-Sanz 2002).

Layout for speed, same result as the textbook algorithm:
- the unassigned records live compacted in a column-major work copy (a removed record swaps
  with the last live one); distances are computed in blocks of rows that stay in L1 while the
  columns stream by, vectorised across rows, and the k-nearest selection rides on the last
  column's loop;
- the record farthest from the centroid is found without a full pass most of the time: each
  row keeps its distance to a reference centroid, and by the triangle inequality only rows
  whose bound can reach the current maximum are measured exactly (the reference is refreshed
  when the centroid has drifted too far);
- ties go to the lowest original row index, so the result does not depend on storage order.
O(n p) memory, O(n^2 p / k) time in the worst case.
"""
from __future__ import annotations

import numpy as np
from numba import njit

_BLOCK = 2048  # rows per block: the block's distances stay in L1 while the p columns stream by


@njit(cache=True, inline="always")
def _partial_block(A, b, e, q, p_used, ob):
    """ob[t] = sum_{j < p_used} (A[j, b + t] - q[j])^2 for the rows b..e-1."""
    w = e - b
    for t in range(w):
        ob[t] = 0.0
    for j in range(p_used):
        qj = q[j]
        Ab = A[j, b:e]
        for t in range(w):
            d = Ab[t] - qj
            ob[t] += d * d


@njit(cache=True)
def _sq_dists(A, m, v, out):
    """out[i] = |A[:, i] - v|^2 for the live columns i < m (blocked, vectorised over rows)."""
    p = A.shape[0]
    for b in range(0, m, _BLOCK):
        e = min(b + _BLOCK, m)
        _partial_block(A, b, e, v, p, out[b:e])


@njit(cache=True)
def _sq_dist_one(A, i, v):
    s = 0.0
    for j in range(A.shape[0]):
        d = A[j, i] - v[j]
        s += d * d
    return s


@njit(cache=True)
def _argmax(dist, idx, m):
    """Live position with the largest dist (ties: lowest original index)."""
    best = -np.inf
    bp = -1
    for i in range(m):
        d = dist[i]
        if d > best or (d == best and idx[i] < idx[bp]):
            best = d
            bp = i
    return bp


@njit(cache=True)
def _nearest_and_farthest(A, idx, m, r, k, dist, chosen):
    """Distances of every live row to row r (into dist), chosen[:k] = r and its k-1 nearest
    live rows by (distance, original index); returns the position of the farthest row
    outside chosen (ties: lowest original index).

    The last coordinate's loop also keeps the k-1 best so far, so selection costs no pass.
    """
    p = A.shape[0]
    kk = k - 1
    q = A[:, r].copy()
    qlast = q[p - 1]
    bd = np.empty(kk + 1, dtype=np.float64)
    bi = np.empty(kk + 1, dtype=np.int64)
    cnt = 0
    thr = np.inf
    far = -1.0
    fp = -1
    for b in range(0, m, _BLOCK):
        e = min(b + _BLOCK, m)
        ob = dist[b:e]
        _partial_block(A, b, e, q, p - 1, ob)
        Al = A[p - 1, b:e]
        for t in range(e - b):
            i = b + t
            d = Al[t] - qlast
            s = ob[t] + d * d
            ob[t] = s
            if s > far or (s == far and idx[i] < idx[fp]):
                far = s
                fp = i
            if s > thr or i == r or kk == 0:
                continue
            if cnt == kk:
                if s == thr and idx[i] > idx[bi[cnt - 1]]:
                    continue
                cnt -= 1
            u = cnt
            while u > 0 and (bd[u - 1] > s or (bd[u - 1] == s and idx[bi[u - 1]] > idx[i])):
                bd[u] = bd[u - 1]
                bi[u] = bi[u - 1]
                u -= 1
            bd[u] = s
            bi[u] = i
            cnt += 1
            if cnt == kk:
                thr = bd[kk - 1]
    chosen[0] = r
    for t in range(kk):
        chosen[t + 1] = bi[t]
    # the farthest row is in the group only when distances tie; then search outside it
    inside = False
    for t in range(k):
        if chosen[t] == fp:
            inside = True
    if inside:
        saved = np.empty(k, dtype=np.float64)
        for t in range(k):
            saved[t] = dist[chosen[t]]
            dist[chosen[t]] = -1.0
        fp = _argmax(dist, idx, m)
        for t in range(k):
            dist[chosen[t]] = saved[t]
    return fp


@njit(cache=True)
def _nearest_pruned(A, idx, m, s, k, dist_r, chosen):
    """chosen[:k] = s and its k-1 nearest live rows by (distance, original index), where
    dist_r holds every live row's squared distance to a row r and row s is the farthest
    from r. By the triangle inequality |x - s| >= |s - r| - |x - r|, so a row is measured
    only if that bound does not already exceed the current (k-1)-th best distance."""
    p = A.shape[0]
    kk = k - 1
    q = A[:, s].copy()
    big = np.sqrt(dist_r[s])
    margin = 1e-9 * (big + 1.0)
    bd = np.empty(kk + 1, dtype=np.float64)
    bi = np.empty(kk + 1, dtype=np.int64)
    cnt = 0
    thr = np.inf
    floor = -1.0  # rows with dist_r below floor are too close to r to be near s
    for i in range(m):
        if i == s or kk == 0 or dist_r[i] < floor:
            continue
        v = 0.0
        for j in range(p):
            d = A[j, i] - q[j]
            v += d * d
        if v > thr:
            continue
        if cnt == kk:
            if v == thr and idx[i] > idx[bi[cnt - 1]]:
                continue
            cnt -= 1
        u = cnt
        while u > 0 and (bd[u - 1] > v or (bd[u - 1] == v and idx[bi[u - 1]] > idx[i])):
            bd[u] = bd[u - 1]
            bi[u] = bi[u - 1]
            u -= 1
        bd[u] = v
        bi[u] = i
        cnt += 1
        if cnt == kk:
            thr = bd[kk - 1]
            lo = big - np.sqrt(thr) - margin
            floor = lo * lo if lo > 0 else -1.0
    chosen[0] = s
    for t in range(kk):
        chosen[t + 1] = bi[t]


@njit(cache=True)
def _remove(A, idx, dist, refd, sums, m, chosen, k, labels, label):
    """Label the rows at positions chosen[:k], drop them from the sums and swap them out of
    the live prefix; returns the new live count."""
    p = A.shape[0]
    pos = np.sort(chosen[:k])
    for t in range(k - 1, -1, -1):
        q = pos[t]
        labels[idx[q]] = label
        for j in range(p):
            sums[j] -= A[j, q]
        m -= 1
        if q != m:
            for j in range(p):
                A[j, q] = A[j, m]
            idx[q] = idx[m]
            dist[q] = dist[m]
            refd[q] = refd[m]
    return m


@njit(cache=True)
def _farthest_from_centroid(A, idx, m, c, refc, refd, dist):
    """Position of the live row farthest from c (ties: lowest index), using the reference
    distances refd (to refc) as triangle-inequality bounds; refreshes them when too loose."""
    p = A.shape[0]
    delta = 0.0
    for j in range(p):
        d = c[j] - refc[j]
        delta += d * d
    delta = np.sqrt(delta)
    lower = -np.inf
    for i in range(m):
        if refd[i] > lower:
            lower = refd[i]
    lower -= delta
    margin = 1e-9 * (lower + 2.0 * delta + 1.0)
    cut = lower - delta - margin
    limit = max(64, m // 16)
    ncand = 0
    best = -np.inf
    bp = -1
    for i in range(m):
        if refd[i] >= cut:
            ncand += 1
            if ncand > limit:
                break
            d = _sq_dist_one(A, i, c)
            if d > best or (d == best and idx[i] < idx[bp]):
                best = d
                bp = i
    if ncand <= limit:
        return bp
    # bounds too loose: measure everything against the new centroid and make it the reference
    _sq_dists(A, m, c, dist)
    for j in range(p):
        refc[j] = c[j]
    for i in range(m):
        refd[i] = np.sqrt(dist[i])
    return _argmax(dist, idx, m)


@njit(cache=True)
def mdav_labels(X, k):
    """Group label per row of X (n, p) by classic MDAV with minimum group size k.

    While >= 3k rows are left: xr = farthest from the centroid, xs = farthest from xr (among
    rows outside xr's group); groups of xr and its k-1 nearest, then xs and its k-1 nearest.
    With 2k..3k-1 left, one group around the row farthest from the centroid; the rest is the
    last group. Labels are numbered in order of creation.
    """
    n, p = X.shape
    A = np.ascontiguousarray(X.T)
    idx = np.arange(n)
    labels = np.empty(n, dtype=np.uint32)
    dist = np.empty(n, dtype=np.float64)
    refd = np.empty(n, dtype=np.float64)
    chosen = np.empty(k, dtype=np.int64)
    sums = np.zeros(p, dtype=np.float64)
    for j in range(p):
        s = 0.0
        for i in range(n):
            s += A[j, i]
        sums[j] = s
    c = np.empty(p, dtype=np.float64)
    refc = np.empty(p, dtype=np.float64)
    for j in range(p):
        refc[j] = sums[j] / n
    _sq_dists(A, n, refc, dist)
    for i in range(n):
        refd[i] = np.sqrt(dist[i])
    m = n
    label = 0
    while m >= 2 * k:
        for j in range(p):
            c[j] = sums[j] / m
        r = _farthest_from_centroid(A, idx, m, c, refc, refd, dist)
        far = _nearest_and_farthest(A, idx, m, r, k, dist, chosen)
        if m < 3 * k:
            m = _remove(A, idx, dist, refd, sums, m, chosen, k, labels, label)
            label += 1
            break
        xs = idx[far]
        m = _remove(A, idx, dist, refd, sums, m, chosen, k, labels, label)
        label += 1
        s = 0
        for i in range(m):
            if idx[i] == xs:
                s = i
                break
        _nearest_pruned(A, idx, m, s, k, dist, chosen)
        m = _remove(A, idx, dist, refd, sums, m, chosen, k, labels, label)
        label += 1
    for i in range(m):
        labels[idx[i]] = label
    return labels
