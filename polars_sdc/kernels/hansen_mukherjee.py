"""Hansen–Mukherjee shortest path over an ordered sequence (Suzaki et al. section 4, MHM phases 1-2).

Nodes 0..n, an edge (i, j) for i + k <= j < i + 2k whose length is the SSE of the records
i+1..j (Suzaki et al. eq. 2; here 0-based rows i..j-1). The best k-partition consistent with the
order is the shortest path 0 -> n (Theorem 1); the graph is topologically ordered, so the
path is a forward DP (procedure B'') instead of Dijkstra.

Edge costs (procedure B', eqs. 6 and 8): all edges leaving node i share the first record
x_i, so they are computed together from running sums of the records *shifted by x_i*:
s1 = sum (x - x_i), s2 = sum |x - x_i|^2 and L = s2 - |s1|^2 / m, one O(p) update per record
and one O(p) evaluation per edge — 2k - 1 updates for the k edges of a node, O(1) amortised
per edge and O(k n p) in all, with O(n) extra memory. Shifting by a member of the group keeps
the subtraction well conditioned: s2 = L + m |mean - x_i|^2 and |mean - x_i|^2 <= L, so
s2 <= (m + 1) L and the relative error stays O(m eps) whatever the offset of the data (the
global prefix sums of x and x^2 lose everything on data like 1e9 + N(0, 1)).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ._common import helper


@helper
def _node_edge_costs(X, nom, i, k, out, s1):
    """Lengths of the edges leaving node i: out[t] = SSE of rows i .. i+k+t-1 (0-based) for
    t = 0 .. cnt-1; returns cnt (fewer than k edges near the end of the sequence).

    ``nom``: None for numeric rows (Numba then drops every nominal step before typing), or the
    nominal columns and their scratch as (C, off, gid, gw, lcnt, Qg) (:func:`nominal_state`):
    row-major codes C (n, mc), level offsets ``off``, weight group ``gid`` and a^2 ``gw`` of
    each column (see :mod:`._common`). They add the SSE of their one-hot embedding,
    a^2 (m^2 - sum_v cnt_v^2) / m per column, from the level counts ``lcnt`` (int64, zero on
    entry and on return) with exact integer numerators per weight group (``Qg``: sums of
    squared counts, then the number of columns of each group)."""
    n, p = X.shape
    last = i + 2 * k - 1  # exclusive end of the longest group
    if last > n:
        last = n
    for d in range(p):
        s1[d] = 0.0
    if nom is not None:  # unpacked once: each unpacking counts references to six arrays
        C, off, gid, gw, lcnt, Qg = nom
        mc = C.shape[1]
        G = gw.shape[0]
        for g in range(G):
            Qg[g] = 0
    s2 = 0.0
    cnt = np.int64(0)
    for h in range(i, last):
        for d in range(p):
            v = X[h, d] - X[i, d]
            s1[d] += v
            s2 += v * v
        if nom is not None:
            for c in range(mc):
                u = off[c] + C[h, c]
                Qg[gid[c]] += 2 * lcnt[u] + 1
                lcnt[u] += 1
        m = h - i + 1
        if m >= k:
            q = 0.0
            for d in range(p):
                q += s1[d] * s1[d]
            c = s2 - q / m
            if nom is not None:
                if mc > 0:
                    s = 0.0
                    for g in range(G):
                        s += gw[g] * (Qg[G + g] * m * m - Qg[g])
                    c += s / m
            out[cnt] = c if c > 0.0 else 0.0
            cnt += 1
    if nom is not None:
        for h in range(i, last):
            for c in range(mc):
                lcnt[off[c] + C[h, c]] = 0
    return cnt


def nominal_state(C, off, gid, gw):
    """The ``nom`` argument of the kernels for nominal columns (codes C (n, mc) int32, level
    offsets ``off``, weight group ``gid`` of each column, a^2 ``gw`` of each group, as
    :meth:`~polars_sdc.microagg.features.Features.kernel_codes` returns them) with their
    scratch: the level counts (sum U,) and the per-group integer sums (2 G,), sums of squared
    counts, then the number of columns of each group. None without a nominal column.

    Parameters
    ----------
    C : int (n, mc)
        Level codes of the nominal columns (mc = 0: no nominal column).
    off : int64 (mc + 1,)
        Offset of each column's levels in the level-count scratch.
    gid : int64 (mc,)
        Weight group of each column.
    gw : float64 (G,)
        Squared weight a^2 of each group.

    Notes
    -----
    Built in numpy, outside the kernels, so that numeric data pass ``nom=None`` and Numba prunes
    every nominal step before typing (the nominal part of the distance is the one of
    :func:`polars_sdc.kernels._common.nominal_part`); O(n mc) to copy the codes.

    >>> nominal_state(np.zeros((3, 0), dtype=np.int32), np.zeros(1, dtype=np.int64),
    ...               np.empty(0, dtype=np.int64), np.empty(0)) is None
    True
    """
    C = np.ascontiguousarray(C, dtype=np.int32)
    if C.shape[1] == 0:
        return None
    off = np.ascontiguousarray(off, dtype=np.int64)
    gid = np.ascontiguousarray(gid, dtype=np.int64)
    gw = np.ascontiguousarray(gw, dtype=np.float64)
    G = gw.shape[0]
    Qg = np.zeros(2 * G, dtype=np.int64)
    Qg[G:] = np.bincount(gid, minlength=G)
    return C, off, gid, gw, np.zeros(int(off[-1]), dtype=np.int64), Qg


@njit(cache=True)
def _edge_costs(X, nom, k):
    n, p = X.shape
    L = np.empty((n + 1, k))
    for i in range(n + 1):
        for t in range(k):
            L[i, t] = np.nan
    out = np.empty(k)
    s1 = np.empty(p)
    for i in range(n + 1):
        cnt = _node_edge_costs(X, nom, i, k, out, s1)
        for t in range(cnt):
            L[i, t] = out[t]
    return L


def edge_costs(X, k, codes=None):
    """All edge lengths as an (n + 1, k) array: ``L[i, t]`` is the SSE of rows i .. i+k+t-1
    (the edge (i, i+k+t) of Suzaki et al. eq. 2), NaN where that edge does not exist.
    ``codes``: the nominal columns as (codes, off, gid, gw)
    (:meth:`~polars_sdc.microagg.features.Features.kernel_codes`).

    For inspection and tests (O(n k) memory); :func:`hm_shortest_path` never stores them.

    Parameters
    ----------
    X : float64 (n, p)
        Rows in path order.
    k : int
        Minimum group size.
    codes : tuple, optional
        Nominal columns as ``(codes, off, gid, gw)``.

    Notes
    -----
    Hansen & Mukherjee 2003 (the shortest-path graph), as Suzaki et al. eq. 2 writes the edge
    lengths; O(n k p) time, O(n k) memory.

    Examples
    --------
    >>> edge_costs(np.array([[0.0], [2.0], [4.0]]), 1).round(3).tolist()
    [[0.0], [0.0], [0.0], [nan]]
    """
    X = np.ascontiguousarray(X, dtype=np.float64)
    return _edge_costs(X, nominal_state(*codes) if codes is not None else None, int(k))


@helper
def _labels_from_pred(pred, n, labels):
    """Group label per position (0, 1, ... along the sequence) from the shortest-path tree,
    into ``labels`` (n,)."""
    g = np.int64(0)
    j = n
    while j > 0:
        g += 1
        j = pred[j]
    j = n
    while j > 0:
        g -= 1
        i = pred[j]
        for h in range(i, j):
            labels[h] = g
        j = i


def hm_path(X, nom, k):
    """The kernel of :func:`hm_shortest_path` / :func:`hm_shortest_path_codes`: numeric
    features X (n, p) in path order and ``nom``, None for numeric data (the nominal steps
    are then not compiled) or :func:`nominal_state`'s tuple. Returns (labels, sse).

    Parameters
    ----------
    X : float64 (n, p)
        Numeric features in path order.
    nom : None or tuple
        Nominal columns with their scratch, from :func:`nominal_state`.
    k : int
        Minimum group size, 1 <= k <= n.

    Notes
    -----
    Hansen & Mukherjee 2003 on the product distance (thesis 3.1.3); MHM's last step
    (Domingo-Ferrer et al. 2006, Suzaki et al.). O(k n (p + mc)) time. The arrays are
    allocated here, in numpy, for the kernel :func:`_hm_path` (each dtype / shape of an
    allocation inside a kernel compiles apart).

    Examples
    --------
    >>> hm_path(np.array([[0.0], [0.1], [5.0], [5.2]]), None, 2)[0].tolist()
    [0, 0, 1, 1]
    """
    n, p = X.shape
    labels = np.empty(n, dtype=np.uint32)
    sse = _hm_path(X, nom, np.int64(k), np.empty(n + 1), np.empty(n + 1, dtype=np.int64), np.empty(int(k)),
                   np.empty(p), labels)
    return labels, sse


@njit(cache=True, nogil=True)
def _hm_path(X, nom, k, D, pred, out, s1, labels):
    """:func:`hm_path` on the arrays it allocates: D, pred (n + 1,) float64 / int64, out
    (k,), s1 (p,) scratch; the labels into ``labels`` (n,) uint32; returns the SSE."""
    n = X.shape[0]
    for j in range(n + 1):
        D[j] = np.inf
        pred[j] = 0
    D[0] = 0.0
    for i in range(n - k + 1):
        di = D[i]
        if di == np.inf:
            continue
        cnt = _node_edge_costs(X, nom, i, k, out, s1)
        for t in range(cnt):
            j = i + k + t
            v = di + out[t]
            if v < D[j]:
                D[j] = v
                pred[j] = i
    _labels_from_pred(pred, n, labels)
    return D[n]


def hm_shortest_path_codes(X, C, off, gid, gw, k):
    """:func:`hm_shortest_path` on numeric features X (n, p) plus nominal columns as codes
    (row-major C (n, mc) int32, ``off``, ``gid``, ``gw`` as in :mod:`._common`): the same
    path as on their one-hot embedding, in O(n (p + mc) + sum U) memory.

    Parameters
    ----------
    X : float64 (n, p)
        Numeric features in path order.
    C : int32 (n, mc)
        Row-major level codes of the nominal columns.
    off : int array (mc + 1,)
        Level offsets per column.
    gid, gw : arrays (mc,), (G,)
        Weight group of each nominal column and each group's weight.
    k : int
        Minimum group size, 1 <= k <= n.

    Notes
    -----
    Hansen & Mukherjee 2003 on the product distance (thesis 3.1.3); MHM's last step
    (Domingo-Ferrer et al. 2006, Suzaki et al.). O(k n (p + mc)) time.

    Examples
    --------
    >>> C = np.array([[0], [1], [0], [1]], dtype=np.int32)
    >>> lab, sse = hm_shortest_path_codes(np.zeros((4, 0)), C, np.array([0, 2]), np.array([0]), np.array([0.5]), 2)
    >>> lab.tolist(), sse
    ([0, 0, 1, 1], 1.0)
    """
    return hm_path(np.ascontiguousarray(X, dtype=np.float64), nominal_state(C, off, gid, gw), int(k))


def hm_shortest_path(X, k):
    """Optimal k-partition of the rows of X (n, p) into contiguous groups, in the given order.

    Returns (labels, sse): uint32 group label per row (0, 1, ... along the order; every group
    has k .. 2k-1 rows) and the SSE of that partition (the shortest-path length). Ties
    between equally short paths go to the earliest predecessor. O(k n p) time, O(n) memory
    besides X. Requires 1 <= k <= n.

    Parameters
    ----------
    X : float64 (n, p)
        Rows in path order (an MHM ordering).
    k : int
        Minimum group size, 1 <= k <= n.

    Notes
    -----
    Hansen & Mukherjee 2003, the graph of Suzaki et al. eq. 2: a node per row boundary, an
    edge (i, j) for k <= j - i <= 2k - 1 weighted by the SSE of rows i .. j-1 (shifted running
    sums), solved as a DP.

    Examples
    --------
    >>> lab, sse = hm_shortest_path(np.array([[0.0], [0.1], [5.0], [5.2]]), 2)
    >>> lab.tolist(), round(sse, 3)
    ([0, 0, 1, 1], 0.025)
    """
    return hm_path(np.ascontiguousarray(X, dtype=np.float64), None, int(k))


@njit(cache=True)
def hm_shortest_path_1d(x, k):
    """:func:`hm_shortest_path` for one column x (n,), the hot loop of optimal univariate
    microaggregation on sorted data (Hansen & Mukherjee 2003): the same shifted sums with
    scalars and a table of 1/m.

    Parameters
    ----------
    x : float64 (n,)
        One column, sorted ascending.
    k : int
        Minimum group size, 1 <= k <= n.

    Notes
    -----
    Optimal univariate microaggregation (Hansen & Mukherjee 2003); O(k n).
    """
    n = x.shape[0]
    D = np.empty(n + 1)
    pred = np.empty(n + 1, dtype=np.int64)
    for j in range(n + 1):
        D[j] = np.inf
        pred[j] = 0
    D[0] = 0.0
    inv = np.empty(2 * k)
    for m in range(1, 2 * k):
        inv[m] = 1.0 / m
    for i in range(n - k + 1):
        di = D[i]
        if di == np.inf:
            continue
        c = x[i]
        s1 = 0.0
        s2 = 0.0
        last = min(i + 2 * k - 1, n)
        for h in range(i, i + k - 1):
            v = x[h] - c
            s1 += v
            s2 += v * v
        for h in range(i + k - 1, last):
            v = x[h] - c
            s1 += v
            s2 += v * v
            cost = s2 - s1 * s1 * inv[h - i + 1]
            if cost < 0.0:
                cost = 0.0
            val = di + cost
            if val < D[h + 1]:
                D[h + 1] = val
                pred[h + 1] = i
    labels = np.empty(n, dtype=np.uint32)
    _labels_from_pred(pred, n, labels)
    return labels, D[n]


def sort_ties_by_row(xs, perm):
    """Given xs = x[perm] sorted ascending, put the rows of every run of equal values in
    increasing row order (in place), so an unstable argsort gives the stable order.

    Parameters
    ----------
    xs : float64 (n,)
        The sorted values.
    perm : int64 array (n,)
        The sort permutation, fixed in place.

    Notes
    -----
    The team's tie rule (lowest row index first) for the sorted orders of univariate
    microaggregation; O(n) plus one sort of the tied rows, keyed (run, row): all keys
    distinct, so any sort gives the order of a sort of each run. numpy, not a kernel (issue
    27: the kernel compiled Numba's quicksort, ~0.4 s of the first call). On small data or
    with many ties :func:`stable_order` takes one stable sort instead (faster there).

    >>> perm = np.array([4, 1, 3, 0, 2])
    >>> sort_ties_by_row(np.array([0.5, 1.0, 1.0, 1.0, 2.0]), perm); perm.tolist()
    [4, 0, 1, 3, 2]
    """
    n = xs.shape[0]
    tie = xs[1:] == xs[:-1]  # xs[i + 1] == xs[i]; equality of floats is transitive (NaN ties nothing)
    if not tie.any():
        return
    inrun = np.zeros(n, dtype=bool)
    inrun[1:] = tie
    inrun[:-1] |= tie
    idx = np.flatnonzero(inrun)
    first = np.ones(idx.size, dtype=bool)  # idx[t] starts a run
    first[1:] = ~((idx[1:] == idx[:-1] + 1) & tie[idx[1:] - 1])
    key = (np.cumsum(first) - 1) * np.int64(n) + perm[idx]
    key.sort()
    perm[idx] = key % n


def stable_order(x):
    """(perm, x[perm]): the ascending order of the float64 values x, ties in row order (a
    stable argsort). One stable argsort on up to 10,000 rows or when a sample shows many ties
    (few distinct values); else numpy's unstable argsort then :func:`sort_ties_by_row`.

    Parameters
    ----------
    x : float64 (n,)
        The values.

    Notes
    -----
    The team's tie rule (lowest row first) for the sorted order of univariate
    microaggregation (Hansen & Mukherjee 2003). Which sort runs is a speed choice only: numpy's
    stable sort beats its quicksort up to ~10,000 rows and with many ties; every path gives
    the stable order (NaN excepted: they keep the order the unstable sort gave them, as
    before).

    >>> stable_order(np.array([2.0, 1.0, 2.0, 0.0]))[0].tolist()
    [3, 1, 0, 2]
    """
    n = x.shape[0]
    # one stable sort where it is the faster way (the same order; not with NaN, which sort
    # last: a stable sort would order them by row, the tie step leaves them as argsort put
    # them, as the kernel before it did): up to ~10,000 rows numpy's stable sort beats its
    # quicksort, and with many ties (a sample of ~2,048 values, a quarter of it tied) the tie
    # step would sort most rows again
    if n > 1 and not np.isnan(x).any():
        sample = x[:: max(n // 2048, 1)]
        if n <= 10_000 or 4 * (sample.shape[0] - np.unique(sample).shape[0]) > sample.shape[0]:
            perm = np.argsort(x, kind="stable")
            return perm, x[perm]
    perm = np.argsort(x)  # numpy's fastest (unstable) sort
    xs = x[perm]
    sort_ties_by_row(xs, perm)
    return perm, xs
