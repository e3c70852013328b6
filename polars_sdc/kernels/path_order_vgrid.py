"""MHM ordering "vgrid": the variable-size grid of Suzaki et al. section 5.3 (FlexDice-style).

Blocks are halved, widest side first, until each holds at most ``leaf_size`` records; empty
halves are not created; each block is linked to the block across the centre of each of its
2p faces; the walk of :mod:`.path_order_blocks` passes from an exhausted block to the nearest
record among the blocks reached first by a breadth-first search of that adjacency graph.
Takes the one-hot matrix for nominal columns. See :mod:`.path_order_common`.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ._common import helper
from .path_order_blocks import _block_walk, walk_arrays
from .path_order_common import farthest_from_centroid_codes


def _build_vgrid(U, leaf_size):
    """Halve blocks of the unit cube (U: records in [0, 1)) (widest side among the dimensions
    where the block's records differ, ties lowest dimension) until each holds <= leaf_size
    records or identical records. Returns the tree (split dim/value, children), the leaves'
    boxes and the leaf of every row (:func:`_vgrid_tree` without the rows grouped by leaf)."""
    return _vgrid_tree(U, leaf_size, scaled=True)[:9]


def _vgrid_tree(X, leaf_size, scaled=False, cap=None):
    """:func:`_build_vgrid` on X scaled into the unit cube (column by column: (x - min) / span
    * 0.999999, so the top face holds no record; a constant column 0; ``scaled``: X is U
    already), plus the rows grouped by leaf (``perm``: leaf L's rows are
    perm[start[L]:start[L + 1]], in increasing row order) and ``start``. The tables are
    allocated here, in numpy, and the kernel :func:`_vgrid_split` fills them; when a run of single-child splits (near-identical records) needs more nodes
    than the tables hold, the kernel stops before the split and Python doubles the tables and
    calls it again (the same signature: no growth code, no allocation in the kernel, each
    compiled apart otherwise). ``cap``: the tables' first capacity (default 2 n + 2 nodes)."""
    X = np.ascontiguousarray(X, dtype=np.float64)
    n, p = X.shape
    cap = max(2, 2 * n + 2 if cap is None else int(cap))  # nodes; doubled when single-child splits need more
    # a node's entries are written when the kernel creates it; the root's here
    lo, hi, sval = np.empty((cap, p)), np.empty((cap, p)), np.empty(cap)
    sdim, left, right, leaf_id, seg0, seg1, stack = (np.empty(cap, dtype=np.int64) for _ in range(7))
    lo[0], hi[0], sval[0] = 0.0, 1.0, 0.0
    sdim[0] = left[0] = right[0] = leaf_id[0] = -1
    seg0[0], seg1[0], stack[0] = 0, n, 0
    perm = np.arange(n, dtype=np.int64)
    # stack top (the root pushed), nodes, leaves
    state = np.array([1, 1, 0], dtype=np.int64)
    U = X
    if not scaled:  # (x - min) / span * 0.999999 per column, 0 for a constant one (numpy: the
        # same operations in the same order; in the kernel they compiled ~0.13 s more)
        pmin = X.min(axis=0) if n else np.zeros(p)
        span = (X.max(axis=0) if n else np.zeros(p)) - pmin
        U = np.where(span > 0, (X - pmin) / np.where(span > 0, span, 1.0) * 0.999999, 0.0)
    scratch = (np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64), np.empty(p), np.empty(p))
    while not _vgrid_split(U, np.int64(leaf_size), lo, hi, sval, sdim, left, right, leaf_id, seg0, seg1, stack,
                           perm, scratch, state):
        lo, hi, sval, sdim, left, right, leaf_id, seg0, seg1, stack = (
            np.concatenate([t, np.empty_like(t)]) for t in (lo, hi, sval, sdim, left, right, leaf_id, seg0, seg1, stack))
    block_of = scratch[1]
    n_nodes, B = int(state[1]), int(state[2])
    is_leaf = leaf_id[:n_nodes] >= 0
    leaf_lo = np.empty((B, p))
    leaf_hi = np.empty((B, p))
    leaf_lo[leaf_id[:n_nodes][is_leaf]] = lo[:n_nodes][is_leaf]
    leaf_hi[leaf_id[:n_nodes][is_leaf]] = hi[:n_nodes][is_leaf]
    start = np.empty(B + 1, dtype=np.int64)  # leaves are numbered in the order of their runs of perm
    start[leaf_id[:n_nodes][is_leaf]] = seg0[:n_nodes][is_leaf]
    start[B] = n
    return (sdim[:n_nodes], sval[:n_nodes], left[:n_nodes], right[:n_nodes], leaf_id[:n_nodes], leaf_lo, leaf_hi,
            block_of, B, perm, start)


@njit(cache=True)
def _vgrid_split(U, leaf_size, lo, hi, sval, sdim, left, right, leaf_id, seg0, seg1, stack, perm, scratch, state):
    """The splits of :func:`_vgrid_tree` into its tables (capacity ``cap`` nodes; ``state``:
    stack top, nodes, leaves so far), depth first, the lower half first, each
    block's rows a run of ``perm`` kept in increasing row order (stable partitions). Returns
    True when every block is a leaf, False (the state saved, the block pushed back) when a
    split needs more than ``cap`` nodes."""
    n, p = U.shape
    cap = sdim.shape[0]
    tmp, block_of, pmin, pmax = scratch
    top, n_nodes, n_leaves = state[0], state[1], state[2]
    while top > 0:
        top -= 1
        v = stack[top]
        a = seg0[v]
        b = seg1[v]
        dim = np.int64(-1)
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
        if n_nodes + 2 > cap:  # a split that leaves one side empty adds a node but no leaf
            stack[top] = v
            state[0], state[1], state[2] = top + 1, n_nodes, n_leaves
            return False
        s = 0.5 * (lo[v, dim] + hi[v, dim])
        # partition perm[a:b] into (< s) and (>= s), stable in row order
        nt = b - a
        for t in range(nt):
            tmp[t] = perm[a + t]
        m = a
        for t in range(nt):
            if U[tmp[t], dim] < s:
                perm[m] = tmp[t]
                m += 1
        mid = m
        for t in range(nt):
            if U[tmp[t], dim] >= s:
                perm[m] = tmp[t]
                m += 1
        sdim[v] = dim
        sval[v] = s
        # right child pushed first so the left one is processed first
        for side in range(2):
            ca, cb = (mid, b) if side == 0 else (a, mid)
            if cb == ca:
                continue
            c = n_nodes
            n_nodes += 1
            sdim[c] = left[c] = right[c] = leaf_id[c] = -1  # a leaf until split
            sval[c] = 0.0
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
    state[0], state[1], state[2] = top, n_nodes, n_leaves
    return True


@helper
def _locate(sdim, sval, left, right, leaf_id, probe, fd, up):
    """Leaf containing the point ``probe`` moved an infinitesimal step out of its face in
    dimension fd (up: towards +), or -1 in empty space."""
    v = np.int64(0)
    while leaf_id[v] < 0:
        e = sdim[v]
        s = sval[v]
        if e == fd:
            go_right = s <= probe[e] if up else s < probe[e]
        else:
            go_right = probe[e] >= s
        v = right[v] if go_right else left[v]
        if v < 0:
            return np.int64(-1)
    return leaf_id[v]


def _vgrid_adjacency(sdim, sval, left, right, leaf_id, leaf_lo, leaf_hi):
    """Symmetric block graph (CSR deg (B + 1,), nbr): each leaf linked to the leaf across the
    centre of each of its 2p faces (at most 2p links out, as in FlexDice), plus the reverse
    links. The arrays are allocated here (:func:`_vgrid_links` allocates nothing)."""
    B, p = leaf_lo.shape
    nbr = np.empty(4 * p * B, dtype=np.int64)
    deg = np.empty(B + 1, dtype=np.int64)
    scratch = (np.empty(2 * p * B, dtype=np.int64), np.empty(2 * p * B, dtype=np.int64), np.empty(B, dtype=np.int64))
    m = _vgrid_links(sdim, sval, left, right, leaf_id, leaf_lo, leaf_hi, np.empty(p), scratch, deg, nbr)
    return deg, nbr[:2 * m]


@njit(cache=True)
def _vgrid_links(sdim, sval, left, right, leaf_id, leaf_lo, leaf_hi, probe, scratch, deg, nbr):
    """The face links of :func:`_vgrid_adjacency` into ``deg`` / ``nbr``; returns their
    number m (nbr[:2 m] filled). Scratch: src, dst (2 p B,), fill (B,)."""
    B, p = leaf_lo.shape
    src, dst, fill = scratch
    m = np.int64(0)
    for b in range(B):
        for fd in range(p):
            for side in range(2):
                up = side == 1
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
    for b in range(B + 1):
        deg[b] = 0
    for t in range(m):
        deg[src[t] + 1] += 1
        deg[dst[t] + 1] += 1
    for b in range(B):
        deg[b + 1] += deg[b]
    for b in range(B):
        fill[b] = deg[b]
    for t in range(m):
        nbr[fill[src[t]]] = dst[t]
        fill[src[t]] += 1
        nbr[fill[dst[t]]] = src[t]
        fill[dst[t]] += 1
    return m


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


def _vgrid_order(X, leaf_size, done):
    """:func:`vgrid_order`: kernels called one after the other from here (a kernel calling
    another re-optimises the callee's machine code inside its own), every array allocated
    here (each dtype / shape of an allocation compiles apart in every kernel)."""
    X = np.ascontiguousarray(X, dtype=np.float64)
    n = X.shape[0]
    if n == 0:
        return np.empty(0, dtype=np.int64)
    sdim, sval, left, right, leaf_id, leaf_lo, leaf_hi, block_of, B, perm, start = _vgrid_tree(X, leaf_size)
    deg, nbr = _vgrid_adjacency(sdim, sval, left, right, leaf_id, leaf_lo, leaf_hi)
    first = farthest_from_centroid_codes(X, None, None, None, None)
    # the walk's blocks: a leaf's rows are its run of perm (increasing rows), as a stable
    # sort by leaf would group them
    walk = walk_arrays(block_of, B, perm, start)
    return _block_walk(X, None, None, None, np.int64(first), block_of, B, walk, None, None, None, deg, nbr, done)
