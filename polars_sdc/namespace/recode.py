"""``df.sdc`` / ``lf.sdc``: global recoding (Sano & Hattori), its model-based utility, top/bottom coding.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

import polars as pl

from .._typing import ColumnSpec, LabelOptions
from .._signature import deprecated
from ._base import F, FrameOps

if TYPE_CHECKING:
    from ..utility.recode_utility import UtilityReport


class RecodeMethods(FrameOps[F]):
    """Minimum-frequency global recoding, Cramér's V, top and bottom coding."""

    # -- global recoding and model-based utility (Sano & Hattori) -------------------------------
    @deprecated(renamed={"columns": "on"})
    def recode(
        self,
        on: ColumnSpec,
        p: float,
        *,
        hierarchy: Any = None,
        ordinal: Any = None,
        sep: str = "|",
        other: str | None = None,
        max_label: int | None = 200,
        null_values: str | Sequence[str] | None = None,
        household: str | None = None,
        household_columns: Sequence[str] | None = None,
        suppressed_as: str | None = None,
    ) -> F:
        """Minimum-frequency global recoding (Sano & Hattori, Fig. 1) of the categorical columns ``on``:
        with th = rows * p, the least frequent category merges with the second least (or
        all tied least frequent ones merge) until every count exceeds th or one is left.

        Nulls stay null. String/Categorical keep their dtype and an Enum gets the new
        category set (on a LazyFrame it comes back Categorical: the new categories are known
        only from the data). Ties: lowest position (Enum order, else first appearance).

        Parameters
        ----------
        on
            Categorical columns to recode.
        p
            Minimum share of a category, in (0, 1).
        hierarchy
            ``{column: {category: parent}}``: merge only siblings.
        ordinal
            Enum columns, or ``{column: order}``: merge only neighbours.
        sep
            Separator of merged labels (the paper's ``"・"`` on request).
        other
            One label (e.g. ``"Other"``) for every merged group instead (the groups are
            pooled; refused with hierarchy/ordinal, and if it is an unmerged category).
        max_label
            Cut merged labels at this many characters (``"a|b|...(+N more)"``; None: no cap).
        null_values
            Categories read as missing (made null, not merged; still counted in rows).
        household
            Household id column: a household-level column (constant within every household)
            counts households, not persons (th = households * p), and every member gets the
            same recoded category.
        household_columns
            The household-level columns, declared instead of detected (each checked constant
            within every household; an error names the column and a household where it
            varies); the other columns are person-level. None: detected.
        suppressed_as
            On a generalised release, the label of its suppressed values (``"*"``): not a
            category, never merged, kept where it is (None: a category like any other).

        Returns
        -------
        DataFrame or LazyFrame
            The frame with ``on`` recoded.

        Examples
        --------

        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"c": ["農業"] * 5 + ["林業"] * 2 + ["製造業"] * 92 + ["?"]})
        >>> df.sdc.recode("c", p=0.05, null_values=["?"])["c"].value_counts(sort=True).rows()
        [('製造業', 92), ('農業|林業', 7), (None, 1)]
        >>> df.sdc.recode("c", p=0.05, sep="・")["c"].unique(maintain_order=True).to_list()
        ['農業・林業・?', '製造業']
        >>> df.sdc.recode("c", p=0.05, other="Other")["c"].unique(maintain_order=True).to_list()
        ['Other', '製造業']
        """
        from ..recode import check_p, recode_frame, recode_output_schema

        label_options: LabelOptions = {"sep": sep, "other": other, "max_label": max_label, "null_values": null_values}
        check_p(p)
        schema = recode_output_schema(
            self._schema(), on, lazy=self._lazy, hierarchy=hierarchy, ordinal=ordinal, **label_options
        )
        enum_as: Any = pl.Categorical if self._lazy else None
        from ..household import check_household_columns

        declared = check_household_columns(self._schema(), household, household_columns)
        from .._columns import resolve_columns
        from ..risk.suppressed import check_suppressed_as, keep_suppressed

        check_suppressed_as(suppressed_as)
        targets = resolve_columns(self._schema(), on, kind="categorical", what="on", default="error")

        def kept(run: Any) -> Any:   # a generalised release's label neither counted nor merged
            return lambda df: keep_suppressed(df, targets, suppressed_as, run)

        if household is not None:
            from .._columns import resolve_columns
            from ..household import check_household_column, mask_households

            from ..recode.frame import _constraints

            cols = resolve_columns(self._schema(), on, kind="categorical", what="on", default="error")
            check_household_column(self._schema(), household, cols)
            trees, orders = _constraints(cols, hierarchy, ordinal, label_options)

            def part(f: pl.DataFrame, cs: list[str], _key: Any) -> pl.DataFrame:
                # the household-level and person-level halves: a column's hierarchy / order goes with it
                return recode_frame(f, cs, p, hierarchy={c: t for c, t in trees.items() if c in cs} or None,
                                    ordinal={c: o for c, o in orders.items() if c in cs} or None,
                                    enum_as=enum_as, **label_options)

            return self._frame_op(kept(lambda df: mask_households(df, household, cols, part, declared=declared)),
                                  schema)
        def plain(df: pl.DataFrame) -> pl.DataFrame:
            from .._columns import resolve_columns
            from ..household import warn_household_level

            # frequencies count persons: a category held by one large household looks frequent
            warn_household_level(df, resolve_columns(df.schema, on, kind="categorical", what="on",
                                                     default="error"), method="recode",
                                 leak="its frequencies count persons, so a rare category held by one large "
                                      "household counts as frequent and is kept")
            return recode_frame(df, on, p, hierarchy=hierarchy, ordinal=ordinal, enum_as=enum_as, **label_options)

        return self._frame_op(kept(plain), schema)

    @deprecated(renamed={"columns": "on"})
    def recode_map(
        self,
        on: ColumnSpec,
        p: float,
        *,
        hierarchy: Mapping[str, Mapping[str, str]] | None = None,
        ordinal: Any = None,
        sep: str = "|",
        other: str | None = None,
        max_label: int | None = 200,
        null_values: str | Sequence[str] | None = None,
    ) -> pl.DataFrame:
        """What :meth:`recode` merges (a LazyFrame is collected).

        Parameters
        ----------
        on, p, hierarchy, ordinal, sep, other, max_label, null_values
            As in :meth:`recode`.

        Returns
        -------
        DataFrame
            One row per observed category with ``column``, ``original``, ``recoded``,
            ``count`` and ``recoded_count``; a category of ``null_values`` has ``recoded`` null.

        Examples
        --------

        >>> import polars as pl, polars_sdc
        >>> pl.DataFrame({"c": ["x", "y", "x", "z"]}).sdc.recode_map("c", 0.3)["recoded"].to_list()
        ['x', 'y|z', 'y|z']
        """
        from .._columns import resolve_columns

        from ..recode.frame import recode_map_frame

        cols = resolve_columns(self._schema(), on, kind="categorical", what="on", default="error")
        return recode_map_frame(self._collected(cols), cols, p, hierarchy=hierarchy, ordinal=ordinal, sep=sep,
                                other=other, max_label=max_label, null_values=null_values)

    def recode_utility(
        self,
        target: str,
        inputs: ColumnSpec,
        p: float,
        *,
        metric: Literal["precision", "recall", "f", "accuracy"] | None = "recall",
        test_size: float | None = None,
        seed: int = 0,
        l2: float = 0.0001,
        undefined: str = "skip",
        sep: str = "|",
        other: str | None = None,
        max_label: int | None = 200,
        null_values: str | Sequence[str] | None = None,
    ) -> float | UtilityReport:
        """Model-based information loss of recoding the ``inputs`` (Sano & Hattori, eq. 6):
        metric of a multinomial logit predicting the original ``target`` from the original
        inputs minus the same from the recoded inputs.

        Parameters
        ----------
        target
            The categorical column predicted.
        inputs
            The categorical columns recoded (the predictors).
        p
            Minimum share of a category, as in :meth:`recode`.
        metric
            ``"precision"``, ``"recall"`` (the paper's choice), ``"f"`` or ``"accuracy"``;
            None returns a report of all four.
        test_size
            Fit on a random split and score on this share of rows held out (default: both
            models scored in-sample, as in the paper).
        seed
            Seed of the random split.
        l2
            Ridge penalty of the logit.
        undefined
            What a 0/0 per-class value does: ``"skip"`` it in the macro average (the paper's
            numbers) or count it ``"zero"``.
        sep, other, max_label
            As in :meth:`recode` (``other`` pools the merged groups).
        null_values
            Read as missing in the target and the inputs, so their rows leave the complete cases.

        Returns
        -------
        float or UtilityReport
            The loss in ``metric``, or with ``metric=None`` a report of all four.

        Examples
        --------

        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"x": ["u"] * 12 + ["v"] * 10 + ["w"] * 8,
        ...                    "y": ["a"] * 12 + ["b"] * 10 + ["a"] * 5 + ["b"] * 3})
        >>> round(df.sdc.recode_utility("y", "x", p=0.3), 6)
        0.031674
        """
        from .._columns import resolve_columns

        schema = self._schema()
        cols = resolve_columns(schema, target, what="target", default="error") + resolve_columns(
            schema, inputs, what="inputs", default="error"
        )
        from ..utility.recode_utility import recode_utility

        return recode_utility(self._collected(list(dict.fromkeys(cols))), target, inputs, p, metric=metric,
                              test_size=test_size, seed=seed, l2=l2, undefined=undefined, sep=sep, other=other,
                              max_label=max_label, null_values=null_values)

    @deprecated(renamed={"columns": "on"})
    def cramers_v(self, on: ColumnSpec = None) -> pl.DataFrame:
        """Cramér's V (Sano & Hattori, eq. 7) for every pair of the columns ``on`` (a LazyFrame is collected).

        Parameters
        ----------
        on
            Default: every String/Categorical/Enum column.

        Returns
        -------
        DataFrame
            The matrix: one column per column, one row per column.

        Examples
        --------
        >>> import polars as pl, polars_sdc
        >>> pl.DataFrame({"a": ["x", "x", "y", "y"], "b": ["u", "u", "v", "v"]}).sdc.cramers_v()["a"].to_list()
        [1.0, 1.0]
        """
        from .._columns import is_categorical, resolve_columns
        from ..utility import cramers_v

        schema = self._schema()
        if on is None:
            on = [c for c, t in schema.items() if is_categorical(t)]
        cols = resolve_columns(schema, on, kind="supported", what="on", default="error")
        return cramers_v(self._collected(cols), cols)

    @deprecated(renamed={"columns": "on"})
    def top_bottom_code(
        self,
        on: ColumnSpec,
        *,
        lower: float | None = None,
        upper: float | None = None,
        lower_p: float | None = None,
        upper_p: float | None = None,
        replacement: Literal["threshold", "mean"] = "threshold",
        household: str | None = None,
        household_columns: Sequence[str] | None = None,
    ) -> F:
        """Top/bottom coding of the numeric columns ``on`` (sdcMicro ``topBotCoding``). Native
        expressions, so a LazyFrame stays lazy and streams.

        Parameters
        ----------
        on
            Numeric columns to code.
        lower, upper
            Values below / above become this threshold.
        lower_p, upper_p
            Or: the bottom / top share of values.
        replacement
            ``"threshold"``, or ``"mean"``: the mean of the coded values.
        household
            Household id column: a household-level column (constant within every household)
            is coded on one row per household (its shares and means over households) and
            broadcast to the members (one whole-frame step).
        household_columns
            The household-level columns, declared instead of detected (each checked constant
            within every household; an error names the column and a household where it
            varies); the other columns are person-level. None: detected.

        Returns
        -------
        DataFrame or LazyFrame

        Examples
        --------
        >>> import polars as pl, polars_sdc
        >>> pl.DataFrame({"x": [1, 5, 7, 90]}).sdc.top_bottom_code("x", upper=10)["x"].to_list()
        [1, 5, 7, 10]
        """
        from ..recode import top_bottom_frame_exprs

        options = dict(lower=lower, upper=upper, lower_p=lower_p, upper_p=upper_p, replacement=replacement)
        exprs = top_bottom_frame_exprs(self._schema(), on, **options)
        from ..household import check_household_columns

        declared = check_household_columns(self._schema(), household, household_columns)
        if household is not None:
            from .._columns import resolve_columns
            from ..household import check_household_column, mask_households

            cols = resolve_columns(self._schema(), on, kind="numeric", what="on", default="error")
            check_household_column(self._schema(), household, cols)
            schema = pl.DataFrame(schema=self._schema()).with_columns(exprs).schema
            return self._frame_op(
                lambda df: mask_households(df, household, cols, lambda f, cs, _: f.with_columns(
                    top_bottom_frame_exprs(f.schema, cs, **options)), declared=declared), schema)
        return self._frame.with_columns(exprs)
