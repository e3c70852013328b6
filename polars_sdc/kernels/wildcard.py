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
                        fk[q] += _contribution(C, v, new, g, g[r], wild_all) - _contribution(C, v, old, g, g[r], wild_all)
        fk[p] = np.inf
    return done
