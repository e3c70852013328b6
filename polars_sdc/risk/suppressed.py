"""The records a generalised release suppressed (ARX's ``"*"``), read as records with every
key missing — but only when the caller says the frame is such a release: the risk measures
take ``suppressed_as`` (default None: every value is read as written, so a file where ``"*"``
is a genuine code, e.g. "not applicable", is counted literally). ``df.sdc.generalize``'s
release, a problem after a ``generalize`` step, its sign-off report and ``polars-sdc
generalize`` / ``run`` pass the generalisation's own ``suppressed_as`` (``"*"`` by default);
``polars-sdc risk`` / ``report`` take ``--suppressed-as``. The one rule every frequency count
then applies (:mod:`polars_sdc.risk.frequencies`, :mod:`polars_sdc.risk.household_frequencies`,
SUDA, ``k_anonymity``, the report)."""
from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from .._errors import SDCError

#: the quasi-identifier value of a record suppressed by full-domain generalisation (ARX's output)
SUPPRESSED_LABEL = "*"


def check_suppressed_as(value: object) -> str | None:
    """``suppressed_as``: None (read every value as written) or the non-empty label a
    generalisation gave its suppressed records' keys.

    >>> check_suppressed_as("*"), check_suppressed_as(None)
    ('*', None)
    >>> check_suppressed_as("")
    Traceback (most recent call last):
    ...
    polars_sdc._errors.SDCError: suppressed_as must be None (values read as written) or the label of a generalised release's suppressed records (e.g. '*'); got ''
    """
    if value is None or (isinstance(value, str) and value):
        return value
    raise SDCError("suppressed_as must be None (values read as written) or the label of a generalised release's "
                   f"suppressed records (e.g. '*'); got {value!r}")


def suppressed_as_missing(df: pl.DataFrame, on: Sequence[str], suppressed_as: str | None = None) -> pl.DataFrame:
    """``df`` with the keys of every record whose keys are **all** ``suppressed_as`` set to
    null: a record suppressed by ARX-style generalisation (``df.sdc.generalize``, or ARX's own
    output) is read as sdcMicro reads a record after local suppression, every key missing (a
    wildcard that matches every record: its ``fk`` is n and, with two or more keys, it does not
    raise the frequency of the others). A label in only some keys is a value (a hierarchy's top
    label, shared by every record at that level). With ``suppressed_as=None`` (a file not
    released by a generalisation), and for frames without such a record, ``df`` as it is.

    >>> d = pl.DataFrame({"a": ["x", "x", "*"], "b": ["u", "u", "*"]})
    >>> suppressed_as_missing(d, ["a", "b"], "*").rows()
    [('x', 'u'), ('x', 'u'), (None, None)]
    >>> suppressed_as_missing(d, ["a", "b"]).rows()[2]        # not a generalised release: a value
    ('*', '*')
    """
    mask = suppressed_rows(df, on, suppressed_as)
    if mask is None:
        return df
    return df.with_columns(pl.when(mask).then(None).otherwise(pl.col(c)).alias(c) for c in on)


def suppressed_rows(df: pl.DataFrame, on: Sequence[str], suppressed_as: str | None = None) -> pl.Series | None:
    """Boolean per row: every key of ``on`` is ``suppressed_as`` (the records a generalisation
    suppressed, :func:`suppressed_as_missing`); None when there is none (or no label, or a key
    whose dtype cannot hold the label).

    >>> suppressed_rows(pl.DataFrame({"a": ["x", "*"], "b": ["*", "*"]}), ["a", "b"], "*").to_list()
    [False, True]
    """
    label = check_suppressed_as(suppressed_as)
    if label is None or df.height == 0 or not on:
        return None
    tests = []
    for c in on:
        dtype = df.schema[c]
        if dtype == pl.String:
            tests.append(pl.col(c) == label)
        elif isinstance(dtype, pl.Enum):
            if label not in dtype.categories.to_list():
                return None
            tests.append(pl.col(c) == label)
        elif isinstance(dtype, pl.Categorical):
            tests.append(pl.col(c).cast(pl.String) == label)
        else:
            return None
    if not df.select(tests[0].fill_null(False).any()).item():  # the usual frame: one cheap pass, no label
        return None
    mask = df.select(pl.all_horizontal(tests).fill_null(False).alias("_m")).to_series()
    return mask if mask.any() else None
