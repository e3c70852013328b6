"""Microaggregation: partition algorithms (frame -> group ids) and their frame pipeline.

One module per method, each exposing ``partition_<name>(X, k, **options) -> uint32 labels`` on
a float64 (n, p) feature matrix: :mod:`.mdav`, :mod:`.vmdav`, :mod:`.mhm`, :mod:`.univariate`;
:mod:`.refine` holds the refiners (:mod:`.mil`, :mod:`.anneal`) and the per-stratum loop. :mod:`.features` turns mixed columns into that matrix (or, with
nominal columns, a :class:`~.features.Features`: numeric matrix plus category codes), and
:mod:`.pipeline` runs a validated :class:`~.pipeline.MicroaggSpec` on a frame (strata, pooling,
representatives). Method modules import their Numba kernels only when called.
"""
from __future__ import annotations

from .pipeline import (
    METHODS,
    Method,
    MicroaggSpec,
    merge_small_strata_rows,
    microaggregate_frame,
    partition_frame,
    quasi_identifiers,
)
from .refine import REFINERS, strata_rows

__all__ = [
    "METHODS",
    "REFINERS",
    "Method",
    "MicroaggSpec",
    "merge_small_strata_rows",
    "microaggregate_frame",
    "partition_frame",
    "quasi_identifiers",
    "strata_rows",
]
