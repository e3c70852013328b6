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
from typing import Any

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
    raise the frequency of the others; with one key the frequency counts use
    :func:`frequency_keys`, which keeps that so). A label in only some keys is a value (a hierarchy's top
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


#: the helper key of a one-key generalised release's frequencies (:func:`frequency_keys`)
GENERALISED_KEY = "__sdc_generalised"


def frequency_keys(df: pl.DataFrame, on: Sequence[str], suppressed_as: str | None = None
                   ) -> tuple[pl.DataFrame, list[str]]:
    """``df`` with a generalised release's suppressed records read as every key missing
    (:func:`suppressed_as_missing`), and the keys to count frequencies on (sdcMicro's
    ``freqCalc`` rule, :mod:`polars_sdc.risk.frequencies`). Full-domain generalisation suppresses
    whole classes: no suppressed record holds a kept record's combination, so such a record
    never raises a complete record's frequency. With two or more keys that is sdcMicro's rule
    for a record with every key missing (``addAllNAtoKeys = FALSE``); with ONE key its
    single-key branch would add every suppressed record to every kept class (classes of 3
    read as 6-anonymous), so a second, helper key is added: 0 on the other records, null on
    the suppressed ones, which then have every key missing among two keys. A null of the one
    key (a later step's suppression, a structural null) still raises every value by ``alpha``,
    and is read as a record with some keys missing: it counts every kept record and the
    suppressed ones by ``alpha`` (n at ``alpha = 1``, as sdcMicro's).

    >>> d = pl.DataFrame({"a": ["x", "x", "*"]})
    >>> f, keys = frequency_keys(d, ["a"], "*")
    >>> keys, f.rows()
    (['a', '__sdc_generalised'], [('x', 0), ('x', 0), (None, None)])
    """
    mask = suppressed_rows(df, on, suppressed_as)
    if mask is None:
        return df, list(on)
    out = df.with_columns(pl.when(mask).then(None).otherwise(pl.col(c)).alias(c) for c in on)
    if len(on) != 1:
        return out, list(on)
    name = GENERALISED_KEY
    while name in df.columns:
        name = "_" + name
    helper = pl.when(mask).then(None).otherwise(pl.lit(0, dtype=pl.UInt8)).alias(name)
    return out.with_columns(helper), [*on, name]


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


def _label_mask(df: pl.DataFrame, column: str, label: str) -> pl.Series | None:
    """Boolean per row: ``column`` holds ``label`` (None for a dtype that cannot hold it)."""
    dtype = df.schema[column]
    if dtype == pl.String or isinstance(dtype, pl.Enum):
        if isinstance(dtype, pl.Enum) and label not in dtype.categories.to_list():
            return None
        return df.select((pl.col(column) == label).fill_null(False)).to_series()
    if isinstance(dtype, pl.Categorical):
        return df.select((pl.col(column).cast(pl.String) == label).fill_null(False)).to_series()
    return None


def keep_suppressed(df: pl.DataFrame, columns: Sequence[str], suppressed_as: str | None, run: Any, *,
                    whole_records: bool = False) -> pl.DataFrame:
    """``run(frame)`` (a masking step on ``columns``) on a generalised release, its suppression
    label neither read nor written: the label is made null in ``columns`` before the step (an
    Enum's category set loses it, so no draw or merge can reach it) and put back after, so a
    suppressed record stays suppressed and no released record becomes one. ``whole_records``:
    only the records whose every column of ``columns`` is the label (the wildcards of
    :func:`suppressed_as_missing`, e.g. for a step that counts key combinations); otherwise
    every label value (e.g. PRAM: the label is never a source nor a target). Without a label
    (``suppressed_as=None``): ``run(df)``.

    >>> d = pl.DataFrame({"a": ["x", "*", "y"]})
    >>> keep_suppressed(d, ["a"], "*", lambda f: f.with_columns(pl.col("a").fill_null("new"))).rows()
    [('x',), ('*',), ('y',)]
    """
    label = check_suppressed_as(suppressed_as)
    if label is None:
        return run(df)
    masks: dict[str, pl.Series] = {}
    if whole_records:
        m = suppressed_rows(df, columns, label)
        masks = {c: m for c in columns} if m is not None else {}
    else:
        for c in columns:
            m = _label_mask(df, c, label)
            if m is not None:
                masks[c] = m
    if not masks:
        return run(df)
    work = []
    for c, m in masks.items():
        e = pl.when(m).then(None).otherwise(pl.col(c))
        dtype = df.schema[c]
        if isinstance(dtype, pl.Enum):
            e = e.cast(pl.String).cast(pl.Enum([v for v in dtype.categories.to_list() if v != label]))
        work.append(e.alias(c))
    out = run(df.with_columns(work))
    back = []
    for c, m in masks.items():
        dtype, now = df.schema[c], out.schema[c]
        target = now
        if isinstance(now, pl.Enum) and label not in now.categories.to_list():
            cats = now.categories.to_list()
            in_input = isinstance(dtype, pl.Enum) and set(cats) <= set(dtype.categories.to_list())
            target = dtype if in_input else pl.Enum([*cats, label])   # the input's category set, else + label
        value = pl.col(c).cast(pl.String).cast(target) if target != now else pl.col(c)
        label_value = pl.lit(label).cast(pl.String).cast(target)
        back.append(pl.when(m).then(label_value).otherwise(value).alias(c))
    return out.with_columns(back)
