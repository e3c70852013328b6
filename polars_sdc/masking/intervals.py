"""Interval recoding of numeric columns (sdcMicro 5.8.1 ``globalRecode``, ``R/globalRecode.R``).

Values are replaced by the interval that holds them, labelled ``"(a, b]"`` (right-closed, as
R's ``cut``; ``right_closed=False`` gives ``"[a, b)"``), an Enum in interval order. Breaks:

- ``breaks=[b0, .., bk]``: the given cut points; values outside ``[b0, bk]`` fall in the open
  end intervals ``"(-inf, b0]"`` / ``"(bk, inf)"`` (R gives NA there: we never lose a value);
- ``n=`` with ``method="equal"`` (sdcMicro ``equidistant``): ``n + 1`` equally spaced points
  from ``min - 1`` to ``max + 1``, rounded to integers when that creates no duplicate;
- ``n=`` with ``method="quantile"`` (sdcMicro ``equalAmount``): the ``i/n`` quantiles
  (linear interpolation, R's type 7); repeated quantiles (ties) are merged instead of
  jittered, so there may be fewer than ``n`` intervals.

Built on Polars' ``bin_intervals`` (the successor of ``cut``): native, lazy and streaming.
Nulls stay null.
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


def _fmt(v: float) -> str:
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return f"{v:.8g}"        # R's dig.lab = 8


def equal_breaks(lo: float, hi: float, n: int) -> list[float]:
    """sdcMicro's ``equidistant`` cut points: ``seq(min - 1, max + 1, length = n + 1)``,
    rounded when rounding creates no duplicate.

    >>> equal_breaks(17, 90, 4)
    [16.0, 35.0, 54.0, 72.0, 91.0]
    """
    b = np.linspace(lo - 1.0, hi + 1.0, n + 1)
    r = np.round(b)
    return (r if np.unique(r).size == r.size else b).tolist()


def interval_labels(breaks: Sequence[float], right_closed: bool = True, *, open_ends: bool = True) -> list[str]:
    """Labels of the intervals cut by ``breaks`` (with the open end intervals when
    ``open_ends``).

    >>> interval_labels([0, 10])
    ['(-inf, 0]', '(0, 10]', '(10, inf)']
    """
    pts = ([-math.inf] + list(breaks) + [math.inf]) if open_ends else list(breaks)
    out = []
    for a, b in zip(pts[:-1], pts[1:]):
        if right_closed:
            out.append(f"({_fmt(a)}, {_fmt(b)}{')' if math.isinf(b) else ']'}")
        else:
            out.append(f"{'(' if math.isinf(a) else '['}{_fmt(a)}, {_fmt(b)})")
    return out


def _check_breaks(c: str, b: Any) -> list[float]:
    if isinstance(b, (str, bytes)) or not isinstance(b, (Sequence, np.ndarray)):
        raise SDCError(f"column {c!r}: breaks must be a list of numbers, got {b!r}")
    try:
        if any(isinstance(v, (bool, np.bool_)) for v in b):
            raise TypeError
        vals = [float(v) for v in b]
    except (TypeError, ValueError):
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
    return cols


def breaks_stats(cols: list[str], n: int | None, method: str) -> list[pl.Expr]:
    """The one-row aggregate the data-derived breaks need (min/max or the i/n quantiles)."""
    if n is None:
        return []
    if method == "equal":
        return [e for c in cols for e in (pl.col(c).min().alias(f"{c}\x00lo"), pl.col(c).max().alias(f"{c}\x00hi"))]
    return [pl.col(c).cast(pl.Float64).quantile(i / n, interpolation="linear").alias(f"{c}\x00q{i}")
            for c in cols for i in range(n + 1)]


def recode_intervals_exprs(
    cols: list[str], stats: pl.DataFrame | None, *, breaks: Any = None, n: int | None = None,
    method: str = "equal", right_closed: bool = True,
) -> list[pl.Expr]:
    """One ``bin_intervals`` expression per column (``stats``: the row of :func:`breaks_stats`)."""
    exprs = []
    for c in cols:
        if breaks is not None:
            b = _check_breaks(c, breaks[c] if isinstance(breaks, Mapping) else breaks)
            inner, labels = b, interval_labels(b, right_closed)
        else:
            row = stats.row(0, named=True)
            if method == "equal":
                lo, hi = row[f"{c}\x00lo"], row[f"{c}\x00hi"]
                if lo is None:
                    exprs.append(pl.lit(None, dtype=pl.Enum(["(all null)"])).alias(c))
                    continue
                pts = equal_breaks(float(lo), float(hi), n)
            else:
                qs = [row[f"{c}\x00q{i}"] for i in range(n + 1)]
                if qs[0] is None:
                    exprs.append(pl.lit(None, dtype=pl.Enum(["(all null)"])).alias(c))
                    continue
                pts = sorted(set(float(q) for q in qs))
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
        exprs.append(pl.col(c).bin_intervals(inner, labels=labels, right_closed=right_closed).alias(c))
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
    aggs = breaks_stats(cols, n, method)
    stats = df.select(aggs) if aggs else None
    return df.with_columns(recode_intervals_exprs(cols, stats, breaks=breaks, n=n, method=method,
                                                  right_closed=right_closed))
