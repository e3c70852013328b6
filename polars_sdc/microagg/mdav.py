"""Classic MDAV partition (thesis 2.3.4): the numpy face of :mod:`polars_sdc.kernels.mdav`."""
from __future__ import annotations

import numpy as np

from .features import Features, as_features


def partition_mdav(X: np.ndarray | Features, k: int) -> np.ndarray:
    """UInt32 group ids for the rows of the float array X (n, p) (or of :class:`Features`
    with nominal columns as codes) by classic MDAV.

    While >= 3k rows are left: xr = farthest from the centroid, xs = farthest from xr; xr
    and its k-1 nearest form a group, then xs and its k-1 nearest. With 2k..3k-1 left, one
    more group around the farthest record; the rest is the last group. Ties: lowest row.
    Nominal columns are measured from their codes (same partition as their one-hot
    embedding, O(n + sum U) memory).

    >>> partition_mdav(np.array([[0.0], [0.1], [5.0], [5.1], [9.0], [9.2]]), 2).tolist()
    [0, 0, 2, 2, 1, 1]
    """
    from ..kernels.mdav import mdav_labels, mdav_labels_codes

    F = as_features(X).unit_scaled()  # exact; no overflow in distances
    if not F.has_codes:
        return mdav_labels(F.numeric, int(k))
    codes, off, gid, gw = F.kernel_codes()
    return mdav_labels_codes(F.numeric, codes, off, gid, gw, int(k))
