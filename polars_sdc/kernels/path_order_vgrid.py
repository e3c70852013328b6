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


@helper
def _grown(a, cap, fill):
    """``a`` (int64, 1-D) copied into a new array of length ``cap``, the new tail set to
    ``fill`` (element loops, not a slice assignment: that compiles Numba's shape-mismatch
    message, i.e. its string formatting, on first use). Only for int64: every dtype and
    shape of ``np.empty`` is compiled apart, so the float tables grow in the builder."""
    out = np.empty(cap, dtype=np.int64)
    for i in range(a.shape[0]):
        out[i] = a[i]
    for i in range(a.shape[0], cap):
        out[i] = fill
    return out


@njit(cache=True)
def _build_vgrid(U, leaf_size):
    """Halve blocks of the unit cube (widest side among the dimensions where the block's
    records differ, ties lowest dimension) until each holds <= leaf_size records or
    identical records. Returns the tree (split dim/value, children), the leaves' boxes and
    the leaf of every row. Allocates in three dtype/shape combinations only (int64 (n,),
    float64 (n,) and (n, p)), filled by loops (``np.zeros`` / ``np.full`` / ``np.arange`` /
    ``copy`` and each ``np.empty`` combination are compiled apart)."""
    n, p = U.shape
    cap = 2 * n + 2  # grown when single-child splits need more
    lo = np.empty((cap, p))
    hi = np.empty((cap, p))
    sval = np.empty(cap)
    for v in range(cap):
        for d in range(p):
            lo[v, d] = 0.0
            hi[v, d] = 1.0
        sval[v] = 0.0
    none = np.empty(0, dtype=np.int64)
    sdim = _grown(none, cap, np.int64(-1))
    left = _grown(none, cap, np.int64(-1))
    right = _grown(none, cap, np.int64(-1))
    leaf_id = _grown(none, cap, np.int64(-1))
    seg0 = _grown(none, cap, np.int64(0))
    seg1 = _grown(none, cap, np.int64(0))
    stack = np.empty(cap, dtype=np.int64)
    perm = np.empty(n, dtype=np.int64)
    tmp = np.empty(n, dtype=np.int64)
    for i in range(n):
        perm[i] = i
    n_nodes = 1
    seg1[0] = n
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
        nt = b - a
        for t in range(nt):
            tmp[t] = perm[a + t]
        m = a
        for t in range(nt):
            if U[tmp[t], dim] < s:
                perm[m] = tmp[t]
                m += 1
        for t in range(nt):
            if U[tmp[t], dim] >= s:
                perm[m] = tmp[t]
                m += 1
        mid = a
        for t in range(nt):
            if U[tmp[t], dim] < s:
                mid += 1
        sdim[v] = dim
        sval[v] = s
        if n_nodes + 2 > cap:  # a split that leaves one side empty adds a node but no leaf
            old = cap
            cap *= 2
            lo2 = np.empty((cap, p))
            hi2 = np.empty((cap, p))
            sval2 = np.empty(cap)
            for u in range(cap):
                for d in range(p):
                    lo2[u, d] = lo[u, d] if u < old else 0.0
                    hi2[u, d] = hi[u, d] if u < old else 1.0
                sval2[u] = sval[u] if u < old else 0.0
            lo = lo2
            hi = hi2
            sval = sval2
            sdim = _grown(sdim, cap, np.int64(-1))
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
    sdim, sval, left, right, leaf_id, leaf_lo, leaf_hi, block_of, B = _build_vgrid(U, np.int64(leaf_size))
    deg, nbr = _vgrid_adjacency(sdim, sval, left, right, leaf_id, leaf_lo, leaf_hi)
    first = farthest_from_centroid_codes(X, None, None, None, None)
    return _block_walk(X, None, None, None, np.int64(first), block_of, B, None, None, None, deg, nbr, done)
