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
from .path_order_blocks import _block_walk
from .path_order_common import farthest_from_centroid_codes


#: Columns of the builder's integer node table: split dimension (-1 at a leaf), left and right
#: child (-1: none), the node's rows perm[seg0:seg1], its leaf number (-1: inner node), and
#: the depth-first stack of nodes to split.
_SDIM, _LEFT, _RIGHT, _SEG0, _SEG1, _LEAF, _STACK = 0, 1, 2, 3, 4, 5, 6


@helper
def _init_nodes(node, box, start, p):
    """Rows ``start ..`` of the node tables set to a fresh node: no split, no child, an empty
    segment, not a leaf, the box [0, 1]^p (``box`` row: lo (p), hi (p), split value)."""
    for v in range(start, node.shape[0]):
        node[v, _SDIM] = -1
        node[v, _LEFT] = -1
        node[v, _RIGHT] = -1
        node[v, _SEG0] = 0
        node[v, _SEG1] = 0
        node[v, _LEAF] = -1
        node[v, _STACK] = 0
        for d in range(p):
            box[v, d] = 0.0
            box[v, p + d] = 1.0
        box[v, 2 * p] = 0.0


@njit(cache=True)
def _build_vgrid(U, leaf_size):
    """Halve blocks of the unit cube (widest side among the dimensions where the block's
    records differ, ties lowest dimension) until each holds <= leaf_size records or
    identical records. Returns the tree as two tables, ``node`` (int64, one row per node:
    split dimension, left and right child, ..., leaf number; see ``_SDIM`` ...) and ``box``
    (float64: the node's box lo (p), hi (p) and split value), the leaves' boxes, the leaf of
    every row and the number of leaves. Every array is allocated in one of four
    dtype/shape combinations (each ``np.empty`` combination is compiled apart)."""
    n, p = U.shape
    cap = 2 * n + 2  # grown when single-child splits need more
    node = np.empty((cap, 7), dtype=np.int64)
    box = np.empty((cap, 2 * p + 1))
    _init_nodes(node, box, np.int64(0), p)
    perm = np.empty(n, dtype=np.int64)
    tmp = np.empty(n, dtype=np.int64)
    for i in range(n):
        perm[i] = i
    n_nodes = 1
    node[0, _SEG1] = n
    top = 0
    node[top, _STACK] = 0
    top += 1
    n_leaves = 0
    block_of = np.empty(n, dtype=np.int64)
    pmin = np.empty(p)
    pmax = np.empty(p)
    while top > 0:
        top -= 1
        v = node[top, _STACK]
        a = node[v, _SEG0]
        b = node[v, _SEG1]
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
                if pmax[d] > pmin[d] and box[v, p + d] - box[v, d] > w:
                    w = box[v, p + d] - box[v, d]
                    dim = d
        if dim < 0:
            node[v, _LEAF] = n_leaves
            for t in range(a, b):
                block_of[perm[t]] = n_leaves
            n_leaves += 1
            continue
        s = 0.5 * (box[v, dim] + box[v, p + dim])
        # partition perm[a:b] into (< s) and (>= s), stable in row order
        for t in range(a, b):
            tmp[t] = perm[t]
        m = a
        for t in range(a, b):
            if U[tmp[t], dim] < s:
                perm[m] = tmp[t]
                m += 1
        for t in range(a, b):
            if U[tmp[t], dim] >= s:
                perm[m] = tmp[t]
                m += 1
        mid = a
        for t in range(a, b):
            if U[tmp[t], dim] < s:
                mid += 1
        node[v, _SDIM] = dim
        box[v, 2 * p] = s
        if n_nodes + 2 > cap:  # a split that leaves one side empty adds a node but no leaf
            old = cap
            cap *= 2
            node2 = np.empty((cap, 7), dtype=np.int64)
            box2 = np.empty((cap, 2 * p + 1))
            for i in range(old):  # element loops, not a slice assignment (that compiles
                for j in range(7):  # Numba's shape-mismatch message, i.e. string formatting)
                    node2[i, j] = node[i, j]
                for j in range(2 * p + 1):
                    box2[i, j] = box[i, j]
            _init_nodes(node2, box2, np.int64(old), p)
            node = node2
            box = box2
        # right child pushed first so the left one is processed first
        for side in range(2):
            ca, cb = (mid, b) if side == 0 else (a, mid)
            if cb == ca:
                continue
            c = n_nodes
            n_nodes += 1
            for d in range(2 * p):
                box[c, d] = box[v, d]
            if side == 0:
                box[c, dim] = s
                node[v, _RIGHT] = c
            else:
                box[c, p + dim] = s
                node[v, _LEFT] = c
            node[c, _SEG0] = ca
            node[c, _SEG1] = cb
            node[top, _STACK] = c
            top += 1
    leaf_lo = np.empty((n_leaves, p))
    leaf_hi = np.empty((n_leaves, p))
    for v in range(n_nodes):
        lf = node[v, _LEAF]
        if lf >= 0:
            for d in range(p):
                leaf_lo[lf, d] = box[v, d]
                leaf_hi[lf, d] = box[v, p + d]
    return node, box, leaf_lo, leaf_hi, block_of, n_leaves


@helper
def _locate(node, box, probe, fd, up):
    """Leaf containing the point ``probe`` moved an infinitesimal step out of its face in
    dimension fd (up: towards +), or -1 in empty space."""
    p = probe.shape[0]
    v = 0
    while node[v, _LEAF] < 0:
        e = node[v, _SDIM]
        s = box[v, 2 * p]
        if e == fd:
            go_right = s <= probe[e] if up else s < probe[e]
        else:
            go_right = probe[e] >= s
        v = node[v, _RIGHT] if go_right else node[v, _LEFT]
        if v < 0:
            return -1
    return node[v, _LEAF]


@njit(cache=True)
def _vgrid_adjacency(node, box, leaf_lo, leaf_hi):
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
                c = _locate(node, box, probe, fd, up)
                if c >= 0 and c != b:
                    src[m] = b
                    dst[m] = c
                    m += 1
    deg = np.empty(B + 1, dtype=np.int64)
    for b in range(B + 1):
        deg[b] = 0
    for t in range(m):
        deg[src[t] + 1] += 1
        deg[dst[t] + 1] += 1
    for b in range(B):
        deg[b + 1] += deg[b]
    fill = np.empty(B, dtype=np.int64)
    for b in range(B):
        fill[b] = deg[b]
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


@njit(cache=True)
def _unit_cube(X):
    """X (n >= 1 rows) scaled column by column into [0, 1): the top face of the unit cube
    holds no record; a constant column is 0."""
    n, p = X.shape
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
            U[i, d] = (X[i, d] - lo[d]) / span[d] * 0.999999 if span[d] > 0 else 0.0
    return U


def _vgrid_order(X, leaf_size, done):
    """:func:`vgrid_order`: four kernels called one after the other from here (a kernel
    calling another re-optimises the callee's machine code inside its own)."""
    X = np.ascontiguousarray(X, dtype=np.float64)
    if X.shape[0] == 0:
        return np.empty(0, dtype=np.int64)
    U = _unit_cube(X)
    node, box, leaf_lo, leaf_hi, block_of, B = _build_vgrid(U, np.int64(leaf_size))
    deg, nbr = _vgrid_adjacency(node, box, leaf_lo, leaf_hi)
    first = farthest_from_centroid_codes(X, None, None, None, None)
    return _block_walk(X, None, None, None, np.int64(first), block_of, B, None, None, None, deg, nbr, done)
