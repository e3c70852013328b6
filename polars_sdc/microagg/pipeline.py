"""The microaggregation pipeline: arguments checked once into a frozen :class:`MicroaggSpec`,
then frame -> feature matrix -> partition (per stratum) -> released frame.

A call from the namespace is two hops: ``df.sdc.mdav(...)`` builds the spec
(:meth:`MicroaggSpec.build`, every check against the schema, so a LazyFrame plan fails when
it is built) and runs ``spec.apply``; ``spec.method.partition`` is the method's own function
(:func:`polars_sdc.microagg.mdav.partition_mdav`, ...), which calls its Numba kernel.

Strata (``by=``): each stratum is partitioned alone. ``merge_small_strata=True`` pools the
strata with fewer than k rows (:func:`merge_small_strata_rows`); since the stratum columns
are quasi-identifiers too, the pooled rows are released under one stratum label per column
(``pooled_label``, or the pooled values joined by ``"+"``), so every released class on
``on + by`` has >= k rows.
"""
from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import polars as pl

from .._columns import check_k, resolve_columns
from .._errors import SDCError
from .._typing import ColumnSpec
from .._validation import check_bool, check_choice, check_int
from ..aggregate import check_integers
from ..partition import GROUP_DTYPE, canonical_ids
from .features import Features, features
from .mdav import partition_mdav
from .mhm import ORDERS, check_order, partition_mhm
from .refine import REFINERS, check_refine_options, per_stratum, refine_labels, strata_rows
from .univariate import partition_univariate
from .vmdav import check_gamma, partition_vmdav

POOLED_SEPARATOR = "+"

#: The keyword arguments of :meth:`MicroaggSpec.build` that every method takes.
COMMON_ARGUMENTS = ("by", "standardize", "ordinal", "weights", "group_column", "refine", "refine_options",
                    "merge_small_strata", "pooled_label", "integers", "progress", "household",
                    "household_columns", "merge_small_patterns")


@dataclass(frozen=True)
class Method:
    """A partition method, declared once: its function ``partition(X, k, **options) -> uint32
    labels`` (X a float matrix, or :class:`~.features.Features` when nominal columns take
    part; the options and their defaults are its keyword parameters), a validator per option
    (returns the clean value) and, per option, what the CLI and recipes need besides the
    default (``option_specs``: ``{"kind": ..., "help": ...}`` plus ``low`` / ``high`` /
    ``choices``, the fields of :class:`polars_sdc.operations.Option`).

    Adding a method is its kernel, its module and one entry in :data:`METHODS`; the method is
    then a choice of ``df.sdc.microaggregate(method=...)``, of ``polars-sdc microaggregate
    --method`` (its options become flags) and of recipes (``tests/test_method_registry.py``)."""

    name: str
    partition: Callable[..., np.ndarray]
    option_checks: Mapping[str, Callable[[Any], Any]] = field(default_factory=dict)
    one_numeric_column: bool = False
    #: ``partition`` takes ``done=`` (int64, one element): rows grouped (MHM: visited) so far, updated by the
    #: kernel while it runs, so a progress bar shows a real percentage
    tracks_rows: bool = False
    option_specs: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    def options(self) -> list[str]:
        """The option names ``partition`` takes (after ``X`` and ``k``; not ``done``)."""
        return [name for name in list(inspect.signature(self.partition).parameters)[2:] if name != "done"]

    def check_options(self, options: Mapping[str, Any]) -> dict[str, Any]:
        """The options, validated; an unknown one is an error naming what the method takes.

        >>> METHODS["vmdav"].check_options({"gama": 1.0})
        Traceback (most recent call last):
        ...
        polars_sdc._errors.SDCError: unknown option 'gama' for method 'vmdav'; did you mean 'gamma'? It takes: gamma (and the arguments every method takes: by, standardize, ordinal, weights, group_column, refine, refine_options, merge_small_strata, pooled_label, integers, progress, household, household_columns, merge_small_patterns)
        """
        takes = self.options()
        out = {}
        for name, value in options.items():
            if name not in takes:
                import difflib

                listed = ", ".join(takes) if takes else "no options"
                close = difflib.get_close_matches(name, [*takes, *COMMON_ARGUMENTS, "method"], n=1, cutoff=0.6)
                hint = f"; did you mean {close[0]!r}? It" if close else "; it"
                raise SDCError(
                    f"unknown option {name!r} for method {self.name!r}{hint} takes: {listed} "
                    f"(and the arguments every method takes: {', '.join(COMMON_ARGUMENTS)})"
                )
            check = self.option_checks.get(name)
            out[name] = value if check is None else check(value)
        return out


def _checked_order(order: Any) -> str:
    check_order(order)
    return order


#: Partition methods by name: function references (their Numba kernels load on first call).
METHODS: dict[str, Method] = {
    "mdav": Method("mdav", partition_mdav, tracks_rows=True),
    "vmdav": Method("vmdav", partition_vmdav, {"gamma": check_gamma}, tracks_rows=True, option_specs={
        "gamma": {"kind": "float", "help": "V-MDAV growth factor (method vmdav)", "low": 0}}),
    "mhm": Method("mhm", partition_mhm, {"order": _checked_order}, tracks_rows=True, option_specs={
        "order": {"kind": "choice", "help": "MHM path ordering (method mhm)", "choices": ORDERS},
        "cells_per_dim": {"kind": "int", "help": "grid cells per dimension (method mhm, order grid/vgrid)", "low": 1},
        "leaf_size": {"kind": "int", "help": "k-d tree leaf size (method mhm, order kd/kd-mdav)", "low": 1}}),
    "univariate": Method("univariate", partition_univariate, one_numeric_column=True),
}

def quasi_identifiers(
    frame: pl.DataFrame | pl.LazyFrame | Mapping[str, pl.DataType], on: ColumnSpec, by: ColumnSpec = None
) -> list[str]:
    """The ``on`` columns as names; ``on=None`` means every numeric column except the ``by``
    (strata) columns. A column may not be both a quasi-identifier and a stratum.

    >>> quasi_identifiers(pl.DataFrame({"c": [1], "x": [2.0], "s": ["a"]}), None, by="c")
    ['x']
    """
    strata = [] if by is None else resolve_columns(frame, by, what="by")
    if on is None and strata:
        numeric = [c for c in resolve_columns(frame, None, kind="numeric", default="numeric") if c not in strata]
        if not numeric:
            raise SDCError("`on`: no numeric column besides the `by` columns; name the quasi-identifiers")
        on = numeric
    names = resolve_columns(frame, on, kind="supported", default="numeric")
    for c in names:
        if c in strata:
            raise SDCError(f"column {c!r}: in both `on` and `by`; a stratum column cannot be masked")
    return names


def merge_small_strata_rows(
    strata: list[tuple[Any, np.ndarray]], k: int, size: Callable[[np.ndarray], int] | None = None
) -> list[tuple[Any, np.ndarray]]:
    """Pool the strata with fewer than ``k`` rows into one stratum (keyed by the tuple of their
    keys); if the pool itself has fewer than ``k`` rows it joins the smallest stratum that has
    at least ``k`` (ties: first appearance). Rows stay in increasing order. ``size``: what is
    counted instead of rows (with ``household=``: the distinct households of the rows).

    >>> s = [("a", np.array([0, 3])), ("b", np.array([1, 2, 4, 5])), ("c", np.array([6]))]
    >>> [(key, rows.tolist()) for key, rows in merge_small_strata_rows(s, 3)]
    [('b', [1, 2, 4, 5]), (('a', 'c'), [0, 3, 6])]
    >>> [(key, rows.tolist()) for key, rows in merge_small_strata_rows(s, 4)]
    [(('b', ('a', 'c')), [0, 1, 2, 3, 4, 5, 6])]
    >>> [(key, rows.tolist()) for key, rows in merge_small_strata_rows(s, 2)]
    [(('a', ('c',)), [0, 3, 6]), ('b', [1, 2, 4, 5])]
    """
    size = size if size is not None else (lambda rows: rows.size)
    small = [(key, rows) for key, rows in strata if size(rows) < k]
    if not small:
        return strata
    big = [(key, rows) for key, rows in strata if size(rows) >= k]
    pool_key = tuple(key for key, _ in small)
    pool = np.sort(np.concatenate([rows for _, rows in small]))
    if size(pool) >= k or not big:
        return big + [(pool_key, pool)]
    target = min(range(len(big)), key=lambda i: (size(big[i][1]), i))
    key, rows = big[target]
    big[target] = ((key, pool_key), np.sort(np.concatenate([rows, pool])))
    return big


def _pooled_dtype(dtype: pl.DataType, column: str, pooled_label: Any) -> pl.DataType:
    """The dtype a stratum column has in the release when small strata may be pooled."""
    if pooled_label is None or isinstance(pooled_label, str):
        if dtype == pl.String or isinstance(dtype, pl.Categorical):
            return dtype
        if isinstance(dtype, pl.Enum) and pooled_label is not None and pooled_label in dtype.categories:
            return dtype
        return pl.String
    try:
        pl.Series([pooled_label]).cast(dtype, strict=True)
    except Exception:  # noqa: BLE001  (any Polars cast failure)
        raise SDCError(
            f"column {column!r}: pooled_label {pooled_label!r} does not fit its dtype {dtype}; "
            "give a string label (the column then becomes String)"
        ) from None
    return dtype


@dataclass(frozen=True)
class MicroaggSpec:
    """One microaggregation call, validated: build it with :meth:`build`, run it with
    :meth:`partition` (group ids) or :meth:`apply` (the released frame)."""

    k: int
    on: tuple[str, ...]
    method: Method
    options: Mapping[str, Any]
    by: tuple[str, ...] = ()
    standardize: bool = True
    ordinal: tuple[str, ...] = ()
    weights: Mapping[str, float] | None = None
    group_column: str | None = None
    refine: str | None = None
    refine_options: Mapping[str, Any] = field(default_factory=dict)
    merge_small_strata: bool = False
    pooled_label: Any = None
    integers: str = "round"
    input_schema: pl.Schema = field(default_factory=pl.Schema)
    progress: bool = field(default=False, compare=False)
    household: str | None = None
    merge_small_patterns: bool = False
    #: with ``household``: every ``on`` column person-level, undetected (Spark's blocks: a column
    #: that varies within households over the whole table may not within one block's households)
    person_level: bool = False
    household_columns: tuple[str, ...] | None = None
    #: Spark's blocks of several null patterns: the weights of a block run on the non-null columns
    #: ``cols`` (a pattern) are ``pattern_weights[cols]`` when given (its stratum's z-scores), else ``weights``
    pattern_weights: Mapping[tuple[str, ...], Mapping[str, float]] | None = field(default=None, compare=False)

    @classmethod
    def build(
        cls,
        schema: pl.Schema | pl.DataFrame | pl.LazyFrame,
        k: int,
        on: ColumnSpec = None,
        *,
        method: str = "mdav",
        by: ColumnSpec = None,
        standardize: bool = True,
        ordinal: Sequence[str] = (),
        weights: Mapping[str, float] | None = None,
        group_column: str | None = None,
        refine: str | None = None,
        refine_options: Mapping[str, Any] | None = None,
        merge_small_strata: bool = False,
        pooled_label: Any = None,
        integers: str = "round",
        progress: bool = False,
        household: str | None = None,
        household_columns: Sequence[str] | None = None,
        merge_small_patterns: bool = False,
        **options: Any,
    ) -> MicroaggSpec:
        """Check every argument against ``schema`` once (k against the row count is checked
        when the data arrive).

        >>> spec = MicroaggSpec.build(pl.Schema({"x": pl.Float64, "r": pl.String}), 2, "x", by="r")
        >>> spec.on, spec.by, spec.method.name
        (('x',), ('r',), 'mdav')
        """
        if isinstance(schema, pl.LazyFrame):
            schema = schema.collect_schema()
        elif isinstance(schema, pl.DataFrame):
            schema = schema.schema
        k = check_int(k, "k", minimum=1)
        meth = METHODS[check_choice(method, "method", METHODS)]
        options = meth.check_options(options)
        if refine is not None:
            check_choice(refine, "refine", REFINERS)
        if refine is None and refine_options:
            raise SDCError("refine_options given without refine=")
        refine_options = check_refine_options(refine, refine_options or {}) if refine is not None else {}
        on_cols = quasi_identifiers(schema, on, by)
        if on is None and isinstance(household, str):   # the default `on` leaves the household id out
            on_cols = [c for c in on_cols if c != household]
            if not on_cols:
                raise SDCError(f"`on`: no numeric column besides the household id {household!r} and the `by` columns")
        if meth.one_numeric_column:
            on_cols = resolve_columns(schema, on_cols, kind="numeric")
            if len(on_cols) != 1:
                raise SDCError(
                    f"columns {', '.join(map(repr, on_cols))}: {meth.name} microaggregation takes exactly one "
                    "column; use mdav or mhm for several"
                )
        for c, w in (weights or {}).items():  # checked here: a block (null pattern) may leave a column out
            if c not in on_cols:
                raise SDCError(f"column {c!r}: has a weight but is not a quasi-identifier")
            if isinstance(w, bool) or not (isinstance(w, (int, float, np.integer, np.floating)) and np.isfinite(w)
                                           and w >= 0):   # when planned, as features() checks it
                raise SDCError(f"column {c!r}: weight must be a finite number >= 0, got {w!r}")
        ordinal = tuple(ordinal)
        for c in ordinal:
            if c not in on_cols:
                raise SDCError(f"column {c!r}: marked ordinal but not among the quasi-identifiers")
        if group_column is not None:
            if not isinstance(group_column, str):
                raise SDCError(f"group_column must be a column name, got {group_column!r}")
            if group_column in schema:
                raise SDCError(f"column {group_column!r}: already in the frame; choose another `group_column` name")
        by_cols = tuple(resolve_columns(schema, by, what="by")) if by is not None else ()
        merge_small_strata = check_bool(merge_small_strata, "merge_small_strata")
        if pooled_label is not None and not merge_small_strata:
            raise SDCError("pooled_label applies with merge_small_strata=True only")
        from ..household import check_household_column, check_household_columns

        household = check_household_column(schema, household, on_cols)
        household_columns = check_household_columns(schema, household, household_columns)
        if household is not None and household in by_cols:
            raise SDCError(f"household column {household!r}: also a stratum (`by`); every household would be "
                           "a stratum of its own — stratify by a household-level column (a region) instead")
        if household is not None and household == group_column:
            raise SDCError(f"column {household!r}: the household column cannot be the new `group_column`")
        spec = cls(
            k=k, on=tuple(on_cols), method=meth, options=options, by=by_cols,
            standardize=check_bool(standardize, "standardize"), ordinal=ordinal,
            weights=dict(weights) if weights is not None else None, group_column=group_column,
            refine=refine, refine_options=refine_options, merge_small_strata=merge_small_strata,
            pooled_label=pooled_label, integers=check_integers(integers), input_schema=schema,
            progress=check_bool(progress, "progress"), household=household,
            merge_small_patterns=check_bool(merge_small_patterns, "merge_small_patterns"),
            household_columns=household_columns,
        )
        spec.output_schema()  # dtype problems (ordinal String, pooled label) fail now
        return spec

    # -- schema ----------------------------------------------------------------------------
    def output_schema(self) -> pl.Schema:
        """Schema of :meth:`apply`'s result: masked numeric columns Float64, pooled stratum
        columns as :func:`_pooled_dtype` says, the group column UInt32."""
        from ..aggregate import aggregate_output_schema

        out = dict(aggregate_output_schema(self.input_schema, list(self.on), self.ordinal, self.integers))
        if self.merge_small_strata:
            for c in self.by:
                out[c] = _pooled_dtype(self.input_schema[c], c, self.pooled_label)
        if self.group_column is not None:
            out[self.group_column] = GROUP_DTYPE
        return pl.Schema(out)

    # -- running -----------------------------------------------------------------------------
    def _features(self, df: pl.DataFrame, columns: Sequence[str] | None = None) -> Features:
        columns = list(self.on if columns is None else columns)
        weights = self.weights if self.pattern_weights is None else self.pattern_weights.get(tuple(columns), self.weights)
        return features(df, columns, standardize=self.standardize, ordinal=[c for c in self.ordinal if c in columns],
                        weights=None if weights is None else {c: w for c, w in weights.items() if c in columns})

    def _run(self, df: pl.DataFrame, pb: Any = None, where: str = "", columns: Sequence[str] | None = None,
             units: np.ndarray | None = None) -> np.ndarray:
        """Labels of one block (``columns``: its non-null ``on`` columns). With ``units``
        (households of the rows) every group is made to hold >= k of them
        (:func:`~.blocks.household_repair`), after the partition and after the refinement; a
        refinement that ends above the repaired partition's SSE is not kept."""
        from ..progress import Null
        from .blocks import household_repair

        pb = pb if pb is not None else Null()
        F = self._features(df, columns)
        X = F if F.has_codes else F.numeric  # nominal columns reach the kernels as codes
        options = dict(self.options)
        if self.method.tracks_rows and pb.enabled:  # the kernel counts the rows it has grouped
            options["done"] = np.zeros(1, dtype=np.int64)
        # one kernel call: the elapsed time (and the rows, if counted) move meanwhile
        with pb.waiting(where + self.method.name, counter=options.get("done")):
            labels = np.asarray(self.method.partition(X, self.k, **options), dtype=np.uint32)
        if units is not None:
            labels = canonical_ids(household_repair(X, labels, units, self.k))
        if self.refine is not None:
            # MIL and the annealing take nominal columns as codes (any number of categories):
            # X is already Features with codes, or the numeric matrix
            options = dict(self.refine_options)
            if self.refine == "anneal" and pb.enabled and "on_stage" not in options:
                options["on_stage"] = lambda s, stages: pb.set_postfix(f"{where}anneal stage {s}/{stages}")
            if self.refine == "mil" and pb.enabled and "on_sweep" not in options:
                options["on_sweep"] = lambda s, changed: pb.set_postfix(f"{where}mil sweep {s}: {changed} changes")
            if self.refine == "mil" and pb.enabled and pb.total is not None:  # MIL's share: one row per row
                options["done"] = np.array([0.0, float(df.height)])
            with pb.waiting(where + self.refine, counter=options.get("done")):
                labels = canonical_ids(refine_labels(self.refine, X, labels, self.k, units, **options))
        return labels

    def _bar(self, rows: int | None) -> Any:
        """The progress bar of a run (``progress=True``): rows grouped out of all (counted by
        the kernel during the call for MDAV, V-MDAV and MHM, else per finished stratum; with
        ``refine="mil"`` twice the rows, the second half MIL's share of its planned work), or,
        without strata and without a counting kernel, the elapsed time of the one partition call."""
        from ..progress import bar

        steps = self.method.name + (f" + {self.refine}" if self.refine else "")
        if rows is not None and self.refine == "mil":  # MIL counts its share of the work as rows too
            rows *= 2
        return bar(self.progress, f"{steps} k={self.k}", total=rows, unit="rows")

    def strata(self, df: pl.DataFrame, units: np.ndarray | None = None) -> list[tuple[Any, np.ndarray]]:
        """The strata as (key, rows), small ones pooled if asked; an error names a stratum
        with fewer than k rows (k households when ``units``, the households of the rows, are
        given)."""
        from .blocks import unit_count

        size = None if units is None else (lambda rows: unit_count(rows, units))
        strata = strata_rows(df, list(self.by))
        if self.merge_small_strata:
            strata = merge_small_strata_rows(strata, self.k, size=size)
        from ..household import row_unit

        what = f"{row_unit()}(s)" if units is None else "household(s)"   # household rows: households
        for key, rows in strata:
            n = rows.size if size is None else size(rows)
            if n < self.k:
                raise SDCError(
                    f"stratum {key!r} of `by`: {n} {what}, fewer than k = {self.k} "
                    "(merge_small_strata=True, or --merge-small-strata, pools small strata)"
                )
        return strata

    def _households(self, df: pl.DataFrame) -> tuple[str, np.ndarray, int]:
        """``("household" | "person", household index per row, number of households)``:
        household-level when every ``on`` column is constant within every household (or
        declared by ``household_columns``, then checked); a mix of household- and
        person-level columns is an error naming both kinds."""
        from ..household import check_by_household_level, household_index, split_columns

        idx, n = household_index(df, self.household)
        if self.person_level:
            check_by_household_level(df, self.household, list(self.by))
            return "person", idx, n
        hh, person = split_columns(df, self.household, list(self.on), self.household_columns, index=idx)
        if hh and person:
            raise SDCError(
                f"household={self.household!r}: column(s) {', '.join(map(repr, hh))} are household-level "
                f"({'declared' if self.household_columns is not None else 'constant within every household'}) "
                f"and {', '.join(map(repr, person))} person-level; "
                "microaggregate them in two calls (household-level columns are aggregated once per household, "
                "person-level ones per person with >= k households in every group)"
                + ("" if self.household_columns is not None else
                   "; a column constant within every household only by accident is person-level if you declare "
                   "the household-level ones (household_columns=[...], or [] for none)")
            )
        check_by_household_level(df, self.household, list(self.by))  # a household lies in one stratum
        if person and self.household_columns is None:   # detected: nearly household-level is likely a data error
            from ..household import warn_nearly_household_level

            warn_nearly_household_level(df, self.household, person, index=idx)
        return ("household" if not person else "person"), idx, n

    def _collapsed(self, df: pl.DataFrame, idx: np.ndarray) -> tuple[pl.DataFrame, MicroaggSpec]:
        """One row per household (the ``on`` and ``by`` columns) and the plain spec for it."""
        from dataclasses import replace

        from ..household import collapse

        hh = collapse(df, self.household, list(dict.fromkeys([*self.on, *self.by])), check=False, index=idx)
        return hh, replace(self, household=None, household_columns=None, input_schema=hh.schema)

    def blocks(self, df: pl.DataFrame, units: np.ndarray | None = None,
               strata: list[tuple[Any, np.ndarray]] | None = None) -> list[Any]:
        """The :class:`~.blocks.Block` s partitioned separately: each stratum split by its
        null patterns over ``on`` (:func:`~.blocks.pattern_blocks`)."""
        from .blocks import null_mask, pattern_blocks

        if strata is None:
            strata = self.strata(df, units) if self.by else [(None, np.arange(df.height))]
        mask = null_mask(df, list(self.on))
        out = []
        for key, rows in strata:
            where = f"stratum {key!r} of `by`, " if self.by else ""
            out.extend(pattern_blocks(df, list(self.on), rows, self.k, units=units, merge=self.merge_small_patterns,
                                      where=where, mask=mask))
        return out

    def _labels(self, df: pl.DataFrame, blocks: list[Any], units: np.ndarray | None = None) -> np.ndarray:
        if len(blocks) == 1 and blocks[0].rows.size == df.height and len(blocks[0].columns) == len(self.on) \
                and not self.by:
            with self._bar(df.height if self.method.tracks_rows else None) as pb:
                return canonical_ids(self._run(df, pb, units=units))
        # progress: "stratum i/n" unless null patterns split the strata further
        word = "block" if any(len(b.columns) < len(self.on) for b in blocks) else "stratum"
        with self._bar(df.height) as pb:

            def run(i: int, b: Any, rows: np.ndarray) -> np.ndarray:
                before = pb.n
                if not b.columns:  # every `on` value null: nothing to aggregate, one group
                    part = np.zeros(rows.size, dtype=np.uint32)
                else:
                    part = self._run(df[rows], pb, f"{word} {i + 1}/{len(blocks)}: ", b.columns,
                                     None if units is None else units[rows])
                end = before + rows.size * (2 if self.refine == "mil" else 1)
                if end > pb.n:  # what the kernels did not count
                    pb.advance(end - pb.n)
                return part

            labels = per_stratum(df.height, [(b, b.rows) for b in blocks], run)
        return canonical_ids(labels)

    def _check_values(self, df: pl.DataFrame) -> None:
        """NaN / infinity in a numeric ``on`` column fails before any block runs (nulls are structural)."""
        from .._columns import check_finite, is_numeric

        check_finite(df, [c for c in self.on if is_numeric(df.schema[c])], nulls=True)

    def _groups(self, df: pl.DataFrame, units: np.ndarray | None, strata: list[tuple[Any, np.ndarray]] | None,
                guard: np.ndarray | None, strict: bool = True) -> tuple[np.ndarray, pl.DataFrame]:
        """(group ids, the frame to aggregate: pooled null patterns suppressed). ``guard``
        (households per row, with ``household=``): no vector released unchanged unless >= k
        households of its group share it (:func:`~.blocks.unchanged_repair`; ``strict``: an
        error where no merge can prevent it, as for a release)."""
        from ..aggregate import aggregate
        from .blocks import unchanged_repair

        blocks = self.blocks(df, units, strata)
        labels = self._labels(df, blocks, units)
        src = self._suppress_pooled(df, blocks)
        if guard is not None:
            on = list(self.on)

            def release(lab: np.ndarray) -> pl.DataFrame:
                g = pl.Series("group", lab, dtype=pl.Int64)
                return aggregate(src.select(on), g, on, ordinal=self.ordinal, integers=self.integers, keep_nulls=True)

            labels = canonical_ids(unchanged_repair(src, on, labels, guard, self.k, blocks, release, strict))
        return labels, src

    def partition(self, df: pl.DataFrame, strata: list[tuple[Any, np.ndarray]] | None = None) -> pl.Series:
        """Group ids (UInt32 Series ``"group"``, row order kept), numbered across strata. An
        empty frame has the empty partition (no group, so none below k)."""
        if df.height == 0:
            return pl.Series("group", [], dtype=GROUP_DTYPE)
        labels, src, _ = self._run_all(df, strata, strict=False)
        if isinstance(src, tuple):  # household-level: each member gets its household's group
            labels = canonical_ids(labels[src[-1]])
        return pl.Series("group", labels, dtype=GROUP_DTYPE)

    def _run_all(self, df: pl.DataFrame, strata: list[tuple[Any, np.ndarray]] | None = None, strict: bool = True
                 ) -> tuple[np.ndarray, pl.DataFrame | None, list[tuple[Any, np.ndarray]] | None]:
        """(group ids per row, the released frame if this was the household-level path (one
        row per household, broadcast by :meth:`apply`) else the frame to aggregate, the strata).
        ``strict``: see :meth:`_groups` (False for :meth:`partition`, which releases nothing)."""
        check_k(self.k, df.height)
        self._check_values(df)
        if self.household is None:
            strata = self.strata(df) if self.by and strata is None else strata
            labels, src = self._groups(df, None, strata, None)
            return labels, src, strata
        mode, idx, n = self._households(df)
        if self.k > n:
            raise SDCError(f"household column {self.household!r}: {n} household(s), fewer than k = {self.k}; with "
                           "household= every group holds records of >= k households")
        if mode == "household":  # one row per household, k households per group
            from ..household import household_rows

            hh, inner = self._collapsed(df, idx)
            with household_rows():   # the messages of the household rows count households
                hstrata = inner.strata(hh) if inner.by else None
                labels, src = inner._groups(hh, None, hstrata, np.arange(n), strict)
            return labels, (hh, inner, labels, src, hstrata, idx), None
        strata = self.strata(df, idx) if self.by else None
        labels, src = self._groups(df, idx, strata, idx, strict)
        return labels, src, strata

    def apply(self, df: pl.DataFrame) -> pl.DataFrame:
        """The release: ``on`` columns replaced by their group representatives (mean, mode,
        or lower median for ``ordinal``), pooled strata relabelled, the group column added.

        With ``household=``: household-level ``on`` columns are released by running the spec
        on one row per household and broadcasting the result to the members; person-level
        ones with every group holding >= k households. Nulls stay null (rows grouped by null
        pattern; pooled small patterns suppressed to their common pattern). An empty frame is
        released empty with the output schema (no record, nothing to protect; as suppression,
        PRAM and noise release it)."""
        if df.height == 0:
            return pl.DataFrame(schema=self.output_schema())
        if self.household is None:  # loud when the columns are evidently household-level
            from ..household import warn_household_level

            warn_household_level(df, list(self.on), method="microaggregation", exclude=list(self.by))
        labels, src, strata = self._run_all(df)
        if isinstance(src, tuple):  # household-level: release the household rows, broadcast them
            from ..household import broadcast

            hh, inner, hlabels, hsrc, hstrata, idx = src
            released = inner._release(hsrc, hlabels, hstrata, with_group=False)
            cols = list(self.on) + (list(self.by) if self.merge_small_strata else [])
            out = broadcast(df, self.household, released, cols, index=idx)
            if self.group_column is not None:
                out = out.with_columns(pl.Series(self.group_column, canonical_ids(hlabels[idx]), dtype=GROUP_DTYPE))
            return self._verified(out)
        return self._verified(self._release(src, labels, strata, with_group=True))

    def _verified(self, out: pl.DataFrame) -> pl.DataFrame:
        """The release check: every class of the released ``on`` + ``by`` values (a null its own
        value, as the groups are formed per null pattern) holds >= k records, and with
        ``household=`` >= k households; an :class:`SDCError` instead of an unsafe release."""
        keys = list(dict.fromkeys([*self.on, *self.by]))
        if out.height == 0 or not keys:
            return out
        count = pl.len() if self.household is None else pl.col(self.household).n_unique()
        size = "size"
        while size in keys:                        # a name no key column has
            size += "_"
        low = out.group_by(keys).agg(count.alias(size)).get_column(size).min()
        if low is not None and low < self.k:
            unit = "record(s)" if self.household is None else "household(s)"
            raise SDCError(f"microaggregation: internal error, a released class on {keys} has {low} {unit} < k = "
                           f"{self.k}; nothing was returned (please report this input)")
        return out

    def _release(self, src: pl.DataFrame, labels: np.ndarray, strata: list[tuple[Any, np.ndarray]] | None,
                 with_group: bool) -> pl.DataFrame:
        from ..aggregate import aggregate

        groups = pl.Series("group", labels, dtype=GROUP_DTYPE)
        out = aggregate(src, groups, list(self.on), ordinal=self.ordinal, integers=self.integers, keep_nulls=True)
        if self.merge_small_strata:
            out = self._relabel_pooled(out, strata or [])
        if with_group and self.group_column is not None:
            out = out.with_columns(groups.alias(self.group_column))
        return out

    def _suppress_pooled(self, df: pl.DataFrame, blocks: list[Any]) -> pl.DataFrame:
        """Null the values of pooled null patterns in the columns not shared by all pooled rows."""
        sup = [(b.rows, c) for b in blocks for c in b.suppressed]
        if not sup:
            return df
        masks: dict[str, np.ndarray] = {}
        for rows, c in sup:
            masks.setdefault(c, np.zeros(df.height, dtype=bool))[rows] = True
        return df.with_columns(
            pl.when(pl.lit(pl.Series(m))).then(None).otherwise(pl.col(c)).alias(c) for c, m in masks.items()
        )

    def _relabel_pooled(self, df: pl.DataFrame, strata: list[tuple[Any, np.ndarray]]) -> pl.DataFrame:
        """Give every row of a pooled stratum one value per stratum column (the pooled
        values joined by ``+`` in order of first appearance, or ``pooled_label``)."""
        schema = self.output_schema()
        pooled = np.zeros(df.height, dtype=bool)
        for _, rows in strata:
            if df[rows].select(pl.struct(list(self.by)).n_unique()).item() > 1:
                pooled[rows] = True
        mask = pl.Series(pooled)
        new = []
        for c in self.by:
            dtype = schema[c]
            values = df.get_column(c).filter(mask).unique(maintain_order=True)
            if values.len() <= 1:
                new.append(df.get_column(c).cast(dtype))
                continue
            if self.pooled_label is not None:
                label = self.pooled_label
            else:
                label = POOLED_SEPARATOR.join(values.cast(pl.String).fill_null("null").to_list())
            col = df.get_column(c)
            if dtype == pl.String or isinstance(dtype, (pl.Categorical, pl.Enum)):
                col = col.cast(pl.String)
            new.append(
                pl.select(pl.when(pl.lit(mask)).then(pl.lit(label)).otherwise(pl.lit(col)).cast(dtype).alias(c))
                .to_series()
            )
        return df.with_columns(new)


def replace_group(spec: MicroaggSpec, group_column: str) -> MicroaggSpec:
    """``spec`` with its ``group_column`` set (used to carry household groups back to persons)."""
    from dataclasses import replace

    return replace(spec, group_column=group_column)


def partition_frame(df: pl.DataFrame, k: int, on: ColumnSpec = None, **arguments: Any) -> pl.Series:
    """Group ids (UInt32 Series ``"group"``, row order kept) of a k-partition of ``df``; the
    arguments are those of :meth:`MicroaggSpec.build`.

    ``on`` selects the quasi-identifiers (default: every numeric column not in ``by``): numeric
    columns are z-scored unless ``standardize=False``; String/Categorical/Enum columns take
    part by the discrete distance, or the rank distance if listed in ``ordinal``; ``weights``
    weighs each column in the product distance (see :mod:`polars_sdc.microagg.features`). With
    ``by=`` each stratum is partitioned on its own and ids are numbered across strata.

    >>> df = pl.DataFrame({"r": ["a", "a", "a", "b"], "x": [1.0, 2.0, 3.0, 9.0]})
    >>> partition_frame(df, 2, "x", by="r", merge_small_strata=True).to_list()
    [0, 0, 1, 1]
    """
    return MicroaggSpec.build(df.schema, k, on, **arguments).partition(df)


def microaggregate_frame(df: pl.DataFrame, k: int, on: ColumnSpec = None, **arguments: Any) -> pl.DataFrame:
    """``df`` with the ``on`` columns replaced by their group representatives under the
    partition of :func:`partition_frame` (see :meth:`MicroaggSpec.apply`).

    >>> df = pl.DataFrame({"age": [30.0, 31, 32, 33, 34, 35, 36, 80], "region": ["N"] * 7 + ["Z"]})
    >>> out = microaggregate_frame(df, 3, "age", by="region", merge_small_strata=True)
    >>> out["region"].to_list()[-3:], out.sdc.k_anonymity(["age", "region"])
    (['N+Z', 'N+Z', 'N+Z'], 3)
    """
    return MicroaggSpec.build(df.schema, k, on, **arguments).apply(df)
