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

Nominal quasi-identifiers come as codes ``nom = (CC (m, n) int32, gid, gw, Q, acc)``, never
one-hot (``nom=None``: numeric only, a separate compiled specialisation): a row of level u is
at squared distance a_c^2 (n^2 - 2 n q_u + Q) / n^2 from the centroid of a group of n rows,
q_u of them in level u and Q = sum_v q_v^2 (microagg/features.py), so each group keeps Q per
column (updated on every move in O(group size)) and q_u is counted over its members (groups
have bounded size): O(n (p + m) + S m) memory. Changes within ``tol`` are ties and never
decide (a Metropolis step then draws its random number, an arg-min keeps the first
candidate), so the one-hot matrix and its codes, which round differently, give the same run.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ._common import helper, exchange_rows, move_change, sq_dist_rows, swap_change


@helper
def _level_count(CC, c, u, mem, base, cnt):
    """Rows among mem[base : base + cnt] whose code in nominal column c is u."""
    q = 0
    for t in range(cnt):
        if CC[c, mem[base + t]] == u:
            q += 1
    return q


@helper
def _nominal_d2c(nom, mem, mstart, i, g, cnt):
    """Nominal part of |x_i - c_g|^2: a_c^2 (cnt^2 - 2 cnt q + Q[g, c]) / cnt^2 per column
    (q = rows of g in row i's level, Q[g, c] = sum over levels of their squared counts; the
    integer numerators of columns with equal a_c add exactly, as in kernels/_common.py)."""
    CC, gid, gw, Q, acc = nom
    for w in range(gw.shape[0]):
        acc[w] = 0
    base = mstart[g]
    for c in range(CC.shape[0]):
        q = _level_count(CC, c, CC[c, i], mem, base, cnt)
        acc[gid[c]] += cnt * cnt - 2 * cnt * q + Q[g, c]
    t = 0.0
    for w in range(gw.shape[0]):
        t += gw[w] * acc[w]
    return t / (cnt * cnt)


@helper
def _d2c(X, nom, mem, mstart, i, sums, g, cnt):
    """|x_i - c_g|^2 with c_g the mean of the cnt = counts[g] rows mem[mstart[g]:]: numeric
    part from sums[g] / cnt, plus the nominal part from the codes."""
    s = 0.0
    inv = 1.0 / cnt
    for j in range(X.shape[1]):
        d = X[i, j] - sums[g, j] * inv
        s += d * d
    if nom is None:
        return s
    return s + _nominal_d2c(nom, mem, mstart, i, g, cnt)


@helper
def _nominal_d2r(nom, i, j, s):
    """|x_i - x_j|^2 from its numeric part s: plus 2 a_c^2 per nominal column where the codes
    differ."""
    CC, gid, gw, Q, acc = nom
    for w in range(gw.shape[0]):
        acc[w] = 0
    for c in range(CC.shape[0]):
        if CC[c, i] != CC[c, j]:
            acc[gid[c]] += 2
    for w in range(gw.shape[0]):
        s += gw[w] * acc[w]
    return s


@helper
def _remove(X, nom, i, a, labels, counts, sums, mem, mstart, pos):
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
    if nom is None:
        return
    CC, gid, gw, Q, acc = nom
    for c in range(CC.shape[0]):  # Q loses (q + 1)^2 - q^2, q = rows of i's level left
        Q[a, c] -= 2 * _level_count(CC, c, CC[c, i], mem, mstart[a], counts[a]) + 1


@helper
def _add(X, nom, i, b, labels, counts, sums, mem, mstart, pos):
    if nom is not None:
        CC, gid, gw, Q, acc = nom
        for c in range(CC.shape[0]):
            Q[b, c] += 2 * _level_count(CC, c, CC[c, i], mem, mstart[b], counts[b]) + 1
    t = mstart[b] + counts[b]
    mem[t] = i
    pos[i] = t
    counts[b] += 1
    labels[i] = b
    for j in range(X.shape[1]):
        sums[b, j] += X[i, j]


@helper
def _swap_q(nom, mem, mstart, counts, g, out, inn):
    """Q[g] after row ``out`` (a member of g) is replaced by row ``inn`` (not a member)."""
    CC, gid, gw, Q, acc = nom
    base = mstart[g]
    cnt = counts[g]
    for c in range(CC.shape[0]):
        u = CC[c, out]
        v = CC[c, inn]
        if u != v:
            Q[g, c] += 2 * (_level_count(CC, c, v, mem, base, cnt) - _level_count(CC, c, u, mem, base, cnt)) + 2


@njit(cache=True, nogil=True)
def group_sse(X, nom, labels, counts, sums, mem, mstart):
    """Total SSE of the state, recomputed from the rows (numeric part) and from the level
    counts (nominal part: a_c^2 (cnt - Q[g, c] / cnt) per group; ``nom`` None: none)."""
    s = 0.0
    inv = np.empty(counts.shape[0], dtype=np.float64)
    for g in range(counts.shape[0]):
        inv[g] = 1.0 / counts[g] if counts[g] > 0 else 0.0
    for i in range(X.shape[0]):
        g = labels[i]
        for j in range(X.shape[1]):
            d = X[i, j] - sums[g, j] * inv[g]
            s += d * d
    if nom is not None:
        CC, gid, gw, Q, acc = nom
        for g in range(counts.shape[0]):
            if counts[g] == 0:
                continue
            for c in range(CC.shape[0]):
                s += gw[gid[c]] * (counts[g] - Q[g, c] * inv[g])
    return s


@njit(cache=True)
def level_squares(CC, labels, counts, mem, mstart):
    """Q (S, m): per group slot and nominal column, the sum over levels of their squared counts."""
    S = counts.shape[0]
    Q = np.zeros((S, CC.shape[0]), dtype=np.int64)
    for g in range(S):
        for c in range(CC.shape[0]):
            q = 0
            for t in range(counts[g]):
                q += _level_count(CC, c, CC[c, mem[mstart[g] + t]], mem, mstart[g], counts[g])
            Q[g, c] = q
    return Q


@njit(cache=True, nogil=True)
def anneal_stage(X, nom, labels, counts, sums, mem, mstart, mcap, pos, nbg, free, nfree, k, umax, t0, t1, iters, seed, p_swap, p_split, tol):
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
    cap = umax
    for gc in range(mcap.shape[0]):  # (mcap.max() compiles a reduction library of its own)
        cap = max(cap, mcap[gc])
    cand_row = np.empty((L + 1) * cap, dtype=np.int64)
    for it in range(iters):
        if it > 0:
            T *= ratio
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
                for ta in range(na):
                    rows[ta] = mem[mstart[a] + ta]
                    sse_a += _d2c(X, nom, mem, mstart, rows[ta], sums, a, na)
                delta_d = -sse_a
                ok = True
                for td in range(na):
                    rd = rows[td]
                    _remove(X, nom, rd, a, labels, counts, sums, mem, mstart, pos)
                    best = np.inf
                    bb = np.int64(-1)  # not a literal -1: _add / _remove compile once
                    for sd in range(L):
                        bd = nbg[a, sd]
                        if bd < 0 or bd == a or counts[bd] == 0 or counts[bd] >= min(mcap[bd], umax):
                            continue
                        c = counts[bd] / (counts[bd] + 1.0) * _d2c(X, nom, mem, mstart, rd, sums, bd, counts[bd])
                        if c < best - tol:
                            best = c
                            bb = bd
                    if bb < 0:
                        _add(X, nom, rd, a, labels, counts, sums, mem, mstart, pos)
                        ok = False
                        # undo the rows already placed
                        for qu in range(td):
                            ru = rows[qu]
                            _remove(X, nom, ru, dest[qu], labels, counts, sums, mem, mstart, pos)
                            _add(X, nom, ru, a, labels, counts, sums, mem, mstart, pos)
                        break
                    dest[td] = bb
                    delta_d += best
                    _add(X, nom, rd, bb, labels, counts, sums, mem, mstart, pos)
                if not ok:
                    continue
                if delta_d < -tol or np.random.random() < np.exp(-delta_d / T):
                    total += delta_d
                    free[nfree[0]] = a
                    nfree[0] += 1
                else:
                    for qr in range(na - 1, -1, -1):
                        rr = rows[qr]
                        _remove(X, nom, rr, dest[qr], labels, counts, sums, mem, mstart, pos)
                        _add(X, nom, rr, a, labels, counts, sums, mem, mstart, pos)
            else:
                # create a group in a free slot: row i, then k - 1 times the row nearest the
                # new group's centroid among a's and its neighbours' rows whose group keeps >= k
                if nfree[0] == 0 or na <= k:
                    continue
                g = free[nfree[0] - 1]
                if mcap[g] < k:
                    continue
                nc = np.int64(0)  # int64 from the start: a literal 0 costs Numba a typing round per loop level
                for tn in range(na):
                    cand_row[nc] = mem[mstart[a] + tn]
                    nc += 1
                for sc in range(L):
                    bc = nbg[a, sc]
                    if bc < 0 or bc == a or counts[bc] == 0:
                        continue
                    for tb in range(counts[bc]):
                        cand_row[nc] = mem[mstart[bc] + tb]
                        nc += 1
                delta_c = -na / (na - 1.0) * _d2c(X, nom, mem, mstart, i, sums, a, na)
                rows[0] = i
                dest[0] = a
                _remove(X, nom, i, a, labels, counts, sums, mem, mstart, pos)
                _add(X, nom, i, g, labels, counts, sums, mem, mstart, pos)
                got = np.int64(1)
                while got < k:
                    bestc = np.inf
                    br = np.int64(-1)
                    for tr in range(nc):
                        rc = cand_row[tr]
                        hc = labels[rc]
                        if hc == g or counts[hc] <= k:
                            continue
                        d = _d2c(X, nom, mem, mstart, rc, sums, g, counts[g])
                        if d < bestc - tol:
                            bestc = d
                            br = rc
                    if br < 0:
                        break
                    h = labels[br]
                    nh = counts[h]
                    delta_c += move_change(_d2c(X, nom, mem, mstart, br, sums, h, nh), nh, bestc, counts[g])
                    rows[got] = br
                    dest[got] = h
                    _remove(X, nom, br, h, labels, counts, sums, mem, mstart, pos)
                    _add(X, nom, br, g, labels, counts, sums, mem, mstart, pos)
                    got += 1
                if got == k and (delta_c < -tol or np.random.random() < np.exp(-delta_c / T)):
                    total += delta_c
                    nfree[0] -= 1
                else:
                    for qc in range(got - 1, -1, -1):
                        rq = rows[qc]
                        _remove(X, nom, rq, g, labels, counts, sums, mem, mstart, pos)
                        _add(X, nom, rq, dest[qc], labels, counts, sums, mem, mstart, pos)
            continue
        b = nbg[a, np.random.randint(0, L)]
        if b < 0 or b == a or counts[b] == 0:
            continue
        nb = counts[b]
        if u < p_split + p_swap:
            j = mem[mstart[b] + np.random.randint(0, nb)]
            dij = sq_dist_rows(X, i, j)
            if nom is not None:  # (pruned on numeric data)
                dij = _nominal_d2r(nom, i, j, dij)
            delta_s = swap_change(
                _d2c(X, nom, mem, mstart, j, sums, a, na), _d2c(X, nom, mem, mstart, i, sums, a, na),
                _d2c(X, nom, mem, mstart, i, sums, b, nb), _d2c(X, nom, mem, mstart, j, sums, b, nb),
                dij, na, nb,
            )
            if delta_s < -tol or np.random.random() < np.exp(-delta_s / T):
                total += delta_s
                if nom is not None:  # (pruned on numeric data: no call to compile)
                    _swap_q(nom, mem, mstart, counts, a, i, j)
                    _swap_q(nom, mem, mstart, counts, b, j, i)
                pi = pos[i]
                pj = pos[j]
                exchange_rows(X, labels, mem, sums, i, pi, a, j, pj, b)
                pos[i] = pj
                pos[j] = pi
        else:
            if na <= k or nb >= min(mcap[b], umax):
                continue
            delta_m = move_change(_d2c(X, nom, mem, mstart, i, sums, a, na), na,
                                  _d2c(X, nom, mem, mstart, i, sums, b, nb), nb)
            if delta_m < -tol or np.random.random() < np.exp(-delta_m / T):
                total += delta_m
                _remove(X, nom, i, a, labels, counts, sums, mem, mstart, pos)
                _add(X, nom, i, b, labels, counts, sums, mem, mstart, pos)
    return total


@njit(cache=True, nogil=True)
def slot_neighbours(sums, counts, nom, off, mem, mstart, L, tol):
    """(S, L') neighbour lists over the group slots, L' = max(1, min(L, live - 1)): for each
    non-empty slot the L' non-empty slots whose centroids are nearest, by brute force
    (O(G^2 (p + m k))); rows of empty slots and pads are -1. Distances within ``tol`` count
    as tied and go to the lower slot id, so the lists do not depend on rounding (the one-hot
    matrix and its codes give the same lists). Nominal part of |c_g - c_h|^2 (``nom``; None:
    numeric only, a specialisation without it), per column: a_c^2 (Q_g / n_g^2 + Q_h / n_h^2
    - 2 P / (n_g n_h)), P = sum over levels of n_g,v n_h,v. (Inline, not a helper per pair:
    a helper call there made the nominal lists 2.6x slower.)"""
    S, p = sums.shape
    G = np.int64(0)  # (int64 from the start, not a literal: one typing round less)
    for g in range(S):
        if counts[g] > 0:
            G += 1
    live = np.empty(G, dtype=np.int64)  # loops, not flatnonzero / np.full (a library each)
    G = np.int64(0)
    for g in range(S):
        if counts[g] > 0:
            live[G] = g
            G += 1
    Lq = max(1, min(L, G - 1))
    out = np.empty((S, Lq), dtype=np.int64)
    for g in range(S):
        for u in range(Lq):
            out[g, u] = -1
    if G < 2:
        return out
    C = np.empty((G, p), dtype=np.float64)
    for t in range(G):
        g = live[t]
        for j in range(p):
            C[t, j] = sums[g, j] / counts[g]
    if nom is not None:
        CC, gid, gw, Q, acc = nom
        mc = CC.shape[0]
        qcnt = np.zeros(off[mc], dtype=np.int64)
    bd = np.empty(Lq, dtype=np.float64)
    bi = np.empty(Lq, dtype=np.int64)
    for t in range(G):
        g = live[t]
        ng = counts[g]
        if nom is not None:
            for c in range(mc):
                for r in range(ng):
                    qcnt[off[c] + CC[c, mem[mstart[g] + r]]] += 1
        found = np.int64(0)
        for s in range(G):
            if s == t:
                continue
            h = live[s]
            d = 0.0
            for j in range(p):
                e = C[t, j] - C[s, j]
                d += e * e
            if nom is not None:
                nh = counts[h]
                x = 0.0
                for c in range(mc):
                    P = 0
                    for r in range(nh):
                        P += qcnt[off[c] + CC[c, mem[mstart[h] + r]]]
                    x += gw[gid[c]] * (Q[g, c] / (ng * ng) + Q[h, c] / (nh * nh) - 2.0 * P / (ng * nh))
                d += x
            # ties within tol go to the lower id (candidates come in increasing id order)
            if found == Lq:
                if not d < bd[Lq - 1] - tol:
                    continue
                found -= 1
            u = found
            while u > 0 and bd[u - 1] > d + tol:
                bd[u] = bd[u - 1]
                bi[u] = bi[u - 1]
                u -= 1
            bd[u] = d
            bi[u] = h
            found += 1
        for u in range(found):
            out[g, u] = bi[u]
        if nom is not None:
            for c in range(mc):
                for r in range(ng):
                    qcnt[off[c] + CC[c, mem[mstart[g] + r]]] = 0
    return out
