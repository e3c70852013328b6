"""How a user checks a release: equivalence classes and the k of k-anonymity."""
from __future__ import annotations

import polars as pl

from ._columns import ColumnSpec, resolve_columns
from ._errors import SDCError


def quasi_identifier_columns(frame, on: ColumnSpec) -> list[str]:
    """``on`` as column names; ``on=None`` is an error: the classes over every column (an id,
    a weight, a free-text field...) say nothing about the release's quasi-identifiers.

    >>> quasi_identifier_columns(pl.DataFrame({"a": [1]}), None)
    Traceback (most recent call last):
    ...
    polars_sdc._errors.SDCError: `on`: name the quasi-identifier columns to check (e.g. on=["age", "zip"]); every column together would give 1 on almost any real file
    """
    if on is None:
        raise SDCError(
            '`on`: name the quasi-identifier columns to check (e.g. on=["age", "zip"]); '
            "every column together would give 1 on almost any real file"
        )
    return resolve_columns(frame, on)


def equivalence_classes(df: pl.DataFrame, on: ColumnSpec = None) -> pl.DataFrame:
    """Every distinct combination of the ``on`` values with its row count (column
    ``count``), smallest classes first (ties in the order the classes first appear).

    >>> import polars as pl
    >>> equivalence_classes(pl.DataFrame({"a": [1, 1, 2]}), "a").rows()
    [(2, 1), (1, 2)]
    """
    on = quasi_identifier_columns(df, on)
    name = "count"
    while name in on:
        name = "_" + name
    return (
        df.group_by(on, maintain_order=True)
        .agg(pl.len().cast(pl.UInt32).alias(name))
        .sort(name, maintain_order=True)
    )


def k_anonymity(df: pl.DataFrame, on: ColumnSpec = None) -> int:
    """Size of the smallest equivalence class on ``on``: the release is k-anonymous for
    every k up to this number (0 for an empty frame).

    >>> import polars as pl
    >>> k_anonymity(pl.DataFrame({"a": [1, 1, 2, 2, 2]}), "a")
    2
    """
    on = quasi_identifier_columns(df, on)
    if df.height == 0:
        return 0
    return int(df.group_by(on).len()["len"].min())
