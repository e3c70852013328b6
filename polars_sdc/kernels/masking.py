"""Numba kernels of the masking methods: the per-row generator of :mod:`polars_sdc.rng` in one
pass (bit-identical to ``rng.uniform``), PRAM's alias tables and rank swapping."""
from __future__ import annotations

import numpy as np
from numba import njit, uint64

from .. import rng

_G = rng.GOLDEN
# the row mixer and the bits -> (0, 1) map of polars_sdc.rng, compiled: one definition, same bits
_mix = njit(cache=True, inline="always")(rng.mix)
_unit = njit(cache=True, inline="always")(rng.unit)


@njit(cache=True)
def uniform(keys, h):
    """``rng.uniform`` for stream hash ``h``: ``mix(mix(key * G + h) ^ h)`` -> (0, 1).

    Parameters
    ----------
    keys : uint64 (n,)
        Row keys (positions or a key column's hashes).
    h : uint64
        The stream's hash (``rng.stream``).

    Notes
    -----
    The same numbers as ``polars_sdc.rng.uniform`` (one row mixer, rng.py), so Spark, lazy and
    eager runs agree.
    """
    n = keys.shape[0]
    out = np.empty(n)
    for i in range(n):
        out[i] = _unit(_mix(_mix(keys[i] * _G + h) ^ h))
    return out


@njit(cache=True)
def alias_tables(M):
    """Walker's alias tables of each row of the row-stochastic ``M`` (G, L): ``(prob, alias)``
    such that ``j = floor(u L)``, released ``j`` if ``frac(u L) < prob[r, j]`` else ``alias[r, j]``
    draws from row ``r`` exactly (up to rounding).

    Parameters
    ----------
    M : float64 (G, L)
        Row-stochastic matrices stacked (one row per stratum and category).

    Notes
    -----
    Walker's alias method (Walker 1977), for PRAM (sdcMicro ``pram``); O(G L).
    """
    G, L = M.shape
    prob = np.ones((G, L))
    alias = np.empty((G, L), dtype=np.int64)
    small = np.empty(L, dtype=np.int64)
    large = np.empty(L, dtype=np.int64)
    for r in range(G):
        q = M[r] * L
        ns = np.int64(0)
        nl = np.int64(0)
        for j in range(L):
            alias[r, j] = j
            if q[j] < 1.0:
                small[ns] = j
                ns += 1
            else:
                large[nl] = j
                nl += 1
        while ns > 0 and nl > 0:
            ns -= 1
            s = small[ns]
            g = large[nl - 1]
            prob[r, s] = q[s]
            alias[r, s] = g
            q[g] = q[g] + q[s] - 1.0
            if q[g] < 1.0:
                nl -= 1
                small[ns] = g
                ns += 1
        for t in range(nl):
            prob[r, large[t]] = 1.0
        for t in range(ns):
            prob[r, small[t]] = 1.0
    return prob, alias


@njit(cache=True)
def rank_swap_partners(keys, h, lo, hi, w, max_tries):
    """Rank swapping (Moore 1996) on values already in rank order within segments (strata):
    in segment ``s`` (ranks ``lo[s] .. hi[s] - 1``), walking up the ranks, each value not yet
    swapped is swapped with a value chosen uniformly among the not yet swapped ones of ranks
    ``j+1 .. j+w[s]`` of the same segment; every value is swapped at most once. The choice for
    rank ``j`` uses the 64-bit stream of its row key ``keys[j]`` (``rng.bits`` of hash ``h``,
    then SplitMix steps): rejection sampling up to ``max_tries`` draws, then an exact pick
    among the free ranks. Returns ``partner`` over all ``n`` ranks (``partner[j] == j``: not
    swapped, e.g. outside every segment).

    Parameters
    ----------
    keys : uint64 (n,)
        Row key of each rank.
    h : uint64
        The stream's hash.
    lo, hi : int arrays (S,)
        Rank bounds of each segment.
    w : int array (S,)
        Window per segment (partners within ``w`` ranks).
    max_tries : int
        Rejection draws before the exact pick.

    Notes
    -----
    Moore 1996; sdcMicro ``rankSwap``'s window rule is the caller's ``w``; O(n (max_tries + w)) at worst.
    Allocates with ``np.empty`` only (no ``np.arange`` / ``np.zeros``: each compiles apart).
    """
    n = keys.shape[0]
    partner = np.empty(n, dtype=np.int64)
    taken = np.empty(n, dtype=np.bool_)
    for j in range(n):
        partner[j] = j
        taken[j] = False
    for s in range(lo.shape[0]):
        last = hi[s] - 1
        ws = w[s]
        for j in range(lo[s], hi[s]):
            if taken[j]:
                continue
            top = last if last < j + ws else j + ws
            span = top - j
            if span <= 0:
                continue
            z = _mix(_mix(keys[j] * _G + h) ^ h)
            found = np.int64(-1)
            for _ in range(max_tries):
                k = np.int64(_unit(z) * span)  # truncation: int() of a value >= 0
                k = j + 1 + (k if k < span - 1 else span - 1)
                if not taken[k]:
                    found = k
                    break
                z = _mix(z + _G)
            if found < 0:
                free = np.int64(0)
                for k in range(j + 1, top + 1):
                    if not taken[k]:
                        free += 1
                if free == 0:
                    continue
                pick = np.int64(_unit(z) * free)
                if pick > free - 1:
                    pick = free - 1
                for k in range(j + 1, top + 1):
                    if not taken[k]:
                        if pick == 0:
                            found = k
                            break
                        pick -= 1
            taken[j] = True
            taken[found] = True
            partner[j] = found
            partner[found] = j
    return partner


@njit(cache=True)
def alias_draw(codes, sidx, prob, alias, L, u):
    """PRAM's per-row draw in one pass (the same arithmetic as the numpy version in
    ``masking/pram.py``): row ``r = sidx * L + code``, ``x = u L``, ``j = min(floor(x), L - 1)``,
    released ``j`` if ``x - j < prob[r, j]`` else ``alias[r, j]``; a null (-1) stays -1.

    Parameters
    ----------
    codes : int array (n,)
        Category code per row (-1: null).
    sidx : int array (n,)
        Stratum per row.
    prob, alias : arrays (G L, L)
        The alias tables of :func:`alias_tables`.
    L : int
        Number of categories.
    u : float64 (n,)
        The rows' uniforms.

    Notes
    -----
    PRAM (sdcMicro ``pram``); O(n).
    """
    n = codes.shape[0]
    out = np.empty(n, dtype=np.int64)
    for i in range(n):
        c = codes[i]
        if c < 0:
            out[i] = -1
            continue
        r = sidx[i] * L + c
        x = u[i] * L
        j = min(np.int64(x), L - 1)
        out[i] = j if x - j < prob[r, j] else alias[r, j]
    return out


@njit(cache=True, nogil=True)
def normal(keys, h1, h2, out):
    """``rng.normal`` in one pass, into ``out`` (any 1-d view, e.g. a column of a column-major
    matrix): Box-Muller on the uniforms of the sub-streams ``h1`` (radius) and ``h2`` (angle);
    equal to the numpy version up to the last bit of ``log``/``cos``. Releases the GIL, so
    several columns can be drawn on Python threads (no OpenMP: fork-safe).

    Parameters
    ----------
    keys : uint64 (n,)
        Row keys.
    h1, h2 : uint64
        The sub-streams' hashes.
    out : float64 (n,)
        Filled in place.

    Notes
    -----
    Box & Muller 1958 on ``polars_sdc.rng``'s uniforms (add_noise, sdcMicro ``addNoise``).
    """
    n = keys.shape[0]
    for i in range(n):
        u1 = _unit(_mix(_mix(keys[i] * _G + h1) ^ h1))
        u2 = _unit(_mix(_mix(keys[i] * _G + h2) ^ h2))
        out[i] = np.sqrt(-2.0 * np.log(u1)) * np.cos(2.0 * np.pi * u2)
    return out


@njit(cache=True)
def radix_sort_by(u, perm):
    """``perm`` stably reordered by ``u[perm]`` (uint64 sort keys): an LSD radix sort with
    11-bit digits, digits on which every key agrees skipped. ``radix_sort_by(u, arange(n))`` is
    a stable argsort of ``u``; sorting by the keys of lower priority first gives ``np.lexsort``.

    Parameters
    ----------
    u : uint64 (n,)
        Sort keys.
    perm : int64 (m,)
        The permutation to reorder (not changed: a reordered copy is returned).

    Notes
    -----
    LSD radix sort; O(m) per 11-bit digit.
    """
    n = perm.shape[0]
    nd = 6
    hist = np.zeros((nd, 2048), dtype=np.int64)
    for i in range(n):
        v = u[perm[i]]
        for d in range(nd):
            hist[d, (v >> uint64(11 * d)) & uint64(2047)] += 1
    a = perm.copy()
    keys = np.empty(n, dtype=np.uint64)
    for i in range(n):
        keys[i] = u[a[i]]
    b = np.empty_like(a)
    kb = np.empty_like(keys)
    for d in range(nd):
        h = hist[d]
        skip = False
        for j in range(2048):
            if h[j] == n:
                skip = True
                break
            if h[j] != 0:
                break
        if skip or n == 0:
            continue
        off = np.empty(2048, dtype=np.int64)
        s = np.int64(0)
        for j in range(2048):
            off[j] = s
            s += h[j]
        sh = uint64(11 * d)
        for i in range(n):
            v = keys[i]
            dg = (v >> sh) & uint64(2047)
            p = off[dg]
            off[dg] = p + 1
            kb[p] = v
            b[p] = a[i]
        a, b = b, a
        keys, kb = kb, keys
    return a


@njit(cache=True)
def apply_swap(x, order, partner, out):
    """``out[order[j]] = x[order[partner[j]]]``: the swapped values back in row order.

    Parameters
    ----------
    x : array (n,)
        Values in row order.
    order : int array (n,)
        Row of each rank.
    partner : int array (n,)
        Partner rank of each rank (:func:`rank_swap_partners`).
    out : array (n,)
        Filled in place.

    Notes
    -----
    O(n).
    """
    for j in range(order.shape[0]):
        out[order[j]] = x[order[partner[j]]]
    return out
