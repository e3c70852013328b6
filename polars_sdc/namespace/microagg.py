"""``df.sdc`` / ``lf.sdc`` microaggregation: every method builds one
:class:`~polars_sdc.microagg.MicroaggSpec` (all checks, against the schema) and runs it as one
whole-frame step. From here to a method's kernel: ``spec.method.partition`` (e.g.
:func:`polars_sdc.microagg.mhm.partition_mhm`), then its Numba kernel.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Unpack

import polars as pl

from .._typing import ColumnSpec, MethodName, OrderName, ReleaseOptions
from ..microagg.pipeline import MicroaggSpec
from ._base import FrameOps


class MicroaggMethods(FrameOps):
    """k-anonymity by microaggregation (MDAV, V-MDAV, MHM, optimal univariate, MIL)."""

    def _release(self, k: int, on: ColumnSpec, **arguments: Any) -> Any:
        spec = MicroaggSpec.build(self._schema(), k, on, **arguments)
        return self._frame_op(spec.apply, spec.output_schema())

    def partition(self, k: int, on: ColumnSpec = None, *, method: MethodName = "mdav", **options: Any) -> Any:
        """Group ids of a k-partition: a UInt32 Series ``"group"`` in row order (on a
        LazyFrame, a LazyFrame with that one column). ``refine="mil"`` post-optimises the
        partition by MIL (thesis 4.2).

        ``on``: quasi-identifier columns (names or selector; default every numeric column not
        in ``by``): numeric ones z-scored unless ``standardize=False``, String/Categorical/Enum
        ones by the discrete distance (rank distance if listed in ``ordinal``), combined by the
        product distance with per-column ``weights``; ``by``: strata partitioned separately (a
        stratum with fewer than k rows is an error unless ``merge_small_strata=True``, which
        pools the small strata); ``refine``/``refine_options``: the post-optimisation and its
        options; the method's own options (``gamma``, ``order``, ...) by name;
        ``progress=True`` shows a bar on stderr (rows of finished ``by`` strata with an ETA, or
        the elapsed time of an unstratified run; :mod:`polars_sdc.progress`). Every keyword
        is checked once by :meth:`polars_sdc.microagg.MicroaggSpec.build`; ``household=`` and
        null patterns (``merge_small_patterns``) as in :meth:`microaggregate`.

        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"x": [1.0, 9.0, 2.0, 8.0]})
        >>> df.sdc.partition(2, on="x").to_list()
        [0, 1, 0, 1]
        """
        spec = MicroaggSpec.build(self._schema(), k, on, method=method, **options)
        if self._lazy:
            return self._frame_op(lambda df: spec.partition(df).to_frame(), pl.Schema({"group": pl.UInt32}))
        return spec.partition(self._frame)

    def microaggregate(self, k: int, on: ColumnSpec = None, *, method: MethodName = "mdav", **options: Any) -> Any:
        """Replace the ``on`` columns by their group representatives under a k-partition from
        ``method``: means for numeric columns, the most frequent value for categorical ones,
        the lower median for ``ordinal`` ones (see :meth:`partition` for the distance);
        ``refine="mil"`` first post-optimises the partition by MIL (thesis 4.2).

        Every other column and the row order are kept; ``group_column`` adds the group ids.
        Integer columns keep their dtype: the group's exact mean rounded half to even
        (``integers="float"``: the Float64 mean; on the census data, MDAV k = 5, rounding
        moves SSE/SST from 9.0884355 % to 9.0884364 %, 1e-7 of its value).
        With ``merge_small_strata=True`` the rows of pooled strata are released under one
        stratum label per ``by`` column — ``pooled_label``, or the pooled values joined by
        ``"+"`` — because the stratum is a quasi-identifier too; a ``by`` column that is not
        String/Categorical then becomes String (or keeps its dtype if ``pooled_label`` fits it).

        Structural nulls (a child's income): rows with the same null pattern over ``on`` are
        grouped together, each pattern partitioned on its non-null columns, every group >= k;
        nulls stay null. A pattern with fewer than k rows is an error naming it, unless
        ``merge_small_patterns=True`` pools such patterns (the pooled rows are released on the
        columns non-null in all of them; their other values are suppressed to null).

        ``household=`` (a household id column; a survey of persons in households): an intruder
        attacks a household, so every released group holds records of >= k distinct
        households, not k members of one household who share its values. Household-level
        ``on`` columns (constant within every household, e.g. household incomes) are
        microaggregated once per household, one row each (MIL / annealing then refine those
        rows), and the result is broadcast to the members; person-level columns are
        partitioned per person and every group with fewer than k households is dissolved into
        its nearest groups (also after ``refine``, which is kept only if it still lowers the
        SSE). No record's ``on`` vector is released unchanged unless >= k households of its
        group share it (a group whose mean equals a member's vector is merged with its nearest
        group). A mix of household- and person-level columns is an error (two calls); ``by``
        strata must not split a household. Without ``household=``, a frame whose ``on``
        columns are evidently household-level gets a :class:`polars_sdc.household.HouseholdWarning`.
        See docs/households-microaggregation.md.

        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"id": [1, 2, 3, 4], "x": [1.0, 9.0, 2.0, 8.0]})
        >>> df.sdc.microaggregate(2, on="x")["x"].to_list()
        [1.5, 8.5, 1.5, 8.5]
        >>> hh = pl.DataFrame({"h": [1, 1, 2, 3, 3, 4], "inc": [10.0, 10.0, 12.0, 30.0, 30.0, 33.0]})
        >>> hh.sdc.microaggregate(2, on="inc", household="h")["inc"].to_list()  # per household, not per person
        [11.0, 11.0, 11.0, 31.5, 31.5, 31.5]
        """
        return self._release(k, on, method=method, **options)

    def mdav(self, k: int, on: ColumnSpec = None, **options: Unpack[ReleaseOptions]) -> Any:
        """Classic MDAV microaggregation (thesis 2.3.4): groups of k (one of k..2k-1);
        ``refine="mil"`` post-optimises the groups by MIL (thesis 4.2). Other arguments: see
        :meth:`microaggregate`.

        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"x": [1.0, 9.0, 2.0, 8.0, 5.0, 5.5]})
        >>> df.sdc.mdav(3, on="x")["x"].to_list()
        [2.6666666666666665, 7.5, 2.6666666666666665, 7.5, 2.6666666666666665, 7.5]
        """
        return self._release(k, on, method="mdav", **options)

    def vmdav(self, k: int, on: ColumnSpec = None, *, gamma: float = 1.0, **options: Unpack[ReleaseOptions]) -> Any:
        """V-MDAV microaggregation (thesis 2.3.4): groups of k..2k-1 grown while the nearest
        outside record is closer to the group than gamma times its distance to the other
        outside records; ``refine="mil"`` post-optimises the groups by MIL (thesis 4.2).

        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"x": [0.0, 0.5, 1.0, 5.0, 6.0, 9.0, 9.5]})
        >>> df.sdc.vmdav(2, on="x", standardize=False)["x"].to_list()
        [0.5, 0.5, 0.5, 5.5, 5.5, 9.25, 9.25]
        """
        return self._release(k, on, method="vmdav", gamma=gamma, **options)

    def mhm(self, k: int, on: ColumnSpec = None, *, order: OrderName = "npn", **options: Unpack[ReleaseOptions]) -> Any:
        """MHM microaggregation (Suzaki et al.): records ordered along a path (``order``: "npn",
        "grid", "vgrid", or the fast "kd" and "kd-mdav" for large n), then cut optimally by the
        Hansen–Mukherjee shortest path (eq. 2, Theorem 1); groups of k..2k-1.

        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"x": [1.0, 9.0, 2.0, 8.0, 5.0, 5.5]})
        >>> df.sdc.mhm(2, on="x")["x"].to_list()
        [1.5, 8.5, 1.5, 8.5, 5.25, 5.25]
        """
        return self._release(k, on, method="mhm", order=order, **options)

    def univariate(self, k: int, on: ColumnSpec = None, **options: Unpack[ReleaseOptions]) -> Any:
        """Optimal univariate microaggregation of one column (Hansen & Mukherjee, Suzaki et al.
        ref. [3]): the k-partition with the least SSE, exactly.

        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"x": [9.0, 1.0, 2.0, 8.0, 10.0, 1.5]})
        >>> df.sdc.univariate(3, on="x")["x"].to_list()
        [9.0, 1.5, 1.5, 9.0, 9.0, 1.5]
        """
        return self._release(k, on, method="univariate", **options)

    def mil(
        self,
        k: int,
        on: ColumnSpec = None,
        *,
        group: str = "g",
        by: ColumnSpec = None,
        standardize: bool = True,
        ordinal: Sequence[str] = (),
        weights: Mapping[str, float] | None = None,
        neighbours: int = 8,
        exchanges: bool = True,
        cycles: bool = True,
        max_sweeps: int = 100,
        refine: str = "mil",
        refine_options: Mapping[str, Any] | None = None,
        household: str | None = None,
        household_columns: Sequence[str] | None = None,
    ) -> Any:
        """Refine the k-partition in column ``group`` by MIL (thesis 4.2): rows move between
        groups (and swap, and rotate among three groups) while the SSE of the ``on`` columns
        (default: every other numeric column), in the distance of :meth:`partition`, drops
        and every group keeps >= k rows. The column keeps its dtype and ids; nothing else
        changes. With ``by=`` rows move only within their stratum. See
        :func:`polars_sdc.microagg.mil.refine_mil` for the options. ``refine="anneal"``
        (options in ``refine_options``: ``max_iter``, ``seed``, ...) anneals after MIL for a
        lower SSE (:func:`polars_sdc.microagg.anneal.refine_anneal`); it dissolves and
        creates groups, so ``group`` becomes UInt32 ids by first appearance. ``household=``:
        every group keeps >= k households (see :func:`polars_sdc.microagg.mil.mil_frame`);
        ``household_columns`` declares the household-level columns (else detected).

        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"x": [1.0, 2.0, 3.0, 10.0, 11.0], "g": [0, 0, 1, 1, 1]})
        >>> df.sdc.mil(2, "x", standardize=False)["g"].to_list()
        [0, 0, 0, 1, 1]
        >>> df.sdc.mil(2, "x", standardize=False, refine="anneal", refine_options={"max_iter": 1000})["g"].dtype
        UInt32
        """
        from .._errors import SDCError
        from ..microagg.mil import mil_columns, mil_frame, mil_output_schema, mil_refiner

        from ..household import check_household_column, check_household_columns

        schema = self._schema()
        on_cols, by_cols = mil_columns(schema, on, group, ordinal, by)
        check_household_column(schema, household, [*on_cols, group, *by_cols])
        check_household_columns(schema, household, household_columns)
        opts = dict(neighbours=neighbours, exchanges=exchanges, cycles=cycles, max_sweeps=max_sweeps)
        if refine == "mil":
            opts.update(refine_options or {})
        elif opts != dict(neighbours=8, exchanges=True, cycles=True, max_sweeps=100):
            raise SDCError(f"neighbours, exchanges, cycles and max_sweeps are MIL's options; for refine={refine!r} use refine_options")
        else:
            opts = dict(refine_options or {})
        refine, opts = mil_refiner(refine, opts)
        return self._frame_op(
            lambda df: mil_frame(
                df, k, on, group=group, by=by, standardize=standardize, ordinal=ordinal, weights=weights,
                refine=refine, household=household, household_columns=household_columns, **opts
            ),
            mil_output_schema(schema, group, refine),
        )

    def aggregate(
        self, groups: str | pl.Series, on: ColumnSpec, *, ordinal: Sequence[str] = (), integers: str = "round"
    ) -> Any:
        """Replace the ``on`` columns by their group representative: mean (float columns:
        Float64; integer columns: rounded half to even in their dtype, or Float64 with
        ``integers="float"``), most frequent value (String/Categorical/Enum; ties: smallest),
        lower median (``ordinal``).

        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"g": [0, 0, 1, 1], "c": ["a", "b", "b", "b"]})
        >>> df.sdc.aggregate("g", "c")["c"].to_list()
        ['a', 'a', 'b', 'b']
        """
        from .._columns import resolve_columns
        from ..aggregate import aggregate, aggregate_output_schema

        cols = resolve_columns(self._schema(), on, kind="supported")
        schema = aggregate_output_schema(self._schema(), cols, ordinal, integers)
        return self._frame_op(lambda df: aggregate(df, groups, cols, ordinal=ordinal, integers=integers), schema)
