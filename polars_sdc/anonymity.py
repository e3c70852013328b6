"""How a user checks a release: equivalence classes and the k of k-anonymity."""
from __future__ import annotations

import polars as pl

from ._columns import ColumnSpec, resolve_columns
from ._errors import SDCError
from ._signature import check_keywords, deprecated


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


@check_keywords
@deprecated(positional=("alpha", "suppressed_as"))
def equivalence_classes(df: pl.DataFrame, on: ColumnSpec = None, *, alpha: float = 1.0,
                        suppressed_as: str | None = None) -> pl.DataFrame:
    """Every distinct combination of the ``on`` values with its row count (column
    ``count``), smallest classes first (ties in the order the classes first appear).

    With missing key values the count is the combination's ``fk`` under sdcMicro's rule (a
    missing value matches any value, weighted by ``alpha``; :mod:`polars_sdc.risk.frequencies`),
    so the classes agree with ``frequencies`` after local suppression; ``count`` is Float64
    when ``alpha`` is strictly between 0 and 1. ``suppressed_as``: the label of a generalised
    release's suppressed records (``"*"``), read as every key missing (see :func:`k_anonymity`).

    >>> import polars as pl
    >>> equivalence_classes(pl.DataFrame({"a": [1, 1, 2]}), "a").rows()
    [(2, 1), (1, 2)]
    """
    on = quasi_identifier_columns(df, on)
    name = "count"
    while name in on:
        name = "_" + name
    from .risk.frequencies import check_alpha

    alpha = check_alpha(alpha)
    dtype = pl.UInt32 if alpha in (0, 1) else pl.Float64
    from .risk.suppressed import frequency_keys

    df, counted = frequency_keys(df, on, suppressed_as)
    if _has_missing(df, on):
        from .risk.frequencies import frequencies

        fk, _ = frequencies(df, counted, None, alpha)
        return (
            df.select(on)
            .with_columns(pl.Series(name, fk).cast(dtype))
            .unique(on, keep="first", maintain_order=True)
            .sort(name, maintain_order=True)
        )
    return (
        df.group_by(on, maintain_order=True)
        .agg(pl.len().cast(dtype).alias(name))
        .sort(name, maintain_order=True)
    )


@check_keywords
@deprecated(positional=("alpha", "household", "suppressed_as"))
def k_anonymity(df: pl.DataFrame, on: ColumnSpec = None, *, alpha: float = 1.0, household: str | None = None,
                suppressed_as: str | None = None) -> int:
    """Size of the smallest equivalence class on ``on``: the release is k-anonymous for
    every k up to this number (0 for an empty frame). With missing key values: the smallest
    ``fk`` under sdcMicro's wildcard rule with weight ``alpha`` (see :func:`equivalence_classes`).
    With ``household`` (the household id column): classes count distinct households, not
    records (:mod:`polars_sdc.risk.household_frequencies`). ``suppressed_as``: in a release of
    ``generalize``, the label its suppressed records carry in every key (``"*"``): such a record
    is read as every key missing (sdcMicro's wildcard); by default (None) every value is read
    as written, so a file where ``"*"`` is a genuine code is counted literally.

    >>> import polars as pl
    >>> k_anonymity(pl.DataFrame({"a": [1, 1, 2, 2, 2]}), "a")
    2
    >>> star = pl.DataFrame({"a": ["x", "x", "*"], "b": ["u", "u", "*"]})
    >>> k_anonymity(star, ["a", "b"]), k_anonymity(star, ["a", "b"], suppressed_as="*")
    (1, 2)
    >>> k_anonymity(pl.DataFrame({"a": [1, 1, 2, 2, 2], "hh": [1, 1, 2, 3, 3]}), "a", household="hh")
    1
    """
    if household is not None and on is None:
        on = [c for c in df.columns if c != household]
    on = quasi_identifier_columns(df, on)
    from .risk.frequencies import check_alpha

    alpha = check_alpha(alpha)
    if df.height == 0:
        return 0
    from .risk.suppressed import frequency_keys

    df, counted = frequency_keys(df, on, suppressed_as)  # a generalised release's suppressed records: keys missing
    if household is not None:
        from .household import check_household_column
        from .risk.household_frequencies import household_frequencies

        check_household_column(df.schema, household, on, what="household")
        m = float(household_frequencies(df, counted, household, None, alpha)[0].min())
        return int(m)
    if _has_missing(df, on):
        from .risk.frequencies import frequencies

        m = float(frequencies(df, counted, None, alpha)[0].min())
        return int(m) if m.is_integer() else m  # type: ignore[return-value]
    return int(df.group_by(on).len()["len"].min())


def _has_missing(df: pl.DataFrame, on: list[str]) -> bool:
    if df.height == 0:
        return False
    checks = [pl.col(c).is_null().any().alias(f"n{i}") for i, c in enumerate(on)]
    checks += [pl.col(c).is_nan().any().alias(f"f{i}") for i, c in enumerate(on) if df.schema[c].is_float()]
    return any(df.select(checks).row(0))
