"""Simulated annealing over k-partitions (the kernel of :mod:`polars_sdc.microagg.anneal`).

State: ``labels`` (n,), per-group ``counts`` and ``sums`` (S, p) over S group slots (empty
slots are free), and per-group member lists ``mem[mstart[g] : mstart[g] + counts[g]]`` with
``pos[i]`` the place of row i (capacity ``mcap[g]``). Every SSE change is exact, from
SSE = sum |x|^2 - n |c|^2 (thesis eq. 4.9 for one row in or out):
- move row i from a to b: n_b/(n_b+1) |x_i - c_b|^2 - n_a/(n_a-1) |x_i - c_a|^2;
- swap i (in a) and j (in b): |x_j - c_a|^2 - |x_i - c_a|^2 + |x_i - c_b|^2 - |x_j - c_b|^2
  - |x_i - x_j|^2 (1/n_a + 1/n_b);
- dissolve a group (its rows join neighbouring groups one by one) or create one (k rows
  taken from a group and its neighbours): sums of the one-row terms, applied in order.
Groups keep between k and ``umax`` rows (a group that starts larger may only shrink).
Random numbers come from Numba's generator, seeded by the caller for each stage.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ._common import sq_dist_rows


@njit(cache=True, inline="always")
def _d2c(X, i, sums, g, cnt):
    """|x_i - c_g|^2 with c_g = sums[g] / cnt."""
    s = 0.0
    inv = 1.0 / cnt
    for j in range(X.shape[1]):
        d = X[i, j] - sums[g, j] * inv
        s += d * d
    return s


@njit(cache=True)
def _remove(X, i, a, labels, counts, sums, mem, mstart, pos):
    last = mem[mstart[a] + counts[a] - 1]
    mem[pos[i]] = last
    pos[last] = pos[i]
    counts[a] -= 1
    if counts[a] == 0:
        for j in range(X.shape[1]):
            sums[a, j] = 0.0
    else:
        for j in range(X.shape[1]):
            sums[a, j] -= X[i, j]


@njit(cache=True)
def _add(X, i, b, labels, counts, sums, mem, mstart, pos):
    t = mstart[b] + counts[b]
    mem[t] = i
    pos[i] = t
    counts[b] += 1
    labels[i] = b
    for j in range(X.shape[1]):
        sums[b, j] += X[i, j]


@njit(cache=True)
def group_sse(X, labels, counts, sums):
    """Total SSE of the state, recomputed from the rows."""
    s = 0.0
    for i in range(X.shape[0]):
        s += _d2c(X, i, sums, labels[i], counts[labels[i]])
    return s


@njit(cache=True)
def anneal_stage(X, labels, counts, sums, mem, mstart, mcap, pos, nbg, free, nfree, k, umax, t0, t1, iters, seed, p_swap, p_split):
    """``iters`` annealing steps at temperatures falling geometrically from t0 to t1.

    Each step proposes, with probability ``p_split`` a dissolution or (equally often) a
    creation of a group, else with probability ``p_swap`` a swap and otherwise a move, to a
    group among the neighbours ``nbg[a]`` of the row's group a; the proposal is accepted
    when it lowers SSE or with probability exp(-change / T) (Metropolis). ``free[:nfree[0]]``
    holds the empty slots. Returns the sum of the accepted changes.
    """
    np.random.seed(seed)
    n, p = X.shape
    L = nbg.shape[1]
    total = 0.0
    ratio = (t1 / t0) ** (1.0 / max(iters - 1, 1))
    T = t0
    dest = np.empty(umax + 1, dtype=np.int64)
    rows = np.empty(umax + 1, dtype=np.int64)
    cand_row = np.empty((L + 1) * max(umax, mcap.max()), dtype=np.int64)
    for it in range(iters):
        T *= ratio if it > 0 else 1.0
        u = np.random.random()
        i = np.random.randint(0, n)
        a = labels[i]
        na = counts[a]
        if u < p_split:
            if u < 0.5 * p_split:
                # dissolve group a: each row joins the neighbour group that costs least
                if na > umax:
                    continue
                sse_a = 0.0
                for t in range(na):
                    rows[t] = mem[mstart[a] + t]
                    sse_a += _d2c(X, rows[t], sums, a, na)
                delta = -sse_a
                ok = True
                for t in range(na):
                    r = rows[t]
                    _remove(X, r, a, labels, counts, sums, mem, mstart, pos)
                    best = np.inf
                    bb = -1
                    for s in range(L):
                        b = nbg[a, s]
                        if b < 0 or b == a or counts[b] == 0 or counts[b] >= min(mcap[b], umax):
                            continue
                        c = counts[b] / (counts[b] + 1.0) * _d2c(X, r, sums, b, counts[b])
                        if c < best:
                            best = c
                            bb = b
                    if bb < 0:
                        _add(X, r, a, labels, counts, sums, mem, mstart, pos)
                        ok = False
                        # undo the rows already placed
                        for q in range(t):
                            r2 = rows[q]
                            _remove(X, r2, dest[q], labels, counts, sums, mem, mstart, pos)
                            _add(X, r2, a, labels, counts, sums, mem, mstart, pos)
                        break
                    dest[t] = bb
                    delta += best
                    _add(X, r, bb, labels, counts, sums, mem, mstart, pos)
                if not ok:
                    continue
                if delta < 0.0 or np.random.random() < np.exp(-delta / T):
                    total += delta
                    free[nfree[0]] = a
                    nfree[0] += 1
                else:
                    for q in range(na - 1, -1, -1):
                        r2 = rows[q]
                        _remove(X, r2, dest[q], labels, counts, sums, mem, mstart, pos)
                        _add(X, r2, a, labels, counts, sums, mem, mstart, pos)
            else:
                # create a group in a free slot: row i, then k - 1 times the row nearest the
                # new group's centroid among a's and its neighbours' rows whose group keeps >= k
                if nfree[0] == 0 or na <= k:
                    continue
                g = free[nfree[0] - 1]
                if mcap[g] < k:
                    continue
                nc = 0
                for t in range(na):
                    cand_row[nc] = mem[mstart[a] + t]
                    nc += 1
                for s in range(L):
                    b = nbg[a, s]
                    if b < 0 or b == a or counts[b] == 0:
                        continue
                    for t in range(counts[b]):
                        cand_row[nc] = mem[mstart[b] + t]
                        nc += 1
                delta = -na / (na - 1.0) * _d2c(X, i, sums, a, na)
                rows[0] = i
                dest[0] = a
                _remove(X, i, a, labels, counts, sums, mem, mstart, pos)
                _add(X, i, g, labels, counts, sums, mem, mstart, pos)
                got = 1
                while got < k:
                    best = np.inf
                    br = -1
                    for t in range(nc):
                        r = cand_row[t]
                        h = labels[r]
                        if h == g or counts[h] <= k:
                            continue
                        d = _d2c(X, r, sums, g, counts[g])
                        if d < best:
                            best = d
                            br = r
                    if br < 0:
                        break
                    h = labels[br]
                    nh = counts[h]
                    delta += counts[g] / (counts[g] + 1.0) * best - nh / (nh - 1.0) * _d2c(X, br, sums, h, nh)
                    rows[got] = br
                    dest[got] = h
                    _remove(X, br, h, labels, counts, sums, mem, mstart, pos)
                    _add(X, br, g, labels, counts, sums, mem, mstart, pos)
                    got += 1
                if got == k and (delta < 0.0 or np.random.random() < np.exp(-delta / T)):
                    total += delta
                    nfree[0] -= 1
                else:
                    for q in range(got - 1, -1, -1):
                        r2 = rows[q]
                        _remove(X, r2, g, labels, counts, sums, mem, mstart, pos)
                        _add(X, r2, dest[q], labels, counts, sums, mem, mstart, pos)
            continue
        b = nbg[a, np.random.randint(0, L)]
        if b < 0 or b == a or counts[b] == 0:
            continue
        nb = counts[b]
        if u < p_split + p_swap:
            j = mem[mstart[b] + np.random.randint(0, nb)]
            delta = (
                _d2c(X, j, sums, a, na) - _d2c(X, i, sums, a, na) + _d2c(X, i, sums, b, nb) - _d2c(X, j, sums, b, nb)
                - sq_dist_rows(X, i, j) * (1.0 / na + 1.0 / nb)
            )
            if delta < 0.0 or np.random.random() < np.exp(-delta / T):
                total += delta
                pi = pos[i]
                pj = pos[j]
                mem[pi] = j
                mem[pj] = i
                pos[i] = pj
                pos[j] = pi
                labels[i] = b
                labels[j] = a
                for q in range(p):
                    d = X[j, q] - X[i, q]
                    sums[a, q] += d
                    sums[b, q] -= d
        else:
            if na <= k or nb >= min(mcap[b], umax):
                continue
            delta = nb / (nb + 1.0) * _d2c(X, i, sums, b, nb) - na / (na - 1.0) * _d2c(X, i, sums, a, na)
            if delta < 0.0 or np.random.random() < np.exp(-delta / T):
                total += delta
                _remove(X, i, a, labels, counts, sums, mem, mstart, pos)
                _add(X, i, b, labels, counts, sums, mem, mstart, pos)
    return total
