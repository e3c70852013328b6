"""Within-group sum of squares of a partition (thesis 2.4.1, ILSSDM = SSE / SST)."""
from __future__ import annotations

from numba import njit

from ._common import group_sums


@njit(cache=True)
def group_sse(X, labels, n_groups):
    """SSE = sum_g sum_{i in g} |x_i - mean_g|^2 for X (n, p) and labels in [0, n_groups).

    Two passes (means first, then squared deviations), so large offsets do not cancel.

    Parameters
    ----------
    X, labels, n_groups
        The rows (float64 (n, p)), group per row and number of groups, as for
        :func:`polars_sdc.kernels._common.group_sums`.

    Notes
    -----
    The SSE of Akiyama 2018 (thesis) 2.3 (ILSSDM = SSE / SST); O(n p).
    """
    n, p = X.shape
    counts, sums = group_sums(X, labels, n_groups)
    for g in range(n_groups):
        if counts[g] > 0:
            for j in range(p):
                sums[g, j] /= counts[g]
    total = 0.0
    for i in range(n):
        g = labels[i]
        for j in range(p):
            d = X[i, j] - sums[g, j]
            total += d * d
    return total


@njit(cache=True)
def total_ss(X):
    """SST = sum_i |x_i - mean|^2 (two passes).

    Parameters
    ----------
    X : float64 (n, p)
        The rows.

    Notes
    -----
    The SST of Akiyama 2018 (thesis) 2.3; O(n p).
    """
    n, p = X.shape
    total = 0.0
    for j in range(p):
        m = 0.0
        for i in range(n):
            m += X[i, j]
        m /= n
        for i in range(n):
            d = X[i, j] - m
            total += d * d
    return total
