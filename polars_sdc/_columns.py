"""Column selection and validation shared by every method.

Columns are chosen by name, list of names, or Polars selector; every problem raises
:class:`SDCError` naming the column.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import polars as pl

from ._errors import SDCError
from ._typing import ColumnSpec
from ._validation import check_int

if TYPE_CHECKING:
    import numpy as np


def _schema_of(frame: pl.DataFrame | pl.LazyFrame | Mapping[str, pl.DataType]) -> pl.Schema:
    if isinstance(frame, pl.DataFrame):
        return frame.schema
    if isinstance(frame, pl.LazyFrame):
        return frame.collect_schema()
    return pl.Schema(frame)


def closest_name(name: str, names: Iterable[str]) -> str | None:
    """The column name ``name`` was most likely meant to be: the same name up to case, else
    the closest by ``difflib`` (ratio >= 0.6), else None.

    >>> closest_name("Age", ["age", "sex"]), closest_name("incme", ["income", "age"]), closest_name("zz", ["age"])
    ('age', 'income', None)
    """
    import difflib

    names = list(names)
    folded = [c for c in names if c.casefold() == name.casefold()]
    if folded:
        return folded[0]
    close = difflib.get_close_matches(name, names, n=1, cutoff=0.6)
    if not close:
        lower = {c.casefold(): c for c in names}
        close = [lower[c] for c in difflib.get_close_matches(name.casefold(), list(lower), n=1, cutoff=0.6)]
    return close[0] if close else None


def did_you_mean(name: str, names: Iterable[str]) -> str:
    """``"; did you mean 'age'?"`` for the closest of ``names`` (:func:`closest_name`), or ``""``."""
    guess = closest_name(name, names)
    return f"; did you mean {guess!r}?" if guess is not None else ""


def unknown_column(name: str, names: Iterable[str], *, label: str = "column", where: str = "the frame",
                   list_them: bool = True) -> SDCError:
    """The error for a column ``name`` that is not among ``names``, suggesting the closest.

    >>> print(unknown_column("Age", ["age", "sex"]))
    column 'Age': not in the frame; did you mean 'age'? (columns: age, sex)
    """
    names = list(names)
    hint = did_you_mean(name, names)
    listed = f" (columns: {', '.join(names)})" if list_them else ""
    return SDCError(f"{label} {name!r}: not in {where}{hint}{listed}")


def is_numeric(dtype: pl.DataType) -> bool:
    return dtype.is_numeric() or dtype == pl.Boolean


def is_categorical(dtype: pl.DataType) -> bool:
    return isinstance(dtype, (pl.Categorical, pl.Enum)) or dtype == pl.String


def resolve_columns(
    frame: pl.DataFrame | pl.LazyFrame | Mapping[str, pl.DataType],
    on: ColumnSpec,
    *,
    kind: str = "any",
    what: str = "on",
    default: str = "all",
) -> list[str]:
    """Turn ``on`` (name, names, or selector) into a list of existing column names.

    ``kind`` is ``"numeric"``, ``"categorical"``, ``"supported"`` (numeric or categorical)
    or ``"any"``; a column of another kind raises :class:`SDCError`. ``on=None`` means all
    columns (``default="all"``), all numeric columns (``default="numeric"``) or is an error
    (``default="error"``).

    >>> import polars as pl, polars.selectors as cs
    >>> resolve_columns(pl.DataFrame({"a": [1], "b": ["x"]}), cs.numeric())
    ['a']
    """
    schema = _schema_of(frame)
    if on is None:
        if default == "error":
            raise SDCError(f"`{what}`: no columns given")
        names = [c for c, t in schema.items() if default == "all" or is_numeric(t)]
    elif isinstance(on, str):
        names = [on]
    elif isinstance(on, pl.Expr):
        import polars.selectors as cs

        if not cs.is_selector(on):
            raise SDCError(f"`{what}`: expected column names or a Polars selector, got an expression")
        names = list(cs.expand_selector(schema, on))
    elif isinstance(on, Iterable):
        names = []
        for c in on:
            if not isinstance(c, str):
                raise SDCError(f"`{what}`: column names must be strings, got {c!r}")
            names.append(c)
    else:
        raise SDCError(f"`{what}`: expected column names or a Polars selector, got {type(on).__name__}")
    if not names:
        raise SDCError(f"`{what}`: the selection matches no column")
    seen: set[str] = set()
    for c in names:
        if c not in schema:
            raise unknown_column(c, schema.names())
        if c in seen:
            raise SDCError(f"column {c!r}: selected twice in `{what}`")
        seen.add(c)
        dtype = schema[c]
        if kind == "numeric" and not is_numeric(dtype):
            raise SDCError(f"column {c!r}: dtype {dtype} is not numeric; a numeric column is needed here")
        if kind == "categorical" and not is_categorical(dtype):
            raise SDCError(f"column {c!r}: dtype {dtype} is not String, Categorical or Enum")
        if kind == "supported" and not (is_numeric(dtype) or is_categorical(dtype)):
            raise SDCError(f"column {c!r}: dtype {dtype} is neither numeric nor String/Categorical/Enum")
    return names


def check_no_nulls(df: pl.DataFrame, columns: Sequence[str]) -> None:
    """Raise :class:`SDCError` naming the first column of ``columns`` that holds nulls."""
    if not columns:
        return
    counts = df.select(pl.col(c).null_count() for c in columns).row(0)
    for c, n in zip(columns, counts):
        if n:
            raise null_error(c, n)


def null_error(column: str, nulls: int) -> SDCError:
    """The one message (:func:`check_no_nulls`; Spark's checks) for ``nulls`` null values in
    a ``column`` that must be complete."""
    return SDCError(f"column {column!r}: {nulls} null value(s); fill or drop them before masking")


def check_finite(df: pl.DataFrame, columns: Sequence[str], *, nulls: bool = False) -> None:
    """Raise :class:`SDCError` for nulls (unless ``nulls=True``: structural nulls are kept by
    the caller), NaN or +-inf in the numeric ``columns``."""
    if not nulls:
        check_no_nulls(df, columns)
    floats = [c for c in columns if df.schema[c].is_float()]
    if not floats:
        return
    row = df.select(
        *(pl.col(c).is_nan().sum().alias(f"nan{i}") for i, c in enumerate(floats)),
        *(pl.col(c).is_infinite().sum().alias(f"inf{i}") for i, c in enumerate(floats)),
    ).row(0)
    m = len(floats)
    for i, c in enumerate(floats):
        error = nonfinite_error(c, row[i], row[m + i])
        if error is not None:
            raise error


def nonfinite_error(column: str, nan: int, inf: int) -> SDCError | None:
    """The one message (:func:`check_finite`; Spark's checks, ``ilssdm``) for ``nan`` NaN and ``inf``
    infinite values in a numeric ``column`` (NaN named first), or None when both are 0."""
    if nan:
        return SDCError(f"column {column!r}: {nan} NaN value(s); a finite number is needed in every row")
    if inf:
        return SDCError(f"column {column!r}: {inf} infinite value(s); a finite number is needed in every row")
    return None


def numeric_matrix(df: pl.DataFrame, columns: Sequence[str]) -> "np.ndarray":
    """The ``columns`` as a C-contiguous float64 array of shape (n, p), after validation."""
    import numpy as np

    resolve_columns(df, list(columns), kind="numeric")
    check_finite(df, columns)
    out = np.empty((df.height, len(columns)), dtype=np.float64)
    for j, c in enumerate(columns):
        out[:, j] = df.get_column(c).cast(pl.Float64).to_numpy()
    return out


def check_k(k: Any, n: int, *, where: str = "") -> int:
    """Validate the group size ``k`` against ``n`` rows; returns it as int."""
    k = check_int(k, "k", minimum=1)
    if k > n:
        from .household import row_unit   # "households" on one row per household

        raise SDCError(f"k = {k} is larger than the number of {row_unit(True)} ({n}){where}")
    return k
