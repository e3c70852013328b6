"""The exact optimal full-domain search over the generalisation lattice (ARX's problem; its
algorithm FLASH, Kohlmayer et al. 2012, finds the same optimum by a different route).

A node is a vector of levels, one per quasi-identifier. The data are reduced once to their
distinct tuples of hierarchy-row codes (with the sensitive value when l or t is asked) and
their counts; a node's equivalence classes are one grouping by the packed integer key of the
generalised labels (:func:`polars_sdc.kernels.lattice.group_node`), of the distinct tuples or,
for k-anonymity, of the classes of a cached specialisation of the node (its classes refine
the node's: "roll-up").

Search (best-first with monotonicity and bound pruning): the metric gives every node a lower
bound on its loss, valid for the node and all its generalisations, computed without grouping
(:mod:`polars_sdc.generalize.metrics`; for discernibility it is raised by DM* of grouped
specialisations). Nodes are visited in increasing bound (then height, then level vector). An
undecided node of a monotone problem (k-anonymity and distinct l-diversity with or without
suppression, t-closeness without) is decided by FLASH's step (Kohlmayer et al. 2012): a path
of undecided successors is climbed from it and binary-searched for its lowest passing node;
every grouped node tags its cone (failing: all specialisations; passing: all
generalisations). t-closeness with suppression is not monotone: each node is grouped. A
passing node is grouped again only when the metric needs its classes (suppression), and for a
monotone metric its generalisations are skipped. The visit stops when the next bound exceeds
the best loss: every node not visited has a larger loss and every node visited was decided
exactly, so the result is the global optimum (tests compare with a brute force over the
whole lattice). Among tied optima ARX keeps the one of lowest height, then the first its
FLASH traversal meets; the traversal is not reproduced (:func:`_tie_key`).
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
    G: np.ndarray | None = None  # (d, max levels, max rows) int64 padded label maps for the kernel
    h: np.ndarray | None = None  # (m,) int64 household of each tuple (tuples include it), or None
    #: a household with a suppressed member is suppressed whole (a quasi-identifier is
    #: household-level: its value would stay visible on the housemates' records)
    whole_households: bool = False

    def __post_init__(self) -> None:
        gen = self.tables.gen
        H = max(g.shape[0] for g in gen)
        R = max(g.shape[1] for g in gen)
        if len(gen) * H * R <= 50_000_000:
            G = np.zeros((len(gen), H, R), dtype=np.int64)
            for c, g in enumerate(gen):
                G[c, : g.shape[0], : g.shape[1]] = g
            self.G = G

    @property
    def d(self) -> int:
        return self.T.shape[1]


@dataclass
class Classes:
    """The equivalence classes of one node."""

    inv: np.ndarray | None     # (m,) class of each distinct tuple (None when rolled up)
    first: np.ndarray          # (classes,) one tuple of each class
    sizes: np.ndarray          # (classes,) float64
    out: np.ndarray            # (classes,) bool: fails the models
    n_out: int
    #: with whole households suppressed, a class of the transformation can be released in part:
    #: it is then split in its kept and its suppressed records, and ``parent`` is the class of the
    #: transformation of each part (None when no class is split)
    parent: np.ndarray | None = None

    def dm_floor(self, star: bool) -> float:
        """A lower bound of DM (``star``: DM*) of this node's every generalisation: the sum of
        squared class sizes; with split classes, for DM, a record of a class with a kept records
        counts a if kept (it stays kept, with them) and a + 1 if suppressed (n when it stays
        suppressed, at least its class with the a kept ones when it is released)."""
        if self.parent is None:
            return float(np.sum(self.sizes * self.sizes))
        whole = np.bincount(self.parent, weights=self.sizes)
        if star:
            return float(np.sum(whole * whole))
        kept = np.bincount(self.parent, weights=np.where(self.out, 0.0, self.sizes), minlength=whole.size)
        return float(np.sum(kept * kept + (whole - kept) * (kept + 1.0)))


def lattice_nodes(heights: np.ndarray) -> np.ndarray:
    """All level vectors (rows), in mixed-radix order (last column fastest)."""
    total = int(np.prod(heights + 1))
    if total > MAX_NODES:
        from ..._errors import SDCError

        raise SDCError(f"the lattice has {total:,} transformations (more than {MAX_NODES:,}); "
                       "use fewer quasi-identifiers or shorter hierarchies")
    grids = np.indices(tuple(int(h) + 1 for h in heights)).reshape(len(heights), -1).T
    return np.ascontiguousarray(grids, dtype=np.int64)


def group(problem: Problem, levels: np.ndarray, models: Models, base: Classes | None = None) -> Classes:
    """The classes of node ``levels`` and which of them fail the models. With ``base`` (the
    classes of a specialisation of the node, which refine the node's), the base's classes are
    grouped instead of the distinct tuples (k-anonymity only: l and t need the tuples). With
    households (``problem.h``) a class also fails when its records come from fewer than k
    distinct households (the tuples hold one household each; no roll-up: a household count is
    not a sum), and with ``problem.whole_households`` a household with a suppressed member is
    suppressed whole (:func:`_whole_households`)."""
    t = problem.tables
    from ...kernels.lattice import group_keys, group_node

    radix = np.array([t.n_labels[c][levels[c]] for c in range(problem.d)], dtype=np.int64)
    if base is not None and not models.needs_sensitive and problem.h is None:
        T, w, rows = problem.T[base.first], base.sizes, base.first
    else:
        T, w, rows = problem.T, problem.w, None
    cells = float(np.prod(radix.astype(np.float64)))
    if problem.G is not None and cells < 2.0**62:
        inv, first, sizes, n_classes = group_node(T, problem.G, levels, radix, w, int(min(cells, 2**40)))
    else:
        gen = [t.gen[c][levels[c]] for c in range(problem.d)]
        inv, first, n_classes = group_keys(T, gen, radix)
        sizes = np.bincount(inv, weights=w, minlength=n_classes)
    s = problem.s if models.needs_sensitive else None
    out = _failing(models, inv, n_classes, sizes, w, s, problem.q, problem.h)
    if problem.whole_households and problem.h is not None and out.any():
        return _whole_households(problem, models, inv, out)
    if rows is not None:
        first, inv = rows[first], None
    return Classes(inv, first, sizes, out, int(round(sizes[out].sum())))


def _failing(models: Models, inv: np.ndarray, n_classes: int, sizes: np.ndarray, w: np.ndarray,
             s: np.ndarray | None, q: np.ndarray | None, h: np.ndarray | None) -> np.ndarray:
    """Per class (``inv``: the class of each tuple, ``w`` its records, ``s`` its sensitive code,
    ``h`` its household): it fails the models (with households, fewer than k distinct ones)."""
    from ...kernels.lattice import dense_ids

    if s is not None and n_classes * q.size <= 4_000_000:
        out = models.outlier_classes_dense(sizes, np.bincount(inv * q.size + s, weights=w,
                                                              minlength=n_classes * q.size
                                                              ).reshape(n_classes, q.size), q)
    elif s is not None:
        S = q.size
        pk = inv * S + s
        pid, pfirst, n_pairs = dense_ids(pk)
        pc = np.bincount(pid, weights=w, minlength=n_pairs)
        upk = pk[pfirst]
        out = models.outlier_classes(sizes, upk // S, upk % S, pc, q)
    else:
        out = models.outlier_classes(sizes, None, None, None)
    if h is not None:   # k distinct households per class: the distinct (class, household) pairs
        hk = inv.astype(np.int64) * (int(h.max()) + 1) + h
        _, hfirst, _ = dense_ids(hk)
        out = out | (np.bincount(inv[hfirst], minlength=n_classes) < models.k)
    return out


def _whole_households(problem: Problem, models: Models, inv: np.ndarray, out: np.ndarray) -> Classes:
    """The least fixed point of: a household with a suppressed member is suppressed whole, and
    the records left of a class are suppressed when they fail the models on their own (fewer
    than k households, l, t). Both steps only add records, so it ends; for k-anonymity and
    distinct l-diversity a generalisation suppresses a subset of the records this node
    suppresses (a class's rest fails whenever a subset of it does), so the problem stays
    monotone. Classes released in part are split in their kept and suppressed records."""
    from ...kernels.lattice import dense_ids

    h, w = problem.h, problem.w
    s = problem.s if models.needs_sensitive else None
    out_t = out[inv]
    hit = np.zeros(int(h.max()) + 1, dtype=bool)
    while True:
        hit[h[out_t]] = True
        grow = hit[h] & ~out_t
        if not grow.any():
            break
        out_t |= grow
        keep = np.flatnonzero(~out_t)
        if keep.size == 0:
            break
        ids, _, n_rest = dense_ids(inv[keep].astype(np.int64))
        rest = np.bincount(ids, weights=w[keep], minlength=n_rest)
        fail = _failing(models, ids, n_rest, rest, w[keep], None if s is None else s[keep], problem.q, h[keep])
        out_t[keep[fail[ids]]] = True
    part, first, n_parts = dense_ids(inv.astype(np.int64) * 2 + out_t)
    sizes = np.bincount(part, weights=w, minlength=n_parts)
    split = out_t[first]
    return Classes(part, first, sizes, split, int(round(sizes[split].sum())), parent=inv[first].astype(np.int64))


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


class _State:
    """Statuses, cached classes (for roll-up) and the visit log of one search."""

    #: classes kept for rolling up (sum of class counts over the cached nodes)
    CACHE_BUDGET = 2_000_000

    def __init__(self, problem: Problem, models: Models, metric: Metric, max_outliers: int, L: np.ndarray):
        self.problem, self.models, self.metric, self.max_out, self.L = problem, models, metric, max_outliers, L
        self.status = np.zeros(L.shape[0], dtype=np.int8)
        self.losses = np.full(L.shape[0], np.nan)
        self.checked: list[int] = []
        self.seen: set[int] = set()
        self.cache: dict[int, Classes] = {}
        self.cached_size = 0
        self.monotone = models.monotone(max_outliers)
        self.dm_bound: np.ndarray | None = None
        self.m = problem.T.shape[0]

    def _base(self, lv: np.ndarray) -> Classes | None:
        """The cached specialisation of ``lv`` with the fewest classes."""
        if self.models.needs_sensitive or self.problem.h is not None or not self.cache:
            return None
        keys = np.fromiter(self.cache, dtype=np.int64, count=len(self.cache))
        below = np.all(self.L[keys] <= lv, axis=1)
        if not below.any():
            return None
        cand = keys[below]
        best = min(cand, key=lambda i: self.cache[int(i)].sizes.size)
        return self.cache[int(best)]

    def classes(self, idx: int) -> Classes:
        """The classes of node ``idx`` (cached, rolled up from a cached specialisation, or grouped)."""
        cls = self.cache.get(int(idx))
        if cls is not None:
            return cls
        lv = self.L[idx]
        cls = group(self.problem, lv, self.models, self._base(lv))
        if int(idx) not in self.seen:  # a node not cached (no fewer classes than tuples) may be grouped again
            self.seen.add(int(idx))
            self.checked.append(int(idx))
        if cls.sizes.size < self.m:
            self.cache[int(idx)] = cls
            self.cached_size += cls.sizes.size
            while self.cached_size > self.CACHE_BUDGET and self.cache:
                old = next(iter(self.cache))
                self.cached_size -= self.cache.pop(old).sizes.size
        return cls

    def check(self, idx: int) -> Classes:
        """Group node ``idx``, decide it, tag the cone its result decides."""
        from ...kernels.lattice import raise_bound, tag_cone

        L = self.L
        lv = L[idx]
        cls = self.classes(idx)
        passes = cls.n_out <= self.max_out
        if self.dm_bound is not None:  # sum size^2 here bounds DM of every generalisation from below
            raise_bound(L, lv, self.dm_bound, cls.dm_floor(self.metric.name == "discernibility_star"))
        if self.status[idx] == 0:
            if self.monotone:
                tag_cone(L, lv, self.status, 1 if passes else -1, passes)
            self.status[idx] = 1 if passes else -1
        return cls

    def climb(self, start: int) -> None:
        """Decide ``start`` of a monotone problem (FLASH's idea, Kohlmayer et al. 2012): climb a
        path of undecided successors from it and binary-search the path for its lowest passing
        node; every check tags its cone, so the whole path gets decided."""
        L, status = self.L, self.status
        H = self.problem.tables.heights
        d = L.shape[1]
        radix = np.ones(d, dtype=np.int64)
        for c in range(d - 2, -1, -1):
            radix[c] = radix[c + 1] * (H[c + 1] + 1)
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
                self.check(idx)
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
    status = st.status
    order = np.lexsort(tuple(L[:, c] for c in range(L.shape[1] - 1, -1, -1)) + (height, static))
    dominated = np.zeros(L.shape[0], dtype=bool)
    best_loss = np.inf
    ties: list[int] = []
    # without suppression every passing node keeps all records: the loss is the bound
    exact_bound = (not metric.needs_classes) or (max_outliers == 0 and not dm)

    def slack(x: float) -> float:
        return x + _EPS * max(1.0, abs(x))

    limit = np.inf  # slack(best_loss), kept in step with it
    for idx in order:
        if static[idx] > limit:
            break
        if status[idx] < 0 or dominated[idx]:
            continue
        if dm and st.dm_bound[idx] > limit:
            continue
        if status[idx] == 0:
            if st.monotone:
                st.climb(int(idx))
            else:
                st.check(int(idx))
            if status[idx] < 0:
                continue
            if dm and st.dm_bound[idx] > limit:
                continue
        if exact_bound:
            value = float(static[idx])
        else:
            cls = st.classes(int(idx))
            lv = L[idx]
            value = metric.value(lv, cls.sizes, cls.out, lambda c, _cls=cls, _lv=lv:
                                 t.gen[c][_lv[c]][problem.T[_cls.first, c]], parent=cls.parent)
        st.losses[idx] = value
        if metric.monotone:
            from ...kernels.lattice import tag_cone

            mark = np.zeros(L.shape[0], dtype=np.int8)
            tag_cone(L, L[idx], mark, 1, True)
            mark[idx] = 0
            dominated |= mark > 0
        if value < best_loss and not _close(value, best_loss):
            best_loss, ties = value, [int(idx)]
            limit = slack(best_loss)
        elif _close(value, best_loss):
            ties.append(int(idx))
    checked = np.array(st.checked, dtype=np.int64)
    if not ties:
        return SearchResult(None, np.nan, None, [], checked, status, st.losses, static, L)
    ties_sorted = sorted(ties, key=lambda i: _tie_key(t, L[i]))
    win = ties_sorted[0]
    cls = group(problem, L[win], models)  # from the tuples: the release needs each tuple's class
    return SearchResult(L[win].copy(), float(st.losses[win]), cls,
                        [tuple(int(x) for x in L[i]) for i in ties_sorted],
                        checked, status, st.losses, static, L)


def _tie_key(t: ColumnTables, lv: np.ndarray) -> tuple:
    """Order of tied optima: ARX keeps the tied optimum of lowest height
    (``AbstractAlgorithm.trackOptimum``) and, among equal heights, the first its FLASH traversal
    meets; that traversal is not reproduced: equal heights are ordered by the level vector read
    from the last column, highest level first (a fixed order that picks ARX's optimum in 4 of
    the 6 same-height ties of the Adult reference runs; the tests check that ARX's optimum is
    always among the reported ties)."""
    return (int(lv.sum()), tuple(-int(x) for x in lv[::-1]))


def _close(a: float, b: float) -> bool:
    if not np.isfinite(b):
        return False
    return abs(a - b) <= _EPS * max(1.0, abs(a), abs(b))
