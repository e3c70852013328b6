"""Small Numba helpers shared by several kernels."""
from __future__ import annotations

import numpy as np
from numba import njit

#: Decorator of a helper that only other kernels call (never Python): Numba builds no
#: CPython or C-function wrapper for it, and does not cache it on its own. A helper's
#: machine code is linked into each kernel that calls it and cached with that kernel, so a
#: cached kernel never needs it; compiling the wrappers and writing a cache entry of their
#: own cost every helper ~0.05-0.1 s on a first call (first ``mdav`` call: about -20 %).
helper = njit(no_cpython_wrapper=True, no_cfunc_wrapper=True)


@helper
def sq_dist_rows(X, a, b):
    """Squared Euclidean distance between rows a and b of X (n, p).

    Parameters
    ----------
    X : float64 (n, p)
        The rows.
    a, b : int
        The two row indices.

    Notes
    -----
    A helper of the MDAV, MIL and annealing kernels; O(p).
    """
    s = 0.0
    for d in range(X.shape[1]):
        v = X[a, d] - X[b, d]
        s += v * v
    return s


@helper
def exchange_sums(X, sums, g, out, inn):
    """sums[g] += X[inn] - X[out]: group g's coordinate sums after its member ``out`` is
    replaced by row ``inn`` (exchanges and cycles of rows between groups).

    Parameters
    ----------
    X : float64 (n, p)
        The rows.
    sums : float64 (G, p)
        Per-group coordinate sums, updated in place.
    g : int
        The group.
    out, inn : int
        The row that leaves ``g`` and the row that takes its place.

    Notes
    -----
    Kept sums make a move or exchange O(p) (the thesis' MIL, Akiyama 2018 (thesis) ch. 4).
    """
    for j in range(X.shape[1]):
        sums[g, j] += X[inn, j] - X[out, j]


@helper
def exchange_rows(X, labels, members, sums, i, si, a, r, sr, b):
    """Exchange row i (group a, at members[si]) with row r (group b, at members[sr]):
    labels, member slots and the two groups' coordinate sums (counts are unchanged).

    Parameters
    ----------
    X : float64 (n, p)
        The rows.
    labels : int array (n,)
        Group per row, updated in place.
    members : int array
        Row ids by group slot, updated in place.
    sums : float64 (G, p)
        Per-group coordinate sums, updated in place.
    i, r : int
        The two rows; ``si`` and ``sr`` their slots in ``members``.
    a, b : int
        Their groups.

    Notes
    -----
    The bookkeeping of one exchange of MIL (Akiyama 2018 (thesis) ch. 4); group sizes do not
    change, so no group can fall below k.
    """
    labels[i] = b
    labels[r] = a
    members[si] = r
    members[sr] = i
    exchange_sums(X, sums, a, i, r)
    exchange_sums(X, sums, b, r, i)


@helper
def widest_dim(X, rows, a, b):
    """The column with the widest range over the rows rows[a:b] of X (ties: lowest column).

    Parameters
    ----------
    X : float64 (n, p)
        The rows.
    rows : int array
        Row ids; the range ``rows[a:b]`` is examined.
    a, b : int
        Bounds of that range.

    Notes
    -----
    The split rule of the kd-trees (MDAV's tree kernel, the kd ordering); O((b - a) p).
    """
    best = -1.0
    dim = np.int64(0)
    for j in range(X.shape[1]):
        lo = np.inf
        hi = -np.inf
        for t in range(a, b):
            x = X[rows[t], j]
            lo = x if x < lo else lo  # = min(lo, x), max(hi, x) (Numba's compile once per caller)
            hi = x if x > hi else hi
        if hi - lo > best:
            best = hi - lo
            dim = j
    return dim


@helper
def topk_insert(bd, bi, found, kk, d, o):
    """Insert (d, o) into the kk smallest distances bd / their ids bi, kept sorted by
    (distance, id) with ``found`` entries so far; returns the new count. When full, (d, o)
    enters only if it beats the last entry (a tie goes to the lower id).

    Parameters
    ----------
    bd : float64 (kk,)
        The smallest distances so far, ascending.
    bi : int array (kk,)
        Their row ids.
    found : int
        How many entries are filled.
    kk : int
        Capacity (k - 1 for MDAV's nearest neighbours).
    d : float
        The new distance; ``o`` its row id.

    Notes
    -----
    Insertion sort into a bounded list, O(kk); the (distance, id) order is the team's tie rule
    (lowest row index), so a k-nearest query gives the thesis' MDAV groups exactly.
    """
    if found == kk:
        if d > bd[kk - 1] or (d == bd[kk - 1] and o > bi[kk - 1]):
            return found
        found -= 1
    u = found
    while u > 0 and (bd[u - 1] > d or (bd[u - 1] == d and bi[u - 1] > o)):
        bd[u] = bd[u - 1]
        bi[u] = bi[u - 1]
        u -= 1
    bd[u] = d
    bi[u] = o
    return found + 1


@helper
def move_change(d_a, na, d_b, nb):
    """SSE change when a row leaves group a (na rows; d_a = its squared distance to a's
    centroid) for group b (nb rows; d_b = its squared distance to b's centroid):
    nb / (nb + 1) d_b - na / (na - 1) d_a (thesis eq. 4.9 twice, the general form of eq.
    4.10). The one formula of the moves of MIL (kernels/mil.py) and annealing
    (kernels/anneal.py), so that both rank moves by the same floating-point value.

    Parameters
    ----------
    d_a, d_b : float
        Squared distances of the row to the two centroids (nominal parts included).
    na, nb : int
        Group sizes before the move (na >= 2).

    Notes
    -----
    The eq. 4.9 / 4.10 of Akiyama 2018 (thesis); O(1) given the two distances.
    """
    return nb / (nb + 1.0) * d_b - na / (na - 1.0) * d_a


@helper
def swap_change(ja, ia, ib, jb, dij, na, nb):
    """SSE change when row i of group a (na rows) and row j of group b (nb rows) trade
    places: |x_j - c_a|^2 - |x_i - c_a|^2 + |x_i - c_b|^2 - |x_j - c_b|^2
    - |x_i - x_j|^2 (1/na + 1/nb) (from SSE = sum |x|^2 - n |c|^2). The one formula of the
    exchanges of MIL and the swaps of annealing. With an upper bound of |x_i - x_j|^2 as
    ``dij`` it is a lower bound of the change (MIL's exact pruning: rounding is monotone).

    Parameters
    ----------
    ja, ia, ib, jb : float
        Squared distances of j and i to c_a, of i and j to c_b.
    dij : float
        Squared distance between the two rows (or an upper bound of it).
    na, nb : int
        The two group sizes (unchanged by the swap).

    Notes
    -----
    Akiyama 2018 (thesis) ch. 4 (MIL's exchange); O(1) given the four distances.
    """
    return ja - ia + ib - jb - dij * (1.0 / na + 1.0 / nb)


@njit(cache=True)
def group_sums(X, labels, n_groups):
    """(counts (G,), sums (G, p)) of the rows of X (n, p) per label in [0, n_groups).

    Parameters
    ----------
    X : float64 (n, p)
        The rows.
    labels : int array (n,)
        Group per row, in ``[0, n_groups)``.
    n_groups : int
        Number of groups G.

    Notes
    -----
    One pass in row order (deterministic sums); O(n p).
    """
    n, p = X.shape
    counts = np.zeros(n_groups, dtype=np.int64)
    sums = np.zeros((n_groups, p), dtype=np.float64)
    for i in range(n):
        g = labels[i]
        counts[g] += 1
        for j in range(p):
            sums[g, j] += X[i, j]
    return counts, sums


@helper
def group_means(X, labels, n_groups):
    """(counts (G,), means (G, p)) of the rows of X (n, p) per label in [0, n_groups) (the
    sums of :func:`group_sums` in row order, each divided by its count; empty groups: 0).

    Parameters
    ----------
    X, labels, n_groups
        As for :func:`group_sums`.

    Notes
    -----
    The centroids of a partition (the group means of MDAV / MIL, thesis 2.3); O(n p).
    """
    counts, sums = group_sums(X, labels, n_groups)
    for g in range(n_groups):
        if counts[g] > 0:
            for j in range(X.shape[1]):
                sums[g, j] /= counts[g]
    return counts, sums


# -- nominal columns as codes (the discrete distance without a one-hot matrix) ---------------
# A nominal column c with one-hot value a_c adds a_c^2 I / m^2 to the squared distance from a
# row of category u to the mean of m rows with qcnt[v] of them in category v, where
# I = m^2 - 2 m qcnt[u] + sum_v qcnt[v]^2 is an exact integer (a row: m = 1, I = 0 or 2).
# Columns of equal a_c (one weight group) add their I's as integers, so exact ties stay ties.


@helper
def level_counts(C, off):
    """(cnt (sum U,), Q (mc,)) of the row-major codes C (n, mc): the count of every level and,
    per column, the sum of the squared counts (the query of the mean of all rows).

    Parameters
    ----------
    C : int32 (n, mc)
        Row-major level codes of the nominal columns (0 .. U_j - 1 in column j).
    off : int array (mc + 1,)
        Start of each column's levels in the flat level index.

    Notes
    -----
    The nominal part of the product distance (thesis 3.1.3) measured against a mean without
    one-hot columns; O(n mc + sum U).
    """
    mc = C.shape[1]
    cnt = np.zeros(off[mc], dtype=np.int64)
    Q = np.zeros(mc, dtype=np.int64)
    for i in range(C.shape[0]):
        for j in range(mc):
            u = off[j] + C[i, j]
            Q[j] += 2 * cnt[u] + 1
            cnt[u] += 1
    return cnt, Q


@helper
def nominal_part(CC, i, off, gid, gw, qcnt, K, tq, m2, acc):
    """Squared distance contributed by the nominal columns: row i of the column-major code
    array CC (mc, N) against a query point given by its level counts qcnt, K[c] = m^2 +
    sum_v qcnt[v]^2 (over column c's levels), tq = 2 m and m2 = m^2 (see the module docstring).
    ``acc`` is int64 scratch (G, W), G weight groups (column 0 is used here).

    Parameters
    ----------
    CC : int32 (mc, N)
        Column-major level codes.
    i : int
        The row.
    off : int array (mc + 1,)
        Level offsets per column.
    gid, gw : arrays (mc,), (G,)
        Weight group of each column and each group's weight.
    qcnt : int array (sum U,)
        Level counts of the query (a mean of m rows).
    K : int array (mc,)
        ``m^2 + sum_v qcnt[v]^2`` per column.
    tq, m2 : int, float
        ``2 m`` and ``m^2``.
    acc : int64 (G, W)
        Scratch.

    Notes
    -----
    Equal to the squared distance of the one-hot embedding (thesis 3.1.3) to the query's mean,
    without building it; O(mc).
    """
    mc = CC.shape[0]
    if mc == 0:
        return 0.0
    G = gw.shape[0]
    if G == 1:
        t = 0
        for c in range(mc):
            t += K[c] - tq * qcnt[off[c] + CC[c, i]]
        return gw[0] * t / m2
    for g in range(G):
        acc[g, 0] = 0
    for c in range(mc):
        acc[gid[c], 0] += K[c] - tq * qcnt[off[c] + CC[c, i]]
    s = 0.0
    for g in range(G):
        s += gw[g] * acc[g, 0]
    return s / m2


@helper
def point_query(CC, i, off, qcnt, K, on):
    """Set (on=True) or clear the query of row i of the codes CC (mc, N): qcnt one at its
    codes (zero elsewhere), K = 2 (a row is the mean of m = 1 row: tq = 2, m2 = 1).

    Parameters
    ----------
    CC, i, off
        Codes, row and level offsets, as for :func:`nominal_part`.
    qcnt : int array (sum U,)
        The query's level counts, set or cleared in place.
    K : int array (mc,)
        Set to 2 per column.
    on : bool
        Set (True) or clear (False).

    Notes
    -----
    O(mc); the counterpart of :func:`mean_query` for one row.
    """
    for c in range(CC.shape[0]):
        qcnt[off[c] + CC[c, i]] = 1 if on else 0
        K[c] = 2


@helper
def mean_query(cnt, Q, m, K):
    """K[c] = m^2 + Q[c] for the mean of m rows with level counts cnt and sums of squared
    counts Q; returns (tq, m2).

    Parameters
    ----------
    cnt : int array (sum U,)
        Level counts of the m rows.
    Q : int array (mc,)
        Per column, the sum of the squared counts.
    m : int
        Number of rows of the mean.
    K : int array (mc,)
        Filled in place.

    Notes
    -----
    O(mc); see :func:`nominal_part` for how the query is used.
    """
    for c in range(Q.shape[0]):
        K[c] = m * m + Q[c]
    return 2 * m, float(m * m)


@helper
def add_nominal(CC, b, w, buf, nom):
    """buf[t] += the nominal part of the distance of column b + t of the codes CC (mc, N) to
    the query ``nom`` = (off, gid, gw, qcnt, K, tq, m2, acc), for t < w (acc: int64 scratch
    (G, >= w)); the same value as :func:`nominal_part`, vectorised over t. Kept out of the
    numeric loops (a branch there slows the numeric-only kernels by ~10 %).

    Parameters
    ----------
    CC : int32 (mc, N)
        Column-major level codes.
    b : int
        First row of the block.
    w : int
        Number of rows of the block.
    buf : float64 (>= w,)
        Distances of the block, added to in place.
    nom : tuple
        ``(off, gid, gw, qcnt, K, tq, m2, acc)`` as for :func:`nominal_part`.

    Notes
    -----
    O(w mc).
    """
    off, gid, gw, qcnt, K, tq, m2, acc = nom
    G = gw.shape[0]
    for g in range(G):
        for t in range(w):
            acc[g, t] = 0
    for c in range(CC.shape[0]):
        g = gid[c]
        kc = K[c]
        o = off[c]
        row = CC[c]
        for t in range(w):
            acc[g, t] += kc - tq * qcnt[o + row[b + t]]
    if G == 1:
        gw0 = gw[0]
        for t in range(w):
            buf[t] += gw0 * acc[0, t] / m2
        return
    for t in range(w):
        s = 0.0
        for g in range(G):
            s += gw[g] * acc[g, t]
        buf[t] += s / m2


@helper
def nominal_row_dist(C, i, D, j, gid, gw):
    """Squared distance of the nominal columns between row i of the row-major codes C (N, mc)
    and row j of the codes D (M, mc): gw[g] * 2 * (number of columns of weight group g whose
    codes differ), summed over the groups; the value :func:`nominal_part` gives for a point
    query (m = 1), so exact ties stay ties.

    Parameters
    ----------
    C : int32 (N, mc)
        Row-major level codes; ``i`` the row.
    D : int32 (M, mc)
        Row-major level codes; ``j`` the row.
    gid, gw : arrays (mc,), (G,)
        Weight group of each column and each group's weight.

    Notes
    -----
    The product distance of nominal columns (thesis 3.1.3) between two records; O(mc).
    """
    mc = C.shape[1]
    G = gw.shape[0]
    if G == 1:
        t = 0
        for c in range(mc):
            if C[i, c] != D[j, c]:
                t += 2
        return gw[0] * t / 1.0
    s = 0.0
    for g in range(G):
        t = 0
        for c in range(mc):
            if gid[c] == g and C[i, c] != D[j, c]:
                t += 2
        s += gw[g] * t
    return s / 1.0
