"""A stronger post-optimisation than MIL: simulated annealing over k-partitions.

:func:`refine_anneal` starts from MIL's local optimum (:func:`.mil.refine_mil`), anneals
with moves, swaps and group dissolutions / creations between neighbouring groups (kernel
:mod:`polars_sdc.kernels.anneal`), keeps the best partition seen and ends with MIL again,
so the result is a MIL fixed point whose SSE is never above the input's.
"""
from __future__ import annotations

import time
from typing import Any

import numpy as np

from .features import Features
from .mil import EXACT_MAX_GROUPS, _check, _codes, _neighbour_lists, refine_mil

DEFAULT_MAX_ITER = 200_000_000
#: From this many rows on, the defaults are 10^8 steps, 10 neighbour groups and start
#: temperature 1 (a step costs about 0.15 us on census-sized inputs, in cache, but about 1 us
#: at 10^5 rows, and the 100 neighbour-list builds grow with the list length).
LARGE_ROWS = 20_000
DEFAULT_MAX_ITER_LARGE = 100_000_000
DEFAULT_STAGES = 100
#: Changes of SSE within _TOL times the largest squared row norm count as ties: they never
#: decide (the one-hot matrix and its codes round differently, and give the same result).
_TOL = 1e-11


def _slot_neighbours(sums: np.ndarray, counts: np.ndarray, L: int, state: tuple) -> np.ndarray:
    """Neighbour lists (S, L) over the group slots: the L nearest non-empty groups (by
    centroid) of each non-empty slot; rows of empty slots are -1. Up to EXACT_MAX_GROUPS
    groups (and always with nominal codes): exact, ties within the tolerance to the lower
    slot (:func:`polars_sdc.kernels.anneal.slot_neighbours`); beyond, MIL's approximate lists."""
    from ..kernels.anneal import slot_neighbours

    nom, off, mem, mstart, tol = state
    live = np.flatnonzero(counts > 0)
    if nom[0].shape[0] or live.size <= EXACT_MAX_GROUPS:
        return slot_neighbours(sums, counts, nom, off, mem, mstart, int(L), float(tol))
    out = np.full((counts.size, max(1, min(L, live.size - 1))), -1, dtype=np.int64)
    nb = _neighbour_lists(sums[live] / counts[live, None], L)
    out[live] = np.where(nb >= 0, live[np.maximum(nb, 0)], -1)
    return out


def refine_anneal(
    X: np.ndarray | Features,
    labels: Any,
    k: int,
    *,
    max_iter: int | None = None,
    seed: int = 0,
    time_limit: float | None = None,
    stages: int = DEFAULT_STAGES,
    neighbours: int | None = None,
    t_start: float | None = None,
    t_end: float = 0.0005,
    p_swap: float = 0.5,
    p_split: float = 0.02,
    on_stage: Any = None,
) -> np.ndarray:
    """Lower the SSE of the k-partition ``labels`` of the rows of X (n, p) by simulated
    annealing; returns uint32 group ids 0..G'-1 (G' may differ from the input's G: groups
    are dissolved and created). Every group keeps >= k rows; while annealing, groups stay
    within [k, 2k - 1] rows (an optimal k-partition with such sizes always exists,
    Domingo-Ferrer & Mateo-Sanz 2002; a group the input makes larger may only shrink), and
    the final MIL may enlarge a group only where that lowers the SSE. The SSE is never
    above the input's, and the result depends only on the partition (not its id values),
    X and ``seed``. X may be a :class:`~.features.Features` with nominal columns: the
    annealing and its MIL steps work on their codes (no one-hot matrix; the same labels as
    on ``X.dense()`` up to exact ties).

    ``max_iter`` annealing steps in ``stages`` stages; the temperature falls geometrically
    from ``t_start`` to ``t_end`` times the mean squared distance of a row to its group
    centroid (the input's SSE / n after MIL). The neighbour lists (``neighbours`` nearest
    centroids) are rebuilt at each stage. ``time_limit`` (seconds, machine-dependent, off by
    default) stops after the stage that reaches it. ``on_stage(s, stages)``, if given, is
    called after each stage (the microaggregation pipeline's progress bar). Defaults
    (measured on census, see benchmarks/README.md): below ``LARGE_ROWS`` = 20,000 rows
    2 * 10^8 steps, 20 neighbours, ``t_start`` 3; from there on 10^8 steps, 10 neighbours,
    ``t_start`` 1 (the time per step and per list build grows with n).

    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(100, 3))
    >>> from polars_sdc.microagg.mdav import partition_mdav
    >>> from polars_sdc.loss.sse import sse
    >>> lab = partition_mdav(X, 3)
    >>> new = refine_anneal(X, lab, 3, max_iter=100_000)
    >>> bool(sse(X, new) < sse(X, refine_mil(X, lab, 3))), int(np.bincount(new).min()) >= 3
    (True, True)
    """
    F = X if isinstance(X, Features) and X.has_codes else None
    X, k = _check(X.numeric if isinstance(X, Features) else X, k)
    n, p = X.shape
    uniq, codes = _codes(labels, n, k)
    from ..kernels.anneal import anneal_stage, group_sse, level_squares

    small = n < LARGE_ROWS
    if max_iter is None:
        max_iter = DEFAULT_MAX_ITER if small else DEFAULT_MAX_ITER_LARGE
    if neighbours is None:
        neighbours = 20 if small else 10
    if t_start is None:
        t_start = 3.0 if small else 1.0

    Xc = X - X.mean(axis=0)
    if F is None:
        base = refine_mil(Xc, codes, k)  # codes 0..G-1 in, same ids out
        CC, off, gid, gw = np.empty((0, n), np.int32), np.zeros(1, np.int64), np.empty(0, np.int64), np.empty(0)
    else:
        base = refine_mil(F, codes, k)
        CC, off, gid, gw = F.kernel_codes()
        CC = np.ascontiguousarray(CC.T)  # column-major: (m, n)
    G = int(base.max()) + 1 if n else 0
    if G < 2 or k >= n or max_iter <= 0:
        return _compact(base)
    umax = max(2 * k - 1, 1)
    S = max(G, n // k)
    counts0 = np.bincount(base, minlength=S).astype(np.int64)
    mcap = np.maximum(counts0, umax).astype(np.int64)
    mcap[G:] = umax
    mstart = np.concatenate(([0], np.cumsum(mcap)[:-1])).astype(np.int64)
    labels_ = base.astype(np.int64).copy()
    order = np.argsort(labels_, kind="stable")
    mem = np.empty(int(mcap.sum()), dtype=np.int64)
    rank_in_group = np.arange(n) - np.concatenate(([0], np.cumsum(counts0)[:-1]))[labels_[order]]
    mem[mstart[labels_[order]] + rank_in_group] = order
    pos = np.empty(n, dtype=np.int64)
    pos[mem[mstart[labels_[order]] + rank_in_group]] = mstart[labels_[order]] + rank_in_group
    Q = level_squares(CC, labels_, counts0, mem, mstart)
    nom = (CC, gid, gw, Q, np.zeros(max(gw.size, 1), dtype=np.int64))
    tol = _TOL * max(_max_sq_norm(Xc, CC, off, gid, gw), 1e-300)
    counts = counts0.copy()
    sums = np.zeros((S, p))
    np.add.at(sums, labels_, Xc)
    free = np.zeros(S, dtype=np.int64)
    free[: S - G] = np.arange(S - 1, G - 1, -1)
    nfree = np.array([S - G], dtype=np.int64)
    cur = group_sse(Xc, nom, labels_, counts, sums, mem, mstart)
    best, best_labels = cur, labels_.copy()
    scale = max(cur / n, 1e-300)
    t0, t1 = t_start * scale, t_end * scale
    stages = max(1, min(int(stages), int(max_iter)))
    per = int(max_iter) // stages
    clock = time.perf_counter()
    for s in range(stages):
        nbg = _slot_neighbours(sums, counts, neighbours, (nom, off, mem, mstart, tol))
        ta = t0 * (t1 / t0) ** (s / stages)
        tb = t0 * (t1 / t0) ** ((s + 1) / stages)
        anneal_stage(Xc, nom if CC.shape[0] else None, labels_, counts, sums, mem, mstart, mcap, pos, nbg, free, nfree, k, umax, ta, tb, per,
                     (int(seed) * 1_000_003 + s) % (2**31), float(p_swap), float(p_split), tol)
        # exact SSE and sums again (no drift)
        sums[:] = 0.0
        np.add.at(sums, labels_, Xc)
        cur = group_sse(Xc, nom, labels_, counts, sums, mem, mstart)
        if cur < best - tol:  # equal within rounding: the earlier stage (rounding never decides)
            best, best_labels = cur, labels_.copy()
        if on_stage is not None:
            on_stage(s + 1, stages)
        if time_limit is not None and time.perf_counter() - clock > time_limit:
            break
    out = refine_mil(Xc if F is None else F, _compact(best_labels).astype(np.int64), k)
    return _compact(out)


def _max_sq_norm(Xc: np.ndarray, CC: np.ndarray, off: np.ndarray, gid: np.ndarray, gw: np.ndarray) -> float:
    """Largest squared norm of a centred row of the embedding (numeric part plus, per nominal
    column, a_c^2 (1 - 2 f_u + sum_v f_v^2) with the overall level frequencies f)."""
    s = np.einsum("ij,ij->i", Xc, Xc) if Xc.shape[1] else np.zeros(Xc.shape[0])
    for c in range(CC.shape[0]):
        f = np.bincount(CC[c], minlength=int(off[c + 1] - off[c])) / CC.shape[1]
        s = s + gw[gid[c]] * (1.0 - 2.0 * f[CC[c]] + float(f @ f))
    return float(s.max()) if s.size else 0.0


def _compact(labels: np.ndarray) -> np.ndarray:
    """uint32 ids 0..G-1 in order of first appearance."""
    _, first, inv = np.unique(labels, return_index=True, return_inverse=True)
    rank = np.empty(first.size, dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(first.size)
    return rank[inv.ravel()].astype(np.uint32)
