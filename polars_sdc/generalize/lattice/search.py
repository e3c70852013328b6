"""The exact optimal full-domain search over the generalisation lattice (ARX's problem; its
algorithm FLASH, Kohlmayer et al. 2012, finds the same optimum by a different route).

A node is a vector of levels, one per quasi-identifier. The data are reduced once to their
distinct tuples of hierarchy-row codes (with the sensitive value when l or t is asked) and
their counts; a node's equivalence classes are one grouping of those tuples by the packed
integer key of their generalised labels (:func:`polars_sdc.kernels.lattice.group_keys`).

Search (best-first with monotonicity and bound pruning): the metric gives every node a lower
bound on its loss, valid for the node and all its generalisations, computed without grouping
(:mod:`polars_sdc.generalize.metrics`). Nodes are visited in increasing bound (then height,
then level vector); a node is grouped only if its bound does not exceed the best loss found.
When a node fails the privacy models and they are monotone, all its specialisations are
tagged as failing; when a node passes, all its generalisations are tagged as passing (their
check is skipped; the grouping is still done when the metric needs the classes). For a
monotone metric a passing node's generalisations are skipped entirely. The visit stops when
the next bound exceeds the best loss: every node not visited has a larger loss, every node
visited was decided exactly, so the result is the global optimum (tests compare with a
brute force over the whole lattice). Ties are broken as ARX's FLASH does for these files is
unknown in general; here the tied optimum with the lowest height, then the lexicographically
smallest level vector, wins (all tied optima are reported).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..criteria import Models
from ..metrics import ColumnTables, Metric

#: relative slack when comparing a bound with the best loss (bounds and losses are computed
#: along different floating-point paths; equal values must not prune a tie)
_EPS = 1e-12

MAX_NODES = 5_000_000


@dataclass
class Problem:
    """The data reduced for the search: distinct tuples of hierarchy-row codes."""

    T: np.ndarray              # (m, d) int32: hierarchy row of each QI per distinct tuple
    w: np.ndarray              # (m,) float64 record counts
    s: np.ndarray | None       # (m,) int64 sensitive code per tuple (tuples include it), or None
    q: np.ndarray | None       # (S,) the table's distribution of the sensitive values
    tables: ColumnTables
    n: int

    @property
    def d(self) -> int:
        return self.T.shape[1]


@dataclass
class Classes:
    """The equivalence classes of one node."""

    inv: np.ndarray            # (m,) class of each distinct tuple
    first: np.ndarray          # (classes,) one tuple of each class
    sizes: np.ndarray          # (classes,) float64
    out: np.ndarray            # (classes,) bool: fails the models
    n_out: int


def lattice_nodes(heights: np.ndarray) -> np.ndarray:
    """All level vectors (rows), in mixed-radix order (last column fastest)."""
    total = int(np.prod(heights + 1))
    if total > MAX_NODES:
        from ..._errors import SDCError

        raise SDCError(f"the lattice has {total:,} transformations (more than {MAX_NODES:,}); "
                       "use fewer quasi-identifiers or shorter hierarchies")
    grids = np.indices(tuple(int(h) + 1 for h in heights)).reshape(len(heights), -1).T
    return np.ascontiguousarray(grids, dtype=np.int64)


def group(problem: Problem, levels: np.ndarray, models: Models) -> Classes:
    """The classes of node ``levels`` and which of them fail the models."""
    t = problem.tables
    from ...kernels.lattice import group_keys

    gen = [t.gen[c][levels[c]] for c in range(problem.d)]
    radix = np.array([t.n_labels[c][levels[c]] for c in range(problem.d)], dtype=np.int64)
    inv, first, n_classes = group_keys(problem.T, gen, radix)
    sizes = np.bincount(inv, weights=problem.w, minlength=n_classes)
    if models.needs_sensitive:
        S = problem.q.size
        pk = inv.astype(np.int64) * S + problem.s
        upk, pc = np.unique(pk, return_counts=False), None
        pidx = np.searchsorted(upk, pk)
        pc = np.bincount(pidx, weights=problem.w, minlength=upk.size)
        out = models.outlier_classes(sizes, upk // S, upk % S, pc, problem.q)
    else:
        out = models.outlier_classes(sizes, None, None, None)
    return Classes(inv, first, sizes, out, int(round(sizes[out].sum())))


@dataclass
class SearchResult:
    best: np.ndarray | None
    loss: float
    classes: Classes | None
    ties: list[tuple[int, ...]]
    checked: np.ndarray        # node indices grouped, in visit order
    status: np.ndarray         # per node: 1 passes, -1 fails, 0 not decided
    losses: np.ndarray         # per node: loss if computed, else nan
    bounds: np.ndarray
    nodes: np.ndarray = field(repr=False, default=None)  # type: ignore[assignment]


def _up(L: np.ndarray, lv: np.ndarray) -> np.ndarray:
    """Mask of the generalisations of ``lv`` (itself included)."""
    m = L[:, 0] >= lv[0]
    for c in range(1, L.shape[1]):
        m &= L[:, c] >= lv[c]
    return m


def _down(L: np.ndarray, lv: np.ndarray) -> np.ndarray:
    """Mask of the specialisations of ``lv`` (itself included)."""
    m = L[:, 0] <= lv[0]
    for c in range(1, L.shape[1]):
        m &= L[:, c] <= lv[c]
    return m


class _State:
    """Statuses, cached classes and the visit log of one search."""

    def __init__(self, problem: Problem, models: Models, metric: Metric, max_outliers: int, L: np.ndarray):
        self.problem, self.models, self.metric, self.max_out, self.L = problem, models, metric, max_outliers, L
        self.status = np.zeros(L.shape[0], dtype=np.int8)
        self.losses = np.full(L.shape[0], np.nan)
        self.checked: list[int] = []
        self.cache: dict[int, Classes] = {}
        self.monotone = models.monotone(max_outliers)
        self.dm_bound: np.ndarray | None = None

    def check(self, idx: int) -> Classes:
        """Group node ``idx``, decide it, tag the cone its result decides."""
        L = self.L
        lv = L[idx]
        cls = group(self.problem, lv, self.models)
        self.checked.append(int(idx))
        passes = cls.n_out <= self.max_out
        if self.dm_bound is not None:  # sum size^2 here bounds DM of every generalisation from below
            dstar = float(np.sum(cls.sizes * cls.sizes))
            up = _up(L, lv)
            self.dm_bound[up] = np.maximum(self.dm_bound[up], dstar)
        if self.status[idx] == 0:
            if self.monotone:
                if passes:
                    self.status[_up(L, lv) & (self.status == 0)] = 1
                else:
                    self.status[_down(L, lv) & (self.status == 0)] = -1
            self.status[idx] = 1 if passes else -1
        if passes:
            self.cache[int(idx)] = cls
        return cls


def _frontier(st: _State) -> None:
    """Decide every node of a monotone problem with few checks (FLASH's idea, Kohlmayer et al.
    2012): from each undecided node, in order of height, climb a path of undecided
    successors and binary-search it for its lowest passing node; every check tags its cone."""
    L, status = st.L, st.status
    d = L.shape[1]
    H = st.problem.tables.heights
    radix = np.ones(d, dtype=np.int64)
    for c in range(d - 2, -1, -1):
        radix[c] = radix[c + 1] * (H[c + 1] + 1)
    height = L.sum(axis=1)
    order = np.lexsort(tuple(L[:, c] for c in range(d - 1, -1, -1)) + (height,))
    for start in order:
        if status[start] != 0:
            continue
        path = [int(start)]
        cur = L[start]
        while True:
            nxt = -1
            for c in range(d):
                if cur[c] < H[c]:
                    j = path[-1] + int(radix[c])
                    if status[j] == 0:
                        nxt = j
                        break
            if nxt < 0:
                break
            path.append(nxt)
            cur = L[nxt]
        lo, hi = 0, len(path) - 1
        while lo <= hi:
            mid = (lo + hi) // 2
            idx = path[mid]
            if status[idx] == 0:
                st.check(idx)
            if status[idx] > 0:
                hi = mid - 1
            else:
                lo = mid + 1


def search(problem: Problem, models: Models, metric: Metric, max_outliers: int) -> SearchResult:
    """Find the transformation of least loss whose outliers number at most ``max_outliers``."""
    t = problem.tables
    L = lattice_nodes(t.heights)
    st = _State(problem, models, metric, max_outliers, L)
    static = metric.bound(L)
    dm = metric.name in ("discernibility", "discernibility_star")
    if dm:
        st.dm_bound = static.copy()
    height = L.sum(axis=1)
    if st.monotone:
        _frontier(st)
    status = st.status
    order = np.lexsort(tuple(L[:, c] for c in range(L.shape[1] - 1, -1, -1)) + (height, static))
    dominated = np.zeros(L.shape[0], dtype=bool)
    best_loss = np.inf
    ties: list[int] = []
    # without suppression every passing node keeps all records: the loss is the bound
    exact_bound = (not metric.needs_classes) or (max_outliers == 0 and not dm)

    def slack(x: float) -> float:
        return x + _EPS * max(1.0, abs(x))

    for idx in order:
        if static[idx] > slack(best_loss):
            break
        if status[idx] < 0 or dominated[idx]:
            continue
        if dm and st.dm_bound[idx] > slack(best_loss):
            continue
        if exact_bound and status[idx] > 0:
            value = float(static[idx])
        else:
            cls = st.cache.get(int(idx))
            if cls is None:
                cls = st.check(int(idx))
            if status[idx] < 0:
                continue
            lv = L[idx]
            value = metric.value(lv, cls.sizes, cls.out, lambda c, _cls=cls, _lv=lv:
                                 t.gen[c][_lv[c]][problem.T[_cls.first, c]])
        st.losses[idx] = value
        if metric.monotone:
            above = _up(L, L[idx])
            above[idx] = False
            dominated |= above
        if value < best_loss and not _close(value, best_loss):
            best_loss, ties = value, [int(idx)]
        elif _close(value, best_loss):
            ties.append(int(idx))
    checked = np.array(st.checked, dtype=np.int64)
    if not ties:
        return SearchResult(None, np.nan, None, [], checked, status, st.losses, static, L)
    # the winner among ties: lowest height, then lexicographically smallest levels
    ties_sorted = sorted(ties, key=lambda i: (int(height[i]), tuple(L[i])))
    win = ties_sorted[0]
    cls = st.cache.get(win) or group(problem, L[win], models)
    return SearchResult(L[win].copy(), float(st.losses[win]), cls,
                        [tuple(int(x) for x in L[i]) for i in ties_sorted],
                        checked, status, st.losses, static, L)


def _close(a: float, b: float) -> bool:
    if not np.isfinite(b):
        return False
    return abs(a - b) <= _EPS * max(1.0, abs(a), abs(b))
