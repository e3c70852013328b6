"""MHM orderings "kd" and "kd-mdav": the kd-tree path for large n.

A median kd-tree (split on the principal axis of each segment), leaves of at most
``leaf_size`` records visited depth-first, the half on the side of the previous visited
record first, each leaf walked by NPN from the record nearest the previous one;
O(n log n p + n leaf_size p). With ``mdav_k`` ("kd-mdav") the leaves are large and
partitioned by MDAV (:mod:`.mdav`), whose groups become consecutive runs of the path. See
:mod:`.path_order_common`.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ._common import helper, widest_dim
from .mdav import _LEAF as _MDAV_LEAF, mdav_labels_codes, mdav_labels_small, mdav_labels_tree, small_enough
from .path_order_common import _npn_walk, farthest_from_centroid_codes


@helper
def _push_halves(sa, sb, top, a, mid, b, low_first):
    """Push the segments [a, mid) and [mid, b) on the stack (sa, sb) so that the low half
    pops first when ``low_first``; returns the new top."""
    if low_first:
        sa[top], sb[top], sa[top + 1], sb[top + 1] = mid, b, a, mid
    else:
        sa[top], sb[top], sa[top + 1], sb[top + 1] = a, mid, mid, b
    return top + 2


@helper
def _before(key, r, s):
    """Row r sorts before row s by (key, row)."""
    return key[r] < key[s] or (key[r] == key[s] and r < s)


@helper
def _select(perm, a, b, kth, key):
    """Reorder perm[a:b] so that perm[kth] holds the element of rank kth - a by
    (key[row], row), smaller ones before it and larger after (quickselect)."""
    lo = a
    hi = b - 1
    while hi > lo:
        mid = (lo + hi) // 2
        x0 = perm[lo]
        x1 = perm[mid]
        x2 = perm[hi]
        if _before(key, x1, x0):
            x0, x1 = x1, x0
        if _before(key, x2, x1):
            x1, x2 = x2, x1
            if _before(key, x1, x0):
                x0, x1 = x1, x0
        pr = x1
        i = lo
        j = hi
        while i <= j:
            while _before(key, perm[i], pr):
                i += 1
            while _before(key, pr, perm[j]):
                j -= 1
            if i <= j:
                tmp = perm[i]
                perm[i] = perm[j]
                perm[j] = tmp
                i += 1
                j -= 1
        if kth <= j:
            hi = j
        elif kth >= i:
            lo = i
        else:
            return


_PCA_SAMPLE = 2048


@helper
def _split_direction(X, perm, a, b, rule, mean, v, w):
    """Unit direction v along which the rows perm[a:b] are split: rule 0 the axis of widest
    range, 1 the axis of largest variance, 2 the principal axis (8 power iterations started
    from the largest-variance axis, on a sample of the rows when there are many)."""
    p = X.shape[1]
    m = b - a
    for d in range(p):
        v[d] = 0.0
    if rule == 0:
        v[widest_dim(X, perm, a, b)] = 1.0
        return
    for d in range(p):
        mean[d] = 0.0
    for t in range(a, b):
        for d in range(p):
            mean[d] += X[perm[t], d]
    for d in range(p):
        mean[d] /= m
    dim = np.int64(0)
    best = -1.0
    for d in range(p):
        s = 0.0
        for t in range(a, b):
            x = X[perm[t], d] - mean[d]
            s += x * x
        if s > best:
            best = s
            dim = d
    v[dim] = 1.0
    if rule != 2:
        return
    # power iteration on an evenly spaced sample of at most _PCA_SAMPLE rows
    stride = m // _PCA_SAMPLE
    if stride < 1:
        stride = 1
    for it in range(8):
        for d in range(p):
            w[d] = 0.0
        for t in range(a, b, stride):
            r = perm[t]
            dot = 0.0
            for d in range(p):
                dot += (X[r, d] - mean[d]) * v[d]
            for d in range(p):
                w[d] += dot * (X[r, d] - mean[d])
        nrm = 0.0
        for d in range(p):
            nrm += w[d] * w[d]
        if nrm == 0.0:
            return
        nrm = np.sqrt(nrm)
        for d in range(p):
            v[d] = w[d] / nrm


@helper
def _dot_row(X, r, v):
    s = 0.0
    for d in range(X.shape[1]):
        s += X[r, d] * v[d]
    return s


def kd_order(X: np.ndarray, leaf_size: int, rule: int = 2, mdav_k: int = 0,
             done: np.ndarray | None = None) -> np.ndarray:
    """kd-tree order: median splits down to leaves of at most ``leaf_size`` records, on the
    principal axis of each segment (``rule=2``; 1: axis of largest variance, 0: of widest
    range); leaves in depth-first order, the half on the side of the previous visited
    record first (the path starts at the record farthest from the centroid); each leaf
    walked by NPN from its record nearest the previous one. O(n log n p) time.

    With ``mdav_k > 0`` each leaf is first partitioned by MDAV with that k; the leaf's
    groups are then visited nearest-centroid-next and each group walked by NPN, so the
    MDAV groups are runs of the path (MHM can then only improve on leaf-wise MDAV);
    O(n leaf_size p / mdav_k) more time. ``done[0]``: rows visited so far.

    >>> kd_order(np.array([[0.0], [10.0], [1.0], [9.0]]), 2).tolist()
    [0, 2, 3, 1]
    """
    return _kd_order(X, leaf_size, rule, mdav_k, np.zeros(1, dtype=np.int64) if done is None else done)


def _kd_order(X, leaf_size, rule, mdav_k, done):
    X = np.ascontiguousarray(X, dtype=np.float64)
    return _kd_call(X, None, None, None, None, None, None, None, leaf_size, rule, mdav_k if mdav_k > 0 else None, done)


def _kd_call(X, C, off, gid, gw, A_c, lk, li, leaf_size, rule, mdav_k, done):
    """Start row, then the walk: kernels called one after the other from here (a kernel
    calling another re-optimises the callee's machine code inside its own, so on leaves of
    at least :data:`_PY_LEAF` rows, and on a single leaf, the leaf MDAV is called from
    Python through the MDAV method's own dispatcher, not from inside the walk). A single
    leaf (n <= leaf_size) needs no split: the split kernel is then not compiled, only the
    group walk :func:`_leaf_groups`. The leaves' scratch ``grp`` is allocated here, once."""
    n, p = X.shape
    if n == 0:
        return np.empty(0, dtype=np.int64)
    first = np.int64(farthest_from_centroid_codes(X, C, off, gid, gw))
    num = (np.empty(p), np.empty(p), np.empty(p))
    scr = None
    if C is not None:
        U = int(off[C.shape[1]])
        cap = p + U
        scr = (np.empty(cap), np.empty(cap), np.zeros(p), np.zeros(U), np.empty(cap), np.empty(cap),
               np.empty(cap, dtype=np.int64), np.empty(cap, dtype=np.int64), np.empty(cap, dtype=np.int64),
               np.zeros(U, dtype=np.int64), np.zeros(U, dtype=np.int64))
    leaf_size, rule = np.int64(leaf_size), np.int64(rule)
    small, tree_leaf = _mdav_leaf(X, 0 if C is None else C.shape[1], leaf_size, mdav_k)
    lcnt = np.empty(0, dtype=np.int64) if C is None else scr[9]
    grp = None
    if mdav_k is not None:  # _leaf_groups' scratch for leaves of up to mm rows
        mm = int(min(leaf_size, n))
        grp = (np.empty(mm, dtype=np.int64), np.empty((mm, p)), np.empty(mm + 1, dtype=np.int64),
               np.empty(mm, dtype=np.int64), np.empty(mm, dtype=np.bool_), np.empty(mm, dtype=np.int64))
    if mdav_k is None or (leaf_size < _PY_LEAF and n > leaf_size):
        # order "kd" (mdav_k None: no MDAV compiled), or kd-mdav on many small leaves: one kernel
        sb = np.zeros(_STACK, dtype=np.int64)
        sb[0] = n
        walk = (np.empty(n, dtype=np.int64), np.arange(n, dtype=np.int64), np.empty(n), np.zeros(_STACK, dtype=np.int64),
                sb, np.empty(leaf_size if leaf_size > 1 else 1, dtype=np.int64))
        return _kd_walk(X, C, off, gid, gw, A_c, lk, li, leaf_size, rule, None if mdav_k is None else np.int64(mdav_k),
                        small, tree_leaf, lcnt, grp, first, num, scr, walk, done)
    # kd-mdav on large leaves (few): Python takes them one at a time
    if C is None:  # MDAV's own numeric arguments (no nominal column): the same kernel signature
        moff, mgid, mgw = np.zeros(1, dtype=np.int64), np.empty(0, dtype=np.int64), np.empty(0)
    else:
        moff, mgid, mgw = off, gid, gw
    order = np.empty(n, dtype=np.int64)
    perm = np.arange(n)
    if n > leaf_size:
        key = np.empty(n)
        sa = np.zeros(_STACK, dtype=np.int64)
        sb = np.zeros(_STACK, dtype=np.int64)
        sb[0] = n
    top, out, prev = np.int64(1), np.int64(0), first
    while True:
        if n <= leaf_size:  # one leaf, the whole data: no split, the split kernel is not compiled
            a, b, top = (0, n, 0) if top else (-1, -1, 0)
        else:
            a, b, top = _kd_next_leaf(X, C, off, A_c, lk, li, perm, leaf_size, rule, prev, key, num, scr, sa, sb, top)
        if a < 0:
            return order
        rows = perm[a:b]
        sub = np.ascontiguousarray(X[rows])
        subc = np.ascontiguousarray(C[rows]) if C is not None else np.empty((b - a, 0), dtype=np.int32)
        k = min(int(mdav_k), b - a)
        # the dispatcher of the MDAV method (its kernels and signatures): brute force on
        # small leaves, else (``leaf``) the kd-tree kernel, as _mdav_leaf decided for all
        lab = mdav_labels_codes(sub, subc, moff, mgid, mgw, k, None if small is not None else int(tree_leaf))
        out, prev = _leaf_groups(X, C, off, gid, gw, perm, np.int64(a), sub, subc, lab, order, np.int64(out),
                                 np.int64(prev), lcnt, grp)
        done[0] = out


#: the kd walks' segment stack: two entries per level of median splits (at most 64 levels)
_STACK = 2 * 64 + 16
#: kd-mdav leaves of at least this many rows are taken one at a time from Python (~15 us
#: per leaf; smaller ones inside the walk, whose first call then compiles MDAV into it)
_PY_LEAF = 1024


def _mdav_leaf(X, mc, leaf_size, mdav_k):
    """The leaf-MDAV kernel of a kd walk, as the arguments ``mdav_small``, ``mdav_leaf`` of
    :func:`_kd_walk`: (True, None) when no leaf (at most min(leaf_size, n) rows) is too large
    for the brute-force :func:`~.mdav.mdav_labels_small` (the rule of
    :func:`~.mdav.mdav_labels_codes`), else (None, the kd-tree leaf size of
    :func:`~.mdav.mdav_labels_tree`); (None, None) without MDAV. Decided before the call, so
    that a walk compiles one of the two: Numba prunes a branch on an argument only when that
    argument is None."""
    if not mdav_k:
        return None, None
    rows = min(int(leaf_size), X.shape[0])
    if small_enough(rows, X.shape[1], mc, mdav_k):
        return np.bool_(True), None
    return None, np.int64(_MDAV_LEAF)


# ---------------------------------------------------------------------------------------
# kd-tree order with nominal columns as codes
# The one-hot embedding has D = p + sum U dimensions in the order of the ``on`` columns
# (``lk``/``li``: kind 0 numeric column li, 1 nominal column li). A one-hot coordinate
# holds a_c or 0, so every sum the dense kernel forms over the dimensions is formed here over
# the numeric columns and the levels present in the segment only, in the same order (an
# absent level adds exact zeros): the same means, variances, principal axis and keys, bit
# for bit, in O(n (p + mc) + sum U) memory.
@helper
def _live_dims(X, C, off, lk, li, perm, a, b, lcnt, dk, dc, du):
    """The live dimensions of the segment perm[a:b] in the embedding's order: every numeric
    column, and each level of a nominal column present in the segment. Returns their count."""
    mc = C.shape[1]
    for t in range(a, b):
        for c in range(mc):
            lcnt[off[c] + C[perm[t], c]] += 1
    L = 0
    for e in range(lk.shape[0]):
        col = li[e]
        if lk[e] == 0:
            dk[L] = 0
            dc[L] = col
            du[L] = 0
            L += 1
            continue
        if off[col + 1] - off[col] <= b - a:
            for u in range(off[col + 1] - off[col]):
                if lcnt[off[col] + u] > 0:
                    dk[L] = 1
                    dc[L] = col
                    du[L] = u
                    L += 1
        else:  # more levels than rows: sort the present ones
            tmp = np.empty(b - a, dtype=np.int64)
            q = 0
            for t in range(a, b):
                u = C[perm[t], col]
                if lcnt[off[col] + u] > 0:
                    tmp[q] = u
                    q += 1
                    lcnt[off[col] + u] = -lcnt[off[col] + u]  # listed once
            srt = np.sort(tmp[:q])
            for h in range(q):
                dk[L] = 1
                dc[L] = col
                du[L] = srt[h]
                L += 1
                lcnt[off[col] + srt[h]] = -lcnt[off[col] + srt[h]]
    for t in range(a, b):
        for c in range(mc):
            lcnt[off[c] + C[perm[t], c]] = 0
    return L


@helper
def _split_direction_codes(X, C, off, A_c, lk, li, perm, a, b, lcnt, dk, dc, du, mean, w, vnum, vnom, lev2e, z0, z1):
    """:func:`_split_direction` (rule 2, the principal axis) on the one-hot embedding of
    numeric X plus codes C: v is (vnum (p,), vnom (sum U,)), zero on entry outside the
    segment's live dimensions. Returns the number of live dimensions (to clear v later).
    Each sum runs over the rows in the dense kernel's order, so the values are the same bit
    for bit; a level's coordinate only takes two values, whose terms are computed once
    (``z0``/``z1``: for rows outside / inside the level; ``lev2e``: a level's live index)."""
    m = b - a
    mc = C.shape[1]
    L = _live_dims(X, C, off, lk, li, perm, a, b, lcnt, dk, dc, du)
    for e in range(L):
        mean[e] = 0.0
        if dk[e] == 1:
            lev2e[off[dc[e]] + du[e]] = e
    for t in range(a, b):
        r = perm[t]
        for e in range(L):
            if dk[e] == 0:
                mean[e] += X[r, dc[e]]
        for c in range(mc):
            mean[lev2e[off[c] + C[r, c]]] += A_c[c]
    for e in range(L):
        mean[e] /= m
    dim = np.int64(-1)  # not a literal: _set_v compiles once
    best = -1.0
    for e in range(L):
        s = 0.0
        col = dc[e]
        if dk[e] == 0:
            for t in range(a, b):
                x = X[perm[t], col] - mean[e]
                s += x * x
        else:
            x1 = A_c[col] - mean[e]
            x0 = 0.0 - mean[e]
            s1 = x1 * x1
            s0 = x0 * x0
            u = du[e]
            for t in range(a, b):
                s += s1 if C[perm[t], col] == u else s0
        if s > best:
            best = s
            dim = e
    if best <= 0.0:
        # every coordinate constant: the dense kernel keeps its dimension 0 (perhaps an
        # absent level); the keys are then equal and only the previous row's side counts
        if lk[0] == 0:
            vnum[li[0]] = 1.0
        else:
            vnom[off[li[0]]] = 1.0
        return L
    _set_v(dk, dc, du, off, dim, 1.0, vnum, vnom)
    stride = m // _PCA_SAMPLE
    if stride < 1:
        stride = 1
    for it in range(8):
        for e in range(L):
            w[e] = 0.0
            if dk[e] == 1:
                v = _get_v(dk, dc, du, off, e, vnum, vnom)
                z0[e] = (0.0 - mean[e]) * v
                z1[e] = (A_c[dc[e]] - mean[e]) * v
        for t in range(a, b, stride):
            r = perm[t]
            dot = 0.0
            for e in range(L):
                if dk[e] == 0:
                    dot += (X[r, dc[e]] - mean[e]) * vnum[dc[e]]
                else:
                    dot += z1[e] if C[r, dc[e]] == du[e] else z0[e]
            for e in range(L):
                if dk[e] == 0:
                    w[e] += dot * (X[r, dc[e]] - mean[e])
                else:
                    w[e] += dot * ((A_c[dc[e]] if C[r, dc[e]] == du[e] else 0.0) - mean[e])
        nrm = 0.0
        for e in range(L):
            nrm += w[e] * w[e]
        if nrm == 0.0:
            return L
        nrm = np.sqrt(nrm)
        for e in range(L):
            _set_v(dk, dc, du, off, e, w[e] / nrm, vnum, vnom)
    return L


@helper
def _set_v(dk, dc, du, off, e, x, vnum, vnom):
    if dk[e] == 0:
        vnum[dc[e]] = x
    else:
        vnom[off[dc[e]] + du[e]] = x


@helper
def _get_v(dk, dc, du, off, e, vnum, vnom):
    return vnum[dc[e]] if dk[e] == 0 else vnom[off[dc[e]] + du[e]]


@helper
def _key_codes(X, C, off, A_c, lk, li, r, vnum, vnom):
    """Row r of the one-hot embedding dotted with v, summed in the embedding's order."""
    s = 0.0
    for e in range(lk.shape[0]):
        col = li[e]
        if lk[e] == 0:
            s += X[r, col] * vnum[col]
        else:
            s += A_c[col] * vnom[off[col] + C[r, col]]
    return s


@helper
def _leaf_mdav(X, C, off, gid, gw, perm, a, b, k, mdav_small, mdav_leaf):
    """(sub, subc, lab): the rows perm[a:b] of X and C (numeric only: C None, subc with no
    column) and their MDAV labels with k (``mdav_small`` / ``mdav_leaf``: see
    :func:`_mdav_leaf`); kd-mdav on small leaves, inside the walk."""
    p = X.shape[1]
    m = b - a
    sub = np.empty((m, p))
    for t in range(m):
        for d in range(p):
            sub[t, d] = X[perm[a + t], d]
    if C is None:  # MDAV's own numeric arguments (no nominal column): the same kernel signature
        subc = np.empty((m, 0), dtype=np.int32)
        moff = np.zeros(1, dtype=np.int64)
        mgid = np.empty(0, dtype=np.int64)
        mgw = np.empty(0)
    else:
        mc = C.shape[1]
        subc = np.empty((m, mc), dtype=np.int32)
        for t in range(m):
            for c in range(mc):
                subc[t, c] = C[perm[a + t], c]
        moff, mgid, mgw = off, gid, gw
    if mdav_small is not None:  # the brute-force kernel, the tree is not compiled
        lab = mdav_labels_small(sub, subc, moff, mgid, mgw, min(k, m), np.zeros(1, dtype=np.int64))
    if mdav_leaf is not None:  # the tree kernel, the brute-force one is not compiled
        lab = mdav_labels_tree(sub, subc, moff, mgid, mgw, min(k, m), mdav_leaf, np.zeros(1, dtype=np.int64))
    return sub, subc, lab


@njit(cache=True, nogil=True)
def _leaf_groups(X, C, off, gid, gw, perm, a, sub, subc, lab, order, out, prev, lcnt, grp):
    """Append the rows perm[a:a + m] of a leaf (``sub`` (m, p) and ``subc`` their rows of X
    and C) to the path group by group: the leaf's MDAV groups ``lab``, nearest centroid (to
    the last visited row ``prev``) next, each group walked by NPN. Nominal columns (codes C;
    None: numeric only, ``lcnt`` unused): the distance from the last visited row to a
    group's centroid from its level counts. ``grp``: scratch for leaves of up to mm rows
    (cnt (mm,), cen (mm, p), gstart (mm + 1,), by_group (mm,), seen (mm,) bool, live (mm,)),
    allocated by the caller. Returns the new (out, prev)."""
    cnt, cen, gstart, by_group, seen, live = grp
    n, p = X.shape
    m = sub.shape[0]
    G = np.int64(0)
    for t in range(m):
        if lab[t] + 1 > G:
            G = lab[t] + 1
    # group sizes and means (the sums in row order, as _common.group_means), the leaf
    # positions grouped by label in increasing order (a counting sort, ``live`` its cursor)
    for g in range(G):
        cnt[g] = 0
        seen[g] = False
        for d in range(p):
            cen[g, d] = 0.0
    for t in range(m):
        gl = lab[t]
        cnt[gl] += 1
        for d in range(p):
            cen[gl, d] += sub[t, d]
    gstart[0] = 0
    for g in range(G):
        if cnt[g] > 0:
            for d in range(p):
                cen[g, d] /= cnt[g]
        gstart[g + 1] = gstart[g] + cnt[g]
        live[g] = gstart[g]
    for t in range(m):
        gl = lab[t]
        by_group[live[gl]] = t
        live[gl] += 1
    if C is not None:
        mc = C.shape[1]
        # K[g, c] = m_g^2 + sum_v cnt_v^2: the query of group g's mean for column c
        K = np.empty((G, mc), dtype=np.int64)
        for g in range(G):
            for c in range(mc):
                K[g, c] = cnt[g] * cnt[g]
            for h in range(gstart[g], gstart[g + 1]):
                t = by_group[h]
                for c in range(mc):
                    u = off[c] + subc[t, c]
                    K[g, c] += 2 * lcnt[u] + 1
                    lcnt[u] += 1
            for h in range(gstart[g], gstart[g + 1]):
                t = by_group[h]
                for c in range(mc):
                    lcnt[off[c] + subc[t, c]] = 0
        NG = gw.shape[0]
        acc = np.zeros(NG, dtype=np.int64)
    for gs in range(G):
        best = np.inf
        bg = np.int64(-1)
        for g in range(G):
            if seen[g]:
                continue
            s = 0.0
            for d in range(p):
                v = cen[g, d] - X[prev, d]
                s += v * v
            if C is not None:
                mg = cnt[g]
                for q in range(NG):
                    acc[q] = 0
                for c in range(mc):
                    same = np.int64(0)
                    for h in range(gstart[g], gstart[g + 1]):
                        if subc[by_group[h], c] == C[prev, c]:
                            same += 1
                    acc[gid[c]] += K[g, c] - 2 * mg * same
                t2 = 0.0
                for q in range(NG):
                    t2 += gw[q] * acc[q]
                s += t2 / float(mg * mg)
            if bg < 0 or s < best:
                best = s
                bg = g
        seen[bg] = True
        c = cnt[bg]
        for t in range(c):
            live[t] = perm[a + by_group[gstart[bg] + t]]
        out, prev = _npn_walk(X, C, gid, gw, live, c, order, out, prev)
    return out, prev


def kd_order_codes(X, C, off, gid, gw, A_c, lk, li, leaf_size, mdav_k, done):
    """:func:`kd_order` (rule 2) on numeric features X (n, p) plus nominal columns as
    row-major codes C (n, mc) (``off``, ``gid``, ``gw`` as in :mod:`._common`; ``A_c`` the
    one-hot value of each column; ``lk``/``li`` the order of the columns, see above): the
    path on their one-hot embedding in O(n (p + mc) + sum U) memory. ``mdav_k``: None for
    plain leaves (then the leaf-MDAV code is not compiled), else MDAV's k. ``done[0]``: rows
    visited so far. C with no column: numeric only (the nominal code is not compiled). (A
    Python function: an @njit layer over the walk compiled its machine code once more.)"""
    if C.shape[1] == 0:
        C = off = gid = gw = A_c = lk = li = None
    return _kd_call(X, C, off, gid, gw, A_c, lk, li, leaf_size, 2, mdav_k, done)


#: inlined into its two callers (typed in each, not compiled as a function of its own: one
#: compilation fewer on a first call; the None arguments still prune the unused branch)
@njit(inline="always", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _split_push(X, C, off, A_c, lk, li, perm, a, b, rule, prev, key, num, scr, sa, sb, top):
    """Split the segment perm[a:b] at its median along the split direction (numeric
    :func:`_split_direction` with scratch ``num``; with nominal codes C
    :func:`_split_direction_codes` with scratch ``scr``, see :func:`_kd_call`) and push both
    halves, the one on the side of row ``prev`` to be popped first. Returns the new top."""
    md, vd, wd = num
    if C is not None:
        mean, w, vnum, vnom, z0, z1, dk, dc, du, lcnt, lev2e = scr
        L = _split_direction_codes(X, C, off, A_c, lk, li, perm, a, b, lcnt, dk, dc, du, mean, w, vnum, vnom,
                                   lev2e, z0, z1)
        for t in range(a, b):
            key[perm[t]] = _key_codes(X, C, off, A_c, lk, li, perm[t], vnum, vnom)
        pk = _key_codes(X, C, off, A_c, lk, li, prev, vnum, vnom)
        for e in range(L):
            _set_v(dk, dc, du, off, e, 0.0, vnum, vnom)
        if lk[0] == 0:
            vnum[li[0]] = 0.0
        else:
            vnom[off[li[0]]] = 0.0
    else:
        _split_direction(X, perm, a, b, rule, md, vd, wd)
        for t in range(a, b):
            key[perm[t]] = _dot_row(X, perm[t], vd)
        pk = _dot_row(X, prev, vd)
    mid = (a + b) // 2
    _select(perm, a, b, mid, key)
    # the half on prev's side of the split is visited first (pushed last)
    sv = key[perm[mid]]
    return _push_halves(sa, sb, top, a, mid, b, pk < sv or (pk == sv and prev < perm[mid]))


@njit(cache=True, nogil=True)
def _kd_next_leaf(X, C, off, A_c, lk, li, perm, leaf_size, rule, prev, key, num, scr, sa, sb, top):
    """kd-mdav: pop and split segments of the stack (sa, sb, top) until a leaf, the next one
    in the walk's order; returns (a, b, top) of the leaf perm[a:b], or (-1, -1, 0) when the
    stack is empty."""
    while top > 0:
        top -= 1
        a = sa[top]
        b = sb[top]
        if b - a <= leaf_size:
            return a, b, top
        top = _split_push(X, C, off, A_c, lk, li, perm, a, b, rule, prev, key, num, scr, sa, sb, top)
    return np.int64(-1), np.int64(-1), top


@njit(cache=True, nogil=True)
def _kd_walk(X, C, off, gid, gw, A_c, lk, li, leaf_size, rule, mdav_k, mdav_small, mdav_leaf, lcnt, grp, first, num,
             scr, walk, done):
    """The kd order from row ``first`` (the row farthest from the centroid), each leaf walked
    by NPN, or with ``mdav_k`` (kd-mdav on small leaves) partitioned by MDAV first
    (:func:`_leaf_mdav`, :func:`_leaf_groups`; None: not compiled): :func:`kd_order` without
    nominal columns (C, off, gid, gw, A_c, lk, li and ``scr`` None; any ``rule``),
    :func:`kd_order_codes` with them (rule 2). Scratch arrays ``num`` / ``scr`` / ``grp`` /
    ``walk`` (the order, the rows 0 .. n-1 permuted in place, the split keys, the segment
    stacks, a leaf's rows): see :func:`_kd_call`."""
    order, perm, key, sa, sb, live = walk
    top = np.int64(1)
    out = np.int64(0)  # not a literal 0: _npn_walk compiles once
    prev = first
    while top > 0:
        top -= 1
        a = sa[top]
        b = sb[top]
        if b - a <= leaf_size:
            if mdav_k is not None:  # None (order "kd"): this branch and MDAV are not compiled
                sub, subc, lab = _leaf_mdav(X, C, off, gid, gw, perm, a, b, mdav_k, mdav_small, mdav_leaf)
                out, prev = _leaf_groups(X, C, off, gid, gw, perm, a, sub, subc, lab, order, out, prev, lcnt, grp)
            else:
                m = b - a
                for t in range(m):
                    live[t] = perm[a + t]
                out, prev = _npn_walk(X, C, gid, gw, live, m, order, out, prev)
            done[0] = out
            continue
        top = _split_push(X, C, off, A_c, lk, li, perm, a, b, rule, prev, key, num, scr, sa, sb, top)
    return order
