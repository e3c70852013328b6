"""``df.sdc`` / ``lf.sdc`` microaggregation: every method builds one
:class:`~polars_sdc.microagg.MicroaggSpec` (all checks, against the schema) and runs it as one
whole-frame step. From here to a method's kernel: ``spec.method.partition`` (e.g.
:func:`polars_sdc.microagg.mhm.partition_mhm`), then its Numba kernel.
"""
from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Generic, Literal, ParamSpec, TypeVar, cast

import polars as pl

from .._signature import deprecated
from .._typing import ColumnSpec, MethodName, OrderName, RefineName
from ..microagg.pipeline import MicroaggSpec
from ._base import F, FrameOps, G


def _passed(arguments: dict[str, Any]) -> dict[str, Any]:
    """A namespace method's keyword arguments (its ``locals()`` on entry, less ``self``, ``k``
    and ``on``), passed on under their declared names: the ``**method_options`` of partition
    methods added outside the package are merged in, and the options of the other partition
    methods (``gamma`` of V-MDAV, ``order`` of MHM, ...: at their defaults, as
    :func:`_method_options_checked` refused any given explicitly) are left out."""
    from ..microagg.pipeline import METHODS

    passed = {n: v for n, v in arguments.items() if n not in ("self", "k", "on", "method_options", "__class__")}
    passed.update(arguments.get("method_options") or {})
    chosen = METHODS.get(passed.get("method", "mdav"))
    own = set(chosen.options()) if chosen is not None else set()
    for meth in METHODS.values():
        for name in meth.options():
            if name not in own and name not in arguments.get("method_options", {}):
                passed.pop(name, None)
    return passed


P = ParamSpec("P")
R = TypeVar("R")


def _method_options_checked(fn: Callable[P, R]) -> Callable[P, R]:
    """``microaggregate`` / ``partition``: an option of another partition method given by the
    caller (``order="npn"`` with ``method="mdav"``), even at its default, is refused naming
    the method (:meth:`polars_sdc.microagg.Method.check_options`), as
    :meth:`MicroaggSpec.build` refuses it; the signature is unchanged."""

    @functools.wraps(fn)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        from ..microagg.pipeline import METHODS

        meth = METHODS.get(kwargs.get("method", "mdav"))  # type: ignore[arg-type]
        if meth is not None:  # (an unknown method: MicroaggSpec.build names it)
            others = {o for m in METHODS.values() for o in m.options()} - set(meth.options())
            given = {n: v for n, v in kwargs.items() if n in others}
            if given:
                meth.check_options(given)
        return fn(*args, **kwargs)

    return run


class MicroaggMethods(FrameOps[F], Generic[F, G]):
    """k-anonymity by microaggregation (MDAV, V-MDAV, MHM, optimal univariate, MIL)."""

    def _release(self, k: int, on: ColumnSpec, arguments: dict[str, Any]) -> F:
        spec = MicroaggSpec.build(self._schema(), k, on, **_passed(arguments))
        return self._frame_op(spec.apply, spec.output_schema())

    @_method_options_checked
    def partition(
        self,
        k: int,
        on: ColumnSpec = None,
        *,
        method: MethodName = "mdav",
        by: ColumnSpec = None,
        standardize: bool = True,
        ordinal: Sequence[str] = (),
        weights: Mapping[str, float] | None = None,
        refine: RefineName | None = None,
        refine_options: Mapping[str, Any] | None = None,
        merge_small_strata: bool = False,
        progress: bool = False,
        household: str | None = None,
        household_columns: Sequence[str] | None = None,
        merge_small_patterns: bool = False,
        gamma: float = 1.0,
        order: OrderName = "npn",
        cells_per_dim: int | None = None,
        leaf_size: int | None = None,
        **method_options: Any,
    ) -> G:
        """Group ids of a k-partition (every group >= k rows), in row order.

        Parameters
        ----------
        k
            Minimum group size.
        on
            Quasi-identifier columns (names or a selector; default every numeric column not
            in ``by``): numeric ones z-scored unless ``standardize=False``,
            String/Categorical/Enum ones by the discrete distance (rank distance if listed in
            ``ordinal``), combined by the product distance with per-column ``weights``.
        method
            ``"mdav"``, ``"vmdav"``, ``"mhm"`` or ``"univariate"``.
        by
            Strata, partitioned separately (a stratum with fewer than k rows is an error
            unless ``merge_small_strata=True`` pools the small strata).
        standardize, ordinal, weights
            The distance (above).
        refine, refine_options
            ``"mil"`` post-optimises the partition by MIL (thesis 4.2), ``"anneal"`` anneals
            after MIL; the refiner's options.
        merge_small_strata
            Pool strata with fewer than k rows instead of an error.
        progress
            A bar on stderr (rows of finished ``by`` strata with an ETA, or the elapsed time of
            an unstratified run; :mod:`polars_sdc.progress`).
        household, household_columns, merge_small_patterns
            As in :meth:`microaggregate`. The ids alone release nothing: release them with
            :meth:`aggregate` and the same ``household=`` and ``k=``, whose guard keeps a group
            mean from being one household's exact vector (as :meth:`microaggregate` does).
        gamma
            V-MDAV's growth factor (``method="vmdav"`` only).
        order, cells_per_dim, leaf_size
            MHM's path ordering and its grid / k-d tree sizes (``method="mhm"`` only).
        **method_options
            Options of a partition method added to ``polars_sdc.microagg.METHODS`` (checked,
            with every other keyword, by :meth:`polars_sdc.microagg.MicroaggSpec.build`).

        Returns
        -------
        Series or LazyFrame
            A UInt32 Series ``"group"`` (on a LazyFrame: a LazyFrame with that one column).

        Examples
        --------
        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"x": [1.0, 9.0, 2.0, 8.0]})
        >>> df.sdc.partition(2, on="x").to_list()
        [0, 1, 0, 1]
        """
        spec = MicroaggSpec.build(self._schema(), k, on, **_passed(locals()))
        if isinstance(self._frame, pl.LazyFrame):
            lazy = self._frame_op(lambda df: spec.partition(df).to_frame(), pl.Schema({"group": pl.UInt32}))
            return cast(G, lazy)
        return cast(G, spec.partition(self._frame))

    @_method_options_checked
    def microaggregate(
        self,
        k: int,
        on: ColumnSpec = None,
        *,
        method: MethodName = "mdav",
        by: ColumnSpec = None,
        standardize: bool = True,
        ordinal: Sequence[str] = (),
        weights: Mapping[str, float] | None = None,
        group_column: str | None = None,
        refine: RefineName | None = None,
        refine_options: Mapping[str, Any] | None = None,
        merge_small_strata: bool = False,
        pooled_label: Any = None,
        integers: Literal["round", "float"] = "round",
        progress: bool = False,
        household: str | None = None,
        household_columns: Sequence[str] | None = None,
        merge_small_patterns: bool = False,
        gamma: float = 1.0,
        order: OrderName = "npn",
        cells_per_dim: int | None = None,
        leaf_size: int | None = None,
        **method_options: Any,
    ) -> F:
        """Replace the ``on`` columns by their group representatives under a k-partition from
        ``method``: means for numeric columns, the most frequent value for categorical ones,
        the lower median for ``ordinal`` ones.

        Parameters
        ----------
        k
            Minimum group size: every released combination of the ``on`` values (within its
            ``by`` stratum) is shared by >= k rows.
        on
            Quasi-identifier columns (names or a selector; default every numeric column not
            in ``by``); the distance as in :meth:`partition`.
        method
            ``"mdav"``, ``"vmdav"``, ``"mhm"`` or ``"univariate"``.
        by
            Strata, each microaggregated on its own.
        standardize
            Partition z-scores (else the raw values).
        ordinal
            ``on`` columns compared by rank (released as the lower median).
        weights
            Per-column weights of the product distance.
        group_column
            Also write the group ids in this column.
        refine, refine_options
            ``"mil"`` first post-optimises the partition by MIL (thesis 4.2); ``"anneal"``
            anneals after MIL (slower, lower loss); the refiner's options.
        merge_small_strata, pooled_label
            Pool strata with fewer than k rows instead of an error; they are released under
            one stratum label per ``by`` column — ``pooled_label``, or the pooled values
            joined by ``"+"`` — because the stratum is a quasi-identifier too (a ``by`` column
            that is not String/Categorical then becomes String, or keeps its dtype if
            ``pooled_label`` fits it).
        integers
            ``"round"``: integer columns keep their dtype, the group's exact mean rounded half
            to even (on the census data, MDAV k = 5, rounding moves SSE/SST from 9.0884355 %
            to 9.0884364 %); Decimal columns too, rounded to their scale; Boolean columns
            the majority (a tie: False); ``"float"``: the Float64 mean.
        progress
            A progress bar on stderr.
        household
            Household id column (persons in households): every released group holds records
            of >= k distinct households. Household-level ``on`` columns (constant within every
            household) are microaggregated once per household and broadcast to the members;
            person-level columns are partitioned per person and every group with fewer than
            k households is dissolved into its nearest groups. A mix of household- and
            person-level columns is an error (two calls); ``by`` strata must not split a
            household. Without it, a frame whose ``on`` columns are evidently household-level
            gets a :class:`polars_sdc.household.HouseholdWarning`
            (docs/households-microaggregation.md).
        household_columns
            The household-level columns, declared instead of detected (each checked constant
            within every household; an error names the column and a household where it
            varies); the other columns are person-level. None: detected.
        merge_small_patterns
            Structural nulls: rows with the same null pattern over ``on`` are grouped
            together, each pattern partitioned on its non-null columns; a pattern with fewer
            than k rows is an error naming it, unless this pools such patterns (released on
            the columns non-null in all of them; their other values suppressed to null).
        gamma
            V-MDAV's growth factor (``method="vmdav"`` only).
        order, cells_per_dim, leaf_size
            MHM's path ordering and its grid / k-d tree sizes (``method="mhm"`` only).
        **method_options
            Options of a partition method added to ``polars_sdc.microagg.METHODS``.

        Returns
        -------
        DataFrame or LazyFrame
            The frame with the ``on`` columns released; every other column and the row order
            kept.

        Examples
        --------
        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"id": [1, 2, 3, 4], "x": [1.0, 9.0, 2.0, 8.0]})
        >>> df.sdc.microaggregate(2, on="x")["x"].to_list()
        [1.5, 8.5, 1.5, 8.5]
        >>> hh = pl.DataFrame({"h": [1, 1, 2, 3, 3, 4], "inc": [10.0, 10.0, 12.0, 30.0, 30.0, 33.0]})
        >>> hh.sdc.microaggregate(2, on="inc", household="h")["inc"].to_list()  # per household, not per person
        [11.0, 11.0, 11.0, 31.5, 31.5, 31.5]
        """
        return self._release(k, on, locals())

    def mdav(
        self,
        k: int,
        on: ColumnSpec = None,
        *,
        by: ColumnSpec = None,
        standardize: bool = True,
        ordinal: Sequence[str] = (),
        weights: Mapping[str, float] | None = None,
        group_column: str | None = None,
        refine: RefineName | None = None,
        refine_options: Mapping[str, Any] | None = None,
        merge_small_strata: bool = False,
        pooled_label: Any = None,
        integers: Literal["round", "float"] = "round",
        progress: bool = False,
        household: str | None = None,
        household_columns: Sequence[str] | None = None,
        merge_small_patterns: bool = False,
    ) -> F:
        """Classic MDAV microaggregation (thesis 2.3.4): groups of k (one of k..2k-1).

        Parameters
        ----------
        k
            Minimum group size.
        on
            Quasi-identifier columns (default: every numeric column not in ``by``).
        by, standardize, ordinal, weights, group_column, refine, refine_options, merge_small_strata, pooled_label, integers, progress, household, household_columns, merge_small_patterns
            As in :meth:`microaggregate` (``refine="mil"`` post-optimises the groups by MIL,
            thesis 4.2).

        Returns
        -------
        DataFrame or LazyFrame
            The frame with the ``on`` columns replaced by their group means.

        Examples
        --------
        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"x": [1.0, 9.0, 2.0, 8.0, 5.0, 5.5]})
        >>> df.sdc.mdav(3, on="x")["x"].to_list()
        [2.6666666666666665, 7.5, 2.6666666666666665, 7.5, 2.6666666666666665, 7.5]
        """
        return self._release(k, on, {**locals(), "method": "mdav"})

    def vmdav(
        self,
        k: int,
        on: ColumnSpec = None,
        *,
        by: ColumnSpec = None,
        standardize: bool = True,
        ordinal: Sequence[str] = (),
        weights: Mapping[str, float] | None = None,
        group_column: str | None = None,
        refine: RefineName | None = None,
        refine_options: Mapping[str, Any] | None = None,
        merge_small_strata: bool = False,
        pooled_label: Any = None,
        integers: Literal["round", "float"] = "round",
        progress: bool = False,
        household: str | None = None,
        household_columns: Sequence[str] | None = None,
        merge_small_patterns: bool = False,
        gamma: float = 1.0,
    ) -> F:
        """V-MDAV microaggregation (thesis 2.3.4): groups of k..2k-1 grown while the nearest
        outside record is closer to the group than gamma times its distance to the other
        outside records.

        Parameters
        ----------
        k
            Minimum group size.
        on
            Quasi-identifier columns (default: every numeric column not in ``by``).
        by, standardize, ordinal, weights, group_column, refine, refine_options, merge_small_strata, pooled_label, integers, progress, household, household_columns, merge_small_patterns
            As in :meth:`microaggregate`.
        gamma
            Growth factor (>= 0): larger grows larger groups.

        Returns
        -------
        DataFrame or LazyFrame
            The frame with the ``on`` columns replaced by their group means.

        Examples
        --------
        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"x": [0.0, 0.5, 1.0, 5.0, 6.0, 9.0, 9.5]})
        >>> df.sdc.vmdav(2, on="x", standardize=False)["x"].to_list()
        [0.5, 0.5, 0.5, 5.5, 5.5, 9.25, 9.25]
        """
        return self._release(k, on, {**locals(), "method": "vmdav"})

    def mhm(
        self,
        k: int,
        on: ColumnSpec = None,
        *,
        by: ColumnSpec = None,
        standardize: bool = True,
        ordinal: Sequence[str] = (),
        weights: Mapping[str, float] | None = None,
        group_column: str | None = None,
        refine: RefineName | None = None,
        refine_options: Mapping[str, Any] | None = None,
        merge_small_strata: bool = False,
        pooled_label: Any = None,
        integers: Literal["round", "float"] = "round",
        progress: bool = False,
        household: str | None = None,
        household_columns: Sequence[str] | None = None,
        merge_small_patterns: bool = False,
        order: OrderName = "npn",
        cells_per_dim: int | None = None,
        leaf_size: int | None = None,
    ) -> F:
        """MHM microaggregation (Suzaki et al.): records ordered along a path, then cut
        optimally by the Hansen–Mukherjee shortest path (eq. 2, Theorem 1); groups of k..2k-1.

        Parameters
        ----------
        k
            Minimum group size.
        on
            Quasi-identifier columns (default: every numeric column not in ``by``).
        by, standardize, ordinal, weights, group_column, refine, refine_options, merge_small_strata, pooled_label, integers, progress, household, household_columns, merge_small_patterns
            As in :meth:`microaggregate`.
        order
            The path: ``"npn"``, ``"grid"``, ``"vgrid"``, or the fast ``"kd"`` and
            ``"kd-mdav"`` for large n.
        cells_per_dim
            Grid cells per dimension (``order`` grid / vgrid; default from n and k).
        leaf_size
            k-d tree leaf size (``order`` kd / kd-mdav; default from k).

        Returns
        -------
        DataFrame or LazyFrame
            The frame with the ``on`` columns replaced by their group means.

        Examples
        --------
        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"x": [1.0, 9.0, 2.0, 8.0, 5.0, 5.5]})
        >>> df.sdc.mhm(2, on="x")["x"].to_list()
        [1.5, 8.5, 1.5, 8.5, 5.25, 5.25]
        """
        return self._release(k, on, {**locals(), "method": "mhm"})

    def univariate(
        self,
        k: int,
        on: ColumnSpec = None,
        *,
        by: ColumnSpec = None,
        standardize: bool = True,
        ordinal: Sequence[str] = (),
        weights: Mapping[str, float] | None = None,
        group_column: str | None = None,
        refine: RefineName | None = None,
        refine_options: Mapping[str, Any] | None = None,
        merge_small_strata: bool = False,
        pooled_label: Any = None,
        integers: Literal["round", "float"] = "round",
        progress: bool = False,
        household: str | None = None,
        household_columns: Sequence[str] | None = None,
        merge_small_patterns: bool = False,
    ) -> F:
        """Optimal univariate microaggregation of one column (Hansen & Mukherjee, Suzaki et al.
        ref. [3]): the k-partition with the least SSE, exactly.

        Parameters
        ----------
        k
            Minimum group size.
        on
            The one column.
        by, standardize, ordinal, weights, group_column, refine, refine_options, merge_small_strata, pooled_label, integers, progress, household, household_columns, merge_small_patterns
            As in :meth:`microaggregate`.

        Returns
        -------
        DataFrame or LazyFrame
            The frame with ``on`` replaced by its group means.

        Examples
        --------
        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"x": [9.0, 1.0, 2.0, 8.0, 10.0, 1.5]})
        >>> df.sdc.univariate(3, on="x")["x"].to_list()
        [9.0, 1.5, 1.5, 9.0, 9.0, 1.5]
        """
        return self._release(k, on, {**locals(), "method": "univariate"})

    @deprecated(renamed={"group": "groups"})
    def mil(
        self,
        k: int,
        on: ColumnSpec = None,
        *,
        groups: str = "g",
        by: ColumnSpec = None,
        standardize: bool = True,
        ordinal: Sequence[str] = (),
        weights: Mapping[str, float] | None = None,
        neighbours: int = 8,
        exchanges: bool = True,
        cycles: bool = True,
        max_sweeps: int = 100,
        refine: RefineName = "mil",
        refine_options: Mapping[str, Any] | None = None,
        household: str | None = None,
        household_columns: Sequence[str] | None = None,
    ) -> F:
        """Refine the k-partition in column ``groups`` by MIL (thesis 4.2): rows move between
        groups (and swap, and rotate among three groups) while the SSE of the ``on`` columns
        drops and every group keeps >= k rows.

        Parameters
        ----------
        k
            Minimum group size (every group of the given partition must have >= k rows).
        on
            Quasi-identifier columns (default: every numeric column but ``groups``), in the
            distance of :meth:`partition`.
        groups
            The partition column (as in :meth:`aggregate`); it keeps its dtype and ids (``refine="mil"``).
        by
            Strata: rows move only within their stratum.
        standardize, ordinal, weights
            The distance, as in :meth:`partition`.
        neighbours, exchanges, cycles, max_sweeps
            MIL's options (:func:`polars_sdc.microagg.mil.refine_mil`): candidate groups per
            row, pairwise swaps, three-group rotations, the sweep cap.
        refine, refine_options
            ``"anneal"`` anneals after MIL for a lower SSE (options ``max_iter``, ``seed``,
            ... in ``refine_options``; :func:`polars_sdc.refine_anneal`); it dissolves and
            creates groups, so ``groups`` becomes UInt32 ids by first appearance.
        household
            Household id column: every group keeps >= k households
            (:func:`polars_sdc.microagg.refine.mil_frame`). The refined ids release nothing; release
            them with :meth:`aggregate` and the same ``household=`` and ``k=``: a group mean can
            equal one household's exact vector (the mean of 1, 2, 3 is household 2's 2), and
            only that guarded release (the one of ``mdav(..., household=, refine="mil")``) merges or
            refuses such a group.
        household_columns
            The household-level columns, declared instead of detected (each checked constant
            within every household; an error names the column and a household where it
            varies); the other columns are person-level. None: detected.

        Returns
        -------
        DataFrame or LazyFrame
            The frame with ``groups`` refined; nothing else changes.

        Examples
        --------

        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"x": [1.0, 2.0, 3.0, 10.0, 11.0], "g": [0, 0, 1, 1, 1]})
        >>> df.sdc.mil(2, "x", standardize=False)["g"].to_list()
        [0, 0, 0, 1, 1]
        >>> df.sdc.mil(2, "x", standardize=False, refine="anneal", refine_options={"max_iter": 1000})["g"].dtype
        UInt32
        """
        from .._errors import SDCError
        from ..microagg.refine import mil_columns, mil_frame, mil_output_schema, mil_refiner

        from ..household import check_household_column, check_household_columns

        schema = self._schema()
        group = groups
        on_cols, by_cols = mil_columns(schema, on, group, ordinal, by, household)
        check_household_column(schema, household, [*on_cols, group, *by_cols])
        check_household_columns(schema, household, household_columns)
        opts = dict(neighbours=neighbours, exchanges=exchanges, cycles=cycles, max_sweeps=max_sweeps)
        if refine == "mil":
            opts.update(refine_options or {})
        elif opts != dict(neighbours=8, exchanges=True, cycles=True, max_sweeps=100):
            raise SDCError(f"neighbours, exchanges, cycles and max_sweeps are MIL's options; for refine={refine!r} use refine_options")
        else:
            opts = dict(refine_options or {})
        refiner, opts = mil_refiner(refine, opts)
        return self._frame_op(
            lambda df: mil_frame(
                df, k, on, groups=groups, by=by, standardize=standardize, ordinal=ordinal, weights=weights,
                refine=refiner, household=household, household_columns=household_columns, **opts
            ),
            mil_output_schema(schema, group, refiner),
        )

    def aggregate(
        self,
        groups: str | pl.Series,
        on: ColumnSpec,
        *,
        ordinal: Sequence[str] = (),
        integers: Literal["round", "float"] = "round",
        household: str | None = None,
        household_columns: Sequence[str] | None = None,
        k: int | None = None,
    ) -> F:
        """Replace the ``on`` columns by their group representative. Structural nulls (a
        partition grouped by null pattern, as the microaggregation methods and :meth:`mil` make
        it) stay null; a group holding both nulls and values in a column is an error naming it.

        The release of a partition made with ``household=`` (:meth:`partition`, :meth:`mil`)
        must go through ``household=`` and ``k=`` here: a group mean can be one household's
        exact vector (the mean of 1, 2, 3 is household 2's 2), which the microaggregation
        methods' own release prevents and a plain aggregate does not. Without ``household=``,
        ``on`` columns constant within the groups of an evident household id are warned about
        (:class:`~polars_sdc.household.HouseholdWarning`), as the masking methods do.

        Parameters
        ----------
        groups
            The partition: a column name or a Series of group ids (one per row).
        on
            Columns to release: numeric ones as the group mean (float columns: Float64;
            integer and Decimal columns: rounded half to even in their dtype (Decimal: to
            its scale), Boolean columns: the majority (a tie: False), or Float64 with
            ``integers="float"``), String/Categorical/Enum ones as the most frequent value
            (ties: smallest).
        ordinal
            ``on`` columns released as the lower median.
        integers
            ``"round"`` or ``"float"`` (above).
        household
            Household id column (with ``k``): every group must hold >= ``k`` households, and a
            group whose representative equals the exact vector of fewer than ``k`` households is
            merged with the nearest group of its null pattern (the ``groups`` column then shows
            the merged partition), or refused when it is alone there
            (:func:`polars_sdc.aggregate.aggregate_households`). Household-level ``on`` columns are
            released once per household, as the methods do.
        household_columns
            The household-level columns, declared instead of detected (as in :meth:`mil`).
        k
            The partition's k (with ``household``).

        Returns
        -------
        DataFrame or LazyFrame
            The frame with the ``on`` columns released.

        Examples
        --------

        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"g": [0, 0, 1, 1], "c": ["a", "b", "b", "b"]})
        >>> df.sdc.aggregate("g", "c")["c"].to_list()
        ['a', 'a', 'b', 'b']
        >>> hh = pl.DataFrame({"hh": [1, 2, 3, 4, 5, 6], "x": [1.0, 2.0, 3.0, 10.0, 20.0, 30.0],
        ...                    "g": [0, 0, 0, 1, 1, 1]})
        >>> hh.sdc.aggregate("g", "x", household="hh", k=3)["x"].to_list()   # not 2 and 20
        [11.0, 11.0, 11.0, 11.0, 11.0, 11.0]
        """
        from .._columns import resolve_columns
        from ..aggregate import aggregate, aggregate_output_schema
        from ..household import check_household_column, check_household_columns

        schema = self._schema()
        cols = resolve_columns(schema, on, kind="supported")
        check_household_column(schema, household, [*cols, *([groups] if isinstance(groups, str) else [])])
        check_household_columns(schema, household, household_columns)
        out_schema = aggregate_output_schema(schema, cols, ordinal, integers)

        def run(df: pl.DataFrame) -> pl.DataFrame:
            if household is None:   # loud when the columns are evidently household-level
                from ..household import warn_household_level

                warn_household_level(df, cols, method="aggregate", exclude=[groups] if isinstance(groups, str) else [],
                                     leak="a group of one household's members, or a group mean equal to one "
                                          "household's values, releases that household's exact vector")
            return aggregate(df, groups, cols, ordinal=ordinal, integers=integers,
                             keep_nulls=_structural_nulls(df, groups, cols), household=household,
                             household_columns=household_columns, k=k)

        return self._frame_op(run, out_schema)


def _structural_nulls(df: pl.DataFrame, groups: Any, cols: list[str]) -> bool:
    """Whether ``cols`` hold nulls, each group being all null or all non-null in every column
    (structural nulls, as the microaggregation methods group them: they stay null); a group
    mixing both is an error naming the column and the group (its mean would be taken over the
    non-null values of a few of its rows)."""
    from .._errors import SDCError
    from ..partition import group_ids

    holding = [c for c in cols if df.get_column(c).null_count()]
    if not holding:
        return False
    g = group_ids(df, groups)   # checked; the message names the ids as given
    g = df.get_column(groups) if isinstance(groups, str) else groups if isinstance(groups, pl.Series) else g
    for c in holding:
        mixed = df.select(g.alias("__g"), pl.col(c).is_null().alias("__n")).group_by("__g").agg(
            pl.col("__n").n_unique().alias("__k")).filter(pl.col("__k") > 1).sort("__g")
        if mixed.height:
            raise SDCError(f"column {c!r}: group {mixed.item(0, '__g')!r} holds both nulls and values; a group is "
                           "released over its non-null values only when it is all null or all non-null in each "
                           "column (group by null pattern, as the microaggregation methods do)")
    return True
