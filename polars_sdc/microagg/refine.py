"""The refiners of a k-partition and the one per-stratum loop.

A refiner maps a k-partition to one of lower SSE: ``refine(X, labels, k, **options) -> labels``
on a float matrix or :class:`~.features.Features` (nominal columns as codes).
:data:`REFINERS` names them: ``"mil"`` (:func:`.mil.refine_mil`, thesis 4.2) and ``"anneal"``
(:func:`.anneal.refine_anneal`, simulated annealing that starts and ends with MIL).

This module is what the pipeline (``refine=`` of the microaggregation methods) and the frame
method ``df.sdc.mil`` (:func:`mil_frame`) share:

- :func:`check_refine_options`: a refiner's options checked by name when a plan is built;
- :func:`refine_labels`: one refiner call, with the households repair (``household=``);
- :func:`strata_rows` and :func:`per_stratum`: the strata of ``by=`` and the loop that runs
  a function per stratum (or per block) and numbers the groups across them.

Imports point down: :mod:`.pipeline` imports this module, this module imports :mod:`.mil`
and :mod:`.anneal`, and :mod:`.anneal` imports :mod:`.mil`.
"""
from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np

from .._errors import SDCError
from .anneal import check_anneal_options, refine_anneal
from .mil import check_mil_options, refine_mil

#: Post-optimisations by name: ``refine(X, labels, k, **refine_options) -> labels``.
REFINERS: dict[str, Callable[..., np.ndarray]] = {
    "mil": refine_mil,
    "anneal": refine_anneal,
}

#: each refiner's option values checked by name (when a plan is built, not when it runs)
REFINER_OPTION_CHECKS: dict[str, Callable[[Mapping[str, Any]], dict[str, Any]]] = {
    "mil": check_mil_options,
    "anneal": check_anneal_options,
}

#: the refiners' progress callbacks: set by the pipeline's progress bar, not user options
PROGRESS_HOOKS = ("on_stage", "on_sweep", "done")


def check_refine_options(refine: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """The keyword ``options`` of refiner ``refine`` checked by name and value; an unknown
    one is an error listing what the refiner takes.

    >>> check_refine_options("mil", {"max_sweeps": 3})
    {'max_sweeps': 3}
    >>> check_refine_options("mil", {"max_sweep": 3})
    Traceback (most recent call last):
    ...
    polars_sdc._errors.SDCError: unknown refine option 'max_sweep' for refine='mil'; did you mean 'max_sweeps'? It takes: neighbours, exchanges, cycles, max_sweeps, max_rounds
    """
    takes = [name for name in list(inspect.signature(REFINERS[refine]).parameters)[3:] if name not in PROGRESS_HOOKS]
    for name in options:
        if name not in takes:
            from .._columns import closest_name

            guess = closest_name(name, takes)
            hint = f"; did you mean {guess!r}? It" if guess else "; it"
            raise SDCError(f"unknown refine option {name!r} for refine={refine!r}{hint} takes: {', '.join(takes)}")
    return REFINER_OPTION_CHECKS[refine](options)


def refine_labels(refine: str, X: Any, labels: np.ndarray, k: int, units: np.ndarray | None = None,
                  **options: Any) -> np.ndarray:
    """``labels`` (a k-partition of the rows of X) refined by ``REFINERS[refine]`` with
    ``options``. With ``units`` (the household of each row), every group of the result is
    made to hold >= k households (:func:`~.blocks.household_repair`), and the input is kept
    if the repaired result has a higher SSE (the repair cost more than the refinement gained).

    >>> X = np.array([[0.0], [1.0], [2.0], [3.0], [10.0], [11.0]])
    >>> refine_labels("mil", X, np.array([0, 0, 0, 1, 1, 1]), 2).tolist()
    [0, 0, 0, 0, 1, 1]
    """
    out = REFINERS[refine](X, labels, k, **options)
    if units is None:
        return np.asarray(out)
    from .blocks import household_repair, sse

    out = household_repair(X, np.asarray(out, dtype=np.int64), units, k)
    return labels if sse(X, out) > sse(X, labels) else out


def strata_rows(df: Any, by: Any) -> list[tuple[Any, np.ndarray]]:
    """(stratum key, row indices) for each stratum of ``by``, in order of first appearance.

    >>> import polars as pl
    >>> [(key, rows.tolist()) for key, rows in strata_rows(pl.DataFrame({"r": ["a", "b", "a"]}), "r")]
    [('a', [0, 2]), ('b', [1])]
    """
    from .._columns import resolve_columns

    by = resolve_columns(df, by, what="by")
    keyed = df.select(by).with_row_index("__row__")
    out = []
    for key, part in keyed.group_by(by, maintain_order=True):
        out.append((key if len(by) > 1 else key[0], part.get_column("__row__").to_numpy()))
    return out


def per_stratum(n: int, parts: Iterable[tuple[Any, np.ndarray]], run: Callable[[int, Any, np.ndarray], Any], *,
                renumber: bool = True, start: np.ndarray | None = None) -> np.ndarray:
    """The per-stratum (or per-block) loop: ``run(i, key, rows)`` gives the group ids of the
    ``rows`` of part i; they are written to those rows of an int64 array of ``n`` ids
    (``start``, copied, or zeros). ``renumber``: each part numbers its groups on its own
    (0..G-1), so its ids are offset past those of the parts before (ids unique across parts);
    else the ids are written as they are (MIL keeps the input's ids).

    >>> parts = [("a", np.array([0, 2])), ("b", np.array([1, 3]))]
    >>> per_stratum(4, parts, lambda i, key, rows: np.zeros(rows.size)).tolist()
    [0, 1, 0, 1]
    """
    out = np.zeros(n, dtype=np.int64) if start is None else np.array(start, dtype=np.int64)
    used = 0
    for i, (key, rows) in enumerate(parts):
        part = np.asarray(run(i, key, rows), dtype=np.int64)
        out[rows] = part + used if renumber else part
        used += int(part.max()) + 1 if part.size else 0
    return out


def mil_columns(schema: Any, on: Any, group: Any, ordinal: Any = (), by: Any = None,
                household: Any = None) -> tuple[list[str], list[str]]:
    """The quasi-identifier and strata columns of a MIL refinement of the partition in column
    ``group``, checked against ``schema`` (so a lazy plan fails when it is built): ``on=None``
    means every numeric column but ``group`` (and the ``household`` id); the group column is
    neither a quasi-identifier nor a stratum; ``ordinal`` columns are quasi-identifiers.

    >>> import polars as pl
    >>> mil_columns(pl.Schema({"x": pl.Float64, "g": pl.Int64, "s": pl.String}), None, "g", by="s")
    (['x'], ['s'])
    """
    from .._columns import resolve_columns

    if not isinstance(group, str) or group not in schema:
        from .._columns import did_you_mean

        hint = did_you_mean(group, schema.names()) if isinstance(group, str) else ""
        raise SDCError(f"column {group!r}: group column not in the frame{hint}")
    if on is None:
        on = [c for c in resolve_columns(schema, None, kind="numeric", default="numeric") if c not in (group, household)]
        if not on:
            raise SDCError(f"`on`: no numeric column besides the group column {group!r}"
                           + (f" and the household id {household!r}" if isinstance(household, str) else ""))
    on = resolve_columns(schema, on, kind="supported")
    if group in on:
        raise SDCError(f"column {group!r}: the group column cannot also be a quasi-identifier")
    for c in ordinal:
        if c not in on:
            raise SDCError(f"column {c!r}: marked ordinal but not among the quasi-identifiers")
    by_cols = [] if by is None else resolve_columns(schema, by, what="by")
    clash = [c for c in by_cols if c == group or c in on]
    if clash:
        raise SDCError(f"column {clash[0]!r}: cannot be both a stratum (`by`) and a group or quasi-identifier column")
    return on, by_cols


def mil_refiner(refine: Any, options: Any) -> tuple[str, dict[str, Any]]:
    """``(refine, options)`` checked for :func:`mil_frame`: ``refine`` one of
    ``REFINERS`` (``"mil"``: :func:`refine_mil`; ``"anneal"``:
    :func:`polars_sdc.microagg.anneal.refine_anneal`), ``options`` the keyword arguments it
    takes.

    >>> mil_refiner("anneal", {"max_iter": 1000, "seed": 3})
    ('anneal', {'max_iter': 1000, 'seed': 3})
    >>> mil_refiner("anneal", {"cycles": False})
    Traceback (most recent call last):
    ...
    polars_sdc._errors.SDCError: unknown refine option 'cycles' for refine='anneal'; it takes: max_iter, seed, time_limit, stages, neighbours, t_start, t_end, p_swap, p_split, chains
    """
    from .._validation import check_choice

    check_choice(refine, "refine", REFINERS)
    return refine, check_refine_options(refine, dict(options or {}))


def mil_output_schema(schema: Any, group: str, refine: str = "mil") -> Any:
    """The schema :func:`mil_frame` returns: ``schema`` itself for ``refine="mil"`` (rows move
    between the existing groups); for ``refine="anneal"`` (groups are dissolved and created)
    the ``group`` column becomes UInt32 ids by first appearance, as ``partition`` makes them.

    >>> import polars as pl
    >>> mil_output_schema(pl.Schema({"x": pl.Float64, "g": pl.String}), "g", "anneal")
    Schema([('x', Float64), ('g', UInt32)])
    """
    import polars as pl

    from ..partition import GROUP_DTYPE

    if refine == "mil":
        return schema
    return pl.Schema({c: (GROUP_DTYPE if c == group else t) for c, t in schema.items()})


def mil_frame(
    df: Any,
    k: int,
    on: Any = None,
    *,
    groups: str = "g",
    by: Any = None,
    standardize: bool = True,
    ordinal: Any = (),
    weights: Any = None,
    refine: str = "mil",
    household: str | None = None,
    household_columns: Any = None,
    **options: Any,
) -> Any:
    """``df`` with the partition in column ``groups`` refined by :func:`refine_mil` on the
    ``on`` columns, in the same feature matrix the microaggregation methods use (numeric
    columns z-scored unless ``standardize=False``; categorical ones by the discrete or, if
    ``ordinal``, rank distance; ``weights`` per column). The column keeps its dtype and its
    ids; only rows move between groups. With ``by=``, rows move only within their stratum
    (each stratum refined on its own, z-scores per stratum, as ``partition(by=...)`` made it).
    ``refine="anneal"``: :func:`.anneal.refine_anneal` instead (lower SSE,
    seconds to minutes; ``options`` are its ``max_iter``, ``seed``, ...); it dissolves and
    creates groups, so the column becomes UInt32 ids by first appearance
    (:func:`mil_output_schema`). Structural nulls in ``on`` (a child's income): rows move only
    among the groups of their null pattern (each group must hold one, as the microaggregation
    methods make them) and are refined on their non-null columns; nulls stay null.

    ``household=`` (a household id column): household-level ``on`` columns (constant within
    every household; the ``groups`` column must be too) are refined on one row per household
    and the groups broadcast to the members; person-level ones are refined per person, then
    every group left with fewer than k households is dissolved into its nearest groups
    (:func:`~.blocks.household_repair`) and the result kept only if its SSE is not above the
    input partition's. The input groups must hold >= k households each. A mix of both kinds
    of columns is an error. ``household_columns``: the household-level columns declared
    instead of detected (:func:`polars_sdc.household.check_household_columns`). The refined
    partition is released by :func:`polars_sdc.aggregate.aggregate` with the same ``household``
    and ``k`` (its guard: no group mean equal to the exact vector of fewer than k households).

    >>> import polars as pl
    >>> df = pl.DataFrame({"x": [1.0, 2.0, 3.0, 10.0, 11.0], "g": ["a", "a", "b", "b", "b"]})
    >>> mil_frame(df, 2, "x", standardize=False)["g"].to_list()
    ['a', 'a', 'a', 'b', 'b']
    >>> mil_frame(df, 2, "x", standardize=False, refine="anneal", max_iter=1000)["g"].to_list()
    [0, 0, 0, 1, 1]
    """
    import polars as pl

    from .._columns import check_k
    from ..partition import GROUP_DTYPE, canonical_ids, group_ids
    from .features import features

    def qi(frame: Any, cols: Any = None) -> Any:  # MIL and the annealing take nominal columns as codes
        if cols is None:
            F = features(frame, on, standardize=standardize, ordinal=ordinal, weights=weights)
        else:            # a null pattern's block: its non-null columns
            F = features(frame, cols, standardize=standardize, ordinal=[c for c in ordinal if c in cols],
                         weights=None if weights is None else {c: w for c, w in weights.items() if c in cols})
        return F if F.has_codes else F.numeric

    group = groups
    refine, options = mil_refiner(refine, options)
    on, by_cols = mil_columns(df.schema, on, group, ordinal, by, household)
    if df.height == 0:    # nothing to refine (as every method: an empty frame is released empty)
        from .._validation import check_int

        check_int(k, "k", minimum=1)
        return df.with_columns(pl.col(group).cast(GROUP_DTYPE)) if refine != "mil" else df.clone()
    k = check_k(k, df.height)
    group_ids(df, group)  # length and nulls
    units = None
    if household is not None:
        from ..household import broadcast, check_by_household_level, check_household_column, check_household_level
        from ..household import check_household_columns, collapse, household_index, split_columns

        check_household_column(df.schema, household, [*on, group, *by_cols])
        declared = check_household_columns(df.schema, household, household_columns)
        index, _ = household_index(df, household)
        hh, person = split_columns(df, household, on, declared, index=index)
        if hh and person:
            raise SDCError(f"household={household!r}: column(s) {', '.join(map(repr, hh))} are household-level and "
                           f"{', '.join(map(repr, person))} person-level; refine them in two calls"
                           + ("" if declared is not None else " (or declare the household-level ones: "
                              "household_columns=[...], or [] for none)"))
        if not person:  # household-level: one row per household, the groups broadcast back
            check_household_level(df, household, [group, *by_cols])
            rows = collapse(df, household, list(dict.fromkeys([*on, group, *by_cols])), check=False, index=index)
            from ..household import household_rows

            with household_rows():   # its messages count households
                done = mil_frame(rows, k, on, groups=group, by=by, standardize=standardize, ordinal=ordinal,
                                 weights=weights, refine=refine, **options)
            return broadcast(df, household, done, [group], index=index)
        check_by_household_level(df, household, by_cols)  # a household lies in one stratum
        units = index

    def run(frame: Any, labels: np.ndarray, rows: np.ndarray | None, cols: Any = None) -> np.ndarray:
        hh = None if units is None else (units if rows is None else units[rows])
        if hh is not None:
            from .blocks import check_households

            check_households(labels, hh, k)
        if cols is not None and not cols:     # every `on` value null: nothing to refine
            return labels if refine == "mil" else canonical_ids(labels)
        return refine_labels(refine, qi(frame, cols), labels, k, hh, **options)

    s = df.get_column(group)
    values = s.unique(maintain_order=True)
    table = pl.DataFrame({"v": values, "c": np.arange(values.len(), dtype=np.int64)})
    codes = s.to_frame("v").join(table, on="v", how="left", maintain_order="left").get_column("c").to_numpy()
    from .blocks import describe_pattern, null_mask

    nulls = null_mask(df, on)   # structural nulls: rows move only among groups of their null pattern
    if by is None and not nulls.any():
        new = np.asarray(run(df, codes, None), dtype=np.int64)
    else:
        parts = strata_rows(df, by_cols) if by is not None else [(None, np.arange(df.height))]
        if nulls.any():
            split = []
            for key, rows in parts:
                _, first, inv = np.unique(nulls[rows], axis=0, return_index=True, return_inverse=True)
                inv = inv.ravel()
                for p in np.argsort(first, kind="stable"):
                    split.append(((key, describe_pattern(on, nulls[rows[first[p]]])), rows[inv == p]))
            parts = split
        # every group inside one part (checked before any refinement)
        part_of = np.zeros(df.height, dtype=np.int64)
        for i, (_, rows) in enumerate(parts):
            part_of[rows] = i
        lo = np.full(values.len(), len(parts), dtype=np.int64)
        hi = np.full(values.len(), -1, dtype=np.int64)
        np.minimum.at(lo, codes, part_of)
        np.maximum.at(hi, codes, part_of)
        split_groups = np.flatnonzero(lo != hi)
        if split_groups.size:
            j = int(split_groups[0])
            g, a, b = values[j], parts[int(lo[j])][0], parts[int(hi[j])][0]
            if not nulls.any() or a[0] != b[0]:
                raise SDCError(f"column {group!r}: group {g!r} spans several strata of `by`; refine per stratum "
                               "needs groups inside one stratum")
            raise SDCError(f"column {group!r}: group {g!r} mixes null patterns over `on` ({a[1]} and {b[1]}); with "
                           "structural nulls each group holds one null pattern (as the microaggregation methods "
                           "make them), so its rows are refined on their non-null columns")

        def stratum(i: int, key: Any, rows: np.ndarray) -> np.ndarray:
            cols = [c for c, isnull in zip(on, nulls[rows[0]]) if not isnull] if nulls.any() else None
            return run(df[rows], codes[rows], rows, cols)

        # anneal's ids are its own (0..G'-1 per stratum): offset past the ids used so far
        new = per_stratum(df.height, parts, stratum, renumber=refine != "mil", start=codes)
    if refine != "mil":
        return df.with_columns(pl.Series(group, canonical_ids(new), dtype=GROUP_DTYPE))
    return df.with_columns(values.gather(new).alias(group))
