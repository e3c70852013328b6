"""``df.sdc`` / ``lf.sdc``: checking a release (equivalence classes, k) and information loss
(ILSSDM, ILD, the classic measures).
"""
from __future__ import annotations

from typing import Any

import polars as pl

from .._signature import delegates_to
from .._typing import ColumnSpec
from ..loss.classic import LossReport, loss_report
from ..loss.ild import ILDReport, ild, ild_report, needed_columns
from ._base import FrameOps


class LossMethods(FrameOps):
    """How much a release keeps: its k-anonymity and its information loss."""

    # -- checking a release -----------------------------------------------------------
    def equivalence_classes(self, on: ColumnSpec = None, alpha: float = 1.0) -> Any:
        """Each distinct combination of the ``on`` values with its row count, smallest first.

        >>> import polars as pl, polars_sdc
        >>> pl.DataFrame({"a": [1, 1, 2]}).sdc.equivalence_classes("a").rows()
        [(2, 1), (1, 2)]
        """
        from ..anonymity import equivalence_classes, quasi_identifier_columns

        cols = quasi_identifier_columns(self._schema(), on)
        schema = equivalence_classes(pl.DataFrame(schema=self._schema()), cols, alpha).schema
        return self._frame_op(lambda df: equivalence_classes(df, cols, alpha), schema)

    def k_anonymity(self, on: ColumnSpec = None, alpha: float = 1.0, household: str | None = None) -> int:
        """The size of the smallest equivalence class on ``on`` (a LazyFrame is collected);
        with ``household`` (the household id) classes count distinct households.

        >>> import polars as pl, polars_sdc
        >>> pl.DataFrame({"a": [1, 1, 2, 2, 2]}).sdc.k_anonymity("a")
        2
        """
        from ..anonymity import k_anonymity, quasi_identifier_columns
        from ..household import check_household_column

        schema = self._schema()
        if household is not None and on is None:
            check_household_column(schema, household)
            on = [c for c in schema.names() if c != household]
        cols = quasi_identifier_columns(schema, on)
        check_household_column(schema, household, cols)
        return k_anonymity(self._collected(cols + ([household] if household else [])), cols, alpha, household)

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
        from ..loss.sse import ilssdm_frame

        return ilssdm_frame(self._collected(), on, groups=groups, masked=masked, standardize=standardize)

    @delegates_to(ild)
    def ild(self, masked: pl.DataFrame | pl.LazyFrame | None = None, **options: Any) -> float:
        """ILD = (I(A) - I(A_hat)) / I(A) (Akiyama & Wada 2.2, thesis 3.1), I = sum_ij d(x_i, x_j)^exponent,
        for a row-aligned ``masked`` release or for ``groups`` replaced by their representatives.

        ``dist``: a mapping column (or tuple of columns) -> distance (a name such as
        ``"euclidean"``, ``"discrete"``, ``"levenshtein_norm"``, or a ``polars_sdc.dist``
        distance) combined by the product distance with ``weights`` (None, ``"amount"`` =
        1 / the column's own I, or a mapping); default Euclidean / discrete per column.

        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"x": [1, 2, 3, 4], "g": [0, 0, 1, 1]})
        >>> df.sdc.ild(groups="g")
        0.2
        """
        return ild(self._collected(self._ild_columns(options)), masked, **options)

    @delegates_to(ild_report)
    def ild_report(self, masked: pl.DataFrame | pl.LazyFrame | None = None, **options: Any) -> ILDReport:
        """ILD per column and overall with I(A) and I(A_hat): an ``ILDReport`` (``.ild``,
        ``.by_column``, ``.to_frame()``); arguments as :meth:`ild` (``progress=True``: a bar
        on stderr, one step per information amount).

        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"x": [1, 2, 3, 4], "c": ["a", "a", "b", "c"]})
        >>> rep = df.sdc.ild_report(groups=pl.Series([0, 0, 1, 1]))
        >>> rep.by_column
        {'x': 0.2, 'c': 0.2}
        """
        return ild_report(self._collected(self._ild_columns(options)), masked, **options)

    def information_amount(
        self, dist: Any = None, *, on: ColumnSpec = None, weights: Any = None, exponent: float = 2
    ) -> float:
        """I(A) = sum_i sum_j d(x_i, x_j)^exponent (thesis 3.1.2) under ``dist`` (as in :meth:`ild`).

        >>> import polars as pl, polars_sdc
        >>> pl.DataFrame({"x": [1, 2, 3, 4]}).sdc.information_amount()
        40.0
        """
        from ..loss.ild import information_amount

        cols = needed_columns(self._schema(), dist, on, weights, None)
        return information_amount(self._collected(cols), dist, on=on, weights=weights, exponent=exponent)

    @delegates_to(loss_report)
    def loss_report(self, masked: pl.DataFrame | pl.LazyFrame | None = None, **options: Any) -> LossReport:
        """ILD beside ILSSDM, DM (with ``k``), NCP (``hierarchies``), entropy loss, EBIL, CTBIL
        (tables of up to ``max_dim`` columns) and CM (with a class ``label``): a ``LossReport``.

        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "g": [0, 0, 1, 1]})
        >>> df.sdc.loss_report(groups="g", k=2).dm
        8
        """
        cols = self._ild_columns(options)
        label = options.get("label")
        if label is not None and label not in cols:
            cols.append(label)
        return loss_report(self._collected(cols), masked, **options)

    def _ild_columns(self, options: dict[str, Any]) -> list[str]:
        """The columns an ILD-based measure reads (a LazyFrame is collected to these)."""
        get = options.get
        return needed_columns(self._schema(), get("dist"), get("on"), get("weights"), get("groups"))
