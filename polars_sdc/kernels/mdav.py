"""MDAV: maximum distance to average vector (thesis 2.3.4, Domingo-Ferrer & Mateo-Sanz 2002).

Same result as the textbook algorithm (every distance is sum_j (x_j - y_j)^2 summed in column
order, ties to the lowest original row index), found without full passes over the data. Each
row keeps r = its distance to a reference point (the centroid, refreshed when the centroid
drifts), and two stores of the live rows answer the two queries of MDAV:

- farthest row from a point q (the centroid, or xr): the rows sorted by r, largest first.
  By the triangle inequality |x - q| <= r_x + |q - ref|, so the scan stops at the first row
  whose bound falls below the best distance found; removed rows are skipped and squeezed
  out of the scanned prefix;
- the k-1 nearest rows of xr / xs: a kd-tree (median splits on the widest column, leaves of
  at most ``_LEAF`` rows stored column-major so a leaf's distances vectorise). Each node keeps
  the bounding box of its live rows and their range [rmin, rmax] of r; the search goes
  nearest node first and skips a node whose lower bound exceeds the current (k-1)-th best.
  A removed row swaps with the last live row of its leaf and the bounds on its path are
  refitted.

Box bounds use the same floating-point operations, in the same column order, as the row
distance, and rounding is monotone, so a box bound never crosses a computed distance; the
triangle-inequality bounds carry a relative margin of 1e-9 (rounding is ~1e-15). So every
pruning is exact and the partition is the textbook one. O(n p) memory (two copies of the data).
"""
from __future__ import annotations

import numpy as np
from numba import njit

_LEAF = 32  # rows per kd-tree leaf at most
_REL = 1e-9  # relative margin on triangle-inequality bounds (rounding is ~1e-15)
_TINY = 1e-150  # absolute margin on such bounds (covers underflow)
_DRIFT = 0.05  # refresh the reference when the centroid moved this fraction of the data radius


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
def _build(X, leaf):
    """kd-tree over the rows of X: (order, node starts, node ends, first leaf node).

    Implicit complete binary tree: node v has children 2v+1, 2v+2; each internal node splits
    its row range at the middle, by the median of its widest column, so leaf sizes differ by
    at most one."""
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
                lo = min(lo, x)
                hi = max(hi, x)
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
def _sq_dist(x, q):
    """sum_j (x[j] - q[j])^2, in column order (the distance every decision uses)."""
    s = 0.0
    for j in range(x.shape[0]):
        d = x[j] - q[j]
        s += d * d
    return s


@njit(cache=True)
def _fit_leaf(TD, TR, v, first_leaf, cnt, lo, hi, rmin, rmax):
    """Bounding box and r-range of the live rows of leaf node v."""
    p = TD.shape[1]
    f = v - first_leaf
    c = cnt[v]
    for j in range(p):
        a = np.inf
        b = -np.inf
        row = TD[f, j]
        for t in range(c):
            a = min(a, row[t])
            b = max(b, row[t])
        lo[v, j] = a
        hi[v, j] = b
    a = np.inf
    b = -np.inf
    for t in range(c):
        a = min(a, TR[f, t])
        b = max(b, TR[f, t])
    rmin[v] = a
    rmax[v] = b


@njit(cache=True)
def _fit_inner(v, cnt, lo, hi, rmin, rmax):
    """Bounds of internal node v from its non-empty children; False when they did not change
    (then no ancestor's bounds change either)."""
    c1 = 2 * v + 1
    c2 = c1 + 1
    if cnt[c1] == 0:
        c1 = c2
    elif cnt[c2] == 0:
        c2 = c1
    changed = False
    for j in range(lo.shape[1]):
        a = min(lo[c1, j], lo[c2, j])
        b = max(hi[c1, j], hi[c2, j])
        changed |= (a != lo[v, j]) | (b != hi[v, j])
        lo[v, j] = a
        hi[v, j] = b
    a = min(rmin[c1], rmin[c2])
    b = max(rmax[c1], rmax[c2])
    changed |= (a != rmin[v]) | (b != rmax[v])
    rmin[v] = a
    rmax[v] = b
    return changed


@njit(cache=True)
def _refit_all(TD, TR, first_leaf, cnt, lo, hi, rmin, rmax):
    for v in range(first_leaf, 2 * first_leaf + 1):
        if cnt[v] > 0:
            _fit_leaf(TD, TR, v, first_leaf, cnt, lo, hi, rmin, rmax)
    for v in range(first_leaf - 1, -1, -1):
        if cnt[v] > 0:
            _fit_inner(v, cnt, lo, hi, rmin, rmax)


@njit(cache=True)
def _lower(lo, hi, rmin, rmax, v, q, dq):
    """Lower bound of the computed distance from q to any live row of node v: the larger of
    the box bound (exact under rounding) and the triangle bound from [rmin, rmax] of r."""
    s = 0.0
    for j in range(lo.shape[1]):
        qj = q[j]
        d = max(lo[v, j] - qj, 0.0) + max(qj - hi[v, j], 0.0)
        s += d * d
    g = max(rmin[v] - dq, dq - rmax[v]) - (_REL * (rmax[v] + dq) + _TINY)
    if g > 0.0:
        s = max(s, g * g * (1.0 - _REL))
    return s


@njit(cache=True)
def _ref_upper(r, dq):
    """Squared upper bound of |x - q| from |x - ref| <= r and |q - ref| = dq."""
    g = (r + dq) * (1.0 + _REL) + _TINY
    return g * g * (1.0 + _REL)


@njit(cache=True)
def _nearest(TD, TI, first_leaf, cnt, lo, hi, rmin, rmax, q, dq, qi, kk, bd, bi, buf, sn, sb):
    """bi[:kk] = original indices of the kk live rows nearest to q by (distance, original
    index), leaving out the row with original index qi; dq = |q - ref|."""
    if kk == 0:
        return
    p = TD.shape[1]
    found = 0
    thr = np.inf
    sn[0] = 0
    sb[0] = 0.0
    sp = 1
    while sp > 0:
        sp -= 1
        v = sn[sp]
        if sb[sp] > thr:
            continue
        if v >= first_leaf:
            f = v - first_leaf
            c = cnt[v]
            for t in range(c):
                buf[t] = 0.0
            for j in range(p):
                qj = q[j]
                row = TD[f, j]
                for t in range(c):
                    d = row[t] - qj
                    buf[t] += d * d
            for t in range(c):
                d = buf[t]
                if d > thr:
                    continue
                o = TI[f, t]
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
            b1 = _lower(lo, hi, rmin, rmax, c1, q, dq) if cnt[c1] > 0 else np.inf
            b2 = _lower(lo, hi, rmin, rmax, c2, q, dq) if cnt[c2] > 0 else np.inf
            if b1 > b2:
                c1, c2 = c2, c1
                b1, b2 = b2, b1
            # push the farther child first so that the nearer one is searched first
            if b2 <= thr:
                sn[sp] = c2
                sb[sp] = b2
                sp += 1
            if b1 <= thr:
                sn[sp] = c1
                sb[sp] = b1
                sp += 1


@njit(cache=True)
def _farthest(LX, LR, LI, alive, head, stop, q, dq):
    """(original index of the live row farthest from q, new head) over the list rows
    head..stop-1 sorted by r descending (ties: lowest original index); dq = |q - ref|.
    Removed rows met in the scanned prefix are squeezed out when they are many."""
    best = -1.0
    bo = -1
    dead = 0
    t = head
    while t < stop:
        if _ref_upper(LR[t], dq) < best:
            break
        o = LI[t]
        if not alive[o]:
            dead += 1
        else:
            d = _sq_dist(LX[t], q)
            if d > best or (d == best and o < bo):
                best = d
                bo = o
        t += 1
    if 8 * dead > t - head:
        w = t
        for i in range(t - 1, head - 1, -1):
            if alive[LI[i]]:
                w -= 1
                if w != i:
                    LX[w] = LX[i]
                    LR[w] = LR[i]
                    LI[w] = LI[i]
        head = w
    return bo, head


@njit(cache=True)
def _remove(TD, TR, TI, pos, first_leaf, cnt, lo, hi, rmin, rmax, alive, sums, o, labels, label):
    """Give the live row with original index o the label, drop it from the sums and swap it
    out of its leaf's live slots; refit the bounds on its path to the root."""
    p = TD.shape[1]
    C = TD.shape[2]
    f = pos[o] // C
    t = pos[o] - f * C
    v = f + first_leaf
    last = cnt[v] - 1
    labels[o] = label
    alive[o] = False
    for j in range(p):
        sums[j] -= TD[f, j, t]
    if t != last:
        for j in range(p):
            TD[f, j, t] = TD[f, j, last]
        TR[f, t] = TR[f, last]
        o2 = TI[f, last]
        TI[f, t] = o2
        pos[o2] = f * C + t
    u = v
    while True:
        cnt[u] -= 1
        if u == 0:
            break
        u = (u - 1) // 2
    if cnt[v] > 0:
        _fit_leaf(TD, TR, v, first_leaf, cnt, lo, hi, rmin, rmax)
    # an empty node is never visited again; otherwise refit upwards until nothing changes
    u = v
    while u > 0:
        u = (u - 1) // 2
        if cnt[u] > 0 and not _fit_inner(u, cnt, lo, hi, rmin, rmax):
            break


@njit(cache=True)
def _set_reference(TD, TR, TI, first_leaf, cnt, ref, LX, LR, LI):
    """r = distance to ref for every live row (kd-tree slots) and the list of live rows
    sorted by r descending; returns the list length."""
    nleaf, p, C = TD.shape
    x = np.empty(p, dtype=np.float64)
    m = 0
    for f in range(nleaf):
        for t in range(cnt[f + first_leaf]):
            for j in range(p):
                x[j] = TD[f, j, t]
            r = np.sqrt(_sq_dist(x, ref))
            TR[f, t] = r
            LR[m] = -r
            LI[m] = f * C + t
            m += 1
    order = np.argsort(LR[:m])
    slots = LI[:m].copy()
    for i in range(m):
        s = slots[order[i]]
        f = s // C
        t = s - f * C
        for j in range(p):
            LX[i, j] = TD[f, j, t]
        LR[i] = TR[f, t]
        LI[i] = TI[f, t]
    return m


@njit(cache=True)
def mdav_labels(X, k):
    """Group label per row of X (n, p) by classic MDAV with minimum group size k.

    While >= 3k rows are left: xr = farthest from the centroid, xs = farthest from xr (among
    rows outside xr's group); groups of xr and its k-1 nearest, then xs and its k-1 nearest.
    With 2k..3k-1 left, one group around the row farthest from the centroid; the rest is the
    last group. Labels are numbered in order of creation; distances are squared Euclidean,
    ties go to the lowest row index (thesis 2.3.4).

    >>> mdav_labels(np.array([[0.0], [0.1], [5.0], [5.1], [9.0], [9.2]]), 2).tolist()
    [0, 0, 2, 2, 1, 1]
    """
    n, p = X.shape
    labels = np.zeros(n, dtype=np.uint32)
    if n < 2 * k:
        return labels
    order, start, end, first_leaf = _build(X, _LEAF)
    nnodes = 2 * first_leaf + 1
    nleaf = first_leaf + 1
    C = 0
    for v in range(first_leaf, nnodes):
        C = max(C, end[v] - start[v])
    TD = np.empty((nleaf, p, C), dtype=np.float64)
    TR = np.empty((nleaf, C), dtype=np.float64)
    TI = np.empty((nleaf, C), dtype=np.int64)
    pos = np.empty(n, dtype=np.int64)
    for f in range(nleaf):
        v = f + first_leaf
        for t in range(end[v] - start[v]):
            o = order[start[v] + t]
            TI[f, t] = o
            pos[o] = f * C + t
            for j in range(p):
                TD[f, j, t] = X[o, j]
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
    LX = np.empty((n, p), dtype=np.float64)
    LR = np.empty(n, dtype=np.float64)
    LI = np.empty(n, dtype=np.int64)
    stop = _set_reference(TD, TR, TI, first_leaf, cnt, ref, LX, LR, LI)
    head = 0
    alive = np.ones(n, dtype=np.bool_)
    lo = np.empty((nnodes, p), dtype=np.float64)
    hi = np.empty((nnodes, p), dtype=np.float64)
    rmin = np.empty(nnodes, dtype=np.float64)
    rmax = np.empty(nnodes, dtype=np.float64)
    _refit_all(TD, TR, first_leaf, cnt, lo, hi, rmin, rmax)
    depth = 0
    while (1 << depth) - 1 < first_leaf:
        depth += 1
    sn = np.empty(2 * depth + 4, dtype=np.int64)
    sb = np.empty(2 * depth + 4, dtype=np.float64)
    kk = k - 1
    bd = np.empty(kk + 1, dtype=np.float64)
    bi = np.empty(kk + 1, dtype=np.int64)
    buf = np.empty(C, dtype=np.float64)
    q = np.empty(p, dtype=np.float64)
    m = n
    label = 0
    while m >= 2 * k:
        for j in range(p):
            c[j] = sums[j] / m
        dq = np.sqrt(_sq_dist(c, ref))
        if dq > _DRIFT * rmax[0]:
            # the centroid drifted: make it the reference so that the bounds stay tight
            for j in range(p):
                ref[j] = c[j]
            stop = _set_reference(TD, TR, TI, first_leaf, cnt, ref, LX, LR, LI)
            head = 0
            _refit_all(TD, TR, first_leaf, cnt, lo, hi, rmin, rmax)
            dq = np.sqrt(_sq_dist(c, ref))
        for g in range(2):
            if g == 0:
                xr, head = _farthest(LX, LR, LI, alive, head, stop, c, dq)
            else:
                xr, head = _farthest(LX, LR, LI, alive, head, stop, q, dq)
            f = pos[xr] // C
            t = pos[xr] - f * C
            for j in range(p):
                q[j] = TD[f, j, t]
            dq = TR[f, t]
            _nearest(TD, TI, first_leaf, cnt, lo, hi, rmin, rmax, q, dq, xr, kk, bd, bi, buf, sn, sb)
            _remove(TD, TR, TI, pos, first_leaf, cnt, lo, hi, rmin, rmax, alive, sums, xr, labels, label)
            for u in range(kk):
                _remove(TD, TR, TI, pos, first_leaf, cnt, lo, hi, rmin, rmax, alive, sums, bi[u], labels, label)
            label += 1
            m -= k
            if m < 2 * k:
                break
    for i in range(n):
        if alive[i]:
            labels[i] = label
    return labels
