"""``df.sdc`` / ``lf.sdc`` disclosure-risk methods (thin: validate, then delegate to
``polars_sdc.risk``)."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._columns import ColumnSpec
from ..risk.measure import RiskResult, measure_risk
from .._signature import delegates_to
from ._base import FrameOps


def _one(sensitive: Any) -> str:
    from .._errors import SDCError

    if not isinstance(sensitive, str):
        raise SDCError(f"`sensitive`: expected one column name, got {sensitive!r}")
    return sensitive


class RiskMethods(FrameOps):
    """Disclosure-risk measures on a DataFrame or LazyFrame."""

    def frequencies(self, on: ColumnSpec, weight: str | None = None, alpha: float = 1.0,
                    household: str | None = None) -> Any:
        """The frame with Float64 columns ``fk`` (sample frequency of the record's key
        combination) and ``Fk`` (sum of sampling weights over it) appended; missing key
        values match any value, weighted by ``alpha`` (sdcMicro ``freqCalc``). With
        ``household`` (the household id) ``fk`` / ``Fk`` count distinct households.

        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"a": [1, 1, 2], "w": [10.0, 5.0, 3.0]})
        >>> df.sdc.frequencies("a", weight="w")["Fk"].to_list()
        [15.0, 15.0, 3.0]
        """
        from ..risk.frequencies import check_alpha, frequencies_frame, frequencies_output_schema, key_columns

        from ..household import check_household_column

        cols = key_columns(self._schema(), on, weight)
        check_alpha(alpha)
        check_household_column(self._schema(), household, cols)
        schema = frequencies_output_schema(self._schema())
        return self._frame_op(lambda df: frequencies_frame(df, cols, weight, alpha, household), schema)

    def individual_risk(
        self, on: ColumnSpec, weight: str | None = None, alpha: float = 1.0, household: str | None = None,
        alpha_rule: str = "safe",
    ) -> Any:
        """The frame with ``fk``, ``Fk``, ``risk`` (sdcMicro's approximate individual risk, in
        [0, 1], evaluated stably) and, with ``household=``, ``household_risk`` (``1 - prod(1 - r)``)
        appended. ``alpha_rule="safe"`` (default): at ``alpha < 1`` no risk falls below its
        ``alpha = 1`` value and ``1 < fk < 2`` is not risk 0; ``"sdcmicro"``: sdcMicro's numbers
        (``polars_sdc.risk.individual``, docs/reliability.md).

        >>> import polars as pl, polars_sdc
        >>> pl.DataFrame({"a": [1, 1, 2]}).sdc.individual_risk("a")["risk"].to_list()
        [0.5, 0.5, 1.0]
        """
        from ..risk.frequencies import check_alpha, key_columns
        from ..risk.individual import check_alpha_rule, individual_risk_frame, individual_risk_output_schema

        cols = key_columns(self._schema(), on, weight)
        check_alpha(alpha)
        check_alpha_rule(alpha_rule)
        schema = individual_risk_output_schema(self._schema(), household)
        return self._frame_op(lambda df: individual_risk_frame(df, cols, weight, alpha, household, alpha_rule), schema)

    def global_risk(
        self, on: ColumnSpec, weight: str | None = None, alpha: float = 1.0, household: str | None = None,
        alpha_rule: str = "safe",
    ) -> dict[str, float]:
        """Global risk (mean individual risk) and expected re-identifications (sum), plus the
        household versions with ``household=`` (a LazyFrame is collected: needed columns only).

        >>> import polars as pl, polars_sdc
        >>> pl.DataFrame({"a": [1, 1, 2, 3]}).sdc.global_risk("a")["expected_reidentifications"]
        3.0
        """
        from ..risk.frequencies import key_columns
        from ..risk.individual import global_risk

        cols = key_columns(self._schema(), on, weight)
        need = cols + [c for c in (weight, household) if c is not None]
        return global_risk(self._collected(need), cols, weight, alpha, household, alpha_rule)

    def suda(self, on: ColumnSpec, max_size: int | None = None, dis_fraction: float = 0.01) -> Any:
        """The frame with ``suda`` (SUDA2 score: sum of (M - |MSU|)! over the record's minimal
        sample uniques) and ``dis_suda`` (DIS-SUDA) appended, as sdcMicro's ``suda2``.

        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"a": [1, 1, 2, 2], "b": [1, 2, 1, 1], "c": [0, 0, 0, 1]})
        >>> df.sdc.suda(["a", "b", "c"])["suda"].to_list()
        [1.0, 2.0, 1.0, 2.0]
        """
        from ..risk.frequencies import key_columns
        from ..risk.suda import check_suda_args, suda_frame, suda_output_schema

        cols = key_columns(self._schema(), on)
        check_suda_args(len(cols), max_size, dis_fraction)
        schema = suda_output_schema(self._schema())
        return self._frame_op(lambda df: suda_frame(df, cols, max_size, dis_fraction), schema)

    def l_diversity(self, on: ColumnSpec, sensitive: str, kind: str = "distinct", c: float = 2.0) -> Any:
        """The frame with ``l_diversity`` appended: the l of each record's equivalence class
        on ``on`` for the ``sensitive`` column (``kind`` "distinct", "entropy" or "recursive"
        (c, l); sdcMicro ``ldiversity``). The release's l is the column's minimum.

        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"k": [1, 1, 2, 2], "s": ["a", "b", "c", "c"]})
        >>> df.sdc.l_diversity("k", "s")["l_diversity"].min()
        1.0
        """
        from ..risk.diversity import KINDS, l_diversity_frame
        from .._errors import SDCError

        def check() -> None:
            if kind not in KINDS:
                raise SDCError(f"kind must be one of {', '.join(KINDS)}; got {kind!r}")

        return self._per_class(on, sensitive, "l_diversity", lambda df, keys, s: l_diversity_frame(df, keys, s, kind, c),
                               check)

    def t_closeness(self, on: ColumnSpec, sensitive: str, ordered: bool | None = None) -> Any:
        """The frame with ``t_closeness`` appended: the Earth Mover's Distance between each
        record's class distribution of ``sensitive`` and the whole table's (ordered distance
        for numeric/Enum, equal distance for nominal columns). The release's t is the maximum.

        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"k": [1, 1, 2, 2], "s": ["a", "b", "a", "a"]})
        >>> df.sdc.t_closeness("k", "s")["t_closeness"].max()
        0.25
        """
        from ..risk.diversity import t_closeness_frame

        return self._per_class(on, sensitive, "t_closeness", lambda df, keys, s: t_closeness_frame(df, keys, s, ordered))

    def _per_class(self, on: ColumnSpec, sensitive: Any, name: str, run: Callable[[Any, list[str], str], Any],
                   check: Callable[[], None] | None = None) -> Any:
        """The frame with column ``name`` appended by ``run(df, keys, sensitive column)``, after
        the checks of the keys, the one ``sensitive`` column and then ``check()``."""
        from ..risk.diversity import diversity_output_schema, sensitive_columns
        from ..risk.frequencies import key_columns

        cols = key_columns(self._schema(), on)
        (s,) = sensitive_columns(self._schema(), cols, [_one(sensitive)])
        if check is not None:
            check()
        schema = diversity_output_schema(self._schema(), name)
        return self._frame_op(lambda df: run(df, cols, s), schema)

    def linkage_risk(self, masked: Any, on: ColumnSpec = None, *, ties: bool = True) -> float:
        """Share of ``masked`` records (same rows, same order) whose nearest original record
        (standardised columns, Euclidean, k-d tree) is their own; ties count fractionally
        (``ties=False``: no tie count, about twice as fast).

        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"x": [0.0, 1.0, 2.0], "y": [1.0, 0.0, 5.0]})
        >>> df.sdc.linkage_risk(df)
        1.0
        """
        from ..risk.linkage import linkage_risk

        orig, mask = self._pair_frames(masked, on)
        return linkage_risk(orig, mask, mask.columns, ties=ties)

    def interval_disclosure(self, masked: Any, on: ColumnSpec = None, k: float = 0.05) -> float:
        """Share of records whose every original value lies within masked +- k * sd(masked)
        (sdcMicro ``dRisk``).

        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"x": [1.0, 2.0, 3.0, 4.0]})
        >>> df.sdc.interval_disclosure(df.with_columns(pl.col("x") * 2), "x")
        0.0
        """
        from ..risk.linkage import interval_disclosure

        orig, mask = self._pair_frames(masked, on)
        return interval_disclosure(orig, mask, mask.columns, k=k)

    def _pair_frames(self, masked: Any, on: ColumnSpec) -> tuple[Any, Any]:
        import polars as pl

        from .._columns import resolve_columns
        from .._errors import SDCError

        if not isinstance(masked, (pl.DataFrame, pl.LazyFrame)):
            raise SDCError(f"masked: expected a DataFrame or LazyFrame, got {type(masked).__name__}")
        cols = resolve_columns(self._schema(), on, kind="numeric", default="numeric")
        resolve_columns(masked if isinstance(masked, pl.DataFrame) else masked.collect_schema(), cols,
                        kind="numeric", what="on (masked)")
        mask = masked.select(cols)
        return self._collected(cols), mask.collect() if isinstance(mask, pl.LazyFrame) else mask

    @delegates_to(measure_risk)
    def risk(self, on: ColumnSpec, weight: str | None = None, **options: Any) -> RiskResult:
        """Every disclosure-risk measure of the release on keys ``on``: a ``RiskResult`` with
        ``.per_record`` (fk, Fk, individual risk, SUDA, DIS-SUDA; row order kept) and
        ``.summary`` (k-anonymity violations, global risk, expected re-identifications, ARX's
        prosecutor / journalist / marketer risk, population uniqueness). A LazyFrame is
        collected (only the needed columns).

        >>> import polars as pl, polars_sdc
        >>> r = pl.DataFrame({"a": [1, 1, 2, 3]}).sdc.risk("a", suda=False)
        >>> r["expected_reidentifications"], r["prosecutor_highest"]
        (3.0, 1.0)
        """
        from ..risk.frequencies import key_columns

        cols = key_columns(self._schema(), on, weight)
        need = cols + [c for c in (weight, options.get("household")) if c is not None]
        return measure_risk(self._collected(need), cols, weight, **options)
