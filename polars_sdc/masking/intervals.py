"""Interval recoding of numeric columns (sdcMicro 5.8.1 ``globalRecode``, ``R/globalRecode.R``).

Values are replaced by the interval that holds them, labelled ``"(a, b]"`` (right-closed, as
R's ``cut``; ``right_closed=False`` gives ``"[a, b)"``), an Enum in interval order. Breaks:

- ``breaks=[b0, .., bk]``: the given cut points; values outside ``[b0, bk]`` fall in the open
  end intervals ``"(-inf, b0]"`` / ``"(bk, inf)"`` (R gives NA there: we never lose a value);
- ``n=`` with ``method="equal"`` (sdcMicro ``equidistant``): ``n + 1`` equally spaced points
  from ``min - 1`` to ``max + 1``, rounded to integers when that creates no duplicate. The pad
  of 1 and the rounding to integers assume data in units of about 1: on a float column whose
  range is below 1 (values ~1e-10 .. 1e-300) they would put every value into one or two
  intervals, so there the same rule is applied in the data's own decimal unit ``u = 10^k <=
  range`` (pad ``u``, points rounded to multiples of ``u``; for a range in [0.1, 1) ``u = 0.1``).
  Integer columns and ranges >= 1 get sdcMicro's points exactly; points that do not part the
  smallest from the largest value (float64's resolution: subnormals, 1e15 + 0.125 and
  1e15 + 0.25) are an SDCError naming the column, never one silent interval;
- ``n=`` with ``method="quantile"`` (sdcMicro ``equalAmount``): the ``i/n`` quantiles
  (linear interpolation, R's type 7); repeated quantiles (ties) are merged instead of
  jittered, so there may be fewer than ``n`` intervals.

Built on Polars' ``bin_intervals`` (the successor of ``cut``) for float columns: native, lazy
and streaming. Integer columns are compared as integers (``x > floor(b)`` for ``x > b``), so
values beyond 2^53 land in the right interval (``2^53 + 1`` is above the break ``2^53``).
(``n=`` with ``"equal"`` computes such columns' points exactly as integers; ``"quantile"``
interpolates Int64 / UInt64 order statistics beyond 2^53 exactly, in fractions, and cuts at
the largest integer not above each quantile -- ``smallest not below`` with ``right_closed=False``
-- which holds the same integers as the fractional point would.) Nulls stay null; NaN and +-inf are errors (an interval cannot hold them), raised when the data
are read (on a LazyFrame at ``collect``). Labels print the break points with R's 8 significant
digits, more where 8 would make two labels equal (breaks ``1.0000000001`` and ``1.0000000002``),
and an integer break beyond 8 digits exactly.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import polars as pl

from .._columns import ColumnSpec, resolve_columns
from .._errors import SDCError
from .._validation import check_int

_METHODS = ("equal", "quantile")


def _fmt(v: float, digits: int = 8) -> str:
    if isinstance(v, float) and v == 0:
        v = 0.0                                    # -0.0 prints as 0, as R prints it
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
        text = f"{float(v):.{digits}g}"
        return text if float(text) == v and abs(v) <= 2**53 else str(int(v))
    return f"{v:.{digits}g}"        # R's dig.lab = 8


def _digits(pts: Sequence[float]) -> int:
    """The fewest significant digits from 8 (R's ``dig.lab``) to 17 that print the distinct
    break points ``pts`` as distinct strings (17 always does for floats)."""
    finite = [v for v in pts if not (isinstance(v, float) and math.isinf(v))]
    for d in range(8, 18):
        if len({_fmt(v, d) for v in finite}) == len(set(finite)):
            return d
    return 17


def equal_breaks(lo: float, hi: float, n: int) -> list[float]:
    """sdcMicro's ``equidistant`` cut points: ``seq(min - 1, max + 1, length = n + 1)``,
    rounded when rounding creates no duplicate; computed as ``a (1 - t) + b t`` so that data
    near +-1.7e308 give finite points (``b - a`` would overflow).

    >>> equal_breaks(17, 90, 4)
    [16.0, 35.0, 54.0, 72.0, 91.0]
    >>> equal_breaks(-1.7e308, 1.7e308, 2)
    [-1.7e+308, 0.0, 1.7e+308]
    """
    if isinstance(lo, int) and isinstance(hi, int) and max(abs(lo), abs(hi)) + 1 > 2**53:
        from fractions import Fraction                  # integers beyond 2^53: exact points

        exact = [Fraction(lo - 1) + Fraction(hi - lo + 2) * i / n for i in range(n + 1)]
        return sorted({round(v) for v in exact})        # integer points (half to even, as np.round)
    a, z = float(lo) - 1.0, float(hi) + 1.0
    t = np.arange(n + 1) / n
    b = a * (1.0 - t) + z * t
    b[0], b[-1] = a, z
    r = np.round(b)
    out = r if np.unique(r).size == r.size else b
    if np.unique(out).size < out.size:         # a range too narrow for n distinct points
        out = np.unique(out)
    return out.tolist()


def _pow10(v: float, k: int) -> float:
    """``v * 10^k`` of the number ``v`` is written as (its shortest repr; decimal arithmetic is
    exact here), so that a point ``3 * 10^-300`` is the float a user types as ``3e-300`` and the
    value typed as ``8e-307`` is 8 in the unit 10^-307 (its binary value scaled exactly was
    7.999999999999999, which sdcMicro's rule cuts differently from 8).

    >>> _pow10(8e-307, 307), _pow10(3.0, -300)
    (8.0, 3e-300)
    """
    from decimal import Decimal

    return float(Decimal(repr(float(v)) if isinstance(v, float) else v).scaleb(k))


def _parts(pts: Sequence[Any], lo: Any, hi: Any, right_closed: bool) -> bool:
    """True when an inner point of ``pts`` puts ``lo`` and ``hi`` into different intervals."""
    return any((lo <= b < hi) if right_closed else (lo < b <= hi) for b in pts[1:-1])


def _rule_parts(lo: Any, hi: Any, n: int, right_closed: bool) -> bool:
    """Whether sdcMicro's rule parts ``lo`` from ``hi`` in exact arithmetic (``seq(lo - 1,
    hi + 1)``, rounded unless that duplicates; ``lo``, ``hi`` in the unit the rule is applied
    in): if not, one interval for both is the rule's own result (sdcMicro puts 3 and 4 into
    one of 2 intervals), not float64's."""
    from fractions import Fraction

    a, z = Fraction(lo) - 1, Fraction(hi) + 1
    pts = [a + (z - a) * i / n for i in range(n + 1)]
    r = [Fraction(round(v)) for v in pts]
    return _parts(r if len(set(r)) == len(r) else pts, Fraction(lo), Fraction(hi), right_closed)


def column_equal_breaks(c: str, lo: Any, hi: Any, n: int, right_closed: bool = True) -> list[Any]:
    """:func:`equal_breaks` of column ``c``: sdcMicro's points for integer data and ranges >= 1;
    a float range below 1 in its decimal unit ``10^k`` (module docstring). Where the rule parts
    the smallest from the largest value but float64's points do not (its resolution), sdcMicro's
    own points are tried, then an SDCError names ``c``.

    >>> column_equal_breaks("x", 1e-10, 6e-10, 3)
    [0.0, 2e-10, 5e-10, 7e-10]
    >>> column_equal_breaks("x", 17, 90, 4)
    [16.0, 35.0, 54.0, 72.0, 91.0]
    """
    sdc = equal_breaks(lo, hi, n)
    k, pts, ends = 0, sdc, (lo, hi)
    if not isinstance(lo, int) and 0.0 < hi - lo < 1.0:
        k = math.floor(math.log10(hi - lo))
        ends = (_pow10(lo, -k), _pow10(hi, -k))
        scaled = equal_breaks(*ends, n)
        unit = sorted({_pow10(b, k) for b in scaled})
        # points that merge when scaled back (subnormal spacing) are no points of the rule
        ok = len(unit) == len(scaled) and unit[0] <= lo and unit[-1] >= hi and all(math.isfinite(v) for v in unit)
        pts = unit if ok else None
    if n == 1 or hi == lo or (pts is not None and _parts(pts, lo, hi, right_closed)):
        return pts if pts is not None else sdc
    if isinstance(lo, (int, float)) and ends[0] < ends[1] and not _rule_parts(*ends, n, right_closed):
        return pts if pts is not None else sdc          # the rule's own result
    if k and _parts(sdc, lo, hi, right_closed):
        return sdc
    raise SDCError(f"column {c!r}: its values ({lo!r} .. {hi!r}) are too close to float64's resolution to "
                   f"cut into {n} intervals; rescale the column or give breaks=")


def interval_labels(breaks: Sequence[float], right_closed: bool = True, *, open_ends: bool = True) -> list[str]:
    """Labels of the intervals cut by ``breaks`` (with the open end intervals when
    ``open_ends``).

    >>> interval_labels([0, 10])
    ['(-inf, 0]', '(0, 10]', '(10, inf)']
    """
    pts = ([-math.inf] + list(breaks) + [math.inf]) if open_ends else list(breaks)
    d = _digits(pts)
    out = []
    for a, b in zip(pts[:-1], pts[1:]):
        if right_closed:
            out.append(f"({_fmt(a, d)}, {_fmt(b, d)}{')' if math.isinf(b) else ']'}")
        else:
            out.append(f"{'(' if math.isinf(a) else '['}{_fmt(a, d)}, {_fmt(b, d)})")
    return out


def _check_breaks(c: str, b: Any) -> list[float]:
    if isinstance(b, (str, bytes)) or not isinstance(b, (Sequence, np.ndarray)):
        raise SDCError(f"column {c!r}: breaks must be a list of numbers, got {b!r}")
    try:
        if any(isinstance(v, (bool, np.bool_)) for v in b):
            raise TypeError
        # integers stay exact integers (2**53 + 1 is not 2**53)
        vals = [int(v) if isinstance(v, (int, np.integer)) else float(v) for v in b]
    except (TypeError, ValueError, OverflowError):
        raise SDCError(f"column {c!r}: breaks must be numbers, got {list(b)!r}") from None
    if not vals:
        raise SDCError(f"column {c!r}: breaks is empty")
    if not all(math.isfinite(v) for v in vals) or any(a >= b for a, b in zip(vals[:-1], vals[1:])):
        raise SDCError(f"column {c!r}: breaks must be finite and strictly increasing, got {vals}")
    return vals


def check_args(schema: pl.Schema, on: ColumnSpec, breaks: Any, n: Any, method: Any) -> list[str]:
    """Validate the arguments; returns the ``on`` columns."""
    cols = resolve_columns(schema, on, kind="numeric", default="error")
    if (breaks is None) == (n is None):
        raise SDCError("give either breaks= (cut points) or n= (number of intervals)")
    if n is not None:
        check_int(n, "n", minimum=1)
    if method not in _METHODS:
        raise SDCError(f"method must be one of {', '.join(_METHODS)}, got {method!r}")
    if breaks is not None:
        for c in cols:
            if isinstance(breaks, Mapping) and c not in breaks:
                raise SDCError(f"column {c!r}: no breaks given for it")
            _check_breaks(c, breaks[c] if isinstance(breaks, Mapping) else breaks)
        if isinstance(breaks, Mapping):   # breaks for a column not recoded (a typo) are no silent no-op
            extra = [c for c in breaks if c not in cols]
            if extra:
                raise SDCError(f"breaks: column {extra[0]!r} is not one of the `on` columns ({', '.join(cols)})")
    return cols


def breaks_stats(cols: list[str], n: int | None, method: str, scale: float = 1.0,
                 wide: Sequence[str] = ()) -> list[pl.Expr]:
    """The one-row aggregate the data-derived breaks need (min/max or the i/n quantiles, and
    the count of NaN / infinite values). ``scale``: quantiles of ``scale * x`` (0.5 when the
    interpolation of values near +-1.7e308 overflows; exact: a power of two). ``wide``: the
    Int64 / UInt64 columns, whose quantiles also get their two order statistics (exact)."""
    if n is None:
        return []
    bad = [(~pl.col(c).cast(pl.Float64).is_finite()).sum().alias(f"{c}\x00bad") for c in cols]
    if method == "equal":
        return bad + [e for c in cols for e in (pl.col(c).min().alias(f"{c}\x00lo"), pl.col(c).max().alias(f"{c}\x00hi"))]
    exact = []
    for c in cols:
        if c in wide:   # type 7: x[floor h], x[ceil h] of the sorted non-null values, h = (N - 1) i / n
            m = (pl.col(c).count().cast(pl.Int64) - 1).clip(0)
            srt = pl.col(c).drop_nulls().sort()
            exact.append(pl.col(c).count().cast(pl.Int64).alias(f"{c}\x00xn"))
            for i in range(n + 1):
                exact.append(srt.get((m * i) // n, null_on_oob=True).alias(f"{c}\x00xlo{i}"))
                exact.append(srt.get((m * i + n - 1) // n, null_on_oob=True).alias(f"{c}\x00xhi{i}"))
    return bad + exact + [(pl.col(c).cast(pl.Float64) * scale).quantile(i / n, interpolation="linear")
                          .alias(f"{c}\x00q{i}") for c in cols for i in range(n + 1)]


def wide_integer_columns(schema: Any, cols: Sequence[str]) -> list[str]:
    """The Int64 / UInt64 (and 128-bit) columns among ``cols`` (float64 quantiles are inexact beyond 2^53)."""
    return [c for c in cols if schema[c] in (pl.Int64, pl.UInt64, pl.Int128, pl.UInt128)]


def _exact_quantile_points(row: Mapping[str, Any], c: str, n: int, right_closed: bool) -> list[int] | None:
    """The quantile points of a wide integer column from its order statistics, exactly, when
    one lies beyond 2^53 (else None: the float64 quantiles are exact enough and keep the labels
    R prints); each point as the integer cut holding the same values."""
    from fractions import Fraction

    key = f"{c}\x00xn"
    if key not in row or not row[key]:
        return None
    lo = [row[f"{c}\x00xlo{i}"] for i in range(n + 1)]
    hi = [row[f"{c}\x00xhi{i}"] for i in range(n + 1)]
    if max(abs(v) for v in lo + hi) <= 2**53:
        return None
    m = row[key] - 1
    pts = set()
    for i in range(n + 1):
        q = Fraction(lo[i]) + Fraction((m * i) % n, n) * (hi[i] - lo[i])
        pts.add(math.floor(q) if right_closed else math.ceil(q))
    return sorted(pts)


def data_breaks_stats(frame: Any, cols: list[str], n: int | None, method: str) -> pl.DataFrame | None:
    """The row of :func:`breaks_stats` for a DataFrame or LazyFrame (collected: one row);
    quantiles that overflow on finite data are recomputed on the halved values, then doubled."""
    schema = frame.collect_schema() if isinstance(frame, pl.LazyFrame) else frame.schema
    aggs = breaks_stats(cols, n, method, wide=wide_integer_columns(schema, cols))
    if not aggs:
        return None
    collect = (lambda f: f.collect()) if isinstance(frame, pl.LazyFrame) else (lambda f: f)
    stats = collect(frame.select(aggs))
    if method == "quantile":
        row = stats.row(0, named=True)
        over = [k for k, v in row.items() if "\x00q" in k and v is not None and not math.isfinite(v)
                and not row[k.split("\x00")[0] + "\x00bad"]]
        if over:
            half = collect(frame.select(breaks_stats(cols, n, method, 0.5))).row(0, named=True)
            stats = stats.with_columns(pl.lit(2.0 * half[k]).alias(k) for k in over)
    return stats


def check_no_nan_inf(s: pl.Series) -> pl.Series:
    """``s`` unchanged, or an SDCError naming it when it holds NaN or +-inf.

    >>> check_no_nan_inf(pl.Series("x", [1.0, float("nan")]))
    Traceback (most recent call last):
    ...
    polars_sdc._errors.SDCError: column 'x': 1 NaN and 0 infinite value(s); an interval cannot hold them (make them null or drop them first)
    """
    nan, inf = int(s.is_nan().sum()), int(s.is_infinite().sum())
    if nan or inf:
        raise SDCError(f"column {s.name!r}: {nan} NaN and {inf} infinite value(s); an interval cannot hold them "
                       "(make them null or drop them first)")
    return s


def _finite(c: str) -> pl.Expr:
    """Column ``c`` unchanged, checked by :func:`check_no_nan_inf` when a LazyFrame's data are
    read (an eager frame is checked before, by the caller)."""
    return pl.col(c).map_batches(check_no_nan_inf, return_dtype=None, is_elementwise=True)


def _integer_bins(c: str, dtype: pl.DataType, inner: Sequence[float], labels: list[str],
                  right_closed: bool) -> pl.Expr:
    """The interval of each value of the integer column ``c`` by integer comparisons: its
    index is the number of ``inner`` breaks below it (``x > b`` is ``x > floor(b)``, ``x >= b``
    is ``x >= ceil(b)``: exact at any magnitude)."""
    if dtype in (pl.Int128, pl.UInt128):          # numpy has no 128-bit integers
        lo, hi = (-(2**127), 2**127 - 1) if dtype == pl.Int128 else (0, 2**128 - 1)
    else:
        info = np.iinfo(pl.Series([], dtype=dtype).to_numpy().dtype)
        lo, hi = int(info.min), int(info.max)
    idx: pl.Expr = pl.lit(0, dtype=pl.UInt32)
    x = pl.col(c)
    for b in inner:
        t = math.floor(b) if right_closed else math.ceil(b)
        if (right_closed and t >= hi) or (not right_closed and t > hi):
            continue                                        # no value is above it
        if (right_closed and t < lo) or (not right_closed and t <= lo):
            idx = idx + 1                                   # every value is above it
            continue
        above = (x > pl.lit(t, dtype=dtype)) if right_closed else (x >= pl.lit(t, dtype=dtype))
        idx = idx + above.cast(pl.UInt32)
    idx = pl.when(x.is_null()).then(None).otherwise(idx)
    return idx.replace_strict(list(range(len(labels))), labels, return_dtype=pl.Enum(labels))


def recode_intervals_exprs(
    cols: list[str], stats: pl.DataFrame | None, *, breaks: Any = None, n: int | None = None,
    method: str = "equal", right_closed: bool = True, schema: pl.Schema | None = None, lazy: bool = True,
) -> list[pl.Expr]:
    """One ``bin_intervals`` expression per column (``stats``: the row of :func:`breaks_stats`;
    ``schema``: the frame's, for the integer and NaN handling)."""
    exprs = []
    for c in cols:
        if breaks is not None:
            b = _check_breaks(c, breaks[c] if isinstance(breaks, Mapping) else breaks)
            inner, labels = b, interval_labels(b, right_closed)
        else:
            row = stats.row(0, named=True)
            nbad = row.get(c + "\x00bad")
            if nbad:
                raise SDCError(f"column {c!r}: {nbad} NaN or infinite value(s); an interval cannot "
                               "hold them (make them null or drop them first)")
            if method == "equal":
                lo, hi = row[f"{c}\x00lo"], row[f"{c}\x00hi"]
                if lo is None:
                    exprs.append(pl.lit(None, dtype=pl.Enum(["(all null)"])).alias(c))
                    continue
                pts = column_equal_breaks(c, lo, hi, n, right_closed)
                if len(pts) == 1:
                    pts = [pts[0], pts[0]]
            else:
                qs = [row[f"{c}\x00q{i}"] for i in range(n + 1)]
                if qs[0] is None:
                    exprs.append(pl.lit(None, dtype=pl.Enum(["(all null)"])).alias(c))
                    continue
                pts = _exact_quantile_points(row, c, n, right_closed) or sorted(set(float(q) for q in qs))
                if len(pts) == 1:
                    pts = [pts[0], pts[0]]
            inner = pts[1:-1]
            labels = interval_labels(pts, right_closed, open_ends=False)
            if labels and pts[0] == pts[-1]:
                labels = [f"[{_fmt(pts[0])}, {_fmt(pts[0])}]"]
            elif labels:
                first = labels[0]
                labels[0] = ("[" + first[1:]) if right_closed else first     # include.lowest
                if not right_closed:
                    labels[-1] = labels[-1][:-1] + "]"
        dtype = schema[c] if schema is not None else pl.Float64
        if dtype.is_integer():
            exprs.append(_integer_bins(c, dtype, inner, labels, right_closed).alias(c))
            continue
        if len(set(labels)) < len(labels):                   # pragma: no cover - _digits makes them unique
            raise SDCError(f"column {c!r}: two intervals print alike: {labels}")
        col = _finite(c) if dtype.is_float() and lazy else pl.col(c)
        if dtype == pl.Boolean:     # Polars' bin_intervals puts every Boolean into the first right-closed bin
            col = col.cast(pl.Float64)
        exprs.append(col.bin_intervals([float(v) for v in inner], labels=labels, right_closed=right_closed).alias(c))
    return exprs


def recode_intervals_frame(
    df: pl.DataFrame, on: ColumnSpec, *, breaks: Any = None, n: int | None = None, method: str = "equal",
    right_closed: bool = True,
) -> pl.DataFrame:
    """``df`` with the numeric ``on`` columns recoded into interval labels (the module
    docstring; ``df.sdc.recode_intervals`` is the same on a LazyFrame too).

    >>> recode_intervals_frame(pl.DataFrame({"x": [1, 5, 9]}), "x", breaks=[4])["x"].to_list()
    ['(-inf, 4]', '(4, inf)', '(4, inf)']
    """
    cols = check_args(df.schema, on, breaks, n, method)
    stats = data_breaks_stats(df, cols, n, method)
    return df.with_columns(recode_intervals_exprs(cols, stats, breaks=breaks, n=n, method=method,
                                                  right_closed=right_closed))
