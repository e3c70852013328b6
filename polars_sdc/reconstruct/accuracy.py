"""The paper's L1 accuracy of two histograms (Sakuma & Osame, section 5) and the bin-edge check
shared by the fitted results."""
from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl

from .._errors import SDCError
from .._signature import check_keywords

def _probabilities(p: Any, name: str) -> np.ndarray:
    if isinstance(p, (pl.Series, pl.DataFrame)):
        p = p.to_numpy()
    arr = np.asarray(p, dtype=np.float64)
    if arr.size == 0:
        raise SDCError(f"`{name}`: empty histogram")
    if not np.all(np.isfinite(arr)):
        raise SDCError(f"`{name}`: NaN or infinite entries")
    if np.any(arr < 0):
        raise SDCError(f"`{name}`: negative entries; a histogram of probabilities or counts is needed")
    total = arr.sum()
    if total <= 0:
        raise SDCError(f"`{name}`: all entries are zero")
    return arr / total


@check_keywords
def l1_accuracy(p: Any, q: Any) -> float:
    """The paper's L1 accuracy of two histograms on the same bins (Hasegawa et al., section 5):
    ``100 * (1 - 0.5 * sum_b |p_b - q_b|)``: 100 when equal, 0 when they share no mass.

    ``p`` and ``q`` are probabilities or counts (each is normalised to sum 1), of any equal
    shape (cross tables too).

    >>> l1_accuracy([0.5, 0.5, 0.0], [0.25, 0.5, 0.25])
    75.0
    >>> l1_accuracy([3, 1], [0, 2])
    25.0
    """
    a = _probabilities(p, "p")
    b = _probabilities(q, "q")
    if a.shape != b.shape:
        raise SDCError(f"histograms of different shapes: {a.shape} and {b.shape}")
    return float(100.0 * (1.0 - 0.5 * np.abs(a - b).sum()))


def _edges(edges: Any, column: str) -> np.ndarray:
    e = np.asarray(edges, dtype=np.float64).ravel()
    if e.size < 2 or not np.all(np.isfinite(e)) or np.any(np.diff(e) <= 0):
        raise SDCError(f"column {column!r}: bin edges must be >= 2 finite, strictly increasing numbers")
    return e
