"""Plumbing shared by every ``df.sdc`` / ``lf.sdc`` method group (the mixins of this package).

A method runs now on a DataFrame; on a LazyFrame it becomes one whole-frame
``map_batches`` step with a declared schema and ``streamable=False`` (never run per
streaming batch), so ``lf.sdc.m(...).collect()`` equals ``df.sdc.m(...)``.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import polars as pl


class FrameOps:
    """The frame a namespace wraps, and how to run a whole-frame step on it."""

    _frame: pl.DataFrame | pl.LazyFrame

    def __init__(self, frame: pl.DataFrame | pl.LazyFrame) -> None:
        self._frame = frame

    @property
    def _lazy(self) -> bool:
        return isinstance(self._frame, pl.LazyFrame)

    def _schema(self) -> pl.Schema:
        f = self._frame
        return f.collect_schema() if isinstance(f, pl.LazyFrame) else f.schema

    def _frame_op(self, fn: Callable[[pl.DataFrame], pl.DataFrame], schema: pl.Schema) -> Any:
        """Run ``fn`` on the whole frame: now (DataFrame) or as one lazy step (LazyFrame)."""
        if isinstance(self._frame, pl.LazyFrame):
            return self._frame.map_batches(fn, schema=schema, streamable=False)
        return fn(self._frame)

    def _collected(self, columns: Sequence[str] | None = None) -> pl.DataFrame:
        """The frame as a DataFrame (a LazyFrame is collected, restricted to ``columns``)."""
        f = self._frame
        if isinstance(f, pl.LazyFrame):
            return (f.select(columns) if columns is not None else f).collect()
        return f
