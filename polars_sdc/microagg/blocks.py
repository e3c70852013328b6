"""The blocks a microaggregation partitions separately, and the household constraint.

* **Structural nulls** (a child has no income): rows are grouped by their *null pattern* over
  the ``on`` columns (which columns are null), within each stratum; each pattern is partitioned
  on its non-null columns only, so every released group is all null or all non-null in each
  column, a null stays null and the group means are taken over actual values. A pattern with
  fewer than k rows (k households with ``household=``) is an error naming it; with
  ``merge_small_patterns=True`` such patterns are pooled (as small strata are,
  :func:`~polars_sdc.microagg.pipeline.merge_small_strata_rows`) and the pooled rows are
  released on the columns non-null in *all* of them: their other values are suppressed (set to
  null), so the pooled rows share one released null pattern too (:func:`pattern_blocks`).
* **Households** (person-level columns with ``household=``): a group must hold records of at
  least k distinct households, the unit an intruder attacks. :func:`household_repair` turns any
  partition into one: a group with fewer than k households is dissolved and each of its rows
  joins the group with the nearest centroid, until no such group is left.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from .._errors import SDCError


@dataclass(frozen=True)
class Block:
    """Rows partitioned together: ``rows`` (ascending row indices), ``columns`` (the ``on``
    columns non-null in every row of the block, the ones it is partitioned on), ``where`` (the
    stratum and pattern, for messages) and ``suppressed`` (pooled patterns only: the ``on``
    columns set to null on some of its rows because not every pooled row has them)."""

    rows: np.ndarray
    columns: tuple[str, ...]
    where: str = ""
    suppressed: tuple[str, ...] = ()


def unit_count(rows: np.ndarray, units: np.ndarray | None) -> int:
    """Number of distinct units (households) among ``rows``; the number of rows when
    ``units`` is None.

    >>> unit_count(np.array([0, 1, 2]), np.array([5, 5, 7]))
    2
    """
    if units is None:
        return int(rows.size)
    return int(np.unique(units[rows]).size)


def null_mask(df: pl.DataFrame, on: Sequence[str]) -> np.ndarray:
    """(n, p) bool: is the value of ``on[j]`` null in row i."""
    if not on or df.height == 0:
        return np.zeros((df.height, len(on)), dtype=bool)
    return np.column_stack([df.get_column(c).is_null().to_numpy() for c in on])


def describe_pattern(on: Sequence[str], nulls: np.ndarray) -> str:
    """A null pattern in words.

    >>> describe_pattern(["a", "b", "c"], np.array([True, False, True]))
    "null pattern ('a', 'c' null)"
    >>> describe_pattern(["a"], np.array([False]))
    'no nulls'
    """
    names = [c for c, isnull in zip(on, nulls) if isnull]
    if not names:
        return "no nulls"
    return f"null pattern ({', '.join(map(repr, names))} null)"


def pattern_blocks(
    df: pl.DataFrame,
    on: Sequence[str],
    rows: np.ndarray,
    k: int,
    *,
    units: np.ndarray | None = None,
    merge: bool = False,
    where: str = "",
    mask: np.ndarray | None = None,
) -> list[Block]:
    """The blocks of the rows ``rows`` (one stratum): one per null pattern over ``on``, in
    order of first appearance. A pattern with fewer than ``k`` units (rows, or households when
    ``units`` is given) is an :class:`SDCError` naming it, unless ``merge``: the small patterns
    are then pooled (:func:`_pool`) and a pooled block is partitioned on the columns non-null in
    all its rows, its other values suppressed.

    >>> df = pl.DataFrame({"x": [1.0, None, 2.0, None, 3.0], "y": [1.0, 2.0, 3.0, 4.0, 5.0]})
    >>> [(b.rows.tolist(), b.columns) for b in pattern_blocks(df, ["x", "y"], np.arange(5), 2)]
    [([0, 2, 4], ('x', 'y')), ([1, 3], ('y',))]
    """
    mask = null_mask(df, on) if mask is None else mask
    sub = mask[rows]
    if sub.shape[1] == 0 or not sub.any():
        return [Block(rows, tuple(on), where)]
    _, first, inverse = np.unique(sub, axis=0, return_index=True, return_inverse=True)
    inverse = inverse.ravel()
    order = np.argsort(first, kind="stable")
    patterns = []
    for p in order:
        r = rows[inverse == p]
        patterns.append((describe_pattern(on, sub[first[p]]), r))
    from ..household import row_unit

    unit = "household(s)" if units is not None else f"{row_unit()}(s)"   # household rows: households
    small = [(key, r) for key, r in patterns if unit_count(r, units) < k]
    if small and not merge:
        key, r = small[0]
        raise SDCError(
            f"{where}{key}: {unit_count(r, units)} {unit}, fewer than k = {k}; each null pattern over `on` is "
            "microaggregated on its own (nulls stay null) — fill or drop those values, or pass "
            "merge_small_patterns=True to pool the small patterns (their values in the columns not non-null "
            "in every pooled row are then suppressed)"
        )
    if small:
        patterns = _pool(patterns, small, k, units, mask)
    blocks = []
    for key, r in patterns:
        nulls = mask[r].any(axis=0)
        cols = tuple(c for c, isnull in zip(on, nulls) if not isnull)
        partly = mask[r].all(axis=0)
        suppressed = tuple(c for c, a, b in zip(on, nulls, partly) if a and not b)
        label = key if isinstance(key, str) else "pooled null patterns (" + "; ".join(_flat(key)) + ")"
        blocks.append(Block(r, cols, where + label, suppressed))
    return blocks


def _pool(patterns: list[tuple[str, np.ndarray]], small: list[tuple[str, np.ndarray]], k: int,
          units: np.ndarray | None, mask: np.ndarray) -> list[tuple[Any, np.ndarray]]:
    """The small patterns pooled into one block; if the pool itself has fewer than k units it
    joins the pattern with >= k units where that suppresses the fewest values (the target's
    non-null values in columns the pool lacks; ties: fewer rows, then first appearance).

    >>> m = np.array([[0, 0], [0, 0], [1, 0], [1, 0], [0, 1], [1, 1]], dtype=bool)
    >>> p = [("none", np.array([0, 1])), ("a", np.array([2, 3])), ("b", np.array([4])), ("ab", np.array([5]))]
    >>> [(key, rows.tolist()) for key, rows in _pool(p, p[2:], 2, None, m)]
    [('none', [0, 1]), ('a', [2, 3]), (('b', 'ab'), [4, 5])]
    >>> [(key, rows.tolist()) for key, rows in _pool(p, p[2:], 3, None, m)][-1]
    (('a', ('b', 'ab')), [2, 3, 4, 5])
    """
    small_keys = {id(r) for _, r in small}
    big = [(key, r) for key, r in patterns if id(r) not in small_keys]
    pool_key = tuple(key for key, _ in small)
    pool = np.sort(np.concatenate([r for _, r in small]))
    if unit_count(pool, units) >= k or not big:
        return big + [(pool_key, pool)]
    lacks = mask[pool].any(axis=0)  # columns null somewhere in the pool

    def cost(i: int) -> tuple[int, int, int]:
        r = big[i][1]
        return int((~mask[r][:, lacks]).sum()), r.size, i

    t = min(range(len(big)), key=cost)
    key, r = big[t]
    big[t] = ((key, pool_key), np.sort(np.concatenate([r, pool])))
    return big


def _flat(key: Any) -> list[str]:
    if isinstance(key, str):
        return [key]
    return [s for part in key for s in _flat(part)]


# -- households ---------------------------------------------------------------------------------
def households_per_group(labels: np.ndarray, units: np.ndarray) -> np.ndarray:
    """Distinct units (households) in each group id 0..max.

    >>> households_per_group(np.array([0, 0, 1, 1, 1]), np.array([3, 3, 3, 4, 5])).tolist()
    [1, 3]
    """
    labels = np.asarray(labels, dtype=np.int64)
    units = np.asarray(units, dtype=np.int64)
    if labels.size == 0:
        return np.zeros(0, dtype=np.int64)
    base = int(units.max()) + 1
    pairs = np.unique(labels * base + units)
    return np.bincount(pairs // base, minlength=int(labels.max()) + 1)


def check_households(labels: np.ndarray, units: np.ndarray, k: int) -> None:
    """:class:`SDCError` if some group holds records of fewer than ``k`` households."""
    counts = households_per_group(labels, units)
    sizes = np.bincount(np.asarray(labels, dtype=np.int64), minlength=counts.size)
    bad = np.flatnonzero((sizes > 0) & (counts < k))
    if bad.size:
        g = int(bad[0])
        raise SDCError(f"group {g} holds records of {int(counts[g])} household(s), fewer than k = {k}")


def _dense(X: Any) -> np.ndarray:
    from .features import as_features

    if not hasattr(X, "has_codes"):
        X = np.asarray(X, dtype=np.float64)
        X = X[:, None] if X.ndim == 1 else X
    # exact power-of-two scaling: no overflow in the squared distances
    return as_features(X).unit_scaled().dense(purpose="household= with nominal columns")


def household_repair(X: Any, labels: np.ndarray, units: np.ndarray, k: int) -> np.ndarray:
    """The partition ``labels`` made to hold >= ``k`` distinct households in every group:
    while some group has fewer, the one with the fewest households (ties: lowest id) is
    dissolved and each of its rows joins the remaining group with the nearest centroid (in the
    features ``X``: a float matrix or :class:`~.features.Features`). Groups only grow, so the
    loop ends after at most one step per group; group sizes stay >= k. Untouched groups keep
    their rows. Needs >= ``k`` households in all (else :class:`SDCError`). Returns int64 ids
    (the surviving input ids).

    >>> X = np.array([[0.0], [0.1], [0.2], [5.0], [5.1], [5.2]])
    >>> household_repair(X, np.array([0, 0, 0, 1, 1, 1]), np.array([0, 0, 1, 2, 3, 4]), 3).tolist()
    [1, 1, 1, 1, 1, 1]
    >>> household_repair(X, np.array([0, 0, 0, 1, 1, 1]), np.array([0, 1, 2, 3, 3, 4]), 2).tolist()
    [0, 0, 0, 1, 1, 1]
    """
    labels = np.asarray(labels, dtype=np.int64).copy()
    units = np.asarray(units, dtype=np.int64)
    if labels.size == 0:
        return labels
    if np.unique(units).size < k:
        raise SDCError(f"{np.unique(units).size} household(s), fewer than k = {k}")
    counts = households_per_group(labels, units)
    G = counts.size
    sizes = np.bincount(labels, minlength=G)
    bad = [int(g) for g in np.lexsort((np.arange(G), counts)) if sizes[g] > 0 and counts[g] < k]
    if not bad:
        return labels
    D = _dense(X)
    sums = np.zeros((G, D.shape[1]))
    np.add.at(sums, labels, D)
    # members per (group, household), kept as the rows move
    base = int(units.max()) + 1
    keys, cnt = np.unique(labels * base + units, return_counts=True)
    members = dict(zip(keys.tolist(), cnt.tolist()))
    alive = sizes > 0
    for g in bad:
        if counts[g] >= k or not alive[g]:
            continue
        rows = np.flatnonzero(labels == g)
        alive[g] = False
        others = np.flatnonzero(alive)
        C = sums[others] / sizes[others][:, None]
        x = D[rows]
        d = (x * x).sum(1)[:, None] - 2.0 * x @ C.T + (C * C).sum(1)[None, :]
        to = others[np.argmin(d, axis=1)]
        for r, h in zip(rows.tolist(), to.tolist()):
            u = int(units[r])
            members[g * base + u] -= 1
            key = h * base + u
            if members.get(key, 0) == 0:
                counts[h] += 1
            members[key] = members.get(key, 0) + 1
            labels[r] = h
            sums[h] += D[r]
            sizes[h] += 1
        sums[g] = 0.0
        sizes[g] = 0
        counts[g] = 0
    return labels


def sse(X: Any, labels: np.ndarray) -> float:
    """Within-group sum of squares of the features ``X`` under ``labels``.

    >>> sse(np.array([[0.0], [2.0], [5.0], [5.0]]), np.array([0, 0, 1, 1]))
    2.0
    """
    D = _dense(X)
    labels = np.asarray(labels, dtype=np.int64)
    G = int(labels.max()) + 1 if labels.size else 0
    sizes = np.bincount(labels, minlength=G).astype(np.float64)
    sums = np.zeros((G, D.shape[1]))
    np.add.at(sums, labels, D)
    C = sums / np.maximum(sizes, 1.0)[:, None]
    return float(((D - C[labels]) ** 2).sum())


def unchanged_rows(released: pl.DataFrame, original: pl.DataFrame, on: Sequence[str]) -> np.ndarray:
    """bool per row: is the released vector over ``on`` equal to the original one (a null
    equal to a null)?"""
    eq = np.ones(original.height, dtype=bool)
    for c in on:
        eq &= released.get_column(c).cast(original.schema[c]).eq_missing(original.get_column(c)).to_numpy()
    return eq


def unchanged_repair(
    original: pl.DataFrame,
    on: Sequence[str],
    labels: np.ndarray,
    units: np.ndarray,
    k: int,
    blocks: Sequence[Block],
    release: Callable[[np.ndarray], pl.DataFrame],
    strict: bool = True,
    remedy: str = "pool the block with others (merge_small_strata=True / merge_small_patterns=True), release means "
                  "as floats (integers='float'), or drop the column(s)",
) -> np.ndarray:
    """No record's vector over ``on`` released unchanged unless >= ``k`` units (households)
    of its group have that very vector: a group whose representative coincides with the
    original vector of members of fewer than k households (the mean of 309.15, 309.32 and
    309.49 is 309.32; a rounded integer mean equals a member's value) is merged with the group
    of the same block with the nearest representative (columns z-scored), until no such group is left.
    A group alone in its block cannot be merged: an :class:`SDCError` naming the block when
    ``strict`` (a release), else it is left as it is (a partition, which releases nothing).
    ``release(labels)`` gives the released frame; ``remedy``: what the error suggests
    (:func:`polars_sdc.aggregate.aggregate_households` has no pooling options).

    >>> df = pl.DataFrame({"x": [1.0, 2.0, 3.0, 10.0, 11.0, 13.0]})
    >>> from ..aggregate import aggregate
    >>> rel = lambda lab: aggregate(df, pl.Series(lab), ["x"])
    >>> b = [Block(np.arange(6), ("x",))]
    >>> unchanged_repair(df, ["x"], np.array([0, 0, 0, 1, 1, 1]), np.arange(6), 3, b, rel).tolist()
    [1, 1, 1, 1, 1, 1]
    """
    labels = np.asarray(labels, dtype=np.int64).copy()
    n = labels.size
    if n == 0:
        return labels
    block_of = np.zeros(n, dtype=np.int64)
    for i, b in enumerate(blocks):
        block_of[b.rows] = i
    num = [c for c in on if original.schema[c].is_numeric()]
    Z = np.zeros((n, len(num)))
    for j, c in enumerate(num):
        x = original.get_column(c).cast(pl.Float64).to_numpy().copy()
        x[np.isnan(x)] = 0.0  # nulls (None -> nan): same pattern in a block
        sd = x.std()
        Z[:, j] = (x - x.mean()) / (sd if sd > 0 else 1.0)
    while True:
        eq = unchanged_rows(release(labels), original, on)
        if not eq.any():
            break
        G = int(labels.max()) + 1
        cnt = np.zeros(G, dtype=np.int64)  # households per group whose vector comes back unchanged
        found = households_per_group(labels[eq], units[eq])
        cnt[: found.size] = found
        bad = np.flatnonzero((cnt > 0) & (cnt < k)).tolist()
        if not bad:
            break
        sizes = np.bincount(labels, minlength=G).astype(np.float64)
        sums = np.zeros((G, Z.shape[1]))
        np.add.at(sums, labels, Z)
        C = sums / np.maximum(sizes, 1.0)[:, None]
        first = np.full(G, n, dtype=np.int64)
        np.minimum.at(first, labels, np.arange(n))
        gblock = np.where(first < n, block_of[np.minimum(first, n - 1)], -1)
        merged = False
        taken = np.zeros(G, dtype=bool)
        for g in bad:
            if taken[g]:
                continue
            cand = np.flatnonzero((gblock == gblock[g]) & (sizes > 0) & ~taken)
            cand = cand[cand != g]
            if cand.size == 0:
                if strict and not ((gblock == gblock[g]) & (sizes > 0) & (np.arange(G) != g)).any():
                    # alone in its block: no merge can help, and releasing it would give these
                    # households' exact vector back
                    b = blocks[int(gblock[g])]
                    where = b.where or describe_pattern(on, np.zeros(len(on), dtype=bool))
                    raise SDCError(
                        f"{where}: the only group of these {unit_count(b.rows, units)} household(s) releases, as its "
                        f"representative, the exact vector of {int(cnt[g])} of them over {list(on)} (fewer than k = "
                        f"{k} hold it); no group is left to merge it with, so nothing was returned — {remedy}")
                continue
            h = int(cand[np.argmin(((C[cand] - C[g]) ** 2).sum(1))])
            labels[labels == g] = h
            taken[g] = taken[h] = True
            merged = True
        if not merged:
            break
    return labels
