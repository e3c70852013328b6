"""MDAV: maximum distance to average vector (thesis 2.3.4, Domingo-Ferrer & Mateo-Sanz 2002).

Same result as the textbook algorithm (every distance is sum_j (x_j - y_j)^2 summed in column
order, ties to the lowest original row index), found without full passes over the data. Each
row keeps r = its distance to a reference point (the centroid, refreshed when the centroid
drifts), and two stores of the live rows answer the two queries of MDAV:

- farthest row from a point q (the centroid, or xr): the rows sorted by r, largest first,
  column-major, measured in vectorised blocks. By the triangle inequality
  |x - q| <= r_x + |q - ref|, so the scan stops at the first block whose bound falls below
  the best distance found (about 3 % of the rows at n = 3e5); removed rows are marked
  and squeezed out of the scanned prefix;
- the k-1 nearest rows of xr / xs: a kd-tree (median splits on the widest column, leaves of
  at most ``_LEAF`` rows stored column-major so a leaf's distances vectorise). Each node keeps
  the bounding box of its live rows and their range [rmin, rmax] of r; the search goes
  nearest node first and skips a node whose lower bound exceeds the current (k-1)-th best.
  A removed row swaps with the last live row of its leaf and the bounds on its path are
  refitted; when half of the rows are gone the tree is rebuilt on the live ones (MDAV
  empties the outer leaves first, where all the queries are);
- when the bounds prune badly (many columns: a pair measures more than half of the live rows)
  one fused pass over the live rows finds xr's neighbours and xs, and the bounded searches
  are probed again after ``_PROBE`` pairs.

Nominal quasi-identifiers (:func:`mdav_labels_codes`) come as int32 codes, never one-hot: a
column c with one-hot value a_c adds a_c^2 I / m^2 to the squared distance from a row of
category u to a point q that is the mean of m rows with qcnt[v] rows in category v, where
I = m^2 - 2 m qcnt[u] + sum_v qcnt[v]^2 is an exact integer (a row is q with m = 1: I = 0 or
2). Columns with equal a_c add their I's as integers first, so distances that tie in exact
arithmetic tie in floating point too. The live counts per level (O(sum U)) give the centroid;
a kd-tree node keeps, per nominal column, the range [cmin, cmax] of its live rows' codes: a
query row whose code lies outside differs from all of them, which bounds the nominal part
from below (the tree splits on codes too, so such ranges are narrow).

Box bounds use the same floating-point operations, in the same column order, as the row
distance, and rounding is monotone, so a box bound never crosses a computed distance; the
triangle-inequality bounds carry a relative margin of 1e-9 (rounding is ~1e-15). So every
pruning is exact and the partition is the textbook one. O(n p) memory (two copies of the data).

One module on purpose (~800 lines): the kd-tree, the sorted centroid-distance scan, the
nominal columns' level counts and the round loop share the compacted store and its
invariants; Numba compiles them together.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ._common import helper, add_nominal, mean_query, nominal_part, topk_insert, widest_dim

_LEAF = 64  # rows per kd-tree leaf at most
_REL = 1e-9  # relative margin on triangle-inequality bounds (rounding is ~1e-15)
_TINY = 1e-150  # absolute margin on such bounds (covers underflow)
_SCAN = 64  # rows per block of the farthest-row scan
_REBUILD = 0.5  # rebuild the kd-tree when this fraction of the rows it was built on is left
_PROBE = 16  # pairs between probes of the bounded searches when they pruned badly
_DRIFT = 0.05  # refresh the reference when the centroid moved this fraction of the data radius


@helper
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


@helper
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
        dim = widest_dim(X, order, s, e)
        mid = (s + e) // 2
        _nth_element(X, order, dim, s, e, mid)
        start[2 * v + 1] = s
        end[2 * v + 1] = mid
        start[2 * v + 2] = mid
        end[2 * v + 2] = e
    return order, start, end, first_leaf


@helper
def _sq_dist(x, q):
    """sum_j (x[j] - q[j])^2, in column order (the distance every decision uses)."""
    s = 0.0
    for j in range(x.shape[0]):
        d = x[j] - q[j]
        s += d * d
    return s


@helper
def _mean_gap(off, gid, gw, cnt, m, rcnt, rm):
    """Squared nominal distance between the mean of m rows with counts cnt and the mean of
    rm rows with counts rcnt."""
    mc = off.shape[0] - 1
    if mc == 0:
        return 0.0
    s = 0.0
    den = float(m) * float(rm)
    for c in range(mc):
        t = 0.0
        for u in range(off[c], off[c + 1]):
            d = float(cnt[u] * rm - rcnt[u] * m)
            t += d * d
        s += gw[gid[c]] * t
    return s / (den * den)


@helper
def _fit_leaf(TD, TR, v, first_leaf, cnt, lo, hi, rmin, rmax, TC, ncode):
    """Bounding box, r-range and shared codes of the live rows of leaf node v."""
    p = TD.shape[1]
    f = v - first_leaf
    c = cnt[v]
    mc = TC.shape[1]
    for j in range(mc):
        row = TC[f, j]
        a = row[0]
        b = row[0]
        for t in range(1, c):
            a = min(a, row[t])
            b = max(b, row[t])
        ncode[v, j] = a
        ncode[v, mc + j] = b
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


@helper
def _fit_inner(v, cnt, lo, hi, rmin, rmax, ncode):
    """Bounds of internal node v from its non-empty children; False when they did not change
    (then no ancestor's bounds change either)."""
    c1 = 2 * v + 1
    c2 = c1 + 1
    if cnt[c1] == 0:
        c1 = c2
    elif cnt[c2] == 0:
        c2 = c1
    changed = False
    for j in range(ncode.shape[1] // 2):
        a = min(ncode[c1, j], ncode[c2, j])
        changed |= a != ncode[v, j]
        ncode[v, j] = a
    for j in range(ncode.shape[1] // 2, ncode.shape[1]):
        a = max(ncode[c1, j], ncode[c2, j])
        changed |= a != ncode[v, j]
        ncode[v, j] = a
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


@helper
def _refit_all(TD, TR, first_leaf, cnt, lo, hi, rmin, rmax, TC, ncode):
    for v in range(first_leaf, 2 * first_leaf + 1):
        if cnt[v] > 0:
            _fit_leaf(TD, TR, v, first_leaf, cnt, lo, hi, rmin, rmax, TC, ncode)
    for v in range(first_leaf - 1, -1, -1):
        if cnt[v] > 0:
            _fit_inner(v, cnt, lo, hi, rmin, rmax, ncode)


@helper
def _lower(lo, hi, rmin, rmax, v, q, dq, nom_lb):
    """Lower bound of the computed distance from q to any live row of node v: the larger of
    the box bound (exact under rounding; ``nom_lb`` from :func:`_nominal_lower` is its
    nominal part, 0 without nominal columns) and the triangle bound from [rmin, rmax] of r."""
    s = 0.0
    for j in range(lo.shape[1]):
        qj = q[j]
        d = max(lo[v, j] - qj, 0.0) + max(qj - hi[v, j], 0.0)
        s += d * d
    if nom_lb > 0.0:
        s += nom_lb
    g = max(rmin[v] - dq, dq - rmax[v]) - (_REL * (rmax[v] + dq) + _TINY)
    if g > 0.0:
        s = max(s, g * g * (1.0 - _REL))
    return s


@helper
def _nominal_lower(ncode, v, qcode, gid, gw, acc):
    """Nominal part of the box bound of node v for the row query with codes qcode: the
    columns where q's code lies outside the node's code range [ncode[v, c], ncode[v, mc + c]]
    (then it differs from every row of v), as the same integer sums as :func:`nominal_part`
    (never larger; rounding is monotone)."""
    mc = ncode.shape[1] // 2
    G = gw.shape[0]
    if G == 1:
        t = 0
        for c in range(mc):
            u = qcode[c]
            if u < ncode[v, c] or u > ncode[v, mc + c]:
                t += 2
        return gw[0] * t / 1.0
    for g in range(G):
        acc[g, 0] = 0
    for c in range(mc):
        u = qcode[c]
        if u < ncode[v, c] or u > ncode[v, mc + c]:
            acc[gid[c], 0] += 2
    t2 = 0.0
    for g in range(G):
        t2 += gw[g] * acc[g, 0]
    return t2 / 1.0


@helper
def _ref_upper(r, dq):
    """Squared upper bound of |x - q| from |x - ref| <= r and |q - ref| = dq."""
    g = (r + dq) * (1.0 + _REL) + _TINY
    return g * g * (1.0 + _REL)


@helper
def _leaf_dists(TD, f, c, q, buf):
    """buf[:c] = distances of q to the first c slots of leaf f (vectorised over slots); the
    nominal part is added by :func:`~._common.add_nominal`."""
    for t in range(c):
        buf[t] = 0.0
    for j in range(TD.shape[1]):
        qj = q[j]
        row = TD[f, j]
        for t in range(c):
            d = row[t] - qj
            buf[t] += d * d


@helper
def _offer(d, o, kk, bd, bi, found, thr):
    """Insert (d, o) into the sorted kk best bd/bi if it beats the kk-th; (found, thr)."""
    found = topk_insert(bd, bi, found, kk, d, o)
    if found == kk:
        thr = bd[kk - 1]
    return found, thr


@helper
def _nearest(TD, TI, first_leaf, cnt, lo, hi, rmin, rmax, q, dq, qi, kk, bd, bi, buf, sn, sb, TC, ncode, qcode, nom):
    """bi[:kk] = original indices of the kk live rows nearest to q by (distance, original
    index), leaving out the row with original index qi; dq = |q - ref|. Returns the number
    of rows measured."""
    if kk == 0:
        return 0
    found = np.int64(0)  # not a literal 0 (one compilation of _offer)
    thr = np.inf
    measured = 0
    mc = ncode.shape[1] // 2
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
            measured += c
            _leaf_dists(TD, f, c, q, buf)
            if mc > 0:
                add_nominal(TC[f], np.int64(0), c, buf, nom)
            for t in range(c):
                d = buf[t]
                o = TI[f, t]
                if d <= thr and o != qi:
                    found, thr = _offer(d, o, kk, bd, bi, found, thr)
        else:
            c1 = 2 * v + 1
            c2 = c1 + 1
            n1 = 0.0
            n2 = 0.0
            if mc > 0:
                n1 = _nominal_lower(ncode, c1, qcode, nom[1], nom[2], nom[7])
                n2 = _nominal_lower(ncode, c2, qcode, nom[1], nom[2], nom[7])
            b1 = _lower(lo, hi, rmin, rmax, c1, q, dq, n1) if cnt[c1] > 0 else np.inf
            b2 = _lower(lo, hi, rmin, rmax, c2, q, dq, n2) if cnt[c2] > 0 else np.inf
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
    return measured


@helper
def _nearest_and_farthest(TD, TI, first_leaf, cnt, q, qi, kk, bd, bi, buf, TC, nom):
    """One pass over every live row: bi[:kk] as in :func:`_nearest`, and returns the original
    index of the live row farthest from q other than qi (ties: lowest original index). Used
    when the data are too high-dimensional for the bounds to prune."""
    found = np.int64(0)  # not a literal 0 (one compilation of _offer)
    thr = np.inf
    best = -1.0
    bo = -1
    for f in range(TD.shape[0]):
        c = cnt[f + first_leaf]
        _leaf_dists(TD, f, c, q, buf)
        if TC.shape[1] > 0:
            add_nominal(TC[f], np.int64(0), c, buf, nom)
        for t in range(c):
            d = buf[t]
            o = TI[f, t]
            if o == qi:
                continue
            if d >= best and (d > best or o < bo):
                best = d
                bo = o
            if kk > 0 and d <= thr:
                found, thr = _offer(d, o, kk, bd, bi, found, thr)
    return bo


@helper
def _farthest(LX, LR, LI, lpos, head, stop, q, dq, buf, LC, nom):
    """(original index of the live row farthest from q, new head, rows measured) over the
    list slots head..stop-1, sorted by r descending (ties: lowest original index);
    dq = |q - ref|.

    Blocks of rows are measured column-major (vectorised); the scan stops at the first block
    whose largest bound r + dq falls below the best distance. Removed rows (LI = -1) met in
    the scanned prefix are squeezed out when they are many."""
    p = LX.shape[0]
    best = -1.0
    bo = -1
    b = head
    start = head
    while b < stop:
        if _ref_upper(LR[b], dq) < best:
            break
        e = min(b + _SCAN, stop)
        w = e - b
        for t in range(w):
            buf[t] = 0.0
        for j in range(p):
            qj = q[j]
            col = LX[j, b:e]
            for t in range(w):
                d = col[t] - qj
                buf[t] += d * d
        if LC.shape[0] > 0:
            add_nominal(LC, b, w, buf, nom)
        for t in range(w):
            d = buf[t]
            if d >= best:
                o = LI[b + t]
                if o >= 0 and (d > best or o < bo):
                    best = d
                    bo = o
        b = e
    dead = 0
    for t in range(head, b):
        dead += LI[t] < 0
    if 8 * dead > b - head:
        w = b
        for i in range(b - 1, head - 1, -1):
            o = LI[i]
            if o >= 0:
                w -= 1
                if w != i:
                    for j in range(p):
                        LX[j, w] = LX[j, i]
                    for j in range(LC.shape[0]):
                        LC[j, w] = LC[j, i]
                    LR[w] = LR[i]
                    LI[w] = o
                    lpos[o] = w
        head = w
    return bo, head, b - start


@helper
def _add_exact(sums, errs, j, x):
    """sums[j] + errs[j] += x as a double-double (TwoSum, then renormalised): the centroid
    then depends only on which rows are left, not on the order they were removed in, so
    distances that tie in exact arithmetic tie here as in a fresh (exactly summed) mean."""
    a = sums[j]
    s = a + x
    bv = s - a
    e = (a - (s - bv)) + (x - bv)
    t = errs[j] + e
    hi = s + t
    errs[j] = t - (hi - s)
    sums[j] = hi


@helper
def _centroid_state(X, codes, off):
    """The running centroid of all n rows, as both MDAV kernels start it: ``(sums, errs)`` the
    exact column sums as double-doubles (:func:`_add_exact`, column by column, rows in order;
    sums + errs is the exact sum) and ``(lcnt, lQ)`` the nominal part, the level counts of
    every code column and their sums of squares per column."""
    n, p = X.shape
    mc = codes.shape[1]
    sums = np.zeros(p, dtype=np.float64)
    errs = np.zeros(p, dtype=np.float64)
    for j in range(p):
        for i in range(n):
            _add_exact(sums, errs, j, X[i, j])
    lcnt = np.zeros(off[mc], dtype=np.int64)
    lQ = np.zeros(mc, dtype=np.int64)
    for i in range(n):
        for j in range(mc):
            lcnt[off[j] + codes[i, j]] += 1
    for j in range(mc):
        for u in range(off[j], off[j + 1]):
            lQ[j] += lcnt[u] * lcnt[u]
    return sums, errs, lcnt, lQ


@helper
def _remove(TD, TR, TI, pos, first_leaf, cnt, lo, hi, rmin, rmax, LI, lpos, sums, o, labels, label, errs,
            TC, ncode, off, lcnt, lQ):
    """Give the live row with original index o the label, drop it from the sums (and its
    codes from the level counts lcnt and their sums of squares lQ) and swap it out of its
    leaf's live slots; refit the bounds on its path to the root."""
    p = TD.shape[1]
    C = TD.shape[2]
    f = pos[o] // C
    t = pos[o] - f * C
    v = f + first_leaf
    last = cnt[v] - 1
    labels[o] = label
    LI[lpos[o]] = -1
    for j in range(p):
        _add_exact(sums, errs, j, -TD[f, j, t])
    for j in range(TC.shape[1]):
        u = off[j] + TC[f, j, t]
        lQ[j] -= 2 * lcnt[u] - 1
        lcnt[u] -= 1
    if t != last:
        for j in range(p):
            TD[f, j, t] = TD[f, j, last]
        for j in range(TC.shape[1]):
            TC[f, j, t] = TC[f, j, last]

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
        _fit_leaf(TD, TR, v, first_leaf, cnt, lo, hi, rmin, rmax, TC, ncode)
    # an empty node is never visited again; otherwise refit upwards until nothing changes
    u = v
    while u > 0:
        u = (u - 1) // 2
        if cnt[u] > 0 and not _fit_inner(u, cnt, lo, hi, rmin, rmax, ncode):
            break


@helper
def _set_reference(TD, TR, TI, first_leaf, cnt, ref, LX, LR, LI, lpos, TC, LC, nom):
    """r = distance to ref (nominal part: the query ``nom``) for every live row (kd-tree
    slots) and the list of live rows sorted by r descending; returns the list length."""
    nleaf, p, C = TD.shape
    x = np.empty(p, dtype=np.float64)
    m = 0
    mc = TC.shape[1]
    off, gid, gw, qcnt, K, tq, m2, acc = nom
    for f in range(nleaf):
        for t in range(cnt[f + first_leaf]):
            for j in range(p):
                x[j] = TD[f, j, t]
            d = _sq_dist(x, ref)
            if mc > 0:
                d += nominal_part(TC[f], t, off, gid, gw, qcnt, K, tq, m2, acc)
            r = np.sqrt(d)
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
            LX[j, i] = TD[f, j, t]
        for j in range(mc):
            LC[j, i] = TC[f, j, t]
        LR[i] = TR[f, t]
        LI[i] = TI[f, t]
        lpos[LI[i]] = i
    return m


@helper
def _tree(Xs, os, rs, leaf, pos, Cs, cscale):
    """kd-tree store of the rows Xs (m, p) with codes Cs (m, mc), original indices os and
    reference distances rs: (TD, TR, TI, cnt, lo, hi, rmin, rmax, first_leaf, TC, ncode);
    sets pos[o] = leaf * C + slot. Splits use the codes too, as numbers times cscale (this
    groups equal codes in leaves; it changes the speed only)."""
    m, p = Xs.shape
    mc = Cs.shape[1]
    if mc == 0:
        order, start, end, first_leaf = _build(Xs, leaf)
    else:
        S = np.empty((m, p + mc), dtype=np.float64)
        for i in range(m):
            for j in range(p):
                S[i, j] = Xs[i, j]
            for j in range(mc):
                S[i, p + j] = Cs[i, j] * cscale[j]
        order, start, end, first_leaf = _build(S, leaf)
    nnodes = 2 * first_leaf + 1
    nleaf = first_leaf + 1
    C = 0
    for v in range(first_leaf, nnodes):
        C = max(C, end[v] - start[v])
    TD = np.empty((nleaf, p, C), dtype=np.float64)
    TR = np.empty((nleaf, C), dtype=np.float64)
    TI = np.empty((nleaf, C), dtype=np.int64)
    TC = np.empty((nleaf, mc, C), dtype=np.int32)
    for f in range(nleaf):
        v = f + first_leaf
        for t in range(end[v] - start[v]):
            i = order[start[v] + t]
            o = os[i]
            TI[f, t] = o
            TR[f, t] = rs[i]
            pos[o] = f * C + t
            for j in range(p):
                TD[f, j, t] = Xs[i, j]
            for j in range(mc):
                TC[f, j, t] = Cs[i, j]
    cnt = end - start
    lo = np.empty((nnodes, p), dtype=np.float64)
    hi = np.empty((nnodes, p), dtype=np.float64)
    rmin = np.empty(nnodes, dtype=np.float64)
    rmax = np.empty(nnodes, dtype=np.float64)
    ncode = np.empty((nnodes, 2 * mc), dtype=np.int32)  # code range [min, max] per column
    _refit_all(TD, TR, first_leaf, cnt, lo, hi, rmin, rmax, TC, ncode)
    return TD, TR, TI, cnt, lo, hi, rmin, rmax, first_leaf, TC, ncode


@helper
def _live_rows(TD, TR, TI, first_leaf, cnt, TC):
    """The live rows of a kd-tree store: (rows (m, p), original indices, reference
    distances, codes (m, mc))."""
    nleaf, p, C = TD.shape
    m = cnt[0]
    mc = TC.shape[1]
    Cs = np.empty((m, mc), dtype=np.int32)
    Xs = np.empty((m, p), dtype=np.float64)
    os = np.empty(m, dtype=np.int64)
    rs = np.empty(m, dtype=np.float64)
    i = 0
    for f in range(nleaf):
        for t in range(cnt[f + first_leaf]):
            for j in range(p):
                Xs[i, j] = TD[f, j, t]
            for j in range(mc):
                Cs[i, j] = TC[f, j, t]
            os[i] = TI[f, t]
            rs[i] = TR[f, t]
            i += 1
    return Xs, os, rs, Cs


#: Scale of the rule of :func:`small_enough`.
SMALL_WORK = 200_000


def small_enough(n, p, mc, k):
    """True when the brute-force kernel :func:`mdav_labels_small` is about as fast as the
    kd-tree kernel :func:`mdav_labels_tree` or faster on n rows, p numeric and mc nominal
    columns, group size k: n^2 <= SMALL_WORK k max(1 + (p - 2 mc) / 8, 1/2).

    Measured break-even points (2-core machine, both ~0.5-1.5 ms there): k = 3: n ~ 800 with
    p = 1-3, > 1,100 with p = 8, ~ 700 with p = 3 and mc = 2; k = 5: n ~ 1,000-1,200 with
    p = 1-3; the census (n = 1,080, p = 13, k = 5): brute force 0.75x the tree's time. The
    brute-force kernel compiles in a fraction of the tree's time, so a first call on small
    data (the census, a test, a notebook's first try) does not wait for the kd-tree kernel.

    Parameters
    ----------
    n, p, mc : int
        Rows, numeric columns, nominal columns.
    k : int
        Minimum group size.

    Notes
    -----
    A speed rule only: both kernels give the same partition.

    Examples
    --------
    >>> small_enough(1080, 13, 0, 5), small_enough(5000, 3, 0, 3)
    (True, False)
    """
    return n * n <= SMALL_WORK * k * max(1.0 + (p - 2 * mc) / 8.0, 0.5)


def mdav_labels(X, k, leaf=None):
    """Group label per row of X (n, p) by classic MDAV with minimum group size k.

    While >= 3k rows are left: xr = farthest from the centroid, xs = farthest from xr (among
    rows outside xr's group); groups of xr and its k-1 nearest, then xs and its k-1 nearest.
    With 2k..3k-1 left, one group around the row farthest from the centroid; the rest is the
    last group. Labels are numbered in order of creation; distances are squared Euclidean,
    ties go to the lowest row index (thesis 2.3.4). ``leaf`` (rows per kd-tree leaf; given:
    the kd-tree kernel runs whatever n is) changes the speed only, never the result.

    Parameters
    ----------
    X : float64 (n, p)
        The rows (standardised by the caller).
    k : int
        Minimum group size, 1 <= k <= n.
    leaf : int, optional
        Rows per kd-tree leaf.

    Notes
    -----
    MDAV (Domingo-Ferrer & Torra 2005) as Akiyama 2018 (thesis) 2.3.4 states it; groups have k
    rows except one of k .. 2k-1.

    Examples
    --------
    >>> mdav_labels(np.array([[0.0], [0.1], [5.0], [5.1], [9.0], [9.2]]), 2).tolist()
    [0, 0, 2, 2, 1, 1]
    """
    n = X.shape[0]
    return mdav_labels_codes(X, np.empty((n, 0), dtype=np.int32), np.zeros(1, dtype=np.int64),
                             np.empty(0, dtype=np.int64), np.ones(1), k, leaf)


def mdav_labels_codes(X, codes, off, gid, gw, k, leaf=None, done=None):
    """:func:`mdav_labels` on numeric features X (n, p) float64 plus nominal columns given by
    their codes (n, mc) int32, the offsets ``off`` (mc + 1, int64) of each column's levels,
    each column's weight group ``gid`` (int64) and the groups' a^2 ``gw`` (float64; see the
    module docstring): the same partition as :func:`mdav_labels` on the one-hot embedding, in
    O(n (p + mc) + sum U) memory.

    Parameters
    ----------
    X, codes, off, gid, gw
        As above (C-contiguous).
    k : int
        Minimum group size.
    leaf : int, optional
        Rows per kd-tree leaf of :func:`mdav_labels_tree`; when given, the kd-tree kernel runs
        whatever the size (tests of the tree use it). Default: :data:`_LEAF`, and the
        brute-force :func:`mdav_labels_small` when :func:`small_enough`.
    done : int64 array of one element, optional
        Rows grouped so far, updated after every group (the GIL is released: another thread
        can read it to show progress).

    Notes
    -----
    A Python function on purpose: which kernel runs is decided before Numba sees a call, so
    a first call on small data compiles only the small kernel (the first ``mdav`` call on 60
    rows: ~4 s CPU against ~16 s with the kd-tree kernel on a 2-core machine;
    benchmarks/README.md). Both kernels give the same labels (tests/test_mdav.py pins them
    against each other and the reference).

    >>> X = np.array([[0.0], [0.1], [0.2], [5.0], [5.1], [5.2]])
    >>> codes = np.array([[0], [1], [0], [1], [0], [1]], dtype=np.int32)
    >>> mdav_labels_codes(X, codes, np.array([0, 2]), np.array([0]), np.array([50.0]), 2).tolist()
    [0, 2, 0, 1, 2, 1]
    >>> a = np.sqrt(50.0)  # the same as MDAV on the one-hot embedding with value a
    >>> mdav_labels(np.hstack([X, a * (codes == 0), a * (codes == 1)]), 2).tolist()
    [0, 2, 0, 1, 2, 1]
    """
    if done is None:
        done = np.zeros(1, dtype=np.int64)
    n, p = X.shape
    if leaf is None and small_enough(n, p, codes.shape[1], max(k, 1)):
        return mdav_labels_small(X, codes, off, gid, gw, k, done)
    return mdav_labels_tree(X, codes, off, gid, gw, k, _LEAF if leaf is None else leaf, done)


@njit(cache=True, nogil=True)
def mdav_labels_small(X, codes, off, gid, gw, k, done):
    """:func:`mdav_labels_codes` by brute force: every query measures every live row. The
    same operations as :func:`mdav_labels_tree` (distances summed in column order plus the
    nominal part of :func:`~._common.add_nominal`, the centroid from the exact sums of
    :func:`_add_exact`, removed in the same order, ties to the lowest row), so the same
    labels, bit for bit; O(n^2 (p + mc) / k) time, O(n (p + mc)) memory.

    Parameters
    ----------
    X : float64 (n, p); codes : int32 (n, mc); off : int64 (mc + 1); gid : int64 (mc);
    gw : float64 (G); k : int; done : int64 (1) (see :func:`mdav_labels_codes`).

    Notes
    -----
    Compiles in about a third of the kd-tree kernel's time: one loop over a compacted
    column-major copy of the live rows, no tree, no bounds.
    """
    n, p = X.shape
    mc = codes.shape[1]
    labels = np.zeros(n, dtype=np.uint32)
    if n < 2 * k:
        done[0] = n
        return labels
    L = off[mc]
    LX = np.empty((p, n), dtype=np.float64)  # the live rows, column-major, in row order
    LC = np.empty((mc, n), dtype=np.int32)
    ids = np.arange(n)
    for i in range(n):
        for j in range(p):
            LX[j, i] = X[i, j]
        for j in range(mc):
            LC[j, i] = codes[i, j]
    sums, errs, lcnt, lQ = _centroid_state(X, codes, off)
    pcnt = np.zeros(L, dtype=np.int64)
    Kc = np.empty(mc, dtype=np.int64)
    Kp = np.full(mc, 2, dtype=np.int64)
    acc = np.empty((gw.shape[0], n), dtype=np.int64)
    pnt = (off, gid, gw, pcnt, Kp, np.int64(2), 1.0, acc)
    c = np.empty(p, dtype=np.float64)
    q = np.empty(p, dtype=np.float64)
    qcode = np.zeros(mc, dtype=np.int32)
    buf = np.empty(n, dtype=np.float64)
    kk = k - 1
    bd = np.empty(kk + 1, dtype=np.float64)
    bi = np.empty(kk + 1, dtype=np.int64)
    gone = np.zeros(n, dtype=np.bool_)
    m = n
    label = np.int64(0)
    while m >= 2 * k:
        for j in range(p):
            c[j] = (sums[j] + errs[j]) / m
        tqc, m2c = mean_query(lcnt, lQ, m, Kc)
        for g in range(2):
            # xr: farthest from the centroid (g = 0) or from the previous xr (g = 1)
            if g == 0:
                _all_dists(LX, LC, m, c, buf, (off, gid, gw, lcnt, Kc, tqc, m2c, acc))
            else:
                _all_dists(LX, LC, m, q, buf, pnt)
            xr = 0
            for t in range(1, m):
                if buf[t] > buf[xr]:  # ties: the first, i.e. the lowest row
                    xr = t
            for j in range(p):
                q[j] = LX[j, xr]
            for j in range(mc):
                pcnt[off[j] + qcode[j]] = 0
                qcode[j] = LC[j, xr]
                pcnt[off[j] + qcode[j]] = 1
            if kk > 0:
                _all_dists(LX, LC, m, q, buf, pnt)
                found = np.int64(0)
                for t in range(m):
                    if t != xr:
                        found = topk_insert(bd, bi, found, kk, buf[t], t)
            for u in range(-1, kk):
                t = xr if u < 0 else bi[u]
                gone[t] = True
                labels[ids[t]] = label
                for j in range(p):
                    _add_exact(sums, errs, j, -LX[j, t])
                for j in range(mc):
                    v = off[j] + LC[j, t]
                    lQ[j] -= 2 * lcnt[v] - 1
                    lcnt[v] -= 1
            w = 0  # squeeze the group out (the live rows stay in row order)
            for t in range(m):
                if gone[t]:
                    gone[t] = False
                    continue
                if w != t:
                    for j in range(p):
                        LX[j, w] = LX[j, t]
                    for j in range(mc):
                        LC[j, w] = LC[j, t]
                    ids[w] = ids[t]
                w += 1
            label += 1
            m -= k
            done[0] = n - m
            if m < 2 * k:
                break
    for t in range(m):
        labels[ids[t]] = label
    done[0] = n
    return labels


@helper
def _all_dists(LX, LC, m, q, buf, nom):
    """buf[:m] = distances of the first m columns of LX (p, N) (codes LC (mc, N)) to q and the
    nominal query ``nom``, computed as :func:`_farthest` and :func:`_leaf_dists` do."""
    for t in range(m):
        buf[t] = 0.0
    for j in range(LX.shape[0]):
        qj = q[j]
        col = LX[j]
        for t in range(m):
            d = col[t] - qj
            buf[t] += d * d
    if LC.shape[0] > 0:
        add_nominal(LC, np.int64(0), m, buf, nom)


@njit(cache=True, nogil=True)
def mdav_labels_tree(X, codes, off, gid, gw, k, leaf, done):
    """:func:`mdav_labels_codes` by the kd-tree and the sorted centroid-distance scan of the
    module docstring: O(n (p + mc) + sum U) memory, fast on large n.

    Parameters
    ----------
    X : float64 (n, p); codes : int32 (n, mc); off : int64 (mc + 1); gid : int64 (mc);
    gw : float64 (G); k : int; done : int64 (1) (see :func:`mdav_labels_codes`).
    leaf : int
        Rows per kd-tree leaf at most (the speed only, never the result).

    Notes
    -----
    One function, no wrapper: every extra @njit layer on top of the body compiles the whole
    body's machine code once more on first use.
    """
    n, p = X.shape
    mc = codes.shape[1]
    labels = np.zeros(n, dtype=np.uint32)
    if n < 2 * k:
        done[0] = n
        return labels
    leaf = max(leaf, 1)
    L = off[mc]
    cscale = np.empty(mc, dtype=np.float64)
    for j in range(mc):
        # codes as split coordinates: the whole range spans one category distance
        cscale[j] = np.sqrt(2.0 * gw[gid[j]]) / max(off[j + 1] - off[j] - 1, 1)
    pos = np.empty(n, dtype=np.int64)
    TD, TR, TI, cnt, lo, hi, rmin, rmax, first_leaf, TC, ncode = _tree(
        X, np.arange(n), np.zeros(n), leaf, pos, codes, cscale
    )
    built = n
    sums, errs, lcnt, lQ = _centroid_state(X, codes, off)
    rcnt = lcnt.copy()  # the reference point's counts (a centroid)
    rQ = lQ.copy()
    rm = n
    pcnt = np.zeros(L, dtype=np.int64)  # a row's indicator (point queries)
    Kc = np.empty(mc, dtype=np.int64)
    Kr = np.empty(mc, dtype=np.int64)
    Kp = np.empty(mc, dtype=np.int64)
    acc = np.empty((gw.shape[0], max(leaf, _SCAN)), dtype=np.int64)
    qcode = np.zeros(mc, dtype=np.int32)
    # the current row xr as a query (np.int64: the same tuple type as a centroid's query, so
    # the helpers taking it compile once, not once more for a literal 2)
    pnt = (off, gid, gw, pcnt, Kp, np.int64(2), 1.0, acc)
    c = np.empty(p, dtype=np.float64)
    ref = np.empty(p, dtype=np.float64)
    for j in range(p):
        ref[j] = (sums[j] + errs[j]) / n
    LX = np.empty((p, n), dtype=np.float64)
    LC = np.empty((mc, n), dtype=np.int32)
    LR = np.empty(n, dtype=np.float64)
    LI = np.empty(n, dtype=np.int64)
    lpos = np.empty(n, dtype=np.int64)
    tq, m2 = mean_query(rcnt, rQ, rm, Kr)
    stop = _set_reference(TD, TR, TI, first_leaf, cnt, ref, LX, LR, LI, lpos, TC, LC,
                          (off, gid, gw, rcnt, Kr, tq, m2, acc))
    head = np.int64(0)  # not a literal 0: one compilation of _farthest, not two
    _refit_all(TD, TR, first_leaf, cnt, lo, hi, rmin, rmax, TC, ncode)
    depth = 0
    while (1 << depth) - 1 < first_leaf:
        depth += 1
    sn = np.empty(2 * depth + 4, dtype=np.int64)
    sb = np.empty(2 * depth + 4, dtype=np.float64)
    kk = k - 1
    bd = np.empty(kk + 1, dtype=np.float64)
    bi = np.empty(kk + 1, dtype=np.int64)
    buf = np.empty(min(leaf, n), dtype=np.float64)
    sbuf = np.empty(_SCAN, dtype=np.float64)
    q = np.empty(p, dtype=np.float64)
    m = n
    label = np.int64(0)  # not a literal 0 (one compilation of _remove)
    full = 0
    while m >= 2 * k:
        if m <= _REBUILD * built:
            # removed rows leave sparse leaves with wide boxes behind: rebuild on the live rows
            Xs, os, rs, Cs = _live_rows(TD, TR, TI, first_leaf, cnt, TC)
            TD, TR, TI, cnt, lo, hi, rmin, rmax, first_leaf, TC, ncode = _tree(Xs, os, rs, leaf, pos, Cs, cscale)
            built = m
        for j in range(p):
            c[j] = (sums[j] + errs[j]) / m
        dq = np.sqrt(_sq_dist(c, ref) + _mean_gap(off, gid, gw, lcnt, m, rcnt, rm))
        if dq > _DRIFT * rmax[0]:
            # the centroid drifted: make it the reference so that the bounds stay tight
            for j in range(p):
                ref[j] = c[j]
            for u in range(L):
                rcnt[u] = lcnt[u]
            for j in range(mc):
                rQ[j] = lQ[j]
            rm = m
            tq, m2 = mean_query(rcnt, rQ, rm, Kr)
            stop = _set_reference(TD, TR, TI, first_leaf, cnt, ref, LX, LR, LI, lpos, TC, LC,
                                  (off, gid, gw, rcnt, Kr, tq, m2, acc))
            head = np.int64(0)
            _refit_all(TD, TR, first_leaf, cnt, lo, hi, rmin, rmax, TC, ncode)
            dq = np.sqrt(_sq_dist(c, ref) + _mean_gap(off, gid, gw, lcnt, m, rcnt, rm))
        tqc, m2c = mean_query(lcnt, lQ, m, Kc)
        cen = (off, gid, gw, lcnt, Kc, tqc, m2c, acc)
        # one pair of groups: xr (farthest from the centroid) and xs (farthest from xr)
        measured = 0
        xs = -1
        for g in range(2):
            if g == 0:
                xr, head, _ = _farthest(LX, LR, LI, lpos, head, stop, c, dq, sbuf, LC, cen)
            elif xs >= 0 and LI[lpos[xs]] >= 0:
                xr = xs
            else:
                xr, head, scanned = _farthest(LX, LR, LI, lpos, head, stop, q, dq, sbuf, LC, pnt)
                measured += scanned
            f = pos[xr] // TD.shape[2]
            t = pos[xr] - f * TD.shape[2]
            for j in range(p):
                q[j] = TD[f, j, t]
            for j in range(mc):
                pcnt[off[j] + qcode[j]] = 0
                qcode[j] = TC[f, j, t]
                pcnt[off[j] + qcode[j]] = 1
                Kp[j] = 2
            dq = TR[f, t]
            if g == 0 and full > 0:
                xs = _nearest_and_farthest(TD, TI, first_leaf, cnt, q, xr, kk, bd, bi, buf, TC, pnt)
            else:
                scanned = _nearest(
                    TD, TI, first_leaf, cnt, lo, hi, rmin, rmax, q, dq, xr, kk, bd, bi, buf, sn, sb, TC, ncode,
                    qcode, pnt
                )
                measured += scanned if g == 0 else 0
            for u in range(-1, kk):
                o = xr if u < 0 else bi[u]
                _remove(
                    TD, TR, TI, pos, first_leaf, cnt, lo, hi, rmin, rmax, LI, lpos, sums, o, labels, label, errs,
                    TC, ncode, off, lcnt, lQ
                )
            label += 1
            m -= k
            done[0] = n - m
            if m < 2 * k:
                break
        # when the bounds prune badly (many columns), one fused pass per pair is cheaper than
        # a search for xr's neighbours plus a scan for xs; probe the searches again now and then
        if full > 0:
            full -= 1
        elif 2 * measured > m:
            full = _PROBE
    for f in range(TD.shape[0]):
        for t in range(cnt[f + first_leaf]):
            labels[TI[f, t]] = label
    done[0] = n
    return labels
