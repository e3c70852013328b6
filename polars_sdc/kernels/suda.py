"""SUDA2 kernels: which key subsets make a record a sample unique, and its minimal ones.

A record's minimal sample unique (MSU) is a set S of keys on which the record's value
combination occurs once in the sample, while on every S minus one key it occurs more than
once (Elliot, Manning & Ford 2002, SUDA; Manning, Haglin & Keane 2008, SUDA2). Uniqueness
only grows with S, so "every S minus one key" covers every proper subset.

The key subsets of size <= max_size are visited depth first, each one from its parent (S
without its highest key): the parent's dense group ids times (levels + 1) plus the record's
code gives the child's ids, made dense again by a direct-address table when it fits, else an
open-addressing hash table. A bit per (candidate record, subset) says "unique on S"; a second
pass keeps the minimal ones. Only records unique on all keys can have an MSU (candidates).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ._common import helper

_EMPTY = -1


@helper
def _extend(pid, pcounts, pgroups, col, width, out_ids, counts, buf, hkeys, hslot_of, used):
    """Dense ids of (parent id, col) pairs into out_ids, their counts into counts; returns
    the number of groups. A row alone in its parent group stays alone: no lookup (a new
    group of size 1)."""
    n = pid.size
    g = np.int64(0)
    span = pgroups * width
    if span <= buf.size:
        for r in range(n):
            if pcounts[pid[r]] == 1:
                out_ids[r] = g
                counts[g] = 1
                g += 1
                continue
            v = pid[r] * width + col[r]
            t = buf[v]
            if t < 0:
                t = g
                buf[v] = g
                counts[g] = 0
                g += 1
            out_ids[r] = t
            counts[t] += 1
        for r in range(n):
            if pcounts[pid[r]] != 1:
                buf[pid[r] * width + col[r]] = -1
        return g
    mask = hkeys.size - 1
    nused = np.int64(0)
    for r in range(n):
        if pcounts[pid[r]] == 1:
            out_ids[r] = g
            counts[g] = 1
            g += 1
            continue
        v = np.int64(pid[r]) * width + col[r]
        h = (np.uint64(v) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(20)
        s = np.int64(h & np.uint64(mask))
        while True:
            k = hkeys[s]
            if k == v:
                t = hslot_of[s]
                break
            if k == _EMPTY:
                hkeys[s] = v
                hslot_of[s] = g
                used[nused] = s
                nused += 1
                counts[g] = 0
                t = g
                g += 1
                break
            s = (s + 1) & mask
        out_ids[r] = t
        counts[t] += 1
    for i in range(nused):
        hkeys[used[i]] = _EMPTY
    return g


def unique_bits(cols, miss, cand, max_size):
    """Bit (c, S) set when candidate row cand[c] has no missing key in S and its values on
    the keys of S occur once. cols: (M, n) int64 codes + 1 (0 = missing, counted as its own
    value); miss: per-row bit mask of missing keys. Returns (n_cand, ceil(2^M / 64)) uint64.

    Parameters
    ----------
    cols : int64 (M, n)
        Key codes + 1 (0 = missing).
    miss : int64 (n,)
        Bit mask of each row's missing keys.
    cand : int array (n_cand,)
        Candidate rows.
    max_size : int
        Largest key subset visited.

    Notes
    -----
    SUDA2 (Manning, Haglin & Keane 2008) as sdcMicro's ``suda2``; O(2^M n) at worst. The
    arrays are allocated here, in numpy, for the kernel :func:`_unique_bits` (every dtype /
    shape of an allocation inside a kernel compiles apart: 24 compilations, ~1 s of a first
    call).
    """
    cols = np.ascontiguousarray(cols, dtype=np.int64)
    M, n = cols.shape
    cand = np.ascontiguousarray(cand, dtype=np.int64)
    nwords = ((1 << M) + 63) >> 6
    bits = np.zeros((cand.size, nwords), dtype=np.uint64)
    ids = np.zeros((max_size + 1, n), dtype=np.int32)
    ngroups = np.zeros(max_size + 1, dtype=np.int64)
    ngroups[0] = 1
    counts = np.zeros((max_size + 1, n + 1), dtype=np.int32)
    counts[0, 0] = n
    width = (cols.max(axis=1) if n else np.zeros(M, dtype=np.int64)) + 1  # codes are >= 0
    buf = np.full(max(4 * n, 1 << 16), -1, dtype=np.int32)
    hsize = 1
    while hsize < 2 * n + 2:
        hsize <<= 1
    hkeys = np.full(hsize, _EMPTY, dtype=np.int64)
    hslot = np.zeros(hsize, dtype=np.int32)
    used = np.zeros(n + 1, dtype=np.int64)
    stacks = np.zeros((2, max_size + 1), dtype=np.int64)
    _unique_bits(cols, np.ascontiguousarray(miss, dtype=np.int64), cand, np.int64(max_size), bits, ids, ngroups,
                 counts, width, buf, hkeys, hslot, used, stacks)
    return bits


@njit(cache=True)
def _unique_bits(cols, miss, cand, max_size, bits, ids, ngroups, counts, width, buf, hkeys, hslot, used, stacks):
    """:func:`unique_bits` into ``bits`` on the arrays it allocates (``stacks``: the subset
    and next key of each depth)."""
    M, n = cols.shape
    nc = cand.size
    stack_s = stacks[0]
    stack_k = stacks[1]
    d = np.int64(0)
    while d >= 0:
        k = stack_k[d]
        if k >= M or d == max_size:
            d -= 1
            continue
        stack_k[d] = k + 1
        S = stack_s[d] | (np.int64(1) << k)
        if ngroups[d] == n:  # parent already all unique: so is S
            for r in range(n):
                ids[d + 1, r] = ids[d, r]
                counts[d + 1, r] = 1
            ngroups[d + 1] = n
        else:
            ngroups[d + 1] = _extend(
                ids[d], counts[d], ngroups[d], cols[k], width[k], ids[d + 1], counts[d + 1], buf, hkeys, hslot, used
            )
        w = S >> 6
        b = np.uint64(1) << np.uint64(S & 63)
        for c in range(nc):
            r = cand[c]
            if (miss[r] & S) == 0 and counts[d + 1, ids[d + 1, r]] == 1:
                bits[c, w] |= b
        stack_s[d + 1] = S
        stack_k[d + 1] = k + 1
        d += 1


def msu_scores(bits, M, max_size, weight_of_size):
    """From unique_bits: per candidate the score sum over its MSUs S of weight_of_size[|S|],
    the per-key sums of those weights (contributions), and the MSU counts by size.

    Parameters
    ----------
    bits : uint64 (n_cand, W)
        Output of :func:`unique_bits`.
    M : int
        Number of keys.
    max_size : int
        Largest key subset.
    weight_of_size : float64 (M + 1,)
        Score weight of an MSU of each size.

    Notes
    -----
    SUDA (Elliot, Manning & Ford 2002) scores as sdcMicro's ``suda2`` weights them. The
    outputs are allocated here, in numpy (see :func:`unique_bits`); the kernel is
    :func:`_msu_scores`.
    """
    nc = bits.shape[0]
    pop = np.zeros(1 << M, dtype=np.int64)
    score = np.zeros(nc)
    contrib = np.zeros((nc, M))
    nmsu = np.zeros((nc, M + 1), dtype=np.int64)
    _msu_scores(bits, np.int64(M), np.int64(max_size), np.ascontiguousarray(weight_of_size, dtype=np.float64),
                pop, score, contrib, nmsu)
    return score, contrib, nmsu


@njit(cache=True)
def _msu_scores(bits, M, max_size, weight_of_size, pop, score, contrib, nmsu):
    """:func:`msu_scores` into ``score``, ``contrib``, ``nmsu`` (zeros); ``pop``: scratch of
    2^M popcounts."""
    nc = bits.shape[0]
    nsub = 1 << M
    for S in range(1, nsub):
        pop[S] = pop[S >> 1] + (S & 1)
    one = np.uint64(1)
    for c in range(nc):
        for S in range(1, nsub):
            if pop[S] > max_size:
                continue
            if (bits[c, S >> 6] >> np.uint64(S & 63)) & one == 0:
                continue
            minimal = True
            for k in range(M):
                if (S >> k) & 1:
                    T = S ^ (1 << k)
                    if T != 0 and (bits[c, T >> 6] >> np.uint64(T & 63)) & one:
                        minimal = False
                        break
            if minimal:
                sz = pop[S]
                wt = weight_of_size[sz]
                score[c] += wt
                nmsu[c, sz] += 1
                for k in range(M):
                    if (S >> k) & 1:
                        contrib[c, k] += wt
