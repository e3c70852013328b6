"""Path orderings of records for MHM (Suzaki et al. procedures A and A', section 5.3).

Every function takes a float64 (n, p) array and returns a permutation (int64, n): ``order[t]``
is the row visited t-th. All paths start at the record farthest from the centroid (ties:
lowest row), and every tie in a nearest-neighbour step goes to the lowest row index, so
the result is deterministic.

- :func:`npn_order` — Nearest Point Next (procedure A): O(n^2 p) time, O(n p) memory.
- :func:`grid_order` — grid-block NPN (procedure A'): the next record is the nearest
  unvisited one *in the current block*; an exhausted block passes to the nearest record in
  the nearest ring of occupied blocks (Chebyshev distance in cell coordinates).
- :func:`vgrid_order` — the variable-size grid of section 5.3 (FlexDice-style): blocks are
  halved, widest side first, until each holds at most ``leaf_size`` records; empty halves
  are not created; each block is linked to the block across the centre of each of its 2p
  faces; an exhausted block passes to the nearest record among the blocks reached first by
  a breadth-first search of that adjacency graph.
- :func:`kd_order` — the fast ordering for large n: a median kd-tree (split on the dimension
  of widest spread), leaves of at most ``leaf_size`` records visited depth-first, each leaf
  walked by NPN from the record nearest the previous one. O(n log n p + n leaf_size p).
  With ``mdav_k`` the leaves are large and partitioned by MDAV (:mod:`.mdav`), whose groups
  become consecutive runs of the path.

Nominal columns as codes (``*_codes`` kernels, :mod:`._common`): the distance of the one-hot
embedding from the codes, never the matrix — NPN, A' (a one-hot coordinate's cell is a
function of the code) and the kd orders (sums over the levels present, in the embedding's
order); the variable grid takes the one-hot matrix.

One module on purpose (~760 lines): the five orderings share the block CSR, the visit
bookkeeping and the nearest-next walk; Numba compiles them together.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ._common import (helper, group_means, level_counts, mean_query, nominal_part, nominal_row_dist, sq_dist_rows,
                      widest_dim)
from .mdav import _LEAF as _MDAV_LEAF, mdav_labels_small, mdav_labels_tree, small_enough


# ---------------------------------------------------------------------------------------
# shared pieces
@njit(cache=True)
def farthest_from_centroid(X):
    """Row farthest from the column means (ties: lowest row) — the start of every path."""
    n = X.shape[0]
    return farthest_from_centroid_codes(X, np.empty((n, 0), dtype=np.int32), np.zeros(1, dtype=np.int64),
                                        np.empty(0, dtype=np.int64), np.ones(1))


@njit(cache=True)
def farthest_from_centroid_codes(X, C, off, gid, gw):
    """:func:`farthest_from_centroid` with nominal columns as row-major codes C (n, mc) (level
    offsets ``off``, weight group ``gid`` and a^2 ``gw`` of each column, :mod:`._common`):
    the distance to the centroid of their one-hot embedding from the level counts."""
    n, p = X.shape
    mc = C.shape[1]
    c = np.zeros(p)
    for i in range(n):
        for d in range(p):
            c[d] += X[i, d]
    for d in range(p):
        c[d] /= n
    cnt, Q = level_counts(C, off)
    K = np.empty(mc, dtype=np.int64)
    tq, m2 = mean_query(cnt, Q, n, K)
    CC = np.ascontiguousarray(C.T)
    acc = np.empty((gw.shape[0], 1), dtype=np.int64)
    best = -1.0
    r = 0
    for i in range(n):
        s = 0.0
        for d in range(p):
            v = X[i, d] - c[d]
            s += v * v
        if mc > 0:
            s += nominal_part(CC, i, off, gid, gw, cnt, K, tq, m2, acc)
        if s > best:
            best = s
            r = i
    return r


@helper
def _d2(X, C, gid, gw, a, b):
    """Squared distance between rows a and b: numeric columns of X plus nominal codes C."""
    s = sq_dist_rows(X, a, b)
    if C.shape[1] > 0:
        s += nominal_row_dist(C, a, C, b, gid, gw)
    return s


# ---------------------------------------------------------------------------------------
# A: nearest point next
@njit(cache=True, nogil=True)
def npn_order(X):
    """Nearest Point Next path (Suzaki et al. section 3.2): start at the record farthest from the
    centroid, then repeatedly the nearest unvisited record. O(n^2 p) time, O(n p) memory.
    """
    n = X.shape[0]
    return npn_order_codes(X, np.empty((n, 0), dtype=np.int32), np.zeros(1, dtype=np.int64),
                           np.empty(0, dtype=np.int64), np.ones(1), np.zeros(1, dtype=np.int64))


@njit(cache=True, nogil=True)
def npn_order_codes(X, C, off, gid, gw, done):
    """:func:`npn_order` on numeric features X (n, p) plus nominal columns as row-major codes
    C (n, mc) (see :func:`farthest_from_centroid_codes`): the path on their one-hot
    embedding, in O(n (p + mc) + sum U) memory. ``done[0]``: rows visited so far (the GIL is
    released, so another thread can show progress)."""
    n, p = X.shape
    mc = C.shape[1]
    order = np.empty(n, dtype=np.int64)
    if n == 0:
        return order
    A = X.copy()
    AC = C.copy()
    idx = np.arange(n)
    cur = np.empty(p)
    curc = np.empty((1, mc), dtype=C.dtype)
    pos = farthest_from_centroid_codes(X, C, off, gid, gw)
    m = n
    for t in range(n):
        done[0] = t
        r = idx[pos]
        order[t] = r
        for d in range(p):
            cur[d] = A[pos, d]
        for j in range(mc):
            curc[0, j] = AC[pos, j]
        m -= 1  # swap-remove pos
        if pos != m:
            for d in range(p):
                A[pos, d] = A[m, d]
            for j in range(mc):
                AC[pos, j] = AC[m, j]
            idx[pos] = idx[m]
        if m == 0:
            break
        best = np.inf
        pos = -1
        for i in range(m):
            s = 0.0
            for d in range(p):
                v = A[i, d] - cur[d]
                s += v * v
            if mc > 0:
                s += nominal_row_dist(AC, i, curc, 0, gid, gw)
            if pos < 0 or s < best or (s == best and idx[i] < idx[pos]):
                best = s
                pos = i
    return order


# ---------------------------------------------------------------------------------------
# block paths (A' and the variable grid share the walk inside blocks)
@helper
def _nearest_in_block(X, C, gid, gw, cur, b, start, cnt, pts, best, bp):
    """Nearest unvisited record of block b to row cur, improving on (best, bp)."""
    nominal = C.shape[1] > 0
    for t in range(start[b], start[b] + cnt[b]):
        q = pts[t]
        s = _d2(X, C, gid, gw, q, cur) if nominal else sq_dist_rows(X, q, cur)
        if bp < 0 or s < best or (s == best and q < bp):
            best = s
            bp = q
    return best, bp


@helper
def _visit(q, block_of, start, cnt, pts, slot, active, active_pos, n_active):
    """Mark row q visited: swap it out of its block's live segment; an emptied block leaves
    the active list. Returns the new number of active blocks."""
    b = block_of[q]
    last = start[b] + cnt[b] - 1
    sq = slot[q]
    other = pts[last]
    pts[sq] = other
    slot[other] = sq
    pts[last] = q
    slot[q] = last
    cnt[b] -= 1
    if cnt[b] == 0:
        ap = active_pos[b]
        n_active -= 1
        moved = active[n_active]
        active[ap] = moved
        active_pos[moved] = ap
        active[n_active] = b
        active_pos[b] = n_active
    return n_active


@helper
def _block_csr(block_of, n_blocks):
    """(start (B + 1,), cnt (B,), pts (n,), slot (n,)): the rows grouped by block (a counting
    sort, increasing row inside each block; pts[start[b]:start[b + 1]] are block b's rows)
    and each row's position in pts."""
    n = block_of.shape[0]
    cnt = np.zeros(n_blocks, dtype=np.int64)
    for i in range(n):
        cnt[block_of[i]] += 1
    start = np.zeros(n_blocks + 1, dtype=np.int64)
    for b in range(n_blocks):
        start[b + 1] = start[b] + cnt[b]
    fill = start[:-1].copy()
    pts = np.empty(n, dtype=np.int64)
    slot = np.empty(n, dtype=np.int64)
    for i in range(n):  # rows in increasing order inside each block
        b = block_of[i]
        pts[fill[b]] = i
        slot[i] = fill[b]
        fill[b] += 1
    return start, cnt, pts, slot


@helper
def _ring_next(X, C, gid, gw, cur, b, coords, pn, gm1, start, cnt, pts, active, n_active):
    """Procedure A' when block b is exhausted: the nearest record to row cur in the nearest
    Chebyshev ring (cell coordinates ``coords``, see :func:`_chebyshev_codes`) of occupied
    blocks. Every other block is at least 1 away, so a block at 1 ends the search for the ring."""
    best = np.inf
    bp = np.int64(-1)  # not a literal: _nearest_in_block compiles once
    rmin = np.iinfo(np.int64).max
    plain = pn == coords.shape[1]  # no nominal coordinate: the plain loop (5x faster)
    for a in range(n_active):
        r = _chebyshev(coords, active[a], b) if plain else _chebyshev_codes(coords, active[a], b, pn, gm1)
        rmin = min(rmin, r)
        if rmin <= 1:
            break
    for a in range(n_active):
        c = active[a]
        r = _chebyshev(coords, c, b) if plain else _chebyshev_codes(coords, c, b, pn, gm1)
        if r == rmin:
            best, bp = _nearest_in_block(X, C, gid, gw, cur, c, start, cnt, pts, best, bp)
    return bp


@helper
def _chebyshev(coords, c, b):
    """Chebyshev distance between the grid cells of blocks c and b."""
    r = 0
    for d in range(coords.shape[1]):
        r = max(r, abs(coords[c, d] - coords[b, d]))
    return r


@helper
def _chebyshev_codes(coords, c, b, pn, gm1):
    """:func:`_chebyshev` when the coordinates from ``pn`` on are category codes of nominal
    columns, whose one-hot cells (0 or the top cell gm1 on each level) differ by gm1 when
    the codes do."""
    r = 0
    for d in range(pn):
        r = max(r, abs(coords[c, d] - coords[b, d]))
    for d in range(pn, coords.shape[1]):
        if coords[c, d] != coords[b, d]:
            return max(r, gm1)
    return r


@helper
def _bfs_next(X, C, gid, gw, cur, b, t, deg, nbr, seen, queue, start, cnt, pts, active, n_active):
    """The variable grid when block b is exhausted: breadth-first search of the block graph
    (CSR deg / nbr) layer by layer from b, stopping at the first layer holding unvisited
    records; the nearest of them to row cur (a disconnected remainder is searched whole).
    ``seen`` marks blocks with the step t."""
    best = np.inf
    bp = np.int64(-1)  # not a literal: _nearest_in_block compiles once
    seen[b] = t
    qh = 0
    qt = 0
    queue[qt] = b
    qt += 1
    found = False
    while qh < qt and not found:
        layer_end = qt
        while qh < layer_end:
            u = queue[qh]
            qh += 1
            for e in range(deg[u], deg[u + 1]):
                w = nbr[e]
                if seen[w] != t:
                    seen[w] = t
                    queue[qt] = w
                    qt += 1
        for e in range(layer_end, qt):
            w = queue[e]
            if cnt[w] > 0:
                found = True
                best, bp = _nearest_in_block(X, C, gid, gw, cur, w, start, cnt, pts, best, bp)
    if not found:
        for a in range(n_active):
            best, bp = _nearest_in_block(X, C, gid, gw, cur, active[a], start, cnt, pts, best, bp)
    return bp


@njit(cache=True, nogil=True)
def _block_walk(X, C, off, gid, gw, block_of, n_blocks, coords, pn, gm1, deg, nbr, done):
    """The nearest-next walk shared by procedure A' and the variable grid: start at the row
    farthest from the centroid; next is the nearest unvisited row of the current block; an
    exhausted block passes on by :func:`_ring_next` (grid: ``coords`` (B, .) cell
    coordinates, ``deg`` empty) or :func:`_bfs_next` (variable grid: block graph deg / nbr).
    Nominal columns: codes C (see :func:`npn_order_codes`). ``done[0]``: rows visited."""
    n = X.shape[0]
    start, cnt, pts, slot = _block_csr(block_of, n_blocks)
    active = np.arange(n_blocks)
    active_pos = np.arange(n_blocks)
    n_active = n_blocks
    graph = deg.shape[0] > 0
    seen = np.full(n_blocks if graph else 0, -1, dtype=np.int64)
    queue = np.empty(n_blocks if graph else 0, dtype=np.int64)
    order = np.empty(n, dtype=np.int64)
    cur = farthest_from_centroid_codes(X, C, off, gid, gw)
    for t in range(n):
        done[0] = t
        order[t] = cur
        n_active = _visit(cur, block_of, start, cnt, pts, slot, active, active_pos, n_active)
        if t == n - 1:
            break
        b = block_of[cur]
        if cnt[b] > 0:
            best, bp = _nearest_in_block(X, C, gid, gw, cur, b, start, cnt, pts, np.inf, np.int64(-1))
        elif graph:
            bp = _bfs_next(X, C, gid, gw, cur, b, t, deg, nbr, seen, queue, start, cnt, pts, active, n_active)
        else:
            bp = _ring_next(X, C, gid, gw, cur, b, coords, pn, gm1, start, cnt, pts, active, n_active)
        cur = bp
    return order


@njit(cache=True, nogil=True)
def grid_path(X, block_of, coords):
    """Procedure A' on a uniform grid: ``block_of[i]`` is row i's block (0..B-1) and
    ``coords`` (B, p) the integer cell coordinates of each block."""
    n = X.shape[0]
    return _block_walk(X, np.empty((n, 0), dtype=np.int32), np.zeros(1, dtype=np.int64), np.empty(0, dtype=np.int64),
                       np.ones(1), block_of, coords.shape[0], coords, coords.shape[1], 0,
                       np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64), np.zeros(1, dtype=np.int64))


def grid_order(X: np.ndarray, cells_per_dim: int, codes: tuple | None = None,
               done: np.ndarray | None = None) -> np.ndarray:
    """Grid-block NPN (procedure A'): every dimension's range cut into ``cells_per_dim``
    equal slices; only occupied cells become blocks (a hash of the cell coordinates, so the
    number of dimensions does not matter); then the walk of :func:`grid_path`.

    ``codes`` = (C, off, gid, gw): nominal columns as codes (:func:`npn_order_codes`), the
    same path as on their one-hot embedding without building it: a one-hot coordinate holds
    0 or a, so its cell is 0 or the top one; a column's cells are a function of its code
    (when it has >= 2 levels present, a > 0 and >= 2 slices), two different codes are the
    top cell apart in Chebyshev distance. ``done[0]``: rows visited so far.

    >>> grid_order(np.array([[0.0], [10.0], [1.0], [9.0]]), 2).tolist()
    [0, 2, 3, 1]
    """
    X = np.ascontiguousarray(X, dtype=np.float64)
    n, p = X.shape
    if n == 0:
        return np.empty(0, dtype=np.int64)
    C, off, gid, gw = codes if codes is not None else (np.empty((n, 0), dtype=np.int32), np.zeros(1, dtype=np.int64),
                                                       np.empty(0, dtype=np.int64), np.ones(1))
    g = max(int(cells_per_dim), 1)
    lo = X.min(axis=0)
    span = X.max(axis=0) - lo
    scale = np.where(span > 0, g / np.where(span > 0, span, 1.0), 0.0)
    cells = np.minimum(((X - lo) * scale).astype(np.int64), g - 1)
    if C.shape[1]:
        live = (C.min(axis=0) < C.max(axis=0)) & (gw[gid] > 0) & (g >= 2)
        cells = np.hstack([cells, np.where(live, C, 0).astype(np.int64)])
    coords, block_of = np.unique(cells, axis=0, return_inverse=True)
    return _block_walk(X, np.ascontiguousarray(C, dtype=np.int32), off, gid, gw,
                       np.ascontiguousarray(block_of.ravel(), dtype=np.int64), coords.shape[0],
                       np.ascontiguousarray(coords), p, g - 1, np.empty(0, dtype=np.int64),
                       np.empty(0, dtype=np.int64), np.zeros(1, dtype=np.int64) if done is None else done)


# ---------------------------------------------------------------------------------------
# variable-size grid (section 5.3)
@helper
def _grown(a, cap, fill):
    """``a`` (1-D) copied into a new array of length ``cap``, the new tail set to ``fill``
    (element loops, not a slice assignment: that compiles Numba's shape-mismatch message,
    i.e. its string formatting, on first use)."""
    out = np.empty(cap, dtype=a.dtype)
    for i in range(a.shape[0]):
        out[i] = a[i]
    for i in range(a.shape[0], cap):
        out[i] = fill
    return out


@helper
def _grown2(a, cap, fill):
    """``a`` (2-D) copied into a new array of ``cap`` rows, the new rows set to ``fill``."""
    out = np.empty((cap, a.shape[1]), dtype=a.dtype)
    for i in range(cap):
        for j in range(a.shape[1]):
            out[i, j] = a[i, j] if i < a.shape[0] else fill
    return out


@njit(cache=True)
def _build_vgrid(U, leaf_size):
    """Halve blocks of the unit cube (widest side among the dimensions where the block's
    records differ, ties lowest dimension) until each holds <= leaf_size records or
    identical records. Returns the tree (split dim/value, children), the leaves' boxes and
    the leaf of every row."""
    n, p = U.shape
    cap = 2 * n + 2  # grown when single-child splits need more
    lo = np.zeros((cap, p))
    hi = np.ones((cap, p))
    sdim = np.full(cap, -1, dtype=np.int64)
    sval = np.zeros(cap)
    left = np.full(cap, -1, dtype=np.int64)
    right = np.full(cap, -1, dtype=np.int64)
    seg0 = np.zeros(cap, dtype=np.int64)
    seg1 = np.zeros(cap, dtype=np.int64)
    leaf_id = np.full(cap, -1, dtype=np.int64)
    perm = np.arange(n)
    n_nodes = 1
    seg1[0] = n
    stack = np.empty(cap, dtype=np.int64)
    top = 0
    stack[top] = 0
    top += 1
    n_leaves = 0
    block_of = np.empty(n, dtype=np.int64)
    pmin = np.empty(p)
    pmax = np.empty(p)
    while top > 0:
        top -= 1
        v = stack[top]
        a = seg0[v]
        b = seg1[v]
        dim = -1
        if b - a > leaf_size:
            for d in range(p):
                pmin[d] = np.inf
                pmax[d] = -np.inf
            for t in range(a, b):
                r = perm[t]
                for d in range(p):
                    x = U[r, d]
                    if x < pmin[d]:
                        pmin[d] = x
                    if x > pmax[d]:
                        pmax[d] = x
            w = -1.0
            for d in range(p):
                if pmax[d] > pmin[d] and hi[v, d] - lo[v, d] > w:
                    w = hi[v, d] - lo[v, d]
                    dim = d
        if dim < 0:
            leaf_id[v] = n_leaves
            for t in range(a, b):
                block_of[perm[t]] = n_leaves
            n_leaves += 1
            continue
        s = 0.5 * (lo[v, dim] + hi[v, dim])
        # partition perm[a:b] into (< s) and (>= s), stable in row order
        tmp = perm[a:b].copy()
        m = a
        for t in range(tmp.shape[0]):
            if U[tmp[t], dim] < s:
                perm[m] = tmp[t]
                m += 1
        for t in range(tmp.shape[0]):
            if U[tmp[t], dim] >= s:
                perm[m] = tmp[t]
                m += 1
        mid = a
        for t in range(tmp.shape[0]):
            if U[tmp[t], dim] < s:
                mid += 1
        sdim[v] = dim
        sval[v] = s
        if n_nodes + 2 > cap:  # a split that leaves one side empty adds a node but no leaf
            cap *= 2
            lo = _grown2(lo, cap, 0.0)
            hi = _grown2(hi, cap, 1.0)
            sdim = _grown(sdim, cap, np.int64(-1))
            sval = _grown(sval, cap, 0.0)
            left = _grown(left, cap, np.int64(-1))
            right = _grown(right, cap, np.int64(-1))
            seg0 = _grown(seg0, cap, np.int64(0))
            seg1 = _grown(seg1, cap, np.int64(0))
            leaf_id = _grown(leaf_id, cap, np.int64(-1))
            stack = _grown(stack, cap, np.int64(0))
        # right child pushed first so the left one is processed first
        for side in range(2):
            ca, cb = (mid, b) if side == 0 else (a, mid)
            if cb == ca:
                continue
            c = n_nodes
            n_nodes += 1
            for d in range(p):
                lo[c, d] = lo[v, d]
                hi[c, d] = hi[v, d]
            if side == 0:
                lo[c, dim] = s
                right[v] = c
            else:
                hi[c, dim] = s
                left[v] = c
            seg0[c] = ca
            seg1[c] = cb
            stack[top] = c
            top += 1
    leaf_lo = np.empty((n_leaves, p))
    leaf_hi = np.empty((n_leaves, p))
    for v in range(n_nodes):
        if leaf_id[v] >= 0:
            for d in range(p):
                leaf_lo[leaf_id[v], d] = lo[v, d]
                leaf_hi[leaf_id[v], d] = hi[v, d]
    return (sdim[:n_nodes], sval[:n_nodes], left[:n_nodes], right[:n_nodes],
            leaf_id[:n_nodes], leaf_lo, leaf_hi, block_of, n_leaves)


@helper
def _locate(sdim, sval, left, right, leaf_id, probe, fd, up):
    """Leaf containing the point ``probe`` moved an infinitesimal step out of its face in
    dimension fd (up: towards +), or -1 in empty space."""
    v = 0
    while leaf_id[v] < 0:
        e = sdim[v]
        s = sval[v]
        if e == fd:
            go_right = s <= probe[e] if up else s < probe[e]
        else:
            go_right = probe[e] >= s
        v = right[v] if go_right else left[v]
        if v < 0:
            return -1
    return leaf_id[v]


@njit(cache=True)
def _vgrid_adjacency(sdim, sval, left, right, leaf_id, leaf_lo, leaf_hi):
    """Symmetric block graph (CSR): each leaf linked to the leaf across the centre of each of
    its 2p faces (at most 2p links out, as in FlexDice), plus the reverse links."""
    B, p = leaf_lo.shape
    src = np.empty(2 * p * B, dtype=np.int64)
    dst = np.empty(2 * p * B, dtype=np.int64)
    m = 0
    probe = np.empty(p)
    for b in range(B):
        for fd in range(p):
            for up in (False, True):
                if (up and leaf_hi[b, fd] >= 1.0) or (not up and leaf_lo[b, fd] <= 0.0):
                    continue
                for d in range(p):
                    probe[d] = 0.5 * (leaf_lo[b, d] + leaf_hi[b, d])
                probe[fd] = leaf_hi[b, fd] if up else leaf_lo[b, fd]
                c = _locate(sdim, sval, left, right, leaf_id, probe, fd, up)
                if c >= 0 and c != b:
                    src[m] = b
                    dst[m] = c
                    m += 1
    deg = np.zeros(B + 1, dtype=np.int64)
    for t in range(m):
        deg[src[t] + 1] += 1
        deg[dst[t] + 1] += 1
    for b in range(B):
        deg[b + 1] += deg[b]
    fill = deg[:-1].copy()
    nbr = np.empty(2 * m, dtype=np.int64)
    for t in range(m):
        nbr[fill[src[t]]] = dst[t]
        fill[src[t]] += 1
        nbr[fill[dst[t]]] = src[t]
        fill[dst[t]] += 1
    return deg, nbr


def vgrid_order(X: np.ndarray, leaf_size: int, done: np.ndarray | None = None) -> np.ndarray:
    """Variable-size grid NPN (Suzaki et al. section 5.3): see the module docstring.

    Blocks hold at most ``leaf_size`` records (unless identical). Inside a block: nearest
    unvisited record; when the block is exhausted, a breadth-first search of the block graph
    stops at the first layer holding unvisited records and moves to the nearest of them (a
    disconnected remainder is searched whole). ``done[0]``: rows visited so far.

    >>> vgrid_order(np.array([[0.0], [10.0], [1.0], [9.0]]), 2).tolist()
    [0, 2, 3, 1]
    """
    return _vgrid_order(X, leaf_size, np.zeros(1, dtype=np.int64) if done is None else done)


@njit(cache=True, nogil=True)
def _vgrid_order(X, leaf_size, done):
    n, p = X.shape
    order = np.empty(n, dtype=np.int64)
    if n == 0:
        return order
    lo = np.empty(p)
    span = np.empty(p)
    for d in range(p):
        lo[d] = X[0, d]
        hi_d = X[0, d]
        for i in range(n):
            if X[i, d] < lo[d]:
                lo[d] = X[i, d]
            if X[i, d] > hi_d:
                hi_d = X[i, d]
        span[d] = hi_d - lo[d]
    U = np.empty((n, p))
    for i in range(n):
        for d in range(p):
            # scaled into [0, 1): the top face of the unit cube holds no record
            U[i, d] = (X[i, d] - lo[d]) / span[d] * 0.999999 if span[d] > 0 else 0.0
    sdim, sval, left, right, leaf_id, leaf_lo, leaf_hi, block_of, B = _build_vgrid(U, leaf_size)
    deg, nbr = _vgrid_adjacency(sdim, sval, left, right, leaf_id, leaf_lo, leaf_hi)
    return _block_walk(X, np.empty((n, 0), dtype=np.int32), np.zeros(1, dtype=np.int64), np.empty(0, dtype=np.int64),
                       np.ones(1), block_of, B, np.empty((0, 0), dtype=np.int64), 0, 0, deg, nbr, done)


# ---------------------------------------------------------------------------------------
# kd-tree order (fast, for large n)
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
    dim = 0
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
    stride = max(1, m // _PCA_SAMPLE)
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


@helper
def _npn_walk(X, C, gid, gw, live, m, order, out, prev):
    """Walk the rows live[:m] nearest-next from row ``prev`` (ties: lowest row), appending
    them to order[out:]; returns the new (out, prev). live[:m] is consumed. Nominal columns:
    codes C (distances of :func:`_d2`; C with no column: numeric only)."""
    nominal = C.shape[1] > 0
    for step in range(m):
        best = np.inf
        bt = -1
        for t in range(m - step):
            q = live[t]
            if q == prev:
                s = 0.0
            else:
                s = _d2(X, C, gid, gw, q, prev) if nominal else sq_dist_rows(X, prev, q)
            if bt < 0 or s < best or (s == best and q < live[bt]):
                best = s
                bt = t
        q = live[bt]
        live[bt] = live[m - step - 1]
        order[out] = q
        out += 1
        prev = q
    return out, prev


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
    n = X.shape[0]
    return _kd_walk(X, np.empty((n, 0), dtype=np.int32), np.zeros(1, dtype=np.int64), np.empty(0, dtype=np.int64),
                    np.ones(1), np.empty(0), np.zeros(X.shape[1], dtype=np.int64), np.arange(X.shape[1]), leaf_size,
                    rule, mdav_k if mdav_k > 0 else None, _mdav_leaf(X, 0, leaf_size, mdav_k), done)


def _mdav_leaf(X, mc, leaf_size, mdav_k):
    """The leaf-MDAV kernel of a kd walk, as the argument ``mdav_leaf`` of :func:`_kd_walk`:
    None when no leaf (at most min(leaf_size, n) rows) is too large for the brute-force
    :func:`~.mdav.mdav_labels_small` (the rule of :func:`~.mdav.mdav_labels_codes`), else the
    kd-tree leaf size of :func:`~.mdav.mdav_labels_tree`. Decided before the call, so that a
    walk compiles one of the two (a None argument prunes the other branch)."""
    rows = min(int(leaf_size), X.shape[0])
    if not mdav_k or small_enough(rows, X.shape[1], mc, mdav_k):
        return None
    return np.int64(_MDAV_LEAF)


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
    stride = max(1, m // _PCA_SAMPLE)
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
def _walk_leaf_mdav(X, C, off, gid, gw, perm, a, b, k, mdav_leaf, order, out, prev, lcnt):
    """Append the rows perm[a:b] to the path group by group: MDAV groups of the leaf,
    nearest centroid (to the last visited row) next, each group walked by NPN. Nominal
    columns (codes C, possibly none): MDAV from the codes (:func:`~.mdav.mdav_labels_codes`;
    ``mdav_leaf`` picks its kernel, see :func:`_mdav_leaf`),
    the distance from the last visited row to a group's centroid from its level counts."""
    n, p = X.shape
    mc = C.shape[1]
    m = b - a
    sub = np.empty((m, p))
    subc = np.empty((m, mc), dtype=np.int32)
    for t in range(m):
        for d in range(p):
            sub[t, d] = X[perm[a + t], d]
        for c in range(mc):
            subc[t, c] = C[perm[a + t], c]
    if mdav_leaf is None:  # small leaves (see _mdav_leaf): the brute-force kernel, the tree is not compiled
        lab = mdav_labels_small(sub, subc, off, gid, gw, min(k, m), np.zeros(1, dtype=np.int64))
    else:
        lab = mdav_labels_tree(sub, subc, off, gid, gw, min(k, m), mdav_leaf, np.zeros(1, dtype=np.int64))
    G = np.int64(0)  # not a literal: group_means and _block_csr compile once
    for t in range(m):
        if lab[t] + 1 > G:
            G = lab[t] + 1
    cnt, cen = group_means(sub, lab, G)
    gstart, _, by_group, _ = _block_csr(lab, G)  # leaf positions grouped by label (counting sort)
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
    done = np.zeros(G, dtype=np.bool_)
    live = np.empty(m, dtype=np.int64)
    for gs in range(G):
        best = np.inf
        bg = -1
        for g in range(G):
            if done[g]:
                continue
            s = 0.0
            for d in range(p):
                v = cen[g, d] - X[prev, d]
                s += v * v
            if mc > 0:
                mg = cnt[g]
                for q in range(NG):
                    acc[q] = 0
                for c in range(mc):
                    same = 0
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
        done[bg] = True
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
    visited so far. (A Python function: an @njit layer over the walk compiled its machine
    code once more.)"""
    return _kd_walk(X, C, off, gid, gw, A_c, lk, li, leaf_size, 2, mdav_k,
                    _mdav_leaf(X, C.shape[1], leaf_size, mdav_k), done)


@njit(cache=True, nogil=True)
def _kd_walk(X, C, off, gid, gw, A_c, lk, li, leaf_size, rule, mdav_k, mdav_leaf, done):
    """The kd orders: :func:`kd_order` without nominal columns (C with no column, any
    ``rule``), :func:`kd_order_codes` with them (rule 2). ``mdav_leaf``: see :func:`_mdav_leaf`."""
    n, p = X.shape
    mc = C.shape[1]
    order = np.empty(n, dtype=np.int64)
    if n == 0:
        return order
    U = off[mc]
    perm = np.arange(n)
    key = np.empty(n)
    cap_l = p + U
    mean = np.empty(cap_l)
    w = np.empty(cap_l)
    dk = np.empty(cap_l, dtype=np.int64)
    dc = np.empty(cap_l, dtype=np.int64)
    du = np.empty(cap_l, dtype=np.int64)
    vnum = np.zeros(p)
    vnom = np.zeros(U)
    lcnt = np.zeros(U, dtype=np.int64)
    lev2e = np.zeros(U, dtype=np.int64)
    z0 = np.empty(cap_l)
    z1 = np.empty(cap_l)
    vd = np.empty(p)
    md = np.empty(p)
    wd = np.empty(p)
    nominal = mc > 0
    first = farthest_from_centroid_codes(X, C, off, gid, gw)
    cap = 2 * 64 + 16
    sa = np.empty(cap, dtype=np.int64)
    sb = np.empty(cap, dtype=np.int64)
    sa[0] = 0
    sb[0] = n
    top = 1
    out = np.int64(0)  # not a literal 0: _walk_leaf_mdav and _npn_walk compile once
    prev = first
    live = np.empty(max(leaf_size, 1), dtype=np.int64)
    while top > 0:
        top -= 1
        a = sa[top]
        b = sb[top]
        if b - a <= leaf_size:
            if mdav_k is not None:  # None (order "kd"): this branch and MDAV are not compiled
                out, prev = _walk_leaf_mdav(X, C, off, gid, gw, perm, a, b, mdav_k, mdav_leaf, order, out, prev,
                                            lcnt)
            else:
                m = b - a
                for t in range(m):
                    live[t] = perm[a + t]
                out, prev = _npn_walk(X, C, gid, gw, live, m, order, out, prev)
            done[0] = out
            continue
        if nominal:
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
        top = _push_halves(sa, sb, top, a, mid, b, pk < sv or (pk == sv and prev < perm[mid]))
    return order
