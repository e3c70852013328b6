"""Group ids -> released values: every chosen column replaced by its group representative.

Representatives (thesis 2.3): the mean for numeric columns, the most frequent value for
String / Categorical / Enum columns (ties: the smallest value; dtype kept), and the lower
median for columns marked ordinal (an actual value of the group; dtype kept).

The mean of an integer column keeps the column's dtype by default (``integers="round"``):
the exact mean (integer sum and count, no float rounding even near 2**63) rounded half to
even, so an age stays a whole number and a downstream schema does not change;
``integers="float"`` releases the Float64 mean instead. The same rule holds for the other
exact dtypes (:func:`keeps_dtype`): a Decimal column's mean is computed exactly on its
scaled integers and rounded half to even to the column's scale (``Decimal(p, s)`` stays
``Decimal(p, s)``), and a Boolean column, an integer 0/1, releases its rounded mean: the
group's majority value, a tie giving False (the smallest most frequent value, as for
categorical columns). Float columns give the Float64 mean.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import polars as pl

from ._columns import is_categorical, is_numeric
from ._errors import SDCError
from ._signature import check_keywords


INTEGER_MODES = ("round", "float")


def check_integers(integers: object) -> str:
    """``integers`` if it is ``"round"`` or ``"float"``."""
    if integers not in INTEGER_MODES:
        raise SDCError(f"integers must be 'round' (keep the integer dtype) or 'float', got {integers!r}")
    return integers  # type: ignore[return-value]


def keeps_dtype(dtype: pl.DataType) -> bool:
    """Whether ``integers="round"`` keeps the dtype of a column's mean: integers, Decimal
    (rounded to its scale) and Boolean (rounded: the majority)."""
    return dtype.is_integer() or isinstance(dtype, pl.Decimal) or dtype == pl.Boolean


def rounded_mean_expr(column: str, dtype: pl.DataType, group: str) -> pl.Expr:
    """The group mean of an integer column, exactly, rounded half to even, in its own dtype:
    ``q = floor(sum / n)``, ``r = sum - q n``; up when ``2 r > n`` or (``2 r == n`` and q odd).
    A Decimal column: the same on its scaled integers (the mean rounded half to even to its
    scale, its dtype kept); a Boolean column: on 0/1 (the majority; a tie gives False).

    >>> df = pl.DataFrame({"g": [0, 0, 1, 1, 1, 2, 2], "x": [1, 2, 3, 4, 4, -3, -2]})
    >>> df.select(rounded_mean_expr("x", pl.Int64, "g"))["x"].to_list()
    [2, 2, 4, 4, 4, -2, -2]
    >>> from decimal import Decimal
    >>> d = pl.DataFrame({"g": [0, 0, 1, 1], "x": [Decimal("1.25"), Decimal("2.50"), Decimal("0.01"), Decimal("0.02")]})
    >>> d.select(rounded_mean_expr("x", d.schema["x"], "g"))["x"].to_list()
    [Decimal('1.88'), Decimal('1.88'), Decimal('0.02'), Decimal('0.02')]
    >>> b = pl.DataFrame({"g": [0, 0, 0, 1, 1], "x": [True, True, False, True, False]})
    >>> b.select(rounded_mean_expr("x", pl.Boolean, "g"))["x"].to_list()
    [True, True, True, False, False]
    """
    decimal = isinstance(dtype, pl.Decimal)
    x = pl.col(column).to_physical() if decimal else pl.col(column).cast(pl.Int128)
    n = x.count().over(group).cast(pl.Int128)  # the non-null values (== the rows without nulls)
    if decimal:
        # a Decimal's scaled integers reach 10^38: their sum may not fit Int128 (< 1.7e38),
        # so sum the high and low 64 bits apart, x = h 2^64 + l (0 <= l < 2^64), and divide
        # in two steps: h_sum = hq n + hr, (hr 2^64 + l_sum) = lq n + r; q = hq 2^64 + lq
        # (every intermediate within Int128 for groups of fewer than 2^62 rows)
        two64 = pl.lit(1 << 64, dtype=pl.Int128)
        h_sum = (x // two64).sum().over(group)
        l_sum = (x % two64).sum().over(group)
        hq = h_sum // n
        rest = (h_sum - hq * n) * two64 + l_sum
        lq = rest // n
        q = hq * two64 + lq
        r = rest - lq * n
    else:   # integers of at most 64 bits: the sum fits Int128
        total = x.sum().over(group)
        q = total // n
        r = total - q * n
    up = (2 * r > n) | ((2 * r == n) & (q % 2 != 0))
    mean = q + up.cast(pl.Int128)
    if decimal:   # scaled integers back to the column's scale: exact
        from decimal import Decimal

        unit = pl.lit(Decimal(1).scaleb(-(dtype.scale or 0)), dtype=pl.Decimal(38, dtype.scale or 0))
        return (mean.cast(pl.Decimal(38, 0)) * unit).cast(dtype).alias(column)
    return mean.cast(dtype).alias(column)


def representative_expr(
    column: str, dtype: pl.DataType, group: str, *, ordinal: bool = False, integers: Literal["round", "float"] = "round"
) -> pl.Expr:
    """The Polars expression replacing ``column`` by its representative within ``group``."""
    col = pl.col(column)
    if ordinal:
        if not (is_numeric(dtype) or isinstance(dtype, pl.Enum)):
            raise SDCError(
                f"column {column!r}: an ordinal column must be numeric or an Enum (its order), got {dtype}"
            )
        return col.sort().get((pl.len() - 1) // 2).over(group).alias(column)
    if keeps_dtype(dtype) and check_integers(integers) == "round":
        return rounded_mean_expr(column, dtype, group)
    if is_numeric(dtype):
        x = col.cast(pl.Float64)
        mean = x.mean()
        # a sum past 1.8e308 overflows although the mean is finite: average scaled by 2**-64 then
        scaled = (x * 2.0**-64).mean() * 2.0**64
        return pl.when(mean.is_infinite()).then(scaled).otherwise(mean).over(group).alias(column)
    if is_categorical(dtype):
        # the smallest of the most frequent values (a windowed sort_by is ~20x slower)
        return col.mode().min().over(group).alias(column)
    raise SDCError(f"column {column!r}: cannot aggregate dtype {dtype}")


def aggregate_output_schema(
    schema: pl.Schema, on: Sequence[str], ordinal: Sequence[str] = (), integers: Literal["round", "float"] = "round"
) -> pl.Schema:
    """Schema after :func:`aggregate`: float non-ordinal columns become Float64, integer,
    Decimal and Boolean ones too with ``integers="float"`` (else their dtype is kept). Checks the dtypes as
    :func:`representative_expr` would, so a lazy plan fails when it is built.

    >>> schema = pl.Schema({"x": pl.Int64, "f": pl.Float32, "o": pl.Int8, "s": pl.String})
    >>> aggregate_output_schema(schema, ["x", "f", "o", "s"], ordinal=["o"])
    Schema([('x', Int64), ('f', Float64), ('o', Int8), ('s', String)])
    >>> aggregate_output_schema(schema, ["x"], integers="float")["x"]
    Float64
    """
    out = dict(schema)
    for c in on:
        representative_expr(c, schema[c], "_", ordinal=c in ordinal, integers=integers)  # raises for a bad dtype
        if c not in ordinal and is_numeric(schema[c]) and not (keeps_dtype(schema[c]) and integers == "round"):
            out[c] = pl.Float64
    return pl.Schema(out)


@check_keywords
def aggregate(
    df: pl.DataFrame,
    groups: pl.Series | str,
    on: Sequence[str],
    *,
    ordinal: Sequence[str] = (),
    integers: Literal["round", "float"] = "round",
    keep_nulls: bool = False,
    household: str | None = None,
    household_columns: Sequence[str] | None = None,
    k: int | None = None,
) -> pl.DataFrame:
    """Replace the columns ``on`` of ``df`` by their group representatives (integer means
    rounded half to even in the column's dtype unless ``integers="float"``).

    ``household=`` (a household id column, with the partition's ``k``): the release of a
    partition made with ``household=`` (``df.sdc.partition`` / ``df.sdc.mil``), guarded as the
    microaggregation methods guard their own release (:func:`aggregate_households`).

    ``groups`` is a column name or a Series of group ids aligned with ``df``. Row order
    and all other columns are kept; ``df`` is not modified. Nulls, NaN or infinity in a
    column to aggregate raise :class:`SDCError` (one bad value would spread to its group);
    with ``keep_nulls=True`` a null stays null and the representative is taken over the
    group's non-null values (structural nulls: the microaggregation pipeline groups rows by
    null pattern, so a group is then all null or all non-null in each column).

    >>> import polars as pl
    >>> df = pl.DataFrame({"x": [1, 3, 10, 20], "c": ["a", "b", "b", "b"]})
    >>> aggregate(df, pl.Series([0, 0, 1, 1]), ["x", "c"])["x"].to_list()
    [2, 2, 15, 15]
    >>> aggregate(df, pl.Series([0, 1, 1, 1]), ["x"], integers="float")["x"].to_list()
    [1.0, 11.0, 11.0, 11.0]
    """
    from ._columns import check_finite, resolve_columns
    from .partition import group_ids

    on = resolve_columns(df, list(on), kind="supported")
    unknown = [c for c in ordinal if c not in on]
    if unknown:
        raise SDCError(f"column {unknown[0]!r}: marked ordinal but not among the aggregated columns")
    check_finite(df, on, nulls=keep_nulls)
    if household is not None or household_columns is not None or k is not None:
        return aggregate_households(df, groups, on, household, k, household_columns=household_columns,
                                    ordinal=ordinal, integers=integers, keep_nulls=keep_nulls)
    g = group_ids(df, groups)
    tmp = "__sdc_group__"
    while tmp in df.columns:
        tmp += "_"
    exprs = [representative_expr(c, df.schema[c], tmp, ordinal=c in ordinal, integers=integers) for c in on]
    if keep_nulls:
        exprs = [pl.when(pl.col(c).is_null()).then(None).otherwise(e).alias(c) for c, e in zip(on, exprs)]
    return df.with_columns(g.alias(tmp)).with_columns(exprs).drop(tmp)


def aggregate_households(
    df: pl.DataFrame,
    groups: pl.Series | str,
    on: Sequence[str],
    household: str | None,
    k: int | None,
    *,
    household_columns: Sequence[str] | None = None,
    ordinal: Sequence[str] = (),
    integers: Literal["round", "float"] = "round",
    keep_nulls: bool = False,
) -> pl.DataFrame:
    """:func:`aggregate` of a partition made with ``household=``, with the guard of the
    microaggregation methods' own release (issue 24; the household, not the record, is the unit
    an intruder attacks):

    * every group must hold records of >= ``k`` distinct households (else :class:`SDCError`
      naming the group);
    * no vector over ``on`` is released unchanged unless >= ``k`` households of its group hold
      it: a group whose representative equals the exact vector of fewer than ``k`` households
      (the mean of 1, 2 and 3 is household 2's 2) is merged with the group of its null pattern
      with the nearest representative, or, alone in its null pattern, refused naming it
      (:func:`polars_sdc.microagg.blocks.unchanged_repair`, the methods' guard). A merge
      changes the partition: with ``groups`` a column name, the merged rows take the id of
      the group they join (dtype kept), so the column stays the released partition;
    * household-level ``on`` columns (constant within every household, or declared by
      ``household_columns``) are released once per household, as the methods release them:
      the representative over one row per household, broadcast to its members (the groups
      must then not split a household); person-level ones per person. A mix is an error.

    >>> df = pl.DataFrame({"hh": [1, 2, 3, 4, 5, 6], "x": [1.0, 2.0, 3.0, 10.0, 20.0, 30.0],
    ...                    "g": [0, 0, 0, 1, 1, 1]})
    >>> aggregate(df, "g", ["x"])["x"].to_list()                # 2 and 20: households 2 and 5
    [2.0, 2.0, 2.0, 20.0, 20.0, 20.0]
    >>> out = aggregate_households(df, "g", ["x"], "hh", 3)
    >>> out["x"].to_list(), out["g"].to_list()                 # merged: one group of 6 households
    ([11.0, 11.0, 11.0, 11.0, 11.0, 11.0], [1, 1, 1, 1, 1, 1])
    """
    import numpy as np

    from ._columns import check_k
    from .household import (broadcast, check_household_column, check_household_columns, collapse,
                            household_index, split_columns)
    from .microagg.blocks import households_per_group, pattern_blocks, unchanged_repair
    from .partition import canonical_ids, group_ids

    on = list(on)
    if household is None:
        raise SDCError("household_columns= / k= guard the release of a household partition: give the household "
                       "id column (household=) with them")
    if k is None:
        raise SDCError(f"household={household!r}: give the partition's k (k=...): no vector is released unchanged "
                       "unless >= k households of its group hold it")
    k = check_k(k, df.height)
    check_household_column(df.schema, household, [*on, *([groups] if isinstance(groups, str) else [])])
    declared = check_household_columns(df.schema, household, household_columns)
    idx, n = household_index(df, household)
    hh, person = split_columns(df, household, on, declared, index=idx)
    if hh and person:
        raise SDCError(
            f"household={household!r}: column(s) {', '.join(map(repr, hh))} are household-level "
            f"({'declared' if declared is not None else 'constant within every household'}) and "
            f"{', '.join(map(repr, person))} person-level; aggregate them in two calls (household-level columns are "
            "released once per household, person-level ones per person)"
            + ("" if declared is not None else "; declare the household-level ones (household_columns=[...], or [] "
               "for none) if a column is constant within every household only by accident"))
    codes = canonical_ids(group_ids(df, groups).to_numpy()).astype(np.int64)
    ids = df.get_column(groups) if isinstance(groups, str) else \
        groups if isinstance(groups, pl.Series) else pl.Series(np.asarray(groups))
    first = np.full(int(codes.max()) + 1 if codes.size else 0, codes.size, dtype=np.int64)
    np.minimum.at(first, codes, np.arange(codes.size, dtype=np.int64))   # each group's first row
    counts = households_per_group(codes, idx)
    if (counts < k).any():
        g = int(np.flatnonzero(counts < k)[0])
        raise SDCError(f"group {ids[int(first[g])]!r}: records of {int(counts[g])} household(s) of {household!r}, "
                       f"fewer than k = {k}; with household= every released group holds records of >= k households "
                       "(partition with household=)")
    if hh:   # one row per household: the groups must not split a household
        lead = np.full(n, codes.size, dtype=np.int64)
        np.minimum.at(lead, idx, np.arange(codes.size, dtype=np.int64))
        split = np.flatnonzero(codes != codes[lead[idx]])
        if split.size:
            hid = df.get_column(household)[int(split[0])]
            raise SDCError(f"household {hid!r} of {household!r} lies in two groups, but column(s) "
                           f"{', '.join(map(repr, hh))} are household-level and released once per household; "
                           "partition them with household= (one row per household), or declare them person-level "
                           "(household_columns=[])")
        src, units, labels = collapse(df, household, on, check=False, index=idx), np.arange(n), codes[lead]
    else:
        src, units, labels = df, idx, codes

    def release(lab: np.ndarray) -> pl.DataFrame:
        return aggregate(src.select(on), pl.Series("group", lab, dtype=pl.Int64), on, ordinal=ordinal,
                         integers=integers, keep_nulls=keep_nulls)

    blocks = pattern_blocks(src, on, np.arange(src.height), k, units=units)
    labels = unchanged_repair(src, on, labels, units, k, blocks, release,
                              remedy="partition with a larger k, release means as floats (integers='float'), or "
                                     "drop the column(s)")
    released = release(labels)
    out = df.with_columns(released.get_columns()) if not hh else broadcast(df, household, released, on, index=idx)
    rows = labels[idx] if hh else labels
    if isinstance(groups, str) and not np.array_equal(rows, codes):   # merged: the released partition
        out = out.with_columns(ids.gather(pl.Series(first[rows])))
    return out
