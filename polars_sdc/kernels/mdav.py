"""MDAV: maximum distance to average vector (thesis 2.3.4, Domingo-Ferrer & Mateo-Sanz 2002).

Same result as the textbook algorithm (ties to the lowest original row index), found with a
branch-and-bound search instead of full passes over the data:

- the rows are stored row-major in the leaf order of a kd-tree (median splits on the widest
  column, leaves of at most ``_LEAF`` rows); a removed row swaps with the last live row of its
  leaf, and the leaf's and its ancestors' live counts and bounds are refitted;
- every node keeps a tight bounding box of its live rows and the range [rmin, rmax] of their
  distances to a reference point (the centroid at the last refresh);
- the k-1 nearest rows of a query are searched nearest-node-first and a node is skipped when
  a lower bound of its distances exceeds the current (k-1)-th best; the farthest row is
  searched farthest-node-first with upper bounds.

Box bounds are computed with the same floating-point operations, in the same column order,
as the row distance sum_j (x_j - q_j)^2, and rounding is monotone, so a box bound never
crosses a row's computed distance; the reference-distance bounds (triangle inequality) carry
a relative margin of 1e-9. Hence every pruning is exact and the partition is the textbook one.
O(n p) memory.
"""
from __future__ import annotations

import numpy as np
from numba import njit

_LEAF = 32  # rows per kd-tree leaf at most
_REL = 1e-9  # relative margin on triangle-inequality bounds (rounding is ~1e-15)
_TINY = 1e-150  # absolute margin on such bounds (covers underflow)


@njit(cache=True)
def _nth_element(X, order, dim, lo, hi, kth):
    """Reorder order[lo:hi] so that X[order[kth], dim] has rank kth, smaller values before it,
    larger after it (Hoare partition with a median-of-three pivot)."""
    while hi - lo > 2:
        mid = (lo + hi) // 2
        a = X[order[lo], dim]
        b = X[order[mid], dim]
        c = X[order[hi - 1], dim]
        if a > b:
            a, b = b, a
        pivot = c if c < b else b
        if pivot < a:
            pivot = a
        i = lo
        j = hi - 1
        while i <= j:
            while X[order[i], dim] < pivot:
                i += 1
            while X[order[j], dim] > pivot:
                j -= 1
            if i <= j:
                order[i], order[j] = order[j], order[i]
                i += 1
                j -= 1
        if kth <= j:
            hi = j + 1
        elif kth >= i:
            lo = i
        else:
            return
    if hi - lo == 2 and X[order[lo], dim] > X[order[lo + 1], dim]:
        order[lo], order[lo + 1] = order[lo + 1], order[lo]


@njit(cache=True)
def _build(X, leaf):
    """kd-tree over the rows of X: (order, node starts, node ends, first leaf node).

    Implicit complete binary tree: node v has children 2v+1, 2v+2; each internal node splits
    its row range at the middle, by the median of its widest column."""
    n, p = X.shape
    depth = 0
    while ((n + (1 << depth) - 1) >> depth) > leaf:
        depth += 1
    first_leaf = (1 << depth) - 1
    nnodes = 2 * first_leaf + 1
    start = np.empty(nnodes, dtype=np.int64)
    end = np.empty(nnodes, dtype=np.int64)
    order = np.arange(n)
    start[0] = 0
    end[0] = n
    for v in range(first_leaf):
        s = start[v]
        e = end[v]
        best = -1.0
        dim = 0
        for j in range(p):
            lo = np.inf
            hi = -np.inf
            for t in range(s, e):
                x = X[order[t], j]
                if x < lo:
                    lo = x
                if x > hi:
                    hi = x
            if hi - lo > best:
                best = hi - lo
                dim = j
        mid = (s + e) // 2
        _nth_element(X, order, dim, s, e, mid)
        start[2 * v + 1] = s
        end[2 * v + 1] = mid
        start[2 * v + 2] = mid
        end[2 * v + 2] = e
    return order, start, end, first_leaf


@njit(cache=True)
def _sq_dist_row(T, t, q):
    """sum_j (T[t, j] - q[j])^2, in column order (the distance every decision uses)."""
    s = 0.0
    for j in range(T.shape[1]):
        d = T[t, j] - q[j]
        s += d * d
    return s


@njit(cache=True)
def _fit_leaf(T, refd, v, start, cnt, lo, hi, rmin, rmax):
    """Tight box and reference-distance range of the live rows of leaf v."""
    p = T.shape[1]
    s = start[v]
    e = s + cnt[v]
    for j in range(p):
        a = np.inf
        b = -np.inf
        for t in range(s, e):
            x = T[t, j]
            if x < a:
                a = x
            if x > b:
                b = x
        lo[v, j] = a
        hi[v, j] = b
    a = np.inf
    b = -np.inf
    for t in range(s, e):
        r = refd[t]
        if r < a:
            a = r
        if r > b:
            b = r
    rmin[v] = a
    rmax[v] = b


@njit(cache=True)
def _fit_inner(v, cnt, lo, hi, rmin, rmax):
    """Bounds of internal node v from its non-empty children."""
    p = lo.shape[1]
    c1 = 2 * v + 1
    c2 = c1 + 1
    if cnt[c1] == 0:
        c1 = c2
    elif cnt[c2] == 0:
        c2 = c1
    for j in range(p):
        lo[v, j] = min(lo[c1, j], lo[c2, j])
        hi[v, j] = max(hi[c1, j], hi[c2, j])
    rmin[v] = min(rmin[c1], rmin[c2])
    rmax[v] = max(rmax[c1], rmax[c2])


@njit(cache=True)
def _refit_all(T, refd, start, cnt, first_leaf, lo, hi, rmin, rmax):
    for v in range(first_leaf, 2 * first_leaf + 1):
        if cnt[v] > 0:
            _fit_leaf(T, refd, v, start, cnt, lo, hi, rmin, rmax)
    for v in range(first_leaf - 1, -1, -1):
        if cnt[v] > 0:
            _fit_inner(v, cnt, lo, hi, rmin, rmax)


@njit(cache=True)
def _box_lower(lo, hi, v, q):
    """Lower bound of the computed distance of q to any row inside the box of node v."""
    s = 0.0
    for j in range(lo.shape[1]):
        qj = q[j]
        a = lo[v, j]
        b = hi[v, j]
        if qj < a:
            d = a - qj
            s += d * d
        elif qj > b:
            d = b - qj
            s += d * d
        else:
            s += 0.0
    return s


@njit(cache=True)
def _box_upper(lo, hi, v, q):
    """Upper bound of the computed distance of q to any row inside the box of node v."""
    s = 0.0
    for j in range(lo.shape[1]):
        qj = q[j]
        d = lo[v, j] - qj
        d2 = hi[v, j] - qj
        if -d > d2:
            s += d * d
        else:
            s += d2 * d2
    return s


@njit(cache=True)
def _ref_lower(rmin, rmax, dq):
    """Squared lower bound of |x - q| from rmin <= |x - ref| <= rmax and |q - ref| = dq."""
    g = rmin - dq
    if dq - rmax > g:
        g = dq - rmax
    g -= _REL * (rmax + dq) + _TINY
    if g <= 0.0:
        return 0.0
    return g * g * (1.0 - _REL)


@njit(cache=True)
def _ref_upper(rmax, dq):
    """Squared upper bound of |x - q| from |x - ref| <= rmax and |q - ref| = dq."""
    g = (rmax + dq) * (1.0 + _REL) + _TINY
    return g * g * (1.0 + _REL)


@njit(cache=True)
def _nearest(T, idx, refd, start, cnt, first_leaf, lo, hi, rmin, rmax, q, dq, qi, kk, bd, bi, sn, sb):
    """bi[:kk] = original indices of the kk live rows nearest to q by (distance, original
    index), excluding the row with original index qi; dq = |q - ref|."""
    found = 0
    thr = np.inf
    if kk == 0 or cnt[0] == 0:
        return
    sp = 0
    sn[0] = 0
    sb[0] = 0.0
    sp = 1
    while sp > 0:
        sp -= 1
        v = sn[sp]
        if sb[sp] > thr:
            continue
        if v >= first_leaf:
            s = start[v]
            for t in range(s, s + cnt[v]):
                g = refd[t] - dq
                if g < 0.0:
                    g = -g
                g -= _REL * (refd[t] + dq) + _TINY
                if g > 0.0 and g * g * (1.0 - _REL) > thr:
                    continue
                d = _sq_dist_row(T, t, q)
                if d > thr:
                    continue
                o = idx[t]
                if o == qi:
                    continue
                if found == kk:
                    if d == thr and o > bi[kk - 1]:
                        continue
                    found -= 1
                u = found
                while u > 0 and (bd[u - 1] > d or (bd[u - 1] == d and bi[u - 1] > o)):
                    bd[u] = bd[u - 1]
                    bi[u] = bi[u - 1]
                    u -= 1
                bd[u] = d
                bi[u] = o
                found += 1
                if found == kk:
                    thr = bd[kk - 1]
        else:
            c1 = 2 * v + 1
            c2 = c1 + 1
            b1 = np.inf
            b2 = np.inf
            if cnt[c1] > 0:
                b1 = max(_box_lower(lo, hi, c1, q), _ref_lower(rmin[c1], rmax[c1], dq))
            if cnt[c2] > 0:
                b2 = max(_box_lower(lo, hi, c2, q), _ref_lower(rmin[c2], rmax[c2], dq))
            if b1 > b2:
                c1, c2 = c2, c1
                b1, b2 = b2, b1
            # push the farther child first so the nearer one is searched first
            if b2 <= thr:
                sn[sp] = c2
                sb[sp] = b2
                sp += 1
            if b1 <= thr:
                sn[sp] = c1
                sb[sp] = b1
                sp += 1


@njit(cache=True)
def _farthest(T, idx, refd, start, cnt, first_leaf, lo, hi, rmax, q, dq, sn, sb):
    """Original index of the live row farthest from q (ties: lowest original index);
    dq = |q - ref|."""
    best = -1.0
    bo = -1
    sn[0] = 0
    sb[0] = np.inf
    sp = 1
    while sp > 0:
        sp -= 1
        v = sn[sp]
        if sb[sp] < best:
            continue
        if v >= first_leaf:
            s = start[v]
            for t in range(s, s + cnt[v]):
                if _ref_upper(refd[t], dq) < best:
                    continue
                d = _sq_dist_row(T, t, q)
                o = idx[t]
                if d > best or (d == best and o < bo):
                    best = d
                    bo = o
        else:
            c1 = 2 * v + 1
            c2 = c1 + 1
            b1 = -1.0
            b2 = -1.0
            if cnt[c1] > 0:
                b1 = min(_box_upper(lo, hi, c1, q), _ref_upper(rmax[c1], dq))
            if cnt[c2] > 0:
                b2 = min(_box_upper(lo, hi, c2, q), _ref_upper(rmax[c2], dq))
            if b1 < b2:
                c1, c2 = c2, c1
                b1, b2 = b2, b1
            # push the nearer child first so the farther one is searched first
            if cnt[c2] > 0 and b2 >= best:
                sn[sp] = c2
                sb[sp] = b2
                sp += 1
            if cnt[c1] > 0 and b1 >= best:
                sn[sp] = c1
                sb[sp] = b1
                sp += 1
    return bo


@njit(cache=True)
def _remove(T, idx, refd, pos, leaf_of, start, cnt, lo, hi, rmin, rmax, sums, o, labels, label):
    """Give the live row with original index o the label, drop it from the sums and swap it
    out of its leaf's live range; refit the bounds on its path to the root."""
    p = T.shape[1]
    t = pos[o]
    v = leaf_of[t]
    last = start[v] + cnt[v] - 1
    labels[o] = label
    for j in range(p):
        sums[j] -= T[t, j]
    if t != last:
        for j in range(p):
            T[t, j], T[last, j] = T[last, j], T[t, j]
        refd[t], refd[last] = refd[last], refd[t]
        o2 = idx[last]
        idx[t] = o2
        idx[last] = o
        pos[o2] = t
        pos[o] = last
    u = v
    while True:
        cnt[u] -= 1
        if u == 0:
            break
        u = (u - 1) // 2
    if cnt[v] > 0:
        _fit_leaf(T, refd, v, start, cnt, lo, hi, rmin, rmax)
    u = v
    while u > 0:
        u = (u - 1) // 2
        if cnt[u] > 0:
            _fit_inner(u, cnt, lo, hi, rmin, rmax)


@njit(cache=True)
def _set_reference(T, m_rows, ref, refd):
    for t in range(m_rows):
        refd[t] = np.sqrt(_sq_dist_row(T, t, ref))


@njit(cache=True)
def mdav_labels(X, k):
    """Group label per row of X (n, p) by classic MDAV with minimum group size k.

    While >= 3k rows are left: xr = farthest from the centroid, xs = farthest from xr (among
    rows outside xr's group); groups of xr and its k-1 nearest, then xs and its k-1 nearest.
    With 2k..3k-1 left, one group around the row farthest from the centroid; the rest is the
    last group. Labels are numbered in order of creation; every distance is the squared
    Euclidean sum_j (x_j - y_j)^2 and ties go to the lowest row index (thesis 2.3.4).

    >>> mdav_labels(np.array([[0.0], [0.1], [5.0], [5.1], [9.0], [9.2]]), 2).tolist()
    [0, 0, 2, 2, 1, 1]
    """
    n, p = X.shape
    labels = np.zeros(n, dtype=np.uint32)
    if n < 2 * k:
        return labels
    order, start, end, first_leaf = _build(X, _LEAF)
    nnodes = 2 * first_leaf + 1
    T = np.empty((n, p), dtype=np.float64)
    idx = np.empty(n, dtype=np.int64)
    pos = np.empty(n, dtype=np.int64)
    leaf_of = np.empty(n, dtype=np.int64)
    for t in range(n):
        o = order[t]
        idx[t] = o
        pos[o] = t
        for j in range(p):
            T[t, j] = X[o, j]
    for v in range(first_leaf, nnodes):
        for t in range(start[v], end[v]):
            leaf_of[t] = v
    cnt = end - start
    sums = np.zeros(p, dtype=np.float64)
    for j in range(p):
        s = 0.0
        for i in range(n):
            s += X[i, j]
        sums[j] = s
    c = np.empty(p, dtype=np.float64)
    ref = np.empty(p, dtype=np.float64)
    for j in range(p):
        ref[j] = sums[j] / n
    refd = np.empty(n, dtype=np.float64)
    _set_reference(T, n, ref, refd)
    lo = np.empty((nnodes, p), dtype=np.float64)
    hi = np.empty((nnodes, p), dtype=np.float64)
    rmin = np.empty(nnodes, dtype=np.float64)
    rmax = np.empty(nnodes, dtype=np.float64)
    _refit_all(T, refd, start, cnt, first_leaf, lo, hi, rmin, rmax)
    depth = 0
    while (1 << depth) - 1 < first_leaf:
        depth += 1
    sn = np.empty(2 * depth + 4, dtype=np.int64)
    sb = np.empty(2 * depth + 4, dtype=np.float64)
    kk = k - 1
    bd = np.empty(kk + 1, dtype=np.float64)
    bi = np.empty(kk + 1, dtype=np.int64)
    q = np.empty(p, dtype=np.float64)
    m = n
    label = 0
    while m >= 2 * k:
        for j in range(p):
            c[j] = sums[j] / m
        dq = np.sqrt(_sq_dist_row(c.reshape(1, p), 0, ref))
        if dq > 0.05 * rmax[0]:
            # the centroid drifted: make it the reference so the bounds stay tight
            for j in range(p):
                ref[j] = c[j]
            for v in range(first_leaf, nnodes):
                s = start[v]
                for t in range(s, s + cnt[v]):
                    refd[t] = np.sqrt(_sq_dist_row(T, t, ref))
            _refit_all(T, refd, start, cnt, first_leaf, lo, hi, rmin, rmax)
            dq = 0.0
        xr = _farthest(T, idx, refd, start, cnt, first_leaf, lo, hi, rmax, c, dq, sn, sb)
        t = pos[xr]
        for j in range(p):
            q[j] = T[t, j]
        dq = refd[t]
        _nearest(T, idx, refd, start, cnt, first_leaf, lo, hi, rmin, rmax, q, dq, xr, kk, bd, bi, sn, sb)
        _remove(T, idx, refd, pos, leaf_of, start, cnt, lo, hi, rmin, rmax, sums, xr, labels, label)
        for u in range(kk):
            _remove(T, idx, refd, pos, leaf_of, start, cnt, lo, hi, rmin, rmax, sums, bi[u], labels, label)
        label += 1
        if m < 3 * k:
            m -= k
            break
        m -= k
        xs = _farthest(T, idx, refd, start, cnt, first_leaf, lo, hi, rmax, q, dq, sn, sb)
        t = pos[xs]
        for j in range(p):
            q[j] = T[t, j]
        dq = refd[t]
        _nearest(T, idx, refd, start, cnt, first_leaf, lo, hi, rmin, rmax, q, dq, xs, kk, bd, bi, sn, sb)
        _remove(T, idx, refd, pos, leaf_of, start, cnt, lo, hi, rmin, rmax, sums, xs, labels, label)
        for u in range(kk):
            _remove(T, idx, refd, pos, leaf_of, start, cnt, lo, hi, rmin, rmax, sums, bi[u], labels, label)
        label += 1
        m -= k
    for v in range(first_leaf, nnodes):
        s = start[v]
        for t in range(s, s + cnt[v]):
            labels[idx[t]] = label
    return labels
