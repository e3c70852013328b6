"""Local suppression to k-anonymity (after sdcMicro 5.8.1 ``localSuppression`` / ``localSupp``).

A suppressed key value becomes null, and a null matches any value: the frequencies of
:mod:`polars_sdc.risk.frequencies` (sdcMicro ``freqCalc`` with the ``alpha`` rule, the one
rule ``k_anonymity`` and ``risk`` use) decide whether a record is k-anonymous, and the release
is checked with them before it is returned. Under that rule a record with *every* key missing
(two or more keys) has ``fk = n`` but no longer counts for the complete records it matched
(sdcMicro's ``addAllNAtoKeys = FALSE``); with one key it does.

Algorithm (ours; sdcMicro's is a record-by-record greedy that suppresses the key with most
categories that differs from a close record). With ``alpha = 1`` a record with some key
values suppressed, kept on the subset ``T`` of the keys, is compatible with at least every
record that had its values on ``T`` in the original data, so:

1. ``count_T(r)`` = number of records equal to ``r`` on ``T`` (plus those already compatible
   through their nulls): either one counting pass per subset ``T`` (``2^m`` subsets for ``m``
   keys, visited cheapest first and only while some record still needs one; fast with few
   keys and many rows), or per record, the records' disagreement masks summed over every
   subset at once (:func:`polars_sdc.kernels.wildcard.cheapest_masks`, O(n m + m 2^m) per
   record; fast with many keys), whichever :func:`_estimates` finds cheaper: the same choice.
   The search is exponential in ``m`` (finding the fewest suppressions is NP-hard), so more
   than :data:`MAX_KEYS` keys in one subset, or a round estimated above
   :data:`MAX_ROUND_SECONDS`, is an :class:`SDCError` naming ``combs`` before the work starts;
2. each record with ``fk < k`` gets the *cheapest* set of suppressions ``S`` with
   ``count_{keys - S}(r) >= k``; cheapest (:func:`_masks`): by default (``tiebreak``) the
   fewest suppressions, then the set whose wildcard helps most other violators, then the
   least important keys; with ``importance`` (sdcMicro's priority) the fewest suppressions of
   rank-1 keys, then of rank-2 keys, and so on;
3. records are processed in rounds, the easiest (fewest suppressions needed) first, record
   by record (:func:`polars_sdc.kernels.wildcard.suppress_round` keeps the violators'
   frequencies up to date and skips those that earlier wildcards already brought to k; at most
   one record per round loses every key); after a round the frequencies are recomputed, and
   records that became k-anonymous thanks to the wildcards suppressed so far need nothing,
   while a complete record whose partners all lost every key becomes a violator again;
4. with ``alpha < 1`` the lower bound of step 1 may not hold, so rounds continue on the
   remaining violators with more suppressions until none is left (a record with every key
   suppressed matches all ``n`` records).

Ranks (``importance`` or ``tiebreak``): one integer per key or a ``{column: rank}`` mapping,
1 = keep longest; by default keys with more categories are suppressed first. ``combs=[2, 3]``
applies the rule to every subset of 2 and of 3 keys in turn (sdcMicro ``combs``), in passes
until none changes. ``by``: k-anonymity within each stratum (the strata are never suppressed; a null
is a stratum of its own, as in Polars' ``group_by`` and every other ``by=``).
"""
from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np
import polars as pl

from .._columns import ColumnSpec, check_k, resolve_columns
from .._errors import SDCError
from .._validation import check_int, check_real
from ..risk.frequencies import all_missing_is_wildcard


def _importance(codes: pl.DataFrame, keys: list[str], importance: Any, name: str = "importance") -> np.ndarray:
    """One rank per key, 1 = keep longest (sdcMicro's ``importance`` convention; equal ranks
    allowed). ``importance``: None (keys with more categories are suppressed first, as
    sdcMicro's default; also spelt ``"categories"``), a list of one integer in 1..m per key, or a ``{column: rank}``
    mapping (positive integers; keys not named rank after every named one, among themselves
    by the default)."""
    m = len(keys)
    ncat = np.array([codes.get_column(c).n_unique() for c in keys])
    # many categories -> suppressed first -> importance m; ties keep key order
    order = np.argsort(-ncat, kind="stable")
    default = np.empty(m, dtype=np.int64)
    default[order] = np.arange(m, 0, -1)
    if importance is None or (isinstance(importance, str) and importance == "categories"):
        return default
    if isinstance(importance, dict):
        unknown = [c for c in importance if c not in keys]
        if unknown:
            raise SDCError(f"{name}: {unknown[0]!r} is not one of the keys in `on` ({keys})")
        if any(isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1 for v in importance.values()):
            raise SDCError(f"{name} must map key columns to positive integers (1 = keep longest), got {importance!r}")
        top = max(importance.values(), default=0)
        rank = np.array([importance[c] if c in importance else top + default[j] for j, c in enumerate(keys)])
        return np.searchsorted(np.unique(rank), rank) + 1            # dense ranks 1, 2, ...
    if isinstance(importance, (str, bytes)) or not isinstance(importance, Sequence) or len(importance) != m:
        raise SDCError(f"{name} must be a list of {m} integers (1 = keep longest), a {{column: rank}} mapping or "
                       f"'categories' (more categories: suppressed first), got {importance!r}")
    if any(isinstance(v, bool) or not isinstance(v, (int, np.integer)) or not 1 <= v <= m for v in importance):
        raise SDCError(f"{name} must hold integers between 1 and {m}, got {list(importance)!r}")
    return np.asarray(importance, dtype=np.int64)


def _masks(m: int, imp: np.ndarray, priority: bool) -> tuple[np.ndarray, np.ndarray]:
    """Suppression sets as bit masks, cheapest first, with their cost tier (0 = cheapest;
    equal tiers cost the same).

    ``priority`` (sdcMicro's ``importance``): the cost counts the suppressed keys of each
    rank, most important rank first, lexicographically (a key of rank 1 is suppressed only
    when no set of less important keys reaches k); ties by the mask. Otherwise (fewest
    suppressions): the cost is the number of suppressed keys, and within a cost the least
    important keys come first (a key of rank i weighs ``2^(m - i)``), then the mask."""
    s = np.arange(1 << m, dtype=np.int64)
    bits = [(s >> j) & 1 for j in range(m)]
    popcount = np.sum(bits, axis=0) if m else np.zeros(1, dtype=np.int64)
    if priority:
        # per rank (1 = most important first): how many keys of that rank the mask suppresses
        per_rank = [np.sum([bits[j] for j in range(m) if imp[j] == r], axis=0) for r in sorted(set(imp.tolist()))]
        order = np.lexsort([s, *reversed(per_rank)])
        cost_keys = np.stack(per_rank, axis=1)[order]
    else:
        weight = np.zeros(1 << m, dtype=np.int64)
        for j in range(m):
            weight += bits[j] << (m - int(imp[j]))
        order = np.lexsort([s, weight, popcount])
        cost_keys = popcount[order][:, None]
    new_tier = np.ones(order.size, dtype=bool)
    new_tier[1:] = (cost_keys[1:] != cost_keys[:-1]).any(axis=1)
    return order, np.cumsum(new_tier) - 1


def _true_fk(C: np.ndarray, g: np.ndarray, alpha: float) -> np.ndarray:
    """fk of every row (sdcMicro freqCalc rule, :func:`polars_sdc.risk.frequencies.frequencies`)
    of the code matrix ``C`` (-1 = null) within the strata ``g``."""
    from ..risk.frequencies import frequencies

    m = C.shape[1]
    keys = [f"k{j}" for j in range(m)]
    frame = pl.DataFrame({c: C[:, j] for j, c in enumerate(keys)}).select(
        pl.when(pl.col(c) >= 0).then(pl.col(c)).alias(c) for c in keys)
    if g.max(initial=0) == 0:
        return frequencies(frame, keys, None, alpha)[0]
    out = np.empty(C.shape[0])
    parts = frame.with_columns(pl.Series("__g", g), pl.Series("__i", np.arange(C.shape[0])))
    for part in parts.partition_by("__g", as_dict=False):
        out[part.get_column("__i").to_numpy()] = frequencies(part, keys, None, alpha)[0]
    return out


class _Keys:
    """Integer keys of rows on a subset of the key columns (mixed radix over the codes, the
    stratum first), from the codes *before* suppression: a row is only ever asked for its key
    on columns where it still has its value, so the keys of every subset are computed once
    and cached. Exact; rows are hashed (64 bits) when the radix product overflows."""

    def __init__(self, C: np.ndarray, g: np.ndarray):
        self.C = C                                   # current codes (-1 = suppressed)
        self.C0 = np.asfortranarray(C)               # codes before suppression
        self.g = g
        self.card = C.max(axis=0, initial=-1) + 2
        self.g_card = int(g.max(initial=0)) + 1
        self._fcard = [float(c) for c in self.card]
        self._cache: dict[tuple, np.ndarray] = {}
        self._spaces: dict[tuple, float] = {}
        # cached key arrays: up to ~256 MB of them (a search visits many subsets again)
        self._cache_max = max(96, (256 << 20) // max(8 * C.shape[0], 1))

    def space(self, cols: list[int]) -> float:
        """The number of possible keys on ``cols`` (as a float: it may be huge)."""
        t = tuple(cols)
        v = self._spaces.get(t)
        if v is None:
            v = float(self.g_card)
            for j in cols:
                v *= self._fcard[j]
            self._spaces[t] = v
        return v

    def _all(self, cols: list[int]) -> np.ndarray:
        t = tuple(cols)
        h = self._cache.get(t)
        if h is None:
            if self.space(cols) < 2.0 ** 62:
                h = self.g.astype(np.int64)
                for j in cols:
                    h = h * int(self.card[j]) + (self.C0[:, j] + 1)
            else:
                sub = pl.DataFrame([pl.Series(self.g)] + [pl.Series(self.C0[:, j]) for j in cols])
                h = sub.hash_rows(seed=0).to_numpy().view(np.int64) & np.int64(2**62 - 1)
            if len(self._cache) > self._cache_max:
                self._cache.clear()
            self._cache[t] = h
        return h

    def of(self, rows: np.ndarray | slice, cols: list[int]) -> np.ndarray:
        return self._all(cols)[rows]


def _lookup(src: np.ndarray, dst: np.ndarray, space: float, weights: np.ndarray | None = None
            ) -> tuple[np.ndarray, np.ndarray | None]:
    """For each key of ``dst``: the number of ``src`` keys equal to it (and their ``weights``
    sum)."""
    if src.size == 0:
        return np.zeros(dst.size), (None if weights is None else np.zeros(dst.size))
    if space <= max(4 * src.size, 1 << 21):
        cnt = np.bincount(src, minlength=int(space))[dst].astype(np.float64)
        w = None if weights is None else np.bincount(src, weights=weights, minlength=int(space))[dst]
        return cnt, w
    u, inv = np.unique(src, return_inverse=True)
    inv = inv.ravel()
    pos = np.minimum(np.searchsorted(u, dst), u.size - 1)
    found = u[pos] == dst
    cnt = np.where(found, np.bincount(inv, minlength=u.size)[pos], 0).astype(np.float64)
    w = None if weights is None else np.where(found, np.bincount(inv, weights=weights, minlength=u.size)[pos], 0.0)
    return cnt, w


def _counts(K: _Keys, nullmask: np.ndarray, bad: np.ndarray, kept: list[int], viol: np.ndarray,
            exact: bool) -> tuple[np.ndarray, np.ndarray]:
    """For the rows ``bad`` (complete on ``kept``): how many rows are compatible with them on
    ``kept`` (rows complete there and equal, plus, when ``exact``, rows with nulls there that
    agree on their other kept keys) and how many violators are among the equal complete rows."""
    tmask = sum(1 << j for j in kept)
    q = nullmask & tmask
    full = np.flatnonzero(q == 0)
    dst = K.of(bad, kept)
    src = K.of(full, kept) if full.size < K.C.shape[0] else K.of(slice(None), kept)
    cnt, cov = _lookup(src, dst, K.space(kept), viol[full].astype(np.float64))
    if exact:
        partial = np.flatnonzero(q != 0)
        if partial.size:
            pq = q[partial]
            for pattern in np.unique(pq):
                rows = partial[pq == pattern]
                sub = [j for j in kept if not pattern >> j & 1]
                cnt += _lookup(K.of(rows, sub), K.of(bad, sub), K.space(sub))[0]
    return cnt, cov


#: Which exact search finds each violator's cheapest mask: "auto" (the cheaper by
#: :func:`_estimates`), "mask" (:func:`_search_by_mask`) or "row"
#: (:func:`polars_sdc.kernels.wildcard.cheapest_masks`); the choice is the same (tests force each).
SEARCH = "auto"

#: The most keys of one subset (of ``on``, or of ``combs``) the exact search accepts: it
#: weighs all 2^m suppression sets of a record (about 1e6 for 20 keys).
MAX_KEYS = 20

#: The longest estimated search round (seconds of one core, the constants of
#: :func:`_estimates` measured on the 2-core development machine) the search starts; a
#: suppression takes about 10 rounds, so this is about a minute of work. Beyond it
#: :func:`_refuse_search` raises an SDCError naming ``combs``.
MAX_ROUND_SECONDS = 6.0


#: CPU seconds of compiling :func:`polars_sdc.kernels.wildcard.cheapest_masks` on a first call
#: with an empty cache (benchmarks/bench_compile.py, suppress rows): the per-record search is
#: taken on a process's first call only when it saves more than that over a whole suppression
#: (about :data:`ROUNDS` rounds), so typical data (few keys) compiles nothing for it.
ROW_KERNEL_COMPILE_SECONDS = 0.8

#: The usual number of search rounds of a suppression (the estimates' horizon).
ROUNDS = 10


def _row_kernel_ready() -> bool:
    """Whether the per-record kernel is compiled in this process or in Numba's cache."""
    from ..kernels import compiled_or_cached
    from ..kernels.wildcard import _cheapest_masks_into

    return compiled_or_cached(_cheapest_masks_into)


def _take_row_search(by_mask_s: float, by_row_s: float) -> bool:
    """The per-record search when it is the cheaper over :data:`ROUNDS` rounds, its compile
    (:data:`ROW_KERNEL_COMPILE_SECONDS`) counted while it is not compiled yet."""
    if SEARCH != "auto":
        return SEARCH == "row"
    if ROUNDS * by_row_s >= ROUNDS * by_mask_s:
        return False
    return _row_kernel_ready() or ROUNDS * by_row_s + ROW_KERNEL_COMPILE_SECONDS < ROUNDS * by_mask_s


def _estimates(m: int, n: int, n_bad: int, patterns: int) -> tuple[float, float]:
    """Estimated seconds of one search round: mask by mask (2^m numpy passes over the n rows,
    one lookup per null pattern; measured ~20 us + 4 ns a row + 15 us a pattern per mask) and
    violator by violator (the compiled kernel: ~1 ns per key of a row, ~0.25 ns per step of
    the 3 m 2^m of its subset sums)."""
    size = float(1 << m)
    by_mask = size * (20e-6 + 4e-9 * n + 15e-6 * patterns)
    by_row = n_bad * (1e-9 * m * n + 0.25e-9 * 3 * m * size)
    return by_mask, by_row


def key_subsets(combs: Any, m: int) -> list[list[int]]:
    """The key subsets (positions) k-anonymity is sought on: every key, or every subset of
    the sizes ``combs`` (sdcMicro's ``combs``), checked; at most :data:`MAX_KEYS` keys each."""
    if combs is None:
        subsets = [list(range(m))]
    else:
        sizes_c = [combs] if isinstance(combs, (int, np.integer)) and not isinstance(combs, bool) else combs
        if not isinstance(sizes_c, Sequence) or not sizes_c or any(
                isinstance(c, bool) or not isinstance(c, (int, np.integer)) or not 1 <= c <= m for c in sizes_c):
            raise SDCError(f"combs must be subset sizes between 1 and {m}, got {combs!r}")
        subsets = [list(t) for size in sizes_c for t in itertools.combinations(range(m), int(size))]
    big = max(len(sub) for sub in subsets)
    if big > MAX_KEYS:
        raise SDCError(
            f"suppress: {big} keys in one search is more than {MAX_KEYS} (the exact search weighs all 2^m = "
            f"{2 ** big:,} suppression sets of a record); ask for k-anonymity on every subset of fewer keys with "
            f"combs= (sdcMicro's combs, e.g. combs=[3]), or give fewer keys")
    return subsets


#: Seconds a ``combs`` subset costs per pass whatever its search (its frequency count and
#: the release check's; measured 0.8-1.0 ms on 3,000 rows at load 7-9): ``a + b n``.
SUBSET_SECONDS = (0.6e-3, 1.5e-7)

#: Passes over the subsets a ``combs`` run usually takes (one that suppresses, one that checks).
COMBS_PASSES = 2

#: Seconds per pair of null patterns of the frequency recount after a search round (the
#: wildcard rule pairs every pattern of suppressed keys with the others), with the patterns
#: bounded by ``min(2^c, records short of k)``; fitted on CPU time at load 10-11 (session 28):
#: without it the ``combs`` estimate was 15-20x low where most records are unique and c is
#: large (12 keys x 500 records, combs=[11]: 0.28 s estimated, 5.3 s CPU) and 25-45 % low on
#: c = 4-6 (12 keys x 1,000-3,000: 3.2 / 4.1 s vs 6.0 / 7.1 s; 18 keys x 3,000: 44 s vs 54 s at
#: load 7). With it: CPU / estimate 0.9-1.6 for c = 3-11 (c = 6 on 12 keys x 3,000: 11.3 s, 10.1 s).
RECOUNT_PAIR_SECONDS = 5e-7


def combs_seconds(c: int, m: int, n: int, n_bad: int, patterns: int) -> float:
    """Estimated seconds of ``suppress(combs=[c])`` on ``m`` keys and ``n`` rows: every one of
    the C(m, c) subsets costs its fixed :data:`SUBSET_SECONDS`, one search round and its
    frequency recount (:data:`RECOUNT_PAIR_SECONDS`), in each of :data:`COMBS_PASSES` passes
    (most subsets need no more than one round).

    >>> round(combs_seconds(5, 18, 3000, 3000, 1), 1)    # 18 keys, 3,000 records: 43-54 s measured
    52.5
    """
    import math

    recount = RECOUNT_PAIR_SECONDS * float(min(1 << c, n_bad)) ** 2
    per_subset = (SUBSET_SECONDS[0] + SUBSET_SECONDS[1] * n + min(_estimates(c, n, n_bad, min(patterns, 1 << c)))
                  + recount)
    return COMBS_PASSES * math.comb(m, c) * per_subset


def _refuse_search(m: int, n: int, n_bad: int, patterns: int) -> None:
    """An SDCError when a search round is estimated above :data:`MAX_ROUND_SECONDS`, naming
    the largest ``combs`` size whose whole run (:func:`combs_seconds`, fixed costs included)
    is estimated within :data:`ROUNDS` x :data:`MAX_ROUND_SECONDS` (before minutes of silent work)."""
    est = min(_estimates(m, n, n_bad, patterns))
    if est <= MAX_ROUND_SECONDS:
        return
    budget = ROUNDS * MAX_ROUND_SECONDS
    hint = _combs_hint(m, n, n_bad, patterns)
    raise SDCError(
        f"suppress: the exact search on {m} keys ({2 ** m:,} suppression sets per record, {n_bad:,} of {n:,} records "
        f"short of k) is estimated at {est:,.0f} s a round (about {ROUNDS} rounds; the limit is "
        f"{MAX_ROUND_SECONDS:g} s a round, {budget:g} s in all); ask for k-anonymity on every subset of fewer keys "
        f"with combs= (sdcMicro's combs; here {hint}), recode keys with many categories first, or give fewer keys")


def _combs_hint(m: int, n: int, n_bad: int, patterns: int) -> str:
    """The largest ``combs`` size whose whole run (:func:`combs_seconds`) is estimated within
    :data:`ROUNDS` x :data:`MAX_ROUND_SECONDS`, as the refusals name it."""
    budget = ROUNDS * MAX_ROUND_SECONDS
    fits = [(c, t) for c in range(1, m) if (t := combs_seconds(c, m, n, n_bad, patterns)) <= budget]
    return (f"combs=[{fits[-1][0]}] fits, estimated at {fits[-1][1]:,.0f} s in all" if fits
            else "no combs size fits; give fewer keys")


def _refuse_combs(sizes: list[int], m: int, n: int, n_bad: int, patterns: int) -> None:
    """An SDCError when a ``combs`` run (every subset of each size in ``sizes``, of ``m``
    keys) is estimated (:func:`combs_seconds`) above :data:`ROUNDS` x
    :data:`MAX_ROUND_SECONDS`, the budget the exact search on every key is refused beyond,
    naming the largest size that fits (as :func:`_refuse_search` does): each subset's own
    search is small, but C(m, c) of them add up (combs=[6] on 18 keys: 18,564 subsets)."""
    import math

    budget = ROUNDS * MAX_ROUND_SECONDS
    est = sum(combs_seconds(c, m, n, n_bad, patterns) for c in sizes)
    if est <= budget:
        return
    subsets = sum(math.comb(m, c) for c in sizes)
    raise SDCError(
        f"suppress: combs={sizes!r} on {m} keys ({subsets:,} key subsets, {n_bad:,} of {n:,} records short of k "
        f"on all keys) is estimated at {est:,.0f} s in all (about {COMBS_PASSES} passes over the subsets; the "
        f"limit is {budget:g} s in all); ask for k-anonymity on subsets of fewer keys (here "
        f"{_combs_hint(m, n, n_bad, patterns)}), recode keys with many categories first, or give fewer keys")


def _mask_tables(masks: tuple[np.ndarray, np.ndarray], m: int) -> tuple[np.ndarray, np.ndarray]:
    """Each mask's position in the search order and its cost tier (0, 1, ... cheapest first)."""
    order, tiers = masks
    rank = np.empty(1 << m, dtype=np.int64)
    tier = np.empty(1 << m, dtype=np.int64)
    rank[order] = np.arange(order.size)
    tier[order] = tiers
    return rank, tier


def _search_by_mask(K: _Keys, masks: tuple[np.ndarray, np.ndarray], nullmask: np.ndarray, bad: np.ndarray,
                    already: np.ndarray, viol: np.ndarray, k: int, alpha: float, n: int, m: int
                    ) -> tuple[np.ndarray, np.ndarray]:
    """The cheapest mask of every violator (-1: none) and the violators its kept keys cover,
    visiting the masks cheapest first with one counting pass over the rows each (fast with
    few keys and many rows; :func:`polars_sdc.kernels.wildcard.cheapest_masks` gives the same
    choice violator by violator)."""
    choice = np.full(bad.size, -1)
    cover = np.zeros(bad.size)
    cost = np.full(bad.size, -1, dtype=np.int64)
    for s, size in zip(masks[0].tolist(), masks[1].tolist()):
        # a mask contains what the record already lost, and adds to it
        ok = ((already & s) == already) & (already != s) & ((choice < 0) | (cost == size))
        if not ok.any():
            if (choice >= 0).all():
                break
            continue
        kept = [j for j in range(m) if not s >> j & 1]
        rows = bad[ok]
        if kept:
            cnt, cov = _counts(K, nullmask, rows, kept, viol, exact=alpha == 1.0)
        else:
            cnt = np.full(rows.size, float(n))
            cov = np.full(rows.size, float(bad.size))
        cur = np.flatnonzero(ok)
        # among the masks of the lowest cost, the one whose wildcard helps the most other violators
        hit = (cnt >= k) & ((choice[cur] < 0) | (cov > cover[cur]))
        idx = cur[hit]
        choice[idx] = s
        cover[idx] = cov[hit]
        cost[idx] = size
    return choice, cover


def _suppress_keys(C: np.ndarray, g: np.ndarray, k: int, alpha: float, imp: np.ndarray,
                   priority: bool = False) -> np.ndarray:
    """Suppress (-1) codes of ``C`` until every row has fk >= k (within its stratum ``g``);
    each violator takes the cheapest suppression set of :func:`_masks`."""
    n, m = C.shape
    masks = _masks(m, imp, priority)
    C = C.copy()
    K = _Keys(C, g)
    bits = 1 << np.arange(m)
    rank = tier = None
    fk = _true_fk(C, g, alpha)
    for rnd in range(n * m + 1):
        bad = np.flatnonzero(fk < k)
        if bad.size == 0:
            return C
        nullmask = ((C < 0) * bits).sum(axis=1)
        patterns = int(np.unique(nullmask).size)
        if rnd == 0:
            _refuse_search(m, n, bad.size, patterns)
        by_mask_s, by_row_s = _estimates(m, n, bad.size, patterns)
        by_row = _take_row_search(by_mask_s, by_row_s)
        already = nullmask[bad]
        viol = np.zeros(n, dtype=np.int64)
        viol[bad] = 1
        if not by_row:
            choice, cover = _search_by_mask(K, masks, nullmask, bad, already, viol, k, alpha, n, m)
        else:
            from ..kernels.wildcard import cheapest_masks

            if rank is None:
                rank, tier = _mask_tables(masks, m)
            choice, cover = cheapest_masks(C, g.astype(np.int64), bad.astype(np.int64), viol.astype(np.bool_),
                                           already.astype(np.int64), float(k), alpha == 1.0, rank, tier,
                                           float(bad.size))
        choice[choice < 0] = (1 << m) - 1
        # a round: the records needing the fewest new suppressions, those whose wildcard covers
        # most violators first, at most half of them; the others wait for the recomputed
        # frequencies (the wildcards may already cover them)
        need = np.array([bin(int(c) & ~int(a)).count("1") for c, a in zip(choice, already)])
        if alpha == 1.0:
            cand = np.flatnonzero(need == need.min())
            cand = cand[np.argsort(-cover[cand], kind="stable")]
        if alpha == 1.0:
            # record by record (as sdcMicro), skipping those the earlier ones' wildcards already
            # brought to k (their frequencies kept up to date by the kernel, which compares
            # each candidate with every violator)
            from ..kernels.wildcard import suppress_round

            codes = C[bad].T                                     # (m, violators), -1 = missing
            order = np.argsort(codes, axis=1, kind="stable")
            sorted_codes = np.ascontiguousarray(np.take_along_axis(codes, order, axis=1))
            suppress_round(C, g, bad[cand], choice[cand].astype(np.int64), cand, bad, fk[bad].astype(np.float64),
                           float(k), all_missing_is_wildcard(m), np.ascontiguousarray(order), sorted_codes,
                           (codes < 0).sum(axis=1))
        else:
            for r, s in zip(bad, choice):
                for j in range(m):
                    if s >> j & 1:
                        C[r, j] = -1
        fk = _true_fk(C, g, alpha)
    raise SDCError("suppress: no k-anonymous suppression found (internal limit reached)")


def suppress_frame(
    df: pl.DataFrame, k: int, on: ColumnSpec, *, importance: Any = None, by: ColumnSpec = None,
    alpha: float = 1.0, combs: Any = None, tiebreak: Any = None, household: str | None = None,
    household_columns: Sequence[str] | None = None, suppressed_as: str | None = None,
) -> pl.DataFrame:
    """Local suppression of the key columns ``on`` to k-anonymity (see the module docstring):
    suppressed values become null; dtypes, row order and other columns kept.

    ``suppressed_as``: on a generalised release (``df.sdc.generalize``, ARX), the label of the
    records the generalisation suppressed (``"*"``): a record whose every key is that label is
    read as every key missing (a wildcard, as the risk measures read it with the same
    ``suppressed_as``) and keeps its label in the output. None (default): every value is read
    as written, ``"*"`` too (a problem passes its generalisation's label by itself).

    ``household``: the household id column. A household-level key (constant within every
    household, :mod:`polars_sdc.household`) is then suppressed for every member of a household
    or for none: a suppression the rule makes on one member is carried to the whole household
    (with ``alpha = 1`` a null never lowers a frequency, so k-anonymity still holds; with
    ``alpha < 1`` the rule runs again until nothing changes). Then every key combination is
    held by records of >= k distinct households (as ``generalize(household=)`` and the
    microaggregation methods count, docs/households.md: k members of one household protect
    no one), a null matching every value (household counts have no fractional ``alpha``
    reading; the ``alpha`` rule still holds for records); more keys are suppressed where a
    class falls short, and k above the households of a stratum is an :class:`SDCError`.
    Without it, a key that is evidently household-level gets a
    :class:`polars_sdc.household.HouseholdWarning`.
    ``household_columns``: the household-level keys declared instead of detected (the others
    person-level; :func:`polars_sdc.household.check_household_columns`).

    >>> df = pl.DataFrame({"a": ["x", "x", "x", "y"], "b": [1, 1, 1, 1]})
    >>> suppress_frame(df, 2, ["a", "b"])["a"].to_list()
    ['x', 'x', 'x', None]
    """
    from ..risk.frequencies import check_alpha, key_codes, key_columns
    from ..risk.suppressed import check_suppressed_as, suppressed_as_missing, suppressed_rows

    keys = key_columns(df, on)          # every key dtype risk accepts (numeric, Boolean, categorical, temporal)
    if check_suppressed_as(suppressed_as) is not None:
        starred = suppressed_rows(df, keys, suppressed_as)
        if starred is not None and len(keys) == 1:
            # one key: the generalisation suppressed whole classes, so its suppressed records hold no
            # kept value and raise no kept record's frequency (risk.suppressed.frequency_keys; sdcMicro's
            # single-key branch would add them to every class): the other records are suppressed alone
            kept = np.flatnonzero(~starred.to_numpy())
            part = suppress_frame(df.filter(~starred), k, keys, importance=importance, by=by, alpha=alpha,
                                  combs=combs, tiebreak=tiebreak, household=household,
                                  household_columns=household_columns)
            (c,) = keys
            return df.with_columns(df.get_column(c).clone().scatter(kept, part.get_column(c)))
        if starred is not None:   # the generalisation's suppressed records: wildcards here, their label kept
            out = suppress_frame(suppressed_as_missing(df, keys, suppressed_as), k, keys, importance=importance,
                                 by=by, alpha=alpha, combs=combs, tiebreak=tiebreak, household=household,
                                 household_columns=household_columns)
            return out.with_columns(pl.when(starred).then(df.get_column(c)).otherwise(pl.col(c)).alias(c)
                                    for c in keys)
    by_cols = [] if by is None else resolve_columns(df, by, what="by")
    for b in by_cols:
        if b in keys:
            raise SDCError(f"column {b!r}: in both `on` and `by`")
    a = check_alpha(alpha)
    check_int(k, "k", minimum=1)
    declared = _household_args(df, household, keys, by_cols, household_columns)
    if df.height == 0:
        return df.clone()
    k = int(k)
    if not by_cols:
        check_k(k, df.height)
    else:
        sizes = df.group_by(by_cols).len().sort("len", *by_cols, maintain_order=True)
        if sizes.item(0, "len") < k:
            stratum = dict(zip(by_cols, sizes.row(0)[:len(by_cols)]))
            check_k(k, sizes.item(0, "len"),
                    where=f" in stratum {stratum!r} of `by`: k-anonymity cannot be reached there")
    if importance is not None and tiebreak is not None:
        raise SDCError("give `importance` (a priority: rank-1 keys are suppressed only when nothing else "
                       "reaches k) or `tiebreak` (fewest suppressions first, the ranking decides ties), not both")
    priority = importance is not None
    imp = _importance(df.select(keys), keys, importance if priority else tiebreak,
                      "importance" if priority else "tiebreak")
    codes = key_codes(df, keys)
    C = np.column_stack([codes.get_column(c).cast(pl.Int64).fill_null(-1).to_numpy() for c in keys])
    if by_cols:
        from ._common import strata

        g = strata(df, by_cols)[0]
    else:
        g = np.zeros(df.height, dtype=np.int64)
    subsets = key_subsets(combs, len(keys))
    if combs is not None and len(subsets) > 1:      # many small searches: their sum is refused (one: per round)
        _refuse_combs(sorted({len(sub) for sub in subsets}), len(keys), df.height,
                      int((_true_fk(C, g, a) < k).sum()), int(np.unique(C < 0, axis=0).shape[0]))
    # a later subset's suppressions can lower an earlier subset's frequencies (a record whose
    # keys of that subset all became missing no longer counts for its complete records, and
    # with alpha < 1 wildcards count less): repeat until a whole pass changes nothing
    for _ in range(df.height * len(keys) + 1):
        before = int((C < 0).sum())
        for sub in subsets:
            sub_imp = np.searchsorted(np.sort(imp[sub]), imp[sub]) + 1    # ranks within the subset (ties: min)
            C[:, sub] = _suppress_keys(np.ascontiguousarray(C[:, sub]), g, k, a, sub_imp, priority)
        if len(subsets) == 1 or int((C < 0).sum()) == before:
            break
    if household is not None:
        _check_households_reach_k(df, household, g, by_cols, k)
        for _ in range(C.size + 1):   # every round only adds suppressions: at most one per value
            before_hh = int((C < 0).sum())
            C = _household_all_or_none(df, household, keys, C, g, k, a, imp, subsets, priority, declared)
            C = _households_to_k(df, household, keys, C, g, k, imp, subsets)
            if int((C < 0).sum()) == before_hh:
                break
    # only the cells suppressed here become null: a key already missing (null, or NaN: missing for
    # the frequencies) keeps its value (a NaN was released as null)
    out = df.with_columns(
        pl.when(pl.Series(C[:, j] < 0) & codes.get_column(c).is_not_null()).then(None).otherwise(pl.col(c)).alias(c)
        for j, c in enumerate(keys)
    )
    _verify(out, [[keys[j] for j in sub] for sub in subsets], by_cols, k, a)
    return out


def _verify(out: pl.DataFrame, subsets: list[list[str]], by_cols: list[str], k: int, alpha: float) -> None:
    """The release check: every record has ``fk >= k`` on every key subset (within its stratum),
    by the shared frequency function (:func:`polars_sdc.risk.frequencies.frequencies`, the one
    ``k_anonymity`` and ``risk`` use); an :class:`SDCError` rather than an unsafe release."""
    from ..risk.frequencies import frequencies

    parts = out.partition_by(by_cols, maintain_order=True) if by_cols else [out]
    for part in parts:
        for sub in subsets:
            low = float(frequencies(part, sub, None, alpha)[0].min())
            if low < k:
                raise SDCError(f"suppress: internal error, the release has fk = {low:g} < k = {k} on {sub}; "
                               "nothing was returned (please report this input)")


def _household_args(df: pl.DataFrame, household: str | None, keys: list[str], by_cols: list[str],
                    household_columns: Sequence[str] | None = None, method: str = "suppress"
                    ) -> tuple[str, ...] | None:
    """Check ``household`` and ``household_columns`` (returned, checked) and warn without
    ``household`` when a key is evidently household-level, or with it when a key varies within
    only a few households (detected person-level, so it leaks in the others)."""
    from ..household import (
        check_household_column,
        check_household_columns,
        split_columns,
        warn_household_level,
        warn_nearly_household_level,
    )

    check_household_column(df.schema, household, keys)
    declared = check_household_columns(df.schema, household, household_columns)
    if household is not None and household in by_cols:
        raise SDCError(f"column {household!r}: both the household id and a `by` column")
    if household is None:
        warn_household_level(df, keys, method=method, exclude=by_cols)
    elif declared is not None:  # a declared key that varies within a household: an error now
        split_columns_checked(df, household, keys, declared)
    elif df.height:             # detected: a key varying within a few households is suppressed per person
        warn_nearly_household_level(df, household, split_columns(df, household, keys)[1])
    return declared


def split_columns_checked(df: pl.DataFrame, household: str, keys: list[str],
                          declared: Sequence[str] | None) -> list[str]:
    """The household-level ``keys``: detected, or ``declared`` (and checked constant)."""
    from ..household import split_columns

    return split_columns(df, household, keys, declared)[0]


def _household_all_or_none(df: pl.DataFrame, household: str, keys: list[str], C: np.ndarray, g: np.ndarray,
                           k: int, a: float, imp: np.ndarray, subsets: list[list[int]],
                           priority: bool = False, declared: Sequence[str] | None = None) -> np.ndarray:
    """Carry every suppression of a household-level key to all members of the household, then
    suppress again and carry again until nothing changes (a carried null can lower other
    records' frequencies: with ``alpha < 1``, and when it leaves a record with every key of a
    subset missing, which no longer counts for complete records)."""
    from ..household import household_index

    level = set(split_columns_checked(df, household, keys, declared))
    cols = [j for j, c in enumerate(keys) if c in level]
    if not cols:
        return C
    hidx, n_h = household_index(df, household)
    for _ in range(C.size + 1):
        changed = False
        for j in cols:
            hit = np.zeros(n_h, dtype=bool)
            hit[hidx[C[:, j] < 0]] = True
            spread = hit[hidx] & (C[:, j] >= 0)
            if spread.any():
                C[spread, j] = -1
                changed = True
        if not changed:
            return C
        before = (C < 0).sum()
        for sub in subsets:
            sub_imp = np.searchsorted(np.sort(imp[sub]), imp[sub]) + 1    # ranks within the subset (ties: min)
            C[:, sub] = _suppress_keys(np.ascontiguousarray(C[:, sub]), g, k, a, sub_imp, priority)
        if (C < 0).sum() == before:
            return C
    return C


def _check_households_reach_k(df: pl.DataFrame, household: str, g: np.ndarray, by_cols: list[str], k: int) -> None:
    """Every stratum holds >= k households (a class can hold no more), else an SDCError."""
    from ..household import household_index

    hidx, _ = household_index(df, household)
    counts = pl.DataFrame({"g": g, "h": hidx}).group_by("g").agg(pl.col("h").n_unique()).sort("h", "g")
    if counts.item(0, "h") < k:
        first = int(np.flatnonzero(g == counts.item(0, "g"))[0])
        where = "" if not by_cols else f" of stratum {dict(zip(by_cols, df.select(by_cols).row(first)))!r}"
        raise SDCError(f"k = {k} is more than the {counts.item(0, 'h')} households{where} of {household!r}: "
                       f"with household=, every released key combination must hold k households")


def _households_to_k(df: pl.DataFrame, household: str, keys: list[str], C: np.ndarray, g: np.ndarray, k: int,
                     imp: np.ndarray, subsets: list[list[int]]) -> np.ndarray:
    """With ``household``: suppress further until every record's key combination (on every
    subset, within its stratum) is compatible with records of >= k distinct households
    (:func:`polars_sdc.risk.household_frequencies.household_frequencies`, a null matching every
    value), the unit a household release protects (docs/households.md). A record short of k
    loses its not yet suppressed key of the highest rank (``imp``: suppressed first), one per
    round; a record with every key of a subset missing matches every household of its stratum
    (>= k, :func:`_check_households_reach_k`), so the loop ends."""
    from ..household import household_index
    from ..risk.household_frequencies import household_frequencies

    hidx, _ = household_index(df, household)
    names = [f"_k{j}" for j in range(len(keys))]
    strata_rows = [np.flatnonzero(g == s) for s in np.unique(g)]
    for _ in range(C.size + 1):
        changed = False
        for sub in subsets:
            frame = pl.DataFrame({names[j]: pl.Series(C[:, j]) for j in sub}).with_columns(
                pl.when(pl.col(names[j]) < 0).then(None).otherwise(pl.col(names[j])).alias(names[j]) for j in sub
            ).with_columns(_hh=pl.Series(hidx))
            low = np.zeros(C.shape[0], dtype=bool)
            for rows in strata_rows:
                part = frame[rows] if len(strata_rows) > 1 else frame
                fk = household_frequencies(part, [names[j] for j in sub], "_hh")[0]
                low[rows] = fk < k
            if not low.any():
                continue
            order = sorted(sub, key=lambda j: -imp[j])     # stable: ties keep the `on` order
            for r in np.flatnonzero(low):
                for j in order:
                    if C[r, j] >= 0:
                        C[r, j] = -1
                        changed = True
                        break
        if not changed:
            return C
    raise SDCError("suppress: internal error, households short of k remain (please report this input)")


def suppressed_count(original: pl.DataFrame, released: pl.DataFrame, on: Sequence[str]) -> int:
    """Number of key values that are null in ``released`` but not in ``original``."""
    return int(sum((released.get_column(c).is_null() & original.get_column(c).is_not_null()).sum() for c in on))


def suppress_risky_frame(
    df: pl.DataFrame, on: ColumnSpec, *, threshold: float, weight: str | None = None, key_var: str | None = None,
    alpha: float = 1.0, household: str | None = None, household_columns: Sequence[str] | None = None,
    suppressed_as: str | None = None,
) -> pl.DataFrame:
    """Suppress key values in the records whose individual risk (sdcMicro ``indivRisk`` from
    ``fk``/``Fk``, :mod:`polars_sdc.risk.individual`) exceeds ``threshold`` (after sdcMicro
    ``localSupp``).

    Which key: ``key_var`` if given (sdcMicro's ``keyVar``: that key only, one pass, as
    ``localSupp``; records may stay above the threshold, as there); otherwise, in each risky
    record, the not yet suppressed key with the most categories (the one most likely to make
    the record rare, as sdcMicro's default importance), then the risks are recomputed and the
    next key goes in the records still above the threshold, until none is. A threshold that
    cannot be reached (risky records remain with every key suppressed: a record with every key
    missing still has the risk of ``fk = n``, ``Fk`` = all weights) is an :class:`SDCError`
    giving the lowest risk reached, never a silently unsafe release.
    ``household``: a suppressed household-level key (constant within every household) is
    suppressed for every member of the household, after each round; ``household_columns``
    declares them instead (:func:`polars_sdc.household.check_household_columns`).
    ``suppressed_as``: as :func:`suppress_frame`'s (a generalised release's all-label records
    are wildcards and keep their label).

    >>> df = pl.DataFrame({"a": ["x"] * 5 + ["y"], "b": [1, 1, 1, 2, 2, 2]})
    >>> suppress_risky_frame(df, ["a", "b"], threshold=0.5)["a"].to_list()
    ['x', 'x', 'x', 'x', 'x', None]
    >>> suppress_risky_frame(pl.DataFrame({"a": range(10), "b": range(10)}), ["a", "b"], threshold=0.05)
    Traceback (most recent call last):
    ...
    polars_sdc._errors.SDCError: threshold = 0.05 cannot be reached by suppression: the lowest reachable highest individual risk is 0.1 (10 records above the threshold with every key suppressed)
    """
    from ..risk.frequencies import check_alpha, key_columns
    from ..risk.suppressed import keep_suppressed

    keys = key_columns(df, on, weight)
    counted = keys
    if suppressed_as is not None:
        from ..risk.suppressed import frequency_keys, suppressed_rows

        starred = suppressed_rows(df, keys, suppressed_as) if len(keys) == 1 else None
        if starred is None:
            return keep_suppressed(df, keys, suppressed_as, lambda f: suppress_risky_frame(
                f, keys, threshold=threshold, weight=weight, key_var=key_var, alpha=alpha, household=household,
                household_columns=household_columns), whole_records=True)
        # one key: the generalisation's suppressed records raise no kept value's frequency
        # (risk.suppressed.frequency_keys: a helper key), are already fully suppressed here and
        # keep their label
        df, counted = frequency_keys(df, keys, suppressed_as)
    a = check_alpha(alpha)
    check_real(threshold, "threshold", minimum=0.0, maximum=1.0)
    if key_var is not None and key_var not in keys:
        raise SDCError(f"key_var {key_var!r}: not one of the keys in `on`")
    declared = _household_args(df, household, keys, [], household_columns, method="suppress_risky")
    if df.height == 0:
        return df.clone()
    carry = _carry_households(df, household, keys, declared)
    if counted is not keys:   # a one-key generalised release: its suppressed records, label back
        (c,) = keys
        out = _risky_rounds(df, keys, counted, threshold, weight, key_var, a, carry)
        return out.drop(counted[1]).with_columns(
            pl.when(starred).then(pl.lit(suppressed_as)).otherwise(pl.col(c)).cast(df.schema[c]).alias(c))
    return _risky_rounds(df, keys, counted, threshold, weight, key_var, a, carry)


def _risky_rounds(df: pl.DataFrame, keys: list[str], counted: list[str], threshold: float, weight: str | None,
                  key_var: str | None, a: float, carry: Any) -> pl.DataFrame:
    """The rounds of :func:`suppress_risky_frame` on checked arguments; frequencies over
    ``counted`` (``keys``, or with a generalised release's helper key)."""
    from ..risk.frequencies import frequencies
    from ..risk.individual import individual_risk

    ncat = {c: df.get_column(c).n_unique() for c in keys}
    order = sorted(keys, key=lambda c: -ncat[c])          # stable: ties keep the `on` order
    out = df
    # each round suppresses at least one value: at most n x m rounds
    for _ in range(1 if key_var is not None else df.height * len(keys) + 1):
        fk, Fk = frequencies(out, counted, weight, a)
        risk = individual_risk(fk, Fk)
        risky = risk > threshold
        if not risky.any():
            break
        target = np.full(df.height, None, dtype=object)
        if key_var is not None:
            target[risky] = key_var
        else:
            # missing = null or NaN (the frequencies' rule): a NaN key is not suppressed again
            nulls = {c: (out.get_column(c).is_null() | out.get_column(c).is_nan()).fill_null(True).to_numpy()
                     if out.schema[c].is_float() else out.get_column(c).is_null().to_numpy() for c in order}
            for c in reversed(order):
                target[risky & ~nulls[c]] = c               # ends with the first free key in `order`
            if all(t is None for t in target[risky]):       # every risky record is fully suppressed
                raise SDCError(
                    f"threshold = {threshold:g} cannot be reached by suppression: the lowest reachable "
                    f"highest individual risk is {risk.max():.4g} ({int(risky.sum())} records above the "
                    "threshold with every key suppressed)")
        out = carry(out.with_columns(
            pl.when(pl.Series([t == c for t in target])).then(None).otherwise(pl.col(c)).alias(c) for c in keys
        ))
    return out


def _carry_households(df: pl.DataFrame, household: str | None, keys: list[str],
                      declared: Sequence[str] | None = None):
    """A function setting each household-level key to null for every member of a household
    where some member has it null (identity without ``household``)."""
    if household is None:
        return lambda f: f
    from ..household import household_index

    level = split_columns_checked(df, household, keys, declared)
    idx = pl.Series(household_index(df, household)[0])
    return lambda f: f.with_columns(
        pl.when(pl.col(c).is_null().any().over(idx)).then(None).otherwise(pl.col(c)).alias(c) for c in level)
