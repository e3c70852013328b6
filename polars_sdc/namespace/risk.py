"""``df.sdc`` / ``lf.sdc`` disclosure-risk methods (thin: validate, then delegate to
``polars_sdc.risk``)."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal

import polars as pl

from .._columns import ColumnSpec
from .._signature import deprecated
from ._base import F, FrameOps

if TYPE_CHECKING:
    from ..risk.measure import RiskResult


def _one(sensitive: Any) -> str:
    from .._errors import SDCError

    if not isinstance(sensitive, str):
        raise SDCError(f"`sensitive`: expected one column name, got {sensitive!r}")
    return sensitive


class RiskMethods(FrameOps[F]):
    """Disclosure-risk measures on a DataFrame or LazyFrame."""

    @deprecated(positional=("alpha", "household", "suppressed_as"))
    def frequencies(self, on: ColumnSpec, weight: str | None = None, *, alpha: float = 1.0,
                    household: str | None = None, suppressed_as: str | None = None) -> F:
        """Sample and population frequencies of each record's key combination (sdcMicro ``freqCalc``).

        Parameters
        ----------
        on
            Key (quasi-identifier) columns.
        weight
            Sampling-weight column (default: every weight 1).
        alpha
            Weight of a match through a missing key value (a null matches any value).
        household
            Household id column: ``fk`` / ``Fk`` count distinct households (``weight`` must then be
            constant within every household: a household's weight; else an error naming one).
        suppressed_as
            The label a generalisation gave its suppressed records' keys (``"*"``): a record
            whose every key is that label is read as every key missing (sdcMicro's wildcard).
            Default None: every value as written (a genuine ``"*"`` code is a value).

        Returns
        -------
        DataFrame or LazyFrame
            The frame with Float64 columns ``fk`` (sample frequency) and ``Fk`` (sum of the
            sampling weights over it) appended.

        Examples
        --------
        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"a": [1, 1, 2], "w": [10.0, 5.0, 3.0]})
        >>> df.sdc.frequencies("a", weight="w")["Fk"].to_list()
        [15.0, 15.0, 3.0]
        """
        from ..risk.frequencies import check_alpha, frequencies_frame, frequencies_output_schema, key_columns

        from ..household import check_household_column
        from ..risk.suppressed import check_suppressed_as

        cols = key_columns(self._schema(), on, weight)
        check_alpha(alpha)
        check_household_column(self._schema(), household, cols)
        check_suppressed_as(suppressed_as)
        schema = frequencies_output_schema(self._schema())
        return self._frame_op(lambda df: frequencies_frame(df, cols, weight, alpha, household, suppressed_as), schema)

    @deprecated(positional=("alpha", "household", "alpha_rule", "suppressed_as"))
    def individual_risk(
        self, on: ColumnSpec, weight: str | None = None, *, alpha: float = 1.0, household: str | None = None,
        alpha_rule: Literal["safe", "sdcmicro"] = "safe", suppressed_as: str | None = None,
    ) -> F:
        """sdcMicro's approximate individual risk of each record, in [0, 1], evaluated stably.

        Parameters
        ----------
        on, weight, alpha
            As in :meth:`frequencies`.
        household
            Household id column: also ``household_risk`` (``1 - prod(1 - r)``).
        alpha_rule
            ``"safe"``: at ``alpha < 1`` no risk falls below its ``alpha = 1`` value and
            ``1 < fk < 2`` is not risk 0; ``"sdcmicro"``: sdcMicro's numbers
            (``polars_sdc.risk.individual``, docs/reliability.md).
        suppressed_as
            As in :meth:`frequencies`.

        Returns
        -------
        DataFrame or LazyFrame
            The frame with ``fk``, ``Fk``, ``risk`` (and ``household_risk``) appended.

        Examples
        --------
        >>> import polars as pl, polars_sdc
        >>> pl.DataFrame({"a": [1, 1, 2]}).sdc.individual_risk("a")["risk"].to_list()
        [0.5, 0.5, 1.0]
        """
        from ..risk.frequencies import check_alpha, key_columns
        from ..risk.individual import check_alpha_rule, individual_risk_frame, individual_risk_output_schema
        from ..risk.suppressed import check_suppressed_as

        cols = key_columns(self._schema(), on, weight)
        check_alpha(alpha)
        check_alpha_rule(alpha_rule)
        check_suppressed_as(suppressed_as)
        schema = individual_risk_output_schema(self._schema(), household)
        return self._frame_op(lambda df: individual_risk_frame(df, cols, weight, alpha, household, alpha_rule,
                                                               suppressed_as), schema)

    @deprecated(positional=("alpha", "household", "alpha_rule", "suppressed_as"))
    def global_risk(
        self, on: ColumnSpec, weight: str | None = None, *, alpha: float = 1.0, household: str | None = None,
        alpha_rule: Literal["safe", "sdcmicro"] = "safe", suppressed_as: str | None = None,
    ) -> dict[str, float]:
        """Global risk (mean individual risk) and expected re-identifications (sum); a
        LazyFrame is collected (needed columns only).

        Parameters
        ----------
        on, weight, alpha, household, alpha_rule, suppressed_as
            As in :meth:`individual_risk` (with ``household``: the household versions too).

        Returns
        -------
        dict[str, float]

        Examples
        --------
        >>> import polars as pl, polars_sdc
        >>> pl.DataFrame({"a": [1, 1, 2, 3]}).sdc.global_risk("a")["expected_reidentifications"]
        3.0
        """
        from ..risk.frequencies import key_columns
        from ..risk.individual import global_risk

        from ..household import check_household_column

        cols = key_columns(self._schema(), on, weight)
        check_household_column(self._schema(), household)   # before a LazyFrame collects (was Polars' error)
        need = cols + [c for c in (weight, household) if c is not None]
        return global_risk(self._collected(need), cols, weight, alpha, household, alpha_rule, suppressed_as)

    @deprecated(positional=("max_size", "dis_fraction", "suppressed_as"))
    def suda(self, on: ColumnSpec, *, max_size: int | None = None, dis_fraction: float = 0.01,
             suppressed_as: str | None = None) -> F:
        """SUDA2 scores, as sdcMicro's ``suda2``.

        Parameters
        ----------
        on
            Key columns.
        max_size
            Largest minimal sample unique looked for (default: every size).
        dis_fraction
            Sampling fraction of DIS-SUDA.
        suppressed_as
            As in :meth:`frequencies`.

        Returns
        -------
        DataFrame or LazyFrame
            The frame with ``suda`` (sum of (M - |MSU|)! over the record's minimal sample
            uniques) and ``dis_suda`` (DIS-SUDA) appended.

        Examples
        --------
        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"a": [1, 1, 2, 2], "b": [1, 2, 1, 1], "c": [0, 0, 0, 1]})
        >>> df.sdc.suda(["a", "b", "c"])["suda"].to_list()
        [1.0, 2.0, 1.0, 2.0]
        """
        from ..risk.frequencies import key_columns
        from ..risk.suda import check_suda_args, suda_frame, suda_output_schema
        from ..risk.suppressed import check_suppressed_as

        cols = key_columns(self._schema(), on)
        check_suda_args(len(cols), max_size, dis_fraction)
        check_suppressed_as(suppressed_as)
        schema = suda_output_schema(self._schema())
        return self._frame_op(lambda df: suda_frame(df, cols, max_size, dis_fraction, suppressed_as), schema)

    @deprecated(positional=("kind", "c", "suppressed_as"))
    def l_diversity(
        self, on: ColumnSpec, sensitive: str, *, kind: Literal["distinct", "entropy", "recursive"] = "distinct",
        c: float = 2.0, suppressed_as: str | None = None,
    ) -> F:
        """The l of each record's equivalence class (sdcMicro ``ldiversity``).

        A null sensitive value counts as **one value of its own** (sdcMicro's rule for its
        missing code: one more distinct value and entropy category in a class that has a
        value; a class whose values are all null has distinct l 0; recursive l ignores it).
        The report, a problem's sign-off and log and ``generalize(l_diversity=)`` measure
        instead on the records with a value (a null is no secret there): ``{p, null}`` is l 2
        here, 1 there (docs/report.md).

        Parameters
        ----------
        on
            Key columns.
        sensitive
            The one sensitive column.
        kind
            ``"distinct"``, ``"entropy"`` or ``"recursive"`` (c, l)-diversity.
        c
            The c of recursive (c, l)-diversity.
        suppressed_as
            On a release of :meth:`generalize`, the label of its suppressed records (``"*"``):
            they are in no released class (ARX's reading) and get a null l.

        Returns
        -------
        DataFrame or LazyFrame
            The frame with ``l_diversity`` appended (the release's l is its minimum).

        Examples
        --------
        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"k": [1, 1, 2, 2], "s": ["a", "b", "c", "c"]})
        >>> df.sdc.l_diversity("k", "s")["l_diversity"].min()
        1.0
        >>> pl.DataFrame({"k": [1, 1, 1], "s": ["p", None, None]}).sdc.l_diversity("k", "s")["l_diversity"].to_list()
        [2.0, 2.0, 2.0]
        """
        from ..risk.diversity import KINDS, l_diversity_frame
        from .._errors import SDCError

        from ..risk.suppressed import check_suppressed_as

        def check() -> None:
            if kind not in KINDS:
                raise SDCError(f"kind must be one of {', '.join(KINDS)}; got {kind!r}")
            check_suppressed_as(suppressed_as)

        return self._per_class(on, sensitive, "l_diversity",
                               lambda df, keys, s: l_diversity_frame(df, keys, s, kind, c, suppressed_as), check)

    @deprecated(positional=("ordered", "suppressed_as"))
    def t_closeness(self, on: ColumnSpec, sensitive: str, *, ordered: bool | None = None,
                    suppressed_as: str | None = None) -> F:
        """The Earth Mover's Distance between each record's class distribution of
        ``sensitive`` and the whole table's. A null sensitive value is a value of its own
        (ranked last when ordered), as in :meth:`l_diversity`; the report and
        ``generalize(t_closeness=)`` compare the records with a value instead.

        Parameters
        ----------
        on
            Key columns.
        sensitive
            The one sensitive column.
        ordered
            Ordered distance (default for numeric/Enum) or equal distance (nominal).
        suppressed_as
            On a release of :meth:`generalize`, the label of its suppressed records (``"*"``):
            they are in no released class and get a null t (the table's distribution is
            every record's).

        Returns
        -------
        DataFrame or LazyFrame
            The frame with ``t_closeness`` appended (the release's t is its maximum).

        Examples
        --------
        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"k": [1, 1, 2, 2], "s": ["a", "b", "a", "a"]})
        >>> df.sdc.t_closeness("k", "s")["t_closeness"].max()
        0.25
        """
        from ..risk.diversity import check_ordered, t_closeness_frame
        from ..risk.suppressed import check_suppressed_as

        check_ordered(ordered)
        return self._per_class(on, sensitive, "t_closeness",
                               lambda df, keys, s: t_closeness_frame(df, keys, s, ordered, suppressed_as),
                               lambda: check_suppressed_as(suppressed_as))

    def _per_class(self, on: ColumnSpec, sensitive: Any, name: str, run: Callable[[Any, list[str], str], Any],
                   check: Callable[[], None] | None = None) -> F:
        """The frame with column ``name`` appended by ``run(df, keys, sensitive column)``, after
        the checks of the keys, the one ``sensitive`` column and then ``check()``."""
        from ..risk.diversity import diversity_output_schema, sensitive_columns
        from ..risk.frequencies import key_columns

        cols = key_columns(self._schema(), on)
        (s,) = sensitive_columns(self._schema(), cols, [_one(sensitive)])
        if name in (*cols, s):   # the result would overwrite the key / sensitive column itself
            from .._errors import SDCError

            raise SDCError(f"column {name!r}: is a key or the sensitive column; rename it before computing {name}")
        if check is not None:
            check()
        schema = diversity_output_schema(self._schema(), name)
        return self._frame_op(lambda df: run(df, cols, s), schema)

    def linkage_risk(self, masked: pl.DataFrame | pl.LazyFrame, on: ColumnSpec = None, *, ties: bool = True) -> float:
        """Share of ``masked`` records whose nearest original record (standardised columns,
        Euclidean, k-d tree) is their own. Structural nulls (at the same rows in ``masked``)
        follow sdcMicro's ``recordLinkage`` (``na_action = "ignore"``): a distance over the
        columns both records hold, scaled by sqrt(p / shared).

        Parameters
        ----------
        masked
            The release: same rows, same order.
        on
            Numeric columns compared (default: every numeric column).
        ties
            Ties count fractionally (False: no tie count, about twice as fast; with nulls
            ties are always counted).

        Returns
        -------
        float

        Examples
        --------
        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"x": [0.0, 1.0, 2.0], "y": [1.0, 0.0, 5.0]})
        >>> df.sdc.linkage_risk(df)
        1.0
        """
        from ..risk.linkage import linkage_risk

        orig, mask = self._pair_frames(masked, on)
        return linkage_risk(orig, mask, mask.columns, ties=ties)

    @deprecated(positional=("k",))
    def interval_disclosure(self, masked: pl.DataFrame | pl.LazyFrame, on: ColumnSpec = None, *,
                            k: float = 0.05) -> float:
        """Share of records whose every original value lies within masked +- k * sd(masked)
        (sdcMicro ``dRisk``).

        Parameters
        ----------
        masked
            The release: same rows, same order.
        on
            Numeric columns compared (default: every numeric column).
        k
            The interval half-width in standard deviations of the masked column.

        Returns
        -------
        float

        Examples
        --------
        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"x": [1.0, 2.0, 3.0, 4.0]})
        >>> df.sdc.interval_disclosure(df.with_columns(pl.col("x") * 2), "x")
        0.0
        """
        from ..risk.linkage import interval_disclosure

        orig, mask = self._pair_frames(masked, on)
        return interval_disclosure(orig, mask, mask.columns, k=k)

    def _pair_frames(self, masked: Any, on: ColumnSpec) -> tuple[Any, Any]:
        from .._columns import resolve_columns
        from .._errors import SDCError

        if not isinstance(masked, (pl.DataFrame, pl.LazyFrame)):
            raise SDCError(f"masked: expected a DataFrame or LazyFrame, got {type(masked).__name__}")
        cols = resolve_columns(self._schema(), on, kind="numeric", default="numeric")
        resolve_columns(masked if isinstance(masked, pl.DataFrame) else masked.collect_schema(), cols,
                        kind="numeric", what="on (masked)")
        mask = masked.select(cols)
        return self._collected(cols), mask.collect() if isinstance(mask, pl.LazyFrame) else mask

    def risk(
        self,
        on: ColumnSpec,
        weight: str | None = None,
        *,
        alpha: float = 1.0,
        household: str | None = None,
        suda: bool = True,
        max_size: int | None = None,
        dis_fraction: float = 0.01,
        threshold: float = 0.1,
        population_size: float | None = None,
        ks: Sequence[int] = (2, 3, 5),
        alpha_rule: Literal["safe", "sdcmicro"] = "safe",
        suppressed_as: str | None = None,
    ) -> RiskResult:
        """Every disclosure-risk measure of the release on keys ``on`` (sdcMicro, ARX); a
        LazyFrame is collected (only the needed columns).

        Parameters
        ----------
        on, weight, alpha, household, alpha_rule, suppressed_as
            As in :meth:`individual_risk` (``suppressed_as="*"`` for a release of
            :meth:`generalize`: its suppressed records match every record).
        suda, max_size, dis_fraction
            SUDA2 scores (False: none), as in :meth:`suda`.
        threshold
            ARX's acceptable record risk.
        population_size
            Population size (default: the sum of the weights).
        ks
            The k of the records-violating-k counts.

        Returns
        -------
        RiskResult
            ``.per_record`` (fk, Fk, individual risk, SUDA, DIS-SUDA; row order kept) and
            ``.summary`` (k-anonymity violations, global risk, expected re-identifications,
            ARX's prosecutor / journalist / marketer risk, population uniqueness).

        Examples
        --------
        >>> import polars as pl, polars_sdc
        >>> r = pl.DataFrame({"a": [1, 1, 2, 3]}).sdc.risk("a", suda=False)
        >>> r["expected_reidentifications"], r["prosecutor_highest"]
        (3.0, 1.0)
        """
        from ..risk.frequencies import key_columns

        from ..risk.measure import measure_risk

        from ..household import check_household_column

        cols = key_columns(self._schema(), on, weight)
        check_household_column(self._schema(), household)   # before a LazyFrame collects (was Polars' error)
        need = cols + [c for c in (weight, household) if c is not None]
        return measure_risk(self._collected(need), cols, weight, alpha=alpha, household=household, suda=suda,
                            max_size=max_size, dis_fraction=dis_fraction, threshold=threshold,
                            population_size=population_size, ks=ks, alpha_rule=alpha_rule,
                            suppressed_as=suppressed_as)
