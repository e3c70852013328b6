"""Shared argument handling of the randomised masking methods: the ``key=`` column, seeds."""
from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl

from .. import rng
from .._columns import ColumnSpec, resolve_columns
from .._errors import SDCError


def check_seed(seed: Any) -> None:
    """``seed``: None or an integer in [0, 2**64)."""
    if seed is None:
        return
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**64:
        raise SDCError(f"seed must be a non-negative integer or None, got {seed!r}")


def seed_or_fresh(seed: int | None) -> int:
    """The user's seed, or one from the OS entropy when None."""
    return rng.fresh_seed() if seed is None else int(seed)


def check_key(schema: pl.Schema, key: str | None, on: list[str] | None = None) -> None:
    """``key``: None or the name of an existing column that is not perturbed itself."""
    if key is None:
        return
    if not isinstance(key, str):
        raise SDCError(f"key must be a column name, got {key!r}")
    if key not in schema:
        raise SDCError(f"key column {key!r}: not in the frame")
    if on is not None and key in on:
        raise SDCError(f"key column {key!r}: is also in `on`; the key identifies rows and is not masked")


def resolve_on(schema: pl.Schema, on: ColumnSpec, key: str | None, *, kind: str, default: str) -> list[str]:
    """``on`` resolved; when ``on`` is None the ``key`` column is left out of the default."""
    cols = resolve_columns(schema, on, kind=kind, default=default)
    if on is None and key is not None:
        cols = [c for c in cols if c != key]
        if not cols:
            raise SDCError("`on`: no column left besides the key column")
    check_key(schema, key, cols)
    return cols


def frame_keys(df: pl.DataFrame, key: str | None) -> np.ndarray:
    """The per-row keys of ``df``: row positions, or :func:`polars_sdc.rng.row_keys` of ``key``."""
    if key is None:
        return rng.row_positions(df.height)
    return rng.row_keys(df.get_column(key))
