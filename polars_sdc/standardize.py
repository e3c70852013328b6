"""Z-score standardization that survives constant columns and extreme magnitudes, and the
exact power-of-two rescaling every distance kernel relies on.

Multiplying by a power of two is exact in floating point (away from the subnormal range), so
a matrix rescaled by one power of two has exactly the same partition under any Euclidean
method as the original, while its squared distances and sums can no longer overflow
(|x| ~ 1e155 squares to inf) or underflow (|x| ~ 1e-162 squares to 0).
"""
from __future__ import annotations

import numpy as np

from ._errors import SDCError
from ._signature import check_keywords

# a matrix whose largest |value| lies in [2^-SAFE_EXP, 2^SAFE_EXP] is left as it is: its
# squared distances and sums over 1e12 rows stay far from overflow and underflow
SAFE_EXP = 100


def pow2_exponent(X: np.ndarray) -> int:
    """The exponent e with max|X| in [2^(e-1), 2^e) (0 for an all-zero or empty X).

    >>> pow2_exponent(np.array([3.0, -0.5]))
    2
    """
    X = np.asarray(X, dtype=np.float64)
    if X.size == 0:
        return 0
    top = float(np.max(np.abs(X)))
    if top == 0.0 or not np.isfinite(top):
        return 0
    return int(np.frexp(top)[1])


def unit_scale(X: np.ndarray, *, what: str = "the features") -> np.ndarray:
    """X (float64, C-contiguous) divided by a power of two so that its largest |value| is
    O(1) when it lies outside [2^-100, 2^100]; unchanged otherwise. Partition-exact: every
    distance is scaled by the same power of two. NaN or infinity raises :class:`SDCError`.

    >>> bool(unit_scale(np.array([[1e300], [3e300]])).max() < 1.0)
    True
    >>> unit_scale(np.array([[1.0], [3.0]])).tolist()
    [[1.0], [3.0]]
    """
    X = np.ascontiguousarray(X, dtype=np.float64)
    if X.size == 0:
        return X
    if not np.all(np.isfinite(X)):
        raise SDCError(f"{what}: NaN or infinite values; a finite number is needed in every row")
    e = pow2_exponent(X)
    if -SAFE_EXP <= e <= SAFE_EXP:
        return X
    return np.ascontiguousarray(np.ldexp(X, -e))


@check_keywords
def zscore(X: np.ndarray, *, ddof: int = 0) -> np.ndarray:
    """Column-wise ``(x - mean) / std`` of a float (n, p) array, as a new C-contiguous array.

    A constant column (std == 0) becomes all zeros instead of NaN, so it simply adds no
    distance. Scaling every column by the same factor (ddof 0 vs 1) changes no partition.
    Any finite magnitude works (1e-300 .. 1e308): each column is first rescaled by a power
    of two, which is exact and leaves its z-scores unchanged.

    >>> zscore(np.array([[1.0, 5.0], [3.0, 5.0]]))
    array([[-1.,  0.],
           [ 1.,  0.]])
    >>> zscore(np.array([[1e307], [-1e307]])).ravel().tolist()
    [1.0, -1.0]
    """
    return np.ascontiguousarray(apply_zscore(X, *zscore_params(X, ddof=ddof)))


def zscore_params(X: np.ndarray, *, ddof: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per column (shift, scale, exponent) such that ``(ldexp(x, -exponent) - shift) / scale``
    are the z-scores of column x; a constant column has scale 0 (its z-scores are 0). Apply
    the same parameters to a masked release to z-score it with the original's mean and std.

    >>> s, c, e = zscore_params(np.array([[1e300], [3e300]]))
    >>> float((np.ldexp(3e300, -e[0]) - s[0]) / c[0])
    1.0
    """
    X = np.asarray(X, dtype=np.float64)
    if X.ndim == 1:
        X = X[:, None]
    p = X.shape[1]
    shift, scale, expo = np.zeros(p), np.zeros(p), np.zeros(p, dtype=np.int64)
    for j in range(p):
        x = X[:, j]
        if x.size <= ddof or x.size == 0 or float(x.min()) == float(x.max()):
            continue
        e = pow2_exponent(x)
        if -SAFE_EXP <= e <= SAFE_EXP:
            e = 0
        xs = np.ldexp(x, -e) if e else x
        expo[j] = e
        shift[j] = xs.mean()
        scale[j] = xs.std(ddof=ddof)
    return shift, scale, expo


def apply_zscore(Y: np.ndarray, shift: np.ndarray, scale: np.ndarray, expo: np.ndarray) -> np.ndarray:
    """Z-score the columns of Y with parameters of :func:`zscore_params` (scale 0 -> 0).

    >>> apply_zscore(np.array([[2.0], [4.0]]), np.array([3.0]), np.array([1.0]), np.array([0])).ravel().tolist()
    [-1.0, 1.0]
    """
    Y = np.asarray(Y, dtype=np.float64)
    if Y.ndim == 1:
        Y = Y[:, None]
    out = np.zeros(Y.shape)
    for j in range(Y.shape[1]):
        if scale[j] > 0:
            y = np.ldexp(Y[:, j], -int(expo[j])) if expo[j] else Y[:, j]
            out[:, j] = (y - shift[j]) / scale[j]
    return out
