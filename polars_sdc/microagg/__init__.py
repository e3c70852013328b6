"""Microaggregation: partition algorithms (frame -> group ids) and their frame pipeline.

Each method module exposes ``partition_<name>(X, k, **options) -> uint32 labels`` on a
float64 (n, p) array. This module turns frames into such arrays (validation, z-scores,
strata) and partitions back into frames (``aggregate``).
"""
from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import polars as pl

from .._columns import ColumnSpec, check_k, resolve_columns
from .._errors import SDCError
from ..partition import GROUP_DTYPE, canonical_ids
from .features import feature_matrix

# method name -> "module:function" (imported on first use, so Numba loads only then)
METHODS: dict[str, str] = {
    "mdav": "polars_sdc.microagg.mdav:partition_mdav",
    "mhm": "polars_sdc.microagg.mhm:partition_mhm",
    "univariate": "polars_sdc.microagg.univariate:partition_univariate",
    "vmdav": "polars_sdc.microagg.vmdav:partition_vmdav",
}

# refine name -> "module:function(X, labels, k) -> labels", applied per stratum after the method
REFINERS: dict[str, str] = {
    "mil": "polars_sdc.microagg.mil:refine_mil",
}


def refine_function(refine: str | None) -> Callable[..., np.ndarray] | None:
    """The post-optimisation registered under ``refine`` (None: no refinement)."""
    if refine is None:
        return None
    try:
        target = REFINERS[refine]
    except (KeyError, TypeError):
        raise SDCError(f"unknown refine {refine!r}; choose None or one of {', '.join(sorted(REFINERS))}") from None
    module, name = target.split(":")
    return getattr(importlib.import_module(module), name)


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
    ordinal: Sequence[str] = (),
    weights: Mapping[str, float] | None = None,
    refine: str | None = None,
    **options: Any,
) -> pl.Series:
    """Group ids (UInt32 Series ``"group"``, row order kept) of a k-partition of ``df``.

    ``on`` selects the quasi-identifiers (default: every numeric column): numeric columns are
    z-scored unless ``standardize=False``; String/Categorical/Enum columns take part by the
    discrete distance, or the rank distance if listed in ``ordinal``; ``weights`` weighs each
    column in the product distance (see :mod:`polars_sdc.microagg.features`). With ``by=``
    each stratum is partitioned on its own and ids are numbered across strata.
    ``refine="mil"`` post-optimises each stratum's partition on the same matrix (MIL,
    :func:`polars_sdc.microagg.mil.refine_mil`).
    """
    fn = partition_function(method)
    post = refine_function(refine)
    on = resolve_columns(df, on, kind="supported", default="numeric")
    _check_ordinal(on, ordinal)
    k = check_k(k, df.height)
    labels = np.empty(df.height, dtype=np.uint32)

    def run(part: pl.DataFrame) -> np.ndarray:
        Z = feature_matrix(part, on, standardize=standardize, ordinal=ordinal, weights=weights)
        got = np.asarray(fn(Z, k, **options), dtype=np.uint32)
        return got if post is None else np.asarray(post(Z, got, k), dtype=np.uint32)

    if by is None:
        labels[:] = run(df)
    else:
        for c in on:  # fail on bad values before any stratum runs
            feature_matrix(df.select(c), [c], standardize=False, ordinal=ordinal)
        offset = 0
        for key, rows in strata_rows(df, by):
            if rows.size < k:
                raise SDCError(f"stratum {key!r} of `by`: {rows.size} row(s), fewer than k = {k}")
            part = run(df[rows])
            labels[rows] = part + offset
            offset += int(part.max()) + 1
    return pl.Series("group", canonical_ids(labels), dtype=GROUP_DTYPE)


def _check_ordinal(on: Sequence[str], ordinal: Sequence[str]) -> None:
    for c in ordinal:
        if c not in on:
            raise SDCError(f"column {c!r}: marked ordinal but not among the quasi-identifiers")


def microaggregate_frame(
    df: pl.DataFrame,
    k: int,
    on: ColumnSpec = None,
    *,
    method: str = "mdav",
    by: ColumnSpec = None,
    standardize: bool = True,
    ordinal: Sequence[str] = (),
    weights: Mapping[str, float] | None = None,
    group_column: str | None = None,
    refine: str | None = None,
    **options: Any,
) -> pl.DataFrame:
    """``df`` with the ``on`` columns replaced by their group representatives (mean, mode, or
    lower median for ``ordinal``) under the partition of :func:`partition_frame`;
    ``group_column`` names an extra UInt32 column holding the group ids."""
    from ..aggregate import aggregate

    on_cols = resolve_columns(df, on, kind="supported", default="numeric")
    groups = partition_frame(
        df, k, on_cols, method=method, by=by, standardize=standardize, ordinal=ordinal, weights=weights,
        refine=refine, **options,
    )
    out = aggregate(df, groups, on_cols, ordinal=ordinal)
    if group_column is not None:
        out = out.with_columns(groups.alias(group_column))
    return out


def output_schema(
    schema: pl.Schema, on: ColumnSpec, group_column: str | None, ordinal: Sequence[str] = ()
) -> pl.Schema:
    """Schema of :func:`microaggregate_frame`'s result, for the lazy path."""
    from ..aggregate import aggregate_output_schema

    on_cols = resolve_columns(schema, on, kind="supported", default="numeric")
    _check_ordinal(on_cols, ordinal)
    out = dict(aggregate_output_schema(schema, on_cols, ordinal))
    if group_column is not None:
        out[group_column] = GROUP_DTYPE
    return pl.Schema(out)
