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

One module on purpose (~1,000 lines): the kd-tree, the sorted centroid-distance scan, the
nominal columns' level counts and the round loop share the compacted store and its
invariants; Numba compiles them together.

First-call compile time (issue 27; benchmarks/README.md, session 26): numeric data pass
``codes=None``, and every nominal step sits under ``if codes is not None`` (kernels) or
``if nom is not None`` (helpers, which get the whole nominal state as the one argument
``nom``, None for numeric data): Numba prunes a branch on a None *argument* before typing, so
numeric data compile no nominal code. The kernels allocate every array once (each np.empty of
another dtype or rank, and each np.zeros / np.arange / np.argsort / min / max, is a
compilation of its own), the kd-tree is rebuilt in the buffers of the first one, and
helpers called from one place are written into their caller (every helper is compiled,
optimised and turned into machine code on its own, then again inside the kernel). The
kd-tree kernel is resumable (session 28): the round kernel :func:`_tree_rounds` returns to
Python (:func:`_run_tree`) when the tree must be rebuilt or the reference point refreshed,
which are kernels of their own (:func:`_tree`, :func:`_refresh`; ~10-25 round trips per run),
and its state is allocated in numpy (:func:`_tree_state`); loop-carried counters start as
np.int64 (a literal 0 costs Numba's type inference a round per variable).
"""
from __future__ import annotations

import time

import numpy as np
from numba import njit, types
from numba.extending import overload, register_jitable

from .rental import Rental, compiled_like, ready_like
from ._common import helper, add_nominal, mean_query, topk_insert, widest_dim

_LEAF = 64  # rows per kd-tree leaf at most
_REL = 1e-9  # relative margin on triangle-inequality bounds (rounding is ~1e-15)
_TINY = 1e-150  # absolute margin on such bounds (covers underflow)
_SCAN = 64  # rows per block of the farthest-row scan
_REBUILD = 0.5  # rebuild the kd-tree when this fraction of the rows it was built on is left
_PROBE = 16  # pairs between probes of the bounded searches when they pruned badly
_DRIFT = 0.05  # refresh the reference when the centroid moved this fraction of the data radius
# numeric + nominal columns from which the kd-tree kernel may switch to the fused pass
# (_nearest_and_farthest, ``wide``); below, it is not compiled. Warm, 5,000 normal rows, k = 3,
# fused / not: p = 3 0.98, 8 1.07, 10 1.02, 11 0.96, 13 0.88, 20 0.77; 2 + 2 nominal 1.10,
# 8 + 3 0.93 (20,000 rows: p = 3 1.00, 8 1.06, 11 1.09; issue 27, session 27)
_WIDE = 11

# The nominal state ``nom`` of both kernels (:func:`_nominal_state`; None for numeric data, so
# that Numba prunes every ``if nom is not None`` / ``if codes is not None`` branch before typing
# and numeric data compile no nominal code). Its items:
_CODES = 0  # int32 (n, mc): the codes of the rows (the caller's array, read only)
_OFF = 1  # int64 (mc + 1): start of each column's levels
_GID = 2  # int64 (mc): weight group of each column
_GW = 3  # float64 (G): each group's a^2
_CSCALE = 4  # float64 (mc): codes as split coordinates of the kd-tree
_QC = 5  # int64 (3, L): level counts of the queries: the centroid, the row xr, the reference
_QK = 6  # int64 (3, mc): K of each query (see _common.nominal_part)
_QT = 7  # int64 (3,): tq of each query
_QM = 8  # float64 (3,): m2 of each query
_QQ = 9  # int64 (2, mc): sums of squared level counts of the centroid and of the reference
_ACC = 10  # int64 (G, W): scratch of add_nominal / nominal_part
_QCODE = 11  # int32 (mc,): the codes of xr
_LC = 12  # int32 (mc, n): the codes of the list of live rows sorted by r (tree) / of the live rows (small)
_TC = 13  # int32 (leaves, mc, C): the codes of each kd-tree leaf's rows (room for the first tree)
_NCODE = 14  # int32 (nodes, 2 mc): per kd-tree node, the range [min, max] of its live rows' codes
# the three queries (rows of _QC, _QK, _QT, _QM)
_CEN = 0  # the centroid of the live rows
_PNT = 1  # the row xr
_REF = 2  # the reference point of r


def _nominal_state(codes, off, gid, gw, width, leaves, C, nodes):
    """The nominal state ``nom`` (items above) of the codes (n, mc) int32, or None when codes is
    None, or ``codes`` itself when it is such a state already (:func:`nominal_state`, built in
    numpy: nothing of it to compile); ``width`` columns of scratch, room for a kd-tree of
    ``leaves`` leaves of C rows and ``nodes`` nodes. An overload: which of the three it is is
    decided by the type of ``codes`` when Numba types the caller, so numeric data (None)
    compile none of it. Called from Python (e.g. with NUMBA_DISABLE_JIT=1) it does the same.

    >>> _nominal_state(None, None, None, None, 0, 0, 0, 0) is None
    True
    """
    if codes is None or isinstance(codes, tuple):
        return codes
    return nominal_state(codes, off, gid, gw, width, leaves, C, nodes)


def nominal_state(codes, off, gid, gw, width, leaves, C, nodes):
    """:func:`_nominal_state` in numpy (the same arrays, the same values), for the kernels'
    ``codes`` argument: a first call with nominal columns then compiles no builder and none
    of its allocations.

    Parameters
    ----------
    codes : int32 (n, mc)
        The nominal columns' codes; ``off`` (mc + 1), ``gid`` (mc) and ``gw`` as in
        :func:`mdav_labels_codes`.
    width : int
        Columns of the per-weight-group count scratch (the kd-tree leaf or scan size).
    leaves, C, nodes : int
        The first kd-tree's leaves, rows per leaf and nodes (0 for the brute-force kernel).

    Notes
    -----
    The nominal distance of the module docstring (MDAV, Domingo-Ferrer & Torra 2005, on
    one-hot columns without building them): the level counts of the centroid, the
    reference point and the current row, their exact sums of squares, and the code boxes
    of the tree's leaves and nodes.

    >>> st = nominal_state(np.array([[0], [1], [1]], dtype=np.int32), np.array([0, 2]),
    ...                    np.array([0]), np.array([0.5]), 4, 0, 0, 0)
    >>> st[5][0].tolist()  # the centroid's counts per level
    [1, 2]
    """
    n, mc = codes.shape
    L = int(off[mc])
    cscale = np.sqrt(2.0 * gw[gid]) / np.maximum(np.diff(off) - 1, 1)
    QC = np.zeros((3, L), dtype=np.int64)
    for j in range(mc):
        QC[_CEN, off[j]:off[j + 1]] = np.bincount(codes[:, j], minlength=int(off[j + 1] - off[j]))
    QC[_REF] = QC[_CEN]
    QQ = np.zeros((2, mc), dtype=np.int64)
    for j in range(mc):
        QQ[:, j] = int((QC[_CEN, off[j]:off[j + 1]] ** 2).sum())
    QK = np.zeros((3, mc), dtype=np.int64)
    QK[_PNT] = 2
    QT = np.zeros(3, dtype=np.int64)
    QM = np.zeros(3, dtype=np.float64)
    QT[_PNT] = 2
    QM[_PNT] = 1.0
    return (np.ascontiguousarray(codes, dtype=np.int32), np.ascontiguousarray(off, dtype=np.int64),
            np.ascontiguousarray(gid, dtype=np.int64), np.ascontiguousarray(gw, dtype=np.float64),
            np.ascontiguousarray(cscale, dtype=np.float64), QC, QK, QT, QM, QQ,
            np.zeros((len(gw), width), dtype=np.int64), np.zeros(mc, dtype=np.int32),
            np.zeros((mc, n), dtype=np.int32), np.zeros((leaves, mc, C), dtype=np.int32),
            np.zeros((nodes, 2 * mc), dtype=np.int32))


@overload(_nominal_state, jit_options={"no_cpython_wrapper": True, "no_cfunc_wrapper": True})
def _nominal_state_impl(codes, off, gid, gw, width, leaves, C, nodes):
    if isinstance(codes, types.NoneType):
        return lambda codes, off, gid, gw, width, leaves, C, nodes: None
    if isinstance(codes, types.BaseTuple):
        return lambda codes, off, gid, gw, width, leaves, C, nodes: codes

    def build(codes, off, gid, gw, width, leaves, C, nodes):
        n, mc = codes.shape
        L = off[mc]
        cscale = np.empty(mc, dtype=np.float64)
        for j in range(mc):
            # codes as split coordinates: the whole range spans one category distance
            cscale[j] = np.sqrt(2.0 * gw[gid[j]]) / max(off[j + 1] - off[j] - 1, 1)
        QC = np.zeros((3, L), dtype=np.int64)
        QK = np.empty((3, mc), dtype=np.int64)
        QQ = np.zeros((2, mc), dtype=np.int64)
        for i in range(n):
            for j in range(mc):
                QC[_CEN, off[j] + codes[i, j]] += 1
        for j in range(mc):
            for u in range(off[j], off[j + 1]):
                QQ[0, j] += QC[_CEN, u] * QC[_CEN, u]
            QQ[1, j] = QQ[0, j]
            QK[_PNT, j] = 2
        for u in range(L):
            QC[_REF, u] = QC[_CEN, u]
        QT = np.empty(3, dtype=np.int64)
        QM = np.empty(3, dtype=np.float64)
        QT[_PNT] = 2  # a row is the mean of m = 1 row
        QM[_PNT] = 1.0
        acc = np.empty((gw.shape[0], width), dtype=np.int64)
        qcode = np.zeros(mc, dtype=np.int32)
        LC = np.empty((mc, n), dtype=np.int32)
        TC = np.empty((leaves, mc, C), dtype=np.int32)
        ncode = np.empty((nodes, 2 * mc), dtype=np.int32)
        return codes, off, gid, gw, cscale, QC, QK, QT, QM, QQ, acc, qcode, LC, TC, ncode

    return build


@njit(inline="always")
def _query(nom, s):
    """Query s (_CEN, _PNT, _REF) of the nominal state as the tuple of
    :func:`~._common.add_nominal` / :func:`~._common.nominal_part`."""
    return nom[_OFF], nom[_GID], nom[_GW], nom[_QC][s], nom[_QK][s], nom[_QT][s], nom[_QM][s], nom[_ACC]


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
def _fit_leaf(TD, TR, v, first_leaf, cnt, lo, hi, rmin, rmax, nom):
    """Bounding box, r-range and shared codes of the live rows of leaf node v."""
    p = TD.shape[1]
    f = v - first_leaf
    c = cnt[v]
    if nom is not None:
        TC = nom[_TC]
        ncode = nom[_NCODE]
        mc = TC.shape[1]
        for j in range(mc):
            row = TC[f, j]
            a = row[0]
            b = row[0]
            for t in range(1, c):
                x = row[t]
                a = x if x < a else a  # = min(a, x) (Numba's min and max compile per caller)
                b = x if x > b else b
            ncode[v, j] = a
            ncode[v, mc + j] = b
    for j in range(p):
        a = np.inf
        b = -np.inf
        row = TD[f, j]
        for t in range(c):
            x = row[t]
            a = x if x < a else a
            b = x if x > b else b
        lo[v, j] = a
        hi[v, j] = b
    a = np.inf
    b = -np.inf
    for t in range(c):
        x = TR[f, t]
        a = x if x < a else a
        b = x if x > b else b
    rmin[v] = a
    rmax[v] = b


@helper
def _fit_inner(v, cnt, lo, hi, rmin, rmax, nom):
    """Bounds of internal node v from its non-empty children; False when they did not change
    (then no ancestor's bounds change either)."""
    c1 = 2 * v + 1
    c2 = c1 + 1
    if cnt[c1] == 0:
        c1 = c2
    elif cnt[c2] == 0:
        c2 = c1
    changed = np.bool_(False)
    if nom is not None:
        ncode = nom[_NCODE]
        for j in range(ncode.shape[1] // 2):
            a = min(ncode[c1, j], ncode[c2, j])
            changed |= a != ncode[v, j]
            ncode[v, j] = a
        for j in range(ncode.shape[1] // 2, ncode.shape[1]):
            a = max(ncode[c1, j], ncode[c2, j])
            changed |= a != ncode[v, j]
            ncode[v, j] = a
    for j in range(lo.shape[1]):
        a = lo[c1, j]
        x = lo[c2, j]
        a = x if x < a else a  # = min(lo[c1, j], lo[c2, j])
        b = hi[c1, j]
        x = hi[c2, j]
        b = x if x > b else b
        changed |= (a != lo[v, j]) | (b != hi[v, j])
        lo[v, j] = a
        hi[v, j] = b
    a = rmin[c1]
    x = rmin[c2]
    a = x if x < a else a
    b = rmax[c1]
    x = rmax[c2]
    b = x if x > b else b
    changed |= (a != rmin[v]) | (b != rmax[v])
    rmin[v] = a
    rmax[v] = b
    return changed


@helper
def _nominal_lower(ncode, v, qcode, gid, gw, acc):
    """Nominal part of the box bound of node v for the row query with codes qcode: the
    columns where q's code lies outside the node's code range [ncode[v, c], ncode[v, mc + c]]
    (then it differs from every row of v), as the same integer sums as :func:`nominal_part`
    (never larger; rounding is monotone)."""
    mc = ncode.shape[1] // 2
    G = gw.shape[0]
    if G == 1:
        t = np.int64(0)
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
def _nearest_and_farthest(TD, TI, first_leaf, cnt, q, qi, kk, bd, bi, buf, nom):
    """One pass over every live row: bi[:kk] as in :func:`_nearest`, and returns the original
    index of the live row farthest from q other than qi (ties: lowest original index). Used
    when the data are too high-dimensional for the bounds to prune."""
    found = np.int64(0)
    thr = np.inf
    best = -1.0
    bo = -1
    for f in range(first_leaf + 1):
        c = cnt[f + first_leaf]
        _leaf_dists(TD, f, c, q, buf)
        if nom is not None:
            if nom[_TC].shape[1] > 0:
                add_nominal(nom[_TC][f], np.int64(0), c, buf, _query(nom, _PNT))
        for t in range(c):
            d = buf[t]
            o = TI[f, t]
            if o == qi:
                continue
            if d >= best and (d > best or o < bo):
                best = d
                bo = o
            if kk > 0 and d <= thr:
                found = topk_insert(bd, bi, found, kk, d, o)
                if found == kk:
                    thr = bd[kk - 1]
    return bo


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
def _centroid_sums(X, sums, errs):
    """The running centroid of all n rows, as both MDAV kernels start it: ``sums`` + ``errs``
    (p,) the exact column sums as double-doubles (:func:`_add_exact`, column by column, rows in
    order; sums + errs is the exact sum). The nominal part (level counts) is in ``nom``."""
    n, p = X.shape
    for j in range(p):
        sums[j] = 0.0
        errs[j] = 0.0
        for i in range(n):
            _add_exact(sums, errs, j, X[i, j])


@njit(cache=True, nogil=True, no_cfunc_wrapper=True)
def _refresh(TD, TR, cnt, V, LR, NI, FS, st, nom):
    """A new reference point (the row _RP of V; nominal part: the reference query of ``nom``,
    the mean of st[_S_RM] rows): r = distance to it for every live row (kd-tree slots) into
    TR, and the unsorted list of the live rows: LR = -r, NI[_LI] = slot (leaf * C + slot);
    returns its length m. ``FS[2]`` (>= C) scratch. The caller puts the slots sorted by LR
    (np.argsort, kind="stable": r descending, NaN last) into NI[_ORDER] and calls the round
    kernel, which fills the sorted list and refits the bounds when it resumes. A kernel of its
    own, called between two calls of :func:`_tree_rounds` (~10 times per run), so none of it
    is in the round kernel; the distances as the kernel's (:func:`_leaf_dists`,
    :func:`~._common.add_nominal`)."""
    C = TD.shape[2]
    first_leaf = st[_S_FIRST]
    buf = FS[2]
    LI = NI[_LI]
    if nom is not None:
        tq, m2 = mean_query(nom[_QC][_REF], nom[_QQ][1], st[_S_RM], nom[_QK][_REF])
        nom[_QT][_REF] = tq
        nom[_QM][_REF] = m2
    m = np.int64(0)
    for f in range(first_leaf + 1):
        cf = cnt[f + first_leaf]
        _leaf_dists(TD, f, cf, V[_RP], buf)
        if nom is not None:
            if nom[_TC].shape[1] > 0:
                add_nominal(nom[_TC][f], np.int64(0), cf, buf, _query(nom, _REF))
        for t in range(cf):
            r = np.sqrt(buf[t])
            TR[f, t] = r
            LR[m] = -r
            LI[m] = f * C + t
            m += 1
    return m


@helper
def _merge_order(m, LR, kw, order, iw):
    """order[:m] = np.argsort(LR[:m], kind="stable") (NaN last), for
    :func:`mdav_labels_tree`, which cannot call numpy's: a bottom-up merge sort; LR itself,
    kw (float) and iw (int) are scratch (the round kernel overwrites LR)."""
    for i in range(m):
        order[i] = i
    ka = LR
    kb = kw
    ia = order
    ib = iw
    width = 1
    flips = 0
    while width < m:
        for a in range(0, m, 2 * width):
            b = a + width
            b = m if m < b else b  # = min(a + width, m)
            e = b + width
            e = m if m < e else e
            i = a
            j = b
            for t in range(a, e):
                # take the right run's head only when it is smaller (stable)
                if j < e and (i >= b or ka[j] < ka[i] or (ka[i] != ka[i] and ka[j] == ka[j])):
                    kb[t] = ka[j]
                    ib[t] = ia[j]
                    j += 1
                else:
                    kb[t] = ka[i]
                    ib[t] = ia[i]
                    i += 1
        ka, kb = kb, ka
        ia, ib = ib, ia
        width *= 2
        flips += 1
    if flips % 2 == 1:
        for i in range(m):
            order[i] = iw[i]


@njit(cache=True, nogil=True, no_cfunc_wrapper=True)
def _tree(Xs, os, rs, S, leaf, NI, SE, TD, TR, TI, cnt, st, nom):
    """A kd-tree on the rows Xs (n, p) with original indices os and reference distances rs
    (the first tree: st[_S_M] = 0), or on the live rows of the current one (a rebuild: first
    copied, leaf by leaf, to Xs, os and rs), stored in the buffers TD (leaves, p, C), TR, TI
    (leaves, C) and cnt (nodes) of :func:`_tree_state`, made for the first tree (a later
    one, on fewer rows, is never deeper and never has larger leaves); sets pos[o] = leaf * C +
    slot (NI[_POS]), the leaves' codes (``nom``), the first leaf node and the rows it was
    built on (``st``). The round kernel fits the bounds when it resumes. A kernel of its own,
    called before the rounds and when the round kernel :func:`_tree_rounds` asks for a
    rebuild (~log2(n / k) times per run).

    Implicit complete binary tree: node v has children 2v+1, 2v+2; each internal node splits
    its row range at the middle (NI[_ORDER], SE: scratch), by the median of its widest
    column, so leaf sizes differ by at most one. Splits use the codes too, as numbers times
    cscale, in S (n, p + mc; None without nominal columns: this groups equal codes in leaves;
    it changes the speed only)."""
    p = TD.shape[1]
    C = TD.shape[2]
    pos = NI[_POS]
    order = NI[_ORDER]
    start = SE[0]
    end = SE[1]
    m = st[_S_M]
    if m > 0:
        first_leaf = st[_S_FIRST]
        i = np.int64(0)
        for f in range(first_leaf + 1):
            for t in range(cnt[f + first_leaf]):
                for j in range(p):
                    Xs[i, j] = TD[f, j, t]
                os[i] = TI[f, t]
                rs[i] = TR[f, t]
                i += 1
    else:
        m = Xs.shape[0]
    Sx = Xs
    if nom is not None:
        codes = nom[_CODES]
        cscale = nom[_CSCALE]
        mc = codes.shape[1]
        if mc > 0:
            for i in range(m):
                for j in range(p):
                    S[i, j] = Xs[i, j]
                for j in range(mc):
                    S[i, p + j] = codes[os[i], j] * cscale[j]
            Sx = S
    depth = np.int64(0)
    while ((m + (1 << depth) - 1) >> depth) > leaf:
        depth += 1
    first_leaf = (1 << depth) - 1
    for i in range(m):
        order[i] = i
    start[0] = 0
    end[0] = m
    for v in range(first_leaf):
        a = start[v]
        e = end[v]
        dim = widest_dim(Sx, order, a, e)
        mid = (a + e) // 2
        _nth_element(Sx, order, dim, a, e, mid)
        start[2 * v + 1] = a
        end[2 * v + 1] = mid
        start[2 * v + 2] = mid
        end[2 * v + 2] = e
    for v in range(2 * first_leaf + 1):
        cnt[v] = end[v] - start[v]
    for f in range(first_leaf + 1):
        v = f + first_leaf
        for t in range(cnt[v]):
            i = order[start[v] + t]
            o = os[i]
            TI[f, t] = o
            TR[f, t] = rs[i]
            pos[o] = f * C + t
            for j in range(p):
                TD[f, j, t] = Xs[i, j]
    if nom is not None:
        codes = nom[_CODES]
        TC = nom[_TC]
        for f in range(first_leaf + 1):
            for t in range(cnt[f + first_leaf]):
                o = TI[f, t]
                for j in range(TC.shape[1]):
                    TC[f, j, t] = codes[o, j]
    st[_S_FIRST] = first_leaf
    st[_S_BUILT] = m


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
    numeric rows: ~1.8 s CPU against ~7.3 s on 5,000 rows with the kd-tree kernel on a
    2-core machine under load, benchmarks/README.md, session 26). Numeric data go to the
    kernels as ``codes=None`` (no nominal code compiled), nominal columns as the state of
    :func:`nominal_state` (built in numpy). Both kernels give the same labels
    (tests/test_mdav.py pins them against each other and the reference). Beyond
    :func:`small_enough`, while the kd-tree kernel is neither compiled nor cached, the
    brute-force kernel runs instead as long as its CPU seconds so far (kept beside Numba's
    cache, across processes) plus its estimate for this call (:func:`small_seconds`) stay within
    the kd-tree kernel's compile time (:data:`TREE_COMPILE_SECONDS`; kernels/rental.py): a first
    call on 5,000 rows does not wait for the kd-tree compile; ``polars_sdc.warmup()`` compiles it.

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
    mc = codes.shape[1]
    if leaf is None and small_enough(n, p, mc, max(k, 1)):
        return mdav_labels_small(*_small_args(X, codes, off, gid, gw, k, done))
    given, leaf = leaf is not None, _LEAF if leaf is None else leaf
    nom = None
    if mc > 0:
        lf = max(leaf, 1)  # the sizes of the kernel's first kd-tree
        depth = 0
        while ((n + (1 << depth) - 1) >> depth) > lf:
            depth += 1
        nom = nominal_state(codes, off, gid, gw, max(lf, _SCAN), 1 << depth, min(lf, n), (2 << depth) - 1)
    # the fused pass (_nearest_and_farthest) only where it pays: many columns (else not compiled)
    wide = True if p + mc >= _WIDE else None
    if not given:
        rental, estimate = tree_rental(mc > 0), small_seconds(n, p, mc, max(k, 1))
        # the round kernel stands for the kd-tree path's kernels (compiled together)
        if rental.rents(ready_like(_tree_rounds, nom=nom, wide=wide), estimate):
            small = _small_args(X, codes, off, gid, gw, k, done)
            # the rent is the kernel's run time, not its own compile or cache load: the estimate then
            loaded = compiled_like(mdav_labels_small, codes=small[1])
            t = time.thread_time()
            labels = mdav_labels_small(*small)
            rental.pay(time.thread_time() - t if loaded else estimate)
            return labels
    return _run_tree(X, nom, k, leaf, done, wide)


def _small_args(X, codes, off, gid, gw, k, done):
    """The brute-force kernel's arguments from those of :func:`mdav_labels_codes`: numeric data
    as codes=None (the kernel compiles no nominal code), nominal columns as the state of
    :func:`nominal_state` (built in numpy)."""
    nom = nominal_state(codes, off, gid, gw, X.shape[0], 0, 0, 0) if codes.shape[1] > 0 else None
    return X, nom, off, gid, gw, k, done


#: CPU seconds the kd-tree kernel takes to compile on a first call beyond the brute-force
#: kernel's (benchmarks/bench_rental.py --calls 2, first call bought against rented, 5,000
#: rows, 2-core machine, idle, session 28: numeric 4.05 - 1.68 s, mixed 7.03 - 2.71 s): the
#: budget of running the brute-force kernel instead while the kd-tree kernel is neither
#: compiled nor cached (kernels/rental.py).
TREE_COMPILE_SECONDS = {False: 2.5, True: 4.5}

_TREE_RENTALS: dict = {}


def tree_rental(nominal):
    """The :class:`~.rental.Rental` of the kd-tree kernel for numeric (``nominal`` False) or
    mixed data (compiled apart).

    Parameters
    ----------
    nominal : bool
        Whether the data have nominal columns.

    Notes
    -----
    The budget is :data:`TREE_COMPILE_SECONDS` (kernels/rental.py: the rent-or-buy rule).

    >>> tree_rental(False).budget
    2.5
    """
    r = _TREE_RENTALS.get(nominal)
    if r is None:
        r = _TREE_RENTALS[nominal] = Rental(_tree_rounds, "nominal" if nominal else "numeric",
                                            TREE_COMPILE_SECONDS[nominal], name="mdav_tree")
    return r


def small_seconds(n, p, mc, k):
    """Estimated CPU seconds of the brute-force kernel on n rows, p numeric and mc nominal
    columns, group size k.

    Parameters
    ----------
    n, p, mc : int
        Rows, numeric columns, nominal columns.
    k : int
        Minimum group size (>= 1).

    Notes
    -----
    n^2 / k (1.7 + 0.2 p + 2.6 mc) ns: fitted on n 1,000-20,000, p 1-8, mc 0-2, k 3-10 on the
    2-core development machine (within -5..+30 %); the rent of :func:`tree_rental`.

    >>> round(small_seconds(5000, 3, 0, 3), 4)
    0.0192
    """
    return n * n / k * (1.7 + 0.2 * p + 2.6 * mc) * 1e-9


@njit(cache=True, nogil=True)
def mdav_labels_small(X, codes, off, gid, gw, k, done):
    """:func:`mdav_labels_codes` by brute force: every query measures every live row. The
    same operations as :func:`mdav_labels_tree` (distances summed in column order plus the
    nominal part of :func:`~._common.add_nominal`, the centroid from the exact sums of
    :func:`_add_exact`, removed in the same order, ties to the lowest row), so the same
    labels, bit for bit; O(n^2 (p + mc) / k) time, O(n (p + mc)) memory.

    Parameters
    ----------
    X : float64 (n, p); codes : int32 (n, mc), or None without nominal columns (then no
    nominal code is compiled); off : int64 (mc + 1); gid : int64 (mc); gw : float64 (G);
    k : int; done : int64 (1) (see :func:`mdav_labels_codes`).

    Notes
    -----
    Compiles in about a third of the kd-tree kernel's time: one loop over a compacted
    column-major copy of the live rows, no tree, no bounds.
    """
    n, p = X.shape
    labels = np.empty(n, dtype=np.uint32)  # (np.zeros: two compilations more)
    for i in range(n):
        labels[i] = 0
    if n < 2 * k:
        done[0] = n
        return labels
    nom = _nominal_state(codes, off, gid, gw, n, 0, 0, 0)
    LX = np.empty((p, n), dtype=np.float64)  # the live rows, column-major, in row order
    ids = np.empty(n, dtype=np.int64)
    for i in range(n):
        ids[i] = i
        for j in range(p):
            LX[j, i] = X[i, j]
    if codes is not None:
        LC = nom[_LC]
        CS = nom[_CODES]
        for i in range(n):
            for j in range(LC.shape[0]):
                LC[j, i] = CS[i, j]
    sums = np.empty(p, dtype=np.float64)
    errs = np.empty(p, dtype=np.float64)
    _centroid_sums(X, sums, errs)
    c = np.empty(p, dtype=np.float64)
    q = np.empty(p, dtype=np.float64)
    buf = np.empty(n, dtype=np.float64)
    kk = k - 1
    bd = np.empty(kk + 1, dtype=np.float64)
    bi = np.empty(kk + 1, dtype=np.int64)
    gone = np.empty(n, dtype=np.int64)  # 1: in the group just formed (int64: no allocation of its own)
    for i in range(n):
        gone[i] = 0
    m = n
    label = np.int64(0)
    while m >= 2 * k:
        for j in range(p):
            c[j] = (sums[j] + errs[j]) / m
        if codes is not None:
            tqc, m2c = mean_query(nom[_QC][_CEN], nom[_QQ][0], m, nom[_QK][_CEN])
            nom[_QT][_CEN] = tqc
            nom[_QM][_CEN] = m2c
        for g in range(2):
            # xr: farthest from the centroid (g = 0 = _CEN) or from the previous xr (g = 1 = _PNT)
            _all_dists(LX, m, c if g == 0 else q, buf, nom, g)
            xr = np.int64(0)  # not a literal 0: one typing round less (issue 27)
            for t in range(1, m):
                if buf[t] > buf[xr]:  # ties: the first, i.e. the lowest row
                    xr = t
            for j in range(p):
                q[j] = LX[j, xr]
            if codes is not None:
                LC = nom[_LC]
                qcode = nom[_QCODE]
                pcnt = nom[_QC][_PNT]
                for j in range(LC.shape[0]):
                    pcnt[off[j] + qcode[j]] = 0
                    qcode[j] = LC[j, xr]
                    pcnt[off[j] + qcode[j]] = 1
            if kk > 0:
                _all_dists(LX, m, q, buf, nom, np.int64(_PNT))
                found = np.int64(0)
                for t in range(m):
                    if t != xr:
                        found = topk_insert(bd, bi, found, kk, buf[t], t)
            for u in range(-1, kk):
                t = xr if u < 0 else bi[u]
                gone[t] = 1
                labels[ids[t]] = label
                for j in range(p):
                    _add_exact(sums, errs, j, -LX[j, t])
                if codes is not None:
                    LC = nom[_LC]
                    lcnt = nom[_QC][_CEN]
                    lQ = nom[_QQ][0]
                    for j in range(LC.shape[0]):
                        v = off[j] + LC[j, t]
                        lQ[j] -= 2 * lcnt[v] - 1
                        lcnt[v] -= 1
            w = np.int64(0)  # squeeze the group out (the live rows stay in row order)
            for t in range(m):
                if gone[t]:
                    gone[t] = 0
                    continue
                if w != t:
                    for j in range(p):
                        LX[j, w] = LX[j, t]
                    if codes is not None:
                        LC = nom[_LC]
                        for j in range(LC.shape[0]):
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
def _all_dists(LX, m, q, buf, nom, s):
    """buf[:m] = distances of the first m columns of LX (p, N) (codes: nom's live rows) to q and
    the nominal query s of ``nom``, computed as the kd-tree kernel's scan and :func:`_leaf_dists` do."""
    for t in range(m):
        buf[t] = 0.0
    for j in range(LX.shape[0]):
        qj = q[j]
        col = LX[j]
        for t in range(m):
            d = col[t] - qj
            buf[t] += d * d
    if nom is not None:
        if nom[_LC].shape[0] > 0:
            add_nominal(nom[_LC], np.int64(0), m, buf, _query(nom, s))


@njit(cache=True, nogil=True, no_cfunc_wrapper=True)
def _tree_rounds(X, labels, done, TD, TR, TI, cnt, box, R, NI, LX, LR, V, FS, IS, st, k, nom, wide):
    """The rounds of :func:`mdav_labels_tree` on the state of :func:`_tree_state` (``st``: the
    scalars, saved on return): forms pairs of groups until it is done (returns
    ``_ASK_DONE``, every label set) or needs a rebuild of the kd-tree on the live rows
    (``_ASK_REBUILD``: the caller runs :func:`_tree`) or a new reference point (``_ASK_REFRESH``,
    ``ref`` set: the caller runs :func:`_refresh` and sorts the list), then is called again and
    resumes. The first call (st[_S_M] = 0) starts the centroid's sums and asks for the first
    reference. Resumable so that the rarely run rebuild and refresh (~log2(n / k) and ~10 times
    per run) are kernels of their own, called from Python (:func:`_run_tree`), not code of this
    one: a helper called from a kernel is compiled again inside it (issue 27, session 28).

    ``wide``: True: when the bounds prune badly, switch to one fused pass over the live rows
    per pair (:func:`_nearest_and_farthest`; pays from ~11 columns, ``_WIDE``); None: never,
    and that pass is not compiled. The speed only, never the result."""
    n = X.shape[0]
    p = X.shape[1]
    C = TD.shape[2]
    lo = box[0]
    hi = box[1]
    rmin = R[0]
    rmax = R[1]
    pos = NI[_POS]
    LI = NI[_LI]
    lpos = NI[_LPOS]
    sums = V[_SUMS]
    errs = V[_ERRS]
    c = V[_C]
    ref = V[_RP]
    q = V[_Q]
    sb = FS[0]
    bd = FS[1]
    buf = FS[2]
    sbuf = FS[3]
    sn = IS[0]
    bi = IS[1]
    first_leaf = st[_S_FIRST]
    built = st[_S_BUILT]
    head = st[_S_HEAD]
    stop = st[_S_STOP]
    m = st[_S_M]
    label = st[_S_LABEL]
    full = st[_S_FULL]
    rm = st[_S_RM]
    fresh = st[_S_FRESH]
    kk = k - 1
    first = m == 0
    if first:
        _centroid_sums(X, sums, errs)
        m = n
        built = n
    else:
        if fresh:
            # resumed after a refresh: the list of the live rows from their slots NI[_ORDER],
            # sorted by r descending
            order = NI[_ORDER]
            for i in range(stop):
                s = order[i]
                f = s // C
                t = s - f * C
                for j in range(p):
                    LX[j, i] = TD[f, j, t]
                if nom is not None:
                    TC = nom[_TC]
                    LC = nom[_LC]
                    for j in range(TC.shape[1]):
                        LC[j, i] = TC[f, j, t]
                LR[i] = TR[f, t]
                o = TI[f, t]
                LI[i] = o
                lpos[o] = i
        # resumed after a rebuild or a refresh: fit the bounds of every node with live rows,
        # leaves first
        for v in range(first_leaf, 2 * first_leaf + 1):
            if cnt[v] > 0:
                _fit_leaf(TD, TR, v, first_leaf, cnt, lo, hi, rmin, rmax, nom)
        for v in range(first_leaf - 1, -1, -1):
            if cnt[v] > 0:
                _fit_inner(v, cnt, lo, hi, rmin, rmax, nom)
    ask = np.int64(_ASK_DONE)  # (int64, not a literal: one typing round less, issue 27)
    while m >= 2 * k:
        if m <= _REBUILD * built:
            # removed rows leave sparse leaves with wide boxes behind: the caller rebuilds the
            # tree on the live rows (_tree) and calls again
            ask = np.int64(_ASK_REBUILD)
            break
        for j in range(p):
            c[j] = (sums[j] + errs[j]) / m
        dq = 0.0
        if not first:
            # dq = |centroid - ref|; when the centroid drifted, it becomes the reference (the
            # caller runs _refresh, then calls again: dq is measured again, not compared)
            d2 = 0.0
            for j in range(p):
                d = c[j] - ref[j]
                d2 += d * d
            if nom is not None:
                d2 += _mean_gap(nom[_OFF], nom[_GID], nom[_GW], nom[_QC][_CEN], m, nom[_QC][_REF], rm)
            dq = np.sqrt(d2)
        if first or (fresh == 0 and dq > _DRIFT * rmax[0]):
            for j in range(p):
                ref[j] = c[j]
            rm = m
            if nom is not None:
                QC = nom[_QC]
                QQ = nom[_QQ]
                for u in range(QC.shape[1]):
                    QC[_REF, u] = QC[_CEN, u]
                for j in range(QQ.shape[1]):
                    QQ[1, j] = QQ[0, j]
            fresh = np.int64(1)
            ask = np.int64(_ASK_REFRESH)
            break
        fresh = np.int64(0)
        if nom is not None:
            tqc, m2c = mean_query(nom[_QC][_CEN], nom[_QQ][0], m, nom[_QK][_CEN])
            nom[_QT][_CEN] = tqc
            nom[_QM][_CEN] = m2c
        # one pair of groups: xr (farthest from the centroid) and xs (farthest from xr)
        measured = np.int64(0)
        xs = np.int64(-1)
        for g in range(2):
            # (``wide`` None: xs is never set, the whole test is pruned before typing)
            if wide is not None and g == 1 and xs >= 0 and LI[lpos[xs]] >= 0:
                xr = xs
            else:
                # xr = the original index of the live row farthest from qf (the centroid, query
                # g = _CEN, or the previous xr, g = _PNT) over the list slots head..stop-1, sorted
                # by r descending (ties: lowest original index); dq = |qf - ref|. Blocks of rows
                # are measured column-major (vectorised); the scan stops at the first block whose
                # largest bound r + dq falls below the best distance. Removed rows (LI = -1) met in
                # the scanned prefix are squeezed out when they are many.
                qf = c if g == 0 else q
                best = -1.0
                xr = np.int64(-1)
                b = head
                while b < stop:
                    # squared upper bound of |x - qf| from |x - ref| <= r and |qf - ref| = dq
                    d = (LR[b] + dq) * (1.0 + _REL) + _TINY
                    if d * d * (1.0 + _REL) < best:
                        break
                    be = b + _SCAN
                    be = stop if stop < be else be
                    wb = be - b
                    for t in range(wb):
                        sbuf[t] = 0.0
                    for j in range(p):
                        qj = qf[j]
                        col = LX[j, b:be]
                        for t in range(wb):
                            d = col[t] - qj
                            sbuf[t] += d * d
                    if nom is not None:
                        if nom[_LC].shape[0] > 0:
                            add_nominal(nom[_LC], b, wb, sbuf, _query(nom, g))
                    for t in range(wb):
                        d = sbuf[t]
                        if d >= best:
                            o = LI[b + t]
                            if o >= 0 and (d > best or o < xr):
                                best = d
                                xr = o
                    b = be
                if wide is not None:
                    if g == 1:
                        measured += b - head
                dead = np.int64(0)
                for t in range(head, b):
                    dead += LI[t] < 0
                if 8 * dead > b - head:
                    wb = b
                    for i in range(b - 1, head - 1, -1):
                        o = LI[i]
                        if o >= 0:
                            wb -= 1
                            if wb != i:
                                for j in range(p):
                                    LX[j, wb] = LX[j, i]
                                if nom is not None:
                                    LC = nom[_LC]
                                    for j in range(LC.shape[0]):
                                        LC[j, wb] = LC[j, i]
                                LR[wb] = LR[i]
                                LI[wb] = o
                                lpos[o] = wb
                    head = wb
            f = pos[xr] // TD.shape[2]
            t = pos[xr] - f * TD.shape[2]
            for j in range(p):
                q[j] = TD[f, j, t]
            if nom is not None:
                TC = nom[_TC]
                qcode = nom[_QCODE]
                pcnt = nom[_QC][_PNT]
                noff = nom[_OFF]
                for j in range(TC.shape[1]):
                    pcnt[noff[j] + qcode[j]] = 0
                    qcode[j] = TC[f, j, t]
                    pcnt[noff[j] + qcode[j]] = 1
            dq = TR[f, t]
            fused = False
            if wide is not None:  # (pruned before typing when None: the fused pass not compiled)
                if g == 0 and full > 0:
                    xs = _nearest_and_farthest(TD, TI, first_leaf, cnt, q, xr, kk, bd, bi, buf, nom)
                    fused = True
            if not fused and kk > 0:
                # bi[:kk] = original indices of the kk live rows nearest to q by (distance,
                # original index), leaving out xr: the kd-tree, nearest node first, skipping a
                # node whose lower bound exceeds the current kk-th best (the nominal part of q is
                # the row query of nom)
                found = np.int64(0)  # not a literal 0 (one compilation of topk_insert)
                thr = np.inf
                seen = np.int64(0)  # rows measured
                sn[0] = 0
                sb[0] = 0.0
                sp = np.int64(1)
                while sp > 0:
                    sp -= 1
                    v = sn[sp]
                    if sb[sp] > thr:
                        continue
                    if v >= first_leaf:
                        f = v - first_leaf
                        cv = cnt[v]
                        if wide is not None:
                            seen += cv
                        _leaf_dists(TD, f, cv, q, buf)
                        if nom is not None:
                            if nom[_TC].shape[1] > 0:
                                add_nominal(nom[_TC][f], np.int64(0), cv, buf, _query(nom, _PNT))
                        for t in range(cv):
                            d = buf[t]
                            o = TI[f, t]
                            if d <= thr and o != xr:
                                found = topk_insert(bd, bi, found, kk, d, o)
                                if found == kk:
                                    thr = bd[kk - 1]
                    else:
                        # lower bounds b1, b2 of the computed distance from q to any live row of
                        # the children: the larger of the box bound (exact under rounding; its
                        # nominal part from _nominal_lower) and the triangle bound from
                        # [rmin, rmax] of r
                        c1 = 2 * v + 1
                        c2 = c1 + 1
                        b1 = np.inf
                        b2 = np.inf
                        for w in range(c1, c2 + 1):
                            if cnt[w] == 0:
                                continue
                            bw = 0.0
                            for j in range(p):
                                qj = q[j]
                                # max(x, y), min(x, y) as Numba has them: y if y > x else x, ...
                                d = lo[w, j] - qj
                                d = 0.0 if 0.0 > d else d
                                e = qj - hi[w, j]
                                e = 0.0 if 0.0 > e else e
                                d = d + e
                                bw += d * d
                            if nom is not None:
                                if nom[_TC].shape[1] > 0:
                                    nb = _nominal_lower(nom[_NCODE], w, nom[_QCODE], nom[_GID], nom[_GW], nom[_ACC])
                                    if nb > 0.0:
                                        bw += nb
                            d = rmin[w] - dq
                            e = dq - rmax[w]
                            e = (e if e > d else d) - (_REL * (rmax[w] + dq) + _TINY)
                            if e > 0.0:
                                e = e * e * (1.0 - _REL)
                                bw = e if e > bw else bw
                            if w == c1:
                                b1 = bw
                            else:
                                b2 = bw
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
                if wide is not None:
                    measured += seen if g == 0 else 0
            for u in range(-1, kk):
                # give the live row with original index o the label, drop it from the sums (and
                # its codes from the centroid's level counts and their sums of squares) and swap
                # it out of its leaf's live slots; refit the bounds on its path to the root
                o = xr if u < 0 else bi[u]
                f = pos[o] // C
                t = pos[o] - f * C
                v = f + first_leaf
                last = cnt[v] - 1
                labels[o] = label
                LI[lpos[o]] = -1
                for j in range(p):
                    _add_exact(sums, errs, j, -TD[f, j, t])
                if nom is not None:
                    TC = nom[_TC]
                    noff = nom[_OFF]
                    lcnt = nom[_QC][_CEN]
                    lQ = nom[_QQ][0]
                    for j in range(TC.shape[1]):
                        w = noff[j] + TC[f, j, t]
                        lQ[j] -= 2 * lcnt[w] - 1
                        lcnt[w] -= 1
                if t != last:
                    for j in range(p):
                        TD[f, j, t] = TD[f, j, last]
                    if nom is not None:
                        TC = nom[_TC]
                        for j in range(TC.shape[1]):
                            TC[f, j, t] = TC[f, j, last]
                    TR[f, t] = TR[f, last]
                    o2 = TI[f, last]
                    TI[f, t] = o2
                    pos[o2] = f * C + t
                w = v
                while True:
                    cnt[w] -= 1
                    if w == 0:
                        break
                    w = (w - 1) // 2
                if cnt[v] > 0:
                    _fit_leaf(TD, TR, v, first_leaf, cnt, lo, hi, rmin, rmax, nom)
                # an empty node is never visited again; otherwise refit upwards until nothing changes
                w = v
                while w > 0:
                    w = (w - 1) // 2
                    if cnt[w] > 0 and not _fit_inner(w, cnt, lo, hi, rmin, rmax, nom):
                        break
            label += 1
            m -= k
            done[0] = n - m
            if m < 2 * k:
                break
        # when the bounds prune badly (many columns), one fused pass per pair is cheaper than
        # a search for xr's neighbours plus a scan for xs; probe the searches again now and then
        if wide is not None:
            if full > 0:
                full -= 1
            elif 2 * measured > m:
                full = _PROBE
    st[_S_FIRST] = first_leaf
    st[_S_BUILT] = built
    st[_S_HEAD] = head
    st[_S_STOP] = stop
    st[_S_M] = m
    st[_S_LABEL] = label
    st[_S_FULL] = full
    st[_S_RM] = rm
    st[_S_FRESH] = fresh
    if ask == _ASK_DONE:
        for f in range(first_leaf + 1):
            for t in range(cnt[f + first_leaf]):
                labels[TI[f, t]] = label
        done[0] = n
    return ask


# the state of the kd-tree rounds (:func:`_tree_state`): rows of NI (int64 (5, n))
_POS = 0  # original index -> kd-tree slot (leaf * C + slot)
_LI = 1  # the list of live rows sorted by r: original index (-1: removed)
_LPOS = 2  # original index -> list position
_ORDER = 3  # scratch of _tree
_OS = 4  # the original indices of the rows a tree is (re)built from; scratch of the merge sort
# rows of V (float64 (5, p)): the centroid's exact sums (double-double), the centroid, the
# reference point, the row xr
_SUMS = 0
_ERRS = 1
_C = 2
_RP = 3
_Q = 4
# the scalars of the rounds (st, int64)
_S_FIRST = 0  # the first leaf node of the current tree
_S_BUILT = 1  # rows the current tree was built on
_S_HEAD = 2  # first slot of the list still scanned
_S_STOP = 3  # length of the list
_S_M = 4  # live rows (0: not started)
_S_LABEL = 5  # the next label
_S_FULL = 6  # pairs left with the fused pass
_S_RM = 7  # rows of the reference point (a centroid)
_S_FRESH = 8  # 1: the reference was just refreshed (measure dq, do not compare it)
_NST = 9
# what _tree_rounds returns
_ASK_DONE = 0
_ASK_REBUILD = 1
_ASK_REFRESH = 2


@register_jitable
def _tree_state(n, p, k, leaf):
    """The arrays of the kd-tree rounds for n rows, p columns, group size k and leaves of at
    most ``leaf`` rows (>= 1), made for the first tree (a rebuilt one is never deeper, nor has
    larger leaves): TD (leaves, p, C), TR, TI (leaves, C), cnt (nodes), SE (2, nodes: start
    and end of _tree), box (2, nodes, p: lo, hi), R (2, nodes: rmin, rmax), NI (5, n: rows
    _POS .. _OS), LX (p, n), LR (n), Xs (n, p), rs (n), V (5, p: rows _SUMS .. _Q), FS (4, w:
    the search stack's bounds, the k-1 best distances, a leaf's distances, a scan block's),
    IS (2, w: the search stack's nodes, the k-1 best rows) and st (the scalars, zeros).
    Plain numpy: run from Python (:func:`_run_tree`) it compiles nothing; grouped so that
    the round kernel unboxes few arrays."""
    depth = 0
    while ((n + (1 << depth) - 1) >> depth) > leaf:
        depth += 1
    nleaf = 1 << depth
    nnodes = 2 * nleaf - 1
    C = n if n < leaf else leaf
    w = 2 * depth + 4
    w = k if k > w else w
    w = C if C > w else w
    w = _SCAN if _SCAN > w else w
    st = np.empty(_NST, dtype=np.int64)
    for i in range(_NST):
        st[i] = 0
    return (np.empty((nleaf, p, C), dtype=np.float64), np.empty((nleaf, C), dtype=np.float64),
            np.empty((nleaf, C), dtype=np.int64), np.empty(nnodes, dtype=np.int64),
            np.empty((2, nnodes), dtype=np.int64), np.empty((2, nnodes, p), dtype=np.float64),
            np.empty((2, nnodes), dtype=np.float64), np.empty((5, n), dtype=np.int64),
            np.empty((p, n), dtype=np.float64), np.empty(n, dtype=np.float64),
            np.empty((n, p), dtype=np.float64), np.empty(n, dtype=np.float64),
            np.empty((5, p), dtype=np.float64), np.empty((4, w), dtype=np.float64),
            np.empty((2, w), dtype=np.int64), st)


def _run_tree(X, nom, k, leaf, done, wide):
    """:func:`mdav_labels_tree` driven from Python: the round kernel :func:`_tree_rounds` runs
    until it needs a rebuild of the kd-tree (:func:`_tree`) or a new reference point
    (:func:`_refresh`), which run as kernels of their own, and resumes; the state is allocated
    here in numpy (:func:`_tree_state`). Three kernels compile instead of one holding all of
    them (issue 27, session 28); ~10-25 round trips per run of a few us each.

    ``nom``: None or the state of :func:`nominal_state` for the first tree's sizes."""
    n, p = X.shape
    labels = np.zeros(n, dtype=np.uint32)
    if n < 2 * k:
        done[0] = n
        return labels
    leaf = max(int(leaf), 1)
    TD, TR, TI, cnt, SE, box, R, NI, LX, LR, Xs, rs, V, FS, IS, st = _tree_state(n, p, k, leaf)
    os = NI[_OS]
    Xs[:] = X
    os[:] = np.arange(n)
    rs[:] = 0.0
    S = None if nom is None else np.empty((n, p + nom[_CODES].shape[1]))
    _tree(Xs, os, rs, S, leaf, NI, SE, TD, TR, TI, cnt, st, nom)
    while True:
        ask = _tree_rounds(X, labels, done, TD, TR, TI, cnt, box, R, NI, LX, LR, V, FS, IS, st, k, nom, wide)
        if ask == _ASK_REBUILD:
            _tree(Xs, os, rs, S, leaf, NI, SE, TD, TR, TI, cnt, st, nom)
        elif ask == _ASK_REFRESH:
            m = _refresh(TD, TR, cnt, V, LR, NI, FS, st, nom)
            NI[_LI, :m].take(LR[:m].argsort(kind="stable"), out=NI[_ORDER, :m])
            st[_S_STOP] = m
            st[_S_HEAD] = 0
        else:
            return labels


@njit(cache=True, nogil=True)
def mdav_labels_tree(X, codes, off, gid, gw, k, leaf, done, wide=None):
    """:func:`mdav_labels_codes` by the kd-tree and the sorted centroid-distance scan of the
    module docstring: O(n (p + mc) + sum U) memory, fast on large n. :func:`_run_tree` in one
    kernel, for kernels that call MDAV (MHM's kd-mdav on small leaves) and for tests;
    :func:`mdav_labels_codes` runs :func:`_run_tree` from Python, which compiles less.

    Parameters
    ----------
    X : float64 (n, p); codes : int32 (n, mc), or None without nominal columns (then no
    nominal code is compiled); off : int64 (mc + 1); gid : int64 (mc); gw : float64 (G);
    k : int; done : int64 (1) (see :func:`mdav_labels_codes`).
    leaf : int
        Rows per kd-tree leaf at most (the speed only, never the result).
    wide : True or None
        As in :func:`_tree_rounds`.

    Notes
    -----
    MDAV (Domingo-Ferrer & Torra 2005) as Akiyama 2018 (thesis) 2.3.4 states it, the same
    labels as :func:`mdav_labels_small` bit for bit.
    """
    n, p = X.shape
    labels = np.empty(n, dtype=np.uint32)  # (np.zeros: two compilations more)
    for i in range(n):
        labels[i] = 0
    if n < 2 * k:
        done[0] = n
        return labels
    leaf = 1 if 1 > leaf else leaf  # = max(leaf, 1) (Numba's min and max compile per caller)
    depth = 0
    while ((n + (1 << depth) - 1) >> depth) > leaf:
        depth += 1
    C = n if n < leaf else leaf
    nom = _nominal_state(codes, off, gid, gw, _SCAN if _SCAN > leaf else leaf, 1 << depth, C, (2 << depth) - 1)
    TD, TR, TI, cnt, SE, box, R, NI, LX, LR, Xs, rs, V, FS, IS, st = _tree_state(n, p, k, leaf)
    os = NI[_OS]
    for i in range(n):
        for j in range(p):
            Xs[i, j] = X[i, j]
        os[i] = i
        rs[i] = 0.0
    S = _split_buffer(nom, n, p)
    _tree(Xs, os, rs, S, leaf, NI, SE, TD, TR, TI, cnt, st, nom)
    while True:
        ask = _tree_rounds(X, labels, done, TD, TR, TI, cnt, box, R, NI, LX, LR, V, FS, IS, st, k, nom, wide)
        if ask == _ASK_REBUILD:
            _tree(Xs, os, rs, S, leaf, NI, SE, TD, TR, TI, cnt, st, nom)
        elif ask == _ASK_REFRESH:
            m = _refresh(TD, TR, cnt, V, LR, NI, FS, st, nom)
            _merge_order(m, LR, rs, NI[_ORDER], os)
            order = NI[_ORDER]
            LI = NI[_LI]
            for i in range(m):
                order[i] = LI[order[i]]
            st[_S_STOP] = m
            st[_S_HEAD] = 0
        else:
            return labels


def _split_buffer(nom, n, p):
    """The split coordinates' buffer S of :func:`_tree` (n, p + mc), None without nominal
    columns (an overload: decided by the type of ``nom``)."""
    return None if nom is None else np.empty((n, p + nom[_CODES].shape[1]))


@overload(_split_buffer, jit_options={"no_cpython_wrapper": True, "no_cfunc_wrapper": True})
def _split_buffer_impl(nom, n, p):
    if isinstance(nom, types.NoneType):
        return lambda nom, n, p: None
    return lambda nom, n, p: np.empty((n, p + nom[_CODES].shape[1]), dtype=np.float64)
