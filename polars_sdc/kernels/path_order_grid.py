"""MHM ordering "grid": grid-block NPN (Suzaki et al. procedure A').

Every dimension's range cut into equal slices; only occupied cells become blocks; then the
walk of :mod:`.path_order_blocks` (the nearest unvisited record of the current block; an
exhausted block passes to the nearest record in the nearest ring of occupied blocks,
Chebyshev distance in cell coordinates). See :mod:`.path_order_common`.
"""
from __future__ import annotations

import numpy as np
from .path_order_blocks import _block_walk, walk_arrays
from .path_order_common import farthest_from_centroid_codes


def grid_order(X: np.ndarray, cells_per_dim: int, codes: tuple | None = None,
               done: np.ndarray | None = None) -> np.ndarray:
    """Grid-block NPN (procedure A'): every dimension's range cut into ``cells_per_dim``
    equal slices; only occupied cells become blocks (a hash of the cell coordinates, so the
    number of dimensions does not matter); then the walk of :func:`~.path_order_blocks._block_walk`.

    ``codes`` = (C, off, gid, gw): nominal columns as codes (:func:`~.path_order_npn.npn_order_codes`), the
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
    C, off, gid, gw = codes if codes is not None and codes[0].shape[1] > 0 else (None, None, None, None)
    g = max(int(cells_per_dim), 1)
    lo = X.min(axis=0)
    span = X.max(axis=0) - lo
    scale = np.where(span > 0, g / np.where(span > 0, span, 1.0), 0.0)
    cells = np.minimum(((X - lo) * scale).astype(np.int64), g - 1)
    if C is not None:
        C = np.ascontiguousarray(C, dtype=np.int32)
        live = (C.min(axis=0) < C.max(axis=0)) & (gw[gid] > 0) & (g >= 2)
        cells = np.hstack([cells, np.where(live, C, 0).astype(np.int64)])
    coords, block_of = np.unique(cells, axis=0, return_inverse=True)
    first = farthest_from_centroid_codes(X, C, off, gid, gw)
    block_of = np.ascontiguousarray(block_of.ravel(), dtype=np.int64)
    return _block_walk(X, C, gid, gw, np.int64(first), block_of, coords.shape[0], walk_arrays(block_of, coords.shape[0]),
                       np.ascontiguousarray(coords), p, g - 1, None, None,
                       np.zeros(1, dtype=np.int64) if done is None else done)
