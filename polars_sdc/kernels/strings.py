"""String distances for ILD (thesis 3.2.2): Hamming, Levenshtein, normalised Levenshtein,
Damerau-Levenshtein, and the information amount of a column of distinct strings.

Strings arrive encoded: ``chars`` holds every string's characters as dense alphabet ids
(int64, 0 .. n_alpha-1) back to back and ``offsets`` (U + 1) delimits string u as
``chars[offsets[u]:offsets[u+1]]``. Levenshtein uses the bit-parallel algorithm of Myers
(1999) in Hyyrö's formulation when the shorter string has at most 64 characters (O(len) per
pair), else the two-row dynamic programme. Damerau-Levenshtein is the unrestricted
distance (adjacent transpositions, Lowrance-Wagner). No U x U matrix is kept by
:func:`string_amount`.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ._common import helper

HAMMING = 0
LEVENSHTEIN = 1
LEVENSHTEIN_NORM = 2
DAMERAU = 3

_ONE = np.uint64(1)
_ZERO = np.uint64(0)


@helper
def _lev_dp(chars, a0, la, b0, lb, row):
    """Levenshtein distance by the two-row dynamic programme; ``row`` has >= lb + 1 slots."""
    for j in range(lb + 1):
        row[j] = j
    for i in range(1, la + 1):
        ca = chars[a0 + i - 1]
        diag = row[0]
        row[0] = i
        for j in range(1, lb + 1):
            up = row[j]
            best = diag + (0 if ca == chars[b0 + j - 1] else 1)
            if up + 1 < best:
                best = up + 1
            if row[j - 1] + 1 < best:
                best = row[j - 1] + 1
            row[j] = best
            diag = up
    return row[lb]


@helper
def _lev_bits(peq, m, chars, b0, lb):
    """Levenshtein distance between a pattern of length 1 <= m <= 64, whose match masks
    are in ``peq`` (one uint64 per alphabet id), and the text chars[b0:b0+lb]
    (Myers 1999 / Hyyrö 2001, global distance)."""
    pv = ~_ZERO
    mv = _ZERO
    score = m
    high = _ONE << np.uint64(m - 1)
    for j in range(lb):
        eq = peq[chars[b0 + j]]
        xv = eq | mv
        xh = (((eq & pv) + pv) ^ pv) | eq
        ph = mv | ~(xh | pv)
        mh = pv & xh
        if ph & high:
            score += 1
        elif mh & high:
            score -= 1
        ph = (ph << _ONE) | _ONE
        mh = mh << _ONE
        pv = mh | ~(xv | ph)
        mv = ph & xv
    return score


@helper
def _damerau(chars, a0, la, b0, lb, da, H):
    """Unrestricted Damerau-Levenshtein distance (insert, delete, substitute, transpose
    adjacent characters). ``da`` (alphabet size) must be all zero and is left all zero;
    ``H`` is a scratch matrix of at least (la + 2, lb + 2)."""
    maxd = la + lb
    H[0, 0] = maxd
    for i in range(la + 1):
        H[i + 1, 0] = maxd
        H[i + 1, 1] = i
    for j in range(lb + 1):
        H[0, j + 1] = maxd
        H[1, j + 1] = j
    for i in range(1, la + 1):
        db = 0
        ca = chars[a0 + i - 1]
        for j in range(1, lb + 1):
            cb = chars[b0 + j - 1]
            k = da[cb]
            l = db
            if ca == cb:
                cost = 0
                db = j
            else:
                cost = 1
            best = H[i, j] + cost
            if H[i + 1, j] + 1 < best:
                best = H[i + 1, j] + 1
            if H[i, j + 1] + 1 < best:
                best = H[i, j + 1] + 1
            t = H[k, l] + (i - k - 1) + 1 + (j - l - 1)
            if t < best:
                best = t
            H[i + 1, j + 1] = best
        da[ca] = i
    out = H[la + 1, lb + 1]
    for i in range(la):
        da[chars[a0 + i]] = 0
    return out


@helper
def _pair(chars, offsets, u, v, kind, peq, m_bits, row, da, H):
    """Distance between strings u and v; when ``m_bits`` > 0, ``peq`` holds the match masks
    of string u (its length m_bits <= 64)."""
    a0 = offsets[u]
    la = offsets[u + 1] - a0
    b0 = offsets[v]
    lb = offsets[v + 1] - b0
    if kind == HAMMING:
        s = 0
        for i in range(la):
            if chars[a0 + i] != chars[b0 + i]:
                s += 1
        return float(s)
    if kind == DAMERAU:
        return float(_damerau(chars, a0, la, b0, lb, da, H))
    if la == 0 or lb == 0:
        d = la + lb
    elif m_bits > 0:
        d = _lev_bits(peq, m_bits, chars, b0, lb)
    else:
        d = _lev_dp(chars, a0, la, b0, lb, row)
    if kind == LEVENSHTEIN_NORM:
        return d / (la if la > lb else lb) if d > 0 else 0.0
    return float(d)


@helper
def _set_peq(chars, offsets, u, peq, value):
    a0 = offsets[u]
    la = offsets[u + 1] - a0
    if value:
        for i in range(la):
            peq[chars[a0 + i]] |= _ONE << np.uint64(i)
    else:
        for i in range(la):
            peq[chars[a0 + i]] = _ZERO


@helper
def _scratch(offsets, n_alpha):
    maxlen = 0
    for u in range(offsets.size - 1):
        if offsets[u + 1] - offsets[u] > maxlen:
            maxlen = offsets[u + 1] - offsets[u]
    peq = np.zeros(n_alpha, dtype=np.uint64)
    row = np.empty(maxlen + 1, dtype=np.int64)
    da = np.zeros(n_alpha, dtype=np.int64)
    H = np.empty((maxlen + 2, maxlen + 2), dtype=np.int64)
    return peq, row, da, H


@njit(cache=True)
def string_amount(chars, offsets, counts, kind, exponent, n_alpha):
    """Information amount sum_u sum_v c_u c_v d(u, v)^exponent (thesis eq. 3.1.2, counted
    over U distinct strings with multiplicities ``counts``): 2 x the sum over u < v.

    O(U^2) distance evaluations, O(U + n_alpha + maxlen^2) memory.

    Parameters
    ----------
    chars : int64 (sum len,)
        Characters as alphabet ids, strings back to back.
    offsets : int64 (U + 1,)
        String bounds in ``chars``.
    counts : float64 (U,)
        Multiplicity of each string.
    kind : int
        The distance (Hamming, Levenshtein, normalised Levenshtein, Damerau-Levenshtein).
    exponent : float
        The exponent e of ``d^e``.
    n_alpha : int
        Alphabet size.

    Notes
    -----
    Akiyama & Wada (ILD of strings); Akiyama 2018 (thesis) 3.2.2.
    """
    U = offsets.size - 1
    peq, row, da, H = _scratch(offsets, n_alpha)
    use_bits = kind == LEVENSHTEIN or kind == LEVENSHTEIN_NORM
    total = 0.0
    for u in range(U):
        la = offsets[u + 1] - offsets[u]
        m_bits = la if (use_bits and 0 < la <= 64) else 0
        if m_bits > 0:
            _set_peq(chars, offsets, u, peq, True)
        cu = counts[u]
        part = 0.0
        for v in range(u + 1, U):
            d = _pair(chars, offsets, u, v, kind, peq, m_bits, row, da, H)
            if d > 0.0:
                if exponent == 2.0:
                    p = d * d
                elif exponent == 1.0:
                    p = d
                else:
                    p = d**exponent
                part += counts[v] * p
        if m_bits > 0:
            _set_peq(chars, offsets, u, peq, False)
        total += cu * part
    return 2.0 * total


@njit(cache=True)
def string_matrix(chars, offsets, kind, n_alpha):
    """The U x U matrix of distances between the encoded strings (symmetric, zero diagonal).

    Parameters
    ----------
    chars, offsets, kind, n_alpha
        As for :func:`string_amount`.

    Notes
    -----
    For small U (inspection, tests, graph distances); O(U^2) memory.
    """
    U = offsets.size - 1
    peq, row, da, H = _scratch(offsets, n_alpha)
    use_bits = kind == LEVENSHTEIN or kind == LEVENSHTEIN_NORM
    D = np.zeros((U, U), dtype=np.float64)
    for u in range(U):
        la = offsets[u + 1] - offsets[u]
        m_bits = la if (use_bits and 0 < la <= 64) else 0
        if m_bits > 0:
            _set_peq(chars, offsets, u, peq, True)
        for v in range(u + 1, U):
            d = _pair(chars, offsets, u, v, kind, peq, m_bits, row, da, H)
            D[u, v] = d
            D[v, u] = d
        if m_bits > 0:
            _set_peq(chars, offsets, u, peq, False)
    return D
