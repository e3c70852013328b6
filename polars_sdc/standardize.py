"""Z-score standardization that survives constant columns."""
from __future__ import annotations

import numpy as np


def zscore(X: np.ndarray, *, ddof: int = 0) -> np.ndarray:
    """Column-wise ``(x - mean) / std`` of a float (n, p) array, as a new C-contiguous array.

    A constant column (std == 0) becomes all zeros instead of NaN, so it simply adds no
    distance. Scaling every column by the same factor (ddof 0 vs 1) changes no partition.

    >>> zscore(np.array([[1.0, 5.0], [3.0, 5.0]]))
    array([[-1.,  0.],
           [ 1.,  0.]])
    """
    X = np.asarray(X, dtype=np.float64)
    if X.ndim == 1:
        X = X[:, None]
    mean = X.mean(axis=0)
    std = X.std(axis=0, ddof=ddof) if X.shape[0] > ddof else np.zeros(X.shape[1])
    scale = np.where(std > 0, std, 1.0)
    out = (X - mean) / scale
    out[:, std == 0] = 0.0
    return np.ascontiguousarray(out)
