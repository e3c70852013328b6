"""``df.sdc`` / ``lf.sdc``: global recoding (Sano & Hattori), its model-based utility, top/bottom coding.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Unpack

import polars as pl

from .._signature import delegates_to
from .._typing import ColumnSpec, LabelOptions
from ..recode.frame import recode_map_frame
from ..utility.recode_utility import UtilityReport, recode_utility
from ._base import FrameOps


class RecodeMethods(FrameOps):
    """Minimum-frequency global recoding, Cramér's V, top and bottom coding."""

    # -- global recoding and model-based utility (Sano & Hattori) -------------------------------
    def recode(
        self,
        columns: ColumnSpec,
        p: float,
        *,
        hierarchy: Any = None,
        ordinal: Any = None,
        household: str | None = None,
        household_columns: Sequence[str] | None = None,
        **label_options: Unpack[LabelOptions],
    ) -> Any:
        """Minimum-frequency global recoding (Sano & Hattori, Fig. 1) of categorical ``columns``:
        with th = rows * p, the least frequent category merges with the second least (or
        all tied least frequent ones merge) until every count exceeds th or one is left.

        Merged labels join their parts with ``sep`` (``"|"``; the paper's ``"・"`` on request)
        and are cut at ``max_label`` characters (``"a|b|...(+N more)"``; None: no cap);
        ``other="Other"`` names every merged group ``"Other"`` instead (the groups are pooled;
        refused with hierarchy/ordinal, and if "Other" is an unmerged category). Nulls stay
        null; ``null_values=["?"]`` makes those categories null too (not merged; still counted
        in rows). String/Categorical keep their dtype and an Enum gets the new category set (on
        a LazyFrame it comes back Categorical: the new categories are known only from the
        data). Ties: lowest position (Enum order, else first appearance).
        ``hierarchy={col: {category: parent}}`` merges only siblings; ``ordinal=[enum cols]`` or
        ``{col: order}`` merges only neighbours. ``household``: the household id; a
        household-level column (constant within every household) counts households, not
        persons (th = households * p), and every member gets the same recoded category;
        ``household_columns`` declares those columns (else detected).

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

        check_p(p)
        schema = recode_output_schema(
            self._schema(), columns, lazy=self._lazy, hierarchy=hierarchy, ordinal=ordinal, **label_options
        )
        enum_as = pl.Categorical if self._lazy else None
        from ..household import check_household_columns

        declared = check_household_columns(self._schema(), household, household_columns)
        if household is not None:
            from .._columns import resolve_columns
            from ..household import check_household_column, mask_households

            cols = resolve_columns(self._schema(), columns, kind="categorical", what="columns", default="error")
            check_household_column(self._schema(), household, cols)
            return self._frame_op(
                lambda df: mask_households(df, household, cols, lambda f, cs, _: recode_frame(
                    f, cs, p, hierarchy=hierarchy, ordinal=ordinal, enum_as=enum_as, **label_options),
                    declared=declared),
                schema,
            )
        return self._frame_op(
            lambda df: recode_frame(
                df, columns, p, hierarchy=hierarchy, ordinal=ordinal, enum_as=enum_as, **label_options
            ),
            schema,
        )

    @delegates_to(recode_map_frame)
    def recode_map(self, columns: ColumnSpec, p: float, **options: Any) -> pl.DataFrame:
        """What :meth:`recode` merges: one row per observed category with ``column``,
        ``original``, ``recoded``, ``count`` and ``recoded_count`` (a LazyFrame is collected);
        a category of ``null_values`` has ``recoded`` null.

        >>> import polars as pl, polars_sdc
        >>> pl.DataFrame({"c": ["x", "y", "x", "z"]}).sdc.recode_map("c", 0.3)["recoded"].to_list()
        ['x', 'y|z', 'y|z']
        """
        from .._columns import resolve_columns

        cols = resolve_columns(self._schema(), columns, kind="categorical", what="columns", default="error")
        return recode_map_frame(self._collected(cols), cols, p, **options)

    @delegates_to(recode_utility)
    def recode_utility(self, target: str, inputs: ColumnSpec, p: float, **options: Any) -> float | UtilityReport:
        """Model-based information loss of recoding the ``inputs`` (Sano & Hattori, eq. 6):
        metric of a multinomial logit predicting the original ``target`` from the original
        inputs minus the same from the recoded inputs. ``metric`` is precision, recall
        (the paper's choice), f or accuracy; ``None`` returns a report of all four.
        ``other`` pools the merged groups (as in :meth:`recode`); ``null_values`` are read as
        missing in the target and the inputs, so their rows leave the complete cases.

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
        return recode_utility(self._collected(list(dict.fromkeys(cols))), target, inputs, p, **options)

    def cramers_v(self, columns: ColumnSpec = None) -> pl.DataFrame:
        """Cramér's V (Sano & Hattori, eq. 7) for every pair of ``columns`` (default: every
        String/Categorical/Enum column) as a matrix frame (a LazyFrame is collected).

        >>> import polars as pl, polars_sdc
        >>> pl.DataFrame({"a": ["x", "x", "y", "y"], "b": ["u", "u", "v", "v"]}).sdc.cramers_v()["a"].to_list()
        [1.0, 1.0]
        """
        from .._columns import is_categorical, resolve_columns
        from ..utility import cramers_v

        schema = self._schema()
        if columns is None:
            columns = [c for c, t in schema.items() if is_categorical(t)]
        cols = resolve_columns(schema, columns, kind="supported", what="columns", default="error")
        return cramers_v(self._collected(cols), cols)

    def top_bottom_code(
        self,
        columns: ColumnSpec,
        *,
        lower: float | None = None,
        upper: float | None = None,
        lower_p: float | None = None,
        upper_p: float | None = None,
        replacement: str = "threshold",
        household: str | None = None,
        household_columns: Sequence[str] | None = None,
    ) -> Any:
        """Top/bottom coding of numeric ``columns``: values above ``upper`` (or the top
        ``upper_p`` share) and below ``lower`` (or the bottom ``lower_p`` share) become the
        threshold, or with ``replacement="mean"`` the mean of the coded values. Native
        expressions, so a LazyFrame stays lazy and streams. ``household``: the household id;
        a household-level column (constant within every household) is coded on one row per
        household (its shares and means over households) and broadcast to the members (one
        whole-frame step); ``household_columns`` declares those columns (else detected).

        >>> import polars as pl, polars_sdc
        >>> pl.DataFrame({"x": [1, 5, 7, 90]}).sdc.top_bottom_code("x", upper=10)["x"].to_list()
        [1, 5, 7, 10]
        """
        from ..recode import top_bottom_frame_exprs

        options = dict(lower=lower, upper=upper, lower_p=lower_p, upper_p=upper_p, replacement=replacement)
        exprs = top_bottom_frame_exprs(self._schema(), columns, **options)
        from ..household import check_household_columns

        declared = check_household_columns(self._schema(), household, household_columns)
        if household is not None:
            from .._columns import resolve_columns
            from ..household import check_household_column, mask_households

            cols = resolve_columns(self._schema(), columns, kind="numeric", what="columns", default="error")
            check_household_column(self._schema(), household, cols)
            schema = pl.DataFrame(schema=self._schema()).with_columns(exprs).schema
            return self._frame_op(
                lambda df: mask_households(df, household, cols, lambda f, cs, _: f.with_columns(
                    top_bottom_frame_exprs(f.schema, cs, **options)), declared=declared), schema)
        return self._frame.with_columns(exprs)
