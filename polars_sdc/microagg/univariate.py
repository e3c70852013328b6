"""Optimal univariate microaggregation (Hansen & Mukherjee 2003; Suzaki et al. ref. [3]):
on one column sorted ascending, the best k-partition has contiguous groups of k .. 2k-1
values, so the shortest path of :mod:`polars_sdc.kernels.hansen_mukherjee` is exact.
O(n log n) for the sort plus O(k n) for the path.
"""
from __future__ import annotations

import numpy as np

from .._errors import SDCError
from .._signature import check_keywords


@check_keywords
def partition_univariate(X: np.ndarray, k: int) -> np.ndarray:
    """UInt32 group ids of the k-partition of one column with the least SSE (exact).

    Values are sorted (ties in row order) and cut by the Hansen–Mukherjee
    shortest path; groups are numbered from the smallest values up. X is (n,) or (n, 1).

    >>> partition_univariate(np.array([9.0, 1.0, 2.0, 8.0, 10.0, 1.5]), 3).tolist()
    [1, 0, 0, 1, 1, 0]
    """
    from ..kernels.hansen_mukherjee import hm_shortest_path_1d, stable_order

    from .features import Features

    if isinstance(X, Features):
        X = X.dense(purpose="univariate microaggregation")
    X = np.asarray(X, dtype=np.float64)
    if X.ndim == 2:
        if X.shape[1] != 1:
            raise SDCError(
                f"univariate microaggregation works on exactly one column, got {X.shape[1]}; "
                "use method='mdav' or 'mhm' for several columns"
            )
        x = X[:, 0]
    elif X.ndim == 1:
        x = X
    else:
        raise SDCError(f"univariate microaggregation needs a column, got an array of shape {X.shape}")
    from ..standardize import unit_scale

    x = unit_scale(x)  # exact; the path's sums of squares cannot overflow
    n = x.shape[0]
    if n == 0:
        return np.empty(0, dtype=np.uint32)
    perm, xs = stable_order(x)  # ties in row order
    seq, _ = hm_shortest_path_1d(xs, int(k))
    labels = np.empty(n, dtype=np.uint32)
    labels[perm] = seq
    return labels
