"""Structural nulls in the information-loss and utility measures (issue 24).

A null the data holds by design (a child's income) stays null in a release: every masking
method keeps the null pattern. The measures accept such nulls the way the release report
does: a null in the original must be null in the release at the same row (a changed pattern
is an error naming the column and the first row), and a measure is computed over the
non-null values -- per column (SSE/SST, like sdcMicro's ``dUtility`` IL1s with
``na.rm = TRUE``), per block of columns measured together (ILD), or over the records complete
in every measured column where a measure is not additive over columns. What was left out is
reported: :class:`Measured` (a float with ``.skipped``) or a ``skipped`` field of a report.
"""
from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from .._errors import SDCError


class Measured(float):
    """A measure's value (a plain ``float`` in every use) that also says how many null values
    of the measured columns it skipped (``.skipped``; 0 on data without nulls).

    >>> m = Measured(0.25, skipped=3)
    >>> m, m.skipped, m + 1
    (0.25, 3, 1.25)
    """

    skipped: int

    def __new__(cls, value: float, skipped: int = 0) -> Measured:
        obj = super().__new__(cls, value)
        obj.skipped = int(skipped)
        return obj

    def __reduce__(self):  # pickles (and copies) with its count
        return (Measured, (float(self), self.skipped))


def null_counts(frame: pl.DataFrame, cols: Sequence[str]) -> dict[str, int]:
    """The number of nulls of each of ``cols``.

    >>> null_counts(pl.DataFrame({"a": [1, None], "b": [1, 2]}), ["a", "b"])
    {'a': 1, 'b': 0}
    """
    if not cols:
        return {}
    return dict(zip(cols, frame.select(pl.col(c).null_count() for c in cols).row(0)))


def check_null_pattern(original: pl.DataFrame, released: pl.DataFrame, cols: Sequence[str]) -> dict[str, int]:
    """Raise :class:`SDCError` naming the column and the first row (0-based) where the release
    has a null the original has not, or a value where the original has a null; returns the
    null counts of the original's ``cols`` (the values a measure skips).

    >>> o = pl.DataFrame({"x": [1.0, None, 3.0]})
    >>> check_null_pattern(o, pl.DataFrame({"x": [1.5, None, 2.5]}), ["x"])
    {'x': 1}
    >>> check_null_pattern(o, pl.DataFrame({"x": [1.5, 2.0, 2.5]}), ["x"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    polars_sdc._errors.SDCError: column 'x': row 1 is null in the original but not in the release; ...
    """
    counts = null_counts(original, cols)
    released_counts = null_counts(released, cols)
    for c in cols:
        if not counts[c] and not released_counts[c]:
            continue
        a = original.get_column(c).is_null()
        b = released.get_column(c).is_null()
        changed = (a != b).arg_true()
        if changed.len():
            i = int(changed[0])
            raise null_pattern_error(c, f"row {i}", bool(a[i]))
    return counts


def null_pattern_error(column: str, row: str, null_in_original: bool) -> SDCError:
    """The error of a release whose null pattern differs from the original's at ``row`` (a
    position locally, a key value on Spark) of ``column``.

    >>> str(null_pattern_error("x", "the row with key 'id' = 7", False))  # doctest: +ELLIPSIS
    "column 'x': the row with key 'id' = 7 is null in the release but not in the original; ..."
    """
    what = "null in the original but not in the release" if null_in_original else "null in the release but not in the original"
    return SDCError(
        f"column {column!r}: {row} is {what}; the measures skip structural nulls, which a release keeps "
        f"where they are (a suppressed value is not a structural null: measure the suppression with "
        f"the release report)"
    )
