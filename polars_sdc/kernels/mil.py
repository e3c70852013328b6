"""MIL: lower the SSE of a k-partition by moving records (thesis 4.2, Algorithm 1).

Everything rests on eq. 4.9: adding x to a group of n records with mean c raises its SSE by
n/(n+1) |x - c|^2; taking x out of a group of n records (mean c, x included) lowers it by
n/(n-1) |x - c|^2. With per-group counts and sums kept, each test is O(p) (O(1) in 1-D).
A move or exchange is made only when it lowers SSE by more than a relative 1e-12 of the
terms involved, so rounding can never make the search cycle.

One module on purpose (~570 lines): the move, exchange and 3-cycle passes share the group
statistics, the member lists and the improvement test above; Numba compiles them together.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ._common import group_sums, sq_dist_rows, topk_insert

_RTOL = 1e-12
_ATOL = 1e-20  # times the largest squared norm of a row: below it a change is rounding noise


@njit(cache=True)
def _atol(X):
    """Absolute threshold for an SSE change: _ATOL times the largest |x_i|^2 (rows centred by
    the caller). Two groups of identical rows would otherwise trade them back and forth on
    rounding noise, which a relative threshold alone cannot stop when every term is ~0."""
    m = 0.0
    for i in range(X.shape[0]):
        s = 0.0
        for j in range(X.shape[1]):
            s += X[i, j] * X[i, j]
        m = max(m, s)
    return _ATOL * m


@njit(cache=True)
def mil_1d_sorted(xs, sizes, k, max_sweeps):
    """Algorithm 1 on sorted values ``xs`` split into contiguous groups of ``sizes``.

    For each adjacent pair (D_i, D_{i+1}), i = 1..g-1: while |D_i| > k, move the largest x of
    D_i to D_{i+1} if (eq. 4.11) -(n+1)/n (x - mean'_i)^2 + m/(m+1) (x - mean_{i+1})^2 < 0
    (n = |D_i| - 1, mean'_i with x); then while |D_{i+1}| > k, move the smallest x of D_{i+1}
    to D_i if (eq. 4.12) -n/(n+1) (x - mean_i)^2 + (m+1)/m (x - mean'_{i+1})^2 > 0
    (m = |D_{i+1}| - 1). Sweep again from the first pair while any move happened (at most
    ``max_sweeps`` sweeps). Returns (new sizes, number of tests of 4.11/4.12 — the thesis's
    判定回数 —, number of moves, sweeps).
    """
    g = sizes.shape[0]
    sz = sizes.astype(np.int64)
    start = np.zeros(g, dtype=np.int64)
    sums = np.zeros(g, dtype=np.float64)
    pos = 0
    for i in range(g):
        start[i] = pos
        for t in range(pos, pos + sz[i]):
            sums[i] += xs[t]
        pos += sz[i]
    atol = 0.0
    for t in range(xs.shape[0]):
        atol = max(atol, _ATOL * xs[t] * xs[t])
    tests = 0
    moves = 0
    sweeps = 0
    flag = True
    while flag and sweeps < max_sweeps:
        flag = False
        sweeps += 1
        for i in range(g - 1):
            j = i + 1
            while sz[i] > k:
                n = sz[i] - 1
                m = sz[j]
                x = xs[start[i] + sz[i] - 1]
                a = (n + 1) / n * (x - sums[i] / sz[i]) ** 2
                b = m / (m + 1) * (x - sums[j] / m) ** 2
                tests += 1
                if b - a < -_RTOL * (a + b) - atol:
                    sz[i] -= 1
                    sz[j] += 1
                    start[j] -= 1
                    sums[i] -= x
                    sums[j] += x
                    moves += 1
                    flag = True
                else:
                    break
            while sz[j] > k:
                n = sz[i]
                m = sz[j] - 1
                y = xs[start[j]]
                a = n / (n + 1) * (y - sums[i] / n) ** 2
                b = (m + 1) / m * (y - sums[j] / sz[j]) ** 2
                tests += 1
                if b - a > _RTOL * (a + b) + atol:
                    sz[i] += 1
                    sz[j] -= 1
                    start[j] += 1
                    sums[i] += y
                    sums[j] -= y
                    moves += 1
                    flag = True
                else:
                    break
    return sz, tests, moves, sweeps


group_stats = group_sums  # (counts (G,), sums (G, p)) of the rows of X per label


@njit(cache=True)
def group_members(labels, counts):
    """The rows of each group in row order, group after group (what a stable argsort of
    ``labels`` gives), by counting sort in O(n + G)."""
    G = counts.shape[0]
    nxt = np.empty(G, dtype=np.int64)
    t = 0
    for g in range(G):
        nxt[g] = t
        t += counts[g]
    out = np.empty(labels.shape[0], dtype=np.int64)
    for i in range(labels.shape[0]):
        g = labels[i]
        out[nxt[g]] = i
        nxt[g] += 1
    return out




@njit(cache=True)
def nearest_centroids(C, L):
    """For each row of C (G, p): the L other rows nearest to it (squared Euclidean, ties:
    lowest row; -1 pads), by blocked brute force: O(G^2 p) time, O(G L) memory."""
    G, p = C.shape
    L = min(L, G - 1)
    out = np.full((G, max(L, 1)), -1, dtype=np.int64)
    if L <= 0:
        return out
    T = np.ascontiguousarray(C.T)
    blk = 512
    acc = np.empty(blk, dtype=np.float64)
    bd = np.empty(L, dtype=np.float64)
    bi = np.empty(L, dtype=np.int64)
    for q in range(G):
        cnt = 0
        for b in range(0, G, blk):
            w = min(b + blk, G) - b
            for t in range(w):
                acc[t] = 0.0
            for j in range(p):
                v = C[q, j]
                for t in range(w):
                    d = T[j, b + t] - v
                    acc[t] += d * d
            for t in range(w):
                if b + t != q:
                    cnt = topk_insert(bd, bi, cnt, L, acc[t], b + t)
        for t in range(cnt):
            out[q, t] = bi[t]
    return out


@njit(cache=True)
def improve_neighbours(C, nb):
    """One round of neighbour-of-neighbour refinement of the neighbour lists ``nb`` (G, L)
    of the rows of C: each row's new list is the L nearest among its current neighbours and
    their neighbours (NN-descent). O(G L^2 p); never worse than ``nb``."""
    G, p = C.shape
    L = nb.shape[1]
    out = np.full((G, L), -1, dtype=np.int64)
    bd = np.empty(L, dtype=np.float64)
    bi = np.empty(L, dtype=np.int64)
    seen = np.full(G, -1, dtype=np.int64)
    for q in range(G):
        cnt = 0
        seen[q] = q
        for t in range(L):
            a = nb[q, t]
            if a < 0:
                continue
            for u in range(-1, L):
                g = a if u < 0 else nb[a, u]
                if g < 0 or seen[g] == q:
                    continue
                seen[g] = q
                s = 0.0
                for j in range(p):
                    d = C[g, j] - C[q, j]
                    s += d * d
                cnt = topk_insert(bd, bi, cnt, L, s, g)
        for t in range(cnt):
            out[q, t] = bi[t]
    return out


@njit(cache=True)
def _sq_to(X, i, c):
    s = 0.0
    for j in range(X.shape[1]):
        d = X[i, j] - c[j]
        s += d * d
    return s


@njit(cache=True)
def mil_move_pass(X, labels, counts, sums, neighbours, k, stamp, sweep):
    """One pass of single-record moves; returns the number of moves made.

    For each row i (in row order) of a group a with more than k rows, the destinations are
    the groups in ``neighbours[a]`` (-1 = none). Moving i from a (n_a rows, mean c_a) to b
    changes SSE by n_b/(n_b+1) |x - c_b|^2 - n_a/(n_a-1) |x - c_a|^2 (eq. 4.9 twice, the
    general form of eq. 4.10); the best destination is taken when the change is < 0.
    ``labels``, ``counts`` and ``sums`` are updated in place, and ``stamp[g] = sweep`` for
    every group that changed.
    """
    atol = _atol(X)
    n, p = X.shape
    L = neighbours.shape[1]
    ca = np.empty(p, dtype=np.float64)
    moves = 0
    for i in range(n):
        a = labels[i]
        na = counts[a]
        if na <= k:
            continue
        for j in range(p):
            ca[j] = sums[a, j] / na
        gain = na / (na - 1.0) * _sq_to(X, i, ca)
        best = 0.0
        bb = -1
        bcost = 0.0
        for t in range(L):
            b = neighbours[a, t]
            if b < 0 or b == a:
                continue
            nb = counts[b]
            s = 0.0
            for j in range(p):
                d = X[i, j] - sums[b, j] / nb
                s += d * d
            cost = nb / (nb + 1.0) * s
            if cost - gain < best:
                best = cost - gain
                bb = b
                bcost = cost
        if bb >= 0 and best < -_RTOL * (gain + bcost) - atol:
            labels[i] = bb
            counts[a] -= 1
            counts[bb] += 1
            for j in range(p):
                sums[a, j] -= X[i, j]
                sums[bb, j] += X[i, j]
            stamp[a] = sweep
            stamp[bb] = sweep
            moves += 1
    return moves


@njit(cache=True)
def mil_exchange_pass(X, labels, counts, sums, members, mstart, pairs, stamp, sweep, max_rounds):
    """One pass of pairwise exchanges between the group pairs in ``pairs`` (P, 2).

    Swapping row i of group a (n_a rows, mean c_a) with row j of group b keeps both sizes
    and changes SSE by |x_j - c_a|^2 - |x_i - c_a|^2 + |x_i - c_b|^2 - |x_j - c_b|^2
    - |x_i - x_j|^2 (1/n_a + 1/n_b) (from SSE = sum |x|^2 - n |c|^2). For each pair the best
    exchange is made while it lowers SSE (at most ``max_rounds`` per pair). A pair is
    skipped when neither group changed since the previous sweep (``stamp[g] < sweep - 1``):
    it was tested then and found no exchange. ``members`` lists the rows of group g in
    members[mstart[g]:mstart[g+1]] and is kept in step with ``labels`` and ``sums``.
    Returns the number of exchanges.
    """
    atol = _atol(X)
    n, p = X.shape
    G = counts.shape[0]
    big = 0
    for g in range(G):
        big = max(big, counts[g])
    total = 0
    ca = np.empty(p, dtype=np.float64)
    cb = np.empty(p, dtype=np.float64)
    ra = np.empty(big, dtype=np.float64)
    rb = np.empty(big, dtype=np.float64)
    sra = np.empty(big, dtype=np.float64)
    srb = np.empty(big, dtype=np.float64)
    for q in range(pairs.shape[0]):
        a = pairs[q, 0]
        b = pairs[q, 1]
        if stamp[a] < sweep - 1 and stamp[b] < sweep - 1:
            continue
        na = counts[a]
        nb = counts[b]
        w = 1.0 / na + 1.0 / nb
        for _ in range(max_rounds):
            for j in range(p):
                ca[j] = sums[a, j] / na
                cb[j] = sums[b, j] / nb
            for t in range(nb):
                r = members[mstart[b] + t]
                ra[t] = _sq_to(X, r, ca)
                rb[t] = _sq_to(X, r, cb)
                sra[t] = np.sqrt(ra[t])
                srb[t] = np.sqrt(rb[t])
            best = 0.0
            bs = -1
            bt = -1
            bscale = 0.0
            for s in range(mstart[a], mstart[a + 1]):
                i = members[s]
                ia = _sq_to(X, i, ca)
                ib = _sq_to(X, i, cb)
                sia = np.sqrt(ia)
                sib = np.sqrt(ib)
                for t in range(nb):
                    # exact pruning: |x_i - x_j|^2 is at most the triangle bound through c_a or
                    # c_b (1e-9 relative slack covers rounding); rounding is monotone, so when
                    # the change with that bound is not below best, the exact one is not either
                    u1 = sia + sra[t]
                    u2 = sib + srb[t]
                    ub = min(u1 * u1, u2 * u2) * (1.0 + 1e-9)
                    if ra[t] - ia + ib - rb[t] - ub * w >= best:
                        continue
                    delta = ra[t] - ia + ib - rb[t] - sq_dist_rows(X, i, members[mstart[b] + t]) * w
                    if delta < best:
                        best = delta
                        bs = s
                        bt = mstart[b] + t
                        bscale = ra[t] + ia + ib + rb[t]
            if bs < 0 or best >= -_RTOL * bscale - atol:
                break
            i = members[bs]
            r = members[bt]
            labels[i] = b
            labels[r] = a
            members[bs] = r
            members[bt] = i
            for j in range(p):
                sums[a, j] += X[r, j] - X[i, j]
                sums[b, j] += X[i, j] - X[r, j]
            stamp[a] = sweep
            stamp[b] = sweep
            total += 1
    return total


@njit(cache=True)
def _fill_pair(X, members, mstart, x, y, out):
    """out[u, v] = |x_u - y_v|^2 for the members of groups x and y."""
    for u in range(mstart[x + 1] - mstart[x]):
        iu = members[mstart[x] + u]
        for v in range(mstart[y + 1] - mstart[y]):
            out[u, v] = sq_dist_rows(X, iu, members[mstart[y] + v])


@njit(cache=True)
def _fill_centroid(X, members, mstart, x, c, out):
    """out[u] = |x_u - c|^2 for the members of group x."""
    for u in range(mstart[x + 1] - mstart[x]):
        out[u] = _sq_to(X, members[mstart[x] + u], c)


@njit(cache=True, inline="always")
def _listed(neighbours, g, h):
    """True if h is in the neighbour list of g."""
    for t in range(neighbours.shape[1]):
        if neighbours[g, t] == h:
            return True
    return False


@njit(cache=True)
def mil_cycle_pass(X, labels, counts, sums, members, mstart, neighbours, stamp, sweep, cap):
    """One pass of 3-cycles: for a group a and two groups b, c among its neighbours (every
    group at most ``cap`` rows; a triple is tried when one of its groups has the other two
    among its neighbours — once, from the lowest such group —, so the set of triples tried
    does not depend on the group numbering and the local optimum is a fixed point), one row of a moves to b,
    one of b to c and one of c to a, or the reverse cycle; sizes are kept. The change is the
    sum of one in/out term per group, |x_in - c_g|^2 - |x_out - c_g|^2 - |x_in - x_out|^2 / n_g
    (from SSE = sum |x|^2 - n |c|^2); the best cycle of a triple is made when it lowers SSE.
    Triples none of whose groups changed since the previous sweep are skipped. Returns the
    number of cycles made.
    """
    atol = _atol(X)
    n, p = X.shape
    G = counts.shape[0]
    L = neighbours.shape[1]
    C = np.empty((G, p), dtype=np.float64)
    for g in range(G):
        for j in range(p):
            C[g, j] = sums[g, j] / counts[g]
    Pa = np.empty((L, cap, cap), dtype=np.float64)  # |a_u - (t-th neighbour)_v|^2
    Aself = np.empty(cap, dtype=np.float64)  # |a_u - c_a|^2
    Ato = np.empty((L, cap), dtype=np.float64)  # |a_u - c_t|^2
    Tto_a = np.empty((L, cap), dtype=np.float64)  # |t_v - c_a|^2
    Tself = np.empty((L, cap), dtype=np.float64)  # |t_v - c_t|^2
    Pbc = np.empty((cap, cap), dtype=np.float64)
    Btoc = np.empty(cap, dtype=np.float64)
    Ctob = np.empty(cap, dtype=np.float64)
    # per triple, the least value over w of each of the two w-dependent terms of a cycle:
    # forward b-term (per v) and a-term (per u), backward a-term (per u) and b-term (per v)
    mBf = np.empty(cap, dtype=np.float64)
    mAf = np.empty(cap, dtype=np.float64)
    mAb = np.empty(cap, dtype=np.float64)
    mBb = np.empty(cap, dtype=np.float64)
    old = sweep - 1
    total = 0
    for a in range(G):
        na = counts[a]
        if na > cap:
            continue
        fresh = True
        for t1 in range(L):
            b = neighbours[a, t1]
            if b < 0 or counts[b] > cap:
                continue
            for t2 in range(t1 + 1, L):
                c = neighbours[a, t2]
                if c < 0 or counts[c] > cap or (stamp[a] < old and stamp[b] < old and stamp[c] < old):
                    continue
                # each triple once, from the lowest of its groups that lists the other two
                if b < a and _listed(neighbours, b, a) and _listed(neighbours, b, c):
                    continue
                if c < a and _listed(neighbours, c, a) and _listed(neighbours, c, b):
                    continue
                if fresh:  # (re)compute everything that involves a's members
                    _fill_centroid(X, members, mstart, a, C[a], Aself)
                    for t in range(L):
                        g = neighbours[a, t]
                        if g < 0 or counts[g] > cap:
                            continue
                        _fill_pair(X, members, mstart, a, g, Pa[t])
                        _fill_centroid(X, members, mstart, a, C[g], Ato[t])
                        _fill_centroid(X, members, mstart, g, C[a], Tto_a[t])
                        _fill_centroid(X, members, mstart, g, C[g], Tself[t])
                    fresh = False
                nb_ = counts[b]
                nc = counts[c]
                _fill_centroid(X, members, mstart, b, C[c], Btoc)
                _fill_centroid(X, members, mstart, c, C[b], Ctob)
                ia = 1.0 / na
                ib = 1.0 / nb_
                ic = 1.0 / nc
                best = 0.0
                bscale = 0.0
                bu = -1
                bv = -1
                bw = -1
                bdir = 0
                # exact pruning: a cycle's change is fb + B + A (forward) or ka + A' + B'
                # (backward) with B, A, A', B' at least their least value over w; rounding is
                # monotone, so when fb + min B + min A >= best no w can beat best (and best only
                # falls): the cycles made are exactly those of the full search
                for u in range(na):
                    mf = np.inf
                    mb = np.inf
                    for w in range(nc):
                        pca = Pa[t2, u, w]
                        x = Tto_a[t2, w] - Aself[u] - pca * ia
                        if x < mf:
                            mf = x
                        x = Ato[t2, u] - Tself[t2, w] - pca * ic
                        if x < mb:
                            mb = x
                    mAf[u] = mf
                    mAb[u] = mb
                # first with |x_v - x_w|^2 bounded above by the triangle inequality through c_c
                # and c_b (1e-9 relative slack covers rounding), which needs no row distance:
                # when no (u, v) can then reach a change < 0, the triple is skipped
                for v in range(nb_):
                    mf = np.inf
                    mb = np.inf
                    for w in range(nc):
                        r1 = np.sqrt(Btoc[v]) + np.sqrt(Tself[t2, w])
                        r2 = np.sqrt(Ctob[w]) + np.sqrt(Tself[t1, v])
                        ub = min(r1 * r1, r2 * r2) * (1.0 + 1e-9)
                        x = Btoc[v] - Tself[t2, w] - ub * ic
                        if x < mf:
                            mf = x
                        x = Ctob[w] - Tself[t1, v] - ub * ib
                        if x < mb:
                            mb = x
                    mBf[v] = mf
                    mBb[v] = mb
                hope = False
                for u in range(na):
                    for v in range(nb_):
                        pab = Pa[t1, u, v]
                        if (Ato[t1, u] - Tself[t1, v] - pab * ib) + mBf[v] + mAf[u] < best or (
                            Tto_a[t1, v] - Aself[u] - pab * ia
                        ) + mAb[u] + mBb[v] < best:
                            hope = True
                            break
                    if hope:
                        break
                if not hope:
                    continue
                _fill_pair(X, members, mstart, b, c, Pbc)
                for v in range(nb_):
                    mf = np.inf
                    mb = np.inf
                    for w in range(nc):
                        x = Btoc[v] - Tself[t2, w] - Pbc[v, w] * ic
                        if x < mf:
                            mf = x
                        x = Ctob[w] - Tself[t1, v] - Pbc[v, w] * ib
                        if x < mb:
                            mb = x
                    mBf[v] = mf
                    mBb[v] = mb
                for u in range(na):
                    for v in range(nb_):
                        pab = Pa[t1, u, v]
                        # forward, u: a->b, v: b->c, w: c->a
                        fb = Ato[t1, u] - Tself[t1, v] - pab * ib
                        # backward, u: a->c, w: c->b, v: b->a
                        ka = Tto_a[t1, v] - Aself[u] - pab * ia
                        dof = fb + mBf[v] + mAf[u] < best
                        dob = ka + mAb[u] + mBb[v] < best
                        if not (dof or dob):
                            continue
                        for w in range(nc):
                            pca = Pa[t2, u, w]
                            d = fb + (Btoc[v] - Tself[t2, w] - Pbc[v, w] * ic) + (Tto_a[t2, w] - Aself[u] - pca * ia)
                            if dof and d < best:
                                best = d
                                bu, bv, bw, bdir = u, v, w, 0
                                bscale = Ato[t1, u] + Tself[t1, v] + Btoc[v] + Tself[t2, w] + Tto_a[t2, w] + Aself[u]
                            d = ka + (Ato[t2, u] - Tself[t2, w] - pca * ic) + (Ctob[w] - Tself[t1, v] - Pbc[v, w] * ib)
                            if dob and d < best:
                                best = d
                                bu, bv, bw, bdir = u, v, w, 1
                                bscale = Tto_a[t1, v] + Aself[u] + Ato[t2, u] + Tself[t2, w] + Ctob[w] + Tself[t1, v]
                if bu < 0 or best >= -_RTOL * bscale - atol:
                    continue
                su = mstart[a] + bu
                sv = mstart[b] + bv
                sw = mstart[c] + bw
                iu = members[su]
                iv = members[sv]
                iw = members[sw]
                if bdir == 0:  # iu: a -> b, iv: b -> c, iw: c -> a
                    labels[iu] = b
                    labels[iv] = c
                    labels[iw] = a
                    members[su] = iw
                    members[sv] = iu
                    members[sw] = iv
                    for j in range(p):
                        sums[a, j] += X[iw, j] - X[iu, j]
                        sums[b, j] += X[iu, j] - X[iv, j]
                        sums[c, j] += X[iv, j] - X[iw, j]
                else:  # iu: a -> c, iw: c -> b, iv: b -> a
                    labels[iu] = c
                    labels[iw] = b
                    labels[iv] = a
                    members[su] = iv
                    members[sw] = iu
                    members[sv] = iw
                    for j in range(p):
                        sums[a, j] += X[iv, j] - X[iu, j]
                        sums[c, j] += X[iu, j] - X[iw, j]
                        sums[b, j] += X[iw, j] - X[iv, j]
                for g in (a, b, c):
                    for j in range(p):
                        C[g, j] = sums[g, j] / counts[g]
                    stamp[g] = sweep
                fresh = True
                total += 1
    return total
