"""Privacy models checked per equivalence class, as ARX 3.9 checks them
(``org.deidentifier.arx.criteria``); n_v is the class's count of sensitive value v, N its size:

- k-anonymity (``KAnonymity``): a class holds at least k records.
- distinct l-diversity (``DistinctLDiversity``): at least l distinct sensitive values.
- entropy l-diversity (``EntropyLDiversity``, Machanavajjhala et al. 2007): at least
  ``ceil(l)`` distinct values and ``sum_v n_v psi(n_v) <= N (psi(N) - ln l)``, i.e. the entropy
  estimate ``psi(N) - 1/N sum_v n_v psi(n_v)`` is at least ``ln l``; ``psi = ln`` (Shannon, ARX's
  default: ``kind="entropy"``) or Grassberger's ``G`` (``kind="entropy_grassberger"``:
  ``G_1 = -gamma - ln 2``, ``G_2n = G_2n+1 = G_1 + sum_{k<=n} 2/(2k-1)`` up to n = 100, then
  ``ln n + m (1/24 - m (7/960 - m 31/8064))`` with ``m = 1/(n/2)^2``, n made even).
- recursive (c, l)-diversity (``RecursiveCLDiversity``): with r_1 >= r_2 >= ... the sorted
  counts, at least l distinct values and ``r_1 < c (r_l + r_(l+1) + ...)``.
- t-closeness, equal ground distance (``EqualDistanceTCloseness``): the earth mover's distance
  between the class's sensitive distribution p and the table's q,
  ``D = 1/2 (1 + sum_{v in class} (|q_v - p_v| - q_v))`` (= 1/2 sum_v |q_v - p_v|, computed as
  ARX computes it), is at most t.
- t-closeness, hierarchical ground distance (``HierarchicalDistanceTCloseness``, Li, Li &
  Venkatasubramanian 2007): the sensitive attribute's hierarchy is a tree of height H; bottom
  up, a leaf's *extra* is ``P_v Q - n_v P`` (P_v: the table's count of v, P = n, Q = N), an inner
  node at level j collects its children's positive extras (pos) and negative ones (neg),
  passes ``pos - neg`` up and costs ``j / H * min(pos, neg)``; ``D = sum cost / (P Q)``
  (integers until the division, as ARX's ``int[]`` tree does).

**Null sensitive values** (a structural null: EU-SILC's pl030 of a child) are no sensitive
values, the sign-off's rule (:func:`polars_sdc.report`): l and t are measured on a class's
records with a value (N above is their number; t's table distribution q is over the table's
records with a value), and a class whose sensitive values are all null has no sensitive value:
it fails every l-diversity and t-closeness (k still counts all its records). ARX has no null:
a missing value is the string ``NULL`` (``DataType.NULL_VALUE``), dictionary-coded like any
other, so its criteria count it as one more sensitive value (an all-``NULL`` class has distinct
l 1 there).

A class that fails any model is an outlier; a transformation satisfies the models when the
records in outlier classes number at most ``floor(suppression_limit * n)`` (ARX
``ARXConfiguration``: ``absMaxOutliers``), and those records are suppressed.

**Monotonicity** (ARX ``PrivacyCriterion.isMonotonicWithSuppression`` /
``...WithGeneralization``, read by ``ARXConfiguration.getMonotonicityOfPrivacy``): every model
is monotone under generalisation, so without suppression a generalisation of a passing
transformation passes; with suppression only k-anonymity and distinct l-diversity are (entropy
and recursive l-diversity and both t-closeness models are declared non-monotonic with
suppression), so the search then decides every node it needs by grouping it (no cone tags
from a failing or passing node; the bound pruning of the metric stays exact).

>>> import numpy as np
>>> Models(k=2).outlier_classes(np.array([1.0, 3.0]), None, None, None).tolist()
[True, False]
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

#: the sensitive code of a null (:func:`polars_sdc.generalize.release.prepare` codes the values
#: by dense rank from 1): no sensitive value, left out of l and t
NULL_CODE = 0
#: the kinds of l-diversity (ARX's criteria)
L_KINDS = ("distinct", "entropy", "entropy_grassberger", "recursive")
#: the ground distances of t-closeness
T_DISTANCES = ("equal", "hierarchical")

_EULER_GAMMA = 0.57721566490153286060


def _grassberger_table() -> np.ndarray:
    """G_1, G_2, G_4, ..., G_100 (ARX ``EntropyEstimator.G_PRECOMPUTED``, recomputed)."""
    out = [-_EULER_GAMMA - math.log(2.0)]
    acc = out[0]
    for k in range(1, 51):
        acc += 2.0 / (2 * k - 1)
        out.append(acc)
    return np.array(out)


_G = _grassberger_table()


def grassberger(n: np.ndarray) -> np.ndarray:
    """Grassberger's entropy correction G_n for integer counts n >= 1 (ARX ``EntropyEstimator.G``).

    >>> grassberger(np.array([1, 2, 3, 4])).round(6).tolist()
    [-1.270363, 0.729637, 0.729637, 1.396304]
    """
    n = np.asarray(n, dtype=np.int64)
    small = n <= 100
    out = np.empty(n.shape, dtype=np.float64)
    out[small] = _G[(n[small] - n[small] % 2) // 2]
    big = n[~small]
    if big.size:
        even = big - big % 2
        half = even // 2
        m = 1.0 / (half * half).astype(np.float64)
        out[~small] = np.log(even) + m * (1.0 / 24 - m * (7.0 / 960 - m * (31.0 / 8064)))
    return out


@dataclass(frozen=True)
class HierarchyTree:
    """The sensitive attribute's hierarchy for hierarchical t-closeness: ``leaf[v]`` the
    level-0 label of sensitive code v, ``parent[j - 1, a]`` the level-j label of level-(j-1)
    label a, ``n_labels[j]`` the number of level-j labels, ``height`` H, ``table_counts`` the
    table's records per sensitive code."""

    leaf: np.ndarray
    parent: np.ndarray
    n_labels: np.ndarray
    height: int
    table_counts: np.ndarray

    @classmethod
    def build(cls, ids: list[np.ndarray], leaf: np.ndarray, table_counts: np.ndarray) -> HierarchyTree:
        """From ``ids[j]`` (the level-j label id of every hierarchy row, ids in order of first
        appearance) and ``leaf`` (the hierarchy row of every sensitive code)."""
        n_labels = np.array([int(x.max()) + 1 for x in ids], dtype=np.int64)
        parent = np.zeros((max(len(ids) - 1, 1), int(n_labels.max())), dtype=np.int64)
        for j in range(1, len(ids)):
            parent[j - 1, ids[j - 1]] = ids[j]
        return cls(np.ascontiguousarray(ids[0][leaf]), parent, n_labels, max(len(ids) - 1, 1),
                   np.asarray(table_counts, dtype=np.float64))


@dataclass(frozen=True)
class Models:
    """The privacy models of one search (k >= 1; an l-diversity and a t-closeness optional,
    on one sensitive column)."""

    k: int = 1
    l: float | None = None  # noqa: E741
    t: float | None = None
    l_kind: str = "distinct"
    c: float | None = None
    tree: HierarchyTree | None = None

    @property
    def needs_sensitive(self) -> bool:
        return self.l is not None or self.t is not None

    @property
    def min_size(self) -> int:
        """Smallest class that can pass (ARX ``getMinimalClassSize``): max(k, ceil(l))."""
        return max(self.k, int(math.ceil(self.l)) if self.l is not None else 1)

    def monotone(self, max_outliers: int) -> bool:
        """Whether a generalisation of a transformation that satisfies the models does too."""
        if max_outliers == 0:
            return True
        return self.t is None and (self.l is None or self.l_kind == "distinct")

    def outlier_classes(self, sizes: np.ndarray, pair_class: np.ndarray | None, pair_value: np.ndarray | None,
                        pair_count: np.ndarray | None, q: np.ndarray | None = None) -> np.ndarray:
        """Boolean per class: it fails a model. ``pair_*``: the distinct (class, sensitive value)
        pairs and their record counts (needed for l and t)."""
        bad = sizes < self.k
        if not self.needs_sensitive:
            return bad
        if (self.l is None or self.l_kind == "distinct") and self.tree is None:
            valued = pair_value != NULL_CODE          # a null is no sensitive value
            pair_class, pair_value, pair_count = pair_class[valued], pair_value[valued], pair_count[valued]
            n_valued = np.bincount(pair_class, weights=pair_count, minlength=sizes.size)
            bad |= n_valued == 0                      # no sensitive value: fails l and t
            if self.l is not None:
                distinct = np.bincount(pair_class, minlength=sizes.size)
                bad |= distinct < self.l
            if self.t is not None:
                qv = q[pair_value]
                p = pair_count / n_valued[pair_class]
                acc = np.bincount(pair_class, weights=np.abs(qv - p) - qv, minlength=sizes.size)
                bad |= (1.0 + acc) / 2.0 > self.t
            return bad
        # the other models on dense count rows, a block of classes at a time
        S = q.size
        order = np.argsort(pair_class, kind="stable")
        pc, pv, pn = pair_class[order], pair_value[order], pair_count[order]
        step = max(1, 4_000_000 // S)
        for a in range(0, sizes.size, step):
            b = min(sizes.size, a + step)
            lo, hi = np.searchsorted(pc, [a, b])
            counts = np.bincount((pc[lo:hi] - a) * S + pv[lo:hi], weights=pn[lo:hi],
                                 minlength=(b - a) * S).reshape(b - a, S)
            bad[a:b] |= self.outlier_classes_dense(sizes[a:b], counts, q)
        return bad

    def outlier_classes_dense(self, sizes: np.ndarray, counts: np.ndarray, q: np.ndarray) -> np.ndarray:
        """:meth:`outlier_classes` from a dense (classes, sensitive values) count matrix."""
        bad = sizes < self.k
        if not self.needs_sensitive:
            return bad
        counts = counts.copy()
        counts[:, NULL_CODE] = 0                      # a null is no sensitive value
        valued = counts.sum(axis=1)                   # the class's records with a sensitive value
        bad |= valued == 0                            # none: fails l and t
        valued = np.maximum(valued, 1.0)
        present = counts > 0
        if self.l is not None:
            distinct = present.sum(axis=1)
            bad |= distinct < math.ceil(self.l)
            if self.l_kind in ("entropy", "entropy_grassberger"):
                bad |= ~_entropy_ok(counts, valued, self.l, self.l_kind == "entropy_grassberger")
            elif self.l_kind == "recursive":
                bad |= ~_recursive_ok(counts, int(self.l), float(self.c))
        if self.t is not None:
            if self.tree is not None:
                bad |= hierarchical_emd(counts, valued, self.tree) > self.t
            else:
                p = counts / valued[:, None]
                acc = np.where(present, np.abs(q[None, :] - p) - q[None, :], 0.0).sum(axis=1)
                bad |= (1.0 + acc) / 2.0 > self.t
        return bad


def _entropy_ok(counts: np.ndarray, sizes: np.ndarray, l: float, grassberger_psi: bool) -> np.ndarray:  # noqa: E741
    """ARX ``EntropyLDiversity.isAnonymous``: ``sum n psi(n) <= N (psi(N) - ln l)``."""
    c = np.rint(counts).astype(np.int64)
    N = np.rint(sizes).astype(np.int64)
    if grassberger_psi:
        psi_c = np.where(c > 0, grassberger(np.maximum(c, 1)), 0.0)
        psi_N = grassberger(np.maximum(N, 1))
    else:
        psi_c = np.log(np.maximum(c, 1))
        psi_N = np.log(np.maximum(N, 1))
    total = (c * psi_c).sum(axis=1)
    return total <= N * (psi_N - math.log(l))


def _recursive_ok(counts: np.ndarray, l: int, c: float) -> np.ndarray:  # noqa: E741
    """ARX ``RecursiveCLDiversity.isAnonymous``: ``r_1 < c (r_l + ... + r_m)`` over the
    present values sorted by count (classes with fewer than l values fail before)."""
    r = -np.sort(-counts, axis=1)                  # descending; absent values are 0 at the end
    tail = r[:, l - 1:].sum(axis=1) if l >= 1 else r.sum(axis=1)
    return r[:, 0] < c * tail


def hierarchical_emd(counts: np.ndarray, sizes: np.ndarray, tree: HierarchyTree) -> np.ndarray:
    """The hierarchical-distance EMD of each class (rows of ``counts`` over the sensitive
    codes) from the whole table's distribution (module docstring; ARX
    ``HierarchicalDistanceTCloseness``).

    >>> tree = HierarchyTree.build([np.array([0, 1, 2]), np.array([0, 0, 1]), np.array([0, 0, 0])],
    ...                            np.array([0, 1, 2]), np.array([1.0, 1.0, 2.0]))
    >>> float(hierarchical_emd(np.array([[2.0, 0.0, 0.0]]), np.array([2.0]), tree)[0])
    0.625
    """
    from ..kernels.lattice import hierarchical_emd_kernel

    return hierarchical_emd_kernel(np.ascontiguousarray(counts, dtype=np.float64),
                                   np.ascontiguousarray(sizes, dtype=np.float64), tree.table_counts, tree.leaf,
                                   tree.parent, tree.n_labels, float(tree.height))
