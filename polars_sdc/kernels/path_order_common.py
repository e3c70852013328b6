"""Pieces shared by the MHM path orderings (Suzaki et al. procedures A and A', section 5.3).

Every ordering takes a float64 (n, p) array (plus, for nominal columns, row-major codes, see
:mod:`._common`) and returns a permutation (int64, n): ``order[t]`` is the row visited t-th.
All paths start at the record farthest from the centroid (ties: lowest row), and every tie
in a nearest-neighbour step goes to the lowest row index, so the result is deterministic.
One module per ordering:

- :mod:`.path_order_npn` — Nearest Point Next (procedure A): O(n^2 p) time, O(n p) memory.
- :mod:`.path_order_grid` — grid-block NPN (procedure A'): the next record is the nearest
  unvisited one *in the current block*; an exhausted block passes to the nearest record in
  the nearest ring of occupied blocks (Chebyshev distance in cell coordinates).
- :mod:`.path_order_vgrid` — the variable-size grid of section 5.3 (FlexDice-style): blocks
  are halved, widest side first, until each holds at most ``leaf_size`` records; empty halves
  are not created; each block is linked to the block across the centre of each of its 2p
  faces; an exhausted block passes to the nearest record among the blocks reached first by
  a breadth-first search of that adjacency graph.
- :mod:`.path_order_blocks` — the nearest-next walk through blocks shared by the two grids.
- :mod:`.path_order_kd` — the fast ordering for large n: a median kd-tree (split on the
  principal axis), leaves of at most ``leaf_size`` records visited depth-first, each leaf
  walked by NPN from the record nearest the previous one; with ``mdav_k`` (order
  "kd-mdav") the leaves are large and partitioned by MDAV (:mod:`.mdav`), whose groups
  become consecutive runs of the path.

Nominal columns as codes (``*_codes`` kernels, :mod:`._common`): the distance of the one-hot
embedding from the codes, never the matrix — NPN, A' (a one-hot coordinate's cell is a
function of the code) and the kd orders (sums over the levels present, in the embedding's
order); the variable grid takes the one-hot matrix.

A method compiles only its ordering's kernels: this module holds the start of every path
(:func:`farthest_from_centroid_codes`: numpy for numeric data, with nominal columns one
cached kernel compiled once per process whichever ordering calls it) and the helpers of more
than one ordering, compiled into each caller.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ._common import helper, level_counts, mean_query, nominal_part, nominal_row_dist, sq_dist_rows


def farthest_from_centroid(X):
    """Row farthest from the column means (ties: lowest row) — the start of every path. In
    numpy (no kernel to compile for numeric data): each mean is the sum in row order
    (``cumsum`` adds one row after the other, as a loop does) divided by n, each squared
    distance summed over the columns in order, so the row is the one of
    :func:`_farthest_nominal` bit for bit (a NaN distance never wins; all NaN: row 0)."""
    X = np.ascontiguousarray(X, dtype=np.float64)
    n, p = X.shape
    if n == 0 or p == 0:
        return 0
    with np.errstate(all="ignore"):  # inf - inf is NaN, as in a kernel, silently
        D = X - X.cumsum(axis=0)[-1] / n
        D *= D
        s = D[:, 0].copy()
        for d in range(1, p):
            s += D[:, d]
    s[~(s > -1.0)] = -np.inf
    return int(np.argmax(s))


def farthest_from_centroid_codes(X, C, off, gid, gw):
    """:func:`farthest_from_centroid` with nominal columns as row-major codes C (n, mc) (level
    offsets ``off``, weight group ``gid`` and a^2 ``gw`` of each column, :mod:`._common`):
    the distance to the centroid of their one-hot embedding from the level counts
    (:func:`_farthest_nominal`). C None or with no column: numeric columns only, in numpy."""
    if C is None or C.shape[1] == 0:
        return farthest_from_centroid(X)
    return _farthest_nominal(X, C, off, gid, gw)


@njit(cache=True)
def _farthest_nominal(X, C, off, gid, gw):
    """The kernel of :func:`farthest_from_centroid_codes` with nominal columns. (C None would
    compile the numeric part only: Numba prunes a branch on an argument that is None before
    typing; numeric data take :func:`farthest_from_centroid`, the same row.)"""
    n, p = X.shape
    c = np.zeros(p)
    for i in range(n):
        for d in range(p):
            c[d] += X[i, d]
    for d in range(p):
        c[d] /= n
    if C is not None:
        mc = C.shape[1]
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
        if C is not None:
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


@helper
def _npn_walk(X, C, gid, gw, live, m, order, out, prev):
    """Walk the rows live[:m] nearest-next from row ``prev`` (ties: lowest row), appending
    them to order[out:]; returns the new (out, prev). live[:m] is consumed. Nominal columns:
    codes C (distances of :func:`_d2`; C None: numeric only, the nominal code not compiled)."""
    for step in range(m):
        best = np.inf
        bt = np.int64(-1)
        for t in range(m - step):
            q = live[t]
            if q == prev:
                s = 0.0
            elif C is None:
                s = sq_dist_rows(X, prev, q)
            else:
                s = _d2(X, C, gid, gw, q, prev)
            if bt < 0 or s < best or (s == best and q < live[bt]):
                best = s
                bt = t
        q = live[bt]
        live[bt] = live[m - step - 1]
        order[out] = q
        out += 1
        prev = q
    return out, prev
