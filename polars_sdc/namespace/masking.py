"""``df.sdc`` / ``lf.sdc`` masking methods: PRAM, rank swapping, noise, interval recoding,
local suppression, targeted record swapping (sdcMicro's toolkit). Thin faces over :mod:`polars_sdc.masking`."""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

import polars as pl

from .._columns import ColumnSpec
from .._signature import deprecated
from ..household import check_household_columns
from ._base import F, FrameOps

if TYPE_CHECKING:
    from ..masking.pram import PramMatrix


class MaskingMethods(FrameOps[F]):
    """PRAM, rank swapping, noise, interval recoding and local suppression."""

    def pram(
        self,
        on: ColumnSpec,
        *,
        pd: Any = 0.8,
        alpha: float = 0.5,
        by: ColumnSpec = None,
        seed: int | None = None,
        key: str | None = None,
        matrix: Any = None,
        household: str | None = None,
        household_columns: Sequence[str] | None = None,
        suppressed_as: str | None = None,
    ) -> F:
        """PRAM (post-randomisation, sdcMicro ``pram``) of the categorical ``on`` columns: each
        category is released as another with the probabilities of ``alpha * P Q + (1 - alpha) I``
        (``P``: diagonal ~ U(pd, 1); ``Q``: its Bayes inverse; ``P Q`` keeps the frequencies in
        expectation), one matrix per column and ``by`` stratum, or a user ``matrix``. Row draws
        from ``polars_sdc.rng`` (stream ``pram/{column}``; keys = positions or ``key``). See
        :meth:`pram_matrix` for the matrices used. ``household``: a household-level column is
        PRAMed once per household (matrix from the household frequencies) and the released
        category given to all members. ``household_columns``: those columns declared
        household-level, the others person-level (detected if None).

        Parameters
        ----------
        on
            Categorical columns to PRAM.
        pd
            Lower bound of the probability to keep a category: a number, or ``{column: pd}``.
        alpha
            Weight of the invariant matrix.
        by
            Strata columns: each stratum is masked on its own.
        seed
            Seed of the random draws (the same seed gives the same release).
        key
            Unique id column: a row keeps its draws under reordering (default: row positions).
        matrix
            A user transition matrix (rows of numbers), or ``{column: matrix}``.
        household
            Household id column: household-level columns are masked once per household and given to
            every member.
        household_columns
            The household-level columns, declared instead of detected (each checked constant
            within every household; an error names the column and a household where it
            varies); the other columns are person-level. None: detected.
        suppressed_as
            On a generalised release, the label of its suppressed values (``"*"``): never a
            source nor a target (None: every value is a category).

        Returns
        -------
        DataFrame or LazyFrame
            The frame with the ``on`` columns PRAMed (dtypes kept).

        Examples
        --------
        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"c": ["a", "b"] * 500})
        >>> out = df.sdc.pram("c", pd=0.9, seed=1)
        >>> out.height, sorted(out["c"].unique().to_list())
        (1000, ['a', 'b'])
        """
        from ..masking.pram import _args, pram_frame, pram_output_schema

        from ..risk.suppressed import check_suppressed_as

        _args(self._schema(), on, by, key, alpha, seed, pd, matrix, household)
        check_household_columns(self._schema(), household, household_columns)
        check_suppressed_as(suppressed_as)
        return self._frame_op(
            lambda df: pram_frame(df, on, pd=pd, alpha=alpha, by=by, seed=seed, key=key, matrix=matrix,
                                  household=household, household_columns=household_columns,
                                  suppressed_as=suppressed_as),
            pram_output_schema(self._schema()),
        )

    def pram_matrix(
        self, on: ColumnSpec, *, pd: Any = 0.8, alpha: float = 0.5, by: ColumnSpec = None,
        seed: int | None = None, matrix: Any = None,
    ) -> dict[str, list[PramMatrix]]:
        """The PRAM matrices ``pram`` uses with the same arguments: ``{column: [PramMatrix per
        stratum]}`` (``.levels``, ``.matrix``, ``.stratum``, ``.to_frame()``); a LazyFrame is
        collected.

        Parameters
        ----------
        on
            Categorical columns to PRAM.
        pd
            Lower bound of the probability to keep a category: a number, or ``{column: pd}``.
        alpha
            Weight of the invariant matrix.
        by
            Strata columns: each stratum is masked on its own.
        seed
            Seed of the random draws (the same seed gives the same release).
        matrix
            A user transition matrix (rows of numbers), or ``{column: matrix}``.

        Returns
        -------
        dict[str, list[PramMatrix]]
            ``{column: [PramMatrix per stratum]}``.

        Examples
        --------
        >>> import polars as pl, polars_sdc
        >>> m = pl.DataFrame({"c": ["a", "a", "b"]}).sdc.pram_matrix("c", pd=1.0, seed=1)["c"][0]
        >>> m.levels, m.matrix.tolist()
        (['a', 'b'], [[1.0, 0.0], [0.0, 1.0]])
        """
        from .._columns import resolve_columns
        from ..masking.pram import pram_matrix

        cols = resolve_columns(self._schema(), on, default="error")
        by_cols = [] if by is None else resolve_columns(self._schema(), by, what="by")
        return pram_matrix(self._collected(cols + by_cols), cols, pd=pd, alpha=alpha, by=by_cols or None,
                           seed=seed, matrix=matrix)

    def rank_swap(
        self,
        on: ColumnSpec = None,
        *,
        p: float | None = None,
        r0: float | None = None,
        k0: float | None = None,
        top: float | None = None,
        bottom: float | None = None,
        by: ColumnSpec = None,
        seed: int | None = None,
        key: str | None = None,
        preset: Literal["sdcmicro"] | None = None,
        household: str | None = None,
        household_columns: Sequence[str] | None = None,
    ) -> F:
        """Rank swapping (Moore 1996; sdcMicro ``rankSwap``) of the numeric ``on`` columns: each
        value is swapped at most once, with one chosen uniformly among the free values whose
        rank is at most ``p * n`` above it (``p`` a fraction, default 0.05), so every column
        stays a permutation. Or ``r0`` (correlation kept) / ``k0`` (subset-mean preservation)
        set ``p`` as in sdcMicro; ``top`` / ``bottom`` fractions (default 0) are replaced by
        their mean and not swapped. ``preset="sdcmicro"``: sdcMicro's defaults (``R0 = 0.95``,
        5 % top and bottom coding) and its window (``< floor(n P)`` ranks; its ``P`` is a
        fraction in its C++ although documented as a percent: ``polars_sdc.masking.rank_swap``).
        ``by``: within each stratum (``n`` its values; a stratum with one value, or with
        ``p * n < 1``, is an error naming it). Draws: ``polars_sdc.rng`` stream
        ``rank_swap/{column}``, keys = positions or ``key``. Decimal columns swap exactly.
        ``household``: household-level columns are swapped between households and the value
        given to all members; ``household_columns`` declares them (else detected).

        Parameters
        ----------
        on
            Numeric columns to swap (default: every numeric column).
        p
            Swap window: a fraction of the rows (default 0.05).
        r0
            The window from the correlation to keep (sdcMicro R0).
        k0
            The window from subset-mean preservation (sdcMicro K0).
        top
            Share of the largest values replaced by their mean, not swapped.
        bottom
            Share of the smallest values replaced by their mean, not swapped.
        by
            Strata columns: each stratum is masked on its own.
        seed
            Seed of the random draws (the same seed gives the same release).
        key
            Unique id column: a row keeps its draws under reordering (default: row positions).
        preset
            Sdcmicro: sdcMicro's defaults (R0 = 0.95, 5 % top/bottom coding) and window.
        household
            Household id column: household-level columns are masked once per household and given to
            every member.
        household_columns
            The household-level columns, declared instead of detected (each checked constant
            within every household; an error names the column and a household where it
            varies); the other columns are person-level. None: detected.

        Returns
        -------
        DataFrame or LazyFrame
            The frame with the ``on`` columns swapped (each stays a permutation of itself, but for top/bottom coding).

        Examples
        --------
        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"x": [1, 2, 3, 4, 5, 6, 7, 8]})
        >>> sorted(df.sdc.rank_swap("x", p=0.25, seed=2)["x"].to_list())
        [1, 2, 3, 4, 5, 6, 7, 8]
        """
        from ..masking._common import check_seed
        from ..masking.rank_swap import _check_args, rank_swap_columns, rank_swap_frame, rank_swap_output_schema

        _, _, _, t, b = _check_args(p, r0, k0, top, bottom, preset)
        check_seed(seed)
        cols, by_cols = rank_swap_columns(self._schema(), on, by, key, household)
        check_household_columns(self._schema(), household, household_columns)
        return self._frame_op(
            lambda df: rank_swap_frame(df, cols, p=p, r0=r0, k0=k0, top=top, bottom=bottom, by=by_cols or None,
                                       seed=seed, key=key, preset=preset, household=household,
                                       household_columns=household_columns),
            rank_swap_output_schema(self._schema(), cols, t, b),
        )

    def add_noise(
        self,
        on: ColumnSpec = None,
        *,
        method: Literal["additive", "correlated", "correlated2", "moments"] = "additive",
        noise: float = 150.0,
        delta: float = 0.1,
        by: ColumnSpec = None,
        seed: int | None = None,
        key: str | None = None,
        household: str | None = None,
        household_columns: Sequence[str] | None = None,
    ) -> F:
        """Noise on the numeric ``on`` columns (Float64 out; sdcMicro ``addNoise``):
        ``"additive"`` (N(0, (noise% sd)^2) per column), ``"correlated"`` (N(0, noise% Sigma),
        Kim 1986), ``"correlated2"`` (``x sqrt(1-d^2) + d N(..)``, ``d = delta``) or ``"moments"``
        (correlated noise recoloured so released means and covariance equal the originals;
        exact linear relations between columns are kept). ``by``: per stratum (its sds,
        covariance, means; at least 2 rows each, ``p + 2`` for ``"moments"`` on ``p`` columns,
        else an error naming the stratum; ``"moments"`` refuses a frame of ``<= p + 1`` rows too:
        exact moments would pin the records). A constant column stays exactly constant. Normal
        draws from ``polars_sdc.rng`` stream ``add_noise/{column}``, keys = positions or ``key``.
        Nulls stay null (noise on the non-null values; ``"moments"`` exact on them, per null
        pattern). ``household``: household-level columns noised once per household and
        broadcast to all members (see :func:`polars_sdc.masking.add_noise.add_noise_frame`);
        ``household_columns`` declares them (else detected).

        Parameters
        ----------
        on
            Numeric columns (default: every numeric column).
        method
            Kind of noise.
        noise
            Noise level in percent of the standard deviation.
        delta
            The d of method correlated2.
        by
            Strata columns: each stratum is masked on its own.
        seed
            Seed of the random draws (the same seed gives the same release).
        key
            Unique id column: a row keeps its draws under reordering (default: row positions).
        household
            Household id column: household-level columns are masked once per household and given to
            every member.
        household_columns
            The household-level columns, declared instead of detected (each checked constant
            within every household; an error names the column and a household where it
            varies); the other columns are person-level. None: detected.

        Returns
        -------
        DataFrame or LazyFrame
            The frame with the ``on`` columns noised (Float64).

        Examples
        --------
        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"a": [1.0, 2.0, 3.0, 4.0], "b": [1.0, 3.0, 2.0, 5.0]})
        >>> out = df.sdc.add_noise(method="moments", seed=3)
        >>> [round(v, 9) for v in out.mean().row(0)], round(out.select(pl.cov("a", "b")).item(), 9)
        ([2.5, 2.75], 1.833333333)
        """
        from ..masking._common import check_seed, on_by_household
        from ..masking.add_noise import add_noise_frame, add_noise_output_schema, check_args

        check_args(method, noise, delta)
        check_seed(seed)
        cols, by_cols = on_by_household(self._schema(), on, by, key, household)
        check_household_columns(self._schema(), household, household_columns)
        return self._frame_op(
            lambda df: add_noise_frame(df, cols, method=method, noise=noise, delta=delta, by=by_cols or None,
                                       seed=seed, key=key, household=household, household_columns=household_columns),
            add_noise_output_schema(self._schema(), cols),
        )

    def recode_intervals(
        self,
        on: ColumnSpec,
        *,
        breaks: Any = None,
        n: int | None = None,
        method: Literal["equal", "quantile"] = "equal",
        right_closed: bool = True,
        household: str | None = None,
        household_columns: Sequence[str] | None = None,
    ) -> F:
        """Interval recoding (sdcMicro ``globalRecode``) of the numeric ``on`` columns into an
        Enum of interval labels ``"(a, b]"``: at ``breaks`` (a list, or ``{column: list}``;
        open end intervals beyond them), or ``n`` intervals, ``method="equal"`` (sdcMicro
        ``equidistant``: from min - 1 to max + 1, rounded) or ``"quantile"`` (``equalAmount``;
        tied quantiles merged). Native Polars ``bin_intervals``; on a LazyFrame, ``n=`` first
        collects a one-row min/max or quantile aggregate. ``household``: the household id;
        the ``n=`` breaks of a household-level column (constant within every household) come
        from one row per household (a recoding maps equal values alike, so every member gets
        the same interval); ``household_columns`` declares those columns (else detected).

        Parameters
        ----------
        on
            Numeric columns to recode into intervals.
        breaks
            Cut points (a list), or ``{column: [...]}``.
        n
            Number of intervals (instead of breaks).
        method
            With n: equal widths or equal counts.
        right_closed
            Intervals (a, b] (else [a, b)).
        household
            Household id column: household-level columns are masked once per household and given to
            every member.
        household_columns
            The household-level columns, declared instead of detected (each checked constant
            within every household; an error names the column and a household where it
            varies); the other columns are person-level. None: detected.

        Returns
        -------
        DataFrame or LazyFrame
            The frame with the ``on`` columns as Enums of interval labels.

        Examples
        --------
        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"age": [17, 25, 38, 52, 90]})
        >>> df.sdc.recode_intervals("age", breaks=[30, 60])["age"].to_list()
        ['(-inf, 30]', '(-inf, 30]', '(30, 60]', '(30, 60]', '(60, inf)']
        >>> df.sdc.recode_intervals("age", n=2)["age"].to_list()
        ['[16, 54]', '[16, 54]', '[16, 54]', '[16, 54]', '(54, 91]']
        """
        from ..masking.intervals import (breaks_stats, check_args, check_no_nan_inf, data_breaks_stats,
                                         recode_intervals_exprs)

        from ..household import check_household_column, split_columns

        from .._validation import check_bool

        check_bool(right_closed, "right_closed")
        cols = check_args(self._schema(), on, breaks, n, method)
        check_household_column(self._schema(), household, cols)
        declared = check_household_columns(self._schema(), household, household_columns)
        if not self._lazy:          # NaN / inf: an error now (a LazyFrame raises it at collect)
            for c in cols:
                if self._schema()[c].is_float():
                    check_no_nan_inf(self._frame.get_column(c))
        if household is not None and breaks_stats(cols, n, method):
            f = self._collected(cols + [household])
            hh, person = split_columns(f, household, cols, declared)
            parts = ([data_breaks_stats(f, person, n, method)] if person else []) + (
                [data_breaks_stats(f.filter(pl.col(household).is_first_distinct()), hh, n, method)] if hh else [])
            stats = pl.concat(parts, how="horizontal")
        else:
            stats = data_breaks_stats(self._frame, cols, n, method)
        exprs = recode_intervals_exprs(cols, stats, breaks=breaks, n=n, method=method, right_closed=right_closed,
                                       schema=self._schema(), lazy=self._lazy)
        return self._frame.with_columns(exprs)

    def suppress(
        self,
        k: int,
        on: ColumnSpec,
        *,
        importance: Any = None,
        by: ColumnSpec = None,
        alpha: float = 1.0,
        combs: Any = None,
        tiebreak: Any = None,
        household: str | None = None,
        household_columns: Sequence[str] | None = None,
        suppressed_as: str | None = None,
    ) -> F:
        """Local suppression to k-anonymity (after sdcMicro ``localSuppression``): set few key
        values to null so that every record's key combination is shared by >= k records, a
        null matching any value with the ``alpha`` rule of ``frequencies`` (the release is
        checked with it before it is returned). Ranks are one integer per key or a
        ``{column: rank}`` mapping, 1 = keep longest. ``importance``: sdcMicro's priority, a
        key of rank 1 is suppressed only when no set of less important keys reaches k (more
        suppressions in all). ``tiebreak``: the fewest suppressions per record first, the
        ranking only decides between equally few (the default, with keys with more
        categories suppressed first; docs/suppression.md measures the trade-off). ``by``:
        within strata; ``combs=[2, 3]``: for every subset of keys of those sizes.
        ``household``: the household id; a household-level key (constant within every
        household) is suppressed for all members or none; ``household_columns`` declares
        those keys (else detected).

        Parameters
        ----------
        k
            Every key combination is shared by at least k records.
        on
            Key (quasi-identifier) columns.
        importance
            SdcMicro's priority: one integer per key or {column: rank}, a key of rank 1 is
            suppressed only when nothing else reaches k.
        by
            Strata columns: each stratum is masked on its own (a null is a stratum of its own).
        alpha
            Weight of a match through a suppressed (null) value, in the records' frequencies;
            with ``household``, households are counted as ``household_frequencies`` counts
            them (defined for alpha = 1 only): a household compatible through a null counts 1.
        combs
            K-anonymity for every subset of keys of these sizes (default: all keys). The
            exact search is exponential in the keys of a subset: more than 20, or a search
            estimated above about a minute, is an SDCError that names the combs size that
            fits (docs/masking.md).
        tiebreak
            Fewest suppressions first; this ranking (one integer per key or {column: rank}) only
            decides ties (default: keys with more categories first).
        household
            Household id column: household-level columns are masked once per household and given to
            every member.
        household_columns
            The household-level columns, declared instead of detected (each checked constant
            within every household; an error names the column and a household where it
            varies); the other columns are person-level. None: detected.
        suppressed_as
            On a generalised release, the label of its suppressed records (``"*"``): a record
            whose keys are all that label is read as every key missing and keeps its label
            (None: every value read as written).

        Returns
        -------
        DataFrame or LazyFrame
            The frame with the suppressed key values null.

        Examples
        --------
        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"a": [1, 2, 1, 2], "b": ["u", "u", "v", "v"], "c": ["p", "p", "q", "q"]})
        >>> df.sdc.suppress(2, ["a", "b", "c"], importance={"a": 1}).null_count().row(0)
        (0, 2, 2)
        >>> df.sdc.suppress(2, ["a", "b", "c"], tiebreak={"a": 1}).null_count().row(0)
        (2, 0, 0)
        >>> df = pl.DataFrame({"a": ["x", "x", "x", "y"], "b": ["u", "u", "v", "v"]})
        >>> out = df.sdc.suppress(2, ["a", "b"])
        >>> out.rows(), out.sdc.k_anonymity(["a", "b"])
        ([('x', 'u'), ('x', 'u'), (None, 'v'), ('y', 'v')], 2)
        """
        from ..masking.suppress import suppress_frame
        from ..risk.frequencies import key_columns

        from ..household import check_household_column

        check_household_column(self._schema(), household, key_columns(self._schema(), on))
        check_household_columns(self._schema(), household, household_columns)
        from ..masking.suppress import key_subsets
        from ..risk.suppressed import check_suppressed_as

        key_subsets(combs, len(key_columns(self._schema(), on)))    # too many keys: refused when written
        check_suppressed_as(suppressed_as)
        _check_suppress_plan(self._schema(), k, on, importance=importance, by=by, alpha=alpha, combs=combs,
                             tiebreak=tiebreak)
        return self._frame_op(
            lambda df: suppress_frame(df, k, on, importance=importance, by=by, alpha=alpha, combs=combs,
                                      tiebreak=tiebreak, household=household, household_columns=household_columns,
                                      suppressed_as=suppressed_as),
            self._schema(),
        )

    @deprecated(renamed={"risk_above": "threshold"})
    def suppress_risky(
        self,
        on: ColumnSpec,
        *,
        threshold: float,
        weight: str | None = None,
        key_var: str | None = None,
        alpha: float = 1.0,
        household: str | None = None,
        household_columns: Sequence[str] | None = None,
        suppressed_as: str | None = None,
    ) -> F:
        """Suppress key values in the records whose individual risk (sdcMicro ``indivRisk``,
        with ``weight`` the sampling weights) exceeds ``threshold`` (after sdcMicro
        ``localSupp``): ``key_var`` in them, or by default their not yet suppressed key with the
        most categories, repeated until no record is above the threshold. ``household``: a
        household-level key is suppressed for all members or none (``household_columns``
        declares those keys; else detected).

        Parameters
        ----------
        on
            Key (quasi-identifier) columns.
        threshold
            Individual-risk threshold (sdcMicro ``localSupp``'s ``threshold``).
        weight
            Sampling-weight column.
        key_var
            Suppress only this key (default: the risky record's key with most categories).
        alpha
            Weight of a match through a suppressed (null) value.
        household
            Household id column: household-level columns are masked once per household and given to
            every member.
        household_columns
            The household-level columns, declared instead of detected (each checked constant
            within every household; an error names the column and a household where it
            varies); the other columns are person-level. None: detected.
        suppressed_as
            On a generalised release, the label of its suppressed records (``"*"``): a record
            whose keys are all that label is read as every key missing and keeps its label
            (None: every value read as written).

        Returns
        -------
        DataFrame or LazyFrame
            The frame with the suppressed key values null.

        Examples
        --------
        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"a": ["x", "x", "x", "y"], "b": [1, 1, 1, 1], "w": [10.0, 10.0, 10.0, 2.0]})
        >>> df.sdc.suppress_risky(["a", "b"], weight="w", threshold=0.2)["a"].to_list()
        ['x', 'x', 'x', None]
        """
        from ..masking.suppress import suppress_risky_frame
        from ..risk.frequencies import key_columns

        from ..household import check_household_column

        check_household_column(self._schema(), household, key_columns(self._schema(), on, weight))
        check_household_columns(self._schema(), household, household_columns)
        from ..risk.suppressed import check_suppressed_as

        check_suppressed_as(suppressed_as)
        _check_suppress_risky_plan(self._schema(), on, threshold=threshold, key_var=key_var, alpha=alpha)
        return self._frame_op(
            lambda df: suppress_risky_frame(df, on, threshold=threshold, weight=weight, key_var=key_var, alpha=alpha,
                                            household=household, household_columns=household_columns,
                                            suppressed_as=suppressed_as),
            self._schema(),
        )

    def swap_records(
        self,
        *,
        household: str,
        hierarchy: ColumnSpec,
        similar: Any = None,
        swaprate: float = 0.05,
        k_anonymity: int = 3,
        risk_variables: ColumnSpec = None,
        risk: ColumnSpec = None,
        risk_threshold: float | None = None,
        carry_along: ColumnSpec = None,
        swapped_column: str | None = None,
        seed: int | None = None,
        key: str | None = None,
        suppressed_as: str | None = None,
    ) -> F:
        """Targeted record swapping (sdcMicro ``recordSwap``): whole households exchange their
        geographic ``hierarchy`` values (and ``carry_along`` columns) with a household of another
        area. Draws keyed by household (``seed``, ``key``), so the row order does not matter.
        See ``docs/record-swapping.md`` and :meth:`swap_records_plan`.

        Parameters
        ----------
        household
            Household id column: households are swapped whole.
        hierarchy
            Geographic hierarchy, coarsest first (e.g. region, district).
        similar
            Donor profiles tried in order: a list of column lists a donor must match.
        swaprate
            Share of households to swap.
        k_anonymity
            Households whose ``risk_variables`` combination has fewer than this many persons
            in their area at a level are always swapped across that level.
        risk_variables
            Columns of the risk counts (with the hierarchy).
        risk
            Precomputed risk columns, one per hierarchy level (instead of counts).
        risk_threshold
            Risk above which a household is swapped (default ``1 / k_anonymity``); more are
            sampled (proportionally to risk) until ``swaprate`` of the households are swapped.
        carry_along
            Columns moved with the household (e.g. finer geography).
        swapped_column
            Also write the id of the household each row's household was swapped with.
        seed
            Seed of the draws.
        key
            Unique id column keying the draws.
        suppressed_as
            On a generalised release, the label of its suppressed values (``"*"``): a moved
            column holding it is refused (None: values as written).

        Returns
        -------
        DataFrame or LazyFrame

        Examples
        --------
        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"hid": [1, 1, 2, 3, 3, 4], "region": ["a", "a", "a", "b", "b", "b"]})
        >>> df.sdc.swap_records(household="hid", hierarchy="region", swaprate=0.5, k_anonymity=0,
        ...                     swapped_column="with", seed=1)["region", "with"].rows()
        [('b', 4), ('b', 4), ('a', 2), ('b', 3), ('b', 3), ('a', 1)]
        """
        from ..masking.record_swap import apply_swap, check_no_label_moves, record_swap_spec, swap_records_output_schema
        from ..risk.suppressed import check_suppressed_as

        check_suppressed_as(suppressed_as)

        spec = record_swap_spec(
            self._schema(), household=household, hierarchy=hierarchy, similar=similar, swaprate=swaprate,
            k_anonymity=k_anonymity, risk_variables=risk_variables, risk=risk, risk_threshold=risk_threshold,
            carry_along=carry_along, swapped_column=swapped_column, seed=seed, key=key,
        )
        return self._frame_op(lambda df: apply_swap(check_no_label_moves(df, spec, suppressed_as), spec),
                              swap_records_output_schema(self._schema(), spec))

    def swap_records_plan(
        self,
        *,
        household: str,
        hierarchy: ColumnSpec,
        similar: Any = None,
        swaprate: float = 0.05,
        k_anonymity: int = 3,
        risk_variables: ColumnSpec = None,
        risk: ColumnSpec = None,
        risk_threshold: float | None = None,
        seed: int | None = None,
        key: str | None = None,
    ) -> F:
        """The swaps :meth:`swap_records` makes with the same arguments.

        Parameters
        ----------
        household, hierarchy, similar, swaprate, k_anonymity, risk_variables, risk, risk_threshold, seed, key
            As in :meth:`swap_records`.

        Returns
        -------
        DataFrame or LazyFrame
            One row per household involved, with its ``partner`` (null: no donor found), the
            ``level`` swapped across, its ``role`` (``selected`` / ``donor``) and
            ``risk_level`` (coarsest level at risk, or null).

        Examples
        --------
        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"hid": [1, 1, 2, 3, 3, 4], "region": ["a", "a", "a", "b", "b", "b"]})
        >>> df.sdc.swap_records_plan(household="hid", hierarchy="region", swaprate=0.5, k_anonymity=0,
        ...                          seed=1).rows()
        [(1, 4, 'region', 'donor', None), (4, 1, 'region', 'selected', None)]
        """
        from ..masking.record_swap import plan_frame, plan_spec, swap_plan_schema

        spec = plan_spec(
            self._schema(), household=household, hierarchy=hierarchy, similar=similar, swaprate=swaprate,
            k_anonymity=k_anonymity, risk_variables=risk_variables, risk=risk, risk_threshold=risk_threshold,
            seed=seed, key=key,
        )
        return self._frame_op(lambda df: plan_frame(df, spec), swap_plan_schema(self._schema(), spec))


def _check_suppress_plan(schema: pl.Schema, k: Any, on: ColumnSpec, *, importance: Any, by: ColumnSpec, alpha: Any,
                         combs: Any, tiebreak: Any) -> None:
    """The checks of :func:`~polars_sdc.masking.suppress.suppress_frame` that need no data, run
    when a step is planned (a LazyFrame plan with k = 0 or an unknown ``importance`` key fails
    when written, as the eager call does, not at ``collect()``)."""
    import numpy as np

    from .._columns import resolve_columns
    from .._errors import SDCError
    from .._validation import check_int
    from ..masking.suppress import _importance
    from ..risk.frequencies import check_alpha, key_columns

    keys = key_columns(schema, on)
    for b in [] if by is None else resolve_columns(schema, by, what="by"):
        if b in keys:
            raise SDCError(f"column {b!r}: in both `on` and `by`")
    check_alpha(alpha)
    check_int(k, "k", minimum=1)
    if importance is not None and tiebreak is not None:
        raise SDCError("give `importance` (a priority: rank-1 keys are suppressed only when nothing else "
                       "reaches k) or `tiebreak` (fewest suppressions first, the ranking decides ties), not both")
    ranks = importance if importance is not None else tiebreak
    if ranks is not None:   # the ranks' form and names (the default ranking counts categories: data)
        _importance(pl.DataFrame(schema={c: schema[c] for c in keys}), keys, ranks,
                    "importance" if importance is not None else "tiebreak")
    if combs is not None:
        sizes = [combs] if isinstance(combs, (int, np.integer)) and not isinstance(combs, bool) else combs
        if not isinstance(sizes, Sequence) or isinstance(sizes, str) or not sizes or any(
                isinstance(c, bool) or not isinstance(c, (int, np.integer)) or not 1 <= c <= len(keys) for c in sizes):
            raise SDCError(f"combs must be subset sizes between 1 and {len(keys)}, got {combs!r}")


def _check_suppress_risky_plan(schema: pl.Schema, on: ColumnSpec, *, threshold: Any, key_var: Any,
                               alpha: Any) -> None:
    """The checks of :func:`~polars_sdc.masking.suppress.suppress_risky_frame` that need no
    data, run when a step is planned."""
    from .._errors import SDCError
    from .._validation import check_real
    from ..risk.frequencies import check_alpha, key_columns

    keys = key_columns(schema, on)
    check_alpha(alpha)
    check_real(threshold, "threshold", minimum=0.0, maximum=1.0)
    if key_var is not None and key_var not in keys:
        raise SDCError(f"key_var {key_var!r}: not one of the keys in `on`")
