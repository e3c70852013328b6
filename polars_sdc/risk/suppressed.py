"""The records a generalised release suppressed (ARX's ``"*"``), read as records with every
key missing — the one rule every frequency count applies (:mod:`polars_sdc.risk.frequencies`,
:mod:`polars_sdc.risk.household_frequencies`, SUDA, ``k_anonymity``, the report)."""
from __future__ import annotations

from collections.abc import Sequence

import polars as pl

#: the quasi-identifier value of a record suppressed by full-domain generalisation (ARX's output)
SUPPRESSED_LABEL = "*"


def suppressed_as_missing(df: pl.DataFrame, on: Sequence[str]) -> pl.DataFrame:
    """``df`` with the keys of every record whose keys are **all** ``"*"`` set to null: a
    record suppressed by ARX-style generalisation (``df.sdc.generalize``, or ARX's own output)
    is read as sdcMicro reads a record after local suppression, every key missing (a wildcard
    that matches every record: its ``fk`` is n and, with two or more keys, it does not raise
    the frequency of the others). A ``"*"`` in only some keys is a value (a hierarchy's top
    label, shared by every record at that level). Other frames are returned as they are.

    >>> d = pl.DataFrame({"a": ["x", "x", "*"], "b": ["u", "u", "*"]})
    >>> suppressed_as_missing(d, ["a", "b"]).rows()
    [('x', 'u'), ('x', 'u'), (None, None)]
    """
    if df.height == 0 or not on:
        return df
    tests = []
    for c in on:
        dtype = df.schema[c]
        if dtype == pl.String:
            tests.append(pl.col(c) == SUPPRESSED_LABEL)
        elif isinstance(dtype, pl.Enum):
            if SUPPRESSED_LABEL not in dtype.categories.to_list():
                return df
            tests.append(pl.col(c) == SUPPRESSED_LABEL)
        elif isinstance(dtype, pl.Categorical):
            tests.append(pl.col(c).cast(pl.String) == SUPPRESSED_LABEL)
        else:
            return df
    if not df.select(tests[0].fill_null(False).any()).item():  # the usual frame: one cheap pass, no "*"
        return df
    mask = df.select(pl.all_horizontal(tests).fill_null(False).alias("_m")).to_series()
    if not mask.any():
        return df
    return df.with_columns(pl.when(mask).then(None).otherwise(pl.col(c)).alias(c) for c in on)
