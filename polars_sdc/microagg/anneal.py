"""A stronger post-optimisation than MIL: simulated annealing over k-partitions.

:func:`refine_anneal` starts from MIL's local optimum (:func:`.mil.refine_mil`), anneals
with moves, swaps and group dissolutions / creations between neighbouring groups (kernel
:mod:`polars_sdc.kernels.anneal`), keeps the best partition seen and ends with MIL again,
so the result is a MIL fixed point whose SSE is never above the input's.
"""
from __future__ import annotations

import inspect
import os
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from .._errors import SDCError
from .._signature import check_keywords
from .._validation import check_int, check_named, check_real
from .features import Features
from .mil import EXACT_MAX_GROUPS, _check, _codes, _neighbour_lists, _nominal_centroids, refine_mil

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
#: Offset between the random streams of two chains (chain 0 keeps a one-chain run's stream).
_CHAIN_STREAM = 7_777_777
MAX_CHAINS = 64


def _slot_neighbours(sums: np.ndarray, counts: np.ndarray, L: int, state: tuple, F: Features | None = None,
                     labels: np.ndarray | None = None) -> np.ndarray:
    """Neighbour lists (S, L) over the group slots: the L nearest non-empty groups (by
    centroid) of each non-empty slot; rows of empty slots are -1. Up to EXACT_MAX_GROUPS
    groups: exact, ties within the tolerance to the lower slot
    (:func:`polars_sdc.kernels.anneal.slot_neighbours`, from the codes when ``F`` has nominal
    columns); beyond, MIL's approximate lists (with nominal columns on MIL's centroid
    embedding of the codes, :func:`.mil._nominal_centroids`)."""
    from ..kernels.anneal import slot_neighbours

    nom, off, mem, mstart, tol = state
    live = np.flatnonzero(counts > 0)
    if live.size <= EXACT_MAX_GROUPS:
        return slot_neighbours(sums, counts, nom, off, mem, mstart, int(L), float(tol))
    out = np.full((counts.size, max(1, min(L, live.size - 1))), -1, dtype=np.int64)
    C = sums[live] / counts[live, None]
    if F is not None:
        slot_rank = np.full(counts.size, -1, dtype=np.int64)
        slot_rank[live] = np.arange(live.size)
        C = np.hstack((C, _nominal_centroids(F, slot_rank[labels], counts[live])))
    nb = _neighbour_lists(C, L)
    out[live] = np.where(nb >= 0, live[np.maximum(nb, 0)], -1)
    return out


@check_keywords
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
    chains: int | None = None,
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
    called after each stage (the microaggregation pipeline's progress bar).

    ``chains`` independent chains (each ``max_iter`` steps, its own random stream; chain 0
    is the one-chain run) anneal from the same start, in up to ``chains`` threads; the best
    partition any of them reaches is kept. The result does not depend on the thread count;
    CPU time grows with ``chains``, wall time only beyond the cores. Defaults (measured on
    census, see benchmarks/README.md): below ``LARGE_ROWS`` = 20,000 rows 2 * 10^8 steps,
    20 neighbours, ``t_start`` 3, 2 chains (a longer chain does not help: at k = 10,
    4 * 10^8 steps gave no lower SSE than 2 * 10^8, while the better of two chains did);
    from there on 10^8 steps, 10 neighbours, ``t_start`` 1, one chain (the time per step and
    per list build grows with n).

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
    max_iter, seed, time_limit, stages, neighbours, t_start, t_end, p_swap, p_split, chains = check_anneal_options(
        {"max_iter": max_iter, "seed": seed, "time_limit": time_limit, "stages": stages, "neighbours": neighbours,
         "t_start": t_start, "t_end": t_end, "p_swap": p_swap, "p_split": p_split, "chains": chains}
    ).values()
    small = n < LARGE_ROWS
    if max_iter is None:
        max_iter = DEFAULT_MAX_ITER if small else DEFAULT_MAX_ITER_LARGE
    if neighbours is None:
        neighbours = 20 if small else 10
    if t_start is None:
        t_start = 3.0 if small else 1.0
    if chains is None:
        chains = 2 if small else 1

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
    tol = _TOL * max(_max_sq_norm(Xc, CC, off, gid, gw), 1e-300)
    runs = [_Chain(Xc, base, (CC, gid, gw), counts0, mcap, mstart, S, G, F) for _ in range(chains)]
    best, best_labels = runs[0].sse, runs[0].labels.copy()
    scale = max(best / n, 1e-300)
    t0, t1 = t_start * scale, t_end * scale
    stages = max(1, min(int(stages), int(max_iter)))
    per = int(max_iter) // stages
    steps = (neighbours, off, tol, k, umax, per, float(p_swap), float(p_split))
    pool = ThreadPoolExecutor(min(chains, os.cpu_count() or 1)) if chains > 1 else None
    clock = time.perf_counter()
    try:
        for s in range(stages):
            temps = (t0 * (t1 / t0) ** (s / stages), t0 * (t1 / t0) ** ((s + 1) / stages))
            # chain c's stream for stage s (chain 0: the stream of a one-chain run)
            seeds = [(int(seed) * 1_000_003 + s + _CHAIN_STREAM * c) % (2**31) for c in range(chains)]
            if pool is None:
                runs[0].stage(Xc, steps, temps, seeds[0])
            else:
                list(pool.map(lambda cs: cs[0].stage(Xc, steps, temps, cs[1]), zip(runs, seeds)))
            for run in runs:  # the lowest chain wins ties; equal within rounding: the earlier stage
                if run.sse < best - tol:
                    best, best_labels = run.sse, run.labels.copy()
            if on_stage is not None:
                on_stage(s + 1, stages)
            if time_limit is not None and time.perf_counter() - clock > time_limit:
                break
    finally:
        if pool is not None:
            pool.shutdown()
    out = refine_mil(Xc if F is None else F, _compact(best_labels).astype(np.int64), k)
    return _compact(out)


class _Chain:
    """One annealing chain's state over S group slots (layout: :mod:`polars_sdc.kernels.anneal`),
    started from the partition ``base`` (ids 0..G-1); the codes ``nominal = (CC, gid, gw)``
    (and ``F``, their :class:`~.features.Features`, or None) are shared read-only, the level
    squares Q and the scratch are the chain's own."""

    def __init__(self, Xc, base, nominal, counts0, mcap, mstart, S, G, F):
        from ..kernels.anneal import group_sse, level_squares

        n, p = Xc.shape
        CC, gid, gw = nominal
        self.mcap, self.mstart, self.F = mcap, mstart, F
        self.labels = base.astype(np.int64).copy()
        order = np.argsort(self.labels, kind="stable")
        rank_in_group = np.arange(n) - np.concatenate(([0], np.cumsum(counts0)[:-1]))[self.labels[order]]
        place = mstart[self.labels[order]] + rank_in_group
        self.mem = np.empty(int(mcap.sum()), dtype=np.int64)
        self.mem[place] = order
        self.pos = np.empty(n, dtype=np.int64)
        self.pos[order] = place
        self.counts = counts0.copy()
        if CC.shape[0]:
            Q = level_squares(CC, self.labels, self.counts, self.mem, mstart)
            self.nom = (CC, gid, gw, Q, np.zeros(max(gw.size, 1), dtype=np.int64))
        else:  # numeric only: the kernels' specialisations without the nominal code
            self.nom = None
        self.sums = np.zeros((S, p))
        np.add.at(self.sums, self.labels, Xc)
        self.free = np.zeros(S, dtype=np.int64)
        self.free[: S - G] = np.arange(S - 1, G - 1, -1)
        self.nfree = np.array([S - G], dtype=np.int64)
        self.sse = group_sse(Xc, self.nom, self.labels, self.counts, self.sums, self.mem, mstart)

    def stage(self, Xc, steps, temps, seed):
        """Neighbour lists, then ``per`` steps from temperature temps[0] to temps[1]; then the
        exact sums and SSE again (no drift)."""
        from ..kernels.anneal import anneal_stage, group_sse

        neighbours, off, tol, k, umax, per, p_swap, p_split = steps
        nbg = _slot_neighbours(self.sums, self.counts, neighbours, (self.nom, off, self.mem, self.mstart, tol), self.F, self.labels)
        anneal_stage(Xc, self.nom, self.labels, self.counts, self.sums, self.mem, self.mstart, self.mcap, self.pos, nbg,
                     self.free, self.nfree, k, umax, temps[0], temps[1], per, seed, p_swap, p_split, tol)
        self.sums[:] = 0.0
        np.add.at(self.sums, self.labels, Xc)
        self.sse = group_sse(Xc, self.nom, self.labels, self.counts, self.sums, self.mem, self.mstart)


#: The annealing's options: a check per name (returns the clean value; None: the
#: size-dependent default)
ANNEAL_OPTION_CHECKS = {
    "max_iter": lambda v: None if v is None else check_int(v, "max_iter", minimum=0),
    "seed": lambda v: check_int(v, "seed", minimum=0),
    "time_limit": lambda v: None if v is None else check_real(v, "time_limit", minimum=0),
    "stages": lambda v: check_int(v, "stages", minimum=1),
    "neighbours": lambda v: None if v is None else check_int(v, "neighbours", minimum=1),
    "t_start": lambda v: None if v is None else check_real(v, "t_start", minimum=0, low_open=True),
    "t_end": lambda v: check_real(v, "t_end", minimum=0, low_open=True),
    "p_swap": lambda v: check_real(v, "p_swap", minimum=0, maximum=1),
    "p_split": lambda v: check_real(v, "p_split", minimum=0, maximum=1),
    "chains": lambda v: None if v is None else check_int(v, "chains", minimum=1, maximum=MAX_CHAINS),
}


def check_anneal_options(options: Any) -> dict[str, Any]:
    """:func:`refine_anneal`'s keyword options checked by name (the pipeline checks
    ``refine_options`` with it when a plan is built).

    >>> check_anneal_options({"chains": 2, "p_swap": 0.9, "p_split": 0.2})
    Traceback (most recent call last):
    ...
    polars_sdc._errors.SDCError: p_swap + p_split must be <= 1, got 0.9 + 0.2
    """
    out = check_named(options, ANNEAL_OPTION_CHECKS)
    swap = out.get("p_swap", _DEFAULTS["p_swap"])
    split = out.get("p_split", _DEFAULTS["p_split"])
    if swap + split > 1:
        raise SDCError(f"p_swap + p_split must be <= 1, got {swap} + {split}")
    return out


def _max_sq_norm(Xc: np.ndarray, CC: np.ndarray, off: np.ndarray, gid: np.ndarray, gw: np.ndarray) -> float:
    """Largest squared norm of a centred row of the embedding (numeric part plus, per nominal
    column, a_c^2 (1 - 2 f_u + sum_v f_v^2) with the overall level frequencies f)."""
    s = np.einsum("ij,ij->i", Xc, Xc) if Xc.shape[1] else np.zeros(Xc.shape[0])
    for c in range(CC.shape[0]):
        f = np.bincount(CC[c], minlength=int(off[c + 1] - off[c])) / CC.shape[1]
        s = s + gw[gid[c]] * (1.0 - 2.0 * f[CC[c]] + float(f @ f))
    return float(s.max()) if s.size else 0.0


_DEFAULTS = {name: prm.default for name, prm in inspect.signature(refine_anneal).parameters.items()}


def _compact(labels: np.ndarray) -> np.ndarray:
    """uint32 ids 0..G-1 in order of first appearance."""
    _, first, inv = np.unique(labels, return_index=True, return_inverse=True)
    rank = np.empty(first.size, dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(first.size)
    return rank[inv.ravel()].astype(np.uint32)
