"""Top and bottom coding of numeric columns: values beyond a threshold (or a share of the
column) are replaced by the threshold or by the mean of the coded values (the classic SDC
top/bottom coding, sdcMicro ``topBotCoding``), as native Polars expressions.

>>> import polars as pl
>>> pl.DataFrame({"x": [1, 2, 3, 4, 100]}).select(top_bottom_expr(pl.col("x"), upper=10))["x"].to_list()
[1, 2, 3, 4, 10]
"""
from __future__ import annotations

import math
from typing import Any

import polars as pl

from .._columns import ColumnSpec, resolve_columns
from .._errors import SDCError
from .plan import check_p


def top_bottom_expr(
    x: pl.Expr,
    *,
    lower: float | None = None,
    upper: float | None = None,
    lower_p: float | None = None,
    upper_p: float | None = None,
    replacement: str = "threshold",
) -> pl.Expr:
    """Top/bottom coding of a numeric column as a native Polars expression.

    Values above the upper threshold (``upper``, or the ``1 - upper_p`` quantile with
    "higher" interpolation, an observed value taken in the column's dtype, exact for Int64 /
    UInt64 beyond 2^53) are replaced, and likewise below the lower threshold (``lower`` or the
    ``lower_p`` quantile, "lower" interpolation). A threshold that is infinite in a float
    column's dtype on the coding side (``upper=-1e40`` on Float32) is refused.
    ``replacement="threshold"`` puts the threshold itself (dtype kept); ``"mean"`` puts the
    mean of the coded values on each side (Float64; the column total is preserved); a side
    that codes a single value is refused (its mean is the value: the extreme released as it was). Nulls
    stay null and NaN stays NaN (neither coded nor counted in the quantiles); thresholds are
    computed over the whole column.

    >>> import polars as pl
    >>> df = pl.DataFrame({"x": [1, 2, 3, 4, 100]})
    >>> df.select(top_bottom_expr(pl.col("x"), upper=10))["x"].to_list()
    [1, 2, 3, 4, 10]
    >>> df.select(top_bottom_expr(pl.col("x"), upper=3, replacement="mean"))["x"].to_list()
    [1.0, 2.0, 3.0, 52.0, 52.0]
    """
    if replacement not in ("threshold", "mean"):
        raise SDCError(f"replacement must be 'threshold' or 'mean', got {replacement!r}")
    for name, v in (("lower_p", lower_p), ("upper_p", upper_p)):
        if v is not None:
            check_p(v)
    if lower is not None and lower_p is not None or upper is not None and upper_p is not None:
        raise SDCError("give a threshold or a share p for each side, not both")
    if lower is None and upper is None and lower_p is None and upper_p is None:
        raise SDCError("top/bottom coding needs lower, upper, lower_p or upper_p")
    for name, v in (("lower", lower), ("upper", upper)):
        if v is not None and not isinstance(v, pl.Expr) and (   # (an Expr: a Decimal column's exact literal)
            isinstance(v, bool) or not isinstance(v, (int, float)) or math.isnan(float(v))
        ):
            raise SDCError(f"`{name}` must be a number (not NaN), got {v!r}")
    if isinstance(lower, (int, float)) and isinstance(upper, (int, float)) and lower > upper:
        raise SDCError(f"`lower` = {lower!r} is above `upper` = {upper!r}; the coded ranges would overlap")
    if lower_p is not None and upper_p is not None and lower_p + upper_p > 1.0:
        raise SDCError(f"lower_p + upper_p = {lower_p + upper_p!r} exceeds 1; the coded shares would overlap")
    # NaN is not null and not a large value (Polars orders it above +inf): it is neither coded
    # nor counted in the quantiles or the coded means; it stays NaN
    xf = x.cast(pl.Float64)
    num = ~xf.is_nan()
    xq = x.filter(num)
    lo = _order_stat(xq, lower_p, "lower") if lower_p is not None else (None if lower is None else _lit(lower))
    hi = _order_stat(xq, 1.0 - upper_p, "higher") if upper_p is not None else (None if upper is None else _lit(upper))
    above = None if hi is None else (x > hi) & num
    below = None if lo is None else (x < lo) & num
    if replacement == "threshold":
        out = x
        if hi is not None:
            out = pl.when(above).then(hi.cast(pl.dtype_of(x))).otherwise(out)
        if lo is not None:
            out = pl.when(below).then(lo.cast(pl.dtype_of(x))).otherwise(out)
        return out.name.keep()
    out = xf
    # the mean by an exactly rounded sum over the whole column: the same in eager, lazy,
    # chunked and streaming runs (a float sum would depend on how the column is chunked)
    if hi is not None:
        out = pl.when(above).then(_exact_mean(xf.filter(above), "above the upper")).otherwise(out)
    if lo is not None:
        out = pl.when(below).then(_exact_mean(xf.filter(below), "below the lower")).otherwise(out)
    return out.name.keep()


def _lit(v: Any) -> pl.Expr:
    return v if isinstance(v, pl.Expr) else pl.lit(v)


def _order_stat(xq: pl.Expr, q: float, how: str) -> pl.Expr:
    """Polars' ``quantile(q, how)`` ("lower": the value at ``floor((n - 1) q)`` of the sorted
    values, "higher": at ``ceil``) taken from the sorted values themselves, in the column's
    dtype: an observed value exactly (``quantile`` returns a Float64, so an Int64 / UInt64
    value beyond 2^53 came back rounded, and a top value just above it escaped the coding)."""
    pos = (xq.count() - 1).cast(pl.Float64) * q
    idx = (pos.floor() if how == "lower" else pos.ceil()).cast(pl.Int64).clip(0)
    return xq.sort().get(idx, null_on_oob=True)


def _fsum_mean(s: pl.Series, side: str = "beyond the") -> pl.Series:
    import numpy as np

    v = s.drop_nulls().to_numpy()
    if v.size == 0:
        return pl.Series([None], dtype=pl.Float64)
    if not np.isfinite(v).all():   # (NaN never gets here: it is not coded)
        raise SDCError(f"column {s.name!r}: an infinite value among the coded ones; their mean (inf) would "
                       "replace every coded value (use replacement='threshold', or make it null first)")
    if v.size == 1:      # the mean of one value is that value: the extreme released as it was
        raise SDCError(f"column {s.name!r}: only 1 value lies {side} threshold; replacement='mean' would release it "
                       "unchanged (the mean of one value); use replacement='threshold' or a threshold that codes "
                       "at least 2 values")
    try:
        mean = math.fsum(v.tolist()) / v.size
    except OverflowError:  # the sum of values near 1e308 overflows: sum them scaled (exact)
        mean = float(np.ldexp(math.fsum(np.ldexp(v, -64).tolist()) / v.size, 64))
    return pl.Series([mean], dtype=pl.Float64)


def _exact_mean(x: pl.Expr, side: str) -> pl.Expr:
    return x.map_batches(lambda s: _fsum_mean(s, side), return_dtype=pl.Float64, returns_scalar=True)


def top_bottom_frame_exprs(schema: pl.Schema, on: ColumnSpec, **options: Any) -> list[pl.Expr]:
    """One :func:`top_bottom_expr` per numeric column of ``on`` (names kept).

    >>> import polars as pl
    >>> df = pl.DataFrame({"x": [1, 50], "y": [-5, 2]})
    >>> df.with_columns(top_bottom_frame_exprs(df.schema, ["x", "y"], lower=0, upper=10)).rows()
    [(1, 0), (10, 2)]
    """
    cols = resolve_columns(schema, on, kind="numeric", what="on", default="error")
    for c in cols:
        if schema[c] == pl.Boolean:
            raise SDCError(f"column {c!r}: a Boolean column cannot be top/bottom coded")
        if schema[c].is_integer() and options.get("replacement", "threshold") == "threshold":
            _check_int_threshold(c, schema[c], options.get("lower"), "lower")
            _check_int_threshold(c, schema[c], options.get("upper"), "upper")
        if schema[c].is_float() and options.get("replacement", "threshold") == "threshold":
            _check_float_threshold(c, schema[c], options.get("lower"), "lower")
            _check_float_threshold(c, schema[c], options.get("upper"), "upper")
    return [top_bottom_expr(pl.col(c), **_decimal_thresholds(c, schema[c], options)).alias(c) for c in cols]


def _decimal_thresholds(column: str, dtype: pl.DataType, options: dict[str, Any]) -> dict[str, Any]:
    """For a Decimal column, the numeric thresholds as exact Decimal literals (the number as
    written: ``2.555`` is 2.555, not the float 2.55499999...). Polars compared a Decimal column
    with a float threshold through Float64 (10^20 + 1 > 1e20 was false) and wrote the threshold
    rounded to the column's scale (``upper=2.555`` at scale 2 released 2.56, above it). With
    ``replacement="threshold"`` a threshold the column's scale or precision cannot hold is
    refused, naming column, threshold and scale; with ``"mean"`` the comparison is exact: the
    threshold is rounded towards the kept side onto the column's grid (x > 2.555 <=> x > 2.55
    when x has 2 decimals), an identical comparison."""
    if not isinstance(dtype, pl.Decimal) or all(options.get(k) is None for k in ("lower", "upper")):
        return options
    import decimal

    top_bottom_expr(pl.col(column), **options)   # the arguments' own checks first
    scale, prec = dtype.scale or 0, dtype.precision or 38
    ulp = decimal.Decimal(1).scaleb(-scale)
    out = dict(options)
    for name in ("lower", "upper"):
        v = options.get(name)
        if v is None:
            continue
        if not math.isfinite(v):   # (NaN is refused above) +-inf compares exactly as a float; it cannot be written
            if options.get("replacement", "threshold") == "threshold":
                raise SDCError(f"column {column!r}: `{name}` = {v!r} is outside the range of its dtype {dtype}; "
                               "it cannot be written into the column")
            continue
        d = decimal.Decimal(v) if isinstance(v, int) else decimal.Decimal(repr(v))
        with decimal.localcontext() as ctx:
            ctx.prec = 200
            if options.get("replacement", "threshold") == "threshold":
                if d != d.quantize(ulp, rounding=decimal.ROUND_FLOOR):
                    raise SDCError(
                        f"column {column!r}: `{name}` = {v!r} has more decimal places than the column's scale "
                        f"{scale} ({dtype}); the coded values cannot be set to it (rounded, they could stay "
                        f"beyond it); give a threshold with at most {scale} decimals or use replacement='mean'"
                    )
                if abs(d) >= decimal.Decimal(10) ** (prec - scale):
                    raise SDCError(
                        f"column {column!r}: `{name}` = {v!r} is outside the range of its dtype {dtype}; "
                        "it cannot be written into the column"
                    )
                g = d
            else:   # the nearest grid value on the kept side: the same comparison, exactly
                g = d.quantize(ulp, rounding=decimal.ROUND_FLOOR if name == "upper" else decimal.ROUND_CEILING)
            if abs(g) >= decimal.Decimal(10) ** (38 - scale):
                raise SDCError(
                    f"column {column!r}: `{name}` = {v!r} is beyond the range of Decimal(38, {scale}); "
                    "it cannot be compared exactly with the column"
                )
        out[name] = pl.lit(g, dtype=pl.Decimal(38, scale))
    return out


def _check_float_threshold(column: str, dtype: pl.DataType, v: Any, name: str) -> None:
    """A threshold written into a float column must stay finite in its dtype: ``upper`` = -inf
    (or a Float32 column's ``upper`` = -1e40, -inf as Float32) would code every value to -inf."""
    if v is None or isinstance(v, bool) or not isinstance(v, (int, float)) or math.isnan(float(v)):
        return  # reported by top_bottom_expr
    f = pl.Series([v], dtype=pl.Float64).cast(dtype).item()
    if (name == "upper" and f == -math.inf) or (name == "lower" and f == math.inf):
        raise SDCError(
            f"column {column!r}: `{name}` = {v!r} is {'-' if f < 0 else ''}inf in its dtype {dtype}; every value "
            f"would be coded to it (give a threshold within the column's range)"
        )


def _check_int_threshold(column: str, dtype: pl.DataType, v: Any, name: str) -> None:
    """A threshold written into an integer column must be a whole number in its range."""
    if v is None or isinstance(v, bool) or not isinstance(v, (int, float)) or math.isnan(float(v)):
        return  # reported by top_bottom_expr
    info = {pl.Int8: 8, pl.Int16: 16, pl.Int32: 32, pl.Int64: 64, pl.Int128: 128}
    bits = next((b for t, b in info.items() if dtype == t), None)
    if bits is not None:
        lo_, hi_ = -(2 ** (bits - 1)), 2 ** (bits - 1) - 1
    else:
        ubits = {pl.UInt8: 8, pl.UInt16: 16, pl.UInt32: 32, pl.UInt64: 64}
        b = next((b for t, b in ubits.items() if dtype == t), 128)
        lo_, hi_ = 0, 2**b - 1
    if not (math.isfinite(float(v)) and lo_ <= v <= hi_):
        raise SDCError(
            f"column {column!r}: `{name}` = {v!r} is outside the range of its dtype {dtype} "
            f"({lo_} .. {hi_}); it cannot be written into the column"
        )
    if float(v) != math.floor(float(v)):
        raise SDCError(
            f"column {column!r}: `{name}` = {v!r} is not a whole number, but the column is {dtype}; "
            "use a whole threshold or replacement='mean'"
        )


__all__ = ["top_bottom_expr", "top_bottom_frame_exprs"]
