"""Households: persons nested in households, and the columns that belong to the household.

A survey file (EU-SILC, a census) holds one row per person and an id of the person's
household. A column that is constant within every household (the household size, the region,
the household income) is *household-level*: masking it per person would blank or perturb it on
one member and leave the original value on a housemate's record, next to the shared household
id. The masking methods with ``household=`` therefore mask such a column once per household and
broadcast the result to every member. This module is that workflow (sdcMicro's
``selectHouseholdData`` / ``mergeHouseholdData``, done for the user):

* :func:`household_index`: the household of every row (0..H-1 in first-appearance order);
* :func:`household_level_columns` / :func:`check_household_level` / :func:`split_columns`:
  which columns are constant within every household (nulls count as a value, so a household
  with a null on one member and a value on another is not constant), detected or declared
  (``household_columns=``, checked by :func:`check_household_columns`);
* :func:`collapse`: one row per household (first-appearance order) with a household weight;
* :func:`broadcast`: masked household rows written back to their members (row order kept);
* :func:`mask_households`: a masking step run household-aware (person-level columns as they
  are, household-level ones on :func:`collapse`'s rows, then :func:`broadcast`);
* :func:`warn_household_level`: a loud :class:`HouseholdWarning` when a column that is
  evidently household-level is masked per person without ``household=``;
  :func:`warn_nearly_household_level`: the same for a column that varies within only a few
  households (so ``household=`` cannot treat it as household-level).

A null household id is an error (a person without a household cannot be kept with it); give a
one-person household its own id.
"""
from __future__ import annotations

import contextlib
import contextvars
import warnings
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import polars as pl

from ._errors import SDCError

__all__ = [
    "HouseholdWarning",
    "broadcast",
    "check_by_household_level",
    "check_household_column",
    "check_household_columns",
    "check_household_level",
    "collapse",
    "household_index",
    "household_keys",
    "household_level_columns",
    "mask_by_household",
    "mask_households",
    "split_columns",
    "household_rows",
    "row_unit",
    "warn_household_level",
    "warn_nearly_household_level",
    "warn_varies_within_few",
]

WEIGHT_AGGREGATIONS = ("first", "mean", "sum")


_ROW_UNIT: contextvars.ContextVar[str] = contextvars.ContextVar("polars_sdc_row_unit", default="row")


def row_unit(plural: bool = False) -> str:
    """What a row is in the masking step at hand, for its messages: ``"row"``, or
    ``"household"`` within :func:`household_rows` (:func:`mask_households` masking the
    household-level columns on one row per household: a stratum "of 2 rows" there holds 2
    households; household-level microaggregation and MIL likewise).

    >>> row_unit(), row_unit(plural=True)
    ('row', 'rows')
    """
    unit = _ROW_UNIT.get()
    return unit + "s" if plural else unit


@contextlib.contextmanager
def household_rows() -> Iterator[None]:
    """Within it, :func:`row_unit` says ``"household"``: a step runs on one row per household
    (:func:`collapse`'s frame), so its messages count households.

    >>> with household_rows():
    ...     row_unit(plural=True)
    'households'
    """
    token = _ROW_UNIT.set("household")
    try:
        yield
    finally:
        _ROW_UNIT.reset(token)


class HouseholdWarning(UserWarning):
    """A household-level column is masked per person although the frame has an evident
    household structure: the original value stays visible on a housemate's record. Pass
    ``household=`` to the method; to make the warning an error:
    ``warnings.simplefilter("error", polars_sdc.HouseholdWarning)``.

    >>> import warnings, polars as pl, polars_sdc
    >>> df = pl.DataFrame({"hh": [h // 2 for h in range(24)], "size": [2 + h // 12 for h in range(24)],
    ...                    "age": list(range(24))})
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     _ = df.sdc.suppress(2, ["size", "age"])
    >>> [x.category.__name__ for x in w]
    ['HouseholdWarning']
    """


def check_household_column(schema: pl.Schema, household: Any, on: Sequence[str] = (), *,
                           what: str = "household") -> str | None:
    """``household``: None, or the name of an existing column that is not among the masked
    ``on`` columns (the id is what links the members; it is never masked). Returns the name.

    >>> check_household_column(pl.Schema({"hh": pl.Int64, "x": pl.Float64}), "hh", ["x"])
    'hh'
    """
    if household is None:
        return None
    if not isinstance(household, str):
        raise SDCError(f"`{what}` must be a column name, got {household!r}")
    if household not in schema:
        raise SDCError(f"{what} column {household!r}: not in the frame (columns: {', '.join(schema.names())})")
    if household in on:
        raise SDCError(f"{what} column {household!r}: is also masked (`on`); the household id links the "
                       "members and is never masked")
    return household


def check_household_columns(schema: pl.Schema, household: str | None, household_columns: Any
                            ) -> tuple[str, ...] | None:
    """``household_columns``: None (the household-level columns are detected: constant within
    every household), or the declaration of which columns are household-level: a name or a
    list of names of the frame (not the ``household`` id), given with ``household``. Every
    masked column it names is then masked once per household (and must be constant within
    every household: else an :class:`SDCError` naming the column and a household where it
    varies, when the data arrive); every other masked column is person-level, even if it
    happens to be constant within every household; a named column the method does not mask
    is ignored. ``[]`` declares every masked column person-level. Returns the names.

    >>> s = pl.Schema({"hh": pl.Int64, "size": pl.Int64, "age": pl.Int64})
    >>> check_household_columns(s, "hh", "size"), check_household_columns(s, "hh", None)
    (('size',), None)
    >>> check_household_columns(s, None, ["size"])
    Traceback (most recent call last):
    ...
    polars_sdc._errors.SDCError: household_columns=['size'] declares household-level columns but no household= id column is given
    """
    if household_columns is None:
        return None
    if household is None:
        raise SDCError(f"household_columns={household_columns!r} declares household-level columns but no "
                       "household= id column is given")
    names = [household_columns] if isinstance(household_columns, str) else household_columns
    if not isinstance(names, Sequence) or not all(isinstance(c, str) for c in names):
        raise SDCError(f"household_columns must be a column name or a list of names, got {household_columns!r}")
    for c in names:
        if c not in schema:
            raise SDCError(f"household_columns: column {c!r} is not in the frame (columns: "
                           f"{', '.join(schema.names())})")
        if c == household:
            raise SDCError(f"household_columns: {c!r} is the household id itself (it is never masked)")
    return tuple(dict.fromkeys(names))


def missing_ids_error(household: str, nulls: int | None) -> SDCError:
    """The one message (local and Spark: :mod:`polars_sdc.spark.household`,
    :mod:`polars_sdc.spark.frequencies`) for ``nulls`` null household ids, or (None) NaN ids.

    >>> str(missing_ids_error("hh", 2))
    "household column 'hh': 2 null id(s); every person needs a household id (give a one-person household its own id)"
    """
    if nulls is None:
        return SDCError(f"household column {household!r}: NaN id(s); every person needs a household id")
    return SDCError(f"household column {household!r}: {nulls} null id(s); every person needs a "
                    "household id (give a one-person household its own id)")


def check_ids(s: pl.Series, household: str) -> None:
    """:func:`missing_ids_error` for a null (or NaN) id among the household ids ``s``: every
    household path refuses them (counting, masking, the household risk)."""
    if s.null_count():
        raise missing_ids_error(household, s.null_count())
    if s.dtype.is_float() and s.is_nan().any():
        raise missing_ids_error(household, None)


def household_index(df: pl.DataFrame, household: str) -> tuple[np.ndarray, int]:
    """The household of every row as int64 0..H-1, numbered in order of first appearance,
    and H. A null household id is an :class:`SDCError`.

    >>> household_index(pl.DataFrame({"hh": [7, 3, 7, 9]}), "hh")
    (array([0, 1, 0, 2]), 3)
    """
    s = df.get_column(household)
    check_ids(s, household)
    idx = s.to_frame().select(pl.first().rank("dense").cast(pl.Int64) - 1).to_series().to_numpy()
    n = int(idx.max()) + 1 if idx.size else 0
    # dense ranks are in sorted order; renumber them by first appearance
    first = np.full(n, idx.size, dtype=np.int64)
    np.minimum.at(first, idx, np.arange(idx.size, dtype=np.int64))
    order = np.empty(n, dtype=np.int64)
    order[np.argsort(first, kind="stable")] = np.arange(n, dtype=np.int64)
    return order[idx], n


def household_keys(ids: pl.Series) -> np.ndarray:
    """The random-number key (uint64) of each of the distinct household ``ids``:
    :func:`polars_sdc.rng.row_keys` of integer / string / categorical ids; the bits of a float
    id (``-0.0`` as ``0.0``), the physical value of a date, time, decimal or boolean id. Used
    where draws are keyed by household (``key=`` on the household rows, record swapping).

    >>> household_keys(pl.Series("hh", [3, 1])).tolist(), household_keys(pl.Series("hh", [0.5])).tolist()
    ([3, 1], [4602678819172646912])
    """
    from . import rng

    t = ids.dtype
    if t.is_integer() or t == pl.String or isinstance(t, (pl.Categorical, pl.Enum)):
        return rng.row_keys(ids)
    if t.is_float():
        return (ids.cast(pl.Float64).to_numpy() + 0.0).view(np.uint64)
    if t.is_temporal() or t.is_decimal() or t == pl.Boolean:
        return rng.row_keys(ids.to_physical().cast(pl.Int64))
    raise SDCError(f"household column {ids.name!r}: dtype {t} cannot key the draws of the household rows; "
                   "use an integer, string, float or date household id")


def _first_member(df: pl.DataFrame, household: str, index: np.ndarray | None = None) -> pl.Series:
    """For every row, the row number of the first member of its household (UInt32 or Int64)."""
    idx, n = household_index(df, household) if index is None else (index, int(index.max()) + 1)
    first = np.full(n, idx.size, dtype=np.int64)
    np.minimum.at(first, idx, np.arange(idx.size, dtype=np.int64))
    return pl.Series(first[idx])


def _varying(df: pl.DataFrame, household: str, columns: Sequence[str], index: np.ndarray | None = None) -> list[bool]:
    """Per column: does it take two values (a null counts as one) within some household?
    Each value is compared with the household's first member's (no hashing: O(n) per column)."""
    if not columns or df.height == 0:
        return [False] * len(columns)
    rep = _first_member(df, household, index)
    return [not df.get_column(c).eq_missing(df.get_column(c).gather(rep)).all() for c in columns]


def household_level_columns(df: pl.DataFrame, household: str, columns: Sequence[str] | None = None, *,
                            index: np.ndarray | None = None) -> list[str]:
    """The ``columns`` (default: every column but ``household``) that are constant within every
    household, a null counting as one value; in the order given. ``index``: the
    :func:`household_index` of ``df`` if already computed.

    >>> df = pl.DataFrame({"hh": [1, 1, 2], "size": [2, 2, 1], "age": [40, 9, 70], "inc": [None, None, 5.0]})
    >>> household_level_columns(df, "hh")
    ['size', 'inc']
    """
    cols = [c for c in df.columns if c != household] if columns is None else list(columns)
    return [c for c, v in zip(cols, _varying(df, household, cols, index)) if not v]


def check_household_level(df: pl.DataFrame, household: str, columns: Sequence[str]) -> None:
    """Raise :class:`SDCError` for the first of ``columns`` that is not constant within every
    household, naming the column, one household where it varies (the first in row order) and
    two of its values there.

    >>> df = pl.DataFrame({"hh": [1, 1, 2, 2], "size": [2, 2, 2, 3]})
    >>> check_household_level(df, "hh", ["size"])
    Traceback (most recent call last):
    ...
    polars_sdc._errors.SDCError: column 'size' is declared household-level but varies within household 2 of 'hh' (values 2 and 3)
    """
    for c, v in zip(columns, _varying(df, household, list(columns))):
        if not v:
            continue
        bad = (df.select(household, c).with_row_index("__row")
               .filter(pl.col(c).n_unique().over(household) > 1)
               .sort("__row"))
        hid = bad.item(0, household)
        vals = bad.filter(pl.col(household) == hid).get_column(c).unique(maintain_order=True).to_list()
        raise SDCError(f"column {c!r} is declared household-level but varies within household {hid!r} of "
                       f"{household!r} (values {vals[0]!r} and {vals[1]!r})")


def split_columns(df: pl.DataFrame, household: str, columns: Sequence[str],
                  declared: Sequence[str] | None = None, *, index: np.ndarray | None = None
                  ) -> tuple[list[str], list[str]]:
    """Split ``columns`` into (household-level, person-level), each in the given order.
    ``declared=None``: detected (constant within every household, :func:`household_level_columns`).
    ``declared`` a list (``household_columns=``, :func:`check_household_columns`): the
    ``columns`` it names are household-level, checked constant (:func:`check_household_level`,
    an :class:`SDCError` naming the column and a household where it varies), and every other
    column is person-level, constant or not; names not among ``columns`` are ignored.

    >>> df = pl.DataFrame({"hh": [1, 1, 2], "size": [2, 2, 1], "age": [40, 9, 70], "sex": [1, 1, 2]})
    >>> split_columns(df, "hh", ["age", "size", "sex"])
    (['size', 'sex'], ['age'])
    >>> split_columns(df, "hh", ["age", "size", "sex"], declared=["size"])   # sex: constant by accident
    (['size'], ['age', 'sex'])
    """
    columns = list(columns)
    if declared is None:
        detected = set(household_level_columns(df, household, columns, index=index))
        hh = [c for c in columns if c in detected]
    else:
        names = {declared} if isinstance(declared, str) else set(declared)
        hh = [c for c in columns if c in names]
        check_household_level(df, household, hh)
    return hh, [c for c in columns if c not in hh]


def collapse(
    df: pl.DataFrame,
    household: str,
    columns: Sequence[str],
    *,
    weight: str | None = None,
    household_weight: str | None = None,
    weight_agg: str = "first",
    check: bool = True,
    index: np.ndarray | None = None,
) -> pl.DataFrame:
    """One row per household, in order of first appearance: the ``household`` id, the
    household-level ``columns`` (checked constant within every household unless
    ``check=False``) and, if asked, a household weight:

    * ``household_weight=`` a column (checked household-level) taken as it is; or
    * ``weight=`` a person-weight column aggregated per household by ``weight_agg``:
      ``"first"`` (the first member's weight, as sdcMicro's ``selectHouseholdData`` keeps
      the first record of a household; right when the person weight is the household's design
      weight, as in EU-SILC where ``rb050`` equals ``db090``), ``"mean"`` or ``"sum"`` (the
      number of persons the household's members stand for).

    The weight column keeps its name (``household_weight`` or ``weight``). Row ``h`` of the
    result is household ``h`` of :func:`household_index` (``index``: that index, if already
    computed), so :func:`broadcast` maps it back.

    >>> df = pl.DataFrame({"hh": [5, 5, 2], "size": [2, 2, 1], "w": [10.0, 30.0, 7.0]})
    >>> collapse(df, "hh", ["size"], weight="w", weight_agg="sum").rows()
    [(5, 2, 40.0), (2, 1, 7.0)]
    >>> collapse(df, "hh", ["size"], weight="w").rows()
    [(5, 2, 10.0), (2, 1, 7.0)]
    """
    columns = list(columns)
    if weight_agg not in WEIGHT_AGGREGATIONS:
        raise SDCError(f"weight_agg must be one of {', '.join(map(repr, WEIGHT_AGGREGATIONS))}, got {weight_agg!r}")
    if household_weight is not None and weight is not None and household_weight != weight:
        raise SDCError("give either `weight` (person weights, aggregated per household) or `household_weight`, "
                       "not both")
    for c in columns + [w for w in (weight, household_weight) if w is not None]:
        if c not in df.columns:
            raise SDCError(f"column {c!r}: not in the frame")
    if weight is not None and household_weight is None and (weight in columns or weight == household):
        raise SDCError(f"column {weight!r}: both the person weight and a column to collapse")
    if check:
        check_household_level(df, household, columns + ([household_weight] if household_weight else []))
    idx = household_index(df, household)[0] if index is None else index
    n = int(idx.max()) + 1 if idx.size else 0
    first = np.full(n, idx.size, dtype=np.int64)
    np.minimum.at(first, idx, np.arange(idx.size, dtype=np.int64))   # ascending: households are numbered so
    keep = list(dict.fromkeys([household] + columns + [w for w in (household_weight,) if w is not None]))
    out = df.select(keep)[pl.Series(first)]                          # the first members, one per household
    if household_weight is None and weight is not None:
        w = df.get_column(weight)
        if weight_agg == "first":
            hw = w.gather(pl.Series(first))
        else:
            sums = np.bincount(idx, weights=w.cast(pl.Float64).to_numpy(), minlength=n)
            hw = pl.Series(weight, sums if weight_agg == "sum" else sums / np.bincount(idx, minlength=n))
        out = out.with_columns(hw.alias(weight))
    return out


def broadcast(df: pl.DataFrame, household: str, masked: pl.DataFrame, columns: Sequence[str],
              index: np.ndarray | None = None) -> pl.DataFrame:
    """``df`` with its ``columns`` replaced by the household rows of ``masked`` (one row per
    household in the order of :func:`collapse` / :func:`household_index`): every member gets
    its household's masked value. Row order and the other columns are kept; the replaced
    columns take ``masked``'s dtypes (a masking method may change them). ``index``: the
    :func:`household_index` of ``df`` if already computed.

    >>> df = pl.DataFrame({"hh": [5, 5, 2], "size": [2, 2, 1], "age": [40, 9, 70]})
    >>> hh = collapse(df, "hh", ["size"]).with_columns(pl.col("size") * 10)
    >>> broadcast(df, "hh", hh, ["size"]).rows()
    [(5, 20, 40), (5, 20, 9), (2, 10, 70)]
    """
    columns = list(columns)
    if not columns:
        return df
    if index is None:
        index, n = household_index(df, household)
    else:
        n = int(index.max()) + 1 if index.size else 0
    if masked.height != n:
        raise SDCError(f"household rows: {masked.height} given for {n} households of {household!r}")
    taken = masked.select(columns)[pl.Series(index)] if df.height else masked.select(columns).clear()
    return df.with_columns(taken.get_columns())


def _integral(s: pl.Series) -> bool:
    """A float column holding whole numbers only (nulls aside): an id read as floats."""
    x = s.drop_nulls()
    return x.len() > 0 and bool(x.is_finite().all()) and bool((x == x.floor()).all())


def warn_household_level(
    df: pl.DataFrame,
    columns: Sequence[str],
    *,
    method: str,
    exclude: Sequence[str] = (),
    max_size: int = 30,
    sample: int = 50_000,
    min_groups: int = 10,
    leak: str | None = None,
) -> None:
    """Warn (:class:`HouseholdWarning`) when a column of ``columns``, masked per person by
    ``method`` without ``household=``, is household-level in an evident household structure
    (``leak``: what goes wrong, when it is not a value left visible on a housemate's record).

    A column ``h`` of the frame (integer, String or Categorical, or float holding whole
    numbers; not masked, not in ``exclude``, no nulls) looks like a household id when its groups
    are small (mean size in [1.2, ``max_size``], no group above ``max_size`` rows) and many (at
    least ``min_groups``, half of them with two rows or more; a tiny frame shows no structure); a masked,
    non-constant column that is constant within every ``h`` group is then household-level, and
    masking it per person leaves the original value visible on an untouched housemate's record
    next to ``h``. The message names the columns, the id and what would leak. On a frame of more
    than ``sample`` rows the check looks at the whole groups of a hashed sample of ``h`` values
    (about ``sample`` rows), so it costs a hash per candidate column.

    >>> df = pl.DataFrame({"hh": [h // 2 for h in range(24)], "size": [2 + h // 12 for h in range(24)],
    ...                    "age": list(range(24))})
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     warn_household_level(df, ["size", "age"], method="suppress")
    >>> print(w[0].message)  # doctest: +ELLIPSIS
    suppress: column(s) 'size' are constant within every group of 'hh' (12 groups of 2..2 rows), which looks like a household id; ...
    """
    columns = list(columns)
    if df.height < 2 or not columns:
        return
    skip = set(columns) | set(exclude)
    cands = [c for c, t in df.schema.items() if c not in skip
             and (t.is_integer() or t == pl.String or isinstance(t, (pl.Categorical, pl.Enum))
                  or (t.is_float() and _integral(df.get_column(c))))]   # ids read as floats (1.0, 2.0, ...)
    if not cands:
        return
    # on a large frame, look at the whole groups of a sample of ids (about `sample` rows):
    # a warning is a heuristic, and it must cost little next to the masking itself
    step = max(1, df.height // sample)
    for h in cands:
        part = df if step == 1 else df.filter(pl.col(h).hash(seed=0) % step == 0)
        nulls, uniq, n = part.select(pl.col(h).null_count().alias("a"), pl.col(h).n_unique().alias("b"),
                                     pl.len().alias("c")).row(0)
        if nulls or n < 2 or not 1.2 <= n / uniq <= max_size:
            continue
        sizes = part.group_by(h).len().get_column("len")
        if sizes.max() > max_size or sizes.len() < min_groups or (sizes > 1).sum() < min_groups // 2:
            continue
        varying = part.select(pl.col(c).n_unique() > 1 for c in columns).row(0)
        level = household_level_columns(part, h, [c for c, v in zip(columns, varying) if v])
        if level:
            names = ", ".join(map(repr, level))
            warnings.warn(
                f"{method}: column(s) {names} are constant within every group of {h!r} ({sizes.len()} groups of "
                f"{sizes.min()}..{sizes.max()} rows{' in a sample' if step > 1 else ''}), which looks like a "
                f"household id; masked per person, "
                + (leak or f"a household's original value stays visible on every member whose row is left "
                           f"unchanged, next to the shared {h!r}")
                + f". Pass household={h!r} to mask it once per household for all members.",
                HouseholdWarning, stacklevel=3)
            return


#: :func:`warn_nearly_household_level` warns for a column varying within at most this share of households
NEARLY_SHARE = 0.05


def warn_nearly_household_level(df: pl.DataFrame, household: str, columns: Sequence[str], *,
                                index: np.ndarray | None = None, share: float = NEARLY_SHARE) -> None:
    """Warn (:class:`HouseholdWarning`) for each of ``columns`` that varies within some but at
    most ``share`` of the households: most likely a household-level column with a few
    inconsistent households, which ``household=`` masks per person (it is not constant) and
    so leaks in every other household. The message names the column, the count and one
    household; fix the data or declare the column (``household_columns=``, which raises
    naming the household; :func:`split_columns`).

    >>> import warnings
    >>> df = pl.DataFrame({"hh": [h for h in range(30) for _ in (0, 1)], "size": [2] * 59 + [3]})
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     warn_nearly_household_level(df, "hh", ["size"])
    >>> print(w[0].message)  # doctest: +ELLIPSIS
    column 'size' varies within 1 of 30 households of 'hh' (e.g. household 29) and is constant in the others: ...
    """
    columns = list(columns)
    if not columns or df.height == 0:
        return
    idx, n = household_index(df, household) if index is None else (index, int(index.max()) + 1)
    rep = _first_member(df, household, idx)
    for c in columns:
        col = df.get_column(c)
        diff = (~col.eq_missing(col.gather(rep))).to_numpy()
        bad = np.flatnonzero(np.bincount(idx[diff], minlength=n))
        if 0 < bad.size <= share * n:
            hid = df.get_column(household)[int(np.flatnonzero(diff)[0])]
            warn_varies_within_few(c, bad.size, n, household, hid, stacklevel=4)


def warn_varies_within_few(column: str, varying: int, households: int, household: str, example: Any, *,
                           stacklevel: int = 3) -> None:
    """The :class:`HouseholdWarning` of :func:`warn_nearly_household_level` for ``column``, which
    varies within ``varying`` of ``households`` households (``example``: one of them); the Spark
    port (:mod:`polars_sdc.spark.household`) warns with it too."""
    warnings.warn(
        f"column {column!r} varies within {varying} of {households} households of {household!r} (e.g. household "
        f"{example!r}) and is constant in the others: it is masked per person, so in the other households a "
        "member's original value stays visible next to a housemate's masked one. If it is household-level, fix "
        "those households (or declare it in household_columns= to get an error naming them).",
        HouseholdWarning, stacklevel=stacklevel)


def check_by_household_level(df: pl.DataFrame, household: str, by: Sequence[str]) -> None:
    """The ``by`` strata of a household-level column must not split a household: every ``by``
    column constant within every household, else :class:`SDCError` naming it.

    >>> check_by_household_level(pl.DataFrame({"hh": [1, 1], "r": ["a", "a"]}), "hh", ["r"])
    """
    for c, v in zip(by, _varying(df, household, list(by))):
        if v:
            raise SDCError(f"`by` column {c!r} varies within a household of {household!r}; a household-level "
                           "column is masked once per household, so its strata must not split a household")


def mask_by_household(
    df: pl.DataFrame,
    household: str | None,
    columns: Sequence[str],
    mask: Any,
    *,
    method: str,
    by: Sequence[str] = (),
    key: str | None = None,
    household_columns: Sequence[str] | None = None,
) -> pl.DataFrame:
    """The masking methods' one entry: with ``household``, :func:`mask_households` (the
    household-level columns detected, or declared by ``household_columns``); without,
    ``mask(df, columns, key)`` after a :class:`HouseholdWarning` for ``columns`` that are
    evidently household-level (:func:`warn_household_level`, naming ``method``).

    >>> df = pl.DataFrame({"hh": [1, 1, 2], "size": [2, 2, 1], "age": [40, 9, 70]})
    >>> plus = lambda f, cols, key: f.with_columns(pl.col(c) + f.height for c in cols)
    >>> mask_by_household(df, "hh", ["size"], plus, method="plus")["size"].to_list()
    [4, 4, 3]
    >>> mask_by_household(df, None, ["size"], plus, method="plus")["size"].to_list()
    [5, 5, 4]
    """
    if household is None:
        warn_household_level(df, list(columns), method=method, exclude=[*by, *([key] if key else [])])
        return mask(df, list(columns), key)
    return mask_households(df, household, columns, mask, by=by, key=key, declared=household_columns)


def mask_households(
    df: pl.DataFrame,
    household: str,
    columns: Sequence[str],
    mask: Any,
    *,
    by: Sequence[str] = (),
    key: str | None = None,
    declared: Sequence[str] | None = None,
    extra: Sequence[str] = (),
) -> pl.DataFrame:
    """Run a masking step ``mask(frame, cols, key) -> frame`` household-aware: the person-level
    ``columns`` on ``df`` as they are (``key`` as given), the household-level ones (detected, or
    ``declared``: ``household_columns=``, see :func:`split_columns`) once per household on :func:`collapse`'s frame
    (with the ``by`` and ``extra`` columns, which must be household-level too), then broadcast
    to every member. The household rows are keyed by their first-appearance position, or by the
    household id when the caller keys rows by a ``key`` column (so a household's draw does not
    depend on the row order either).

    >>> df = pl.DataFrame({"hh": [1, 1, 2], "size": [2, 2, 1], "age": [40, 9, 70]})
    >>> plus = lambda f, cols, key: f.with_columns(pl.col(c) + f.height for c in cols)
    >>> mask_households(df, "hh", ["size", "age"], plus).rows()   # size: + 2 households; age: + 3 persons
    [(1, 4, 43), (1, 4, 12), (2, 3, 73)]
    """
    idx, _ = household_index(df, household)
    hh, person = split_columns(df, household, columns, declared, index=idx)
    if declared is None:  # declared person-level: the caller said so
        warn_nearly_household_level(df, household, person, index=idx)
    out = mask(df, person, key) if person else df
    if hh:
        need = [c for c in dict.fromkeys(list(by) + list(extra)) if c not in hh and c != household]
        check_by_household_level(df, household, need)
        small = collapse(df, household, hh + need, check=False, index=idx)
        hkey = None
        if key is not None:     # keyed by the household id (any id dtype: its household_keys)
            hkey = household
            if not (small.schema[household].is_integer() or small.schema[household] == pl.String
                    or isinstance(small.schema[household], (pl.Categorical, pl.Enum))):
                hkey = "__sdc_household_key__"
                while hkey in small.columns:
                    hkey += "_"
                small = small.with_columns(pl.Series(hkey, household_keys(small.get_column(household)),
                                                     dtype=pl.UInt64))
        with household_rows():   # the errors of `mask` count households here
            masked = mask(small, hh, hkey)
        out = broadcast(out, household, masked, hh, index=idx)
    return out
