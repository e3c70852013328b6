"""Minimum-frequency global recoding (Sano & Hattori, Fig. 1) applied to columns and frames:
the category table of a String / Categorical / Enum column, the plan of :mod:`.plan` on it,
and the new column built by one gather.

Conventions (the paper leaves them open):

- ``n`` is the number of rows of the column, nulls included; ``th = n * p``.
- Nulls are a value of their own: never counted as a category, never merged, kept as null.
  ``null_values=["?"]`` reads those categories as missing too: their rows become null (not
  merged, not a category of the result; they still count in ``n``, like every null).
- Every category has a *natural position*: its index in the Enum for Enum columns, the order
  of first appearance (row order) for String and Categorical columns, or the given order of
  an ordinal column; it decides ties and the order of the parts of a merged label.
- Categories that never occur (unused Enum categories) take no part and are dropped from
  the Enum of the result, whose categories are the new labels in position order.

>>> import polars as pl
>>> s = pl.Series("industry", ["農業"] * 5 + ["林業"] * 2 + ["サービス業"] * 30
...               + ["不動産業"] * 13 + ["製造業"] * 50)
>>> recode_series(s, 0.05, sep="・").value_counts(sort=True).rows()[-1]
('農業・林業', 7)
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Unpack

import polars as pl

from .._columns import ColumnSpec, is_categorical, resolve_columns
from .._typing import LabelOptions
from .._errors import SDCError
from .labels import DEFAULT_MAX_LABEL, DEFAULT_SEP, check_label_options, check_null_values
from .plan import _check_hierarchy, check_other_constraints, check_p, merge_plan, threshold


def _category_table(s: pl.Series) -> tuple[pl.Series, list[str], list[int]]:
    """(dense category codes 0..K-1 as UInt32 with nulls kept, labels in natural order,
    counts) of the observed categories of a String / Categorical / Enum series. Codes come
    from the physical representation (Enum, Categorical) or one cast to an Enum (String);
    counting is a numpy bincount: no Python loop over rows."""
    import numpy as np

    if isinstance(s.dtype, pl.Enum):
        labels = list(s.dtype.categories)
        codes = s.cat.physical().cast(pl.UInt32)
    else:
        uniq = s.drop_nulls().unique(maintain_order=True)  # first appearance, row order
        labels = uniq.cast(pl.String).to_list()
        if not labels:
            return pl.Series(s.name, [None] * s.len(), dtype=pl.UInt32), [], []
        ids = uniq.cat.physical().cast(pl.UInt32).to_numpy() if s.dtype == pl.Categorical else None
        if ids is not None and int(ids.max()) < 4 * s.len() + 1_000_000:
            dense = np.zeros(int(ids.max()) + 1, dtype=np.uint32)  # global id -> dense code
            dense[ids] = np.arange(len(labels), dtype=np.uint32)
            codes = pl.Series(dense).gather(s.cat.physical().cast(pl.UInt32))
        else:
            codes = s.cast(pl.String).cast(pl.Enum(labels)).cat.physical().cast(pl.UInt32)
    counts = np.bincount(codes.drop_nulls().to_numpy(), minlength=len(labels))
    used = np.flatnonzero(counts)
    if used.size < len(labels):  # unused Enum categories take no part
        remap = np.full(len(labels), 0, dtype=np.uint32)
        remap[used] = np.arange(used.size, dtype=np.uint32)
        codes = pl.Series(remap).gather(codes)
        labels = [labels[i] for i in used]
        counts = counts[used]
    return codes.rename(s.name), labels, [int(c) for c in counts]


def _order_positions(labels: list[str], order: Sequence[str], column: str) -> list[int]:
    """Indices that sort ``labels`` by the user's ordinal ``order``."""
    if isinstance(order, str) or not isinstance(order, Sequence):
        raise SDCError(f"column {column!r}: the ordinal order must be a list of categories")
    rank = {str(c): i for i, c in enumerate(order)}
    if len(rank) != len(order):
        raise SDCError(f"column {column!r}: the ordinal order lists a category twice")
    missing = [lab for lab in labels if lab not in rank]
    if missing:
        raise SDCError(f"column {column!r}: category {missing[0]!r} is not in the ordinal order")
    return sorted(range(len(labels)), key=lambda i: rank[labels[i]])


def recode_table(
    s: pl.Series,
    p: float,
    *,
    sep: str = DEFAULT_SEP,
    other: str | None = None,
    max_label: int | None = DEFAULT_MAX_LABEL,
    null_values: Any = None,
    hierarchy: Mapping[str, str] | None = None,
    ordinal: bool | Sequence[str] = False,
    n: int | None = None,
) -> tuple[pl.Series, list[str], list[int], list[str | None]]:
    """(codes, labels, counts, new label per label) of Fig. 1 for one column; ``n`` (for
    th = n * p) defaults to the column's length. A label in ``null_values`` gets the new
    label None (its rows become null) and takes no part in the merging.

    >>> import polars as pl
    >>> _, labels, counts, new = recode_table(pl.Series("c", ["x", "y", "x", "z", "?"]), 0.3,
    ...                                       null_values=["?"])
    >>> labels, counts, new
    (['x', 'y', 'z', '?'], [2, 1, 1, 1], ['x', 'y|z', 'y|z', None])
    """
    name = s.name
    if not is_categorical(s.dtype):
        raise SDCError(f"column {name!r}: dtype {s.dtype} is not String, Categorical or Enum")
    p = check_p(p)
    missing = check_null_values(null_values)
    codes, labels, counts = _category_table(s)
    th = threshold(s.len() if n is None else n, p)
    keep = [i for i, lab in enumerate(labels) if lab not in missing]
    names = dict(sep=sep, other=other, max_label=max_label)
    plan = _plan_column(s, [labels[i] for i in keep], [counts[i] for i in keep], th, names, hierarchy, ordinal)
    new: list[str | None] = [None] * len(labels)
    for i, lab in zip(keep, plan):
        new[i] = lab
    return codes, labels, counts, new


def _plan_column(s: pl.Series, labels: list[str], counts: list[int], th: int, names: dict[str, Any],
                 hierarchy: Any, ordinal: Any) -> list[str]:
    """:func:`.plan.merge_plan` on one column's categories, in the user's order if ordinal."""
    name = s.name
    use_ordinal = ordinal is not False and ordinal is not None
    if use_ordinal:
        if ordinal is True:
            if not isinstance(s.dtype, pl.Enum):
                raise SDCError(
                    f"column {name!r}: an ordinal String/Categorical column needs its order "
                    "(a list of categories); only an Enum carries one"
                )
            perm = list(range(len(labels)))
        else:
            perm = _order_positions(labels, ordinal, name)
        new_sorted = merge_plan(
            [labels[i] for i in perm], [counts[i] for i in perm], th, ordinal=True, column=name, **names
        )
        new = [""] * len(labels)
        for k, i in enumerate(perm):
            new[i] = new_sorted[k]
        return new
    return merge_plan(labels, counts, th, hierarchy=hierarchy, column=name, **names)


def recode_series(
    s: pl.Series,
    p: float,
    *,
    hierarchy: Mapping[str, str] | None = None,
    ordinal: bool | Sequence[str] = False,
    n: int | None = None,
    enum_as: pl.DataType | None = None,
    **labels: Unpack[LabelOptions],
) -> pl.Series:
    """Minimum-frequency global recoding (Sano & Hattori, Fig. 1) of one categorical Series.

    The dtype kind is kept (String -> String, Categorical -> Categorical, Enum -> Enum over
    the new categories; ``enum_as=pl.Categorical`` gives a Categorical instead); nulls stay
    null, and so become the ``null_values``; row order is kept. Labels: ``sep``, ``other``,
    ``max_label`` (:class:`.labels.LabelSpec`); ties, ``hierarchy``, ``ordinal``: :mod:`.plan`.

    >>> import polars as pl
    >>> s = pl.Series("x", ["a", "b", "a", None, "c", "a", "a"], dtype=pl.Enum(["a", "b", "c"]))
    >>> out = recode_series(s, 0.2)   # n = 7 rows, th = 1: b and c tie at 1 and merge
    >>> out.to_list(), out.dtype
    (['a', 'b|c', 'a', None, 'b|c', 'a', 'a'], Enum(categories=['a', 'b|c']))
    >>> recode_series(s, 0.2, other="Other").to_list()
    ['a', 'Other', 'a', None, 'Other', 'a', 'a']
    """
    codes, names, _, new = recode_table(s, p, hierarchy=hierarchy, ordinal=ordinal, n=n, **labels)
    if all(a == b for a, b in zip(names, new)) and not isinstance(s.dtype, pl.Enum):
        return s.clone()
    return _apply(s, codes, names, new, enum_as)


def _apply(s: pl.Series, codes: pl.Series, labels: list[str], new: list[str | None], enum_as: Any) -> pl.Series:
    """Rebuild the column as one gather of a small lookup Series (new label per code, in the
    output dtype) by the codes; null codes, and codes whose new label is None, give nulls."""
    if isinstance(s.dtype, pl.Enum):
        first: dict[str, int] = {}
        for i, lab in enumerate(new):  # new categories in position order of their first part
            if lab is not None:
                first.setdefault(lab, i)
        dtype = pl.Enum(sorted(first, key=first.__getitem__)) if enum_as is None else enum_as
    else:
        dtype = s.dtype
    # one lookup entry per distinct new label (not per category: thousands of categories
    # merged into one label would repeat it thousands of times), then two gathers
    index: dict[str | None, int] = {}
    code_of = [index.setdefault(lab, len(index)) for lab in new]
    lookup = pl.Series(s.name, list(index), dtype=pl.String).cast(dtype)
    return lookup.gather(pl.Series(code_of, dtype=pl.UInt32).gather(codes))


# -- frames --------------------------------------------------------------------------------
def _per_column(option: Any, cols: list[str], what: str) -> dict[str, Any]:
    if option is None:
        return {}
    if not isinstance(option, Mapping):
        raise SDCError(f"`{what}`: expected a mapping column -> {what} spec, got {type(option).__name__}")
    unknown = [c for c in option if c not in cols]
    if unknown:
        raise SDCError(f"column {unknown[0]!r}: has a {what} but is not among the recoded columns")
    return dict(option)


def _ordinal_spec(ordinal: Any, cols: list[str]) -> dict[str, Any]:
    if ordinal is None:
        return {}
    if isinstance(ordinal, str):
        ordinal = [ordinal]
    if isinstance(ordinal, Mapping):
        spec = {c: (True if v is None else v) for c, v in ordinal.items()}
        for c, v in spec.items():   # an order's form needs no data: refused when a lazy step is planned
            if v is not True and (isinstance(v, str) or not isinstance(v, Sequence)):
                raise SDCError(f"column {c!r}: the ordinal order must be a list of categories")
    else:
        spec = {c: True for c in ordinal}
    return _per_column(spec, cols, "ordinal")


def recode_frame(
    df: pl.DataFrame,
    on: ColumnSpec,
    p: float,
    *,
    hierarchy: Mapping[str, Mapping[str, str]] | None = None,
    ordinal: Any = None,
    enum_as: pl.DataType | None = None,
    **labels: Unpack[LabelOptions],
) -> pl.DataFrame:
    """``df`` with each of the columns ``on`` recoded by :func:`recode_series` (th = height * p).

    ``hierarchy`` maps a column to its {category: parent} tree; ``ordinal`` is a column name,
    a list of Enum columns (their category order) or {column: order list or None}; the label
    options and ``null_values`` apply to every column.

    >>> import polars as pl
    >>> df = pl.DataFrame({"id": [1, 2, 3, 4, 5], "c": ["x", "y", "x", "z", "?"]})
    >>> recode_frame(df, "c", 0.3, null_values="?")["c"].to_list()
    ['x', 'y|z', 'x', 'y|z', None]
    """
    cols = resolve_columns(df, on, kind="categorical", what="on", default="error")
    check_p(p)
    trees, orders = _constraints(cols, hierarchy, ordinal, labels)
    out = [
        recode_series(
            df.get_column(c), p, hierarchy=trees.get(c), ordinal=orders.get(c, False), enum_as=enum_as, **labels
        )
        for c in cols
    ]
    return df.with_columns(out)


def _constraints(cols: list[str], hierarchy: Any, ordinal: Any, labels: Mapping[str, Any]) -> tuple[dict, dict]:
    """({column: hierarchy}, {column: order}) checked against the columns; the label options
    checked, and ``other=`` against the constraints."""
    names, _ = check_label_options(labels)
    trees = _per_column(hierarchy, cols, "hierarchy")
    orders = _ordinal_spec(ordinal, cols)
    for c in cols:
        check_other_constraints(names.other, c, hierarchy=c in trees, ordinal=orders.get(c, False) is not False)
    return trees, orders


def recode_map_frame(
    df: pl.DataFrame,
    on: ColumnSpec,
    p: float,
    *,
    hierarchy: Mapping[str, Mapping[str, str]] | None = None,
    ordinal: Any = None,
    **labels: Unpack[LabelOptions],
) -> pl.DataFrame:
    """The recoding as a table: ``column``, ``original``, ``recoded``, ``count`` (of the
    original category) and ``recoded_count``, one row per observed category in natural order.
    A category of ``null_values`` has ``recoded`` and ``recoded_count`` null.

    >>> import polars as pl
    >>> df = pl.DataFrame({"c": ["x", "y", "x", "z", "?"]})
    >>> recode_map_frame(df, "c", 0.3, null_values=["?"]).rows()
    [('c', 'x', 'x', 2, 2), ('c', 'y', 'y|z', 1, 2), ('c', 'z', 'y|z', 1, 2), ('c', '?', None, 1, None)]
    """
    cols = resolve_columns(df, on, kind="categorical", what="on", default="error")
    check_p(p)
    trees, orders = _constraints(cols, hierarchy, ordinal, labels)
    parts = []
    for c in cols:
        _, names, counts, new = recode_table(
            df.get_column(c), p, hierarchy=trees.get(c), ordinal=orders.get(c, False), **labels
        )
        index: dict[str | None, int] = {}
        code_of = [index.setdefault(lab, len(index)) for lab in new]
        recoded = pl.Series("recoded", list(index), dtype=pl.String).gather(pl.Series(code_of, dtype=pl.UInt32))
        parts.append(pl.DataFrame({
            "column": pl.Series([c] * len(names), dtype=pl.String),
            "original": pl.Series(names, dtype=pl.String),
            "recoded": recoded,
            "count": pl.Series(counts, dtype=pl.UInt32),
        }))
    return with_recoded_count(pl.concat(parts))


def with_recoded_count(table: pl.DataFrame) -> pl.DataFrame:
    """``recoded_count``: the rows of each new category (null for categories read as missing)."""
    total = pl.col("count").sum().over("column", "recoded")
    return table.with_columns(
        pl.when(pl.col("recoded").is_not_null()).then(total).otherwise(None).alias("recoded_count")
    )


def recode_output_schema(
    schema: pl.Schema,
    columns: ColumnSpec,
    *,
    lazy: bool,
    hierarchy: Mapping[str, Mapping[str, str]] | None = None,
    ordinal: Any = None,
    **labels: Unpack[LabelOptions],
) -> pl.Schema:
    """Schema after :func:`recode_frame` (the options are checked here too, before any data
    is read); on a LazyFrame an Enum column is declared (and returned) Categorical, since its
    new categories are known only from the data.

    >>> import polars as pl
    >>> recode_output_schema(pl.Schema({"e": pl.Enum(["a", "b"])}), "e", lazy=True)
    Schema([('e', Categorical)])
    """
    cols = resolve_columns(schema, columns, kind="categorical", what="columns", default="error")
    trees, orders = _constraints(cols, hierarchy, ordinal, labels)
    for c, h in trees.items():
        _check_hierarchy(h, c)
    for c, o in orders.items():
        if o is True and not isinstance(schema[c], pl.Enum):
            raise SDCError(
                f"column {c!r}: an ordinal String/Categorical column needs its order "
                "(a list of categories); only an Enum carries one"
            )
    out = dict(schema)
    if lazy:
        for c in cols:
            if isinstance(out[c], pl.Enum):
                out[c] = pl.Categorical()
    return pl.Schema(out)


__all__ = [
    "recode_frame",
    "recode_map_frame",
    "recode_output_schema",
    "recode_series",
    "recode_table",
    "with_recoded_count",
]
