"""The currency of microaggregation: a partition, i.e. one group id (UInt32) per row.

Every method returns group ids in input row order; ``aggregate`` turns them into released
values, the loss measures read them, MIL improves them.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl

from ._errors import SDCError

GROUP_DTYPE = pl.UInt32


def canonical_ids(labels: np.ndarray) -> np.ndarray:
    """Renumber group labels 0, 1, 2, ... by first appearance in row order (UInt32).

    >>> canonical_ids(np.array([7, 7, 3, 9, 3])).tolist()
    [0, 0, 1, 2, 1]
    """
    labels = np.asarray(labels)
    if labels.size == 0:
        return labels.astype(np.uint32)
    _, first, inverse = np.unique(labels, return_index=True, return_inverse=True)
    rank = np.empty(first.size, dtype=np.uint32)
    rank[np.argsort(first, kind="stable")] = np.arange(first.size, dtype=np.uint32)
    return rank[inverse.ravel()]


def group_ids(df: pl.DataFrame, groups: Any) -> pl.Series:
    """Group ids for ``df`` from a column name, a Series or a numpy array, checked for
    length and nulls; returned as a UInt32 Series named ``"group"`` (ids as given when they
    are non-negative integers, else renumbered by first appearance)."""
    if isinstance(groups, str):
        if groups not in df.columns:
            from ._columns import did_you_mean

            raise SDCError(f"column {groups!r}: group column not in the frame{did_you_mean(groups, df.columns)}")
        s = df.get_column(groups)
        name = groups
    elif isinstance(groups, pl.Series):
        s, name = groups, groups.name or "group"
    else:
        s, name = pl.Series("group", np.asarray(groups)), "group"
    if s.len() != df.height:
        raise SDCError(f"column {name!r}: {s.len()} group ids for {df.height} rows")
    if s.null_count():
        raise SDCError(f"column {name!r}: {s.null_count()} null group id(s)")
    if s.dtype.is_integer() and (s.len() == 0 or s.min() >= 0) and (s.len() == 0 or s.max() < 2**32):
        return s.cast(GROUP_DTYPE).rename("group")
    codes = s.rank("dense").cast(pl.Int64).to_numpy() - 1
    return pl.Series("group", canonical_ids(codes), dtype=GROUP_DTYPE)


def group_sizes(groups: np.ndarray) -> np.ndarray:
    """Size of each group id 0..max (zero for unused ids)."""
    return np.bincount(np.asarray(groups, dtype=np.int64))


def check_k_partition(groups: np.ndarray, k: int) -> None:
    """Raise :class:`SDCError` if some group has fewer than ``k`` rows."""
    sizes = group_sizes(groups)
    used = sizes[sizes > 0]
    if used.size and used.min() < k:
        g = int(np.flatnonzero((sizes > 0) & (sizes < k))[0])
        raise SDCError(f"group {g} has {sizes[g]} row(s), fewer than k = {k}")
