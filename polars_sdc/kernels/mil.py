"""MIL: lower the SSE of a k-partition by moving records (thesis 4.2, Algorithm 1).

Everything rests on eq. 4.9: adding x to a group of n records with mean c raises its SSE by
n/(n+1) |x - c|^2; taking x out of a group of n records (mean c, x included) lowers it by
n/(n-1) |x - c|^2. With per-group counts and sums kept, each test is O(p) (O(1) in 1-D).
A move or exchange is made only when it lowers SSE by more than a relative 1e-12 of the
terms involved, so rounding can never make the search cycle.

One module on purpose: the move, exchange and 3-cycle passes share the group statistics,
the member lists and the improvement test above; :func:`mil_sweep` runs one sweep of them.
First-call compile time (issue 27): each pass is a kernel of its own (a large body as a
``helper`` of one sweep kernel is optimised twice, once alone and once where it is linked),
small shared steps are helpers, and every nominal step sits behind ``if nom is not None``
in the kernel that calls it, which Numba prunes for numeric-only data (``nom`` None) before
it inlines or types anything. Group sums and the change threshold are numpy (no kernel of
their own); the member lists are filled at the end of the move pass.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from ._common import helper, move_change, sq_dist_rows, swap_change, topk_insert

_RTOL = 1e-12
_ATOL = 1e-20  # times the largest squared norm of a row: below it a change is rounding noise


def _sq_norms(X):
    """|x_i|^2 of every row of X (n, p), the columns added in order (0.0 + x_0^2 + x_1^2 + ...:
    the floating-point operations of the kernels' loops)."""
    s = np.zeros(X.shape[0])
    for j in range(X.shape[1]):
        s += X[:, j] * X[:, j]
    return s


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


def group_stats(X, labels, G):
    """(counts (G,) int64, sums (G, p) float64) of the rows of X (n, p) per label in [0, G).
    ``np.bincount`` adds each column's values in row order: the floating-point operations of
    a loop over the rows (``_common.group_sums``), the same sums bit for bit, and no kernel
    to compile on a first call."""
    counts = np.bincount(labels, minlength=G).astype(np.int64)
    sums = np.empty((G, X.shape[1]), dtype=np.float64)
    for j in range(X.shape[1]):
        sums[:, j] = np.bincount(labels, weights=X[:, j], minlength=G)
    return counts, sums


@helper
def _members(labels, counts, members, mstart):
    """Fill ``members`` with the rows of each group in row order, group after group (what a
    stable argsort of ``labels`` gives; counting sort, O(n + G)), and ``mstart`` (G + 1,) so
    that group g's rows are members[mstart[g]:mstart[g + 1]]."""
    G = counts.shape[0]
    t = 0
    for g in range(G):
        mstart[g] = t
        t += counts[g]
    mstart[G] = t
    for i in range(labels.shape[0]):
        g = labels[i]
        members[mstart[g]] = i
        mstart[g] += 1
    for g in range(G, 0, -1):  # mstart[g] ran to the end of group g: shift back
        mstart[g] = mstart[g - 1]
    mstart[0] = 0


# -- nominal columns as codes -------------------------------------------------------------------
# A nominal column c with one-hot value a_c puts a row of category u at squared distance
# a_c^2 (n^2 - 2 n cnt[u] + Q) / n^2 from the centroid of a group of n rows with cnt[v] rows in
# category v and Q = sum_v cnt[v]^2, and two rows of different categories 2 a_c^2 apart (the
# one-hot embedding of features.py, never built). The state ``nom`` = (CC (n, m) int32 codes,
# off (m + 1,) level offsets, gid (m,) weight group of each column, gw a^2 per weight group,
# Q (G, m) int64, keys / vals: a hash table of the nonzero counts keyed g * off[m] + off[c] + u,
# linear probing with backward-shift deletion, so at most n m live keys: O(n m + G m) memory
# whatever the number of categories). Columns of one weight group add their integer numerators
# exactly, so exact ties stay ties. Without nominal columns ``nom`` is None: Numba compiles the
# kernels again for that type with every nominal branch pruned (the numeric path pays nothing).


def no_nominal(n, G):
    """The ``nom`` state of data without nominal columns: None."""
    return None


@njit(cache=True, inline="always")
def _home(key, mask):
    h = key * -7046029254386353131  # odd 64-bit constant (wrapping)
    return (h ^ (h >> 29)) & mask


@njit(cache=True, inline="always")
def _slot(keys, key):
    """The slot holding ``key``, else the empty slot where it would go."""
    mask = keys.shape[0] - 1
    h = _home(key, mask)
    while keys[h] != -1 and keys[h] != key:
        h = (h + 1) & mask
    return h


@helper
def _bump(keys, vals, key, d):
    """count[key] += d (0 for an absent key; a key whose count becomes 0 is deleted);
    returns the old count."""
    h = _slot(keys, key)
    old = vals[h]
    new = old + d
    if new != 0:
        keys[h] = key
        vals[h] = new
        return old
    # backward-shift deletion: no tombstones, so at most n m keys are ever live
    mask = keys.shape[0] - 1
    i = h
    keys[i] = -1
    vals[i] = 0
    j = i
    while True:
        j = (j + 1) & mask
        if keys[j] == -1:
            break
        r = _home(keys[j], mask)
        if (i <= j and i < r <= j) or (i > j and (r > i or r <= j)):
            continue
        keys[i] = keys[j]
        vals[i] = vals[j]
        keys[j] = -1
        vals[j] = 0
        i = j
    return old


@njit(cache=True)
def nominal_state(CC, off, gid, gw, labels, G):
    """The ``nom`` state (see above) of the codes CC (n, m) for the partition ``labels``."""
    n, m = CC.shape
    size = 16
    while size < 2 * n * m:
        size *= 2
    keys = np.full(size, -1, dtype=np.int64)
    vals = np.zeros(size, dtype=np.int64)
    Q = np.zeros((G, m), dtype=np.int64)
    S = off[m]
    for i in range(n):
        g = labels[i]
        for c in range(m):
            old = _bump(keys, vals, g * S + off[c] + CC[i, c], 1)
            Q[g, c] += 2 * old + 1
    return (CC, off, gid, gw, Q, keys, vals)


@njit(cache=True, inline="always")
def _nom_move(nom, i, a, b):
    """Nominal counts after row i moves from group a to group b."""
    if nom is None:
        return
    CC, off, gid, gw, Q, keys, vals = nom
    S = off[CC.shape[1]]
    for c in range(CC.shape[1]):
        u = off[c] + CC[i, c]
        old = _bump(keys, vals, a * S + u, -1)
        Q[a, c] -= 2 * old - 1
        old = _bump(keys, vals, b * S + u, 1)
        Q[b, c] += 2 * old + 1


@njit(cache=True, inline="always")
def _nom_rc(nom, i, g, ng):
    """Nominal part of |x_i - c_g|^2, c_g the centroid of group g (ng rows)."""
    if nom is None:
        return 0.0
    CC, off, gid, gw, Q, keys, vals = nom
    m = CC.shape[1]
    S = off[m]
    n2 = ng * ng
    s = 0.0
    for w in range(gw.shape[0]):
        t = 0
        for c in range(m):
            if gid[c] == w:
                t += n2 - 2 * ng * vals[_slot(keys, g * S + off[c] + CC[i, c])] + Q[g, c]
        s += gw[w] * t
    return s / n2


@njit(cache=True, inline="always")
def _nom_rr(nom, i, j):
    """Nominal part of |x_i - x_j|^2: 2 a_c^2 per column where the categories differ."""
    if nom is None:
        return 0.0
    CC, off, gid, gw, Q, keys, vals = nom
    m = CC.shape[1]
    s = 0.0
    for w in range(gw.shape[0]):
        t = 0
        for c in range(m):
            if gid[c] == w and CC[i, c] != CC[j, c]:
                t += 2
        s += gw[w] * t
    return s


def change_threshold(X, nom):
    """Absolute threshold for an SSE change: _ATOL times the largest |x_i|^2 (rows centred by
    the caller; nominal columns: the one-hot row's distance to the overall centroid). Two
    groups of identical rows would otherwise trade them back and forth on rounding noise,
    which a relative threshold alone cannot stop when every term is ~0. Numeric part in
    numpy (no kernel to compile); the nominal part by :func:`_nominal_parts`."""
    s = _sq_norms(X)
    if nom is not None:
        CC = nom[0]
        st = nominal_state(CC, nom[1], nom[2], nom[3], np.zeros(X.shape[0], dtype=np.int64), 1)
        s = s + _nominal_parts(st, X.shape[0])
    m = float(s.max()) if s.size else 0.0
    return _ATOL * max(m, 0.0)


@njit(cache=True)
def _nominal_parts(nom, n):
    """The nominal part of |x_i - c|^2 of every row i of the one group (n rows) of ``nom``."""
    out = np.empty(n, dtype=np.float64)
    for i in range(n):
        out[i] = _nom_rc(nom, i, 0, n)
    return out




@njit(cache=True, nogil=True)
def nearest_centroids(C, L):
    """For each row of C (G, p): the L other rows nearest to it (squared Euclidean, ties:
    lowest row; -1 pads), by blocked brute force: O(G^2 p) time, O(G L) memory."""
    G, p = C.shape
    if G - 1 < L:  # min / max as comparisons: Numba compiles a function for each min / max type
        L = G - 1
    out = np.empty((G, L if L > 1 else 1), dtype=np.int64)
    # (loop variables named apart: Numba's SSA pass walks the function once per name
    # assigned in more than one place)
    for q0 in range(G):
        for t0 in range(out.shape[1]):
            out[q0, t0] = -1
    if L <= 0:
        return out
    T = np.empty((p, G), dtype=np.float64)  # C transposed: the inner loop runs along a row
    for q1 in range(G):
        for j1 in range(p):
            T[j1, q1] = C[q1, j1]
    blk = 512
    acc = np.empty(blk, dtype=np.float64)
    bd = np.empty(L, dtype=np.float64)
    bi = np.empty(L, dtype=np.int64)
    for q in range(G):
        cnt = np.int64(0)
        for b in range(0, G, blk):
            w = (G if G < b + blk else b + blk) - b
            for t1 in range(w):
                acc[t1] = 0.0
            for j in range(p):
                v = C[q, j]
                for t2 in range(w):
                    d = T[j, b + t2] - v
                    acc[t2] += d * d
            for t in range(w):
                if b + t != q:
                    cnt = topk_insert(bd, bi, cnt, L, acc[t], b + t)
        for t3 in range(cnt):
            out[q, t3] = bi[t3]
    return out


@njit(cache=True, nogil=True)
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
        cnt = np.int64(0)
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


@helper
def _sq_to(X, i, c):
    s = 0.0
    for j in range(X.shape[1]):
        d = X[i, j] - c[j]
        s += d * d
    return s


@njit(cache=True, nogil=True)
def mil_move_pass(X, labels, counts, sums, neighbours, k, stamp, sweep, nom, atol, members, mstart):
    """One pass of single-record moves; returns the number of moves made.

    For each row i (in row order) of a group a with more than k rows, the destinations are
    the groups in ``neighbours[a]`` (-1 = none). Moving i from a (n_a rows, mean c_a) to b
    changes SSE by n_b/(n_b+1) |x - c_b|^2 - n_a/(n_a-1) |x - c_a|^2 (eq. 4.9 twice, the
    general form of eq. 4.10); the best destination is taken when the change is < 0.
    ``labels``, ``counts``, ``sums`` and the nominal state ``nom`` are updated in place, and
    ``stamp[g] = sweep`` for every group that changed; ``atol``: :func:`change_threshold`.
    Then ``members`` / ``mstart`` are filled with the member lists (:func:`_members`) that
    the exchange and 3-cycle passes take.
    """
    n, p = X.shape
    L = neighbours.shape[1]
    ca = np.empty(p, dtype=np.float64)
    moves = np.int64(0)
    for i in range(n):
        a = labels[i]
        na = counts[a]
        if na <= k:
            continue
        for j in range(p):
            ca[j] = sums[a, j] / na
        da = _sq_to(X, i, ca)
        if nom is not None:
            da += _nom_rc(nom, i, a, na)
        best = 0.0
        bb = np.int64(-1)
        bscale = 0.0
        for t in range(L):
            b = neighbours[a, t]
            if b < 0 or b == a:
                continue
            nb = counts[b]
            db = 0.0
            for j0 in range(p):
                d = X[i, j0] - sums[b, j0] / nb
                db += d * d
            if nom is not None:
                db += _nom_rc(nom, i, b, nb)
            change = move_change(da, na, db, nb)
            if change < best:
                best = change
                bb = b
                bscale = na / (na - 1.0) * da + nb / (nb + 1.0) * db
        if bb >= 0 and best < -_RTOL * bscale - atol:
            labels[i] = bb
            counts[a] -= 1
            counts[bb] += 1
            for j1 in range(p):
                sums[a, j1] -= X[i, j1]
                sums[bb, j1] += X[i, j1]
            if nom is not None:
                _nom_move(nom, i, a, bb)
            stamp[a] = sweep
            stamp[bb] = sweep
            moves += 1
    # the member lists (what a stable argsort of labels gives; counting sort, O(n + G)): group
    # g's rows are members[mstart[g]:mstart[g + 1]], in row order (written out here: a helper
    # is a compilation more)
    G = counts.shape[0]
    top = np.int64(0)
    for g in range(G):
        mstart[g] = top
        top += counts[g]
    mstart[G] = top
    for i2 in range(n):
        g2 = labels[i2]
        members[mstart[g2]] = i2
        mstart[g2] += 1
    for g3 in range(G, 0, -1):  # mstart[g] ran to the end of group g: shift back
        mstart[g3] = mstart[g3 - 1]
    mstart[0] = 0
    return moves


@njit(cache=True, nogil=True)
def mil_exchange_pass(X, labels, counts, sums, members, mstart, pairs, stamp, sweep, max_rounds, nom, atol):
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
    n, p = X.shape
    G = counts.shape[0]
    big = np.int64(0)
    for g in range(G):
        cg = counts[g]
        if cg > big:
            big = cg
    total = np.int64(0)
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
        for _ in range(max_rounds):
            for j in range(p):
                ca[j] = sums[a, j] / na
                cb[j] = sums[b, j] / nb
            mb0 = mstart[b]
            # (each local is assigned in one place: Numba's SSA pass walks the whole function
            # once per name assigned in more than one place)
            for t0 in range(nb):
                r0 = members[mb0 + t0]
                rat0 = _sq_to(X, r0, ca)
                rbt0 = _sq_to(X, r0, cb)
                if nom is not None:
                    rat0 += _nom_rc(nom, r0, a, na)
                    rbt0 += _nom_rc(nom, r0, b, nb)
                ra[t0] = rat0
                rb[t0] = rbt0
                sra[t0] = math.sqrt(rat0)  # math.sqrt, not np.sqrt: the same value, less to type
                srb[t0] = math.sqrt(rbt0)
            best = 0.0
            bs = np.int64(-1)
            bt = np.int64(-1)
            bscale = 0.0
            for s in range(mstart[a], mstart[a + 1]):
                i = members[s]
                ia = _sq_to(X, i, ca)
                ib = _sq_to(X, i, cb)
                if nom is not None:
                    ia += _nom_rc(nom, i, a, na)
                    ib += _nom_rc(nom, i, b, nb)
                sia = math.sqrt(ia)
                sib = math.sqrt(ib)
                for t in range(nb):
                    rat = ra[t]
                    rbt = rb[t]
                    # exact pruning: |x_i - x_j|^2 is at most the triangle bound through c_a or
                    # c_b (1e-9 relative slack covers rounding); rounding is monotone, so when
                    # the change with that bound is not below best, the exact one is not either
                    e1 = sia + sra[t]
                    e2 = sib + srb[t]
                    u1 = e1 * e1
                    u2 = e2 * e2
                    ub = (u2 if u2 < u1 else u1) * (1.0 + 1e-9)
                    if swap_change(rat, ia, ib, rbt, ub, na, nb) >= best:
                        continue
                    r = members[mb0 + t]
                    dij = sq_dist_rows(X, i, r)
                    if nom is not None:
                        dij += _nom_rr(nom, i, r)
                    delta = swap_change(rat, ia, ib, rbt, dij, na, nb)
                    if delta < best:
                        best = delta
                        bs = s
                        bt = mb0 + t
                        bscale = rat + ia + ib + rbt
            if bs < 0 or best >= -_RTOL * bscale - atol:
                break
            i1 = members[bs]
            r1 = members[bt]
            labels[i1] = b
            labels[r1] = a
            members[bs] = r1
            members[bt] = i1
            for j1 in range(p):
                sums[a, j1] += X[r1, j1] - X[i1, j1]
                sums[b, j1] += X[i1, j1] - X[r1, j1]
            if nom is not None:
                _nom_move(nom, i1, a, b)
                _nom_move(nom, r1, b, a)
            stamp[a] = sweep
            stamp[b] = sweep
            total += 1
    return total


@helper
def _fill_pair(X, members, mstart, x, y, out, nom):
    """out[u, v] = |x_u - y_v|^2 for the members of groups x and y."""
    for u in range(mstart[x + 1] - mstart[x]):
        iu = members[mstart[x] + u]
        for v in range(mstart[y + 1] - mstart[y]):
            out[u, v] = sq_dist_rows(X, iu, members[mstart[y] + v])
    if nom is not None:
        for u in range(mstart[x + 1] - mstart[x]):
            iu = members[mstart[x] + u]
            for v in range(mstart[y + 1] - mstart[y]):
                out[u, v] += _nom_rr(nom, iu, members[mstart[y] + v])


@helper
def _fill_centroid(X, members, mstart, x, C, g, counts, out, sq, nom):
    """out[u] = |x_u - c_g|^2 for the members of group x (C[g]: the numeric part of the
    centroid of group g), and sq[u] = sqrt(out[u]) if sq has room."""
    c = C[g]
    w = mstart[x + 1] - mstart[x]
    for u in range(w):
        out[u] = _sq_to(X, members[mstart[x] + u], c)
    if nom is not None:
        for u in range(w):
            out[u] += _nom_rc(nom, members[mstart[x] + u], g, counts[g])
    if sq.shape[0] > 0:
        for u in range(w):
            sq[u] = math.sqrt(out[u])


@helper
def _listed(neighbours, g, h):
    """True if h is in the neighbour list of g."""
    for t in range(neighbours.shape[1]):
        if neighbours[g, t] == h:
            return True
    return False


@njit(cache=True, nogil=True)
def mil_cycle_pass(X, labels, counts, sums, members, mstart, neighbours, stamp, sweep, cap, nom, atol, tick, t0, dt):
    """One pass of 3-cycles: for a group a and two groups b, c among its neighbours (every
    group at most ``cap`` rows; a triple is tried when one of its groups has the other two
    among its neighbours — once, from the lowest such group —, so the set of triples tried
    does not depend on the group numbering and the local optimum is a fixed point), one row of a moves to b,
    one of b to c and one of c to a, or the reverse cycle; sizes are kept. The change is the
    sum of one in/out term per group, |x_in - c_g|^2 - |x_out - c_g|^2 - |x_in - x_out|^2 / n_g
    (from SSE = sum |x|^2 - n |c|^2); the best cycle of a triple is made when it lowers SSE.
    Triples none of whose groups changed since the previous sweep are skipped. Returns the
    number of cycles made. tick[0] = t0 + a dt is written before each group a (a progress
    counter that a progress bar's thread reads while the pass runs without the GIL).
    """
    n, p = X.shape
    G = counts.shape[0]
    L = neighbours.shape[1]
    C = np.empty((G, p), dtype=np.float64)
    for g0 in range(G):
        for j0 in range(p):
            C[g0, j0] = sums[g0, j0] / counts[g0]
    Pa = np.empty((L, cap, cap), dtype=np.float64)  # |a_u - (t-th neighbour)_v|^2
    Aself = np.empty(cap, dtype=np.float64)  # |a_u - c_a|^2
    Ato = np.empty((L, cap), dtype=np.float64)  # |a_u - c_t|^2
    Tto_a = np.empty((L, cap), dtype=np.float64)  # |t_v - c_a|^2
    Tself = np.empty((L, cap), dtype=np.float64)  # |t_v - c_t|^2
    Pbc = np.empty((cap, cap), dtype=np.float64)
    Btoc = np.empty(cap, dtype=np.float64)
    Ctob = np.empty(cap, dtype=np.float64)
    # square roots of the distances above (the triangle bounds use those of Tself, Btoc, Ctob)
    sTself = np.empty((L, cap), dtype=np.float64)
    sBtoc = np.empty(cap, dtype=np.float64)
    sCtob = np.empty(cap, dtype=np.float64)
    nosq = np.empty(0, dtype=np.float64)
    # per triple, the least value over w of each of the two w-dependent terms of a cycle:
    # forward b-term (per v) and a-term (per u), backward a-term (per u) and b-term (per v)
    mBf = np.empty(cap, dtype=np.float64)
    mAf = np.empty(cap, dtype=np.float64)
    mAb = np.empty(cap, dtype=np.float64)
    mBb = np.empty(cap, dtype=np.float64)
    old = sweep - 1
    total = np.int64(0)
    for a in range(G):
        tick[0] = t0 + a * dt
        na = counts[a]
        if na > cap:
            continue
        fresh = np.bool_(True)
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
                    _fill_centroid(X, members, mstart, a, C, a, counts, Aself, nosq, nom)
                    for t in range(L):
                        g = neighbours[a, t]
                        if g < 0 or counts[g] > cap:
                            continue
                        _fill_pair(X, members, mstart, a, g, Pa[t], nom)
                        _fill_centroid(X, members, mstart, a, C, g, counts, Ato[t], nosq, nom)
                        _fill_centroid(X, members, mstart, g, C, a, counts, Tto_a[t], nosq, nom)
                        _fill_centroid(X, members, mstart, g, C, g, counts, Tself[t], sTself[t], nom)
                    fresh = False
                nb_ = counts[b]
                nc = counts[c]
                _fill_centroid(X, members, mstart, b, C, c, counts, Btoc, sBtoc, nom)
                _fill_centroid(X, members, mstart, c, C, b, counts, Ctob, sCtob, nom)
                ia = 1.0 / na
                ib = 1.0 / nb_
                ic = 1.0 / nc
                best = 0.0
                bscale = 0.0
                bu = np.int64(-1)
                bv = np.int64(-1)
                bw = np.int64(-1)
                bdir = np.int64(0)
                # exact pruning: a cycle's change is fb + B + A (forward) or ka + A' + B'
                # (backward) with B, A, A', B' at least their least value over w; rounding is
                # monotone, so when fb + min B + min A >= best no w can beat best (and best only
                # falls): the cycles made are exactly those of the full search
                # (each array element is read once into a local: the same arithmetic, less code
                # to compile, issue 27)
                # (every loop variable and local has a name of its own: Numba's SSA pass walks
                # the whole function once per name assigned in more than one place, issue 27)
                for u0 in range(na):
                    au0 = Aself[u0]
                    a20 = Ato[t2, u0]
                    mf0 = np.inf
                    mb0 = np.inf
                    for w0 in range(nc):
                        pca0 = Pa[t2, u0, w0]
                        x1 = Tto_a[t2, w0] - au0 - pca0 * ia
                        if x1 < mf0:
                            mf0 = x1
                        x2 = a20 - Tself[t2, w0] - pca0 * ic
                        if x2 < mb0:
                            mb0 = x2
                    mAf[u0] = mf0
                    mAb[u0] = mb0
                # the least B and B' over w: first (ph 0) with |x_v - x_w|^2 bounded above by the
                # triangle inequality through c_c and c_b (1e-9 relative slack covers rounding),
                # which needs no row distance: when no (u, v) can then reach a change < 0, the
                # triple is skipped; else (ph 1) with the row distances
                hope = np.bool_(False)
                for ph in range(2):
                    if ph == 1:
                        _fill_pair(X, members, mstart, b, c, Pbc, nom)
                    for v0 in range(nb_):
                        btc0 = Btoc[v0]
                        t1v0 = Tself[t1, v0]
                        sbv = sBtoc[v0]
                        st1v = sTself[t1, v0]
                        mf1 = np.inf
                        mb1 = np.inf
                        for w1 in range(nc):
                            if ph == 0:
                                e1 = sbv + sTself[t2, w1]
                                e2 = sCtob[w1] + st1v
                                f1 = e1 * e1
                                f2 = e2 * e2
                                pvw0 = (f2 if f2 < f1 else f1) * (1.0 + 1e-9)
                            else:
                                pvw0 = Pbc[v0, w1]
                            x3 = btc0 - Tself[t2, w1] - pvw0 * ic
                            if x3 < mf1:
                                mf1 = x3
                            x4 = Ctob[w1] - t1v0 - pvw0 * ib
                            if x4 < mb1:
                                mb1 = x4
                        mBf[v0] = mf1
                        mBb[v0] = mb1
                    if ph == 1:
                        break
                    for u1 in range(na):
                        au1 = Aself[u1]
                        a11 = Ato[t1, u1]
                        mafu1 = mAf[u1]
                        mabu1 = mAb[u1]
                        for v1 in range(nb_):
                            pab1 = Pa[t1, u1, v1]
                            if (a11 - Tself[t1, v1] - pab1 * ib) + mBf[v1] + mafu1 < best or (
                                Tto_a[t1, v1] - au1 - pab1 * ia
                            ) + mabu1 + mBb[v1] < best:
                                hope = True
                                break
                        if hope:
                            break
                    if not hope:
                        break
                if not hope:
                    continue
                for u in range(na):
                    au = Aself[u]
                    a1 = Ato[t1, u]
                    a2 = Ato[t2, u]
                    mafu = mAf[u]
                    mabu = mAb[u]
                    for v in range(nb_):
                        pab = Pa[t1, u, v]
                        t1v = Tself[t1, v]
                        ta1 = Tto_a[t1, v]
                        # forward, u: a->b, v: b->c, w: c->a
                        fb = a1 - t1v - pab * ib
                        # backward, u: a->c, w: c->b, v: b->a
                        ka = ta1 - au - pab * ia
                        dof = fb + mBf[v] + mafu < best
                        dob = ka + mabu + mBb[v] < best
                        if not (dof or dob):
                            continue
                        btc = Btoc[v]
                        for w in range(nc):
                            pca = Pa[t2, u, w]
                            t2w = Tself[t2, w]
                            pvw = Pbc[v, w]
                            ta2 = Tto_a[t2, w]
                            d1 = fb + (btc - t2w - pvw * ic) + (ta2 - au - pca * ia)
                            if dof and d1 < best:
                                best = d1
                                bu = u  # (not a tuple assignment: less to type)
                                bv = v
                                bw = w
                                bdir = 0
                                bscale = a1 + t1v + btc + t2w + ta2 + au
                            cw = Ctob[w]
                            d2 = ka + (a2 - t2w - pca * ic) + (cw - t1v - pvw * ib)
                            if dob and d2 < best:
                                best = d2
                                bu = u
                                bv = v
                                bw = w
                                bdir = 1
                                bscale = ta1 + au + a2 + t2w + cw + t1v
                if bu < 0 or best >= -_RTOL * bscale - atol:
                    continue
                # the rows in member slots s1, s2, s3 of groups a, g2, g3 move a -> g2 -> g3 -> a
                # (bdir 0: g2, g3 = b, c; bdir 1: c, b; as arithmetic, one assignment each;
                # written out once here: a helper with two call sites is a compilation more)
                g2 = b + (c - b) * bdir
                g3 = c + (b - c) * bdir
                s1 = mstart[a] + bu
                s2 = mstart[g2] + bv + (bw - bv) * bdir
                s3 = mstart[g3] + bw + (bv - bw) * bdir
                r1 = members[s1]
                r2 = members[s2]
                r3 = members[s3]
                labels[r1] = g2
                labels[r2] = g3
                labels[r3] = a
                members[s1] = r3
                members[s2] = r1
                members[s3] = r2
                for j1 in range(p):
                    y1 = X[r1, j1]
                    y2 = X[r2, j1]
                    y3 = X[r3, j1]
                    sums[a, j1] += y3 - y1
                    sums[g2, j1] += y1 - y2
                    sums[g3, j1] += y2 - y3
                if nom is not None:
                    _nom_move(nom, r1, a, g2)
                    _nom_move(nom, r2, g2, g3)
                    _nom_move(nom, r3, g3, a)
                for t3 in range(3):
                    h = a if t3 == 0 else (b if t3 == 1 else c)
                    for j2 in range(p):
                        C[h, j2] = sums[h, j2] / counts[h]
                    stamp[h] = sweep
                fresh = True
                total += 1
    tick[0] = t0 + G * dt
    return total


def mil_sweep(X, labels, counts, sums, neighbours, k, stamp, sweep, nom, atol, members, mstart, pairs, max_rounds,
              cycles, cap, tick, t0, dt):
    """One sweep of MIL: the move pass (:func:`mil_move_pass`), then, if ``pairs`` is not None,
    the exchange pass over those group pairs (:func:`mil_exchange_pass`, at most ``max_rounds``
    exchanges per pair), then, if ``cycles``, the 3-cycle pass (:func:`mil_cycle_pass`, groups
    of at most ``cap`` rows; ``tick``, ``t0``, ``dt``: its progress counter). ``members``
    (n,) and ``mstart`` (G + 1,) are filled with the member lists after the moves and kept in
    step by the exchanges and cycles. ``labels``, ``counts``, ``sums``, ``stamp`` and the
    nominal state ``nom`` (None: numeric data) are updated in place. Returns the number of
    moves, exchanges and cycles made."""
    changed = int(mil_move_pass(X, labels, counts, sums, neighbours, k, stamp, sweep, nom, atol, members, mstart))
    if pairs is not None:
        changed += int(mil_exchange_pass(X, labels, counts, sums, members, mstart, pairs, stamp, sweep, max_rounds,
                                         nom, atol))
    if cycles:
        changed += int(mil_cycle_pass(X, labels, counts, sums, members, mstart, neighbours, stamp, sweep, cap, nom,
                                      atol, tick, t0, dt))
    return changed
