"""Plumbing shared by every ``df.sdc`` / ``lf.sdc`` method group (the mixins of this package).

A method runs now on a DataFrame; on a LazyFrame it becomes one whole-frame
``map_batches`` step with a declared schema and ``streamable=False`` (never run per
streaming batch), so ``lf.sdc.m(...).collect()`` equals ``df.sdc.m(...)``.

The method groups are generic in the frame type ``F`` (``pl.DataFrame`` for ``df.sdc``,
``pl.LazyFrame`` for ``lf.sdc``), so a type checker sees a DataFrame method return a
DataFrame and the LazyFrame one a LazyFrame (see docs/typing.md).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

import polars as pl

#: the frame a namespace wraps: a DataFrame (``df.sdc``) or a LazyFrame (``lf.sdc``)
F = TypeVar("F", pl.DataFrame, pl.LazyFrame)
#: what the group ids of :meth:`~polars_sdc.namespace.SDCFrame.partition` are: a Series
#: (DataFrame) or a one-column LazyFrame (LazyFrame)
G = TypeVar("G", pl.Series, pl.LazyFrame)


class FrameOps(Generic[F]):
    """The frame a namespace wraps, and how to run a whole-frame step on it."""

    _frame: F

    def __init__(self, frame: F) -> None:
        self._frame = frame

    @property
    def _lazy(self) -> bool:
        return isinstance(self._frame, pl.LazyFrame)

    def _schema(self) -> pl.Schema:
        f = self._frame
        return f.collect_schema() if isinstance(f, pl.LazyFrame) else f.schema

    def _frame_op(self, fn: Callable[[pl.DataFrame], pl.DataFrame], schema: pl.Schema) -> F:
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
