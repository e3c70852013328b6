"""Privacy models checked per equivalence class, as ARX 3.9 checks them
(``org.deidentifier.arx.criteria``):

- k-anonymity (``KAnonymity``): a class holds at least k records.
- distinct l-diversity (``DistinctLDiversity``): a class holds at least l distinct values of
  the sensitive attribute.
- t-closeness with equal ground distance (``EqualDistanceTCloseness``): the earth mover's
  distance between the class's sensitive distribution p and the table's q,
  ``D = 1/2 (1 + sum_{v in class} (|q_v - p_v| - q_v))`` (= 1/2 sum_v |q_v - p_v|, computed as
  ARX computes it), is at most t.

A class that fails any model is an outlier; a transformation satisfies the models when the
records in outlier classes number at most ``floor(suppression_limit * n)`` (ARX
``ARXConfiguration``: ``absMaxOutliers``), and those records are suppressed. k-anonymity and
distinct l-diversity are monotone under generalisation with suppression; t-closeness is
monotone only without suppression (ARX: ``TCloseness`` is not monotonic with suppression), so
the search prunes by it only when the limit is 0.

>>> import numpy as np
>>> Models(k=2).outlier_classes(np.array([1.0, 3.0]), None, None, None).tolist()
[True, False]
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Models:
    """The privacy models of one search (k >= 1; l or t optional, on one sensitive column)."""

    k: int = 1
    l: int | None = None  # noqa: E741
    t: float | None = None

    @property
    def needs_sensitive(self) -> bool:
        return self.l is not None or self.t is not None

    def monotone(self, max_outliers: int) -> bool:
        """Whether a generalisation of a transformation that satisfies the models does too."""
        return self.t is None or max_outliers == 0

    def outlier_classes(self, sizes: np.ndarray, pair_class: np.ndarray | None, pair_value: np.ndarray | None,
                        pair_count: np.ndarray | None, q: np.ndarray | None = None) -> np.ndarray:
        """Boolean per class: it fails a model. ``pair_*``: the distinct (class, sensitive value)
        pairs and their record counts (needed for l and t)."""
        bad = sizes < self.k
        if self.l is not None:
            distinct = np.bincount(pair_class, minlength=sizes.size)
            bad |= distinct < self.l
        if self.t is not None:
            qv = q[pair_value]
            p = pair_count / sizes[pair_class]
            acc = np.bincount(pair_class, weights=np.abs(qv - p) - qv, minlength=sizes.size)
            bad |= (1.0 + acc) / 2.0 > self.t
        return bad

    def outlier_classes_dense(self, sizes: np.ndarray, counts: np.ndarray, q: np.ndarray) -> np.ndarray:
        """:meth:`outlier_classes` from a dense (classes, sensitive values) count matrix."""
        bad = sizes < self.k
        present = counts > 0
        if self.l is not None:
            bad |= present.sum(axis=1) < self.l
        if self.t is not None:
            p = counts / sizes[:, None]
            acc = np.where(present, np.abs(q[None, :] - p) - q[None, :], 0.0).sum(axis=1)
            bad |= (1.0 + acc) / 2.0 > self.t
        return bad
