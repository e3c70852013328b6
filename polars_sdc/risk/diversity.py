"""l-diversity and t-closeness of the sensitive values inside each equivalence class.

Equivalence class: the records sharing a combination of key values; here a **missing key
value is its own value** (sdcMicro ``src/Measure_Risk.h`` compares the missing code like any
other code).

**l-diversity** (Machanavajjhala et al. 2007, as sdcMicro 5.8.1 ``ldiversity`` computes it),
per class, with r_1 >= r_2 >= ... >= r_m the counts of the distinct non-missing sensitive
values and n the class size:

- ``distinct``: m, plus 1 when the class also holds missing sensitive values (missing is its
  own value); a class whose sensitive values are all missing has 0.
- ``entropy``: ``l = exp(-sum p ln p)`` over the same categories (``p = count / n``); 1 when
  every value is missing.
- ``recursive`` (c, l): the largest l in 2..m with ``r_1 < c (r_l + ... + r_m)``, 1 when there
  is none (missing sensitive values are not counted; 0 for an all-missing class).

**Where this differs from sdcMicro: missing sensitive values.** Without missing sensitive values
the three l's are sdcMicro's. With them, sdcMicro's ``ldiversity`` gives a different (inflated)
number, by a bug we do not copy: R hands its ``NA`` to the C++ as NaN, and the C++ recognises a
missing value only by equality with its missing code (``missing = -999``, ``SF_IsMissing`` in
``src/Framework.h``); NaN equals neither -999 nor itself, so ``add_var_cat_value`` opens a
*new category for every record* with a missing sensitive value. A class with m distinct
values and j missing ones gets distinct l = m + j there (and j singleton categories in the
entropy): j unanswered questions would count as j different secrets, overstating the
protection. Here missing is one value of its own (m + 1), which is what sdcMicro intends by its
missing code.

**t-closeness** (Li, Li & Venkatasubramanian 2007): the Earth Mover's Distance between the
class's distribution P of the sensitive value and the whole table's Q. Ordered distance
(numeric and Enum sensitive columns, or ``ordered=True``): with the m distinct values of the
table sorted (an Enum in its declared order, a Categorical as its strings),
``EMD = 1/(m-1) sum_i |sum_{j<=i} (q_j - p_j)|`` (0 when m = 1); equal distance
(String, Categorical, Boolean, or ``ordered=False``): ``EMD = 1/2 sum_v |q_v - p_v|``. A
missing sensitive value is its own value (ranked after every other value when ordered). The
table is t-close for every t >= the largest class EMD.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl

from .._columns import ColumnSpec, resolve_columns
from .._errors import SDCError
from .._validation import check_real
from .frequencies import key_codes, key_columns

KINDS = ("distinct", "entropy", "recursive")


def sensitive_columns(schema, on: Sequence[str], sensitive: ColumnSpec) -> list[str]:
    """Resolve ``sensitive`` (one or more columns, none of them a key): numeric, Boolean,
    String, Categorical, Enum or temporal (a date of diagnosis), as the keys."""
    from .._columns import _schema_of

    cols = resolve_columns(schema, sensitive, kind="any", what="sensitive", default="error")
    types = _schema_of(schema)
    for c in cols:
        check_sensitive_dtype(c, types[c])
        if c in on:
            raise SDCError(f"column {c!r}: is both a key (`on`) and a sensitive column")
    return cols


def check_sensitive_dtype(column: str, dtype: pl.DataType) -> None:
    """A sensitive column must have values l-diversity and t-closeness can compare: numeric,
    Boolean, String, Categorical, Enum or temporal (:class:`SDCError` naming it otherwise; the
    check of ``generalize``'s ``sensitive`` too, so a release is never made that its sign-off
    cannot measure).

    >>> check_sensitive_dtype("s", pl.List(pl.Int64))
    Traceback (most recent call last):
    ...
    polars_sdc._errors.SDCError: column 's': dtype List(Int64) cannot be a sensitive column; use numeric, String, Categorical, Enum or temporal columns
    """
    from .._columns import is_categorical, is_numeric

    if not (is_numeric(dtype) or is_categorical(dtype) or dtype.is_temporal()):
        raise SDCError(f"column {column!r}: dtype {dtype} cannot be a sensitive column; use numeric, String, "
                       "Categorical, Enum or temporal columns")


def _class_ids(df: pl.DataFrame, on: Sequence[str]) -> np.ndarray:
    codes = key_codes(df, on)
    # missing key values are their own value: null groups with null
    ids = codes.select(pl.struct(on).rank("dense").cast(pl.Int64) - 1).to_series()
    return ids.to_numpy()


def _released(df: pl.DataFrame, on: Sequence[str], suppressed_as: str | None) -> np.ndarray | None:
    """Boolean per record: in a released class, i.e. not a generalisation's suppressed record
    (every key ``suppressed_as``); None when every record is."""
    from .suppressed import suppressed_rows

    starred = suppressed_rows(df, on, suppressed_as)
    return None if starred is None else ~starred.to_numpy()


def l_diversity_values(
    df: pl.DataFrame, on: ColumnSpec, sensitive: str, kind: str = "distinct", c: float = 2.0,
    suppressed_as: str | None = None,
) -> np.ndarray:
    """Per record: the l of its equivalence class (module docstring for the three kinds).
    ``suppressed_as``: on a generalised release, the label of its suppressed records (``"*"``):
    they are in no released class (ARX checks its privacy models on the classes it keeps; its
    ``*`` records are outliers) and get NaN; None: every value as written (the suppressed
    records, like a null key of sdcMicro's, are then one class of their own).

    >>> import polars as pl
    >>> df = pl.DataFrame({"k": [1, 1, 1, 2, 2], "s": ["a", "b", "a", "c", "c"]})
    >>> l_diversity_values(df, "k", "s").tolist()
    [2.0, 2.0, 2.0, 1.0, 1.0]
    >>> l_diversity_values(df.with_columns(k=pl.Series(["1", "1", "1", "*", "*"])), "k", "s", suppressed_as="*").tolist()
    [2.0, 2.0, 2.0, nan, nan]
    """
    if kind not in KINDS:
        raise SDCError(f"kind must be one of {', '.join(KINDS)}; got {kind!r}")
    check_real(c, "c", minimum=0.0, low_open=True)
    on = key_columns(df, on)
    (s,) = sensitive_columns(df, on, [sensitive])
    n = df.height
    if n == 0:
        return np.zeros(0)
    kept = _released(df, on, suppressed_as)
    if kept is not None:
        out = np.full(n, np.nan)
        if kept.any():
            out[kept] = l_diversity_values(df.filter(pl.Series(kept)), on, s, kind, c)
        return out
    frame = pl.DataFrame({"_g": _class_ids(df, on), "_s": key_codes(df, [s]).to_series()})
    counts = frame.group_by("_g", "_s").agg(_r=pl.len().cast(pl.Float64))
    size = pl.col("_r").sum().over("_g")
    non_missing = pl.col("_s").is_not_null()
    has_value = non_missing.any().over("_g")
    if kind == "distinct":
        per_class = counts.group_by("_g").agg(
            _l=pl.when(pl.col("_s").is_not_null().any()).then(pl.len()).otherwise(0).cast(pl.Float64)
        )
    elif kind == "entropy":
        p = pl.col("_r") / size
        per_class = (
            counts.with_columns(_h=pl.when(has_value).then(p * p.log()).otherwise(0.0))
            .group_by("_g")
            .agg(_l=(-pl.col("_h").sum()).exp())
        )
    else:
        present = counts.filter(non_missing).sort(["_g", "_r"], descending=[False, True])
        suffix = pl.col("_r").sum().over("_g") - pl.col("_r").cum_sum().over("_g") + pl.col("_r")
        first = pl.col("_r").first().over("_g")
        rank = pl.int_range(pl.len()).over("_g")
        per_class = (
            present.with_columns(_ok=((rank >= 1) & (first < c * suffix)).cast(pl.Float64))
            .group_by("_g")
            .agg(_l=1.0 + pl.col("_ok").sum())
        )
    out = frame.select("_g").join(per_class, on="_g", how="left", maintain_order="left")
    return out.get_column("_l").fill_null(0.0).to_numpy()


def check_ordered(ordered: object) -> None:
    """``ordered`` of t-closeness: True, False or None (a string "no" would read as True).

    >>> check_ordered("no")
    Traceback (most recent call last):
    ...
    polars_sdc._errors.SDCError: ordered must be True, False or None, got 'no'
    """
    if ordered is not None and not isinstance(ordered, (bool, np.bool_)):
        raise SDCError(f"ordered must be True, False or None, got {ordered!r}")


def _is_ordered(dtype: pl.DataType, ordered: bool | None) -> bool:
    check_ordered(ordered)
    if ordered is not None:
        return bool(ordered)
    return isinstance(dtype, pl.Enum) or (dtype.is_numeric() and dtype != pl.Boolean)


def t_closeness_values(
    df: pl.DataFrame, on: ColumnSpec, sensitive: str, ordered: bool | None = None, suppressed_as: str | None = None
) -> np.ndarray:
    """Per record: the EMD between its class's sensitive distribution and the table's
    (module docstring; ordered or equal ground distance). ``suppressed_as``: a generalised
    release's suppressed records (every key that label) are in no released class and get NaN;
    the table's distribution stays every record's (as ARX's t-closeness compares each class
    with the whole input).

    >>> import polars as pl
    >>> df = pl.DataFrame({"k": [1, 1, 2, 2], "s": [1, 2, 3, 3]})
    >>> t_closeness_values(df, "k", "s").round(6).tolist()
    [0.375, 0.375, 0.375, 0.375]
    """
    on = key_columns(df, on)
    (s,) = sensitive_columns(df, on, [sensitive])
    n = df.height
    if n == 0:
        return np.zeros(0)
    kept = _released(df, on, suppressed_as)
    g = _class_ids(df, on)
    dtype = df.schema[s]
    col = df.get_column(s)
    if dtype.is_float():
        col = col.fill_nan(None)
    if isinstance(dtype, pl.Enum):
        col = col.to_physical()                    # the declared order
    elif isinstance(dtype, pl.Categorical):
        col = col.cast(pl.String)                  # lexical, as the same column as String (not first-seen codes)
    v = col.rank("dense").fill_null(0).cast(pl.Int64).to_numpy()  # 0 = missing, ranks 1..m
    if col.null_count():
        v = np.where(v == 0, v.max() + 1, v)
    v = v - 1
    m = int(v.max()) + 1
    q = np.bincount(v, minlength=m) / n
    if kept is not None:   # the classes of the released records only; q stays the whole table's
        if not kept.any():
            return np.full(n, np.nan)
        full = np.full(n, np.nan)
        sub_g = np.unique(g[kept], return_inverse=True)[1]
        full[kept] = _emd(sub_g, v[kept], q, m, _is_ordered(dtype, ordered))
        return full
    return _emd(g, v, q, m, _is_ordered(dtype, ordered))


def _emd(g: np.ndarray, v: np.ndarray, q: np.ndarray, m: int, ordered_d: bool) -> np.ndarray:
    """Per record: the EMD of its class (``g``, dense ids) from ``q`` over the m value codes ``v``."""
    n_classes = int(g.max()) + 1
    sizes = np.bincount(g, minlength=n_classes).astype(np.float64)
    emd = np.zeros(n_classes)
    chunk = max(1, 4_000_000 // max(m, 1))
    order = np.argsort(g, kind="stable")
    gs, vs = g[order], v[order]
    starts = np.searchsorted(gs, np.arange(0, n_classes + 1))
    for a in range(0, n_classes, chunk):
        b = min(n_classes, a + chunk)
        rows = slice(starts[a], starts[b])
        P = np.zeros((b - a, m))
        np.add.at(P, (gs[rows] - a, vs[rows]), 1.0)
        P /= sizes[a:b, None]
        if ordered_d:
            if m > 1:
                emd[a:b] = np.abs(np.cumsum(q[None, :] - P, axis=1)).sum(axis=1) / (m - 1)
        else:
            emd[a:b] = 0.5 * np.abs(q[None, :] - P).sum(axis=1)
    return emd[g]


def diversity_output_schema(schema: pl.Schema, name: str) -> pl.Schema:
    """The input schema plus one Float64 column ``name``."""
    out = dict(schema)
    out[name] = pl.Float64
    return pl.Schema(out)


def l_diversity_frame(
    df: pl.DataFrame, on: ColumnSpec, sensitive: str, kind: str = "distinct", c: float = 2.0,
    suppressed_as: str | None = None,
) -> pl.DataFrame:
    """``df`` with a Float64 column ``l_diversity``: the l of each record's class (null for a
    generalised release's suppressed records, given ``suppressed_as``).

    >>> import polars as pl
    >>> df = pl.DataFrame({"k": [1, 1, 1, 2, 2], "s": ["a", "b", "a", "c", "c"]})
    >>> l_diversity_frame(df, "k", "s", kind="entropy")["l_diversity"].round(4).to_list()
    [1.8899, 1.8899, 1.8899, 1.0, 1.0]
    """
    return df.with_columns(pl.Series("l_diversity", l_diversity_values(df, on, sensitive, kind, c, suppressed_as)
                                     ).fill_nan(None))


def t_closeness_frame(df: pl.DataFrame, on: ColumnSpec, sensitive: str, ordered: bool | None = None,
                      suppressed_as: str | None = None) -> pl.DataFrame:
    """``df`` with a Float64 column ``t_closeness``: the EMD of each record's class (null for a
    generalised release's suppressed records, given ``suppressed_as``).

    >>> import polars as pl
    >>> df = pl.DataFrame({"k": [1, 1, 2, 2], "s": ["a", "b", "a", "a"]})
    >>> t_closeness_frame(df, "k", "s")["t_closeness"].to_list()
    [0.25, 0.25, 0.25, 0.25]
    """
    return df.with_columns(pl.Series("t_closeness", t_closeness_values(df, on, sensitive, ordered, suppressed_as)
                                     ).fill_nan(None))
