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


def check_options(method: str, options: Mapping[str, Any]) -> None:
    """Raise :class:`SDCError` for an option the partition function of ``method`` does not take.

    >>> check_options("vmdav", {"gamma": 1.0})
    >>> check_options("vmdav", {"gama": 1.0})
    Traceback (most recent call last):
    ...
    polars_sdc._errors.SDCError: unknown option 'gama' for method 'vmdav'; it takes: gamma
    """
    import inspect

    params = list(inspect.signature(partition_function(method)).parameters)[2:]  # after X, k
    for name in options:
        if name not in params:
            takes = ", ".join(params) if params else "no options"
            raise SDCError(f"unknown option {name!r} for method {method!r}; it takes: {takes}")


def quasi_identifiers(
    frame: pl.DataFrame | pl.LazyFrame | Mapping[str, pl.DataType], on: ColumnSpec, by: ColumnSpec = None
) -> list[str]:
    """The ``on`` columns as names; ``on=None`` means every numeric column except the ``by``
    (strata) columns. A column may not be both a quasi-identifier and a stratum.

    >>> quasi_identifiers(pl.DataFrame({"c": [1], "x": [2.0], "s": ["a"]}), None, by="c")
    ['x']
    """
    strata = [] if by is None else resolve_columns(frame, by, what="by")
    if on is None and strata:
        numeric = [c for c in resolve_columns(frame, None, kind="numeric", default="numeric") if c not in strata]
        if not numeric:
            raise SDCError("`on`: no numeric column besides the `by` columns; name the quasi-identifiers")
        on = numeric
    names = resolve_columns(frame, on, kind="supported", default="numeric")
    for c in names:
        if c in strata:
            raise SDCError(f"column {c!r}: in both `on` and `by`; a stratum column cannot be masked")
    return names


def merge_small_strata_rows(strata: list[tuple[Any, np.ndarray]], k: int) -> list[tuple[Any, np.ndarray]]:
    """Pool the strata with fewer than ``k`` rows into one stratum (keyed by the tuple of their
    keys); if the pool itself has fewer than ``k`` rows it joins the smallest stratum that has
    at least ``k`` (ties: first appearance). Rows stay in increasing order.

    >>> s = [("a", np.array([0, 3])), ("b", np.array([1, 2, 4, 5])), ("c", np.array([6]))]
    >>> [(key, rows.tolist()) for key, rows in merge_small_strata_rows(s, 3)]
    [('b', [1, 2, 4, 5]), (('a', 'c'), [0, 3, 6])]
    >>> [(key, rows.tolist()) for key, rows in merge_small_strata_rows(s, 4)]
    [(('b', ('a', 'c')), [0, 1, 2, 3, 4, 5, 6])]
    >>> [(key, rows.tolist()) for key, rows in merge_small_strata_rows(s, 2)]
    [(('a', ('c',)), [0, 3, 6]), ('b', [1, 2, 4, 5])]
    """
    small = [(key, rows) for key, rows in strata if rows.size < k]
    if not small:
        return strata
    big = [(key, rows) for key, rows in strata if rows.size >= k]
    pool_key = tuple(key for key, _ in small)
    pool = np.sort(np.concatenate([rows for _, rows in small]))
    if pool.size >= k or not big:
        return big + [(pool_key, pool)]
    target = min(range(len(big)), key=lambda i: (big[i][1].size, i))
    key, rows = big[target]
    big[target] = ((key, pool_key), np.sort(np.concatenate([rows, pool])))
    return big


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
    merge_small_strata: bool = False,
    **options: Any,
) -> pl.Series:
    """Group ids (UInt32 Series ``"group"``, row order kept) of a k-partition of ``df``.

    ``on`` selects the quasi-identifiers (default: every numeric column not in ``by``): numeric
    columns are z-scored unless ``standardize=False``; String/Categorical/Enum columns take
    part by the discrete distance, or the rank distance if listed in ``ordinal``; ``weights``
    weighs each column in the product distance (see :mod:`polars_sdc.microagg.features`). With ``by=``
    each stratum is partitioned on its own and ids are numbered across strata; a stratum
    with fewer than k rows is an error unless ``merge_small_strata=True``, which pools such
    strata (see :func:`merge_small_strata_rows`). ``refine="mil"`` post-optimises each
    stratum's partition on the same matrix (MIL, :func:`polars_sdc.microagg.mil.refine_mil`).

    >>> df = pl.DataFrame({"r": ["a", "a", "a", "b"], "x": [1.0, 2.0, 3.0, 9.0]})
    >>> partition_frame(df, 2, "x", by="r", merge_small_strata=True).to_list()
    [0, 0, 1, 1]
    """
    fn = partition_function(method)
    check_options(method, options)
    post = refine_function(refine)
    on = quasi_identifiers(df, on, by)
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
        strata = strata_rows(df, by)
        if merge_small_strata:
            strata = merge_small_strata_rows(strata, k)
        for key, rows in strata:
            if rows.size < k:
                raise SDCError(
                    f"stratum {key!r} of `by`: {rows.size} row(s), fewer than k = {k} "
                    "(merge_small_strata=True, or --merge-small-strata, pools small strata)"
                )
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
    merge_small_strata: bool = False,
    **options: Any,
) -> pl.DataFrame:
    """``df`` with the ``on`` columns replaced by their group representatives (mean, mode, or
    lower median for ``ordinal``) under the partition of :func:`partition_frame`;
    ``group_column`` names an extra UInt32 column holding the group ids."""
    from ..aggregate import aggregate

    on_cols = quasi_identifiers(df, on, by)
    _check_group_column(df.columns, group_column)
    groups = partition_frame(
        df, k, on_cols, method=method, by=by, standardize=standardize, ordinal=ordinal, weights=weights,
        refine=refine, merge_small_strata=merge_small_strata, **options,
    )
    out = aggregate(df, groups, on_cols, ordinal=ordinal)
    if group_column is not None:
        out = out.with_columns(groups.alias(group_column))
    return out


def _check_group_column(columns: Sequence[str], group_column: str | None) -> None:
    if group_column is not None and group_column in columns:
        raise SDCError(f"column {group_column!r}: already in the frame; choose another `group_column` name")


def output_schema(
    schema: pl.Schema,
    on: ColumnSpec,
    group_column: str | None,
    ordinal: Sequence[str] = (),
    by: ColumnSpec = None,
) -> pl.Schema:
    """Schema of :func:`microaggregate_frame`'s result, for the lazy path."""
    from ..aggregate import aggregate_output_schema

    on_cols = quasi_identifiers(schema, on, by)
    _check_group_column(list(schema), group_column)
    _check_ordinal(on_cols, ordinal)
    out = dict(aggregate_output_schema(schema, on_cols, ordinal))
    if group_column is not None:
        out[group_column] = GROUP_DTYPE
    return pl.Schema(out)
