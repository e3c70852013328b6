"""The walk through blocks shared by the MHM orderings "grid" (procedure A') and "vgrid"
(the variable-size grid, Suzaki et al. section 5.3): the next record is the nearest unvisited
one of the current block; an exhausted block passes on by the ring of occupied grid cells
(A') or by a breadth-first search of the block graph (variable grid). See
:mod:`.path_order_common`.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ._common import helper, sq_dist_rows
from .path_order_common import _d2


@helper
def _nearest_in_block(X, C, gid, gw, cur, b, start, cnt, pts, best, bp):
    """Nearest unvisited record of block b to row cur, improving on (best, bp). C None:
    numeric columns only."""
    for t in range(start[b], start[b] + cnt[b]):
        q = pts[t]
        if C is None:
            s = sq_dist_rows(X, q, cur)
        else:
            s = _d2(X, C, gid, gw, q, cur)
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


#: The largest int64 (the ring search's start)
_INT64_MAX = np.int64(np.iinfo(np.int64).max)


def walk_arrays(block_of, n_blocks, pts=None, start=None):
    """The ``walk`` argument of :func:`_block_walk` in numpy: the rows grouped by block
    (start (B + 1,), cnt (B,), pts (n,): block b's rows pts[start[b]:start[b + 1]] in
    increasing row order, slot (n,): each row's position in pts) -- a stable argsort, or
    ``pts`` / ``start`` when the caller has them -- and the walk's scratch."""
    n = block_of.shape[0]
    if pts is None:
        pts = np.argsort(block_of, kind="stable").astype(np.int64, copy=False)
        start = np.zeros(n_blocks + 1, dtype=np.int64)
        np.cumsum(np.bincount(block_of, minlength=n_blocks), out=start[1:])
    slot = np.empty(n, dtype=np.int64)
    slot[pts] = np.arange(n, dtype=np.int64)
    return (start, np.diff(start), pts, slot, np.arange(n_blocks, dtype=np.int64), np.arange(n_blocks, dtype=np.int64),
            np.full(n_blocks, -1, dtype=np.int64), np.empty(n_blocks, dtype=np.int64), np.empty(n, dtype=np.int64))


@helper
def _ring_next(X, C, gid, gw, cur, b, coords, pn, gm1, start, cnt, pts, active, n_active):
    """Procedure A' when block b is exhausted: the nearest record to row cur in the nearest
    Chebyshev ring (cell coordinates ``coords``, see :func:`_chebyshev_codes`) of occupied
    blocks. Every other block is at least 1 away, so a block at 1 ends the search for the ring."""
    best = np.inf
    bp = np.int64(-1)  # not a literal: _nearest_in_block compiles once
    rmin = _INT64_MAX  # not np.iinfo (an overload compiled per call site's dtype)
    for a in range(n_active):
        if C is None:  # no nominal coordinate: the plain loop (5x faster)
            r = _chebyshev(coords, active[a], b)
        else:
            r = _chebyshev_codes(coords, active[a], b, pn, gm1)
        if r < rmin:  # min / max as comparisons: Numba compiles its builtins' overloads apart
            rmin = r
        if rmin <= 1:
            break
    for a in range(n_active):
        c = active[a]
        if C is None:
            r = _chebyshev(coords, c, b)
        else:
            r = _chebyshev_codes(coords, c, b, pn, gm1)
        if r == rmin:
            best, bp = _nearest_in_block(X, C, gid, gw, cur, c, start, cnt, pts, best, bp)
    return bp


@helper
def _chebyshev(coords, c, b):
    """Chebyshev distance between the grid cells of blocks c and b."""
    r = np.int64(0)
    for d in range(coords.shape[1]):
        x = abs(coords[c, d] - coords[b, d])
        if x > r:
            r = x
    return r


@helper
def _chebyshev_codes(coords, c, b, pn, gm1):
    """:func:`_chebyshev` when the coordinates from ``pn`` on are category codes of nominal
    columns, whose one-hot cells (0 or the top cell gm1 on each level) differ by gm1 when
    the codes do."""
    r = np.int64(0)
    for d in range(pn):
        x = abs(coords[c, d] - coords[b, d])
        if x > r:
            r = x
    for d in range(pn, coords.shape[1]):
        if coords[c, d] != coords[b, d]:
            return r if r > gm1 else gm1
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
    qh = np.int64(0)
    qt = np.int64(0)
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
def _block_walk(X, C, gid, gw, first, block_of, n_blocks, walk, coords, pn, gm1, deg, nbr, done):
    """The nearest-next walk shared by procedure A' and the variable grid: start at row
    ``first`` (the row farthest from the centroid); next is the nearest unvisited row of the
    current block; an exhausted block passes on by :func:`_ring_next` (grid: ``coords``
    (B, .) cell coordinates, ``deg`` and ``nbr`` None) or :func:`_bfs_next` (variable grid:
    block graph deg / nbr, ``coords`` None). ``walk``: the blocks' CSR and the walk's
    scratch, allocated by the caller (:func:`walk_arrays`): (start, cnt, pts, slot),
    active, active_pos (0 .. B-1 each), seen (B, -1), queue (B,), order (n,). Nominal columns: codes C (see
    :func:`~.path_order_npn.npn_order_codes`; None: numeric only). The None arguments keep
    the code a call does not take from compiling. ``done[0]``: rows visited."""
    n = X.shape[0]
    start, cnt, pts, slot, active, active_pos, seen, queue, order = walk
    n_active = n_blocks
    cur = first
    for t in range(n):
        done[0] = t
        order[t] = cur
        n_active = _visit(cur, block_of, start, cnt, pts, slot, active, active_pos, n_active)
        if t == n - 1:
            break
        b = block_of[cur]
        if cnt[b] > 0:
            best, bp = _nearest_in_block(X, C, gid, gw, cur, b, start, cnt, pts, np.inf, np.int64(-1))
        else:  # Numba prunes a branch on an argument only when that argument is None
            bp = np.int64(-1)
            if deg is not None:  # the variable grid (not compiled for the grid: deg None)
                bp = _bfs_next(X, C, gid, gw, cur, b, t, deg, nbr, seen, queue, start, cnt, pts, active, n_active)
            if coords is not None:  # the grid (not compiled for the variable grid: coords None)
                bp = _ring_next(X, C, gid, gw, cur, b, coords, pn, gm1, start, cnt, pts, active, n_active)
        cur = bp
    return order
