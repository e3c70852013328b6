"""Checks shared by every frequency count (records and households, local and Spark): one
message for a null, NaN, infinite or non-positive sampling weight, and the limit on keys with
missing values. A module of its own, below both counts, so neither imports the other for them."""
from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from .._errors import SDCError


def weight_error(weight: str, bad: int, low: int) -> SDCError | None:
    """The error for ``bad`` null, NaN or infinite and ``low`` (finite) <= 0 sampling weights
    in column ``weight`` (None when both are 0): one message for every frequency count, local
    (:func:`check_weights`) and Spark.

    >>> str(weight_error("w", 0, 2))
    "column 'w': 2 sampling weight(s) <= 0; weights must be > 0"
    """
    if bad:
        return SDCError(f"column {weight!r}: {bad} null, NaN or infinite value(s)")
    if low:
        return SDCError(f"column {weight!r}: {low} sampling weight(s) <= 0; weights must be > 0")
    return None


def check_weights(df: pl.DataFrame | pl.LazyFrame, weight: str) -> None:
    """Raise :class:`SDCError` unless every sampling weight is finite and > 0 (sdcMicro
    accepts any positive weight: calibrated weights can be below 1). On a LazyFrame this
    collects one aggregation of the weight column alone (two counts; one pass over that
    column, the other columns projected away).

    >>> check_weights(pl.DataFrame({"w": [1.0, None, float("nan"), -1.0]}), "w")
    Traceback (most recent call last):
    ...
    polars_sdc._errors.SDCError: column 'w': 2 null, NaN or infinite value(s)
    """
    w = pl.col(weight).cast(pl.Float64)
    bad = w.is_null() | w.is_nan() | w.is_infinite()
    counts = df.select(bad.sum().alias("bad"), (~bad & (w <= 0)).sum().alias("low"),
                       w.sum().is_infinite().alias("overflow"))
    n_bad, n_low, overflow = (counts.collect() if isinstance(counts, pl.LazyFrame) else counts).row(0)
    error = weight_error(weight, n_bad, n_low)
    if error is not None:
        raise error
    if overflow:   # every weight finite, their sum is not: Fk = inf
        raise weight_sum_error(weight)


def weight_sum_error(weight: str) -> SDCError:
    """The error for finite weights whose sum overflows float64 (an ``Fk`` of inf), local and Spark.

    >>> str(weight_sum_error("w"))
    "column 'w': the weights sum beyond float64's range (1.8e308); rescale them"
    """
    return SDCError(f"column {weight!r}: the weights sum beyond float64's range (1.8e308); rescale them")


MAX_MISSING_KEYS = 64   # a record's missing-value pattern is a 64-bit integer


def check_missing_keys(on: Sequence[str]) -> None:
    """More than 64 keys with a missing key value: the patterns would overflow (an SDCError;
    without missing values any number of keys is counted)."""
    if len(on) > MAX_MISSING_KEYS:
        raise SDCError(f"`on`: {len(on)} key columns with missing values; the missing-value rule handles at most "
                       f"{MAX_MISSING_KEYS} (fewer keys, or fill the missing values)")


def all_missing_is_wildcard(n_keys: int) -> bool:
    """Whether a record with *every* key missing raises the frequency of complete records
    (sdcMicro 5.8.1 ``freqCalc``): yes with one key (its single-key branch adds ``alpha`` x
    the missing records to every complete record), no with two or more (the multi-key branch
    runs with ``addAllNAtoKeys = FALSE``). Records with *some* keys missing always do, and an
    all-missing record itself always has ``fk = n``.

    >>> all_missing_is_wildcard(1), all_missing_is_wildcard(2)
    (True, False)
    """
    return n_keys == 1
