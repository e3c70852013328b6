"""V-MDAV partition (thesis 2.3.4): the numpy face of :mod:`polars_sdc.kernels.vmdav`."""
from __future__ import annotations


import numpy as np

from .._errors import SDCError
from .._signature import check_keywords
from .._validation import check_real
from .features import Features, as_features


def check_gamma(gamma: float) -> float:
    """``gamma`` as a float, or :class:`SDCError` unless it is a finite number >= 0.

    >>> check_gamma(1)
    1.0
    """
    return check_real(gamma, "gamma", minimum=0.0)


@check_keywords
def partition_vmdav(X: np.ndarray | Features, k: int, gamma: float = 1.0, *,
                    done: np.ndarray | None = None) -> np.ndarray:
    """UInt32 group ids for the rows of the float array X (n, p) (or of :class:`Features`
    with nominal columns as codes, measured without a one-hot matrix) by V-MDAV.

    The centroid c of all rows is computed once. While >= k rows are unassigned: the row
    farthest from c and its k-1 nearest unassigned rows form a group D; the nearest
    unassigned row e_min then joins D while d_in < gamma * d_out and |D| < 2k - 1 (d_in:
    e_min to D's nearest member; d_out: e_min to its nearest other unassigned row). The
    last < k rows join the group with the nearest centroid. Groups have k .. 2k-1 rows
    (more only where leftovers joined); gamma = 0 never extends a group. Ties: lowest row.
    ``done`` (int64, one element): rows grouped so far, written by the kernel while it runs
    (a progress bar reads it).

    >>> X = np.array([[0.0], [0.1], [0.2], [5.0], [5.1], [9.0], [9.2]])
    >>> partition_vmdav(X, 2).tolist()
    [1, 1, 1, 2, 2, 0, 0]
    >>> partition_vmdav(X, 2, gamma=0.0).tolist()
    [1, 1, 2, 2, 2, 0, 0]
    """
    F = as_features(X).unit_scaled()  # exact; no overflow in distances
    X = F.numeric
    gamma = check_gamma(gamma)
    k = int(k)
    if k < 1 or k > X.shape[0]:
        raise SDCError(f"k = {k} must be between 1 and the number of rows ({X.shape[0]})")
    done = np.zeros(1, dtype=np.int64) if done is None else done
    if not F.has_codes and X.shape[1] == 1:  # O(n log n): done in a moment, counted at the end
        from ..kernels.vmdav import vmdav_labels_1d

        labels = vmdav_labels_1d(np.ascontiguousarray(X[:, 0]), k, gamma)
        done[0] = X.shape[0]
        return labels
    from ..kernels.vmdav import vmdav_labels_codes, vmdav_nominal

    # numeric data: nom=None, a specialisation that compiles none of the nominal code
    nom = vmdav_nominal(*F.kernel_codes()) if F.has_codes else None
    return vmdav_labels_codes(X, nom, k, gamma, done)
