"""Type aliases of the public API (for readers and type checkers; nothing is checked here)."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal, TypedDict, Union

import polars as pl

#: Columns: one name, several names, or a Polars selector (``polars.selectors``); None means a
#: method's documented default (usually every numeric column).
ColumnSpec = Union[str, Sequence[str], pl.Expr, None]

#: Microaggregation partition methods (``df.sdc.microaggregate(method=...)``).
MethodName = Literal["mdav", "vmdav", "mhm", "univariate"]

#: MHM path orderings (``df.sdc.mhm(order=...)``).
OrderName = Literal["npn", "grid", "vgrid", "kd", "kd-mdav"]

#: Post-optimisations of a partition (``refine=``).
RefineName = Literal["mil", "anneal"]


class LabelOptions(TypedDict, total=False):
    """How recoding names merged categories and which values it reads as missing (see
    ``df.sdc.recode``): ``sep`` ("|"), ``other`` (None), ``max_label`` (200), ``null_values``."""

    sep: str
    other: str | None
    max_label: int | None
    null_values: str | Sequence[str] | None


class PartitionOptions(TypedDict, total=False):
    """Keyword arguments every microaggregation method takes (see ``df.sdc.partition``)."""

    by: ColumnSpec
    standardize: bool
    ordinal: Sequence[str]
    weights: Mapping[str, float] | None
    refine: RefineName | None
    refine_options: Mapping[str, Any] | None
    merge_small_strata: bool
    progress: bool
    household: str | None
    household_columns: Sequence[str] | None
    merge_small_patterns: bool


class ReleaseOptions(PartitionOptions, total=False):
    """Keyword arguments of the releasing methods (``df.sdc.mdav``, ...): a partition's, plus the
    group-id column, the label of pooled strata and how integer columns are released (see
    ``df.sdc.microaggregate``)."""

    group_column: str | None
    pooled_label: Any
    integers: Literal["round", "float"]
