"""ARX's quality models (information-loss metrics) with ARX 3.9's definitions and defaults
(``org.deidentifier.arx.metric.v2``), for a full-domain transformation of n records whose
classes (equivalence classes of the generalised quasi-identifiers) are known, some of them
suppressed (outliers). Attribute weights are ARX's default (all 0.5, normalised to 1) and the
generalisation/suppression factor is ARX's default 0.5 (generalisation and suppression weighted
equally: gFactor = sFactor = 1). ``floor10(x) = floor(x * 1e10) / 1e10`` is ARX's ``round``.

- ``loss`` (``Metric.createLossMetric()``, ``MetricMDNMLoss``, geometric mean): per attribute,
  ``x = sum_{kept classes} size * share(label) + (records suppressed)``, where ``share`` is the
  fraction of the hierarchy's rows (its domain, R) under the label; normalised
  ``floor10((x - n/R) / (n - n/R))`` (at least 0); aggregated as
  ``prod_i (x_i + 1)^(1/d) - 1``. The normalised value is the rational
  ``(R x - n) / (n R - n)`` with an integer numerator; it is floored exactly (integers), not
  from a floating-point sum: ``floor10`` turns a last-bit difference of two summation orders
  (0.49999999999999994 vs 0.5) into a difference of 1e-10, so two transformations of equal
  loss would not tie (ARX sums ``count * share`` in its class order and can land on either
  side of such a boundary; on the Adult reference runs the exact value is ARX's).
- ``discernibility`` (``createDiscernabilityMetric()``, non-monotonic DM,
  ``MetricSDNMDiscernability``): ``sum_{kept} size^2 + n * (records suppressed)``;
  ``discernibility_star`` (``createDiscernabilityMetric(true)``, DM*): ``sum_{all} size^2``.
- ``entropy`` (``createEntropyMetric()``, non-monotonic non-uniform entropy,
  ``MetricMDNUNMEntropy``, sum over attributes): per attribute ``floor10(E + S)`` with
  ``E = -sum_v a_v log2(a_v / b_v)`` (a_v: records with original value v, b_v: records
  sharing v's label at the level; all records) and, for the suppressed records,
  ``S = -sum_g c_g log2(c_g / s)`` (c_g: suppressed records with label g, s: all suppressed);
  ``entropy_monotone`` (``createEntropyMetric(true)``, ``MetricMDNUEntropy``): ``floor10(E)``.
- ``precision`` (``createPrecisionMetric()``, non-monotonic, ``MetricMDNMPrecision``,
  arithmetic mean): per attribute ``(kept * level / height + suppressed) / n``;
  ``precision_monotone`` (``createPrecisionMetric(true)``): ``level / height``.

Every metric also gives a lower bound for a transformation and all its generalisations,
computable without grouping (``bound``): the search skips a node whose bound exceeds the
best loss found.

>>> floor10(0.123456789012345)
0.123456789
"""
from __future__ import annotations

import math

import numpy as np

METRICS = ("loss", "discernibility", "discernibility_star", "entropy", "entropy_monotone",
           "precision", "precision_monotone")

_FACTOR = 10.0 ** 10


def floor10(x: float) -> float:
    """ARX's ``Metric.round``: floor to 10 decimal places."""
    return math.floor(x * _FACTOR) / _FACTOR


def _floor10(x: np.ndarray) -> np.ndarray:
    return np.floor(x * _FACTOR) / _FACTOR


def geometric_mean(values: np.ndarray) -> float:
    """ARX ``ILMultiDimensionalGeometricMean``: ``prod (v + 1)^(1/d) - 1`` (weights 1)."""
    d = len(values)
    r = 1.0
    for v in values:
        r *= math.pow(float(v) + 1.0, 1.0 / d)
    return r - 1.0


def arithmetic_mean(values: np.ndarray) -> float:
    """ARX ``ILMultiDimensionalArithmeticMean`` (weights 1)."""
    d = len(values)
    r = 0.0
    for v in values:
        r += float(v) / d
    return r


def arx_sum(values: np.ndarray) -> float:
    """ARX ``ILMultiDimensionalSum`` (weights 1)."""
    r = 0.0
    for v in values:
        r += float(v)
    return r


class ColumnTables:
    """Per quasi-identifier, per level: the label of each hierarchy row, the share of each label
    and the record count of each label (what every metric needs, computed once)."""

    def __init__(self, gen: list[np.ndarray], n_labels: list[np.ndarray], counts0: list[np.ndarray], n: int,
                 domain: list[int] | None = None):
        self.gen = gen                  # gen[c][j][row] -> label id at level j
        self.n_labels = n_labels        # n_labels[c][j]
        self.counts0 = counts0          # counts0[c][row]: records with original value row
        self.n = n
        self.heights = np.array([g.shape[0] - 1 for g in gen], dtype=np.int64)
        # R: the hierarchy's rows (a null row, code R, is outside it: generalize's _tables)
        self.domain = np.array([g.shape[1] for g in gen] if domain is None else domain, dtype=np.float64)
        self.share: list[list[np.ndarray]] = []     # share of label (hierarchy rows under it / R)
        self.label_counts: list[list[np.ndarray]] = []  # records per label
        self.rows_under: list[list[np.ndarray]] = []  # hierarchy rows under each label (int64)
        self.gen_rows_sum = []          # sum over records of rows under the label (an integer)
        self.entropy = []               # E per level
        for c, g in enumerate(gen):
            R = int(self.domain[c])
            sh, lc, gs, en, ru = [], [], [], [], []
            a = counts0[c].astype(np.float64)
            for j in range(g.shape[0]):
                rows_under = np.bincount(g[j], minlength=int(n_labels[c][j])).astype(np.float64)
                share = rows_under / R
                cnt = np.bincount(g[j], weights=a, minlength=int(n_labels[c][j]))
                sh.append(share)
                lc.append(cnt)
                ru.append(rows_under.astype(np.int64))
                gs.append(int(np.sum(counts0[c].astype(np.int64) * ru[-1][g[j]])))
                nz = a > 0
                b = cnt[g[j]][nz]
                en.append(float(-np.sum(a[nz] * (np.log(a[nz] / b) / math.log(2)))))
            self.share.append(sh)
            self.label_counts.append(lc)
            self.gen_rows_sum.append(gs)
            self.rows_under.append(ru)
            self.entropy.append(np.array(en))


def loss_columns_one(t: ColumnTables, c: int, level: int, out_rows: int, n_out: int) -> float:
    """Column ``c``'s normalised loss (``MetricMDNMLoss``) at ``level`` given the sum over its
    suppressed records of the hierarchy rows under their label (``out_rows``) and their number:
    ``floor10((R x - n) / (n R - n))`` with ``R x`` an integer, floored exactly."""
    n, R = int(t.n), int(t.domain[c])
    num = t.gen_rows_sum[c][level] - int(out_rows) + int(n_out) * R - n
    den = n * R - n
    if den <= 0 or num <= 0:
        return 0.0
    return (num * 10**10 // den) / _FACTOR


def loss_columns(tables: ColumnTables, levels: np.ndarray, out_rows: np.ndarray, n_out: float) -> np.ndarray:
    """Per-column normalised loss (``MetricMDNMLoss``) of a node."""
    return np.array([loss_columns_one(tables, c, int(levels[c]), int(out_rows[c]), int(round(n_out)))
                     for c in range(len(levels))])


class Metric:
    """One ARX quality model: ``value(levels, classes)`` and a cheap ``bound(levels)``."""

    needs_classes = True
    monotone = False  # loss never decreases with generalisation (given the suppression)

    def __init__(self, name: str, tables: ColumnTables):
        if name not in METRICS:
            from .._errors import SDCError

            raise SDCError(f"metric must be one of {', '.join(METRICS)}; got {name!r}")
        self.name = name
        self.t = tables
        self.needs_classes = name in ("loss", "discernibility", "discernibility_star", "entropy", "precision")
        self.monotone = name in ("discernibility_star", "entropy_monotone", "precision_monotone")

    # bounds over a matrix of nodes (rows = level vectors)
    def bound(self, L: np.ndarray) -> np.ndarray:
        """Per node (row of levels): a lower bound of its loss and every generalisation's (the
        exact loss for the metrics that ignore the classes). Column values are tabulated per
        level and combined column by column in ARX's order, so a node without suppression
        gets exactly the value :meth:`value` gives."""
        t, name = self.t, self.name
        N, d = L.shape
        if name == "loss":
            per_level = [np.array([loss_columns_one(t, c, j, 0.0, 0.0) for j in range(t.heights[c] + 1)])
                         for c in range(d)]
            r = np.ones(N)
            for c in range(d):
                r = r * np.power(per_level[c][L[:, c]] + 1.0, 1.0 / d)
            return r - 1.0
        if name in ("entropy", "entropy_monotone"):
            r = np.zeros(N)
            for c in range(d):
                r = r + _floor10(t.entropy[c][L[:, c]])
            return r
        if name in ("precision", "precision_monotone"):
            r = np.zeros(N)
            for c in range(d):
                col = np.zeros(N) if t.heights[c] == 0 else L[:, c] / t.heights[c]
                r = r + col / d
            return r
        # discernibility: sum size^2 >= n^2 / (number of classes) (Cauchy-Schwarz)
        n = float(t.n)
        cells = np.ones(N)
        for c in range(d):
            cells *= t.n_labels[c][L[:, c]]
        return np.maximum(n, n * n / np.minimum(cells, n))

    def value(self, levels: np.ndarray, sizes: np.ndarray, out: np.ndarray, labels,
              parent: np.ndarray | None = None) -> float:
        """The metric for a node with class ``sizes``, outlier flags ``out`` and
        ``labels(c)`` = the label id of each class in column c. ``parent``: when classes are
        split in kept and suppressed records (whole households suppressed), the class of the
        transformation of each part (DM* sums the transformation's classes)."""
        t, name = self.t, self.name
        n = float(t.n)
        d = len(levels)
        n_out = float(sizes[out].sum())
        if name == "discernibility_star":
            whole = sizes if parent is None else np.bincount(parent, weights=sizes)
            return float(np.sum(whole * whole))
        if name == "discernibility":
            kept = sizes[~out]
            return float(np.sum(kept * kept)) + n * n_out
        if name == "precision_monotone":
            return self.bound(levels[None, :])[0]
        if name == "precision":
            if n_out == 0:
                return float(self.bound(levels[None, :])[0])
            # ARX MetricMDNMPrecision: a one-level column's kept records lose 0, its suppressed ones all
            cols = np.array([((n - n_out) * (0.0 if t.heights[c] == 0 else levels[c] / t.heights[c]) + n_out) / n
                             for c in range(d)])
            return arithmetic_mean(cols)
        if name == "entropy_monotone":
            return self.bound(levels[None, :])[0]
        if name == "entropy":
            vals = np.empty(d)
            for c in range(d):
                e = t.entropy[c][levels[c]]
                if n_out > 0:
                    g = labels(c)[out]
                    cg = np.bincount(g, weights=sizes[out])
                    cg = cg[cg > 0]
                    e += float(-np.sum(cg * (np.log(cg / n_out) / math.log(2))))
                vals[c] = floor10(e)
            r = 0.0
            for c in range(d):
                r = r + vals[c]
            return r
        # loss
        if n_out == 0:
            return float(self.bound(levels[None, :])[0])
        out_rows = np.zeros(d, dtype=np.int64)
        for c in range(d):
            under = t.rows_under[c][levels[c]][labels(c)[out]]
            out_rows[c] = int(np.sum(np.rint(sizes[out]).astype(np.int64) * under))
        return geometric_mean(loss_columns(t, levels, out_rows, n_out))
