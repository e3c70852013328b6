"""``df.sdc`` / ``lf.sdc``: checking a release (equivalence classes, k) and information loss
(ILSSDM, ILD, the classic measures).
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import polars as pl

from .._signature import deprecated
from .._typing import ColumnSpec
from ._base import F, FrameOps

if TYPE_CHECKING:
    from ..loss.classic import LossReport
    from ..loss.ild import ILDReport


class LossMethods(FrameOps[F]):
    """How much a release keeps: its k-anonymity and its information loss."""

    # -- checking a release -----------------------------------------------------------
    @deprecated(positional=("alpha", "suppressed_as"))
    def equivalence_classes(self, on: ColumnSpec = None, *, alpha: float = 1.0,
                            suppressed_as: str | None = None) -> F:
        """Each distinct combination of the ``on`` values with its row count, smallest first.

        Parameters
        ----------
        on
            Quasi-identifier columns (default: every column).
        alpha
            Weight of a match through a missing value (sdcMicro's ``alpha``; 1: a null
            matches any value).
        suppressed_as
            The label a generalisation gave its suppressed records' keys (``"*"``): such a
            record is read as every key missing. Default None: every value as written.

        Returns
        -------
        DataFrame or LazyFrame
            One row per class: the ``on`` values and the count.

        Examples
        --------
        >>> import polars as pl, polars_sdc
        >>> pl.DataFrame({"a": [1, 1, 2]}).sdc.equivalence_classes("a").rows()
        [(2, 1), (1, 2)]
        """
        from ..anonymity import equivalence_classes, quasi_identifier_columns

        cols = quasi_identifier_columns(self._schema(), on)
        schema = equivalence_classes(pl.DataFrame(schema=self._schema()), cols, alpha=alpha,
                                     suppressed_as=suppressed_as).schema
        return self._frame_op(lambda df: equivalence_classes(df, cols, alpha=alpha, suppressed_as=suppressed_as), schema)

    @deprecated(positional=("alpha", "household", "suppressed_as"))
    def k_anonymity(self, on: ColumnSpec = None, *, alpha: float = 1.0, household: str | None = None,
                    suppressed_as: str | None = None) -> int:
        """The size of the smallest equivalence class on ``on`` (a LazyFrame is collected).

        Parameters
        ----------
        on
            Quasi-identifier columns (default: every column).
        alpha
            Weight of a match through a missing value.
        household
            Household id column: classes count distinct households.
        suppressed_as
            As in :meth:`equivalence_classes` (``"*"`` for a release of :meth:`generalize`).

        Returns
        -------
        int

        Examples
        --------
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
        from ..risk.suppressed import check_suppressed_as

        check_suppressed_as(suppressed_as)
        return k_anonymity(self._collected(cols + ([household] if household else [])), cols, alpha=alpha,
                           household=household, suppressed_as=suppressed_as)

    # -- information loss -------------------------------------------------------------
    def ilssdm(
        self,
        on: ColumnSpec = None,
        *,
        groups: str | pl.Series | None = None,
        masked: pl.DataFrame | pl.LazyFrame | None = None,
        standardize: bool = True,
    ) -> float:
        """SSE / SST of the ``on`` columns (thesis 2.4.1), in [0, 1].

        Parameters
        ----------
        on
            Numeric columns (default: every numeric column).
        groups
            A partition (column name or Series of group ids) whose groups are replaced by
            their means.
        masked
            Or: a row-aligned release.
        standardize
            z-score the columns with the original's mean and standard deviation.

        Returns
        -------
        float

        Examples
        --------
        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"x": [1.0, 2.0, 3.0, 4.0]})
        >>> df.sdc.ilssdm("x", groups=pl.Series([0, 0, 1, 1]), standardize=False)
        0.2
        """
        from ..loss.sse import ilssdm_frame

        return ilssdm_frame(self._collected(), on, groups=groups, masked=masked, standardize=standardize)

    def ild(
        self,
        masked: pl.DataFrame | pl.LazyFrame | None = None,
        *,
        groups: Any = None,
        dist: Any = None,
        on: Any = None,
        weights: Any = None,
        exponent: float = 2,
        progress: bool = False,
    ) -> float:
        """ILD = (I(A) - I(A_hat)) / I(A) (Akiyama & Wada 2.2, thesis 3.1), I = sum_ij d(x_i, x_j)^exponent.

        Parameters
        ----------
        masked
            A row-aligned release.
        groups
            Or: a partition (column name or Series) whose groups are replaced by their
            representatives.
        dist
            A mapping column (or tuple of columns) -> distance (a name such as
            ``"euclidean"``, ``"discrete"``, ``"levenshtein_norm"``, or a
            ``polars_sdc.dist`` distance); default Euclidean / discrete per column.
        on
            Columns to compare (default: those of ``dist``, else every column).
        weights
            Weights of the product distance: None, ``"amount"`` (1 / the column's own I) or
            a mapping.
        exponent
            The exponent of the distance in I.
        progress
            A progress bar on stderr.

        Returns
        -------
        float

        Examples
        --------
        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"x": [1, 2, 3, 4], "g": [0, 0, 1, 1]})
        >>> df.sdc.ild(groups="g")
        0.2
        """
        from ..loss.ild import ild

        options = dict(groups=groups, dist=dist, on=on, weights=weights, exponent=exponent, progress=progress)
        return ild(self._collected(self._ild_columns(options)), masked, **options)

    def ild_report(
        self,
        masked: pl.DataFrame | pl.LazyFrame | None = None,
        *,
        groups: Any = None,
        dist: Any = None,
        on: Any = None,
        weights: Any = None,
        exponent: float = 2,
        progress: bool = False,
    ) -> ILDReport:
        """ILD per column and overall with I(A) and I(A_hat).

        Parameters
        ----------
        masked, groups, dist, on, weights, exponent
            As in :meth:`ild`.
        progress
            A bar on stderr, one step per information amount.

        Returns
        -------
        ILDReport
            ``.ild``, ``.by_column``, ``.to_frame()``.

        Examples
        --------
        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"x": [1, 2, 3, 4], "c": ["a", "a", "b", "c"]})
        >>> rep = df.sdc.ild_report(groups=pl.Series([0, 0, 1, 1]))
        >>> rep.by_column
        {'x': 0.2, 'c': 0.2}
        """
        from ..loss.ild import ild_report

        options = dict(groups=groups, dist=dist, on=on, weights=weights, exponent=exponent, progress=progress)
        return ild_report(self._collected(self._ild_columns(options)), masked, **options)

    def information_amount(
        self, dist: Any = None, *, on: ColumnSpec = None, weights: Any = None, exponent: float = 2
    ) -> float:
        """I(A) = sum_i sum_j d(x_i, x_j)^exponent (thesis 3.1.2), the information amount.

        Parameters
        ----------
        dist, on, weights, exponent
            As in :meth:`ild`.

        Returns
        -------
        float

        Examples
        --------
        >>> import polars as pl, polars_sdc
        >>> pl.DataFrame({"x": [1, 2, 3, 4]}).sdc.information_amount()
        40.0
        """
        from ..loss.ild import information_amount, needed_columns

        cols = needed_columns(self._schema(), dist, on, weights, None)
        return information_amount(self._collected(cols), dist, on=on, weights=weights, exponent=exponent)

    def loss_report(
        self,
        masked: Any = None,
        *,
        groups: Any = None,
        on: Any = None,
        dist: Any = None,
        weights: Any = None,
        exponent: float = 2,
        label: str | None = None,
        k: int | None = None,
        hierarchies: Mapping[str, Any] | None = None,
        max_dim: int = 2,
        progress: bool = False,
        ild_report: ILDReport | None = None,
    ) -> LossReport:
        """ILD beside ILSSDM, DM, NCP, entropy loss, EBIL, CTBIL and CM.

        Parameters
        ----------
        masked, groups, on, dist, weights, exponent
            As in :meth:`ild`.
        label
            Class label column: the Classification Metric.
        k
            The k of the Discernibility Metric.
        hierarchies
            Generalisation hierarchies of NCP.
        max_dim
            Largest table of EBIL / CTBIL (columns).
        progress
            A progress bar on stderr.
        ild_report
            A precomputed :meth:`ild_report` of the same pair (not computed again).

        Returns
        -------
        LossReport

        Examples
        --------
        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "g": [0, 0, 1, 1]})
        >>> df.sdc.loss_report(groups="g", k=2).dm
        8
        """
        from ..loss.classic import loss_report

        options = dict(groups=groups, on=on, dist=dist, weights=weights, exponent=exponent, label=label, k=k,
                       hierarchies=hierarchies, max_dim=max_dim, progress=progress, ild_report=ild_report)
        cols = self._ild_columns(options)
        if label is not None and label not in cols:
            cols.append(label)
        return loss_report(self._collected(cols), masked, **options)

    def _ild_columns(self, options: dict[str, Any]) -> list[str]:
        """The columns an ILD-based measure reads (a LazyFrame is collected to these)."""
        from ..loss.ild import needed_columns

        get = options.get
        return needed_columns(self._schema(), get("dist"), get("on"), get("weights"), get("groups"))
