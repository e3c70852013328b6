"""Microaggregation: partition algorithms (frame -> group ids) and their frame pipeline.

Each method module exposes ``partition_<name>(X, k, **options) -> uint32 labels`` on a
float64 (n, p) array. This module turns frames into such arrays (validation, z-scores,
strata) and partitions back into frames (``aggregate``).
"""
from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import polars as pl

from .._columns import ColumnSpec, check_k, numeric_matrix, resolve_columns
from .._errors import SDCError
from ..partition import GROUP_DTYPE, canonical_ids

# method name -> "module:function" (imported on first use, so Numba loads only then)
METHODS: dict[str, str] = {
    "mdav": "polars_sdc.microagg.mdav:partition_mdav",
}


def partition_function(method: str) -> Callable[..., np.ndarray]:
    """The partition function registered under ``method``."""
    try:
        target = METHODS[method]
    except KeyError:
        raise SDCError(f"unknown method {method!r}; choose one of {', '.join(sorted(METHODS))}") from None
    module, name = target.split(":")
    return getattr(importlib.import_module(module), name)


def strata_rows(df: pl.DataFrame, by: ColumnSpec) -> list[tuple[Any, np.ndarray]]:
    """(stratum key, row indices) for each stratum of ``by``, in order of first appearance."""
    by = resolve_columns(df, by, what="by")
    keyed = df.select(by).with_row_index("__row__")
    out = []
    for key, part in keyed.group_by(by, maintain_order=True):
        out.append((key if len(by) > 1 else key[0], part.get_column("__row__").to_numpy()))
    return out


def partition_frame(
    df: pl.DataFrame,
    k: int,
    on: ColumnSpec = None,
    *,
    method: str = "mdav",
    by: ColumnSpec = None,
    standardize: bool = True,
    **options: Any,
) -> pl.Series:
    """Group ids (UInt32 Series ``"group"``, row order kept) of a k-partition of ``df``.

    ``on`` selects the quasi-identifier columns (default: every numeric column); they are
    z-scored unless ``standardize=False``. With ``by=`` each stratum is partitioned on its
    own (z-scores per stratum) and ids are numbered across strata.
    """
    fn = partition_function(method)
    on = resolve_columns(df, on, kind="numeric", default="numeric")
    k = check_k(k, df.height)
    X = numeric_matrix(df, on)
    labels = np.empty(df.height, dtype=np.uint32)
    if by is None:
        labels[:] = _run(fn, X, k, standardize, options)
    else:
        offset = 0
        for key, rows in strata_rows(df, by):
            if rows.size < k:
                raise SDCError(f"stratum {key!r} of `by`: {rows.size} row(s), fewer than k = {k}")
            part = _run(fn, X[rows], k, standardize, options)
            labels[rows] = part + offset
            offset += int(part.max()) + 1
    return pl.Series("group", canonical_ids(labels), dtype=GROUP_DTYPE)


def _run(fn: Callable[..., np.ndarray], X: np.ndarray, k: int, standardize: bool, options: dict) -> np.ndarray:
    from ..standardize import zscore

    Z = zscore(X) if standardize else np.ascontiguousarray(X)
    return np.asarray(fn(Z, k, **options), dtype=np.uint32)


def microaggregate_frame(
    df: pl.DataFrame,
    k: int,
    on: ColumnSpec = None,
    *,
    method: str = "mdav",
    by: ColumnSpec = None,
    standardize: bool = True,
    group_column: str | None = None,
    **options: Any,
) -> pl.DataFrame:
    """``df`` with the ``on`` columns replaced by their group means (see :func:`partition_frame`);
    ``group_column`` names an extra UInt32 column holding the group ids."""
    from ..aggregate import aggregate

    on_cols = resolve_columns(df, on, kind="numeric", default="numeric")
    groups = partition_frame(df, k, on_cols, method=method, by=by, standardize=standardize, **options)
    out = aggregate(df, groups, on_cols)
    if group_column is not None:
        out = out.with_columns(groups.alias(group_column))
    return out


def output_schema(schema: pl.Schema, on: ColumnSpec, group_column: str | None) -> pl.Schema:
    """Schema of :func:`microaggregate_frame`'s result, for the lazy path."""
    from ..aggregate import aggregate_output_schema

    on_cols = resolve_columns(schema, on, kind="numeric", default="numeric")
    out = dict(aggregate_output_schema(schema, on_cols))
    if group_column is not None:
        out[group_column] = GROUP_DTYPE
    return pl.Schema(out)


def check_methods(names: Sequence[str]) -> None:
    for m in names:
        partition_function(m)
