"""Wildcard matches between key combinations with missing values (sdcMicro freqCalc rule)."""
from __future__ import annotations

import numpy as np
from numba import njit

from ._common import helper


@njit(cache=True)
def compatible_sums(codes, c, w):
    """For each row i of codes (m, M) int64, -1 = missing: the sums of c and w over the other
    rows j that agree with i on every key where both have a value.

    Parameters
    ----------
    codes : int64 (m, M)
        Key codes, -1 = missing.
    c, w : float64 (m,)
        Counts and weights of the rows.

    Notes
    -----
    sdcMicro 5.8.1 ``freqCalc``'s rule for missing keys; O(m^2 M) pairwise.
    """
    m, M = codes.shape
    oc = np.zeros(m)
    ow = np.zeros(m)
    for i in range(m):
        for j in range(i + 1, m):
            ok = True
            for k in range(M):
                a = codes[i, k]
                b = codes[j, k]
                if a >= 0 and b >= 0 and a != b:
                    ok = False
                    break
            if ok:
                oc[i] += c[j]
                ow[i] += w[j]
                oc[j] += c[i]
                ow[j] += w[i]
    return oc, ow


def cross_compatible_sums(a, b, c, w):
    """For each row i of ``a`` (ma, M) int64, -1 = missing: the sums of ``c`` and ``w`` over
    the rows j of ``b`` (mb, M) that agree with i on every key where both have a value.

    Parameters
    ----------
    a, b : int64 (ma, M), (mb, M)
        Key codes, -1 = missing.
    c, w : float64 (mb,)
        Counts and weights of the rows of ``b``.

    Notes
    -----
    sdcMicro 5.8.1 ``freqCalc``'s rule for missing keys, between two sets of combinations
    (complete ones against those with missing keys); O(ma mb M). The output arrays are made
    here, in numpy (the kernel :func:`_cross_sums_into` compiles no array constructors).

    >>> oc, ow = cross_compatible_sums(np.array([[0, 1], [1, 1]]), np.array([[0, -1]]), np.ones(1), np.full(1, 2.0))
    >>> oc.tolist(), ow.tolist()
    ([1.0, 0.0], [2.0, 0.0])
    """
    oc = np.zeros(a.shape[0])
    ow = np.zeros(a.shape[0])
    _cross_sums_into(np.ascontiguousarray(a, dtype=np.int64), np.ascontiguousarray(b, dtype=np.int64),
                     np.ascontiguousarray(c, dtype=np.float64), np.ascontiguousarray(w, dtype=np.float64), oc, ow)
    return oc, ow


@njit(cache=True)
def _cross_sums_into(a, b, c, w, oc, ow):
    """:func:`cross_compatible_sums` into ``oc``, ``ow`` (zeros, float64 (ma,))."""
    ma, M = a.shape
    mb = b.shape[0]
    for i in range(ma):
        for j in range(mb):
            ok = True
            for k in range(M):
                x = a[i, k]
                y = b[j, k]
                if x >= 0 and y >= 0 and x != y:
                    ok = False
                    break
            if ok:
                oc[i] += c[j]
                ow[i] += w[j]


@helper
def _contribution(C, v, x, g, gx, wild_all):
    """What a record with codes ``x`` (stratum ``gx``) adds to the alpha = 1 frequency of row
    ``v`` of ``C`` under the freqCalc rule: 1 when compatible, except that a record with every
    key missing counts for a complete row only when ``wild_all`` (one key)."""
    if g[v] != gx:
        return 0.0
    m = C.shape[1]
    v_complete = True
    x_complete = True
    x_all = True
    for j in range(m):
        a = C[v, j]
        b = x[j]
        if a < 0:
            v_complete = False
        if b < 0:
            x_complete = False
        else:
            x_all = False
        if a >= 0 and b >= 0 and a != b:
            return 0.0
    if v_complete and x_all and not wild_all:
        return 0.0
    return 1.0


@njit(cache=True)
def suppress_round(C, g, rows, masks, pos, viol, fk, k, wild_all, order, sorted_codes, nnull):
    """One round of local suppression at alpha = 1, record by record: candidate ``rows[t]``
    (its index in ``viol`` is ``pos[t]``) takes the suppressions of bit mask ``masks[t]``
    unless its frequency ``fk[pos[t]]``, kept up to date as earlier candidates become
    wildcards, already reached ``k``. At most one record per round loses every key (with two
    or more keys such a record helps no complete record, but once it exists the others'
    cheaper sets may reach k: the caller re-evaluates them in the next round).

    Only violators compatible with the candidate's new values can change: those equal to it
    or missing on one key it keeps. Per key j, ``order[j]`` lists the violators' positions
    sorted by their code at the start of the round (``sorted_codes[j]``, the ``nnull[j]``
    missing ones first); the candidate looks at the smallest such bucket (violators change
    only when processed, and then are not read again). ``C`` (codes, -1 = missing) and ``fk``
    (the violators' frequencies) are updated in place; returns the number of values
    suppressed.

    Parameters
    ----------
    C : int array (n, M)
        Key codes, -1 = missing; updated in place.
    g : int array (n,)
        Stratum of each row (records of other strata never count).
    rows, masks, pos : int arrays
        Candidates, their suppression bit masks, their index in ``viol``.
    viol : int array
        The violators.
    fk : float64 (len(viol),)
        The violators' frequencies, updated in place.
    k : int
        The k to reach.
    wild_all : bool
        Whether an all-missing record counts for complete ones (one key).
    order, sorted_codes, nnull : arrays
        Per key, the violators sorted by code and the count of missing ones.

    Notes
    -----
    sdcMicro 5.8.1 ``localSuppression`` (the missing-value rule of ``freqCalc``, alpha = 1).
    """
    m = C.shape[1]
    nv = viol.size
    full = (1 << m) - 1
    old = np.empty(m, dtype=C.dtype)
    new = np.empty(m, dtype=C.dtype)
    done = 0
    fulls = 0
    for t in range(rows.size):
        p = pos[t]
        if fk[p] >= k:
            continue
        r = rows[t]
        s = masks[t]
        if s == full and m > 1:
            if fulls > 0:
                continue
            fulls += 1
        for j in range(m):
            old[j] = C[r, j]
            if (s >> j) & 1 and C[r, j] >= 0:
                C[r, j] = -1
                done += 1
            new[j] = C[r, j]
        # the smallest bucket among the kept keys (none kept: every violator)
        best_j = -1
        best_lo = 0
        best_hi = nv
        best_size = nv
        for j in range(m):
            x = new[j]
            if x < 0:
                continue
            lo = np.searchsorted(sorted_codes[j], x, side="left")
            hi = np.searchsorted(sorted_codes[j], x, side="right")
            size = (hi - lo) + nnull[j]
            if size < best_size:
                best_size = size
                best_j = j
                best_lo = lo
                best_hi = hi
        if best_j < 0:
            for q in range(nv):
                v = viol[q]
                if v != r:
                    fk[q] += _contribution(C, v, new, g, g[r], wild_all) - _contribution(C, v, old, g, g[r], wild_all)
        else:
            for part in range(2):
                lo = 0 if part == 0 else best_lo
                hi = nnull[best_j] if part == 0 else best_hi
                for i in range(lo, hi):
                    q = order[best_j, i]
                    v = viol[q]
                    if v != r:
                        fk[q] += (_contribution(C, v, new, g, g[r], wild_all)
                                  - _contribution(C, v, old, g, g[r], wild_all))
        fk[p] = np.inf
    return done


def cheapest_masks(C, g, bad, is_viol, already, k, exact, rank, cost, n_viol):
    """For each violator ``bad[t]``: the cheapest suppression bit mask ``s`` (a strict superset
    of its missing keys ``already[t]``) whose kept keys are shared by >= ``k`` records, and how
    many violators share them; ties: the most violators, then the lowest ``rank`` (the order
    of the masks). Exact counts by a subset-sum (zeta) transform over the ``2^m`` masks: a row
    ``q`` matches the kept keys of ``s`` iff its disagreement mask ``D(r, q)`` (keys where both
    have a value and differ; with ``exact`` False also the keys ``q`` misses) is within ``s``.

    Parameters
    ----------
    C : int64 (n, m)
        Key codes, -1 = missing.
    g : int64 (n,)
        Stratum of each row (other strata never match).
    bad : int64 (nb,)
        The violators' rows.
    is_viol : bool (n,)
        Whether a row is a violator.
    already : int64 (nb,)
        Each violator's missing keys as a bit mask.
    k : float
        The frequency to reach.
    exact : bool
        alpha = 1: a row missing some kept keys matches on the others (else it never matches).
    rank, cost : int64 (2^m,)
        Each mask's position in the search order and its cost.
    n_viol : float
        The cover of the all-keys mask (every violator).

    Returns
    -------
    choice : int64 (nb,)
        The chosen mask, -1 when none reaches ``k`` (then every key is suppressed).
    cover : float64 (nb,)
        The violators sharing the chosen mask's kept keys.

    Notes
    -----
    The search of sdcMicro 5.8.1 ``localSuppression``'s goal (fewest suppressions to k under
    the ``freqCalc`` wildcard rule), done exactly per record; O(n m + m 2^m) per violator.
    Every array is made here, in numpy, so that the kernel (:func:`_cheapest_masks_into`)
    compiles no array constructor of its own (a first call compiles less).
    """
    m = C.shape[1]
    choice = np.full(bad.size, -1, dtype=np.int64)
    cover = np.zeros(bad.size)
    hc = np.zeros(1 << m)
    hv = np.zeros(1 << m)
    _cheapest_masks_into(C, g, bad, is_viol, already, float(k), bool(exact), rank, cost, float(n_viol),
                         choice, cover, hc, hv)
    return choice, cover


@njit(cache=True)
def _cheapest_masks_into(C, g, bad, is_viol, already, k, exact, rank, cost, n_viol, choice, cover, hc, hv):
    """:func:`cheapest_masks` into ``choice`` (-1s), ``cover`` (zeros), with the work arrays
    ``hc``, ``hv`` (float64 (2^m,))."""
    n, m = C.shape
    size = 1 << m
    full = size - 1
    nb = bad.size
    for t in range(nb):
        r = bad[t]
        for s in range(size):
            hc[s] = 0.0
            hv[s] = 0.0
        for q in range(n):
            if g[q] != g[r]:
                continue
            d = 0
            nm = 0
            for j in range(m):
                b = C[q, j]
                if b < 0:
                    nm |= 1 << j
                else:
                    a = C[r, j]
                    if a >= 0 and a != b:
                        d |= 1 << j
            if exact:
                hc[d] += 1.0
            else:
                hc[d | nm] += 1.0
            if is_viol[q]:
                hv[d | nm] += 1.0
        for j in range(m):
            bit = 1 << j
            for s in range(size):
                if s & bit:
                    hc[s] += hc[s ^ bit]
                    hv[s] += hv[s ^ bit]
        a0 = already[t]
        best = -1
        best_cost = 0
        best_cov = 0.0
        best_rank = 0
        for s in range(size):
            if (s & a0) != a0 or s == a0:
                continue
            if s == full:
                c = float(n)
                v = n_viol
            else:
                c = hc[s]
                v = hv[s]
            if c < k:
                continue
            if best < 0 or cost[s] < best_cost or (cost[s] == best_cost and (
                    v > best_cov or (v == best_cov and rank[s] < best_rank))):
                best = s
                best_cost = cost[s]
                best_cov = v
                best_rank = rank[s]
        choice[t] = best
        if best >= 0:
            cover[t] = best_cov
