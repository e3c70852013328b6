"""The ``sdc`` namespaces on DataFrame, LazyFrame and Expr: argument handling and delegation.

Every frame method is written once (on :class:`_FrameMethods`). On a DataFrame it runs
now; on a LazyFrame it becomes a whole-frame ``map_batches`` step with a declared schema
and ``streamable=False`` (never run per streaming batch), so ``lf.sdc.m(...).collect()``
equals ``df.sdc.m(...)``. Method modules are imported inside the methods, so importing
polars_sdc loads no Numba.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import polars as pl

from ._columns import ColumnSpec


class _FrameMethods:
    """Methods shared by ``DataFrame.sdc`` and ``LazyFrame.sdc``."""

    _frame: pl.DataFrame | pl.LazyFrame

    def __init__(self, frame: pl.DataFrame | pl.LazyFrame) -> None:
        self._frame = frame

    # -- plumbing -------------------------------------------------------------------
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

    # -- microaggregation -----------------------------------------------------------
    def partition(
        self,
        k: int,
        on: ColumnSpec = None,
        *,
        method: str = "mdav",
        by: ColumnSpec = None,
        standardize: bool = True,
        **options: Any,
    ) -> Any:
        """Group ids of a k-partition: a UInt32 Series ``"group"`` in row order (on a
        LazyFrame, a LazyFrame with that one column).

        ``on``: quasi-identifier columns (names or selector; default every numeric column),
        z-scored unless ``standardize=False``; ``by``: strata partitioned separately.

        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"x": [1.0, 9.0, 2.0, 8.0]})
        >>> df.sdc.partition(2, on="x").to_list()
        [1, 0, 1, 0]
        """
        from .microagg import partition_frame, partition_function

        partition_function(method)
        self._check_columns(on, by)
        run = lambda df: partition_frame(  # noqa: E731
            df, k, on, method=method, by=by, standardize=standardize, **options
        )
        if self._lazy:
            return self._frame_op(lambda df: run(df).to_frame(), pl.Schema({"group": pl.UInt32}))
        return run(self._frame)

    def microaggregate(
        self,
        k: int,
        on: ColumnSpec = None,
        *,
        method: str = "mdav",
        by: ColumnSpec = None,
        standardize: bool = True,
        group_column: str | None = None,
        **options: Any,
    ) -> Any:
        """Replace the ``on`` columns by their group means under a k-partition from ``method``.

        Every other column and the row order are kept; ``group_column`` adds the group ids.

        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"id": [1, 2, 3, 4], "x": [1.0, 9.0, 2.0, 8.0]})
        >>> df.sdc.microaggregate(2, on="x")["x"].to_list()
        [1.5, 8.5, 1.5, 8.5]
        """
        from .microagg import microaggregate_frame, output_schema, partition_function

        partition_function(method)
        self._check_columns(on, by)
        schema = output_schema(self._schema(), on, group_column)
        return self._frame_op(
            lambda df: microaggregate_frame(
                df, k, on, method=method, by=by, standardize=standardize,
                group_column=group_column, **options,
            ),
            schema,
        )

    def mdav(
        self,
        k: int,
        on: ColumnSpec = None,
        *,
        by: ColumnSpec = None,
        standardize: bool = True,
        group_column: str | None = None,
    ) -> Any:
        """Classic MDAV microaggregation (thesis 2.3.4): groups of k (one of k..2k-1).

        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"x": [1.0, 9.0, 2.0, 8.0, 5.0, 5.5]})
        >>> df.sdc.mdav(3, on="x")["x"].to_list()
        [2.8333333333333335, 7.5, 2.8333333333333335, 7.5, 7.5, 2.8333333333333335]
        """
        return self.microaggregate(
            k, on, method="mdav", by=by, standardize=standardize, group_column=group_column
        )

    def aggregate(self, groups: str | pl.Series, on: ColumnSpec, *, ordinal: Sequence[str] = ()) -> Any:
        """Replace the ``on`` columns by their group representative: mean (numeric, Float64),
        most frequent value (String/Categorical/Enum; ties: smallest), lower median (``ordinal``).

        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"g": [0, 0, 1, 1], "c": ["a", "b", "b", "b"]})
        >>> df.sdc.aggregate("g", "c")["c"].to_list()
        ['a', 'a', 'b', 'b']
        """
        from ._columns import resolve_columns
        from .aggregate import aggregate, aggregate_output_schema

        cols = resolve_columns(self._schema(), on, kind="supported")
        schema = aggregate_output_schema(self._schema(), cols, ordinal)
        return self._frame_op(lambda df: aggregate(df, groups, cols, ordinal=ordinal), schema)

    # -- checking a release -----------------------------------------------------------
    def equivalence_classes(self, on: ColumnSpec = None) -> Any:
        """Each distinct combination of the ``on`` values with its row count, smallest first.

        >>> import polars as pl, polars_sdc
        >>> pl.DataFrame({"a": [1, 1, 2]}).sdc.equivalence_classes("a").rows()
        [(2, 1), (1, 2)]
        """
        from ._columns import resolve_columns
        from .anonymity import equivalence_classes

        cols = resolve_columns(self._schema(), on)
        schema = equivalence_classes(pl.DataFrame(schema=self._schema()), cols).schema
        return self._frame_op(lambda df: equivalence_classes(df, cols), schema)

    def k_anonymity(self, on: ColumnSpec = None) -> int:
        """The size of the smallest equivalence class on ``on`` (a LazyFrame is collected).

        >>> import polars as pl, polars_sdc
        >>> pl.DataFrame({"a": [1, 1, 2, 2, 2]}).sdc.k_anonymity("a")
        2
        """
        from ._columns import resolve_columns
        from .anonymity import k_anonymity

        cols = resolve_columns(self._schema(), on)
        return k_anonymity(self._collected(cols), cols)

    # -- information loss -------------------------------------------------------------
    def ilssdm(
        self,
        on: ColumnSpec = None,
        *,
        groups: str | pl.Series | None = None,
        masked: pl.DataFrame | pl.LazyFrame | None = None,
        standardize: bool = True,
    ) -> float:
        """SSE / SST of the ``on`` columns (thesis 2.4.1): for a partition (``groups``) whose
        groups are replaced by their means, or for a row-aligned ``masked`` release.

        Columns are z-scored with the original's mean and standard deviation unless
        ``standardize=False``.

        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"x": [1.0, 2.0, 3.0, 4.0]})
        >>> df.sdc.ilssdm("x", groups=pl.Series([0, 0, 1, 1]), standardize=False)
        0.2
        """
        from .loss.sse import ilssdm_frame

        return ilssdm_frame(self._collected(), on, groups=groups, masked=masked, standardize=standardize)

    def _check_columns(self, on: ColumnSpec, by: ColumnSpec) -> None:
        from ._columns import resolve_columns

        schema = self._schema()
        resolve_columns(schema, on, kind="numeric", default="numeric")
        if by is not None:
            resolve_columns(schema, by, what="by")


@pl.api.register_dataframe_namespace("sdc")
class SDCFrame(_FrameMethods):
    """``df.sdc``: statistical disclosure control on a DataFrame."""


@pl.api.register_lazyframe_namespace("sdc")
class SDCLazyFrame(_FrameMethods):
    """``lf.sdc``: the same methods, lazily; frame results stay LazyFrames until collect."""


@pl.api.register_expr_namespace("sdc")
class SDCExpr:
    """``pl.col(c).sdc``: column-level SDC expressions."""

    def __init__(self, expr: pl.Expr) -> None:
        self._expr = expr

    def zscore(self) -> pl.Expr:
        """``(x - mean) / std`` (population std) as Float64; a constant column gives 0.

        >>> import polars as pl, polars_sdc
        >>> pl.DataFrame({"x": [1, 3]}).select(pl.col("x").sdc.zscore())["x"].to_list()
        [-1.0, 1.0]
        """
        x = self._expr.cast(pl.Float64)
        std = x.std(ddof=0)
        return pl.when(std > 0).then((x - x.mean()) / std).otherwise(0.0)

    def representative(self, group: str | pl.Expr, *, ordinal: bool = False) -> pl.Expr:
        """The group's representative of this column: mean, or with ``ordinal=True`` the lower
        median; use :meth:`DataFrame.sdc.aggregate` for the most frequent value of categories.

        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"g": [0, 0, 1], "x": [1, 2, 7]})
        >>> df.select(pl.col("x").sdc.representative("g"))["x"].to_list()
        [1.5, 1.5, 7.0]
        """
        x = self._expr
        if ordinal:
            return x.sort().get((pl.len() - 1) // 2).over(group)
        return x.cast(pl.Float64).mean().over(group)
