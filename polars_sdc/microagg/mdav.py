"""Classic MDAV partition (thesis 2.3.4): the numpy face of :mod:`polars_sdc.kernels.mdav`."""
from __future__ import annotations

import numpy as np

from .._signature import check_keywords
from .features import Features, as_features


@check_keywords
def partition_mdav(X: np.ndarray | Features, k: int, *, done: np.ndarray | None = None) -> np.ndarray:
    """UInt32 group ids for the rows of the float array X (n, p) (or of :class:`Features`
    with nominal columns as codes) by classic MDAV.

    While >= 3k rows are left: xr = farthest from the centroid, xs = farthest from xr; xr
    and its k-1 nearest form a group, then xs and its k-1 nearest. With 2k..3k-1 left, one
    more group around the farthest record; the rest is the last group. Ties: lowest row.
    Nominal columns are measured from their codes (same partition as their one-hot
    embedding, O(n + sum U) memory). ``done`` (int64, one element): rows grouped so far,
    updated by the kernel while it runs (for a progress bar in another thread).

    >>> partition_mdav(np.array([[0.0], [0.1], [5.0], [5.1], [9.0], [9.2]]), 2).tolist()
    [0, 0, 2, 2, 1, 1]
    """
    from ..kernels.mdav import mdav_labels_codes

    F = as_features(X).unit_scaled()  # exact; no overflow in distances
    codes, off, gid, gw = F.kernel_codes()  # no nominal column: empty codes
    done = np.zeros(1, dtype=np.int64) if done is None else done
    return mdav_labels_codes(F.numeric, codes, off, gid, gw, int(k), done=done)
