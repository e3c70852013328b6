"""Numba kernel of targeted record swapping (sdcMicro 5.8.1 ``recordSwap``, the loop of
``src/recordSwap/recordSwap.cpp``): households in, the partner of every swapped household out.

Everything random (the donor order of each level, the sampling order of each lowest-level
area) arrives precomputed as orderings, so the kernel is deterministic; the plain-Python
reference is ``tests/naive.py: record_swap_partners``.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ._common import helper


@njit(cache=True, inline="always")
def _next_free(lst, nxt, used, pos, end):
    """First position ``>= pos`` (and ``< end``) of ``lst`` whose household is not used;
    ``nxt`` are skip pointers over used entries, compressed along the walked path (used
    households never become free again, so a skip stays valid)."""
    r = pos
    while r < end and used[lst[r]]:
        t = nxt[r]
        r = t if t > r else r + 1
    q = pos
    while q < r:
        t = nxt[q]
        nxt[q] = r
        q = t if t > q else q + 1
    return r


@helper
def _find_donor(i, h, area, simc, dl, bstart, nxt, used, pair_own, pair_free, bucket_free):
    """sdcMicro ``sampleDonor`` for household ``i`` at level ``h``: for each similarity profile
    in turn, the first household in descending donor order (``dl[h, p]``, bucketed by the
    profile's code: ``bstart[h, p, c] .. bstart[h, p, c + 1]``) that is not used yet, lies in
    another area at level ``h`` and has ``i``'s profile; -1 when no profile finds one. A
    profile is skipped without a scan when every free donor of its bucket is in ``i``'s area
    (``bucket_free`` minus ``pair_free`` of ``i``'s (profile, area) pair is 0)."""
    a = area[h, i]
    for p in range(simc.shape[0]):
        c = simc[p, i]
        if bucket_free[h, p, c] - pair_free[h, p, pair_own[h, p, i]] <= 0:
            continue
        lo = bstart[h, p, c]
        end = bstart[h, p, c + 1]
        lst = dl[h, p]
        link = nxt[h, p]
        r = _next_free(lst, link, used, lo, end)
        while r < end:
            d = lst[r]
            if area[h, d] != a:
                return d
            r = _next_free(lst, link, used, r + 1, end)
    return -1


@helper
def _take(x, elig, simc, pair_own, pair_free, bucket_free, used):
    """Mark household ``x`` swapped and drop it from the free-donor counts."""
    used[x] = True
    for h in range(elig.shape[0]):
        if elig[h, x]:
            for p in range(simc.shape[0]):
                bucket_free[h, p, simc[p, x]] -= 1
                pair_free[h, p, pair_own[h, p, x]] -= 1


@helper
def _place(i, h, area, simc, dl, bstart, nxt, used, elig, pair_own, pair_free, bucket_free, partner, swap_level,
           selected, failed):
    """Selected household ``i`` at level ``h``: swap it with its donor, or mark it failed."""
    d = _find_donor(i, h, area, simc, dl, bstart, nxt, used, pair_own, pair_free, bucket_free)
    if d < 0:
        failed[i] = True
        return
    _take(i, elig, simc, pair_own, pair_free, bucket_free, used)
    _take(d, elig, simc, pair_own, pair_free, bucket_free, used)
    partner[i] = d
    partner[d] = i
    swap_level[i] = h
    swap_level[d] = h
    selected[i] = True
    failed[d] = False


@njit(cache=True)
def record_swap_partners(area, level, simc, dl, bstart, forced_seq, forced_off, last_seq, last_off, last_class,
                         draws, elig, pair_own, pair_free, bucket_free):
    """The targeted record swapping loop of sdcMicro 5.8.1 (``recordSwap.cpp: recordSwap``) on
    ``H`` households (indices in household-id order) and ``L`` hierarchy levels.

    ``area[h, i]``: household ``i``'s area at level ``h`` (codes of the hierarchy prefix
    ``0..h``, in lexicographic order); ``level[i]``: the first level at which it is at risk
    (``L``: none); ``simc[p, i]``: its code for similarity profile ``p``; ``dl[h, p]``: the
    eligible donors at level ``h`` grouped by profile-``p`` code, each group in descending
    donor key (``prob / Exp(1)``), with group bounds ``bstart[h, p]``.

    Levels ``h < L - 1``: the households at risk at ``h`` (``forced_seq[forced_off[h] :
    forced_off[h + 1]]``, by area then id), each not yet swapped, get a donor from another area
    of level ``h``. Last level: per lowest area ``a`` (``last_seq[last_off[a] : last_off[a +
    1]]``: class 0 = at risk at the last level, by id; then the others by descending sampling
    key, class 1 eligible, class 2 never sampled), the households at risk plus as many
    sampled ones as ``draws[a]`` minus the area's households already selected at a higher
    level still allows; then each gets a donor from another lowest area. Every household is
    swapped at most once.

    ``elig[h, i]``: household ``i`` may be a donor at level ``h`` (risk > 0);
    ``pair_own[h, p, i]``: the code of its (profile-``p`` code, level-``h`` area) pair;
    ``pair_free`` / ``bucket_free``: free eligible donors per pair / per profile code (updated
    in place), so a profile whose free donors all lie in the household's own area is skipped
    without a scan.

    Returns ``partner`` (-1: not swapped), ``swap_level`` (-1), ``selected`` (the household
    that was looked for, as opposed to its donor) and ``failed`` (selected, no donor found).

    Parameters
    ----------
    area, level, simc, dl, bstart : int arrays
        Areas per level, first level at risk, similarity codes, donor lists and their bounds.
    forced_seq, forced_off, last_seq, last_off, last_class : int arrays
        The households to swap per level, and per lowest area at the last level.
    draws : int array
        Households to sample per lowest area.
    elig : bool array (L, H)
        Donor eligibility per level.
    pair_own, pair_free, bucket_free : int arrays
        Donor bookkeeping (updated in place).

    Notes
    -----
    sdcMicro 5.8.1 ``recordSwap`` (targeted record swapping); its C++ loop carried over
    step by step so the same households are swapped.
    """
    L, H = area.shape
    used = np.zeros(H, dtype=np.bool_)
    failed = np.zeros(H, dtype=np.bool_)
    selected = np.zeros(H, dtype=np.bool_)
    partner = np.full(H, -1, dtype=np.int64)
    swap_level = np.full(H, -1, dtype=np.int64)
    P = simc.shape[0]
    nxt = np.empty((L, P, H), dtype=np.int64)
    for h in range(L):
        for p in range(P):
            for t in range(H):
                nxt[h, p, t] = t
    for h in range(L - 1):
        for t in range(forced_off[h], forced_off[h + 1]):
            i = forced_seq[t]
            if used[i]:
                continue
            _place(i, h, area, simc, dl, bstart, nxt, used, elig, pair_own, pair_free, bucket_free, partner,
                   swap_level, selected, failed)
    h = L - 1
    n_area = draws.shape[0]
    already = np.zeros(n_area, dtype=np.int64)
    for i in range(H):
        if selected[i]:
            already[area[h, i]] += 1
    pick = np.empty(H, dtype=np.int64)
    for a in range(n_area):
        want = max(0, draws[a] - already[a])
        m = 0
        for t in range(last_off[a], last_off[a + 1]):
            i = last_seq[t]
            if last_class[i] == 0 and not used[i]:
                pick[m] = i
                m += 1
        for t in range(last_off[a], last_off[a + 1]):
            if m >= want:
                break
            i = last_seq[t]
            if last_class[i] == 1 and not used[i] and not failed[i]:
                pick[m] = i
                m += 1
        for t in range(m):
            i = pick[t]
            if used[i]:
                continue
            _place(i, h, area, simc, dl, bstart, nxt, used, elig, pair_own, pair_free, bucket_free, partner,
                   swap_level, selected, failed)
    return partner, swap_level, selected, failed
