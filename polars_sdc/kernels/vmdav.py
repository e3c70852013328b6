"""V-MDAV: variable-size MDAV (thesis 2.3.4, Solanas & Martinez-Balleste 2006).

The original precomputes every pairwise distance (O(n^2) memory). Here the unassigned
records stay compacted at the front of a column-major work copy (a removed record swaps with
the last live one), each live record keeps its squared distance to the fixed centroid
(``dc``) and to the nearest member of the group being built (``dD``, updated when a record
joins). Finding x_r and e_min is then a scan over one array; the scan that measures d_out
(e_min to its nearest unassigned record) also gives the distances that update ``dD`` when
e_min joins. O(n p) memory,
O(n^2 p) time in the worst case. For one column (p = 1) the unassigned records always form
a contiguous run of the sorted values, and :func:`vmdav_labels_1d` runs in O(n log n).
Nominal columns come as codes (:func:`vmdav_nominal`, the discrete distance of
:mod:`._common` from level counts), never one-hot: O(n (p + mc) + sum U) memory.

First-call compile time: the kernel takes the nominal state as one argument ``nom`` that is
None for numeric data, and every nominal step sits under ``if nom is not None`` (Numba
prunes that branch on a None argument before typing), so a numeric call compiles none of
the nominal code (a nominal call compiles its own specialisation). The scratch arrays are
allocated once in the kernel, in three kinds (1-d int64, 1-d / 2-d float64), and passed to
the helpers: Numba compiles ``np.empty`` / ``np.zeros`` once per argument types *and* per
the calling function's flags (a helper's differ from a kernel's), each ~0.1 s.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ._common import helper, add_nominal, level_counts, mean_query, nominal_part, point_query

_BLOCK = 256


@helper
def _sq_dists(A, m, v, out, acc):
    """out[i] = |A[:, i] - v|^2 for the live columns i < m of the (p, n) work array A
    (blocked so the inner loop runs over contiguous rows; ``acc``: float64 scratch of
    ``_BLOCK``)."""
    p = A.shape[0]
    for b in range(0, m, _BLOCK):
        w = min(b + _BLOCK, m) - b
        for t in range(w):
            acc[t] = 0.0
        for j in range(p):
            vj = v[j]
            for t in range(w):
                d = A[j, b + t] - vj
                acc[t] += d * d
        for t in range(w):
            out[b + t] = acc[t]


@helper
def _k_nearest(dist, idx, m, r, k, chosen, bd, bi):
    """chosen[:k] = r and the k-1 other live positions with the smallest (dist, row index)
    (``bd`` float64 / ``bi`` int64: scratch of k)."""
    kk = k - 1
    cnt = np.int64(0)
    for i in range(m):
        if i == r or kk == 0:
            continue
        s = dist[i]
        if cnt == kk:
            if s > bd[cnt - 1] or (s == bd[cnt - 1] and idx[i] > idx[bi[cnt - 1]]):
                continue
            cnt -= 1
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


@helper
def _drop(A, idx, dc, dD, m, q, nom):
    """Swap live position q with the last live one; returns the new live count."""
    m -= 1
    if q != m:
        for j in range(A.shape[0]):
            A[j, q] = A[j, m]
        if nom is not None:
            AC = nom[1]
            for j in range(AC.shape[0]):
                AC[j, q] = AC[j, m]
        idx[q] = idx[m]
        dc[q] = dc[m]
        dD[q] = dD[m]
    return m


@helper
def _insertion_sort(a, m):
    """Sort a[:m] in place (ascending; m is small: a group's k positions)."""
    for t in range(1, m):
        v = a[t]
        u = t
        while u > 0 and a[u - 1] > v:
            a[u] = a[u - 1]
            u -= 1
        a[u] = v


@helper
def _leftover_nominal(labels, n_groups, rows, n_rows, counts, nom):
    """(n_rows, n_groups): the nominal part of the squared distance of each leftover row
    rows[t] to each group's mean (groups as formed, counts ``counts``; leftovers carry the
    label n_groups), from the level counts of each group."""
    codes, AC, off, gid, gw = nom[0], nom[1], nom[2], nom[3], nom[4]
    n = labels.shape[0]
    mc = codes.shape[1]
    nomd = np.zeros((n_rows, n_groups), dtype=np.float64)
    # the labelled rows grouped by label, in row order within a group (a counting sort;
    # loops, not argsort / boolean masks / fancy indexing: each of those compiles a
    # Numba library function of its own on first use)
    start = np.zeros(n_groups + 1, dtype=np.int64)
    for g in range(n_groups):
        start[g + 1] = start[g] + counts[g]
    fill = np.empty(n_groups, dtype=np.int64)
    for g in range(n_groups):
        fill[g] = start[g]
    kept = np.empty(n - n_rows, dtype=np.int64)
    for i in range(n):
        if labels[i] != n_groups:
            kept[fill[labels[i]]] = i
            fill[labels[i]] += 1
    gcnt = np.zeros(off[mc], dtype=np.int64)
    Q = np.zeros(mc, dtype=np.int64)
    K = np.empty(mc, dtype=np.int64)
    acc = np.empty((gw.shape[0], 1), dtype=np.int64)
    CC = np.empty((mc, n_rows), dtype=codes.dtype)  # the leftover rows' codes, column-major
    for t in range(n_rows):
        for j in range(mc):
            CC[j, t] = codes[rows[t], j]
    for g in range(n_groups):
        a = start[g]
        b = start[g + 1]
        for j in range(mc):
            Q[j] = 0
        for h in range(a, b):
            i = kept[h]
            for j in range(mc):
                u = off[j] + codes[i, j]
                Q[j] += 2 * gcnt[u] + 1
                gcnt[u] += 1
        tq, m2 = mean_query(gcnt, Q, counts[g], K)
        for t in range(n_rows):
            nomd[t, g] = nominal_part(CC, t, off, gid, gw, gcnt, K, tq, m2, acc)
        for h in range(a, b):
            i = kept[h]
            for j in range(mc):
                gcnt[off[j] + codes[i, j]] = 0
    return nomd


@helper
def _join_leftovers(X, labels, n_groups, rows, n_rows, counts, means, nom):
    """Each row in rows[:n_rows] (unlabelled) joins the group whose centroid is nearest
    (centroids of the groups as formed, before any leftover joins; ties: lowest label); the
    nominal columns (``nom``, see :func:`vmdav_nominal`; None: none) count by the level
    counts of each group. ``counts`` (int64, n_groups) and ``means`` (float64, (n_groups,
    p)): scratch for the groups' sizes and means."""
    if n_rows == 0:
        return
    n, p = X.shape
    for t in range(n_rows):
        labels[rows[t]] = n_groups  # marks the leftovers: the means of the groups as formed
    # the means: sums in row order, each divided by its count (the order of
    # _common.group_means, hence the same values)
    for g in range(n_groups):
        counts[g] = 0
        for j in range(p):
            means[g, j] = 0.0
    for i in range(n):
        g = labels[i]
        if g != n_groups:
            counts[g] += 1
            for j in range(p):
                means[g, j] += X[i, j]
    for g in range(n_groups):
        if counts[g] > 0:
            for j in range(p):
                means[g, j] /= counts[g]
    if nom is not None:
        nomd = _leftover_nominal(labels, n_groups, rows, n_rows, counts, nom)
    for t in range(n_rows):
        i = rows[t]
        best = np.inf
        bg = np.int64(0)
        for g in range(n_groups):
            s = 0.0
            for j in range(p):
                d = X[i, j] - means[g, j]
                s += d * d
            if nom is not None:
                s += nomd[t, g]
            if s < best:
                best = s
                bg = g
        labels[i] = bg


@njit(cache=True, nogil=True)
def vmdav_nominal(codes, off, gid, gw):
    """The nominal state ``nom`` of :func:`vmdav_labels_codes` from the codes (n, mc) int32
    with the level offsets ``off``, weight groups ``gid`` and their a^2 ``gw``
    (:mod:`._common`): (codes, their column-major work copy (mc, n), off, gid, gw, the point
    query's scratch (pcnt, Kp, pnt), the query of the centroid of all rows)."""
    n, mc = codes.shape
    AC = np.empty((mc, n), dtype=codes.dtype)  # column-major; live rows compacted at the front
    for i in range(n):
        for j in range(mc):
            AC[j, i] = codes[i, j]
    ccnt, cQ = level_counts(codes, off)  # level counts of all rows (the fixed centroid)
    Kc = np.empty(mc, dtype=np.int64)
    tqc, m2c = mean_query(ccnt, cQ, n, Kc)
    acc = np.empty((gw.shape[0], n), dtype=np.int64)
    pcnt = np.zeros(off[mc], dtype=np.int64)  # a row's indicator (point queries)
    Kp = np.empty(mc, dtype=np.int64)
    pnt = (off, gid, gw, pcnt, Kp, np.int64(2), 1.0, acc)  # int64, not a literal 2
    return (codes, AC, off, gid, gw, pnt, (off, gid, gw, ccnt, Kc, tqc, m2c, acc))


@helper
def _row_dists(A, m, x, v, out, acc, nom):
    """out[i] = squared distance from live position x to each live position i < m: the
    numeric columns of the (p, n) work array A (``v``: scratch for x's values), then the
    nominal codes (``nom``; None: none) by a point query (see :func:`add_nominal`)."""
    for j in range(A.shape[0]):
        v[j] = A[j, x]
    _sq_dists(A, m, v, out, acc)
    if nom is not None:
        AC, pnt = nom[1], nom[5]
        off, pcnt, Kp = pnt[0], pnt[3], pnt[4]
        point_query(AC, x, off, pcnt, Kp, np.bool_(True))  # np.* values: no literal-typed
        add_nominal(AC, np.int64(0), m, out, pnt)          # compilations of the helpers
        point_query(AC, x, off, pcnt, Kp, np.bool_(False))


@njit(cache=True, nogil=True)
def vmdav_labels_codes(X, nom, k, gamma, done):
    """Group label per row of X (n, p) by V-MDAV with minimum size k and gain factor gamma.

    c = centroid of all rows, computed once. While >= k rows are unassigned: x_r = the
    unassigned row farthest from c; D = x_r and its k-1 nearest unassigned rows; then while
    |D| < 2k-1: e_min = the unassigned row nearest to D (distance to D's nearest member,
    d_in), d_out = distance from e_min to its nearest other unassigned row (infinite when
    there is none); e_min joins D if d_in < gamma * d_out, else D is closed. Rows left
    over (< k) join the group with the nearest centroid. Ties: lowest row index. Labels in
    order of creation. Nominal columns: ``nom`` = :func:`vmdav_nominal` of their codes
    (None: numeric only, a specialisation without the nominal code); same partition as on
    the one-hot embedding. ``done``: an int64 array of one element that holds the number of
    rows grouped so far, updated after every group with the GIL released (another thread
    can read it to show progress). One function, no wrapper: an @njit layer on top of the
    body would compile the body's machine code once more on first use.
    """
    n, p = X.shape
    A = np.empty((p, n), dtype=np.float64)  # (p, n) work copy; live rows compacted at the front
    for i in range(n):
        for j in range(p):
            A[j, i] = X[i, j]
    idx = np.empty(n, dtype=np.int64)
    for i in range(n):
        idx[i] = i
    labels = np.empty(n, dtype=np.uint32)
    dc = np.empty(n, dtype=np.float64)  # squared distance to the centroid c (fixed)
    dD = np.empty(n, dtype=np.float64)  # squared distance to the nearest member of D
    tmp = np.empty(n, dtype=np.float64)
    chosen = np.empty(k, dtype=np.int64)
    bd = np.empty(k, dtype=np.float64)  # scratch of _k_nearest
    bi = np.empty(k, dtype=np.int64)
    blk = np.empty(_BLOCK, dtype=np.float64)  # scratch of _sq_dists
    c = np.empty(p, dtype=np.float64)
    for j in range(p):
        c[j] = 0.0
    for i in range(n):
        for j in range(p):
            c[j] += X[i, j]
    for j in range(p):
        c[j] /= n
    _sq_dists(A, n, c, dc, blk)
    if nom is not None:
        add_nominal(nom[1], np.int64(0), n, dc, nom[6])
    g2 = gamma * gamma
    v = np.empty(p, dtype=np.float64)
    m = n
    label = np.int64(0)  # np.int64 (not literal 0s): each helper compiles once
    while m >= k:
        # x_r: farthest from c (ties: lowest row index)
        r = np.int64(0)
        for i in range(1, m):
            if dc[i] > dc[r] or (dc[i] == dc[r] and idx[i] < idx[r]):
                r = i
        _row_dists(A, m, r, v, dD, blk, nom)
        _k_nearest(dD, idx, m, r, k, chosen, bd, bi)
        for t in range(1, k):
            _row_dists(A, m, chosen[t], v, tmp, blk, nom)
            for i in range(m):
                if tmp[i] < dD[i]:
                    dD[i] = tmp[i]
        _insertion_sort(chosen, k)  # (np.sort compiles a quicksort of its own)
        for t in range(k - 1, -1, -1):
            labels[idx[chosen[t]]] = label
            m = _drop(A, idx, dc, dD, m, chosen[t], nom)
        size = k
        while size < 2 * k - 1 and m > 0:
            e = np.int64(0)
            for i in range(1, m):
                if dD[i] < dD[e] or (dD[i] == dD[e] and idx[i] < idx[e]):
                    e = i
            if m == 1:
                join = gamma > 0.0
            else:
                _row_dists(A, m, e, v, tmp, blk, nom)
                d_out2 = np.inf
                for i in range(m):
                    if i != e and tmp[i] < d_out2:
                        d_out2 = tmp[i]
                join = dD[e] < g2 * d_out2
            if not join:
                break
            if m > 1:
                for i in range(m):
                    if tmp[i] < dD[i]:
                        dD[i] = tmp[i]
            labels[idx[e]] = label
            m = _drop(A, idx, dc, dD, m, e, nom)
            size += 1
        label += 1
        done[0] = n - m
    # the leftovers are the live rows idx[:m]
    _join_leftovers(X, labels, label, idx, m, np.empty(label, dtype=np.int64),
                    np.empty((label, p), dtype=np.float64), nom)
    done[0] = n
    return labels


def vmdav_labels(X, k, gamma, done=None):
    """:func:`vmdav_labels_codes` without nominal columns (X: float64 C-contiguous (n, p))."""
    if done is None:
        done = np.zeros(1, dtype=np.int64)
    return vmdav_labels_codes(X, None, int(k), float(gamma), done)


@njit(cache=True, nogil=True)
def vmdav_labels_1d(x, k, gamma):
    """:func:`vmdav_labels` for one column x (n,), in O(n log n).

    With one column the unassigned values are always one contiguous run [lo, hi] of the
    sorted values: x_r is one end of the run (|x - c| is convex), D takes the k values at
    that end, e_min is the next value inward, d_in its gap to D and d_out its gap to the
    value after it. Same groups and labels as :func:`vmdav_labels` when the values are
    distinct (with ties only the choice among equal values may differ).
    """
    n = x.shape[0]
    order = np.argsort(x, kind="mergesort")
    s = x[order]
    labels = np.empty(n, dtype=np.uint32)
    c = 0.0
    for i in range(n):
        c += x[i]
    c /= n
    lo = 0
    hi = n - 1
    label = 0
    while hi - lo + 1 >= k:
        dlo = (s[lo] - c) ** 2
        dhi = (s[hi] - c) ** 2
        top = dhi > dlo or (dhi == dlo and order[hi] < order[lo])
        if top:
            for t in range(k):
                labels[order[hi - t]] = label
            hi -= k
            size = k
            while size < 2 * k - 1 and hi >= lo:
                d_in = s[hi + 1] - s[hi]
                if hi > lo:
                    join = d_in < gamma * (s[hi] - s[hi - 1])
                else:
                    join = gamma > 0.0
                if not join:
                    break
                labels[order[hi]] = label
                hi -= 1
                size += 1
        else:
            for t in range(k):
                labels[order[lo + t]] = label
            lo += k
            size = k
            while size < 2 * k - 1 and lo <= hi:
                d_in = s[lo] - s[lo - 1]
                if lo < hi:
                    join = d_in < gamma * (s[lo + 1] - s[lo])
                else:
                    join = gamma > 0.0
                if not join:
                    break
                labels[order[lo]] = label
                lo += 1
                size += 1
        label += 1
    m = hi - lo + 1
    rows = np.empty(max(m, 0), dtype=np.int64)
    for t in range(m):
        rows[t] = order[lo + t]
    _join_leftovers(x.reshape(n, 1), labels, label, rows, m, np.empty(label, dtype=np.int64),
                    np.empty((label, 1), dtype=np.float64), None)
    return labels
